/// \file
/// cusolverSp's high-level solvers: csrlsvqr, csrlsvchol (device and host)
/// csrlsvluHost and csreigvsi (shift-inverse power iteration), in S/D/C/Z.
/// ferry solves them densely with LAPACK: the CSR matrix (its index base
/// read from the cuSPARSE descriptor through libcusparse.so.12's public
/// cusparseGetMatIndexBase/GetMatType, resolved at run time) is expanded
/// into a column-major array, which bounds m (a dense copy above 1 GiB is
/// refused with NOT_SUPPORTED and a log line). `reorder` changes only
/// fill-in for a sparse factorization, so it is checked and otherwise has
/// no effect here. The device forms wait for the handle's stream (their
/// singularity is a host result), read the device arrays from the host
/// and write x before returning.
///
/// singularity: -1 when A is invertible (SPD for Cholesky), else the
/// smallest j (0-based) with |R(j,j)|, L(j,j) or |U(j,j)| <= tol, as
/// cuSOLVER documents it; x is then left as it was.
///
/// The host pattern helpers the cuda-samples solvers call before solving:
/// csrissymHost (is the pattern of A that of A^T), csrperm_bufferSizeHost
/// and csrpermHost (B = A(p,q), B's columns sorted within a row, `map`
/// permuted alongside so that valB = valA(map)), and csrsymrcmHost (reverse
/// Cuthill-McKee of the pattern of A + A^T, diagonal ignored: per connected
/// component a pseudo-peripheral start found by repeated BFS, neighbours
/// visited by ascending degree then index). p and q are 0-based whatever
/// the descriptor's base. The ordering is a valid RCM ordering but need not
/// be NVIDIA's permutation (the documentation does not fix ties); symamd,
/// symmdq and metisnd stay NOT_SUPPORTED.
///
/// The low-level (preview) API, csrchol (host and device), csrqr (host and
/// device) and csrlu (host), keeps a dense factor in its info object: the
/// analysis records the pattern, the factorization expands the values and
/// factors them with LAPACK (Cholesky of the lower triangle; QR of
/// A - mu I; LU with threshold partial pivoting: row k is kept while
/// |a_kk| >= threshold * max |a_ik|, else the largest is swapped in). The
/// zero-pivot query is the smallest j with |L(j,j)|, |R(j,j)| or |U(j,j)|
/// <= tol (or where Cholesky broke down), -1 if none. csrluExtractHost
/// gives P (row i of L U is row P[i] of A), Q the identity (no column
/// ordering), L strictly lower (unit diagonal implicit) and U upper, with
/// the structural fill of the elimination kept even where its value
/// cancels to zero, so cusolverRf can refactor other values on that
/// pattern. Buffer sizes: internal data is the dense factor's size.
#include "libs/cusolver/Common.h"
#include "libs/common/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>
#include <vector>

