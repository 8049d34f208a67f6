/// \file
/// cuSOLVER's 64-bit generic API the way CuPy, PyTorch and JAX call it:
/// cusolverDnCreateParams (+ SetAdvOptions), each X*_bufferSize giving a
/// device and a host workspace size, both allocated and passed, 64-bit
/// sizes and pivots. Xgetrf + Xgetrs (double), Xpotrf + Xpotrs (double,
/// and single precision via CUDA_R_32F), Xgeqrf (R's diagonal against the
/// legacy geqrf), Xsyevd (eigenvalues of the 1-D Laplacian) and Xgesvd
/// (reconstruction). Verdicts by residuals; checksums of solutions and
/// spectra.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <cstdlib>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

/// The two workspaces of one X call.
struct Workspace {
  void *Dev = nullptr, *Host = nullptr;
  size_t DevBytes = 0, HostBytes = 0;
  void allocate() {
    CHECK(cudaMalloc(&Dev, DevBytes ? DevBytes : 1));
    Host = std::malloc(HostBytes ? HostBytes : 1);
  }
  ~Workspace() {
    cudaFree(Dev);
    std::free(Host);
  }
};

static double residual(const std::vector<double> &A, const std::vector<double> &X, const std::vector<double> &B,
                       int N) {
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    double S = -B[I];
    for (int K = 0; K < N; ++K)
      S += A[K * N + I] * X[K];
    Worst = std::fmax(Worst, std::fabs(S));
  }
  return Worst;
}

