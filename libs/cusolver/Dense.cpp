/// \file
/// cusolverDn over LAPACK: LU (getrf with and without pivoting, getrs),
/// Cholesky (potrf, potrs, potri and their batched forms), QR (geqrf,
/// ormqr/unmqr, orgqr/ungqr), SVD (gesvd), symmetric/Hermitian eigensolvers
/// (syevd/heevd; syevj computed by the same divide and conquer), and the
/// Bunch-Kaufman factorization (sytrf), in S/D/C/Z, plus the 64-bit generic
/// API (cusolverDnX*) over the same code.
///
/// Each call checks its arguments at once (INVALID_VALUE, as LAPACK's
/// argument checks and cuSOLVER's documentation describe them), then
/// computes in stream order on the host; devInfo receives LAPACK's info,
/// which cuSOLVER documents to mean the same (0 success, i > 0 a zero pivot
/// U(i,i), a leading minor of order i not positive definite, or i
/// unconverged superdiagonals / off-diagonal elements). The workspaces the
/// caller allocates are not needed: LAPACK's scratch is host memory of
/// ours, so the buffer sizes reported are small.
#include "libs/cusolver/Common.h"
#include "libs/cusolver/RocSolver.h"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <new>
#include <vector>

namespace ferry::cusolver {
namespace {

constexpr cusolverStatus_t Ok = CUSOLVER_STATUS_SUCCESS;
constexpr cusolverStatus_t Invalid = CUSOLVER_STATUS_INVALID_VALUE;

bool fits(int64_t V) { return V >= INT_MIN && V <= INT_MAX; }

/// Sizes beyond LAPACK's 32-bit integers: refused with a log line.
cusolverStatus_t tooLarge(const char *Name) {
  logOnce(Name, "a size beyond 2^31-1 is not supported (CUSOLVER_STATUS_NOT_SUPPORTED)");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
}

bool validTrans(cublasOperation_t T) { return T == CUBLAS_OP_N || T == CUBLAS_OP_T || T == CUBLAS_OP_C; }
template <typename T> char transChar(cublasOperation_t Op) {
  if (Op == CUBLAS_OP_N)
    return 'N';
  if (Op == CUBLAS_OP_T)
    return 'T';
  return IsComplex<T> ? 'C' : 'T';
}

/// Pivots as 64-bit integers (the X API) from LAPACK's.
void widen(const int *P, int64_t *Q, int N) {
  for (int I = 0; I < N; ++I)
    Q[I] = P[I];
}

/// Runs Work(int *Status) in stream order; devInfo receives the status it
/// leaves (LAPACK's info; 0 where it computes nothing).
template <typename F> cusolverStatus_t enqueueInfo(DnHandle *H, int *Info, F Work) {
  return enqueue(H, [=] {
    int Status = 0;
    Work(&Status);
    *Info = Status;
  });
}

/// How most calls go, in this order (NVIDIA's rules, measured:
/// tests/cusolver/goldens): a bad handle is NOT_INITIALIZED; a missing
/// devInfo, or another pointer the call needs (Given false),
/// INVALID_VALUE; the first bad argument i (Bad, from firstBad)
/// INVALID_VALUE with devInfo -i in stream order; a size beyond LAPACK's
/// 32-bit integers NOT_SUPPORTED, logged under Name; then Work as
/// enqueueInfo runs it, or rocSOLVER runs Roc (when given) where the host
/// cannot reach the device's memory (RocSolver.h).
template <typename F>
cusolverStatus_t lapackCall(const char *Name, cusolverDnHandle_t Handle, int *Info, bool Given, int Bad,
                            std::initializer_list<int64_t> Sizes, F Work, const RocDense *Roc = nullptr) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || !Given)
    return Invalid;
  if (Bad)
    return reject(H, Info, -Bad);
  for (int64_t Size : Sizes)
    if (!fits(Size))
      return tooLarge(Name);
  if (Roc && !H->Kept.hostReachesDeviceMemory())
    return forwardDense(H, *Roc);
  return enqueueInfo(H, Info, Work);
}

/// Roc for lapackCall where rocSOLVER forwarding covers T, else null.
template <typename T> const RocDense *rocIf(const RocDense &D) { return RocForwards<T> ? &D : nullptr; }

// ---------------------------------------------------------------- LU

/// getrf. NVIDIA's answers a bad size with CUSOLVER_STATUS_SUCCESS and
/// devInfo 0 (the X form: -4 for a bad lda); ferry computes nothing then,
/// and logs it.
template <typename T>
cusolverStatus_t getrf(const char *Name, bool X, cusolverDnHandle_t Handle, int64_t M, int64_t N, T *A, int64_t Lda,
                       int *Ipiv, int64_t *Ipiv64, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info)
    return Invalid;
  if (int Bad = firstBad({{M < 0, 1}, {N < 0, 2}, {Lda < std::max<int64_t>(1, M), 4}})) {
    logOnce(Name, "a bad size or leading dimension: nothing computed (NVIDIA's cuSOLVER returns success here too)");
    return reject(H, Info, X && Bad == 4 ? -4 : 0, Ok);
  }
  if (!fits(M) || !fits(N) || !fits(Lda))
    return tooLarge(Name);
  int Mi = M, Ni = N, L = Lda;
  bool Pivot = Ipiv || Ipiv64;
  if (RocForwards<T> && !X && !H->Kept.hostReachesDeviceMemory()) {
    RocDense D = rocDense<T>(RocDense::Getrf);
    D.M = Mi, D.N = Ni, D.Lda = L, D.A = A, D.Ipiv = Ipiv, D.Info = Info;
    return forwardDense(H, D);
  }
  return enqueueInfo(H, Info, [=](int *Status) {
    if (!Mi || !Ni)
      return;
    if (!Pivot)
      return luNoPivot(Mi, Ni, A, L, Status);
    std::vector<int> P(std::min(Mi, Ni));
    lapack::getrf(Mi, Ni, A, L, P.data(), Status);
    if (Ipiv)
      std::copy(P.begin(), P.end(), Ipiv);
    else
      widen(P.data(), Ipiv64, P.size());
  });
}

/// getrf's buffer size: NVIDIA's answers success whatever the sizes.
template <typename T> cusolverStatus_t getrfBufferSize(cusolverDnHandle_t Handle, int M, int N, int Lda, int *Lwork) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Lwork)
    return Invalid;
  *Lwork = std::max(1, N);
  return Ok;
}

