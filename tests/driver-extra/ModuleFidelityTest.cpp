/// \file
/// Module fidelity through libcuda.so.1's C ABI, on the points where a
/// third-party program would otherwise see a wrong answer: a `__managed__`
/// module variable answers pointer queries as managed memory; an image whose
/// PTX ferry cannot use fails with NVIDIA's code for the situation (a module
/// at load, a library's kernels when looked up); a kernel ferry cannot
/// translate fails alone, at every launch, attribute query and graph node,
/// while the rest of its module runs.
#include "Fixture.h"

#include "../fatbin/Builders.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

using ferry::test::Driver;
namespace fb = ferry::fatbin::test;

const char *ManagedPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .global .attribute(.managed) .align 4 .b8 Counts[64];
.visible .global .align 4 .b8 Plain[64];
.visible .entry bump(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  mov.u64 %rd1, Counts;
  atom.global.add.u32 %r2, [%rd1], %r1;
  ret;
}
)";

TEST_F(Driver, ManagedModuleVariableAnswersAsManagedMemory) {
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, ManagedPtx), CUDA_SUCCESS);
  CUdeviceptr Counts = 0, Plain = 0;
  size_t Bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Counts, &Bytes, M, "Counts"), CUDA_SUCCESS);
  EXPECT_EQ(Bytes, 64u);
  ASSERT_EQ(cuModuleGetGlobal_v2(&Plain, nullptr, M, "Plain"), CUDA_SUCCESS);

  unsigned Managed = 7;
  ASSERT_EQ(cuPointerGetAttribute(&Managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, Counts + 12), CUDA_SUCCESS);
  EXPECT_EQ(Managed, 1u);
  ASSERT_EQ(cuPointerGetAttribute(&Managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, Plain), CUDA_SUCCESS);
  EXPECT_EQ(Managed, 0u);
  // Managed memory is device memory to this attribute on NVIDIA (the runtime
  // turns IS_MANAGED into cudaMemoryTypeManaged).
  unsigned Type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Counts), CUDA_SUCCESS);
  EXPECT_EQ(Type, unsigned(CU_MEMORYTYPE_DEVICE));
  // Managed memory has a host address (itself); plain device memory has none.
  void *Host = nullptr;
  ASSERT_EQ(cuPointerGetAttribute(&Host, CU_POINTER_ATTRIBUTE_HOST_POINTER, Counts), CUDA_SUCCESS);
  EXPECT_EQ(Host, reinterpret_cast<void *>(Counts));
  EXPECT_EQ(cuPointerGetAttribute(&Host, CU_POINTER_ATTRIBUTE_HOST_POINTER, Plain), CUDA_ERROR_INVALID_VALUE);
  int Ordinal = -7;
  ASSERT_EQ(cuPointerGetAttribute(&Ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, Counts), CUDA_SUCCESS);
  EXPECT_EQ(Ordinal, 0);
  CUdeviceptr Start = 0;
  size_t Size = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, Counts + 12), CUDA_SUCCESS);
  ASSERT_EQ(cuPointerGetAttribute(&Size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, Counts + 12), CUDA_SUCCESS);
  EXPECT_EQ(Start, Counts);
  EXPECT_EQ(Size, 64u);
  // No owning context, as an H100 answered for a `__managed__` variable.
  CUcontext Owner = Ctx;
  ASSERT_EQ(cuPointerGetAttribute(&Owner, CU_POINTER_ATTRIBUTE_CONTEXT, Counts), CUDA_SUCCESS);
  EXPECT_EQ(Owner, nullptr);

  // The batched form says the same.
  CUpointer_attribute List[] = {CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned BManaged = 7, BType = 0;
  void *BHost = nullptr;
  int BOrdinal = -7;
  void *Data[] = {&BManaged, &BType, &BHost, &BOrdinal};
  ASSERT_EQ(cuPointerGetAttributes(4, List, Data, Counts + 4), CUDA_SUCCESS);
  EXPECT_EQ(BManaged, 1u);
  EXPECT_EQ(BType, unsigned(CU_MEMORYTYPE_DEVICE));
  EXPECT_EQ(BHost, reinterpret_cast<void *>(Counts + 4));
  EXPECT_EQ(BOrdinal, 0);

  // Memory hints accept it as managed memory.
  CUmemLocation Loc{};
  Loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Loc.id = 0;
  EXPECT_EQ(cuMemAdvise_v2(Counts, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, Loc), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAdvise_v2(Plain, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, Loc), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

std::string kernelPtx(const char *Version) {
  return std::string(".version ") + Version + R"(
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], 7;
  ret;
}
)";
}

