/// \file
/// 64-bit indices, as codes with large graphs build their matrices: CSR and
/// COO descriptors with CUSPARSE_INDEX_64I offsets and indices, index base
/// one, in double: cusparseSpMV (A and A^T), cusparseSpMM, a lower
/// triangular cusparseSpSV with unit diagonal, and cusparseCsrGet reading
/// back what the descriptor holds. Checked against host references.
#include "../common/sparse_util.h"

int main() {
  const int N = 400;
  HostCsr<double> A = randomCsr<double>(N, N, 6, 141, true);
  std::vector<int64_t> Ptr(A.Ptr.begin(), A.Ptr.end()), Idx(A.Idx.begin(), A.Idx.end()), Rows;
  for (auto &X : Ptr)
    ++X;
  for (auto &X : Idx)
    ++X;
  for (int I = 0; I < N; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      Rows.push_back(I + 1);
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  int64_t *DPtr = upload(Ptr), *DIdx = upload(Idx), *DRows = upload(Rows);
  double *DVal = upload(A.Val);
  cusparseSpMatDescr_t Csr, Coo;
  CUSPARSE_CHECK(cusparseCreateCsr(&Csr, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_64I,
                                   CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE, CUDA_R_64F));
  CUSPARSE_CHECK(cusparseCreateCoo(&Coo, N, N, A.nnz(), DRows, DIdx, DVal, CUSPARSE_INDEX_64I,
                                   CUSPARSE_INDEX_BASE_ONE, CUDA_R_64F));
  {
    int64_t R, C, Z;
    void *P, *I, *V;
    cusparseIndexType_t Pt, It;
    cusparseIndexBase_t B;
    cudaDataType T;
    CUSPARSE_CHECK(cusparseCsrGet(Csr, &R, &C, &Z, &P, &I, &V, &Pt, &It, &B, &T));
    std::printf("csr get: %lld x %lld nnz %lld types %d %d base %d value %d same arrays %d\n",
                (long long)R, (long long)C, (long long)Z, (int)Pt, (int)It, (int)B, (int)T,
                P == DPtr && I == DIdx && V == DVal);
  }
  std::vector<double> X = randomVector<double>(N, 142);
  double *DX = upload(X), *DY;
  CHECK(cudaMalloc(&DY, N * sizeof(double)));
  cusparseDnVecDescr_t VX, VY;
  CUSPARSE_CHECK(cusparseCreateDnVec(&VX, N, DX, CUDA_R_64F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VY, N, DY, CUDA_R_64F));
  double One = 1, Zero = 0;
  const char *MvNames[2][2] = {{"csr64-spmv-n", "csr64-spmv-t"}, {"coo64-spmv-n", "coo64-spmv-t"}};
  for (int F = 0; F < 2; ++F)
    for (int Op = 0; Op < 2; ++Op) {
      cusparseSpMatDescr_t M = F ? Coo : Csr;
      size_t Size;
      CUSPARSE_CHECK(cusparseSpMV_bufferSize(H, (cusparseOperation_t)Op, &One, M, VX, &Zero, VY,
                                             CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &Size));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Size ? Size : 1));
      CUSPARSE_CHECK(cusparseSpMV(H, (cusparseOperation_t)Op, &One, M, VX, &Zero, VY, CUDA_R_64F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, Buf));
      std::vector<double> Y = download(DY, N), Want(N, 0.0);
      for (int I = 0; I < N; ++I)
        for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
          if (Op)
            Want[A.Idx[P]] += A.Val[P] * X[I];
          else
            Want[I] += A.Val[P] * X[A.Idx[P]];
      report(MvNames[F][Op], allClose(Y, Want, 1e-12), sumAbs(Y));
      cudaFree(Buf);
    }
  // SpMM, row-major B and C with 4 columns.
  {
    const int K = 4;
    std::vector<double> B = randomVector<double>(N * K, 143);
    double *DB = upload(B), *DC;
    CHECK(cudaMalloc(&DC, N * K * sizeof(double)));
    cusparseDnMatDescr_t MB, MC;
    CUSPARSE_CHECK(cusparseCreateDnMat(&MB, N, K, K, DB, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    CUSPARSE_CHECK(cusparseCreateDnMat(&MC, N, K, K, DC, CUDA_R_64F, CUSPARSE_ORDER_ROW));
    size_t Size;
    CUSPARSE_CHECK(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Csr, MB, &Zero,
                                           MC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size ? Size : 1));
    CUSPARSE_CHECK(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Csr, MB, &Zero, MC,
                                CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, Buf));
    std::vector<double> C = download(DC, N * K), Want(N * K, 0.0);
    for (int I = 0; I < N; ++I)
      for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
        for (int J = 0; J < K; ++J)
          Want[I * K + J] += A.Val[P] * B[A.Idx[P] * K + J];
    report("csr64-spmm", allClose(C, Want, 1e-12), sumAbs(C));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MC));
    cudaFree(Buf);
  }
  // SpSV: lower triangle, unit diagonal.
  {
    cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_UNIT;
    CUSPARSE_CHECK(cusparseSpMatSetAttribute(Csr, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
    CUSPARSE_CHECK(cusparseSpMatSetAttribute(Csr, CUSPARSE_SPMAT_DIAG_TYPE, &Diag, sizeof Diag));
    cusparseSpSVDescr_t D;
    CUSPARSE_CHECK(cusparseSpSV_createDescr(&D));
    size_t Size;
    CUSPARSE_CHECK(cusparseSpSV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Csr, VX, VY,
                                           CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, D, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size ? Size : 1));
    CUSPARSE_CHECK(cusparseSpSV_analysis(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Csr, VX, VY,
                                         CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, D, Buf));
    CUSPARSE_CHECK(cusparseSpSV_solve(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Csr, VX, VY,
                                      CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, D));
    std::vector<double> Y = download(DY, N), Check(Y);
    for (int I = 0; I < N; ++I)
      for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
        if (A.Idx[P] < I)
          Check[I] += A.Val[P] * Y[A.Idx[P]];
    report("csr64-spsv-unit", allClose(Check, X, 1e-12), sumAbs(Y));
    CUSPARSE_CHECK(cusparseSpSV_destroyDescr(D));
    cudaFree(Buf);
  }
  CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
  CUSPARSE_CHECK(cusparseDestroySpMat(Csr));
  CUSPARSE_CHECK(cusparseDestroySpMat(Coo));
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
