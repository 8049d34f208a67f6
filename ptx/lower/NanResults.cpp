//===- NanResults.cpp - pass "nan-results" ---------------------------------===//
/// \file
/// An H100 returns one canonical NaN (0x7fffffff; 0x7fff for f16/bf16) from
/// f32/f16/bf16 arithmetic and conversions, whatever NaNs went in; x86 keeps
/// an operand's payload and sign, or makes 0xffc00000. The lowering wraps each
/// such result in a marker call (FunctionLowering::canonicalNaN); this pass
/// replaces every marker by its operand and, only where the NaN's bits can
/// be seen, selects the canonical NaN on an unordered compare.
///
/// The bits of a NaN are seen where a value leaves floating-point
/// arithmetic: a store, a bit cast to an integer, a call, a return, an
/// atomic. They are not seen by a comparison, by a conversion to an
/// integer, nor by another marked result (which is canonical itself), and
/// the other floating-point operations pass a NaN on (so are followed).
/// Selecting at every result instead costs a compare and a blend per
/// operation: 2.2x on an all-pairs n-body kernel, where only the
/// accumulators, which reach a store, need it here.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {

bool isMarker(const Value *V) {
  const auto *C = dyn_cast<CallInst>(V);
  const llvm::Function *F = C ? C->getCalledFunction() : nullptr;
  return F && F->getName().starts_with(NanMarkerPrefix);
}

/// Whether a NaN in V (or in what V flows into without being canonicalised
/// again) can reach a place where its bits are seen.
bool observed(const Value *V) {
  SmallVector<const Value *, 16> Work{V};
  SmallPtrSet<const Value *, 16> Seen{V};
  while (!Work.empty()) {
    const Value *X = Work.pop_back_val();
    for (const User *U : X->users()) {
      if (isMarker(U) || isa<FCmpInst>(U) || isa<FPToSIInst>(U) || isa<FPToUIInst>(U))
        continue;
      if (const auto *II = dyn_cast<IntrinsicInst>(U)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::fptosi_sat:
        case Intrinsic::fptoui_sat:
        case Intrinsic::is_fpclass:
          continue;
        default:
          break;
        }
      }
      // Operations whose result is a float (or a vector of them) carry the
      // NaN on: follow them. Anything else sees the bits.
      const auto *I = dyn_cast<llvm::Instruction>(U);
      bool Carries = I && !isa<CallInst>(I) && !isa<StoreInst>(I) && !isa<BitCastInst>(I) &&
                     !isa<ReturnInst>(I) && I->getType()->isFPOrFPVectorTy();
      if (const auto *II = dyn_cast<IntrinsicInst>(U))
        Carries = II->getType()->isFPOrFPVectorTy(); // fma, minnum, fabs, copysign, ...
      if (!Carries)
        return true;
      if (Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

} // namespace

void runNanResults(llvm::Module &M) {
  SmallVector<CallInst *, 64> Markers;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : instructions(F))
      if (isMarker(&I))
        Markers.push_back(cast<CallInst>(&I));
  // Decide first (the decisions look through other markers), then rewrite.
  SmallVector<bool, 64> Seen;
  for (CallInst *C : Markers)
    Seen.push_back(observed(C));
  for (auto [C, Obs] : llvm::zip(Markers, Seen)) {
    Value *V = C->getArgOperand(0);
    if (Obs) {
      IRBuilder<> B(C);
      Type *T = V->getType();
      Type *ST = T->getScalarType();
      unsigned W = ST->getPrimitiveSizeInBits();
      Constant *NaN = ConstantFP::get(T, APFloat(ST->getFltSemantics(), APInt::getSignedMaxValue(W)));
      V = B.CreateSelect(B.CreateFCmpUNO(V, V), NaN, V);
    }
    C->replaceAllUsesWith(V);
    C->eraseFromParent();
  }
  for (llvm::Function &F : llvm::make_early_inc_range(M))
    if (F.getName().starts_with(NanMarkerPrefix) && F.use_empty())
      F.eraseFromParent();
}

} // namespace ferry::ptx::lower
