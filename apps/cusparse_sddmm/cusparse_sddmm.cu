/// \file
/// Sampled dense-dense products (cusparseSDDMM) as attention and matrix
/// completion codes use them: C = alpha (A B) .* spy(C) + beta C with C a
/// random CSR pattern, A and B dense in row-major (with op(B) transposed,
/// the Q K^T of attention) and column-major order, beta zero and nonzero,
/// and a COO pattern (or the status that refuses it). Checked against host dot products in double.
#include "../common/sparse_util.h"

int main() {
  const int M = 64, N = 80, K = 32;
  HostCsr<float> C = randomCsr<float>(M, N, 7, 51, false);
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  int *DPtr = upload(C.Ptr), *DIdx = upload(C.Idx);
  struct Case {
    const char *Name;
    bool TransB;
    cusparseOrder_t Order;
    float Beta;
    bool Coo;
  } Cases[] = {{"qkt-row", true, CUSPARSE_ORDER_ROW, 0.0f, false},
               {"ab-col", false, CUSPARSE_ORDER_COL, 0.0f, false},
               {"ab-col-beta", false, CUSPARSE_ORDER_COL, 0.75f, false},
               {"qkt-row-coo", true, CUSPARSE_ORDER_ROW, 0.0f, true}};
  std::vector<int> Rows;
  for (int I = 0; I < M; ++I)
    for (int P = C.Ptr[I]; P < C.Ptr[I + 1]; ++P)
      Rows.push_back(I);
  int *DRows = upload(Rows);
  for (const Case &Cs : Cases) {
    // A is M x K; B is K x N, or N x K when transposed. Both row-major on the host.
    std::vector<float> A = randomVector<float>(M * K, 61), B = randomVector<float>(K * N, 62);
    int BRows = Cs.TransB ? N : K, BCols = Cs.TransB ? K : N;
    auto Store = [&](const std::vector<float> &V, int R, int Cc) {
      std::vector<float> Out(V.size());
      for (int I = 0; I < R; ++I)
        for (int J = 0; J < Cc; ++J)
          Out[Cs.Order == CUSPARSE_ORDER_ROW ? I * Cc + J : J * R + I] = V[I * Cc + J];
      return upload(Out);
    };
    float *DA = Store(A, M, K), *DB = Store(B, BRows, BCols), *DVal = upload(C.Val);
    cusparseDnMatDescr_t MA, MB;
    CUSPARSE_CHECK(cusparseCreateDnMat(&MA, M, K, Cs.Order == CUSPARSE_ORDER_ROW ? K : M, DA,
                                       CUDA_R_32F, Cs.Order));
    CUSPARSE_CHECK(cusparseCreateDnMat(&MB, BRows, BCols,
                                       Cs.Order == CUSPARSE_ORDER_ROW ? BCols : BRows, DB,
                                       CUDA_R_32F, Cs.Order));
    cusparseSpMatDescr_t MC;
    if (Cs.Coo)
      CUSPARSE_CHECK(cusparseCreateCoo(&MC, M, N, C.nnz(), DRows, DIdx, DVal, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    else
      CUSPARSE_CHECK(cusparseCreateCsr(&MC, M, N, C.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    float Alpha = 0.5f, Beta = Cs.Beta;
    auto OpA = CUSPARSE_OPERATION_NON_TRANSPOSE;
    auto OpB = Cs.TransB ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t Size = 0;
    // Formats other than CSR may be refused: the status is the result then.
    int St = cusparseSDDMM_bufferSize(H, OpA, OpB, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F,
                                      CUSPARSE_SDDMM_ALG_DEFAULT, &Size);
    if (St != 0 && Cs.Coo) {
      std::printf("%s: status %d\n", Cs.Name, St);
      continue;
    }
    CUSPARSE_CHECK(St);
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size ? Size : 1));
    CUSPARSE_CHECK(cusparseSDDMM_preprocess(H, OpA, OpB, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F,
                                            CUSPARSE_SDDMM_ALG_DEFAULT, Buf));
    CUSPARSE_CHECK(cusparseSDDMM(H, OpA, OpB, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F,
                                 CUSPARSE_SDDMM_ALG_DEFAULT, Buf));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Got = download(DVal, C.nnz());
    std::vector<double> Want(C.nnz());
    for (int I = 0; I < M; ++I)
      for (int P = C.Ptr[I]; P < C.Ptr[I + 1]; ++P) {
        int J = C.Idx[P];
        double S = 0;
        for (int L = 0; L < K; ++L)
          S += (double)A[I * K + L] * (Cs.TransB ? B[J * K + L] : B[L * N + J]);
        Want[P] = Alpha * S + Beta * C.Val[P];
      }
    report(Cs.Name, allClose(Got, Want, 1e-5), sumAbs(Got));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MA));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
    CUSPARSE_CHECK(cusparseDestroySpMat(MC));
    cudaFree(DA), cudaFree(DB), cudaFree(DVal), cudaFree(Buf);
  }
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
