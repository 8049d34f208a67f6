/// \file
/// Tests through libcuda.so.1's C ABI (the test links the shared library):
/// cuGetProcAddress against the requests NVIDIA's cudart 13 was observed
/// to make, version/per-thread resolution, error strings, handle
/// validation, attributes, memory, and the export tables.
#include "ferry/LibsExport.h"
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <regex>

namespace {

void *self(const char *Sym) { return dlsym(RTLD_DEFAULT, Sym); }

void *proc(const char *Name, int Version, uint64_t Flags = 0, CUresult *R = nullptr,
           CUdriverProcAddressQueryResult *St = nullptr) {
  void *Fn = nullptr;
  CUdriverProcAddressQueryResult S;
  CUresult Res = cuGetProcAddress_v2(Name, &Fn, Version, Flags, &S);
  if (R)
    *R = Res;
  if (St)
    *St = S;
  return Fn;
}

class Api : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS); }
  CUcontext Ctx = nullptr;
};

TEST(ProcAddress, EveryObservedCudartRequestResolvesOrIsKnownAbsent) {
  std::ifstream In(FERRY_SOURCE_DIR "/tests/libcuda/cudart13-getprocaddress.txt");
  ASSERT_TRUE(In) << "missing request list";
  std::regex Row("\"([A-Za-z0-9_]*)\", ver=([0-9]+), flags=([0-9]+)");
  std::string Line;
  int Rows = 0, Found = 0;
  while (std::getline(In, Line)) {
    std::smatch M;
    if (!std::regex_search(Line, M, Row))
      continue;
    ++Rows;
    CUresult R;
    CUdriverProcAddressQueryResult St;
    void *Fn = proc(M[1].str().c_str(), std::stoi(M[2]), std::stoull(M[3]), &R, &St);
    if (R == CUDA_SUCCESS) {
      ++Found;
      EXPECT_NE(Fn, nullptr) << M[1];
      EXPECT_EQ(St, CU_GET_PROC_ADDRESS_SUCCESS);
    } else {
      EXPECT_EQ(R, CUDA_ERROR_NOT_FOUND) << M[1];
      EXPECT_EQ(Fn, nullptr);
    }
  }
  EXPECT_GT(Rows, 400);
  // Only the probe "" and OpenGL/EGL/VDPAU interop (absent from the
  // exported table of a Linux libcuda without graphics) may be missing.
  EXPECT_GT(Found, Rows - 40);
}

