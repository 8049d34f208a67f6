/// \file
/// Execution tests of wgmma (ptx/lower/LowerWgmma.cpp): each kernel of
/// kernels.ptx (compiled by nvcc for sm_90a from kernels.cu) is lowered to
/// SIMT IR, compiled by the host JIT, launched on one warpgroup (128
/// threads) and compared with WgmmaDriver.h. The same cases pass natively
/// on an H100 (kernels.cu, WGMMA_VALIDATE_MAIN), which ties the descriptor
/// decoding, the shared-memory layouts and swizzles, and the accumulator
/// layout to the hardware's.
#include "WgmmaDriver.h"

#include "host/exec/HostExecutor.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace ferry;
using namespace ferry::host;

namespace {

class WgmmaExec : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 2;
    Exec = new HostExecutor(O);
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/wgmma/kernels.ptx");
    std::stringstream S;
    S << In.rdbuf();
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    llvm::Expected<ptx::LowerResult> R = ptx::lowerText(S.str(), "kernels.ptx", *Ctx);
    if (!R) {
      SetupError = llvm::toString(R.takeError());
      return;
    }
    for (const ptx::KernelError &E : R->Errors)
      SetupError += E.format("kernels.ptx") + "\n";
    Expected<HostCompiler *> C = Exec->compiler();
    if (!C) {
      SetupError += C.error().message();
      return;
    }
    Expected<std::unique_ptr<CompiledModule>> M = (*C)->compile(std::move(Ctx), std::move(R->M));
    if (!M) {
      SetupError += M.error().message();
      return;
    }
    Module = std::move(*M).release();
  }
  static void TearDownTestSuite() {
    delete Module;
    Module = nullptr;
    delete Exec;
    Exec = nullptr;
  }

  /// Launches Kernel on one block of 128 threads with a pointer to each
  /// buffer (host memory is device memory here).
  static wgmmaref::Launch launcher(const char *Kernel) {
    return [Kernel](std::vector<wgmmaref::Buffer> &Bufs) -> std::string {
      const HostKernel *K = Module ? Module->kernel(Kernel) : nullptr;
      if (!K)
        return std::string("no kernel ") + Kernel;
      std::vector<char> P;
      for (wgmmaref::Buffer &B : Bufs) {
        P.resize(P.size() + 8);
        std::memcpy(P.data() + P.size() - 8, &B.Host, 8);
      }
      Status S = Exec->launch(*K, {1, 1, 1}, {128, 1, 1}, 0, P.data(), 0);
      return S ? "" : S.message();
    };
  }

  void SetUp() override { ASSERT_TRUE(SetupError.empty()) << SetupError; }

  static HostExecutor *Exec;
  static CompiledModule *Module;
  static std::string SetupError;
};
HostExecutor *WgmmaExec::Exec = nullptr;
CompiledModule *WgmmaExec::Module = nullptr;
std::string WgmmaExec::SetupError;

#define WGMMA_CASE(Name, In, Acc, K, ASwz, BSwz, ATr, BTr, ARegs, ScaleD, NegA)                    \
  TEST_F(WgmmaExec, Name) {                                                                        \
    EXPECT_EQ(wgmmaref::runWgmma(launcher(#Name), mmaref::ET::In, mmaref::ET::Acc, K, ScaleD, NegA), ""); \
  }
#include "WgmmaCases.def"

} // namespace
