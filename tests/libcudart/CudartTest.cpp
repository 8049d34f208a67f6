/// \file
/// Unit tests of ferry's libcudart over a fake libcuda.so.1 (fakecuda/):
/// how driver entry points are resolved, CUresult -> cudaError_t mapping,
/// last-error and sticky-error rules, devices and contexts, the
/// registration ABI's bookkeeping (lazy library load, kernels, variables,
/// call configuration) and per-thread-default-stream routing. ctest runs
/// each test in its own process, so each starts with a fresh runtime.
#include "fakecuda/FakeDriver.h"

#include "ferry/ProcAddress.h"
#include "ferry/generated/DriverApi.h"
#include "ferry/generated/RuntimeApi.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

namespace {

FakeState &fake() {
  // The runtime loads the fake driver on its first call; make one first.
  int Version = 0;
  cudaRuntimeGetVersion(&Version);
  int N = 0;
  cudaGetDeviceCount(&N);
  void *H = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(H, nullptr) << "the runtime did not load the fake libcuda.so.1";
  auto *Get = reinterpret_cast<FakeState *(*)()>(dlsym(H, "fakeCudaState"));
  EXPECT_NE(Get, nullptr) << "libcuda.so.1 is not the test's fake driver";
  return *Get();
}

bool requested(FakeState &F, const std::string &Req) {
  std::lock_guard<std::mutex> Lock(F.Mutex);
  for (auto &R : F.ProcRequests)
    if (R == Req)
      return true;
  return false;
}

TEST(CudartDriver, ResolvesEveryFunctionThroughGetProcAddressAt13000) {
  FakeState &F = fake();
  EXPECT_TRUE(requested(F, "cuMemAlloc@13000/0"));
  EXPECT_TRUE(requested(F, "cuMemAlloc@13000/2"));
  EXPECT_TRUE(requested(F, "cuLaunchKernel@13000/2"));
  EXPECT_EQ(F.count("cuInit"), 1u);
  std::lock_guard<std::mutex> Lock(F.Mutex);
  for (auto &R : F.ProcRequests)
    EXPECT_NE(R.find("@13000/"), std::string::npos) << R;
}

// Each FERRY_DRIVER_FN(Base, Symbol) row types the pointer with Symbol's
// prototype; the API table says which symbol a request for Base at 13000
// really returns. They must agree, or the runtime calls with the wrong ABI.
struct NamedProc {
  const char *Name;
  int Version;
  bool PerThread;
  const char *Symbol;
};
constexpr NamedProc ProcRows[] = {
#define FERRY_PROC(Name, Version, PerThread, Symbol) {Name, Version, PerThread != 0, #Symbol},
#include "ferry/generated/ProcAddressTable.inc"
#undef FERRY_PROC
};

TEST(CudartDriver, FunctionListMatchesTheApiTable) {
  std::vector<ferry::api::ProcEntry> Table;
  for (const NamedProc &R : ProcRows)
    Table.push_back({R.Name, R.Version, R.PerThread,
                     const_cast<void *>(static_cast<const void *>(R.Symbol))});
  int Checked = 0;
#define FERRY_DRIVER_FN(Base, Symbol)                                                        \
  {                                                                                        \
    auto L = ferry::api::lookupProc(Table, #Base, 13000, 0);                               \
    ASSERT_EQ(L.Status, ferry::api::ProcStatus::Found) << #Base;                           \
    EXPECT_STREQ(static_cast<const char *>(L.Entry->Fn), #Symbol) << #Base;                \
    ++Checked;                                                                             \
  }
#include "libcudart/DriverFunctions.def"
#undef FERRY_DRIVER_FN
  EXPECT_GT(Checked, 50);
}

TEST(CudartDriver, MissingDriverFunctionIsError36) {
  // The fake has no cuMemAllocPitch.
  fake();
  void *P = nullptr;
  size_t Pitch = 0;
  EXPECT_EQ(cudaMallocPitch(&P, &Pitch, 64, 4), cudaErrorCallRequiresNewerDriver);
  EXPECT_EQ(cudaGetLastError(), cudaErrorCallRequiresNewerDriver);
}

TEST(CudartErrors, NamesAndStringsForEveryValue) {
  // Every enumerator of cudaError in the ABI header (itself checked against
  // NVIDIA's by tests/abi) must have its own name and a description.
  std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/include/ferry/abi/cudart_1.h");
  ASSERT_TRUE(In.good());
  std::string Line;
  bool InEnum = false;
  int Checked = 0;
  while (std::getline(In, Line)) {
    if (Line.rfind("enum cudaError {", 0) == 0) {
      InEnum = true;
      continue;
    }
    if (!InEnum)
      continue;
    if (Line.rfind("};", 0) == 0)
      break;
    std::string Name;
    int Value = 0;
    std::istringstream Row(Line);
    std::string Eq;
    ASSERT_TRUE(Row >> Name >> Eq >> Value) << Line;
    EXPECT_STREQ(cudaGetErrorName(cudaError_t(Value)), Name.c_str());
    EXPECT_GT(std::strlen(cudaGetErrorString(cudaError_t(Value))), 3u) << Name;
    EXPECT_STRNE(cudaGetErrorString(cudaError_t(Value)), "unrecognized error code") << Name;
    ++Checked;
  }
  EXPECT_GT(Checked, 100);
  // Values in between answer like NVIDIA's runtime does.
  EXPECT_STREQ(cudaGetErrorName(cudaError_t(11)), "unrecognized error code");
  EXPECT_STREQ(cudaGetErrorString(cudaError_t(11)), "unrecognized error code");
  EXPECT_STREQ(cudaGetErrorName(cudaError_t(-5)), "unrecognized error code");
}

cudaError_t mallocWith(FakeState &F, CUresult R) {
  F.AllocResult = R;
  void *P = nullptr;
  cudaError_t E = cudaMalloc(&P, 64);
  F.AllocResult = CUDA_SUCCESS;
  cudaGetLastError();
  return E;
}

TEST(CudartErrors, DriverResultsMapToRuntimeErrors) {
  FakeState &F = fake();
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_OUT_OF_MEMORY), cudaErrorMemoryAllocation);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_INVALID_VALUE), cudaErrorInvalidValue);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_INVALID_HANDLE), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_NO_BINARY_FOR_GPU), cudaErrorNoKernelImageForDevice);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_INVALID_CONTEXT), cudaErrorDeviceUninitialized);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_NOT_FOUND), cudaErrorSymbolNotFound);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_NOT_SUPPORTED), cudaErrorNotSupported);
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_UNKNOWN), cudaErrorUnknown);
  // Driver codes with no runtime counterpart become cudaErrorUnknown.
  EXPECT_EQ(mallocWith(F, CUDA_ERROR_CONTEXT_ALREADY_CURRENT), cudaErrorUnknown);
  EXPECT_EQ(mallocWith(F, CUresult(12345)), cudaErrorUnknown);
}

