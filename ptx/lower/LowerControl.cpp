//===- LowerControl.cpp - control flow and calls (PTX ISA 9.7.12, 9.7.20) --===//
/// \file
/// bra, brx.idx (a switch over the .branchtargets list; an out-of-range
/// index goes to the first target, a defined choice where PTX leaves it
/// undefined), ret, exit (ferry.exit), trap/brkpt/nanosleep, the no-op
/// hints (pmevent, setmaxnreg, griddepcontrol), and call: direct, indirect
/// through a .callprototype (or a .calltargets list), and the runtime
/// externs nvcc declares (vprintf, malloc, free, __assertfail), which become
/// the ferry.printf/malloc/free/assertfail intrinsics.
///
/// Call arguments in PTX are .param variables the caller filled with
/// st.param; scalars are loaded from those slots and passed by value,
/// aggregates are passed as pointers to the slots, and returns are stored
/// back into the caller's return slots (SimtIR.md "device functions").
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

using namespace llvm;

namespace ferry::ptx::lower {

Error FunctionLowering::lowerControl(const Instruction &I) {
  switch (I.Op) {
  case Opcode::Bra: {
    if (I.Ops.size() != 1 || !Labels.count(I.Ops[0].Name))
      return notLowered(I, "branch to a non-label");
    B.CreateBr(Labels[I.Ops[0].Name]);
    return Error::success();
  }
  case Opcode::BrxIdx: {
    Expected<Value *> Idx = get(I.Ops[0], ScalarType::U32);
    if (!Idx) return Idx.takeError();
    auto It = TargetLists.find(I.Ops[1].Name);
    if (It == TargetLists.end() || It->second->Targets.empty())
      return fail("brx.idx needs a .branchtargets list");
    const BranchTargets *T = It->second;
    for (StringRef L : T->Targets)
      if (!Labels.count(L))
        return fail("brx.idx target '" + L + "' is not a label");
    SwitchInst *Sw = B.CreateSwitch(*Idx, Labels[T->Targets[0]], T->Targets.size());
    for (size_t K = 0; K < T->Targets.size(); ++K)
      Sw->addCase(B.getInt32(K), Labels[T->Targets[K]]);
    return Error::success();
  }
  case Opcode::Ret:
    return emitReturn();
  case Opcode::Exit:
    call(Intr::Exit);
    B.CreateUnreachable();
    return Error::success();
  case Opcode::Trap:
    call(Intr::Trap);
    B.CreateUnreachable();
    return Error::success();
  case Opcode::Brkpt:
    call(Intr::Brkpt);
    return Error::success();
  case Opcode::Nanosleep: {
    Expected<Value *> T = get(I.Ops[0], ScalarType::U32);
    if (!T) return T.takeError();
    call(Intr::Nanosleep, {*T});
    return Error::success();
  }
  case Opcode::Pmevent:
  case Opcode::Setmaxnreg:
  case Opcode::Griddepcontrol:
    return Error::success();
  default:
    return notLowered(I);
  }
}

namespace {
struct CallShape {
  const Operand *Rets = nullptr;
  const Operand *Target = nullptr;
  const Operand *Args = nullptr;
  const Operand *Proto = nullptr;
};
} // namespace

Error FunctionLowering::lowerCall(const Instruction &I) {
  CallShape CS;
  size_t K = 0;
  if (K < I.Ops.size() && I.Ops[K].K == Operand::Kind::ParenList)
    CS.Rets = &I.Ops[K++];
  if (K >= I.Ops.size())
    return fail("call without a target");
  CS.Target = &I.Ops[K++];
  if (K < I.Ops.size() && I.Ops[K].K == Operand::Kind::ParenList)
    CS.Args = &I.Ops[K++];
  if (K < I.Ops.size())
    CS.Proto = &I.Ops[K];
  ArrayRef<Operand> Args = CS.Args ? CS.Args->Elems : ArrayRef<Operand>();
  ArrayRef<Operand> Rets = CS.Rets ? CS.Rets->Elems : ArrayRef<Operand>();

  // An argument as a value of type Ty: the contents of a .param slot, or a
  // register/immediate written directly in the list.
  auto ArgValue = [&](const Operand &A, Type *Ty) -> Expected<Value *> {
    if (const VarDecl *D = lookupVar(A.Name); D && D->Space != StateSpace::Reg) {
      auto It = VarSlots.find(D);
      if (It == VarSlots.end())
        return fail("no storage for argument '" + A.Name + "'");
      return B.CreateLoad(Ty, It->second);
    }
    unsigned W = Ty->getPrimitiveSizeInBits();
    ScalarType ST = W == 1 ? ScalarType::Pred : W == 8 ? ScalarType::B8 : W == 16 ? ScalarType::B16
                  : W == 32 ? ScalarType::B32 : W == 64 ? ScalarType::B64 : ScalarType::B128;
    Expected<Value *> V = get(A, ST);
    if (!V) return V.takeError();
    return fitBits(*V, Ty, false);
  };
  auto SlotOf = [&](const Operand &A) -> Expected<Value *> {
    const VarDecl *D = lookupVar(A.Name);
    auto It = D ? VarSlots.find(D) : VarSlots.end();
    if (It == VarSlots.end())
      return fail("'" + A.Name + "' is not a .param variable");
    return It->second;
  };
  auto StoreRet = [&](const Operand &R, Value *V) -> Error {
    if (const VarDecl *D = lookupVar(R.Name); D && D->Space != StateSpace::Reg) {
      B.CreateStore(V, VarSlots[D]);
      return Error::success();
    }
    unsigned W = V->getType()->getPrimitiveSizeInBits();
    ScalarType ST = W == 1 ? ScalarType::Pred : W == 32 ? ScalarType::B32 : W == 64 ? ScalarType::B64
                  : W == 16 ? ScalarType::B16 : ScalarType::B8;
    return set(R, fitBits(V, valType(ST), false), ST);
  };

  StringRef Name = CS.Target->Name;
  bool Direct = !lookupReg(Name).D;
  if (Direct && Name.starts_with("__cudaCDP2") && !ML.Funcs.count(Name))
    return lowerCdpCall(Name, Args, Rets);
  if (Direct && ModuleLowering::isRuntimeExtern(Name) && !ML.Funcs.count(Name)) {
    Type *I64 = B.getInt64Ty(), *P0 = ptrTy(C, 0);
    auto Ptr = [&](unsigned K) -> Expected<Value *> {
      if (K >= Args.size())
        return fail(Name + ": missing argument");
      Expected<Value *> V = ArgValue(Args[K], I64);
      if (!V) return V.takeError();
      return B.CreateIntToPtr(*V, P0);
    };
    if (Name == "vprintf") {
      Expected<Value *> Fmt = Ptr(0), Buf = Ptr(1);
      if (!Fmt) return Fmt.takeError();
      if (!Buf) return Buf.takeError();
      Value *R = call(Intr::Printf, {*Fmt, *Buf});
      return Rets.empty() ? Error::success() : StoreRet(Rets[0], R);
    }
    if (Name == "malloc") {
      if (Args.empty()) return fail("malloc: missing argument");
      Expected<Value *> N = ArgValue(Args[0], I64);
      if (!N) return N.takeError();
      Value *R = B.CreatePtrToInt(call(Intr::Malloc, {*N}), I64);
      return Rets.empty() ? Error::success() : StoreRet(Rets[0], R);
    }
    if (Name == "cudaGraphSetConditional") {
      // A conditional handle is the address of its 32-bit value
      // (libcuda/core/Graph.h, CondSlot), so setting it is a store; the
      // conditional node reads it after the kernel has finished.
      if (Args.size() != 2)
        return fail("cudaGraphSetConditional: expected 2 arguments");
      Expected<Value *> Handle = Ptr(0);
      Expected<Value *> V = ArgValue(Args[1], B.getInt32Ty());
      if (!Handle) return Handle.takeError();
      if (!V) return V.takeError();
      B.CreateStore(*V, *Handle)->setVolatile(true);
      return Error::success();
    }
    if (Name == "free") {
      Expected<Value *> P = Ptr(0);
      if (!P) return P.takeError();
      call(Intr::Free, {*P});
      return Error::success();
    }
    // __assertfail(message, file, line, function, charSize)
    if (Args.size() < 5)
      return fail("__assertfail: expected 5 arguments");
    Expected<Value *> Msg = Ptr(0), File = Ptr(1), Fn = Ptr(3);
    Expected<Value *> Line = ArgValue(Args[2], B.getInt32Ty()), CSz = ArgValue(Args[4], I64);
    if (!Msg) return Msg.takeError();
    if (!File) return File.takeError();
    if (!Fn) return Fn.takeError();
    if (!Line) return Line.takeError();
    if (!CSz) return CSz.takeError();
    call(Intr::AssertFail, {*Msg, *File, *Line, *Fn, *CSz});
    return Error::success();
  }

  // The callee's shape: from the function itself, or from the prototype of
  // an indirect call.
  FunctionType *FT = nullptr;
  Value *Callee = nullptr;
  bool ScalarReturn = false;
  unsigned NumRetPtrs = 0;
  SmallVector<bool, 8> ByPtr;
  if (Direct) {
    auto It = ML.Funcs.find(Name);
    if (It == ML.Funcs.end())
      return fail("call of unknown function '" + Name + "'");
    FuncSig &Sig = It->second;
    FT = Sig.F->getFunctionType();
    Callee = Sig.F;
    ScalarReturn = Sig.ScalarReturn;
    NumRetPtrs = Sig.NumRetPtrs;
    ByPtr = Sig.ByPointer;
  } else {
    if (!CS.Proto)
      return fail("indirect call without a prototype");
    ArrayRef<VarDecl *> PR, PP;
    if (auto PIt = Prototypes.find(CS.Proto->Name); PIt != Prototypes.end()) {
      PR = PIt->second->Returns;
      PP = PIt->second->Params;
    } else if (auto TIt = TargetLists.find(CS.Proto->Name);
               TIt != TargetLists.end() && !TIt->second->Targets.empty() &&
               ML.Funcs.count(TIt->second->Targets[0])) {
      const Function *TF = ML.Funcs[TIt->second->Targets[0]].Ptx;
      PR = TF->Returns;
      PP = TF->Params;
    } else {
      return fail("unknown call prototype '" + CS.Proto->Name + "'");
    }
    ScalarReturn = PR.size() == 1 && PR[0]->Dims.empty() && !PR[0]->VecWidth;
    SmallVector<Type *, 8> Tys;
    if (!ScalarReturn) {
      NumRetPtrs = PR.size();
      Tys.append(NumRetPtrs, ptrTy(C, 0));
    }
    for (const VarDecl *P : PP) {
      bool BP = !P->Dims.empty() || P->VecWidth;
      ByPtr.push_back(BP);
      Tys.push_back(BP ? ptrTy(C, 0) : ML.paramValueType(*P));
    }
    FT = FunctionType::get(ScalarReturn ? ML.paramValueType(*PR[0]) : B.getVoidTy(), Tys, false);
    Expected<Value *> Addr = get(*CS.Target, ScalarType::U64);
    if (!Addr) return Addr.takeError();
    Callee = B.CreateIntToPtr(*Addr, ptrTy(C, 0));
  }
  if (Args.size() != ByPtr.size())
    return fail("call of '" + Name + "' with " + Twine(Args.size()) + " arguments, expected " +
                Twine(ByPtr.size()));
  if (Rets.size() != (ScalarReturn ? 1 : NumRetPtrs))
    return fail("call of '" + Name + "' with the wrong number of return values");
  SmallVector<Value *, 8> CallArgs;
  for (unsigned R = 0; R < NumRetPtrs; ++R) {
    Expected<Value *> S = SlotOf(Rets[R]);
    if (!S) return S.takeError();
    CallArgs.push_back(*S);
  }
  for (size_t A = 0; A < Args.size(); ++A) {
    Type *Ty = FT->getParamType(NumRetPtrs + A);
    Expected<Value *> V = ByPtr[A] ? SlotOf(Args[A]) : ArgValue(Args[A], Ty);
    if (!V) return V.takeError();
    CallArgs.push_back(*V);
  }
  CallInst *Call = B.CreateCall(FT, Callee, CallArgs);
  if (ScalarReturn)
    return StoreRet(Rets[0], Call);
  return Error::success();
}

} // namespace ferry::ptx::lower
