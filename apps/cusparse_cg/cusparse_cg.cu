/// \file
/// Conjugate gradients as the cuda-samples' conjugateGradient does it: the
/// matrix in CSR behind a cuSPARSE generic descriptor, cusparseSpMV for
/// A p, cuBLAS for the dot products and updates, on one non-default stream
/// shared by both handles. Solves the 2D Laplacian (48 x 48 grid) in double
/// and single precision and checks the solution against A x = b on the
/// host; prints verdicts and checksums, not iteration counts (those may
/// differ by one between implementations that sum in another order).
#include "../common/sparse_util.h"
#include <cublas_v2.h>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

template <typename T> struct Blas;
template <> struct Blas<double> {
  static cublasStatus_t dot(cublasHandle_t H, int N, const double *X, const double *Y, double *R) {
    return cublasDdot(H, N, X, 1, Y, 1, R);
  }
  static cublasStatus_t axpy(cublasHandle_t H, int N, const double *A, const double *X, double *Y) {
    return cublasDaxpy(H, N, A, X, 1, Y, 1);
  }
  static cublasStatus_t scal(cublasHandle_t H, int N, const double *A, double *X) {
    return cublasDscal(H, N, A, X, 1);
  }
  static constexpr cudaDataType Type = CUDA_R_64F;
};
template <> struct Blas<float> {
  static cublasStatus_t dot(cublasHandle_t H, int N, const float *X, const float *Y, float *R) {
    return cublasSdot(H, N, X, 1, Y, 1, R);
  }
  static cublasStatus_t axpy(cublasHandle_t H, int N, const float *A, const float *X, float *Y) {
    return cublasSaxpy(H, N, A, X, 1, Y, 1);
  }
  static cublasStatus_t scal(cublasHandle_t H, int N, const float *A, float *X) {
    return cublasSscal(H, N, A, X, 1);
  }
  static constexpr cudaDataType Type = CUDA_R_32F;
};

template <typename T>
void solve(const char *Name, double Tol, cudaStream_t S, cusparseHandle_t Sp, cublasHandle_t Bl) {
  HostCsr<T> A = laplacian2d<T>(48);
  int N = A.Rows;
  std::vector<T> B(N, T(1)), X(N, T(0));
  int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
  T *DVal = upload(A.Val), *DX = upload(X), *DR = upload(B), *DP, *DAp;
  CHECK(cudaMalloc(&DP, N * sizeof(T)));
  CHECK(cudaMalloc(&DAp, N * sizeof(T)));
  cusparseSpMatDescr_t MA;
  cusparseDnVecDescr_t VP, VAp;
  cudaDataType Ty = Blas<T>::Type;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, Ty));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VP, N, DP, Ty));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VAp, N, DAp, Ty));
  T One = 1, Zero = 0;
  size_t Size = 0;
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, MA, VP, &Zero,
                                         VAp, Ty, CUSPARSE_SPMV_ALG_DEFAULT, &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size ? Size : 1));
  // x = 0, r = b, p = r
  CHECK(cudaMemcpyAsync(DP, DR, N * sizeof(T), cudaMemcpyDeviceToDevice, S));
  T Rr, RrNew, PAp;
  CUBLAS_CHECK(Blas<T>::dot(Bl, N, DR, DR, &Rr));
  double Rr0 = Rr;
  int It = 0;
  while (It < 2000 && Rr > Tol * Tol * Rr0) {
    CUSPARSE_CHECK(cusparseSpMV(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, MA, VP, &Zero, VAp, Ty,
                                CUSPARSE_SPMV_ALG_DEFAULT, Buf));
    CUBLAS_CHECK(Blas<T>::dot(Bl, N, DP, DAp, &PAp));
    T Alpha = Rr / PAp, NegAlpha = -Alpha;
    CUBLAS_CHECK(Blas<T>::axpy(Bl, N, &Alpha, DP, DX));
    CUBLAS_CHECK(Blas<T>::axpy(Bl, N, &NegAlpha, DAp, DR));
    CUBLAS_CHECK(Blas<T>::dot(Bl, N, DR, DR, &RrNew));
    T Beta = RrNew / Rr;
    CUBLAS_CHECK(Blas<T>::scal(Bl, N, &Beta, DP));
    CUBLAS_CHECK(Blas<T>::axpy(Bl, N, &One, DR, DP));
    Rr = RrNew;
    ++It;
  }
  CHECK(cudaStreamSynchronize(S));
  std::vector<T> Got = download(DX, N);
  std::vector<double> Ax = hostSpmv(A, Got);
  double Err = 0;
  for (int I = 0; I < N; ++I)
    Err = std::max(Err, std::fabs(Ax[I] - 1.0));
  report(Name, It < 2000 && Err < 50 * Tol, sumAbs(Got));
  CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VP));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VAp));
  cudaFree(DPtr), cudaFree(DIdx), cudaFree(DVal), cudaFree(DX), cudaFree(DR), cudaFree(DP),
      cudaFree(DAp), cudaFree(Buf);
}

int main() {
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  cusparseHandle_t Sp;
  cublasHandle_t Bl;
  CUSPARSE_CHECK(cusparseCreate(&Sp));
  CUBLAS_CHECK(cublasCreate(&Bl));
  CUSPARSE_CHECK(cusparseSetStream(Sp, S));
  CUBLAS_CHECK(cublasSetStream(Bl, S));
  int Version = 0;
  CUSPARSE_CHECK(cusparseGetVersion(Sp, &Version));
  std::printf("cusparse major version %d\n", Version / 1000);
  solve<double>("cg-double", 1e-10, S, Sp, Bl);
  solve<float>("cg-float", 1e-5, S, Sp, Bl);
  CUSPARSE_CHECK(cusparseDestroy(Sp));
  CUBLAS_CHECK(cublasDestroy(Bl));
  return finish(Failures == 0);
}
