/// \file
/// The stream-ordered allocator and memory pools through libcuda.so.1's C
/// ABI, with a PTX kernel run on the host backend: stream order (allocate,
/// write, free, reuse on the same stream), cross-stream use ordered by
/// events, reuse across streams under each reuse policy (a host function
/// holds one stream back, so a free is known to be pending), the
/// reserved/used counters with the release threshold and trimming, pool
/// lifetime (default, current, destroyed with live allocations), pointer
/// attributes, capture, and the error codes of invalid calls. Expected
/// codes are those NVIDIA's driver returned on an H100 (CUDA 13).
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace {

// p[i] = p[i] * mul + add for i < n.
const char *AffinePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry affine(.param .u64 p, .param .u32 n, .param .u32 mul, .param .u32 add)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [mul];
  ld.param.u32 %r3, [add];
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r4, %r5, %r6;
  setp.ge.u32 %p1, %r7, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r8, [%rd4];
  mad.lo.s32 %r9, %r8, %r2, %r3;
  st.global.u32 [%rd4], %r9;
DONE:
  ret;
}
)";

/// A host function that blocks its stream until the gate opens.
/// Page-locked host ints: an async copy into pageable memory returns only
/// once it is done (CUDA's documented synchronization), so a copy queued
/// behind a closed Gate must land in pinned memory or the test deadlocks,
/// as it would on NVIDIA's driver.
struct PinnedInts {
  int *P = nullptr;
  explicit PinnedInts(size_t N) {
    EXPECT_EQ(cuMemAllocHost_v2(reinterpret_cast<void **>(&P), N * sizeof(int)), CUDA_SUCCESS);
    std::fill(P, P + N, 0);
  }
  ~PinnedInts() { cuMemFreeHost(P); }
  int *data() { return P; }
  int operator[](size_t I) const { return P[I]; }
};

struct Gate {
  std::atomic<bool> Open{false};
  static void wait(void *P) {
    auto *G = static_cast<Gate *>(P);
    while (!G->Open.load())
      std::this_thread::yield();
  }
};

cuuint64_t attr(CUmemoryPool P, CUmemPool_attribute A) {
  cuuint64_t V = ~0ull;
  EXPECT_EQ(cuMemPoolGetAttribute(P, A, &V), CUDA_SUCCESS);
  return V;
}

class MemPoolApi : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoadData(&Mod, AffinePtx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&Fn, Mod, "affine"), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cuStreamDestroy_v2(S1), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S2), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleUnload(Mod), CUDA_SUCCESS);
    EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  }
  CUmemoryPool newPool(size_t MaxSize = 0) {
    CUmemPoolProps P{};
    P.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    P.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    P.maxSize = MaxSize;
    CUmemoryPool Pool = nullptr;
    EXPECT_EQ(cuMemPoolCreate(&Pool, &P), CUDA_SUCCESS);
    return Pool;
  }
  void affine(CUdeviceptr P, unsigned Count, unsigned Mul, unsigned Add, CUstream S) {
    void *Args[] = {&P, &Count, &Mul, &Add};
    ASSERT_EQ(cuLaunchKernel(Fn, (Count + 63) / 64, 1, 1, 64, 1, 1, 0, S, Args, nullptr), CUDA_SUCCESS);
  }
  static constexpr unsigned N = 300;
  CUcontext Ctx = nullptr;
  CUmodule Mod = nullptr;
  CUfunction Fn = nullptr;
  CUstream S1 = nullptr, S2 = nullptr;
};

