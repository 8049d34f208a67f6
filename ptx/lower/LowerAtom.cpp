//===- LowerAtom.cpp - atom and red (PTX ISA 9.7.13.5, 9.7.13.6) -----------===//
/// \file
/// atom/red as LLVM atomicrmw/cmpxchg. Semantics: no .sem is .relaxed
/// (monotonic); .acquire/.release/.acq_rel map to the LLVM orderings. Scope:
/// .cta → syncscope("block"), .cluster → "cluster", .gpu (the default for
/// atom/red) → "device", .sys → the default (system) scope. inc/dec use
/// LLVM's uinc_wrap/udec_wrap, which are exactly PTX's wrapping rules
/// ((old >= b) ? 0 : old+1 and (old == 0 || old > b) ? b : old-1). Float
/// min/max use fmin/fmax (NaN-ignoring like PTX); f16x2/bf16x2 add are
/// vector fadd. cas of b16/b32/b64/b128 is cmpxchg of that width. An f32
/// add flushes subnormals except in shared memory (markSharedFloatAdd).
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

using namespace llvm;

namespace ferry::ptx::lower {

SyncScope::ID FunctionLowering::syncScope(const Instruction &I, bool DefaultGpu) {
  std::optional<Modifier> S = I.firstOfClass(MC_Scope);
  Modifier M = S ? *S : (DefaultGpu ? Modifier::Gpu : Modifier::Sys);
  switch (M) {
  case Modifier::Cta: return C.getOrInsertSyncScopeID("block");
  case Modifier::Cluster: return C.getOrInsertSyncScopeID("cluster");
  case Modifier::Gpu: return C.getOrInsertSyncScopeID("device");
  default: return SyncScope::System;
  }
}

AtomicOrdering FunctionLowering::ordering(const Instruction &I, AtomicOrdering Default) {
  if (I.has(Modifier::AcqRel)) return AtomicOrdering::AcquireRelease;
  if (I.has(Modifier::Acquire)) return AtomicOrdering::Acquire;
  if (I.has(Modifier::Release)) return AtomicOrdering::Release;
  if (I.has(Modifier::Relaxed)) return AtomicOrdering::Monotonic;
  if (I.has(Modifier::Sc)) return AtomicOrdering::SequentiallyConsistent;
  return Default;
}

namespace {
/// Float atomic adds behave differently in shared memory on the H100
/// (tests/ptx-conformance): f32 keeps subnormal inputs and results, which the
/// global form flushes (PTX ISA 9.7.13.5); f64 NaN results are those of f64
/// arithmetic (quieted, the value in memory first), where the global form
/// stores the operand's NaN unchanged. SIMT IR's `atomicrmw fadd` has the
/// global meaning, and the shared-memory form of f32 and f64 carries
/// !ferry.shared. A generic address is taken as global.
void markSharedFloatAdd(AtomicRMWInst *R, StateSpace S) {
  if (S == StateSpace::Shared && R->getOperation() == AtomicRMWInst::FAdd &&
      (R->getType()->isFloatTy() || R->getType()->isDoubleTy()))
    R->setMetadata("ferry.shared", MDNode::get(R->getContext(), {}));
}
} // namespace

Error FunctionLowering::lowerAtom(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  std::optional<Modifier> OpM = I.firstOfClass(MC_Op);
  if (!TO || !OpM)
    return fail(spell(I) + " needs an operation and a type");
  ScalarType T = *TO;
  unsigned NVec = I.has(Modifier::V8) ? 8 : I.has(Modifier::V4) ? 4 : I.has(Modifier::V2) ? 2 : 1;
  if (NVec > 1) {
    // atom/red.v2/.v4/.v8 (sm_90, float add/min/max): each element is its
    // own atomic operation (PTX gives no atomicity across elements).
    bool IsRed = I.Op == Opcode::Red;
    unsigned Base = IsRed ? 0 : 1;
    if (I.Ops.size() < Base + 2 || I.Ops[Base + 1].K != Operand::Kind::Vector ||
        I.Ops[Base + 1].Elems.size() != NVec || (!IsRed && (I.Ops[0].K != Operand::Kind::Vector ||
                                                            I.Ops[0].Elems.size() != NVec)))
      return fail(spell(I) + ": expected {vector} operands of " + Twine(NVec));
    if (*OpM != Modifier::Add && *OpM != Modifier::Min && *OpM != Modifier::Max)
      return notLowered(I, "vector atomic operation");
    Expected<Value *> P = address(I.Ops[Base], I.space());
    if (!P)
      return P.takeError();
    bool Fl = isFloat(T);
    AtomicRMWInst::BinOp Op = *OpM == Modifier::Add ? (Fl ? AtomicRMWInst::FAdd : AtomicRMWInst::Add)
                            : *OpM == Modifier::Min ? (Fl ? AtomicRMWInst::FMin : AtomicRMWInst::Min)
                                                    : (Fl ? AtomicRMWInst::FMax : AtomicRMWInst::Max);
    unsigned EB = bits(T) / 8;
    for (unsigned K = 0; K < NVec; ++K) {
      Expected<Value *> V = get(I.Ops[Base + 1].Elems[K], T);
      if (!V)
        return V.takeError();
      Value *EP = B.CreateGEP(B.getInt8Ty(), *P, B.getInt64(K * EB));
      AtomicRMWInst *R = B.CreateAtomicRMW(Op, EP, *V, Align(std::max(1u, EB)),
                                           ordering(I, AtomicOrdering::Monotonic), syncScope(I, true));
      markSharedFloatAdd(R, I.space());
      if (!IsRed)
        if (Error E = set(I.Ops[0].Elems[K], R, T))
          return E;
    }
    return Error::success();
  }
  bool IsRed = I.Op == Opcode::Red;
  unsigned Base = IsRed ? 0 : 1; // operand index of the address
  if (I.Ops.size() < Base + 2)
    return fail(spell(I) + ": missing operands");
  StateSpace S = I.space();
  Expected<Value *> P = address(I.Ops[Base], S);
  if (!P)
    return P.takeError();
  AtomicOrdering Ord = ordering(I, AtomicOrdering::Monotonic);
  SyncScope::ID Scope = syncScope(I, true);
  Align Al(std::max(1u, bits(T) / 8));
  Expected<Value *> V = get(I.Ops[Base + 1], T);
  if (!V)
    return V.takeError();

  if (*OpM == Modifier::Cas) {
    if (I.Ops.size() < Base + 3)
      return fail("atom.cas needs a compare and a new value");
    Expected<Value *> New = get(I.Ops[Base + 2], T);
    if (!New)
      return New.takeError();
    IntegerType *IT = B.getIntNTy(bits(T));
    Value *Cmp = fitBits(*V, IT, false), *Nv = fitBits(*New, IT, false);
    AtomicOrdering Fail = Ord == AtomicOrdering::AcquireRelease ? AtomicOrdering::Acquire
                        : Ord == AtomicOrdering::Release ? AtomicOrdering::Monotonic : Ord;
    AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(*P, Cmp, Nv, Al, Ord, Fail, Scope);
    if (IsRed)
      return Error::success();
    return set(I.Ops[0], B.CreateExtractValue(X, 0), T);
  }
  bool Fl = isFloat(T);
  bool S2 = isSigned(T);
  AtomicRMWInst::BinOp Op;
  switch (*OpM) {
  case Modifier::Add: Op = Fl ? AtomicRMWInst::FAdd : AtomicRMWInst::Add; break;
  case Modifier::Min: Op = Fl ? AtomicRMWInst::FMin : S2 ? AtomicRMWInst::Min : AtomicRMWInst::UMin; break;
  case Modifier::Max: Op = Fl ? AtomicRMWInst::FMax : S2 ? AtomicRMWInst::Max : AtomicRMWInst::UMax; break;
  case Modifier::And: Op = AtomicRMWInst::And; break;
  case Modifier::Or: Op = AtomicRMWInst::Or; break;
  case Modifier::Xor: Op = AtomicRMWInst::Xor; break;
  case Modifier::Exch: Op = AtomicRMWInst::Xchg; break;
  case Modifier::Inc: Op = AtomicRMWInst::UIncWrap; break;
  case Modifier::Dec: Op = AtomicRMWInst::UDecWrap; break;
  default:
    return notLowered(I);
  }
  if (Fl && Op != AtomicRMWInst::FAdd && Op != AtomicRMWInst::FMin && Op != AtomicRMWInst::FMax &&
      Op != AtomicRMWInst::Xchg)
    return notLowered(I, "float atomic operation");
  Value *Val = *V;
  if (Op == AtomicRMWInst::Xchg || (!Fl && Val->getType()->isFloatingPointTy()))
    Val = fitBits(Val, B.getIntNTy(bits(T)), false);
  AtomicRMWInst *R = B.CreateAtomicRMW(Op, *P, Val, Al, Ord, Scope);
  markSharedFloatAdd(R, I.space());
  if (IsRed)
    return Error::success();
  return set(I.Ops[0], R, T);
}

} // namespace ferry::ptx::lower
