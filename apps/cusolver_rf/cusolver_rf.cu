/// \file
/// Refactorization with cuSolverRf, as circuit simulators and the
/// cuda-samples cuSolverRf program use it: a sparse nonsymmetric matrix is
/// factored once on the host (here by the program: partial pivoting on its
/// columns taken in reverse order, giving P A Q = L U with L's unit diagonal
/// stored), handed to cusolverRfSetupHost with P and Q, analysed,
/// refactored and solved on the device; then the values change (same
/// pattern), cusolverRfResetValues + Refactor + Solve again. Each solve is
/// judged by its residual; nnzM from AccessBundledFactorsDevice must be
/// nnzL + nnzU - n.
// cusolverSp and cusolverRf are deprecated in favour of cuDSS (CUDA 13);
// programs that still use them silence the warnings so.
#define DISABLE_CUSOLVER_DEPRECATED
#include "../common/lib_util.h"
#include <cusolverRf.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

struct Csr {
  std::vector<int> Row, Col;
  std::vector<double> Val;
};

static const int N = 40;

/// A sparse test matrix: a nonsymmetric tridiagonal band plus a few
/// entries far from it; Scale perturbs the values, not the pattern.
static Csr matrix(const std::vector<double> &Scale) {
  std::vector<double> D(N * N, 0.0);
  for (int I = 0; I < N; ++I) {
    D[I * N + I] = 3.0 + 0.1 * (I % 5);
    if (I + 1 < N) {
      D[(I + 1) * N + I] = -1.1; // row I, column I+1 (D is row-major here)
      D[I * N + I + 1] = -0.9;
    }
    if (I + 7 < N)
      D[I * N + I + 7] = 0.5;
    if (I % 6 == 0 && I + 13 < N)
      D[(I + 13) * N + I] = -0.7;
  }
  Csr A;
  A.Row.push_back(0);
  int K = 0;
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < N; ++J)
      if (D[I * N + J] != 0) {
        A.Col.push_back(J);
        A.Val.push_back(D[I * N + J] * Scale[K % Scale.size()]);
        ++K;
      }
    A.Row.push_back(A.Col.size());
  }
  return A;
}

static double residual(const Csr &A, const std::vector<double> &X, const std::vector<double> &B) {
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    double S = -B[I];
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
      S += A.Val[K] * X[A.Col[K]];
    Worst = std::fmax(Worst, std::fabs(S));
  }
  return Worst;
}

