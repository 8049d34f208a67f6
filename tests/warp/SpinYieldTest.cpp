/// \file
/// Which loops get a yield (host/jit/LowerHost.cpp addSpinYields). A loop
/// that waits for another warp (a flag polled with an atomic load, a lock
/// taken by a compare-exchange against a fixed value) must yield, or the
/// fibers of the block never switch. A compare-exchange retry (read, compute,
/// compare-exchange with what was read, again with what the failed exchange
/// saw) waits for nobody: a yield there cost a warp function one fiber
/// switch per lane and made a 256-thread cuda::barrier phase (mbarrier
/// arrive is such a loop) ~16 times slower (globalToShmemAsyncCopy of the
/// CUDA samples: its arrive/wait kernel took 52 s instead of 2.7 s).
/// Execution of both kinds is covered by PtxWarp.SpinWaitBetweenWarps and
/// the apps (libcudacxx, cg_virtual); this checks the yields themselves.
#include "host/jit/LowerHost.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

const char *Head = R"(
.version 8.0
.target sm_80
.address_size 64
)";

// An atomic increment written as a compare-exchange retry loop (what nvcc
// emits for `do { a = old; old = atomicCAS(p, a, a + 1); } while (a != old);`).
const char *CasRetry = R"(
.visible .entry cas_retry(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
$L_retry:
  mov.u32 %r2, %r5;
  add.s32 %r3, %r2, 1;
  atom.global.cas.b32 %r5, [%rd2], %r2, %r3;
  setp.ne.s32 %p1, %r5, %r2;
  @%p1 bra $L_retry;
  ret;
}
)";

// The same through the success bit of the exchange: ferry's own mbarrier
// arrive (cuda::barrier::arrive) is this loop.
const char *MbarrierArrive = R"(
.visible .entry mbar_arrive(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mov.u32 %r2, %ntid.x;
  mbarrier.init.shared.b64 [%r1], %r2;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r1];
  ld.param.u64 %rd2, [p];
  cvta.to.global.u64 %rd3, %rd2;
  st.global.u64 [%rd3], %rd1;
  ret;
}
)";

// A spin lock: the exchange expects a fixed 0, so it fails for as long as
// another warp holds the lock; this loop must yield.
const char *SpinLock = R"(
.visible .entry spin_lock(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
$L_spin:
  atom.global.cas.b32 %r1, [%rd2], 0, 1;
  setp.ne.s32 %p1, %r1, 0;
  @%p1 bra $L_spin;
  atom.global.exch.b32 %r2, [%rd2], 0;
  ret;
}
)";

/// Calls of the yield entry points (per-thread and warp functions) in the
/// module lowerForHost makes of Body.
unsigned yieldsIn(const char *Body) {
  LLVMContext Ctx;
  std::string Text = std::string(Head) + Body;
  Expected<ferry::ptx::LowerResult> R = ferry::ptx::lowerText(Text, "spin.ptx", Ctx);
  if (!R) {
    ADD_FAILURE() << toString(R.takeError());
    return ~0u;
  }
  if (!R->Errors.empty()) {
    ADD_FAILURE() << R->Errors[0].Message;
    return ~0u;
  }
  Expected<ferry::host::detail::LoweredModule> L = ferry::host::detail::lowerForHost(
      *R->M, DataLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"),
      "x86_64-unknown-linux-gnu", /*AllowFastPath=*/true);
  if (!L) {
    ADD_FAILURE() << toString(L.takeError());
    return ~0u;
  }
  unsigned N = 0;
  for (Function &F : *L->M)
    for (Instruction &I : instructions(F))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (Function *Callee = CI->getCalledFunction())
          N += Callee->getName() == "ferry_rt_nanosleep" || Callee->getName() == "ferry_rt_wyield";
  return N;
}

TEST(SpinYield, CompareExchangeRetryDoesNotYield) {
  EXPECT_EQ(yieldsIn(CasRetry), 0u) << "a compare-exchange retry loop yields on its back edge";
}

TEST(SpinYield, MbarrierArriveDoesNotYield) {
  EXPECT_EQ(yieldsIn(MbarrierArrive), 0u) << "mbarrier.arrive's update loop yields on its back edge";
}

TEST(SpinYield, SpinLockYields) {
  EXPECT_GE(yieldsIn(SpinLock), 1u) << "a lock spin must let the other warps run";
}

} // namespace