/// getrs: a bad argument gives INVALID_VALUE, devInfo untouched, as NVIDIA's.
template <typename T>
cusolverStatus_t getrs(const char *Name, bool X, cusolverDnHandle_t Handle, cublasOperation_t Trans, int64_t N,
                       int64_t Nrhs,
                       const T *A, int64_t Lda, const int *Ipiv, const int64_t *Ipiv64, T *B, int64_t Ldb, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info)
    return Invalid;
  if (firstBad({{!validTrans(Trans), 1},
                {N < 0, 2},
                {Nrhs < 0, 3},
                {Lda < std::max<int64_t>(1, N), 5},
                {Ldb < std::max<int64_t>(1, N), 8}}))
    return Invalid;
  if (!fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb))
    return tooLarge(Name);
  int Ni = N, R = Nrhs, La = Lda, Lb = Ldb;
  char Tc = transChar<T>(Trans);
  if (RocForwards<T> && Ipiv && !H->Kept.hostReachesDeviceMemory()) {
    RocDense D = rocDense<T>(RocDense::Getrs);
    D.Trans = Trans, D.N = Ni, D.Nrhs = R, D.A = const_cast<T *>(A), D.Lda = La, D.Ipiv = const_cast<int *>(Ipiv);
    D.B = B, D.Ldb = Lb, D.Info = Info;
    return forwardDense(H, D);
  }
  return enqueueInfo(H, Info, [=](int *Status) {
    if (!Ni || !R)
      return;
    // No pivots (getrf without pivoting): the identity permutation.
    std::vector<int> P(Ni);
    for (int I = 0; I < Ni; ++I)
      P[I] = Ipiv ? Ipiv[I] : Ipiv64 ? static_cast<int>(Ipiv64[I]) : I + 1;
    lapack::getrs(Tc, Ni, R, A, La, P.data(), B, Lb, Status);
  });
}

// ---------------------------------------------------------------- Cholesky

template <typename T>
cusolverStatus_t potrf(const char *Name, cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int64_t N, T *A, int64_t Lda,
                       int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1}, {N < 0, 2}, {Lda < std::max<int64_t>(1, N), 4}});
  int Ni = N, L = Lda;
  char U = fillChar(Uplo);
  RocDense D = rocDense<T>(RocDense::Potrf);
  D.Uplo = Uplo, D.N = Ni, D.A = A, D.Lda = L, D.Info = Info;
  return lapackCall(
      Name, Handle, Info, true, Bad, {N, Lda},
      [=](int *Status) {
        if (Ni)
          lapack::potrf(U, Ni, A, L, Status);
      },
      rocIf<T>(D));
}

template <typename T>
cusolverStatus_t potrs(const char *Name, cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int64_t N, int64_t Nrhs,
                       const T *A, int64_t Lda, T *B, int64_t Ldb, int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1},
                      {N < 0, 2},
                      {Nrhs < 0, 3},
                      {Lda < std::max<int64_t>(1, N), 5},
                      {Ldb < std::max<int64_t>(1, N), 7}});
  int Ni = N, R = Nrhs, La = Lda, Lb = Ldb;
  char U = fillChar(Uplo);
  RocDense D = rocDense<T>(RocDense::Potrs);
  D.Uplo = Uplo, D.N = Ni, D.Nrhs = R, D.A = const_cast<T *>(A), D.Lda = La, D.B = B, D.Ldb = Lb, D.Info = Info;
  return lapackCall(
      Name, Handle, Info, true, Bad, {N, Nrhs, Lda, Ldb},
      [=](int *Status) {
        if (Ni && R)
          lapack::potrs(U, Ni, R, A, La, B, Lb, Status);
      },
      rocIf<T>(D));
}

template <typename T>
cusolverStatus_t potri(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int N, T *A, int Lda, int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1}, {N < 0, 2}, {Lda < std::max(1, N), 4}});
  char U = fillChar(Uplo);
  return lapackCall(nullptr, Handle, Info, true, Bad, {}, [=](int *Status) {
    if (N)
      lapack::potri(U, N, A, Lda, Status);
  });
}

/// The batched forms report a bad argument as +i in the first info (a
/// negative batch count writes nothing), as NVIDIA's.
template <typename T>
cusolverStatus_t potrfBatched(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int N, T **As, int Lda, int *Infos,
                              int Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Batch < 0 || (Batch && (!As || !Infos)))
    return Invalid;
  if (int Bad = firstBad({{!validFill(Uplo), 1}, {N < 0, 2}, {Lda < std::max(1, N), 4}}))
    return reject(H, Batch ? Infos : nullptr, Bad);
  char U = fillChar(Uplo);
  return enqueue(H, [=] {
    for (int B = 0; B < Batch; ++B) {
      int Status = 0;
      if (N)
        lapack::potrf(U, N, As[B], Lda, &Status);
      Infos[B] = Status;
    }
  });
}

template <typename T>
cusolverStatus_t potrsBatched(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int N, int Nrhs, T **As, int Lda,
                              T **Bs, int Ldb, int *Info, int Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info)
    return Invalid;
  if (Batch < 0)
    return reject(H, Info, 9); // batchSize is the ninth argument
  if (Batch && (!As || !Bs))
    return Invalid;
  // cuSOLVER documents nrhs = 1 as the only supported value.
  if (int Bad = firstBad({{!validFill(Uplo), 1},
                          {N < 0, 2},
                          {Nrhs != 1, 3},
                          {Lda < std::max(1, N), 5},
                          {Ldb < std::max(1, N), 7}}))
    return reject(H, Info, Bad);
  char U = fillChar(Uplo);
  return enqueueInfo(H, Info, [=](int *Status) {
    for (int B = 0; B < Batch && !*Status; ++B)
      if (N)
        lapack::potrs(U, N, Nrhs, As[B], Lda, Bs[B], Ldb, Status);
  });
}

// ---------------------------------------------------------------- QR

template <typename T>
cusolverStatus_t geqrf(const char *Name, cusolverDnHandle_t Handle, int64_t M, int64_t N, T *A, int64_t Lda, T *Tau,
                       int *Info) {
  int Bad = firstBad({{M < 0, 1}, {N < 0, 2}, {Lda < std::max<int64_t>(1, M), 4}});
  int Mi = M, Ni = N, L = Lda;
  RocDense D = rocDense<T>(RocDense::Geqrf);
  D.M = Mi, D.N = Ni, D.A = A, D.Lda = L, D.Tau = Tau, D.Info = Info;
  return lapackCall(
      Name, Handle, Info, true, Bad, {M, N, Lda},
      [=](int *Status) {
        if (Mi && Ni)
          lapack::geqrf(Mi, Ni, A, L, Tau, Status);
      },
      rocIf<T>(D));
}

/// ormqr/unmqr's first bad argument (side 1, trans 2, m 3, n 4, k 5,
/// lda 7, ldc 10), or 0.
template <typename T>
int ormqrBad(cublasSideMode_t Side, cublasOperation_t Trans, int M, int N, int K, int Lda, int Ldc) {
  int Nq = Side == CUBLAS_SIDE_LEFT ? M : N;
  // ormqr takes N or T; unmqr N or C.
  return firstBad({{Side != CUBLAS_SIDE_LEFT && Side != CUBLAS_SIDE_RIGHT, 1},
                   {Trans != CUBLAS_OP_N && Trans != (IsComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T), 2},
                   {M < 0, 3},
                   {N < 0, 4},
                   {K < 0 || K > Nq, 5},
                   {Lda < std::max(1, Nq), 7},
                   {Ldc < std::max(1, M), 10}});
}

