/// \file
/// Warp-level ferry intrinsics → amdgcn. A CUDA warp is 32 lanes on every
/// target: the whole wavefront on wave32 (RDNA), half of it on wave64
/// (CDNA). On wave64 every cross-lane operation is therefore confined to
/// this lane's half: ballots are shifted right by (wave lane & 32) and
/// truncated, shuffles add the half's base lane to the source lane, and
/// loops that visit "every lane" visit the 32 lanes of the half.
#include "hsa/Lowering.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace ferry::hsa {

Value *waveLaneId(LowerContext &C, IRBuilder<> &B) {
  Value *Lo = B.CreateIntrinsic(Intrinsic::amdgcn_mbcnt_lo, {}, {B.getInt32(-1), B.getInt32(0)});
  if (!C.wave64())
    return Lo;
  return B.CreateIntrinsic(Intrinsic::amdgcn_mbcnt_hi, {}, {B.getInt32(-1), Lo}, nullptr,
                           "wave.lane");
}

Value *warpLaneId(LowerContext &C, IRBuilder<> &B) {
  Value *L = waveLaneId(C, B);
  return C.wave64() ? B.CreateAnd(L, 31, "warp.lane") : L;
}

namespace {
class WarpLowerer {
public:
  WarpLowerer(LowerContext &C, CallInst *CI) : C(C), CI(CI), B(CI) {}
  Expected<bool> run();

private:
  LowerContext &C;
  CallInst *CI;
  IRBuilder<> B;

  Value *arg(unsigned I) { return CI->getArgOperand(I); }
  /// The wave lane of this warp's lane 0: 0, or 32 for the upper half.
  Value *halfBase() { return B.CreateAnd(waveLaneId(C, B), 32, "half.base"); }
  Value *ballot(Value *Pred);
  Value *readLane(Value *V, Value *WarpLane);
  Value *shuffle(Value *Mode, Value *V, Value *BArg, Value *CArg, Value *&InRange);
  Value *matchAny(Value *V);
  Value *redux(Instruction::BinaryOps Op, Intrinsic::ID MinMax, Value *Mask, Value *V);
  void replace(Value *R) {
    CI->replaceAllUsesWith(R);
    CI->eraseFromParent();
  }
};
} // namespace

/// The 32-bit ballot of this warp (bits of lanes that are active and true).
Value *WarpLowerer::ballot(Value *Pred) {
  if (!C.wave64())
    return B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {B.getInt32Ty()}, {Pred}, nullptr,
                             "ballot");
  // ballot.i32 does not select on wave64: take the 64-bit mask and keep this
  // warp's half.
  Value *Full = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {B.getInt64Ty()}, {Pred});
  Value *Shift = B.CreateZExt(halfBase(), B.getInt64Ty());
  return B.CreateTrunc(B.CreateLShr(Full, Shift), B.getInt32Ty(), "ballot.half");
}

/// The value of V in lane WarpLane (0..31) of this warp.
Value *WarpLowerer::readLane(Value *V, Value *WarpLane) {
  Value *Src = C.wave64() ? B.CreateAdd(WarpLane, halfBase()) : WarpLane;
  // ds_bpermute addresses lanes in bytes.
  return B.CreateIntrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(Src, 2), V});
}

/// shfl.sync as the PTX ISA defines it: c packs the clamp value (bits 0-4)
/// and the segment mask (bits 8-12); an out-of-range source reads the
/// thread's own value and clears the predicate.
Value *WarpLowerer::shuffle(Value *Mode, Value *V, Value *BArg, Value *CArg, Value *&InRange) {
  Value *Lane = warpLaneId(C, B);
  Value *BVal = B.CreateAnd(BArg, 31);
  Value *CVal = B.CreateAnd(CArg, 31);
  Value *Seg = B.CreateAnd(B.CreateLShr(CArg, 8), 31);
  Value *MaxLane = B.CreateOr(B.CreateAnd(Lane, Seg), B.CreateAnd(CVal, B.CreateNot(Seg)));
  Value *MinLane = B.CreateAnd(Lane, Seg);

  Value *JUp = B.CreateSub(Lane, BVal);
  Value *PUp = B.CreateICmpSGE(JUp, MaxLane);
  Value *JDown = B.CreateAdd(Lane, BVal);
  Value *PDown = B.CreateICmpSLE(JDown, MaxLane);
  Value *JBfly = B.CreateXor(Lane, BVal);
  Value *PBfly = B.CreateICmpSLE(JBfly, MaxLane);
  Value *JIdx = B.CreateOr(MinLane, B.CreateAnd(BVal, B.CreateNot(Seg)));
  Value *PIdx = B.CreateICmpSLE(JIdx, MaxLane);

  Value *J, *P;
  if (auto *K = dyn_cast<ConstantInt>(Mode)) {
    switch (K->getZExtValue() & 3) {
    case 0: J = JUp; P = PUp; break;
    case 1: J = JDown; P = PDown; break;
    case 2: J = JBfly; P = PBfly; break;
    default: J = JIdx; P = PIdx; break;
    }
  } else {
    Value *M = B.CreateAnd(Mode, 3);
    auto Pick = [&](Value *A0, Value *A1, Value *A2, Value *A3) {
      Value *R = B.CreateSelect(B.CreateICmpEQ(M, B.getInt32(2)), A2, A3);
      R = B.CreateSelect(B.CreateICmpEQ(M, B.getInt32(1)), A1, R);
      return B.CreateSelect(B.CreateICmpEQ(M, B.getInt32(0)), A0, R);
    };
    J = Pick(JUp, JDown, JBfly, JIdx);
    P = Pick(PUp, PDown, PBfly, PIdx);
  }
  InRange = P;
  return readLane(V, B.CreateSelect(P, J, Lane, "shfl.src"));
}

