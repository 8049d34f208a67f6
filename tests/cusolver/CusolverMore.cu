/// \file
/// cuSOLVER paths the apps leave out, each checked against a property the
/// host verifies (no expected numbers from ferry): sytrf + Xsytrs (LDL^T
/// solve of a symmetric indefinite system, as torch.linalg.ldl_solve),
/// Xtrtri (T * inv(T) = I, upper and unit-lower), XsyevBatched (eigenpair
/// residuals), ormqr from the right (C Q Q^T = C), gesvd with jobu = 'O'
/// (U overwrites A), Zgetrs with op C, and cusolverRf's split factors
/// (L U = P A Q), and cusolverSp's host pattern helpers the cuda-samples
/// solvers call (csrissymHost on symmetric and one-sided patterns, csrpermHost
/// B = A(p,q) against the host's own gather with valB = valA(map), and
/// csrsymrcmHost: a permutation that brings a shuffled grid's bandwidth back
/// down), and the low-level csrchol/csrqr (host and device) and csrlu
/// (host) calls: A x = b residuals, a singular matrix's zero pivot, and
/// csrluExtractHost's factors multiplied back (L U = A(P, Q)) on a matrix
/// that needs pivoting; and syevj/heevj's Jacobi diagnostics (eigenpair
/// residuals, GetResidual within the tolerance, sweeps within the limit,
/// info = n + 1 when one sweep cannot converge, NOT_SUPPORTED after the
/// batched form), and gesvdj's (U and V orthonormal, A = U S V^H, S
/// descending, economy and full, m < n, complex; sweeps and residual
/// reported), and sygvd/hegvd/sygvj for itype 1, 2, 3 (the generalized
/// eigen-equations and B-normalization; info n + i for an indefinite B).
/// syevdx/heevdx by range (all, (vl, vu], il..iu): meig, the selected
/// eigenvalues among the full spectrum, and their eigenpairs.
/// Prints `CusolverMore: PASS` or the failing checks.
#define DISABLE_CUSOLVER_DEPRECATED
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusolverRf.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int Failures = 0;
static void check(const char *Name, bool Ok, double Measure) {
  std::printf("%-20s %s (%.3g)\n", Name, Ok ? "ok" : "FAIL", Measure);
  Failures += !Ok;
}

