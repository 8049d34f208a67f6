//===- LowerDecls.cpp - pass "lower-decls" ---------------------------------===//
/// \file
/// Module-scope declarations: .global/.const/.shared variables (with their
/// initialisers, including address initialisers), texture/surface
/// references, and the LLVM declarations of every .entry and .func (the
/// signatures of SimtIR.md), the kernel parameter layouts (!ferry.params),
/// the kernel list (!ferry.kernels), the performance directives
/// (!ferry.directives) and the entries' .local/.const use
/// (!ferry.resources). Bodies are the next pass's job.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace ferry::ptx::lower {
namespace {

Error declError(const Module &P, SourceLoc L, const Twine &Msg) {
  return make_error<StringError>(P.FileName.str() + ":" + std::to_string(L.Line) + ":" +
                                     std::to_string(L.Col) + ": " + Msg.str(),
                                 inconvertibleErrorCode());
}

/// Element type of a module-scope variable's LLVM global.
Type *elemType(LLVMContext &C, const VarDecl &D) {
  switch (D.Type) {
  case ScalarType::F32: return Type::getFloatTy(C);
  case ScalarType::F64: return Type::getDoubleTy(C);
  case ScalarType::TexRef: case ScalarType::SamplerRef: case ScalarType::SurfRef:
    return Type::getInt64Ty(C);
  default:
    return Type::getIntNTy(C, std::max(8u, typeBits(D.Type)));
  }
}

class InitBuilder {
public:
  InitBuilder(ModuleLowering &ML, const VarDecl &D) : ML(ML), D(D), C(ML.C) {}

  /// Flattens nested braces into a list of leaf initialisers.
  void flatten(const Initializer *I, SmallVectorImpl<const Initializer *> &Out) {
    if (I->K == Initializer::Kind::List)
      for (const Initializer *E : I->Elems)
        flatten(E, Out);
    else
      Out.push_back(I);
  }

  Expected<Constant *> symbolAddress(const Initializer &I, Type *IntTy) {
    Constant *Sym = nullptr;
    if (GlobalVariable *G = ML.Globals.lookup(I.Name))
      Sym = G;
    else if (auto It = ML.Funcs.find(I.Name); It != ML.Funcs.end())
      Sym = It->second.Ptx && It->second.Ptx->IsEntry ? static_cast<Constant *>(ML.entryHandle(I.Name))
                                                        : It->second.F;
    if (!Sym)
      return declError(ML.P, I.Loc, "initialiser of '" + D.Name + "' names unknown symbol '" + I.Name + "'");
    if (I.Generic && Sym->getType()->getPointerAddressSpace() != 0)
      Sym = ConstantExpr::getAddrSpaceCast(Sym, PointerType::get(C, 0));
    if (I.Offset)
      Sym = ConstantExpr::getGetElementPtr(Type::getInt8Ty(C), Sym,
                                           ConstantInt::get(Type::getInt64Ty(C), I.Offset));
    return ConstantExpr::getPtrToInt(Sym, IntTy);
  }

  Expected<Constant *> leaf(const Initializer &I, Type *ET) {
    switch (I.K) {
    case Initializer::Kind::Int:
      if (ET->isIntegerTy())
        return ConstantInt::get(ET, uint64_t(I.Int), true);
      return ConstantExpr::getBitCast(ConstantInt::get(IntegerType::get(C, ET->getPrimitiveSizeInBits()), uint64_t(I.Int)), ET);
    case Initializer::Kind::Float: {
      Operand Tmp;
      Tmp.FloatBits = I.FloatBits;
      Tmp.FForm = I.FForm;
      APFloat V = I.FForm == Operand::FloatForm::Hex32
                      ? APFloat(APFloat::IEEEsingle(), APInt(32, I.FloatBits))
                      : APFloat(APFloat::IEEEdouble(), APInt(64, I.FloatBits));
      if (ET->isIntegerTy()) {
        // A float literal in an integer-typed (.b32) variable: its bits.
        if (ET->getIntegerBitWidth() == 32 && I.FForm != Operand::FloatForm::Hex32) {
          bool Lost;
          V.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &Lost);
        }
        return ConstantInt::get(ET, V.bitcastToAPInt().zextOrTrunc(ET->getIntegerBitWidth()));
      }
      bool Lost;
      V.convert(ET->getFltSemantics(), APFloat::rmNearestTiesToEven, &Lost);
      return ConstantFP::get(C, V);
    }
    case Initializer::Kind::Symbol:
      if (!ET->isIntegerTy())
        return declError(ML.P, I.Loc, "address initialiser in a non-integer variable '" + D.Name + "'");
      return symbolAddress(I, ET);
    default:
      return declError(ML.P, I.Loc, "unexpected initialiser");
    }
  }

