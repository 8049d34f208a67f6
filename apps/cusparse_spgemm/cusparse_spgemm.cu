/// \file
/// Sparse matrix products as algebraic multigrid setup and graph codes
/// compute them: C = A * A with cusparseSpGEMM (workEstimation and compute
/// each called twice, first for the buffer size; C's size read back with
/// cusparseSpMatGetSize, its arrays set with cusparseCsrSetPointers, then
/// cusparseSpGEMM_copy), in float and double; and the reuse API
/// (SpGEMMreuse_workEstimation/nnz/copy once, compute twice as A's values
/// change). The structure of C (nnz, row offsets) is exact; values are
/// checked against a host product and printed as checksums.
#include "../common/sparse_util.h"
#include <map>

/// Host C = A * B as an ordered map per row (column -> value).
template <typename T> static HostCsr<double> hostProduct(const HostCsr<T> &A, const HostCsr<T> &B) {
  HostCsr<double> C;
  C.Rows = A.Rows;
  C.Cols = B.Cols;
  C.Ptr.push_back(0);
  for (int I = 0; I < A.Rows; ++I) {
    std::map<int, double> Row;
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      for (int Q = B.Ptr[A.Idx[P]]; Q < B.Ptr[A.Idx[P] + 1]; ++Q)
        Row[B.Idx[Q]] += (double)A.Val[P] * (double)B.Val[Q];
    for (auto [J, V] : Row) {
      C.Idx.push_back(J);
      C.Val.push_back(V);
    }
    C.Ptr.push_back((int)C.Idx.size());
  }
  return C;
}

template <typename T>
static void classic(const char *Name, cudaDataType Ty, double Tol, cusparseHandle_t H) {
  HostCsr<T> A = randomCsr<T>(200, 200, 5, 31, true);
  int N = A.Rows;
  int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
  T *DVal = upload(A.Val);
  int *DCPtr;
  CHECK(cudaMalloc(&DCPtr, (N + 1) * sizeof(int)));
  cusparseSpMatDescr_t MA, MC;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, Ty));
  CUSPARSE_CHECK(cusparseCreateCsr(&MC, N, N, 0, DCPtr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, Ty));
  cusparseSpGEMMDescr_t D;
  CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&D));
  T Alpha = 1, Beta = 0;
  auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t Size1 = 0, Size2 = 0;
  void *Buf1 = nullptr, *Buf2 = nullptr;
  CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, MA, MA, &Beta, MC, Ty,
                                               CUSPARSE_SPGEMM_DEFAULT, D, &Size1, nullptr));
  CHECK(cudaMalloc(&Buf1, Size1));
  CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, MA, MA, &Beta, MC, Ty,
                                               CUSPARSE_SPGEMM_DEFAULT, D, &Size1, Buf1));
  CUSPARSE_CHECK(cusparseSpGEMM_compute(H, Op, Op, &Alpha, MA, MA, &Beta, MC, Ty,
                                        CUSPARSE_SPGEMM_DEFAULT, D, &Size2, nullptr));
  CHECK(cudaMalloc(&Buf2, Size2));
  CUSPARSE_CHECK(cusparseSpGEMM_compute(H, Op, Op, &Alpha, MA, MA, &Beta, MC, Ty,
                                        CUSPARSE_SPGEMM_DEFAULT, D, &Size2, Buf2));
  int64_t R, C, Nnz;
  CUSPARSE_CHECK(cusparseSpMatGetSize(MC, &R, &C, &Nnz));
  int *DCIdx;
  T *DCVal;
  CHECK(cudaMalloc(&DCIdx, Nnz * sizeof(int)));
  CHECK(cudaMalloc(&DCVal, Nnz * sizeof(T)));
  CUSPARSE_CHECK(cusparseCsrSetPointers(MC, DCPtr, DCIdx, DCVal));
  CUSPARSE_CHECK(
      cusparseSpGEMM_copy(H, Op, Op, &Alpha, MA, MA, &Beta, MC, Ty, CUSPARSE_SPGEMM_DEFAULT, D));
  CHECK(cudaDeviceSynchronize());
  HostCsr<double> Want = hostProduct(A, A);
  std::vector<int> GotPtr = download(DCPtr, N + 1), GotIdx = download(DCIdx, Nnz);
  std::vector<T> GotVal = download(DCVal, Nnz);
  // cuSPARSE sorts each row's columns; compare as sorted rows.
  bool Ok = GotPtr == Want.Ptr && GotIdx == Want.Idx && allClose(GotVal, Want.Val, Tol);
  std::printf("%s: C is %lld x %lld with %lld entries (host: %d)\n", Name, (long long)R,
              (long long)C, (long long)Nnz, Want.nnz());
  report(Name, Ok, sumAbs(GotVal));
  CUSPARSE_CHECK(cusparseSpGEMM_destroyDescr(D));
  CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  CUSPARSE_CHECK(cusparseDestroySpMat(MC));
  cudaFree(DPtr), cudaFree(DIdx), cudaFree(DVal), cudaFree(DCPtr), cudaFree(DCIdx), cudaFree(DCVal);
  cudaFree(Buf1), cudaFree(Buf2);
}