template <typename T>
cusolverStatus_t ormqr(cusolverDnHandle_t Handle, cublasSideMode_t Side, cublasOperation_t Trans, int M, int N, int K,
                       const T *A, int Lda, const T *Tau, T *C, int Ldc, int *Info) {
  int Bad = ormqrBad<T>(Side, Trans, M, N, K, Lda, Ldc);
  char S = Side == CUBLAS_SIDE_LEFT ? 'L' : 'R', Tc = transChar<T>(Trans);
  RocDense D = rocDense<T>(RocDense::Ormqr);
  D.Side = Side, D.Trans = Trans, D.M = M, D.N = N, D.K = K, D.A = const_cast<T *>(A), D.Lda = Lda;
  D.Tau = const_cast<T *>(Tau), D.B = C, D.Ldb = Ldc, D.Info = Info;
  return lapackCall(
      nullptr, Handle, Info, true, Bad, {},
      [=](int *Status) {
        if (M && N && K)
          lapack::ormqr(S, Tc, M, N, K, A, Lda, Tau, C, Ldc, Status);
      },
      rocIf<T>(D));
}

template <typename T>
cusolverStatus_t orgqr(cusolverDnHandle_t Handle, int M, int N, int K, T *A, int Lda, const T *Tau, int *Info) {
  int Bad = firstBad({{M < 0, 1}, {N < 0 || N > M, 2}, {K < 0 || K > N, 3}, {Lda < std::max(1, M), 5}});
  RocDense D = rocDense<T>(RocDense::Orgqr);
  D.M = M, D.N = N, D.K = K, D.A = A, D.Lda = Lda, D.Tau = const_cast<T *>(Tau), D.Info = Info;
  return lapackCall(
      nullptr, Handle, Info, true, Bad, {},
      [=](int *Status) {
        if (N)
          lapack::orgqr(M, N, K, A, Lda, Tau, Status);
      },
      rocIf<T>(D));
}

// ---------------------------------------------------------------- SVD, eigen

bool validJob(signed char J) { return J == 'A' || J == 'S' || J == 'O' || J == 'N'; }

/// gesvd: jobu 1, jobvt 2, m 3, n 4, lda 6, ldu 9, ldvt 11 as -i; m < n
/// (cuSOLVER's gesvd takes m >= n only) answers INVALID_VALUE with devInfo
/// 0, as NVIDIA's.
template <typename T>
cusolverStatus_t gesvd(const char *Name, cusolverDnHandle_t Handle, signed char Jobu, signed char Jobvt, int64_t M,
                       int64_t N, T *A, int64_t Lda, Real<T> *S, T *U, int64_t Ldu, T *Vt, int64_t Ldvt, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info)
    return Invalid;
  int64_t K = std::min(M, N);
  if (int Bad = firstBad({{!validJob(Jobu), 1}, {!validJob(Jobvt) || (Jobu == 'O' && Jobvt == 'O'), 2}}))
    return reject(H, Info, -Bad);
  if (M >= 0 && N >= 0 && M < N)
    return reject(H, Info, 0);
  int Bad = firstBad({{M < 0, 3},
                      {N < 0, 4},
                      {Lda < std::max<int64_t>(1, M), 6},
                      {(Jobu == 'A' || Jobu == 'S') && Ldu < std::max<int64_t>(1, M), 9},
                      {(Jobvt == 'A' && Ldvt < std::max<int64_t>(1, N)) ||
                           (Jobvt == 'S' && Ldvt < std::max<int64_t>(1, K)),
                       11}});
  int Mi = M, Ni = N, La = Lda, Lu = std::max<int64_t>(1, Ldu), Lv = std::max<int64_t>(1, Ldvt);
  char Ju = Jobu, Jv = Jobvt;
  return lapackCall(Name, Handle, Info, true, Bad, {M, N, Lda, Ldu, Ldvt}, [=](int *Status) {
    T DummyU{}, DummyV{};
    if (Mi && Ni)
      lapack::gesvd(Ju, Jv, Mi, Ni, A, La, S, U ? U : &DummyU, Lu, Vt ? Vt : &DummyV, Lv, Status);
  });
}

bool validMode(cusolverEigMode_t J) { return J == CUSOLVER_EIG_MODE_NOVECTOR || J == CUSOLVER_EIG_MODE_VECTOR; }

template <typename T>
cusolverStatus_t syevd(const char *Name, bool X, cusolverDnHandle_t Handle, cusolverEigMode_t Jobz,
                       cublasFillMode_t Uplo, int64_t N, T *A, int64_t Lda, Real<T> *W, int *Info) {
  // The X form counts params as the first argument (uplo -3, measured),
  // unlike Xgetrf/Xpotrf/Xgeqrf/Xgesvd, which number as the legacy calls.
  int Shift = X ? 1 : 0;
  int Bad = firstBad({{!validMode(Jobz), 1 + Shift},
                      {!validFill(Uplo), 2 + Shift},
                      {N < 0, 3 + Shift},
                      {Lda < std::max<int64_t>(1, N), X ? 7 : 5}});
  int Ni = N, L = Lda;
  char Jz = Jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
  return lapackCall(Name, Handle, Info, true, Bad, {N, Lda}, [=](int *Status) {
    if (Ni)
      lapack::syevd(Jz, U, Ni, A, L, W, Status);
  });
}

/// syevdx/heevdx: LAPACK's syevd of the whole matrix, then the selected
/// eigenvalues (all; those in (vl, vu]; or indices il..iu, 1-based) and
/// their eigenvectors moved to the front. meig is a host value: known at
/// once for ALL and I, and after the stream has run the work for V.
template <typename T>
cusolverStatus_t syevdx(cusolverDnHandle_t Handle, cusolverEigMode_t Jobz, cusolverEigRange_t Range,
                        cublasFillMode_t Uplo, int N, T *A, int Lda, Real<T> Vl, Real<T> Vu, int Il, int Iu, int *Meig,
                        Real<T> *W, int *Info) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Meig)
    return Invalid;
  bool ByValue = Range == CUSOLVER_EIG_RANGE_V, ByIndex = Range == CUSOLVER_EIG_RANGE_I;
  int Bad = firstBad({{!validMode(Jobz), 1},
                      {!ByValue && !ByIndex && Range != CUSOLVER_EIG_RANGE_ALL, 2},
                      {!validFill(Uplo), 3},
                      {N < 0, 4},
                      {Lda < std::max(1, N), 6},
                      {ByValue && !(Vl < Vu), 8},
                      {ByIndex && (Il < 1 || Il > std::max(1, N)), 9},
                      {ByIndex && (Iu < std::min(N, Il) || Iu > N), 10}});
  if (!Bad && !ByValue)
    *Meig = ByIndex ? Iu - Il + 1 : N;
  char Jz = Jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
  cusolverStatus_t St = lapackCall("cusolverDnsyevdx", Handle, Info, true, Bad, {N, Lda}, [=](int *Status) {
    if (!N) {
      if (ByValue)
        *Meig = 0;
      return;
    }
    std::vector<Real<T>> All(N);
    lapack::syevd(Jz, U, N, A, Lda, All.data(), Status);
    if (*Status)
      return;
    int First = 0, Count = N;
    if (ByIndex) {
      First = Il - 1;
      Count = Iu - Il + 1;
    } else if (ByValue) {
      First = static_cast<int>(std::upper_bound(All.begin(), All.end(), Vl) - All.begin());
      Count = static_cast<int>(std::upper_bound(All.begin(), All.end(), Vu) - All.begin()) - First;
      *Meig = Count;
    }
    for (int J = 0; J < Count; ++J) {
      W[J] = All[First + J];
      if (Jz == 'V' && First)
        for (int I = 0; I < N; ++I)
          A[I + static_cast<size_t>(J) * Lda] = A[I + static_cast<size_t>(First + J) * Lda];
    }
  });
  if (St == CUSOLVER_STATUS_SUCCESS && ByValue && !Bad)
    St = synchronize(H->Stream);
  return St;
}