TEST(CudartErrors, LastErrorIsPerThreadAndClearedByGet) {
  FakeState &F = fake();
  F.AllocResult = CUDA_ERROR_OUT_OF_MEMORY;
  void *P = nullptr;
  EXPECT_EQ(cudaMalloc(&P, 64), cudaErrorMemoryAllocation);
  F.AllocResult = CUDA_SUCCESS;
  // A later success does not overwrite the last error.
  EXPECT_EQ(cudaMalloc(&P, 64), cudaSuccess);
  cudaError_t Other = cudaErrorUnknown;
  std::thread([&] { Other = cudaPeekAtLastError(); }).join();
  EXPECT_EQ(Other, cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Bad arguments are recorded too.
  EXPECT_EQ(cudaMemcpy(P, P, 4, cudaMemcpyKind(9)), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  cudaFree(P);
}

TEST(CudartErrors, KernelFaultsAreStickyUntilReset) {
  FakeState &F = fake();
  F.SyncResult = CUDA_ERROR_ILLEGAL_ADDRESS;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  void *P = nullptr;
  EXPECT_EQ(cudaMalloc(&P, 16), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(F.count("cuDevicePrimaryCtxReset"), 1u);
  EXPECT_EQ(cudaMalloc(&P, 16), cudaSuccess);
  cudaFree(P);
}

TEST(CudartDevice, DevicesContextsAndProperties) {
  FakeState &F = fake();
  int N = 0;
  EXPECT_EQ(cudaGetDeviceCount(&N), cudaSuccess);
  EXPECT_EQ(N, 2);
  int Dev = -1;
  EXPECT_EQ(cudaGetDevice(&Dev), cudaSuccess);
  EXPECT_EQ(Dev, 0);
  // No context until a call needs one.
  EXPECT_EQ(F.count("cuDevicePrimaryCtxRetain"), 0u);
  EXPECT_EQ(cudaSetDevice(2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaGetDevice(&Dev), cudaSuccess);
  EXPECT_EQ(Dev, 1);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  // cudaSetDevice made device 1's primary context current on this thread;
  // another thread still starts on device 0.
  int OtherDev = -1;
  std::thread([&] {
    cudaFree(nullptr);
    cudaGetDevice(&OtherDev);
  }).join();
  EXPECT_EQ(OtherDev, 0);
  EXPECT_EQ(F.count("cuDevicePrimaryCtxRetain"), 2u); // once per device, not per thread

  cudaDeviceProp Prop;
  EXPECT_EQ(cudaGetDeviceProperties(&Prop, 1), cudaSuccess);
  EXPECT_STREQ(Prop.name, "Fake Device 1");
  EXPECT_EQ(Prop.warpSize, 32);
  EXPECT_EQ(Prop.multiProcessorCount, 1000 + CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(Prop.major, 1000 + CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(Prop.pciDomainID, 1000 + CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  EXPECT_EQ(Prop.totalGlobalMem, size_t(1) << 30);
  EXPECT_EQ(static_cast<unsigned char>(Prop.uuid.bytes[0]), 0xA1);
  EXPECT_EQ(cudaGetDeviceProperties(&Prop, 7), cudaErrorInvalidDevice);
  int V = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&V, cudaDevAttrMaxThreadsPerBlock, 0), cudaSuccess);
  EXPECT_EQ(V, int(cudaDevAttrMaxThreadsPerBlock));
}

// The registration ABI, driven the way nvcc's host code drives it.
struct FatbinWrapper {
  uint32_t Magic;
  uint32_t Version;
  const void *Data;
  const void *Extra;
};
const unsigned char FakeContainer[16] = {0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0};
FatbinWrapper Wrapper = {0x466243B1, 1, FakeContainer, nullptr};
void hostStub() {}
void otherStub() {}
char Shadow[16];

TEST(CudartRegistry, LazyLoadKernelsAndLaunch) {
  FakeState &F = fake();
  void **H = __cudaRegisterFatBinary(&Wrapper);
  ASSERT_NE(H, nullptr);
  __cudaRegisterFunction(H, reinterpret_cast<const char *>(&hostStub), nullptr, "_Z3fooPi", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFunction(H, reinterpret_cast<const char *>(&otherStub), nullptr, "bar", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(H);
  // Registration does not touch the driver.
  EXPECT_EQ(F.count("cuLibraryLoadData"), 0u);

  int Arg = 5;
  void *Args[] = {&Arg};
  cudaStream_t S = reinterpret_cast<cudaStream_t>(0x77);
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&hostStub), dim3(2, 3), dim3(32),
                             Args, 128, S),
            cudaSuccess);
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&hostStub), dim3(1), dim3(1), Args,
                             0, nullptr),
            cudaSuccess);
  EXPECT_EQ(F.count("cuLibraryLoadData"), 1u);
  EXPECT_EQ(F.count("cuLibraryGetKernel:_Z3fooPi"), 1u);
  ASSERT_EQ(F.LoadedImages.size(), 1u);
  EXPECT_EQ(F.LoadedImages[0], &Wrapper);
  ASSERT_EQ(F.Launches.size(), 2u);
  const FakeLaunch &L = F.Launches[0];
  EXPECT_EQ(L.F, reinterpret_cast<CUfunction>(fakeKernel(1))); // the CUkernel itself
  EXPECT_EQ(L.Grid[0], 2u);
  EXPECT_EQ(L.Grid[1], 3u);
  EXPECT_EQ(L.Grid[2], 1u);
  EXPECT_EQ(L.Block[0], 32u);
  EXPECT_EQ(L.SharedMem, 128u);
  EXPECT_EQ(L.Stream, S);
  EXPECT_EQ(L.Args, Args);

  // The <<<>>> path: __cudaGetKernel gives the same CUkernel.
  cudaKernel_t K = nullptr;
  EXPECT_EQ(__cudaGetKernel(&K, reinterpret_cast<const void *>(&hostStub)), cudaSuccess);
  EXPECT_EQ(K, fakeKernel(1));
  EXPECT_EQ(__cudaLaunchKernel(K, dim3(4), dim3(8), Args, 0, nullptr), cudaSuccess);
  EXPECT_EQ(F.Launches.size(), 3u);

  // A kernel the image lacks, an unregistered address, a bad configuration.
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&otherStub), dim3(1), dim3(1), Args,
                             0, nullptr),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&Arg), dim3(1), dim3(1), Args, 0,
                             nullptr),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&hostStub), dim3(0), dim3(1), Args,
                             0, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(F.Launches.size(), 3u);

  const char *Name = nullptr;
  EXPECT_EQ(cudaFuncGetName(&Name, reinterpret_cast<const void *>(&hostStub)), cudaSuccess);
  EXPECT_STREQ(Name, "_Z3fooPi");

  __cudaUnregisterFatBinary(H);
  EXPECT_EQ(F.count("cuLibraryUnload"), 1u);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&hostStub), dim3(1), dim3(1), Args,
                             0, nullptr),
            cudaErrorInvalidResourceHandle);
}

