//===- Parser.cpp - recursive-descent PTX parser ---------------------------===//
/// \file
/// Builds the AST of Ast.h from PTX text with one token of lookahead. Opcodes
/// are recognised from the Instructions.def table (longest dotted prefix),
/// modifiers from Modifiers.def. Nodes go into the module's arena; the only
/// heap traffic is the growth of a few stack SmallVectors for large bodies.
/// Errors become diagnostics and parsing resumes after the next ';'.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Parser.h"
#include "ptx/parser/Lexer.h"
#include "ptx/parser/NameTable.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

#include <cstring>

using namespace llvm;

namespace ferry::ptx {

std::string Diagnostic::format(StringRef FileName) const {
  return (FileName + ":" + Twine(Loc.Line) + ":" + Twine(Loc.Col) + ": " + Message).str();
}

namespace {

/// Opcode lookup tables built from Instructions.def: full dotted spelling ->
/// opcode, and first word -> most words any spelling starting with it has.
struct OpcodeTables {
  NameTable ByName{allOpcodes().size()};
  NameTable MaxWords{allOpcodes().size()};
  NameTable SRegs{64};
  OpcodeTables() {
    ArrayRef<OpcodeInfo> All = allOpcodes();
    for (unsigned I = 0; I < All.size(); ++I) {
      StringRef Name = All[I].Name;
      ByName.set(Name, I);
      uint16_t Words = 1 + Name.count('.');
      StringRef First = Name.split('.').first;
      MaxWords.set(First, std::max<uint16_t>(MaxWords.find(First).value_or(0), Words));
    }
#define PTX_SREG(E, S, Kind) SRegs.set(S, uint16_t(SpecialReg::E));
#include "ptx/parser/SpecialRegs.def"
  }
};
const OpcodeTables &tables() {
  static const OpcodeTables T;
  return T;
}

Component lookupComponent(StringRef S) {
  if (S.size() == 1) {
    switch (S[0]) {
    case 'x': return Component::X;
    case 'y': return Component::Y;
    case 'z': return Component::Z;
    case 'w': return Component::W;
    case 'r': return Component::R;
    case 'g': return Component::G;
    case 'b': return Component::B;
    case 'a': return Component::A;
    default: return Component::None;
    }
  }
  if (S == "b0") return Component::B0;
  if (S == "b1") return Component::B1;
  if (S == "b2") return Component::B2;
  if (S == "b3") return Component::B3;
  if (S == "h0") return Component::H0;
  if (S == "h1") return Component::H1;
  // SIMD video selectors and masks: 2-4 byte digits 0-7, or 2 halfword
  // digits 0-3.
  StringRef Digits = S.drop_front();
  bool Bytes = S[0] == 'b' && Digits.size() >= 2 && Digits.size() <= 4 &&
               llvm::all_of(Digits, [](char C) { return C >= '0' && C <= '7'; });
  bool Halves = S[0] == 'h' && Digits.size() == 2 &&
                llvm::all_of(Digits, [](char C) { return C >= '0' && C <= '3'; });
  return Bytes ? Component::Bytes : Halves ? Component::Halves : Component::None;
}

StateSpace spaceFromWord(StringRef W) {
  return StringSwitch<StateSpace>(W)
      .Case(".reg", StateSpace::Reg)
      .Case(".sreg", StateSpace::Sreg)
      .Case(".const", StateSpace::Const)
      .Case(".global", StateSpace::Global)
      .Case(".local", StateSpace::Local)
      .Case(".param", StateSpace::Param)
      .Case(".shared", StateSpace::Shared)
      .Case(".tex", StateSpace::Tex)
      .Default(StateSpace::None);
}

class Parser {
public:
  Parser(Module &M, std::vector<Diagnostic> &Diags, unsigned MaxDiags)
      : M(M), L(M.Source), Diags(Diags), MaxDiags(MaxDiags) {
    advance();
  }
  void parseModule();

private:
  Module &M;
  Lexer L;
  Token CurTok;
  const char *PrevEnd = nullptr;
  std::vector<Diagnostic> &Diags;
  unsigned MaxDiags;
  bool Abort = false;
  unsigned Depth = 0;

  /// Bounds recursion (nested blocks, braces, parentheses) so hostile input
  /// cannot exhaust the stack; past the limit parsing stops.
  struct Nest {
    Parser &P;
    explicit Nest(Parser &P) : P(P) { ++P.Depth; }
    ~Nest() { --P.Depth; }
    bool tooDeep() {
      if (P.Depth <= 200)
        return false;
      P.error(P.CurTok.Loc, "nesting too deep");
      P.Abort = true;
      return true;
    }
  };

  void advance() {
    PrevEnd = CurTok.end();
    CurTok = L.next();
  }
  Token peek() const {
    Lexer Copy = L;
    return Copy.next();
  }
  bool is(Tok K) const { return CurTok.K == K; }
  bool isWord(StringRef W) const { return CurTok.K == Tok::DotWord && CurTok.Text == W; }
  bool consume(Tok K) {
    if (CurTok.K != K)
      return false;
    advance();
    return true;
  }
  bool error(SourceLoc Loc, const Twine &Msg) {
    if (Diags.size() < MaxDiags)
      Diags.push_back({Loc, Msg.str()});
    if (Diags.size() >= MaxDiags)
      Abort = true;
    return false;
  }
  bool errorHere(const Twine &Msg) {
    if (CurTok.K == Tok::Eof)
      return error(CurTok.Loc, Msg + " (found end of input)");
    return error(CurTok.Loc, Msg + " (found '" + CurTok.Text + "')");
  }
  bool expect(Tok K, StringRef What) {
    if (consume(K))
      return true;
    return errorHere("expected " + What);
  }
  /// Skip to just after the next ';' or to (not past) a '}' of this level.
  void recover() {
    unsigned Depth = 0;
    while (!is(Tok::Eof)) {
      if (is(Tok::Semi) && Depth == 0) {
        advance();
        return;
      }
      if (is(Tok::LBrace))
        ++Depth;
      if (is(Tok::RBrace)) {
        if (Depth == 0)
          return;
        --Depth;
      }
      advance();
    }
  }
  bool adjacent() const { return CurTok.Text.data() == PrevEnd; }

