/// \file
/// ferry's cuSOLVER: logging, the dense handle and its parameters, stream
/// order, LAPACK bindings (libs/cusolver/Common.h), versions.
#include "libs/cusolver/Common.h"
#include "libs/common/Driver.h"

#include <cstdarg>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace ferry::cusolver {

void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  libs::vlogMessage("cusolver", Fmt, Ap);
  va_end(Ap);
}

void logOnce(const char *Name, const char *What) {
  static std::mutex Lock;
  static auto *Seen = new std::set<std::string>; // never destroyed: atexit order
  std::lock_guard<std::mutex> G(Lock);
  if (Seen->insert(std::string(Name) + ": " + What).second)
    logMessage("%s: %s", Name, What);
}

DnHandle *lookup(cusolverDnHandle_t H) {
  auto *P = reinterpret_cast<DnHandle *>(H);
  return P && P->Magic == DnHandle::Live ? P : nullptr;
}

cusolverStatus_t enqueue(cudaStream_t Stream, libs::TaskKeeper &Keeper, std::function<void()> Work) {
  switch (libs::enqueueHostTask("cusolver", reinterpret_cast<CUstream>(Stream), Keeper, std::move(Work))) {
  case libs::EnqueueResult::Ok:
    return CUSOLVER_STATUS_SUCCESS;
  case libs::EnqueueResult::NoDriver:
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  case libs::EnqueueResult::NoMemory:
    return CUSOLVER_STATUS_ALLOC_FAILED;
  case libs::EnqueueResult::LaunchFailed:
    break;
  case libs::EnqueueResult::NoHostAccess:
    libs::logNoHostAccess("cusolver", "CUSOLVER_STATUS_NOT_SUPPORTED");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  return CUSOLVER_STATUS_EXECUTION_FAILED;
}

cusolverStatus_t synchronize(cudaStream_t Stream) {
  const libs::DriverTable *D = libs::driver();
  if (!D)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  return D->StreamSynchronize(reinterpret_cast<CUstream>(Stream)) == CUDA_SUCCESS ? CUSOLVER_STATUS_SUCCESS
                                                                                   : CUSOLVER_STATUS_EXECUTION_FAILED;
}

} // namespace ferry::cusolver

using ferry::cusolver::C32;
using ferry::cusolver::C64;

extern "C" {
#define FERRY_LAPACK_PROTOS(P, T, R)                                                                                   \
  void P##getrf_(const int *, const int *, T *, const int *, int *, int *);                                           \
  void P##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, int *, \
                 size_t);                                                                                              \
  void P##potrf_(const char *, const int *, T *, const int *, int *, size_t);                                          \
  void P##potrs_(const char *, const int *, const int *, const T *, const int *, T *, const int *, int *, size_t);     \
  void P##potri_(const char *, const int *, T *, const int *, int *, size_t);                                          \
  void P##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);                            \
  void P##sytrf_(const char *, const int *, T *, const int *, int *, T *, const int *, int *, size_t);                 \
  void P##trtri_(const char *, const char *, const int *, T *, const int *, int *, size_t, size_t);                    \
  void P##trtrs_(const char *, const char *, const char *, const int *, const int *, const T *, const int *, T *,     \
                 const int *, int *, size_t, size_t, size_t);                                                 \
  void P##sytrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, int *, \
                 size_t);
FERRY_LAPACK_PROTOS(s, float, float)
FERRY_LAPACK_PROTOS(d, double, double)
FERRY_LAPACK_PROTOS(c, C32, float)
FERRY_LAPACK_PROTOS(z, C64, double)
#undef FERRY_LAPACK_PROTOS
#define FERRY_LAPACK_REAL(P, T)                                                                    \
  void P##ormqr_(const char *, const char *, const int *, const int *, const int *, const T *,     \
                 const int *, const T *, T *, const int *, T *, const int *, int *, size_t,        \
                 size_t);                                                                          \
  void P##orgqr_(const int *, const int *, const int *, T *, const int *, const T *, T *,          \
                 const int *, int *);                                                              \
  void P##gesvd_(const char *, const char *, const int *, const int *, T *, const int *, T *, T *, \
                 const int *, T *, const int *, T *, const int *, int *, size_t, size_t);          \
  void P##syevd_(const char *, const char *, const int *, T *, const int *, T *, T *, const int *, \
                 int *, const int *, int *, size_t, size_t);                                       \
  void P##geev_(const char *, const char *, const int *, T *, const int *, T *, T *, T *,          \
                const int *, T *, const int *, T *, const int *, int *, size_t, size_t);