TEST(ProcAddress, VersionsPickNvidiasBreakpoints) {
  EXPECT_EQ(proc("cuMemAlloc", 3020), self("cuMemAlloc_v2"));
  EXPECT_EQ(proc("cuMemAlloc", 2000), self("cuMemAlloc"));
  EXPECT_EQ(proc("cuCtxGetDevice", 13000), self("cuCtxGetDevice_v2"));
  EXPECT_EQ(proc("cuCtxGetDevice", 2000), self("cuCtxGetDevice"));
  EXPECT_EQ(proc("cuCtxSynchronize", 13000), self("cuCtxSynchronize_v2"));
  EXPECT_EQ(proc("cuEventElapsedTime", 12080), self("cuEventElapsedTime_v2"));
  EXPECT_EQ(proc("cuDeviceGetUuid", 9020), self("cuDeviceGetUuid"));
  EXPECT_EQ(proc("cuDevicePrimaryCtxRelease", 7000), self("cuDevicePrimaryCtxRelease"));
  EXPECT_EQ(proc("cuDevicePrimaryCtxRelease", 11000), self("cuDevicePrimaryCtxRelease_v2"));
  EXPECT_EQ(proc("cuMemcpyHtoD", 3020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
            self("cuMemcpyHtoD_v2_ptds"));
  EXPECT_EQ(proc("cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
            self("cuLaunchKernel_ptsz"));
  EXPECT_EQ(proc("cuLaunchKernel", 7000, 0), self("cuLaunchKernel"));
  EXPECT_EQ(proc("cuInit", 2000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM), self("cuInit"));
  CUresult R;
  CUdriverProcAddressQueryResult St;
  EXPECT_EQ(proc("cuLibraryLoadData", 11000, 0, &R, &St), nullptr);
  EXPECT_EQ(R, CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(St, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  EXPECT_EQ(proc("cuNoSuchThing", 13000, 0, &R, &St), nullptr);
  EXPECT_EQ(St, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}

TEST(Basics, VersionAndErrorStrings) {
  int V = 0;
  ASSERT_EQ(cuDriverGetVersion(&V), CUDA_SUCCESS);
  EXPECT_GE(V, 13000);
  const char *S = nullptr;
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &S), CUDA_SUCCESS);
  EXPECT_STREQ(S, "CUDA_ERROR_INVALID_HANDLE");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &S), CUDA_SUCCESS);
  EXPECT_STREQ(S, "out of memory");
  EXPECT_EQ(cuGetErrorName(CUresult(12345), &S), CUDA_ERROR_INVALID_VALUE);
}

// Tensor maps: NVIDIA's documented argument rules, ferry's encoding (the
// header word starts with "FTM1"), the address replaced in place.
TEST(TensorMap, EncodeTiledChecksArgumentsAndReplacesAddress) {
  alignas(64) static float Data[64 * 32];
  CUtensorMap M;
  cuuint64_t Dims[2] = {64, 32}, Strides[1] = {256};
  cuuint32_t Box[2] = {32, 8}, ES[2] = {1, 1};
  auto Encode = [&](void *Addr, CUtensorMapSwizzle Sw, cuuint32_t *B) {
    return cuTensorMapEncodeTiled(&M, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, Addr, Dims, Strides, B, ES,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, Sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  ASSERT_EQ(Encode(Data, CU_TENSOR_MAP_SWIZZLE_128B, Box), CUDA_SUCCESS);
  EXPECT_EQ(uint32_t(M.opaque[0]), 0x314D5446u);
  EXPECT_EQ(M.opaque[1], reinterpret_cast<uintptr_t>(Data));
  EXPECT_EQ(Encode(reinterpret_cast<char *>(Data) + 4, CU_TENSOR_MAP_SWIZZLE_NONE, Box), CUDA_ERROR_INVALID_VALUE);
  cuuint32_t Wide[2] = {64, 8}; // 256 bytes: wider than the 128B swizzle span
  EXPECT_EQ(Encode(Data, CU_TENSOR_MAP_SWIZZLE_128B, Wide), CUDA_ERROR_INVALID_VALUE);
  cuuint32_t Big[2] = {300, 8};
  EXPECT_EQ(Encode(Data, CU_TENSOR_MAP_SWIZZLE_NONE, Big), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(Encode(Data, CU_TENSOR_MAP_SWIZZLE_NONE, Box), CUDA_SUCCESS);
  ASSERT_EQ(cuTensorMapReplaceAddress(&M, Data + 64), CUDA_SUCCESS);
  EXPECT_EQ(M.opaque[1], reinterpret_cast<uintptr_t>(Data + 64));
  CUtensorMap Junk = {};
  EXPECT_EQ(cuTensorMapReplaceAddress(&Junk, Data), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Api, GarbageHandlesGiveInvalidHandle) {
  int Junk[16] = {};
  EXPECT_EQ(cuStreamSynchronize(reinterpret_cast<CUstream>(Junk)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventQuery(reinterpret_cast<CUevent>(0xdeadbeef)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuCtxPushCurrent_v2(reinterpret_cast<CUcontext>(Junk)), CUDA_ERROR_INVALID_CONTEXT);
  CUevent E;
  ASSERT_EQ(cuEventCreate(&E, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(reinterpret_cast<CUstream>(E)), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(E), CUDA_ERROR_INVALID_HANDLE) << "stale handle";
}

TEST_F(Api, DeviceAttributes) {
  int V = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 32);
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1024);
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1);
  for (int A = 1; A < CU_DEVICE_ATTRIBUTE_MAX; ++A)
    EXPECT_EQ(cuDeviceGetAttribute(&V, CUdevice_attribute(A), 0), CUDA_SUCCESS) << "attribute " << A;
  EXPECT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&V, CUdevice_attribute(0), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7), CUDA_ERROR_INVALID_DEVICE);
  CUuuid A, B;
  ASSERT_EQ(cuDeviceGetUuid(&A, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetUuid_v2(&B, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(A.bytes, B.bytes, 16), 0);
  char Bus[32];
  ASSERT_EQ(cuDeviceGetPCIBusId(Bus, sizeof(Bus), 0), CUDA_SUCCESS);
  CUdevice D = -1;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&D, Bus), CUDA_SUCCESS);
  EXPECT_EQ(D, 0);
}

TEST_F(Api, MemoryRangesAndPointerAttributes) {
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAlloc_v2(&P, 4096), CUDA_SUCCESS);
  CUdeviceptr Base = 0;
  size_t Size = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, P + 100), CUDA_SUCCESS);
  EXPECT_EQ(Base, P);
  EXPECT_EQ(Size, 4096u);
  unsigned Type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, P + 8), CUDA_SUCCESS);
  EXPECT_EQ(Type, unsigned(CU_MEMORYTYPE_DEVICE));
  int Local;
  EXPECT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CUdeviceptr(&Local)),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemsetD32_v2(P, 0xA5A5A5A5u, 1024), CUDA_SUCCESS);
  std::vector<uint32_t> H(1024);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), P, 4096), CUDA_SUCCESS);
  EXPECT_EQ(H[0], 0xA5A5A5A5u);
  EXPECT_EQ(H[1023], 0xA5A5A5A5u);
  EXPECT_EQ(cuMemFree_v2(P + 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAddressRange_v2(&Base, &Size, P), CUDA_ERROR_NOT_FOUND);
}