  // Literals and expressions.
  bool parseIntLiteral(const Token &T, int64_t &V);
  bool parseFloatLiteral(const Token &T, uint64_t &Bits, Operand::FloatForm &Form);
  bool parseExpr(int64_t &V, unsigned MinPrec = 0);
  bool parseUnary(int64_t &V);
  bool parseUInt(uint64_t &V, StringRef What);
  StringRef unquote(StringRef S) { return S.size() >= 2 ? S.drop_front().drop_back() : S; }

  // Module scope.
  void parseTopLevel(SmallVectorImpl<Node *> &Items);
  bool parseVersion();
  bool parseTarget();
  Function *parseFunction(Linkage Link, SourceLoc Loc);
  bool parseParamList(SmallVectorImpl<VarDecl *> &Out, bool AllowUnnamed);
  bool parseDeclPrefix(VarDecl &D);
  bool parseDeclarators(const VarDecl &Proto, SmallVectorImpl<Node *> &Out, bool AllowInit);
  bool parseOneDeclarator(VarDecl &D, bool AllowInit);
  const Initializer *parseInitializer();
  bool parseStrings(SmallVectorImpl<StringRef> &Out);

  // Bodies.
  Block *parseBlock();
  void parseStatement(SmallVectorImpl<Node *> &Out);
  Instruction *parseInstruction(SourceLoc Loc);
  bool parseOperand(Operand &Op, bool InCall);
  bool parseOperandList(SmallVectorImpl<Operand> &Out, Tok Close, bool InCall);
  bool parseAddressInner(Operand &Op);
};

//===----------------------------------------------------------------------===//
// Literals and constant expressions.
//===----------------------------------------------------------------------===//

bool Parser::parseIntLiteral(const Token &T, int64_t &V) {
  StringRef S = T.Text;
  if (S.ends_with("U"))
    S = S.drop_back();
  unsigned Radix = 10;
  if (S.starts_with_insensitive("0x")) {
    Radix = 16;
    S = S.drop_front(2);
  } else if (S.starts_with_insensitive("0b")) {
    Radix = 2;
    S = S.drop_front(2);
  } else if (S.size() > 1 && S[0] == '0') {
    Radix = 8;
    S = S.drop_front();
  }
  // Hand-rolled (not StringRef::getAsInteger): literals are on the hot path.
  uint64_t U = 0;
  if (S.empty())
    return error(T.Loc, "invalid integer literal '" + T.Text + "'");
  for (char C : S) {
    unsigned D = C >= '0' && C <= '9' ? C - '0' : C >= 'a' && C <= 'f' ? C - 'a' + 10 : C >= 'A' && C <= 'F' ? C - 'A' + 10 : 99;
    if (D >= Radix || U > (UINT64_MAX - D) / Radix)
      return error(T.Loc, "invalid integer literal '" + T.Text + "'");
    U = U * Radix + D;
  }
  V = int64_t(U);
  return true;
}

bool Parser::parseFloatLiteral(const Token &T, uint64_t &Bits, Operand::FloatForm &Form) {
  StringRef S = T.Text;
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'f' || S[1] == 'F' || S[1] == 'd' || S[1] == 'D')) {
    Form = (S[1] == 'f' || S[1] == 'F') ? Operand::FloatForm::Hex32 : Operand::FloatForm::Hex64;
    if (S.drop_front(2).getAsInteger(16, Bits))
      return error(T.Loc, "invalid float literal '" + T.Text + "'");
    return true;
  }
  double D;
  if (S.getAsDouble(D, /*AllowInexact=*/true))
    return error(T.Loc, "invalid float literal '" + T.Text + "'");
  Form = Operand::FloatForm::Decimal;
  std::memcpy(&Bits, &D, 8);
  return true;
}

bool Parser::parseUnary(int64_t &V) {
  Nest N(*this);
  if (N.tooDeep())
    return false;
  SourceLoc Loc = CurTok.Loc;
  switch (CurTok.K) {
  case Tok::Int: {
    Token T = CurTok;
    advance();
    return parseIntLiteral(T, V);
  }
  case Tok::Minus:
    advance();
    if (!parseUnary(V))
      return false;
    V = int64_t(0 - uint64_t(V));
    return true;
  case Tok::Plus:
    advance();
    return parseUnary(V);
  case Tok::Tilde:
    advance();
    if (!parseUnary(V))
      return false;
    V = ~V;
    return true;
  case Tok::Bang:
    advance();
    if (!parseUnary(V))
      return false;
    V = !V;
    return true;
  case Tok::LParen:
    advance();
    if (!parseExpr(V))
      return false;
    return expect(Tok::RParen, "')' in constant expression");
  default:
    (void)Loc;
    return errorHere("expected a constant");
  }
}

/// Precedence climbing over the C-like integer operators PTX allows.
bool Parser::parseExpr(int64_t &V, unsigned MinPrec) {
  if (!parseUnary(V))
    return false;
  while (true) {
    unsigned Prec = 0;
    int OpKind = 0; // 1 shl, 2 shr
    switch (CurTok.K) {
    case Tok::Star: case Tok::Slash: case Tok::Percent: Prec = 10; break;
    case Tok::Plus: case Tok::Minus: Prec = 9; break;
    case Tok::Lt:
    case Tok::Gt: {
      Token Next = peek();
      if (Next.K != CurTok.K || Next.Text.data() != CurTok.end())
        return true; // A lone '<' or '>' ends the expression.
      Prec = 8;
      OpKind = CurTok.K == Tok::Lt ? 1 : 2;
      break;
    }
    case Tok::Amp: Prec = 6; break;
    case Tok::Caret: Prec = 5; break;
    case Tok::Pipe: Prec = 4; break;
    default: return true;
    }
    if (Prec < MinPrec)
      return true;
    Token Op = CurTok;
    advance();
    if (OpKind)
      advance();
    int64_t R;
    if (!parseExpr(R, Prec + 1))
      return false;
    uint64_t A = uint64_t(V), B = uint64_t(R);
    switch (Op.K) {
    case Tok::Star: V = int64_t(A * B); break;
    case Tok::Slash:
    case Tok::Percent:
      if (R == 0)
        return error(Op.Loc, "division by zero in constant expression");
      if (V == INT64_MIN && R == -1)
        V = Op.K == Tok::Slash ? V : 0;
      else
        V = Op.K == Tok::Slash ? V / R : V % R;
      break;
    case Tok::Plus: V = int64_t(A + B); break;
    case Tok::Minus: V = int64_t(A - B); break;
    case Tok::Lt: V = B >= 64 ? 0 : int64_t(A << B); break;
    case Tok::Gt: V = B >= 64 ? (V < 0 ? -1 : 0) : (V >> B); break;
    case Tok::Amp: V = int64_t(A & B); break;
    case Tok::Caret: V = int64_t(A ^ B); break;
    case Tok::Pipe: V = int64_t(A | B); break;
    default: break;
    }
  }
}

