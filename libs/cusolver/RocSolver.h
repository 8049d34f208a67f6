/// \file
/// cuSOLVER's dense LU, Cholesky and QR (S/D getrf, getrs, potrf, potrs,
/// geqrf, ormqr, orgqr) forwarded to rocSOLVER where the host cannot touch
/// the device's memory (a discrete AMD GPU without a large BAR:
/// libs/README.md, "The AMD backend"). rocSOLVER, the rocBLAS it takes its
/// handle from, and the HIP runtime are loaded with dlopen from the user's
/// ROCm (libs/common/Rocm.h), never linked.
///
/// Each forwarded call is one host task on the cuSOLVER handle's stream
/// that, on a HIP stream of the handle's own, sets devInfo to 0, calls
/// rocSOLVER (which writes devInfo where it takes an info: getrf, potrf,
/// with LAPACK's meaning, as cuSOLVER's) and waits; the task reads no
/// device memory itself. rocSOLVER allocates its own workspace through the
/// rocBLAS handle, so the caller's workspace is not used, and the
/// buffer-size calls keep answering ferry's small sizes.
#pragma once

#include "libs/cusolver/Common.h"

#include <type_traits>

namespace ferry::cusolver {

/// One call as rocSOLVER takes it (rocblas_int sizes; the argument checks
/// were cuSOLVER's, made before).
struct RocDense {
  enum Kind { Getrf, Getrs, Potrf, Potrs, Geqrf, Ormqr, Orgqr } Op = Getrf;
  bool Double = false;
  int M = 0, N = 0, K = 0, Nrhs = 0, Lda = 0, Ldb = 0; ///< Ldb: B's, or ormqr's C's
  cublasOperation_t Trans = CUBLAS_OP_N;
  cublasFillMode_t Uplo = CUBLAS_FILL_MODE_LOWER;
  cublasSideMode_t Side = CUBLAS_SIDE_LEFT;
  void *A = nullptr, *B = nullptr, *Tau = nullptr;
  int *Ipiv = nullptr; ///< getrf: null for no pivoting (rocSOLVER's getrf_npvt)
  int *Info = nullptr;
};

/// Whether rocSOLVER forwarding covers element type T (S and D).
template <typename T> constexpr bool RocForwards = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// A RocDense of kind Op for element type T (A etc. set by the caller).
template <typename T> RocDense rocDense(RocDense::Kind Op) {
  RocDense D;
  D.Op = Op;
  D.Double = std::is_same_v<T, double>;
  return D;
}

/// Runs D with rocSOLVER, in order on H's stream. CUSOLVER_STATUS_NOT_SUPPORTED,
/// with a log line naming the call and why, when rocSOLVER, rocBLAS or HIP
/// cannot be loaded.
cusolverStatus_t forwardDense(DnHandle *H, const RocDense &D);

} // namespace ferry::cusolver
