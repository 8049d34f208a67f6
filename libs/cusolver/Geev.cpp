/// \file
/// cusolverDnXgeev: eigenvalues and, optionally, right (and left)
/// eigenvectors of a general n x n matrix, over LAPACK's ?geev (OpenBLAS),
/// in stream order on the host like the rest of libs/cusolver (Dense.cpp).
///
/// Type layouts, from cuSOLVER's documentation: A, VL, VR and the compute
/// type share one type (R_32F, R_64F, C_32F, C_64F). For a complex A, W is
/// of A's type. For a real A, W is either real (2n entries: the n real
/// parts, then the n imaginary parts, LAPACK's WR and WI one after the
/// other) or complex of A's precision; VL/VR are real and hold a complex
/// pair's vectors as LAPACK does (real part in column j, imaginary part in
/// column j+1). Which arguments NVIDIA's checks, and in what order, was
/// measured on the H100 (tests/cusolver/CusolverGeev.cu,
/// goldens/CusolverGeev.out).
#include "libs/cusolver/Common.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr cusolverStatus_t Invalid = CUSOLVER_STATUS_INVALID_VALUE;

bool isComplex(Kind T) { return T == Kind::C || T == Kind::Z; }

/// The complex type of a real one's precision.
Kind complexOf(Kind T) { return T == Kind::S ? Kind::C : T == Kind::D ? Kind::Z : T; }

/// What both calls check, in NVIDIA's way (measured on the H100,
/// tests/cusolver/CusolverGeev.cu): left eigenvectors are
/// CUSOLVER_STATUS_INTERNAL_ERROR (cuSOLVER computes none); a job other
/// than CUSOLVER_EIG_MODE_VECTOR means no vectors; an unsupported type
/// combination is INVALID_VALUE; a negative n, or lda / ldvr (with right
/// vectors) below n, is INVALID_VALUE for the buffer size but
/// INTERNAL_ERROR for the computation, which also refuses n = 0. The
/// status, or Ok with the element type in *K and whether W is complex for
/// a real A in *ComplexW.
cusolverStatus_t check(const char *Name, bool Compute, cusolverDnHandle_t Handle,
                       cusolverDnParams_t Params, cusolverEigMode_t Jobvl, cusolverEigMode_t Jobvr,
                       int64_t N, cudaDataType TA, int64_t Lda, cudaDataType TW, cudaDataType TVL,
                       cudaDataType TVR, int64_t Ldvr, cudaDataType TC, Kind *K, bool *ComplexW) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Params && Params->Magic != cusolverDnParams::Live)
    return Invalid;
  if (Jobvl == CUSOLVER_EIG_MODE_VECTOR) {
    logOnce(Name, "left eigenvectors: NVIDIA's cuSOLVER computes none and answers "
                  "CUSOLVER_STATUS_INTERNAL_ERROR, as ferry does");
    return CUSOLVER_STATUS_INTERNAL_ERROR;
  }
  Kind A = kindOf(TA), W = kindOf(TW);
  if (A == Kind::Bad || kindOf(TC) != A || kindOf(TVL) != A || kindOf(TVR) != A ||
      (W != A && W != complexOf(A))) {
    logOnce(Name, "this combination of data types is not supported (CUSOLVER_STATUS_INVALID_VALUE)");
    return Invalid;
  }
  bool Right = Jobvr == CUSOLVER_EIG_MODE_VECTOR;
  if (N < 0 || Lda < std::max<int64_t>(1, N) || (Right && Ldvr < std::max<int64_t>(1, N)) || (Compute && N == 0)) {
    if (!Compute)
      return Invalid;
    logOnce(Name, "n <= 0, or lda / ldvr below n: CUSOLVER_STATUS_INTERNAL_ERROR, as NVIDIA's cuSOLVER answers");
    return CUSOLVER_STATUS_INTERNAL_ERROR;
  }
  if (N > INT_MAX || Lda > INT_MAX || Ldvr > INT_MAX) {
    logOnce(Name, "a size beyond 2^31-1 is not supported (CUSOLVER_STATUS_NOT_SUPPORTED)");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  *K = A;
  *ComplexW = !isComplex(A) && W != A;
  return Ok;
}