namespace ferry::cusolver {
namespace {

struct SpHandle {
  static constexpr uint64_t Live = 0x6665727279535053ull; // "ferrySPS"
  uint64_t Magic = Live;
  cudaStream_t Stream = nullptr;
  libs::TaskKeeper Kept; // whether the host may read this device's memory
};

/// The device forms read device memory on the host: where the host cannot
/// reach it (an AMD GPU without a large BAR) they answer NOT_SUPPORTED with
/// one log line instead of faulting.
cusolverStatus_t deviceReadable(SpHandle *H) {
  if (H->Kept.hostReachesDeviceMemory())
    return CUSOLVER_STATUS_SUCCESS;
  libs::logNoHostAccess("cusolver", "CUSOLVER_STATUS_NOT_SUPPORTED");
  return CUSOLVER_STATUS_NOT_SUPPORTED;
}

SpHandle *lookupSp(cusolverSpHandle_t H) {
  auto *P = reinterpret_cast<SpHandle *>(H);
  return P && P->Magic == SpHandle::Live ? P : nullptr;
}

/// cuSPARSE's descriptor queries, from whichever libcusparse.so.12 the
/// process loads (ferry's under ferry run).
struct Cusparse {
  int (*GetMatType)(const cusparseMatDescr *) = nullptr;
  int (*GetMatIndexBase)(const cusparseMatDescr *) = nullptr;
};

const Cusparse *cusparse() {
  static Cusparse C;
  static std::once_flag Once;
  std::call_once(Once, [] {
    void *L = dlopen("libcusparse.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!L) {
      logMessage("libcusparse.so.12 could not be loaded (%s): the sparse solvers need its matrix descriptors",
                 dlerror());
      return;
    }
    C.GetMatType = reinterpret_cast<int (*)(const cusparseMatDescr *)>(dlsym(L, "cusparseGetMatType"));
    C.GetMatIndexBase = reinterpret_cast<int (*)(const cusparseMatDescr *)>(dlsym(L, "cusparseGetMatIndexBase"));
    if (!C.GetMatType || !C.GetMatIndexBase)
      logMessage("libcusparse.so.12 lacks cusparseGetMatType/cusparseGetMatIndexBase");
  });
  return C.GetMatType && C.GetMatIndexBase ? &C : nullptr;
}

constexpr int MatrixTypeGeneral = 0; // CUSPARSE_MATRIX_TYPE_GENERAL

template <typename T> T conjOf(T V) { return V; }
template <typename T, typename C> T fromCuda(C V) {
  T Out;
  static_assert(sizeof(T) == sizeof(C));
  std::memcpy(static_cast<void *>(&Out), &V, sizeof(T));
  return Out;
}
template <typename T> std::complex<T> conjOf(std::complex<T> V) { return std::conj(V); }

/// The checks every solver shares; on success, Base is the index base.
cusolverStatus_t checkCommon(const char *Name, int M, int Nnz, cusparseMatDescr_t Descr, const void *Val,
                             const int *RowPtr, const int *ColInd, size_t Elem, int *Base) {
  if (M < 0 || Nnz < 0 || !Descr || (M && !RowPtr) || (Nnz && (!Val || !ColInd)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  const Cusparse *C = cusparse();
  if (!C)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (C->GetMatType(Descr) != MatrixTypeGeneral)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  *Base = C->GetMatIndexBase(Descr);
  if (*Base != 0 && *Base != 1)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (static_cast<double>(M) * M * Elem > (1u << 30)) {
    logOnce(Name, "m is too large for ferry's dense solve (a copy above 1 GiB): CUSOLVER_STATUS_NOT_SUPPORTED");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  return CUSOLVER_STATUS_SUCCESS;
}

/// A as a dense column-major m x m array; false for an index out of range.
template <typename T>
bool densify(int M, int Nnz, int Base, const T *Val, const int *RowPtr, const int *ColInd, std::vector<T> &A) {
  A.assign(static_cast<size_t>(M) * M, T(0));
  if (RowPtr[0] - Base != 0 || RowPtr[M] - Base != Nnz)
    return false;
  for (int I = 0; I < M; ++I)
    for (int K = RowPtr[I] - Base; K < RowPtr[I + 1] - Base; ++K) {
      if (K < 0 || K >= Nnz)
        return false;
      int J = ColInd[K] - Base;
      if (J < 0 || J >= M)
        return false;
      A[I + static_cast<size_t>(J) * M] += Val[K];
    }
  return true;
}

enum class Method { Qr, Chol, Lu };

/// Solves A x = b densely; returns the singularity (-1: solved).
template <typename T> int solveDense(Method How, int M, std::vector<T> &A, const T *B, Real<T> Tol, T *X) {
  if (!M)
    return -1;
  std::vector<T> Y(B, B + M);
  int Info = 0;
  switch (How) {
  case Method::Qr: {
    std::vector<T> Tau(M);
    lapack::geqrf(M, M, A.data(), M, Tau.data(), &Info);
    for (int J = 0; J < M; ++J)
      if (std::abs(A[J + static_cast<size_t>(J) * M]) <= Tol)
        return J;
    lapack::ormqr('L', IsComplex<T> ? 'C' : 'T', M, 1, M, A.data(), M, Tau.data(), Y.data(), M, &Info);
    lapack::trtrs('U', 'N', M, 1, A.data(), M, Y.data(), M, &Info);
    break;
  }
  case Method::Chol: {
    lapack::potrf('L', M, A.data(), M, &Info);
    if (Info > 0)
      return Info - 1;
    for (int J = 0; J < M; ++J)
      if (std::abs(A[J + static_cast<size_t>(J) * M]) <= Tol)
        return J;
    lapack::potrs('L', M, 1, A.data(), M, Y.data(), M, &Info);
    break;
  }
  case Method::Lu: {
    std::vector<int> Piv(M);
    lapack::getrf(M, M, A.data(), M, Piv.data(), &Info);
    for (int J = 0; J < M; ++J)
      if (std::abs(A[J + static_cast<size_t>(J) * M]) <= Tol)
        return J;
    lapack::getrs('N', M, 1, A.data(), M, Piv.data(), Y.data(), M, &Info);
    break;
  }
  }
  std::copy(Y.begin(), Y.end(), X);
  return -1;
}

template <typename T>
cusolverStatus_t lsv(const char *Name, Method How, bool Device, cusolverSpHandle_t Handle, int M, int Nnz,
                     cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd, const T *B,
                     Real<T> Tol, int Reorder, T *X, int *Singularity) {
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Reorder < 0 || Reorder > 3 || !Singularity || (M && (!B || !X)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Base = 0;
  if (cusolverStatus_t St = checkCommon(Name, M, Nnz, Descr, Val, RowPtr, ColInd, sizeof(T), &Base))
    return St;
  if (Device) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  std::vector<T> A;
  if (!densify(M, Nnz, Base, Val, RowPtr, ColInd, A))
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Singularity = solveDense(How, M, A, B, Tol, X);
  return CUSOLVER_STATUS_SUCCESS;
}

/// Shift-inverse power iteration: x <- (A - mu0 I)^-1 x normalised, mu the
/// Rayleigh quotient, until |mu - previous mu| <= eps |mu| or maxite.
template <typename T>
cusolverStatus_t eigvsi(const char *Name, bool Device, cusolverSpHandle_t Handle, int M, int Nnz,
                        cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd, T Mu0,
                        const T *X0, int MaxIte, Real<T> Eps, T *Mu, T *X) {
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (MaxIte < 0 || !Mu || (M && (!X0 || !X)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Base = 0;
  if (cusolverStatus_t St = checkCommon(Name, M, Nnz, Descr, Val, RowPtr, ColInd, sizeof(T), &Base))
    return St;
  if (Device) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  std::vector<T> A;
  if (!densify(M, Nnz, Base, Val, RowPtr, ColInd, A))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> S = A;
  for (int I = 0; I < M; ++I)
    S[I + static_cast<size_t>(I) * M] -= Mu0;
  std::vector<int> Piv(std::max(1, M));
  int Info = 0;
  if (M)
    lapack::getrf(M, M, S.data(), M, Piv.data(), &Info);
  std::vector<T> V(X0, X0 + M), Av(M);
  T Lambda = Mu0;
  auto normalize = [&] {
    Real<T> N = 0;
    for (T E : V)
      N += std::norm(E);
    N = std::sqrt(N);
    if (N > 0)
      for (T &E : V)
        E /= N;
  };
  normalize();
  for (int It = 0; It < MaxIte && M && !Info; ++It) {
    lapack::getrs('N', M, 1, S.data(), M, Piv.data(), V.data(), M, &Info);
    normalize();
    T Rq = 0;
    for (int I = 0; I < M; ++I) {
      T Sum = 0;
      for (int J = 0; J < M; ++J)
        Sum += A[I + static_cast<size_t>(J) * M] * V[J];
      Rq += conjOf(V[I]) * Sum;
    }
    bool Done = std::abs(Rq - Lambda) <= Eps * std::abs(Rq);
    Lambda = Rq;
    if (Done)
      break;
  }
  *Mu = Lambda;
  std::copy(V.begin(), V.end(), X);
  return CUSOLVER_STATUS_SUCCESS;
}

/// The pattern checks the host helpers share: handle, sizes, pointers,
/// descriptor (general, base 0 or 1) and row pointers/columns in range.
/// RowEnd may be null (row i ends where row i + 1 starts).
cusolverStatus_t checkPattern(cusolverSpHandle_t Handle, int M, int N, int Nnz, cusparseMatDescr_t Descr,
                              const int *RowPtr, const int *RowEnd, const int *ColInd, int *Base) {
  if (!lookupSp(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 0 || (M && !RowPtr))
    return CUSOLVER_STATUS_INVALID_VALUE;
  // checkCommon's dense-size limit does not apply to a pattern (Elem 0).
  if (cusolverStatus_t St = checkCommon("", M, Nnz, Descr, ColInd, RowPtr, ColInd, 0, Base))
    return St;
  for (int I = 0; I < M; ++I) {
    int Begin = RowPtr[I] - *Base, End = (RowEnd ? RowEnd[I] : RowPtr[I + 1]) - *Base;
    if (Begin < 0 || End < Begin || End > Nnz)
      return CUSOLVER_STATUS_INVALID_VALUE;
    for (int K = Begin; K < End; ++K)
      if (ColInd[K] - *Base < 0 || ColInd[K] - *Base >= N)
        return CUSOLVER_STATUS_INVALID_VALUE;
  }
  return CUSOLVER_STATUS_SUCCESS;
}

/// The adjacency of A + A^T without the diagonal, each list sorted, no
/// duplicates.
std::vector<std::vector<int>> symmetricGraph(int N, int Base, const int *RowPtr, const int *ColInd) {
  std::vector<std::vector<int>> Adj(N);
  for (int I = 0; I < N; ++I)
    for (int K = RowPtr[I] - Base; K < RowPtr[I + 1] - Base; ++K) {
      int J = ColInd[K] - Base;
      if (J != I) {
        Adj[I].push_back(J);
        Adj[J].push_back(I);
      }
    }
  for (auto &L : Adj) {
    std::sort(L.begin(), L.end());
    L.erase(std::unique(L.begin(), L.end()), L.end());
  }
  return Adj;
}

/// Breadth-first order from Root over nodes not yet marked with Stamp, each
/// node's new neighbours by ascending (degree, index); Level gets each
/// visited node's distance from Root.
std::vector<int> bfsOrder(const std::vector<std::vector<int>> &Adj, int Root, std::vector<int> &Mark, int Stamp,
                          std::vector<int> &Level) {
  std::vector<int> Order{Root};
  Mark[Root] = Stamp;
  Level[Root] = 0;
  auto ByDegree = [&](int A, int B) {
    return Adj[A].size() != Adj[B].size() ? Adj[A].size() < Adj[B].size() : A < B;
  };
  for (size_t Head = 0; Head < Order.size(); ++Head) {
    int U = Order[Head];
    size_t First = Order.size();
    for (int V : Adj[U])
      if (Mark[V] != Stamp) {
        Mark[V] = Stamp;
        Level[V] = Level[U] + 1;
        Order.push_back(V);
      }
    std::sort(Order.begin() + First, Order.end(), ByDegree);
  }
  return Order;
}

/// Reverse Cuthill-McKee over every connected component (components in
/// order of their lowest-index node). Each component starts from a
/// pseudo-peripheral node: from its minimum-degree node, move to the
/// minimum-degree node of the last BFS level, again while the depth grows.
std::vector<int> reverseCuthillMcKee(const std::vector<std::vector<int>> &Adj) {
  int N = static_cast<int>(Adj.size());
  std::vector<int> Mark(N, 0), Level(N, 0), Perm;
  std::vector<char> Done(N, 0);
  int Stamp = 0;
  auto ByDegree = [&](int A, int B) {
    return Adj[A].size() != Adj[B].size() ? Adj[A].size() < Adj[B].size() : A < B;
  };
  for (int Seed = 0; Seed < N; ++Seed) {
    if (Done[Seed])
      continue;
    std::vector<int> Comp = bfsOrder(Adj, Seed, Mark, ++Stamp, Level);
    int Root = *std::min_element(Comp.begin(), Comp.end(), ByDegree);
    Comp = bfsOrder(Adj, Root, Mark, ++Stamp, Level);
    int Depth = Level[Comp.back()];
    for (;;) {
      int Best = -1;
      for (int V : Comp)
        if (Level[V] == Depth && (Best < 0 || ByDegree(V, Best)))
          Best = V;
      std::vector<int> Cand = bfsOrder(Adj, Best, Mark, ++Stamp, Level);
      int CandDepth = Level[Cand.back()];
      // George and Liu: the candidate becomes the start either way; the
      // search goes on only while the depth grows (NVIDIA's symrcm on a
      // grid starts from the far corner, as this does).
      Root = Best;
      Comp = std::move(Cand);
      if (CandDepth <= Depth)
        break;
      Depth = CandDepth;
    }
    for (int V : Comp) {
      Done[V] = 1;
      Perm.push_back(V);
    }
  }
  std::reverse(Perm.begin(), Perm.end());
  return Perm;
}

enum class LowKind { Chol, Qr, Lu };

/// What every low-level info object holds (the public structs below derive
/// from it): the analysed pattern and, once factored, the dense factor.
struct LowInfo {
  static constexpr uint64_t Live = 0x6665727279534c4cull; // "ferrySLL"
  uint64_t Magic = Live;
  LowKind Kind;
  bool Analysed = false, Ready = false, Factored = false;
  int M = 0, N = 0, Nnz = 0, Breakdown = -1;
  int Type = -1;                  // typeId of the values factored
  std::vector<unsigned char> A;   // dense m x n factor, column-major
  std::vector<unsigned char> Tau; // QR's Householder scalars
  std::vector<int> Perm;          // LU: row i of L U is row Perm[i] of A
  std::vector<char> Fill;         // LU: structural pattern of L + U
  explicit LowInfo(LowKind K) : Kind(K) {}
};

LowInfo *lookupLow(void *P, LowKind K) {
  auto *I = static_cast<LowInfo *>(P);
  return I && I->Magic == LowInfo::Live && I->Kind == K ? I : nullptr;
}

template <typename T> T *dense(LowInfo &I) { return reinterpret_cast<T *>(I.A.data()); }
template <typename T> int typeId() {
  return std::is_same<T, float>::value ? 0 : std::is_same<T, double>::value ? 1 : std::is_same<T, C32>::value ? 2 : 3;
}

cusolverStatus_t lowAnalysis(cusolverSpHandle_t Handle, LowKind K, void *Info, int M, int N, int Nnz,
                             cusparseMatDescr_t Descr, const int *RowPtr, const int *ColInd) {
  LowInfo *I = lookupLow(Info, K);
  if (!lookupSp(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || M < 0 || N < 0 || (K != LowKind::Qr && M != N) || (K == LowKind::Qr && M < N))
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Base = 0;
  if (cusolverStatus_t St = checkPattern(Handle, M, N, Nnz, Descr, RowPtr, nullptr, ColInd, &Base))
    return St;
  I->M = M;
  I->N = N;
  I->Nnz = Nnz;
  I->Analysed = true;
  I->Ready = I->Factored = false;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t lowBufferInfo(cusolverSpHandle_t Handle, LowKind K, void *Info, int M, int N, int Nnz,
                               cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd,
                               size_t *Internal, size_t *Workspace) {
  LowInfo *I = lookupLow(Info, K);
  if (!lookupSp(Handle))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || !Internal || !Workspace || !I->Analysed || M != I->M || N != I->N || Nnz != I->Nnz)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Base = 0;
  if (cusolverStatus_t St =
          checkCommon("cusolverSp low-level API", M, Nnz, Descr, Val, RowPtr, ColInd, sizeof(T), &Base))
    return St;
  *Internal = sizeof(T) * static_cast<size_t>(M) * N;
  *Workspace = sizeof(T) * (static_cast<size_t>(M) + N) + 128;
  return CUSOLVER_STATUS_SUCCESS;
}

/// A as a dense column-major m x n array (densify is square only).
template <typename T>
bool densifyRect(int M, int N, int Nnz, int Base, const T *Val, const int *RowPtr, const int *ColInd,
                 std::vector<T> &A) {
  A.assign(static_cast<size_t>(M) * N, T(0));
  if (RowPtr[0] - Base != 0 || RowPtr[M] - Base != Nnz)
    return false;
  for (int I = 0; I < M; ++I)
    for (int K = RowPtr[I] - Base; K < RowPtr[I + 1] - Base; ++K) {
      int J = ColInd[K] - Base;
      if (K < 0 || K >= Nnz || J < 0 || J >= N)
        return false;
      A[I + static_cast<size_t>(J) * M] += Val[K];
    }
  return true;
}

/// Reads the matrix into I's dense array (the device forms wait for the
/// stream first); Mu is subtracted from the diagonal (QR's shift).
template <typename T>
cusolverStatus_t lowLoad(cusolverSpHandle_t Handle, LowKind K, void *Info, bool Device, int M, int N, int Nnz,
                         cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd, T Mu) {
  LowInfo *I = lookupLow(Info, K);
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || !I->Analysed || M != I->M || N != I->N || Nnz != I->Nnz)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Base = 0;
  if (cusolverStatus_t St =
          checkCommon("cusolverSp low-level API", M, Nnz, Descr, Val, RowPtr, ColInd, sizeof(T), &Base))
    return St;
  if (Device) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  std::vector<T> A;
  if (!densifyRect(M, N, Nnz, Base, Val, RowPtr, ColInd, A))
    return CUSOLVER_STATUS_INVALID_VALUE;
  for (int J = 0; J < std::min(M, N); ++J)
    A[J + static_cast<size_t>(J) * M] -= Mu;
  I->Type = typeId<T>();
  I->A.resize(A.size() * sizeof(T));
  std::memcpy(I->A.data(), A.data(), I->A.size());
  I->Ready = true;
  I->Factored = false;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> void cholFactor(LowInfo &I) {
  int Info = 0;
  if (I.N)
    lapack::potrf('L', I.N, dense<T>(I), I.N, &Info);
  I.Breakdown = Info > 0 ? Info - 1 : -1;
  I.Factored = true;
}

template <typename T> void qrFactor(LowInfo &I) {
  int Info = 0;
  I.Tau.assign(sizeof(T) * std::max(1, I.N), 0);
  if (I.N)
    lapack::geqrf(I.M, I.N, dense<T>(I), I.M, reinterpret_cast<T *>(I.Tau.data()), &Info);
  I.Breakdown = -1;
  I.Factored = true;
}

/// Dense LU with threshold partial pivoting, and the structural fill of the
/// same elimination (Pattern: the matrix's own entries).
template <typename T> void luFactor(LowInfo &I, double Threshold, std::vector<char> Pattern) {
  int N = I.N;
  T *A = dense<T>(I);
  auto At = [&](int R, int C) -> T & { return A[R + static_cast<size_t>(C) * N]; };
  auto Pat = [&](int R, int C) -> char & { return Pattern[R + static_cast<size_t>(C) * N]; };
  I.Perm.resize(N);
  for (int R = 0; R < N; ++R)
    I.Perm[R] = R;
  I.Breakdown = -1;
  Threshold = std::min(1.0, std::max(0.0, Threshold));
  for (int K = 0; K < N; ++K) {
    int Best = K;
    for (int R = K + 1; R < N; ++R)
      if (std::abs(At(R, K)) > std::abs(At(Best, K)))
        Best = R;
    int Piv = std::abs(At(K, K)) >= Threshold * std::abs(At(Best, K)) && At(K, K) != T(0) ? K : Best;
    if (Piv != K) {
      for (int C = 0; C < N; ++C) {
        std::swap(At(K, C), At(Piv, C));
        std::swap(Pat(K, C), Pat(Piv, C));
      }
      std::swap(I.Perm[K], I.Perm[Piv]);
    }
    T P = At(K, K);
    if (P == T(0)) {
      if (I.Breakdown < 0)
        I.Breakdown = K;
      continue;
    }
    for (int R = K + 1; R < N; ++R) {
      if (!Pat(R, K))
        continue;
      T L = At(R, K) / P;
      At(R, K) = L;
      for (int C = K + 1; C < N; ++C)
        if (Pat(K, C)) {
          At(R, C) -= L * At(K, C);
          Pat(R, C) = 1;
        }
    }
  }
  I.Fill = std::move(Pattern);
  I.Factored = true;
}

template <typename T>
cusolverStatus_t lowZeroPivot(cusolverSpHandle_t Handle, LowKind K, void *Info, double Tol, int *Position,
                              bool Device) {
  LowInfo *I = lookupLow(Info, K);
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || !Position || !I->Factored || I->Type != typeId<T>())
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (Device)
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  int Pos = I->Breakdown, Diag = std::min(I->M, I->N);
  const T *A = dense<T>(*I);
  for (int J = 0; J < Diag && (Pos < 0 || J < Pos); ++J)
    if (std::abs(A[J + static_cast<size_t>(J) * I->M]) <= Tol) {
      Pos = J;
      break;
    }
  *Position = Pos;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> LowInfo *factored(cusolverSpHandle_t Handle, LowKind K, void *Info, bool Device,
                                         cusolverStatus_t *St) {
  LowInfo *I = lookupLow(Info, K);
  SpHandle *H = lookupSp(Handle);
  *St = !H ? CUSOLVER_STATUS_NOT_INITIALIZED
           : (!I || !I->Factored || I->Type != typeId<T>()) ? CUSOLVER_STATUS_INVALID_VALUE
                                                              : CUSOLVER_STATUS_SUCCESS;
  if (!*St && Device)
    *St = deviceReadable(H);
  if (!*St && Device)
    *St = synchronize(H->Stream);
  return *St ? nullptr : I;
}

template <typename T>
cusolverStatus_t cholSolve(cusolverSpHandle_t Handle, void *Info, bool Device, int N, const T *B, T *X,
                           void *Buffer) {
  cusolverStatus_t St;
  LowInfo *I = factored<T>(Handle, LowKind::Chol, Info, Device, &St);
  if (!I)
    return St;
  if (N != I->N || (N && (!B || !X)) || !Buffer)
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> Y(B, B + N);
  int Info2 = 0;
  if (N && I->Breakdown < 0)
    lapack::potrs('L', N, 1, dense<T>(*I), N, Y.data(), N, &Info2);
  std::copy(Y.begin(), Y.end(), X);
  return CUSOLVER_STATUS_SUCCESS;
}

/// Least squares: x = R^-1 (Q^H b)(0:n).
template <typename T> void qrSolveWith(LowInfo &I, const T *B, T *X) {
  std::vector<T> Y(B, B + I.M);
  int Info = 0;
  if (I.N) {
    lapack::ormqr('L', IsComplex<T> ? 'C' : 'T', I.M, 1, I.N, dense<T>(I), I.M,
                  reinterpret_cast<const T *>(I.Tau.data()), Y.data(), I.M, &Info);
    lapack::trtrs('U', 'N', I.N, 1, dense<T>(I), I.M, Y.data(), I.M, &Info);
  }
  std::copy(Y.begin(), Y.begin() + I.N, X);
}

template <typename T>
cusolverStatus_t qrSolve(cusolverSpHandle_t Handle, void *Info, bool Device, int M, int N, const T *B, T *X,
                         void *Buffer) {
  cusolverStatus_t St;
  LowInfo *I = factored<T>(Handle, LowKind::Qr, Info, Device, &St);
  if (!I)
    return St;
  if (M != I->M || N != I->N || (M && (!B || !X)) || !Buffer)
    return CUSOLVER_STATUS_INVALID_VALUE;
  qrSolveWith(*I, B, X);
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t qrFactorCall(cusolverSpHandle_t Handle, void *Info, bool Device, int M, int N, int Nnz, const T *B,
                              T *X, void *Buffer) {
  LowInfo *I = lookupLow(Info, LowKind::Qr);
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || !I->Ready || I->Type != typeId<T>() || M != I->M || N != I->N || Nnz != I->Nnz || !Buffer)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (Device) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  qrFactor<T>(*I);
  I->Ready = false; // the next factorization needs a new setup
  if (B && X)
    qrSolveWith(*I, B, X);
  return CUSOLVER_STATUS_SUCCESS;
}

/// csrcholFactor(Host): the matrix loaded into Info (host or device
/// arrays), then factored.
template <typename T>
cusolverStatus_t cholFactorCall(cusolverSpHandle_t Handle, void *Info, bool Device, int N, int Nnz,
                                cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd,
                                void *Buffer) {
  if (!Buffer && lookupSp(Handle))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusolverStatus_t St =
          lowLoad<T>(Handle, LowKind::Chol, Info, Device, N, N, Nnz, Descr, Val, RowPtr, ColInd, T(0)))
    return St;
  cholFactor<T>(*lookupLow(Info, LowKind::Chol));
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t luFactorCall(cusolverSpHandle_t Handle, void *Info, int N, int Nnz, cusparseMatDescr_t Descr,
                              const T *Val, const int *RowPtr, const int *ColInd, double Threshold, void *Buffer) {
  if (!Buffer && lookupSp(Handle))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusolverStatus_t St = lowLoad<T>(Handle, LowKind::Lu, Info, false, N, N, Nnz, Descr, Val, RowPtr, ColInd, T(0)))
    return St;
  LowInfo *I = lookupLow(Info, LowKind::Lu);
  int Base = cusparse()->GetMatIndexBase(Descr);
  std::vector<char> Pattern(static_cast<size_t>(N) * N, 0);
  for (int R = 0; R < N; ++R)
    for (int K = RowPtr[R] - Base; K < RowPtr[R + 1] - Base; ++K)
      Pattern[R + static_cast<size_t>(ColInd[K] - Base) * N] = 1;
  luFactor<T>(*I, Threshold, std::move(Pattern));
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t luSolve(cusolverSpHandle_t Handle, void *Info, int N, const T *B, T *X, void *Buffer) {
  cusolverStatus_t St;
  LowInfo *I = factored<T>(Handle, LowKind::Lu, Info, false, &St);
  if (!I)
    return St;
  if (N != I->N || (N && (!B || !X)) || !Buffer)
    return CUSOLVER_STATUS_INVALID_VALUE;
  const T *A = dense<T>(*I);
  std::vector<T> Y(N);
  for (int R = 0; R < N; ++R)
    Y[R] = B[I->Perm[R]];
  for (int R = 0; R < N; ++R)
    for (int C = 0; C < R; ++C)
      Y[R] -= A[R + static_cast<size_t>(C) * N] * Y[C];
  for (int R = N - 1; R >= 0; --R) {
    for (int C = R + 1; C < N; ++C)
      Y[R] -= A[R + static_cast<size_t>(C) * N] * Y[C];
    Y[R] /= A[R + static_cast<size_t>(R) * N];
  }
  std::copy(Y.begin(), Y.end(), X);
  return CUSOLVER_STATUS_SUCCESS;
}

/// Structural entries of L (strictly lower) and U (upper, diagonal always).
bool inL(const LowInfo &I, int R, int C) { return C < R && I.Fill[R + static_cast<size_t>(C) * I.N]; }
bool inU(const LowInfo &I, int R, int C) { return C == R || (C > R && I.Fill[R + static_cast<size_t>(C) * I.N]); }

template <typename T>
cusolverStatus_t luExtract(cusolverSpHandle_t Handle, void *Info, int *P, int *Q, cusparseMatDescr_t DescrL,
                           T *ValL, int *RowL, int *ColL, cusparseMatDescr_t DescrU, T *ValU, int *RowU, int *ColU,
                           void *Buffer) {
  cusolverStatus_t St;
  LowInfo *I = factored<T>(Handle, LowKind::Lu, Info, false, &St);
  if (!I)
    return St;
  int N = I->N;
  const Cusparse *C = cusparse();
  if (!C)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!DescrL || !DescrU || !Buffer || (N && (!P || !Q || !RowL || !RowU || !ColL || !ColU || !ValL || !ValU)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  int BaseL = C->GetMatIndexBase(DescrL), BaseU = C->GetMatIndexBase(DescrU);
  const T *A = dense<T>(*I);
  int KL = 0, KU = 0;
  RowL[0] = BaseL;
  RowU[0] = BaseU;
  for (int R = 0; R < N; ++R) {
    P[R] = I->Perm[R];
    Q[R] = R;
    for (int Col = 0; Col < N; ++Col) {
      T V = A[R + static_cast<size_t>(Col) * N];
      if (inL(*I, R, Col)) {
        ValL[KL] = V;
        ColL[KL++] = Col + BaseL;
      } else if (inU(*I, R, Col)) {
        ValU[KU] = V;
        ColU[KU++] = Col + BaseU;
      }
    }
    RowL[R + 1] = KL + BaseL;
    RowU[R + 1] = KU + BaseU;
  }
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

cusolverStatus_t cusolverSpCreate(cusolverSpHandle_t *Handle) {
  if (!Handle)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!ferry::libs::ensureContext())
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  auto *H = new (std::nothrow) SpHandle;
  if (!H)
    return CUSOLVER_STATUS_ALLOC_FAILED;
  *Handle = reinterpret_cast<cusolverSpHandle_t>(H);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpDestroy(cusolverSpHandle_t Handle) {
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  H->Magic = 0;
  delete H;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpSetStream(cusolverSpHandle_t Handle, cudaStream_t Stream) {
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  H->Stream = Stream;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpGetStream(cusolverSpHandle_t Handle, cudaStream_t *Stream) {
  SpHandle *H = lookupSp(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Stream)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Stream = H->Stream;
  return CUSOLVER_STATUS_SUCCESS;
}

#define FERRY_SP_LSV(P, CT, T, R, FN, HOW, DEVICE)                                                                    \
  cusolverStatus_t cusolverSp##P##FN(cusolverSpHandle_t h, int m, int nnz, const cusparseMatDescr_t d, const CT *val,  \
                                     const int *rowPtr, const int *colInd, const CT *b, R tol, int reorder, CT *x,     \
                                     int *singularity) {                                                               \
    return lsv<T>("cusolverSp" #P #FN, Method::HOW, DEVICE, h, m, nnz, d, reinterpret_cast<const T *>(val), rowPtr,   \
                  colInd, reinterpret_cast<const T *>(b), tol, reorder, reinterpret_cast<T *>(x), singularity);        \
  }
#define FERRY_SP_TYPED(P, CT, T, R)                                                                                    \
  FERRY_SP_LSV(P, CT, T, R, csrlsvqr, Qr, true)                                                                        \
  FERRY_SP_LSV(P, CT, T, R, csrlsvqrHost, Qr, false)                                                                   \
  FERRY_SP_LSV(P, CT, T, R, csrlsvchol, Chol, true)                                                                    \
  FERRY_SP_LSV(P, CT, T, R, csrlsvcholHost, Chol, false)                                                               \
  FERRY_SP_LSV(P, CT, T, R, csrlsvluHost, Lu, false)                                                                   \
  cusolverStatus_t cusolverSp##P##csreigvsi(cusolverSpHandle_t h, int m, int nnz, const cusparseMatDescr_t d,          \
                                            const CT *val, const int *rowPtr, const int *colInd, CT mu0,              \
                                            const CT *x0, int maxite, R eps, CT *mu, CT *x) {                          \
    return eigvsi<T>("cusolverSp" #P "csreigvsi", true, h, m, nnz, d, reinterpret_cast<const T *>(val), rowPtr,        \
                     colInd, fromCuda<T>(mu0), reinterpret_cast<const T *>(x0), maxite, eps,              \
                     reinterpret_cast<T *>(mu), reinterpret_cast<T *>(x));                                             \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csreigvsiHost(cusolverSpHandle_t h, int m, int nnz, const cusparseMatDescr_t d,      \
                                                const CT *val, const int *rowPtr, const int *colInd, CT mu0,          \
                                                const CT *x0, int maxite, R eps, CT *mu, CT *x) {                      \
    return eigvsi<T>("cusolverSp" #P "csreigvsiHost", false, h, m, nnz, d, reinterpret_cast<const T *>(val), rowPtr,   \
                     colInd, fromCuda<T>(mu0), reinterpret_cast<const T *>(x0), maxite, eps,              \
                     reinterpret_cast<T *>(mu), reinterpret_cast<T *>(x));                                             \
  }
FERRY_SP_TYPED(S, float, float, float)
FERRY_SP_TYPED(D, double, double, double)
FERRY_SP_TYPED(C, cuComplex, C32, float)
FERRY_SP_TYPED(Z, cuDoubleComplex, C64, double)

cusolverStatus_t cusolverSpXcsrissymHost(cusolverSpHandle_t Handle, int M, int NnzA, const cusparseMatDescr_t Descr,
                                         const int *RowPtr, const int *RowEnd, const int *ColInd, int *IsSym) {
  int Base = 0;
  if (!IsSym || (M && !RowEnd))
    return lookupSp(Handle) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  if (cusolverStatus_t St = checkPattern(Handle, M, M, NnzA, Descr, RowPtr, RowEnd, ColInd, &Base))
    return St;
  std::vector<std::pair<int, int>> Entries, Transposed;
  for (int I = 0; I < M; ++I)
    for (int K = RowPtr[I] - Base; K < RowEnd[I] - Base; ++K) {
      Entries.emplace_back(I, ColInd[K] - Base);
      Transposed.emplace_back(ColInd[K] - Base, I);
    }
  for (auto *E : {&Entries, &Transposed}) {
    std::sort(E->begin(), E->end());
    E->erase(std::unique(E->begin(), E->end()), E->end());
  }
  *IsSym = Entries == Transposed;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpXcsrperm_bufferSizeHost(cusolverSpHandle_t Handle, int M, int N, int NnzA,
                                                   const cusparseMatDescr_t Descr, const int *RowPtr,
                                                   const int *ColInd, const int *P, const int *Q,
                                                   size_t *BufferSize) {
  int Base = 0;
  if (!BufferSize || (M && !P) || (N && !Q))
    return lookupSp(Handle) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  if (cusolverStatus_t St = checkPattern(Handle, M, N, NnzA, Descr, RowPtr, nullptr, ColInd, &Base))
    return St;
  // csrpermHost works in its own memory; the buffer only has to exist.
  *BufferSize = sizeof(int) * (static_cast<size_t>(M) + N + NnzA + 1);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpXcsrpermHost(cusolverSpHandle_t Handle, int M, int N, int NnzA,
                                        const cusparseMatDescr_t Descr, int *RowPtr, int *ColInd, const int *P,
                                        const int *Q, int *Map, void *Buffer) {
  int Base = 0;
  if ((M && !P) || (N && !Q) || (NnzA && !Map) || !Buffer)
    return lookupSp(Handle) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  if (cusolverStatus_t St = checkPattern(Handle, M, N, NnzA, Descr, RowPtr, nullptr, ColInd, &Base))
    return St;
  std::vector<int> QInv(N, -1), Seen(M, 0);
  for (int J = 0; J < N; ++J) {
    if (Q[J] < 0 || Q[J] >= N || QInv[Q[J]] >= 0)
      return CUSOLVER_STATUS_INVALID_VALUE; // q is not a permutation
    QInv[Q[J]] = J;
  }
  for (int I = 0; I < M; ++I) {
    if (P[I] < 0 || P[I] >= M || Seen[P[I]])
      return CUSOLVER_STATUS_INVALID_VALUE;
    Seen[P[I]] = 1;
  }
  // B(i, j) = A(p[i], q[j]): row i of B is row p[i] of A, column c becomes qinv[c].
  std::vector<int> NewRowPtr(M + 1, Base), NewCol, NewMap;
  NewCol.reserve(NnzA);
  NewMap.reserve(NnzA);
  std::vector<std::pair<int, int>> Row;
  for (int I = 0; I < M; ++I) {
    Row.clear();
    for (int K = RowPtr[P[I]] - Base; K < RowPtr[P[I] + 1] - Base; ++K)
      Row.emplace_back(QInv[ColInd[K] - Base], Map[K]);
    std::stable_sort(Row.begin(), Row.end(),
                     [](const std::pair<int, int> &A, const std::pair<int, int> &B) { return A.first < B.first; });
    for (auto &[C, From] : Row) {
      NewCol.push_back(C + Base);
      NewMap.push_back(From);
    }
    NewRowPtr[I + 1] = static_cast<int>(NewCol.size()) + Base;
  }
  std::copy(NewRowPtr.begin(), NewRowPtr.end(), RowPtr);
  std::copy(NewCol.begin(), NewCol.end(), ColInd);
  std::copy(NewMap.begin(), NewMap.end(), Map);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverSpXcsrsymrcmHost(cusolverSpHandle_t Handle, int N, int NnzA, const cusparseMatDescr_t Descr,
                                          const int *RowPtr, const int *ColInd, int *P) {
  int Base = 0;
  if (N && !P)
    return lookupSp(Handle) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  if (cusolverStatus_t St = checkPattern(Handle, N, N, NnzA, Descr, RowPtr, nullptr, ColInd, &Base))
    return St;
  std::vector<int> Perm = reverseCuthillMcKee(symmetricGraph(N, Base, RowPtr, ColInd));
  std::copy(Perm.begin(), Perm.end(), P);
  return CUSOLVER_STATUS_SUCCESS;
}

// The low-level (preview) API: info objects, analysis, and the typed calls.
#define FERRY_SP_INFO(NAME, TYPE, KIND)                                                                                \
  cusolverStatus_t cusolverSpCreate##NAME(TYPE *Info) {                                                                \
    if (!Info)                                                                                                         \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    auto *I = new (std::nothrow) LowInfo(LowKind::KIND);                                                               \
    if (!I)                                                                                                            \
      return CUSOLVER_STATUS_ALLOC_FAILED;                                                                             \
    *Info = reinterpret_cast<TYPE>(I);                                                                                 \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverSpDestroy##NAME(TYPE Info) {                                                                \
    LowInfo *I = lookupLow(Info, LowKind::KIND);                                                                       \
    if (!I)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    I->Magic = 0;                                                                                                      \
    delete I;                                                                                                          \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
FERRY_SP_INFO(CsrcholInfoHost, csrcholInfoHost_t, Chol)
FERRY_SP_INFO(CsrcholInfo, csrcholInfo_t, Chol)
FERRY_SP_INFO(CsrqrInfoHost, csrqrInfoHost_t, Qr)
FERRY_SP_INFO(CsrqrInfo, csrqrInfo_t, Qr)
FERRY_SP_INFO(CsrluInfoHost, csrluInfoHost_t, Lu)

cusolverStatus_t cusolverSpXcsrcholAnalysisHost(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d,
                                                const int *rowPtr, const int *colInd, csrcholInfoHost_t info) {
  return lowAnalysis(h, LowKind::Chol, info, n, n, nnzA, d, rowPtr, colInd);
}
cusolverStatus_t cusolverSpXcsrcholAnalysis(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d,
                                            const int *rowPtr, const int *colInd, csrcholInfo_t info) {
  if (SpHandle *H = lookupSp(h)) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  return lowAnalysis(h, LowKind::Chol, info, n, n, nnzA, d, rowPtr, colInd);
}
cusolverStatus_t cusolverSpXcsrqrAnalysisHost(cusolverSpHandle_t h, int m, int n, int nnzA, const cusparseMatDescr_t d,
                                              const int *rowPtr, const int *colInd, csrqrInfoHost_t info) {
  return lowAnalysis(h, LowKind::Qr, info, m, n, nnzA, d, rowPtr, colInd);
}
cusolverStatus_t cusolverSpXcsrqrAnalysis(cusolverSpHandle_t h, int m, int n, int nnzA, const cusparseMatDescr_t d,
                                          const int *rowPtr, const int *colInd, csrqrInfo_t info) {
  if (SpHandle *H = lookupSp(h)) {
    if (cusolverStatus_t St = deviceReadable(H))
      return St;
    if (cusolverStatus_t St = synchronize(H->Stream))
      return St;
  }
  return lowAnalysis(h, LowKind::Qr, info, m, n, nnzA, d, rowPtr, colInd);
}
cusolverStatus_t cusolverSpXcsrluAnalysisHost(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d,
                                              const int *rowPtr, const int *colInd, csrluInfoHost_t info) {
  return lowAnalysis(h, LowKind::Lu, info, n, n, nnzA, d, rowPtr, colInd);
}
cusolverStatus_t cusolverSpXcsrluNnzHost(cusolverSpHandle_t h, int *nnzL, int *nnzU, csrluInfoHost_t info) {
  LowInfo *I = lookupLow(info, LowKind::Lu);
  if (!lookupSp(h))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!I || !I->Factored || !nnzL || !nnzU)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int L = 0, U = 0;
  for (int R = 0; R < I->N; ++R)
    for (int C = 0; C < I->N; ++C) {
      L += inL(*I, R, C);
      U += inU(*I, R, C);
    }
  *nnzL = L;
  *nnzU = U;
  return CUSOLVER_STATUS_SUCCESS;
}

#define FERRY_SP_LOW(P, CT, T, R)                                                                                      \
  cusolverStatus_t cusolverSp##P##csrcholBufferInfoHost(cusolverSpHandle_t h, int n, int nnzA,                         \
                                                        const cusparseMatDescr_t d, const CT *val, const int *rowPtr,  \
                                                        const int *colInd, csrcholInfoHost_t info, size_t *internal,   \
                                                        size_t *work) {                                                \
    return lowBufferInfo<T>(h, LowKind::Chol, info, n, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,  \
                            internal, work);                                                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholBufferInfo(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d, \
                                                    const CT *val, const int *rowPtr, const int *colInd,              \
                                                    csrcholInfo_t info, size_t *internal, size_t *work) {             \
    return lowBufferInfo<T>(h, LowKind::Chol, info, n, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,  \
                            internal, work);                                                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholFactorHost(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d, \
                                                    const CT *val, const int *rowPtr, const int *colInd,              \
                                                    csrcholInfoHost_t info, void *buffer) {                           \
    return cholFactorCall<T>(h, info, false, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd, buffer);   \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholFactor(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d,     \
                                                const CT *val, const int *rowPtr, const int *colInd,                  \
                                                csrcholInfo_t info, void *buffer) {                                   \
    return cholFactorCall<T>(h, info, true, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd, buffer);    \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholZeroPivotHost(cusolverSpHandle_t h, csrcholInfoHost_t info, R tol,           \
                                                       int *position) {                                                \
    return lowZeroPivot<T>(h, LowKind::Chol, info, tol, position, false);                                              \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholZeroPivot(cusolverSpHandle_t h, csrcholInfo_t info, R tol, int *position) {  \
    return lowZeroPivot<T>(h, LowKind::Chol, info, tol, position, true);                                               \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholSolveHost(cusolverSpHandle_t h, int n, const CT *b, CT *x,                   \
                                                   csrcholInfoHost_t info, void *buffer) {                            \
    return cholSolve<T>(h, info, false, n, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x), buffer);          \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrcholSolve(cusolverSpHandle_t h, int n, const CT *b, CT *x, csrcholInfo_t info,   \
                                               void *buffer) {                                                         \
    return cholSolve<T>(h, info, true, n, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x), buffer);           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrBufferInfoHost(cusolverSpHandle_t h, int m, int n, int nnzA,                    \
                                                      const cusparseMatDescr_t d, const CT *val, const int *rowPtr,    \
                                                      const int *colInd, csrqrInfoHost_t info, size_t *internal,       \
                                                      size_t *work) {                                                  \
    return lowBufferInfo<T>(h, LowKind::Qr, info, m, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,    \
                            internal, work);                                                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrBufferInfo(cusolverSpHandle_t h, int m, int n, int nnzA,                        \
                                                  const cusparseMatDescr_t d, const CT *val, const int *rowPtr,        \
                                                  const int *colInd, csrqrInfo_t info, size_t *internal,               \
                                                  size_t *work) {                                                      \
    return lowBufferInfo<T>(h, LowKind::Qr, info, m, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,    \
                            internal, work);                                                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrSetupHost(cusolverSpHandle_t h, int m, int n, int nnzA,                         \
                                                 const cusparseMatDescr_t d, const CT *val, const int *rowPtr,         \
                                                 const int *colInd, CT mu, csrqrInfoHost_t info) {                     \
    return lowLoad<T>(h, LowKind::Qr, info, false, m, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,   \
                      fromCuda<T>(mu));                                                                                \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrSetup(cusolverSpHandle_t h, int m, int n, int nnzA, const cusparseMatDescr_t d, \
                                             const CT *val, const int *rowPtr, const int *colInd, CT mu,              \
                                             csrqrInfo_t info) {                                                       \
    return lowLoad<T>(h, LowKind::Qr, info, true, m, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,    \
                      fromCuda<T>(mu));                                                                                \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrFactorHost(cusolverSpHandle_t h, int m, int n, int nnzA, CT *b, CT *x,          \
                                                  csrqrInfoHost_t info, void *buffer) {                                \
    return qrFactorCall<T>(h, info, false, m, n, nnzA, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x),      \
                           buffer);                                                                                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrFactor(cusolverSpHandle_t h, int m, int n, int nnzA, CT *b, CT *x,              \
                                              csrqrInfo_t info, void *buffer) {                                        \
    return qrFactorCall<T>(h, info, true, m, n, nnzA, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x),       \
                           buffer);                                                                                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrZeroPivotHost(cusolverSpHandle_t h, csrqrInfoHost_t info, R tol,               \
                                                     int *position) {                                                  \
    return lowZeroPivot<T>(h, LowKind::Qr, info, tol, position, false);                                                \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrZeroPivot(cusolverSpHandle_t h, csrqrInfo_t info, R tol, int *position) {      \
    return lowZeroPivot<T>(h, LowKind::Qr, info, tol, position, true);                                                 \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrSolveHost(cusolverSpHandle_t h, int m, int n, CT *b, CT *x,                     \
                                                 csrqrInfoHost_t info, void *buffer) {                                 \
    return qrSolve<T>(h, info, false, m, n, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x), buffer);         \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrqrSolve(cusolverSpHandle_t h, int m, int n, CT *b, CT *x, csrqrInfo_t info,       \
                                             void *buffer) {                                                           \
    return qrSolve<T>(h, info, true, m, n, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x), buffer);          \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrluBufferInfoHost(cusolverSpHandle_t h, int n, int nnzA,                           \
                                                      const cusparseMatDescr_t d, const CT *val, const int *rowPtr,    \
                                                      const int *colInd, csrluInfoHost_t info, size_t *internal,       \
                                                      size_t *work) {                                                  \
    return lowBufferInfo<T>(h, LowKind::Lu, info, n, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd,    \
                            internal, work);                                                                           \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrluFactorHost(cusolverSpHandle_t h, int n, int nnzA, const cusparseMatDescr_t d,   \
                                                  const CT *val, const int *rowPtr, const int *colInd,                \
                                                  csrluInfoHost_t info, R pivot_threshold, void *buffer) {            \
    return luFactorCall<T>(h, info, n, nnzA, d, reinterpret_cast<const T *>(val), rowPtr, colInd, pivot_threshold,    \
                           buffer);                                                                                    \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrluZeroPivotHost(cusolverSpHandle_t h, csrluInfoHost_t info, R tol,               \
                                                     int *position) {                                                  \
    return lowZeroPivot<T>(h, LowKind::Lu, info, tol, position, false);                                                \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrluSolveHost(cusolverSpHandle_t h, int n, const CT *b, CT *x, csrluInfoHost_t info, \
                                                 void *buffer) {                                                       \
    return luSolve<T>(h, info, n, reinterpret_cast<const T *>(b), reinterpret_cast<T *>(x), buffer);                   \
  }                                                                                                                    \
  cusolverStatus_t cusolverSp##P##csrluExtractHost(cusolverSpHandle_t h, int *P_, int *Q_, const cusparseMatDescr_t dL,\
                                                   CT *valL, int *rowL, int *colL, const cusparseMatDescr_t dU,        \
                                                   CT *valU, int *rowU, int *colU, csrluInfoHost_t info,               \
                                                   void *buffer) {                                                     \
    return luExtract<T>(h, info, P_, Q_, dL, reinterpret_cast<T *>(valL), rowL, colL, dU, reinterpret_cast<T *>(valU), \
                        rowU, colU, buffer);                                                                           \
  }
FERRY_SP_LOW(S, float, float, float)
FERRY_SP_LOW(D, double, double, double)
FERRY_SP_LOW(C, cuComplex, C32, float)
FERRY_SP_LOW(Z, cuDoubleComplex, C64, double)