bool Parser::parseUInt(uint64_t &V, StringRef What) {
  if (!is(Tok::Int))
    return errorHere("expected " + What);
  int64_t S;
  Token T = CurTok;
  advance();
  if (!parseIntLiteral(T, S))
    return false;
  V = uint64_t(S);
  return true;
}

bool Parser::parseStrings(SmallVectorImpl<StringRef> &Out) {
  do {
    if (!is(Tok::String))
      return errorHere("expected a string");
    Out.push_back(unquote(CurTok.Text));
    advance();
  } while (consume(Tok::Comma));
  return true;
}

//===----------------------------------------------------------------------===//
// Module scope.
//===----------------------------------------------------------------------===//

void Parser::parseModule() {
  SmallVector<Node *, 64> Items;
  while (!is(Tok::Eof) && !Abort)
    parseTopLevel(Items);
  M.Items = M.copy(ArrayRef<Node *>(Items));
}

bool Parser::parseVersion() {
  Token T = CurTok;
  if (!is(Tok::Float) && !is(Tok::Int))
    return errorHere("expected a version number like 9.0");
  advance();
  auto [Maj, Min] = T.Text.split('.');
  unsigned A, B = 0;
  if (Maj.getAsInteger(10, A) || (!Min.empty() && Min.getAsInteger(10, B)))
    return error(T.Loc, "invalid version '" + T.Text + "'");
  M.VersionMajor = A;
  M.VersionMinor = B;
  return true;
}

bool Parser::parseTarget() {
  SmallVector<StringRef, 4> Words;
  do {
    if (!is(Tok::Ident))
      return errorHere("expected a target name");
    StringRef W = CurTok.Text;
    Words.push_back(W);
    if (W.consume_front("sm_")) {
      size_t Digits = W.find_if_not([](char C) { return C >= '0' && C <= '9'; });
      StringRef Num = W.take_front(Digits), Suffix = W.drop_front(Num.size());
      unsigned V;
      if (Num.getAsInteger(10, V) || Suffix.size() > 1 || (Suffix.size() == 1 && Suffix != "a" && Suffix != "f"))
        return error(CurTok.Loc, "invalid target '" + CurTok.Text + "'");
      M.Target.SmVersion = V;
      M.Target.ArchSuffix = Suffix.empty() ? 0 : Suffix[0];
    } else if (W == "texmode_independent") {
      M.Target.TexmodeIndependent = true;
    } else if (W == "texmode_unified") {
      M.Target.TexmodeIndependent = false;
    } else if (W == "debug") {
      M.Target.Debug = true;
    } else if (W == "map_f64_to_f32") {
      M.Target.MapF64ToF32 = true;
    } else {
      return error(CurTok.Loc, "unknown target '" + CurTok.Text + "'");
    }
    advance();
  } while (consume(Tok::Comma));
  M.Target.Raw = M.copy(ArrayRef<StringRef>(Words));
  return true;
}

void Parser::parseTopLevel(SmallVectorImpl<Node *> &Items) {
  SourceLoc Loc = CurTok.Loc;
  if (is(Tok::Semi)) {
    advance();
    return;
  }
  if (!is(Tok::DotWord)) {
    errorHere("expected a directive at module scope");
    advance();
    recover();
    return;
  }
  StringRef W = CurTok.Text;
  bool Ok = true;
  if (W == ".version") {
    advance();
    Ok = parseVersion();
  } else if (W == ".target") {
    advance();
    Ok = parseTarget();
  } else if (W == ".address_size") {
    advance();
    uint64_t V;
    Ok = parseUInt(V, "an address size");
    if (Ok && V != 32 && V != 64)
      Ok = error(Loc, "address size must be 32 or 64");
    M.AddressSize = uint32_t(V);
    M.HasAddressSize = true;
  } else if (W == ".file") {
    advance();
    auto *F = M.make<FileDirective>();
    F->Loc = Loc;
    uint64_t Idx;
    Ok = parseUInt(Idx, "a file index");
    F->Index = uint32_t(Idx);
    if (Ok && !is(Tok::String))
      Ok = errorHere("expected a file name string");
    if (Ok) {
      F->Path = unquote(CurTok.Text);
      uint32_t Line = CurTok.Loc.Line;
      advance();
      if (is(Tok::Comma) && CurTok.Loc.Line == Line) {
        const char *Start = CurTok.Text.data() + 1;
        L.restOfLine();
        F->Extra = StringRef(Start, L.position() - Start).trim();
        advance();
      }
      Items.push_back(F);
    }
  } else if (W == ".section") {
    advance();
    auto *S = M.make<Section>();
    S->Loc = Loc;
    if (!is(Tok::DotWord) && !is(Tok::Ident))
      Ok = errorHere("expected a section name");
    if (Ok) {
      S->Name = CurTok.Text;
      advance();
      if (!is(Tok::LBrace))
        Ok = errorHere("expected '{' after the section name");
    }
    if (Ok) {
      StringRef Raw;
      if (!L.skipRawUntilBrace(Raw))
        Ok = error(Loc, "unterminated .section");
      S->Raw = Raw;
      advance();
      Ok = Ok && expect(Tok::RBrace, "'}' closing .section");
      Items.push_back(S);
    }
  } else if (W == ".pragma") {
    advance();
    auto *P = M.make<Pragma>();
    P->Loc = Loc;
    SmallVector<StringRef, 2> Strs;
    Ok = parseStrings(Strs) && expect(Tok::Semi, "';' after .pragma");
    P->Strings = M.copy(ArrayRef<StringRef>(Strs));
    Items.push_back(P);
  } else if (W == ".alias") {
    advance();
    auto *A = M.make<Alias>();
    A->Loc = Loc;
    if (!is(Tok::Ident))
      Ok = errorHere("expected the alias name");
    if (Ok) {
      A->Name = CurTok.Text;
      advance();
      Ok = expect(Tok::Comma, "',' in .alias");
    }
    if (Ok && !is(Tok::Ident))
      Ok = errorHere("expected the aliased function");
    if (Ok) {
      A->Aliasee = CurTok.Text;
      advance();
      Ok = expect(Tok::Semi, "';' after .alias");
      Items.push_back(A);
    }
  } else {
    // Linkage, then a function or a variable.
    Linkage Link = StringSwitch<Linkage>(W)
                       .Case(".visible", Linkage::Visible)
                       .Case(".extern", Linkage::Extern)
                       .Case(".weak", Linkage::Weak)
                       .Case(".common", Linkage::Common)
                       .Default(Linkage::None);
    if (Link != Linkage::None && (peek().Text == ".entry" || peek().Text == ".func"))
      advance();
    if (isWord(".entry") || isWord(".func")) {
      if (Function *F = parseFunction(Link, Loc))
        Items.push_back(F);
      else
        Ok = false;
    } else {
      VarDecl Proto;
      Proto.Loc = Loc;
      Ok = parseDeclPrefix(Proto);
      if (Ok && Proto.Space == StateSpace::None)
        Ok = error(Loc, "expected a state space (.global, .const, .shared, ...) or a function; "
                        "unknown directive '" + W + "'");
      Ok = Ok && parseDeclarators(Proto, Items, /*AllowInit=*/true);
    }
  }
  if (!Ok)
    recover();
}

