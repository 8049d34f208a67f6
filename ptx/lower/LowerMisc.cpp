//===- LowerMisc.cpp - mbarrier, bulk copies, video, fns --------------------===//
/// \file
/// Instructions that fit no other family file:
///  - mbarrier.* (PTX ISA 9.7.13.15) and the copies that signal one
///    (cp.async.mbarrier.arrive, cp.async.bulk, cp.reduce.async.bulk). The barrier object is a
///    64-bit word that PTX leaves opaque; ferry's layout (SimtIR.md) is
///      bits  0..20  pending arrivals of the current phase
///      bits 21..41  expected arrivals per phase
///      bits 42..62  tx-count, 21-bit two's complement
///      bit  63      phase parity
///    and every update (arrive, arrive_drop, expect_tx, complete_tx) is one
///    compare-exchange loop that applies its deltas and, when pending and
///    tx-count both reach zero, completes the phase in the same exchange
///    (pending := expected, parity flipped). The state token an arrive
///    returns is the word before the update, so test_wait compares parities
///    and pending_count reads its low bits. A failed try_wait/test_wait
///    calls ferry.nanosleep: on the host backend that is a yield, so the
///    fibers of the other warps (the ones that will arrive) run while user
///    code spins. cp.async and cp.async.bulk copy immediately in ferry, so a
///    bulk copy's complete_tx follows its memcpy at once.
///  - The scalar (9.7.18) and SIMD (9.7.19) video instructions: each lane
///    (byte, halfword, or the selected part of a word) is extracted and
///    sign- or zero-extended per its operand type, computed exactly in a
///    wide integer, optionally saturated to the destination lane, then
///    merged into c or accumulated into c, as the ISA's pseudo-code says;
///    where an H100 differs (scalar saturation with a destination selector,
///    vmad's operand signs) ferry follows the GPU (tests/misc checks both
///    against one reference). SIMD lane selectors pick lanes of {b, a}.
///  - fns (9.7.1.17): the n-th set bit, found by a popcount binary search.
//===----------------------------------------------------------------------===//
#include "ptx/lower/BulkCopy.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {

// ---- mbarrier word layout ---------------------------------------------------
constexpr uint64_t FieldMask = (1u << 21) - 1;
constexpr unsigned ExpectedShift = 21, TxShift = 42;
constexpr uint64_t PhaseBit = uint64_t(1) << 63;

/// The type modifiers written on an instruction, in order (the video
/// instructions have up to three: dtype, atype, btype).
SmallVector<ScalarType, 3> types(const Instruction &I) {
  SmallVector<ScalarType, 3> Out;
  for (Modifier M : I.Mods)
    if (std::optional<ScalarType> T = modifierType(M))
      Out.push_back(*T);
  return Out;
}

/// An operand without its byte/half selector, for get()/set().
Operand plain(const Operand &Op) {
  Operand O = Op;
  O.Comp = Component::None;
  return O;
}

} // namespace

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

namespace {
struct MbarrierLowering {
  IRBuilder<> &B;