template <typename T>
cusolverStatus_t sytrf(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int N, T *A, int Lda, int *Ipiv, int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1}, {N < 0, 2}, {Lda < std::max(1, N), 4}});
  char U = fillChar(Uplo);
  return lapackCall(nullptr, Handle, Info, N <= 0 || Ipiv, Bad, {}, [=](int *Status) {
    if (N)
      lapack::sytrf(U, N, A, Lda, Ipiv, Status);
  });
}

/// A legacy buffer-size answer (elements): the handle and the output
/// checked, and ArgsOk. NVIDIA's buffer-size calls check no size or leading
/// dimension (measured: tests/cusolver/CusolverGeev.cu — geqrf, potrf,
/// potri, orgqr, ormqr, syevd, sytrf, getrf and the X forms answer success
/// for a negative size or an lda below the minimum; CuPy's qr relies on it,
/// asking geqrf's size with lda = n < m); potrf's does check uplo.
cusolverStatus_t bufferAnswer(cusolverDnHandle_t Handle, bool ArgsOk, int *Lwork, int Value) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!ArgsOk || !Lwork)
    return Invalid;
  *Lwork = std::max(1, Value);
  return Ok;
}

template <typename T> T *cast(void *P) { return static_cast<T *>(P); }
template <typename T> const T *cast(const void *P) { return static_cast<const T *>(P); }
template <typename T> T **castArray(void *P) { return reinterpret_cast<T **>(P); }

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

// ---------------------------------------------------------------- exports