bool Parser::parseParamList(SmallVectorImpl<VarDecl *> &Out, bool AllowUnnamed) {
  if (!expect(Tok::LParen, "'('"))
    return false;
  if (consume(Tok::RParen))
    return true;
  do {
    auto *D = M.make<VarDecl>();
    D->Loc = CurTok.Loc;
    if (!parseDeclPrefix(*D))
      return false;
    if (D->Space != StateSpace::Param && D->Space != StateSpace::Reg)
      return error(D->Loc, "parameter must be .param or .reg");
    if (!parseOneDeclarator(*D, /*AllowInit=*/false))
      return false;
    Out.push_back(D);
  } while (consume(Tok::Comma));
  return expect(Tok::RParen, "')' closing the parameter list");
}

Function *Parser::parseFunction(Linkage Link, SourceLoc Loc) {
  auto *F = M.make<Function>();
  F->Loc = Loc;
  F->Link = Link;
  F->IsEntry = isWord(".entry");
  advance();
  SmallVector<VarDecl *, 4> Rets, Params;
  if (!F->IsEntry && is(Tok::LParen) && !parseParamList(Rets, false))
    return nullptr;
  if (!is(Tok::Ident)) {
    errorHere("expected a function name");
    return nullptr;
  }
  F->Name = CurTok.Text;
  advance();
  if (is(Tok::LParen) && !parseParamList(Params, false))
    return nullptr;
  F->Returns = M.copy(ArrayRef<VarDecl *>(Rets));
  F->Params = M.copy(ArrayRef<VarDecl *>(Params));
  SmallVector<FuncDirective, 4> Dirs;
  while (is(Tok::DotWord)) {
    FuncDirective D;
    D.Loc = CurTok.Loc;
    StringRef W = CurTok.Text.drop_front();
    bool Known = false;
    for (unsigned K = 0; K <= unsigned(FuncDirective::Kind::AbiPreserveControl); ++K)
      if (funcDirectiveName(FuncDirective::Kind(K)) == W) {
        D.K = FuncDirective::Kind(K);
        Known = true;
      }
    if (!Known) {
      errorHere("unknown function directive");
      return nullptr;
    }
    advance();
    if (D.K == FuncDirective::Kind::Pragma) {
      SmallVector<StringRef, 2> Strs;
      if (!parseStrings(Strs) || !expect(Tok::Semi, "';' after .pragma"))
        return nullptr;
      D.Strings = M.copy(ArrayRef<StringRef>(Strs));
    } else if (D.K != FuncDirective::Kind::ExplicitCluster && D.K != FuncDirective::Kind::NoReturn &&
               D.K != FuncDirective::Kind::BlocksAreClusters) {
      SmallVector<uint32_t, 3> Vals;
      do {
        uint64_t V;
        if (!parseUInt(V, "a number"))
          return nullptr;
        Vals.push_back(uint32_t(V));
      } while (consume(Tok::Comma));
      D.Values = M.copy(ArrayRef<uint32_t>(Vals));
    }
    Dirs.push_back(D);
  }
  F->Directives = M.copy(ArrayRef<FuncDirective>(Dirs));
  if (consume(Tok::Semi))
    return F;
  if (!is(Tok::LBrace)) {
    errorHere("expected '{' or ';' after the function header");
    return nullptr;
  }
  F->Body = parseBlock();
  return F;
}