FERRY_LAPACK_REAL(s, float)
FERRY_LAPACK_REAL(d, double)
#undef FERRY_LAPACK_REAL
#define FERRY_LAPACK_COMPLEX(P, T, R)                                                              \
  void P##unmqr_(const char *, const char *, const int *, const int *, const int *, const T *,     \
                 const int *, const T *, T *, const int *, T *, const int *, int *, size_t,        \
                 size_t);                                                                          \
  void P##ungqr_(const int *, const int *, const int *, T *, const int *, const T *, T *,          \
                 const int *, int *);                                                              \
  void P##gesvd_(const char *, const char *, const int *, const int *, T *, const int *, R *, T *, \
                 const int *, T *, const int *, T *, const int *, R *, int *, size_t, size_t);     \
  void P##heevd_(const char *, const char *, const int *, T *, const int *, R *, T *, const int *, \
                 R *, const int *, int *, const int *, int *, size_t, size_t);                     \
  void P##geev_(const char *, const char *, const int *, T *, const int *, T *, T *, const int *,  \
                T *, const int *, T *, const int *, R *, int *, size_t, size_t);
FERRY_LAPACK_COMPLEX(c, C32, float)
FERRY_LAPACK_COMPLEX(z, C64, double)
#undef FERRY_LAPACK_COMPLEX
}