// As on the H100: page-locked and registered host memory have an address
// range (Numba's mapped arrays rely on it); a stack address has none.
TEST_F(Api, HostMemoryAddressRange) {
  for (unsigned Flags : {0u, unsigned(CU_MEMHOSTALLOC_DEVICEMAP), unsigned(CU_MEMHOSTALLOC_PORTABLE)}) {
    void *P = nullptr;
    ASSERT_EQ(cuMemHostAlloc(&P, 4000, Flags), CUDA_SUCCESS);
    CUdeviceptr Base = 0;
    size_t Size = 0;
    ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, CUdeviceptr(P) + 8), CUDA_SUCCESS) << Flags;
    EXPECT_EQ(Base, CUdeviceptr(P));
    EXPECT_EQ(Size, 4000u);
    ASSERT_EQ(cuMemFreeHost(P), CUDA_SUCCESS);
  }
  std::vector<char> Buf(8192);
  ASSERT_EQ(cuMemHostRegister_v2(Buf.data(), Buf.size(), CU_MEMHOSTREGISTER_DEVICEMAP), CUDA_SUCCESS);
  CUdeviceptr Base = 0;
  size_t Size = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, CUdeviceptr(Buf.data()) + 8), CUDA_SUCCESS);
  EXPECT_EQ(Base, CUdeviceptr(Buf.data()));
  EXPECT_EQ(Size, 8192u);
  ASSERT_EQ(cuMemHostUnregister(Buf.data()), CUDA_SUCCESS);
  int Local = 0;
  EXPECT_EQ(cuMemGetAddressRange_v2(&Base, &Size, CUdeviceptr(&Local)), CUDA_ERROR_NOT_FOUND);
}

