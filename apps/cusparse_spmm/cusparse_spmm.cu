/// \file
/// cusparseSpMM as GNN and block-Krylov codes call it: a random CSR matrix
/// times dense matrices in column- and row-major order, with op(B)
/// transposed, with op(A) transposed, beta accumulating into C, a COO
/// matrix and a CSC one for the same product; buffer sizes queried and
/// buffers allocated as NVIDIA documents. Each result is checked against a
/// host product in double.
#include "../common/sparse_util.h"

/// Host reference: C = alpha op(A) op(B) + beta C, everything dense row-major.
static std::vector<double> refMM(const HostCsr<float> &A, bool TransA, const std::vector<float> &B,
                                 int BRows, int BCols, bool TransB, const std::vector<float> &C0,
                                 float Alpha, float Beta) {
  int M = TransA ? A.Cols : A.Rows, K = TransA ? A.Rows : A.Cols, N = TransB ? BRows : BCols;
  std::vector<double> Ad(A.Rows * A.Cols, 0.0);
  for (int I = 0; I < A.Rows; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      Ad[I * A.Cols + A.Idx[P]] = A.Val[P];
  std::vector<double> C(M * N);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int L = 0; L < K; ++L) {
        double Av = TransA ? Ad[L * A.Cols + I] : Ad[I * A.Cols + L];
        double Bv = TransB ? B[J * BCols + L] : B[L * BCols + J];
        S += Av * Bv;
      }
      C[I * N + J] = Alpha * S + Beta * C0[I * N + J];
    }
  return C;
}

/// Dense row-major host matrix -> device in the given order.
static float *toDevice(const std::vector<float> &RowMajor, int Rows, int Cols,
                       cusparseOrder_t Order) {
  std::vector<float> V(RowMajor.size());
  for (int I = 0; I < Rows; ++I)
    for (int J = 0; J < Cols; ++J)
      V[Order == CUSPARSE_ORDER_ROW ? I * Cols + J : J * Rows + I] = RowMajor[I * Cols + J];
  return upload(V);
}
static std::vector<float> fromDevice(const float *D, int Rows, int Cols, cusparseOrder_t Order) {
  std::vector<float> V = download(D, (size_t)Rows * Cols), Out(V.size());
  for (int I = 0; I < Rows; ++I)
    for (int J = 0; J < Cols; ++J)
      Out[I * Cols + J] = V[Order == CUSPARSE_ORDER_ROW ? I * Cols + J : J * Rows + I];
  return Out;
}

