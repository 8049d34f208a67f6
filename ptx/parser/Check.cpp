//===- Check.cpp - semantic checks and name resolution ---------------------===//
/// \file
/// Walks a parsed module with a scope stack and checks each instruction
/// against its row in Instructions.def: modifier classes, operand count and
/// kinds (the shape letters), that every name is declared, that predicate
/// registers are used only where predicates belong, that register widths fit
/// the instruction type for the plain arithmetic/logic families, and that
/// branch targets are labels of the function. It also resolves names
/// (Operand::Ref; register Names become Reg) so lowering need not repeat it.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Parser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace ferry::ptx {

namespace {

struct Entry {
  RefKind Kind = RefKind::Unresolved;
  const VarDecl *Decl = nullptr;
};

class Checker {
public:
  explicit Checker(Module &M) : M(M) {}
  std::vector<Diagnostic> run();

private:
  Module &M;
  std::vector<Diagnostic> Diags;
  StringMap<Entry> Globals;
  // Function scope: one map per open block, plus register ranges (%r<N>).
  SmallVector<StringMap<Entry>, 4> Scopes;
  SmallVector<StringMap<const VarDecl *>, 4> Ranges;

  void error(SourceLoc Loc, const Twine &Msg) {
    if (Diags.size() < 200)
      Diags.push_back({Loc, Msg.str()});
  }
  void declare(const VarDecl &D);
  Entry lookup(StringRef Name) const;
  void collectLabels(ArrayRef<Node *> Body);
  void checkBody(ArrayRef<Node *> Body);
  void checkInstruction(Instruction &I);
  void checkCall(Instruction &I);
  /// Resolve a Name operand; reports undeclared names. Returns the entry.
  Entry resolve(Operand &Op, bool AllowLabel);
  void resolveAll(Operand &Op, bool AllowLabel);
  bool isPredReg(const Operand &Op) const;
  const VarDecl *regDecl(const Operand &Op) const;
};

void Checker::declare(const VarDecl &D) {
  if (Scopes.empty()) {
    Globals[D.Name] = {RefKind::Variable, &D};
    return;
  }
  RefKind K = D.Space == StateSpace::Reg ? RefKind::Register : RefKind::Variable;
  if (D.RangeCount) {
    Ranges.back()[D.Name] = &D;
    return;
  }
  auto [It, New] = Scopes.back().try_emplace(D.Name, Entry{K, &D});
  if (!New)
    error(D.Loc, "redeclaration of '" + D.Name + "'");
}

Entry Checker::lookup(StringRef Name) const {
  for (size_t I = Scopes.size(); I-- > 0;) {
    auto It = Scopes[I].find(Name);
    if (It != Scopes[I].end())
      return It->second;
    if (!Ranges[I].empty()) {
      // %r57 against a %r<N> range: split off the decimal suffix.
      size_t Digits = Name.size();
      while (Digits > 0 && Name[Digits - 1] >= '0' && Name[Digits - 1] <= '9')
        --Digits;
      if (Digits < Name.size() && Digits > 0 && Name.size() - Digits <= 9 &&
          !(Name.size() - Digits > 1 && Name[Digits] == '0')) {
        auto R = Ranges[I].find(Name.take_front(Digits));
        uint32_t Index = 0; // At most 9 digits: no overflow.
        for (char C : Name.drop_front(Digits))
          Index = Index * 10 + uint32_t(C - '0');
        if (R != Ranges[I].end() && Index < R->second->RangeCount)
          return {R->second->Space == StateSpace::Reg ? RefKind::Register : RefKind::Variable, R->second};
      }
    }
  }
  if (auto G = Globals.find(Name); G != Globals.end())
    return G->second;
  return {};
}

Entry Checker::resolve(Operand &Op, bool AllowLabel) {
  Entry E = lookup(Op.Name);
  if (E.Kind == RefKind::Unresolved) {
    error(Op.Loc, "use of undeclared identifier '" + Op.Name + "'");
    return E;
  }
  if (E.Kind == RefKind::Label && !AllowLabel)
    error(Op.Loc, "label '" + Op.Name + "' used as a value");
  Op.Ref = E.Kind;
  Op.Decl = E.Decl;
  if (E.Kind == RefKind::Register && Op.K == Operand::Kind::Name)
    Op.K = Operand::Kind::Reg;
  return E;
}

void Checker::resolveAll(Operand &Op, bool AllowLabel) {
  switch (Op.K) {
  case Operand::Kind::Name:
  case Operand::Kind::Reg:
    resolve(Op, AllowLabel);
    break;
  case Operand::Kind::Address:
    if (!Op.Name.empty()) {
      Entry E = resolve(Op, false);
      if (E.Kind == RefKind::Register && E.Decl && E.Decl->Type == ScalarType::Pred)
        error(Op.Loc, "predicate register '" + Op.Name + "' used as an address");
    }
    break;
  case Operand::Kind::Vector:
  case Operand::Kind::Pair:
  case Operand::Kind::Bracket:
  case Operand::Kind::ParenList:
    for (const Operand &E : Op.Elems)
      resolveAll(const_cast<Operand &>(E), AllowLabel);
    break;
  default:
    break;
  }
}

const VarDecl *Checker::regDecl(const Operand &Op) const {
  if (Op.K != Operand::Kind::Reg)
    return nullptr;
  if (Op.Ref == RefKind::Register) // Already resolved.
    return Op.Decl;
  return lookup(Op.Name).Decl;
}

bool Checker::isPredReg(const Operand &Op) const {
  const VarDecl *D = regDecl(Op);
  return D && D->Type == ScalarType::Pred;
}

/// Labels (and prototypes, target lists) are scoped to their block like
/// declarations, but visible from the whole block, before their definition
/// too; so they enter the block's scope before its statements are checked.
/// Inline PTX relies on this: the same `{ L: ... bra L; }` may be inlined
/// many times into one function.
void Checker::collectLabels(ArrayRef<Node *> Body) {
  for (Node *N : Body) {
    StringRef Name;
    RefKind Kind = RefKind::Label;
    if (auto *L = dyn_cast<Label>(N))
      Name = L->Name;
    else if (auto *T = dyn_cast<BranchTargets>(N))
      Name = T->Name;
    else if (auto *P = dyn_cast<CallPrototype>(N)) {
      Name = P->Name;
      Kind = RefKind::Prototype;
    } else
      continue;
    if (!Scopes.back().try_emplace(Name, Entry{Kind, nullptr}).second)
      error(N->Loc, (Kind == RefKind::Label ? "duplicate label '" : "duplicate name '") + Name + "'");
  }
}

void Checker::checkBody(ArrayRef<Node *> Body) {
  for (Node *N : Body) {
    switch (N->getKind()) {
    case Node::Kind::Var: declare(*cast<VarDecl>(N)); break;
    case Node::Kind::Block:
      Scopes.emplace_back();
      Ranges.emplace_back();
      collectLabels(cast<Block>(N)->Body);
      checkBody(cast<Block>(N)->Body);
      Scopes.pop_back();
      Ranges.pop_back();
      break;
    case Node::Kind::Instruction: checkInstruction(*cast<Instruction>(N)); break;
    case Node::Kind::BranchTargets:
      for (StringRef T : cast<BranchTargets>(N)->Targets) {
        RefKind Want = cast<BranchTargets>(N)->IsCallTargets ? RefKind::Function : RefKind::Label;
        if (lookup(T).Kind != Want)
          error(N->Loc, "'" + T + "' in a target list is not a " +
                            (Want == RefKind::Label ? "label" : "function"));
      }
      break;
    default: break;
    }
  }
}

/// Operand kinds each shape letter accepts (see Instructions.def).
bool shapeAccepts(char Letter, const Operand &Op) {
  using K = Operand::Kind;
  switch (Letter) {
  case 'd': return Op.K == K::Name || Op.K == K::Reg || Op.K == K::Vector || Op.K == K::Sink || Op.K == K::Pair;
  case 's':
    return Op.K != K::Address && Op.K != K::Bracket && Op.K != K::ParenList && Op.K != K::Pair && Op.K != K::Sink;
  case 'a': return Op.K == K::Address;
  case 't': return Op.K == K::Address || Op.K == K::Bracket;
  case 'l': return Op.K == K::Name || Op.K == K::Reg;
  default: return true;
  }
}

bool isPlainArith(Opcode Op) {
  switch (Op) {
  case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Min:
  case Opcode::Max: case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not:
  case Opcode::Neg: case Opcode::Abs: case Opcode::Rem: case Opcode::Div: case Opcode::Fma:
  case Opcode::Copysign: case Opcode::Cnot:
    return true;
  default:
    return false;
  }
}

/// vop2/vop4 and vset2/vset4 (9.7.19): the instructions with lane
/// selectors and masks.
bool isSimdVideo(Opcode Op) {
  switch (Op) {
  case Opcode::Vadd2: case Opcode::Vsub2: case Opcode::Vavrg2: case Opcode::Vabsdiff2:
  case Opcode::Vmin2: case Opcode::Vmax2: case Opcode::Vset2: case Opcode::Vadd4:
  case Opcode::Vsub4: case Opcode::Vavrg4: case Opcode::Vabsdiff4: case Opcode::Vmin4:
  case Opcode::Vmax4: case Opcode::Vset4:
    return true;
  default:
    return false;
  }
}

void Checker::checkCall(Instruction &I) {
  // call{.uni} [(rets),] target [, (args)] [, proto-or-targets]
  ArrayRef<Operand> Ops = I.Ops;
  size_t K = 0;
  if (K < Ops.size() && Ops[K].K == Operand::Kind::ParenList)
    ++K;
  if (K >= Ops.size() || !Ops[K].isRegLike()) {
    error(I.Loc, "call needs a function or a register target");
    return;
  }
  Operand &Target = const_cast<Operand &>(Ops[K]);
  Entry E = resolve(Target, false);
  bool Indirect = E.Kind == RefKind::Register;
  if (E.Kind != RefKind::Unresolved && E.Kind != RefKind::Function && !Indirect)
    error(Target.Loc, "call target '" + Target.Name + "' is not a function");
  ++K;
  if (K < Ops.size() && Ops[K].K == Operand::Kind::ParenList)
    ++K;
  if (Indirect) {
    if (K >= Ops.size() || !Ops[K].isRegLike())
      error(I.Loc, "indirect call needs a .callprototype or .calltargets operand");
    else {
      Entry P = resolve(const_cast<Operand &>(Ops[K]), true);
      if (P.Kind != RefKind::Prototype && P.Kind != RefKind::Label && P.Kind != RefKind::Unresolved)
        error(Ops[K].Loc, "'" + Ops[K].Name + "' is not a .callprototype or .calltargets list");
    }
    ++K;
  }
  if (K != Ops.size())
    error(Ops[std::min(K, Ops.size() - 1)].Loc, "too many operands for call");
  for (size_t J = 0; J < Ops.size(); ++J)
    if (Ops[J].K == Operand::Kind::ParenList)
      resolveAll(const_cast<Operand &>(Ops[J]), false);
}

void Checker::checkInstruction(Instruction &I) {
  const OpcodeInfo &Info = I.info();
  if (!I.Guard.empty()) {
    Entry G = lookup(I.Guard);
    if (G.Kind == RefKind::Unresolved)
      error(I.GuardLoc, "use of undeclared identifier '" + I.Guard + "'");
    else if (G.Kind != RefKind::Register || !G.Decl || G.Decl->Type != ScalarType::Pred)
      error(I.GuardLoc, "guard '" + I.Guard + "' is not a .pred register");
    else
      I.GuardDecl = G.Decl;
  }
  for (Modifier Mod : I.Mods)
    if (!(modifierClasses(Mod) & Info.Classes))
      error(I.Loc, "modifier '." + modifierName(Mod) + "' is not valid on '" + Info.Name + "'");

  if (Info.Flags & IF_Call)
    return checkCall(I);

  // Operand count from the shape.
  StringRef Shape = Info.Shape;
  unsigned Required = 0, Max = 0;
  bool Variadic = false;
  for (size_t P = 0; P < Shape.size(); ++P) {
    if (Shape[P] == '*') {
      Variadic = true;
      continue;
    }
    if (Shape[P] == '?')
      continue;
    ++Max;
    if (P + 1 >= Shape.size() || Shape[P + 1] != '?')
      ++Required;
  }
  size_t N = I.Ops.size();
  if (N < Required || (!Variadic && N > Max)) {
    error(I.Loc, "'" + Info.Name + "' takes " +
                     (Required == Max && !Variadic ? Twine(Required)
                                                   : Twine(Required) + (Variadic ? " or more" : " to " + Twine(Max))) +
                     " operands, found " + Twine(N));
    return;
  }
  // Kinds and resolution, operand by operand.
  size_t Letter = 0;
  for (size_t K = 0; K < N; ++K) {
    while (Letter < Shape.size() && Shape[Letter] == '?')
      ++Letter;
    char L = Letter < Shape.size() ? Shape[Letter] : '*';
    if (L != '*')
      ++Letter;
    Operand &Op = const_cast<Operand &>(I.Ops[K]);
    if (!shapeAccepts(L, Op)) {
      static const char *What[] = {"a destination register", "a source operand", "an address",
                                   "a texture/surface operand", "a branch target"};
      const char *Desc = L == 'd' ? What[0] : L == 's' ? What[1] : L == 'a' ? What[2] : L == 't' ? What[3] : What[4];
      error(Op.Loc, "operand " + Twine(K + 1) + " of '" + Info.Name + "' must be " + Desc);
      continue;
    }
    resolveAll(Op, L == 'l');
    if (L == 'l' && (Info.Flags & IF_Branch) && Op.Ref != RefKind::Label && Op.Ref != RefKind::Unresolved)
      error(Op.Loc, "branch target '" + Op.Name + "' is not a label");
    if (L == 'd' && Op.K == Operand::Kind::Name && Op.Ref != RefKind::Unresolved)
      error(Op.Loc, "destination '" + Op.Name + "' is not a register");
    // -%r exists only on vmad's sources; multi-lane selectors and masks
    // (.b7654, .h32) only on the SIMD video instructions.
    if (Op.Minus && (I.Op != Opcode::Vmad || L == 'd'))
      error(Op.Loc, "a negated register is valid only on vmad sources");
    if ((Op.Comp == Component::Bytes || Op.Comp == Component::Halves) && !isSimdVideo(I.Op))
      error(Op.Loc, "lane selector '." + componentName(Op.Comp) + Op.Lanes + "' is valid only on SIMD video instructions");
  }

  // Predicate placement and type widths.
  std::optional<ScalarType> T = I.firstType();
  switch (I.Op) {
  case Opcode::Setp: {
    if (!I.firstOfClass(MC_Cmp))
      error(I.Loc, "'setp' needs a comparison operator");
    const Operand &D = I.Ops[0];
    auto IsPredDest = [&](const Operand &O) { return O.K == Operand::Kind::Sink || isPredReg(O); };
    bool Ok = D.K == Operand::Kind::Pair ? IsPredDest(D.Elems[0]) && IsPredDest(D.Elems[1]) : IsPredDest(D);
    if (!Ok)
      error(D.Loc, "setp destination must be a .pred register");
    break;
  }
  case Opcode::Set:
  case Opcode::Vset:
    if (!I.firstOfClass(MC_Cmp))
      error(I.Loc, "'" + Info.Name + "' needs a comparison operator");
    break;
  case Opcode::Atom:
  case Opcode::Red:
  case Opcode::Redux:
    if (!I.firstOfClass(MC_Op))
      error(I.Loc, "'" + Info.Name + "' needs an operation (.add, .min, .cas, ...)");
    break;
  case Opcode::Ld:
  case Opcode::Ldu:
  case Opcode::St: {
    // The data operand is a {vector} exactly when a .vN modifier is written,
    // and has N elements.
    const Operand &Data = I.Op == Opcode::St ? I.Ops[1] : I.Ops[0];
    unsigned Want = I.has(Modifier::V2) ? 2 : I.has(Modifier::V4) ? 4 : I.has(Modifier::V8) ? 8 : 0;
    if (Data.K == Operand::Kind::Vector && !Want)
      error(Data.Loc, "vector operand needs a .v2/.v4/.v8 modifier");
    else if (Want && Data.K != Operand::Kind::Vector)
      error(Data.Loc, "'.v" + Twine(Want) + "' needs a {vector} operand");
    else if (Want && Data.Elems.size() != Want)
      error(Data.Loc, "vector operand has " + Twine(Data.Elems.size()) + " elements but '.v" + Twine(Want) +
                          "' needs " + Twine(Want));
    break;
  }
  case Opcode::Selp:
    if (I.Ops[3].K == Operand::Kind::Reg && !isPredReg(I.Ops[3]))
      error(I.Ops[3].Loc, "selp selector must be a .pred register");
    break;
  default:
    break;
  }
  // Data movement: a register must be at least as wide as the type it
  // carries (ld may widen into a larger register; st reads the low bits),
  // and never a predicate unless the type is .pred.
  if (T && (I.Op == Opcode::Ld || I.Op == Opcode::Ldu || I.Op == Opcode::St || I.Op == Opcode::Mov)) {
    unsigned Bits = typeBits(*T);
    auto CheckReg = [&](const Operand &Op) {
      const VarDecl *D = regDecl(Op);
      if (!D || Op.Comp != Component::None || D->VecWidth)
        return;
      if ((D->Type == ScalarType::Pred) != (*T == ScalarType::Pred))
        error(Op.Loc, "register '" + Op.Name + "' of type ." + typeName(D->Type) + " used with ." + typeName(*T));
      else if (*T != ScalarType::Pred && typeBits(D->Type) < Bits)
        error(Op.Loc, "register '" + Op.Name + "' is " + Twine(typeBits(D->Type)) + " bits wide, narrower than ." +
                          typeName(*T));
    };
    size_t DataIdx = I.Op == Opcode::St ? 1 : 0;
    for (size_t K = 0; K < I.Ops.size(); ++K) {
      const Operand &Op = I.Ops[K];
      if (K != DataIdx && I.Op != Opcode::Mov)
        continue; // Addresses and cache policies have their own widths.
      if (Op.K == Operand::Kind::Vector) {
        if (I.Op != Opcode::Mov) // mov.b64 %rd, {%r1, %r2} packs narrower parts.
          for (const Operand &E : Op.Elems)
            CheckReg(E);
      } else {
        CheckReg(Op);
      }
    }
  }
  // Mixed-precision forms (add.f32.f16, 9.7.5) carry two types; their
  // operands legitimately differ in width, so only single-type forms are
  // width-checked.
  if (T && isPlainArith(I.Op) && !I.has(Modifier::Wide) && I.lastType() == T) {
    unsigned Bits = typeBits(*T);
    bool WantPred = *T == ScalarType::Pred;
    for (const Operand &Op : I.Ops) {
      const VarDecl *D = regDecl(Op);
      if (!D || Op.Comp != Component::None)
        continue;
      bool IsPred = D->Type == ScalarType::Pred;
      if (IsPred != WantPred)
        error(Op.Loc, "register '" + Op.Name + "' of type ." + typeName(D->Type) + " used with ." + typeName(*T));
      else if (!WantPred && !D->VecWidth && typeBits(D->Type) != Bits)
        error(Op.Loc, "register '" + Op.Name + "' is " + Twine(typeBits(D->Type)) + " bits wide but '" + Info.Name +
                          "." + typeName(*T) + "' needs " + Twine(Bits));
    }
  }
}

std::vector<Diagnostic> Checker::run() {
  for (Node *N : M.Items) {
    if (auto *V = dyn_cast<VarDecl>(N))
      Globals[V->Name] = {RefKind::Variable, V};
    else if (auto *F = dyn_cast<Function>(N))
      Globals[F->Name] = {RefKind::Function, nullptr};
    else if (auto *A = dyn_cast<Alias>(N))
      Globals[A->Name] = {RefKind::Function, nullptr};
  }
  for (Node *N : M.Items) {
    if (auto *A = dyn_cast<Alias>(N)) {
      auto It = Globals.find(A->Aliasee);
      if (It == Globals.end() || It->second.Kind != RefKind::Function)
        error(A->Loc, "alias target '" + A->Aliasee + "' is not a function");
    }
    auto *F = dyn_cast<Function>(N);
    if (!F || !F->Body)
      continue;
    Scopes.emplace_back();
    Ranges.emplace_back();
    for (VarDecl *P : F->Returns)
      declare(*P);
    for (VarDecl *P : F->Params)
      declare(*P);
    Scopes.emplace_back();
    Ranges.emplace_back();
    collectLabels(F->Body->Body);
    checkBody(F->Body->Body);
    Scopes.clear();
    Ranges.clear();
  }
  return std::move(Diags);
}

} // namespace

std::vector<Diagnostic> checkModule(Module &M) { return Checker(M).run(); }

} // namespace ferry::ptx