// nvcc's <<<>>> stub hands the null kernel of a failed __cudaGetKernel to
// __cudaLaunchKernel: the launch reports why the lookup failed (a refused
// image), not a bad handle, and never launches.
TEST(CudartRegistry, LaunchOfARefusedKernelReportsTheRefusal) {
  FakeState &F = fake();
  void **H = __cudaRegisterFatBinary(&Wrapper);
  __cudaRegisterFunction(H, reinterpret_cast<const char *>(&otherStub), nullptr, "refused_kernel", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(H);
  cudaKernel_t K = reinterpret_cast<cudaKernel_t>(0x1);
  EXPECT_EQ(__cudaGetKernel(&K, reinterpret_cast<const void *>(&otherStub)), cudaErrorUnsupportedPtxVersion);
  EXPECT_EQ(K, nullptr);
  int Arg = 0;
  void *Args[] = {&Arg};
  EXPECT_EQ(__cudaLaunchKernel(K, dim3(1), dim3(1), Args, 0, nullptr), cudaErrorUnsupportedPtxVersion);
  EXPECT_EQ(cudaGetLastError(), cudaErrorUnsupportedPtxVersion);
  // The reason is used once: a later null kernel is a bad handle again.
  EXPECT_EQ(__cudaLaunchKernel(nullptr, dim3(1), dim3(1), Args, 0, nullptr), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&otherStub), dim3(1), dim3(1), Args, 0, nullptr),
            cudaErrorUnsupportedPtxVersion);
  EXPECT_EQ(F.Launches.size(), 0u);
  __cudaUnregisterFatBinary(H);
}

