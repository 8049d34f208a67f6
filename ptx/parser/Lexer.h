//===- Lexer.h - PTX tokenizer ----------------------------------*- C++ -*-===//
/// \file
/// Splits PTX text into tokens on demand, without allocating: a token is a
/// kind, a StringRef into the text and a line/column. Dotted words
/// (".global", ".L2::cache_hint", ".2d") are single tokens including the
/// dot; the parser decides by adjacency whether they continue an opcode or a
/// register (%tid.x) or start a directive.
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/parser/Ast.h"

#include "llvm/ADT/StringRef.h"

namespace ferry::ptx {

enum class Tok : uint8_t {
  Eof, Ident, DotWord, Int, Float, String,
  Comma, Semi, Colon, LParen, RParen, LBrack, RBrack, LBrace, RBrace,
  Lt, Gt, At, Bang, Pipe, Plus, Minus, Star, Slash, Percent, Amp, Caret,
  Tilde, Eq, Question, Error,
};

struct Token {
  Tok K = Tok::Eof;
  llvm::StringRef Text; ///< Exactly as written (DotWord includes the '.').
  SourceLoc Loc;
  const char *end() const { return Text.data() + Text.size(); }
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef Buf) : Cur(Buf.begin()), End(Buf.end()), LineStart(Buf.begin()) {}
  /// The next token; Tok::Error for a character PTX does not use (Text is
  /// that character) or an unterminated string/comment.
  Token next();
  /// The raw text from the current position up to (not including) the next
  /// unmatched '}' , consumed; used for .section bodies. Returns false if the
  /// text ends first.
  bool skipRawUntilBrace(llvm::StringRef &Raw);
  /// The rest of the current line (up to a newline or ';'), trimmed, consumed.
  llvm::StringRef restOfLine();
  const char *position() const { return Cur; }
  SourceLoc loc() const { return {Line, uint32_t(Cur - LineStart + 1)}; }

private:
  void skipSpace();
  const char *Cur, *End, *LineStart;
  uint32_t Line = 1;
};

} // namespace ferry::ptx
