/// \file
/// JIT linking through the driver API: two PTX modules that need each
/// other's extern function and variable, linked, loaded and launched; the
/// same through nvcc-built fatbinary, object and library inputs; unresolved
/// and duplicate symbols failing at cuLinkComplete with log messages;
/// SASS-only inputs refused by name; option and handle validation.
#include "Fixture.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using ferry::test::Driver;

// nvcc -rdc=true -ptx of: __device__ int Scale = 3; extern __device__ int
// Bias; __device__ int twice(int x) { return x * Scale + Bias; }
const char *PtxA = R"(
.version 9.0
.target sm_75
.address_size 64
.visible .global .align 4 .u32 Scale = 3;
.extern .global .align 4 .u32 Bias;
.visible .func  (.param .b32 func_retval0) _Z5twicei(
	.param .b32 _Z5twicei_param_0
)
{
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [_Z5twicei_param_0];
	ld.global.u32 	%r2, [Scale];
	ld.global.u32 	%r3, [Bias];
	mad.lo.s32 	%r4, %r2, %r1, %r3;
	st.param.b32 	[func_retval0+0], %r4;
	ret;
}
)";

// extern __device__ int twice(int); __device__ int Bias; extern "C"
// __global__ void apply(int *out, const int *in, int n) { out[i] = twice(in[i]); }
const char *PtxB = R"(
.version 9.0
.target sm_75
.address_size 64
.extern .func  (.param .b32 func_retval0) _Z5twicei
(
	.param .b32 _Z5twicei_param_0
)
;
.visible .global .align 4 .u32 Bias;
.visible .entry apply(
	.param .u64 apply_param_0,
	.param .u64 apply_param_1,
	.param .u32 apply_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [apply_param_0];
	ld.param.u64 	%rd2, [apply_param_1];
	ld.param.u32 	%r2, [apply_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd2;
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.u32 	%r6, [%rd5];
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), _Z5twicei, (param0);
	ld.param.b32 	%r7, [retval0+0];
	}
	cvta.to.global.u64 	%rd6, %rd1;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.u32 	[%rd7], %r7;
$L__BB0_2:
	ret;
}
)";

/// Loads Image as a module, sets Bias, runs apply over 0..N-1 and checks
/// out[i] == 3 * i + Bias.
void runLinked(const void *Image) {
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, Image), CUDA_SUCCESS);
  CUfunction F = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "apply"), CUDA_SUCCESS);
  CUdeviceptr Bias = 0;
  size_t BiasBytes = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Bias, &BiasBytes, M, "Bias"), CUDA_SUCCESS);
  EXPECT_EQ(BiasBytes, 4u);
  int B = 11;
  ASSERT_EQ(cuMemcpyHtoD_v2(Bias, &B, 4), CUDA_SUCCESS);
  const int N = 300;
  std::vector<int> In(N), Out(N, -1);
  for (int I = 0; I < N; ++I)
    In[I] = I;
  CUdeviceptr DIn, DOut;
  ASSERT_EQ(cuMemAlloc_v2(&DIn, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&DOut, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DIn, In.data(), N * 4), CUDA_SUCCESS);
  int Count = N;
  void *Params[] = {&DOut, &DIn, &Count};
  ASSERT_EQ(cuLaunchKernel(F, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), DOut, N * 4), CUDA_SUCCESS);
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    Bad += Out[I] != 3 * I + 11;
  EXPECT_EQ(Bad, 0) << "out[5] = " << Out[5];
  EXPECT_EQ(cuMemFree_v2(DIn), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(DOut), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

struct Logs {
  char Info[4096] = {}, Error[4096] = {};
  float WallMs = -1;
  CUjit_option Opts[6] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_WALL_TIME,        CU_JIT_LOG_VERBOSE};
  void *Vals[6] = {Info, reinterpret_cast<void *>(uintptr_t(sizeof Info)), Error,
                   reinterpret_cast<void *>(uintptr_t(sizeof Error)), nullptr, reinterpret_cast<void *>(1)};
  size_t infoBytes() const { return size_t(uintptr_t(Vals[1])); }
  size_t errorBytes() const { return size_t(uintptr_t(Vals[3])); }
  float wallMs() const {
    float F;
    std::memcpy(&F, &Vals[4], sizeof F);
    return F;
  }
};

