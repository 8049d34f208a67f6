/// \file
/// nnz_compress and csr2csr_compress: drop a CSR matrix's entries whose
/// magnitude is at most a tolerance (CuPy's eliminate_zeros uses them with
/// tolerance 0), in S/D/C/Z. The first call counts the kept entries per row
/// (nnzPerRow) and in all (nnzC, a host or device pointer by the handle's
/// pointer mode); the second writes C's columns, values and row offsets.
/// For complex matrices the tolerance is its real part, as cuSPARSE
/// documents. What NVIDIA's checks was measured on the H100
/// (tests/cusparse/CsrCompress.cu, goldens/CsrCompress.out).
#include "libs/cusparse/Cusparse.h"

#include <cmath>

using namespace ferry::cusparse;

namespace {

double magnitude(float V) { return std::fabs(V); }
double magnitude(double V) { return std::fabs(V); }
double magnitude(cuComplex V) { return std::hypot(V.x, V.y); }
double magnitude(cuDoubleComplex V) { return std::hypot(V.x, V.y); }
double tolerance(float T) { return T; }
double tolerance(double T) { return T; }
double tolerance(cuComplex T) { return T.x; }
double tolerance(cuDoubleComplex T) { return T.x; }

cusparseStatus_t checkCommon(cusparseHandle_t Handle, int M, const cusparseMatDescr_t Descr) {
  if (!validHandle(Handle))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (M < 0 || !Descr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Descr->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  return CUSPARSE_STATUS_SUCCESS;
}

/// NVIDIA's (measured): m = 0 writes nothing; a null nnzC is no error (and
/// nothing is written there); a null nnzPerRow is EXECUTION_FAILED.
template <typename T>
cusparseStatus_t count(cusparseHandle_t Handle, int M, const cusparseMatDescr_t Descr, const T *Val,
                       const int *RowPtr, int *NnzPerRow, int *NnzC, T Tol) {
  if (cusparseStatus_t S = checkCommon(Handle, M, Descr))
    return S;
  double Limit = tolerance(Tol);
  if (Limit < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!M)
    return CUSPARSE_STATUS_SUCCESS;
  if (!NnzPerRow) {
    logMessage("cusparse<t>nnz_compress: nnzPerRow is null (CUSPARSE_STATUS_EXECUTION_FAILED, as NVIDIA's)");
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  }
  if (!RowPtr) // Val may be null for a matrix with no entries (CuPy's empty matrices)
    return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseStatus_t S = enqueue(Handle, [=] {
    int Start = RowPtr[0], Sum = 0;
    for (int I = 0; I < M; ++I) {
      int Kept = 0;
      for (int K = RowPtr[I] - Start; K < RowPtr[I + 1] - Start; ++K)
        Kept += magnitude(Val[K]) > Limit;
      NnzPerRow[I] = Kept;
      Sum += Kept;
    }
    if (NnzC)
      *NnzC = Sum;
  });
  // A host count is there when the call returns.
  if (S == CUSPARSE_STATUS_SUCCESS && Handle->Mode == CUSPARSE_POINTER_MODE_HOST)
    S = syncStream(Handle);
  return S;
}

template <typename T>
cusparseStatus_t compress(cusparseHandle_t Handle, int M, int N, const cusparseMatDescr_t Descr, const T *Val,
                          const int *ColInd, const int *RowPtr, int NnzA, const int *NnzPerRow, T *ValC,
                          int *ColIndC, int *RowPtrC, T Tol) {
  if (cusparseStatus_t S = checkCommon(Handle, M, Descr))
    return S;
  double Limit = tolerance(Tol);
  // NVIDIA's checks neither n nor nnzA (measured); a null nnzPerRow makes
  // its kernel fault after INTERNAL_ERROR.
  if (Limit < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!M)
    return CUSPARSE_STATUS_SUCCESS;
  if (!NnzPerRow) {
    logMessage("cusparse<t>csr2csr_compress: nnzPerRow is null (CUSPARSE_STATUS_INTERNAL_ERROR, as NVIDIA's)");
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  }
  if (!RowPtr || !RowPtrC || (NnzA > 0 && (!Val || !ColInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int Base = Descr->Base;
  return enqueue(Handle, [=] {
    int Start = RowPtr[0], Out = 0;
    RowPtrC[0] = Base;
    for (int I = 0; I < M; ++I) {
      for (int K = RowPtr[I] - Start; K < RowPtr[I + 1] - Start; ++K)
        if (magnitude(Val[K]) > Limit) {
          ValC[Out] = Val[K];
          ColIndC[Out++] = ColInd[K];
        }
      RowPtrC[I + 1] = Out + Base;
    }
  });
}

} // namespace

extern "C" {

#define FERRY_COMPRESS(P, T)                                                                                           \
  cusparseStatus_t cusparse##P##nnz_compress(cusparseHandle_t handle, int m, const cusparseMatDescr_t descr,           \
                                             const T *csrSortedValA, const int *csrSortedRowPtrA, int *nnzPerRow,     \
                                             int *nnzC, T tol) {                                                      \
    return count<T>(handle, m, descr, csrSortedValA, csrSortedRowPtrA, nnzPerRow, nnzC, tol);                         \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##csr2csr_compress(                                                                      \
      cusparseHandle_t handle, int m, int n, const cusparseMatDescr_t descrA, const T *csrSortedValA,                 \
      const int *csrSortedColIndA, const int *csrSortedRowPtrA, int nnzA, const int *nnzPerRow, T *csrSortedValC,     \
      int *csrSortedColIndC, int *csrSortedRowPtrC, T tol) {                                                           \
    return compress<T>(handle, m, n, descrA, csrSortedValA, csrSortedColIndA, csrSortedRowPtrA, nnzA, nnzPerRow,     \
                       csrSortedValC, csrSortedColIndC, csrSortedRowPtrC, tol);                                        \
  }
FERRY_COMPRESS(S, float)
FERRY_COMPRESS(D, double)
FERRY_COMPRESS(C, cuComplex)
FERRY_COMPRESS(Z, cuDoubleComplex)
#undef FERRY_COMPRESS

} // extern "C"
