/// \file
/// The mixed-precision least-squares solvers <in><low>gels (DD, DS, DH,
/// DB, DX; SS, SH, SB, SX; ZZ, ZC, ZK, ZE, ZY; CC, CK, CE, CY) with their
/// buffer sizes: X (n x nrhs) minimising ||A X - B|| for an m x n A with
/// m >= n and full rank, as cuSOLVER documents them (CuPy's
/// cupyx.cusolver.gels calls them). ferry solves in the input precision,
/// by Householder QR (LAPACK's geqrf, ormqr, trtrs on a copy of A and B):
/// iter is 1 for DD/SS/ZZ/CC, and for the variants whose low format ferry
/// does not emulate it is -50, cuSOLVER's value for "refinement gave up,
/// the input precision solved it" — which is what happened. A zero on R's
/// diagonal (rank deficient A) gives devInfo = its index (1-based), as
/// trtrs reports it, and no solution.
#include "libs/cusolver/Common.h"

#include <algorithm>
#include <vector>

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr int FellBack = -50;

template <typename T>
void leastSquares(int M, int N, int Nrhs, const T *A, int Lda, const T *B, int Ldb, T *X, int Ldx, bool Same,
                  int *Iter, int *Info) {
  std::vector<T> Q(static_cast<size_t>(M) * N), C(static_cast<size_t>(M) * Nrhs), Tau(std::max(1, N));
  for (int J = 0; J < N; ++J)
    std::copy(A + static_cast<size_t>(J) * Lda, A + static_cast<size_t>(J) * Lda + M, Q.begin() + size_t(J) * M);
  for (int J = 0; J < Nrhs; ++J)
    std::copy(B + static_cast<size_t>(J) * Ldb, B + static_cast<size_t>(J) * Ldb + M, C.begin() + size_t(J) * M);
  int Status = 0;
  lapack::geqrf(M, N, Q.data(), M, Tau.data(), &Status);
  if (!Status)
    lapack::ormqr('L', IsComplex<T> ? 'C' : 'T', M, Nrhs, N, Q.data(), M, Tau.data(), C.data(),
                  M, &Status);
  if (!Status)
    lapack::trtrs('U', 'N', N, Nrhs, Q.data(), M, C.data(), M, &Status);
  *Info = Status;
  *Iter = Status ? 0 : Same ? 1 : FellBack;
  if (Status)
    return;
  for (int J = 0; J < Nrhs; ++J)
    std::copy(C.begin() + size_t(J) * M, C.begin() + size_t(J) * M + N, X + static_cast<size_t>(J) * Ldx);
}

template <typename T>
cusolverStatus_t gels(cusolverDnHandle_t Handle, bool Same, int M, int N, int Nrhs, T *A, int Lda, T *B, int Ldb,
                      T *X, int Ldx, void *Work, int *Iter, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Iter || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (int Bad = firstBad({{M < 0, 1},
                          {N < 0 || N > M, 2},
                          {Nrhs < 0, 3},
                          {Lda < std::max(1, M), 5},
                          {Ldb < std::max(1, M), 7},
                          {Ldx < std::max(1, N), 9}}))
    return reject(H, Info, -Bad);
  if (N && (!A || !B || !X || !Work))
    return CUSOLVER_STATUS_INVALID_VALUE;
  // iter is a host value: the call waits for its work, as NVIDIA's does.
  cusolverStatus_t St = enqueue(H, [=] {
    if (!N || !Nrhs) {
      *Iter = 0;
      *Info = 0;
      return;
    }
    leastSquares<T>(M, N, Nrhs, A, Lda, B, Ldb, X, Ldx, Same, Iter, Info);
  });
  return St == Ok ? synchronize(H->Stream) : St;
}

cusolverStatus_t gelsBuffer(cusolverDnHandle_t Handle, int M, int N, int Nrhs, size_t Elem, size_t *Bytes) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Bytes || M < 0 || N < 0 || Nrhs < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Bytes = Elem * (static_cast<size_t>(M) * (N + Nrhs) + N) + 256;
  return Ok;
}

template <typename T> T *cast(void *P) { return static_cast<T *>(P); }

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

#define FERRY_GELS(NAME, CT, T, SAME)                                                                                  \
  cusolverStatus_t cusolverDn##NAME##gels_bufferSize(cusolverDnHandle_t h, cusolver_int_t m, cusolver_int_t n,          \
                                                     cusolver_int_t nrhs, CT *, cusolver_int_t, CT *, cusolver_int_t,  \
                                                     CT *, cusolver_int_t, void *, size_t *lwork_bytes) {              \
    return gelsBuffer(h, m, n, nrhs, sizeof(T), lwork_bytes);                                                          \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##NAME##gels(cusolverDnHandle_t h, cusolver_int_t m, cusolver_int_t n,                     \
                                          cusolver_int_t nrhs, CT *dA, cusolver_int_t ldda, CT *dB,                    \
                                          cusolver_int_t lddb, CT *dX, cusolver_int_t lddx, void *dWorkspace, size_t,  \
                                          cusolver_int_t *iter, cusolver_int_t *d_info) {                              \
    return gels<T>(h, SAME, m, n, nrhs, cast<T>(dA), ldda, cast<T>(dB), lddb, cast<T>(dX), lddx, dWorkspace, iter,    \
                   d_info);                                                                                            \
  }

FERRY_GELS(DD, double, double, true)
FERRY_GELS(DS, double, double, false)
FERRY_GELS(DH, double, double, false)
FERRY_GELS(DB, double, double, false)
FERRY_GELS(DX, double, double, false)
FERRY_GELS(SS, float, float, true)
FERRY_GELS(SH, float, float, false)
FERRY_GELS(SB, float, float, false)
FERRY_GELS(SX, float, float, false)
FERRY_GELS(ZZ, cuDoubleComplex, C64, true)
FERRY_GELS(ZC, cuDoubleComplex, C64, false)
FERRY_GELS(ZK, cuDoubleComplex, C64, false)
FERRY_GELS(ZE, cuDoubleComplex, C64, false)
FERRY_GELS(ZY, cuDoubleComplex, C64, false)
FERRY_GELS(CC, cuComplex, C32, true)
FERRY_GELS(CK, cuComplex, C32, false)
FERRY_GELS(CE, cuComplex, C32, false)
FERRY_GELS(CY, cuComplex, C32, false)
#undef FERRY_GELS
