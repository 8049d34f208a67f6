/// \file
/// Conversions and helpers: Csr2cscEx2, Xcoo2csr/Xcsr2coo, SparseToDense,
/// DenseToSparse, the COO/CSR/CSC sorts with their permutations, and
/// CreateIdentityPermutation. All stream ordered; DenseToSparse_analysis
/// waits for its count, since the caller reads B's nnz right after it.
#include "libs/cusparse/Sparse.h"

#include <numeric>

using namespace ferry::cusparse;

namespace {

/// What NVIDIA's answers for a null handle (recorded): the generic calls
/// (Csr2cscEx2, SparseToDense, DenseToSparse) INVALID_VALUE, the legacy
/// X* helpers NOT_INITIALIZED.
constexpr cusparseStatus_t BadHandle = CUSPARSE_STATUS_INVALID_VALUE;
constexpr cusparseStatus_t LegacyBadHandle = CUSPARSE_STATUS_NOT_INITIALIZED;

constexpr size_t ScratchBytes = 128;

bool validBase(cusparseIndexBase_t B) {
  return B == CUSPARSE_INDEX_BASE_ZERO || B == CUSPARSE_INDEX_BASE_ONE;
}

/// Sorts entries [0, N) by Key (stable), permuting Keys' arrays and P.
template <typename KeyFn>
void sortEntries(int N, KeyFn Key, std::initializer_list<int *> Arrays, int *P) {
  std::vector<int> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](int A, int B) { return Key(A) < Key(B); });
  std::vector<int> Tmp(N);
  for (int *Arr : Arrays) {
    if (!Arr)
      continue;
    for (int K = 0; K < N; ++K)
      Tmp[K] = Arr[Order[K]];
    std::copy(Tmp.begin(), Tmp.end(), Arr);
  }
  if (P) {
    for (int K = 0; K < N; ++K)
      Tmp[K] = P[Order[K]];
    std::copy(Tmp.begin(), Tmp.end(), P);
  }
}

/// Visits the nonzeros of dense A in B's order (rows for CSR and COO,
/// columns for CSC): Fn(outer, inner, value).
template <typename T, typename F>
void visitNonzeros(const cusparseDnMatDescr &A, bool ByColumn, F Fn) {
  Dense<T> D = dense<T>(A);
  int64_t Outer = ByColumn ? A.Cols : A.Rows, Inner = ByColumn ? A.Rows : A.Cols;
  for (int64_t O = 0; O < Outer; ++O)
    for (int64_t I = 0; I < Inner; ++I) {
      T V = ByColumn ? D.at(I, O) : D.at(O, I);
      if (V != T{})
        Fn(O, I, V);
    }
}

} // namespace