#define CK(Call)                                                                                                       \
  do {                                                                                                                 \
    int S_ = (int)(Call);                                                                                              \
    if (S_) {                                                                                                          \
      std::printf("FAIL: %s returned %d\n", #Call, S_);                                                                \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

template <typename T> static T *up(const std::vector<T> &V) {
  T *P;
  cudaMalloc(&P, V.size() * sizeof(T));
  cudaMemcpy(P, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return P;
}
template <typename T> static std::vector<T> down(const T *P, size_t N) {
  std::vector<T> V(N);
  cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

static unsigned Seed = 12345;
static double rnd() {
  Seed = Seed * 1103515245u + 12345u;
  return ((Seed >> 8) & 0xffff) / 32768.0 - 1.0;
}
static int pick(int N) { return (int)((rnd() + 1.0) * 32768.0) % N; } // 0 .. N-1

/// Keeps a stream busy (so library work queues behind it) until *Flag
/// is set by the host.
__global__ void busy(volatile int *Flag) {
  while (!*Flag) {
  }
}

int main() {
  cusolverDnHandle_t H;
  CK(cusolverDnCreate(&H));
  int *Info;
  cudaMalloc(&Info, 64 * sizeof(int));
  const int N = 10;

  // sytrf + Xsytrs on a symmetric indefinite matrix.
  {
    std::vector<double> A(N * N), B(N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I)
        A[J * N + I] = A[I * N + J] = rnd() + (I == J ? (I % 2 ? 3.0 : -3.0) : 0.0);
    for (double &X : B)
      X = rnd();
    double *DA = up(A), *DB = up(B), *DW;
    int *Piv32;
    int64_t *Piv64;
    cudaMalloc(&Piv32, N * sizeof(int));
    cudaMalloc(&Piv64, N * sizeof(int64_t));
    int L = 0;
    CK(cusolverDnDsytrf_bufferSize(H, N, DA, N, &L));
    cudaMalloc(&DW, L * sizeof(double));
    CK(cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, Piv32, DW, L, Info));
    auto P = down(Piv32, N);
    std::vector<int64_t> P64(P.begin(), P.end());
    cudaMemcpy(Piv64, P64.data(), N * sizeof(int64_t), cudaMemcpyHostToDevice);
    size_t Dev = 0, Host = 0;
    CK(cusolverDnXsytrs_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, 1, CUDA_R_64F, DA, N, Piv64, CUDA_R_64F, DB, N, &Dev,
                                   &Host));
    void *DevBuf;
    cudaMalloc(&DevBuf, Dev ? Dev : 1);
    std::vector<char> HostBuf(Host + 1);
    CK(cusolverDnXsytrs(H, CUBLAS_FILL_MODE_LOWER, N, 1, CUDA_R_64F, DA, N, Piv64, CUDA_R_64F, DB, N, DevBuf, Dev,
                        HostBuf.data(), Host, Info));
    auto X = down(DB, N);
    double Worst = 0;
    for (int I = 0; I < N; ++I) {
      double S = -B[I];
      for (int K = 0; K < N; ++K)
        S += A[K * N + I] * X[K];
      Worst = std::fmax(Worst, std::fabs(S));
    }
    check("sytrf+Xsytrs", down(Info, 1)[0] == 0 && Worst < 1e-12, Worst);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
    cudaFree(Piv32);
    cudaFree(Piv64);
    cudaFree(DevBuf);
  }

  // Xtrtri: upper non-unit and lower unit.
  for (int Case = 0; Case < 2; ++Case) {
    bool Upper = Case == 0;
    std::vector<double> T(N * N, 0.0);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        if (Upper ? I <= J : I >= J)
          T[J * N + I] = I == J ? (Upper ? 2.0 + 0.1 * I : 99.0) : 0.3 * rnd();
    double *DT = up(T);
    size_t Dev = 0, Host = 0;
    cublasFillMode_t Fill = Upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    cublasDiagType_t Diag = Upper ? CUBLAS_DIAG_NON_UNIT : CUBLAS_DIAG_UNIT;
    CK(cusolverDnXtrtri_bufferSize(H, Fill, Diag, N, CUDA_R_64F, DT, N, &Dev, &Host));
    void *DevBuf;
    cudaMalloc(&DevBuf, Dev ? Dev : 1);
    std::vector<char> HostBuf(Host + 1);
    CK(cusolverDnXtrtri(H, Fill, Diag, N, CUDA_R_64F, DT, N, DevBuf, Dev, HostBuf.data(), Host, Info));
    auto Inv = down(DT, N * N);
    if (!Upper)
      for (int I = 0; I < N; ++I)
        T[I * N + I] = Inv[I * N + I] = 1.0; // unit diagonal: the stored one is not referenced
    double Worst = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        double S = I == J ? -1.0 : 0.0;
        for (int K = 0; K < N; ++K)
          if ((Upper ? I <= K && K <= J : J <= K && K <= I))
            S += T[K * N + I] * Inv[J * N + K];
        Worst = std::fmax(Worst, std::fabs(S));
      }
    check(Upper ? "Xtrtri_upper" : "Xtrtri_lower_unit", down(Info, 1)[0] == 0 && Worst < 1e-13, Worst);
    cudaFree(DT);
    cudaFree(DevBuf);
  }

  // XsyevBatched: 5 symmetric 7 x 7 matrices.
  {
    const int M = 7, Batch = 5;
    std::vector<double> A(M * M * Batch);
    for (int B = 0; B < Batch; ++B)
      for (int J = 0; J < M; ++J)
        for (int I = 0; I <= J; ++I)
          A[B * M * M + J * M + I] = A[B * M * M + I * M + J] = rnd();
    double *DA = up(A), *DW;
    cudaMalloc(&DW, M * Batch * sizeof(double));
    cusolverDnParams_t P;
    CK(cusolverDnCreateParams(&P));
    size_t Dev = 0, Host = 0;
    CK(cusolverDnXsyevBatched_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, M, CUDA_R_64F, DA, M,
                                         CUDA_R_64F, DW, CUDA_R_64F, &Dev, &Host, Batch));
    void *DevBuf;
    cudaMalloc(&DevBuf, Dev ? Dev : 1);
    std::vector<char> HostBuf(Host + 1);
    CK(cusolverDnXsyevBatched(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, M, CUDA_R_64F, DA, M,
                              CUDA_R_64F, DW, CUDA_R_64F, DevBuf, Dev, HostBuf.data(), Host, Info, Batch));
    auto V = down(DA, M * M * Batch), W = down(DW, M * Batch);
    auto I = down(Info, Batch);
    double Worst = 0;
    bool InfoOk = true;
    for (int B = 0; B < Batch; ++B) {
      InfoOk &= I[B] == 0;
      for (int K = 0; K < M; ++K)
        for (int Row = 0; Row < M; ++Row) {
          double S = -W[B * M + K] * V[B * M * M + K * M + Row];
          for (int J = 0; J < M; ++J)
            S += A[B * M * M + J * M + Row] * V[B * M * M + K * M + J];
          Worst = std::fmax(Worst, std::fabs(S));
        }
    }
    check("XsyevBatched", InfoOk && Worst < 1e-12, Worst);
    CK(cusolverDnDestroyParams(P));
    cudaFree(DA);
    cudaFree(DW);
    cudaFree(DevBuf);
  }

  // ormqr from the right: C Q Q^T = C (Q from geqrf of a 9 x 9 matrix).
  {
    const int M = 9, R = 4;
    std::vector<double> A(M * M), C(R * M);
    for (double &X : A)
      X = rnd();
    for (double &X : C)
      X = rnd();
    double *DA = up(A), *DC = up(C), *Tau, *DW;
    cudaMalloc(&Tau, M * sizeof(double));
    cudaMalloc(&DW, 4096 * sizeof(double));
    CK(cusolverDnDgeqrf(H, M, M, DA, M, Tau, DW, 4096, Info));
    CK(cusolverDnDormqr(H, CUBLAS_SIDE_RIGHT, CUBLAS_OP_N, R, M, M, DA, M, Tau, DC, R, DW, 4096, Info));
    auto CQ = down(DC, R * M);
    CK(cusolverDnDormqr(H, CUBLAS_SIDE_RIGHT, CUBLAS_OP_T, R, M, M, DA, M, Tau, DC, R, DW, 4096, Info));
    auto Back = down(DC, R * M);
    double Worst = 0, Moved = 0;
    for (int I = 0; I < R * M; ++I) {
      Worst = std::fmax(Worst, std::fabs(Back[I] - C[I]));
      Moved = std::fmax(Moved, std::fabs(CQ[I] - C[I]));
    }
    check("ormqr_right", down(Info, 1)[0] == 0 && Worst < 1e-13 && Moved > 1e-3, Worst);
    cudaFree(DA);
    cudaFree(DC);
    cudaFree(Tau);
    cudaFree(DW);
  }

  // gesvd jobu = 'O': U overwrites A; U S V^T = A.
  {
    const int M = 8, Nn = 5;
    std::vector<double> A(M * Nn);
    for (double &X : A)
      X = rnd();
    double *DA = up(A), *DS, *DVT, *DW;
    cudaMalloc(&DS, Nn * sizeof(double));
    cudaMalloc(&DVT, Nn * Nn * sizeof(double));
    cudaMalloc(&DW, 4096 * sizeof(double));
    CK(cusolverDnDgesvd(H, 'O', 'A', M, Nn, DA, M, DS, nullptr, M, DVT, Nn, DW, 4096, nullptr, Info));
    auto U = down(DA, M * Nn), S = down(DS, Nn), VT = down(DVT, Nn * Nn);
    double Worst = 0;
    for (int J = 0; J < Nn; ++J)
      for (int I = 0; I < M; ++I) {
        double X = -A[J * M + I];
        for (int K = 0; K < Nn; ++K)
          X += U[K * M + I] * S[K] * VT[J * Nn + K];
        Worst = std::fmax(Worst, std::fabs(X));
      }
    check("gesvd_jobu_O", down(Info, 1)[0] == 0 && Worst < 1e-13, Worst);
    cudaFree(DA);
    cudaFree(DS);
    cudaFree(DVT);
    cudaFree(DW);
  }

  // Zgetrs with op C: A^H x = b.
  {
    using Z = std::complex<double>;
    std::vector<Z> A(N * N), B(N);
    for (Z &X : A)
      X = Z(rnd(), rnd());
    for (Z &X : B)
      X = Z(rnd(), rnd());
    auto *DA = reinterpret_cast<cuDoubleComplex *>(up(A));
    auto *DB = reinterpret_cast<cuDoubleComplex *>(up(B));
    cuDoubleComplex *DW;
    int *Piv;
    cudaMalloc(&DW, 1024 * sizeof(cuDoubleComplex));
    cudaMalloc(&Piv, N * sizeof(int));
    CK(cusolverDnZgetrf(H, N, N, DA, N, DW, Piv, Info));
    CK(cusolverDnZgetrs(H, CUBLAS_OP_C, N, 1, DA, N, Piv, DB, N, Info));
    auto X = down(reinterpret_cast<Z *>(DB), N);
    double Worst = 0;
    for (int I = 0; I < N; ++I) {
      Z S = -B[I];
      for (int K = 0; K < N; ++K)
        S += std::conj(A[I * N + K]) * X[K];
      Worst = std::fmax(Worst, std::abs(S));
    }
    check("zgetrs_opC", down(Info, 1)[0] == 0 && Worst < 1e-12, Worst);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DW);
    cudaFree(Piv);
  }

  // cusolverRf: split factors of a tridiagonal matrix (P = Q = identity) give L U = A.
  {
    const int M = 6;
    std::vector<int> Row{0}, Col;
    std::vector<double> Val;
    for (int I = 0; I < M; ++I) {
      for (int J = std::max(0, I - 1); J <= std::min(M - 1, I + 1); ++J) {
        Col.push_back(J);
        Val.push_back(J == I ? 4.0 : -1.0 - 0.1 * I);
      }
      Row.push_back(Col.size());
    }
    // Its LU without pivoting, by hand on the band.
    std::vector<double> Lsub(M, 0.0), Ud(M), Uup(M, 0.0);
    for (int I = 0; I < M; ++I) {
      double Sub = I ? -1.0 - 0.1 * I : 0.0, Sup = -1.0 - 0.1 * I;
      if (I) {
        Lsub[I] = Sub / Ud[I - 1];
        Ud[I] = 4.0 - Lsub[I] * Uup[I - 1];
      } else {
        Ud[I] = 4.0;
      }
      Uup[I] = I + 1 < M ? Sup : 0.0;
    }
    std::vector<int> LRow{0}, LCol, URow{0}, UCol, P(M), Q(M);
    std::vector<double> LVal, UVal;
    for (int I = 0; I < M; ++I) {
      P[I] = Q[I] = I;
      if (I) {
        LCol.push_back(I - 1);
        LVal.push_back(Lsub[I]);
      }
      LCol.push_back(I);
      LVal.push_back(1.0);
      LRow.push_back(LCol.size());
      UCol.push_back(I);
      UVal.push_back(Ud[I]);
      if (I + 1 < M) {
        UCol.push_back(I + 1);
        UVal.push_back(Uup[I]);
      }
      URow.push_back(UCol.size());
    }
    // New values: scale the matrix by 2; the refactored U must double.
    cusolverRfHandle_t Rf;
    CK(cusolverRfCreate(&Rf));
    CK(cusolverRfSetupHost(M, (int)Col.size(), Row.data(), Col.data(), Val.data(), (int)LCol.size(), LRow.data(),
                           LCol.data(), LVal.data(), (int)UCol.size(), URow.data(), UCol.data(), UVal.data(), P.data(),
                           Q.data(), Rf));
    CK(cusolverRfAnalyze(Rf));
    std::vector<double> Val2(Val);
    for (double &V : Val2)
      V *= 2;
    int *DRow = up(Row), *DCol = up(Col), *DP = up(P), *DQ = up(Q);
    double *DVal = up(Val2);
    CK(cusolverRfResetValues(M, (int)Col.size(), DRow, DCol, DVal, DP, DQ, Rf));
    CK(cusolverRfRefactor(Rf));
    int NnzL, NnzU, *Lr, *Lc, *Ur, *Uc;
    double *Lv, *Uv;
    CK(cusolverRfExtractSplitFactorsHost(Rf, &NnzL, &Lr, &Lc, &Lv, &NnzU, &Ur, &Uc, &Uv));
    double Worst = 0;
    bool Shape = NnzL == (int)LCol.size() && NnzU == (int)UCol.size();
    for (int K = 0; Shape && K < NnzU; ++K)
      Worst = std::fmax(Worst, std::fabs(Uv[K] - 2 * UVal[K]));
    for (int K = 0; Shape && K < NnzL; ++K)
      Worst = std::fmax(Worst, std::fabs(Lv[K] - LVal[K]));
    check("rf_split_factors", Shape && Worst < 1e-13, Worst);
    std::free(Lr);
    std::free(Lc);
    std::free(Lv);
    std::free(Ur);
    std::free(Uc);
    std::free(Uv);
    CK(cusolverRfDestroy(Rf));
  }

  {
    // cusolverSp host pattern helpers, 1-based descriptor.
    cusolverSpHandle_t Sp;
    cusparseMatDescr_t D;
    CK(cusolverSpCreate(&Sp));
    CK(cusparseCreateMatDescr(&D));
    CK(cusparseSetMatIndexBase(D, CUSPARSE_INDEX_BASE_ONE));
    // A 5 x 5 pattern, symmetric (values are not), then one entry mirrored away.
    std::vector<int> Row = {1, 3, 6, 9, 11, 13}, Col = {1, 3, 2, 4, 5, 1, 3, 5, 2, 4, 2, 3}, ColOne(Col);
    ColOne.back() = 5; // (5, 3) -> (5, 5): (3, 5) loses its mirror
    int Sym = -1, One = -1;
    CK(cusolverSpXcsrissymHost(Sp, 5, 12, D, Row.data(), Row.data() + 1, Col.data(), &Sym));
    CK(cusolverSpXcsrissymHost(Sp, 5, 12, D, Row.data(), Row.data() + 1, ColOne.data(), &One));
    check("sp_csrissym", Sym == 1 && One == 0, Sym * 10 + One);

    // csrperm: a 6 x 7 matrix with random entries, random p and q.
    const int M = 6, N = 7;
    std::vector<double> Dense(M * N, 0);
    std::vector<int> PR{1}, PC, P(M), Q(N);
    std::vector<double> PV;
    for (int I = 0; I < M; ++I) {
      for (int J = 0; J < N; ++J)
        if (rnd() > 0.2) {
          Dense[I * N + J] = rnd() + 3;
          PC.push_back(J + 1);
          PV.push_back(Dense[I * N + J]);
        }
      PR.push_back((int)PC.size() + 1);
    }
    for (int I = 0; I < M; ++I)
      P[I] = I;
    for (int J = 0; J < N; ++J)
      Q[J] = J;
    for (int K = M - 1; K > 0; --K)
      std::swap(P[K], P[pick(K + 1)]);
    for (int K = N - 1; K > 0; --K)
      std::swap(Q[K], Q[pick(K + 1)]);
    int Nnz = (int)PC.size();
    std::vector<int> Map(Nnz);
    for (int K = 0; K < Nnz; ++K)
      Map[K] = K;
    size_t Bytes = 0;
    CK(cusolverSpXcsrperm_bufferSizeHost(Sp, M, N, Nnz, D, PR.data(), PC.data(), P.data(), Q.data(), &Bytes));
    std::vector<char> Buf(Bytes + 1);
    CK(cusolverSpXcsrpermHost(Sp, M, N, Nnz, D, PR.data(), PC.data(), P.data(), Q.data(), Map.data(), Buf.data()));
    double Worst = 0;
    bool Shape = PR[0] == 1 && PR[M] == Nnz + 1;
    int Found = 0;
    for (int I = 0; Shape && I < M; ++I)
      for (int K = PR[I] - 1; K < PR[I + 1] - 1; ++K) {
        int J = PC[K] - 1;
        Shape &= K == PR[I] - 1 || PC[K - 1] < PC[K]; // sorted within the row
        Worst = std::fmax(Worst, std::fabs(PV[Map[K]] - Dense[P[I] * N + Q[J]]));
        Found += Dense[P[I] * N + Q[J]] != 0;
      }
    check("sp_csrperm", Shape && Found == Nnz && Worst == 0, Worst);

    // symrcm: a 9 x 9 grid Laplacian under a random relabeling.
    const int G = 9, Gn = G * G;
    std::vector<int> Label(Gn);
    for (int K = 0; K < Gn; ++K)
      Label[K] = K;
    for (int K = Gn - 1; K > 0; --K)
      std::swap(Label[K], Label[pick(K + 1)]);
    std::vector<std::vector<int>> Adj(Gn);
    for (int I = 0; I < G; ++I)
      for (int J = 0; J < G; ++J) {
        int U = Label[I * G + J];
        Adj[U].push_back(U);
        if (I > 0) Adj[U].push_back(Label[(I - 1) * G + J]);
        if (I < G - 1) Adj[U].push_back(Label[(I + 1) * G + J]);
        if (J > 0) Adj[U].push_back(Label[I * G + J - 1]);
        if (J < G - 1) Adj[U].push_back(Label[I * G + J + 1]);
      }
    std::vector<int> GR{1}, GC;
    for (auto &L : Adj) {
      std::sort(L.begin(), L.end());
      for (int V : L)
        GC.push_back(V + 1);
      GR.push_back((int)GC.size() + 1);
    }
    std::vector<int> Rcm(Gn, -1), Pos(Gn, -1);
    CK(cusolverSpXcsrsymrcmHost(Sp, Gn, (int)GC.size(), D, GR.data(), GC.data(), Rcm.data()));
    bool Perm = true;
    for (int K = 0; K < Gn; ++K) {
      Perm &= Rcm[K] >= 0 && Rcm[K] < Gn && Pos[Rcm[K]] < 0;
      if (Perm)
        Pos[Rcm[K]] = K;
    }
    int Before = 0, After = 0;
    for (int U = 0; Perm && U < Gn; ++U)
      for (int V : Adj[U]) {
        Before = std::max(Before, std::abs(U - V));
        After = std::max(After, std::abs(Pos[U] - Pos[V]));
      }
    // A breadth-first ordering of a 9 x 9 grid has bandwidth at most 2 G.
    check("sp_csrsymrcm", Perm && After <= 2 * G && After < Before, After);
    // Low-level API on a 6 x 6 nonsymmetric matrix whose (0,0) is zero (LU must pivot) and on an SPD one.
    {
      const int N6 = 6;
      std::vector<double> Mat(N6 * N6, 0), Spd(N6 * N6, 0); // row-major here
      for (int I = 0; I < N6; ++I)
        for (int J = 0; J < N6; ++J) {
          if (std::abs(I - J) <= 2 && (I + 2 * J) % 3 != 1)
            Mat[I * N6 + J] = rnd() * 4;
          if (std::abs(I - J) <= 1)
            Spd[I * N6 + J] = I == J ? 4 : -1;
        }
      for (int I = 1; I < N6; ++I)
        Mat[I * N6 + I] += 5; // nonsingular, but row 0 keeps a zero diagonal
      Mat[0 * N6 + 0] = 0;
      Mat[0 * N6 + 1] = 3;
      Mat[1 * N6 + 0] = 2;
      auto toCsr = [&](const std::vector<double> &Dn, std::vector<int> &R, std::vector<int> &C, std::vector<double> &V) {
        R = {1};
        C.clear();
        V.clear();
        for (int I = 0; I < N6; ++I) {
          for (int J = 0; J < N6; ++J)
            if (Dn[I * N6 + J] != 0) {
              C.push_back(J + 1);
              V.push_back(Dn[I * N6 + J]);
            }
          R.push_back((int)C.size() + 1);
        }
      };
      auto resid = [&](const std::vector<double> &Dn, const std::vector<double> &X, const std::vector<double> &B) {
        double W = 0;
        for (int I = 0; I < N6; ++I) {
          double S = 0;
          for (int J = 0; J < N6; ++J)
            S += Dn[I * N6 + J] * X[J];
          W = std::fmax(W, std::fabs(S - B[I]));
        }
        return W;
      };
      std::vector<int> R, C;
      std::vector<double> V, B = {1, 2, 3, 4, 5, 6}, X(N6);
      size_t In = 0, Ws = 0;
      // csrlu host: factor, solve, extract and multiply back.
      toCsr(Mat, R, C, V);
      csrluInfoHost_t Lu;
      CK(cusolverSpCreateCsrluInfoHost(&Lu));
      CK(cusolverSpXcsrluAnalysisHost(Sp, N6, (int)C.size(), D, R.data(), C.data(), Lu));
      CK(cusolverSpDcsrluBufferInfoHost(Sp, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Lu, &In, &Ws));
      std::vector<char> LB(Ws + 1);
      CK(cusolverSpDcsrluFactorHost(Sp, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Lu, 1.0, LB.data()));
      int Pos = -7;
      CK(cusolverSpDcsrluZeroPivotHost(Sp, Lu, 1e-12, &Pos));
      CK(cusolverSpDcsrluSolveHost(Sp, N6, B.data(), X.data(), Lu, LB.data()));
      double LuRes = resid(Mat, X, B);
      int NL = -1, NU = -1;
      CK(cusolverSpXcsrluNnzHost(Sp, &NL, &NU, Lu));
      std::vector<int> Pl(N6), Ql(N6), RL(N6 + 1), CL(NL + 1), RU(N6 + 1), CU(NU + 1);
      std::vector<double> VL(NL + 1), VU(NU + 1);
      CK(cusolverSpDcsrluExtractHost(Sp, Pl.data(), Ql.data(), D, VL.data(), RL.data(), CL.data(), D, VU.data(),
                                     RU.data(), CU.data(), Lu, LB.data()));
      std::vector<double> L(N6 * N6, 0), U(N6 * N6, 0);
      bool Tri = true;
      for (int I = 0; I < N6; ++I) {
        L[I * N6 + I] = 1;
        for (int K = RL[I] - 1; K < RL[I + 1] - 1; ++K) {
          Tri &= CL[K] - 1 < I;
          L[I * N6 + CL[K] - 1] = VL[K];
        }
        for (int K = RU[I] - 1; K < RU[I + 1] - 1; ++K) {
          Tri &= CU[K] - 1 >= I;
          U[I * N6 + CU[K] - 1] = VU[K];
        }
      }
      double Back = 0;
      for (int I = 0; I < N6; ++I)
        for (int J = 0; J < N6; ++J) {
          double S = 0;
          for (int K = 0; K < N6; ++K)
            S += L[I * N6 + K] * U[K * N6 + J];
          Back = std::fmax(Back, std::fabs(S - Mat[Pl[I] * N6 + Ql[J]]));
        }
      check("sp_csrlu_host", Pos == -1 && Tri && Pl[0] != 0 && LuRes < 1e-12 && Back < 1e-12,
            std::fmax(LuRes, Back));
      CK(cusolverSpDestroyCsrluInfoHost(Lu));

      // csrchol host and device on the SPD matrix; then a singular one (zero pivot at 2).
      toCsr(Spd, R, C, V);
      csrcholInfoHost_t Ch;
      CK(cusolverSpCreateCsrcholInfoHost(&Ch));
      CK(cusolverSpXcsrcholAnalysisHost(Sp, N6, (int)C.size(), D, R.data(), C.data(), Ch));
      CK(cusolverSpDcsrcholBufferInfoHost(Sp, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Ch, &In, &Ws));
      std::vector<char> CB(Ws + 1);
      CK(cusolverSpDcsrcholFactorHost(Sp, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Ch, CB.data()));
      Pos = -7;
      CK(cusolverSpDcsrcholZeroPivotHost(Sp, Ch, 1e-12, &Pos));
      CK(cusolverSpDcsrcholSolveHost(Sp, N6, B.data(), X.data(), Ch, CB.data()));
      double HostRes = resid(Spd, X, B);
      csrcholInfo_t ChD;
      CK(cusolverSpCreateCsrcholInfo(&ChD));
      int *DR = up(R), *DC = up(C);
      double *DV = up(V), *DB = up(B), *DX = up(X);
      void *DW;
      cudaMalloc(&DW, 1 << 16);
      CK(cusolverSpXcsrcholAnalysis(Sp, N6, (int)C.size(), D, DR, DC, ChD));
      CK(cusolverSpDcsrcholBufferInfo(Sp, N6, (int)C.size(), D, DV, DR, DC, ChD, &In, &Ws));
      CK(cusolverSpDcsrcholFactor(Sp, N6, (int)C.size(), D, DV, DR, DC, ChD, DW));
      int PosD = -7;
      CK(cusolverSpDcsrcholZeroPivot(Sp, ChD, 1e-12, &PosD));
      CK(cusolverSpDcsrcholSolve(Sp, N6, DB, DX, ChD, DW));
      double DevRes = resid(Spd, down(DX, N6), B);
      std::vector<double> Sing(Spd);
      for (int J = 0; J < N6; ++J)
        Sing[2 * N6 + J] = Sing[J * N6 + 2] = 0; // row and column 2 empty but the diagonal...
      Sing[2 * N6 + 2] = 0;
      Sing[2 * N6 + 3] = Sing[3 * N6 + 2] = 1e-30; // ...keep the pattern nonempty
      toCsr(Sing, R, C, V);
      CK(cusolverSpXcsrcholAnalysisHost(Sp, N6, (int)C.size(), D, R.data(), C.data(), Ch));
      CK(cusolverSpDcsrcholFactorHost(Sp, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Ch, CB.data()));
      int PosS = -7;
      CK(cusolverSpDcsrcholZeroPivotHost(Sp, Ch, 1e-12, &PosS));
      check("sp_csrchol", Pos == -1 && PosD == -1 && PosS == 2 && HostRes < 1e-12 && DevRes < 1e-12,
            std::fmax(HostRes, DevRes));
      CK(cusolverSpDestroyCsrcholInfoHost(Ch));
      CK(cusolverSpDestroyCsrcholInfo(ChD));

      // csrqr host: least squares of the nonsymmetric matrix (square), solved through Factor(b, x) and Solve.
      toCsr(Mat, R, C, V);
      csrqrInfoHost_t Qi;
      CK(cusolverSpCreateCsrqrInfoHost(&Qi));
      CK(cusolverSpXcsrqrAnalysisHost(Sp, N6, N6, (int)C.size(), D, R.data(), C.data(), Qi));
      CK(cusolverSpDcsrqrBufferInfoHost(Sp, N6, N6, (int)C.size(), D, V.data(), R.data(), C.data(), Qi, &In, &Ws));
      std::vector<char> QB(Ws + 1);
      CK(cusolverSpDcsrqrSetupHost(Sp, N6, N6, (int)C.size(), D, V.data(), R.data(), C.data(), 0.0, Qi));
      std::vector<double> X2(N6), Bc(B);
      CK(cusolverSpDcsrqrFactorHost(Sp, N6, N6, (int)C.size(), Bc.data(), X2.data(), Qi, QB.data()));
      Pos = -7;
      CK(cusolverSpDcsrqrZeroPivotHost(Sp, Qi, 1e-12, &Pos));
      CK(cusolverSpDcsrqrSolveHost(Sp, N6, N6, Bc.data(), X.data(), Qi, QB.data()));
      double QrRes = std::fmax(resid(Mat, X, B), resid(Mat, X2, B));
      check("sp_csrqr_host", Pos == -1 && QrRes < 1e-12, QrRes);
      CK(cusolverSpDestroyCsrqrInfoHost(Qi));
    }
    CK(cusparseDestroyMatDescr(D));
    CK(cusolverSpDestroy(Sp));
  }

  {
    // syevj (real) and heevj (complex) on 7 x 7 random Hermitian matrices.
    const int N = 7;
    for (int Cplx = 0; Cplx < 2; ++Cplx) {
      std::vector<std::complex<double>> A(N * N);
      for (int J = 0; J < N; ++J)
        for (int I = J; I < N; ++I) {
          std::complex<double> X(rnd(), Cplx && I != J ? rnd() : 0);
          A[I + J * N] = X;
          A[J + I * N] = std::conj(X);
        }
      syevjInfo_t P;
      CK(cusolverDnCreateSyevjInfo(&P));
      CK(cusolverDnXsyevjSetTolerance(P, 1e-10));
      int Lw = 0, Sweeps = -1;
      double Res = -1, Worst = 0, Norm = 0;
      int *Info = up(std::vector<int>(1, -5));
      double *DW = up(std::vector<double>(N, 0));
      std::vector<double> W(N);
      std::vector<std::complex<double>> V(N * N);
      if (Cplx) {
        auto *DA = up(A);
        CK(cusolverDnZheevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, (cuDoubleComplex *)DA, N,
                                       DW, &Lw, P));
        cuDoubleComplex *Work;
        cudaMalloc(&Work, sizeof(cuDoubleComplex) * Lw);
        CK(cusolverDnZheevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, (cuDoubleComplex *)DA, N, DW, Work,
                            Lw, Info, P));
        V = down(DA, N * N);
      } else {
        std::vector<double> Ar(N * N);
        for (int K = 0; K < N * N; ++K)
          Ar[K] = A[K].real();
        double *DA = up(Ar);
        CK(cusolverDnDsyevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, &Lw, P));
        double *Work;
        cudaMalloc(&Work, sizeof(double) * Lw);
        CK(cusolverDnDsyevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Work, Lw, Info, P));
        std::vector<double> Vr = down(DA, N * N);
        for (int K = 0; K < N * N; ++K)
          V[K] = Vr[K];
      }
      W = down(DW, N);
      CK(cusolverDnXsyevjGetSweeps(H, P, &Sweeps));
      CK(cusolverDnXsyevjGetResidual(H, P, &Res));
      for (auto &X : A)
        Norm += std::norm(X);
      Norm = std::sqrt(Norm);
      bool Sorted = true;
      for (int J = 0; J < N; ++J) {
        Sorted &= J == 0 || W[J - 1] <= W[J];
        for (int I = 0; I < N; ++I) {
          std::complex<double> Av = 0;
          for (int K = 0; K < N; ++K)
            Av += A[I + K * N] * V[K + J * N];
          Worst = std::fmax(Worst, std::abs(Av - W[J] * V[I + J * N]));
        }
      }
      check(Cplx ? "heevj_jacobi" : "syevj_jacobi",
            down(Info, 1)[0] == 0 && Sorted && Worst < 1e-9 && Sweeps >= 1 && Sweeps <= 100 && Res >= 0 &&
                Res <= 1e-10 * Norm,
            Worst);
      CK(cusolverDnDestroySyevjInfo(P));
    }
    // One sweep at tolerance 0 cannot converge on an 8 x 8: info = n + 1; then
    // the batched form leaves nothing to report.
    const int M8 = 8;
    std::vector<double> B(M8 * M8);
    for (int J = 0; J < M8; ++J)
      for (int I = J; I < M8; ++I)
        B[I + J * M8] = B[J + I * M8] = rnd();
    syevjInfo_t P;
    CK(cusolverDnCreateSyevjInfo(&P));
    CK(cusolverDnXsyevjSetMaxSweeps(P, 1));
    int Lw = 0, Sweeps = -1;
    double *DB = up(B), *DW = up(std::vector<double>(M8, 0)), *Work;
    int *Info = up(std::vector<int>(2, -5));
    CK(cusolverDnDsyevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, M8, DB, M8, DW, &Lw, P));
    cudaMalloc(&Work, sizeof(double) * Lw);
    CK(cusolverDnDsyevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, M8, DB, M8, DW, Work, Lw, Info, P));
    int NotConverged = down(Info, 1)[0];
    CK(cusolverDnXsyevjGetSweeps(H, P, &Sweeps));
    CK(cusolverDnDsyevjBatched(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, 4, DB, 4, DW, Work, Lw, Info, P, 2));
    int AfterBatched = (int)cusolverDnXsyevjGetSweeps(H, P, &Sweeps);
    check("syevj_maxsweeps", NotConverged == M8 + 1 && AfterBatched == CUSOLVER_STATUS_NOT_SUPPORTED, NotConverged);
    CK(cusolverDnDestroySyevjInfo(P));
  }

  {
    // gesvdj: (m, n, econ, complex) cases, each against U^H U = I, V^H V = I, A = U S V^H.
    const int Cases[5][4] = {{6, 4, 0, 0}, {6, 4, 1, 0}, {3, 5, 0, 0}, {5, 3, 0, 1}, {4, 6, 1, 1}};
    for (const auto &Cs : Cases) {
      int M = Cs[0], N = Cs[1], Econ = Cs[2], Cplx = Cs[3], K = std::min(M, N);
      int UC = Econ ? K : M, VC = Econ ? K : N;
      std::vector<std::complex<double>> A(M * N);
      for (auto &X : A)
        X = {rnd(), Cplx ? rnd() : 0.0};
      gesvdjInfo_t P;
      CK(cusolverDnCreateGesvdjInfo(&P));
      int Lw = 0, Sweeps = -1, *Info = up(std::vector<int>(1, -5));
      double Res = -1, *DS = up(std::vector<double>(K, 0));
      std::vector<std::complex<double>> U(M * UC), V(N * VC);
      if (Cplx) {
        auto *DA = (cuDoubleComplex *)up(A);
        auto *DU = (cuDoubleComplex *)up(U), *DV = (cuDoubleComplex *)up(V);
        CK(cusolverDnZgesvdj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, M, DS, DU, M, DV, N, &Lw, P));
        cuDoubleComplex *Work;
        cudaMalloc(&Work, sizeof(cuDoubleComplex) * Lw);
        CK(cusolverDnZgesvdj(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, M, DS, DU, M, DV, N, Work, Lw, Info, P));
        auto HU = down(DU, U.size()), HV = down(DV, V.size());
        for (size_t I = 0; I < U.size(); ++I)
          U[I] = {HU[I].x, HU[I].y};
        for (size_t I = 0; I < V.size(); ++I)
          V[I] = {HV[I].x, HV[I].y};
      } else {
        std::vector<double> Ar(M * N), Ur(U.size()), Vr(V.size());
        for (int I = 0; I < M * N; ++I)
          Ar[I] = A[I].real();
        double *DA = up(Ar), *DU = up(Ur), *DV = up(Vr), *Work;
        CK(cusolverDnDgesvdj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, M, DS, DU, M, DV, N, &Lw, P));
        cudaMalloc(&Work, sizeof(double) * Lw);
        CK(cusolverDnDgesvdj(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, M, DS, DU, M, DV, N, Work, Lw, Info, P));
        Ur = down(DU, U.size());
        Vr = down(DV, V.size());
        for (size_t I = 0; I < U.size(); ++I)
          U[I] = Ur[I];
        for (size_t I = 0; I < V.size(); ++I)
          V[I] = Vr[I];
      }
      std::vector<double> S = down(DS, K);
      CK(cusolverDnXgesvdjGetSweeps(H, P, &Sweeps));
      CK(cusolverDnXgesvdjGetResidual(H, P, &Res));
      double Worst = 0;
      auto ortho = [&](const std::vector<std::complex<double>> &Q, int Rows, int Cols) {
        for (int X = 0; X < Cols; ++X)
          for (int Y = 0; Y < Cols; ++Y) {
            std::complex<double> D = 0;
            for (int I = 0; I < Rows; ++I)
              D += std::conj(Q[I + X * Rows]) * Q[I + Y * Rows];
            Worst = std::fmax(Worst, std::abs(D - (X == Y ? 1.0 : 0.0)));
          }
      };
      ortho(U, M, UC);
      ortho(V, N, VC);
      bool Sorted = true;
      for (int J = 1; J < K; ++J)
        Sorted &= S[J - 1] >= S[J];
      for (int I = 0; I < M; ++I)
        for (int J = 0; J < N; ++J) {
          std::complex<double> Sum = 0;
          for (int L = 0; L < K; ++L)
            Sum += U[I + L * M] * S[L] * std::conj(V[J + L * N]);
          Worst = std::fmax(Worst, std::abs(Sum - A[I + J * M]));
        }
      char Name[40];
      std::snprintf(Name, sizeof Name, "gesvdj_%dx%d%s%s", M, N, Econ ? "_econ" : "", Cplx ? "_z" : "");
      check(Name, down(Info, 1)[0] == 0 && Sorted && Worst < 1e-12 && Sweeps >= 1 && Res >= 0 && Res < 1e-10, Worst);
      CK(cusolverDnDestroyGesvdjInfo(P));
    }
  }

  {
    // sygvd (D, itype 1..3), hegvd (Z, itype 1), sygvj (D, itype 1): 5 x 5, B SPD.
    const int N = 5;
    for (int Case = 0; Case < 5; ++Case) {
      int It = Case < 3 ? Case + 1 : 1;
      bool Cplx = Case == 3, Jac = Case == 4;
      std::vector<std::complex<double>> A(N * N), B(N * N, 0.0);
      for (int J = 0; J < N; ++J)
        for (int I = J; I < N; ++I) {
          std::complex<double> X(rnd(), Cplx && I != J ? rnd() : 0);
          A[I + J * N] = X;
          A[J + I * N] = std::conj(X);
          std::complex<double> Y(0.3 * rnd(), Cplx && I != J ? 0.3 * rnd() : 0);
          B[I + J * N] = I == J ? 2.0 + std::fabs(rnd()) : Y;
          B[J + I * N] = I == J ? B[I + J * N] : std::conj(Y);
        }
      int Lw = 0, Sweeps = -1, *Info = up(std::vector<int>(1, -5));
      double *DW = up(std::vector<double>(N, 0));
      std::vector<std::complex<double>> X(N * N);
      syevjInfo_t P;
      CK(cusolverDnCreateSyevjInfo(&P));
      cusolverEigType_t Type = (cusolverEigType_t)It;
      if (Cplx) {
        auto *DA = (cuDoubleComplex *)up(A), *DB = (cuDoubleComplex *)up(B);
        CK(cusolverDnZhegvd_bufferSize(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DB, N, DW, &Lw));
        cuDoubleComplex *Work;
        cudaMalloc(&Work, sizeof(cuDoubleComplex) * Lw);
        CK(cusolverDnZhegvd(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DB, N, DW, Work, Lw, Info));
        auto HX = down(DA, N * N);
        for (int K = 0; K < N * N; ++K)
          X[K] = {HX[K].x, HX[K].y};
      } else {
        std::vector<double> Ar(N * N), Br(N * N);
        for (int K = 0; K < N * N; ++K) {
          Ar[K] = A[K].real();
          Br[K] = B[K].real();
        }
        double *DA = up(Ar), *DB = up(Br), *Work;
        if (Jac) {
          CK(cusolverDnDsygvj_bufferSize(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW, &Lw, P));
          cudaMalloc(&Work, sizeof(double) * Lw);
          CK(cusolverDnDsygvj(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW, Work, Lw, Info, P));
          CK(cusolverDnXsyevjGetSweeps(H, P, &Sweeps));
        } else {
          CK(cusolverDnDsygvd_bufferSize(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW, &Lw));
          cudaMalloc(&Work, sizeof(double) * Lw);
          CK(cusolverDnDsygvd(H, Type, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW, Work, Lw, Info));
        }
        auto HX = down(DA, N * N);
        for (int K = 0; K < N * N; ++K)
          X[K] = HX[K];
      }
      std::vector<double> W = down(DW, N);
      auto mv = [&](const std::vector<std::complex<double>> &M, const std::vector<std::complex<double>> &V) {
        std::vector<std::complex<double>> R(N, 0.0);
        for (int I = 0; I < N; ++I)
          for (int K = 0; K < N; ++K)
            R[I] += M[I + K * N] * V[K];
        return R;
      };
      double Worst = 0;
      for (int J = 0; J < N; ++J) {
        std::vector<std::complex<double>> x(X.begin() + J * N, X.begin() + (J + 1) * N), L, R;
        if (It == 1) { L = mv(A, x); R = mv(B, x); }
        else if (It == 2) { L = mv(A, mv(B, x)); R = x; }
        else { L = mv(B, mv(A, x)); R = x; }
        for (int I = 0; I < N; ++I)
          Worst = std::fmax(Worst, std::abs(L[I] - W[J] * R[I]));
        if (It < 3) { // x^H B x = 1
          auto Bx = mv(B, x);
          std::complex<double> D = 0;
          for (int I = 0; I < N; ++I)
            D += std::conj(x[I]) * Bx[I];
          Worst = std::fmax(Worst, std::abs(D - 1.0));
        }
      }
      char Name[40];
      std::snprintf(Name, sizeof Name, "%s_itype%d", Jac ? "sygvj" : Cplx ? "hegvd" : "sygvd", It);
      check(Name, down(Info, 1)[0] == 0 && Worst < 1e-11 && (!Jac || Sweeps >= 1), Worst);
      CK(cusolverDnDestroySyevjInfo(P));
    }
    // An indefinite B: info = n + (order of the failing minor).
    std::vector<double> A(9, 0), B = {1, 0, 0, 0, -1, 0, 0, 0, 1};
    for (int I = 0; I < 3; ++I)
      A[I * 4] = 1;
    int Lw = 0, *Info = up(std::vector<int>(1, -5));
    double *DA = up(A), *DB = up(B), *DW = up(std::vector<double>(3, 0)), *Work;
    CK(cusolverDnDsygvd_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, 3, DA, 3, DB, 3, DW, &Lw));
    cudaMalloc(&Work, sizeof(double) * Lw);
    CK(cusolverDnDsygvd(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, 3, DA, 3, DB, 3, DW, Work, Lw, Info));
    int Got = down(Info, 1)[0];
    check("sygvd_indefinite_B", Got == 3 + 2, Got);
  }

  {
    // syevdx (D) and heevdx (Z) on 6 x 6: full spectrum from Dsyevd/Zheevd, then ranges.
    const int N = 6;
    for (int Cplx = 0; Cplx < 2; ++Cplx)
      for (int R = 0; R < 3; ++R) {
        std::vector<std::complex<double>> A(N * N);
        for (int J = 0; J < N; ++J)
          for (int I = J; I < N; ++I) {
            std::complex<double> X(rnd(), Cplx && I != J ? rnd() : 0);
            A[I + J * N] = X;
            A[J + I * N] = std::conj(X);
          }
        cusolverEigRange_t Range = R == 0 ? CUSOLVER_EIG_RANGE_ALL : R == 1 ? CUSOLVER_EIG_RANGE_V : CUSOLVER_EIG_RANGE_I;
        double Vl = -0.5, Vu = 0.7;
        int Il = 2, Iu = 4, Meig = -1, Lw = 0, *Info = up(std::vector<int>(1, -5));
        double *DW = up(std::vector<double>(N, 0)), *DWall = up(std::vector<double>(N, 0));
        std::vector<std::complex<double>> V(N * N);
        if (Cplx) {
          cuDoubleComplex *DA = (cuDoubleComplex *)up(A), *DB = (cuDoubleComplex *)up(A), *Work;
          CK(cusolverDnZheevdx_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N, DA, N, Vl, Vu, Il, Iu, &Meig, DW, &Lw));
          cudaMalloc(&Work, sizeof(cuDoubleComplex) * (Lw + 4 * N * N));
          CK(cusolverDnZheevdx(H, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N, DA, N, Vl, Vu, Il, Iu, &Meig, DW, Work, Lw, Info));
          CK(cusolverDnZheevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DB, N, DWall, Work, 4 * N * N, Info));
          auto HV = down(DA, N * N);
          for (int K = 0; K < N * N; ++K)
            V[K] = {HV[K].x, HV[K].y};
        } else {
          std::vector<double> Ar(N * N);
          for (int K = 0; K < N * N; ++K)
            Ar[K] = A[K].real();
          double *DA = up(Ar), *DB = up(Ar), *Work;
          CK(cusolverDnDsyevdx_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N, DA, N, Vl, Vu, Il, Iu, &Meig, DW, &Lw));
          cudaMalloc(&Work, sizeof(double) * (Lw + 4 * N * N));
          CK(cusolverDnDsyevdx(H, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N, DA, N, Vl, Vu, Il, Iu, &Meig, DW, Work, Lw, Info));
          CK(cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DB, N, DWall, Work, 4 * N * N, Info));
          auto HV = down(DA, N * N);
          for (int K = 0; K < N * N; ++K)
            V[K] = HV[K];
        }
        std::vector<double> W = down(DW, N), All = down(DWall, N);
        std::vector<double> Want;
        for (int K = 0; K < N; ++K)
          if (R == 0 || (R == 1 && All[K] > Vl && All[K] <= Vu) || (R == 2 && K + 1 >= Il && K + 1 <= Iu))
            Want.push_back(All[K]);
        double Worst = Meig == (int)Want.size() ? 0 : 1;
        for (int J = 0; J < Meig && Worst < 1; ++J) {
          Worst = std::fmax(Worst, std::fabs(W[J] - Want[J]));
          for (int I = 0; I < N; ++I) {
            std::complex<double> Av = 0;
            for (int K = 0; K < N; ++K)
              Av += A[I + K * N] * V[K + J * N];
            Worst = std::fmax(Worst, std::abs(Av - W[J] * V[I + J * N]));
          }
        }
        char Name[40];
        std::snprintf(Name, sizeof Name, "%s_range%c", Cplx ? "heevdx" : "syevdx", "AVI"[R]);
        check(Name, down(Info, 1)[0] == 0 && Worst < 1e-12 && (R != 1 || Meig >= 0), Worst);
      }
  }

  {
    // Xsyevdx, value range (2.5, 5] of diag-block [[3.5, .5], [.5, 3.5]] + [2]: eigenvalues 3 and 4.
    std::vector<double> A = {3.5, 0.5, 0, 0.5, 3.5, 0, 0, 0, 2};
    double *DA = up(A), *DW = up(std::vector<double>(3, 0)), Vl = 2.5, Vu = 5;
    int *Info = up(std::vector<int>(1, -5));
    int64_t Meig = -1;
    size_t Dev = 0, Host = 0;
    cusolverDnParams_t Prm;
    CK(cusolverDnCreateParams(&Prm));
    CK(cusolverDnXsyevdx_bufferSize(H, Prm, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_V, CUBLAS_FILL_MODE_LOWER, 3,
                                    CUDA_R_64F, DA, 3, &Vl, &Vu, 0, 0, &Meig, CUDA_R_64F, DW, CUDA_R_64F, &Dev, &Host));
    void *DWork;
    cudaMalloc(&DWork, Dev + 8);
    std::vector<char> HWork(Host + 8);
    CK(cusolverDnXsyevdx(H, Prm, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_V, CUBLAS_FILL_MODE_LOWER, 3, CUDA_R_64F,
                         DA, 3, &Vl, &Vu, 0, 0, &Meig, CUDA_R_64F, DW, CUDA_R_64F, DWork, Dev, HWork.data(), Host, Info));
    std::vector<double> W = down(DW, 3);
    double Err = std::fmax(std::fabs(W[0] - 3), std::fabs(W[1] - 4));
    check("Xsyevdx_rangeV", Meig == 2 && down(Info, 1)[0] == 0 && Err < 1e-14, Err);
    CK(cusolverDnDestroyParams(Prm));
  }

  {
    // IRS gesv: 8 x 8 well-conditioned systems, 2 right-hand sides.
    const int N = 8, Nr = 2;
    std::vector<double> A(N * N), B(N * Nr);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        A[I + J * N] = rnd() + (I == J ? 6 : 0);
    for (double &X : B)
      X = rnd();
    auto run = [&](const char *Name, auto Call, double Tol) {
      double *DA = up(A), *DB = up(B), *DX = up(std::vector<double>(N * Nr, 0));
      int *Ipiv = up(std::vector<int>(N, 0)), *Info = up(std::vector<int>(1, -5)), Iter = -99;
      void *Work;
      cudaMalloc(&Work, 1 << 16);
      CK(Call(DA, DB, DX, Ipiv, Work, &Iter, Info));
      std::vector<double> X = down(DX, N * Nr);
      double Worst = 0;
      for (int C = 0; C < Nr; ++C)
        for (int I = 0; I < N; ++I) {
          double S = 0;
          for (int K = 0; K < N; ++K)
            S += A[I + K * N] * X[K + C * N];
          Worst = std::fmax(Worst, std::fabs(S - B[I + C * N]));
        }
      check(Name, down(Info, 1)[0] == 0 && Iter >= 1 && Worst < Tol, Worst);
    };
#define IRS_CASE(NAME)                                                                                                 \
  run(#NAME "gesv", [&](double *a, double *b, double *x, int *p, void *w, int *it, int *inf) {                         \
    return cusolverDn##NAME##gesv(H, N, Nr, a, N, p, b, N, x, N, w, 1 << 16, it, inf);                                \
  }, 1e-13)
    IRS_CASE(DD);
    IRS_CASE(DS);
    IRS_CASE(DH);
    IRS_CASE(DB);
    IRS_CASE(DX);
