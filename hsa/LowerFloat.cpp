/// \file
/// Float operations whose AMDGPU code would compute something other than
/// what an H100 does (tests/ptx-conformance, ctest ptx_conformance.hsa-*):
///
/// - fma of bf16: gfx9/gfx11 have no bf16 fma, and LLVM's AMDGPU backend
///   promotes it to an f32 fma rounded again to bf16: two roundings, an ulp
///   off on about one input in 128. It is computed here in double (the
///   product of two 8-bit significands is exact) with the sum rounded to
///   odd (TwoSum's exact error), then rounded to odd once more to float and
///   to nearest even to bf16: round-to-odd into a format at least two bits
///   wider makes the last rounding the only one. Cost: ~20 ALU operations,
///   4 of them f64, per element instead of one f32 fma.
///
/// - `atomicrmw fadd` (PTX atom/red.add, SIMT IR's meaning in
///   ptx/lower/SimtIR.md): the H100 flushes subnormal inputs and results
///   of an f32 add in global memory (PTX ISA 9.7.13.5), stores its
///   canonical NaN (0x7fffffff, 0x7fff) from f32/f16/bf16 adds, and from an
///   f64 add in global memory the operand's NaN (else memory's) unchanged;
///   shared-memory f64 adds quiet the NaN, the value in memory first.
///   AMD's native atomics (global_atomic_add_f32/f64, pk_add_f16/bf16,
///   ds_add_f32) keep subnormals (gfx942 and gfx11: LLVM's
///   "memory-atomic-fadd-f32-denormal-support") and quiet an operand's
///   NaN. Each such add becomes a compare-and-swap loop that computes the
///   H100's result:
///     * always for f32 in global (or generic) memory, where the PTX
///       semantics (flushing) require it;
///     * always where LLVM would expand the atomic to a compare-and-swap
///       loop itself (gfx1100's global float atomics, every f16/bf16
///       scalar add; TargetLowering::shouldExpandAtomicRMWInIR), which
///       costs nothing extra;
///     * elsewhere (only NaN bits differ) under FERRY_EXACT_F64_NAN=1.
///   Cost: a native atomic is one fire-and-forget instruction; the loop is
///   a load plus one returning compare-and-swap per attempt (the wave waits
///   for it). When the whole wave adds to one address (a sum into one
///   word), one lane applies the wave's values in lane order and stores
///   them with one compare-and-swap (emitWaveLoop): one memory round trip
///   per attempt plus ~15 ALU operations per lane, where a loop per lane
///   would collide 32 or 64 times. LLVM's atomic optimizer, which summed a
///   wave's values first into one native atomic, no longer applies (that
///   sum rounds differently from any order of single adds). Lanes adding
///   to different words loop each on their own, as LLVM's expansion did.
#include "hsa/Lowering.h"

#include "support/Settings.h"

#include "llvm/CodeGen/TargetLowering.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

using namespace llvm;

