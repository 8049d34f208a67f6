/// \file
/// Symmetric eigenproblems as vibration, graph-spectral and quantum code
/// solves them: D syevd with eigenvectors on the 1-D Laplacian (eigenvalues
/// 2 - 2 cos(k pi / (n + 1)) known in closed form), the residual
/// |A V - V diag(w)| and V^T V = I; eigenvalues only from the upper
/// triangle in single precision; and a random symmetric matrix whose
/// eigenvalue sum must equal its trace. Eigenvalues print to five digits;
/// vectors only through residuals (their signs are the implementation's).
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  const int N = 20;
  const double Pi = 3.14159265358979323846;
  std::vector<double> A(N * N, 0.0);
  for (int I = 0; I < N; ++I) {
    A[I * N + I] = 2.0;
    if (I + 1 < N)
      A[I * N + I + 1] = A[(I + 1) * N + I] = -1.0;
  }
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));

  {
    double *DA = upload(A), *DW, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, &Lwork));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Work, Lwork, Info));
    auto W = download(DW, N), V = download(DA, N * N);
    int HInfo = download(Info, 1)[0];
    bool Ok = HInfo == 0;
    for (int K = 0; K < N; ++K)
      Ok &= closeTo(W[K], 2 - 2 * std::cos((K + 1) * Pi / (N + 1)), 1e-12, 1e-13);
    double Res = 0, Orth = 0;
    for (int K = 0; K < N; ++K)
      for (int I = 0; I < N; ++I) {
        double S = -W[K] * V[K * N + I];
        for (int J = 0; J < N; ++J)
          S += A[J * N + I] * V[K * N + J];
        Res = std::fmax(Res, std::fabs(S));
        double D = I == K ? -1.0 : 0.0;
        for (int J = 0; J < N; ++J)
          D += V[I * N + J] * V[K * N + J];
        Orth = std::fmax(Orth, std::fabs(D));
      }
    std::printf("dsyevd info=%d w: %.5g %.5g ... %.5g\n", HInfo, W[0], W[1], W[N - 1]);
    report("dsyevd_vectors", Ok && Res < 1e-13 && Orth < 1e-13, W[0] + W[N - 1]);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }

  {
    std::vector<float> Af(A.begin(), A.end());
    float *DA = upload(Af), *DW, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSsyevd_bufferSize(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, &Lwork));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSsyevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, Work, Lwork, Info));
    auto W = download(DW, N);
    bool Ok = download(Info, 1)[0] == 0;
    double Sum = 0;
    for (int K = 0; K < N; ++K) {
      Ok &= closeTo(W[K], 2 - 2 * std::cos((K + 1) * Pi / (N + 1)), 1e-5, 1e-5);
      Sum += W[K];
    }
    report("ssyevd_values", Ok, Sum);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }

  {
    const int M = 33;
    Lcg R(9);
    std::vector<double> S(M * M);
    double Trace = 0;
    for (int J = 0; J < M; ++J)
      for (int I = 0; I <= J; ++I) {
        S[J * M + I] = S[I * M + J] = R.range(-1, 1);
        if (I == J)
          Trace += S[J * M + I];
      }
    double *DA = upload(S), *DW, *Work;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, M * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, M, DA, M, DW, &Lwork));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, M, DA, M, DW, Work, Lwork, Info));
    auto W = download(DW, M), V = download(DA, M * M);
    double Sum = 0, Res = 0;
    bool Sorted = true;
    for (int K = 0; K < M; ++K) {
      Sum += W[K];
      Sorted &= K == 0 || W[K] >= W[K - 1];
      for (int I = 0; I < M; ++I) {
        double X = -W[K] * V[K * M + I];
        for (int J = 0; J < M; ++J)
          X += S[J * M + I] * V[K * M + J];
        Res = std::fmax(Res, std::fabs(X));
      }
    }
    std::printf("random symmetric: lowest %.5g highest %.5g\n", W[0], W[M - 1]);
    report("dsyevd_random", download(Info, 1)[0] == 0 && Sorted && closeTo(Sum, Trace, 1e-12, 1e-12) && Res < 1e-13,
           W[M - 1] - W[0]);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
