/// \file
/// The mixed-precision iterative-refinement solvers <in><low>gesv (DD, DS,
/// DH, DB, DX; SS, SH, SB, SX; ZZ, ZC, ZK, ZE, ZY; CC, CK, CE, CY) with
/// their buffer sizes: A rounded to the low format (float, half, bfloat16
/// or TF32's 10-bit significand, as the letter says; none for DD/SS/ZZ/CC)
/// and factored P L U with partial pivoting in float (the input precision
/// for DD/SS/ZZ/CC), then x refined in the input precision:
/// r = b - A x, done when max |r| <= max |x| * ||A||_inf * eps * sqrt(n) for
/// every right-hand side, else x += (LU)^-1 r, at most 50 times. iter is
/// the number of residual checks made (1 when the first solution already
/// passes); if refinement does not converge, the system is factored in the
/// input precision instead and iter = -50 (cuSOLVER's "too many
/// iterations, fell back" value). A singular factor gives devInfo = i (the
/// first zero pivot, 1-based) and no solution, as getrf/getrs would. The
/// low-precision factorization is an emulation, so iter can differ from
/// NVIDIA's tensor-core one (H100: DDgesv 1, DHgesv 2 on the getrf
/// sample's 3 x 3); x agrees to the input precision.
#include "libs/cusolver/Common.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr int MaxIterations = 50;

enum class Low { Same, Float, Half, Bf16, Tf32 };

float roundTo(float X, Low L) {
  if (L == Low::Half)
    return static_cast<float>(static_cast<_Float16>(X));
  if (L == Low::Bf16 || L == Low::Tf32) {
    if (!std::isfinite(X))
      return X;
    uint32_t Bits;
    std::memcpy(&Bits, &X, 4);
    int Drop = L == Low::Bf16 ? 16 : 13; // bfloat16 keeps 7 significand bits, TF32 10
    uint32_t Half = 1u << (Drop - 1), Lsb = (Bits >> Drop) & 1u;
    Bits = (Bits + Half - 1 + Lsb) & ~((1u << Drop) - 1);
    std::memcpy(&X, &Bits, 4);
  }
  return X;
}
template <typename W> W roundValue(W X, Low L) {
  if (L == Low::Same || L == Low::Float)
    return X; // W is already the input type or float
  if constexpr (IsComplex<W>)
    return W(roundTo(static_cast<float>(X.real()), L), roundTo(static_cast<float>(X.imag()), L));
  else
    return static_cast<W>(roundTo(static_cast<float>(X), L));
}

/// The factorization's element type: the input type for Same, else float
/// (complex float) values rounded to the low format.
template <typename T> using WorkOf = std::conditional_t<IsComplex<T>, std::complex<float>, float>;