namespace ferry::hsa {

namespace {

/// A double rounded to float with round-to-odd: the nearest float unless
/// inexact and even, then its odd neighbour towards D.
Value *floatRoundedToOdd(IRBuilder<> &B, Value *D) {
  Type *DT = D->getType();
  Type *FT = DT->getWithNewType(B.getFloatTy()), *IT = DT->getWithNewType(B.getInt32Ty());
  Value *F = B.CreateFPTrunc(D, FT);
  Value *Back = B.CreateFPExt(F, DT);
  Value *Inexact = B.CreateAnd(B.CreateFCmpONE(Back, D), B.CreateFCmpORD(D, D));
  Value *Bits = B.CreateBitCast(F, IT);
  Value *Even = B.CreateICmpEQ(B.CreateAnd(Bits, ConstantInt::get(IT, 1)), ConstantInt::get(IT, 0));
  // Float bit patterns order by magnitude: one down when F overshot |D|.
  Value *Over = B.CreateFCmpOGT(B.CreateUnaryIntrinsic(Intrinsic::fabs, Back),
                                B.CreateUnaryIntrinsic(Intrinsic::fabs, D));
  Value *Step = B.CreateSelect(Over, ConstantInt::get(IT, uint64_t(-1)), ConstantInt::get(IT, 1));
  Value *Odd = B.CreateBitCast(B.CreateAdd(Bits, Step), FT);
  return B.CreateSelect(B.CreateAnd(Inexact, Even), Odd, F);
}

/// a*b+c for bf16 (scalar or vector) with one rounding.
Value *exactBf16Fma(IRBuilder<> &B, Value *A, Value *Bv, Value *C) {
  Type *Ty = A->getType();
  Type *DT = Ty->getWithNewType(B.getDoubleTy()), *IT = Ty->getWithNewType(B.getInt64Ty());
  Value *Ad = B.CreateFPExt(A, DT), *Bd = B.CreateFPExt(Bv, DT), *Cd = B.CreateFPExt(C, DT);
  Value *P = B.CreateFMul(Ad, Bd); // exact: 16 significant bits
  Value *S = B.CreateFAdd(P, Cd);
  // TwoSum: S + Err == P + Cd exactly.
  Value *Bb = B.CreateFSub(S, P);
  Value *Err = B.CreateFAdd(B.CreateFSub(P, B.CreateFSub(S, Bb)), B.CreateFSub(Cd, Bb));
  Value *SBits = B.CreateBitCast(S, IT);
  Value *Zero = ConstantInt::get(IT, 0);
  Value *Even = B.CreateICmpEQ(B.CreateAnd(SBits, ConstantInt::get(IT, 1)), Zero);
  Value *Inexact = B.CreateAnd(B.CreateFCmpONE(Err, ConstantFP::get(DT, 0.0)), B.CreateFCmpORD(S, S));
  Value *SameSign = B.CreateICmpEQ(B.CreateICmpSLT(B.CreateBitCast(Err, IT), Zero), B.CreateICmpSLT(SBits, Zero));
  Value *Step = B.CreateSelect(SameSign, ConstantInt::get(IT, 1), ConstantInt::get(IT, uint64_t(-1)));
  Value *D = B.CreateSelect(B.CreateAnd(Inexact, Even), B.CreateBitCast(B.CreateAdd(SBits, Step), DT), S);
  return B.CreateFPTrunc(floatRoundedToOdd(B, D), Ty);
}

/// The H100's result of one float atomic add, on the bits in memory (Old)
/// and the operand (V, of the atomic's type); returns the bits to store.
Value *h100FloatAdd(IRBuilder<> &B, Type *Ty, Value *Old, Value *V, bool Shared) {
  Type *E = Ty->getScalarType();
  Type *IT = Old->getType();
  auto C = [&](uint64_t X) { return ConstantInt::get(IT, X); };
  auto IsNan = [&](Value *Bits, Type *T) {
    Value *F = B.CreateBitCast(Bits, T);
    return B.CreateFCmpUNO(F, F);
  };
  if (E->isFloatTy() && !Shared) {
    // Flush subnormal inputs and result to a zero of the same sign.
    auto Flush = [&](Value *X) {
      Value *Sub = B.CreateICmpEQ(B.CreateAnd(X, C(0x7f800000)), C(0));
      return B.CreateSelect(Sub, B.CreateAnd(X, C(0x80000000)), X);
    };
    Value *Sum = B.CreateFAdd(B.CreateBitCast(Flush(Old), E), B.CreateBitCast(Flush(B.CreateBitCast(V, IT)), E));
    Value *SumBits = B.CreateBitCast(Sum, IT);
    return B.CreateSelect(B.CreateFCmpUNO(Sum, Sum), C(0x7fffffff), Flush(SumBits));
  }
  if (E->isDoubleTy()) {
    Value *VBits = B.CreateBitCast(V, IT);
    Value *Sum = B.CreateBitCast(B.CreateFAdd(B.CreateBitCast(Old, E), V), IT);
    if (Shared) {
      Value *Quiet = C(0x0008000000000000ull);
      Value *R = B.CreateSelect(IsNan(VBits, E), B.CreateOr(VBits, Quiet), Sum);
      return B.CreateSelect(IsNan(Old, E), B.CreateOr(Old, Quiet), R);
    }
    Value *R = B.CreateSelect(IsNan(Old, E), Old, Sum);
    return B.CreateSelect(IsNan(VBits, E), VBits, R);
  }
  // f32 in shared memory, f16, bf16 and their pairs: the canonical NaN.
  Value *Sum = B.CreateFAdd(B.CreateBitCast(Old, Ty), V);
  Type *LaneInt = Ty->getWithNewType(B.getIntNTy(E->getPrimitiveSizeInBits()));
  Value *Canon = ConstantInt::get(LaneInt, E->isFloatTy() ? 0x7fffffff : 0x7fff);
  Value *R = B.CreateSelect(B.CreateFCmpUNO(Sum, Sum), Canon, B.CreateBitCast(Sum, LaneInt));
  return B.CreateBitCast(R, IT);
}

/// Emits the compare-and-swap loop of one lane at B's block, which must end
/// without a terminator; returns the value in memory before this lane's add
/// and leaves B in the block after the loop.
Value *emitLaneLoop(IRBuilder<> &B, AtomicRMWInst *RMW, Type *IT, bool Shared, BasicBlock *Before) {
  LLVMContext &Ctx = RMW->getContext();
  Function *F = B.GetInsertBlock()->getParent();
  Value *Ptr = RMW->getPointerOperand();
  LoadInst *Init = B.CreateAlignedLoad(IT, Ptr, RMW->getAlign());
  Init->setVolatile(RMW->isVolatile());
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Loop = BasicBlock::Create(Ctx, "fadd.cas", F, Before);
  BasicBlock *After = BasicBlock::Create(Ctx, "fadd.cas.done", F, Before);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  PHINode *Old = B.CreatePHI(IT, 2);
  Old->addIncoming(Init, Pre);
  Value *New = h100FloatAdd(B, RMW->getType(), Old, RMW->getValOperand(), Shared);
  AtomicOrdering Ord = RMW->getOrdering();
  AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(Ptr, Old, New, RMW->getAlign(), Ord,
                                               AtomicCmpXchgInst::getStrongestFailureOrdering(Ord),
                                               RMW->getSyncScopeID());
  X->setVolatile(RMW->isVolatile());
  Value *Seen = B.CreateExtractValue(X, 0);
  B.CreateCondBr(B.CreateExtractValue(X, 1), After, Loop);
  Old->addIncoming(Seen, Loop);
  B.SetInsertPoint(After);
  return Seen;
}

/// When every active lane of the wavefront adds to one address (a sum into
/// one word, the common case), one lane's loop for all: the wave's values
/// are applied in lane order to the value in memory, each lane keeps the
/// value before its own add, and the leader (lowest active lane) stores the
/// result with one compare-and-swap, again if memory changed meanwhile.
/// That is the H100's result for the order of the lanes, with one memory
/// round trip per attempt where a loop per lane would need one per lane
/// (they all collide). Relaxed atomics only (the leader's ordering would
/// have to stand for the other lanes'). Leaves B after the loop.
Value *emitWaveLoop(IRBuilder<> &B, AtomicRMWInst *RMW, Type *IT, bool Shared, unsigned WaveSize,
                    BasicBlock *Before) {
  LLVMContext &Ctx = RMW->getContext();
  Function *F = B.GetInsertBlock()->getParent();
  Type *MaskT = B.getIntNTy(WaveSize);
  Type *LaneT = IT->getPrimitiveSizeInBits() < 32 ? B.getInt32Ty() : IT;
  Value *Ptr = RMW->getPointerOperand();
  Value *Lane = B.CreateIntrinsic(Intrinsic::amdgcn_mbcnt_lo, {}, {B.getInt32(-1), B.getInt32(0)});
  if (WaveSize == 64)
    Lane = B.CreateIntrinsic(Intrinsic::amdgcn_mbcnt_hi, {}, {B.getInt32(-1), Lane});
  Value *Active = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {MaskT}, {B.getTrue()});
  Value *Leader = B.CreateTrunc(B.CreateBinaryIntrinsic(Intrinsic::cttz, Active, B.getTrue()), B.getInt32Ty());
  Value *VBits = B.CreateZExtOrBitCast(B.CreateBitCast(RMW->getValOperand(), IT), LaneT);
  LoadInst *Init = B.CreateAlignedLoad(IT, Ptr, RMW->getAlign());
  Init->setVolatile(RMW->isVolatile());
  Value *InitU = B.CreateTrunc(B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {LaneT},
                                                 {B.CreateZExtOrBitCast(Init, LaneT)}), IT);
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Attempt = BasicBlock::Create(Ctx, "fadd.wave", F, Before);
  BasicBlock *Fold = BasicBlock::Create(Ctx, "fadd.wave.fold", F, Before);
  BasicBlock *Folded = BasicBlock::Create(Ctx, "fadd.wave.folded", F, Before);
  BasicBlock *Cas = BasicBlock::Create(Ctx, "fadd.wave.cas", F, Before);
  BasicBlock *Join = BasicBlock::Create(Ctx, "fadd.wave.join", F, Before);
  BasicBlock *After = BasicBlock::Create(Ctx, "fadd.wave.done", F, Before);
  B.CreateBr(Attempt);

