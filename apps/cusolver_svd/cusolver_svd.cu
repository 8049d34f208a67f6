/// \file
/// Singular value decompositions as PCA and low-rank code does them: D
/// gesvd of a 24 x 16 matrix with all of U and V^T (jobu = jobvt = 'A'),
/// the factors multiplied back and checked orthogonal; the thin form
/// ('S'/'S') in single precision; values only ('N'/'N'); and a matrix of
/// known singular values (a scaled orthogonal construction). Singular
/// values are printed to five digits; vectors only through residuals, their
/// signs being the implementation's choice.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(77);
  const int M = 24, N = 16;
  std::vector<double> A(M * N);
  for (double &V : A)
    V = R.range(-1, 1);
  int *Info;
  CHECK(cudaMalloc(&Info, sizeof(int)));
  std::vector<double> SFull;

  {
    double *DA = upload(A), *DS, *DU, *DVT, *DW, *DRW;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, N * sizeof(double)));
    CHECK(cudaMalloc(&DU, M * M * sizeof(double)));
    CHECK(cudaMalloc(&DVT, N * N * sizeof(double)));
    CHECK(cudaMalloc(&DRW, N * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvd_bufferSize(H, M, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvd(H, 'A', 'A', M, N, DA, M, DS, DU, M, DVT, N, DW, Lwork, DRW, Info));
    SFull = download(DS, N);
    auto U = download(DU, M * M), VT = download(DVT, N * N);
    int HInfo = download(Info, 1)[0];
    double Rec = 0, OrthU = 0, OrthV = 0;
    bool Sorted = true;
    for (int I = 1; I < N; ++I)
      Sorted &= SFull[I] <= SFull[I - 1] && SFull[I] >= 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double S = -A[J * M + I];
        for (int K = 0; K < N; ++K)
          S += U[K * M + I] * SFull[K] * VT[J * N + K];
        Rec = std::fmax(Rec, std::fabs(S));
      }
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < M; ++J) {
        double S = I == J ? -1.0 : 0.0;
        for (int K = 0; K < M; ++K)
          S += U[I * M + K] * U[J * M + K];
        OrthU = std::fmax(OrthU, std::fabs(S));
      }
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double S = I == J ? -1.0 : 0.0;
        for (int K = 0; K < N; ++K)
          S += VT[K * N + I] * VT[K * N + J];
        OrthV = std::fmax(OrthV, std::fabs(S));
      }
    std::printf("dgesvd info=%d sigma:", HInfo);
    for (int I = 0; I < 4; ++I)
      std::printf(" %.5g", SFull[I]);
    std::printf(" ... %.5g\n", SFull[N - 1]);
    double Sum = 0;
    for (double V : SFull)
      Sum += V;
    report("dgesvd_AA", HInfo == 0 && Sorted && Rec < 1e-13 && OrthU < 1e-13 && OrthV < 1e-13, Sum);

    // Values only, same matrix.
    double *DA2 = upload(A);
    CUSOLVER_CHECK(cusolverDnDgesvd(H, 'N', 'N', M, N, DA2, M, DS, nullptr, M, nullptr, N, DW, Lwork, DRW, Info));
    auto S2 = download(DS, N);
    bool Same = download(Info, 1)[0] == 0;
    for (int I = 0; I < N; ++I)
      Same &= closeTo(S2[I], SFull[I], 1e-12, 1e-13);
    report("dgesvd_NN", Same, S2[0]);
    cudaFree(DA);
    cudaFree(DA2);
    cudaFree(DS);
    cudaFree(DU);
    cudaFree(DVT);
    cudaFree(DW);
    cudaFree(DRW);
  }

  // Single precision, thin factors.
  {
    std::vector<float> Af(A.begin(), A.end());
    float *DA = upload(Af), *DS, *DU, *DVT, *DW;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, N * sizeof(float)));
    CHECK(cudaMalloc(&DU, M * N * sizeof(float)));
    CHECK(cudaMalloc(&DVT, N * N * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSgesvd_bufferSize(H, M, N, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(float)));
    CUSOLVER_CHECK(cusolverDnSgesvd(H, 'S', 'S', M, N, DA, M, DS, DU, M, DVT, N, DW, Lwork, nullptr, Info));
    auto S = download(DS, N);
    auto U = download(DU, M * N), VT = download(DVT, N * N);
    double Rec = 0, Sum = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double X = -A[J * M + I];
        for (int K = 0; K < N; ++K)
          X += (double)U[K * M + I] * S[K] * VT[J * N + K];
        Rec = std::fmax(Rec, std::fabs(X));
      }
    bool Near = download(Info, 1)[0] == 0;
    for (int I = 0; I < N; ++I) {
      Near &= closeTo(S[I], SFull[I], 1e-5, 1e-5);
      Sum += S[I];
    }
    report("sgesvd_SS", Near && Rec < 1e-5, Sum);
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DU);
    cudaFree(DVT);
    cudaFree(DW);
  }

  // Known singular values: A = Q1 diag(k+1) Q2^T with Householder
  // reflectors Q1 (12 x 12) and Q2 (8 x 8).
  {
    const int Mk = 12, Nk = 8;
    auto reflector = [&](int Size) {
      std::vector<double> V(Size), Q(Size * Size);
      double Norm = 0;
      for (double &X : V) {
        X = R.range(-1, 1);
        Norm += X * X;
      }
      for (int J = 0; J < Size; ++J)
        for (int I = 0; I < Size; ++I)
          Q[J * Size + I] = (I == J ? 1.0 : 0.0) - 2 * V[I] * V[J] / Norm;
      return Q;
    };
    auto Q1 = reflector(Mk), Q2 = reflector(Nk);
    std::vector<double> Ak(Mk * Nk);
    for (int J = 0; J < Nk; ++J)
      for (int I = 0; I < Mk; ++I) {
        double S = 0;
        for (int K = 0; K < Nk; ++K)
          S += Q1[K * Mk + I] * (Nk - K) * Q2[K * Nk + J];
        Ak[J * Mk + I] = S;
      }
    double *DA = upload(Ak), *DS, *DW;
    int Lwork = 0;
    CHECK(cudaMalloc(&DS, Nk * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvd_bufferSize(H, Mk, Nk, &Lwork));
    CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDgesvd(H, 'N', 'N', Mk, Nk, DA, Mk, DS, nullptr, Mk, nullptr, Nk, DW, Lwork, nullptr, Info));
    auto S = download(DS, Nk);
    bool Ok = download(Info, 1)[0] == 0;
    for (int K = 0; K < Nk; ++K)
      Ok &= closeTo(S[K], Nk - K, 1e-12, 1e-12);
    std::printf("known sigma: %.5g %.5g ... %.5g\n", S[0], S[1], S[Nk - 1]);
    report("dgesvd_known", Ok, S[0] + S[Nk - 1]);
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DW);
  }
  cudaFree(Info);
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