#undef IRS_CASE
    // Complex double through a half-precision factor, and single precision.
    std::vector<cuDoubleComplex> Z(N * N), Zb(N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        Z[I + J * N] = {rnd() + (I == J ? 6 : 0), rnd()};
    for (auto &E : Zb)
      E = {rnd(), rnd()};
    cuDoubleComplex *DZ = up(Z), *DZb = up(Zb), *DZx = up(std::vector<cuDoubleComplex>(N));
    int *Ipiv = up(std::vector<int>(N, 0)), *Info = up(std::vector<int>(1, -5)), Iter = -99;
    void *Work;
    cudaMalloc(&Work, 1 << 16);
    CK(cusolverDnZKgesv(H, N, 1, DZ, N, Ipiv, DZb, N, DZx, N, Work, 1 << 16, &Iter, Info));
    auto Zx = down(DZx, N);
    double Worst = 0;
    for (int I = 0; I < N; ++I) {
      std::complex<double> S = 0;
      for (int K = 0; K < N; ++K)
        S += std::complex<double>(Z[I + K * N].x, Z[I + K * N].y) * std::complex<double>(Zx[K].x, Zx[K].y);
      Worst = std::fmax(Worst, std::abs(S - std::complex<double>(Zb[I].x, Zb[I].y)));
    }
    check("ZKgesv", down(Info, 1)[0] == 0 && Iter >= 1 && Worst < 1e-13, Worst);
    // Singular: devInfo = the first zero pivot.
    std::vector<double> Sing = {1, 2, 2, 4};
    double *DS = up(Sing), *Db = up(std::vector<double>{1, 1}), *Dx = up(std::vector<double>(2, 0));
    CK(cusolverDnDDgesv(H, 2, 1, DS, 2, Ipiv, Db, 2, Dx, 2, Work, 1 << 16, &Iter, Info));
    int Got = down(Info, 1)[0];
    check("DDgesv_singular", Got == 2, Got);
  }

  {
    // gesvdaStridedBatched: 2 batches of 6 x 4 at stride 30 (lda 7), rank 2.
    const int M = 6, N = 4, Lda = 7, Rank = 2, Batch = 2;
    std::vector<double> A(30 * Batch, 0);
    for (int B = 0; B < Batch; ++B)
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < M; ++I)
          A[B * 30 + I + J * Lda] = rnd();
    double *DA = up(A), *DS = up(std::vector<double>(Rank * Batch, 0)), *DU = up(std::vector<double>(M * Rank * Batch, 0)),
           *DV = up(std::vector<double>(N * Rank * Batch, 0)), Res[2] = {-1, -1};
    int Lw = 0, *Info = up(std::vector<int>(Batch, -5));
    CK(cusolverDnDgesvdaStridedBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Rank, M, N, DA, Lda, 30, DS, Rank, DU, M,
                                                  M * Rank, DV, N, N * Rank, &Lw, Batch));
    double *Work;
    cudaMalloc(&Work, sizeof(double) * Lw);
    CK(cusolverDnDgesvdaStridedBatched(H, CUSOLVER_EIG_MODE_VECTOR, Rank, M, N, DA, Lda, 30, DS, Rank, DU, M, M * Rank,
                                       DV, N, N * Rank, Work, Lw, Info, Res, Batch));
    std::vector<double> S = down(DS, Rank * Batch), U = down(DU, M * Rank * Batch), V = down(DV, N * Rank * Batch);
    std::vector<int> Inf = down(Info, Batch);
    double Worst = 0;
    for (int B = 0; B < Batch; ++B) {
      double Fro = 0;
      for (int I = 0; I < M; ++I)
        for (int J = 0; J < N; ++J) {
          double Sum = 0;
          for (int K = 0; K < Rank; ++K)
            Sum += U[B * M * Rank + I + K * M] * S[B * Rank + K] * V[B * N * Rank + J + K * N];
          double D = A[B * 30 + I + J * Lda] - Sum;
          Fro += D * D;
        }
      Worst = std::fmax(Worst, std::fabs(std::sqrt(Fro) - Res[B]));
      Worst = std::fmax(Worst, Inf[B] == 0 && S[B * Rank] >= S[B * Rank + 1] ? 0.0 : 1.0);
    }
    check("gesvdaStridedBatched", Worst < 1e-12 && Res[0] > 0, Worst);
  }

  {
    // Xgesvdp (econ) and Xgesvdr (k = 2) of one random 7 x 4.
    const int M = 7, N = 4;
    std::vector<double> A(M * N);
    for (double &X : A)
      X = rnd();
    cusolverDnParams_t Prm;
    CK(cusolverDnCreateParams(&Prm));
    double *DA = up(A), *DS = up(std::vector<double>(N, 0)), *DU = up(std::vector<double>(M * N, 0)),
           *DV = up(std::vector<double>(N * N, 0)), Err = -1;
    int *Info = up(std::vector<int>(1, -5));
    size_t Dev = 0, Host = 0;
    CK(cusolverDnXgesvdp_bufferSize(H, Prm, CUSOLVER_EIG_MODE_VECTOR, 1, M, N, CUDA_R_64F, DA, M, CUDA_R_64F, DS,
                                    CUDA_R_64F, DU, M, CUDA_R_64F, DV, N, CUDA_R_64F, &Dev, &Host));
    void *DW;
    cudaMalloc(&DW, Dev + 8);
    std::vector<char> HW(Host + 8);
    CK(cusolverDnXgesvdp(H, Prm, CUSOLVER_EIG_MODE_VECTOR, 1, M, N, CUDA_R_64F, DA, M, CUDA_R_64F, DS, CUDA_R_64F, DU, M,
                         CUDA_R_64F, DV, N, CUDA_R_64F, DW, Dev, HW.data(), Host, Info, &Err));
    std::vector<double> S = down(DS, N), U = down(DU, M * N), V = down(DV, N * N);
    double Worst = 0;
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < N; ++J) {
        double Sum = 0;
        for (int K = 0; K < N; ++K)
          Sum += U[I + K * M] * S[K] * V[J + K * N];
        Worst = std::fmax(Worst, std::fabs(Sum - A[I + J * M]));
      }
    check("Xgesvdp", down(Info, 1)[0] == 0 && Worst < 1e-13 && Err >= 0 && Err < 1e-12, Worst);
    double *DA2 = up(A), *DS2 = up(std::vector<double>(2, 0)), *DU2 = up(std::vector<double>(M * 2, 0)),
           *DV2 = up(std::vector<double>(N * 2, 0));
    CK(cusolverDnXgesvdr_bufferSize(H, Prm, 'S', 'S', M, N, 2, 2, 2, CUDA_R_64F, DA2, M, CUDA_R_64F, DS2, CUDA_R_64F, DU2,
                                    M, CUDA_R_64F, DV2, N, CUDA_R_64F, &Dev, &Host));
    cudaMalloc(&DW, Dev + 8);
    HW.resize(Host + 8);
    CK(cusolverDnXgesvdr(H, Prm, 'S', 'S', M, N, 2, 2, 2, CUDA_R_64F, DA2, M, CUDA_R_64F, DS2, CUDA_R_64F, DU2, M,
                         CUDA_R_64F, DV2, N, CUDA_R_64F, DW, Dev, HW.data(), Host, Info));
    std::vector<double> S2 = down(DS2, 2);
    double D = std::fmax(std::fabs(S2[0] - S[0]), std::fabs(S2[1] - S[1]));
    check("Xgesvdr", down(Info, 1)[0] == 0 && D < 1e-13, D);
    CK(cusolverDnDestroyParams(Prm));
  }

  {
    // sygvdx, itype 1, 5 x 5: ranges all, (vl, vu], 2..3 against sygvd's full spectrum.
    const int N = 5;
    std::vector<double> A(N * N), B(N * N, 0);
    for (int J = 0; J < N; ++J)
      for (int I = J; I < N; ++I) {
        A[I + J * N] = A[J + I * N] = rnd();
        B[I + J * N] = B[J + I * N] = I == J ? 3 + std::fabs(rnd()) : 0.3 * rnd();
      }
    double *Work;
    cudaMalloc(&Work, 1 << 16);
    int *Info = up(std::vector<int>(1, -5));
    double *DA = up(A), *DB = up(B), *DAll = up(std::vector<double>(N, 0));
    CK(cusolverDnDsygvd(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DAll,
                        Work, (1 << 16) / 8, Info));
    std::vector<double> All = down(DAll, N);
    for (int R = 0; R < 3; ++R) {
      cusolverEigRange_t Range = R == 0 ? CUSOLVER_EIG_RANGE_ALL : R == 1 ? CUSOLVER_EIG_RANGE_V : CUSOLVER_EIG_RANGE_I;
      double Vl = (All[1] + All[2]) / 2, Vu = (All[3] + All[4]) / 2; // picks All[2], All[3]
      int Meig = -1, Lw = 0;
      double *DA2 = up(A), *DB2 = up(B), *DW = up(std::vector<double>(N, 0));
      CK(cusolverDnDsygvdx_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N,
                                      DA2, N, DB2, N, Vl, Vu, 2, 3, &Meig, DW, &Lw));
      CK(cusolverDnDsygvdx(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, Range, CUBLAS_FILL_MODE_LOWER, N, DA2, N, DB2,
                           N, Vl, Vu, 2, 3, &Meig, DW, Work, (1 << 16) / 8, Info));
      std::vector<double> W = down(DW, N), X = down(DA2, N * N);
      int First = R == 0 ? 0 : R == 1 ? 2 : 1, Want = R == 0 ? N : 2;
      double Worst = Meig == Want ? 0 : 1;
      for (int J = 0; J < Meig && Worst < 1; ++J) {
        Worst = std::fmax(Worst, std::fabs(W[J] - All[First + J]));
        for (int I = 0; I < N; ++I) {
          double Ax = 0, Bx = 0;
          for (int K = 0; K < N; ++K) {
            Ax += A[I + K * N] * X[K + J * N];
            Bx += B[I + K * N] * X[K + J * N];
          }
          Worst = std::fmax(Worst, std::fabs(Ax - W[J] * Bx));
        }
      }
      char Name[32];
      std::snprintf(Name, sizeof Name, "sygvdx_range%c", "AVI"[R]);
      check(Name, down(Info, 1)[0] == 0 && Worst < 1e-12, Worst);
    }
  }

  // gesvdj whose info is destroyed before its stream-ordered work has run
  // (CuPy's cupyx.cusolver.gesvdj does so): the work must not write into
  // the freed info (ferry did: heap corruption, a later crash). The stream
  // is kept busy by a kernel until the host lets it finish.
  {
    cudaStream_t S;
    cudaStreamCreate(&S);
    int *Spin;
    cudaMallocManaged(&Spin, sizeof(int));
    *Spin = 0;
    CK(cusolverDnSetStream(H, S));
    const int M = 6, Nn = 4;
    std::vector<double> A(M * Nn);
    for (double &X : A)
      X = rnd();
    double *DA = up(A), *DS = up(std::vector<double>(Nn, 0)), *DU = up(std::vector<double>(M * M, 0)),
           *DV = up(std::vector<double>(Nn * Nn, 0));
    gesvdjInfo_t Params;
    CK(cusolverDnCreateGesvdjInfo(&Params));
    int L = 0;
    CK(cusolverDnDgesvdj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, 0, M, Nn, DA, M, DS, DU, M, DV, Nn, &L, Params));
    double *Wk = up(std::vector<double>(std::max(L, 1), 0));
    // From here until the flag is set, nothing may wait for the legacy
    // stream (S is a blocking stream): no cudaMalloc/cudaMemcpy.
    busy<<<1, 1, 0, S>>>(Spin);
    CK(cusolverDnDgesvdj(H, CUSOLVER_EIG_MODE_VECTOR, 0, M, Nn, DA, M, DS, DU, M, DV, Nn, Wk, L, Info, Params));
    CK(cusolverDnDestroyGesvdjInfo(Params));
    // A new info most likely takes the freed one's memory (same size); a
    // late write of the old run's sweep count would show in it.
    gesvdjInfo_t Fresh;
    CK(cusolverDnCreateGesvdjInfo(&Fresh));
    *(volatile int *)Spin = 1;
    cudaStreamSynchronize(S);
    int FreshSweeps = -1;
    CK(cusolverDnXgesvdjGetSweeps(H, Fresh, &FreshSweeps));
    CK(cusolverDnDestroyGesvdjInfo(Fresh));
    std::vector<double> Sv = down(DS, Nn);
    double Sum2 = 0, Frob2 = 0;
    for (double X : Sv)
      Sum2 += X * X;
    for (double X : A)
      Frob2 += X * X;
    check("gesvdj_info_destroyed_early", down(Info, 1)[0] == 0 && std::fabs(Sum2 - Frob2) < 1e-10 && FreshSweeps == 0,
          FreshSweeps);
    CK(cusolverDnSetStream(H, nullptr));
    cudaStreamDestroy(S);
  }

  // <in><low>gels (CuPy's cupyx.cusolver.gels): least squares of a 7 x 4
  // system, checked by the normal equations A^T (A X - B) = 0; then a rank
  // deficient A (devInfo > 0).
  for (int Variant = 0; Variant < 2; ++Variant) {
    const int M = 7, Nn = 4, R = 2;
    std::vector<double> A(M * Nn), B(M * R);
    for (double &X : A)
      X = rnd();
    for (double &X : B)
      X = rnd();
    double *DA = up(A), *DB = up(B), *DX = up(std::vector<double>(Nn * R, 0));
    size_t Bytes = 0;
    int Iter = -7;
    void *Wk = nullptr;
    if (Variant == 0) {
      CK(cusolverDnDDgels_bufferSize(H, M, Nn, R, DA, M, DB, M, DX, Nn, nullptr, &Bytes));
      cudaMalloc(&Wk, Bytes);
      CK(cusolverDnDDgels(H, M, Nn, R, DA, M, DB, M, DX, Nn, Wk, Bytes, &Iter, Info));
    } else {
      CK(cusolverDnDHgels_bufferSize(H, M, Nn, R, DA, M, DB, M, DX, Nn, nullptr, &Bytes));
      cudaMalloc(&Wk, Bytes);
      CK(cusolverDnDHgels(H, M, Nn, R, DA, M, DB, M, DX, Nn, Wk, Bytes, &Iter, Info));
    }
    std::vector<double> X = down(DX, Nn * R);
    double Worst = 0;
    for (int C = 0; C < R; ++C)
      for (int J = 0; J < Nn; ++J) {
        double G = 0;
        for (int I = 0; I < M; ++I) {
          double Res = -B[I + C * M];
          for (int K = 0; K < Nn; ++K)
            Res += A[I + K * M] * X[K + C * Nn];
          G += A[I + J * M] * Res;
        }
        Worst = std::fmax(Worst, std::fabs(G));
      }
    check(Variant ? "DHgels" : "DDgels", down(Info, 1)[0] == 0 && Iter != -7 && Iter != 0 && Worst < 1e-12, Worst);
    if (Variant == 0) { // column 2 zero: rank deficient, R(3,3) = 0
      for (int I = 0; I < M; ++I)
        A[I + 2 * M] = 0;
      double *DA2 = up(A);
      CK(cusolverDnDDgels(H, M, Nn, R, DA2, M, DB, M, DX, Nn, Wk, Bytes, &Iter, Info));
      int Got = down(Info, 1)[0];
      check("DDgels_rank_deficient", Got == 3, Got);
    }
  }

  CK(cusolverDnDestroy(H));
  std::printf("CusolverMore: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