  /// The initialiser constant and the LLVM type of the global.
  Expected<Constant *> build(Type *ET, uint64_t Count, bool IsArray) {
    SmallVector<const Initializer *, 64> Leaves;
    flatten(D.Init, Leaves);
    if (!IsArray) {
      if (Leaves.size() != 1)
        return declError(ML.P, D.Loc, "scalar '" + D.Name + "' has a list initialiser");
      return leaf(*Leaves[0], ET);
    }
    if (Count == 0)
      Count = Leaves.size(); // x[] = {...}
    if (Leaves.size() > Count)
      return declError(ML.P, D.Loc, "too many initialisers for '" + D.Name + "'");
    // Byte arrays with masked address bytes (0xFF(generic(f)), 0xFF00(...),
    // ...: vtables) become packed structs where each run of eight masked
    // bytes is one 64-bit address.
    bool HasMasked = false;
    for (const Initializer *L : Leaves)
      HasMasked |= L->K == Initializer::Kind::Symbol && L->Mask != 0;
    if (!HasMasked) {
      SmallVector<Constant *, 64> Elems;
      for (const Initializer *L : Leaves) {
        Expected<Constant *> K = leaf(*L, ET);
        if (!K)
          return K.takeError();
        Elems.push_back(*K);
      }
      Elems.resize(Count, Constant::getNullValue(ET));
      return ConstantArray::get(ArrayType::get(ET, Count), Elems);
    }
    if (!ET->isIntegerTy(8))
      return declError(ML.P, D.Loc, "masked address initialisers need a .b8 array ('" + D.Name + "')");
    SmallVector<Constant *, 64> Elems;
    for (size_t K = 0; K < Leaves.size();) {
      const Initializer *L = Leaves[K];
      if (L->K != Initializer::Kind::Symbol || L->Mask == 0) {
        Expected<Constant *> E = leaf(*L, ET);
        if (!E)
          return E.takeError();
        Elems.push_back(*E);
        ++K;
        continue;
      }
      bool Run = K + 8 <= Leaves.size();
      for (unsigned J = 0; Run && J < 8; ++J) {
        const Initializer *M = Leaves[K + J];
        Run = M->K == Initializer::Kind::Symbol && M->Name == L->Name && M->Offset == L->Offset &&
              M->Generic == L->Generic && M->Mask == (0xFFull << (8 * J));
      }
      if (!Run)
        return declError(ML.P, L->Loc, "masked address initialiser of '" + D.Name +
                                           "' is not a run of eight address bytes");
      Expected<Constant *> A = symbolAddress(*L, Type::getInt64Ty(C));
      if (!A)
        return A.takeError();
      Elems.push_back(*A);
      K += 8;
    }
    for (uint64_t K = Leaves.size(); K < Count; ++K)
      Elems.push_back(ConstantInt::get(ET, 0));
    return ConstantStruct::getAnon(C, Elems, /*Packed=*/true);
  }

private:
  ModuleLowering &ML;
  const VarDecl &D;
  LLVMContext &C;
};

GlobalValue::LinkageTypes linkageOf(Linkage L) {
  switch (L) {
  case Linkage::Weak:
  case Linkage::Common: return GlobalValue::WeakAnyLinkage;
  default: return GlobalValue::ExternalLinkage;
  }
}