TEST_F(MemPoolApi, DeviceReportsPoolSupport) {
  int V = -1;
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1);
  // No shareable handle types: pools cannot be exported here.
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 0);

  CUmemoryPool Def = nullptr, Cur = nullptr, Got = nullptr;
  ASSERT_EQ(cuDeviceGetDefaultMemPool(&Def, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetMemPool(&Cur, 0), CUDA_SUCCESS);
  EXPECT_NE(Def, nullptr);
  EXPECT_EQ(Def, Cur);
  CUmemLocation Dev0{CU_MEM_LOCATION_TYPE_DEVICE, 0};
  ASSERT_EQ(cuMemGetDefaultMemPool(&Got, &Dev0, CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_SUCCESS);
  EXPECT_EQ(Got, Def);
  ASSERT_EQ(cuMemGetMemPool(&Got, &Dev0, CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_SUCCESS);
  EXPECT_EQ(Got, Def);
  CUmemLocation Host{CU_MEM_LOCATION_TYPE_HOST, 0};
  EXPECT_EQ(cuMemGetDefaultMemPool(&Got, &Host, CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuDeviceGetDefaultMemPool(&Got, 99), CUDA_ERROR_INVALID_DEVICE);
  // Defaults of a fresh pool, as NVIDIA's: every reuse policy on, threshold 0.
  CUmemoryPool P = newPool();
  for (auto A : {CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
                 CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES}) {
    int R = -1;
    ASSERT_EQ(cuMemPoolGetAttribute(P, A, &R), CUDA_SUCCESS);
    EXPECT_EQ(R, 1);
  }
  EXPECT_EQ(attr(P, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), 0u);
  EXPECT_EQ(attr(P, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  EXPECT_EQ(cuMemPoolDestroy(P), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, StreamOrderAllocWriteFreeReuse) {
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocAsync(&P, N * sizeof(int), S1), CUDA_SUCCESS);
  ASSERT_NE(P, 0u);
  ASSERT_EQ(cuMemsetD32Async(P, 5, N, S1), CUDA_SUCCESS);
  affine(P, N, 3, 1, S1);
  std::vector<int> Out(N, 0);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Out.data(), P, N * sizeof(int), S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  // Freed and reallocated on the same stream: the block comes back.
  CUdeviceptr Q = 0;
  ASSERT_EQ(cuMemAllocAsync(&Q, N * sizeof(int), S1), CUDA_SUCCESS);
  EXPECT_EQ(Q, P);
  ASSERT_EQ(cuMemsetD32Async(Q, 9, N, S1), CUDA_SUCCESS);
  std::vector<int> Out2(N, 0);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Out2.data(), Q, N * sizeof(int), S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(Q, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I) {
    ASSERT_EQ(Out[I], 16) << I;
    ASSERT_EQ(Out2[I], 9) << I;
  }
  // Zero bytes: success and a null pointer, as on NVIDIA.
  CUdeviceptr Z = 1;
  EXPECT_EQ(cuMemAllocAsync(&Z, 0, S1), CUDA_SUCCESS);
  EXPECT_EQ(Z, 0u);
  // The per-thread forms, on the per-thread default stream.
  ASSERT_EQ(cuMemAllocAsync_ptsz(&P, 64, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync_ptsz(P, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, CrossStreamUseOrderedByEvents) {
  CUevent Written, Read;
  ASSERT_EQ(cuEventCreate(&Written, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&Read, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  Gate G;
  CUdeviceptr P = 0;
  ASSERT_EQ(cuLaunchHostFunc(S1, Gate::wait, &G), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocAsync(&P, N * sizeof(int), S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(P, 2, N, S1), CUDA_SUCCESS);
  affine(P, N, 10, 3, S1);
  ASSERT_EQ(cuEventRecord(Written, S1), CUDA_SUCCESS);
  // S2 uses the allocation once ordered after S1's writes, then frees it.
  ASSERT_EQ(cuStreamWaitEvent(S2, Written, 0), CUDA_SUCCESS);
  affine(P, N, 1, 1, S2);
  PinnedInts Out(N);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Out.data(), P, N * sizeof(int), S2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(P, S2), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(S2), CUDA_ERROR_NOT_READY);
  G.Open = true;
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], 24) << I;
  EXPECT_EQ(cuEventDestroy_v2(Written), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy_v2(Read), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, ReuseAcrossStreamsWaitsForThePendingFree) {
  CUmemoryPool Pool = newPool();
  Gate G;
  CUdeviceptr A = 0, B = 0;
  ASSERT_EQ(cuLaunchHostFunc(S1, Gate::wait, &G), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&A, N * sizeof(int), Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(A, 1, N, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(A, S1), CUDA_SUCCESS);
  // The free is pending behind the gate; with internal dependencies
  // allowed (the default) S2 gets the block and waits for S1.
  ASSERT_EQ(cuMemAllocFromPoolAsync(&B, N * sizeof(int), Pool, S2), CUDA_SUCCESS);
  EXPECT_EQ(B, A);
  ASSERT_EQ(cuMemsetD32Async(B, 7, N, S2), CUDA_SUCCESS);
  PinnedInts Out(N);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Out.data(), B, N * sizeof(int), S2), CUDA_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cuStreamQuery(S2), CUDA_ERROR_NOT_READY);
  G.Open = true;
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], 7) << I; // S1's memset ran first.
  ASSERT_EQ(cuMemFreeAsync(B, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);

  // With every cross-stream policy off, a pending free on S1 is not reused
  // by S2, and S2 does not wait for S1.
  int Off = 0;
  for (auto At : {CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
                  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES})
    ASSERT_EQ(cuMemPoolSetAttribute(Pool, At, &Off), CUDA_SUCCESS);
  cuuint64_t Keep = ~0ull;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &Keep), CUDA_SUCCESS);
  Gate G2;
  ASSERT_EQ(cuLaunchHostFunc(S1, Gate::wait, &G2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&A, N * sizeof(int), Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(A, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&B, N * sizeof(int), Pool, S2), CUDA_SUCCESS);
  EXPECT_NE(B, A);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  G2.Open = true;
  ASSERT_EQ(cuMemFreeAsync(B, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  // Completed frees are reused only opportunistically: now allowed.
  int On = 1;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &On), CUDA_SUCCESS);
  CUdeviceptr C = 0;
  ASSERT_EQ(cuMemAllocFromPoolAsync(&C, N * sizeof(int), Pool, S2), CUDA_SUCCESS);
  EXPECT_TRUE(C == A || C == B);
  ASSERT_EQ(cuMemFreeAsync(C, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, SynchronousFreeIsReusedUnderEveryPolicy) {
  // A block freed by cuMemFree has no pending work; with opportunistic
  // reuse off it is still taken through an (already met) internal
  // dependency, and the allocating stream is not held up.
  CUmemoryPool Pool = newPool();
  int Off = 0;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &Off), CUDA_SUCCESS);
  cuuint64_t Keep = ~0ull;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &Keep), CUDA_SUCCESS);
  CUdeviceptr A = 0, B = 0;
  ASSERT_EQ(cuMemAllocFromPoolAsync(&A, 512, Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(A), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&B, 512, Pool, S2), CUDA_SUCCESS);
  EXPECT_EQ(B, A);
  ASSERT_EQ(cuMemsetD8Async(B, 1, 512, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(B, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, CountersThresholdAndTrim) {
  CUmemoryPool Pool = newPool();
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocFromPoolAsync(&P, 1000, Pool, S1), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 1000u);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 1000u);
  EXPECT_GE(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 1000u);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0u);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 1000u);
  EXPECT_GE(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 1000u); // Kept until a sync.
  // Threshold 0: the synchronisation point gives everything back.
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  EXPECT_GE(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 1000u);

  // A high threshold keeps the memory; trimming releases it.
  cuuint64_t Keep = ~0ull;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &Keep), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), ~0ull);
  CUdeviceptr Q = 0, R = 0;
  ASSERT_EQ(cuMemAllocFromPoolAsync(&Q, 1 << 16, Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&R, 1 << 12, Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(Q, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(R, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_GE(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), (1u << 16) + (1u << 12));
  ASSERT_EQ(cuMemPoolTrimTo(Pool, 1 << 13), CUDA_SUCCESS);
  EXPECT_LE(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 1u << 13);
  ASSERT_EQ(cuMemPoolTrimTo(Pool, 0), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);

  // Watermarks reset to the current value; other writes are refused.
  cuuint64_t Zero = 0, Five = 5;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &Zero), CUDA_SUCCESS);
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &Zero), CUDA_SUCCESS);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 0u);
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 0u);
  EXPECT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &Five), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &Zero), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &Zero), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolGetAttribute(Pool, CUmemPool_attribute(99), &Zero), CUDA_ERROR_INVALID_VALUE);
  int Seven = 7, Back = 0;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &Seven), CUDA_SUCCESS);
  ASSERT_EQ(cuMemPoolGetAttribute(Pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &Back), CUDA_SUCCESS);
  EXPECT_EQ(Back, 1);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);

  // maxSize bounds what a pool reserves.
  CUmemoryPool Small = newPool(4096);
  EXPECT_EQ(cuMemAllocFromPoolAsync(&P, 8192, Small, S1), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&P, 4096, Small, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(Small), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, InvalidFrees) {
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocAsync(&P, 1000, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(P + 16, S1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(P, S1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(P, S1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeAsync(CUdeviceptr(0x1234), S1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeAsync(0, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAllocAsync(nullptr, 100, S1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocAsync(&P, 100, reinterpret_cast<CUstream>(0x1234)), CUDA_ERROR_INVALID_HANDLE);

  // NVIDIA frees cuMemAlloc memory in stream order too; pinned host memory
  // is refused, managed memory is not supported.
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemAlloc_v2(&D, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(D, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_ERROR_INVALID_VALUE);
  void *H = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&H, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(CUdeviceptr(uintptr_t(H)), S1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeHost(H), CUDA_SUCCESS);
  CUdeviceptr M = 0;
  ASSERT_EQ(cuMemAllocManaged(&M, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(M, S1), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuMemFree_v2(M), CUDA_SUCCESS);

  // cuMemFree takes pool memory (it synchronises first).
  ASSERT_EQ(cuMemAllocAsync(&P, 1 << 20, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8Async(P, 1, 1 << 20, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(P, S1), CUDA_ERROR_INVALID_VALUE);
  // cuMemFreeHost does not.
  ASSERT_EQ(cuMemAllocAsync(&P, 64, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(reinterpret_cast<void *>(uintptr_t(P))), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, PointerAttributes) {
  CUmemoryPool Pool = newPool(), Def = nullptr;
  ASSERT_EQ(cuDeviceGetDefaultMemPool(&Def, 0), CUDA_SUCCESS);
  CUdeviceptr P = 0, Q = 0, D = 0;
  ASSERT_EQ(cuMemAllocAsync(&P, 1000, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&Q, 1000, Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&D, 1000), CUDA_SUCCESS);
  CUmemoryPool Got = nullptr;
  ASSERT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, P), CUDA_SUCCESS);
  EXPECT_EQ(Got, Def);
  ASSERT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, Q + 10), CUDA_SUCCESS);
  EXPECT_EQ(Got, Pool);
  ASSERT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, D), CUDA_SUCCESS);
  EXPECT_EQ(Got, nullptr);
  CUcontext C = Ctx;
  ASSERT_EQ(cuPointerGetAttribute(&C, CU_POINTER_ATTRIBUTE_CONTEXT, P), CUDA_SUCCESS);
  EXPECT_EQ(C, nullptr); // Pool memory belongs to no context (NVIDIA).
  unsigned Type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, P), CUDA_SUCCESS);
  EXPECT_EQ(Type, unsigned(CU_MEMORYTYPE_DEVICE));
  size_t Size = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, P), CUDA_SUCCESS);
  EXPECT_EQ(Size, 1000u);
  CUdeviceptr Base = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, P + 999), CUDA_SUCCESS);
  EXPECT_EQ(Base, P);
  EXPECT_EQ(Size, 1000u);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(Q, S1), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, P), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, PoolLifetimeAndCurrentPool) {
  CUmemoryPool Def = nullptr, Cur = nullptr;
  ASSERT_EQ(cuDeviceGetDefaultMemPool(&Def, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(Def), CUDA_ERROR_INVALID_VALUE);
  CUmemoryPool Pool = newPool();
  ASSERT_EQ(cuDeviceSetMemPool(0, Pool), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetMemPool(&Cur, 0), CUDA_SUCCESS);
  EXPECT_EQ(Cur, Pool);
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocAsync(&P, 4096, S1), CUDA_SUCCESS);
  CUmemoryPool Got = nullptr;
  ASSERT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, P), CUDA_SUCCESS);
  EXPECT_EQ(Got, Pool);
  // Destroying the current pool makes the default one current; its live
  // allocation stays usable and freeable.
  ASSERT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetMemPool(&Cur, 0), CUDA_SUCCESS);
  EXPECT_EQ(Cur, Def);
  ASSERT_EQ(cuMemsetD32Async(P, 3, 1024, S1), CUDA_SUCCESS);
  unsigned V = 0;
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(&V, P + 400, 4, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(P, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  EXPECT_EQ(V, 3u);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolGetAttribute(Pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &V), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocFromPoolAsync(&P, 64, Pool, S1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocFromPoolAsync(&P, 64, reinterpret_cast<CUmemoryPool>(0x1234), S1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceSetMemPool(0, reinterpret_cast<CUmemoryPool>(S1)), CUDA_ERROR_INVALID_VALUE);

  // cuMemSetMemPool / cuMemGetMemPool (CUDA 13) name the same state.
  Pool = newPool();
  CUmemLocation Dev0{CU_MEM_LOCATION_TYPE_DEVICE, 0};
  ASSERT_EQ(cuMemSetMemPool(&Dev0, CU_MEM_ALLOCATION_TYPE_PINNED, Pool), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetMemPool(&Cur, 0), CUDA_SUCCESS);
  EXPECT_EQ(Cur, Pool);
  ASSERT_EQ(cuDeviceSetMemPool(0, Def), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetMemPool(&Cur, &Dev0, CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_SUCCESS);
  EXPECT_EQ(Cur, Def);
  EXPECT_EQ(cuMemGetMemPool(&Cur, &Dev0, CU_MEM_ALLOCATION_TYPE_MANAGED), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, CreateArgumentsAndAccess) {
  CUmemoryPool Pool = nullptr;
  EXPECT_EQ(cuMemPoolCreate(&Pool, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUmemPoolProps P{};
  P.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  P.location = {CU_MEM_LOCATION_TYPE_DEVICE, 7};
  EXPECT_EQ(cuMemPoolCreate(&Pool, &P), CUDA_ERROR_INVALID_VALUE);
  P.location.id = 0;
  P.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  EXPECT_EQ(cuMemPoolCreate(&Pool, &P), CUDA_ERROR_NOT_SUPPORTED);
  P.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  P.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
  EXPECT_EQ(cuMemPoolCreate(&Pool, &P), CUDA_ERROR_INVALID_VALUE);
  P.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  ASSERT_EQ(cuMemPoolCreate(&Pool, &P), CUDA_SUCCESS);

  CUmemAccess_flags F = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CUmemLocation Dev0{CU_MEM_LOCATION_TYPE_DEVICE, 0}, Dev9{CU_MEM_LOCATION_TYPE_DEVICE, 9},
      Host{CU_MEM_LOCATION_TYPE_HOST, 0};
  ASSERT_EQ(cuMemPoolGetAccess(&F, Pool, &Dev0), CUDA_SUCCESS);
  EXPECT_EQ(F, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  ASSERT_EQ(cuMemPoolGetAccess(&F, Pool, &Host), CUDA_SUCCESS);
  EXPECT_EQ(F, CU_MEM_ACCESS_FLAGS_PROT_NONE);
  EXPECT_EQ(cuMemPoolGetAccess(&F, Pool, &Dev9), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc D{Dev0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  EXPECT_EQ(cuMemPoolSetAccess(Pool, &D, 1), CUDA_SUCCESS);
  D.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
  EXPECT_EQ(cuMemPoolSetAccess(Pool, &D, 1), CUDA_ERROR_NOT_SUPPORTED);
  D.location = Dev9;
  EXPECT_EQ(cuMemPoolSetAccess(Pool, &D, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
  // IPC stays unsupported.
  int Fd = -1;
  EXPECT_EQ(cuMemPoolExportToShareableHandle(&Fd, Pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(MemPoolApi, CaptureMakesAllocNodesButRefusesFreeingPoolMemory) {
  // A captured allocation becomes a graph memory node (tests/graph has
  // the details), not pool memory.
  ASSERT_EQ(cuStreamBeginCapture_v2(S1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  CUdeviceptr P = 0;
  EXPECT_EQ(cuMemAllocAsync(&P, 64, S1), CUDA_SUCCESS);
  CUgraph G = nullptr;
  ASSERT_EQ(cuStreamEndCapture(S1, &G), CUDA_SUCCESS);
  CUgraphNode Node = nullptr;
  size_t Count = 1;
  ASSERT_EQ(cuGraphGetNodes(G, &Node, &Count), CUDA_SUCCESS);
  CUgraphNodeType T;
  ASSERT_EQ(cuGraphNodeGetType(Node, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  // Pool memory allocated outside the capture cannot be freed inside it
  // (a free node frees only what an alloc node allocated).
  ASSERT_EQ(cuMemAllocAsync(&P, 64, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture_v2(S1, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(P, S1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuStreamEndCapture(S1, &G), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(cuMemFreeAsync(P, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
}

TEST_F(MemPoolApi, ContextResetReclaimsLiveAllocations) {
  CUmemoryPool Pool = newPool();
  cuuint64_t Keep = ~0ull;
  ASSERT_EQ(cuMemPoolSetAttribute(Pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &Keep), CUDA_SUCCESS);
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocFromPoolAsync(&P, 4096, Pool, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(S2), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(Mod), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  // The pool (a device object) survives; the context's allocation went back.
  EXPECT_EQ(attr(Pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0u);
  CUmemoryPool Got = nullptr;
  EXPECT_EQ(cuPointerGetAttribute(&Got, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, P), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolDestroy(Pool), CUDA_SUCCESS);
  // Back to the fixture's state for TearDown.
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleLoadData(&Mod, AffinePtx), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&S1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&S2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
}

} // namespace
