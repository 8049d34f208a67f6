//===- Lexer.cpp - PTX tokenizer ---------------------------------------------===//
/// \file
/// A table-driven scanner (character classes in a 256-entry table) so the
/// hot loop is a few compares per character; see Lexer.h.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Lexer.h"

using namespace llvm;

namespace ferry::ptx {

namespace {
enum : uint8_t { CIdent = 1, CDigit = 2, CHex = 4, CSpace = 8 };
struct CharTable {
  uint8_t T[256] = {};
  constexpr CharTable() {
    for (int C = 'a'; C <= 'z'; ++C)
      T[C] |= CIdent;
    for (int C = 'A'; C <= 'Z'; ++C)
      T[C] |= CIdent;
    for (int C = '0'; C <= '9'; ++C)
      T[C] |= CIdent | CDigit | CHex;
    for (int C = 'a'; C <= 'f'; ++C)
      T[C] |= CHex;
    for (int C = 'A'; C <= 'F'; ++C)
      T[C] |= CHex;
    T[(unsigned char)'_'] |= CIdent;
    T[(unsigned char)'$'] |= CIdent;
    T[(unsigned char)' '] |= CSpace;
    T[(unsigned char)'\t'] |= CSpace;
    T[(unsigned char)'\r'] |= CSpace;
    T[(unsigned char)'\f'] |= CSpace;
    T[(unsigned char)'\v'] |= CSpace;
  }
};
constexpr CharTable Chars;
inline bool isIdent(char C) { return Chars.T[(unsigned char)C] & CIdent; }
inline bool isDigit(char C) { return Chars.T[(unsigned char)C] & CDigit; }
inline bool isHex(char C) { return Chars.T[(unsigned char)C] & CHex; }
} // namespace

void Lexer::skipSpace() {
  while (Cur < End) {
    char C = *Cur;
    if (Chars.T[(unsigned char)C] & CSpace) {
      ++Cur;
    } else if (C == '\n') {
      ++Cur;
      ++Line;
      LineStart = Cur;
    } else if (C == '/' && Cur + 1 < End && Cur[1] == '/') {
      while (Cur < End && *Cur != '\n')
        ++Cur;
    } else if (C == '/' && Cur + 1 < End && Cur[1] == '*') {
      const char *P = Cur + 2;
      while (P + 1 < End && !(P[0] == '*' && P[1] == '/')) {
        if (*P == '\n') {
          ++Line;
          LineStart = P + 1;
        }
        ++P;
      }
      if (P + 1 >= End) { // Unterminated: let next() report it.
        return;
      }
      Cur = P + 2;
    } else if (C == '#' ) {
      // Preprocessor-style lines (#line, #include) are not PTX the compiler
      // emits; skip them like comments rather than failing.
      while (Cur < End && *Cur != '\n')
        ++Cur;
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skipSpace();
  Token T;
  T.Loc = loc();
  const char *Start = Cur;
  if (Cur >= End) {
    T.K = Tok::Eof;
    T.Text = StringRef(End, 0);
    return T;
  }
  char C = *Cur;
  auto Finish = [&](Tok K) {
    T.K = K;
    T.Text = StringRef(Start, Cur - Start);
    return T;
  };
  if (C == '/' && Cur + 1 < End && Cur[1] == '*') { // Unterminated comment.
    Cur = End;
    T.Text = StringRef(Start, 2);
    T.K = Tok::Error;
    return T;
  }
  if (isDigit(C)) {
    // Hex floats 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX.
    if (C == '0' && Cur + 1 < End && (Cur[1] == 'f' || Cur[1] == 'F' || Cur[1] == 'd' || Cur[1] == 'D')) {
      unsigned Want = (Cur[1] == 'f' || Cur[1] == 'F') ? 8 : 16;
      const char *P = Cur + 2;
      while (P < End && isHex(*P))
        ++P;
      if (unsigned(P - Cur - 2) == Want && (P >= End || !isIdent(*P))) {
        Cur = P;
        return Finish(Tok::Float);
      }
    }
    if (C == '0' && Cur + 1 < End && (Cur[1] == 'x' || Cur[1] == 'X')) {
      Cur += 2;
      while (Cur < End && isHex(*Cur))
        ++Cur;
    } else if (C == '0' && Cur + 1 < End && (Cur[1] == 'b' || Cur[1] == 'B')) {
      Cur += 2;
      while (Cur < End && (*Cur == '0' || *Cur == '1'))
        ++Cur;
    } else {
      while (Cur < End && isDigit(*Cur))
        ++Cur;
      bool IsFloat = false;
      if (Cur < End && *Cur == '.' && (Cur + 1 >= End || !isIdent(Cur[1]) || isDigit(Cur[1]))) {
        IsFloat = true;
        ++Cur;
        while (Cur < End && isDigit(*Cur))
          ++Cur;
      }
      if (Cur < End && (*Cur == 'e' || *Cur == 'E')) {
        const char *P = Cur + 1;
        if (P < End && (*P == '+' || *P == '-'))
          ++P;
        if (P < End && isDigit(*P)) {
          IsFloat = true;
          Cur = P;
          while (Cur < End && isDigit(*Cur))
            ++Cur;
        }
      }
      if (IsFloat)
        return Finish(Tok::Float);
    }
    if (Cur < End && *Cur == 'U')
      ++Cur;
    if (Cur < End && isIdent(*Cur)) { // "12abc": not a number.
      while (Cur < End && isIdent(*Cur))
        ++Cur;
      return Finish(Tok::Error);
    }
    return Finish(Tok::Int);
  }
  if (isIdent(C) || ((C == '%') && Cur + 1 < End && isIdent(Cur[1]))) {
    ++Cur;
    while (Cur < End && isIdent(*Cur))
      ++Cur;
    return Finish(Tok::Ident);
  }
  if (C == '.' && Cur + 1 < End && isIdent(Cur[1])) {
    ++Cur;
    while (Cur < End) {
      if (isIdent(*Cur))
        ++Cur;
      else if (*Cur == ':' && Cur + 2 < End && Cur[1] == ':' && isIdent(Cur[2]))
        Cur += 2;
      else
        break;
    }
    return Finish(Tok::DotWord);
  }
  if (C == '"') {
    ++Cur;
    while (Cur < End && *Cur != '"' && *Cur != '\n') {
      if (*Cur == '\\' && Cur + 1 < End && Cur[1] != '\n')
        ++Cur;
      ++Cur;
    }
    if (Cur >= End || *Cur != '"')
      return Finish(Tok::Error);
    ++Cur;
    return Finish(Tok::String);
  }
  ++Cur;
  switch (C) {
  case ',': return Finish(Tok::Comma);
  case ';': return Finish(Tok::Semi);
  case ':': return Finish(Tok::Colon);
  case '(': return Finish(Tok::LParen);
  case ')': return Finish(Tok::RParen);
  case '[': return Finish(Tok::LBrack);
  case ']': return Finish(Tok::RBrack);
  case '{': return Finish(Tok::LBrace);
  case '}': return Finish(Tok::RBrace);
  case '<': return Finish(Tok::Lt);
  case '>': return Finish(Tok::Gt);
  case '@': return Finish(Tok::At);
  case '!': return Finish(Tok::Bang);
  case '|': return Finish(Tok::Pipe);
  case '+': return Finish(Tok::Plus);
  case '-': return Finish(Tok::Minus);
  case '*': return Finish(Tok::Star);
  case '/': return Finish(Tok::Slash);
  case '%': return Finish(Tok::Percent);
  case '&': return Finish(Tok::Amp);
  case '^': return Finish(Tok::Caret);
  case '~': return Finish(Tok::Tilde);
  case '=': return Finish(Tok::Eq);
  case '?': return Finish(Tok::Question);
  default: return Finish(Tok::Error);
  }
}

bool Lexer::skipRawUntilBrace(StringRef &Raw) {
  const char *Start = Cur;
  while (Cur < End && *Cur != '}') {
    if (*Cur == '\n') {
      ++Line;
      LineStart = Cur + 1;
    }
    ++Cur;
  }
  Raw = StringRef(Start, Cur - Start);
  return Cur < End;
}

StringRef Lexer::restOfLine() {
  const char *Start = Cur;
  while (Cur < End && *Cur != '\n' && *Cur != ';' && !(*Cur == '/' && Cur + 1 < End && Cur[1] == '/'))
    ++Cur;
  return StringRef(Start, Cur - Start).trim();
}

} // namespace ferry::ptx
