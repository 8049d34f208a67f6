/// \file
/// Thread safety of the driver API under load: 8 host threads, each with
/// three streams of its own plus the legacy and per-thread default streams,
/// allocate, copy, launch, record and wait on events across streams and
/// synchronise, all at once, and check every result. scripts/test-tsan runs
/// it under ThreadSanitizer (kernels take the block-loop path, which needs
/// no fiber switches, so the sanitizer sees only ferry's own threading).
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

const char *Ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry affine(.param .u64 out, .param .u64 in, .param .u32 mul, .param .u32 add, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [mul];
  ld.param.u32 %r2, [add];
  ld.param.u32 %r3, [n];
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r4, %r5, %r6;
  setp.ge.u32 %p, %r7, %r3;
  @%p bra DONE;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.u32 %r8, [%rd4];
  mad.lo.s32 %r9, %r8, %r1, %r2;
  st.global.u32 [%rd5], %r9;
DONE:
  ret;
}
)";

#define CHECK_CU(X)                                                                                           \
  do {                                                                                                        \
    CUresult R_ = (X);                                                                                        \
    if (R_ != CUDA_SUCCESS) {                                                                                 \
      Failures.fetch_add(1);                                                                                  \
      ADD_FAILURE() << #X << " = " << int(R_);                                                                \
      return;                                                                                                 \
    }                                                                                                         \
  } while (0)

std::atomic<int> Failures{0};

void worker(CUcontext Ctx, CUfunction F, unsigned Seed) {
  CHECK_CU(cuCtxSetCurrent(Ctx));
  const unsigned N = 4096 + Seed * 97;
  CUstream S[3];
  for (CUstream &St : S)
    CHECK_CU(cuStreamCreate(&St, Seed % 2 ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT));
  CUevent E;
  CHECK_CU(cuEventCreate(&E, CU_EVENT_DISABLE_TIMING));
  std::vector<unsigned> In(N), Out(N);
  for (unsigned Iter = 0; Iter < 40; ++Iter) {
    CUdeviceptr A, B, C;
    CHECK_CU(cuMemAlloc_v2(&A, N * 4));
    CHECK_CU(cuMemAlloc_v2(&B, N * 4));
    CHECK_CU(cuMemAlloc_v2(&C, N * 4));
    for (unsigned I = 0; I < N; ++I)
      In[I] = I * (Seed + 1) + Iter;
    unsigned Mul = Seed + 2, Add = Iter + 1, Count = N;
    CUstream S0 = S[Iter % 3], S1 = S[(Iter + 1) % 3];
    // Stage 1 on S0: copy in, B = A*Mul+Add.
    CHECK_CU(cuMemcpyHtoDAsync_v2(A, In.data(), N * 4, S0));
    void *P1[] = {&B, &A, &Mul, &Add, &Count};
    CHECK_CU(cuLaunchKernel(F, (N + 255) / 256, 1, 1, 256, 1, 1, 0, S0, P1, nullptr));
    CHECK_CU(cuEventRecord(E, S0));
    // Stage 2 on S1 after the event: C = B*3+1, then copy out.
    CHECK_CU(cuStreamWaitEvent(S1, E, 0));
    unsigned Mul2 = 3, Add2 = 1;
    void *P2[] = {&C, &B, &Mul2, &Add2, &Count};
    CHECK_CU(cuLaunchKernel(F, (N + 127) / 128, 1, 1, 128, 1, 1, 0, S1, P2, nullptr));
    CHECK_CU(cuMemcpyDtoHAsync_v2(Out.data(), C, N * 4, S1));
    if (Iter % 4 == 3)
      CHECK_CU(cuCtxSynchronize());
    else
      CHECK_CU(cuStreamSynchronize(S1));
    for (unsigned I = 0; I < N; ++I) {
      unsigned Want = (In[I] * Mul + Add) * 3 + 1;
      if (Out[I] != Want) {
        Failures.fetch_add(1);
        ADD_FAILURE() << "thread " << Seed << " iteration " << Iter << " element " << I;
        return;
      }
    }
    // The synchronous forms on the default streams, interleaved with the
    // other threads' asynchronous work.
    CHECK_CU(cuMemsetD32_v2(C, 7, N));
    CHECK_CU(cuMemcpyDtoH_v2(Out.data(), C, 16));
    if (Out[0] != 7 || Out[3] != 7) {
      Failures.fetch_add(1);
      ADD_FAILURE() << "memset result";
      return;
    }
    CHECK_CU(cuMemFree_v2(A));
    CHECK_CU(cuMemFree_v2(B));
    CHECK_CU(cuMemFree_v2(C));
  }
  CHECK_CU(cuEventDestroy_v2(E));
  for (CUstream St : S)
    CHECK_CU(cuStreamDestroy_v2(St));
}

TEST(Stress, EightThreadsLaunchCopyAndSynchronise) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext Ctx;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "affine"), CUDA_SUCCESS);
  std::vector<std::thread> Ts;
  for (unsigned T = 0; T < 8; ++T)
    Ts.emplace_back(worker, Ctx, F, T);
  for (std::thread &T : Ts)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
}

} // namespace
