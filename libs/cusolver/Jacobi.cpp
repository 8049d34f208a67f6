/// \file
/// The Jacobi-method solvers' API (syevj/heevj, gesvdj and their batched
/// forms, with syevjInfo_t/gesvdjInfo_t parameters). syevj/heevj on one
/// matrix of order up to JacobiMaxOrder runs a cyclic Jacobi method on the
/// host (row-cyclic sweeps of rotations, a phase first for complex entries),
/// stopping when off(A) <= tol * ||A||_F (tol: the info's tolerance, machine
/// epsilon of the type when 0) or after the maximum sweeps (info = n + 1,
/// as cuSOLVER documents), so GetSweeps and GetResidual (off(A) at the end,
/// which equals ||A - V W V^H||_F for the V returned) report the iteration
/// that produced the result; gesvdj (max(m, n) up to the same limit) runs a
/// one-sided (Hestenes) Jacobi method likewise (GetResidual: ||U^H A V -
/// S||_F). Larger orders and the batched forms run LAPACK's divide and
/// conquer (syevd/heevd) and gesvd: the same
/// decompositions to rounding, eigenvalues ascending and singular values
/// descending, but no Jacobi iteration, so GetSweeps/GetResidual after them
/// answer NOT_SUPPORTED with a log line (after a batched call cuSOLVER
/// does too). The sweep count is ferry's own iteration's, which need not
/// equal NVIDIA's (its sweep order and stopping test are not documented).
/// The generalized problems (sygvd/hegvd, sygvj/hegvj, sygvdx/hegvdx) and
/// gesvdaStridedBatched live here too: they reuse these eigen/SVD helpers.
#include "libs/cusolver/Common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <vector>

namespace ferry::cusolver {
struct JacobiResult {
  int Sweeps = 0;
  double Residual = 0;
};
} // namespace ferry::cusolver

struct syevjInfo {
  static constexpr uint64_t Live = 0x6665727279534a49ull; // "ferrySJI"
  uint64_t Magic = Live;
  double Tolerance = 0;
  int MaxSweeps = 100;
  int Sort = 1;
  // What the last call with this info ran: 0 none yet, 1 the Jacobi method
  // (Sweeps, Residual valid), 2 LAPACK (order above the limit, or batched).
  int Ran = 0;
  /// Sweeps and residual of the last Jacobi run, written by its stream-
  /// ordered work: shared with that work, so destroying the info before
  /// the work ran (CuPy does) frees nothing the work still writes.
  std::shared_ptr<ferry::cusolver::JacobiResult> Result = std::make_shared<ferry::cusolver::JacobiResult>();
};

struct gesvdjInfo {
  static constexpr uint64_t Live = 0x6665727279474a49ull; // "ferryGJI"
  uint64_t Magic = Live;
  double Tolerance = 0;
  int MaxSweeps = 100;
  int Sort = 1;
  int Ran = 0; // as syevjInfo's
  std::shared_ptr<ferry::cusolver::JacobiResult> Result = std::make_shared<ferry::cusolver::JacobiResult>();
};

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr cusolverStatus_t Invalid = CUSOLVER_STATUS_INVALID_VALUE;

template <typename I> bool live(I *P) { return P && P->Magic == I::Live; }

bool validMode(cusolverEigMode_t J) { return J == CUSOLVER_EIG_MODE_NOVECTOR || J == CUSOLVER_EIG_MODE_VECTOR; }

constexpr int JacobiMaxOrder = 256;

/// Cyclic Jacobi on the Hermitian n x n matrix held (Uplo's triangle) in A:
/// W ascending, A overwritten with the eigenvectors when Vectors; returns
/// the info value (0, or N + 1 when MaxSweeps did not reach the tolerance).
template <typename T>
int jacobiEig(int N, T *A, int Lda, char Uplo, Real<T> *W, bool Vectors, double Tol, int MaxSweeps, int *Sweeps,
              double *Residual) {
  using R = Real<T>;
  auto Idx = [N](int I, int J) { return I + static_cast<size_t>(J) * N; };
  std::vector<T> M(static_cast<size_t>(N) * N), V(static_cast<size_t>(N) * N, T(0));
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      bool Stored = Uplo == 'L' ? I >= J : I <= J;
      T X = Stored ? A[I + static_cast<size_t>(J) * Lda] : A[J + static_cast<size_t>(I) * Lda];
      if (!Stored) {
        if constexpr (IsComplex<T>)
          X = std::conj(X);
      }
      if (I == J)
        X = T(std::real(X));
      M[Idx(I, J)] = X;
    }
  for (int I = 0; I < N; ++I)
    V[Idx(I, I)] = T(1);
  double Norm = 0;
  for (const T &X : M)
    Norm += std::norm(X);
  Norm = std::sqrt(Norm);
  const double Eps = Tol > 0 ? Tol : std::numeric_limits<R>::epsilon();
  auto off = [&] {
    double Sum = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        if (I != J)
          Sum += std::norm(M[Idx(I, J)]);
    return std::sqrt(Sum);
  };
  int Sweep = 0, Status = 0;
  double Off = off();
  while (Off > Eps * Norm) {
    if (Sweep == MaxSweeps) {
      Status = N + 1;
      break;
    }
    ++Sweep;
    for (int P = 0; P < N - 1; ++P)
      for (int Q = P + 1; Q < N; ++Q) {
        T Apq = M[Idx(P, Q)];
        R Mag = std::abs(Apq);
        if (Mag == R(0))
          continue;
        if constexpr (IsComplex<T>) {
          // D = diag(..., conj(e) at q, ...): (D^H M D)(p, q) = |Apq|.
          T D = std::conj(Apq / Mag);
          for (int K = 0; K < N; ++K) {
            M[Idx(K, Q)] *= D;
            V[Idx(K, Q)] *= D;
          }
          for (int K = 0; K < N; ++K)
            M[Idx(Q, K)] *= std::conj(D);
          Apq = T(Mag);
        }
        R App = std::real(M[Idx(P, P)]), Aqq = std::real(M[Idx(Q, Q)]), Ap = std::real(Apq);
        R Tau = (Aqq - App) / (2 * Ap);
        R Tn = (Tau >= 0 ? R(1) : R(-1)) / (std::fabs(Tau) + std::sqrt(R(1) + Tau * Tau));
        R C = R(1) / std::sqrt(R(1) + Tn * Tn), S = Tn * C;
        for (int K = 0; K < N; ++K) {
          T Kp = M[Idx(K, P)], Kq = M[Idx(K, Q)];
          M[Idx(K, P)] = C * Kp - S * Kq;
          M[Idx(K, Q)] = S * Kp + C * Kq;
          T Vp = V[Idx(K, P)], Vq = V[Idx(K, Q)];
          V[Idx(K, P)] = C * Vp - S * Vq;
          V[Idx(K, Q)] = S * Vp + C * Vq;
        }
        for (int K = 0; K < N; ++K) {
          T Pk = M[Idx(P, K)], Qk = M[Idx(Q, K)];
          M[Idx(P, K)] = C * Pk - S * Qk;
          M[Idx(Q, K)] = S * Pk + C * Qk;
        }
        M[Idx(P, Q)] = M[Idx(Q, P)] = T(0);
        M[Idx(P, P)] = T(std::real(M[Idx(P, P)]));
        M[Idx(Q, Q)] = T(std::real(M[Idx(Q, Q)]));
      }
    Off = off();
  }
  *Sweeps = Sweep;
  *Residual = Off;
  std::vector<int> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](int X, int Y) { return std::real(M[Idx(X, X)]) < std::real(M[Idx(Y, Y)]); });
  for (int J = 0; J < N; ++J) {
    W[J] = std::real(M[Idx(Order[J], Order[J])]);
    if (Vectors)
      for (int I = 0; I < N; ++I)
        A[I + static_cast<size_t>(J) * Lda] = V[Idx(I, Order[J])];
  }
  return Status;
}

