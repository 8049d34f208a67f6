/// \file
/// The runtime entry points compiled kernels call (KernelAbi.h's
/// FERRY_RUNTIME rows). They run on a kernel fiber; BlockCtx::Runner says
/// which block and launch they belong to. Entry points that need fibers are
/// only ever called from kernels compiled for the fiber path.
#include "host/exec/ExecInternal.h"
#include "host/exec/Texture.h"
#include "support/Log.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ferry::host;

namespace {

RunnerBase &runner(BlockCtx *Ctx) { return *static_cast<RunnerBase *>(Ctx->Runner); }
BlockRunner &fibers(BlockCtx *Ctx) { return static_cast<BlockRunner &>(runner(Ctx)); }

std::string where(BlockCtx *Ctx, uint32_t Tx, uint32_t Ty, uint32_t Tz) {
  char Buf[128];
  std::snprintf(Buf, sizeof(Buf), "block: [%u,%u,%u], thread: [%u,%u,%u]", Ctx->Ctaid[0],
                Ctx->Ctaid[1], Ctx->Ctaid[2], Tx, Ty, Tz);
  return Buf;
}

} // namespace

extern "C" {

uint32_t ferry_rt_bar(BlockCtx *Ctx, uint32_t Op, uint32_t Id, uint32_t Count, uint32_t Pred) {
  return fibers(Ctx).barrier(static_cast<BarOp>(Op), Id, Count, Pred);
}

uint64_t ferry_rt_wbar(BlockCtx *Ctx, uint32_t Op, uint32_t Id, uint32_t Count, uint32_t Popc,
                       uint32_t Active) {
  return static_cast<WarpRunner &>(runner(Ctx)).barrier(static_cast<BarOp>(Op), Id, Count, Popc, Active);
}

void ferry_rt_wyield(BlockCtx *Ctx) { static_cast<WarpRunner &>(runner(Ctx)).yieldNow(); }

void ferry_rt_grid_sync(BlockCtx *Ctx) { fibers(Ctx).gridSync(); }

uint64_t ferry_rt_warp(BlockCtx *Ctx, uint32_t Op, uint32_t Mask, uint64_t A, uint32_t B,
                       uint32_t C) {
  // Bits 0-7: the WarpOp; bits 8-31: the call site (LowerHost.cpp).
  return fibers(Ctx).warp(static_cast<WarpOp>(Op & 0xff), Op >> 8, Mask, A, B, C);
}

[[noreturn]] void ferry_rt_exit(BlockCtx *Ctx) { fibers(Ctx).exitCurrent(); }

[[noreturn]] void ferry_rt_trap(BlockCtx *Ctx, uint32_t Kind, uint32_t Tx, uint32_t Ty,
                                uint32_t Tz) {
  RunnerBase &R = runner(Ctx);
  R.L->fault(CUDA_ERROR_LAUNCH_FAILED,
             std::string(static_cast<TrapKind>(Kind) == TrapKind::Trap ? "trap" : "brkpt") +
                 " executed at " + where(Ctx, Tx, Ty, Tz));
  R.abandon();
}

void ferry_rt_assert_lane(BlockCtx *Ctx, const char *Msg, const char *File, uint32_t Line,
                          const char *Func, uint64_t CharSize, uint32_t Tx, uint32_t Ty, uint32_t Tz) {
  RunnerBase &R = runner(Ctx);
  // CUDA's device-side assert message, byte for byte.
  std::string Text = std::string(File ? File : "?") + ":" + std::to_string(Line) + ": " +
                     (Func ? Func : "?") + ": " + where(Ctx, Tx, Ty, Tz) + " Assertion `" +
                     (Msg ? Msg : "?") + "` failed.";
  const LaunchState &L = *R.L;
  uint64_t Block = Ctx->Ctaid[0] + uint64_t(L.Grid[0]) * (Ctx->Ctaid[1] + uint64_t(L.Grid[1]) * Ctx->Ctaid[2]);
  uint32_t Thread = Tx + L.Block[0] * (Ty + L.Block[1] * Tz);
  R.L->assertFailed(Block, Thread, std::move(Text));
}

[[noreturn]] void ferry_rt_assert(BlockCtx *Ctx, const char *Msg, const char *File, uint32_t Line,
                                  const char *Func, uint64_t CharSize, uint32_t Tx, uint32_t Ty,
                                  uint32_t Tz) {
  ferry_rt_assert_lane(Ctx, Msg, File, Line, Func, CharSize, Tx, Ty, Tz);
  // The failing thread stops here, as on the GPU; the others go on, so that
  // every thread of the launch that fails an assert is reported.
  fibers(Ctx).exitCurrent();
}

int32_t ferry_rt_printf(BlockCtx *Ctx, const char *Format, const char *Args) {
  std::string Text;
  int N = formatDevicePrintf(Format, Args, Text);
  LaunchState &L = *runner(Ctx).L;
  std::lock_guard<std::mutex> Lock(L.PrintM);
  L.Printed += Text;
  return N;
}

void *ferry_rt_malloc(uint64_t Bytes) { return std::malloc(Bytes ? Bytes : 1); }

void ferry_rt_free(void *P) { std::free(P); }

void ferry_rt_nanosleep(BlockCtx *Ctx, uint32_t Ns) {
  // A hint: let the other threads of the block run (spin-wait loops with
  // __nanosleep make progress that way).
  fibers(Ctx).yieldNow();
}

void ferry_rt_lockstep(BlockCtx *Ctx) { fibers(Ctx).lockstepTurn(); }

uint64_t ferry_rt_globaltimer() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // extern "C"

namespace ferry::host {

std::vector<RuntimeSymbol> HostExecutor::runtimeSymbols() {
  return {
#define FERRY_RUNTIME(Name, Sig) {#Name, reinterpret_cast<void *>(&Name)},
#include "host/jit/Runtime.def"
#undef FERRY_RUNTIME
  };
}

void LaunchState::assertFailed(uint64_t BlockLinear, uint32_t ThreadLinear, std::string Text) {
  std::lock_guard<std::mutex> Lock(AssertM);
  Asserts.push_back({BlockLinear, ThreadLinear, std::move(Text)});
}

void LaunchState::reportAsserts() {
  if (Asserts.empty())
    return;
  // Blocks run in any order on any worker: sort, so the report is the same
  // from run to run (block-major, then thread, like a sequential launch).
  std::stable_sort(Asserts.begin(), Asserts.end(), [](const AssertHit &A, const AssertHit &B) {
    return A.Block != B.Block ? A.Block < B.Block : A.Thread < B.Thread;
  });
  std::string All;
  for (const AssertHit &H : Asserts)
    All += H.Text + "\n";
  std::fputs(All.c_str(), stderr);
  std::fflush(stderr);
  std::lock_guard<std::mutex> Lock(FaultM);
  // A fault of another kind (an illegal address in a thread that did not
  // assert) keeps its code; otherwise the launch ends with the assert.
  if (Fault == CUDA_SUCCESS) {
    Fault = CUDA_ERROR_ASSERT;
    FaultMessage = "device assert: " + Asserts.front().Text;
    if (Asserts.size() > 1)
      FaultMessage += " (and " + std::to_string(Asserts.size() - 1) + " more failing threads)";
  }
}

void LaunchState::fault(CUresult Code, std::string Message) {
  {
    std::lock_guard<std::mutex> Lock(FaultM);
    if (Fault == CUDA_SUCCESS) {
      Fault = Code;
      FaultMessage = std::move(Message);
    }
  }
  Abort.store(true, std::memory_order_release);
}

} // namespace ferry::host