  B.SetInsertPoint(Attempt);
  PHINode *Mem = B.CreatePHI(IT, 2, "mem");
  Mem->addIncoming(InitU, Pre);
  B.CreateBr(Fold);

  B.SetInsertPoint(Fold);
  PHINode *Rem = B.CreatePHI(MaskT, 2, "rem");
  PHINode *State = B.CreatePHI(IT, 2, "state");
  PHINode *Mine = B.CreatePHI(IT, 2, "mine");
  Rem->addIncoming(Active, Attempt);
  State->addIncoming(Mem, Attempt);
  Mine->addIncoming(Mem, Attempt);
  Value *K = B.CreateTrunc(B.CreateBinaryIntrinsic(Intrinsic::cttz, Rem, B.getTrue()), B.getInt32Ty());
  Value *VK = B.CreateIntrinsic(Intrinsic::amdgcn_readlane, {LaneT}, {VBits, K});
  Value *VKv = B.CreateBitCast(B.CreateTrunc(VK, IT), RMW->getType());
  Value *NextMine = B.CreateSelect(B.CreateICmpEQ(Lane, K), State, Mine);
  Value *NextState = h100FloatAdd(B, RMW->getType(), State, VKv, Shared);
  Value *NextRem = B.CreateAnd(Rem, B.CreateSub(Rem, ConstantInt::get(MaskT, 1)));
  Rem->addIncoming(NextRem, Fold);
  State->addIncoming(NextState, Fold);
  Mine->addIncoming(NextMine, Fold);
  B.CreateCondBr(B.CreateICmpEQ(NextRem, ConstantInt::get(MaskT, 0)), Folded, Fold);