extern "C" {

cusparseStatus_t cusparseCsr2cscEx2_bufferSize(cusparseHandle_t handle, int m, int n, int nnz,
                                               const void *csrVal, const int *csrRowPtr,
                                               const int *csrColInd, void *cscVal, int *cscColPtr,
                                               int *cscRowInd, cudaDataType valType,
                                               cusparseAction_t copyValues,
                                               cusparseIndexBase_t idxBase,
                                               cusparseCsr2CscAlg_t alg, size_t *bufferSize) {
  if (!validHandle(handle))
    return BadHandle;
  (void)csrVal;
  (void)cscVal;
  (void)csrColInd;
  (void)cscRowInd;
  if (m < 0 || n < 0 || nnz < 0 || !bufferSize || !validBase(idxBase) ||
      alg != CUSPARSE_CSR2CSC_ALG1 ||
      (copyValues != CUSPARSE_ACTION_SYMBOLIC && copyValues != CUSPARSE_ACTION_NUMERIC) ||
      !csrRowPtr || !cscColPtr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (copyValues == CUSPARSE_ACTION_NUMERIC && !valueSize(valType)) {
    logMessage("cusparseCsr2cscEx2: value type %d is not implemented", static_cast<int>(valType));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCsr2cscEx2(cusparseHandle_t handle, int m, int n, int nnz,
                                    const void *csrVal, const int *csrRowPtr, const int *csrColInd,
                                    void *cscVal, int *cscColPtr, int *cscRowInd,
                                    cudaDataType valType, cusparseAction_t copyValues,
                                    cusparseIndexBase_t idxBase, cusparseCsr2CscAlg_t alg,
                                    void *buffer) {
  size_t Size;
  if (cusparseStatus_t S = cusparseCsr2cscEx2_bufferSize(handle, m, n, nnz, csrVal, csrRowPtr,
                                                         csrColInd, cscVal, cscColPtr, cscRowInd,
                                                         valType, copyValues, idxBase, alg, &Size))
    return S;
  if (!buffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (nnz > 0 &&
      (!csrColInd || !cscRowInd || (copyValues == CUSPARSE_ACTION_NUMERIC && (!csrVal || !cscVal))))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [=] {
    int B = idxBase;
    std::vector<int> Count(n + 1, 0);
    for (int K = 0; K < nnz; ++K)
      ++Count[csrColInd[K] - B + 1];
    for (int J = 0; J < n; ++J)
      Count[J + 1] += Count[J];
    for (int J = 0; J <= n; ++J)
      cscColPtr[J] = Count[J] + B;
    size_t Sz = copyValues == CUSPARSE_ACTION_NUMERIC ? valueSize(valType) : 0;
    for (int I = 0; I < m; ++I)
      for (int K = csrRowPtr[I] - B; K < csrRowPtr[I + 1] - B; ++K) {
        int At = Count[csrColInd[K] - B]++;
        cscRowInd[At] = I + B;
        if (Sz)
          std::memcpy(static_cast<char *>(cscVal) + At * Sz,
                      static_cast<const char *>(csrVal) + K * Sz, Sz);
      }
  });
}

cusparseStatus_t cusparseXcoo2csr(cusparseHandle_t handle, const int *cooRowInd, int nnz, int m,
                                  int *csrSortedRowPtr, cusparseIndexBase_t idxBase) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (nnz < 0 || m < 0 || !validBase(idxBase) || !csrSortedRowPtr || (nnz > 0 && !cooRowInd))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [=] {
    int B = idxBase;
    std::vector<int> Count(m + 1, 0);
    for (int K = 0; K < nnz; ++K)
      ++Count[cooRowInd[K] - B + 1];
    for (int I = 0; I < m; ++I)
      Count[I + 1] += Count[I];
    for (int I = 0; I <= m; ++I)
      csrSortedRowPtr[I] = Count[I] + B;
  });
}

cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t handle, const int *csrSortedRowPtr, int nnz,
                                  int m, int *cooRowInd, cusparseIndexBase_t idxBase) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (nnz < 0 || m < 0 || !validBase(idxBase) || !csrSortedRowPtr || (nnz > 0 && !cooRowInd))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [=] {
    int Start = idxBase;
    for (int I = 0; I < m; ++I)
      for (int K = csrSortedRowPtr[I] - Start; K < csrSortedRowPtr[I + 1] - Start; ++K)
        cooRowInd[K] = I + idxBase;
  });
}

cusparseStatus_t cusparseCreateIdentityPermutation(cusparseHandle_t handle, int n, int *p) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (n < 0 || (n > 0 && !p))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [=] { std::iota(p, p + n, 0); });
}

