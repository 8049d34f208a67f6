/// \file
/// LU factorizations checked by reconstruction, as code that reuses the
/// factors does: getrf without pivoting (devIpiv = NULL) on a diagonally
/// dominant matrix, in double and single precision, the factors multiplied
/// back into A and the no-pivot getrs solve; and a tall 30 x 20 getrf with
/// pivoting whose P L U must give A back. Prints verdicts and checksums of
/// the factors' diagonals (unique without pivoting).
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

/// max |P L U - A| / max |A| for the m x n factors F (column-major, lda m);
/// Piv (1-based row swaps as LAPACK) may be empty.
template <typename T>
static double reconstruct(const std::vector<T> &A, const std::vector<T> &F, const std::vector<int> &Piv, int M, int N) {
  int K = std::min(M, N);
  std::vector<double> LU(M * N, 0.0);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int P = 0; P <= std::min(I, std::min(J, K - 1)); ++P) {
        double L = P == I ? 1.0 : F[P * M + I];
        S += L * F[J * M + P];
      }
      LU[J * M + I] = S;
    }
  // Undo the row interchanges, last first.
  for (int P = (int)Piv.size() - 1; P >= 0; --P) {
    int Q = Piv[P] - 1;
    if (Q != P)
      for (int J = 0; J < N; ++J)
        std::swap(LU[J * M + P], LU[J * M + Q]);
  }
  double Worst = 0, Scale = 0;
  for (int I = 0; I < M * N; ++I) {
    Worst = std::fmax(Worst, std::fabs(LU[I] - (double)A[I]));
    Scale = std::fmax(Scale, std::fabs((double)A[I]));
  }
  return Worst / Scale;
}

template <typename T> static std::vector<T> dominant(Lcg &R, int N) {
  std::vector<T> A(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      A[J * N + I] = T(R.range(-1, 1) + (I == J ? N : 0));
  return A;
}

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(5);
  const int N = 40;
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));

  {
    auto A = dominant<double>(R, N);
    std::vector<double> B(N);
    for (double &V : B)
      V = R.range(-1, 1);
    double *DA = upload(A), *DB = upload(B), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgetrf(H, N, N, DA, N, DW, nullptr, Info));
    auto F = download(DA, A.size());
    int HInfo = download(Info, 1)[0];
    double Diag = 0;
    for (int I = 0; I < N; ++I)
      Diag += F[I * N + I];
    report("dgetrf_nopiv", HInfo == 0 && reconstruct(A, F, {}, N, N) < 1e-14, Diag);
    CUSOLVER_CHECK(cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, DA, N, nullptr, DB, N, Info));
    auto X = download(DB, N);
    double Worst = 0, Sum = 0;
    for (int I = 0; I < N; ++I) {
      double S = -B[I];
      for (int K = 0; K < N; ++K)
        S += A[K * N + I] * X[K];
      Worst = std::fmax(Worst, std::fabs(S));
      Sum += std::fabs(X[I]);
    }
    report("dgetrs_nopiv", Worst < 1e-12, Sum);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
  }
  {
    auto A = dominant<float>(R, N);
    float *DA = upload(A), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnSgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSgetrf(H, N, N, DA, N, DW, nullptr, Info));
    auto F = download(DA, A.size());
    int HInfo = download(Info, 1)[0];
    double Diag = 0;
    for (int I = 0; I < N; ++I)
      Diag += F[I * N + I];
    report("sgetrf_nopiv", HInfo == 0 && reconstruct(A, F, {}, N, N) < 1e-6, Diag);
    cudaFree(DA);
    cudaFree(DW);
  }
  {
    const int M = 30, Nc = 20;
    std::vector<double> A(M * Nc);
    for (double &V : A)
      V = R.range(-1, 1);
    double *DA = upload(A), *DW;
    int *Piv, Lwork = 0;
    CHECK(cudaMalloc(&Piv, Nc * sizeof(int)));
    CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(H, M, Nc, DA, M, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgetrf(H, M, Nc, DA, M, DW, Piv, Info));
    auto F = download(DA, A.size());
    auto P = download(Piv, Nc);
    int HInfo = download(Info, 1)[0];
    double Diag = 0;
    for (int I = 0; I < Nc; ++I)
      Diag += std::fabs(F[I * M + I]);
    report("dgetrf_tall", HInfo == 0 && reconstruct(A, F, P, M, Nc) < 1e-14, Diag);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Piv);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