#define FERRY_DN_TYPED(P, CT, T, CR)                                                                                   \
  cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, CT *, int lda, int *lwork) {    \
    return getrfBufferSize<T>(h, m, n, lda, lwork);                                                                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, CT *A, int lda, CT *, int *ipiv,           \
                                        int *info) {                                                                   \
    return getrf<T>("cusolverDn" #P "getrf", false, h, m, n, cast<T>(A), lda, ipiv, nullptr, info);                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs, const CT *A,   \
                                        int lda, const int *ipiv, CT *B, int ldb, int *info) {                         \
    return getrs<T>("cusolverDn" #P "getrs", false, h, trans, n, nrhs, cast<T>(A), lda, ipiv, nullptr, cast<T>(B), ldb,       \
                    info);                                                                                             \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT *, int lda,  \
                                                   int *lwork) {                                                       \
    return bufferAnswer(h, validFill(uplo), lwork, n);                                                                 \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT *A, int lda, CT *, int, \
                                        int *info) {                                                                   \
    return potrf<T>("cusolverDn" #P "potrf", h, uplo, n, cast<T>(A), lda, info);                                       \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, const CT *A,     \
                                        int lda, CT *B, int ldb, int *info) {                                          \
    return potrs<T>("cusolverDn" #P "potrs", h, uplo, n, nrhs, cast<T>(A), lda, cast<T>(B), ldb, info);                \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT *, int lda,  \
                                                   int *lwork) {                                                       \
    return bufferAnswer(h, validFill(uplo), lwork, n);                                                                 \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potri(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT *A, int lda, CT *, int, \
                                        int *info) {                                                                   \
    return potri<T>(h, uplo, n, cast<T>(A), lda, info);                                                                \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT **As, int lda,   \
                                               int *infos, int batch) {                                                \
    return potrfBatched<T>(h, uplo, n, castArray<T>(As), lda, infos, batch);                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##potrsBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, CT **As,  \
                                               int lda, CT **Bs, int ldb, int *info, int batch) {                      \
    return potrsBatched<T>(h, uplo, n, nrhs, castArray<T>(As), lda, castArray<T>(Bs), ldb, info, batch);               \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, CT *, int lda, int *lwork) {    \
    return bufferAnswer(h, true, lwork, n);                                                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, CT *A, int lda, CT *tau, CT *, int,        \
                                        int *info) {                                                                   \
    return geqrf<T>("cusolverDn" #P "geqrf", h, m, n, cast<T>(A), lda, cast<T>(tau), info);                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lwork) {                   \
    return bufferAnswer(h, true, lwork, std::max(m, n)); /* NVIDIA's: success for any size */                                                   \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m, int n,       \
                                        CT *A, int lda, CR *S, CT *U, int ldu, CT *VT, int ldvt, CT *, int, CR *,      \
                                        int *info) {                                                                   \
    return gesvd<T>("cusolverDn" #P "gesvd", h, jobu, jobvt, m, n, cast<T>(A), lda, S, cast<T>(U), ldu, cast<T>(VT),   \
                    ldvt, info);                                                                                       \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##sytrf_bufferSize(cusolverDnHandle_t h, int n, CT *, int lda, int *lwork) {           \
    return bufferAnswer(h, true, lwork, n);                                                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##sytrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, CT *A, int lda, int *ipiv, \
                                        CT *, int, int *info) {                                                        \
    return sytrf<T>(h, uplo, n, cast<T>(A), lda, ipiv, info);                                                          \
  }

FERRY_DN_TYPED(S, float, float, float)
FERRY_DN_TYPED(D, double, double, double)
FERRY_DN_TYPED(C, cuComplex, C32, float)
FERRY_DN_TYPED(Z, cuDoubleComplex, C64, double)
#undef FERRY_DN_TYPED

// ormqr/orgqr (real) and unmqr/ungqr (complex), syevd/heevd.
#define FERRY_DN_QR(P, QN, GN, EN, CT, T, CR)                                                                          \
  cusolverStatus_t cusolverDn##P##QN##_bufferSize(cusolverDnHandle_t h, cublasSideMode_t side,                         \
                                                  cublasOperation_t trans, int m, int n, int k, const CT *, int lda,   \
                                                  const CT *, const CT *, int ldc, int *lwork) {                       \
    return bufferAnswer(h, true, lwork, std::max(m, n));                                                               \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##QN(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m,      \
                                     int n, int k, const CT *A, int lda, const CT *tau, CT *C, int ldc, CT *, int,     \
                                     int *info) {                                                                      \
    return ormqr<T>(h, side, trans, m, n, k, cast<T>(A), lda, cast<T>(tau), cast<T>(C), ldc, info);                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##GN##_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const CT *, int lda,      \
                                                  const CT *, int *lwork) {                                            \
    return bufferAnswer(h, true, lwork, n);                                                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##GN(cusolverDnHandle_t h, int m, int n, int k, CT *A, int lda, const CT *tau, CT *,   \
                                     int, int *info) {                                                                 \
    return orgqr<T>(h, m, n, k, cast<T>(A), lda, cast<T>(tau), info);                                                  \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EN##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, \
                                                  int n, const CT *, int lda, const CR *, int *lwork) {                \
    return bufferAnswer(h, true, lwork, n);                                                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EN(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,       \
                                     CT *A, int lda, CR *W, CT *, int, int *info) {                                    \
    return syevd<T>("cusolverDn" #P #EN, false, h, jobz, uplo, n, cast<T>(A), lda, W, info);                                  \
  }

FERRY_DN_QR(S, ormqr, orgqr, syevd, float, float, float)
FERRY_DN_QR(D, ormqr, orgqr, syevd, double, double, double)
FERRY_DN_QR(C, unmqr, ungqr, heevd, cuComplex, C32, float)
FERRY_DN_QR(Z, unmqr, ungqr, heevd, cuDoubleComplex, C64, double)
#undef FERRY_DN_QR

// ---------------------------------------------------------------- the 64-bit generic API

namespace {

/// Params may be null (cuSOLVER's default options).
bool validParams(cusolverDnParams_t P) { return !P || P->Magic == cusolverDnParams::Live; }

/// The real type of a complex one (S, W of the SVD and eigensolvers).
cudaDataType realOf(cudaDataType T) {
  return T == CUDA_C_32F ? CUDA_R_32F : T == CUDA_C_64F ? CUDA_R_64F : T;
}
size_t elementSize(Kind K) { return K == Kind::S ? 4 : K == Kind::D || K == Kind::C ? 8 : 16; }

/// The element type ferry computes in: every type the same (cuSOLVER's
/// mixed-precision computeTypes are not supported: logged).
Kind typeOf(const char *Name, cudaDataType A, cudaDataType Compute, std::initializer_list<cudaDataType> Others,
            cusolverStatus_t *Status) {
  Kind K = kindOf(A);
  bool Same = K != Kind::Bad && Compute == A;
  for (cudaDataType O : Others)
    Same = Same && O == A;
  if (K == Kind::Bad) {
    *Status = Invalid;
    return Kind::Bad;
  }
  if (!Same) {
    logOnce(Name, "mixed data/compute types are not supported (CUSOLVER_STATUS_NOT_SUPPORTED)");
    *Status = CUSOLVER_STATUS_NOT_SUPPORTED;
    return Kind::Bad;
  }
  *Status = Ok;
  return K;
}

/// The X API's buffer sizes: a small device buffer (so a program's
/// allocation of it is a real one), no host buffer.
cusolverStatus_t xBuffer(cusolverDnHandle_t Handle, cusolverDnParams_t Params, bool ArgsOk, Kind K, size_t *Dev,
                         size_t *Host, int64_t Elems) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validParams(Params) || !ArgsOk || !Dev || !Host)
    return Invalid;
  *Dev = elementSize(K) * std::max<int64_t>(1, Elems);
  *Host = 0;
  return Ok;
}

/// Call(T{}) for K's element type T.
template <typename F> cusolverStatus_t dispatch(Kind K, F Call) {
  switch (K) {
  case Kind::S:
    return Call(float{});
  case Kind::D:
    return Call(double{});
  case Kind::C:
    return Call(C32{});
  case Kind::Z:
    return Call(C64{});
  default:
    return Invalid;
  }
}

/// How the X API's calls go: the handle (NOT_INITIALIZED), the params
/// (INVALID_VALUE; null for the calls that take none), the data types (see
/// typeOf), then Call(T{}) for the element type T.
template <typename F>
cusolverStatus_t xCall(const char *Name, cusolverDnHandle_t Handle, cusolverDnParams_t Params, cudaDataType A,
                       cudaDataType Compute, std::initializer_list<cudaDataType> Others, F Call) {
  if (!lookup(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validParams(Params))
    return Invalid;
  cusolverStatus_t St;
  Kind K = typeOf(Name, A, Compute, Others, &St);
  if (K == Kind::Bad)
    return St;
  return dispatch(K, Call);
}

} // namespace

cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *Params) {
  if (!Params)
    return Invalid;
  *Params = new (std::nothrow) cusolverDnParams;
  return *Params ? Ok : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t Params) {
  if (!Params || Params->Magic != cusolverDnParams::Live)
    return Invalid;
  Params->Magic = 0;
  delete Params;
  return Ok;
}

cusolverStatus_t cusolverDnSetAdvOptions(cusolverDnParams_t Params, cusolverDnFunction_t Function,
                                         cusolverAlgMode_t Algo) {
  if (!Params || Params->Magic != cusolverDnParams::Live)
    return Invalid;
  if (Function < CUSOLVERDN_GETRF || Function > CUSOLVERDN_SYEVBATCHED || Algo < CUSOLVER_ALG_0 ||
      Algo > CUSOLVER_ALG_2)
    return Invalid;
  Params->Algo[Function] = Algo; // one algorithm here: kept, reported by nothing
  return Ok;
}

cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t, int64_t n,
                                             cudaDataType dataTypeA, const void *, int64_t, cudaDataType,
                                             size_t *dev, size_t *host) {
  // NVIDIA's answers success whatever the sizes and types (measured).
  Kind K = kindOf(dataTypeA);
  return xBuffer(h, params, true, K == Kind::Bad ? Kind::D : K, dev, host, n);
}

cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv, cudaDataType computeType,
                                  void *, size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXgetrf", h, params, dataTypeA, computeType, {}, [&](auto Elem) {
    using T = decltype(Elem);
    return getrf<T>("cusolverDnXgetrf", true, h, m, n, cast<T>(A), lda, nullptr, ipiv, info);
  });
}

cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t h, cusolverDnParams_t params, cublasOperation_t trans, int64_t n,
                                  int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda,
                                  const int64_t *ipiv, cudaDataType dataTypeB, void *B, int64_t ldb, int *info) {
  return xCall("cusolverDnXgetrs", h, params, dataTypeA, dataTypeA, {dataTypeB}, [&](auto Elem) {
    using T = decltype(Elem);
    return getrs<T>("cusolverDnXgetrs", true, h, trans, n, nrhs, cast<T>(A), lda, nullptr, ipiv, cast<T>(B), ldb, info);
  });
}

cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo,
                                             int64_t n, cudaDataType dataTypeA, const void *, int64_t lda,
                                             cudaDataType computeType, size_t *dev, size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXpotrf_bufferSize", dataTypeA, computeType, {}, &St);
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, validFill(uplo), K, dev, host, n);
}

cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType computeType, void *,
                                  size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXpotrf", h, params, dataTypeA, computeType, {}, [&](auto Elem) {
    using T = decltype(Elem);
    return potrf<T>("cusolverDnXpotrf", h, uplo, n, cast<T>(A), lda, info);
  });
}

cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
                                  int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda,
                                  cudaDataType dataTypeB, void *B, int64_t ldb, int *info) {
  return xCall("cusolverDnXpotrs", h, params, dataTypeA, dataTypeA, {dataTypeB}, [&](auto Elem) {
    using T = decltype(Elem);
    return potrs<T>("cusolverDnXpotrs", h, uplo, n, nrhs, cast<T>(A), lda, cast<T>(B), ldb, info);
  });
}

cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                             cudaDataType dataTypeA, const void *, int64_t lda,
                                             cudaDataType dataTypeTau, const void *, cudaDataType computeType,
                                             size_t *dev, size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXgeqrf_bufferSize", dataTypeA, computeType, {dataTypeTau}, &St);
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, true, K, dev, host, n);
}

cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeTau, void *tau,
                                  cudaDataType computeType, void *, size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXgeqrf", h, params, dataTypeA, computeType, {dataTypeTau}, [&](auto Elem) {
    using T = decltype(Elem);
    return geqrf<T>("cusolverDnXgeqrf", h, m, n, cast<T>(A), lda, cast<T>(tau), info);
  });
}

cusolverStatus_t cusolverDnXgesvd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu,
                                             signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA,
                                             const void *, int64_t lda, cudaDataType dataTypeS, const void *,
                                             cudaDataType dataTypeU, const void *, int64_t, cudaDataType dataTypeVT,
                                             const void *, int64_t, cudaDataType computeType, size_t *dev,
                                             size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXgesvd_bufferSize", dataTypeA, computeType, {dataTypeU, dataTypeVT}, &St);
  if (K != Kind::Bad && dataTypeS != realOf(dataTypeA))
    K = Kind::Bad, St = Invalid;
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, validJob(jobu) && validJob(jobvt), K, dev, host, m);
}

cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu,
                                  signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
                                  int64_t lda, cudaDataType dataTypeS, void *S, cudaDataType dataTypeU, void *U,
                                  int64_t ldu, cudaDataType dataTypeVT, void *VT, int64_t ldvt,
                                  cudaDataType computeType, void *, size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXgesvd", h, params, dataTypeA, computeType, {dataTypeU, dataTypeVT}, [&](auto Elem) {
    using T = decltype(Elem);
    if (dataTypeS != realOf(dataTypeA))
      return reject(lookup(h), info, 0);
    return gesvd<T>("cusolverDnXgesvd", h, jobu, jobvt, m, n, cast<T>(A), lda, cast<Real<T>>(S), cast<T>(U), ldu,
                    cast<T>(VT), ldvt, info);
  });
}

cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void *,
                                             int64_t lda, cudaDataType dataTypeW, const void *,
                                             cudaDataType computeType, size_t *dev, size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXsyevd_bufferSize", dataTypeA, computeType, {}, &St);
  if (K != Kind::Bad && dataTypeW != realOf(dataTypeA))
    K = Kind::Bad, St = Invalid;
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, true, K, dev, host, n);
}

cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                  cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                  cudaDataType dataTypeW, void *W, cudaDataType computeType, void *, size_t, void *,
                                  size_t, int *info) {
  return xCall("cusolverDnXsyevd", h, params, dataTypeA, computeType, {}, [&](auto Elem) {
    using T = decltype(Elem);
    if (dataTypeW != realOf(dataTypeA))
      return reject(lookup(h), info, 0);
    return syevd<T>("cusolverDnXsyevd", true, h, jobz, uplo, n, cast<T>(A), lda, cast<Real<T>>(W), info);
  });
}

cusolverStatus_t cusolverDnXsyevdx_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t,
                                              cusolverEigRange_t, cublasFillMode_t, int64_t n, cudaDataType dataTypeA,
                                              const void *, int64_t, void *, void *, int64_t, int64_t, int64_t *,
                                              cudaDataType dataTypeW, const void *, cudaDataType computeType,
                                              size_t *dev, size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXsyevdx_bufferSize", dataTypeA, computeType, {}, &St);
  if (K != Kind::Bad && dataTypeW != realOf(dataTypeA))
    K = Kind::Bad, St = Invalid;
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, true, K, dev, host, n);
}

/// The 64-bit syevdx: vl and vu point to host values of W's type; meig is
/// written once known (after the stream's work for a value range).
cusolverStatus_t cusolverDnXsyevdx(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                   cusolverEigRange_t range, cublasFillMode_t uplo, int64_t n,
                                   cudaDataType dataTypeA, void *A, int64_t lda, void *vl, void *vu, int64_t il,
                                   int64_t iu, int64_t *meig64, cudaDataType dataTypeW, void *W,
                                   cudaDataType computeType, void *, size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXsyevdx", h, params, dataTypeA, computeType, {}, [&](auto Elem) {
    using T = decltype(Elem);
    using R = Real<T>;
    if (dataTypeW != realOf(dataTypeA) || !meig64 || (range == CUSOLVER_EIG_RANGE_V && (!vl || !vu)))
      return reject(lookup(h), info, 0);
    if (n > INT32_MAX || lda > INT32_MAX || il > INT32_MAX || iu > INT32_MAX)
      return tooLarge("cusolverDnXsyevdx");
    R Vl = range == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(vl) : R(0);
    R Vu = range == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(vu) : R(0);
    int Meig = -1;
    cusolverStatus_t St = syevdx<T>(h, jobz, range, uplo, static_cast<int>(n), cast<T>(A), static_cast<int>(lda), Vl,
                                    Vu, static_cast<int>(il), static_cast<int>(iu), &Meig, cast<R>(W), info);
    if (St == CUSOLVER_STATUS_SUCCESS && Meig >= 0)
      *meig64 = Meig;
    return St;
  });
}

/// The SVD behind Xgesvdp and Xgesvdr: LAPACK's gesvd of a copy of A (m x n),
/// the first SCols singular values, U's first UCols columns and V's (V, not
/// V^H) first VCols columns written where asked (null: not wanted), and
/// ||A - U S V^H||_F over min(m, n) triplets returned.
template <typename T>
double svdInto(int M, int N, const T *A, int Lda, Real<T> *S, int SCols, T *U, int Ldu, int UCols, T *V, int Ldv,
               int VCols, int *Status) {
  int K = std::min(M, N);
  std::vector<T> Ab(static_cast<size_t>(M) * N), Ub(static_cast<size_t>(M) * M), Vt(static_cast<size_t>(N) * N);
  std::vector<Real<T>> Sb(std::max(1, K));
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Ab[I + static_cast<size_t>(J) * M] = A[I + static_cast<size_t>(J) * Lda];
  lapack::gesvd('A', 'A', M, N, Ab.data(), M, Sb.data(), Ub.data(), M, Vt.data(), N, Status);
  for (int J = 0; J < SCols; ++J)
    S[J] = Sb[J];
  for (int J = 0; U && J < UCols; ++J)
    for (int I = 0; I < M; ++I)
      U[I + static_cast<size_t>(J) * Ldu] = Ub[I + static_cast<size_t>(J) * M];
  for (int J = 0; V && J < VCols; ++J)
    for (int I = 0; I < N; ++I) {
      T X = Vt[J + static_cast<size_t>(I) * N];
      if constexpr (IsComplex<T>)
        X = std::conj(X);
      V[I + static_cast<size_t>(J) * Ldv] = X;
    }
  double Res = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      T Sum = 0;
      for (int L = 0; L < K; ++L)
        Sum += Ub[I + static_cast<size_t>(L) * M] * Sb[L] * Vt[L + static_cast<size_t>(J) * N];
      Res += std::norm(A[I + static_cast<size_t>(J) * Lda] - Sum);
    }
  return std::sqrt(Res);
}

