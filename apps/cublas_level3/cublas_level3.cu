/// \file
/// cuBLAS level 3 beyond GEMM as solvers and ML code use it: symm, syrk,
/// syr2k and herk on one triangle, trmm (out of place, as cublas_v2 defines
/// it), trsm (a right-side solve with a dominant diagonal), geam (a
/// transpose-and-add), dgmm (column scaling) and complex cgemm/zgemm with
/// conjugate-transposed operands. Each result is checked against a CPU
/// reference in double; the program prints verdicts and checksums (sums of
/// magnitudes), which the matrix compares with a relative tolerance.
#define LIB_REPORT_WIDTH 10
#include "../common/lib_util.h"
#include <cuComplex.h>
#include <cublas_v2.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

/// Column-major dense matrix in double, the reference's view.
struct Mat {
  int Rows, Cols;
  std::vector<double> V;
  Mat(int R, int C) : Rows(R), Cols(C), V((size_t)R * C, 0.0) {}
  double &at(int I, int J) { return V[(size_t)J * Rows + I]; }
  double at(int I, int J) const { return V[(size_t)J * Rows + I]; }
};

static std::vector<float> random(Lcg &R, size_t N) {
  std::vector<float> V(N);
  for (float &X : V)
    X = R.range(-1, 1);
  return V;
}

/// Checks Got (column-major, ld = Want.Rows) where Mask(i, j) says which
/// entries were written; the rest must still equal Old.
template <typename T, typename F>
static bool compare(const std::vector<T> &Got, const Mat &Want, const std::vector<T> &Old, F Mask,
                    double Tol, double &Check) {
  bool Ok = true;
  Check = 0;
  for (int J = 0; J < Want.Cols; ++J)
    for (int I = 0; I < Want.Rows; ++I) {
      size_t K = (size_t)J * Want.Rows + I;
      if (Mask(I, J))
        Ok &= closeTo(Got[K], Want.at(I, J), Tol, Tol);
      else
        Ok &= Got[K] == Old[K];
      Check += std::fabs((double)Got[K]);
    }
  return Ok;
}