/// syevj (Batch 0) and syevjBatched: Batch matrices n x n at stride lda*n,
/// eigenvalues at stride n, one info each (syevj: one).
template <typename T>
cusolverStatus_t syevj(cusolverDnHandle_t Handle, cusolverEigMode_t Jobz, cublasFillMode_t Uplo, int N, T *A, int Lda,
                       Real<T> *W, int *Info, syevjInfo_t Params, int Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || (Params && !live(Params)))
    return Invalid;
  if (int Bad = firstBad({{!validMode(Jobz), 1}, {!validFill(Uplo), 2}, {N < 0, 3}, {Lda < std::max(1, N), 5}}))
    return reject(H, Info, -Bad);
  if (Batch < 0)
    return Invalid;
  char Jz = Jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
  int Count = Batch ? Batch : 1;
  if (!Batch && N <= JacobiMaxOrder) {
    double Tol = Params ? Params->Tolerance : 0;
    int MaxSweeps = Params ? Params->MaxSweeps : 100;
    if (Params)
      Params->Ran = 1;
    std::shared_ptr<JacobiResult> Result = Params ? Params->Result : nullptr;
    return enqueue(H, [=] {
      int Sweeps = 0;
      double Residual = 0;
      Info[0] = jacobiEig<T>(N, A, Lda, U, W, Jz == 'V', Tol, MaxSweeps, &Sweeps, &Residual);
      if (Result) {
        Result->Sweeps = Sweeps;
        Result->Residual = Residual;
      }
    });
  }
  if (Params)
    Params->Ran = 2;
  return enqueue(H, [=] {
    for (int B = 0; B < Count; ++B) {
      int Status = 0;
      if (N)
        lapack::syevd(Jz, U, N, A + static_cast<size_t>(B) * Lda * N, Lda, W + static_cast<size_t>(B) * N, &Status);
      Info[B] = Status;
    }
  });
}

template <typename T> T conjT(T V) {
  if constexpr (IsComplex<T>)
    return std::conj(V);
  else
    return V;
}

/// Completes the columns of the Rows x Cols column-major Q that Keep does
/// not mark (the marked ones orthonormal) to an orthonormal set: each
/// missing column is, of the unit vectors e_i made orthogonal to the
/// columns so far (two Gram-Schmidt passes), the one with the largest rest.
template <typename T> void completeBasis(int Rows, int Cols, T *Q, const std::vector<char> &Keep) {
  std::vector<char> Done(Keep);
  Done.resize(Cols, 0);
  std::vector<T> X(Rows), Best(Rows);
  for (int J = 0; J < Cols; ++J) {
    if (Done[J])
      continue;
    double BestNorm = -1;
    for (int E = 0; E < Rows; ++E) {
      std::fill(X.begin(), X.end(), T(0));
      X[E] = T(1);
      for (int Pass = 0; Pass < 2; ++Pass)
        for (int K = 0; K < Cols; ++K) {
          if (!Done[K])
            continue;
          T Dot = 0;
          for (int I = 0; I < Rows; ++I)
            Dot += conjT(Q[I + static_cast<size_t>(K) * Rows]) * X[I];
          for (int I = 0; I < Rows; ++I)
            X[I] -= Dot * Q[I + static_cast<size_t>(K) * Rows];
        }
      double Norm = 0;
      for (const T &V : X)
        Norm += std::norm(V);
      if (Norm > BestNorm + 1e-12) {
        BestNorm = Norm;
        Best = X;
      }
    }
    Real<T> Scale = Real<T>(std::sqrt(BestNorm));
    for (int I = 0; I < Rows; ++I)
      Q[I + static_cast<size_t>(J) * Rows] = Best[I] / Scale;
    Done[J] = 1;
  }
}