int main() {
  Lcg R(13);
  Csr A = matrix({1.0});
  int NnzA = A.Col.size();

  // The host factorization: M(i, j) = A(P[i], Q[j]) with Q reversed and P
  // from partial pivoting, the fill pattern tracked structurally.
  std::vector<int> Q(N), P(N);
  for (int J = 0; J < N; ++J)
    Q[J] = N - 1 - J;
  std::vector<double> M(N * N, 0.0); // row-major, rows of A permuted as we go
  std::vector<char> S(N * N, 0);
  std::vector<int> Rows(N);
  for (int I = 0; I < N; ++I) {
    Rows[I] = I;
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K) {
      int J = N - 1 - A.Col[K]; // column of A(:, Q)
      M[I * N + J] = A.Val[K];
      S[I * N + J] = 1;
    }
  }
  for (int K = 0; K < N; ++K) {
    int Piv = K;
    for (int I = K + 1; I < N; ++I)
      if (std::fabs(M[I * N + K]) > std::fabs(M[Piv * N + K]))
        Piv = I;
    if (Piv != K) {
      for (int J = 0; J < N; ++J) {
        std::swap(M[K * N + J], M[Piv * N + J]);
        std::swap(S[K * N + J], S[Piv * N + J]);
      }
      std::swap(Rows[K], Rows[Piv]);
    }
    for (int I = K + 1; I < N; ++I) {
      if (!S[I * N + K])
        continue;
      double F = M[I * N + K] / M[K * N + K];
      M[I * N + K] = F;
      for (int J = K + 1; J < N; ++J)
        if (S[K * N + J]) {
          M[I * N + J] -= F * M[K * N + J];
          S[I * N + J] = 1;
        }
    }
  }
  P = Rows;
  Csr L, U;
  L.Row.push_back(0);
  U.Row.push_back(0);
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < I; ++J)
      if (S[I * N + J]) {
        L.Col.push_back(J);
        L.Val.push_back(M[I * N + J]);
      }
    L.Col.push_back(I);
    L.Val.push_back(1.0);
    for (int J = I; J < N; ++J)
      if (S[I * N + J] || J == I) {
        U.Col.push_back(J);
        U.Val.push_back(M[I * N + J]);
      }
    L.Row.push_back(L.Col.size());
    U.Row.push_back(U.Col.size());
  }
  int NnzL = L.Col.size(), NnzU = U.Col.size();
  std::printf("n=%d nnzA=%d nnzL=%d nnzU=%d\n", N, NnzA, NnzL, NnzU);

  cusolverRfHandle_t H;
  CUSOLVER_CHECK(cusolverRfCreate(&H));
  CUSOLVER_CHECK(cusolverRfSetNumericProperties(H, 0.0, 0.0));
  CUSOLVER_CHECK(cusolverRfSetAlgs(H, CUSOLVERRF_FACTORIZATION_ALG0, CUSOLVERRF_TRIANGULAR_SOLVE_ALG1));
  CUSOLVER_CHECK(cusolverRfSetMatrixFormat(H, CUSOLVERRF_MATRIX_FORMAT_CSR, CUSOLVERRF_UNIT_DIAGONAL_STORED_L));
  CUSOLVER_CHECK(cusolverRfSetResetValuesFastMode(H, CUSOLVERRF_RESET_VALUES_FAST_MODE_ON));
  CUSOLVER_CHECK(cusolverRfSetupHost(N, NnzA, A.Row.data(), A.Col.data(), A.Val.data(), NnzL, L.Row.data(),
                                     L.Col.data(), L.Val.data(), NnzU, U.Row.data(), U.Col.data(), U.Val.data(),
                                     P.data(), Q.data(), H));
  CUSOLVER_CHECK(cusolverRfAnalyze(H));
  CUSOLVER_CHECK(cusolverRfRefactor(H));

  int *DP = upload(P), *DQ = upload(Q);
  double *DT, *DX;
  CHECK(cudaMalloc(&DT, N * sizeof(double)));
  std::vector<double> B(N);
  for (double &V : B)
    V = R.range(-1, 1);
  DX = upload(B);
  CUSOLVER_CHECK(cusolverRfSolve(H, DP, DQ, 1, DT, N, DX, N));
  auto X = download(DX, N);
  double Sum = 0;
  for (double V : X)
    Sum += std::fabs(V);
  report("rf_first_solve", residual(A, X, B) < 1e-12, Sum);

  int NnzM = 0, *Mp, *Mi;
  double *Mx;
  CUSOLVER_CHECK(cusolverRfAccessBundledFactorsDevice(H, &NnzM, &Mp, &Mi, &Mx));
  std::printf("nnzM=%d\n", NnzM);
  report("bundled_nnz", NnzM == NnzL + NnzU - N, NnzM);

  // New values, same pattern: reset, refactor, solve.
  std::vector<double> Scale(NnzA);
  for (double &V : Scale)
    V = 1.0 + 0.1 * R.range(-1, 1);
  Csr A2 = matrix(Scale);
  int *DRow = upload(A2.Row), *DCol = upload(A2.Col);
  double *DVal = upload(A2.Val);
  for (int Round = 0; Round < 2; ++Round) {
    CUSOLVER_CHECK(cusolverRfResetValues(N, NnzA, DRow, DCol, DVal, DP, DQ, H));
    CUSOLVER_CHECK(cusolverRfRefactor(H));
    for (double &V : B)
      V = R.range(-1, 1);
    CHECK(cudaMemcpy(DX, B.data(), N * sizeof(double), cudaMemcpyHostToDevice));
    CUSOLVER_CHECK(cusolverRfSolve(H, DP, DQ, 1, DT, N, DX, N));
    X = download(DX, N);
    Sum = 0;
    for (double V : X)
      Sum += std::fabs(V);
    report(Round ? "rf_resolve_again" : "rf_refactor_solve", residual(A2, X, B) < 1e-12, Sum);
  }
  cusolverRfNumericBoostReport_t Boost;
  CUSOLVER_CHECK(cusolverRfGetNumericBoostReport(H, &Boost));
  std::printf("boost report=%d\n", (int)Boost);
  CUSOLVER_CHECK(cusolverRfDestroy(H));
  cudaFree(DP);
  cudaFree(DQ);
  cudaFree(DT);
  cudaFree(DX);
  cudaFree(DRow);
  cudaFree(DCol);
  cudaFree(DVal);
  return finish(Failures == 0);
}