int main() {
  const int M = 120, K = 90, N = 16;
  HostCsr<float> A = randomCsr<float>(M, K, 6, 21, false);
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
  float *DVal = upload(A.Val);
  cusparseSpMatDescr_t MA;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, M, K, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  int64_t R, C, Z;
  CUSPARSE_CHECK(cusparseSpMatGetSize(MA, &R, &C, &Z));
  std::printf("A: %lld x %lld, nnz %lld\n", (long long)R, (long long)C, (long long)Z);

  struct Case {
    const char *Name;
    bool TransA, TransB;
    cusparseOrder_t Order;
    float Beta;
  } Cases[] = {{"nn-col", false, false, CUSPARSE_ORDER_COL, 0.0f},
               {"nn-row", false, false, CUSPARSE_ORDER_ROW, 0.0f},
               {"nt-col-beta", false, true, CUSPARSE_ORDER_COL, 0.5f},
               {"tn-row-beta", true, false, CUSPARSE_ORDER_ROW, -1.0f}};
  for (const Case &Cs : Cases) {
    int Am = Cs.TransA ? K : M, Ak = Cs.TransA ? M : K;
    int BRows = Cs.TransB ? N : Ak, BCols = Cs.TransB ? Ak : N;
    std::vector<float> B = randomVector<float>(BRows * BCols, 3),
                       C0 = randomVector<float>(Am * N, 4);
    float *DB = toDevice(B, BRows, BCols, Cs.Order), *DC = toDevice(C0, Am, N, Cs.Order);
    cusparseDnMatDescr_t MB, MC;
    CUSPARSE_CHECK(cusparseCreateDnMat(&MB, BRows, BCols,
                                       Cs.Order == CUSPARSE_ORDER_COL ? BRows : BCols, DB,
                                       CUDA_R_32F, Cs.Order));
    CUSPARSE_CHECK(cusparseCreateDnMat(&MC, Am, N, Cs.Order == CUSPARSE_ORDER_COL ? Am : N, DC,
                                       CUDA_R_32F, Cs.Order));
    float Alpha = 1.25f, Beta = Cs.Beta;
    auto OpA = Cs.TransA ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    auto OpB = Cs.TransB ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t Size = 0;
    CUSPARSE_CHECK(cusparseSpMM_bufferSize(H, OpA, OpB, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F,
                                           CUSPARSE_SPMM_ALG_DEFAULT, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size ? Size : 1));
    CUSPARSE_CHECK(cusparseSpMM(H, OpA, OpB, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F,
                                CUSPARSE_SPMM_ALG_DEFAULT, Buf));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Got = fromDevice(DC, Am, N, Cs.Order);
    std::vector<double> Want = refMM(A, Cs.TransA, B, BRows, BCols, Cs.TransB, C0, Alpha, Beta);
    report(Cs.Name, allClose(Got, Want, 1e-5), sumAbs(Got));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MC));
    cudaFree(DB), cudaFree(DC), cudaFree(Buf);
  }

  // The same product from COO and from CSC storage of A.
  std::vector<int> Rows;
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      Rows.push_back(I);
  int *DRows = upload(Rows);
  // CSC of A: transpose the CSR on the host.
  std::vector<int> CPtr(K + 1, 0), CIdx(A.nnz());
  std::vector<float> CVal(A.nnz());
  for (int J : A.Idx)
    ++CPtr[J + 1];
  for (int J = 0; J < K; ++J)
    CPtr[J + 1] += CPtr[J];
  std::vector<int> Next(CPtr.begin(), CPtr.end() - 1);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
      int At = Next[A.Idx[P]]++;
      CIdx[At] = I;
      CVal[At] = A.Val[P];
    }
  int *DCPtr = upload(CPtr), *DCIdx = upload(CIdx);
  float *DCVal = upload(CVal);
  cusparseSpMatDescr_t Coo, Csc;
  CUSPARSE_CHECK(cusparseCreateCoo(&Coo, M, K, A.nnz(), DRows, DIdx, DVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateCsc(&Csc, M, K, A.nnz(), DCPtr, DCIdx, DCVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  std::vector<float> B = randomVector<float>(K * N, 8), C0(M * N, 0.0f);
  for (auto [Name, Mat] : {std::make_pair("coo-col", Coo), std::make_pair("csc-col", Csc)}) {
    float *DB = toDevice(B, K, N, CUSPARSE_ORDER_COL), *DC = toDevice(C0, M, N, CUSPARSE_ORDER_COL);
    cusparseDnMatDescr_t MB, MC;
    CUSPARSE_CHECK(cusparseCreateDnMat(&MB, K, N, K, DB, CUDA_R_32F, CUSPARSE_ORDER_COL));
    CUSPARSE_CHECK(cusparseCreateDnMat(&MC, M, N, M, DC, CUDA_R_32F, CUSPARSE_ORDER_COL));
    float Alpha = 1, Beta = 0;
    size_t Size = 0;
    CUSPARSE_CHECK(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, Mat, MB, &Beta,
                                           MC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size ? Size : 1));
    CUSPARSE_CHECK(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, Mat, MB, &Beta, MC,
                                CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, Buf));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Got = fromDevice(DC, M, N, CUSPARSE_ORDER_COL);
    report(Name, allClose(Got, refMM(A, false, B, K, N, false, C0, Alpha, Beta), 1e-5),
           sumAbs(Got));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MC));
    cudaFree(DB), cudaFree(DC), cudaFree(Buf);
  }
  CUSPARSE_CHECK(cusparseDestroySpMat(Coo));
  CUSPARSE_CHECK(cusparseDestroySpMat(Csc));
  CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