  B.SetInsertPoint(Folded);
  B.CreateCondBr(B.CreateICmpEQ(Lane, Leader), Cas, Join);

  B.SetInsertPoint(Cas);
  AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(Ptr, Mem, NextState, RMW->getAlign(), RMW->getOrdering(),
                                               AtomicOrdering::Monotonic, RMW->getSyncScopeID());
  X->setVolatile(RMW->isVolatile());
  Value *Seen = B.CreateExtractValue(X, 0);
  Value *Ok = B.CreateZExt(B.CreateExtractValue(X, 1), B.getInt32Ty());
  B.CreateBr(Join);

  B.SetInsertPoint(Join);
  PHINode *SeenP = B.CreatePHI(IT, 2);
  SeenP->addIncoming(Seen, Cas);
  SeenP->addIncoming(Mem, Folded);
  PHINode *OkP = B.CreatePHI(B.getInt32Ty(), 2);
  OkP->addIncoming(Ok, Cas);
  OkP->addIncoming(B.getInt32(0), Folded);
  Value *SeenU = B.CreateTrunc(B.CreateIntrinsic(Intrinsic::amdgcn_readlane, {LaneT},
                                                 {B.CreateZExtOrBitCast(SeenP, LaneT), Leader}), IT);
  Value *OkU = B.CreateIntrinsic(Intrinsic::amdgcn_readlane, {B.getInt32Ty()}, {OkP, Leader});
  Mem->addIncoming(SeenU, Join);
  B.CreateCondBr(B.CreateICmpNE(OkU, B.getInt32(0)), After, Attempt);

  B.SetInsertPoint(After);
  return NextMine;
}