/// Runs ?geev for element type T in stream order: a copy of W's real
/// layout is made complex where the caller asked for a complex W.
template <typename T>
cusolverStatus_t run(DnHandle *H, char Jl, char Jr, int N, void *A, int Lda, void *W, bool ComplexW, void *Vl,
                     int Ldvl, void *Vr, int Ldvr, int *Info) {
  return enqueue(H, [=] {
    int Status = 0;
    if (N > 0) {
      T DummyL{}, DummyR{};
      T *L = Jl == 'V' ? static_cast<T *>(Vl) : &DummyL;
      T *R = Jr == 'V' ? static_cast<T *>(Vr) : &DummyR;
      if constexpr (IsComplex<T>) {
        lapack::geev<T>(Jl, Jr, N, static_cast<T *>(A), Lda, static_cast<T *>(W), L, Ldvl, R, Ldvr,
                        &Status);
      } else if (ComplexW) {
        std::vector<T> Parts(2 * N);
        lapack::geev<T>(Jl, Jr, N, static_cast<T *>(A), Lda, Parts.data(), L, Ldvl, R, Ldvr,
                        &Status);
        auto *Out = static_cast<std::complex<T> *>(W);
        for (int I = 0; I < N; ++I)
          Out[I] = {Parts[I], Parts[N + I]};
      } else {
        lapack::geev<T>(Jl, Jr, N, static_cast<T *>(A), Lda, static_cast<T *>(W), L, Ldvl, R, Ldvr,
                        &Status);
      }
    }
    *Info = Status;
  });
}

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                            cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n,
                                            cudaDataType dataTypeA, const void *, int64_t lda,
                                            cudaDataType dataTypeW, const void *, cudaDataType dataTypeVL,
                                            const void *, int64_t ldvl, cudaDataType dataTypeVR, const void *,
                                            int64_t ldvr, cudaDataType computeType,
                                            size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost) {
  Kind K;
  bool ComplexW;
  cusolverStatus_t St = check("cusolverDnXgeev_bufferSize", false, handle, params, jobvl, jobvr, n, dataTypeA, lda,
                              dataTypeW, dataTypeVL, dataTypeVR, ldvr, computeType, &K, &ComplexW);
  if (St != Ok)
    return St;
  if (!workspaceInBytesOnDevice || !workspaceInBytesOnHost)
    return Invalid;
  // LAPACK's scratch is ferry's own host memory: a small device buffer
  // (so the caller's allocation is a real one) and no host buffer.
  *workspaceInBytesOnDevice = 16 * std::max<int64_t>(1, n);
  *workspaceInBytesOnHost = 0;
  return Ok;
}

cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
                                 cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                 cudaDataType dataTypeW, void *W, cudaDataType dataTypeVL, void *VL, int64_t ldvl,
                                 cudaDataType dataTypeVR, void *VR, int64_t ldvr, cudaDataType computeType, void *,
                                 size_t, void *, size_t, int *info) {
  Kind K;
  bool ComplexW;
  cusolverStatus_t St = check("cusolverDnXgeev", true, handle, params, jobvl, jobvr, n, dataTypeA, lda, dataTypeW,
                              dataTypeVL, dataTypeVR, ldvr, computeType, &K, &ComplexW);
  if (St != Ok)
    return St;
  if (!info)
    return Invalid;
  DnHandle *H = lookup(handle);
  char Jl = 'N', Jr = jobvr == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';
  int N = n, La = lda, Ll = std::max<int64_t>(1, std::min<int64_t>(ldvl, INT_MAX)), Lr = Jr == 'V' ? ldvr : 1;
  switch (K) {
  case Kind::S:
    return run<float>(H, Jl, Jr, N, A, La, W, ComplexW, VL, Ll, VR, Lr, info);
  case Kind::D:
    return run<double>(H, Jl, Jr, N, A, La, W, ComplexW, VL, Ll, VR, Lr, info);
  case Kind::C:
    return run<C32>(H, Jl, Jr, N, A, La, W, false, VL, Ll, VR, Lr, info);
  case Kind::Z:
    return run<C64>(H, Jl, Jr, N, A, La, W, false, VL, Ll, VR, Lr, info);
  default:
    return Invalid;
  }
}