template <typename T, typename W>
void irs(int N, int Nrhs, const T *A, int Lda, const T *B, int Ldb, T *X, int Ldx, Low L, int *Iter, int *Info) {
  using R = Real<T>;
  auto Idx = [N](int I, int J) { return I + static_cast<size_t>(J) * N; };
  std::vector<W> F(static_cast<size_t>(N) * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      F[Idx(I, J)] = roundValue(static_cast<W>(A[I + static_cast<size_t>(J) * Lda]), L);
  std::vector<int> Piv(N);
  *Info = 0;
  auto factor = [&](auto &M, Low Round) -> int {
    for (int K = 0; K < N; ++K) {
      int P = K;
      for (int I = K + 1; I < N; ++I)
        if (std::abs(M[Idx(I, K)]) > std::abs(M[Idx(P, K)]))
          P = I;
      Piv[K] = P;
      if (std::abs(M[Idx(P, K)]) == 0)
        return K + 1;
      if (P != K)
        for (int J = 0; J < N; ++J)
          std::swap(M[Idx(K, J)], M[Idx(P, J)]);
      for (int I = K + 1; I < N; ++I) {
        M[Idx(I, K)] = roundValue(M[Idx(I, K)] / M[Idx(K, K)], Round);
        for (int J = K + 1; J < N; ++J)
          M[Idx(I, J)] = roundValue(M[Idx(I, J)] - M[Idx(I, K)] * M[Idx(K, J)], Round);
      }
    }
    return 0;
  };
  auto solveWith = [&](const auto &M, std::vector<T> &V) { // V := (P L U)^-1 V
    for (int K = 0; K < N; ++K)
      std::swap(V[K], V[Piv[K]]);
    for (int I = 0; I < N; ++I)
      for (int K = 0; K < I; ++K)
        V[I] -= static_cast<T>(M[Idx(I, K)]) * V[K];
    for (int I = N - 1; I >= 0; --I) {
      for (int K = I + 1; K < N; ++K)
        V[I] -= static_cast<T>(M[Idx(I, K)]) * V[K];
      V[I] /= static_cast<T>(M[Idx(I, I)]);
    }
  };
  double ANorm = 0;
  for (int I = 0; I < N; ++I) {
    double Row = 0;
    for (int J = 0; J < N; ++J)
      Row += std::abs(A[I + static_cast<size_t>(J) * Lda]);
    ANorm = std::max(ANorm, Row);
  }
  const double Eps = std::numeric_limits<R>::epsilon(), Bound = ANorm * Eps * std::sqrt(static_cast<double>(N));
  std::vector<std::vector<T>> Xs(Nrhs, std::vector<T>(N));
  bool Converged = false;
  int Checks = 0;
  // The low format holds the input; the elimination runs in float (W), as
  // a tensor-core factorization accumulates in FP32.
  if (int Zero = factor(F, Low::Float); !Zero) {
    for (int C = 0; C < Nrhs; ++C) {
      for (int I = 0; I < N; ++I)
        Xs[C][I] = B[I + static_cast<size_t>(C) * Ldb];
      solveWith(F, Xs[C]);
    }
    while (Checks < MaxIterations) {
      ++Checks;
      bool Done = true;
      std::vector<std::vector<T>> Rs(Nrhs, std::vector<T>(N));
      for (int C = 0; C < Nrhs; ++C) {
        double RMax = 0, XMax = 0;
        for (int I = 0; I < N; ++I) {
          T Sum = B[I + static_cast<size_t>(C) * Ldb];
          for (int J = 0; J < N; ++J)
            Sum -= A[I + static_cast<size_t>(J) * Lda] * Xs[C][J];
          Rs[C][I] = Sum;
          RMax = std::max(RMax, static_cast<double>(std::abs(Sum)));
          XMax = std::max(XMax, static_cast<double>(std::abs(Xs[C][I])));
        }
        Done &= RMax <= XMax * Bound;
      }
      if (Done) {
        Converged = true;
        break;
      }
      for (int C = 0; C < Nrhs; ++C) {
        solveWith(F, Rs[C]);
        for (int I = 0; I < N; ++I)
          Xs[C][I] += Rs[C][I];
      }
    }
  }
  if (!Converged) {
    // Fall back to the input precision.
    std::vector<T> G(static_cast<size_t>(N) * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        G[Idx(I, J)] = A[I + static_cast<size_t>(J) * Lda];
    if (int Zero = factor(G, Low::Same)) {
      *Info = Zero;
      *Iter = 0;
      return;
    }
    for (int C = 0; C < Nrhs; ++C) {
      for (int I = 0; I < N; ++I)
        Xs[C][I] = B[I + static_cast<size_t>(C) * Ldb];
      solveWith(G, Xs[C]);
    }
    Checks = -MaxIterations;
  }
  for (int C = 0; C < Nrhs; ++C)
    for (int I = 0; I < N; ++I)
      X[I + static_cast<size_t>(C) * Ldx] = Xs[C][I];
  *Iter = Checks;
}

template <typename T>
cusolverStatus_t gesvIrs(cusolverDnHandle_t Handle, Low L, int N, int Nrhs, T *A, int Lda, int *Ipiv, T *B, int Ldb,
                         T *X, int Ldx, void *Work, int *Iter, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Iter || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (int Bad = firstBad({{N < 0, 1},
                          {Nrhs < 0, 2},
                          {Lda < std::max(1, N), 4},
                          {Ldb < std::max(1, N), 7},
                          {Ldx < std::max(1, N), 9}}))
    return reject(H, Info, -Bad);
  if (N && (!A || !B || !X || !Work))
    return CUSOLVER_STATUS_INVALID_VALUE;
  (void)Ipiv; // NVIDIA's pivots are an implementation detail of its factorization
  // iter is a host value: the call waits for its work, as NVIDIA's does.
  cusolverStatus_t St = enqueue(H, [=] {
    if (!N || !Nrhs) {
      *Iter = 0;
      *Info = 0;
      return;
    }
    if (L == Low::Same)
      irs<T, T>(N, Nrhs, A, Lda, B, Ldb, X, Ldx, L, Iter, Info);
    else
      irs<T, WorkOf<T>>(N, Nrhs, A, Lda, B, Ldb, X, Ldx, L, Iter, Info);
  });
  return St == Ok ? synchronize(H->Stream) : St;
}

cusolverStatus_t gesvBuffer(cusolverDnHandle_t Handle, int N, size_t Elem, size_t *Bytes) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Bytes || N < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Bytes = Elem * (static_cast<size_t>(N) * N + N) + 256;
  return Ok;
}

template <typename T> T *cast(void *P) { return static_cast<T *>(P); }

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

#define FERRY_IRS(NAME, CT, T, LOW)                                                                                    \
  cusolverStatus_t cusolverDn##NAME##gesv_bufferSize(cusolverDnHandle_t h, cusolver_int_t n, cusolver_int_t,           \
                                                     CT *, cusolver_int_t, cusolver_int_t *, CT *, cusolver_int_t,     \
                                                     CT *, cusolver_int_t, void *, size_t *lwork_bytes) {              \
    return gesvBuffer(h, n, sizeof(T), lwork_bytes);                                                                   \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##NAME##gesv(cusolverDnHandle_t h, cusolver_int_t n, cusolver_int_t nrhs, CT *dA,          \
                                          cusolver_int_t ldda, cusolver_int_t *dipiv, CT *dB, cusolver_int_t lddb,     \
                                          CT *dX, cusolver_int_t lddx, void *dWorkspace, size_t, cusolver_int_t *iter, \
                                          cusolver_int_t *d_info) {                                                    \
    return gesvIrs<T>(h, Low::LOW, n, nrhs, cast<T>(dA), ldda, dipiv, cast<T>(dB), lddb, cast<T>(dX), lddx,           \
                      dWorkspace, iter, d_info);                                                                       \
  }

FERRY_IRS(DD, double, double, Same)
FERRY_IRS(DS, double, double, Float)
FERRY_IRS(DH, double, double, Half)
FERRY_IRS(DB, double, double, Bf16)
FERRY_IRS(DX, double, double, Tf32)
FERRY_IRS(SS, float, float, Same)
FERRY_IRS(SH, float, float, Half)
FERRY_IRS(SB, float, float, Bf16)
FERRY_IRS(SX, float, float, Tf32)
FERRY_IRS(ZZ, cuDoubleComplex, C64, Same)
FERRY_IRS(ZC, cuDoubleComplex, C64, Float)
FERRY_IRS(ZK, cuDoubleComplex, C64, Half)
FERRY_IRS(ZE, cuDoubleComplex, C64, Bf16)
FERRY_IRS(ZY, cuDoubleComplex, C64, Tf32)
FERRY_IRS(CC, cuComplex, C32, Same)
FERRY_IRS(CK, cuComplex, C32, Half)
FERRY_IRS(CE, cuComplex, C32, Bf16)
FERRY_IRS(CY, cuComplex, C32, Tf32)
