/// \file
/// Complex dense solvers as electromagnetics and quantum code uses them:
/// Z getrf + getrs, C potrf + potrs on a Hermitian positive definite
/// matrix, Z heevd (real eigenvalues, residual |A v - w v|), Z geqrf +
/// unmqr (Q^H b) + ungqr (orthonormal columns, Q R = A), and C gesvd
/// singular values against the Z ones. Verdicts by residuals; checksums of
/// moduli and spectra.
#include "../common/lib_util.h"
#include <cuComplex.h>
#include <cusolverDn.h>
#include <cmath>
#include <complex>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

using Z = std::complex<double>;

static std::vector<Z> randomZ(Lcg &R, int N) {
  std::vector<Z> V(N);
  for (Z &X : V)
    X = Z(R.range(-1, 1), R.range(-1, 1));
  return V;
}

static cuDoubleComplex *uploadZ(const std::vector<Z> &V) {
  return reinterpret_cast<cuDoubleComplex *>(upload(V));
}
static std::vector<Z> downloadZ(const cuDoubleComplex *P, size_t N) {
  return download(reinterpret_cast<const Z *>(P), N);
}

/// max |A x - b| for column-major N x N.
static double residual(const std::vector<Z> &A, const std::vector<Z> &X, const std::vector<Z> &B, int N) {
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    Z S = -B[I];
    for (int K = 0; K < N; ++K)
      S += A[K * N + I] * X[K];
    Worst = std::fmax(Worst, std::abs(S));
  }
  return Worst;
}

