/// \file
/// Linear least squares by QR, the way cuSOLVER's documentation and fitting
/// code do it: geqrf of a tall 60 x 12 matrix, ormqr applying Q^T to the
/// right-hand sides, and cuBLAS's trsm solving R x = (Q^T b)(1:n); then
/// orgqr forming Q explicitly (orthonormal columns, Q R = A). The solution
/// is compared with the normal equations solved on the host in double.
#include "../common/lib_util.h"
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)
#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

/// Solves (A^T A) x = A^T b on the host (Cholesky), A m x n column-major.
static std::vector<double> normalEquations(const std::vector<double> &A, const std::vector<double> &B, int M, int N,
                                           int Col) {
  std::vector<double> G(N * N), Y(N);
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int K = 0; K < M; ++K)
        S += A[I * M + K] * A[J * M + K];
      G[J * N + I] = S;
    }
    double S = 0;
    for (int K = 0; K < M; ++K)
      S += A[I * M + K] * B[Col * M + K];
    Y[I] = S;
  }
  for (int J = 0; J < N; ++J) {
    double D = G[J * N + J];
    for (int K = 0; K < J; ++K)
      D -= G[K * N + J] * G[K * N + J];
    D = std::sqrt(D);
    G[J * N + J] = D;
    for (int I = J + 1; I < N; ++I) {
      double S = G[J * N + I];
      for (int K = 0; K < J; ++K)
        S -= G[K * N + I] * G[K * N + J];
      G[J * N + I] = S / D;
    }
  }
  for (int I = 0; I < N; ++I) {
    for (int K = 0; K < I; ++K)
      Y[I] -= G[K * N + I] * Y[K];
    Y[I] /= G[I * N + I];
  }
  for (int I = N - 1; I >= 0; --I) {
    for (int K = I + 1; K < N; ++K)
      Y[I] -= G[I * N + K] * Y[K];
    Y[I] /= G[I * N + I];
  }
  return Y;
}

int main() {
  cusolverDnHandle_t H;
  cublasHandle_t Blas;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  CUBLAS_CHECK(cublasCreate(&Blas));
  Lcg R(41);
  const int M = 60, N = 12, Nrhs = 2;
  std::vector<double> A(M * N), B(M * Nrhs);
  for (double &V : A)
    V = R.range(-1, 1);
  for (double &V : B)
    V = R.range(-3, 3);
  double *DA = upload(A), *DB = upload(B), *Tau, *DW;
  int *Info;
  CHECK(cudaMalloc(&Tau, N * sizeof(double)));
  CHECK(cudaMalloc(&Info, sizeof(int)));
  int Lgeqrf = 0, Lormqr = 0, Lorgqr = 0;
  CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(H, M, N, DA, M, &Lgeqrf));
  CUSOLVER_CHECK(cusolverDnDormqr_bufferSize(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, M, Nrhs, N, DA, M, Tau, DB, M, &Lormqr));
  CUSOLVER_CHECK(cusolverDnDorgqr_bufferSize(H, M, N, N, DA, M, Tau, &Lorgqr));
  int Lwork = std::max(1, std::max(Lgeqrf, std::max(Lormqr, Lorgqr)));
  CHECK(cudaMalloc(&DW, Lwork * sizeof(double)));

  CUSOLVER_CHECK(cusolverDnDgeqrf(H, M, N, DA, M, Tau, DW, Lwork, Info));
  int I1 = download(Info, 1)[0];
  CUSOLVER_CHECK(cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, M, Nrhs, N, DA, M, Tau, DB, M, DW, Lwork, Info));
  int I2 = download(Info, 1)[0];
  const double One = 1.0;
  CUBLAS_CHECK(cublasDtrsm(Blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, Nrhs,
                           &One, DA, M, DB, M));
  auto X = download(DB, B.size());
  std::printf("geqrf info=%d ormqr info=%d\n", I1, I2);
  for (int C = 0; C < Nrhs; ++C) {
    auto Want = normalEquations(A, B, M, N, C);
    bool Ok = true;
    double Sum = 0;
    for (int I = 0; I < N; ++I) {
      Ok &= closeTo(X[C * M + I], Want[I], 1e-10, 1e-12);
      Sum += std::fabs(X[C * M + I]);
    }
    report(C ? "lstsq_rhs1" : "lstsq_rhs0", Ok && I1 == 0 && I2 == 0, Sum);
  }

  // R from the factored A, then Q explicitly.
  auto F = download(DA, A.size());
  CUSOLVER_CHECK(cusolverDnDorgqr(H, M, N, N, DA, M, Tau, DW, Lwork, Info));
  auto Q = download(DA, A.size());
  int I3 = download(Info, 1)[0];
  double Orth = 0, Rec = 0, RDiag = 0;
  for (int I = 0; I < N; ++I) {
    RDiag += std::fabs(F[I * M + I]);
    for (int J = 0; J < N; ++J) {
      double S = I == J ? -1.0 : 0.0;
      for (int K = 0; K < M; ++K)
        S += Q[I * M + K] * Q[J * M + K];
      Orth = std::fmax(Orth, std::fabs(S));
    }
  }
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = -A[J * M + I];
      for (int K = 0; K <= J; ++K)
        S += Q[K * M + I] * F[J * M + K];
      Rec = std::fmax(Rec, std::fabs(S));
    }
  report("orgqr", I3 == 0 && Orth < 1e-13 && Rec < 1e-13, RDiag);

  cudaFree(DA);
  cudaFree(DB);
  cudaFree(Tau);
  cudaFree(DW);
  cudaFree(Info);
  CUBLAS_CHECK(cublasDestroy(Blas));
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