bool Parser::parseDeclPrefix(VarDecl &D) {
  bool InPtr = false;
  bool SawType = false;
  while (is(Tok::DotWord)) {
    StringRef W = CurTok.Text;
    SourceLoc Loc = CurTok.Loc;
    if (StateSpace S = spaceFromWord(W); S != StateSpace::None) {
      if (InPtr)
        D.PtrSpace = S;
      else if (D.Space != StateSpace::None)
        return error(Loc, "more than one state space in a declaration");
      else
        D.Space = S;
      advance();
      continue;
    }
    Linkage Link = StringSwitch<Linkage>(W)
                       .Case(".visible", Linkage::Visible)
                       .Case(".extern", Linkage::Extern)
                       .Case(".weak", Linkage::Weak)
                       .Case(".common", Linkage::Common)
                       .Default(Linkage::None);
    if (Link != Linkage::None) {
      D.Link = Link;
      advance();
      continue;
    }
    if (W == ".align") {
      advance();
      uint64_t A;
      if (!parseUInt(A, "an alignment"))
        return false;
      if (A == 0 || (A & (A - 1)))
        return error(Loc, "alignment must be a power of two");
      (InPtr ? D.PtrAlign : D.Align) = uint32_t(A);
      continue;
    }
    if (W == ".ptr") {
      D.IsPtr = InPtr = true;
      advance();
      continue;
    }
    if (W == ".attribute") {
      advance();
      if (!expect(Tok::LParen, "'(' after .attribute"))
        return false;
      if (isWord(".managed")) {
        D.Managed = true;
        advance();
      } else if (isWord(".unified")) {
        D.Unified = true;
        advance();
        if (consume(Tok::LParen)) {
          if (!parseUInt(D.UnifiedHi, "a number") || !expect(Tok::Comma, "','") ||
              !parseUInt(D.UnifiedLo, "a number") || !expect(Tok::RParen, "')'"))
            return false;
        }
      } else {
        return errorHere("unknown attribute");
      }
      if (!expect(Tok::RParen, "')' closing .attribute"))
        return false;
      continue;
    }
    if (W == ".v2" || W == ".v4" || W == ".v8") {
      D.VecWidth = uint8_t(W[2] - '0');
      advance();
      continue;
    }
    if (auto T = lookupType(W.drop_front())) {
      if (SawType)
        return error(Loc, "more than one type in a declaration");
      D.Type = *T;
      SawType = true;
      advance();
      continue;
    }
    if (W == ".entry" || W == ".func")
      return error(Loc, "unexpected '" + W + "' in a declaration");
    return error(Loc, "unknown declaration attribute '" + W + "'");
  }
  if (!SawType)
    return errorHere("expected a type in the declaration");
  return true;
}

bool Parser::parseOneDeclarator(VarDecl &D, bool AllowInit) {
  if (!is(Tok::Ident))
    return errorHere("expected a name in the declaration");
  D.Name = CurTok.Text;
  D.Loc = CurTok.Loc;
  advance();
  if (consume(Tok::Lt)) {
    uint64_t N;
    if (!parseUInt(N, "a register count") || !expect(Tok::Gt, "'>'"))
      return false;
    if (N == 0 || N > (1u << 24))
      return error(D.Loc, "register range count out of bounds");
    D.RangeCount = uint32_t(N);
  }
  SmallVector<uint64_t, 2> Dims;
  while (consume(Tok::LBrack)) {
    if (consume(Tok::RBrack)) {
      Dims.push_back(0);
      continue;
    }
    int64_t N;
    SourceLoc Loc = CurTok.Loc;
    if (!parseExpr(N) || !expect(Tok::RBrack, "']'"))
      return false;
    if (N <= 0)
      return error(Loc, "array dimension must be positive");
    Dims.push_back(uint64_t(N));
  }
  D.Dims = M.copy(ArrayRef<uint64_t>(Dims));
  if (is(Tok::Eq)) {
    if (!AllowInit)
      return errorHere("initializer not allowed here");
    advance();
    D.Init = parseInitializer();
    if (!D.Init)
      return false;
  }
  return true;
}

bool Parser::parseDeclarators(const VarDecl &Proto, SmallVectorImpl<Node *> &Out, bool AllowInit) {
  do {
    auto *D = M.make<VarDecl>(Proto);
    if (!parseOneDeclarator(*D, AllowInit))
      return false;
    Out.push_back(D);
  } while (consume(Tok::Comma));
  return expect(Tok::Semi, "';' after the declaration");
}

const Initializer *Parser::parseInitializer() {
  Nest Guard(*this);
  if (Guard.tooDeep())
    return nullptr;
  auto *I = M.make<Initializer>();
  I->Loc = CurTok.Loc;
  if (consume(Tok::LBrace)) {
    I->K = Initializer::Kind::List;
    SmallVector<const Initializer *, 16> Elems;
    if (!is(Tok::RBrace)) {
      do {
        const Initializer *E = parseInitializer();
        if (!E)
          return nullptr;
        Elems.push_back(E);
      } while (consume(Tok::Comma));
    }
    if (!expect(Tok::RBrace, "'}' closing the initializer"))
      return nullptr;
    I->Elems = M.copy(ArrayRef<const Initializer *>(Elems));
    return I;
  }
  auto ParseSymbol = [&]() -> bool {
    I->K = Initializer::Kind::Symbol;
    if (is(Tok::Ident) && CurTok.Text == "generic" && peek().K == Tok::LParen) {
      advance();
      advance();
      if (!is(Tok::Ident))
        return errorHere("expected a symbol in generic()");
      I->Generic = true;
      I->Name = CurTok.Text;
      advance();
      if (!expect(Tok::RParen, "')' closing generic("))
        return false;
    } else if (is(Tok::Ident)) {
      I->Name = CurTok.Text;
      advance();
    } else {
      return errorHere("expected a symbol");
    }
    if (is(Tok::Plus) || is(Tok::Minus)) {
      bool Neg = is(Tok::Minus);
      advance();
      int64_t Off;
      if (!parseUnary(Off))
        return false;
      I->Offset = Neg ? -Off : Off;
    }
    return true;
  };
  if (is(Tok::Ident))
    return ParseSymbol() ? I : nullptr;
  if (is(Tok::Float) || (is(Tok::Minus) && peek().K == Tok::Float)) {
    bool Neg = consume(Tok::Minus);
    I->K = Initializer::Kind::Float;
    Token T = CurTok;
    advance();
    if (!parseFloatLiteral(T, I->FloatBits, I->FForm))
      return nullptr;
    if (Neg)
      I->FloatBits ^= I->FForm == Operand::FloatForm::Hex32 ? 0x80000000ull : 0x8000000000000000ull;
    return I;
  }
  int64_t V;
  if (!parseExpr(V))
    return nullptr;
  if (is(Tok::LParen)) { // mask form: 0xff00(sym) or 0xff00(constant)
    uint64_t Mask = uint64_t(V);
    unsigned Shift = 0;
    while (Shift < 64 && (Mask >> Shift) != 0xff)
      Shift += 8;
    if (Shift >= 64)
      return error(I->Loc, "mask must be 0xFF shifted by whole bytes"), nullptr;
    advance();
    if (is(Tok::Ident)) {
      if (!ParseSymbol())
        return nullptr;
      I->Mask = Mask;
    } else {
      int64_t C;
      if (!parseExpr(C))
        return nullptr;
      I->K = Initializer::Kind::Int;
      I->Int = int64_t((uint64_t(C) & Mask) >> Shift);
    }
    if (!expect(Tok::RParen, "')' closing the masked operand"))
      return nullptr;
    return I;
  }
  I->K = Initializer::Kind::Int;
  I->Int = V;
  return I;
}