static double absSum(const std::vector<Z> &V) {
  double S = 0;
  for (Z X : V)
    S += std::abs(X);
  return S;
}

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(29);
  const int N = 24;
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));
  auto A = randomZ(R, N * N), B = randomZ(R, N);

  {
    cuDoubleComplex *DA = uploadZ(A), *DB = uploadZ(B), *DW;
    int *Piv, Lwork = 0;
    CHECK(cudaMalloc(&Piv, N * sizeof(int)));
    CUSOLVER_CHECK(cusolverDnZgetrf_bufferSize(H, N, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(cuDoubleComplex)));
    CUSOLVER_CHECK(cusolverDnZgetrf(H, N, N, DA, N, DW, Piv, Info));
    int I1 = download(Info, 1)[0];
    CUSOLVER_CHECK(cusolverDnZgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Piv, DB, N, Info));
    auto X = downloadZ(DB, N);
    report("zgetrf+zgetrs", I1 == 0 && residual(A, X, B, N) < 1e-12, absSum(X));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
    cudaFree(Piv);
  }

  // Hermitian positive definite: A A^H + N I.
  std::vector<Z> Hpd(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z S = I == J ? Z(N, 0) : Z(0, 0);
      for (int K = 0; K < N; ++K)
        S += A[K * N + I] * std::conj(A[K * N + J]);
      Hpd[J * N + I] = S;
    }
  {
    std::vector<std::complex<float>> Hf(Hpd.begin(), Hpd.end()), Bf(B.begin(), B.end());
    cuComplex *DA = reinterpret_cast<cuComplex *>(upload(Hf)), *DB = reinterpret_cast<cuComplex *>(upload(Bf)), *DW;
    int Lwork = 0;
    CUSOLVER_CHECK(cusolverDnCpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(cuComplex)));
    CUSOLVER_CHECK(cusolverDnCpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Lwork, Info));
    int I1 = download(Info, 1)[0];
    CUSOLVER_CHECK(cusolverDnCpotrs(H, CUBLAS_FILL_MODE_LOWER, N, 1, DA, N, DB, N, Info));
    auto Xf = download(reinterpret_cast<std::complex<float> *>(DB), N);
    std::vector<Z> X(Xf.begin(), Xf.end());
    report("cpotrf+cpotrs", I1 == 0 && residual(Hpd, X, B, N) < 1e-3, absSum(X));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
  }
  {
    cuDoubleComplex *DA = uploadZ(Hpd), *Work;
    double *DW;
    int Lwork = 0;
    CHECK(cudaMalloc(&DW, N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnZheevd_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, &Lwork));
    CHECK(cudaMalloc(&Work, std::max(Lwork, 1) * sizeof(cuDoubleComplex)));
    CUSOLVER_CHECK(cusolverDnZheevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, Work, Lwork, Info));
    auto W = download(DW, N);
    auto V = downloadZ(DA, N * N);
    double Res = 0, Trace = 0, Sum = 0;
    for (int I = 0; I < N; ++I)
      Trace += Hpd[I * N + I].real();
    for (int K = 0; K < N; ++K) {
      Sum += W[K];
      for (int I = 0; I < N; ++I) {
        Z S = -W[K] * V[K * N + I];
        for (int J = 0; J < N; ++J)
          S += Hpd[J * N + I] * V[K * N + J];
        Res = std::fmax(Res, std::abs(S));
      }
    }
    std::printf("zheevd w: %.5g ... %.5g\n", W[0], W[N - 1]);
    report("zheevd", download(Info, 1)[0] == 0 && Res < 1e-11 && closeTo(Sum, Trace, 1e-12, 1e-12), W[0] + W[N - 1]);
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(Work);
  }
  // QR of a tall 30 x 8 matrix: Q^H b by unmqr, Q by ungqr.
  {
    const int M = 30, Nq = 8;
    auto Q0 = randomZ(R, M * Nq), Bq = randomZ(R, M);
    cuDoubleComplex *DA = uploadZ(Q0), *DB = uploadZ(Bq), *Tau, *DW;
    CHECK(cudaMalloc(&Tau, Nq * sizeof(cuDoubleComplex)));
    int L1 = 0, L2 = 0, L3 = 0;
    CUSOLVER_CHECK(cusolverDnZgeqrf_bufferSize(H, M, Nq, DA, M, &L1));
    CUSOLVER_CHECK(cusolverDnZunmqr_bufferSize(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, M, 1, Nq, DA, M, Tau, DB, M, &L2));
    CUSOLVER_CHECK(cusolverDnZungqr_bufferSize(H, M, Nq, Nq, DA, M, Tau, &L3));
    int Lwork = std::max(1, std::max(L1, std::max(L2, L3)));
    CHECK(cudaMalloc(&DW, Lwork * sizeof(cuDoubleComplex)));
    CUSOLVER_CHECK(cusolverDnZgeqrf(H, M, Nq, DA, M, Tau, DW, Lwork, Info));
    CUSOLVER_CHECK(cusolverDnZunmqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, M, 1, Nq, DA, M, Tau, DB, M, DW, Lwork, Info));
    auto Qb = downloadZ(DB, M);
    auto F = downloadZ(DA, M * Nq);
    CUSOLVER_CHECK(cusolverDnZungqr(H, M, Nq, Nq, DA, M, Tau, DW, Lwork, Info));
    auto Q = downloadZ(DA, M * Nq);
    double Orth = 0, Rec = 0, Proj = 0, RDiag = 0;
    for (int I = 0; I < Nq; ++I) {
      RDiag += std::abs(F[I * M + I]);
      Z P = 0;
      for (int K = 0; K < M; ++K)
        P += std::conj(Q[I * M + K]) * Bq[K];
      Proj = std::fmax(Proj, std::abs(P - Qb[I]));
      for (int J = 0; J < Nq; ++J) {
        Z S = I == J ? Z(-1, 0) : Z(0, 0);
        for (int K = 0; K < M; ++K)
          S += std::conj(Q[I * M + K]) * Q[J * M + K];
        Orth = std::fmax(Orth, std::abs(S));
      }
    }
    for (int J = 0; J < Nq; ++J)
      for (int I = 0; I < M; ++I) {
        Z S = -Q0[J * M + I];
        for (int K = 0; K <= J; ++K)
          S += Q[K * M + I] * F[J * M + K];
        Rec = std::fmax(Rec, std::abs(S));
      }
    report("zgeqrf+unmqr+ungqr", download(Info, 1)[0] == 0 && Orth < 1e-13 && Rec < 1e-13 && Proj < 1e-13, RDiag);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(Tau);
    cudaFree(DW);
  }
  // gesvd: C values against Z values of the same matrix.
  {
    const int M = 16, Ns = 10;
    auto G = randomZ(R, M * Ns);
    cuDoubleComplex *DA = uploadZ(G), *DWz;
    double *DS, *DRW;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, Ns * sizeof(double)));
    CHECK(cudaMalloc(&DRW, 5 * Ns * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnZgesvd_bufferSize(H, M, Ns, &Lwork));
    CHECK(cudaMalloc(&DWz, std::max(Lwork, 1) * sizeof(cuDoubleComplex)));
    CUSOLVER_CHECK(cusolverDnZgesvd(H, 'N', 'N', M, Ns, DA, M, DS, nullptr, M, nullptr, Ns, DWz, Lwork, DRW, Info));
    auto Sz = download(DS, Ns);
    std::vector<std::complex<float>> Gf(G.begin(), G.end());
    cuComplex *DAf = reinterpret_cast<cuComplex *>(upload(Gf)), *DWc;
    float *DSf, *DRWf;
    CHECK(cudaMalloc(&DSf, Ns * sizeof(float)));
    CHECK(cudaMalloc(&DRWf, 5 * Ns * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnCgesvd_bufferSize(H, M, Ns, &Lwork));
    CHECK(cudaMalloc(&DWc, std::max(Lwork, 1) * sizeof(cuComplex)));
    CUSOLVER_CHECK(cusolverDnCgesvd(H, 'N', 'N', M, Ns, DAf, M, DSf, nullptr, M, nullptr, Ns, DWc, Lwork, DRWf, Info));
    auto Sc = download(DSf, Ns);
    bool Ok = download(Info, 1)[0] == 0;
    double Sum = 0;
    for (int I = 0; I < Ns; ++I) {
      Ok &= closeTo(Sc[I], Sz[I], 1e-5, 1e-5) && (I == 0 || Sz[I] <= Sz[I - 1]);
      Sum += Sz[I];
    }
    std::printf("zgesvd sigma: %.5g ... %.5g\n", Sz[0], Sz[Ns - 1]);
    report("cgesvd_vs_zgesvd", Ok, Sum);
    cudaFree(DA);
    cudaFree(DWz);
    cudaFree(DS);
    cudaFree(DRW);
    cudaFree(DAf);
    cudaFree(DWc);
    cudaFree(DSf);
    cudaFree(DRWf);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
