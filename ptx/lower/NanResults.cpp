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
///
/// f64 results keep their NaN's payload on both, but given two NaN operands
/// an H100 returns the second one's (add, sub, mul, min, max; in fma b's,
/// then c's, then a's; div the first's), x86 the first one's, and AMD's
/// invalid operations make 0x7ff8000000000000 where NVIDIA's and x86's make
/// 0xfff8000000000000. The lowering wraps such a
/// result in a choice marker (FunctionLowering::pickNaN) naming the
/// operands in the H100's order; where the result's bits can be seen the
/// pass selects the first NaN among them, quieted. A payload flows on
/// through later f64 operations, so the search for an observer goes on
/// through other choice markers (it stops only at a canonical one). On
/// f64-bound code nearly every operation then reaches a store: the choice
/// costs 3x on an all-pairs n-body in double, so it is made only under
/// FERRY_EXACT_F64_NAN=1 (the conformance suite sets it); otherwise the
/// markers become their results.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"
#include "support/Settings.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/SimplifyQuery.h"
#include "llvm/Analysis/ValueTracking.h"
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

bool isPick(const Value *V) {
  const auto *C = dyn_cast<CallInst>(V);
  const llvm::Function *F = C ? C->getCalledFunction() : nullptr;
  return F && F->getName().starts_with(NanPickPrefix);
}

/// How an instruction treats a NaN among its operands.
enum class Use { Ignores, Carries, Sees };

Use classify(const llvm::Instruction &I) {
  if (isMarker(&I) || isa<FCmpInst>(I) || isa<FPToSIInst>(I) || isa<FPToUIInst>(I))
    return Use::Ignores;
  if (const auto *II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::fptosi_sat:
    case Intrinsic::fptoui_sat:
    case Intrinsic::is_fpclass:
      return Use::Ignores;
    default:
      // fma, minnum, fabs, copysign, ...: a float result carries it on.
      return II->getType()->isFPOrFPVectorTy() ? Use::Carries : Use::Sees;
    }
  }
  if (isPick(&I))
    return Use::Carries; // the result or one of its NaN operands, quieted
  // Operations whose result is a float (or a vector of them) carry the NaN
  // on. Anything else sees the bits.
  bool Carries = !isa<CallInst>(I) && !isa<StoreInst>(I) && !isa<BitCastInst>(I) && !isa<ReturnInst>(I) &&
                 I.getType()->isFPOrFPVectorTy();
  return Carries ? Use::Carries : Use::Sees;
}

/// The values whose NaN (or that of what they flow into without being
/// canonicalised again) can reach a place where its bits are seen: back
/// from every instruction that sees its operands' bits, through the ones
/// that carry a NaN on. Linear in the module's size.
DenseSet<const Value *> observedValues(llvm::Module &M) {
  DenseSet<const Value *> Obs;
  SmallVector<const Value *, 64> Work;
  auto Mark = [&](const Value *V) {
    if (Obs.insert(V).second)
      Work.push_back(V);
  };
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : instructions(F))
      if (classify(I) == Use::Sees)
        for (const Value *Op : I.operands())
          Mark(Op);
  while (!Work.empty()) {
    const auto *I = dyn_cast<llvm::Instruction>(Work.pop_back_val());
    if (I && classify(*I) == Use::Carries)
      for (const Value *Op : I->operands())
        Mark(Op);
  }
  return Obs;
}

/// ferry.nan.pick.f64.N(r, o1, ..., oN): r unless it is a NaN; then the
/// first NaN among the operands (in the H100's order), quieted, or the
/// default NaN 0xfff8000000000000 where none is (an invalid operation).
/// Whatever the target's own rules (x86 takes the first NaN operand, AMD
/// too and makes 0x7ff8000000000000). Operands that cannot be NaN, and
/// repeated ones, take no select.
Value *resolvePick(CallInst *C, const SimplifyQuery &SQ) {
  SmallVector<Value *, 4> Can;
  for (unsigned K = 1; K < C->arg_size(); ++K) {
    Value *O = C->getArgOperand(K);
    if (!is_contained(Can, O) && !isKnownNeverNaN(O, 0, SQ))
      Can.push_back(O);
  }
  IRBuilder<> B(C);
  Value *R = C->getArgOperand(0);
  Type *T = R->getType();
  Type *IT = B.getInt64Ty();
  Value *V = ConstantFP::get(T, APFloat(APFloat::IEEEdouble(), APInt(64, 0xfff8000000000000ull)));
  for (Value *O : llvm::reverse(Can)) {
    Value *Quiet = B.CreateBitCast(B.CreateOr(B.CreateBitCast(O, IT), B.getInt64(uint64_t(1) << 51)), T);
    V = B.CreateSelect(B.CreateFCmpUNO(O, O), Quiet, V);
  }
  return B.CreateSelect(B.CreateFCmpUNO(R, R), V, R);
}

} // namespace

void runNanResults(llvm::Module &M) {
  SmallVector<CallInst *, 64> Markers;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : instructions(F))
      if (isMarker(&I) || isPick(&I))
        Markers.push_back(cast<CallInst>(&I));
  // Decide first (the decisions look through other markers), then rewrite.
  // The f64 choice costs a select per operation on f64 chains that reach
  // memory (3x on an all-pairs n-body in double), so it is a setting.
  static const bool Exact = Settings::get().getBool(SettingKey::ExactF64Nan);
  DenseSet<const Value *> Obs = observedValues(M);
  SmallVector<bool, 64> Seen;
  for (CallInst *C : Markers)
    Seen.push_back(Obs.contains(C));
  for (auto [C, Obs] : llvm::zip(Markers, Seen)) {
    Value *V = C->getArgOperand(0);
    if (isPick(C)) {
      if (Obs && Exact)
        V = resolvePick(C, SimplifyQuery(M.getDataLayout()));
    } else if (Obs) {
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
    if ((F.getName().starts_with(NanMarkerPrefix) || F.getName().starts_with(NanPickPrefix)) && F.use_empty())
      F.eraseFromParent();
}

} // namespace ferry::ptx::lower
