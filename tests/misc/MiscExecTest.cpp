/// \file
/// Execution tests of ptx/lower/LowerMisc.cpp and the f64 directed fma:
/// every kernel of kernels.ptx (compiled by nvcc from kernels.cu) is lowered
/// to SIMT IR, compiled by the host JIT and run on the host executor with
/// the cases of MiscDriver.h. The same cases pass natively on an H100
/// (kernels.cu built with -DMISC_VALIDATE_MAIN), which ties the references
/// to NVIDIA's behaviour.
#include "MiscDriver.h"

#include "host/exec/HostExecutor.h"
#include "ptx/lower/Lower.h"
#include "ptx/lower/TensorMap.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

using namespace ferry;
using namespace ferry::host;

namespace {

class MiscExec : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 2;
    Exec = new HostExecutor(O);
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/misc/kernels.ptx");
    std::stringstream S;
    S << In.rdbuf();
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    llvm::Expected<ptx::LowerResult> R = ptx::lowerText(S.str(), "kernels.ptx", *Ctx);
    if (!R) {
      SetupError = llvm::toString(R.takeError());
      return;
    }
    // A kernel that did not lower fails only the tests that launch it.
    for (const ptx::KernelError &E : R->Errors)
      KernelErrors += E.format("kernels.ptx") + "\n";
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

  /// Launches a kernel by its (unmangled, extern-C-like) name: a pointer to
  /// each buffer, then the ints, packed as CUDA packs kernelParams (host
  /// memory is device memory here).
  static std::string launch(const char *Kernel, std::vector<miscref::Buffer> &Bufs,
                            const std::vector<int> &Ints, unsigned Grid, unsigned Block) {
    const HostKernel *K = nullptr;
    if (Module)
      for (const std::string &N : {std::string(Kernel), mangled(Kernel)})
        if ((K = Module->kernel(N)))
          break;
    if (!K)
      return std::string("no kernel ") + Kernel + "\n" + KernelErrors;
    std::vector<char> P;
    for (miscref::Buffer &B : Bufs) {
      P.resize(P.size() + 8);
      std::memcpy(P.data() + P.size() - 8, &B.Host, 8);
    }
    for (int V : Ints) {
      P.resize(P.size() + 4);
      std::memcpy(P.data() + P.size() - 4, &V, 4);
    }
    Status S = Exec->launch(*K, {Grid, 1, 1}, {Block, 1, 1}, 0, P.data(), 0);
    return S ? "" : S.message();
  }
  /// The Itanium names nvcc gives the kernels of kernels.cu.
  static std::string mangled(const char *Kernel) {
    static const std::map<std::string, std::string> Names = {
        {"video_all", "_Z9video_allPKjS0_S0_Pji"},
        {"fns_all", "_Z7fns_allPKjS0_PKiPji"},
        {"fma_directed", "_Z12fma_directedPKdS0_S0_Pdi"},
        {"mbar_pipeline", "_Z13mbar_pipelinePKiPii"},
        {"mbar_tokens", "_Z11mbar_tokensPj"},
        {"mbar_bulk", "_Z9mbar_bulkPK4int4PS_"},
        {"cuda_barrier", "_Z12cuda_barrierPii"},
        {"bulk_reduce", "_Z11bulk_reducePKiPfPiS0_S2_"},
        {"tma_tile", "_Z8tma_tilePK14CUtensorMap_stPfiiii"}};
    auto It = Names.find(Kernel);
    return It == Names.end() ? Kernel : It->second;
  }

  void SetUp() override { ASSERT_TRUE(SetupError.empty()) << SetupError; }

  static HostExecutor *Exec;
  static CompiledModule *Module;
  static std::string SetupError, KernelErrors;
};
HostExecutor *MiscExec::Exec = nullptr;
CompiledModule *MiscExec::Module = nullptr;
std::string MiscExec::SetupError, MiscExec::KernelErrors;

TEST_F(MiscExec, Video) { EXPECT_EQ(miscref::runVideo(launch), ""); }
TEST_F(MiscExec, Fns) { EXPECT_EQ(miscref::runFns(launch), ""); }
TEST_F(MiscExec, FmaDirectedF64) { EXPECT_EQ(miscref::runFma(launch), ""); }
TEST_F(MiscExec, MbarrierProducerConsumer) { EXPECT_EQ(miscref::runPipeline(launch), ""); }
TEST_F(MiscExec, MbarrierTokensAndTxCount) { EXPECT_EQ(miscref::runTokens(launch), ""); }
TEST_F(MiscExec, MbarrierBulkCopy) { EXPECT_EQ(miscref::runBulk(launch), ""); }
TEST_F(MiscExec, CudaBarrier) { EXPECT_EQ(miscref::runCudaBarrier(launch), ""); }
TEST_F(MiscExec, BulkReduce) { EXPECT_EQ(miscref::runBulkReduce(launch), ""); }

// The tensor map as libcuda's cuTensorMapEncodeTiled writes it (the same
// case passes on an H100 with NVIDIA's encoding).
TEST_F(MiscExec, TensorTileCopy) {
  miscref::TmaCase Case;
  std::vector<float> Tensor = Case.Tensor, Tile(64, -2.0f);
  ptx::tensormap::Tiled T;
  T.DataType = 7; // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  T.Rank = 2;
  T.ElemBytes = 4;
  T.Swizzle = 1; // CU_TENSOR_MAP_SWIZZLE_32B
  T.GlobalAddress = reinterpret_cast<uintptr_t>(Tensor.data());
  T.Dim[0] = miscref::TmaCase::W, T.Dim[1] = miscref::TmaCase::H;
  T.Stride[0] = miscref::TmaCase::Pitch * 4;
  T.BoxDim[0] = T.BoxDim[1] = 8;
  T.ElemStride[0] = T.ElemStride[1] = 1;
  alignas(64) uint64_t Map[ptx::tensormap::Words];
  ptx::tensormap::encode(T, Map);
  std::vector<miscref::Buffer> Bufs = {{Map, sizeof Map}, miscref::buf(Tile)};
  ASSERT_EQ(launch("tma_tile", Bufs,
                   {miscref::TmaCase::C0, miscref::TmaCase::C1, miscref::TmaCase::S0, miscref::TmaCase::S1}, 1, 64),
            "");
  EXPECT_EQ(Case.check(Tile, Tensor), "");
}

} // namespace
