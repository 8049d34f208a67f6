//===- Ast.cpp - tables and helpers of the PTX AST -------------------------===//
/// \file
/// Expands the .def tables into the name/class arrays the parser, checker and
/// printer share, and implements the small query helpers of Ast.h.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Ast.h"

#include "ptx/parser/NameTable.h"

#include <cstring>

using namespace llvm;

namespace ferry::ptx {

namespace {
struct TypeRow {
  StringRef Name;
  unsigned Bits;
  TypeKind Kind;
};
const TypeRow TypeRows[] = {
#define PTX_TYPE(E, S, Bits, Kind) {S, Bits, TypeKind::Kind},
#include "ptx/parser/Types.def"
};
struct ModRow {
  StringRef Name;
  uint64_t Classes;
};
const ModRow ModRows[] = {
#define PTX_MOD(E, S, Classes) {S, Classes},
#include "ptx/parser/Modifiers.def"
};
const OpcodeInfo OpRows[] = {
#define PTX_INSN(E, S, Sec, Shape, Classes, Flags) {S, Sec, Shape, Classes, Flags},
#include "ptx/parser/Instructions.def"
};
struct SRegRow {
  StringRef Name;
  SpecialRegKind Kind;
};
const SRegRow SRegRows[] = {
#define PTX_SREG(E, S, Kind) {S, SpecialRegKind::Kind},
#include "ptx/parser/SpecialRegs.def"
};

// Name -> enum maps, built once (function-local statics are thread-safe).
const NameTable &modMap() {
  static const NameTable Map = [] {
    NameTable M(std::size(ModRows));
    for (unsigned I = 0; I < std::size(ModRows); ++I)
      M.set(ModRows[I].Name, I);
    return M;
  }();
  return Map;
}
} // namespace

StringRef typeName(ScalarType T) { return TypeRows[unsigned(T)].Name; }
unsigned typeBits(ScalarType T) { return TypeRows[unsigned(T)].Bits; }
TypeKind typeKind(ScalarType T) { return TypeRows[unsigned(T)].Kind; }
std::optional<ScalarType> lookupType(StringRef Name) {
  auto M = lookupModifier(Name);
  if (!M)
    return std::nullopt;
  return modifierType(*M);
}

StringRef modifierName(Modifier M) { return ModRows[unsigned(M)].Name; }
uint64_t modifierClasses(Modifier M) { return ModRows[unsigned(M)].Classes; }
std::optional<ScalarType> modifierType(Modifier M) {
  // Types.def rows come first in Modifiers.def, in the same order.
  if (unsigned(M) < NumScalarTypes)
    return ScalarType(unsigned(M));
  return std::nullopt;
}
std::optional<Modifier> lookupModifier(StringRef Name) {
  if (auto V = modMap().find(Name))
    return Modifier(*V);
  return std::nullopt;
}

const OpcodeInfo &opcodeInfo(Opcode Op) { return OpRows[unsigned(Op)]; }
ArrayRef<OpcodeInfo> allOpcodes() { return OpRows; }

StringRef specialRegName(SpecialReg R) { return SRegRows[unsigned(R)].Name; }
SpecialRegKind specialRegKind(SpecialReg R) { return SRegRows[unsigned(R)].Kind; }

StringRef stateSpaceName(StateSpace S) {
  static const char *Names[] = {"", "reg", "sreg", "const", "global", "local", "param", "shared", "tex"};
  return Names[unsigned(S)];
}
StringRef linkageName(Linkage L) {
  static const char *Names[] = {"", "visible", "extern", "weak", "common"};
  return Names[unsigned(L)];
}
StringRef componentName(Component C) {
  static const char *Names[] = {"", "x", "y", "z", "w", "r", "g", "b", "a", "b0", "b1", "b2", "b3", "h0", "h1", "b", "h"};
  return Names[unsigned(C)];
}
StringRef funcDirectiveName(FuncDirective::Kind K) {
  static const char *Names[] = {"maxntid", "reqntid", "minnctapersm", "maxnctapersm", "maxnreg",
                                "maxclusterrank", "reqnctapercluster", "explicitcluster", "noreturn",
                                "pragma", "blocksareclusters", "abi_preserve", "abi_preserve_control"};
  return Names[unsigned(K)];
}

double Operand::asDouble() const {
  if (FForm == FloatForm::Hex32) {
    uint32_t B = uint32_t(FloatBits);
    float F;
    std::memcpy(&F, &B, 4);
    return F;
  }
  double D;
  std::memcpy(&D, &FloatBits, 8);
  return D;
}

uint64_t VarDecl::elementCount() const {
  uint64_t N = 1;
  for (uint64_t D : Dims) {
    if (D == 0)
      return 0;
    N *= D;
  }
  return N;
}

bool Instruction::has(Modifier M) const {
  for (Modifier X : Mods)
    if (X == M)
      return true;
  return false;
}
std::optional<ScalarType> Instruction::firstType() const {
  for (Modifier X : Mods)
    if (auto T = modifierType(X))
      return T;
  return std::nullopt;
}
std::optional<ScalarType> Instruction::lastType() const {
  for (auto It = Mods.rbegin(); It != Mods.rend(); ++It)
    if (auto T = modifierType(*It))
      return T;
  return std::nullopt;
}
StateSpace Instruction::space() const {
  for (Modifier X : Mods) {
    switch (X) {
    case Modifier::Global: return StateSpace::Global;
    case Modifier::Const: return StateSpace::Const;
    case Modifier::Shared:
    case Modifier::SharedCta:
    case Modifier::SharedCluster: return StateSpace::Shared;
    case Modifier::Local: return StateSpace::Local;
    case Modifier::Param:
    case Modifier::ParamEntry:
    case Modifier::ParamFunc: return StateSpace::Param;
    default: break;
    }
  }
  return StateSpace::None;
}
std::optional<Modifier> Instruction::firstOfClass(uint64_t ClassBits) const {
  for (Modifier X : Mods)
    if (modifierClasses(X) & ClassBits)
      return X;
  return std::nullopt;
}

const FuncDirective *Function::directive(FuncDirective::Kind K) const {
  for (const FuncDirective &D : Directives)
    if (D.K == K)
      return &D;
  return nullptr;
}

const Function *Module::findFunction(StringRef Name) const {
  for (const Node *N : Items)
    if (auto *F = dyn_cast<Function>(N); F && F->Name == Name)
      return F;
  return nullptr;
}
const VarDecl *Module::findGlobal(StringRef Name) const {
  for (const Node *N : Items)
    if (auto *V = dyn_cast<VarDecl>(N); V && V->Name == Name)
      return V;
  return nullptr;
}

} // namespace ferry::ptx