namespace ferry::cusolver::lapack {

namespace {

/// Each element type's LAPACK entry points, so that each operation below
/// is written once for the four types.
template <typename T> struct Entry;
#define FERRY_LAPACK_ENTRIES(P, T, Mqr, Gqr, Evd)                                                  \
  template <> struct Entry<T> {                                                                    \
    static constexpr auto getrf = P##getrf_;                                                       \
    static constexpr auto getrs = P##getrs_;                                                       \
    static constexpr auto potrf = P##potrf_;                                                       \
    static constexpr auto potrs = P##potrs_;                                                       \
    static constexpr auto potri = P##potri_;                                                       \
    static constexpr auto geqrf = P##geqrf_;                                                       \
    static constexpr auto sytrf = P##sytrf_;                                                       \
    static constexpr auto trtri = P##trtri_;                                                       \
    static constexpr auto trtrs = P##trtrs_;                                                       \
    static constexpr auto sytrs = P##sytrs_;                                                       \
    static constexpr auto ormqr = P##Mqr##_;                                                       \
    static constexpr auto orgqr = P##Gqr##_;                                                       \
    static constexpr auto gesvd = P##gesvd_;                                                       \
    static constexpr auto syevd = P##Evd##_;                                                       \
    static constexpr auto geev = P##geev_;                                                         \
  };
FERRY_LAPACK_ENTRIES(s, float, ormqr, orgqr, syevd)
FERRY_LAPACK_ENTRIES(d, double, ormqr, orgqr, syevd)
FERRY_LAPACK_ENTRIES(c, C32, unmqr, ungqr, heevd)
FERRY_LAPACK_ENTRIES(z, C64, unmqr, ungqr, heevd)
#undef FERRY_LAPACK_ENTRIES

/// A workspace size LAPACK reported through a query (lwork = -1).
template <typename T> int querySize(T W) { return std::max(1, static_cast<int>(std::real(W))); }

/// Call(Work, &Lwork) as a workspace query (Lwork -1), then again with a
/// workspace of the size the query reported.
template <typename T, typename F> void withWorkspace(F Call) {
  T Q{};
  int L = -1;
  Call(&Q, &L);
  L = querySize(Q);
  std::vector<T> W(L);
  Call(W.data(), &L);
}

} // namespace

template <typename T> void getrf(int M, int N, T *A, int Lda, int *Piv, int *Info) {
  Entry<T>::getrf(&M, &N, A, &Lda, Piv, Info);
}

template <typename T>
void getrs(char Trans, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info) {
  Entry<T>::getrs(&Trans, &N, &Nrhs, A, &Lda, Piv, B, &Ldb, Info, 1);
}

template <typename T> void potrf(char Uplo, int N, T *A, int Lda, int *Info) {
  Entry<T>::potrf(&Uplo, &N, A, &Lda, Info, 1);
}

template <typename T> void potrs(char Uplo, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb, int *Info) {
  Entry<T>::potrs(&Uplo, &N, &Nrhs, A, &Lda, B, &Ldb, Info, 1);
}

template <typename T> void potri(char Uplo, int N, T *A, int Lda, int *Info) {
  Entry<T>::potri(&Uplo, &N, A, &Lda, Info, 1);
}

template <typename T> void geqrf(int M, int N, T *A, int Lda, T *Tau, int *Info) {
  withWorkspace<T>([&](T *W, int *L) { Entry<T>::geqrf(&M, &N, A, &Lda, Tau, W, L, Info); });
}

template <typename T> void sytrf(char Uplo, int N, T *A, int Lda, int *Piv, int *Info) {
  withWorkspace<T>([&](T *W, int *L) { Entry<T>::sytrf(&Uplo, &N, A, &Lda, Piv, W, L, Info, 1); });
}

template <typename T> void trtri(char Uplo, char Diag, int N, T *A, int Lda, int *Info) {
  Entry<T>::trtri(&Uplo, &Diag, &N, A, &Lda, Info, 1, 1);
}

template <typename T>
void trtrs(char Uplo, char Trans, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb, int *Info) {
  char Diag = 'N';
  Entry<T>::trtrs(&Uplo, &Trans, &Diag, &N, &Nrhs, A, &Lda, B, &Ldb, Info, 1, 1, 1);
}

template <typename T>
void sytrs(char Uplo, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info) {
  Entry<T>::sytrs(&Uplo, &N, &Nrhs, A, &Lda, Piv, B, &Ldb, Info, 1);
}

template <typename T>
void ormqr(char Side, char Trans, int M, int N, int K, const T *A, int Lda, const T *Tau, T *C, int Ldc, int *Info) {
  withWorkspace<T>(
      [&](T *W, int *L) { Entry<T>::ormqr(&Side, &Trans, &M, &N, &K, A, &Lda, Tau, C, &Ldc, W, L, Info, 1, 1); });
}

template <typename T> void orgqr(int M, int N, int K, T *A, int Lda, const T *Tau, int *Info) {
  withWorkspace<T>([&](T *W, int *L) { Entry<T>::orgqr(&M, &N, &K, A, &Lda, Tau, W, L, Info); });
}

/// The complex gesvd takes a real workspace of 5 min(m, n) too.
template <typename T>
void gesvd(char Jobu, char Jobvt, int M, int N, T *A, int Lda, Real<T> *S, T *U, int Ldu, T *Vt, int Ldvt, int *Info) {
  std::vector<Real<T>> RW(IsComplex<T> ? 5 * std::max(1, std::min(M, N)) : 0);
  withWorkspace<T>([&](T *W, int *L) {
    if constexpr (IsComplex<T>)
      Entry<T>::gesvd(&Jobu, &Jobvt, &M, &N, A, &Lda, S, U, &Ldu, Vt, &Ldvt, W, L, RW.data(), Info, 1, 1);
    else
      Entry<T>::gesvd(&Jobu, &Jobvt, &M, &N, A, &Lda, S, U, &Ldu, Vt, &Ldvt, W, L, Info, 1, 1);
  });
}

/// syevd (heevd: with a real workspace too) queries its workspaces
/// together, then runs with them.
template <typename T> void syevd(char Jobz, char Uplo, int N, T *A, int Lda, Real<T> *W, int *Info) {
  using R = Real<T>;
  int L = -1, LR = -1, LI = -1;
  auto Call = [&](T *Work, R *RWork, int *IWork) {
    if constexpr (IsComplex<T>)
      Entry<T>::syevd(&Jobz, &Uplo, &N, A, &Lda, W, Work, &L, RWork, &LR, IWork, &LI, Info, 1, 1);
    else
      Entry<T>::syevd(&Jobz, &Uplo, &N, A, &Lda, W, Work, &L, IWork, &LI, Info, 1, 1);
  };
  T Q{};
  R RQ{};
  int IQ = 0;
  Call(&Q, &RQ, &IQ);
  L = querySize(Q);
  LR = querySize(RQ);
  LI = std::max(1, IQ);
  std::vector<T> Work(L);
  std::vector<R> RWork(IsComplex<T> ? LR : 0);
  std::vector<int> IWork(LI);
  Call(Work.data(), RWork.data(), IWork.data());
}

/// geev: a real type's WR and WI are W and W + N; the complex one takes a
/// real workspace of 2 N too.
template <typename T>
void geev(char Jobvl, char Jobvr, int N, T *A, int Lda, T *W, T *Vl, int Ldvl, T *Vr, int Ldvr,
          int *Info) {
  std::vector<Real<T>> RW(IsComplex<T> ? 2 * std::max(1, N) : 0);
  withWorkspace<T>([&](T *Work, int *L) {
    if constexpr (IsComplex<T>)
      Entry<T>::geev(&Jobvl, &Jobvr, &N, A, &Lda, W, Vl, &Ldvl, Vr, &Ldvr, Work, L, RW.data(), Info,
                     1, 1);
    else
      Entry<T>::geev(&Jobvl, &Jobvr, &N, A, &Lda, W, W + N, Vl, &Ldvl, Vr, &Ldvr, Work, L, Info, 1,
                     1);
  });
}

#define FERRY_LAPACK_INSTANCES(T)                                                                  \
  template decltype(getrf<T>) getrf<T>;                                                            \
  template decltype(getrs<T>) getrs<T>;                                                            \
  template decltype(potrf<T>) potrf<T>;                                                            \
  template decltype(potrs<T>) potrs<T>;                                                            \
  template decltype(potri<T>) potri<T>;                                                            \
  template decltype(geqrf<T>) geqrf<T>;                                                            \
  template decltype(sytrf<T>) sytrf<T>;                                                            \
  template decltype(trtri<T>) trtri<T>;                                                            \
  template decltype(trtrs<T>) trtrs<T>;                                                            \
  template decltype(sytrs<T>) sytrs<T>;                                                            \
  template decltype(ormqr<T>) ormqr<T>;                                                            \
  template decltype(orgqr<T>) orgqr<T>;                                                            \
  template decltype(gesvd<T>) gesvd<T>;                                                            \
  template decltype(syevd<T>) syevd<T>;                                                            \
  template decltype(geev<T>) geev<T>;
FERRY_LAPACK_INSTANCES(float)
FERRY_LAPACK_INSTANCES(double)
FERRY_LAPACK_INSTANCES(C32)
FERRY_LAPACK_INSTANCES(C64)
#undef FERRY_LAPACK_INSTANCES

} // namespace ferry::cusolver::lapack