/// match.any: a waterfall. Each trip takes the value of the first lane still
/// looking (readfirstlane), and the lanes holding that value take the
/// ballot of equal lanes (their half's bits) and leave the loop.
Value *WarpLowerer::matchAny(Value *V) {
  BasicBlock *Pre = CI->getParent();
  BasicBlock *After = SplitBlock(Pre, CI, static_cast<DominatorTree *>(nullptr), nullptr, nullptr,
                                 "match.done");
  BasicBlock *Loop = BasicBlock::Create(CI->getContext(), "match.loop", Pre->getParent(), After);
  Pre->getTerminator()->setSuccessor(0, Loop);
  B.SetInsertPoint(Loop);
  Value *U = B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {V->getType()}, {V});
  Value *Eq = B.CreateICmpEQ(V, U);
  Value *M = ballot(Eq);
  B.CreateCondBr(Eq, After, Loop);
  B.SetInsertPoint(CI);
  return M;
}

/// redux.sync: with a full mask, five butterfly steps; otherwise a uniform
/// loop over the 32 lanes that folds in the members' values.
Value *WarpLowerer::redux(Instruction::BinaryOps Op, Intrinsic::ID MinMax, Value *Mask, Value *V) {
  auto Combine = [&](Value *A, Value *X) -> Value * {
    if (MinMax != Intrinsic::not_intrinsic)
      return B.CreateBinaryIntrinsic(MinMax, A, X);
    return B.CreateBinOp(Op, A, X);
  };
  if (auto *K = dyn_cast<ConstantInt>(Mask); K && K->isAllOnesValue()) {
    Value *Lane = warpLaneId(C, B);
    Value *Acc = V;
    for (unsigned D = 16; D; D /= 2)
      Acc = Combine(Acc, readLane(Acc, B.CreateXor(Lane, D)));
    return Acc;
  }
  Value *Members = B.CreateAnd(Mask, ballot(B.getTrue()), "members");
  BasicBlock *Pre = CI->getParent();
  BasicBlock *After = SplitBlock(Pre, CI, static_cast<DominatorTree *>(nullptr), nullptr, nullptr,
                                 "redux.done");
  BasicBlock *Loop = BasicBlock::Create(CI->getContext(), "redux.loop", Pre->getParent(), After);
  Pre->getTerminator()->setSuccessor(0, Loop);
  B.SetInsertPoint(Loop);
  PHINode *I = B.CreatePHI(B.getInt32Ty(), 2, "i");
  PHINode *Acc = B.CreatePHI(V->getType(), 2, "acc");
  Value *X = readLane(V, I);
  Value *Bit = B.CreateTrunc(B.CreateLShr(Members, I), B.getInt1Ty());
  Value *First = B.CreateICmpEQ(B.CreateAnd(Members, B.CreateSub(B.CreateShl(B.getInt32(1), I),
                                                                  B.getInt32(1))),
                                B.getInt32(0));
  // The first member seeds the accumulator, so no identity element is needed.
  Value *Next = B.CreateSelect(Bit, B.CreateSelect(First, X, Combine(Acc, X)), Acc);
  Value *INext = B.CreateAdd(I, B.getInt32(1));
  B.CreateCondBr(B.CreateICmpEQ(INext, B.getInt32(32)), After, Loop);
  I->addIncoming(B.getInt32(0), Pre);
  I->addIncoming(INext, Loop);
  Acc->addIncoming(V, Pre);
  Acc->addIncoming(Next, Loop);
  B.SetInsertPoint(CI);
  return Next;
}