void addPtx(CUlinkState L, const char *Ptx, const char *Name, CUresult Want = CUDA_SUCCESS) {
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_PTX, const_cast<char *>(Ptx), std::strlen(Ptx) + 1, Name, 0, nullptr,
                             nullptr),
            Want)
      << Name;
}

TEST_F(Driver, LinkTwoPtxModulesWithCrossExterns) {
  Logs Log;
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(6, Log.Opts, Log.Vals, &L), CUDA_SUCCESS);
  addPtx(L, PtxA, "a.ptx");
  addPtx(L, PtxB, "b.ptx");
  void *Image = nullptr;
  size_t Size = 0;
  ASSERT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_SUCCESS) << Log.Error;
  ASSERT_NE(Image, nullptr);
  EXPECT_GT(Size, std::strlen(PtxA) + std::strlen(PtxB));
  EXPECT_NE(std::string(Log.Info).find("a.ptx"), std::string::npos) << Log.Info;
  EXPECT_NE(std::string(Log.Info).find("linked 2 PTX module"), std::string::npos) << Log.Info;
  EXPECT_EQ(Log.infoBytes(), std::strlen(Log.Info)); // The text's length, as an H100 writes it back.
  EXPECT_STREQ(Log.Error, "");
  EXPECT_GE(Log.wallMs(), 0.0f);
  runLinked(Image);
  // The image holds no pointers: a copy loads as well (a cubin saved to a
  // file and loaded later), through the library API too.
  std::vector<char> Copy(static_cast<char *>(Image), static_cast<char *>(Image) + Size);
  ASSERT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
  runLinked(Copy.data());
  CUlibrary Lib = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&Lib, Copy.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel K = nullptr;
  EXPECT_EQ(cuLibraryGetKernel(&K, Lib, "apply"), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryUnload(Lib), CUDA_SUCCESS);
}

TEST_F(Driver, LinkOldEntryPointsAndFile) {
  std::string Path = ::testing::TempDir() + "/ferry_link_a.ptx";
  {
    std::ofstream Out(Path);
    Out << PtxA;
  }
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &L), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkAddFile(L, CU_JIT_INPUT_PTX, Path.c_str(), 0, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkAddData(L, CU_JIT_INPUT_PTX, const_cast<char *>(PtxB), std::strlen(PtxB), nullptr, 0,
                          nullptr, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuLinkAddFile_v2(L, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_FILE_NOT_FOUND);
  void *Image = nullptr;
  size_t Size = 0;
  ASSERT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_SUCCESS);
  runLinked(Image);
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
}

TEST_F(Driver, LinkUnresolvedExternFailsWithLog) {
  Logs Log;
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(6, Log.Opts, Log.Vals, &L), CUDA_SUCCESS);
  addPtx(L, PtxB, "b.ptx");
  void *Image = nullptr;
  size_t Size = 0;
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_PTX);
  std::string Err = Log.Error;
  EXPECT_NE(Err.find("undefined reference to '_Z5twicei' in 'b.ptx'"), std::string::npos) << Err;
  EXPECT_EQ(Log.errorBytes(), Err.size());
  // Adding the missing module makes the same link succeed.
  addPtx(L, PtxA, "a.ptx");
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);

  // Only A: its extern variable Bias is missing. (Fresh options: the size
  // slots of the first now hold the bytes that link logged.)
  Logs Log2;
  ASSERT_EQ(cuLinkCreate_v2(6, Log2.Opts, Log2.Vals, &L), CUDA_SUCCESS);
  addPtx(L, PtxA, "a.ptx");
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(Log2.Error).find("undefined reference to 'Bias' in 'a.ptx'"), std::string::npos)
      << Log2.Error;
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
}

TEST_F(Driver, LinkDuplicateDefinitionAndBadPtx) {
  Logs Log;
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(6, Log.Opts, Log.Vals, &L), CUDA_SUCCESS);
  addPtx(L, PtxA, "a.ptx");
  addPtx(L, PtxB, "b.ptx");
  addPtx(L, PtxB, "b2.ptx");
  void *Image = nullptr;
  size_t Size = 0;
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(Log.Error).find("multiple definition of 'Bias' in 'b2.ptx'"), std::string::npos)
      << Log.Error;
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);

  Logs Log2;
  ASSERT_EQ(cuLinkCreate_v2(6, Log2.Opts, Log2.Vals, &L), CUDA_SUCCESS);
  addPtx(L, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() {\n  bogus.op %r1;\n}\n",
         "broken.ptx", CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(Log2.Error).find("broken.ptx"), std::string::npos) << Log2.Error;
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_VALUE); // nothing valid was added
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
}