/// One-sided (Hestenes) Jacobi SVD of the m x n matrix A (lda), m >= n:
/// S descending, U m x UCols and V n x VCols (V, not V^H) when Vectors.
/// Returns the info value (0, or min(m, n) + 1 when MaxSweeps did not reach
/// the tolerance).
template <typename T>
int jacobiSvdTall(int M, int N, const T *A, int Lda, Real<T> *S, T *U, int Ldu, int UCols, T *V, int Ldv,
                  int VCols, bool Vectors, double Tol, int MaxSweeps, int *Sweeps, double *Residual) {
  using R = Real<T>;
  std::vector<T> W(static_cast<size_t>(M) * N), Vm(static_cast<size_t>(N) * N, T(0));
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      W[I + static_cast<size_t>(J) * M] = A[I + static_cast<size_t>(J) * Lda];
  for (int J = 0; J < N; ++J)
    Vm[J + static_cast<size_t>(J) * N] = T(1);
  const double Eps = Tol > 0 ? Tol : std::numeric_limits<R>::epsilon();
  auto col = [&](std::vector<T> &X, int Rows, int J) { return X.data() + static_cast<size_t>(J) * Rows; };
  int Sweep = 0, Status = 0;
  for (;;) {
    bool Rotated = false;
    for (int P = 0; P < N - 1; ++P)
      for (int Q = P + 1; Q < N; ++Q) {
        T *Wp = col(W, M, P), *Wq = col(W, M, Q);
        double Alpha = 0, Beta = 0;
        T Gamma = 0;
        for (int I = 0; I < M; ++I) {
          Alpha += std::norm(Wp[I]);
          Beta += std::norm(Wq[I]);
          Gamma += conjT(Wp[I]) * Wq[I];
        }
        double G = std::abs(Gamma);
        if (G == 0 || G <= Eps * std::sqrt(Alpha * Beta))
          continue;
        if (Sweep == MaxSweeps) {
          Status = N + 1;
          continue;
        }
        Rotated = true;
        T Phase = conjT(Gamma) / R(G); // w_q * conj(e): e = Gamma / |Gamma|
        double Zeta = (Beta - Alpha) / (2 * G);
        double Tn = (Zeta >= 0 ? 1.0 : -1.0) / (std::fabs(Zeta) + std::sqrt(1 + Zeta * Zeta));
        R C = R(1 / std::sqrt(1 + Tn * Tn)), Sn = R(Tn) * C;
        for (int I = 0; I < M; ++I) {
          T X = Wp[I], Y = Wq[I] * Phase;
          Wp[I] = C * X - Sn * Y;
          Wq[I] = Sn * X + C * Y;
        }
        T *Vp = col(Vm, N, P), *Vq = col(Vm, N, Q);
        for (int I = 0; I < N; ++I) {
          T X = Vp[I], Y = Vq[I] * Phase;
          Vp[I] = C * X - Sn * Y;
          Vq[I] = Sn * X + C * Y;
        }
      }
    if (!Rotated || Status)
      break;
    ++Sweep;
  }
  *Sweeps = Sweep;
  std::vector<R> Sigma(N);
  for (int J = 0; J < N; ++J) {
    double Sum = 0;
    for (int I = 0; I < M; ++I)
      Sum += std::norm(W[I + static_cast<size_t>(J) * M]);
    Sigma[J] = R(std::sqrt(Sum));
  }
  std::vector<int> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](int X, int Y) { return Sigma[X] > Sigma[Y]; });
  for (int J = 0; J < N; ++J)
    S[J] = Sigma[Order[J]];
  // |E|_F for E = U^H A V - S (U = W / sigma where sigma > 0), from the
  // original A: what is left of the off-diagonal part, as the Jacobi
  // iteration measures convergence.
  std::vector<T> AV(static_cast<size_t>(M) * N, T(0));
  for (int K = 0; K < N; ++K)
    for (int L = 0; L < N; ++L) {
      T Vlk = Vm[L + static_cast<size_t>(K) * N];
      for (int I = 0; I < M; ++I)
        AV[I + static_cast<size_t>(K) * M] += A[I + static_cast<size_t>(L) * Lda] * Vlk;
    }
  double Res = 0;
  for (int J = 0; J < N; ++J) {
    if (Sigma[J] == 0)
      continue;
    for (int K = 0; K < N; ++K) {
      T Sum = 0;
      for (int I = 0; I < M; ++I)
        Sum += conjT(W[I + static_cast<size_t>(J) * M]) * AV[I + static_cast<size_t>(K) * M];
      Sum /= Sigma[J];
      if (J == K)
        Sum -= Sigma[J];
      Res += std::norm(Sum);
    }
  }
  *Residual = std::sqrt(Res);
  if (!Vectors)
    return Status;
  std::vector<T> Uc(static_cast<size_t>(M) * UCols, T(0));
  std::vector<char> Keep(UCols, 0);
  for (int J = 0; J < N && J < UCols; ++J) {
    R Sig = Sigma[Order[J]];
    if (Sig > 0) {
      for (int I = 0; I < M; ++I)
        Uc[I + static_cast<size_t>(J) * M] = W[I + static_cast<size_t>(Order[J]) * M] / Sig;
      Keep[J] = 1;
    }
  }
  completeBasis(M, UCols, Uc.data(), Keep);
  for (int J = 0; J < UCols; ++J)
    for (int I = 0; I < M; ++I)
      U[I + static_cast<size_t>(J) * Ldu] = Uc[I + static_cast<size_t>(J) * M];
  for (int J = 0; J < VCols; ++J)
    for (int I = 0; I < N; ++I)
      V[I + static_cast<size_t>(J) * Ldv] = Vm[I + static_cast<size_t>(Order[J]) * N];
  return Status;
}