cusolverStatus_t cusolverDnXgesvdp_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t, int,
                                              int64_t m, int64_t n, cudaDataType dataTypeA, const void *, int64_t,
                                              cudaDataType, const void *, cudaDataType, const void *, int64_t,
                                              cudaDataType, const void *, int64_t, cudaDataType computeType,
                                              size_t *dev, size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXgesvdp_bufferSize", dataTypeA, computeType, {}, &St);
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, true, K, dev, host, std::max(m, n));
}

/// Xgesvdp (the polar-decomposition SVD): computed by LAPACK's gesvd, the
/// same decomposition to rounding; h_err_sigma is the backward error
/// ||A - U S V^H||_F of the result, known once the work has run (the call
/// waits for it).
cusolverStatus_t cusolverDnXgesvdp(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz, int econ,
                                   int64_t m, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                   cudaDataType dataTypeS, void *S, cudaDataType dataTypeU, void *U, int64_t ldu,
                                   cudaDataType dataTypeV, void *V, int64_t ldv, cudaDataType computeType, void *,
                                   size_t, void *, size_t, int *info, double *h_err_sigma) {
  return xCall("cusolverDnXgesvdp", h, params, dataTypeA, computeType, {dataTypeU, dataTypeV}, [&](auto Elem) {
    using T = decltype(Elem);
    DnHandle *H = lookup(h);
    if (dataTypeS != realOf(dataTypeA))
      return reject(H, info, 0);
    bool Vectors = jobz == CUSOLVER_EIG_MODE_VECTOR;
    int64_t K = std::min(m, n);
    int Bad = firstBad({{!validMode(jobz), 2},
                        {econ != 0 && econ != 1, 3},
                        {m < 0, 4},
                        {n < 0, 5},
                        {lda < std::max<int64_t>(1, m), 8},
                        {Vectors && ldu < std::max<int64_t>(1, m), 13},
                        {Vectors && ldv < std::max<int64_t>(1, n), 16}});
    int Mi = static_cast<int>(m), Ni = static_cast<int>(n), La = static_cast<int>(lda), Lu = static_cast<int>(ldu),
        Lv = static_cast<int>(ldv), UCols = static_cast<int>(econ ? K : m), VCols = static_cast<int>(econ ? K : n);
    T *Ap = cast<T>(A), *Up = Vectors ? cast<T>(U) : nullptr, *Vp = Vectors ? cast<T>(V) : nullptr;
    Real<T> *Sp = cast<Real<T>>(S);
    cusolverStatus_t St = lapackCall("cusolverDnXgesvdp", h, info, true, Bad, {m, n, lda, ldu, ldv}, [=](int *Status) {
      double Err = Mi && Ni ? svdInto<T>(Mi, Ni, Ap, La, Sp, static_cast<int>(std::min(Mi, Ni)), Up, Lu, UCols, Vp, Lv,
                                         VCols, Status)
                            : 0;
      if (h_err_sigma)
        *h_err_sigma = Err;
    });
    return St == CUSOLVER_STATUS_SUCCESS && h_err_sigma && !Bad ? synchronize(H->Stream) : St;
  });
}

cusolverStatus_t cusolverDnXgesvdr_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, signed char, signed char,
                                              int64_t m, int64_t n, int64_t, int64_t, int64_t,
                                              cudaDataType dataTypeA, const void *, int64_t, cudaDataType,
                                              const void *, cudaDataType, const void *, int64_t, cudaDataType,
                                              const void *, int64_t, cudaDataType computeType, size_t *dev,
                                              size_t *host) {
  cusolverStatus_t St;
  Kind K = typeOf("cusolverDnXgesvdr_bufferSize", dataTypeA, computeType, {}, &St);
  if (K == Kind::Bad && lookup(h))
    return St;
  return xBuffer(h, params, true, K, dev, host, std::max(m, n));
}

/// Xgesvdr (randomized rank-k SVD): the exact leading k triplets from
/// LAPACK's gesvd, which is what the randomized method approximates (p and
/// niters checked, not needed).
cusolverStatus_t cusolverDnXgesvdr(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu, signed char jobv,
                                   int64_t m, int64_t n, int64_t k, int64_t p, int64_t niters,
                                   cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeSrand,
                                   void *Srand, cudaDataType dataTypeUrand, void *Urand, int64_t ldUrand,
                                   cudaDataType dataTypeVrand, void *Vrand, int64_t ldVrand, cudaDataType computeType,
                                   void *, size_t, void *, size_t, int *info) {
  return xCall("cusolverDnXgesvdr", h, params, dataTypeA, computeType, {dataTypeUrand, dataTypeVrand}, [&](auto Elem) {
    using T = decltype(Elem);
    if (dataTypeSrand != realOf(dataTypeA))
      return reject(lookup(h), info, 0);
    bool WantU = jobu == 'S' || jobu == 's', WantV = jobv == 'S' || jobv == 's';
    int Bad = firstBad({{!WantU && jobu != 'N' && jobu != 'n', 2},
                        {!WantV && jobv != 'N' && jobv != 'n', 3},
                        {m < 0, 4},
                        {n < 0, 5},
                        {k < 1 || k > std::min(m, n), 6},
                        {p < 0, 7},
                        {niters < 0, 8},
                        {lda < std::max<int64_t>(1, m), 11},
                        {WantU && ldUrand < std::max<int64_t>(1, m), 16},
                        {WantV && ldVrand < std::max<int64_t>(1, n), 19}});
    int Mi = static_cast<int>(m), Ni = static_cast<int>(n), Ki = static_cast<int>(k), La = static_cast<int>(lda),
        Lu = static_cast<int>(ldUrand), Lv = static_cast<int>(ldVrand);
    T *Ap = cast<T>(A), *Up = WantU ? cast<T>(Urand) : nullptr, *Vp = WantV ? cast<T>(Vrand) : nullptr;
    Real<T> *Sp = cast<Real<T>>(Srand);
    return lapackCall("cusolverDnXgesvdr", h, info, true, Bad, {m, n, lda, ldUrand, ldVrand}, [=](int *Status) {
      svdInto<T>(Mi, Ni, Ap, La, Sp, Ki, Up, Lu, Ki, Vp, Lv, Ki, Status);
    });
  });
}

// ---------------------------------------------------------------- more of the 64-bit API