namespace ferry::cusolver {

template <typename T> void luNoPivot(int M, int N, T *A, int Lda, int *Info) {
  *Info = 0;
  int K = std::min(M, N);
  for (int J = 0; J < K; ++J) {
    T Pivot = A[J + (size_t)J * Lda];
    if (Pivot == T(0)) {
      if (!*Info)
        *Info = J + 1;
      continue; // as getrf: the column is left unscaled, the update goes on
    }
    T Inv = T(1) / Pivot;
    for (int I = J + 1; I < M; ++I)
      A[I + (size_t)J * Lda] *= Inv;
    for (int C = J + 1; C < N; ++C) {
      T U = A[J + (size_t)C * Lda];
      if (U == T(0))
        continue;
      T *Col = A + (size_t)C * Lda;
      const T *L = A + (size_t)J * Lda;
      for (int I = J + 1; I < M; ++I)
        Col[I] -= L[I] * U;
    }
  }
}
template void luNoPivot(int, int, float *, int, int *);
template void luNoPivot(int, int, double *, int, int *);
template void luNoPivot(int, int, C32 *, int, int *);
template void luNoPivot(int, int, C64 *, int, int *);

} // namespace ferry::cusolver

using namespace ferry::cusolver;

extern "C" void ferryCusolverNotImplemented(const char *Name) { logOnce(Name, "not implemented (CUSOLVER_STATUS_NOT_SUPPORTED)"); }