//===----------------------------------------------------------------------===//
// Function bodies.
//===----------------------------------------------------------------------===//

Block *Parser::parseBlock() {
  Nest Guard(*this);
  auto *B = M.make<Block>();
  B->Loc = CurTok.Loc;
  if (Guard.tooDeep())
    return B;
  advance(); // '{'
  SmallVector<Node *, 32> Stmts;
  while (!is(Tok::RBrace) && !is(Tok::Eof) && !Abort)
    parseStatement(Stmts);
  if (!Abort)
    expect(Tok::RBrace, "'}' closing the block");
  B->Body = M.copy(ArrayRef<Node *>(Stmts));
  return B;
}

void Parser::parseStatement(SmallVectorImpl<Node *> &Out) {
  SourceLoc Loc = CurTok.Loc;
  switch (CurTok.K) {
  case Tok::Semi:
    advance();
    return;
  case Tok::LBrace:
    Out.push_back(parseBlock());
    return;
  case Tok::At:
    if (Instruction *I = parseInstruction(Loc))
      Out.push_back(I);
    else
      recover();
    return;
  case Tok::Ident: {
    Token Next = peek();
    if (Next.K == Tok::Colon) {
      StringRef Name = CurTok.Text;
      advance();
      advance();
      if (isWord(".branchtargets") || isWord(".calltargets")) {
        auto *T = M.make<BranchTargets>();
        T->Loc = Loc;
        T->Name = Name;
        T->IsCallTargets = isWord(".calltargets");
        advance();
        SmallVector<StringRef, 8> Names;
        bool Ok = true;
        do {
          if (!is(Tok::Ident)) {
            Ok = errorHere("expected a target name");
            break;
          }
          Names.push_back(CurTok.Text);
          advance();
        } while (consume(Tok::Comma));
        Ok = Ok && expect(Tok::Semi, "';' after the target list");
        T->Targets = M.copy(ArrayRef<StringRef>(Names));
        Out.push_back(T);
        if (!Ok)
          recover();
        return;
      }
      if (isWord(".callprototype")) {
        auto *P = M.make<CallPrototype>();
        P->Loc = Loc;
        P->Name = Name;
        advance();
        SmallVector<VarDecl *, 2> Rets, Params;
        bool Ok = true;
        if (is(Tok::LParen))
          Ok = parseParamList(Rets, true);
        if (Ok && !(is(Tok::Ident) && CurTok.Text == "_"))
          Ok = errorHere("expected '_' in .callprototype");
        if (Ok) {
          advance();
          if (is(Tok::LParen))
            Ok = parseParamList(Params, true);
        }
        if (Ok && isWord(".noreturn")) {
          P->NoReturn = true;
          advance();
        }
        Ok = Ok && expect(Tok::Semi, "';' after .callprototype");
        P->Returns = M.copy(ArrayRef<VarDecl *>(Rets));
        P->Params = M.copy(ArrayRef<VarDecl *>(Params));
        Out.push_back(P);
        if (!Ok)
          recover();
        return;
      }
      auto *Lab = M.make<Label>();
      Lab->Loc = Loc;
      Lab->Name = Name;
      Out.push_back(Lab);
      return;
    }
    if (Instruction *I = parseInstruction(Loc))
      Out.push_back(I);
    else
      recover();
    return;
  }
  case Tok::DotWord: {
    StringRef W = CurTok.Text;
    if (W == ".pragma") {
      advance();
      auto *P = M.make<Pragma>();
      P->Loc = Loc;
      SmallVector<StringRef, 2> Strs;
      bool Ok = parseStrings(Strs) && expect(Tok::Semi, "';' after .pragma");
      P->Strings = M.copy(ArrayRef<StringRef>(Strs));
      Out.push_back(P);
      if (!Ok)
        recover();
      return;
    }
    if (W == ".loc") {
      advance();
      auto *D = M.make<LocDirective>();
      D->Loc = Loc;
      uint64_t F, Ln, C;
      if (!parseUInt(F, "a file index") || !parseUInt(Ln, "a line") || !parseUInt(C, "a column")) {
        recover();
        return;
      }
      D->File = uint32_t(F);
      D->Line = uint32_t(Ln);
      D->Col = uint32_t(C);
      if (is(Tok::Comma) && CurTok.Loc.Line == Loc.Line) {
        const char *Start = CurTok.Text.data() + 1;
        L.restOfLine();
        D->Extra = StringRef(Start, L.position() - Start).trim();
        advance();
      }
      Out.push_back(D);
      return;
    }
    VarDecl Proto;
    Proto.Loc = Loc;
    if (!parseDeclPrefix(Proto) || (Proto.Space == StateSpace::None &&
                                    error(Loc, "unknown directive '" + W + "' in a function body")) ||
        !parseDeclarators(Proto, Out, /*AllowInit=*/true))
      recover();
    return;
  }
  default:
    errorHere("expected an instruction, label or declaration");
    if (!is(Tok::RBrace))
      advance();
    recover();
    return;
  }
}

