/// \file
/// Dynamic parallelism on the host backend (host/exec/DeviceRuntime.cpp):
/// nvcc's PTX for device-side launches and device runtime calls
/// (tests/host/cdp/cdp_kernels.cu) lowered, compiled and run here. Checks
/// the order children run in (tail launches last), nesting to CUDA's depth
/// limit, the pending-launch limit, and the error codes and last-error
/// rules of the device runtime.
#include "host/exec/HostExecutor.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

using namespace ferry;
using namespace ferry::host;

namespace {

class Cdp : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 2;
    Exec = new HostExecutor(O);
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/host/cdp/cdp_kernels.ptx");
    std::stringstream S;
    S << In.rdbuf();
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    llvm::Expected<ptx::LowerResult> R = ptx::lowerText(S.str(), "cdp_kernels.ptx", *Ctx);
    if (!R) {
      Error = llvm::toString(R.takeError());
      return;
    }
    for (const ptx::KernelError &E : R->Errors)
      Error += E.format("cdp_kernels.ptx") + "\n";
    Expected<HostCompiler *> C = Exec->compiler();
    if (!C) {
      Error += C.error().message();
      return;
    }
    Expected<std::unique_ptr<CompiledModule>> M = (*C)->compile(std::move(Ctx), std::move(R->M));
    if (!M) {
      Error += M.error().message();
      return;
    }
    Module = std::move(*M);
  }
  static void TearDownTestSuite() {
    Module.reset();
    delete Exec;
    Exec = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(Module) << Error; }

  /// Launches Name on one block of Threads threads with pointer arguments.
  static Status run(const char *Name, std::vector<uint64_t> Args, uint32_t Threads = 1, LaunchContext Ctx = {}) {
    const HostKernel *K = Module->kernel(Name);
    if (!K)
      return makeError(CUDA_ERROR_NOT_FOUND, std::string("no kernel ") + Name);
    return Exec->launch(*K, {1, 1, 1}, {Threads, 1, 1}, 0, Args.data(), 0, Ctx);
  }

  static inline HostExecutor *Exec = nullptr;
  static inline std::unique_ptr<CompiledModule> Module;
  static inline std::string Error;
};

uint64_t addr(const void *P) { return reinterpret_cast<uintptr_t>(P); }

TEST_F(Cdp, ChildrenRunAfterTheParentAndTailLaunchesLast) {
  std::vector<unsigned> Log(16, 0);
  ASSERT_TRUE(run("order", {addr(Log.data())}, 32));
  // The parent's own entry, its children in launch order, the tail last.
  EXPECT_EQ(Log[0], 5u);
  std::vector<unsigned> Got(Log.begin() + 1, Log.begin() + 1 + Log[0]);
  EXPECT_EQ(Got, (std::vector<unsigned>{0, 1, 2, 3, 100}));
}

TEST_F(Cdp, NestingStopsAtDepth24) {
  std::vector<unsigned> Log(64, 0);
  std::vector<int> Err(64, -1);
  ASSERT_TRUE(run("nest", {addr(Log.data()), addr(Err.data()), 0}));
  // Grids at depths 0..24 ran; the one at 24 could not launch.
  ASSERT_EQ(Log[0], 25u);
  for (unsigned D = 0; D < 25; ++D)
    EXPECT_EQ(Log[1 + D], D);
  for (int D = 0; D < 24; ++D)
    EXPECT_EQ(Err[D], 0) << "depth " << D;
  EXPECT_EQ(Err[24], 65); // cudaErrorLaunchMaxDepthExceeded
}

TEST_F(Cdp, ErrorsAndLastErrors) {
  std::vector<unsigned> Log(16, 0);
  std::vector<int> Out(16, -7);
  ASSERT_TRUE(run("errors", {addr(Log.data()), addr(Out.data())}));
  EXPECT_EQ(Log[0], 0u) << "a failed launch ran";
  EXPECT_EQ(Out[0], 400); // the launch into a stream that is none
  EXPECT_EQ(Out[1], 400); // ... is the last error
  EXPECT_EQ(Out[2], 0);   // ... until read
  EXPECT_EQ(Out[3], 9);   // a 2048-thread block: cudaErrorInvalidConfiguration
  EXPECT_EQ(Out[4], 400); // a stream destroyed twice
  EXPECT_EQ(Out[5], 801); // cudaRuntimeGetVersion: not implemented, and says so
  EXPECT_EQ(Out[6], 0);
  EXPECT_EQ(Out[7], 0);
  EXPECT_EQ(Out[8], 0);
  EXPECT_EQ(Out[9], 400);
  EXPECT_EQ(Out[10], 400);
}

TEST_F(Cdp, PendingLaunchLimit) {
  std::vector<unsigned> Log(64, 0);
  std::vector<int> Out(32, -1);
  LaunchContext Ctx;
  Ctx.PendingLaunchLimit = 5;
  ASSERT_TRUE(run("fan", {addr(Log.data()), addr(Out.data())}, 8, Ctx));
  int Ok = 0, Full = 0;
  for (int T = 0; T < 8; ++T) {
    Ok += Out[T] == 0;
    Full += Out[T] == 69; // cudaErrorLaunchPendingCountExceeded
  }
  EXPECT_EQ(Ok, 5);
  EXPECT_EQ(Full, 3);
  EXPECT_EQ(Log[0], 5u);
}

TEST_F(Cdp, DeviceMemsetAndMemcpyFollowTheStream) {
  std::vector<unsigned> Log(4, 0);
  std::vector<unsigned> Dst(8, 0);
  ASSERT_TRUE(run("copies", {addr(Log.data()), addr(Dst.data())}));
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(Dst[I], 0xababababu);
  // The copy ran after the child that logged 5.
  EXPECT_EQ(Dst[4], 1u);
  EXPECT_EQ(Dst[5], 5u);
}

} // namespace