/// gesvdj by the one-sided Jacobi method: m < n works on A^H (its U is V).
template <typename T>
int jacobiSvd(int M, int N, const T *A, int Lda, Real<T> *S, T *U, int Ldu, T *V, int Ldv, bool Econ, bool Vectors,
              double Tol, int MaxSweeps, int *Sweeps, double *Residual) {
  int K = std::min(M, N);
  if (M >= N)
    return jacobiSvdTall(M, N, A, Lda, S, U, Ldu, Econ ? K : M, V, Ldv, Econ ? K : N, Vectors, Tol, MaxSweeps,
                         Sweeps, Residual);
  std::vector<T> Ah(static_cast<size_t>(N) * M);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Ah[J + static_cast<size_t>(I) * N] = conjT(A[I + static_cast<size_t>(J) * Lda]);
  // A^H = U' S V'^H, so A = V' S U'^H: U = V' (m x .), V = U' (n x .).
  return jacobiSvdTall(N, M, Ah.data(), N, S, V, Ldv, Econ ? K : N, U, Ldu, Econ ? K : M, Vectors, Tol, MaxSweeps,
                       Sweeps, Residual);
}

/// gesvdj (Batch 0, econ as given) and gesvdjBatched (full U and V):
/// A = U S V^H with V, not V^H, returned.
template <typename T>
cusolverStatus_t gesvdj(cusolverDnHandle_t Handle, cusolverEigMode_t Jobz, int Econ, int M, int N, T *A, int Lda,
                        Real<T> *S, T *U, int Ldu, T *V, int Ldv, int *Info, gesvdjInfo_t Params, int Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || (Params && !live(Params)) || Batch < 0)
    return Invalid;
  int K = std::min(M, N);
  bool Vectors = Jobz == CUSOLVER_EIG_MODE_VECTOR;
  int UCols = Econ ? K : M, VCols = Econ ? K : N;
  if (int Bad = firstBad({{!validMode(Jobz), 1},
                          {Econ != 0 && Econ != 1, 2},
                          {M < 0, 3},
                          {N < 0, 4},
                          {Lda < std::max(1, M), 6},
                          {Vectors && Ldu < std::max(1, M), 9},
                          {Vectors && Ldv < std::max(1, N), 11}}))
    return reject(H, Info, -Bad);
  int Count = Batch ? Batch : 1;
  if (!Batch && std::max(M, N) <= JacobiMaxOrder) {
    double Tol = Params ? Params->Tolerance : 0;
    int MaxSweeps = Params ? Params->MaxSweeps : 100;
    if (Params)
      Params->Ran = 1;
    std::shared_ptr<JacobiResult> Result = Params ? Params->Result : nullptr;
    return enqueue(H, [=] {
      int Sweeps = 0;
      double Residual = 0;
      Info[0] = M && N ? jacobiSvd<T>(M, N, A, Lda, S, U, Ldu, V, Ldv, Econ != 0, Vectors, Tol, MaxSweeps, &Sweeps,
                                      &Residual)
                       : 0;
      if (Result) {
        Result->Sweeps = Sweeps;
        Result->Residual = Residual;
      }
    });
  }
  if (Params)
    Params->Ran = 2;
  return enqueue(H, [=] {
    for (int B = 0; B < Count; ++B) {
      T *Ab = A + static_cast<size_t>(B) * Lda * N;
      Real<T> *Sb = S + static_cast<size_t>(B) * K;
      int Status = 0;
      if (M && N) {
        char Job = !Vectors ? 'N' : Econ ? 'S' : 'A';
        std::vector<T> Vt(Vectors ? static_cast<size_t>(VCols) * N : 1);
        T Dummy{};
        T *Ub = Vectors ? U + static_cast<size_t>(B) * Ldu * UCols : &Dummy;
        lapack::gesvd(Job, Job, M, N, Ab, Lda, Sb, Ub, Vectors ? Ldu : 1, Vt.data(), Vectors ? VCols : 1, &Status);
        if (Vectors) {
          T *Vb = V + static_cast<size_t>(B) * Ldv * VCols;
          for (int J = 0; J < VCols; ++J)
            for (int I = 0; I < N; ++I) {
              T X = Vt[J + static_cast<size_t>(I) * VCols];
              if constexpr (IsComplex<T>)
                X = std::conj(X);
              Vb[I + static_cast<size_t>(J) * Ldv] = X;
            }
        }
      }
      Info[B] = Status;
    }
  });
}

