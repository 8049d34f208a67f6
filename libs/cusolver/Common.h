/// \file
/// What ferry's cuSOLVER shares: the dense handle and parameters, logging,
/// stream-ordered host work, and LAPACK (OpenBLAS's, from Debian) by
/// element type. Dense work reads and writes device memory from the host
/// (the host backend's device memory is host memory in this address
/// space), in stream order: every call checks its arguments on the calling
/// thread (a bad one returns its status at once, nothing enqueued), then
/// enqueues the computation on the handle's stream with cuLaunchHostFunc.
#pragma once

#include "ferry/generated/CusolverApi.h"
#include "libs/common/HostTask.h"

#include <complex>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <utility>

/// cuSOLVER's options of the 64-bit API (cusolverDnCreateParams).
struct cusolverDnParams {
  static constexpr uint64_t Live = 0x6665727279505253ull; // "ferryPRS"
  uint64_t Magic = Live;
  cusolverAlgMode_t Algo[3] = {CUSOLVER_ALG_0, CUSOLVER_ALG_0, CUSOLVER_ALG_0};
};

namespace ferry::cusolver {

using C32 = std::complex<float>;
using C64 = std::complex<double>;

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// Logs "NAME: WHAT" once per distinct NAME (a refusal, not implemented).
void logOnce(const char *Name, const char *What);

struct RocSolverState; // RocSolver.cpp

struct DnHandle {
  static constexpr uint64_t Live = 0x6665727279534f4cull; // "ferrySOL"
  uint64_t Magic = Live;
  cudaStream_t Stream = nullptr;
  cusolverDeterministicMode_t Deterministic = CUSOLVER_DETERMINISTIC_RESULTS;
  cusolverMathMode_t Math = CUSOLVER_DEFAULT_MATH;
  libs::TaskKeeper Kept;
  /// rocSOLVER's rocBLAS handle and HIP stream once a call was forwarded
  /// (RocSolver.h).
  std::shared_ptr<RocSolverState> Roc;
};

/// Sets devInfo to Value through HIP in stream order, for a handle whose
/// device memory the host cannot reach (RocSolver.cpp); false when HIP or
/// rocSOLVER is missing.
bool rocSetInfo(DnHandle *H, int *Info, int Value);

/// The live handle behind H, or null.
DnHandle *lookup(cusolverDnHandle_t H);

/// Runs Work in order on Stream; the status the call returns.
cusolverStatus_t enqueue(cudaStream_t Stream, libs::TaskKeeper &Keeper, std::function<void()> Work);

inline cusolverStatus_t enqueue(DnHandle *H, std::function<void()> Work) {
  return enqueue(H->Stream, H->Kept, std::move(Work));
}

/// Waits for Stream (sparse solvers that return host results).
cusolverStatus_t synchronize(cudaStream_t Stream);

/// The first bad argument's position (1-based, the handle not counted, as
/// cuSOLVER numbers them in devInfo), or 0.
inline int firstBad(std::initializer_list<std::pair<bool, int>> Checks) {
  for (auto [Bad, Index] : Checks)
    if (Bad)
      return Index;
  return 0;
}

/// A rejected call as NVIDIA's cuSOLVER answers it (measured on the H100,
/// tests/cusolver/goldens): devInfo (when given) set to Value in stream
/// order, and the status St.
/// Where the host cannot reach the device's memory, HIP writes it
/// (rocSetInfo; without ROCm devInfo stays unwritten and a line says so).
inline cusolverStatus_t reject(DnHandle *H, int *Info, int Value,
                               cusolverStatus_t St = CUSOLVER_STATUS_INVALID_VALUE) {
  if (Info && (H->Kept.hostReachesDeviceMemory() || !rocSetInfo(H, Info, Value)))
    enqueue(H, [=] { *Info = Value; });
  return St;
}

inline bool validFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_LOWER || U == CUBLAS_FILL_MODE_UPPER; }
inline char fillChar(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_LOWER ? 'L' : 'U'; }

/// The element types of the 64-bit API's cudaDataType arguments.
enum class Kind { Bad, S, D, C, Z };
inline Kind kindOf(cudaDataType T) {
  switch (T) {
  case CUDA_R_32F:
    return Kind::S;
  case CUDA_R_64F:
    return Kind::D;
  case CUDA_C_32F:
    return Kind::C;
  case CUDA_C_64F:
    return Kind::Z;
  default:
    return Kind::Bad;
  }
}

template <typename T> struct RealOf { using Type = T; };
template <> struct RealOf<C32> { using Type = float; };
template <> struct RealOf<C64> { using Type = double; };
template <typename T> using Real = typename RealOf<T>::Type;
template <typename T> constexpr bool IsComplex = !std::is_same<T, Real<T>>::value;

// LAPACK by element type (OpenBLAS, LP64 integers): one template an
// operation, over each type's entry points (Common.cpp), instantiated for
// float, double, C32 and C64. ormqr/orgqr are unmqr/ungqr for the complex
// types, syevd heevd. Fortran character arguments pass their hidden
// lengths.
namespace lapack {
template <typename T> void getrf(int M, int N, T *A, int Lda, int *Piv, int *Info);
template <typename T>
void getrs(char Trans, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info);
template <typename T> void potrf(char Uplo, int N, T *A, int Lda, int *Info);
template <typename T> void potrs(char Uplo, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb, int *Info);
template <typename T> void potri(char Uplo, int N, T *A, int Lda, int *Info);
template <typename T> void geqrf(int M, int N, T *A, int Lda, T *Tau, int *Info);
template <typename T>
void ormqr(char Side, char Trans, int M, int N, int K, const T *A, int Lda, const T *Tau, T *C, int Ldc, int *Info);
template <typename T> void orgqr(int M, int N, int K, T *A, int Lda, const T *Tau, int *Info);
template <typename T>
void gesvd(char Jobu, char Jobvt, int M, int N, T *A, int Lda, Real<T> *S, T *U, int Ldu, T *Vt, int Ldvt, int *Info);
template <typename T> void syevd(char Jobz, char Uplo, int N, T *A, int Lda, Real<T> *W, int *Info);
/// W: n eigenvalues (complex T), or WR then WI (2 n, real T).
template <typename T>
void geev(char Jobvl, char Jobvr, int N, T *A, int Lda, T *W, T *Vl, int Ldvl, T *Vr, int Ldvr,
          int *Info);
template <typename T> void sytrf(char Uplo, int N, T *A, int Lda, int *Piv, int *Info);
template <typename T> void trtri(char Uplo, char Diag, int N, T *A, int Lda, int *Info);
template <typename T>
void trtrs(char Uplo, char Trans, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb, int *Info);
template <typename T>
void sytrs(char Uplo, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info);
} // namespace lapack

/// LU without pivoting (LAPACK has none): A = L U in place, Info the first
/// zero pivot (1-based) as getrf reports it, the factorization going on.
template <typename T> void luNoPivot(int M, int N, T *A, int Lda, int *Info);

} // namespace ferry::cusolver
