/// \file
/// Execution tests of the matrix instructions lowered by
/// ptx/lower/LowerMma.cpp: each kernel of kernels.ptx (compiled by nvcc from
/// kernels.cu) is lowered to SIMT IR, compiled by the host JIT, launched on
/// one warp with random inputs, and compared with MmaRef.h. The same cases
/// (MmaDriver.h) pass natively on an H100 (kernels.cu, MMA_VALIDATE_MAIN),
/// which is what ties the mma.sync fragment layouts to the hardware's.
#include "MmaDriver.h"

#include "host/exec/HostExecutor.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace ferry;
using namespace ferry::host;

namespace {

class MmaExec : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 2;
    Exec = new HostExecutor(O);
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/mma/kernels.ptx");
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

  /// Launches Kernel on one warp: a pointer to each buffer, then the ints,
  /// packed as CUDA packs kernelParams (host memory is device memory here).
  static mmaref::Launch launcher(const char *Kernel) {
    return [Kernel](std::vector<mmaref::Buffer> &Bufs, const std::vector<int> &Ints) -> std::string {
      const HostKernel *K = Module ? Module->kernel(Kernel) : nullptr;
      if (!K)
        return std::string("no kernel ") + Kernel;
      std::vector<char> P;
      for (mmaref::Buffer &B : Bufs) {
        P.resize(P.size() + 8);
        std::memcpy(P.data() + P.size() - 8, &B.Host, 8);
      }
      for (int V : Ints) {
        P.resize(P.size() + 4);
        std::memcpy(P.data() + P.size() - 4, &V, 4);
      }
      Status S = Exec->launch(*K, {1, 1, 1}, {32, 1, 1}, 0, P.data(), 0);
      return S ? "" : S.message();
    };
  }

  void SetUp() override { ASSERT_TRUE(SetupError.empty()) << SetupError; }

  static HostExecutor *Exec;
  static CompiledModule *Module;
  static std::string SetupError;
};
HostExecutor *MmaExec::Exec = nullptr;
CompiledModule *MmaExec::Module = nullptr;
std::string MmaExec::SetupError;

#define WMMA_CASE(Name, M, N, K, InMem, Frag, In, Acc, LA, LB)                                     \
  TEST_F(MmaExec, Name) {                                                                          \
    EXPECT_EQ(mmaref::runWmma(launcher(#Name), M, N, K, mmaref::ET::In, mmaref::ET::Acc,           \
                              std::string(#LA) == "row_major", std::string(#LB) == "row_major"),   \
              "");                                                                                 \
  }
#define MMA_CASE(Name, M, N, K, TA, TB, TC, TD, Sat)                                               \
  TEST_F(MmaExec, Name) {                                                                          \
    EXPECT_EQ(mmaref::runMma(launcher(#Name), M, N, K, mmaref::ET::TA, mmaref::ET::TB,             \
                             mmaref::ET::TC, mmaref::ET::TD, Sat),                                 \
              "");                                                                                 \
  }
#define MMA_BITS_CASE(Name, M, N, K, Xor)                                                          \
  TEST_F(MmaExec, Name) { EXPECT_EQ(mmaref::runMmaBits(launcher(#Name), M, N, K, Xor), ""); }
#define WMMA_SUB_CASE(Name, K, Prec, In, Op)                                                       \
  TEST_F(MmaExec, Name) { EXPECT_EQ(mmaref::runWmmaSub(launcher(#Name), K, mmaref::ET::In, Op == 1), ""); }
#define MMA_QUAD_CASE(Name, ARow, BRow, Acc)                                                       \
  TEST_F(MmaExec, Name) { EXPECT_EQ(mmaref::runMmaQuad(launcher(#Name), mmaref::ET::Acc), ""); }
#define MMA_SP_CASE(Name, K, In, Acc, Sel)                                                         \
  TEST_F(MmaExec, Name) {                                                                          \
    EXPECT_EQ(mmaref::runMmaSparse(launcher(#Name), K, mmaref::ET::In, mmaref::ET::Acc), "");      \
  }
#include "MmaCases.def"

TEST_F(MmaExec, WmmaSharedAndGenericSpaces) {
  EXPECT_EQ(mmaref::runSharedGeneric(launcher("wmma_shared_generic")), "");
}
TEST_F(MmaExec, WmmaFillAndElementwise) {
  EXPECT_EQ(mmaref::runFillScale(launcher("wmma_fill_scale")), "");
}
TEST_F(MmaExec, Ldmatrix) { EXPECT_EQ(mmaref::runLdmatrix(launcher("ldmatrix_all")), ""); }
TEST_F(MmaExec, Stmatrix) { EXPECT_EQ(mmaref::runStmatrix(launcher("stmatrix_all")), ""); }
TEST_F(MmaExec, Movmatrix) { EXPECT_EQ(mmaref::runMovmatrix(launcher("movmatrix_trans")), ""); }

// Many warps at once (128 blocks of one warp, each a load/mma/store of the
// same tile) give the same tile as one warp alone: the fragments of
// concurrent warps do not mix. Speed belongs to bench/, not to a test.
TEST_F(MmaExec, WmmaManyWarpsMatchOne) {
  const HostKernel *K = Module->kernel("wmma_m16n16k16_f16_f32_rc");
  ASSERT_NE(K, nullptr);
  mmaref::Matrix A(mmaref::ET::F16, 16, 16, true), B(mmaref::ET::F16, 16, 16, false),
      C(mmaref::ET::F32, 16, 16, true), D(mmaref::ET::F32, 16, 16, true), One(mmaref::ET::F32, 16, 16, true);
  mmaref::Rng G(7);
  A.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  auto Params = [&](mmaref::Matrix &Out, char *P) {
    void *Ptrs[4] = {A.data(), B.data(), C.data(), Out.data()};
    int Ints[4] = {16, 16, 16, 1};
    std::memcpy(P, Ptrs, 32);
    std::memcpy(P + 32, Ints, 16);
  };
  alignas(16) char P1[48], PMany[48];
  Params(One, P1);
  Params(D, PMany);
  Status S1 = Exec->launch(*K, {1, 1, 1}, {32, 1, 1}, 0, P1, 0);
  ASSERT_TRUE(S1) << S1.message();
  Status S = Exec->launch(*K, {128, 1, 1}, {32, 1, 1}, 0, PMany, 0);
  ASSERT_TRUE(S) << S.message();
  for (int R = 0; R < 16; ++R)
    for (int Col = 0; Col < 16; ++Col)
      EXPECT_EQ(D.at(R, Col), One.at(R, Col)) << "at " << R << "," << Col;
}

} // namespace