/// The generalized symmetric-definite problem (sygvd/hegvd, sygvj/hegvj):
/// B = L L^H (LAPACK's potrf of B's Uplo triangle, the factor left there as
/// LAPACK's sygvd leaves it), C = L^-1 A L^-H (itype 1) or L^H A L (2, 3)
/// solved by syevd (Jacobi: the Jacobi method as syevj), eigenvectors
/// X = L^-H Y (1, 2) or L Y (3). info: n + i when B's leading minor of
/// order i is not positive definite, as LAPACK and cuSOLVER report it.
template <typename T>
int generalizedEig(int Itype, bool Vectors, char Uplo, int N, T *A, int Lda, T *B, int Ldb, Real<T> *W, bool Jacobi,
                   double Tol, int MaxSweeps, int *Sweeps, double *Residual) {
  auto Idx = [N](int I, int J) { return I + static_cast<size_t>(J) * N; };
  std::vector<T> L(static_cast<size_t>(N) * N, T(0)), C(static_cast<size_t>(N) * N);
  // The full Hermitian B and A from their Uplo triangles.
  auto full = [&](const T *M, int Ld, std::vector<T> &Out) {
    Out.assign(static_cast<size_t>(N) * N, T(0));
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        bool Stored = Uplo == 'L' ? I >= J : I <= J;
        T X = Stored ? M[I + static_cast<size_t>(J) * Ld] : conjT(M[J + static_cast<size_t>(I) * Ld]);
        Out[Idx(I, J)] = I == J ? T(std::real(X)) : X;
      }
  };
  std::vector<T> Bf, Af;
  full(B, Ldb, Bf);
  full(A, Lda, Af);
  L = Bf;
  int Info = 0;
  lapack::potrf('L', N, L.data(), N, &Info);
  if (Info > 0)
    return N + Info;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < J; ++I)
      L[Idx(I, J)] = T(0);
  // B's Uplo triangle gets the factor: L, or U = L^H.
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      if (Uplo == 'L' ? I >= J : I <= J)
        B[I + static_cast<size_t>(J) * Ldb] = Uplo == 'L' ? L[Idx(I, J)] : conjT(L[Idx(J, I)]);
  // C = L^-1 A L^-H: solve L Z = A, then C^H = L^-1 Z^H (C Hermitian).
  auto lowerSolve = [&](std::vector<T> &M) { // M := L^-1 M, column by column
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        T Sum = M[Idx(I, J)];
        for (int K = 0; K < I; ++K)
          Sum -= L[Idx(I, K)] * M[Idx(K, J)];
        M[Idx(I, J)] = Sum / L[Idx(I, I)];
      }
  };
  auto adjoint = [&](std::vector<T> &M) {
    std::vector<T> Out(M.size());
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        Out[Idx(J, I)] = conjT(M[Idx(I, J)]);
    M.swap(Out);
  };
  auto mul = [&](const std::vector<T> &X, const std::vector<T> &Y) {
    std::vector<T> Out(static_cast<size_t>(N) * N, T(0));
    for (int J = 0; J < N; ++J)
      for (int K = 0; K < N; ++K) {
        T Ykj = Y[Idx(K, J)];
        for (int I = 0; I < N; ++I)
          Out[Idx(I, J)] += X[Idx(I, K)] * Ykj;
      }
    return Out;
  };
  if (Itype == 1) {
    C = Af;
    lowerSolve(C);
    adjoint(C);
    lowerSolve(C);
  } else {
    std::vector<T> Lh(L);
    adjoint(Lh);
    C = mul(mul(Lh, Af), L);
  }
  int Status = 0;
  if (Jacobi) {
    Status = jacobiEig<T>(N, C.data(), N, 'L', W, true, Tol, MaxSweeps, Sweeps, Residual);
  } else {
    lapack::syevd('V', 'L', N, C.data(), N, W, &Status);
  }
  if (Vectors && Status == 0) {
    std::vector<T> X;
    if (Itype == 3) {
      X = mul(L, C);
    } else { // X = L^-H Y: solve L^H X = Y (upper triangular, back substitution)
      X = C;
      for (int J = 0; J < N; ++J)
        for (int I = N - 1; I >= 0; --I) {
          T Sum = X[Idx(I, J)];
          for (int K = I + 1; K < N; ++K)
            Sum -= conjT(L[Idx(K, I)]) * X[Idx(K, J)];
          X[Idx(I, J)] = Sum / conjT(L[Idx(I, I)]);
        }
    }
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        A[I + static_cast<size_t>(J) * Lda] = X[Idx(I, J)];
  }
  return Status;
}

template <typename T>
cusolverStatus_t sygv(cusolverDnHandle_t Handle, cusolverEigType_t Itype, cusolverEigMode_t Jobz,
                      cublasFillMode_t Uplo, int N, T *A, int Lda, T *B, int Ldb, Real<T> *W, int *Info, bool Jacobi,
                      syevjInfo_t Params) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || (Params && !live(Params)))
    return Invalid;
  int It = static_cast<int>(Itype);
  if (int Bad = firstBad({{It < 1 || It > 3, 1},
                          {!validMode(Jobz), 2},
                          {!validFill(Uplo), 3},
                          {N < 0, 4},
                          {Lda < std::max(1, N), 6},
                          {Ldb < std::max(1, N), 8}}))
    return reject(H, Info, -Bad);
  if (Jacobi && N > JacobiMaxOrder) {
    logOnce("cusolverDnXsygvj", "orders above 256 are not run by ferry's Jacobi method (CUSOLVER_STATUS_NOT_SUPPORTED)");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  double Tol = Params ? Params->Tolerance : 0;
  int MaxSweeps = Params ? Params->MaxSweeps : 100;
  if (Jacobi && Params)
    Params->Ran = 1;
  bool Vectors = Jobz == CUSOLVER_EIG_MODE_VECTOR;
  char U = fillChar(Uplo);
  std::shared_ptr<JacobiResult> Result = Jacobi && Params ? Params->Result : nullptr;
  return enqueue(H, [=] {
    int Sweeps = 0;
    double Residual = 0;
    Info[0] = N ? generalizedEig<T>(It, Vectors, U, N, A, Lda, B, Ldb, W, Jacobi, Tol, MaxSweeps, &Sweeps, &Residual)
                : 0;
    if (Result) {
      Result->Sweeps = Sweeps;
      Result->Residual = Residual;
    }
  });
}

