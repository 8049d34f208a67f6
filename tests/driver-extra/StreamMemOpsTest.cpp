/// \file
/// Stream memory operations through the driver API: a wait on one stream
/// released by a write on another, with the data written before the write
/// visible after the wait; every wait condition in 32 and 64 bits (GEQ's
/// cyclic comparison included); batches; the _v2/_ptsz forms; attributes;
/// invalid arguments.
#include "Fixture.h"

#include <chrono>
#include <thread>
#include <vector>

namespace {

using ferry::test::Driver;

/// Polls a stream until it is idle or Ms have passed.
bool idleWithin(CUstream S, int Ms) {
  auto End = std::chrono::steady_clock::now() + std::chrono::milliseconds(Ms);
  do {
    if (cuStreamQuery(S) == CUDA_SUCCESS)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < End);
  return false;
}

class MemOps : public Driver {
protected:
  void SetUp() override {
    Driver::SetUp();
    ASSERT_EQ(cuStreamCreate(&S1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&Flag, 64), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8_v2(Flag, 0, 64), CUDA_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S1), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S2), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(Flag), CUDA_SUCCESS);
    Driver::TearDown();
  }
  void set32(uint32_t V) { ASSERT_EQ(cuMemcpyHtoD_v2(Flag, &V, 4), CUDA_SUCCESS); }
  void set64(uint64_t V) { ASSERT_EQ(cuMemcpyHtoD_v2(Flag + 8, &V, 8), CUDA_SUCCESS); }
  CUstream S1 = nullptr, S2 = nullptr;
  CUdeviceptr Flag = 0;
};

TEST_F(MemOps, AttributesReportSupport) {
  for (CUdevice_attribute A :
       {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES}) {
    int V = 0;
    ASSERT_EQ(cuDeviceGetAttribute(&V, A, 0), CUDA_SUCCESS);
    EXPECT_EQ(V, 1) << int(A);
  }
}