cusolverStatus_t cusolverGetProperty(libraryPropertyType Type, int *Value) {
  if (!Value)
    return CUSOLVER_STATUS_INVALID_VALUE;
  switch (Type) {
  case MAJOR_VERSION:
    *Value = CUSOLVER_VER_MAJOR;
    return CUSOLVER_STATUS_SUCCESS;
  case MINOR_VERSION:
    *Value = CUSOLVER_VER_MINOR;
    return CUSOLVER_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *Value = CUSOLVER_VER_PATCH;
    return CUSOLVER_STATUS_SUCCESS;
  }
  return CUSOLVER_STATUS_INVALID_VALUE;
}

cusolverStatus_t cusolverGetVersion(int *Version) {
  if (!Version)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Version = CUSOLVER_VERSION;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *Handle) {
  if (!Handle)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!ferry::libs::ensureContext())
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  auto *H = new (std::nothrow) DnHandle;
  if (!H)
    return CUSOLVER_STATUS_ALLOC_FAILED;
  *Handle = reinterpret_cast<cusolverDnHandle_t>(H);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t Handle) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Kept.empty())
    synchronize(H->Stream); // captured work may still run
  H->Magic = 0;
  delete H;
  return CUSOLVER_STATUS_SUCCESS;
}

namespace {

/// A handle setting's setter: NOT_INITIALIZED for a bad handle,
/// INVALID_VALUE for a value not Valid.
template <typename V> cusolverStatus_t setField(cusolverDnHandle_t Handle, V DnHandle::*Field, V Value, bool Valid) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Valid)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->*Field = Value;
  return CUSOLVER_STATUS_SUCCESS;
}

/// Its getter: NOT_INITIALIZED for a bad handle, INVALID_VALUE for a null
/// output.
template <typename V> cusolverStatus_t getField(cusolverDnHandle_t Handle, V DnHandle::*Field, V *Out) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = H->*Field;
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t Handle, cudaStream_t Stream) {
  return setField(Handle, &DnHandle::Stream, Stream, true);
}

cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t Handle, cudaStream_t *Stream) {
  return getField(Handle, &DnHandle::Stream, Stream);
}

// ferry's results are deterministic either way.
cusolverStatus_t cusolverDnSetDeterministicMode(cusolverDnHandle_t Handle, cusolverDeterministicMode_t Mode) {
  return setField(Handle, &DnHandle::Deterministic, Mode,
                  Mode == CUSOLVER_DETERMINISTIC_RESULTS || Mode == CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS);
}

cusolverStatus_t cusolverDnGetDeterministicMode(cusolverDnHandle_t Handle, cusolverDeterministicMode_t *Mode) {
  return getField(Handle, &DnHandle::Deterministic, Mode);
}

// ferry computes FP32 in FP32 either way (exactly what emulation approximates).
cusolverStatus_t cusolverDnSetMathMode(cusolverDnHandle_t Handle, cusolverMathMode_t Mode) {
  return setField(Handle, &DnHandle::Math, Mode,
                  Mode == CUSOLVER_DEFAULT_MATH || Mode == CUSOLVER_FP32_EMULATED_BF16X9_MATH);
}

cusolverStatus_t cusolverDnGetMathMode(cusolverDnHandle_t Handle, cusolverMathMode_t *Mode) {
  return getField(Handle, &DnHandle::Math, Mode);
}