int main() {
  const int M = 72, N = 56, K = 40;
  Lcg R(23);
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  double Check;
  auto All = [](int, int) { return true; };
  auto Upper = [](int I, int J) { return I <= J; };
  auto Lower = [](int I, int J) { return I >= J; };

  // ssymm, left side: C = alpha S B + beta C, S symmetric M x M (lower stored)
  {
    std::vector<float> S = random(R, M * M), B = random(R, M * N), C = random(R, M * N);
    float *DS = upload(S), *DB = upload(B), *DC = upload(C);
    float Al = 0.5f, Be = -1.0f;
    CUBLAS_CHECK(cublasSsymm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, M, N, &Al, DS, M, DB, M,
                             &Be, DC, M));
    Mat W(M, N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Sum = 0;
        for (int P = 0; P < M; ++P)
          Sum += (I >= P ? S[P * M + I] : S[I * M + P]) * (double)B[J * M + P];
        W.at(I, J) = 0.5 * Sum - C[J * M + I];
      }
    {
      bool Ok_ = compare(download(DC, M * N), W, C, All, 1e-4, Check);
      report("ssymm", Ok_, Check);
    }
    cudaFree(DS);
    cudaFree(DB);
    cudaFree(DC);
  }
  // ssyrk: C = A A^T on the upper triangle (A is N x K); dsyr2k on the lower
  {
    std::vector<float> A = random(R, N * K), B = random(R, N * K), C = random(R, N * N);
    float *DA = upload(A), *DC = upload(C);
    float Al = 1.0f, Be = 0.25f;
    CUBLAS_CHECK(cublasSsyrk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, K, &Al, DA, N, &Be, DC, N));
    Mat W(N, N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        double Sum = 0;
        for (int P = 0; P < K; ++P)
          Sum += (double)A[P * N + I] * A[P * N + J];
        W.at(I, J) = Sum + 0.25 * C[J * N + I];
      }
    {
      bool Ok_ = compare(download(DC, N * N), W, C, Upper, 1e-4, Check);
      report("ssyrk", Ok_, Check);
    }
    std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(C.begin(), C.end());
    double *EA = upload(Ad), *EB = upload(Bd), *EC = upload(Cd);
    double DAl = -0.5, DBe = 1.0;
    // Transposed form: C = alpha (A^T B + B^T A) + beta C with A, B K x N
    CUBLAS_CHECK(cublasDsyr2k(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, N, K, &DAl, EA, K, EB, K,
                              &DBe, EC, N));
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        double Sum = 0;
        for (int P = 0; P < K; ++P)
          Sum += Ad[I * K + P] * Bd[J * K + P] + Bd[I * K + P] * Ad[J * K + P];
        W.at(I, J) = -0.5 * Sum + Cd[J * N + I];
      }
    {
      bool Ok_ = compare(download(EC, N * N), W, Cd, Lower, 1e-12, Check);
      report("dsyr2k_t", Ok_, Check);
    }
    cudaFree(DA);
    cudaFree(DC);
    cudaFree(EA);
    cudaFree(EB);
    cudaFree(EC);
  }
  // strmm (right, upper, transposed): C = alpha B T^T, out of place; strsm
  // (left, lower): solve T X = alpha B in place
  {
    std::vector<float> T(N * N), B = random(R, M * N), C(M * N, 0.0f);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        T[J * N + I] = I == J ? 3 + R.uniform() : R.range(-0.3f, 0.3f);
    float *DT = upload(T), *DB = upload(B), *DC = upload(C);
    float Al = 2.0f;
    CUBLAS_CHECK(cublasStrmm(H, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T,
                             CUBLAS_DIAG_NON_UNIT, M, N, &Al, DT, N, DB, M, DC, M));
    Mat W(M, N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Sum = 0;
        for (int P = J; P < N; ++P) // (T^T)(P, J) = T(J, P), upper: J <= P
          Sum += (double)B[P * M + I] * T[P * N + J];
        W.at(I, J) = 2 * Sum;
      }
    {
      bool Ok_ = compare(download(DC, M * N), W, C, All, 1e-4, Check);
      report("strmm_rut", Ok_, Check);
    }
    std::vector<float> Bs = random(R, N * M);
    float *DX = upload(Bs);
    float One = 1.0f;
    CUBLAS_CHECK(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, N, M, &One, DT, N, DX, N));
    std::vector<float> X = download(DX, N * M);
    bool Ok = true;
    Check = 0;
    for (int J = 0; J < M; ++J)
      for (int I = 0; I < N; ++I) {
        double Sum = 0;
        for (int P = 0; P <= I; ++P)
          Sum += (double)T[P * N + I] * X[J * N + P];
        Ok &= closeTo(Sum, Bs[J * N + I], 1e-5, 1e-5);
        Check += std::fabs(X[J * N + I]);
      }
    report("strsm_ll", Ok, Check);
    cudaFree(DT);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DX);
  }
  // sgeam: C = alpha A^T + beta B (the usual out-of-place transpose), and
  // sdgmm: C = A diag(x)
  {
    std::vector<float> A = random(R, N * M), B = random(R, M * N), X = random(R, N);
    std::vector<float> Zero(M * N, 0.0f);
    float *DA = upload(A), *DB = upload(B), *DC = upload(Zero), *DX = upload(X);
    float Al = 1.0f, Be = -2.0f;
    CUBLAS_CHECK(cublasSgeam(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, &Al, DA, N, &Be, DB, M, DC, M));
    Mat W(M, N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I)
        W.at(I, J) = (double)A[I * N + J] - 2.0 * B[J * M + I];
    {
      bool Ok_ = compare(download(DC, M * N), W, Zero, All, 1e-6, Check);
      report("sgeam_t", Ok_, Check);
    }
    CUBLAS_CHECK(cublasSdgmm(H, CUBLAS_SIDE_RIGHT, M, N, DB, M, DX, 1, DC, M));
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I)
        W.at(I, J) = (double)B[J * M + I] * X[J];
    {
      bool Ok_ = compare(download(DC, M * N), W, Zero, All, 1e-6, Check);
      report("sdgmm", Ok_, Check);
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DX);
  }
  // cgemm with A conjugate-transposed; zherk on the upper triangle
  {
    std::vector<cuComplex> A(K * M), B(K * N), C(M * N);
    for (auto *V : {&A, &B, &C})
      for (cuComplex &Z : *V)
        Z = make_cuComplex(R.range(-1, 1), R.range(-1, 1));
    cuComplex *DA = upload(A), *DB = upload(B), *DC = upload(C);
    cuComplex Al = make_cuComplex(1.0f, 0.5f), Be = make_cuComplex(0.0f, -1.0f);
    CUBLAS_CHECK(cublasCgemm(H, CUBLAS_OP_C, CUBLAS_OP_N, M, N, K, &Al, DA, K, DB, K, &Be, DC, M));
    std::vector<cuComplex> G = download(DC, M * N);
    bool Ok = true;
    Check = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Re = 0, Im = 0;
        for (int P = 0; P < K; ++P) {
          cuComplex a = A[I * K + P], b = B[J * K + P]; // conj(a) * b
          Re += (double)a.x * b.x + (double)a.y * b.y;
          Im += (double)a.x * b.y - (double)a.y * b.x;
        }
        cuComplex c = C[J * M + I];
        double WRe = Re * 1.0 - Im * 0.5 + c.y; // alpha s + beta c, beta = -i
        double WIm = Re * 0.5 + Im * 1.0 - c.x;
        cuComplex g = G[J * M + I];
        Ok &= closeTo(g.x, WRe, 1e-4, 1e-4) && closeTo(g.y, WIm, 1e-4, 1e-4);
        Check += std::fabs(g.x) + std::fabs(g.y);
      }
    report("cgemm_cn", Ok, Check);
    std::vector<cuDoubleComplex> Z(N * K), Zc(N * N);
    for (cuDoubleComplex &V : Z)
      V = make_cuDoubleComplex(R.range(-1, 1), R.range(-1, 1));
    for (cuDoubleComplex &V : Zc)
      V = make_cuDoubleComplex(0, 0);
    cuDoubleComplex *DZ = upload(Z), *DZc = upload(Zc);
    double HAl = 1.0, HBe = 0.0;
    CUBLAS_CHECK(
        cublasZherk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, K, &HAl, DZ, N, &HBe, DZc, N));
    std::vector<cuDoubleComplex> Gz = download(DZc, N * N);
    Ok = true;
    Check = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I) {
        double Re = 0, Im = 0;
        for (int P = 0; P < K; ++P) { // a_i conj(a_j)
          cuDoubleComplex a = Z[P * N + I], b = Z[P * N + J];
          Re += a.x * b.x + a.y * b.y;
          Im += a.y * b.x - a.x * b.y;
        }
        if (I == J)
          Im = 0; // herk zeroes the diagonal's imaginary part
        cuDoubleComplex g = Gz[J * N + I];
        Ok &= closeTo(g.x, Re, 1e-12, 1e-12) && closeTo(g.y, Im, 1e-12, 1e-12);
        Check += std::fabs(g.x) + std::fabs(g.y);
      }
    report("zherk", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DZ);
    cudaFree(DZc);
  }
  CUBLAS_CHECK(cublasDestroy(H));
  return finish(Failures == 0);
}