TEST_F(MemOps, WaitOnOneStreamReleasedByWriteOnAnother) {
  const unsigned N = 4096;
  CUdeviceptr Src, Dst;
  ASSERT_EQ(cuMemAlloc_v2(&Src, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Dst, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Dst, 0, N), CUDA_SUCCESS);
  // S1: wait for the flag, then copy what S2 produced, then signal back.
  ASSERT_EQ(cuStreamWaitValue32(S1, Flag, 1, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(Dst, Src, N * 4, S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32(S1, Flag + 4, 2, CU_STREAM_WRITE_VALUE_DEFAULT), CUDA_SUCCESS);
  // S1 is blocked, and other streams are not: S2 runs work meanwhile.
  EXPECT_FALSE(idleWithin(S1, 50));
  uint32_t Probe = 0;
  ASSERT_EQ(cuMemsetD32Async(Src, 7, N, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(S1), CUDA_ERROR_NOT_READY);
  // S2 produces the data, releases S1, and waits for S1's answer.
  ASSERT_EQ(cuMemsetD32Async(Src, 42, N, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32(S2, Flag, 1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue32(S2, Flag + 4, 2, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  std::vector<uint32_t> Out(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), Dst, N * 4), CUDA_SUCCESS);
  unsigned Bad = 0;
  for (uint32_t V : Out)
    Bad += V != 42;
  EXPECT_EQ(Bad, 0u);
  ASSERT_EQ(cuMemcpyDtoH_v2(&Probe, Flag + 4, 4), CUDA_SUCCESS);
  EXPECT_EQ(Probe, 2u);
  EXPECT_EQ(cuMemFree_v2(Src), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Dst), CUDA_SUCCESS);
}

struct Case {
  unsigned Cond;
  uint64_t Value;   ///< The wait's operand.
  uint64_t Blocked; ///< A flag value under which the wait must block.
  uint64_t Release; ///< A flag value that releases it.
};

TEST_F(MemOps, EveryConditionIn32And64Bits) {
  const Case Cases[] = {
      {CU_STREAM_WAIT_VALUE_GEQ, 10, 9, 10},
      {CU_STREAM_WAIT_VALUE_GEQ, 0x10, 0xFFFFFFF0, 0x11}, // cyclic: 0xFFFFFFF0 is "before" 0x10
      {CU_STREAM_WAIT_VALUE_EQ, 5, 4, 5},
      {CU_STREAM_WAIT_VALUE_AND, 0x8, 0x7, 0xC},
      {CU_STREAM_WAIT_VALUE_NOR, 0xFFFF0000, 0x0000FFFF, 0x0000FFF0},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(::testing::Message() << "cond " << C.Cond << " value " << C.Value);
    set32(uint32_t(C.Blocked));
    ASSERT_EQ(cuStreamWaitValue32(S1, Flag, uint32_t(C.Value), C.Cond), CUDA_SUCCESS);
    EXPECT_FALSE(idleWithin(S1, 20));
    set32(uint32_t(C.Release));
    EXPECT_TRUE(idleWithin(S1, 5000));

    // 64 bits: the high word takes part in the comparison.
    uint64_t Hi = C.Cond == CU_STREAM_WAIT_VALUE_NOR ? 0xFFFFFFFF00000000ull : 0x100000000ull;
    uint64_t V = C.Value | Hi, Blocked = C.Blocked | Hi, Release = C.Release | Hi;
    if (C.Cond == CU_STREAM_WAIT_VALUE_GEQ && C.Blocked > C.Release) // cyclic case in 64 bits
      V = C.Value, Blocked = 0xFFFFFFFFFFFFFFF0ull, Release = 0x11;
    if (C.Cond == CU_STREAM_WAIT_VALUE_AND) // the operand's bits only in the high word
      V = C.Value << 32, Blocked = (C.Blocked << 32) | 0xFFFFFFFFull, Release = C.Release << 32;
    set64(Blocked);
    ASSERT_EQ(cuStreamWaitValue64(S1, Flag + 8, V, C.Cond), CUDA_SUCCESS);
    EXPECT_FALSE(idleWithin(S1, 20));
    set64(Release);
    EXPECT_TRUE(idleWithin(S1, 5000));
  }
  // FLUSH is accepted with any condition.
  set32(3);
  ASSERT_EQ(cuStreamWaitValue32(S1, Flag, 3, CU_STREAM_WAIT_VALUE_EQ | CU_STREAM_WAIT_VALUE_FLUSH), CUDA_SUCCESS);
  EXPECT_TRUE(idleWithin(S1, 5000));
}

TEST_F(MemOps, BatchAndVariants) {
  CUstreamBatchMemOpParams P[5] = {};
  P[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  P[0].writeValue.address = Flag;
  P[0].writeValue.value = 0xABCD;
  P[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  P[1].writeValue.address = Flag + 8;
  P[1].writeValue.value64 = 0x1122334455667788ull;
  P[1].writeValue.flags = CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER;
  P[2].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  P[3].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
  P[3].waitValue.address = Flag + 8;
  P[3].waitValue.value64 = 0x1122334455667788ull;
  P[3].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
  P[4].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
  ASSERT_EQ(cuStreamBatchMemOp(S1, 5, P, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  uint64_t Got[2] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(Got, Flag, 16), CUDA_SUCCESS);
  EXPECT_EQ(uint32_t(Got[0]), 0xABCDu);
  EXPECT_EQ(Got[1], 0x1122334455667788ull);

  ASSERT_EQ(cuStreamBatchMemOp_v2(S1, 2, P, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBatchMemOp_ptsz(nullptr, 1, P, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBatchMemOp_v2_ptsz(CU_STREAM_PER_THREAD, 1, P, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32_v2(S1, Flag, 1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue64_v2(S1, Flag + 8, 2, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue32_v2(S1, Flag, 1, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue64_v2(S1, Flag + 8, 2, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
  // The per-thread stream is not ordered with S1: let S1 finish first.
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32_ptsz(nullptr, Flag, 3, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue32_ptsz(nullptr, Flag, 3, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue64_v2_ptsz(nullptr, Flag + 8, 4, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue64_v2_ptsz(nullptr, Flag + 8, 4, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32_v2_ptsz(nullptr, Flag, 5, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue32_v2_ptsz(nullptr, Flag, 5, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue64_ptsz(nullptr, Flag + 8, 6, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue64_ptsz(nullptr, Flag + 8, 6, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S1), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(Got, Flag, 16), CUDA_SUCCESS);
  EXPECT_EQ(uint32_t(Got[0]), 5u);
  EXPECT_EQ(Got[1], 6u);
}

TEST_F(MemOps, InvalidArguments) {
  EXPECT_EQ(cuStreamWriteValue32(S1, 0, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWriteValue32(S1, Flag + 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWriteValue64(S1, Flag + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWriteValue32(S1, Flag, 1, 0x80), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWaitValue32(S1, Flag, 1, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWaitValue64(S1, 0x1000, 1, 0), CUDA_ERROR_INVALID_VALUE); // unmapped
  int Garbage = 0;
  EXPECT_EQ(cuStreamWriteValue32(reinterpret_cast<CUstream>(&Garbage), Flag, 1, 0), CUDA_ERROR_INVALID_HANDLE);
  CUstreamBatchMemOpParams P[1] = {};
  EXPECT_EQ(cuStreamBatchMemOp(S1, 0, P, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamBatchMemOp(S1, 1, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamBatchMemOp(S1, 1, P, 0), CUDA_ERROR_INVALID_VALUE); // operation 0
  P[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  P[0].writeValue.address = Flag;
  EXPECT_EQ(cuStreamBatchMemOp(S1, 1, P, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamBatchMemOp(S1, 257, P, 0), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