Instruction *Parser::parseInstruction(SourceLoc Loc) {
  auto *I = M.make<Instruction>();
  I->Loc = Loc;
  if (consume(Tok::At)) {
    I->GuardLoc = CurTok.Loc;
    I->GuardNegated = consume(Tok::Bang);
    if (!is(Tok::Ident)) {
      errorHere("expected a predicate after '@'");
      return nullptr;
    }
    I->Guard = CurTok.Text;
    advance();
    I->Loc = CurTok.Loc;
  }
  if (!is(Tok::Ident)) {
    errorHere("expected an instruction");
    return nullptr;
  }
  // The opcode words: an identifier and the dotted words glued to it.
  SmallVector<Token, 8> Words;
  Words.push_back(CurTok);
  advance();
  while (is(Tok::DotWord) && adjacent()) {
    Words.push_back(CurTok);
    advance();
  }
  const OpcodeTables &T = tables();
  std::optional<uint16_t> MW = T.MaxWords.find(Words[0].Text);
  if (!MW) {
    error(Words[0].Loc, "unknown instruction '" + Words[0].Text + "'");
    return nullptr;
  }
  unsigned Used = 0;
  for (unsigned K = std::min<unsigned>(*MW, Words.size()); K >= 1; --K) {
    StringRef Name(Words[0].Text.data(), Words[K - 1].end() - Words[0].Text.data());
    if (std::optional<uint16_t> Op = T.ByName.find(Name)) {
      I->Op = Opcode(*Op);
      Used = K;
      break;
    }
  }
  if (!Used) {
    error(Words[0].Loc, "unknown instruction '" + Words[0].Text + "'");
    return nullptr;
  }
  SmallVector<Modifier, 8> Mods;
  bool Ok = true;
  for (unsigned K = Used; K < Words.size(); ++K) {
    if (auto Mod = lookupModifier(Words[K].Text.drop_front()))
      Mods.push_back(*Mod);
    else
      Ok = error(Words[K].Loc, "unknown modifier '" + Words[K].Text + "' on '" + I->info().Name + "'");
  }
  I->Mods = M.copy(ArrayRef<Modifier>(Mods));
  SmallVector<Operand, 6> Ops;
  if (!is(Tok::Semi)) {
    bool InCall = I->info().Flags & IF_Call;
    do {
      Operand Op;
      if (!parseOperand(Op, InCall))
        return nullptr;
      Ops.push_back(Op);
    } while (consume(Tok::Comma));
  }
  // ptxas reads a one-element {vector} as its element where no .vN is
  // written: Triton's inline assembly (XLA's and Triton's kernels) loads and
  // stores scalars as `ld.global.b32 { %r1 }, [%rd1];`.
  bool IsMemData = I->Op == Opcode::Ld || I->Op == Opcode::Ldu || I->Op == Opcode::St;
  if (IsMemData && Ops.size() >= 2 && !I->has(Modifier::V2) && !I->has(Modifier::V4) && !I->has(Modifier::V8)) {
    Operand &Data = Ops[I->Op == Opcode::St ? 1 : 0];
    if (Data.K == Operand::Kind::Vector && Data.Elems.size() == 1)
      Data = Data.Elems[0];
  }
  I->Ops = M.copy(ArrayRef<Operand>(Ops));
  if (!expect(Tok::Semi, "';' after the instruction"))
    return nullptr;
  return Ok ? I : nullptr;
}

bool Parser::parseOperandList(SmallVectorImpl<Operand> &Out, Tok Close, bool InCall) {
  if (consume(Close))
    return true;
  do {
    Operand Op;
    if (!parseOperand(Op, InCall))
      return false;
    Out.push_back(Op);
  } while (consume(Tok::Comma));
  return expect(Close, Close == Tok::RBrace ? "'}'" : Close == Tok::RParen ? "')'" : "']'");
}

bool Parser::parseAddressInner(Operand &Op) {
  // [name], [name+imm], [name-imm], [imm]
  Op.K = Operand::Kind::Address;
  if (is(Tok::Ident)) {
    Op.Name = CurTok.Text;
    advance();
    if (is(Tok::Plus) || is(Tok::Minus)) {
      bool Neg = is(Tok::Minus);
      advance();
      int64_t V;
      if (!parseUnary(V))
        return false;
      while (is(Tok::Plus) || is(Tok::Minus)) { // [r+4+8]
        bool N2 = is(Tok::Minus);
        advance();
        int64_t W;
        if (!parseUnary(W))
          return false;
        V = N2 ? V - W : V + W;
      }
      Op.Int = Neg ? -V : V;
    }
    return true;
  }
  return parseExpr(Op.Int);
}

