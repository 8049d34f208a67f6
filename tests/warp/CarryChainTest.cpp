/// \file
/// The warp vectorizer's carry chains: PTX add.cc/addc, sub.cc/subc and
/// mad.cc/madc lower to llvm.*.with.overflow, which the vectorizer must
/// widen to one vector call each. Run lane by lane, each was a 32-trip loop
/// of its own, and multiword arithmetic (thousands of carries per kernel)
/// made the warp function's blocks, and SROA's promotion over them, grow
/// without bound (apps/ecdh_multiword ran for minutes in the JIT).
/// Execution of carry chains on the warp path is checked by the matrix app.
#include "host/jit/LowerHost.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

// Two-word additions, subtractions and a multiply-add with carries, 32 and
// 64 bits wide, on per-thread (varying) operands.
const char *CarryPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry carries(.param .u64 p_in, .param .u64 p_out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [p_in];
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [%rd4+4];
  ld.global.u32 %r4, [%rd4+8];
  ld.global.u32 %r5, [%rd4+12];
  add.cc.u32 %r6, %r2, %r4;
  addc.cc.u32 %r7, %r3, %r5;
  addc.u32 %r8, 0, 0;
  sub.cc.u32 %r9, %r6, %r3;
  subc.u32 %r10, %r7, %r2;
  mad.lo.cc.u32 %r11, %r2, %r3, %r9;
  madc.hi.u32 %r12, %r2, %r3, %r10;
  ld.global.u64 %rd6, [%rd4];
  ld.global.u64 %rd7, [%rd4+8];
  add.cc.u64 %rd8, %rd6, %rd7;
  addc.u64 %rd9, %rd7, %rd6;
  st.global.u32 [%rd5], %r8;
  st.global.u32 [%rd5+4], %r11;
  st.global.u32 [%rd5+8], %r12;
  st.global.u64 [%rd5+8], %rd8;
  st.global.u64 [%rd5], %rd9;
  ret;
}
)";

TEST(WarpCarryChain, OverflowIntrinsicsAreVectorCalls) {
  LLVMContext Ctx;
  Expected<ferry::ptx::LowerResult> R = ferry::ptx::lowerText(CarryPtx, "carries.ptx", Ctx);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_TRUE(R->Errors.empty()) << R->Errors[0].Message;
  Expected<ferry::host::detail::LoweredModule> L = ferry::host::detail::lowerForHost(
      *R->M, DataLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"),
      "x86_64-unknown-linux-gnu", /*AllowFastPath=*/true);
  ASSERT_TRUE(bool(L)) << toString(L.takeError());
  ASSERT_EQ(L->Kernels.size(), 1u);
  std::string Sym;
  for (unsigned V = 0; V < ferry::host::NumWarpLayouts; ++V)
    if (ferry::host::WarpLayouts[V].X == 32 && ferry::host::WarpLayouts[V].Lanes == 32)
      Sym = L->Kernels[0].WarpSymbol[V];
  ASSERT_FALSE(Sym.empty()) << "no warp function: FERRY_LOG=jit=debug says why";
  Function *W = L->M->getFunction(Sym);
  ASSERT_TRUE(W);
  // Every operand is per-thread, so each carry of the thread function has
  // one vector call in the warp function, and none is left scalar.
  auto Count = [](Function &F, bool Vectors) {
    unsigned N = 0;
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::uadd_with_overflow ||
            II->getIntrinsicID() == Intrinsic::usub_with_overflow)
          N += II->getArgOperand(0)->getType()->isVectorTy() == Vectors;
    return N;
  };
  Function *K = L->M->getFunction(L->Kernels[0].Name);
  ASSERT_TRUE(K);
  unsigned Carries = Count(*K, false);
  EXPECT_GE(Carries, 5u) << "the lowering changed: fewer carries than the PTX has";
  EXPECT_EQ(Count(*W, false), 0u) << "carries run lane by lane in " << Sym;
  EXPECT_EQ(Count(*W, true), Carries);
  for (BasicBlock &BB : *W)
    EXPECT_FALSE(BB.getName().starts_with("lane.")) << "a per-lane loop in " << Sym << ": " << BB.getName().str();
}

} // namespace