cusparseStatus_t cusparseXcoosort_bufferSizeExt(cusparseHandle_t handle, int m, int n, int nnz,
                                                const int *cooRowsA, const int *cooColsA,
                                                size_t *pBufferSizeInBytes) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (m < 0 || n < 0 || nnz < 0 || !pBufferSizeInBytes || (nnz > 0 && (!cooRowsA || !cooColsA)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *pBufferSizeInBytes = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t cooSort(cusparseHandle_t handle, int m, int n, int nnz, int *Rows,
                                int *Cols, int *P, void *pBuffer, bool ByRow) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (m < 0 || n < 0 || nnz < 0 || !pBuffer || (nnz > 0 && (!Rows || !Cols)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [=] {
    if (ByRow)
      sortEntries(
          nnz, [&](int K) { return std::make_pair(Rows[K], Cols[K]); }, {Rows, Cols}, P);
    else
      sortEntries(
          nnz, [&](int K) { return std::make_pair(Cols[K], Rows[K]); }, {Rows, Cols}, P);
  });
}

cusparseStatus_t cusparseXcoosortByRow(cusparseHandle_t handle, int m, int n, int nnz,
                                       int *cooRowsA, int *cooColsA, int *P, void *pBuffer) {
  return cooSort(handle, m, n, nnz, cooRowsA, cooColsA, P, pBuffer, true);
}

cusparseStatus_t cusparseXcoosortByColumn(cusparseHandle_t handle, int m, int n, int nnz,
                                          int *cooRowsA, int *cooColsA, int *P, void *pBuffer) {
  return cooSort(handle, m, n, nnz, cooRowsA, cooColsA, P, pBuffer, false);
}

cusparseStatus_t cusparseXcsrsort_bufferSizeExt(cusparseHandle_t handle, int m, int n, int nnz,
                                                const int *csrRowPtrA, const int *csrColIndA,
                                                size_t *pBufferSizeInBytes) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (m < 0 || n < 0 || nnz < 0 || !pBufferSizeInBytes || !csrRowPtrA || (nnz > 0 && !csrColIndA))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *pBufferSizeInBytes = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseXcscsort_bufferSizeExt(cusparseHandle_t handle, int m, int n, int nnz,
                                                const int *cscColPtrA, const int *cscRowIndA,
                                                size_t *pBufferSizeInBytes) {
  return cusparseXcsrsort_bufferSizeExt(handle, n, m, nnz, cscColPtrA, cscRowIndA,
                                        pBufferSizeInBytes);
}

/// Sorts the inner indices of each of Outer compressed rows (or columns).
static cusparseStatus_t compressedSort(cusparseHandle_t handle, int Outer, int Inner, int nnz,
                                       const cusparseMatDescr_t descrA, const int *Ptr, int *Ind,
                                       int *P, void *pBuffer) {
  if (!validHandle(handle))
    return LegacyBadHandle;
  if (Outer < 0 || Inner < 0 || nnz < 0 || !descrA || !Ptr || !pBuffer || (nnz > 0 && !Ind))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int B = descrA->Base;
  return enqueue(handle, [=] {
    std::vector<int> Order, Tmp;
    for (int I = 0; I < Outer; ++I) {
      int K0 = Ptr[I] - B, K1 = Ptr[I + 1] - B, N = K1 - K0;
      Order.resize(N);
      std::iota(Order.begin(), Order.end(), K0);
      std::stable_sort(Order.begin(), Order.end(), [&](int X, int Y) { return Ind[X] < Ind[Y]; });
      Tmp.resize(N);
      for (int K = 0; K < N; ++K)
        Tmp[K] = Ind[Order[K]];
      std::copy(Tmp.begin(), Tmp.end(), Ind + K0);
      if (P) {
        for (int K = 0; K < N; ++K)
          Tmp[K] = P[Order[K]];
        std::copy(Tmp.begin(), Tmp.end(), P + K0);
      }
    }
  });
}

cusparseStatus_t cusparseXcsrsort(cusparseHandle_t handle, int m, int n, int nnz,
                                  const cusparseMatDescr_t descrA, const int *csrRowPtrA,
                                  int *csrColIndA, int *P, void *pBuffer) {
  return compressedSort(handle, m, n, nnz, descrA, csrRowPtrA, csrColIndA, P, pBuffer);
}

cusparseStatus_t cusparseXcscsort(cusparseHandle_t handle, int m, int n, int nnz,
                                  const cusparseMatDescr_t descrA, const int *cscColPtrA,
                                  int *cscRowIndA, int *P, void *pBuffer) {
  return compressedSort(handle, n, m, nnz, descrA, cscColPtrA, cscRowIndA, P, pBuffer);
}

// Sparse <-> dense.

static cusparseStatus_t checkSparseDense(const char *Name, cusparseHandle_t handle,
                                         cusparseConstSpMatDescr_t Sp,
                                         cusparseConstDnMatDescr_t Dn) {
  if (!validHandle(handle))
    return BadHandle;
  if (!Sp || !Dn || Sp->Rows != Dn->Rows || Sp->Cols != Dn->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Sp->Type != Dn->Type || !valueSize(Sp->Type)) {
    logMessage("%s: value types %d and %d are not implemented", Name, static_cast<int>(Sp->Type),
               static_cast<int>(Dn->Type));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  if (Sp->Format != CUSPARSE_FORMAT_CSR && Sp->Format != CUSPARSE_FORMAT_CSC &&
      Sp->Format != CUSPARSE_FORMAT_COO) {
    logMessage("%s: sparse format %d is not implemented", Name, static_cast<int>(Sp->Format));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSparseToDense_bufferSize(cusparseHandle_t handle,
                                                  cusparseConstSpMatDescr_t matA,
                                                  cusparseDnMatDescr_t matB,
                                                  cusparseSparseToDenseAlg_t alg,
                                                  size_t *bufferSize) {
  if (cusparseStatus_t S = checkSparseDense("cusparseSparseToDense", handle, matA, matB))
    return S;
  if (!bufferSize || alg != CUSPARSE_SPARSETODENSE_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSparseToDense(cusparseHandle_t handle, cusparseConstSpMatDescr_t matA,
                                       cusparseDnMatDescr_t matB, cusparseSparseToDenseAlg_t alg,
                                       void *) {
  if (cusparseStatus_t S = checkSparseDense("cusparseSparseToDense", handle, matA, matB))
    return S;
  if (alg != CUSPARSE_SPARSETODENSE_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [A = *matA, B = *matB] {
    dispatchType(A.Type, [&](auto Zero) {
      using T = decltype(Zero);
      Dense<T> D = dense<T>(B);
      for (int64_t J = 0; J < B.Cols; ++J)
        for (int64_t I = 0; I < B.Rows; ++I)
          D.at(I, J) = T{};
      Csr<T> C = readCsr<T>(A);
      for (int64_t I = 0; I < C.Rows; ++I)
        for (int64_t K = C.Ptr[I]; K < C.Ptr[I + 1]; ++K)
          D.at(I, C.Idx[K]) += C.Val[K];
    });
  });
}

cusparseStatus_t cusparseDenseToSparse_bufferSize(cusparseHandle_t handle,
                                                  cusparseConstDnMatDescr_t matA,
                                                  cusparseSpMatDescr_t matB,
                                                  cusparseDenseToSparseAlg_t alg,
                                                  size_t *bufferSize) {
  if (cusparseStatus_t S = checkSparseDense("cusparseDenseToSparse", handle, matB, matA))
    return S;
  if (!bufferSize || alg != CUSPARSE_DENSETOSPARSE_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDenseToSparse_analysis(cusparseHandle_t handle,
                                                cusparseConstDnMatDescr_t matA,
                                                cusparseSpMatDescr_t matB,
                                                cusparseDenseToSparseAlg_t alg,
                                                void *externalBuffer) {
  if (cusparseStatus_t S = checkSparseDense("cusparseDenseToSparse", handle, matB, matA))
    return S;
  if (alg != CUSPARSE_DENSETOSPARSE_ALG_DEFAULT || !externalBuffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (matB->Format != CUSPARSE_FORMAT_COO && !matB->Offsets)
    return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseStatus_t S = enqueue(handle, [A = *matA, B = matB] {
    bool ByColumn = B->Format == CUSPARSE_FORMAT_CSC;
    int64_t Outer = ByColumn ? A.Cols : A.Rows;
    std::vector<int64_t> Count(Outer + 1, 0);
    dispatchType(A.Type, [&](auto Zero) {
      visitNonzeros<decltype(Zero)>(A, ByColumn, [&](int64_t O, int64_t, auto) { ++Count[O + 1]; });
    });
    for (int64_t O = 0; O < Outer; ++O)
      Count[O + 1] += Count[O];
    if (B->Format != CUSPARSE_FORMAT_COO)
      for (int64_t O = 0; O <= Outer; ++O)
        storeIndex(B->Offsets, B->OffType, O, Count[O] + B->Base);
    B->Nnz = Count[Outer];
  });
  if (S != CUSPARSE_STATUS_SUCCESS)
    return S;
  return syncStream(handle);
}

cusparseStatus_t cusparseDenseToSparse_convert(cusparseHandle_t handle,
                                               cusparseConstDnMatDescr_t matA,
                                               cusparseSpMatDescr_t matB,
                                               cusparseDenseToSparseAlg_t alg,
                                               void *externalBuffer) {
  if (cusparseStatus_t S = checkSparseDense("cusparseDenseToSparse", handle, matB, matA))
    return S;
  if (alg != CUSPARSE_DENSETOSPARSE_ALG_DEFAULT || !externalBuffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (matB->Nnz > 0 &&
      (!matB->Indices || !matB->Values || (matB->Format == CUSPARSE_FORMAT_COO && !matB->Rows2)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(handle, [A = *matA, B = *matB] {
    bool ByColumn = B.Format == CUSPARSE_FORMAT_CSC;
    int64_t K = 0;
    dispatchType(A.Type, [&](auto Zero) {
      using T = decltype(Zero);
      T *V = static_cast<T *>(B.Values);
      visitNonzeros<T>(A, ByColumn, [&](int64_t O, int64_t I, T X) {
        if (K >= B.Nnz)
          return;
        if (B.Format == CUSPARSE_FORMAT_COO)
          storeIndex(B.Rows2, B.IdxType, K, O + B.Base);
        storeIndex(B.Indices, B.IdxType, K, I + B.Base);
        V[K++] = X;
      });
    });
  });
}

} // extern "C"
