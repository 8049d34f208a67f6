//===- Printer.cpp - AST back to PTX text ------------------------------------===//
/// \file
/// Prints a Module as PTX that parses back to an equal Module (the round-trip
/// tests depend on it). Opcodes and modifiers are spelled from the same
/// tables the parser reads. Float immediates print in hex (0f/0d) so values
/// survive exactly.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Parser.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace ferry::ptx {

namespace {

void printFloat(raw_ostream &OS, Operand::FloatForm Form, uint64_t Bits) {
  if (Form == Operand::FloatForm::Hex32)
    OS << "0f" << format_hex_no_prefix(Bits & 0xffffffffu, 8, /*Upper=*/true);
  else
    OS << "0d" << format_hex_no_prefix(Bits, 16, /*Upper=*/true);
}

void printOffset(raw_ostream &OS, int64_t V) {
  if (V > 0)
    OS << '+' << V;
  else if (V < 0)
    OS << '-' << (0 - uint64_t(V));
}

void printOperand(raw_ostream &OS, const Operand &Op) {
  if (Op.Negated)
    OS << '!';
  if (Op.Minus)
    OS << '-';
  auto List = [&](char Open, char Close) {
    OS << Open;
    for (size_t I = 0; I < Op.Elems.size(); ++I) {
      if (I)
        OS << ", ";
      printOperand(OS, Op.Elems[I]);
    }
    OS << Close;
  };
  switch (Op.K) {
  case Operand::Kind::Reg:
  case Operand::Kind::Name:
    OS << Op.Name;
    if (Op.Comp != Component::None)
      OS << '.' << componentName(Op.Comp) << Op.Lanes;
    printOffset(OS, Op.Int);
    break;
  case Operand::Kind::SReg: {
    StringRef N = specialRegName(Op.SReg);
    if (specialRegKind(Op.SReg) == SpecialRegKind::Indexed) {
      bool Is64 = N.consume_back("_64");
      OS << '%' << N << Op.Int << (Is64 ? "_64" : "");
    } else {
      OS << '%' << N;
    }
    if (Op.Comp != Component::None)
      OS << '.' << componentName(Op.Comp);
    break;
  }
  case Operand::Kind::Sink: OS << '_'; break;
  case Operand::Kind::Int: OS << Op.Int; break;
  case Operand::Kind::Float: printFloat(OS, Op.FForm, Op.FloatBits); break;
  case Operand::Kind::Address:
    OS << '[';
    if (Op.Name.empty())
      OS << Op.Int;
    else {
      OS << Op.Name;
      printOffset(OS, Op.Int);
    }
    OS << ']';
    break;
  case Operand::Kind::Vector: List('{', '}'); break;
  case Operand::Kind::Bracket: List('[', ']'); break;
  case Operand::Kind::ParenList: List('(', ')'); break;
  case Operand::Kind::Pair:
    printOperand(OS, Op.Elems[0]);
    OS << '|';
    printOperand(OS, Op.Elems[1]);
    break;
  }
}

void printInit(raw_ostream &OS, const Initializer &I) {
  switch (I.K) {
  case Initializer::Kind::Int: OS << I.Int; break;
  case Initializer::Kind::Float: printFloat(OS, I.FForm, I.FloatBits); break;
  case Initializer::Kind::Symbol:
    if (I.Mask)
      OS << format_hex(I.Mask, 2) << '(';
    if (I.Generic)
      OS << "generic(" << I.Name << ')';
    else
      OS << I.Name;
    printOffset(OS, I.Offset);
    if (I.Mask)
      OS << ')';
    break;
  case Initializer::Kind::List:
    OS << '{';
    for (size_t E = 0; E < I.Elems.size(); ++E) {
      if (E)
        OS << ", ";
      printInit(OS, *I.Elems[E]);
    }
    OS << '}';
    break;
  }
}

void printDecl(raw_ostream &OS, const VarDecl &D) {
  if (D.Link != Linkage::None)
    OS << '.' << linkageName(D.Link) << ' ';
  OS << '.' << stateSpaceName(D.Space);
  if (D.Managed)
    OS << " .attribute(.managed)";
  if (D.Unified)
    OS << " .attribute(.unified(" << D.UnifiedHi << ", " << D.UnifiedLo << "))";
  if (D.Align)
    OS << " .align " << D.Align;
  if (D.VecWidth)
    OS << " .v" << unsigned(D.VecWidth);
  OS << " ." << typeName(D.Type);
  if (D.IsPtr) {
    OS << " .ptr";
    if (D.PtrSpace != StateSpace::None)
      OS << '.' << stateSpaceName(D.PtrSpace);
    if (D.PtrAlign)
      OS << ".align " << D.PtrAlign;
  }
  OS << ' ' << D.Name;
  if (D.RangeCount)
    OS << '<' << D.RangeCount << '>';
  for (uint64_t Dim : D.Dims) {
    OS << '[';
    if (Dim)
      OS << Dim;
    OS << ']';
  }
  if (D.Init) {
    OS << " = ";
    printInit(OS, *D.Init);
  }
}

void printParams(raw_ostream &OS, ArrayRef<VarDecl *> Ps) {
  OS << '(';
  for (size_t I = 0; I < Ps.size(); ++I) {
    OS << (I ? ",\n\t" : "\n\t");
    printDecl(OS, *Ps[I]);
  }
  OS << (Ps.empty() ? ")" : "\n)");
}

void printStrings(raw_ostream &OS, ArrayRef<StringRef> Strs) {
  for (size_t I = 0; I < Strs.size(); ++I)
    OS << (I ? ", \"" : "\"") << Strs[I] << '"';
}

void printStatements(raw_ostream &OS, ArrayRef<Node *> Body, unsigned Depth);

void printStatement(raw_ostream &OS, const Node &N, unsigned Depth) {
  auto Indent = [&] {
    for (unsigned I = 0; I < Depth; ++I)
      OS << '\t';
  };
  switch (N.getKind()) {
  case Node::Kind::Instruction:
    Indent();
    printInstruction(cast<Instruction>(N), OS);
    OS << '\n';
    break;
  case Node::Kind::Label: OS << cast<Label>(N).Name << ":\n"; break;
  case Node::Kind::Var:
    Indent();
    printDecl(OS, cast<VarDecl>(N));
    OS << ";\n";
    break;
  case Node::Kind::Block:
    Indent();
    OS << "{\n";
    printStatements(OS, cast<Block>(N).Body, Depth + 1);
    Indent();
    OS << "}\n";
    break;
  case Node::Kind::Pragma:
    Indent();
    OS << ".pragma ";
    printStrings(OS, cast<Pragma>(N).Strings);
    OS << ";\n";
    break;
  case Node::Kind::Loc: {
    auto &L = cast<LocDirective>(N);
    Indent();
    OS << ".loc " << L.File << ' ' << L.Line << ' ' << L.Col;
    if (!L.Extra.empty())
      OS << ", " << L.Extra;
    OS << '\n';
    break;
  }
  case Node::Kind::BranchTargets: {
    auto &T = cast<BranchTargets>(N);
    OS << T.Name << ": " << (T.IsCallTargets ? ".calltargets " : ".branchtargets ");
    for (size_t I = 0; I < T.Targets.size(); ++I)
      OS << (I ? ", " : "") << T.Targets[I];
    OS << ";\n";
    break;
  }
  case Node::Kind::CallPrototype: {
    auto &P = cast<CallPrototype>(N);
    OS << P.Name << ": .callprototype ";
    if (!P.Returns.empty()) {
      printParams(OS, P.Returns);
      OS << ' ';
    }
    OS << "_ ";
    printParams(OS, P.Params);
    if (P.NoReturn)
      OS << " .noreturn";
    OS << ";\n";
    break;
  }
  default:
    break;
  }
}

void printStatements(raw_ostream &OS, ArrayRef<Node *> Body, unsigned Depth) {
  for (const Node *N : Body)
    printStatement(OS, *N, Depth);
}

void printFunction(raw_ostream &OS, const Function &F) {
  if (F.Link != Linkage::None)
    OS << '.' << linkageName(F.Link) << ' ';
  OS << (F.IsEntry ? ".entry " : ".func ");
  if (!F.Returns.empty()) {
    printParams(OS, F.Returns);
    OS << ' ';
  }
  OS << F.Name;
  printParams(OS, F.Params);
  OS << '\n';
  for (const FuncDirective &D : F.Directives) {
    OS << '.' << funcDirectiveName(D.K);
    if (D.K == FuncDirective::Kind::Pragma) {
      OS << ' ';
      printStrings(OS, D.Strings);
      OS << ';';
    }
    for (size_t I = 0; I < D.Values.size(); ++I)
      OS << (I ? ", " : " ") << D.Values[I];
    OS << '\n';
  }
  if (!F.Body) {
    OS << ";\n";
    return;
  }
  OS << "{\n";
  printStatements(OS, F.Body->Body, 1);
  OS << "}\n";
}

} // namespace

