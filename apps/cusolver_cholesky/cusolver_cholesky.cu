/// \file
/// Cholesky as covariance and finite-element code uses it: potrf + potrs
/// on an SPD matrix with the lower and the upper triangle, two right-hand
/// sides, the inverse from potri (symmetrized and multiplied back), single
/// precision, and a symmetric matrix that is not positive definite, whose
/// devInfo is the order of the first failing leading minor. Prints
/// verdicts, devInfo values and checksums.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

template <typename T> static std::vector<T> spd(Lcg &R, int N) {
  std::vector<double> B(N * N);
  for (double &V : B)
    V = R.range(-1, 1);
  std::vector<T> A(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double S = I == J ? N : 0;
      for (int K = 0; K < N; ++K)
        S += B[K * N + I] * B[K * N + J];
      A[J * N + I] = T(S);
    }
  return A;
}

template <typename T>
static double residual(const std::vector<T> &A, const std::vector<T> &X, const std::vector<T> &B, int N, int Nrhs) {
  double Worst = 0;
  for (int C = 0; C < Nrhs; ++C)
    for (int I = 0; I < N; ++I) {
      double S = -(double)B[C * N + I];
      for (int K = 0; K < N; ++K)
        S += (double)A[K * N + I] * X[C * N + K];
      Worst = std::fmax(Worst, std::fabs(S));
    }
  return Worst;
}

template <typename T> static double absSum(const std::vector<T> &V) {
  double S = 0;
  for (T X : V)
    S += std::fabs((double)X);
  return S;
}

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(23);
  const int N = 40, Nrhs = 2;
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));
  auto A = spd<double>(R, N);
  std::vector<double> B(N * Nrhs);
  for (double &V : B)
    V = R.range(-1, 1);

  for (cublasFillMode_t Uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER}) {
    double *DA = upload(A), *DB = upload(B), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(H, Uplo, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDpotrf(H, Uplo, N, DA, N, DW, Lwork, Info));
    int HInfo = download(Info, 1)[0];
    auto F = download(DA, A.size());
    double Diag = 0;
    for (int I = 0; I < N; ++I)
      Diag += F[I * N + I];
    CUSOLVER_CHECK(cusolverDnDpotrs(H, Uplo, N, Nrhs, DA, N, DB, N, Info));
    auto X = download(DB, B.size());
    bool Lower = Uplo == CUBLAS_FILL_MODE_LOWER;
    report(Lower ? "dpotrf_lower" : "dpotrf_upper", HInfo == 0, Diag);
    report(Lower ? "dpotrs_lower" : "dpotrs_upper", residual(A, X, B, N, Nrhs) < 1e-11, absSum(X));
    if (Lower) {
      // potri: the inverse from the factor (lower triangle written).
      CUSOLVER_CHECK(cusolverDnDpotri_bufferSize(H, Uplo, N, DA, N, &Lwork));
      double *DW2;
      CHECK(cudaMalloc(&DW2, std::max(Lwork, 1) * sizeof(double)));
      CUSOLVER_CHECK(cusolverDnDpotri(H, Uplo, N, DA, N, DW2, Lwork, Info));
      auto Inv = download(DA, A.size());
      int PInfo = download(Info, 1)[0];
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < J; ++I)
          Inv[J * N + I] = Inv[I * N + J];
      double Worst = 0;
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < N; ++I) {
          double S = I == J ? -1.0 : 0.0;
          for (int K = 0; K < N; ++K)
            S += A[K * N + I] * Inv[J * N + K];
          Worst = std::fmax(Worst, std::fabs(S));
        }
      report("dpotri", PInfo == 0 && Worst < 1e-12, absSum(Inv));
      cudaFree(DW2);
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
  }

  {
    auto As = spd<float>(R, 24);
    std::vector<float> Bs(24);
    for (float &V : Bs)
      V = R.range(-1, 1);
    float *DA = upload(As), *DB = upload(Bs), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, 24, DA, 24, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSpotrf(H, CUBLAS_FILL_MODE_LOWER, 24, DA, 24, DW, Lwork, Info));
    CUSOLVER_CHECK(cusolverDnSpotrs(H, CUBLAS_FILL_MODE_LOWER, 24, 1, DA, 24, DB, 24, Info));
    auto X = download(DB, 24);
    report("spotrf+spotrs", download(Info, 1)[0] == 0 && residual(As, X, Bs, 24, 1) < 1e-4, absSum(X));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
  }

  // Symmetric, not positive definite: a diagonal matrix with a negative
  // sixth entry and a coupling that leaves the first five minors positive.
  {
    const int M = 8;
    std::vector<double> S(M * M, 0.0);
    for (int I = 0; I < M; ++I)
      S[I * M + I] = I == 5 ? -2.0 : 4.0;
    S[1 * M + 0] = S[0 * M + 1] = 1.0;
    double *DA = upload(S), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, M, DA, M, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, M, DA, M, DW, Lwork, Info));
    int HInfo = download(Info, 1)[0];
    std::printf("not SPD potrf info=%d\n", HInfo);
    report("dpotrf_not_spd", HInfo == 6, HInfo);
    cudaFree(DA);
    cudaFree(DW);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