  /// Applies one update to the barrier at P and returns the word before it:
  /// pending -= Arrive, expected -= Drop, tx += Tx, completing the phase
  /// when pending and tx both become zero.
  Value *update(Value *P, Value *Arrive, Value *Drop, Value *Tx, AtomicOrdering Ord,
                SyncScope::ID Scope) {
    Type *I64 = B.getInt64Ty();
    LLVMContext &C = B.getContext();
    llvm::Function *F = B.GetInsertBlock()->getParent();
    BasicBlock *Pre = B.GetInsertBlock();
    LoadInst *First = B.CreateAlignedLoad(I64, P, Align(8));
    First->setAtomic(AtomicOrdering::Monotonic, Scope);
    BasicBlock *Loop = BasicBlock::Create(C, "mbar.update", F);
    BasicBlock *Done = BasicBlock::Create(C, "mbar.done", F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *Old = B.CreatePHI(I64, 2);
    Old->addIncoming(First, Pre);
    Value *M = B.getInt64(FieldMask);
    Value *Pend = B.CreateAnd(B.CreateSub(B.CreateAnd(Old, M), Arrive), M);
    Value *Exp = B.CreateAnd(B.CreateSub(B.CreateAnd(B.CreateLShr(Old, ExpectedShift), M), Drop), M);
    Value *TxN = B.CreateAnd(B.CreateAdd(B.CreateLShr(Old, TxShift), Tx), M);
    Value *Phase = B.CreateAnd(Old, B.getInt64(PhaseBit));
    Value *Complete = B.CreateAnd(B.CreateICmpEQ(Pend, B.getInt64(0)), B.CreateICmpEQ(TxN, B.getInt64(0)));
    Pend = B.CreateSelect(Complete, Exp, Pend);
    Phase = B.CreateSelect(Complete, B.CreateXor(Phase, B.getInt64(PhaseBit)), Phase);
    Value *New = B.CreateOr(B.CreateOr(Pend, B.CreateShl(Exp, ExpectedShift)),
                            B.CreateOr(B.CreateShl(TxN, TxShift), Phase));
    AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(P, Old, New, Align(8), Ord, AtomicOrdering::Monotonic, Scope);
    Old->addIncoming(B.CreateExtractValue(X, 0), Loop);
    B.CreateCondBr(B.CreateExtractValue(X, 1), Done, Loop);
    B.SetInsertPoint(Done);
    return Old;
  }

  /// The current word, read with the wait's ordering.
  Value *load(Value *P, AtomicOrdering Ord, SyncScope::ID Scope) {
    LoadInst *L = B.CreateAlignedLoad(B.getInt64Ty(), P, Align(8));
    L->setAtomic(Ord == AtomicOrdering::Release || Ord == AtomicOrdering::AcquireRelease
                     ? AtomicOrdering::Acquire : Ord, Scope);
    return L;
  }
};
} // namespace

Error FunctionLowering::lowerMbarrier(const Instruction &I) {
  MbarrierLowering ML2{B};
  SyncScope::ID Scope = I.firstOfClass(MC_Scope) ? syncScope(I, false) : C.getOrInsertSyncScopeID("block");
  StateSpace S = I.space();
  auto Addr = [&](unsigned K) -> Expected<Value *> {
    if (K >= I.Ops.size() || I.Ops[K].K != Operand::Kind::Address)
      return fail(spell(I) + ": expected an address operand");
    return address(I.Ops[K], S);
  };
  auto U32 = [&](unsigned K) -> Expected<Value *> {
    Expected<Value *> V = get(I.Ops[K], ScalarType::U32);
    if (!V)
      return V.takeError();
    return B.CreateZExt(*V, B.getInt64Ty());
  };
  Value *Zero = B.getInt64(0), *One = B.getInt64(1);

  switch (I.Op) {
  case Opcode::MbarrierInit: {
    Expected<Value *> P = Addr(0);
    if (!P) return P.takeError();
    Expected<Value *> N = U32(1);
    if (!N) return N.takeError();
    Value *Cnt = B.CreateAnd(*N, B.getInt64(FieldMask));
    B.CreateAlignedStore(B.CreateOr(Cnt, B.CreateShl(Cnt, ExpectedShift)), *P, Align(8));
    return Error::success();
  }
  case Opcode::MbarrierInval:
    // The object's memory may be reused afterwards; nothing to undo.
    return Addr(0).takeError();
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx: {
    Expected<Value *> P = Addr(0);
    if (!P) return P.takeError();
    Expected<Value *> Tx = U32(1);
    if (!Tx) return Tx.takeError();
    Value *D = I.Op == Opcode::MbarrierExpectTx ? *Tx : B.CreateNeg(*Tx);
    ML2.update(*P, Zero, Zero, D, ordering(I, AtomicOrdering::Release), Scope);
    return Error::success();
  }
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierArriveDrop: {
    // [state,] [addr] {, count | txCount}. .noComplete promises the arrive
    // does not complete the phase; the plain update is exact for it.
    Expected<Value *> P = Addr(1);
    if (!P) return P.takeError();
    Value *Count = One, *Tx = Zero;
    bool ExpectTx = I.has(Modifier::ExpectTx);
    if (I.Ops.size() > 3)
      return notLowered(I, "several counts");
    if (I.Ops.size() == 3) {
      Expected<Value *> N = U32(2);
      if (!N) return N.takeError();
      (ExpectTx ? Tx : Count) = *N;
    } else if (ExpectTx) {
      return fail(spell(I) + " needs a tx count");
    }
    Value *Drop = I.Op == Opcode::MbarrierArriveDrop ? Count : Zero;
    Value *Old = ML2.update(*P, Count, Drop, Tx, ordering(I, AtomicOrdering::Release), Scope);
    return set(I.Ops[0], Old, ScalarType::B64);
  }
  case Opcode::MbarrierTestWait:
  case Opcode::MbarrierTryWait: {
    Expected<Value *> P = Addr(1);
    if (!P) return P.takeError();
    bool Parity = I.has(Modifier::Parity);
    Expected<Value *> Tok = Parity ? get(I.Ops[2], ScalarType::U32) : get(I.Ops[2], ScalarType::B64);
    if (!Tok) return Tok.takeError();
    // The phase the token (or parity) names has completed once the parity
    // bit of the barrier differs from it.
    Value *Want = Parity ? B.CreateShl(B.CreateZExt(B.CreateAnd(*Tok, B.getInt32(1)), B.getInt64Ty()), 63)
                         : B.CreateAnd(*Tok, B.getInt64(PhaseBit));
    AtomicOrdering Ord = ordering(I, AtomicOrdering::Acquire);
    auto Test = [&]() {
      Value *Cur = ML2.load(*P, Ord, Scope);
      return B.CreateICmpNE(B.CreateAnd(Cur, B.getInt64(PhaseBit)), Want);
    };
    Value *R1 = Test();
    BasicBlock *Fast = B.GetInsertBlock();
    BasicBlock *Slow = BasicBlock::Create(C, "mbar.wait.yield", &F);
    BasicBlock *Done = BasicBlock::Create(C, "mbar.wait.done", &F);
    B.CreateCondBr(R1, Done, Slow);
    B.SetInsertPoint(Slow);
    // Not complete yet: let the other warps run (host fibers). try_wait
    // then looks again (it may wait for a while per the ISA); test_wait
    // reports what it saw, never waiting.
    call(Intr::Nanosleep, {B.getInt32(0)});
    Value *R2 = I.Op == Opcode::MbarrierTryWait ? Test() : B.getFalse();
    BasicBlock *SlowEnd = B.GetInsertBlock();
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    PHINode *R = B.CreatePHI(B.getInt1Ty(), 2);
    R->addIncoming(B.getTrue(), Fast);
    R->addIncoming(R2, SlowEnd);
    return setPred(I.Ops[0], R);
  }
  case Opcode::MbarrierPendingCount: {
    Expected<Value *> Tok = get(I.Ops[1], ScalarType::B64);
    if (!Tok) return Tok.takeError();
    return set(I.Ops[0], B.CreateTrunc(B.CreateAnd(*Tok, B.getInt64(FieldMask)), B.getInt32Ty()),
               ScalarType::U32);
  }
  case Opcode::CpAsyncMbarrierArrive: {
    Expected<Value *> P = Addr(0);
    if (!P) return P.takeError();
    // The arrive happens when this thread's cp.async copies complete, which
    // in ferry is already. Without .noinc the pending count is first raised
    // by one, so the net effect is nothing (the thread's own later arrive
    // publishes its copies); with .noinc it is an arrival.
    if (I.has(Modifier::Noinc))
      ML2.update(*P, One, Zero, Zero, AtomicOrdering::Release, Scope);
    return Error::success();
  }
  default:
    return notLowered(I);
  }
}

//===----------------------------------------------------------------------===//
// cp.async.bulk (non-tensor)
//===----------------------------------------------------------------------===//

namespace {
/// cp.reduce.async.bulk (9.7.9.25.4.2): dst[i] = op(dst[i], src[i]) over
/// size bytes of elements, one relaxed atomic per element (the ISA makes
/// each element's update atomic), at once; the shared::cluster form then
/// completes size bytes of transactions on its mbarrier.
Error lowerBulkReduce(FunctionLowering &FL, const Instruction &I) {
  IRBuilder<> &B = FL.B;
  bool Global = I.has(Modifier::Global);
  bool Mbar = I.has(Modifier::MbarrierCompleteTxBytes);
  std::optional<ScalarType> T = I.lastType();
  std::optional<Modifier> Op = I.firstOfClass(MC_Op);
  if (!T || !Op || Global == Mbar || (!Global && !I.has(Modifier::SharedCluster)))
    return FL.notLowered(I, "form");
  bool Fl = typeKind(*T) == TypeKind::Float, Signed = typeKind(*T) == TypeKind::Signed;
  AtomicRMWInst::BinOp RO;
  switch (*Op) {
  case Modifier::Add: RO = Fl ? AtomicRMWInst::FAdd : AtomicRMWInst::Add; break;
  case Modifier::Min: RO = Fl ? AtomicRMWInst::FMin : Signed ? AtomicRMWInst::Min : AtomicRMWInst::UMin; break;
  case Modifier::Max: RO = Fl ? AtomicRMWInst::FMax : Signed ? AtomicRMWInst::Max : AtomicRMWInst::UMax; break;
  case Modifier::And: RO = AtomicRMWInst::And; break;
  case Modifier::Or: RO = AtomicRMWInst::Or; break;
  case Modifier::Xor: RO = AtomicRMWInst::Xor; break;
  case Modifier::Inc: RO = AtomicRMWInst::UIncWrap; break;
  case Modifier::Dec: RO = AtomicRMWInst::UDecWrap; break;
  default: return FL.notLowered(I, "operation");
  }
  bool Bitwise = RO == AtomicRMWInst::And || RO == AtomicRMWInst::Or || RO == AtomicRMWInst::Xor;
  if ((Fl && RO != AtomicRMWInst::FAdd && RO != AtomicRMWInst::FMin && RO != AtomicRMWInst::FMax) ||
      (Bitwise && typeKind(*T) != TypeKind::Bits) || (!Bitwise && typeKind(*T) == TypeKind::Bits) ||
      ((RO == AtomicRMWInst::UIncWrap || RO == AtomicRMWInst::UDecWrap) && *T != ScalarType::U32) ||
      (Fl && typeBits(*T) == 16 && RO != AtomicRMWInst::FAdd))
    return FL.notLowered(I, "operation and type");
  size_t Want = 3 + Mbar + I.has(Modifier::L2CacheHint);
  if (I.Ops.size() != Want)
    return FL.fail(FL.spell(I) + ": expected dst, src, size" + (Mbar ? ", mbar" : ""));
  Expected<Value *> Dst = FL.address(I.Ops[0], Global ? StateSpace::Global : StateSpace::Shared);
  Expected<Value *> Src = FL.address(I.Ops[1], StateSpace::Shared);
  if (!Dst) return Dst.takeError();
  if (!Src) return Src.takeError();
  Expected<Value *> N = FL.get(I.Ops[2], ScalarType::U32);
  if (!N) return N.takeError();
  Type *ET = FL.valType(*T);
  unsigned Bytes = typeBits(*T) / 8;
  Value *Count = B.CreateUDiv(*N, B.getInt32(Bytes));
  SyncScope::ID Scope = FL.C.getOrInsertSyncScopeID(Global ? "device" : "block");
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Loop = BasicBlock::Create(FL.C, "bulk.reduce", &FL.F);
  BasicBlock *Done = BasicBlock::Create(FL.C, "bulk.reduce.done", &FL.F);
  B.CreateCondBr(B.CreateICmpNE(Count, B.getInt32(0)), Loop, Done);
  B.SetInsertPoint(Loop);
  PHINode *Idx = B.CreatePHI(B.getInt32Ty(), 2, "i");
  Idx->addIncoming(B.getInt32(0), Pre);
  Value *Off = B.CreateMul(B.CreateZExt(Idx, B.getInt64Ty()), B.getInt64(Bytes));
  Value *V = B.CreateAlignedLoad(ET, B.CreateGEP(B.getInt8Ty(), *Src, Off), Align(Bytes));
  B.CreateAtomicRMW(RO, B.CreateGEP(B.getInt8Ty(), *Dst, Off), V, Align(Bytes), AtomicOrdering::Monotonic, Scope);
  Value *Next = B.CreateAdd(Idx, B.getInt32(1));
  Idx->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, Count), Loop, Done);
  B.SetInsertPoint(Done);
  if (!Mbar)
    return Error::success();
  Expected<Value *> P = FL.address(I.Ops[3], StateSpace::Shared);
  if (!P) return P.takeError();
  MbarrierLowering ML2{B};
  ML2.update(*P, B.getInt64(0), B.getInt64(0), B.CreateNeg(B.CreateZExt(*N, B.getInt64Ty())),
             AtomicOrdering::Release, FL.C.getOrInsertSyncScopeID("block"));
  return Error::success();
}
} // namespace