static void reuse(cusparseHandle_t H) {
  HostCsr<float> A = randomCsr<float>(150, 120, 4, 41, false),
                 B = randomCsr<float>(120, 150, 4, 42, false);
  int *DAPtr = upload(A.Ptr), *DAIdx = upload(A.Idx), *DBPtr = upload(B.Ptr),
      *DBIdx = upload(B.Idx), *DCPtr;
  float *DAVal = upload(A.Val), *DBVal = upload(B.Val);
  CHECK(cudaMalloc(&DCPtr, (A.Rows + 1) * sizeof(int)));
  cusparseSpMatDescr_t MA, MB, MC;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, A.Rows, A.Cols, A.nnz(), DAPtr, DAIdx, DAVal,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                   CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateCsr(&MB, B.Rows, B.Cols, B.nnz(), DBPtr, DBIdx, DBVal,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                   CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateCsr(&MC, A.Rows, B.Cols, 0, nullptr, nullptr, nullptr,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                   CUDA_R_32F));
  cusparseSpGEMMDescr_t D;
  CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&D));
  auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  auto Alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t S1 = 0, S2 = 0, S3 = 0, S4 = 0, S5 = 0;
  void *B1, *B2, *B3, *B4, *B5;
  CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(H, Op, Op, MA, MB, MC, Alg, D, &S1, nullptr));
  CHECK(cudaMalloc(&B1, S1));
  CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(H, Op, Op, MA, MB, MC, Alg, D, &S1, B1));
  CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(H, Op, Op, MA, MB, MC, Alg, D, &S2, nullptr, &S3, nullptr,
                                         &S4, nullptr));
  CHECK(cudaMalloc(&B2, S2));
  CHECK(cudaMalloc(&B3, S3));
  CHECK(cudaMalloc(&B4, S4));
  CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(H, Op, Op, MA, MB, MC, Alg, D, &S2, B2, &S3, B3, &S4, B4));
  int64_t R, C, Nnz;
  CUSPARSE_CHECK(cusparseSpMatGetSize(MC, &R, &C, &Nnz));
  int *DCIdx;
  float *DCVal;
  CHECK(cudaMalloc(&DCIdx, Nnz * sizeof(int)));
  CHECK(cudaMalloc(&DCVal, Nnz * sizeof(float)));
  CUSPARSE_CHECK(cusparseCsrSetPointers(MC, DCPtr, DCIdx, DCVal));
  CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(H, Op, Op, MA, MB, MC, Alg, D, &S5, nullptr));
  CHECK(cudaMalloc(&B5, S5));
  CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(H, Op, Op, MA, MB, MC, Alg, D, &S5, B5));
  float Alpha = 2, Beta = 0;
  for (int Round = 0; Round < 2; ++Round) {
    if (Round == 1) { // new values of A, same structure
      for (auto &V : A.Val)
        V = V * 0.5f + 0.25f;
      CHECK(cudaMemcpy(DAVal, A.Val.data(), A.nnz() * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUSPARSE_CHECK(
        cusparseSpGEMMreuse_compute(H, Op, Op, &Alpha, MA, MB, &Beta, MC, CUDA_R_32F, Alg, D));
    CHECK(cudaDeviceSynchronize());
    HostCsr<double> Want = hostProduct(A, B);
    for (auto &V : Want.Val)
      V *= Alpha;
    std::vector<int> GotPtr = download(DCPtr, A.Rows + 1), GotIdx = download(DCIdx, Nnz);
    std::vector<float> GotVal = download(DCVal, Nnz);
    bool Ok = GotPtr == Want.Ptr && GotIdx == Want.Idx && allClose(GotVal, Want.Val, 1e-5);
    std::printf("reuse round %d: nnz %lld (host %d)\n", Round, (long long)Nnz, Want.nnz());
    report(Round ? "reuse-new-vals" : "reuse-first", Ok, sumAbs(GotVal));
  }
  CUSPARSE_CHECK(cusparseSpGEMM_destroyDescr(D));
  for (auto M : {MA, MB, MC})
    CUSPARSE_CHECK(cusparseDestroySpMat(M));
}

int main() {
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  classic<float>("spgemm-float", CUDA_R_32F, 1e-5, H);
  classic<double>("spgemm-double", CUDA_R_64F, 1e-12, H);
  reuse(H);
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
