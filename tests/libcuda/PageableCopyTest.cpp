/// \file
/// Async copies with a pageable host side keep the synchronization NVIDIA
/// documents ("API synchronization behavior" in the driver API manual):
/// to pageable memory they return only once the copy is done; from
/// pageable memory they have read the source when they return. Numba's
/// copy_to_host on a stream and its copies from temporaries rely on it:
/// ferry queued both and returned, so Numba read zeros (numba-cuda's
/// test_structured_array2 and test_cuda_core_stream_launch_user_facing
/// failed in about half the runs). Each test first holds the stream with
/// a host function that sleeps, so a copy that is merely queued is still
/// undone when the call returns: the tests fail every time without the rule.
/// Pinned memory stays asynchronous.
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

constexpr size_t N = 1 << 16;

void sleepFn(void *Ms) { std::this_thread::sleep_for(std::chrono::milliseconds(uintptr_t(Ms))); }

class PageableCopy : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&D, N), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8_v2(D, 0x11, N), CUDA_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
    EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  }
  /// Keeps S busy for Ms milliseconds from now.
  void hold(uintptr_t Ms = 100) { ASSERT_EQ(cuLaunchHostFunc(S, sleepFn, reinterpret_cast<void *>(Ms)), CUDA_SUCCESS); }
  std::vector<unsigned char> readBack() {
    std::vector<unsigned char> Out(N);
    EXPECT_EQ(cuMemcpyDtoH_v2(Out.data(), D, N), CUDA_SUCCESS);
    return Out;
  }
  CUcontext Ctx = nullptr;
  CUstream S = nullptr;
  CUdeviceptr D = 0;
};

size_t countNot(const std::vector<unsigned char> &V, unsigned char Want) {
  size_t Bad = 0;
  for (unsigned char C : V)
    Bad += C != Want;
  return Bad;
}

TEST_F(PageableCopy, DeviceToPageableIsDoneOnReturn) {
  hold();
  ASSERT_EQ(cuMemsetD8Async(D, 0x5a, N, S), CUDA_SUCCESS);
  std::vector<unsigned char> Host(N, 0);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Host.data(), D, N, S), CUDA_SUCCESS);
  EXPECT_EQ(countNot(Host, 0x5a), 0u) << "the copy to pageable memory returned before it was done";
}

TEST_F(PageableCopy, UnifiedCopyToPageableIsDoneOnReturn) {
  hold();
  ASSERT_EQ(cuMemsetD8Async(D, 0x5b, N, S), CUDA_SUCCESS);
  std::vector<unsigned char> Host(N, 0);
  ASSERT_EQ(cuMemcpyAsync(CUdeviceptr(uintptr_t(Host.data())), D, N, S), CUDA_SUCCESS);
  EXPECT_EQ(countNot(Host, 0x5b), 0u);
}

TEST_F(PageableCopy, PageableSourceIsReadOnReturn) {
  hold();
  auto Host = std::make_unique<std::vector<unsigned char>>(N, 0x33);
  ASSERT_EQ(cuMemcpyHtoDAsync_v2(D, Host->data(), N, S), CUDA_SUCCESS);
  std::fill(Host->begin(), Host->end(), 0x77); // the caller reuses its buffer at once
  Host.reset();
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(countNot(readBack(), 0x33), 0u) << "the copy read the pageable source after returning";
}

TEST_F(PageableCopy, StridedPageableSourceIsReadOnReturn) {
  // 2-D from a pageable pitched source: only the box is staged, packed.
  constexpr size_t W = 100, H = 64, SrcPitch = 128, DstPitch = 256;
  std::vector<unsigned char> Host(SrcPitch * H);
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < SrcPitch; ++X)
      Host[Y * SrcPitch + X] = X < W ? (unsigned char)(Y + X) : 0xee;
  hold();
  CUDA_MEMCPY2D P{};
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Host.data();
  P.srcPitch = SrcPitch;
  P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  P.dstDevice = D;
  P.dstPitch = DstPitch;
  P.WidthInBytes = W;
  P.Height = H;
  ASSERT_EQ(cuMemcpy2DAsync_v2(&P, S), CUDA_SUCCESS);
  std::fill(Host.begin(), Host.end(), 0x77);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  auto Out = readBack();
  size_t Bad = 0;
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < DstPitch; ++X)
      Bad += Out[Y * DstPitch + X] != (X < W ? (unsigned char)(Y + X) : 0x11);
  EXPECT_EQ(Bad, 0u);
}

TEST_F(PageableCopy, PinnedStaysAsynchronous) {
  void *Pinned = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&Pinned, N, 0), CUDA_SUCCESS);
  std::memset(Pinned, 0, N);
  hold(500);
  ASSERT_EQ(cuMemsetD8Async(D, 0x5c, N, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Pinned, D, N, S), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(S), CUDA_ERROR_NOT_READY) << "a copy to pinned memory waited for its stream";
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<unsigned char> Got(static_cast<unsigned char *>(Pinned), static_cast<unsigned char *>(Pinned) + N);
  EXPECT_EQ(countNot(Got, 0x5c), 0u);
  EXPECT_EQ(cuMemFreeHost(Pinned), CUDA_SUCCESS);
}

} // namespace