TEST_F(Api, Memcpy2DUnalignedRectangle) {
  CUdeviceptr D;
  size_t Pitch;
  ASSERT_EQ(cuMemAllocPitch_v2(&D, &Pitch, 13, 5, 4), CUDA_SUCCESS);
  EXPECT_GE(Pitch, 13u);
  std::vector<uint8_t> Src(7 * 20), Dst(9 * 30, 0);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = uint8_t(I);
  CUDA_MEMCPY2D C{};
  C.srcMemoryType = CU_MEMORYTYPE_HOST;
  C.srcHost = Src.data();
  C.srcPitch = 20;
  C.srcXInBytes = 3;
  C.srcY = 1;
  C.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  C.dstDevice = D;
  C.dstPitch = Pitch;
  C.WidthInBytes = 13;
  C.Height = 5;
  ASSERT_EQ(cuMemcpy2DUnaligned_v2(&C), CUDA_SUCCESS);
  CUDA_MEMCPY2D Back{};
  Back.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  Back.srcDevice = D;
  Back.srcPitch = Pitch;
  Back.dstMemoryType = CU_MEMORYTYPE_HOST;
  Back.dstHost = Dst.data();
  Back.dstPitch = 30;
  Back.dstXInBytes = 2;
  Back.WidthInBytes = 13;
  Back.Height = 5;
  ASSERT_EQ(cuMemcpy2D_v2(&Back), CUDA_SUCCESS);
  for (size_t Y = 0; Y < 5; ++Y)
    for (size_t X = 0; X < 13; ++X)
      ASSERT_EQ(Dst[Y * 30 + 2 + X], Src[(Y + 1) * 20 + 3 + X]) << X << "," << Y;
  EXPECT_EQ(Dst[0], 0);
  ASSERT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

TEST_F(Api, ContextStackAndLimits) {
  CUcontext Mine, Got;
  ASSERT_EQ(cuCtxCreate_v2(&Mine, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&Got), CUDA_SUCCESS);
  EXPECT_EQ(Got, Mine);
  size_t Stack = 0;
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&Stack, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(Stack, 4096u);
  EXPECT_EQ(cuCtxGetLimit(&Stack, CUlimit(99)), CUDA_ERROR_INVALID_VALUE); // As the H100 answers.
  CUdevice D = -1;
  ASSERT_EQ(cuCtxGetDevice_v2(&D, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(D, 0);
  ASSERT_EQ(cuCtxPopCurrent_v2(&Got), CUDA_SUCCESS);
  EXPECT_EQ(Got, Mine);
  ASSERT_EQ(cuCtxGetCurrent(&Got), CUDA_SUCCESS);
  EXPECT_EQ(Got, Ctx);
  ASSERT_EQ(cuCtxDestroy_v2(Mine), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy_v2(Mine), CUDA_ERROR_INVALID_CONTEXT);
  unsigned long long Id1 = 0, Id2 = 0;
  ASSERT_EQ(cuCtxGetId(Ctx, &Id1), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(nullptr, &Id2), CUDA_SUCCESS);
  EXPECT_EQ(Id1, Id2);
}

static void hostFn(void *P) { ++*static_cast<int *>(P); }

TEST_F(Api, StreamsEventsAndCallbacks) {
  CUstream S;
  ASSERT_EQ(cuStreamCreateWithPriority(&S, CU_STREAM_NON_BLOCKING, -3), CUDA_SUCCESS);
  int Prio = 0;
  unsigned Flags = 0;
  ASSERT_EQ(cuStreamGetPriority(S, &Prio), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamGetFlags(S, &Flags), CUDA_SUCCESS);
  EXPECT_EQ(Prio, -3);
  EXPECT_EQ(Flags, unsigned(CU_STREAM_NON_BLOCKING));
  int Count = 0;
  for (int I = 0; I < 10; ++I)
    ASSERT_EQ(cuLaunchHostFunc(S, hostFn, &Count), CUDA_SUCCESS);
  CUevent E;
  ASSERT_EQ(cuEventCreate(&E, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(E, S), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(E), CUDA_SUCCESS);
  EXPECT_EQ(Count, 10);
  EXPECT_EQ(cuEventQuery(E), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(S), CUDA_SUCCESS);
  CUevent NoTiming;
  ASSERT_EQ(cuEventCreate(&NoTiming, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(NoTiming, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  float Ms;
  EXPECT_EQ(cuEventElapsedTime_v2(&Ms, E, NoTiming), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(S), CUDA_ERROR_INVALID_HANDLE);
  cuEventDestroy_v2(E);
  cuEventDestroy_v2(NoTiming);
}

TEST_F(Api, ExportTables) {
  const void *T = nullptr;
  CUuuid Integrity = {{char(0xD4), 0x08, 0x20, 0x55, char(0xBD), char(0xE6), 0x70, 0x4B, char(0x8D), 0x34,
                       char(0xBA), 0x12, 0x3C, 0x66, char(0xE1), char(0xF2)}};
  ASSERT_EQ(cuGetExportTable(&T, &Integrity), CUDA_SUCCESS);
  auto Check = reinterpret_cast<CUresult (*)(uint32_t, uint64_t, uint8_t *)>(static_cast<void *const *>(T)[1]);
  uint8_t Out[16];
  ASSERT_EQ(Check(13000, 1700000000, Out), CUDA_SUCCESS);
  const uint8_t Want[16] = {0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                            0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e};
  EXPECT_EQ(std::memcmp(Out, Want, 16), 0);
  CUuuid Cls = {{char(0xC6), char(0x93), 0x33, 0x6E, 0x11, 0x21, char(0xDF), 0x11, char(0xA8), char(0xC3),
                 0x68, char(0xF3), 0x55, char(0xD8), char(0x95), char(0x93)}};
  ASSERT_EQ(cuGetExportTable(&T, &Cls), CUDA_SUCCESS);
  auto Slots = static_cast<void *const *>(T);
  auto Insert = reinterpret_cast<CUresult (*)(CUcontext, void *, void *, void (*)(CUcontext, void *, void *))>(Slots[0]);
  auto Remove = reinterpret_cast<CUresult (*)(CUcontext, void *)>(Slots[1]);
  auto Get = reinterpret_cast<CUresult (*)(void **, CUcontext, void *)>(Slots[2]);
  int Key, Value;
  void *Out2 = nullptr;
  EXPECT_NE(Get(&Out2, nullptr, &Key), CUDA_SUCCESS);
  ASSERT_EQ(Insert(nullptr, &Key, &Value, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(Get(&Out2, Ctx, &Key), CUDA_SUCCESS);
  EXPECT_EQ(Out2, &Value);
  ASSERT_EQ(Remove(Ctx, &Key), CUDA_SUCCESS);
  EXPECT_NE(Get(&Out2, nullptr, &Key), CUDA_SUCCESS);
  CUuuid Bogus = {};
  EXPECT_NE(cuGetExportTable(&T, &Bogus), CUDA_SUCCESS);
}

// ferry's libraries' table: on an idle stream the work runs on the calling
// thread, and work another thread enqueues meanwhile waits for it; a busy
// or capturing stream gets the usual stream-ordered host function.
namespace {
struct InlineProbe {
  std::thread::id Ran;
  std::atomic<int> Order{0};
  int Seen = -1; ///< Order when this function ran.
  std::atomic<bool> Started{false};
  int HoldMs = 0;
  std::atomic<int> *Shared = nullptr; ///< Order counter shared with another probe.
};
void inlineWork(void *P) {
  auto *I = static_cast<InlineProbe *>(P);
  I->Ran = std::this_thread::get_id();
  I->Started = true;
  if (I->HoldMs)
    std::this_thread::sleep_for(std::chrono::milliseconds(I->HoldMs));
  I->Seen = (I->Shared ? *I->Shared : I->Order).fetch_add(1);
}
void gate(void *P) {
  auto *Open = static_cast<std::atomic<bool> *>(P);
  while (!Open->load())
    std::this_thread::yield();
}
} // namespace

TEST_F(Api, LibsTableSaysWhetherTheHostReachesDeviceMemory) {
  const void *T = nullptr;
  ASSERT_EQ(cuGetExportTable(&T, &ferry::FerryLibsTableId), CUDA_SUCCESS);
  auto *L = static_cast<const ferry::FerryLibsTable *>(T);
  ASSERT_TRUE(ferry::hasLibsSlot(L, offsetof(ferry::FerryLibsTable, DeviceMemoryHostAccess)));
  int Yes = -1;
  ASSERT_EQ(L->DeviceMemoryHostAccess(0, &Yes), CUDA_SUCCESS);
  EXPECT_EQ(Yes, 1); // The host backend's device memory is host memory.
  EXPECT_EQ(L->DeviceMemoryHostAccess(4096, &Yes), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(L->DeviceMemoryHostAccess(0, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Api, LibsTableRunsIdleStreamWorkInline) {
  const void *T = nullptr;
  ASSERT_EQ(cuGetExportTable(&T, &ferry::FerryLibsTableId), CUDA_SUCCESS);
  auto *L = static_cast<const ferry::FerryLibsTable *>(T);
  ASSERT_GE(L->Bytes, sizeof(ferry::FerryLibsTable));
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);

  // Idle: inline, on this thread, done on return.
  InlineProbe A;
  int Ran = -1;
  ASSERT_EQ(L->LaunchHostFuncInline(S, inlineWork, &A, &Ran), CUDA_SUCCESS);
  EXPECT_EQ(Ran, 1);
  EXPECT_EQ(A.Ran, std::this_thread::get_id());
  EXPECT_EQ(A.Seen, 0);

  // Busy (a gate holds the stream): queued, runs on the stream's thread
  // after the gate, in order with a host function enqueued after it.
  std::atomic<bool> Open{false};
  ASSERT_EQ(cuLaunchHostFunc(S, gate, &Open), CUDA_SUCCESS);
  InlineProbe B;
  ASSERT_EQ(L->LaunchHostFuncInline(S, inlineWork, &B, &Ran), CUDA_SUCCESS);
  EXPECT_EQ(Ran, 0);
  EXPECT_FALSE(B.Started.load());
  Open = true;
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(B.Seen, 0);
  EXPECT_NE(B.Ran, std::this_thread::get_id());

  // While inline work runs, the stream is busy: a host function another
  // thread enqueues waits for it, and a query says NOT_READY.
  std::atomic<int> Order{0};
  InlineProbe C, Queued;
  C.HoldMs = 100;
  C.Shared = Queued.Shared = &Order;
  std::thread Other([&] {
    while (!C.Started.load())
      std::this_thread::yield();
    EXPECT_EQ(cuStreamQuery(S), CUDA_ERROR_NOT_READY);
    ASSERT_EQ(cuLaunchHostFunc(S, inlineWork, &Queued), CUDA_SUCCESS);
  });
  ASSERT_EQ(L->LaunchHostFuncInline(S, inlineWork, &C, &Ran), CUDA_SUCCESS);
  EXPECT_EQ(Ran, 1);
  Other.join();
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(C.Seen, 0); // the inline run first, then the queued one
  EXPECT_EQ(Queued.Seen, 1);

  // Capturing: recorded as a node, not run.
  InlineProbe D;
  CUgraph G = nullptr;
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(L->LaunchHostFuncInline(S, inlineWork, &D, &Ran), CUDA_SUCCESS);
  EXPECT_EQ(Ran, 0);
  ASSERT_EQ(cuStreamEndCapture(S, &G), CUDA_SUCCESS);
  EXPECT_EQ(D.Seen, -1);
  size_t Nodes = 0;
  ASSERT_EQ(cuGraphGetNodes(G, nullptr, &Nodes), CUDA_SUCCESS);
  EXPECT_EQ(Nodes, 1u);
  cuGraphDestroy(G);
  EXPECT_EQ(L->LaunchHostFuncInline(S, nullptr, &D, &Ran), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
}

// A PTX module loaded with cuModuleLoadData: a kernel launched with
// kernelParams and with an `extra` buffer, a module global with an
// initialiser read back and updated, and the launch checks.
static const char *AxpyPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.const .align 4 .b8 Bias[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.global .align 4 .u32 Launches;
.visible .entry axpy(.param .u64 y, .param .u64 x, .param .f32 a, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  ld.param.f32 %f1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  ld.const.u32 %r6, [Bias+4];
  cvt.rn.f32.u32 %f2, %r6;
  add.f32 %f3, %f3, %f2;
  st.global.f32 [%rd5], %f3;
  setp.ne.u32 %p, %r5, 0;
  @%p bra DONE;
  atom.global.add.u32 %r7, [Launches], 1;
DONE:
  ret;
}
)";

TEST_F(Api, ModuleLaunchWithParamsExtraAndGlobals) {
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, AxpyPtx), CUDA_SUCCESS);
  CUfunction F = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "axpy"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&F, M, "nope"), CUDA_ERROR_NOT_FOUND);
  const unsigned N = 1000;
  std::vector<float> X(N), Y(N);
  for (unsigned I = 0; I < N; ++I) {
    X[I] = float(I);
    Y[I] = float(I % 5);
  }
  CUdeviceptr DX, DY;
  ASSERT_EQ(cuMemAlloc_v2(&DX, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&DY, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DX, X.data(), N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DY, Y.data(), N * 4), CUDA_SUCCESS);
  float A = 3.0f;
  unsigned Count = N;
  void *Params[] = {&DY, &DX, &A, &Count};
  ASSERT_EQ(cuLaunchKernel(F, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  // The same launch through an argument buffer laid out as CUDA packs it.
  struct {
    CUdeviceptr Y, X;
    float A;
    unsigned N;
  } Buf{DY, DX, A, N};
  size_t Size = sizeof Buf;
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &Buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &Size, CU_LAUNCH_PARAM_END};
  ASSERT_EQ(cuLaunchKernel(F, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, Extra), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<float> Out(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), DY, N * 4), CUDA_SUCCESS);
  int Bad = 0;
  for (unsigned I = 0; I < N; ++I)
    Bad += Out[I] != float(I % 5) + 2 * (3.0f * float(I) + 2.0f);
  EXPECT_EQ(Bad, 0);

  CUdeviceptr G = 0;
  size_t GBytes = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&G, &GBytes, M, "Launches"), CUDA_SUCCESS);
  EXPECT_EQ(GBytes, 4u);
  unsigned Launches = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Launches, G, 4), CUDA_SUCCESS);
  EXPECT_EQ(Launches, 2u);
  ASSERT_EQ(cuModuleGetGlobal_v2(&G, &GBytes, M, "Bias"), CUDA_SUCCESS);
  EXPECT_EQ(GBytes, 8u);
  unsigned Bias[2] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(Bias, G, 8), CUDA_SUCCESS);
  EXPECT_EQ(Bias[0], 1u);
  EXPECT_EQ(Bias[1], 2u);
  EXPECT_EQ(cuModuleGetGlobal_v2(&G, &GBytes, M, "Missing"), CUDA_ERROR_NOT_FOUND);

  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 2048, 1, 1, 0, nullptr, Params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(F, 1, 70000, 1, 32, 1, 1, 0, nullptr, Params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 1u << 30, nullptr, Params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, nullptr, Params, Extra), CUDA_ERROR_INVALID_VALUE);
  int Ptx = 0;
  ASSERT_EQ(cuFuncGetAttribute(&Ptx, CU_FUNC_ATTRIBUTE_PTX_VERSION, F), CUDA_SUCCESS);
  EXPECT_EQ(Ptx, 75);
  ASSERT_EQ(cuMemFree_v2(DX), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(DY), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&F, M, "axpy"), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Api, MalformedPtxIsRejectedAtLoad) {
  CUmodule M = nullptr;
  const char *Broken = ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() {\n  bogus.op %r1;\n}\n";
  EXPECT_EQ(cuModuleLoadData(&M, Broken), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cuModuleLoadData(&M, "not ptx at all \x01"), CUDA_ERROR_INVALID_IMAGE);
}

TEST_F(Api, ModuleFromFileQueriesAndStreamAttributes) {
  std::string Path = ::testing::TempDir() + "/ferry-axpy.ptx";
  {
    std::ofstream Out(Path);
    Out << AxpyPtx;
  }
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoad(&M, Path.c_str()), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleLoad(&M, "/nonexistent/ferry.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
  unsigned Count = 0;
  ASSERT_EQ(cuModuleGetFunctionCount(&Count, M), CUDA_SUCCESS);
  EXPECT_EQ(Count, 1u);
  CUfunction F = nullptr;
  ASSERT_EQ(cuModuleEnumerateFunctions(&F, 1, M), CUDA_SUCCESS);
  const char *Name = nullptr;
  ASSERT_EQ(cuFuncGetName(&Name, F), CUDA_SUCCESS);
  EXPECT_STREQ(Name, "axpy");
  CUmodule Owner = nullptr;
  ASSERT_EQ(cuFuncGetModule(&Owner, F), CUDA_SUCCESS);
  EXPECT_EQ(Owner, M);
  CUfunctionLoadingState State = CU_FUNCTION_LOADING_STATE_MAX;
  ASSERT_EQ(cuFuncIsLoaded(&State, F), CUDA_SUCCESS);
  EXPECT_EQ(State, CU_FUNCTION_LOADING_STATE_UNLOADED) << "lazy loading compiles nothing at load";
  ASSERT_EQ(cuFuncLoad(F), CUDA_SUCCESS);
  ASSERT_EQ(cuFuncIsLoaded(&State, F), CUDA_SUCCESS);
  EXPECT_EQ(State, CU_FUNCTION_LOADING_STATE_LOADED);
  // axpy(.u64 y, .u64 x, .f32 a, .u32 n): offsets 0, 8, 16, 20.
  size_t Offset = 0, Size = 0;
  ASSERT_EQ(cuFuncGetParamInfo(F, 2, &Offset, &Size), CUDA_SUCCESS);
  EXPECT_EQ(Offset, 16u);
  EXPECT_EQ(Size, 4u);
  ASSERT_EQ(cuFuncGetParamInfo(F, 3, &Offset, &Size), CUDA_SUCCESS);
  EXPECT_EQ(Offset, 20u);
  EXPECT_EQ(cuFuncGetParamInfo(F, 4, &Offset, &Size), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);

  CUstream A, B;
  ASSERT_EQ(cuStreamCreateWithPriority(&A, 0, -1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&B, 0), CUDA_SUCCESS);
  CUstreamAttrValue V{};
  V.accessPolicyWindow.num_bytes = 4096;
  V.accessPolicyWindow.hitRatio = 0.5f;
  ASSERT_EQ(cuStreamSetAttribute(A, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &V), CUDA_SUCCESS);
  CUstreamAttrValue Got{};
  ASSERT_EQ(cuStreamCopyAttributes(B, A), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamGetAttribute(B, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.accessPolicyWindow.num_bytes, 4096u);
  EXPECT_EQ(Got.accessPolicyWindow.hitRatio, 0.5f);
  V.accessPolicyWindow.hitRatio = 2.0f;
  EXPECT_EQ(cuStreamSetAttribute(A, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &V), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamGetAttribute(A, CU_LAUNCH_ATTRIBUTE_PRIORITY, &Got), CUDA_SUCCESS);
  int Prio = 0;
  ASSERT_EQ(cuStreamGetPriority(A, &Prio), CUDA_SUCCESS);
  EXPECT_EQ(Got.priority, Prio);
  EXPECT_EQ(cuStreamSetAttribute(A, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &V), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(A), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(B), CUDA_SUCCESS);
}

} // namespace