/// A fatbin container holding Ptx as its only entry, announced as PTX
/// Major.Minor for sm_75.
std::vector<uint8_t> ptxContainer(const std::string &Ptx, uint16_t Major, uint16_t Minor) {
  fb::EntrySpec E;
  E.Kind = 1;
  E.Sm = 75;
  E.Major = Major;
  E.Minor = Minor;
  E.Payload = fb::bytesOf(Ptx);
  E.Payload.push_back(0);
  return fb::buildContainer({E});
}

TEST_F(Driver, ImageWithOnlyTooNewPtxIsRefusedWithItsCode) {
  std::vector<uint8_t> Image = ptxContainer(kernelPtx("9.9"), 9, 9);
  // A module: the load itself fails, as NVIDIA's JIT refuses PTX newer than
  // it knows.
  CUmodule M = nullptr;
  EXPECT_EQ(cuModuleLoadData(&M, Image.data()), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  // A library (cudart's registration): it loads, its kernel does not.
  CUlibrary L = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&L, Image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel K = nullptr;
  EXPECT_EQ(cuLibraryGetKernel(&K, L, "k"), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  EXPECT_EQ(cuLibraryGetKernel(&K, L, "k"), CUDA_ERROR_UNSUPPORTED_PTX_VERSION); // Every time.
  EXPECT_EQ(cuLibraryUnload(L), CUDA_SUCCESS);

  // The same PTX announced as a version ferry reads loads and runs.
  std::vector<uint8_t> Fine = ptxContainer(kernelPtx("8.0"), 8, 0);
  ASSERT_EQ(cuModuleLoadData(&M, Fine.data()), CUDA_SUCCESS);
  CUfunction F = nullptr;
  EXPECT_EQ(cuModuleGetFunction(&F, M, "k"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

TEST_F(Driver, ImageWithOnlySassIsNoBinaryForGpu) {
  fb::EntrySpec E;
  E.Kind = 2; // ELF (SASS): never run by ferry.
  E.Sm = 75;
  E.Payload = std::vector<uint8_t>(64, 0);
  std::vector<uint8_t> Image = fb::buildContainer({E});
  CUmodule M = nullptr;
  EXPECT_EQ(cuModuleLoadData(&M, Image.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  CUlibrary L = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&L, Image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel K = nullptr;
  EXPECT_EQ(cuLibraryGetKernel(&K, L, "anything"), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuLibraryUnload(L), CUDA_SUCCESS);
}

// `stacksave` is PTX ferry does not translate (yet): `bad` calls a function
// that uses it; `good` is fine.
const char *HalfBadPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.func helper()
{
  .reg .b64 %rd<4>;
  stacksave.u64 %rd1;
  ret;
}
.visible .entry bad(.param .u64 p)
{
  call.uni helper, ();
  ret;
}
.visible .entry good(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], 7;
  ret;
}
)";

TEST_F(Driver, UntranslatableKernelFailsAloneAtEveryUse) {
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, HalfBadPtx), CUDA_SUCCESS);
  CUfunction Good = nullptr, Bad = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&Good, M, "good"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&Bad, M, "bad"), CUDA_SUCCESS); // Lazy, as NVIDIA's is.
  CUdeviceptr Out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&Out, 4), CUDA_SUCCESS);
  void *Args[] = {&Out};
  for (int Round = 0; Round < 2; ++Round) // The failure is remembered, not forgotten.
    EXPECT_EQ(cuLaunchKernel(Bad, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr), CUDA_ERROR_INVALID_PTX);
  int Regs = 0;
  EXPECT_EQ(cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, Bad), CUDA_ERROR_INVALID_PTX);
  // A graph kernel node is refused when it is made, not run as a no-op.
  CUgraph G = nullptr;
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  CUDA_KERNEL_NODE_PARAMS_v2 P{};
  P.func = Bad;
  P.gridDimX = P.gridDimY = P.gridDimZ = 1;
  P.blockDimX = P.blockDimY = P.blockDimZ = 1;
  P.kernelParams = Args;
  CUgraphNode N = nullptr;
  EXPECT_EQ(cuGraphAddKernelNode_v2(&N, G, nullptr, 0, &P), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  // The rest of the module runs, and the context is not poisoned.
  ASSERT_EQ(cuMemsetD32_v2(Out, 0, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Good, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  int Got = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Got, Out, 4), CUDA_SUCCESS);
  EXPECT_EQ(Got, 7);
  EXPECT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

} // namespace

