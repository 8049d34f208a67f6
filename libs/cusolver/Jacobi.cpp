/// \file
/// The Jacobi-method solvers' API (syevj/heevj, gesvdj and their batched
/// forms, with syevjInfo_t/gesvdjInfo_t parameters) over LAPACK's divide
/// and conquer (syevd/heevd) and gesvd: the results are the same
/// decompositions to rounding, eigenvalues ascending and singular values
/// descending, which also satisfies sort_eig/sort_svd = 0 ("any order").
/// Tolerance and maximum sweeps are kept but do not apply (LAPACK converges
/// to working precision), so the Jacobi diagnostics (GetResidual,
/// GetSweeps) have nothing true to report: NOT_SUPPORTED with a log line.
#include "libs/cusolver/Common.h"

#include <algorithm>
#include <new>
#include <vector>

struct syevjInfo {
  static constexpr uint64_t Live = 0x6665727279534a49ull; // "ferrySJI"
  uint64_t Magic = Live;
  double Tolerance = 0;
  int MaxSweeps = 100;
  int Sort = 1;
};

struct gesvdjInfo {
  static constexpr uint64_t Live = 0x6665727279474a49ull; // "ferryGJI"
  uint64_t Magic = Live;
  double Tolerance = 0;
  int MaxSweeps = 100;
  int Sort = 1;
};

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr cusolverStatus_t Invalid = CUSOLVER_STATUS_INVALID_VALUE;

template <typename I> bool live(I *P) { return P && P->Magic == I::Live; }

bool validMode(cusolverEigMode_t J) { return J == CUSOLVER_EIG_MODE_NOVECTOR || J == CUSOLVER_EIG_MODE_VECTOR; }

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
  return enqueue(H, [=] {
    for (int B = 0; B < Count; ++B) {
      int Status = 0;
      if (N)
        lapack::syevd(Jz, U, N, A + static_cast<size_t>(B) * Lda * N, Lda, W + static_cast<size_t>(B) * N, &Status);
      Info[B] = Status;
    }
  });
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

cusolverStatus_t cusolverDnXsyevjGetResidual(cusolverDnHandle_t, syevjInfo_t, double *) {
  logOnce("cusolverDnXsyevjGetResidual",
          "ferry's syevj runs LAPACK's divide and conquer: no Jacobi residual (CUSOLVER_STATUS_NOT_SUPPORTED)");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
}

cusolverStatus_t cusolverDnXsyevjGetSweeps(cusolverDnHandle_t, syevjInfo_t, int *) {
  logOnce("cusolverDnXsyevjGetSweeps",
          "ferry's syevj runs LAPACK's divide and conquer: no Jacobi sweeps (CUSOLVER_STATUS_NOT_SUPPORTED)");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
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

cusolverStatus_t cusolverDnXgesvdjGetResidual(cusolverDnHandle_t, gesvdjInfo_t, double *) {
  logOnce("cusolverDnXgesvdjGetResidual",
          "ferry's gesvdj runs LAPACK's gesvd: no Jacobi residual (CUSOLVER_STATUS_NOT_SUPPORTED)");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
}

cusolverStatus_t cusolverDnXgesvdjGetSweeps(cusolverDnHandle_t, gesvdjInfo_t, int *) {
  logOnce("cusolverDnXgesvdjGetSweeps",
          "ferry's gesvdj runs LAPACK's gesvd: no Jacobi sweeps (CUSOLVER_STATUS_NOT_SUPPORTED)");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
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
