/// \file
/// cuBLAS level 2 on column-major matrices as solvers use it: gemv (plain and
/// transposed, a leading dimension larger than the rows), ger, symv/syr on
/// one triangle, trmv/trsv (a well-conditioned triangular solve) and gbmv on
/// band storage. Each result is checked against a CPU reference in double;
/// the program prints verdicts and checksums (sums of magnitudes), which the
/// matrix compares with a relative tolerance.
#define LIB_REPORT_WIDTH 10
#include "../common/lib_util.h"
#include <cublas_v2.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

/// Compares a device vector with a reference; returns the verdict, puts the
/// sum of magnitudes in Check.
template <typename T>
static bool compare(const std::vector<T> &Got, const std::vector<double> &Want, double Tol,
                    double &Check) {
  bool Ok = Got.size() == Want.size();
  Check = 0;
  for (size_t I = 0; I < Got.size() && Ok; ++I) {
    Ok &= closeTo(Got[I], Want[I], Tol, Tol);
    Check += std::fabs((double)Got[I]);
  }
  return Ok;
}

int main() {
  const int M = 120, N = 90, Lda = 128;
  Lcg R(11);
  std::vector<float> A(Lda * N), X(N), Y(M), Xm(M);
  for (float &V : A)
    V = R.range(-1, 1);
  for (float &V : X)
    V = R.range(-1, 1);
  for (float &V : Y)
    V = R.range(-1, 1);
  for (float &V : Xm)
    V = R.range(-1, 1);
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  float *DA = upload(A), *DX = upload(X), *DXm = upload(Xm);
  double Check;

  // sgemv: y = alpha A x + beta y, A is M x N in a Lda-row buffer
  {
    float *DY = upload(Y);
    float Al = 1.5f, Be = -0.5f;
    CUBLAS_CHECK(cublasSgemv(H, CUBLAS_OP_N, M, N, &Al, DA, Lda, DX, 1, &Be, DY, 1));
    std::vector<double> W(M);
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += (double)A[J * Lda + I] * X[J];
      W[I] = 1.5 * S - 0.5 * Y[I];
    }
    bool Ok = compare(download(DY, M), W, 1e-4, Check);
    report("sgemv", Ok, Check);
    cudaFree(DY);
  }
  // dgemv transposed: y = A^T x
  {
    std::vector<double> Ad(A.begin(), A.end()), Xd(Xm.begin(), Xm.end()), Yd(N, 0.0);
    double *EA = upload(Ad), *EX = upload(Xd), *EY = upload(Yd);
    double Al = 1.0, Be = 0.0;
    CUBLAS_CHECK(cublasDgemv(H, CUBLAS_OP_T, M, N, &Al, EA, Lda, EX, 1, &Be, EY, 1));
    std::vector<double> W(N);
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int I = 0; I < M; ++I)
        S += Ad[J * Lda + I] * Xd[I];
      W[J] = S;
    }
    bool Ok = compare(download(EY, N), W, 1e-12, Check);
    report("dgemv_t", Ok, Check);
    cudaFree(EA);
    cudaFree(EX);
    cudaFree(EY);
  }
  // sger: A += alpha x y^T (rank-1 update)
  {
    float *T = upload(A);
    float Al = -0.25f;
    CUBLAS_CHECK(cublasSger(H, M, N, &Al, DXm, 1, DX, 1, T, Lda));
    std::vector<float> G = download(T, Lda * N);
    std::vector<float> Gm;
    std::vector<double> W;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        Gm.push_back(G[J * Lda + I]);
        W.push_back(A[J * Lda + I] - 0.25 * Xm[I] * X[J]);
      }
    bool Ok = compare(Gm, W, 1e-5, Check);
    // Rows between M and Lda are padding and must be left alone.
    for (int J = 0; J < N; ++J)
      for (int I = M; I < Lda; ++I)
        Ok &= G[J * Lda + I] == A[J * Lda + I];
    report("sger", Ok, Check);
    cudaFree(T);
  }
  // Symmetric n x n from the upper triangle (the lower one holds garbage
  // that cuBLAS must not read).
  const int Ns = 64;
  std::vector<float> Sm(Ns * Ns);
  for (float &V : Sm)
    V = R.range(-1, 1);
  auto sym = [&](int I, int J) { return I <= J ? (double)Sm[J * Ns + I] : (double)Sm[I * Ns + J]; };
  // ssymv (upper)
  {
    std::vector<float> Ax(Ns), Ay(Ns);
    for (int I = 0; I < Ns; ++I) {
      Ax[I] = X[I];
      Ay[I] = Y[I];
    }
    float *DS = upload(Sm), *Dx = upload(Ax), *Dy = upload(Ay);
    float Al = 2.0f, Be = 1.0f;
    CUBLAS_CHECK(cublasSsymv(H, CUBLAS_FILL_MODE_UPPER, Ns, &Al, DS, Ns, Dx, 1, &Be, Dy, 1));
    std::vector<double> W(Ns);
    for (int I = 0; I < Ns; ++I) {
      double S = 0;
      for (int J = 0; J < Ns; ++J)
        S += sym(I, J) * Ax[J];
      W[I] = 2 * S + Ay[I];
    }
    {
      bool Ok_ = compare(download(Dy, Ns), W, 1e-4, Check);
      report("ssymv", Ok_, Check);
    }
    // ssyr (lower): A += alpha x x^T on the lower triangle only
    float Al2 = 0.5f;
    CUBLAS_CHECK(cublasSsyr(H, CUBLAS_FILL_MODE_LOWER, Ns, &Al2, Dx, 1, DS, Ns));
    std::vector<float> G = download(DS, Ns * Ns);
    bool Ok = true;
    Check = 0;
    for (int J = 0; J < Ns; ++J)
      for (int I = 0; I < Ns; ++I) {
        double Want = I >= J ? Sm[J * Ns + I] + 0.5 * Ax[I] * Ax[J] : Sm[J * Ns + I];
        Ok &= closeTo(G[J * Ns + I], Want, 1e-5, 1e-5);
        Check += std::fabs(G[J * Ns + I]);
      }
    report("ssyr", Ok, Check);
    cudaFree(DS);
    cudaFree(Dx);
    cudaFree(Dy);
  }
  // Triangular: a lower-triangular matrix with a dominant diagonal.
  {
    std::vector<float> L(Ns * Ns);
    for (int J = 0; J < Ns; ++J)
      for (int I = 0; I < Ns; ++I)
        L[J * Ns + I] = I == J ? 4 + R.uniform() : R.range(-0.5f, 0.5f); // upper part: garbage
    std::vector<float> B(Ns);
    for (float &V : B)
      V = R.range(-1, 1);
    float *DL = upload(L), *Db = upload(B);
    // strmv: x = L x (non-unit diagonal)
    CUBLAS_CHECK(cublasStrmv(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, Ns, DL,
                             Ns, Db, 1));
    std::vector<double> W(Ns);
    for (int I = 0; I < Ns; ++I) {
      double S = 0;
      for (int J = 0; J <= I; ++J)
        S += (double)L[J * Ns + I] * B[J];
      W[I] = S;
    }
    {
      bool Ok_ = compare(download(Db, Ns), W, 1e-5, Check);
      report("strmv", Ok_, Check);
    }
    // strsv with L^T: solve L^T x = b, then check the residual
    CHECK(cudaMemcpy(Db, B.data(), Ns * 4, cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasStrsv(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, Ns, DL,
                             Ns, Db, 1));
    std::vector<float> Xs = download(Db, Ns);
    bool Ok = true;
    Check = 0;
    for (int I = 0; I < Ns; ++I) {
      double S = 0;
      for (int J = I; J < Ns; ++J)
        S += (double)L[I * Ns + J] * Xs[J];
      Ok &= closeTo(S, B[I], 1e-5, 1e-5);
      Check += std::fabs(Xs[I]);
    }
    report("strsv_t", Ok, Check);
    cudaFree(DL);
    cudaFree(Db);
  }
  // sgbmv: banded M x N with KL = 2 sub- and KU = 3 super-diagonals
  {
    const int Kl = 2, Ku = 3, Ldb = Kl + Ku + 1;
    std::vector<float> Band(Ldb * N);
    for (float &V : Band)
      V = R.range(-1, 1);
    float *DB = upload(Band), *DY = upload(Y);
    float Al = 1.0f, Be = 0.5f;
    CUBLAS_CHECK(cublasSgbmv(H, CUBLAS_OP_N, M, N, Kl, Ku, &Al, DB, Ldb, DX, 1, &Be, DY, 1));
    std::vector<double> W(M);
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        if (J - I <= Ku && I - J <= Kl)
          S += (double)Band[J * Ldb + Ku + I - J] * X[J];
      W[I] = S + 0.5 * Y[I];
    }
    {
      bool Ok_ = compare(download(DY, M), W, 1e-5, Check);
      report("sgbmv", Ok_, Check);
    }
    cudaFree(DB);
    cudaFree(DY);
  }
  CUBLAS_CHECK(cublasDestroy(H));
  cudaFree(DA);
  cudaFree(DX);
  cudaFree(DXm);
  return finish(Failures == 0);
}