namespace {

template <typename T>
cusolverStatus_t syevBatched(cusolverDnHandle_t Handle, cusolverEigMode_t Jobz, cublasFillMode_t Uplo, int64_t N,
                             T *A, int64_t Lda, Real<T> *W, int *Info, int64_t Batch) {
  DnHandle *H = lookup(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Info || Batch < 0)
    return Invalid;
  if (int Bad = firstBad({{!validMode(Jobz), 2}, {!validFill(Uplo), 3}, {N < 0, 4}, {Lda < std::max<int64_t>(1, N), 7}}))
    return reject(H, Info, -Bad);
  if (!fits(N) || !fits(Lda) || !fits(Batch))
    return tooLarge("cusolverDnXsyevBatched");
  int Ni = N, L = Lda;
  char Jz = Jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
  return enqueue(lookup(Handle), [=] {
    for (int64_t B = 0; B < Batch; ++B) {
      int Status = 0;
      if (Ni)
        lapack::syevd(Jz, U, Ni, A + B * L * Ni, L, W + B * Ni, &Status);
      Info[B] = Status;
    }
  });
}

template <typename T>
cusolverStatus_t sytrs(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, int64_t N, int64_t Nrhs, const T *A,
                       int64_t Lda, const int64_t *Ipiv, T *B, int64_t Ldb, int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1},
                      {N < 0, 2},
                      {Nrhs < 0, 3},
                      {Lda < std::max<int64_t>(1, N), 6},
                      {Ldb < std::max<int64_t>(1, N), 10}});
  int Ni = N, R = Nrhs, La = Lda, Lb = Ldb;
  char U = fillChar(Uplo);
  return lapackCall("cusolverDnXsytrs", Handle, Info, N <= 0 || Ipiv, Bad, {N, Nrhs, Lda, Ldb}, [=](int *Status) {
    if (!Ni || !R)
      return;
    std::vector<int> P(Ipiv, Ipiv + Ni); // sytrf's pivots, LAPACK's format
    lapack::sytrs(U, Ni, R, A, La, P.data(), B, Lb, Status);
  });
}

template <typename T>
cusolverStatus_t trtri(cusolverDnHandle_t Handle, cublasFillMode_t Uplo, cublasDiagType_t Diag, int64_t N, T *A,
                       int64_t Lda, int *Info) {
  int Bad = firstBad({{!validFill(Uplo), 1},
                      {Diag != CUBLAS_DIAG_NON_UNIT && Diag != CUBLAS_DIAG_UNIT, 2},
                      {N < 0, 3},
                      {Lda < std::max<int64_t>(1, N), 6}});
  int Ni = N, L = Lda;
  char U = fillChar(Uplo), D = Diag == CUBLAS_DIAG_UNIT ? 'U' : 'N';
  return lapackCall("cusolverDnXtrtri", Handle, Info, true, Bad, {N, Lda}, [=](int *Status) {
    if (Ni)
      lapack::trtri(U, D, Ni, A, L, Status);
  });
}

} // namespace

cusolverStatus_t cusolverDnXsyevBatched_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params,
                                                   cusolverEigMode_t, cublasFillMode_t, int64_t n,
                                                   cudaDataType dataTypeA, const void *, int64_t, cudaDataType,
                                                   const void *, cudaDataType, size_t *dev, size_t *host, int64_t) {
  Kind K = kindOf(dataTypeA);
  return xBuffer(h, params, true, K == Kind::Bad ? Kind::D : K, dev, host, n);
}

cusolverStatus_t cusolverDnXsyevBatched(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                        cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A,
                                        int64_t lda, cudaDataType dataTypeW, void *W, cudaDataType computeType,
                                        void *, size_t, void *, size_t, int *info, int64_t batchSize) {
  return xCall("cusolverDnXsyevBatched", h, params, dataTypeA, computeType, {}, [&](auto Elem) {
    using T = decltype(Elem);
    if (dataTypeW != realOf(dataTypeA))
      return reject(lookup(h), info, 0);
    return syevBatched<T>(h, jobz, uplo, n, cast<T>(A), lda, cast<Real<T>>(W), info, batchSize);
  });
}

cusolverStatus_t cusolverDnXsytrs_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, int64_t n, int64_t,
                                             cudaDataType dataTypeA, const void *, int64_t, const int64_t *,
                                             cudaDataType, void *, int64_t, size_t *dev, size_t *host) {
  Kind K = kindOf(dataTypeA);
  return xBuffer(h, nullptr, true, K == Kind::Bad ? Kind::D : K, dev, host, n);
}

cusolverStatus_t cusolverDnXsytrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int64_t n, int64_t nrhs,
                                  cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv,
                                  cudaDataType dataTypeB, void *B, int64_t ldb, void *, size_t, void *, size_t,
                                  int *info) {
  return xCall("cusolverDnXsytrs", h, nullptr, dataTypeA, dataTypeA, {dataTypeB}, [&](auto Elem) {
    using T = decltype(Elem);
    return sytrs<T>(h, uplo, n, nrhs, cast<T>(A), lda, ipiv, cast<T>(B), ldb, info);
  });
}

cusolverStatus_t cusolverDnXtrtri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, cublasDiagType_t, int64_t n,
                                             cudaDataType dataTypeA, void *, int64_t, size_t *dev, size_t *host) {
  Kind K = kindOf(dataTypeA);
  return xBuffer(h, nullptr, true, K == Kind::Bad ? Kind::D : K, dev, host, n);
}

cusolverStatus_t cusolverDnXtrtri(cusolverDnHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, void *, size_t, void *, size_t,
                                  int *devInfo) {
  return xCall("cusolverDnXtrtri", h, nullptr, dataTypeA, dataTypeA, {}, [&](auto Elem) {
    using T = decltype(Elem);
    return trtri<T>(h, uplo, diag, n, cast<T>(A), lda, devInfo);
  });
}

// syevdx/heevdx (legacy; the 64-bit X form stays NOT_SUPPORTED).
#define FERRY_DN_EVDX(P, EN, CT, T, CR)                                                                                \
  cusolverStatus_t cusolverDn##P##EN##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, cusolverEigRange_t,        \
                                                  cublasFillMode_t, int n, const CT *, int, CR, CR, int, int, int *,   \
                                                  const CR *, int *lwork) {                                            \
    return bufferAnswer(h, true, lwork, n);                                                                            \
  }                                                                                                                    \
  cusolverStatus_t cusolverDn##P##EN(cusolverDnHandle_t h, cusolverEigMode_t jobz, cusolverEigRange_t range,           \
                                     cublasFillMode_t uplo, int n, CT *A, int lda, CR vl, CR vu, int il, int iu,       \
                                     int *meig, CR *W, CT *, int, int *info) {                                         \
    return syevdx<T>(h, jobz, range, uplo, n, cast<T>(A), lda, vl, vu, il, iu, meig, W, info);                         \
  }
FERRY_DN_EVDX(S, syevdx, float, float, float)
FERRY_DN_EVDX(D, syevdx, double, double, double)
FERRY_DN_EVDX(C, heevdx, cuComplex, C32, float)
FERRY_DN_EVDX(Z, heevdx, cuDoubleComplex, C64, double)