namespace {

/// cuModuleLoadDataEx with every output option; the logs come back in
/// Info and Error.
struct JitRun {
  char Info[4096];
  char Error[4096];
  void *Vals[7];
  CUresult R = CUDA_SUCCESS;
  CUmodule M = nullptr;

  explicit JitRun(const char *Ptx, unsigned Threads = 0) {
    std::memset(Info, 'x', sizeof Info);
    std::memset(Error, 'x', sizeof Error);
    CUjit_option Opts[] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_LOG_VERBOSE,      CU_JIT_WALL_TIME,
                           CU_JIT_THREADS_PER_BLOCK};
    void *V[] = {Info, reinterpret_cast<void *>(uintptr_t(sizeof Info)), Error,
                 reinterpret_cast<void *>(uintptr_t(sizeof Error)), reinterpret_cast<void *>(uintptr_t(1)),
                 reinterpret_cast<void *>(uintptr_t(0xdead)), reinterpret_cast<void *>(uintptr_t(Threads))};
    std::memcpy(Vals, V, sizeof V);
    R = cuModuleLoadDataEx(&M, Ptx, Threads ? 7 : 6, Opts, Vals);
  }
  size_t infoBytes() const { return size_t(uintptr_t(Vals[1])); }
  size_t errorBytes() const { return size_t(uintptr_t(Vals[3])); }
  float ms() const {
    float F;
    std::memcpy(&F, &Vals[5], sizeof F);
    return F;
  }
};

TEST_F(Driver, JitOptionsOfModuleLoadDataExAreWrittenBack) {
  JitRun Good(kernelPtx("8.0").c_str(), 100);
  ASSERT_EQ(Good.R, CUDA_SUCCESS) << Good.Error;
  std::string Info = Good.Info;
  // ptxas -v's lines for the one kernel; the size written back is the
  // text's length without its terminator (0 for an empty log), as an H100
  // answered: 439 for a 439-character info log.
  EXPECT_NE(Info.find("ptxas info    : Compiling entry function 'k' for 'sm_"), std::string::npos) << Info;
  EXPECT_NE(Info.find("ptxas info    : Used "), std::string::npos) << Info;
  EXPECT_EQ(Good.infoBytes(), Info.size());
  EXPECT_EQ(Good.Error[0], '\0');
  EXPECT_EQ(Good.errorBytes(), 0u);
  EXPECT_GE(Good.ms(), 0.0f);
  EXPECT_LT(Good.ms(), 60000.0f);
  EXPECT_EQ(uintptr_t(Good.Vals[6]), 100u); // The block size targeted.
  CUfunction F = nullptr;
  EXPECT_EQ(cuModuleGetFunction(&F, Good.M, "k"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(Good.M), CUDA_SUCCESS);

  // Broken PTX: the error log names the line, as ptxas does.
  const char *Broken = ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry b()\n{\n"
                       "  mov.u32 %r_missing, 1;\n  ret;\n}\n";
  JitRun Bad(Broken);
  EXPECT_EQ(Bad.R, CUDA_ERROR_INVALID_PTX);
  std::string Err = Bad.Error;
  EXPECT_EQ(Err.rfind("ptxas application ptx input, line 6; error   : ", 0), 0u) << Err;
  EXPECT_NE(Err.find("ptxas fatal   : Ptx assembly aborted due to errors\n"), std::string::npos) << Err;
  EXPECT_EQ(Bad.errorBytes(), Err.size());
  EXPECT_EQ(Bad.Info[0], '\0');

  // PTX newer than ferry reads: NVIDIA's code, with the line.
  JitRun New(kernelPtx("9.9").c_str());
  EXPECT_EQ(New.R, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  EXPECT_NE(std::string(New.Error).find("line 1; error   : unsupported .version 9.9"), std::string::npos)
      << New.Error;

  // A log buffer too small gets a truncated, terminated log.
  char Tiny[8];
  CUjit_option Opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void *Vals[] = {Tiny, reinterpret_cast<void *>(uintptr_t(sizeof Tiny)), reinterpret_cast<void *>(uintptr_t(1))};
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadDataEx(&M, kernelPtx("8.0").c_str(), 3, Opts, Vals), CUDA_SUCCESS);
  EXPECT_EQ(std::string(Tiny), "ptxas i");
  EXPECT_EQ(uintptr_t(Vals[1]), sizeof Tiny - 1);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);

  CUjit_option Unknown[] = {CUjit_option(9999)};
  void *UnknownVals[] = {nullptr};
  EXPECT_EQ(cuModuleLoadDataEx(&M, kernelPtx("8.0").c_str(), 1, Unknown, UnknownVals), CUDA_ERROR_INVALID_VALUE);
}

// .address_size 32: pointers are .u32 parameters, converted with
// cvta.to.global.u32 and dereferenced through 32-bit registers.
const char *Ptx32 = R"(
.version 7.0
.target sm_75
.address_size 32
.visible .global .align 4 .u32 Counter;
.visible .entry fill(.param .u32 data_p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  ld.param.u32 %r1, [data_p];
  ld.param.u32 %r2, [n];
  cvta.to.global.u32 %r3, %r1;
  mov.u32 %r4, %tid.x;
  setp.ge.u32 %p1, %r4, %r2;
  @%p1 bra DONE;
  shl.b32 %r5, %r4, 2;
  add.s32 %r6, %r3, %r5;
  mad.lo.s32 %r7, %r4, 5, 2;
  st.global.u32 [%r6], %r7;
  ld.global.u32 %r8, [Counter];
  add.s32 %r8, %r8, 1;
  st.global.u32 [Counter], %r8;
DONE:
  ret;
}
.visible .entry address_of_global(.param .u32 out_p)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [out_p];
  mov.u32 %r2, Counter;
  st.global.u32 [%r1], %r2;
  ret;
}
)";