/// gesvdaStridedBatched: the rank-r part of each tall m x n matrix's SVD,
/// computed exactly by LAPACK's gesvd (NVIDIA's is an approximation through
/// A^H A; these are the exact leading triplets), S descending, U m x r and
/// V n x r (V, not V^H); h_R_nrmF[b] = ||A_b - U S V^H||_F, which for the
/// exact decomposition is the norm of the discarded singular values. The
/// host array is written once the work has run (the call waits for it).
template <typename T>
cusolverStatus_t gesvda(cusolverDnHandle_t Handle, cusolverEigMode_t Jobz, int Rank, int M, int N, const T *A, int Lda,
                        long long StrideA, Real<T> *S, long long StrideS, T *U, int Ldu, long long StrideU, T *V,
                        int Ldv, long long StrideV, int *Info, double *ResNorm, int Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info)
    return Invalid;
  bool Vectors = Jobz == CUSOLVER_EIG_MODE_VECTOR;
  if (int Bad = firstBad({{!validMode(Jobz), 1},
                          {Rank < 1 || Rank > N, 2},
                          {M < N, 3},
                          {N < 1, 4},
                          {Lda < std::max(1, M), 6},
                          {StrideA < static_cast<long long>(Lda) * N, 7},
                          {StrideS < Rank, 9},
                          {Vectors && Ldu < std::max(1, M), 11},
                          {Vectors && StrideU < static_cast<long long>(Ldu) * Rank, 12},
                          {Vectors && Ldv < std::max(1, N), 14},
                          {Vectors && StrideV < static_cast<long long>(Ldv) * Rank, 15},
                          {Batch < 1, 20}}))
    return reject(H, Info, -Bad);
  cusolverStatus_t St = enqueue(H, [=] {
    for (int B = 0; B < Batch; ++B) {
      std::vector<T> Ab(static_cast<size_t>(M) * N), Ub(static_cast<size_t>(M) * N), Vt(static_cast<size_t>(N) * N);
      std::vector<Real<T>> Sb(N);
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < M; ++I)
          Ab[I + static_cast<size_t>(J) * M] = A[B * StrideA + I + static_cast<size_t>(J) * Lda];
      int Status = 0;
      lapack::gesvd('S', 'S', M, N, Ab.data(), M, Sb.data(), Ub.data(), M, Vt.data(), N, &Status);
      Info[B] = Status;
      double Rest = 0;
      for (int K = Rank; K < N; ++K)
        Rest += static_cast<double>(Sb[K]) * Sb[K];
      if (ResNorm)
        ResNorm[B] = std::sqrt(Rest);
      for (int K = 0; K < Rank; ++K) {
        S[B * StrideS + K] = Sb[K];
        if (!Vectors)
          continue;
        for (int I = 0; I < M; ++I)
          U[B * StrideU + I + static_cast<size_t>(K) * Ldu] = Ub[I + static_cast<size_t>(K) * M];
        for (int I = 0; I < N; ++I)
          V[B * StrideV + I + static_cast<size_t>(K) * Ldv] = conjT(Vt[K + static_cast<size_t>(I) * N]);
      }
    }
  });
  return St == Ok && ResNorm ? synchronize(H->Stream) : St;
}

/// sygvdx/hegvdx: the whole generalized problem as sygvd, then the selected
/// eigenvalues (all; (vl, vu]; il..iu) and their vectors moved to the
/// front; meig is known at once for ALL and I, after the work for V (the
/// call then waits for it).
template <typename T>
cusolverStatus_t sygvdx(cusolverDnHandle_t Handle, cusolverEigType_t Itype, cusolverEigMode_t Jobz,
                        cusolverEigRange_t Range, cublasFillMode_t Uplo, int N, T *A, int Lda, T *B, int Ldb,
                        Real<T> Vl, Real<T> Vu, int Il, int Iu, int *Meig, Real<T> *W, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || !Meig)
    return Invalid;
  int It = static_cast<int>(Itype);
  bool ByValue = Range == CUSOLVER_EIG_RANGE_V, ByIndex = Range == CUSOLVER_EIG_RANGE_I;
  if (int Bad = firstBad({{It < 1 || It > 3, 1},
                          {!validMode(Jobz), 2},
                          {!ByValue && !ByIndex && Range != CUSOLVER_EIG_RANGE_ALL, 3},
                          {!validFill(Uplo), 4},
                          {N < 0, 5},
                          {Lda < std::max(1, N), 7},
                          {Ldb < std::max(1, N), 9},
                          {ByValue && !(Vl < Vu), 10},
                          {ByIndex && (Il < 1 || Il > std::max(1, N)), 12},
                          {ByIndex && (Iu < std::min(N, Il) || Iu > N), 13}}))
    return reject(H, Info, -Bad);
  if (!ByValue)
    *Meig = ByIndex ? Iu - Il + 1 : N;
  bool Vectors = Jobz == CUSOLVER_EIG_MODE_VECTOR;
  char U = fillChar(Uplo);
  cusolverStatus_t St = enqueue(H, [=] {
    int Sweeps = 0;
    double Residual = 0;
    std::vector<Real<T>> All(std::max(1, N));
    Info[0] = N ? generalizedEig<T>(It, Vectors, U, N, A, Lda, B, Ldb, All.data(), false, 0, 0, &Sweeps, &Residual) : 0;
    if (Info[0] || !N) {
      if (ByValue)
        *Meig = 0;
      return;
    }
    int First = 0, Count = N;
    if (ByIndex) {
      First = Il - 1;
      Count = Iu - Il + 1;
    } else if (ByValue) {
      First = static_cast<int>(std::upper_bound(All.begin(), All.begin() + N, Vl) - All.begin());
      Count = static_cast<int>(std::upper_bound(All.begin(), All.begin() + N, Vu) - All.begin()) - First;
      *Meig = Count;
    }
    for (int J = 0; J < Count; ++J) {
      W[J] = All[First + J];
      if (Vectors && First)
        for (int I = 0; I < N; ++I)
          A[I + static_cast<size_t>(J) * Lda] = A[I + static_cast<size_t>(First + J) * Lda];
    }
  });
  return St == Ok && ByValue ? synchronize(H->Stream) : St;
}

cusolverStatus_t bufferAnswer(cusolverDnHandle_t Handle, int *Lwork, int Value) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Lwork)
    return Invalid;
  *Lwork = std::max(1, Value);
  return Ok;
}

