/// \file
/// The libcuda seams over the AMD backend, without a GPU: the compiler
/// backend compiles SIMT IR and its code objects survive the cache's
/// serialize/deserialize round trip (and reject damaged bytes); the kernarg
/// builder lays out the code object v5 hidden arguments where the metadata
/// says, with a cooperative launch's grid workspace where
/// ferry.grid.workspace reads it; the workspace pool and the co-residency
/// rule of cooperative launches; the device backend reports no device
/// without ROCr.
#include "hsa/HsaBackend.h"
#include "hsa/HsaRuntime.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace ferry::hsa;

namespace {

std::unique_ptr<llvm::Module> loadIR(llvm::LLVMContext &Ctx, const char *Name) {
  llvm::SMDiagnostic Err;
  return llvm::parseIRFile(std::string(HSA_TEST_IR_DIR) + "/" + Name, Err, Ctx);
}

TEST(HsaBackend, CompilerSeamRoundTrip) {
  auto T = resolveTarget("gfx1100");
  ASSERT_TRUE(bool(T));
  HsaCompilerBackend C(*T);
  EXPECT_EQ(C.target(), "amdgcn-gfx1100");
  llvm::LLVMContext Ctx;
  auto M = loadIR(Ctx, "reduce.ll");
  ASSERT_TRUE(M);
  auto CO = C.compile(*M, {});
  ASSERT_TRUE(bool(CO)) << CO.error().message();
  ASSERT_EQ((*CO)->kernels().size(), 1u);
  const ferry::KernelInfo &K = (*CO)->kernels()[0];
  EXPECT_EQ(K.Name, "reduce");
  EXPECT_EQ(K.ParamBytes, 16u);
  EXPECT_EQ(K.StaticSharedBytes, 1024u);
  auto Bytes = (*CO)->serialize();
  ASSERT_TRUE(bool(Bytes));
  auto Back = C.deserialize(*Bytes);
  ASSERT_TRUE(bool(Back)) << Back.error().message();
  EXPECT_EQ((*Back)->kernels()[0].StaticSharedBytes, 1024u);
  // Damaged bytes: a clear error, never a crash.
  std::vector<std::byte> Cut(Bytes->begin(), Bytes->begin() + 12);
  auto Bad = C.deserialize(Cut);
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(Bad.code(), CUDA_ERROR_INVALID_IMAGE);
  HsaCompilerBackend Other(*resolveTarget("gfx90a"));
  auto Wrong = Other.deserialize(*Bytes);
  ASSERT_FALSE(bool(Wrong));
  EXPECT_NE(Wrong.error().message().find("gfx1100"), std::string::npos);
}

TEST(HsaBackend, CompileErrorsCarryCudaCodes) {
  HsaCompilerBackend C(*resolveTarget("gfx942"));
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString(
      "declare void @ferry.grid.sync()\n"
      "define void @k(ptr %p) { call void @ferry.grid.sync() ret void }\n"
      "!ferry.kernels = !{!0}\n!0 = !{ptr @k}\n", Err, Ctx);
  ASSERT_TRUE(M);
  auto CO = C.compile(*M, {});
  ASSERT_FALSE(bool(CO));
  EXPECT_EQ(CO.code(), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_NE(CO.error().message().find("ferry.grid.sync"), std::string::npos);
}

TEST(HsaBackend, KernargHoldsParamsThenHiddenArguments) {
  // The layout the metadata of vecadd gives (checked in CompilerTest).
  auto CO = compileToCodeObject(
      llvm::MemoryBuffer::getFile(std::string(HSA_TEST_IR_DIR) + "/vecadd.ll").get()->getBuffer(),
      "gfx90a");
  ASSERT_TRUE(bool(CO));
  const KernelInfo &K = CO->Kernels[0];
  std::vector<std::byte> Params(28);
  for (size_t I = 0; I < Params.size(); ++I)
    Params[I] = std::byte(I + 1);
  auto Buf = buildKernarg(K, Params, {7, 5, 1}, {256, 2, 1}, 4096, 0x1234);
  ASSERT_EQ(Buf.size(), 288u);
  for (size_t I = 0; I < 28; ++I)
    EXPECT_EQ(Buf[I], I + 1);
  auto U32 = [&](size_t Off) { uint32_t V; std::memcpy(&V, &Buf[Off], 4); return V; };
  auto U16 = [&](size_t Off) { uint16_t V; std::memcpy(&V, &Buf[Off], 2); return V; };
  // Code object v5: block_count @+0/4/8, group_size @+12/14/16,
  // remainder @+18.., grid_dims @+64 from the hidden base at 32.
  EXPECT_EQ(U32(32), 7u);
  EXPECT_EQ(U32(36), 5u);
  EXPECT_EQ(U32(40), 1u);
  EXPECT_EQ(U16(44), 256u);
  EXPECT_EQ(U16(46), 2u);
  EXPECT_EQ(U16(48), 1u);
  EXPECT_EQ(U16(50), 0u);
  EXPECT_EQ(U16(32 + 64), 2u);
}

TEST(HsaBackend, KernargCarriesTheGridWorkspace) {
  // workspace.ll reads ferry.grid.workspace (the FileCheck test shows the
  // s_load from the hidden base + 88); the kernarg must hold the workspace
  // there for cooperative launches and null otherwise.
  auto Text = llvm::MemoryBuffer::getFile(std::string(HSA_TEST_IR_DIR) + "/workspace.ll");
  ASSERT_TRUE(bool(Text));
  for (const char *Target : {"gfx942", "gfx1100"}) {
    auto CO = compileToCodeObject(Text.get()->getBuffer(), Target);
    ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
    for (const KernelInfo &K : CO->Kernels) {
      uint32_t Hidden = (K.ExplicitArgSize + 7) / 8 * 8;
      bool Listed = false;
      for (const KernelArgInfo &A : K.Args)
        if (A.ValueKind == "hidden_multigrid_sync_arg") {
          EXPECT_EQ(A.Offset, Hidden + 88) << Target << " " << K.Name;
          EXPECT_EQ(A.Size, 8u);
          Listed = true;
        }
      ASSERT_TRUE(Listed) << Target << " " << K.Name;
      std::vector<std::byte> Params(K.ExplicitArgSize, std::byte(0xee));
      uint64_t Ws = 0x7f12'3456'7800;
      auto Coop = buildKernarg(K, Params, {4, 1, 1}, {64, 1, 1}, 0, 0, Ws);
      auto Plain = buildKernarg(K, Params, {4, 1, 1}, {64, 1, 1}, 0, 0);
      uint64_t Got = 1, None = 1;
      std::memcpy(&Got, &Coop[Hidden + 88], 8);
      std::memcpy(&None, &Plain[Hidden + 88], 8);
      EXPECT_EQ(Got, Ws) << Target << " " << K.Name;
      EXPECT_EQ(None, 0u) << Target << " " << K.Name;
      // Nothing else moved: the buffers differ only in those 8 bytes.
      for (size_t I = 0; I < Coop.size(); ++I)
        if (I < Hidden + 88 || I >= Hidden + 96)
          EXPECT_EQ(Coop[I], Plain[I]) << "byte " << I;
    }
  }
}

TEST(HsaBackend, GridWorkspaceIsReusedUntilAFault) {
  std::vector<std::vector<uint32_t>> Blocks; // Stand-ins for device memory.
  Blocks.reserve(8);
  std::vector<void *> Released;
  {
    GridWorkspacePool Pool({[&]() -> ferry::Expected<void *> {
                              Blocks.emplace_back(GridWorkspaceBytes / 4, 0u);
                              return Blocks.back().data();
                            },
                            [&](void *P) { Released.push_back(P); }});
    auto A = Pool.get(0);
    ASSERT_TRUE(bool(A));
    EXPECT_EQ(Blocks.size(), 1u);
    // A completed grid.sync leaves the barrier word at rest: reused.
    static_cast<uint32_t *>(*A)[1] = 0x80000000u;
    auto B = Pool.get(0);
    ASSERT_TRUE(bool(B));
    EXPECT_EQ(*B, *A);
    EXPECT_EQ(Blocks.size(), 1u);
    // After a device fault: a fresh, zeroed workspace; the old one is kept
    // (queued work may still read it) until the pool goes.
    auto C = Pool.get(1);
    ASSERT_TRUE(bool(C));
    EXPECT_NE(*C, *A);
    EXPECT_EQ(static_cast<uint32_t *>(*C)[1], 0u);
    EXPECT_TRUE(Released.empty());
    EXPECT_EQ(*Pool.get(1), *C);
  }
  EXPECT_EQ(Released.size(), 2u);
  // Allocation failures reach the launch.
  GridWorkspacePool Failing({[]() -> ferry::Expected<void *> {
                               return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "no memory");
                             },
                             [](void *) {}});
  auto F = Failing.get(0);
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(F.code(), CUDA_ERROR_OUT_OF_MEMORY);
}

TEST(HsaBackend, CooperativeLaunchesMustBeCoResident) {
  KernelInfo K;
  K.VgprCount = 128;
  K.SgprCount = 32;
  auto Gfx90a = *resolveTarget("gfx90a");
  K.WavefrontSize = 64;
  // 256 threads = 4 wave64; 512 VGPRs / 128 = 4 waves a SIMD, 4 SIMDs: 4.
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 256, 0), 4u);
  // AGPRs share the file: 128 + 128 → 2 waves a SIMD → 2 workgroups.
  K.AgprCount = 128;
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 256, 0), 2u);
  K.AgprCount = 0;
  // LDS: 24 KiB static + 8 KiB dynamic → 2 of 64 KiB.
  K.GroupSegmentSize = 24 * 1024;
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 256, 8 * 1024), 2u);
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 256, 48 * 1024), 0u);
  K.GroupSegmentSize = 0;
  // Small kernels: 8 waves a SIMD; multi-wave workgroups take one of 16
  // barriers; single-wave ones take only wave slots.
  K.VgprCount = 16;
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 128, 0), 16u);
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 64, 0), 32u);
  // ROCr's waves-per-CU figure caps the slots.
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx90a, 64, 0, 20), 20u);

  // gfx1100 (wave32, 1536 VGPRs, granule 24, 16 waves a SIMD, 2 SIMDs a CU).
  auto Gfx1100 = *resolveTarget("gfx1100");
  K.WavefrontSize = 32;
  K.VgprCount = 100; // → 120 → 12 waves a SIMD → 24 slots → 3 of 8 waves.
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1100, 256, 0), 3u);
  auto Gfx1030 = *resolveTarget("gfx1030"); // 1024, granule 16: 112 → 9.
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1030, 256, 0), 2u);

  // The launch rule: the whole grid resident on the CUs, else NVIDIA's error.
  K.VgprCount = 128;
  K.WavefrontSize = 64;
  EXPECT_TRUE(bool(checkCooperativeFit(K, Gfx90a, 104, 0, {416, 1, 1}, {256, 1, 1}, 0)));
  EXPECT_TRUE(bool(checkCooperativeFit(K, Gfx90a, 104, 0, {208, 2, 1}, {16, 16, 1}, 0)));
  ferry::Status Big = checkCooperativeFit(K, Gfx90a, 104, 0, {417, 1, 1}, {256, 1, 1}, 0);
  ASSERT_FALSE(bool(Big));
  EXPECT_EQ(Big.code(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_NE(Big.message().find("417 blocks"), std::string::npos) << Big.message();
  ferry::Status Never = checkCooperativeFit(K, Gfx90a, 104, 0, {1, 1, 1}, {256, 1, 1}, 80 * 1024);
  EXPECT_EQ(Never.code(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
}

TEST(HsaBackend, AWorkgroupSpanningAWgpStillCountsAsResident) {
  // gfx10+ code runs in WGP mode: LLVM lets a 1024-thread wave32 kernel use
  // up to 192 VGPRs (8 waves a SIMD on a WGP's 4 SIMDs), more than one of
  // ROCr's CUs (2 SIMDs) holds for 32 waves. The model answered 0 blocks
  // per CU, and CUB's DeviceRadixSort divided by the occupancy answer
  // (SIGFPE in cub_device_sort on simulated gfx1100).
  KernelInfo K;
  K.WavefrontSize = 32;
  K.VgprCount = 192;
  K.SgprCount = 40;
  auto Gfx1100 = *resolveTarget("gfx1100");
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1100, 1024, 0), 1u);
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1100, 512, 0), 1u); // 16 waves: 16 slots a CU.
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1100, 256, 0), 2u);
  // The cooperative rule counts exactly: one such workgroup a WGP, so 48 on
  // 96 CUs, not 96.
  EXPECT_TRUE(bool(checkCooperativeFit(K, Gfx1100, 96, 0, {48, 1, 1}, {1024, 1, 1}, 0)));
  ferry::Status Over = checkCooperativeFit(K, Gfx1100, 96, 0, {49, 1, 1}, {1024, 1, 1}, 0);
  EXPECT_EQ(Over.code(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_NE(Over.message().find("per WGP"), std::string::npos) << Over.message();
  // What cannot run at all is still 0: more LDS than a workgroup may have.
  K.GroupSegmentSize = 65 * 1024;
  EXPECT_EQ(residentWorkgroupsPerCu(K, Gfx1100, 64, 0), 0u);
}

TEST(HsaBackend, NoRocrMeansNoBackend) {
  // The process-wide runtime reads FERRY_HSA_LIBRARY once: this test binary
  // sets it before anything else touches HSA.
  setenv("FERRY_HSA_LIBRARY", "/nonexistent/libhsa-runtime64.so.1", 1);
  auto B = createHsaDeviceBackend();
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(B.code(), CUDA_ERROR_NO_DEVICE);
  EXPECT_NE(B.error().message().find("ROCr not found"), std::string::npos);
}

} // namespace