TEST_F(Driver, AddressSize32RunsOnMemoryBelow4GiBAndRefusesTheRest) {
  // Memory allocated before any 32-bit module exists lies anywhere.
  CUdeviceptr Early = 0;
  ASSERT_EQ(cuMemAlloc_v2(&Early, 64 << 20), CUDA_SUCCESS);
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx32), CUDA_SUCCESS);
  CUfunction Fill = nullptr, AddressOf = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&Fill, M, "fill"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&AddressOf, M, "address_of_global"), CUDA_SUCCESS);
  CUdeviceptr Data = 0;
  ASSERT_EQ(cuMemAlloc_v2(&Data, 64 * sizeof(uint32_t)), CUDA_SUCCESS);
  EXPECT_EQ(Data >> 32, 0u) << "allocated after a 32-bit module was loaded";
  uint32_t Data32 = uint32_t(Data), N = 40;
  void *Args[] = {&Data32, &N};
  bool EarlyIsHigh = (Early + (64 << 20)) >> 32 != 0;
  if (EarlyIsHigh) // Out of reach: refused, never run on a truncated pointer.
    EXPECT_EQ(cuLaunchKernel(Fill, 1, 1, 1, 64, 1, 1, 0, nullptr, Args, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(cuMemFree_v2(Early), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Data, 0xdeadbeef, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Fill, 1, 1, 1, 64, 1, 1, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  uint32_t Out[64];
  ASSERT_EQ(cuMemcpyDtoH_v2(Out, Data, sizeof Out), CUDA_SUCCESS);
  for (uint32_t I = 0; I < 64; ++I)
    EXPECT_EQ(Out[I], I < N ? 5 * I + 2 : 0xdeadbeefu) << "at " << I;
  // Taking a module variable's address in 32 bits cannot be done faithfully
  // (it lives above 4 GiB): that kernel alone fails.
  EXPECT_EQ(cuLaunchKernel(AddressOf, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cuMemFree_v2(Data), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

} // namespace

namespace {

// An sm_90 GPU refuses 32-bit PTX: ptxas has no 32-bit ABI there. These are
// the logs an H100 wrote back (compat-tests/goldens/driver_ptx32). The
// device's compute capability is fixed at cuInit, so the test runs this
// binary again with FERRY_SM=90 for the half that loads the module.
TEST_F(Driver, AddressSize32IsRefusedFromSm90) {
  if (std::getenv("FERRY_TEST_PTX32_CHILD")) {
    int Major = 0;
    ASSERT_EQ(cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0), CUDA_SUCCESS);
    ASSERT_EQ(Major, 9);
    JitRun R(Ptx32);
    EXPECT_EQ(R.R, CUDA_ERROR_INVALID_PTX);
    EXPECT_STREQ(R.Error, "ptxas fatal   :  32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on "
                          "sm_90 or higher architectures.");
    EXPECT_EQ(R.errorBytes(), 114u);
    EXPECT_STREQ(R.Info, "ptxas warning :  64 Bit host architecture (--machine) being used mismatches with "
                         ".address_size of 32 bits");
    CUmodule M = nullptr;
    EXPECT_EQ(cuModuleLoadData(&M, Ptx32), CUDA_ERROR_INVALID_PTX);
    return;
  }
  char Self[4096] = {};
  ssize_t N = readlink("/proc/self/exe", Self, sizeof Self - 1);
  ASSERT_GT(N, 0);
  std::string Cmd = std::string("FERRY_SM=90 FERRY_TEST_PTX32_CHILD=1 '") + Self +
                    "' --gtest_filter=Driver.AddressSize32IsRefusedFromSm90 > /dev/null 2>&1";
  EXPECT_EQ(std::system(Cmd.c_str()), 0) << Cmd;
}

// LOCAL_SIZE_BYTES and CONST_SIZE_BYTES come from the PTX: the .local
// bytes of the entry and of the functions it calls, and the .const
// variables they name (Numba's get_local_mem_per_thread and
// get_const_mem_size read them; ferry reported 0).
const char *ResourcePtx = R"(
.version 8.0
.target sm_75
.address_size 64
.const .align 8 .b8 Coeffs[80];
.const .align 4 .b8 Unused[128];
.func (.param .b32 r) helper(.param .b32 a)
{
  .local .align 4 .b8 scratch[24];
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.b32 %r1, [a];
  mov.u64 %rd1, scratch;
  st.local.b32 [%rd1], %r1;
  ld.local.b32 %r2, [%rd1];
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry uses(.param .u64 p)
{
  .local .align 8 .b8 depot[40];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u64 %rd2, depot;
  ld.const.b32 %r1, [Coeffs+8];
  st.local.b32 [%rd2], %r1;
  {
    .reg .b32 t;
    .param .b32 arg;
    .param .b32 ret;
    st.param.b32 [arg], %r1;
    call.uni (ret), helper, (arg);
    ld.param.b32 t, [ret];
    st.global.b32 [%rd1], t;
  }
  ret;
}
.visible .entry plain(.param .u64 p)
{
  ret;
}
)";

TEST_F(Driver, FunctionAttributesReportLocalAndConstBytes) {
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, ResourcePtx), CUDA_SUCCESS);
  CUfunction Uses = nullptr, Plain = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&Uses, M, "uses"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&Plain, M, "plain"), CUDA_SUCCESS);
  int V = -1;
  ASSERT_EQ(cuFuncGetAttribute(&V, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, Uses), CUDA_SUCCESS);
  EXPECT_EQ(V, 40 + 24);
  ASSERT_EQ(cuFuncGetAttribute(&V, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, Uses), CUDA_SUCCESS);
  EXPECT_EQ(V, 80);
  ASSERT_EQ(cuFuncGetAttribute(&V, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, Plain), CUDA_SUCCESS);
  EXPECT_EQ(V, 0);
  ASSERT_EQ(cuFuncGetAttribute(&V, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, Plain), CUDA_SUCCESS);
  EXPECT_EQ(V, 0);
  // The kernel runs: the constant read through the callee's local scratch.
  CUdeviceptr Coeffs = 0, Out = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Coeffs, nullptr, M, "Coeffs"), CUDA_SUCCESS);
  uint32_t Want = 0x1234abcd, Got = 0;
  ASSERT_EQ(cuMemcpyHtoD_v2(Coeffs + 8, &Want, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Out, 4), CUDA_SUCCESS);
  void *Args[] = {&Out};
  ASSERT_EQ(cuLaunchKernel(Uses, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(&Got, Out, 4), CUDA_SUCCESS);
  EXPECT_EQ(Got, Want);
  EXPECT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

} // namespace
