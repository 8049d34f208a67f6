/// \file
/// The Jacobi-method eigen and singular value solvers as CuPy and PyTorch
/// call them: syevj with a syevjInfo_t (tolerance, sweeps, sorting set),
/// syevjBatched over many small symmetric matrices, gesvdj in economy form
/// (V returned, not V^T) on a tall matrix, gesvdjBatched over small square
/// ones, and heevj on a Hermitian matrix. Each result is judged by its
/// residual; eigen and singular values are printed to five digits, vectors
/// never (their signs are the implementation's).
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <complex>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

/// max |A v_k - w_k v_k| over the eigenpairs of a column-major n x n A.
static double eigResidual(const double *A, const double *V, const double *W, int N) {
  double Worst = 0;
  for (int K = 0; K < N; ++K)
    for (int I = 0; I < N; ++I) {
      double S = -W[K] * V[K * N + I];
      for (int J = 0; J < N; ++J)
        S += A[J * N + I] * V[K * N + J];
      Worst = std::fmax(Worst, std::fabs(S));
    }
  return Worst;
}

static std::vector<double> symmetric(Lcg &R, int N, int Count) {
  std::vector<double> A(N * N * Count);
  for (int B = 0; B < Count; ++B)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I)
        A[B * N * N + J * N + I] = A[B * N * N + I * N + J] = R.range(-1, 1);
  return A;
}

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(61);
  int *Info;
  CHECK(cudaMalloc(&Info, 16 * sizeof(int)));

  // syevj with explicit parameters.
  {
    const int N = 24;
    auto A = symmetric(R, N, 1);
    syevjInfo_t P;
    CUSOLVER_CHECK(cusolverDnCreateSyevjInfo(&P));
    CUSOLVER_CHECK(cusolverDnXsyevjSetTolerance(P, 1e-14));
    CUSOLVER_CHECK(cusolverDnXsyevjSetMaxSweeps(P, 30));
    CUSOLVER_CHECK(cusolverDnXsyevjSetSortEig(P, 1));
    double *DA = upload(A), *DW, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, &Lwork, P));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Work, Lwork, Info, P));
    auto W = download(DW, N), V = download(DA, N * N);
    bool Sorted = true;
    for (int K = 1; K < N; ++K)
      Sorted &= W[K] >= W[K - 1];
    std::printf("dsyevj w: %.5g ... %.5g\n", W[0], W[N - 1]);
    report("dsyevj", download(Info, 1)[0] == 0 && Sorted && eigResidual(A.data(), V.data(), W.data(), N) < 1e-10,
           W[N - 1] - W[0]);
    CUSOLVER_CHECK(cusolverDnDestroySyevjInfo(P));
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }
  // syevjBatched: 10 matrices of 6 x 6.
  {
    const int N = 6, Batch = 10;
    auto A = symmetric(R, N, Batch);
    syevjInfo_t P;
    CUSOLVER_CHECK(cusolverDnCreateSyevjInfo(&P));
    double *DA = upload(A), *DW, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * Batch * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevjBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW,
                                                      &Lwork, P, Batch));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevjBatched(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, Work, Lwork,
                                           Info, P, Batch));
    auto W = download(DW, N * Batch), V = download(DA, N * N * Batch);
    auto I = download(Info, Batch);
    bool Ok = true;
    double Sum = 0;
    for (int B = 0; B < Batch; ++B) {
      Ok &= I[B] == 0 && eigResidual(&A[B * N * N], &V[B * N * N], &W[B * N], N) < 1e-10;
      Sum += W[B * N + N - 1];
    }
    report("dsyevjBatched", Ok, Sum);
    CUSOLVER_CHECK(cusolverDnDestroySyevjInfo(P));
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }
  // gesvdj, economy form, 30 x 9.
  {
    const int M = 30, N = 9;
    std::vector<double> A(M * N);
    for (double &X : A)
      X = R.range(-1, 1);
    gesvdjInfo_t P;
    CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&P));
    CUSOLVER_CHECK(cusolverDnXgesvdjSetTolerance(P, 1e-14));
    CUSOLVER_CHECK(cusolverDnXgesvdjSetMaxSweeps(P, 20));
    double *DA = upload(A), *DS, *DU, *DV, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, N * sizeof(double)));
    CHECK(cudaMalloc(&DU, M * N * sizeof(double)));
    CHECK(cudaMalloc(&DV, N * N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvdj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, 1, M, N, DA, M, DS, DU, M, DV, N, &Lwork, P));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvdj(H, CUSOLVER_EIG_MODE_VECTOR, 1, M, N, DA, M, DS, DU, M, DV, N, Work, Lwork, Info, P));
    auto S = download(DS, N), U = download(DU, M * N), V = download(DV, N * N);
    double Rec = 0, Sum = 0;
    bool Sorted = true;
    for (int K = 0; K < N; ++K) {
      Sum += S[K];
      Sorted &= K == 0 || S[K] <= S[K - 1];
    }
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double X = -A[J * M + I];
        for (int K = 0; K < N; ++K)
          X += U[K * M + I] * S[K] * V[K * N + J];
        Rec = std::fmax(Rec, std::fabs(X));
      }
    std::printf("dgesvdj sigma: %.5g ... %.5g\n", S[0], S[N - 1]);
    report("dgesvdj_econ", download(Info, 1)[0] == 0 && Sorted && Rec < 1e-10, Sum);
    CUSOLVER_CHECK(cusolverDnDestroyGesvdjInfo(P));
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DU);
    cudaFree(DV);
    cudaFree(Work);
  }
  // gesvdjBatched: 8 matrices of 5 x 5.
  {
    const int N = 5, Batch = 8;
    std::vector<double> A(N * N * Batch);
    for (double &X : A)
      X = R.range(-1, 1);
    gesvdjInfo_t P;
    CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&P));
    double *DA = upload(A), *DS, *DU, *DV, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, N * Batch * sizeof(double)));
    CHECK(cudaMalloc(&DU, N * N * Batch * sizeof(double)));
    CHECK(cudaMalloc(&DV, N * N * Batch * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvdjBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, N, N, DA, N, DS, DU, N, DV, N, &Lwork,
                                                       P, Batch));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvdjBatched(H, CUSOLVER_EIG_MODE_VECTOR, N, N, DA, N, DS, DU, N, DV, N, Work, Lwork, Info,
                                            P, Batch));
    auto S = download(DS, N * Batch), U = download(DU, N * N * Batch), V = download(DV, N * N * Batch);
    auto I = download(Info, Batch);
    bool Ok = true;
    double Sum = 0;
    for (int B = 0; B < Batch; ++B) {
      double Rec = 0;
      for (int J = 0; J < N; ++J)
        for (int Row = 0; Row < N; ++Row) {
          double X = -A[B * N * N + J * N + Row];
          for (int K = 0; K < N; ++K)
            X += U[B * N * N + K * N + Row] * S[B * N + K] * V[B * N * N + K * N + J];
          Rec = std::fmax(Rec, std::fabs(X));
        }
      Ok &= I[B] == 0 && Rec < 1e-10;
      Sum += S[B * N];
    }
    report("dgesvdjBatched", Ok, Sum);
    CUSOLVER_CHECK(cusolverDnDestroyGesvdjInfo(P));
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DU);
    cudaFree(DV);
    cudaFree(Work);
  }
  // heevj on a Hermitian 12 x 12 matrix.
  {
    using Z = std::complex<double>;
    const int N = 12;
    std::vector<Z> A(N * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I) {
        Z X(R.range(-1, 1), I == J ? 0.0 : R.range(-1, 1));
        A[J * N + I] = X;
        A[I * N + J] = std::conj(X);
      }
    syevjInfo_t P;
    CUSOLVER_CHECK(cusolverDnCreateSyevjInfo(&P));
    auto *DA = reinterpret_cast<cuDoubleComplex *>(upload(A));
    double *DW;
    cuDoubleComplex *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnZheevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, &Lwork, P));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(cuDoubleComplex)));
    CUSOLVER_CHECK(cusolverDnZheevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Work, Lwork, Info, P));
    auto W = download(DW, N);
    auto V = download(reinterpret_cast<Z *>(DA), N * N);
    double Res = 0, Trace = 0, Sum = 0;
    for (int I = 0; I < N; ++I)
      Trace += A[I * N + I].real();
    for (int K = 0; K < N; ++K) {
      Sum += W[K];
      for (int I = 0; I < N; ++I) {
        Z S = -W[K] * V[K * N + I];
        for (int J = 0; J < N; ++J)
          S += A[J * N + I] * V[K * N + J];
        Res = std::fmax(Res, std::abs(S));
      }
    }
    std::printf("zheevj w: %.5g ... %.5g\n", W[0], W[N - 1]);
    report("zheevj", download(Info, 1)[0] == 0 && Res < 1e-10 && closeTo(Sum, Trace, 1e-10, 1e-10), W[N - 1] - W[0]);
    CUSOLVER_CHECK(cusolverDnDestroySyevjInfo(P));
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
