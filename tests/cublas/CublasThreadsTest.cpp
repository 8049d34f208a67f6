/// \file
/// Thread safety of ferry's libcublas: eight host threads at once, each
/// creating its own handles (several times over, so creation and
/// destruction race with other threads' work), binding its own stream,
/// switching pointer modes per handle, and running SGEMM, SAXPY and SDOT
/// with host- and device-side results; every result is checked against a
/// host reference. Built with plain C++ against ferry's own headers (no
/// nvcc), so scripts/test-tsan can build it with ThreadSanitizer and see
/// the handle registry, the per-handle state and the stream-ordered host
/// work of libcublas together with libcuda's threading.
#include "ferry/generated/CublasApi.h"
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

namespace {

constexpr int Threads = 8;

/// A device buffer of floats, freed on scope exit.
struct DeviceFloats {
  CUdeviceptr Ptr = 0;
  explicit DeviceFloats(size_t N) {
    EXPECT_EQ(cuMemAlloc_v2(&Ptr, N * sizeof(float)), CUDA_SUCCESS);
  }
  ~DeviceFloats() { cuMemFree_v2(Ptr); }
  float *get() const { return reinterpret_cast<float *>(Ptr); }
};

std::vector<float> values(size_t N, unsigned Seed) {
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = std::sin(0.37 * I + Seed) * 0.5f;
  return V;
}

/// One thread's work; returns the number of wrong results.
int worker(CUcontext Ctx, int Id) {
  if (cuCtxSetCurrent(Ctx) != CUDA_SUCCESS)
    return 1;
  const int N = 40;
  int Wrong = 0;
  std::vector<float> A = values(N * N, Id), B = values(N * N, Id + 100);
  std::vector<double> Ref(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int P = 0; P < N; ++P)
        S += (double)A[P * N + I] * B[J * N + P];
      Ref[J * N + I] = S;
    }
  double DotRef = 0;
  for (int I = 0; I < N * N; ++I)
    DotRef += (double)A[I] * B[I];
  for (int Round = 0; Round < 3; ++Round) {
    cublasHandle_t H;
    if (cublasCreate_v2(&H) != CUBLAS_STATUS_SUCCESS)
      return Wrong + 1;
    CUstream S;
    EXPECT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    EXPECT_EQ(cublasSetStream_v2(H, S), CUBLAS_STATUS_SUCCESS);
    DeviceFloats DA(N * N), DB(N * N), DC(N * N), DScalars(4);
    EXPECT_EQ(cuMemcpyHtoD_v2(DA.Ptr, A.data(), N * N * 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD_v2(DB.Ptr, B.data(), N * N * 4), CUDA_SUCCESS);
    // Half of the threads use device-side scalars and results, so the
    // pointer mode of one handle must not leak into another's calls.
    bool DeviceMode = (Id + Round) % 2 == 1;
    float One = 1, Zero = 0, Two = 2;
    float HostScalars[3] = {1, 0, 2};
    EXPECT_EQ(cuMemcpyHtoD_v2(DScalars.Ptr, HostScalars, sizeof(HostScalars)), CUDA_SUCCESS);
    const float *Al = &One, *Be = &Zero, *AxpyAl = &Two;
    if (DeviceMode) {
      EXPECT_EQ(cublasSetPointerMode_v2(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
      Al = DScalars.get();
      Be = DScalars.get() + 1;
      AxpyAl = DScalars.get() + 2;
    }
    for (int Rep = 0; Rep < 4; ++Rep)
      EXPECT_EQ(cublasSgemm_v2(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, Al, DA.get(), N, DB.get(), N,
                               Be, DC.get(), N),
                CUBLAS_STATUS_SUCCESS);
    // C += 2 A, then dot(A, B)
    EXPECT_EQ(cublasSaxpy_v2(H, N * N, AxpyAl, DA.get(), 1, DC.get(), 1), CUBLAS_STATUS_SUCCESS);
    float Dot = 0;
    EXPECT_EQ(
        cublasSdot_v2(H, N * N, DA.get(), 1, DB.get(), 1, DeviceMode ? DScalars.get() + 3 : &Dot),
        CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    if (DeviceMode) {
      EXPECT_EQ(cuMemcpyDtoH_v2(&Dot, DScalars.Ptr + 3 * sizeof(float), sizeof(float)),
                CUDA_SUCCESS);
    }
    std::vector<float> C(N * N);
    EXPECT_EQ(cuMemcpyDtoH_v2(C.data(), DC.Ptr, N * N * 4), CUDA_SUCCESS);
    for (int I = 0; I < N * N; ++I)
      Wrong += std::fabs(C[I] - (Ref[I] + 2.0 * A[I])) > 1e-4;
    Wrong += std::fabs(Dot - DotRef) > 1e-3;
    EXPECT_EQ(cublasDestroy_v2(H), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  }
  return Wrong;
}

TEST(CublasThreads, EightThreadsEachWithHandlesAndStreams) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice Dev;
  ASSERT_EQ(cuDeviceGet(&Dev, 0), CUDA_SUCCESS);
  CUcontext Ctx;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, Dev), CUDA_SUCCESS);
  std::vector<int> Wrong(Threads, -1);
  std::vector<std::thread> Ts;
  for (int I = 0; I < Threads; ++I)
    Ts.emplace_back([&, I] { Wrong[I] = worker(Ctx, I); });
  for (auto &T : Ts)
    T.join();
  for (int I = 0; I < Threads; ++I)
    EXPECT_EQ(Wrong[I], 0) << "thread " << I;
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(Dev), CUDA_SUCCESS);
}

} // namespace