void mbarrierCompleteTx(IRBuilder<> &B, Value *Bar, Value *Bytes) {
  MbarrierLowering ML2{B};
  ML2.update(Bar, B.getInt64(0), B.getInt64(0), B.CreateNeg(Bytes), AtomicOrdering::Release,
             B.getContext().getOrInsertSyncScopeID("block"));
}

Error FunctionLowering::lowerBulkCopy(const Instruction &I) {
  switch (I.Op) {
  case Opcode::CpAsyncBulkPrefetch:
  case Opcode::CpAsyncBulkCommitGroup:
  case Opcode::CpAsyncBulkWaitGroup:
    return Error::success(); // Copies are complete when issued.
  case Opcode::CpReduceAsyncBulk:
    return lowerBulkReduce(*this, I);
  case Opcode::CpAsyncBulkTensor:
    return lowerBulkTensor(*this, I);
  case Opcode::CpAsyncBulk:
    break;
  default:
    return notLowered(I);
  }
  SmallVector<StateSpace, 2> Sp;
  for (Modifier M : I.Mods)
    switch (M) {
    case Modifier::Global: Sp.push_back(StateSpace::Global); break;
    case Modifier::Shared: case Modifier::SharedCta: case Modifier::SharedCluster:
      Sp.push_back(StateSpace::Shared); break;
    default: break;
    }
  bool Mbar = I.has(Modifier::MbarrierCompleteTxBytes);
  // Clusters have one CTA, so .multicast::cluster would need its ctaMask
  // operand read; .cp_mask forms are newer still.
  size_t Want = 3 + Mbar + I.has(Modifier::L2CacheHint); // the cache policy is ignored
  if (Sp.size() != 2 || I.Ops.size() != Want || (Mbar && I.Ops[3].K != Operand::Kind::Address))
    return notLowered(I);
  Expected<Value *> Dst = address(I.Ops[0], Sp[0]), Src = address(I.Ops[1], Sp[1]);
  if (!Dst) return Dst.takeError();
  if (!Src) return Src.takeError();
  Expected<Value *> N = get(I.Ops[2], ScalarType::U32);
  if (!N) return N.takeError();
  Value *Size = B.CreateZExt(*N, B.getInt64Ty());
  B.CreateMemCpy(*Dst, MaybeAlign(16), *Src, MaybeAlign(16), Size);
  if (!Mbar)
    return Error::success();
  Expected<Value *> P = address(I.Ops[3], StateSpace::Shared);
  if (!P) return P.takeError();
  MbarrierLowering ML2{B};
  ML2.update(*P, B.getInt64(0), B.getInt64(0), B.CreateNeg(Size), AtomicOrdering::Release,
             C.getOrInsertSyncScopeID("block"));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Video instructions
//===----------------------------------------------------------------------===//

namespace {
/// Bit offset and width of a scalar video selector (.b0-.b3, .h0/.h1; none
/// is the whole word).
std::pair<unsigned, unsigned> part(Component C) {
  switch (C) {
  case Component::B0: return {0, 8};
  case Component::B1: return {8, 8};
  case Component::B2: return {16, 8};
  case Component::B3: return {24, 8};
  case Component::H0: return {0, 16};
  case Component::H1: return {16, 16};
  default: return {0, 32};
  }
}
} // namespace

namespace {
/// The value of a video source: the selected byte or halfword (or the whole
/// word) of V, sign- or zero-extended to i64.
Value *videoPart(IRBuilder<> &B, Value *V32, Component C, bool Signed) {
  auto [Off, Bits] = part(C);
  Value *P = B.CreateTrunc(B.CreateLShr(V32, Off), B.getIntNTy(Bits));
  return Signed ? B.CreateSExt(P, B.getInt64Ty()) : B.CreateZExt(P, B.getInt64Ty());
}

/// vmad (9.7.18.3): (a*b) + c with the product or c negated (one's
/// complement plus one, as the ISA's pseudo-code does it), or plus one
/// (.po), optionally shifted right by 7 or 15, then saturated. Where an H100
/// (CUDA 13) differs from the ISA text, ferry does what the GPU does: a
/// whole-word source (no selector) is a signed 32-bit value whatever its
/// type, c is always sign-extended, and .sat clamps the (signed)
/// intermediate to s32 when it is signed (a signed type or a negation) and
/// to [0, 2^32-1] otherwise. Every term then fits in 64 bits: |a*b| <= 2^62.
Error lowerVmad(FunctionLowering &FL, const Instruction &I) {
  IRBuilder<> &B = FL.B;
  SmallVector<ScalarType, 3> Ts = types(I);
  if (Ts.size() != 3 || I.Ops.size() != 4)
    return FL.fail(FL.spell(I) + ": expected .dtype.atype.btype and d, a, b, c");
  for (ScalarType T : Ts)
    if (T != ScalarType::U32 && T != ScalarType::S32)
      return FL.notLowered(I, "type");
  const Operand &DOp = I.Ops[0], &AOp = I.Ops[1], &BOp = I.Ops[2], &COp = I.Ops[3];
  for (const Operand *Op : {&AOp, &BOp})
    if (Op->Comp != Component::None && !(Op->Comp >= Component::B0 && Op->Comp <= Component::H1))
      return FL.fail(FL.spell(I) + ": selector of a source");
  if (DOp.Comp != Component::None || COp.Comp != Component::None)
    return FL.fail(FL.spell(I) + ": d and c take no selector");
  bool Po = I.has(Modifier::Po), NegProd = AOp.Minus != BOp.Minus, NegC = COp.Minus;
  if (Po && (AOp.Minus || BOp.Minus || NegC))
    return FL.fail(FL.spell(I) + ": .po takes no negated operands");
  if (NegProd && NegC)
    return FL.fail(FL.spell(I) + ": the product and c cannot both be negated");
  bool ASigned = Ts[1] == ScalarType::S32, BSigned = Ts[2] == ScalarType::S32;
  bool SignedFinal = ASigned || BSigned || NegProd || NegC;
  Expected<Value *> A = FL.get(plain(AOp), ScalarType::U32), Bv = FL.get(plain(BOp), ScalarType::U32),
                    Cv = FL.get(plain(COp), ScalarType::U32);
  if (!A) return A.takeError();
  if (!Bv) return Bv.takeError();
  if (!Cv) return Cv.takeError();
  Type *I64 = B.getInt64Ty();
  Value *TA = videoPart(B, *A, AOp.Comp, ASigned || AOp.Comp == Component::None);
  Value *TB = videoPart(B, *Bv, BOp.Comp, BSigned || BOp.Comp == Component::None);
  Value *Tmp = B.CreateMul(TA, TB);
  Value *C = *Cv;
  if (NegProd)
    Tmp = B.CreateNot(Tmp);
  else if (NegC && !Po)
    C = B.CreateNot(C);
  Tmp = B.CreateAdd(Tmp, B.CreateSExt(C, I64));
  if (Po || NegProd || NegC)
    Tmp = B.CreateAdd(Tmp, B.getInt64(1));
  // With .sat on an unsigned final type the H100 shifts logically, so a
  // negative intermediate saturates to 0xffffffff (measured, issue 21;
  // tests/ptx-conformance/fit_video.py); the low 32 bits of an unsaturated
  // result are the same either way.
  bool Logical = I.has(Modifier::Sat) && !SignedFinal;
  if (unsigned Sh = I.has(Modifier::Shr7) ? 7 : I.has(Modifier::Shr15) ? 15 : 0)
    Tmp = Logical ? B.CreateLShr(Tmp, Sh) : B.CreateAShr(Tmp, Sh);
  if (I.has(Modifier::Sat)) {
    int64_t Lo = SignedFinal ? INT32_MIN : 0, Hi = SignedFinal ? INT32_MAX : UINT32_MAX;
    Tmp = FL.callLLVM(Intrinsic::smax, {I64}, {FL.callLLVM(Intrinsic::smin, {I64}, {Tmp, B.getInt64(Hi)}),
                                               B.getInt64(uint64_t(Lo))});
  }
  return FL.set(plain(DOp), B.CreateTrunc(Tmp, B.getInt32Ty()), ScalarType::U32);
}
} // namespace

Error FunctionLowering::lowerVideo(const Instruction &I) {
  if (I.Op == Opcode::Vmad)
    return lowerVmad(*this, I);
  SmallVector<ScalarType, 3> Ts = types(I);
  bool IsSet = I.Op == Opcode::Vset || I.Op == Opcode::Vset2 || I.Op == Opcode::Vset4;
  bool IsShift = I.Op == Opcode::Vshl || I.Op == Opcode::Vshr;
  // vset has no destination type (its results are 0/1, unsigned).
  if (IsSet)
    Ts.insert(Ts.begin(), ScalarType::U32);
  if (Ts.size() != 3)
    return notLowered(I);
  for (ScalarType T : Ts)
    if (T != ScalarType::U32 && T != ScalarType::S32)
      return notLowered(I, "type");
  bool DSigned = Ts[0] == ScalarType::S32, ASigned = Ts[1] == ScalarType::S32,
       BSigned = Ts[2] == ScalarType::S32;
  bool Sat = I.has(Modifier::Sat), Add = I.has(Modifier::Add);
  std::optional<Modifier> Cmp = I.firstOfClass(MC_Cmp);
  if (IsSet && !Cmp)
    return fail(spell(I) + " needs a comparison");
  Type *I64 = B.getInt64Ty();

  auto Compute = [&](Value *A, Value *Bv) -> Value * { // exact, on i64 lanes
    switch (I.Op) {
    case Opcode::Vadd: case Opcode::Vadd2: case Opcode::Vadd4: return B.CreateAdd(A, Bv);
    case Opcode::Vsub: case Opcode::Vsub2: case Opcode::Vsub4: return B.CreateSub(A, Bv);
    case Opcode::Vabsdiff: case Opcode::Vabsdiff2: case Opcode::Vabsdiff4:
      return callLLVM(Intrinsic::abs, {I64}, {B.CreateSub(A, Bv), B.getFalse()});
    case Opcode::Vmin: case Opcode::Vmin2: case Opcode::Vmin4:
      return callLLVM(Intrinsic::smin, {I64}, {A, Bv});
    case Opcode::Vmax: case Opcode::Vmax2: case Opcode::Vmax4:
      return callLLVM(Intrinsic::smax, {I64}, {A, Bv});
    case Opcode::Vavrg2: case Opcode::Vavrg4: {
      // (a + b + 1) >> 1 for a non-negative sum, (a + b) >> 1 otherwise.
      Value *Sum = B.CreateAdd(A, Bv);
      Value *Up = B.CreateSelect(B.CreateICmpSGE(Sum, B.getInt64(0)), B.getInt64(1), B.getInt64(0));
      return B.CreateAShr(B.CreateAdd(Sum, Up), 1);
    }
    default: { // vset*
      CmpInst::Predicate P;
      switch (*Cmp) {
      case Modifier::Eq: P = CmpInst::ICMP_EQ; break;
      case Modifier::Ne: P = CmpInst::ICMP_NE; break;
      case Modifier::Lt: P = CmpInst::ICMP_SLT; break;
      case Modifier::Le: P = CmpInst::ICMP_SLE; break;
      case Modifier::Gt: P = CmpInst::ICMP_SGT; break;
      default: P = CmpInst::ICMP_SGE; break;
      }
      return B.CreateZExt(B.CreateICmp(P, A, Bv), I64);
    }
    }
  };
  auto Clamp = [&](Value *V, unsigned Bits, bool Signed) {
    Type *T = V->getType();
    int64_t Lo = Signed ? -(int64_t(1) << (Bits - 1)) : 0;
    int64_t Hi = Signed ? (int64_t(1) << (Bits - 1)) - 1 : int64_t((uint64_t(1) << Bits) - 1);
    return callLLVM(Intrinsic::smin, {T}, {callLLVM(Intrinsic::smax, {T}, {V, ConstantInt::get(T, Lo, true)}),
                                           ConstantInt::get(T, Hi, true)});
  };
  auto Ext = [&](Value *V32, unsigned Off, unsigned Bits, bool Signed) {
    Value *P = B.CreateTrunc(B.CreateLShr(V32, Off), B.getIntNTy(Bits));
    return Signed ? B.CreateSExt(P, I64) : B.CreateZExt(P, I64);
  };

  if (I.Ops.size() < 3)
    return fail(spell(I) + ": missing operands");
  Expected<Value *> A = get(plain(I.Ops[1]), ScalarType::U32), Bv = get(plain(I.Ops[2]), ScalarType::U32);
  if (!A) return A.takeError();
  if (!Bv) return Bv.takeError();
  Value *Cv = nullptr;
  if (I.Ops.size() > 3) {
    Expected<Value *> V = get(plain(I.Ops[3]), ScalarType::U32);
    if (!V) return V.takeError();
    Cv = *V;
  }

  unsigned Lanes = 0;
  switch (I.Op) {
  case Opcode::Vadd2: case Opcode::Vsub2: case Opcode::Vavrg2: case Opcode::Vabsdiff2:
  case Opcode::Vmin2: case Opcode::Vmax2: case Opcode::Vset2: Lanes = 2; break;
  case Opcode::Vadd4: case Opcode::Vsub4: case Opcode::Vavrg4: case Opcode::Vabsdiff4:
  case Opcode::Vmin4: case Opcode::Vmax4: case Opcode::Vset4: Lanes = 4; break;
  default: break;
  }

  if (Lanes) {
    // SIMD: lane i of a and b is the lane the selector names among the
    // lanes of {b, a} (a the low word; digits written from the top lane
    // down, defaults .b3210/.b7654 and .h10/.h32: each operand's own
    // lanes), saturated to the lane, then merged into c under the mask
    // (default all lanes) or, with .add, summed into c.
    if (!Cv)
      return fail(spell(I) + " needs a c operand");
    unsigned W = 32 / Lanes;
    Component LaneComp = Lanes == 4 ? Component::Bytes : Component::Halves;
    // Source lane picked for each lane of a and b.
    unsigned ASel[4] = {0, 1, 2, 3}, BSel[4] = {Lanes, Lanes + 1, Lanes + 2, Lanes + 3};
    for (unsigned K : {1u, 2u}) {
      const Operand &Op = I.Ops[K];
      if (Op.Comp == Component::None)
        continue;
      if (Op.Comp != LaneComp || Op.Lanes.size() != Lanes)
        return fail(spell(I) + ": operand " + Twine(K + 1) + " needs a ." + (Lanes == 4 ? "bxyzw" : "hxy") +
                    " selector");
      for (unsigned L = 0; L < Lanes; ++L)
        (K == 1 ? ASel : BSel)[L] = unsigned(Op.Lanes[Lanes - 1 - L] - '0');
    }
    unsigned Mask = (1u << Lanes) - 1;
    if (Component DC = I.Ops[0].Comp; DC != Component::None) {
      if (Lanes == 4 && DC >= Component::B0 && DC <= Component::B3) {
        Mask = 1u << (unsigned(DC) - unsigned(Component::B0));
      } else if (Lanes == 2 && (DC == Component::H0 || DC == Component::H1)) {
        Mask = DC == Component::H0 ? 1 : 2;
      } else if (DC == LaneComp) {
        Mask = 0;
        for (char Digit : I.Ops[0].Lanes)
          Mask |= 1u << unsigned(Digit - '0');
        if (Mask >> Lanes)
          return fail(spell(I) + ": destination mask names a lane the result does not have");
      } else {
        return fail(spell(I) + ": destination mask");
      }
    }
    if (Add && Sat)
      return fail(spell(I) + ": .sat and .add do not combine");
    // {b, a} as one 64-bit value, lane k at bits W*k.
    Value *AB = B.CreateOr(B.CreateZExt(*A, I64), B.CreateShl(B.CreateZExt(*Bv, I64), 32));
    auto Lane = [&](unsigned Src, bool Signed) {
      Value *P = B.CreateTrunc(B.CreateLShr(AB, W * Src), B.getIntNTy(W));
      return Signed ? B.CreateSExt(P, I64) : B.CreateZExt(P, I64);
    };
    Value *D = Add ? B.CreateZExt(Cv, I64) : B.getInt64(0);
    for (unsigned L = 0; L < Lanes; ++L) {
      if (!(Mask >> L & 1)) {
        if (!Add)
          D = B.CreateOr(D, B.CreateZExt(B.CreateAnd(Cv, B.getInt32(((1ull << W) - 1) << (W * L))), I64));
        continue;
      }
      Value *T = Compute(Lane(ASel[L], ASigned), Lane(BSel[L], BSigned));
      if (Sat)
        T = Clamp(T, W, DSigned);
      if (Add)
        D = B.CreateAdd(D, T);
      else
        D = B.CreateOr(D, B.CreateShl(B.CreateAnd(T, B.getInt64((1ull << W) - 1)), W * L));
    }
    return set(plain(I.Ops[0]), B.CreateTrunc(D, B.getInt32Ty()), ScalarType::U32);
  }

  // Scalar: ta, tb per the selectors, a 64-bit intermediate (the ISA's s34
  // fits), saturation to the destination part, then a secondary operation
  // with c or a merge into c.
  auto [AOff, ABits] = part(I.Ops[1].Comp);
  auto [BOff, BBits] = part(I.Ops[2].Comp);
  Value *TA = Ext(*A, AOff, ABits, ASigned);
  Value *TB = Ext(*Bv, BOff, BBits, BSigned && !IsShift);
  Value *T;
  if (IsShift) {
    // tb is unsigned; .clamp caps it at 32, .wrap takes it mod 32. The
    // intermediate is the ISA's s34, so a left shift wraps at 34 bits (an
    // H100 saturates 2 << 32 to INT32_MIN).
    if (I.has(Modifier::Wrap))
      TB = B.CreateAnd(TB, B.getInt64(31));
    else
      TB = callLLVM(Intrinsic::umin, {I64}, {TB, B.getInt64(32)});
    T = I.Op == Opcode::Vshl ? B.CreateAShr(B.CreateShl(B.CreateShl(TA, TB), 30), 30) : B.CreateAShr(TA, TB);
  } else {
    T = Compute(TA, TB);
  }
  Component DSel = I.Ops[0].Comp;
  auto [DOff, DBits] = part(DSel);
  if (Sat && !IsSet) {
    // The ISA clamps to the destination part's range. NVIDIA's compiler
    // (measured on an H100, CUDA 13) does so for a whole word only; with a
    // byte or .h0 selector a negative intermediate saturates to the part's
    // maximum as well, and .h1 always receives 0. ferry does what the GPU
    // does.
    if (DSel == Component::None) {
      // An s32 destination clamps to its range; on a u32 one the H100
      // raises a negative intermediate to 0 but does not cap it: above
      // 2^32-1 it wraps (measured, issue 21: fit_video.py). Shifts clamp
      // both ways (their .sat forms match the ISA).
      T = DSigned || IsShift ? Clamp(T, 32, DSigned) : callLLVM(Intrinsic::smax, {I64}, {T, B.getInt64(0)});
    } else if (DSel == Component::H1) {
      T = B.getInt64(0);
    } else {
      int64_t Max = DSigned ? (int64_t(1) << (DBits - 1)) - 1 : (int64_t(1) << DBits) - 1;
      Value *Out = B.CreateOr(B.CreateICmpSLT(T, B.getInt64(0)), B.CreateICmpSGT(T, B.getInt64(Max)));
      T = B.CreateSelect(Out, B.getInt64(Max), T);
    }
  } else if (IsShift) {
    // Without .sat the intermediate wraps to the destination type before a
    // secondary operation sees it.
    Value *W = B.CreateTrunc(T, B.getInt32Ty());
    T = DSigned ? B.CreateSExt(W, I64) : B.CreateZExt(W, I64);
  }
  // What a secondary min/max sees (measured on an H100, issue 21:
  // tests/ptx-conformance/fit_video.py states the rules and checks them on
  // every row of the goldens): vadd and vsub wrap the intermediate to 32
  // bits and sign-extend it whatever the destination type, vabsdiff, vmin
  // and vmax keep it exact; it is compared with c as signed 64-bit values
  // for an s32 destination and as unsigned ones for a u32 destination (so
  // a negative intermediate, or one of vadd/vsub with bit 31 set, is larger
  // than every c there).
  bool WrapFirst = !IsShift && (I.Op == Opcode::Vadd || I.Op == Opcode::Vsub);
  if (WrapFirst)
    T = B.CreateSExt(B.CreateTrunc(T, B.getInt32Ty()), I64);
  std::optional<Modifier> Op2;
  for (Modifier M : {Modifier::Add, Modifier::Min, Modifier::Max})
    if (I.has(M))
      Op2 = M;
  Value *D;
  if (Op2) {
    if (!Cv || DSel != Component::None)
      return fail(spell(I) + ": a secondary operation needs c and no destination selector");
    Value *C64 = DSigned ? B.CreateSExt(Cv, I64) : B.CreateZExt(Cv, I64);
    bool Unsigned = !DSigned && !IsShift;
    Intrinsic::ID Min = Unsigned ? Intrinsic::umin : Intrinsic::smin, Max = Unsigned ? Intrinsic::umax : Intrinsic::smax;
    D = *Op2 == Modifier::Add ? B.CreateAdd(T, C64)
      : callLLVM(*Op2 == Modifier::Min ? Min : Max, {I64}, {T, C64});
    D = B.CreateTrunc(D, B.getInt32Ty());
  } else if (DSel != Component::None) {
    if (!Cv)
      return fail(spell(I) + ": a destination selector needs c");
    uint32_t Keep = ~uint32_t(((uint64_t(1) << DBits) - 1) << DOff);
    Value *Part = B.CreateShl(B.CreateAnd(B.CreateTrunc(T, B.getInt32Ty()),
                                          B.getInt32(uint32_t((uint64_t(1) << DBits) - 1))), DOff);
    D = B.CreateOr(Part, B.CreateAnd(Cv, B.getInt32(Keep)));
  } else {
    D = B.CreateTrunc(T, B.getInt32Ty());
  }
  return set(plain(I.Ops[0]), D, ScalarType::U32);
}

//===----------------------------------------------------------------------===//
// fns
//===----------------------------------------------------------------------===//

Error FunctionLowering::lowerFns(const Instruction &I) {
  // d = position of the |offset|-th set bit of mask counting from bit base
  // (toward the MSB for offset > 0, the LSB for offset < 0; offset 0 asks
  // whether bit base is set), or 0xFFFFFFFF.
  if (I.Ops.size() != 4)
    return fail(spell(I) + ": expected d, mask, base, offset");
  Expected<Value *> Mask = get(I.Ops[1], ScalarType::B32), Base = get(I.Ops[2], ScalarType::B32),
                    Off = get(I.Ops[3], ScalarType::S32);
  if (!Mask) return Mask.takeError();
  if (!Base) return Base.takeError();
  if (!Off) return Off.takeError();
  Type *I32 = B.getInt32Ty();
  Value *None = B.getInt32(~0u);
  Value *InRange = B.CreateICmpULT(*Base, B.getInt32(32));
  Value *Sh = B.CreateAnd(*Base, B.getInt32(31));
  Value *Fwd = B.CreateICmpSGT(*Off, B.getInt32(0));
  // Bits at or above base (forward), or at or below base bit-reversed so
  // that the search always runs from bit 0 upward.
  Value *Above = B.CreateAnd(*Mask, B.CreateShl(B.getInt32(~0u), Sh));
  Value *Below = B.CreateAnd(*Mask, B.CreateLShr(B.getInt32(~0u), B.CreateSub(B.getInt32(31), Sh)));
  Value *M = B.CreateSelect(Fwd, Above, callLLVM(Intrinsic::bitreverse, {I32}, {Below}));
  // N: 1-based rank wanted (|offset|, saturating at 33 so it fits).
  Value *AbsOff = callLLVM(Intrinsic::abs, {I32}, {*Off, B.getFalse()});
  Value *N = callLLVM(Intrinsic::umin, {I32}, {AbsOff, B.getInt32(33)});
  Value *Found = B.CreateICmpUGE(callLLVM(Intrinsic::ctpop, {I32}, {M}), N);
  // Select: binary search with population counts of the low halves.
  Value *Pos = B.getInt32(0), *R = N;
  for (unsigned W : {16u, 8u, 4u, 2u, 1u}) {
    Value *Low = B.CreateAnd(B.CreateLShr(M, Pos), B.getInt32((1u << W) - 1));
    Value *Cnt = callLLVM(Intrinsic::ctpop, {I32}, {Low});
    Value *Skip = B.CreateICmpUGT(R, Cnt);
    Pos = B.CreateSelect(Skip, B.CreateAdd(Pos, B.getInt32(W)), Pos);
    R = B.CreateSelect(Skip, B.CreateSub(R, Cnt), R);
  }
  Value *Bit = B.CreateSelect(Fwd, Pos, B.CreateSub(B.getInt32(31), Pos));
  Value *Search = B.CreateSelect(Found, Bit, None);
  Value *BaseSet = B.CreateICmpNE(B.CreateAnd(B.CreateLShr(*Mask, Sh), B.getInt32(1)), B.getInt32(0));
  Value *AtBase = B.CreateSelect(BaseSet, *Base, None);
  Value *D = B.CreateSelect(B.CreateICmpEQ(*Off, B.getInt32(0)), AtBase, Search);
  // A base outside 0..31 finds nothing, except that with offset INT_MIN the
  // H100 answers 0 (tests/ptx-conformance: its only such rows; in-range
  // bases with INT_MIN find nothing, as here).
  Value *OutOfRange = B.CreateSelect(B.CreateICmpEQ(*Off, B.getInt32(0x80000000u)), B.getInt32(0), None);
  return set(I.Ops[0], B.CreateSelect(InRange, D, OutOfRange), ScalarType::B32);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Error FunctionLowering::lowerMisc(const Instruction &I) {
  switch (I.Op) {
  case Opcode::MbarrierInit: case Opcode::MbarrierInval: case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx: case Opcode::MbarrierArrive: case Opcode::MbarrierArriveDrop:
  case Opcode::MbarrierTestWait: case Opcode::MbarrierTryWait: case Opcode::MbarrierPendingCount:
  case Opcode::CpAsyncMbarrierArrive:
    return lowerMbarrier(I);
  case Opcode::CpAsyncBulk: case Opcode::CpAsyncBulkPrefetch: case Opcode::CpAsyncBulkCommitGroup:
  case Opcode::CpAsyncBulkWaitGroup: case Opcode::CpReduceAsyncBulk: case Opcode::CpAsyncBulkTensor:
    return lowerBulkCopy(I);
  case Opcode::Fns:
    return lowerFns(I);
  default:
    return lowerVideo(I);
  }
}

} // namespace ferry::ptx::lower
