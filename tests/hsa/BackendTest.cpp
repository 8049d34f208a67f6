/// \file
/// The libcuda seams over the AMD backend, without a GPU: the compiler
/// backend compiles SIMT IR and its code objects survive the cache's
/// serialize/deserialize round trip (and reject damaged bytes); the kernarg
/// builder lays out the code object v5 hidden arguments where the metadata
/// says; the device backend reports no device without ROCr.
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
