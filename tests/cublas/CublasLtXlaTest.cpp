/// \file
/// cuBLASLt matmuls as XLA (JAX) issues them, checked against a float64
/// loop on the host: row-major layouts (CUBLASLT_ORDER_ROW) for A, B and
/// C/D in every combination with both transposes (ferry refused every
/// row-major layout with NOT_SUPPORTED), and a BIAS epilogue with beta 0
/// and no C at all (ferry read C and crashed). A row-major GEMM with an
/// epilogue is still refused, visibly.
#include "ferry/generated/CublasLtApi.h"
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

struct Device {
  CUdeviceptr Ptr = 0;
  explicit Device(size_t Bytes) { EXPECT_EQ(cuMemAlloc_v2(&Ptr, Bytes), CUDA_SUCCESS); }
  ~Device() { cuMemFree_v2(Ptr); }
  void *get() const { return reinterpret_cast<void *>(Ptr); }
};

/// Element (R, C) of a Rows x Cols matrix stored in Order with leading dimension Ld.
size_t at(bool Row, int64_t Ld, int64_t R, int64_t C) { return Row ? R * Ld + C : C * Ld + R; }

cublasLtMatrixLayout_t layout(int64_t Rows, int64_t Cols, bool Row) {
  cublasLtMatrixLayout_t L;
  EXPECT_EQ(cublasLtMatrixLayoutCreate(&L, CUDA_R_32F, Rows, Cols, Row ? Cols : Rows), CUBLAS_STATUS_SUCCESS);
  int32_t Order = Row ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_ORDER, &Order, sizeof(Order)),
            CUBLAS_STATUS_SUCCESS);
  return L;
}

class CublasLtXla : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUdevice Dev;
    ASSERT_EQ(cuDeviceGet(&Dev, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, Dev), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cublasLtCreate(&H), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    cublasLtDestroy(H);
    CUdevice Dev;
    cuDeviceGet(&Dev, 0);
    cuDevicePrimaryCtxRelease_v2(Dev);
  }
  CUcontext Ctx = nullptr;
  cublasLtHandle_t H = nullptr;
};