TEST_F(Driver, LinkInvalidArguments) {
  CUlinkState L = nullptr;
  EXPECT_EQ(cuLinkCreate_v2(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkCreate_v2(2, nullptr, nullptr, &L), CUDA_ERROR_INVALID_VALUE);
  CUjit_option Bad = CUjit_option(999);
  void *BadVal = nullptr;
  EXPECT_EQ(cuLinkCreate_v2(1, &Bad, &BadVal, &L), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuLinkCreate_v2(0, nullptr, nullptr, &L), CUDA_SUCCESS);
  char Junk[64] = "not a cubin";
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_PTX, nullptr, 10, "x", 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_PTX, Junk, 0, "x", 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData_v2(L, CUjitInputType(42), Junk, sizeof Junk, "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_CUBIN, Junk, sizeof Junk, "k.cubin", 0, nullptr, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_FATBINARY, Junk, sizeof Junk, "f", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_NVVM, Junk, sizeof Junk, "n", 0, nullptr, nullptr),
            CUDA_ERROR_NOT_SUPPORTED);
  void *Image = nullptr;
  size_t Size = 0;
  EXPECT_EQ(cuLinkComplete(L, nullptr, &Size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_VALUE); // no inputs
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(L), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkAddData_v2(L, CU_JIT_INPUT_PTX, Junk, sizeof Junk, "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkDestroy(reinterpret_cast<CUlinkState>(Junk)), CUDA_ERROR_INVALID_HANDLE);
}

#ifdef FERRY_LINK_INPUTS_DIR
/// nvcc-built inputs (tests/driver-extra/CMakeLists.txt): a.cu as a
/// fatbinary with PTX, as a relocatable host object, as a library, and as a
/// SASS-only cubin; b.cu's PTX completes each link.
std::string input(const char *Name) { return std::string(FERRY_LINK_INPUTS_DIR) + "/" + Name; }

void linkWithB(CUjitInputType Type, const std::string &Path) {
  Logs Log;
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(6, Log.Opts, Log.Vals, &L), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddFile_v2(L, Type, Path.c_str(), 0, nullptr, nullptr), CUDA_SUCCESS) << Path << ": " << Log.Error;
  addPtx(L, PtxB, "b.ptx");
  void *Image = nullptr;
  size_t Size = 0;
  ASSERT_EQ(cuLinkComplete(L, &Image, &Size), CUDA_SUCCESS) << Log.Error;
  runLinked(Image);
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
}

TEST_F(Driver, LinkFatbinaryObjectAndLibraryInputs) {
  linkWithB(CU_JIT_INPUT_FATBINARY, input("a.fatbin"));
  linkWithB(CU_JIT_INPUT_OBJECT, input("a.o"));
  linkWithB(CU_JIT_INPUT_LIBRARY, input("liba.a"));
}

TEST_F(Driver, LinkSassOnlyInputIsRefusedByName) {
  Logs Log;
  CUlinkState L = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(6, Log.Opts, Log.Vals, &L), CUDA_SUCCESS);
  std::string Cubin = input("a.cubin"), SassFatbin = input("a_sass.fatbin");
  EXPECT_EQ(cuLinkAddFile_v2(L, CU_JIT_INPUT_CUBIN, Cubin.c_str(), 0, nullptr, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_NE(std::string(Log.Error).find("a.cubin"), std::string::npos) << Log.Error;
  EXPECT_EQ(cuLinkAddFile_v2(L, CU_JIT_INPUT_FATBINARY, SassFatbin.c_str(), 0, nullptr, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_NE(std::string(Log.Error).find("a_sass.fatbin"), std::string::npos) << Log.Error;
  EXPECT_EQ(cuLinkDestroy(L), CUDA_SUCCESS);
}
#endif

} // namespace