/// Replaces RMW by compare-and-swap loops storing h100FloatAdd's result.
void expandToCasLoop(AtomicRMWInst *RMW, unsigned WaveSize) {
  Type *Ty = RMW->getType();
  LLVMContext &Ctx = RMW->getContext();
  Type *IT = IntegerType::get(Ctx, unsigned(Ty->getPrimitiveSizeInBits()));
  bool Shared = RMW->getMetadata("ferry.shared") != nullptr;
  BasicBlock *Pre = RMW->getParent();
  Function *F = Pre->getParent();
  BasicBlock *Done = Pre->splitBasicBlock(RMW->getIterator(), "fadd.done");
  Pre->getTerminator()->eraseFromParent();
  IRBuilder<> B(Pre);
  PHINode *Result = PHINode::Create(IT, 2, "fadd.old", Done->begin());
  if (RMW->getOrdering() != AtomicOrdering::Monotonic) {
    Value *Old = emitLaneLoop(B, RMW, IT, Shared, Done);
    Result->addIncoming(Old, B.GetInsertBlock());
    B.CreateBr(Done);
  } else {
    // One address for the whole wave?
    Value *Addr = B.CreatePtrToInt(RMW->getPointerOperand(), B.getInt64Ty());
    Value *First = B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {B.getInt64Ty()}, {Addr});
    Type *MaskT = B.getIntNTy(WaveSize);
    Value *Same = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {MaskT}, {B.CreateICmpEQ(Addr, First)});
    Value *Active = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {MaskT}, {B.getTrue()});
    BasicBlock *Wave = BasicBlock::Create(Ctx, "fadd.uniform", F, Done);
    BasicBlock *Lanes = BasicBlock::Create(Ctx, "fadd.lanes", F, Done);
    B.CreateCondBr(B.CreateICmpEQ(Same, Active), Wave, Lanes);
    B.SetInsertPoint(Wave);
    Value *W = emitWaveLoop(B, RMW, IT, Shared, WaveSize, Done);
    Result->addIncoming(W, B.GetInsertBlock());
    B.CreateBr(Done);
    B.SetInsertPoint(Lanes);
    Value *L = emitLaneLoop(B, RMW, IT, Shared, Done);
    Result->addIncoming(L, B.GetInsertBlock());
    B.CreateBr(Done);
  }
  B.SetInsertPoint(RMW);
  RMW->replaceAllUsesWith(B.CreateBitCast(Result, Ty));
  RMW->eraseFromParent();
}

bool isHandledFloatAdd(const AtomicRMWInst &RMW) {
  if (RMW.getOperation() != AtomicRMWInst::FAdd)
    return false;
  Type *Ty = RMW.getType();
  if (auto *VT = dyn_cast<FixedVectorType>(Ty))
    return VT->getNumElements() == 2 && (VT->getElementType()->isHalfTy() || VT->getElementType()->isBFloatTy());
  return Ty->isFloatTy() || Ty->isDoubleTy() || Ty->isHalfTy() || Ty->isBFloatTy();
}

} // namespace

void exactBf16Fmas(Module &M) {
  SmallVector<IntrinsicInst *, 8> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if ((II->getIntrinsicID() == Intrinsic::fma || II->getIntrinsicID() == Intrinsic::fmuladd) &&
            II->getType()->getScalarType()->isBFloatTy())
          Calls.push_back(II);
  for (IntrinsicInst *II : Calls) {
    IRBuilder<> B(II);
    II->replaceAllUsesWith(exactBf16Fma(B, II->getArgOperand(0), II->getArgOperand(1), II->getArgOperand(2)));
    II->eraseFromParent();
  }
}

void exactFloatAtomicAdds(Module &M, TargetMachine &TM, unsigned WaveSize) {
  static const bool ExactNan = Settings::get().getBool(SettingKey::ExactF64Nan);
  SmallVector<AtomicRMWInst *, 8> Expand;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    const TargetLowering *TLI = TM.getSubtargetImpl(F)->getTargetLowering();
    for (Instruction &I : instructions(F)) {
      auto *RMW = dyn_cast<AtomicRMWInst>(&I);
      if (!RMW || !isHandledFloatAdd(*RMW))
        continue;
      bool Shared = RMW->getMetadata("ferry.shared") != nullptr;
      bool Flushes = RMW->getType()->isFloatTy() && !Shared;
      bool LoopAnyway = TLI->shouldExpandAtomicRMWInIR(RMW) == TargetLoweringBase::AtomicExpansionKind::CmpXChg;
      if (Flushes || LoopAnyway || ExactNan)
        Expand.push_back(RMW);
    }
  }
  for (AtomicRMWInst *RMW : Expand)
    expandToCasLoop(RMW, WaveSize);
}

} // namespace ferry::hsa