template <typename T> T *cast(void *P) { return static_cast<T *>(P); }

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *Info) {
  if (!Info)
    return Invalid;
  *Info = new (std::nothrow) syevjInfo;
  return *Info ? Ok : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t Info) {
  if (!live(Info))
    return Invalid;
  Info->Magic = 0;
  delete Info;
  return Ok;
}

cusolverStatus_t cusolverDnXsyevjSetTolerance(syevjInfo_t Info, double Tolerance) {
  if (!live(Info))
    return Invalid;
  Info->Tolerance = Tolerance;
  return Ok;
}

cusolverStatus_t cusolverDnXsyevjSetMaxSweeps(syevjInfo_t Info, int MaxSweeps) {
  if (!live(Info) || MaxSweeps < 1)
    return Invalid;
  Info->MaxSweeps = MaxSweeps;
  return Ok;
}

cusolverStatus_t cusolverDnXsyevjSetSortEig(syevjInfo_t Info, int Sort) {
  if (!live(Info))
    return Invalid;
  Info->Sort = Sort;
  return Ok;
}

/// The last syevj's or gesvdj's Jacobi diagnostics, once its work on the handle's
/// stream is done; NOT_SUPPORTED after a run that had no Jacobi iteration.
template <typename I, typename V>
cusolverStatus_t jacobiReport(cusolverDnHandle_t Handle, I *Info, V *Out, const char *Name, bool Sweeps) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!live(Info) || !Out)
    return Invalid;
  if (Info->Ran == 2) {
    logOnce(Name, "the last call with this info ran LAPACK (batched, or order above 256): no Jacobi iteration to "
                  "report (CUSOLVER_STATUS_NOT_SUPPORTED)");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  if (cusolverStatus_t St = synchronize(H->Stream))
    return St;
  *Out = Sweeps ? static_cast<V>(Info->Result->Sweeps) : static_cast<V>(Info->Result->Residual);
  return Ok;
}

cusolverStatus_t cusolverDnXsyevjGetResidual(cusolverDnHandle_t Handle, syevjInfo_t Info, double *Residual) {
  return jacobiReport(Handle, Info, Residual, "cusolverDnXsyevjGetResidual", false);
}

cusolverStatus_t cusolverDnXsyevjGetSweeps(cusolverDnHandle_t Handle, syevjInfo_t Info, int *Sweeps) {
  return jacobiReport(Handle, Info, Sweeps, "cusolverDnXsyevjGetSweeps", true);
}

cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t *Info) {
  if (!Info)
    return Invalid;
  *Info = new (std::nothrow) gesvdjInfo;
  return *Info ? Ok : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t Info) {
  if (!live(Info))
    return Invalid;
  Info->Magic = 0;
  delete Info;
  return Ok;
}

cusolverStatus_t cusolverDnXgesvdjSetTolerance(gesvdjInfo_t Info, double Tolerance) {
  if (!live(Info))
    return Invalid;
  Info->Tolerance = Tolerance;
  return Ok;
}

cusolverStatus_t cusolverDnXgesvdjSetMaxSweeps(gesvdjInfo_t Info, int MaxSweeps) {
  if (!live(Info) || MaxSweeps < 1)
    return Invalid;
  Info->MaxSweeps = MaxSweeps;
  return Ok;
}

cusolverStatus_t cusolverDnXgesvdjSetSortEig(gesvdjInfo_t Info, int Sort) {
  if (!live(Info))
    return Invalid;
  Info->Sort = Sort;
  return Ok;
}

cusolverStatus_t cusolverDnXgesvdjGetResidual(cusolverDnHandle_t Handle, gesvdjInfo_t Info, double *Residual) {
  return jacobiReport(Handle, Info, Residual, "cusolverDnXgesvdjGetResidual", false);
}

cusolverStatus_t cusolverDnXgesvdjGetSweeps(cusolverDnHandle_t Handle, gesvdjInfo_t Info, int *Sweeps) {
  return jacobiReport(Handle, Info, Sweeps, "cusolverDnXgesvdjGetSweeps", true);
}

