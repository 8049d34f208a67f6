/// \file
/// Dense LU solves as simulation and fitting code does them: D/S getrf
/// with partial pivoting then getrs with several right-hand sides, the
/// transposed solve (A^T x = b), work on a non-default stream with
/// asynchronous copies, and a matrix with an exactly zero column whose
/// devInfo names the first zero pivot. Each solve is judged by its residual
/// against the input held on the host; the program prints verdicts, devInfo
/// values and checksums of the solutions.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

/// max |op(A) x - b| / (|A| |x| n), column-major n x n, nrhs columns.
template <typename T>
static double residual(const std::vector<T> &A, const std::vector<T> &X, const std::vector<T> &B, int N, int Nrhs,
                       bool Trans) {
  double Worst = 0, NormA = 0;
  for (T V : A)
    NormA = std::fmax(NormA, std::fabs((double)V));
  for (int C = 0; C < Nrhs; ++C) {
    double NormX = 0, R = 0;
    for (int I = 0; I < N; ++I)
      NormX = std::fmax(NormX, std::fabs((double)X[C * N + I]));
    for (int I = 0; I < N; ++I) {
      double S = -(double)B[C * N + I];
      for (int K = 0; K < N; ++K)
        S += (double)(Trans ? A[I * N + K] : A[K * N + I]) * X[C * N + K];
      R = std::fmax(R, std::fabs(S));
    }
    Worst = std::fmax(Worst, R / (NormA * NormX * N));
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
  cudaStream_t Stream;
  CHECK(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
  CUSOLVER_CHECK(cusolverDnSetStream(H, Stream));
  Lcg R(17);

  // D: 48 x 48, three right-hand sides, then the transposed system.
  {
    const int N = 48, Nrhs = 3;
    std::vector<double> A(N * N), B(N * Nrhs);
    for (double &V : A)
      V = R.range(-1, 1);
    for (double &V : B)
      V = R.range(-2, 2);
    double *DA, *DA0, *DB, *DW;
    int *Piv, *Info, Lwork = 0;
    CHECK(cudaMalloc(&DA, A.size() * sizeof(double)));
    CHECK(cudaMalloc(&DA0, A.size() * sizeof(double)));
    CHECK(cudaMalloc(&DB, B.size() * sizeof(double)));
    CHECK(cudaMalloc(&Piv, N * sizeof(int)));
    CHECK(cudaMalloc(&Info, sizeof(int)));
    CHECK(cudaMemcpyAsync(DA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CHECK(cudaMemcpyAsync(DA0, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CHECK(cudaMemcpyAsync(DB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
    CUSOLVER_CHECK(cusolverDnDgetrs(H, CUBLAS_OP_N, N, Nrhs, DA, N, Piv, DB, N, Info));
    std::vector<double> X(B.size());
    int HInfo = -1;
    CHECK(cudaMemcpyAsync(X.data(), DB, X.size() * sizeof(double), cudaMemcpyDeviceToHost, Stream));
    CHECK(cudaMemcpyAsync(&HInfo, Info, sizeof(int), cudaMemcpyDeviceToHost, Stream));
    CHECK(cudaStreamSynchronize(Stream));
    std::vector<int> HPiv(N);
    CHECK(cudaMemcpy(HPiv.data(), Piv, N * sizeof(int), cudaMemcpyDeviceToHost));
    bool PivOk = true;
    for (int P : HPiv)
      PivOk &= P >= 1 && P <= N;
    std::printf("dgetrs info=%d\n", HInfo);
    report("dgetrf+dgetrs", HInfo == 0 && PivOk && residual(A, X, B, N, Nrhs, false) < 1e-13, absSum(X));

    // A^T x = b from the same factors.
    CHECK(cudaMemcpy(DB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice));
    CUSOLVER_CHECK(cusolverDnDgetrs(H, CUBLAS_OP_T, N, 1, DA, N, Piv, DB, N, Info));
    std::vector<double> Xt(N), B1(B.begin(), B.begin() + N);
    CHECK(cudaMemcpyAsync(Xt.data(), DB, N * sizeof(double), cudaMemcpyDeviceToHost, Stream));
    CHECK(cudaStreamSynchronize(Stream));
    report("dgetrs_trans", residual(A, Xt, B1, N, 1, true) < 1e-13, absSum(Xt));
    cudaFree(DA);
    cudaFree(DA0);
    cudaFree(DB);
    cudaFree(DW);
    cudaFree(Piv);
    cudaFree(Info);
  }

  // S: 32 x 32, diagonally weighted so single precision is well conditioned.
  {
    const int N = 32;
    std::vector<float> A(N * N), B(N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        A[J * N + I] = R.range(-1, 1) + (I == J ? 4.0f : 0.0f);
    for (float &V : B)
      V = R.range(-1, 1);
    float *DA = upload(A), *DB = upload(B), *DW;
    int *Piv, *Info, Lwork = 0;
    CHECK(cudaMalloc(&Piv, N * sizeof(int)));
    CHECK(cudaMalloc(&Info, sizeof(int)));
    CUSOLVER_CHECK(cusolverDnSgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSgetrf(H, N, N, DA, N, DW, Piv, Info));
    CUSOLVER_CHECK(cusolverDnSgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Piv, DB, N, Info));
    CHECK(cudaStreamSynchronize(Stream));
    auto X = download(DB, N);
    int HInfo = download(Info, 1)[0];
    report("sgetrf+sgetrs", HInfo == 0 && residual(A, X, B, N, 1, false) < 2e-6, absSum(X));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
    cudaFree(Piv);
    cudaFree(Info);
  }

  // A 6 x 6 matrix whose third column is zero: U(3,3) is exactly zero.
  {
    const int N = 6;
    std::vector<double> A(N * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        A[J * N + I] = J == 2 ? 0.0 : (double)((I * 7 + J * 3) % 11) - 5.0 + (I == J ? 9.0 : 0.0);
    double *DA = upload(A), *DW;
    int *Piv, *Info, Lwork = 0;
    CHECK(cudaMalloc(&Piv, N * sizeof(int)));
    CHECK(cudaMalloc(&Info, sizeof(int)));
    CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
    CHECK(cudaStreamSynchronize(Stream));
    int HInfo = download(Info, 1)[0];
    std::printf("singular getrf info=%d\n", HInfo);
    report("dgetrf_singular", HInfo == 3, HInfo);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Piv);
    cudaFree(Info);
  }

  CUSOLVER_CHECK(cusolverDnDestroy(H));
  CHECK(cudaStreamDestroy(Stream));
  return finish(Failures == 0);
}