Error declareVariable(ModuleLowering &ML, const VarDecl &D) {
  LLVMContext &C = ML.C;
  unsigned AS = addrSpaceOf(D.Space);
  if (D.Space == StateSpace::Tex)
    AS = 1;
  if (D.Space != StateSpace::Global && D.Space != StateSpace::Const && D.Space != StateSpace::Shared &&
      D.Space != StateSpace::Tex)
    return declError(ML.P, D.Loc, "module-scope ." + stateSpaceName(D.Space) + " variable '" + D.Name +
                                      "' is not supported");
  ML.GlobalDecls[D.Name] = &D;
  if (D.Space == StateSpace::Shared && D.elementCount() == 0)
    return Error::success(); // extern .shared x[]: ferry.dynamic_smem() at each use.
  Type *ET = elemType(C, D);
  uint64_t Count = D.elementCount() * std::max<uint64_t>(1, D.VecWidth);
  bool IsArray = !D.Dims.empty() || D.VecWidth;
  Type *T = IsArray ? static_cast<Type *>(ArrayType::get(ET, Count)) : ET;
  Constant *Init = nullptr;
  bool Decl = D.Link == Linkage::Extern;
  if (!Decl) {
    if (D.Space == StateSpace::Shared) {
      Init = UndefValue::get(T);
    } else if (D.Init) {
      InitBuilder IB(ML, D);
      Expected<Constant *> K = IB.build(ET, Count, IsArray);
      if (!K)
        return K.takeError();
      Init = *K;
      T = Init->getType();
    } else {
      Init = Constant::getNullValue(T);
    }
  }
  if (IsArray && Count == 0 && !Init)
    T = ArrayType::get(ET, 0);
  auto *G = new GlobalVariable(ML.M, T, /*isConstant=*/false,
                               Decl ? GlobalValue::ExternalLinkage : linkageOf(D.Link), Init, D.Name,
                               nullptr, GlobalValue::NotThreadLocal, AS);
  G->setAlignment(Align(std::max<uint64_t>(1, ModuleLowering::declAlign(D))));
  if (D.Managed)
    G->addAttribute("ferry.managed");
  ML.Globals[D.Name] = G;
  return Error::success();
}

void declareFunction(ModuleLowering &ML, const Function &PF) {
  LLVMContext &C = ML.C;
  FuncSig Sig;
  Sig.Ptx = &PF;
  llvm::Function *F;
  GlobalValue::LinkageTypes L = PF.Link == Linkage::Extern || !PF.Body ? GlobalValue::ExternalLinkage
                                : PF.Link == Linkage::Weak ? GlobalValue::WeakAnyLinkage
                                : PF.IsEntry || PF.Link == Linkage::Visible ? GlobalValue::ExternalLinkage
                                : GlobalValue::InternalLinkage;
  if (PF.IsEntry) {
    auto *FT = FunctionType::get(Type::getVoidTy(C), {PointerType::get(C, 0)}, false);
    F = llvm::Function::Create(FT, L, PF.Name, ML.M);
    F->getArg(0)->setName("params");
    F->addParamAttr(0, Attribute::NoAlias);
    // The layout: each parameter at its natural or .align alignment, in
    // declaration order (CUDA's kernelParams packing).
    std::vector<ParamSlot> Slots;
    uint64_t Off = 0, MaxAlign = 1;
    for (const VarDecl *P : PF.Params) {
      uint64_t A = std::max<uint64_t>(1, ModuleLowering::declAlign(*P));
      uint64_t Size = ModuleLowering::declSize(*P);
      Off = alignTo(Off, A);
      Slots.push_back({Off, Size, A});
      Off += Size;
      MaxAlign = std::max(MaxAlign, A);
    }
    ML.ParamLayouts[&PF] = Slots;
    ML.ParamTotal[&PF] = Off;
    if (Off)
      F->addDereferenceableParamAttr(0, Off);
  } else {
    SmallVector<Type *, 8> Args;
    Sig.ScalarReturn = PF.Returns.size() == 1 && PF.Returns[0]->Dims.empty() && !PF.Returns[0]->VecWidth;
    Type *Ret = Sig.ScalarReturn ? ML.paramValueType(*PF.Returns[0]) : Type::getVoidTy(C);
    if (!Sig.ScalarReturn) {
      Sig.NumRetPtrs = PF.Returns.size();
      Args.append(Sig.NumRetPtrs, PointerType::get(C, 0));
    }
    for (const VarDecl *P : PF.Params) {
      bool ByPtr = !P->Dims.empty() || P->VecWidth;
      Sig.ByPointer.push_back(ByPtr);
      Args.push_back(ByPtr ? PointerType::get(C, 0) : ML.paramValueType(*P));
    }
    F = llvm::Function::Create(FunctionType::get(Ret, Args, false), L, PF.Name, ML.M);
    for (unsigned K = 0; K < PF.Params.size(); ++K) {
      StringRef N = PF.Params[K]->Name;
      F->getArg(Sig.NumRetPtrs + K)->setName(N.starts_with("%") ? N.drop_front() : N);
    }
  }
  F->addFnAttr(Attribute::NoUnwind);
  Sig.F = F;
  ML.Funcs[PF.Name] = Sig;
}