TEST_F(CublasLtXla, RowMajorLayoutsInEveryCombination) {
  const int64_t M = 7, N = 5, K = 9;
  for (int Mask = 0; Mask < 32; ++Mask) {
    bool RowA = Mask & 1, RowB = Mask & 2, RowD = Mask & 4, TA = Mask & 8, TB = Mask & 16;
    SCOPED_TRACE(::testing::Message() << "rowA " << RowA << " rowB " << RowB << " rowD " << RowD << " transA " << TA
                                      << " transB " << TB);
    // Stored shapes: op(A) is M x K, op(B) is K x N.
    int64_t Ar = TA ? K : M, Ac = TA ? M : K, Br = TB ? N : K, Bc = TB ? K : N;
    std::vector<float> A(Ar * Ac), B(Br * Bc), D(M * N, -1.0f);
    for (size_t I = 0; I < A.size(); ++I)
      A[I] = std::sin(0.7 * I + Mask);
    for (size_t I = 0; I < B.size(); ++I)
      B[I] = std::cos(0.3 * I - Mask);
    Device DA(A.size() * 4), DB(B.size() * 4), DD(D.size() * 4);
    ASSERT_EQ(cuMemcpyHtoD_v2(DA.Ptr, A.data(), A.size() * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyHtoD_v2(DB.Ptr, B.data(), B.size() * 4), CUDA_SUCCESS);
    cublasLtMatmulDesc_t Desc;
    ASSERT_EQ(cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    cublasOperation_t OpA = TA ? CUBLAS_OP_T : CUBLAS_OP_N, OpB = TB ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_TRANSA, &OpA, sizeof(OpA));
    cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_TRANSB, &OpB, sizeof(OpB));
    cublasLtMatrixLayout_t La = layout(Ar, Ac, RowA), Lb = layout(Br, Bc, RowB), Ld = layout(M, N, RowD);
    cublasLtMatmulPreference_t Pref;
    ASSERT_EQ(cublasLtMatmulPreferenceCreate(&Pref), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t R{};
    int Found = 0;
    ASSERT_EQ(cublasLtMatmulAlgoGetHeuristic(H, Desc, La, Lb, Ld, Ld, Pref, 1, &R, &Found), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(Found, 1);
    float Alpha = 1.5f, Beta = 0.0f;
    ASSERT_EQ(cublasLtMatmul(H, Desc, &Alpha, DA.get(), La, DB.get(), Lb, &Beta, DD.get(), Ld, DD.get(), Ld, &R.algo,
                             nullptr, 0, nullptr),
              CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoH_v2(D.data(), DD.Ptr, D.size() * 4), CUDA_SUCCESS);
    for (int64_t I = 0; I < M; ++I)
      for (int64_t J = 0; J < N; ++J) {
        double S = 0;
        for (int64_t P = 0; P < K; ++P) {
          double Av = TA ? A[at(RowA, RowA ? Ac : Ar, P, I)] : A[at(RowA, RowA ? Ac : Ar, I, P)];
          double Bv = TB ? B[at(RowB, RowB ? Bc : Br, J, P)] : B[at(RowB, RowB ? Bc : Br, P, J)];
          S += Av * Bv;
        }
        EXPECT_NEAR(D[at(RowD, RowD ? N : M, I, J)], 1.5 * S, 1e-4) << "at " << I << "," << J;
      }
    cublasLtMatmulPreferenceDestroy(Pref);
    cublasLtMatrixLayoutDestroy(La);
    cublasLtMatrixLayoutDestroy(Lb);
    cublasLtMatrixLayoutDestroy(Ld);
    cublasLtMatmulDescDestroy(Desc);
  }
}

TEST_F(CublasLtXla, BiasEpilogueWithBetaZeroReadsNoC) {
  const int64_t M = 4, N = 3, K = 2;
  std::vector<float> A = {1, 2, 3, 4, 5, 6, 7, 8}, B = {1, 0, 0, 1, 1, 1}, Bias = {10, 20, 30, 40}, D(M * N);
  Device DA(32), DB(24), DBias(16), DD(48);
  ASSERT_EQ(cuMemcpyHtoD_v2(DA.Ptr, A.data(), 32), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DB.Ptr, B.data(), 24), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DBias.Ptr, Bias.data(), 16), CUDA_SUCCESS);
  cublasLtMatmulDesc_t Desc;
  ASSERT_EQ(cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  uint32_t Epi = CUBLASLT_EPILOGUE_BIAS;
  void *BiasPtr = DBias.get();
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &BiasPtr, sizeof(BiasPtr));
  cublasLtMatrixLayout_t La = layout(M, K, false), Lb = layout(K, N, false), Ld = layout(M, N, false);
  float Alpha = 1, Beta = 0;
  ASSERT_EQ(cublasLtMatmul(H, Desc, &Alpha, DA.get(), La, DB.get(), Lb, &Beta, nullptr, Ld, DD.get(), Ld, nullptr,
                           nullptr, 0, nullptr),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(D.data(), DD.Ptr, 48), CUDA_SUCCESS);
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      double S = Bias[I];
      for (int64_t P = 0; P < K; ++P)
        S += A[P * M + I] * B[J * K + P];
      EXPECT_FLOAT_EQ(D[J * M + I], S);
    }
  // A row-major D with an epilogue is not done yet: refused, not faked.
  cublasLtMatrixLayout_t LdRow = layout(M, N, true);
  EXPECT_EQ(cublasLtMatmul(H, Desc, &Alpha, DA.get(), La, DB.get(), Lb, &Beta, nullptr, LdRow, DD.get(), LdRow,
                           nullptr, nullptr, 0, nullptr),
            CUBLAS_STATUS_NOT_SUPPORTED);
  cublasLtMatrixLayoutDestroy(LdRow);
  cublasLtMatrixLayoutDestroy(La);
  cublasLtMatrixLayoutDestroy(Lb);
  cublasLtMatrixLayoutDestroy(Ld);
  cublasLtMatmulDescDestroy(Desc);
}

} // namespace