bool Parser::parseOperand(Operand &Op, bool InCall) {
  Nest Guard(*this);
  if (Guard.tooDeep())
    return false;
  Op.Loc = CurTok.Loc;
  switch (CurTok.K) {
  case Tok::Bang:
    advance();
    if (!parseOperand(Op, InCall))
      return false;
    Op.Negated = true;
    return true;
  case Tok::LBrace: {
    advance();
    SmallVector<Operand, 8> Elems;
    if (!parseOperandList(Elems, Tok::RBrace, InCall))
      return false;
    Op.K = Operand::Kind::Vector;
    Op.Elems = M.copy(ArrayRef<Operand>(Elems));
    return true;
  }
  case Tok::LBrack: {
    advance();
    Operand First;
    First.Loc = CurTok.Loc;
    if (is(Tok::LBrace)) {
      if (!parseOperand(First, InCall))
        return false;
    } else if (!parseAddressInner(First)) {
      return false;
    }
    if (consume(Tok::RBrack)) {
      if (First.K != Operand::Kind::Address)
        return error(Op.Loc, "expected an address");
      First.Loc = Op.Loc;
      Op = First;
      return true;
    }
    if (!is(Tok::Comma))
      return errorHere("expected ']' or ',' in brackets");
    advance();
    if (First.K == Operand::Kind::Address) // A lone name or number inside [a, ...].
      First.K = First.Name.empty() ? Operand::Kind::Int : Operand::Kind::Name;
    SmallVector<Operand, 4> Elems;
    Elems.push_back(First);
    if (!parseOperandList(Elems, Tok::RBrack, InCall))
      return false;
    Op.K = Operand::Kind::Bracket;
    Op.Elems = M.copy(ArrayRef<Operand>(Elems));
    return true;
  }
  case Tok::LParen:
    if (InCall) {
      advance();
      SmallVector<Operand, 8> Elems;
      if (!parseOperandList(Elems, Tok::RParen, InCall))
        return false;
      Op.K = Operand::Kind::ParenList;
      Op.Elems = M.copy(ArrayRef<Operand>(Elems));
      return true;
    }
    Op.K = Operand::Kind::Int;
    return parseExpr(Op.Int);
  case Tok::Ident: {
    StringRef Name = CurTok.Text;
    advance();
    if (Name == "_") {
      Op.K = Operand::Kind::Sink;
      return true;
    }
    if (Name == "WARP_SZ") { // The one predefined constant (5.4.?).
      Op.K = Operand::Kind::Int;
      Op.Int = 32;
      return true;
    }
    Op.K = Operand::Kind::Name;
    Op.Name = Name;
    if (Name[0] == '%') {
      StringRef S = Name.drop_front();
      const NameTable &SRegs = tables().SRegs;
      std::optional<uint16_t> It = SRegs.find(S);
      int64_t Index = -1;
      if (!It) {
        // Indexed families: %envreg<N>, %pm<N>, %pm<N>_64.
        bool Is64 = S.consume_back("_64");
        size_t Digits = S.find_if([](char C) { return C >= '0' && C <= '9'; });
        StringRef Base = Digits != StringRef::npos ? S.take_front(Digits) : StringRef();
        if (Base == "envreg" || Base == "pm") { // Not %r57 and the like.
          unsigned N;
          if (!S.drop_front(Digits).getAsInteger(10, N)) {
            if (Base == "envreg" && !Is64 && N < 32) {
              It = uint16_t(SpecialReg::EnvReg);
              Index = N;
            } else if (Base == "pm" && N < 8) {
              It = uint16_t(Is64 ? SpecialReg::Pm64 : SpecialReg::Pm);
              Index = N;
            }
          }
        }
      } else if (specialRegKind(SpecialReg(*It)) == SpecialRegKind::Indexed) {
        It.reset(); // "%envreg" alone is an ordinary name.
      }
      if (It) {
        Op.K = Operand::Kind::SReg;
        Op.SReg = SpecialReg(*It);
        Op.Int = Index < 0 ? 0 : Index;
      }
    }
    if (is(Tok::DotWord) && adjacent()) {
      Component C = lookupComponent(CurTok.Text.drop_front());
      if (C == Component::None)
        return errorHere("unknown register component");
      Op.Comp = C;
      if (C == Component::Bytes || C == Component::Halves)
        Op.Lanes = CurTok.Text.drop_front(2);
      advance();
    }
    if (is(Tok::Pipe)) {
      advance();
      Operand Second;
      Second.Loc = CurTok.Loc;
      if (!is(Tok::Ident))
        return errorHere("expected a predicate after '|'");
      Second.K = Operand::Kind::Name;
      Second.Name = CurTok.Text;
      advance();
      Operand Pair[2] = {Op, Second};
      Op = Operand();
      Op.Loc = Pair[0].Loc;
      Op.K = Operand::Kind::Pair;
      Op.Elems = M.copy(ArrayRef<Operand>(Pair));
      return true;
    }
    if (Op.K == Operand::Kind::Name && (is(Tok::Plus) || is(Tok::Minus))) {
      bool Neg = is(Tok::Minus);
      advance();
      int64_t V;
      if (!parseUnary(V))
        return false;
      Op.Int = Neg ? -V : V;
    }
    return true;
  }
  case Tok::Float: {
    Token T = CurTok;
    advance();
    Op.K = Operand::Kind::Float;
    return parseFloatLiteral(T, Op.FloatBits, Op.FForm);
  }
  case Tok::Minus:
    if (peek().K == Tok::Float) {
      advance();
      Token T = CurTok;
      advance();
      Op.K = Operand::Kind::Float;
      if (!parseFloatLiteral(T, Op.FloatBits, Op.FForm))
        return false;
      Op.FloatBits ^= Op.FForm == Operand::FloatForm::Hex32 ? 0x80000000ull : 0x8000000000000000ull;
      return true;
    }
    if (peek().K == Tok::Ident) { // -%r: vmad's negated sources.
      advance();
      if (!parseOperand(Op, InCall))
        return false;
      Op.Minus = true;
      return true;
    }
    [[fallthrough]];
  case Tok::Int:
  case Tok::Tilde:
  case Tok::Plus:
    Op.K = Operand::Kind::Int;
    return parseExpr(Op.Int);
  default:
    return errorHere("expected an operand");
  }
}

} // namespace

ParseResult parse(StringRef Text, StringRef FileName, unsigned MaxDiags) {
  ParseResult R;
  R.M = std::make_unique<Module>();
  Module &M = *R.M;
  char *Buf = M.arena().Allocate<char>(Text.size() + FileName.size() + 1);
  std::memcpy(Buf, Text.data(), Text.size());
  std::memcpy(Buf + Text.size(), FileName.data(), FileName.size());
  Buf[Text.size() + FileName.size()] = 0;
  M.Source = StringRef(Buf, Text.size());
  M.FileName = StringRef(Buf + Text.size(), FileName.size());
  if (MaxDiags == 0)
    MaxDiags = 1;
  Parser P(M, R.Diags, MaxDiags);
  P.parseModule();
  if (R.Diags.empty() && M.VersionMajor == 0)
    R.Diags.push_back({{1, 1}, "missing .version directive"});
  return R;
}

Expected<std::unique_ptr<Module>> parseAndCheck(StringRef Text, StringRef FileName) {
  ParseResult R = parse(Text, FileName);
  if (R.ok())
    R.Diags = checkModule(*R.M);
  if (R.ok())
    return std::move(R.M);
  std::string Msg;
  for (const Diagnostic &D : R.Diags) {
    if (!Msg.empty())
      Msg += '\n';
    Msg += D.format(FileName);
  }
  return createStringError(inconvertibleErrorCode(), Msg);
}

} // namespace ferry::ptx