/// Bytes a variable declaration occupies (0 for an unsized array).
uint64_t declBytes(const VarDecl &D) {
  return D.elementCount() * std::max<uint64_t>(D.VecWidth, 1) * std::max(8u, typeBits(D.Type)) / 8;
}

/// The resources ptxas would report for an entry, as far as its PTX says:
/// per-thread .local bytes (the entry's and those of the functions it
/// calls, each counted once) and the bytes of the module's .const variables
/// that it or its callees name (CUDA's LOCAL_SIZE_BYTES, CONST_SIZE_BYTES).
struct Resources {
  uint64_t LocalBytes = 0, ConstBytes = 0;
};

void collectOperands(ArrayRef<Operand> Ops, SmallPtrSetImpl<const VarDecl *> &Consts,
                     SmallVectorImpl<StringRef> &Callees) {
  for (const Operand &O : Ops) {
    if (O.Decl && O.Decl->Space == StateSpace::Const)
      Consts.insert(O.Decl);
    if (O.Ref == RefKind::Function)
      Callees.push_back(O.Name);
    collectOperands(O.Elems, Consts, Callees);
  }
}

void collectBody(ArrayRef<Node *> Body, uint64_t &Local, SmallPtrSetImpl<const VarDecl *> &Consts,
                 SmallVectorImpl<StringRef> &Callees) {
  for (const Node *N : Body) {
    if (auto *V = dyn_cast<VarDecl>(N)) {
      if (V->Space == StateSpace::Local)
        Local += alignTo(declBytes(*V), std::max<uint64_t>(V->Align, 1));
    } else if (auto *I = dyn_cast<Instruction>(N)) {
      collectOperands(I->Ops, Consts, Callees);
    } else if (auto *B = dyn_cast<Block>(N)) {
      collectBody(B->Body, Local, Consts, Callees);
    }
  }
}

Resources entryResources(ModuleLowering &ML, const Function &Entry) {
  Resources R;
  SmallPtrSet<const VarDecl *, 8> Consts;
  SmallPtrSet<const Function *, 8> Seen{&Entry};
  SmallVector<const Function *, 8> Work{&Entry};
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    if (!F->Body)
      continue;
    SmallVector<StringRef, 8> Callees;
    collectBody(F->Body->Body, R.LocalBytes, Consts, Callees);
    for (StringRef C : Callees)
      if (auto It = ML.Funcs.find(C); It != ML.Funcs.end() && It->second.Ptx && Seen.insert(It->second.Ptx).second)
        Work.push_back(It->second.Ptx);
  }
  for (const VarDecl *D : Consts)
    R.ConstBytes += declBytes(*D);
  return R;
}

