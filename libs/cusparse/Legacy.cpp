/// \file
/// The legacy incomplete factorizations the preconditioned solvers use:
/// csrilu02 (ILU(0)) and csric02 (IC(0)) in S/D/C/Z, with their info
/// objects, buffer sizes, analysis (structural zero pivots), numeric boost
/// (ILU) and zero-pivot queries. The factorization overwrites the CSR values
/// in place, in stream order; the zero-pivot query waits for the stream
/// (its position is a host value in host pointer mode).
#include "libs/cusparse/Cusparse.h"

#include <atomic>
#include <cmath>
#include <new>
#include <vector>

using namespace ferry::cusparse;

/// Shared by csrilu02Info and csric02Info.
struct FactorInfo {
  std::atomic<int> Position{-1}; // first zero pivot (in the matrix's base), -1: none
  bool Analysed = false;
  bool Boost = false;
  double BoostTol = 0;
  unsigned char BoostVal[16] = {};
};
struct csrilu02Info : FactorInfo {};
struct csric02Info : FactorInfo {};

namespace {

/// What NVIDIA's answers for a null handle in the legacy API (recorded).
constexpr cusparseStatus_t BadHandle = CUSPARSE_STATUS_NOT_INITIALIZED;

constexpr int ScratchBytes = 128;

template <typename T> double magnitude(T V) { return std::abs(V); }

cusparseStatus_t checkFactor(cusparseHandle_t handle, int m, int nnz,
                             const cusparseMatDescr_t descrA, const void *Val, const int *RowPtr,
                             const int *ColInd, const FactorInfo *Info) {
  if (!validHandle(handle))
    return BadHandle;
  if (m < 0 || nnz < 0 || !descrA || !Info || !RowPtr || (nnz > 0 && (!Val || !ColInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (descrA->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  return CUSPARSE_STATUS_SUCCESS;
}

/// Position of each row's diagonal (-1 where missing); records the first
/// missing one as a structural zero pivot.
std::vector<int> findDiagonals(int m, const int *RowPtr, const int *ColInd, int Base,
                               FactorInfo &Info) {
  std::vector<int> Diag(m, -1);
  int Start = Base; // offsets count from the index base
  for (int I = 0; I < m; ++I) {
    for (int K = RowPtr[I] - Start; K < RowPtr[I + 1] - Start; ++K)
      if (ColInd[K] - Base == I)
        Diag[I] = K;
    if (Diag[I] < 0 && Info.Position.load() < 0)
      Info.Position = I + Base;
  }
  return Diag;
}

/// ILU(0) in place (columns sorted per row, as cuSPARSE requires).
template <typename T>
void ilu0(int m, T *Val, const int *RowPtr, const int *ColInd, int Base, FactorInfo &Info) {
  Info.Position = -1;
  std::vector<int> Diag = findDiagonals(m, RowPtr, ColInd, Base, Info);
  int Start = Base; // offsets count from the index base
  T BoostVal;
  std::memcpy(&BoostVal, Info.BoostVal, sizeof(T));
  std::vector<int> Pos(m, -1);
  for (int I = 0; I < m; ++I) {
    int K0 = RowPtr[I] - Start, K1 = RowPtr[I + 1] - Start;
    for (int K = K0; K < K1; ++K)
      Pos[ColInd[K] - Base] = K;
    for (int K = K0; K < K1; ++K) {
      int Kc = ColInd[K] - Base;
      if (Kc >= I)
        break;
      if (Diag[Kc] < 0)
        continue;
      T Pivot = Val[Diag[Kc]];
      Val[K] /= Pivot;
      for (int L = Diag[Kc] + 1; L < RowPtr[Kc + 1] - Start; ++L) {
        int J = ColInd[L] - Base;
        if (Pos[J] >= 0)
          Val[Pos[J]] -= Val[K] * Val[L];
      }
    }
    if (Diag[I] >= 0) {
      T &D = Val[Diag[I]];
      if (Info.Boost && magnitude(D) <= Info.BoostTol)
        D = BoostVal;
      if (D == T{}) {
        int Want = I + Base;
        int Cur = Info.Position.load();
        if (Cur < 0 || Want < Cur)
          Info.Position = Want;
      }
    }
    for (int K = K0; K < K1; ++K)
      Pos[ColInd[K] - Base] = -1;
  }
}

/// IC(0) in place on the lower triangle: A ~ L L^H.
template <typename T>
void ic0(int m, T *Val, const int *RowPtr, const int *ColInd, int Base, FactorInfo &Info) {
  Info.Position = -1;
  std::vector<int> Diag = findDiagonals(m, RowPtr, ColInd, Base, Info);
  int Start = Base; // offsets count from the index base
  std::vector<int> Pos(m, -1);
  for (int I = 0; I < m; ++I) {
    int K0 = RowPtr[I] - Start, K1 = RowPtr[I + 1] - Start;
    for (int K = K0; K < K1; ++K)
      Pos[ColInd[K] - Base] = K;
    for (int K = K0; K < K1; ++K) {
      int J = ColInd[K] - Base;
      if (J >= I)
        break;
      T Sum = Val[K];
      for (int L = RowPtr[J] - Start; L < RowPtr[J + 1] - Start; ++L) {
        int C = ColInd[L] - Base;
        if (C >= J)
          break;
        if (Pos[C] >= 0 && Pos[C] < K)
          Sum -= Val[Pos[C]] * conjOf(Val[L]);
      }
      if (Diag[J] >= 0)
        Val[K] = Sum / Val[Diag[J]];
    }
    if (Diag[I] >= 0) {
      T Sum = Val[Diag[I]];
      for (int K = K0; K < Diag[I]; ++K)
        if (ColInd[K] - Base < I)
          Sum -= Val[K] * conjOf(Val[K]);
      T Root = std::sqrt(Sum);
      Val[Diag[I]] = Root;
      if (Root == T{} || !(magnitude(Root) == magnitude(Root))) {
        int Want = I + Base, Cur = Info.Position.load();
        if (Cur < 0 || Want < Cur)
          Info.Position = Want;
      }
    }
    for (int K = K0; K < K1; ++K)
      Pos[ColInd[K] - Base] = -1;
  }
}

cusparseStatus_t zeroPivot(cusparseHandle_t handle, FactorInfo *Info, int *position) {
  if (!validHandle(handle))
    return BadHandle;
  if (!Info || !position)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = syncStream(handle))
    return S;
  int P = Info->Position.load();
  *position = P; // host and device pointers alike: device memory is host memory here
  return P >= 0 ? CUSPARSE_STATUS_ZERO_PIVOT : CUSPARSE_STATUS_SUCCESS;
}

template <typename T>
cusparseStatus_t bufferSize(cusparseHandle_t handle, int m, int nnz,
                            const cusparseMatDescr_t descrA, const T *Val, const int *RowPtr,
                            const int *ColInd, FactorInfo *Info, int *Size) {
  if (cusparseStatus_t S = checkFactor(handle, m, nnz, descrA, Val, RowPtr, ColInd, Info))
    return S;
  if (!Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename T>
cusparseStatus_t analysis(cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,
                          const T *Val, const int *RowPtr, const int *ColInd, FactorInfo *Info,
                          cusparseSolvePolicy_t policy, void *Buffer) {
  if (cusparseStatus_t S = checkFactor(handle, m, nnz, descrA, Val, RowPtr, ColInd, Info))
    return S;
  if (!Buffer ||
      (policy != CUSPARSE_SOLVE_POLICY_NO_LEVEL && policy != CUSPARSE_SOLVE_POLICY_USE_LEVEL))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Info->Analysed = true;
  int Base = descrA->Base;
  return enqueue(handle, [=] {
    Info->Position = -1;
    findDiagonals(m, RowPtr, ColInd, Base, *Info);
  });
}

template <typename T, bool Cholesky>
cusparseStatus_t factor(cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,
                        T *Val, const int *RowPtr, const int *ColInd, FactorInfo *Info,
                        cusparseSolvePolicy_t policy, void *Buffer) {
  if (cusparseStatus_t S = checkFactor(handle, m, nnz, descrA, Val, RowPtr, ColInd, Info))
    return S;
  if (!Buffer ||
      (policy != CUSPARSE_SOLVE_POLICY_NO_LEVEL && policy != CUSPARSE_SOLVE_POLICY_USE_LEVEL))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!Info->Analysed)
    return CUSPARSE_STATUS_INVALID_VALUE;
  int Base = descrA->Base;
  return enqueue(handle, [=] {
    if (Cholesky)
      ic0(m, Val, RowPtr, ColInd, Base, *Info);
    else
      ilu0(m, Val, RowPtr, ColInd, Base, *Info);
  });
}

template <typename T>
cusparseStatus_t numericBoost(cusparseHandle_t handle, FactorInfo *Info, int enable,
                              const double *tol, const T *boost) {
  if (!validHandle(handle))
    return BadHandle;
  if (!Info)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Info->Boost = enable != 0;
  if (!enable)
    return CUSPARSE_STATUS_SUCCESS;
  if (!tol || !boost)
    return CUSPARSE_STATUS_INVALID_VALUE;
  // Host or device pointers: both are readable here (the host backend);
  // read in stream order so a device value written before is seen.
  if (handle->Mode == CUSPARSE_POINTER_MODE_DEVICE)
    if (cusparseStatus_t S = syncStream(handle))
      return S;
  Info->BoostTol = *tol;
  std::memcpy(Info->BoostVal, boost, sizeof(T));
  return CUSPARSE_STATUS_SUCCESS;
}

} // namespace

extern "C" {

cusparseStatus_t cusparseCreateCsrilu02Info(csrilu02Info_t *info) {
  if (!info)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *info = new (std::nothrow) csrilu02Info;
  return *info ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}
cusparseStatus_t cusparseDestroyCsrilu02Info(csrilu02Info_t info) {
  delete info;
  return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCreateCsric02Info(csric02Info_t *info) {
  if (!info)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *info = new (std::nothrow) csric02Info;
  return *info ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}
cusparseStatus_t cusparseDestroyCsric02Info(csric02Info_t info) {
  delete info;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseXcsrilu02_zeroPivot(cusparseHandle_t handle, csrilu02Info_t info,
                                             int *position) {
  return zeroPivot(handle, info, position);
}
cusparseStatus_t cusparseXcsric02_zeroPivot(cusparseHandle_t handle, csric02Info_t info,
                                            int *position) {
  return zeroPivot(handle, info, position);
}

#define FERRY_FACTOR(P, T, CT)                                                                     \
  cusparseStatus_t cusparse##P##csrilu02_bufferSize(                                               \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA, CT *csrSortedValA, \
      const int *csrSortedRowPtrA, const int *csrSortedColIndA, csrilu02Info_t info,               \
      int *pBufferSizeInBytes) {                                                                   \
    return bufferSize(handle, m, nnz, descrA, reinterpret_cast<const T *>(csrSortedValA),          \
                      csrSortedRowPtrA, csrSortedColIndA, info, pBufferSizeInBytes);               \
  }                                                                                                \
  cusparseStatus_t cusparse##P##csrilu02_analysis(                                                 \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,                    \
      const CT *csrSortedValA, const int *csrSortedRowPtrA, const int *csrSortedColIndA,           \
      csrilu02Info_t info, cusparseSolvePolicy_t policy, void *pBuffer) {                          \
    return analysis(handle, m, nnz, descrA, reinterpret_cast<const T *>(csrSortedValA),            \
                    csrSortedRowPtrA, csrSortedColIndA, info, policy, pBuffer);                    \
  }                                                                                                \
  cusparseStatus_t cusparse##P##csrilu02(                                                          \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,                    \
      CT *csrSortedValA_valM, const int *csrSortedRowPtrA, const int *csrSortedColIndA,            \
      csrilu02Info_t info, cusparseSolvePolicy_t policy, void *pBuffer) {                          \
    return factor<T, false>(handle, m, nnz, descrA, reinterpret_cast<T *>(csrSortedValA_valM),     \
                            csrSortedRowPtrA, csrSortedColIndA, info, policy, pBuffer);            \
  }                                                                                                \
  cusparseStatus_t cusparse##P##csric02_bufferSize(                                                \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA, CT *csrSortedValA, \
      const int *csrSortedRowPtrA, const int *csrSortedColIndA, csric02Info_t info,                \
      int *pBufferSizeInBytes) {                                                                   \
    return bufferSize(handle, m, nnz, descrA, reinterpret_cast<const T *>(csrSortedValA),          \
                      csrSortedRowPtrA, csrSortedColIndA, info, pBufferSizeInBytes);               \
  }                                                                                                \
  cusparseStatus_t cusparse##P##csric02_analysis(                                                  \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,                    \
      const CT *csrSortedValA, const int *csrSortedRowPtrA, const int *csrSortedColIndA,           \
      csric02Info_t info, cusparseSolvePolicy_t policy, void *pBuffer) {                           \
    return analysis(handle, m, nnz, descrA, reinterpret_cast<const T *>(csrSortedValA),            \
                    csrSortedRowPtrA, csrSortedColIndA, info, policy, pBuffer);                    \
  }                                                                                                \
  cusparseStatus_t cusparse##P##csric02(                                                           \
      cusparseHandle_t handle, int m, int nnz, const cusparseMatDescr_t descrA,                    \
      CT *csrSortedValA_valM, const int *csrSortedRowPtrA, const int *csrSortedColIndA,            \
      csric02Info_t info, cusparseSolvePolicy_t policy, void *pBuffer) {                           \
    return factor<T, true>(handle, m, nnz, descrA, reinterpret_cast<T *>(csrSortedValA_valM),      \
                           csrSortedRowPtrA, csrSortedColIndA, info, policy, pBuffer);             \
  }

FERRY_FACTOR(S, float, float)
FERRY_FACTOR(D, double, double)
FERRY_FACTOR(C, std::complex<float>, cuComplex)
FERRY_FACTOR(Z, std::complex<double>, cuDoubleComplex)
#undef FERRY_FACTOR

cusparseStatus_t cusparseScsrilu02_numericBoost(cusparseHandle_t handle, csrilu02Info_t info,
                                                int enable_boost, double *tol, float *boost_val) {
  return numericBoost(handle, info, enable_boost, tol, boost_val);
}
cusparseStatus_t cusparseDcsrilu02_numericBoost(cusparseHandle_t handle, csrilu02Info_t info,
                                                int enable_boost, double *tol, double *boost_val) {
  return numericBoost(handle, info, enable_boost, tol, boost_val);
}
cusparseStatus_t cusparseCcsrilu02_numericBoost(cusparseHandle_t handle, csrilu02Info_t info,
                                                int enable_boost, double *tol,
                                                cuComplex *boost_val) {
  return numericBoost(handle, info, enable_boost, tol,
                      reinterpret_cast<const std::complex<float> *>(boost_val));
}
cusparseStatus_t cusparseZcsrilu02_numericBoost(cusparseHandle_t handle, csrilu02Info_t info,
                                                int enable_boost, double *tol,
                                                cuDoubleComplex *boost_val) {
  return numericBoost(handle, info, enable_boost, tol,
                      reinterpret_cast<const std::complex<double> *>(boost_val));
}

} // extern "C"