TEST(CudartRegistry, VariablesAndSymbols) {
  FakeState &F = fake();
  void **H = __cudaRegisterFatBinary(&Wrapper);
  __cudaRegisterVar(H, Shadow, nullptr, "gvar", 0, sizeof(Shadow), 0, 0);
  __cudaRegisterVar(H, Shadow + 1, nullptr, "missing", 0, 4, 0, 0);
  const unsigned char Data[4] = {1, 2, 3, 4};
  ASSERT_EQ(cudaMemcpyToSymbol(Shadow, Data, 4, 8, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(std::memcmp(F.Global + 8, Data, 4), 0);
  unsigned char Back[4] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(Back, Shadow, 4, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(Back, Data, 4), 0);
  void *Addr = nullptr;
  EXPECT_EQ(cudaGetSymbolAddress(&Addr, Shadow), cudaSuccess);
  EXPECT_EQ(Addr, F.Global);
  size_t Size = 0;
  EXPECT_EQ(cudaGetSymbolSize(&Size, Shadow), cudaSuccess);
  EXPECT_EQ(Size, 16u);
  // Out of bounds, wrong direction, unknown symbols.
  EXPECT_EQ(cudaMemcpyToSymbol(Shadow, Data, 4, 13, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(Shadow, Data, 4, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyToSymbol(Shadow + 1, Data, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyToSymbol(Data, Data, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
  __cudaUnregisterFatBinary(H);
  EXPECT_EQ(cudaMemcpyToSymbol(Shadow, Data, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
}

TEST(CudartRegistry, BadWrapperFailsAtFirstUse) {
  fake();
  static FatbinWrapper Bad = {0x12345678, 1, FakeContainer, nullptr};
  void **H = __cudaRegisterFatBinary(&Bad);
  __cudaRegisterFunction(H, reinterpret_cast<const char *>(&hostStub), nullptr, "_Z3fooPi", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void *>(&hostStub), dim3(1), dim3(1),
                             nullptr, 0, nullptr),
            cudaErrorInvalidKernelImage);
  // Unknown handles are ignored, not dereferenced.
  __cudaRegisterFunction(reinterpret_cast<void **>(&Bad), "x", nullptr, "y", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  __cudaUnregisterFatBinary(reinterpret_cast<void **>(&Bad));
  __cudaUnregisterFatBinary(H);
}

TEST(CudartRegistry, CallConfigurationStack) {
  cudaStream_t S1 = reinterpret_cast<cudaStream_t>(0x10);
  cudaStream_t S2 = reinterpret_cast<cudaStream_t>(0x20);
  EXPECT_EQ(__cudaPushCallConfiguration(dim3(1, 2, 3), dim3(4, 5, 6), 7, S1), 0u);
  EXPECT_EQ(__cudaPushCallConfiguration(dim3(8), dim3(9), 10, S2), 0u);
  dim3 G, B;
  size_t Shm = 0;
  cudaStream_t S = nullptr;
  ASSERT_EQ(__cudaPopCallConfiguration(&G, &B, &Shm, &S), cudaSuccess);
  EXPECT_EQ(G.x, 8u);
  EXPECT_EQ(Shm, 10u);
  EXPECT_EQ(S, S2);
  ASSERT_EQ(__cudaPopCallConfiguration(&G, &B, &Shm, &S), cudaSuccess);
  EXPECT_EQ(G.y, 2u);
  EXPECT_EQ(B.z, 6u);
  EXPECT_EQ(S, S1);
  EXPECT_EQ(__cudaPopCallConfiguration(&G, &B, &Shm, &S), cudaErrorMissingConfiguration);
}

TEST(CudartMemory, PerThreadEntryPointsUseThePerThreadDriverForms) {
  FakeState &F = fake();
  void *D = nullptr;
  ASSERT_EQ(cudaMalloc(&D, 8), cudaSuccess);
  int V = 42;
  EXPECT_EQ(cudaMemcpy(D, &V, 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(F.count("cuMemcpyHtoD"), 1u);
  EXPECT_EQ(F.count("cuMemcpyHtoD_ptds"), 0u);
  EXPECT_EQ(cudaMemcpy_ptds(D, &V, 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(F.count("cuMemcpyHtoD_ptds"), 1u);
  int Back = 0;
  EXPECT_EQ(cudaMemcpy(&Back, D, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(Back, 42);
  // Zero-size requests succeed without reaching the driver.
  void *Z = reinterpret_cast<void *>(1);
  EXPECT_EQ(cudaMalloc(&Z, 0), cudaSuccess);
  EXPECT_EQ(Z, nullptr);
  EXPECT_EQ(F.count("cuMemAlloc"), 1u);
  EXPECT_EQ(cudaMalloc(nullptr, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(D), cudaSuccess);
}

} // namespace