void emitKernelMetadata(ModuleLowering &ML, const Function &PF) {
  LLVMContext &C = ML.C;
  llvm::Function *F = ML.Funcs[PF.Name].F;
  auto I32 = [&](uint64_t V) {
    return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), V));
  };
  // !ferry.params: !{ptr @k, i32 total, i32 off0, i32 size0, i32 align0, ...}
  SmallVector<Metadata *, 16> P{ValueAsMetadata::get(F), I32(ML.ParamTotal[&PF])};
  for (const ParamSlot &S : ML.ParamLayouts[&PF]) {
    P.push_back(I32(S.Offset));
    P.push_back(I32(S.Size));
    P.push_back(I32(S.Align));
  }
  ML.M.getOrInsertNamedMetadata("ferry.params")->addOperand(MDNode::get(C, P));
  // !ferry.directives: one node per directive: !{ptr @k, !"maxntid", i32...}
  for (const FuncDirective &D : PF.Directives) {
    if (D.K == FuncDirective::Kind::Pragma)
      continue;
    SmallVector<Metadata *, 5> Ops{ValueAsMetadata::get(F), MDString::get(C, funcDirectiveName(D.K))};
    for (uint32_t V : D.Values)
      Ops.push_back(I32(V));
    ML.M.getOrInsertNamedMetadata("ferry.directives")->addOperand(MDNode::get(C, Ops));
  }
}

} // namespace

void emitResourceMetadata(ModuleLowering &ML) {
  // !ferry.resources: !{ptr @k, i32 local bytes, i32 const bytes}, made
  // last so the other metadata keep their numbers.
  LLVMContext &C = ML.C;
  auto I32 = [&](uint64_t V) {
    return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), std::min<uint64_t>(V, UINT32_MAX)));
  };
  for (const Node *N : ML.P.items())
    if (auto *PF = dyn_cast<Function>(N); PF && PF->IsEntry && PF->Body) {
      Resources R = entryResources(ML, *PF);
      ML.M.getOrInsertNamedMetadata("ferry.resources")
          ->addOperand(MDNode::get(C, {ValueAsMetadata::get(ML.Funcs[PF->Name].F), I32(R.LocalBytes),
                                       I32(R.ConstBytes)}));
    }
}

Error runLowerDecls(ModuleLowering &ML) {
  // Functions first: variable initialisers may take function addresses.
  for (const Node *N : ML.P.items())
    if (auto *PF = dyn_cast<Function>(N)) {
      if (!PF->IsEntry && !PF->Body && ModuleLowering::isRuntimeExtern(PF->Name))
        continue; // Calls become ferry.printf/malloc/free/assertfail/cdp.*.
      if (auto It = ML.Funcs.find(PF->Name); It != ML.Funcs.end()) {
        // A prototype followed by the definition (NVIDIA's device runtime
        // declares its kernels first): declare again from the definition,
        // whose parameters the body names and whose linkage counts; nothing
        // uses the prototype's function yet but metadata, which follows.
        if (PF->Body && !It->second.Ptx->Body) {
          llvm::Function *Old = It->second.F;
          ML.Funcs.erase(It);
          Old->setName("");
          declareFunction(ML, *PF);
          Old->replaceAllUsesWith(ML.Funcs[PF->Name].F);
          Old->eraseFromParent();
        }
        continue;
      }
      declareFunction(ML, *PF);
    }
  for (const Node *N : ML.P.items())
    if (auto *D = dyn_cast<VarDecl>(N))
      if (Error E = declareVariable(ML, *D))
        return E;
  // Variables whose initialisers refer to later variables: build in a second
  // round is unnecessary because PTX requires declaration before use.
  for (const Node *N : ML.P.items())
    if (auto *PF = dyn_cast<Function>(N); PF && PF->IsEntry && PF->Body)
      emitKernelMetadata(ML, *PF);
  for (const Node *N : ML.P.items())
    if (auto *A = dyn_cast<Alias>(N)) {
      auto It = ML.Funcs.find(A->Aliasee);
      if (It == ML.Funcs.end())
        return declError(ML.P, A->Loc, "alias of unknown function '" + A->Aliasee + "'");
      llvm::GlobalAlias::create(GlobalValue::ExternalLinkage, A->Name, It->second.F);
    }
  return Error::success();
}

} // namespace ferry::ptx::lower