#define FERRY_JACOBI(P, EV, CT, T, R)                                                                                  \
  cusolverStatus_t cusolverDn##P##EV##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, cublasFillMode_t, int n,   \
                                                  const CT *, int, const R *, int *lwork, syevjInfo_t) {               \
    return bufferAnswer(h, lwork, n);                                                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,       \
                                     CT *A, int lda, R *W, CT *, int, int *info, syevjInfo_t params) {                 \
    return syevj<T>(h, jobz, uplo, n, cast<T>(A), lda, W, info, params, 0);                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV##Batched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, cublasFillMode_t,    \
                                                         int n, const CT *, int, const R *, int *lwork, syevjInfo_t,   \
                                                         int) {                                                        \
    return bufferAnswer(h, lwork, n);                                                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV##Batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,     \
                                              int n, CT *A, int lda, R *W, CT *, int, int *info, syevjInfo_t params,   \
                                              int batch) {                                                             \
    if (batch < 1)                                                                                                     \
      return lookup(h) ? Invalid : CUSOLVER_STATUS_NOT_INITIALIZED;                                                    \
    return syevj<T>(h, jobz, uplo, n, cast<T>(A), lda, W, info, params, batch);                                        \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvdj_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, int, int m, int n,        \
                                                    const CT *, int, const R *, const CT *, int, const CT *, int,      \
                                                    int *lwork, gesvdjInfo_t) {                                        \
    return bufferAnswer(h, lwork, std::max(m, n));                                                                     \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvdj(cusolverDnHandle_t h, cusolverEigMode_t jobz, int econ, int m, int n, CT *A,  \
                                         int lda, R *S, CT *U, int ldu, CT *V, int ldv, CT *, int, int *info,          \
                                         gesvdjInfo_t params) {                                                        \
    return gesvdj<T>(h, jobz, econ, m, n, cast<T>(A), lda, S, cast<T>(U), ldu, cast<T>(V), ldv, info, params, 0);      \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvdjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, int m, int n,      \
                                                           const CT *, int, const R *, const CT *, int, const CT *,    \
                                                           int, int *lwork, gesvdjInfo_t, int) {                       \
    return bufferAnswer(h, lwork, std::max(m, n));                                                                     \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvdjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, CT *A,     \
                                                int lda, R *S, CT *U, int ldu, CT *V, int ldv, CT *, int, int *info,   \
                                                gesvdjInfo_t params, int batch) {                                      \
    if (batch < 1)                                                                                                     \
      return lookup(h) ? Invalid : CUSOLVER_STATUS_NOT_INITIALIZED;                                                    \
    return gesvdj<T>(h, jobz, 0, m, n, cast<T>(A), lda, S, cast<T>(U), ldu, cast<T>(V), ldv, info, params, batch);     \
  }

FERRY_JACOBI(S, syevj, float, float, float)
FERRY_JACOBI(D, syevj, double, double, double)
FERRY_JACOBI(C, heevj, cuComplex, C32, float)
FERRY_JACOBI(Z, heevj, cuDoubleComplex, C64, double)

#define FERRY_SYGV(P, EV, CT, T, R)                                                                                   \
  cusolverStatus_t cusolverDn##P##EV##d_bufferSize(cusolverDnHandle_t h, cusolverEigType_t, cusolverEigMode_t,        \
                                                   cublasFillMode_t, int n, const CT *, int, const CT *, int,         \
                                                   const R *, int *lwork) {                                            \
    return bufferAnswer(h, lwork, n);                                                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV##d(cusolverDnHandle_t h, cusolverEigType_t itype, cusolverEigMode_t jobz,         \
                                        cublasFillMode_t uplo, int n, CT *A, int lda, CT *B, int ldb, R *W, CT *, int, \
                                        int *info) {                                                                   \
    return sygv<T>(h, itype, jobz, uplo, n, cast<T>(A), lda, cast<T>(B), ldb, W, info, false, nullptr);                \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV##j_bufferSize(cusolverDnHandle_t h, cusolverEigType_t, cusolverEigMode_t,        \
                                                   cublasFillMode_t, int n, const CT *, int, const CT *, int,         \
                                                   const R *, int *lwork, syevjInfo_t) {                               \
    return bufferAnswer(h, lwork, n);                                                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV##j(cusolverDnHandle_t h, cusolverEigType_t itype, cusolverEigMode_t jobz,         \
                                        cublasFillMode_t uplo, int n, CT *A, int lda, CT *B, int ldb, R *W, CT *, int, \
                                        int *info, syevjInfo_t params) {                                               \
    return sygv<T>(h, itype, jobz, uplo, n, cast<T>(A), lda, cast<T>(B), ldb, W, info, true, params);                  \
  }

FERRY_SYGV(S, sygv, float, float, float)
FERRY_SYGV(D, sygv, double, double, double)
FERRY_SYGV(C, hegv, cuComplex, C32, float)
FERRY_SYGV(Z, hegv, cuDoubleComplex, C64, double)

#define FERRY_GESVDA(P, CT, T, R)                                                                                      \
  cusolverStatus_t cusolverDn##P##gesvdaStridedBatched_bufferSize(                                                     \
      cusolverDnHandle_t h, cusolverEigMode_t, int, int m, int n, const CT *, int, long long int, const R *,           \
      long long int, const CT *, int, long long int, const CT *, int, long long int, int *lwork, int) {                \
    return bufferAnswer(h, lwork, std::max(m, n));                                                                     \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvdaStridedBatched(                                                                \
      cusolverDnHandle_t h, cusolverEigMode_t jobz, int rank, int m, int n, const CT *A, int lda, long long int sA,    \
      R *S, long long int sS, CT *U, int ldu, long long int sU, CT *V, int ldv, long long int sV, CT *, int,           \
      int *info, double *h_R_nrmF, int batch) {                                                                        \
    return gesvda<T>(h, jobz, rank, m, n, reinterpret_cast<const T *>(A), lda, sA, S, sS, cast<T>(U), ldu, sU,        \
                     cast<T>(V), ldv, sV, info, h_R_nrmF, batch);                                                      \
  }
FERRY_GESVDA(S, float, float, float)
FERRY_GESVDA(D, double, double, double)
FERRY_GESVDA(C, cuComplex, C32, float)
FERRY_GESVDA(Z, cuDoubleComplex, C64, double)

#define FERRY_SYGVDX(P, EV, CT, T, R)                                                                                 \
  cusolverStatus_t cusolverDn##P##EV##_bufferSize(cusolverDnHandle_t h, cusolverEigType_t, cusolverEigMode_t,         \
                                                  cusolverEigRange_t, cublasFillMode_t, int n, const CT *, int,        \
                                                  const CT *, int, R, R, int, int, int *, const R *, int *lwork) {     \
    return bufferAnswer(h, lwork, n);                                                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EV(cusolverDnHandle_t h, cusolverEigType_t itype, cusolverEigMode_t jobz,            \
                                     cusolverEigRange_t range, cublasFillMode_t uplo, int n, CT *A, int lda, CT *B,    \
                                     int ldb, R vl, R vu, int il, int iu, int *meig, R *W, CT *, int, int *info) {     \
    return sygvdx<T>(h, itype, jobz, range, uplo, n, cast<T>(A), lda, cast<T>(B), ldb, vl, vu, il, iu, meig, W,      \
                     info);                                                                                            \
  }
FERRY_SYGVDX(S, sygvdx, float, float, float)
FERRY_SYGVDX(D, sygvdx, double, double, double)
FERRY_SYGVDX(C, hegvdx, cuComplex, C32, float)
FERRY_SYGVDX(Z, hegvdx, cuDoubleComplex, C64, double)