void printInstruction(const Instruction &I, raw_ostream &OS) {
  if (!I.Guard.empty())
    OS << '@' << (I.GuardNegated ? "!" : "") << I.Guard << ' ';
  OS << I.info().Name;
  for (Modifier M : I.Mods)
    OS << '.' << modifierName(M);
  for (size_t K = 0; K < I.Ops.size(); ++K) {
    OS << (K ? ", " : " ");
    printOperand(OS, I.Ops[K]);
  }
  OS << ';';
}

void printModule(const Module &M, raw_ostream &OS) {
  OS << ".version " << M.VersionMajor << '.' << M.VersionMinor << '\n';
  if (!M.Target.Raw.empty()) {
    OS << ".target ";
    for (size_t I = 0; I < M.Target.Raw.size(); ++I)
      OS << (I ? ", " : "") << M.Target.Raw[I];
    OS << '\n';
  }
  if (M.HasAddressSize)
    OS << ".address_size " << M.AddressSize << '\n';
  for (const Node *N : M.Items) {
    OS << '\n';
    switch (N->getKind()) {
    case Node::Kind::Function: printFunction(OS, *cast<Function>(N)); break;
    case Node::Kind::Var:
      printDecl(OS, *cast<VarDecl>(N));
      OS << ";\n";
      break;
    case Node::Kind::Alias:
      OS << ".alias " << cast<Alias>(N)->Name << ", " << cast<Alias>(N)->Aliasee << ";\n";
      break;
    case Node::Kind::File: {
      auto *F = cast<FileDirective>(N);
      OS << ".file " << F->Index << " \"" << F->Path << '"';
      if (!F->Extra.empty())
        OS << ", " << F->Extra;
      OS << '\n';
      break;
    }
    case Node::Kind::Section: {
      auto *S = cast<Section>(N);
      OS << ".section " << S->Name << "\n{" << S->Raw << "}\n";
      break;
    }
    default: printStatement(OS, *N, 0); break;
    }
  }
}

std::string printModule(const Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  printModule(M, OS);
  return S;
}

} // namespace ferry::ptx