Expected<bool> WarpLowerer::run() {
  StringRef Name = CI->getCalledFunction()->getName();
  LLVMContext &Ctx = CI->getContext();
  if (Name == "ferry.bar.warp.sync") {
    // Lanes of a wave run in lockstep: order memory among them and keep the
    // scheduler from moving code across.
    B.CreateFence(AtomicOrdering::AcquireRelease, Ctx.getOrInsertSyncScopeID("wavefront"));
    B.CreateIntrinsic(Intrinsic::amdgcn_wave_barrier, {}, {});
    CI->eraseFromParent();
    return true;
  }
  if (Name == "ferry.shfl.sync") {
    Value *InRange = nullptr;
    Value *V = shuffle(arg(0), arg(2), arg(3), arg(4), InRange);
    Value *R = B.CreateInsertValue(PoisonValue::get(CI->getType()), V, 0);
    replace(B.CreateInsertValue(R, InRange, 1));
    return true;
  }
  if (Name == "ferry.vote.ballot") {
    replace(ballot(arg(1)));
    return true;
  }
  if (Name == "ferry.vote.any") {
    replace(B.CreateICmpNE(ballot(arg(1)), B.getInt32(0)));
    return true;
  }
  if (Name == "ferry.vote.all") {
    replace(B.CreateICmpEQ(ballot(B.CreateNot(arg(1))), B.getInt32(0)));
    return true;
  }
  if (Name == "ferry.vote.uni") {
    Value *T = ballot(arg(1));
    Value *Active = ballot(B.getTrue());
    replace(B.CreateOr(B.CreateICmpEQ(T, B.getInt32(0)), B.CreateICmpEQ(T, Active)));
    return true;
  }
  if (Name == "ferry.activemask") {
    replace(ballot(B.getTrue()));
    return true;
  }
  if (Name == "ferry.elect.sync") {
    Value *Members = B.CreateAnd(arg(0), ballot(B.getTrue()));
    Value *Leader = B.CreateBinaryIntrinsic(Intrinsic::cttz, Members, B.getFalse());
    Value *Me = B.CreateICmpEQ(Leader, warpLaneId(C, B));
    Value *R = B.CreateInsertValue(PoisonValue::get(CI->getType()), Leader, 0);
    replace(B.CreateInsertValue(R, Me, 1));
    return true;
  }
  if (Name == "ferry.match.any.b32" || Name == "ferry.match.any.b64") {
    Value *Mask = arg(0);
    replace(B.CreateAnd(matchAny(arg(1)), Mask));
    return true;
  }
  if (Name == "ferry.match.all.b32" || Name == "ferry.match.all.b64") {
    Value *Mask = arg(0);
    Value *Same = B.CreateAnd(matchAny(arg(1)), Mask);
    Value *All = B.CreateICmpEQ(Same, Mask);
    Value *R = B.CreateInsertValue(PoisonValue::get(CI->getType()),
                                   B.CreateSelect(All, Mask, B.getInt32(0)), 0);
    replace(B.CreateInsertValue(R, All, 1));
    return true;
  }
  struct ReduxKind {
    const char *Name;
    Instruction::BinaryOps Op;
    Intrinsic::ID MinMax;
  };
  static const ReduxKind Reduxes[] = {
      {"ferry.redux.add", Instruction::Add, Intrinsic::not_intrinsic},
      {"ferry.redux.and", Instruction::And, Intrinsic::not_intrinsic},
      {"ferry.redux.or", Instruction::Or, Intrinsic::not_intrinsic},
      {"ferry.redux.xor", Instruction::Xor, Intrinsic::not_intrinsic},
      {"ferry.redux.umin", Instruction::BinaryOpsEnd, Intrinsic::umin},
      {"ferry.redux.umax", Instruction::BinaryOpsEnd, Intrinsic::umax},
      {"ferry.redux.smin", Instruction::BinaryOpsEnd, Intrinsic::smin},
      {"ferry.redux.smax", Instruction::BinaryOpsEnd, Intrinsic::smax},
  };
  for (const ReduxKind &K : Reduxes)
    if (Name == K.Name) {
      Value *Mask = arg(0);
      replace(redux(K.Op, K.MinMax, Mask, arg(1)));
      return true;
    }
  return false;
}

Expected<bool> lowerWarpCall(LowerContext &C, CallInst *CI) {
  return WarpLowerer(C, CI).run();
}

} // namespace ferry::hsa