int main() {
  cusolverDnHandle_t H;
  cusolverDnParams_t P;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  CUSOLVER_CHECK(cusolverDnCreateParams(&P));
  CUSOLVER_CHECK(cusolverDnSetAdvOptions(P, CUSOLVERDN_GETRF, CUSOLVER_ALG_0));
  Lcg R(11);
  const int64_t N = 36;
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));
  std::vector<double> A(N * N), B(N);
  for (double &V : A)
    V = R.range(-1, 1);
  for (double &V : B)
    V = R.range(-1, 1);

  {
    double *DA = upload(A), *DB = upload(B);
    int64_t *Piv;
    CHECK(cudaMalloc(&Piv, N * sizeof(int64_t)));
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXgetrf_bufferSize(H, P, N, N, CUDA_R_64F, DA, N, CUDA_R_64F, &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXgetrf(H, P, N, N, CUDA_R_64F, DA, N, Piv, CUDA_R_64F, W.Dev, W.DevBytes, W.Host,
                                    W.HostBytes, Info));
    int I1 = download(Info, 1)[0];
    CUSOLVER_CHECK(cusolverDnXgetrs(H, P, CUBLAS_OP_N, N, 1, CUDA_R_64F, DA, N, Piv, CUDA_R_64F, DB, N, Info));
    auto X = download(DB, N);
    auto Pv = download(Piv, N);
    bool PivOk = true;
    for (int64_t V : Pv)
      PivOk &= V >= 1 && V <= N;
    double Sum = 0;
    for (double V : X)
      Sum += std::fabs(V);
    report("Xgetrf+Xgetrs", I1 == 0 && download(Info, 1)[0] == 0 && PivOk && residual(A, X, B, N) < 1e-12, Sum);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(Piv);
  }

  // SPD: S = A A^T + N I.
  std::vector<double> S(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double X = I == J ? N : 0;
      for (int K = 0; K < N; ++K)
        X += A[K * N + I] * A[K * N + J];
      S[J * N + I] = X;
    }
  {
    double *DA = upload(S), *DB = upload(B);
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(H, P, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, DA, N, CUDA_R_64F,
                                               &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, DA, N, CUDA_R_64F, W.Dev, W.DevBytes,
                                    W.Host, W.HostBytes, Info));
    int I1 = download(Info, 1)[0];
    CUSOLVER_CHECK(cusolverDnXpotrs(H, P, CUBLAS_FILL_MODE_LOWER, N, 1, CUDA_R_64F, DA, N, CUDA_R_64F, DB, N, Info));
    auto X = download(DB, N);
    double Sum = 0;
    for (double V : X)
      Sum += std::fabs(V);
    report("Xpotrf+Xpotrs", I1 == 0 && residual(S, X, B, N) < 1e-11, Sum);
    cudaFree(DA);
    cudaFree(DB);
  }
  {
    std::vector<float> Sf(S.begin(), S.end()), Bf(B.begin(), B.end());
    float *DA = upload(Sf), *DB = upload(Bf);
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(H, P, CUBLAS_FILL_MODE_UPPER, N, CUDA_R_32F, DA, N, CUDA_R_32F,
                                               &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_UPPER, N, CUDA_R_32F, DA, N, CUDA_R_32F, W.Dev, W.DevBytes,
                                    W.Host, W.HostBytes, Info));
    CUSOLVER_CHECK(cusolverDnXpotrs(H, P, CUBLAS_FILL_MODE_UPPER, N, 1, CUDA_R_32F, DA, N, CUDA_R_32F, DB, N, Info));
    auto Xf = download(DB, N);
    std::vector<double> X(Xf.begin(), Xf.end());
    double Sum = 0;
    for (double V : X)
      Sum += std::fabs(V);
    report("Xpotrf_float", download(Info, 1)[0] == 0 && residual(S, X, B, N) < 1e-3, Sum);
    cudaFree(DA);
    cudaFree(DB);
  }
  // Xgeqrf against the legacy Dgeqrf on the same matrix: identical R.
  {
    const int64_t M = 50, Nq = 10;
    std::vector<double> Q(M * Nq);
    for (double &V : Q)
      V = R.range(-1, 1);
    double *DA = upload(Q), *DA2 = upload(Q), *Tau, *Tau2, *DW;
    CHECK(cudaMalloc(&Tau, Nq * sizeof(double)));
    CHECK(cudaMalloc(&Tau2, Nq * sizeof(double)));
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXgeqrf_bufferSize(H, P, M, Nq, CUDA_R_64F, DA, M, CUDA_R_64F, Tau, CUDA_R_64F,
                                               &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXgeqrf(H, P, M, Nq, CUDA_R_64F, DA, M, CUDA_R_64F, Tau, CUDA_R_64F, W.Dev, W.DevBytes,
                                    W.Host, W.HostBytes, Info));
    int I1 = download(Info, 1)[0];
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(H, M, Nq, DA2, M, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgeqrf(H, M, Nq, DA2, M, Tau2, DW, Lwork, Info));
    auto F = download(DA, M * Nq), F2 = download(DA2, M * Nq);
    bool Same = I1 == 0;
    double Diag = 0;
    for (int I = 0; I < Nq; ++I) {
      Same &= closeTo(std::fabs(F[I * M + I]), std::fabs(F2[I * M + I]), 1e-12, 1e-13);
      Diag += std::fabs(F[I * M + I]);
    }
    report("Xgeqrf", Same, Diag);
    cudaFree(DA);
    cudaFree(DA2);
    cudaFree(Tau);
    cudaFree(Tau2);
    cudaFree(DW);
  }
  // Xsyevd on the 1-D Laplacian.
  {
    const int64_t M = 16;
    std::vector<double> L(M * M, 0.0);
    for (int I = 0; I < M; ++I) {
      L[I * M + I] = 2;
      if (I + 1 < M)
        L[I * M + I + 1] = L[(I + 1) * M + I] = -1;
    }
    double *DA = upload(L), *DW;
    CHECK(cudaMalloc(&DW, M * sizeof(double)));
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXsyevd_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, M, CUDA_R_64F,
                                               DA, M, CUDA_R_64F, DW, CUDA_R_64F, &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXsyevd(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, M, CUDA_R_64F, DA, M,
                                    CUDA_R_64F, DW, CUDA_R_64F, W.Dev, W.DevBytes, W.Host, W.HostBytes, Info));
    auto Wv = download(DW, M);
    bool Ok = download(Info, 1)[0] == 0;
    for (int K = 0; K < M; ++K)
      Ok &= closeTo(Wv[K], 2 - 2 * std::cos((K + 1) * 3.14159265358979323846 / (M + 1)), 1e-12, 1e-13);
    std::printf("Xsyevd w: %.5g ... %.5g\n", Wv[0], Wv[M - 1]);
    report("Xsyevd", Ok, Wv[0] + Wv[M - 1]);
    cudaFree(DA);
    cudaFree(DW);
  }
  // Xgesvd, all of U and V^T.
  {
    const int64_t M = 20, Ns = 14;
    std::vector<double> G(M * Ns);
    for (double &V : G)
      V = R.range(-1, 1);
    double *DA = upload(G), *DS, *DU, *DVT;
    CHECK(cudaMalloc(&DS, Ns * sizeof(double)));
    CHECK(cudaMalloc(&DU, M * M * sizeof(double)));
    CHECK(cudaMalloc(&DVT, Ns * Ns * sizeof(double)));
    Workspace W;
    CUSOLVER_CHECK(cusolverDnXgesvd_bufferSize(H, P, 'A', 'A', M, Ns, CUDA_R_64F, DA, M, CUDA_R_64F, DS, CUDA_R_64F, DU,
                                               M, CUDA_R_64F, DVT, Ns, CUDA_R_64F, &W.DevBytes, &W.HostBytes));
    W.allocate();
    CUSOLVER_CHECK(cusolverDnXgesvd(H, P, 'A', 'A', M, Ns, CUDA_R_64F, DA, M, CUDA_R_64F, DS, CUDA_R_64F, DU, M,
                                    CUDA_R_64F, DVT, Ns, CUDA_R_64F, W.Dev, W.DevBytes, W.Host, W.HostBytes, Info));
    auto Sv = download(DS, Ns), U = download(DU, M * M), VT = download(DVT, Ns * Ns);
    double Rec = 0, Sum = 0;
    for (int J = 0; J < Ns; ++J)
      for (int I = 0; I < M; ++I) {
        double X = -G[J * M + I];
        for (int K = 0; K < Ns; ++K)
          X += U[K * M + I] * Sv[K] * VT[J * Ns + K];
        Rec = std::fmax(Rec, std::fabs(X));
      }
    for (double V : Sv)
      Sum += V;
    std::printf("Xgesvd sigma: %.5g ... %.5g\n", Sv[0], Sv[Ns - 1]);
    report("Xgesvd", download(Info, 1)[0] == 0 && Rec < 1e-13, Sum);
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DU);
    cudaFree(DVT);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroyParams(P));
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
