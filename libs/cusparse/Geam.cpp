/// \file
/// csrgeam2: C = alpha A + beta B for CSR matrices with sorted columns (the
/// sparse matrix addition CuPy's cupyx.scipy.sparse uses), in S/D/C/Z, in
/// three calls as cuSPARSE documents them: the buffer size, the row offsets
/// of C and its nonzero count (cusparseXcsrgeam2Nnz), then C's columns and
/// values. C's pattern is the union of A's and B's (entries whose sum is
/// zero are kept), each row's columns ascending; each matrix has the index
/// base of its own descriptor. Which arguments NVIDIA's checks was measured
/// on the H100 (tests/cusparse/CsrGeam.cu, goldens/CsrGeam.out).
#include "libs/cusparse/Cusparse.h"

#include <algorithm>
#include <climits>

using namespace ferry::cusparse;

namespace {

constexpr size_t ScratchBytes = 128;

bool generalMatrix(const cusparseMatDescr_t D) { return D->Type == CUSPARSE_MATRIX_TYPE_GENERAL; }

/// The checks the three calls share: the handle, then sizes, descriptors,
/// the matrix type.
cusparseStatus_t check(cusparseHandle_t Handle, int M, int N, const cusparseMatDescr_t DA, int NnzA,
                       const cusparseMatDescr_t DB, int NnzB, const cusparseMatDescr_t DC) {
  if (!validHandle(Handle))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || NnzA < 0 || NnzB < 0 || !DA || !DB || !DC)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!generalMatrix(DA) || !generalMatrix(DB) || !generalMatrix(DC))
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  return CUSPARSE_STATUS_SUCCESS;
}

/// Row I of a CSR matrix as [Begin, End) positions into its arrays.
struct Rows {
  const int *Ptr;
  int Base;
  int begin(int I) const { return Ptr[I] - Base; }
  int end(int I) const { return Ptr[I + 1] - Base; }
};

/// Counts row I of the union of A's and B's patterns.
int unionCount(const Rows &A, const int *ColA, const Rows &B, const int *ColB, int I) {
  int P = A.begin(I), PE = A.end(I), Q = B.begin(I), QE = B.end(I), Count = 0;
  while (P < PE || Q < QE) {
    int CA = P < PE ? ColA[P] - A.Base : INT_MAX, CB = Q < QE ? ColB[Q] - B.Base : INT_MAX;
    P += CA <= CB;
    Q += CB <= CA;
    ++Count;
  }
  return Count;
}

/// Each API value type's C++ arithmetic type and cudaDataType.
template <typename T> struct Std;
template <> struct Std<float> {
  using Type = float;
  static constexpr cudaDataType Data = CUDA_R_32F;
};
template <> struct Std<double> {
  using Type = double;
  static constexpr cudaDataType Data = CUDA_R_64F;
};
template <> struct Std<cuComplex> {
  using Type = std::complex<float>;
  static constexpr cudaDataType Data = CUDA_C_32F;
};
template <> struct Std<cuDoubleComplex> {
  using Type = std::complex<double>;
  static constexpr cudaDataType Data = CUDA_C_64F;
};

/// NVIDIA's buffer size checks only the handle (measured: negative sizes,
/// null descriptors and a symmetric matrix type all answer success).
cusparseStatus_t bufferSize(cusparseHandle_t Handle, size_t *Size) {
  if (!validHandle(Handle))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!Size) // NVIDIA's crashes
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename CT>
cusparseStatus_t compute(cusparseHandle_t Handle, int M, int N, const CT *Alpha, const cusparseMatDescr_t DA,
                         int NnzA, const CT *ValA, const int *RowA, const int *ColA, const CT *Beta,
                         const cusparseMatDescr_t DB, int NnzB, const CT *ValB, const int *RowB, const int *ColB,
                         const cusparseMatDescr_t DC, CT *ValC, const int *RowC, int *ColC, void *Buffer) {
  using T = typename Std<CT>::Type;
  if (cusparseStatus_t S = check(Handle, M, N, DA, NnzA, DB, NnzB, DC))
    return S;
  if (!Alpha || !Beta || !RowA || !RowB || !RowC || (NnzA && (!ValA || !ColA)) || (NnzB && (!ValB || !ColB)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  (void)Buffer;
  Scalar A = takeScalar(Handle, Alpha, Std<CT>::Data), B = takeScalar(Handle, Beta, Std<CT>::Data);
  Rows RA{RowA, DA->Base}, RB{RowB, DB->Base}, RC{RowC, DC->Base};
  int BaseC = DC->Base;
  return enqueue(Handle, [=] {
    T Al, Be;
    std::memcpy(&Al, A.get(), sizeof(T));
    std::memcpy(&Be, B.get(), sizeof(T));
    auto *VA = reinterpret_cast<const T *>(ValA), *VB = reinterpret_cast<const T *>(ValB);
    auto *VC = reinterpret_cast<T *>(ValC);
    for (int I = 0; I < M; ++I) {
      int P = RA.begin(I), PE = RA.end(I), Q = RB.begin(I), QE = RB.end(I), R = RC.begin(I);
      while (P < PE || Q < QE) {
        int CA = P < PE ? ColA[P] - RA.Base : INT_MAX, CB = Q < QE ? ColB[Q] - RB.Base : INT_MAX;
        T V{};
        if (CA <= CB)
          V += Al * VA[P++];
        if (CB <= CA)
          V += Be * VB[Q++];
        ColC[R] = std::min(CA, CB) + BaseC;
        VC[R++] = V;
      }
    }
  });
}

} // namespace

extern "C" {

cusparseStatus_t cusparseXcsrgeam2Nnz(cusparseHandle_t handle, int m, int n, const cusparseMatDescr_t descrA,
                                      int nnzA, const int *csrSortedRowPtrA, const int *csrSortedColIndA,
                                      const cusparseMatDescr_t descrB, int nnzB, const int *csrSortedRowPtrB,
                                      const int *csrSortedColIndB, const cusparseMatDescr_t descrC,
                                      int *csrSortedRowPtrC, int *nnzTotalDevHostPtr, void *workspace) {
  if (cusparseStatus_t S = check(handle, m, n, descrA, nnzA, descrB, nnzB, descrC))
    return S;
  if (!m) // NVIDIA's writes nothing then, not even the count (measured)
    return CUSPARSE_STATUS_SUCCESS;
  if (!csrSortedRowPtrC) {
    logMessage("cusparseXcsrgeam2Nnz: csrSortedRowPtrC is null (CUSPARSE_STATUS_EXECUTION_FAILED, as NVIDIA's)");
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  }
  if (!csrSortedRowPtrA || !csrSortedRowPtrB || (nnzA && !csrSortedColIndA) || (nnzB && !csrSortedColIndB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  (void)workspace;
  Rows RA{csrSortedRowPtrA, descrA->Base}, RB{csrSortedRowPtrB, descrB->Base};
  int BaseC = descrC->Base;
  const int *ColA = csrSortedColIndA, *ColB = csrSortedColIndB;
  int *RowC = csrSortedRowPtrC, *Total = nnzTotalDevHostPtr;
  cusparseStatus_t S = enqueue(handle, [=] {
    int Sum = 0;
    RowC[0] = BaseC;
    for (int I = 0; I < m; ++I) {
      Sum += unionCount(RA, ColA, RB, ColB, I);
      RowC[I + 1] = Sum + BaseC;
    }
    if (Total) // a null count pointer is no error (NVIDIA's: success, nothing written)
      *Total = Sum;
  });
  // A host count is there when the call returns (NVIDIA's blocks too).
  if (S == CUSPARSE_STATUS_SUCCESS && handle->Mode == CUSPARSE_POINTER_MODE_HOST)
    S = syncStream(handle);
  return S;
}

#define FERRY_CSRGEAM2(P, CT)                                                                                          \
  cusparseStatus_t cusparse##P##csrgeam2_bufferSizeExt(                                                                \
      cusparseHandle_t handle, int, int, const CT *, const cusparseMatDescr_t, int, const CT *,                      \
      const int *, const int *, const CT *, const cusparseMatDescr_t descrB, int nnzB, const CT *, const int *,       \
      const int *, const cusparseMatDescr_t descrC, const CT *, const int *, const int *, size_t *size) {             \
    return bufferSize(handle, size);                                                                                   \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##csrgeam2(                                                                              \
      cusparseHandle_t handle, int m, int n, const CT *alpha, const cusparseMatDescr_t descrA, int nnzA,             \
      const CT *valA, const int *rowA, const int *colA, const CT *beta, const cusparseMatDescr_t descrB, int nnzB,   \
      const CT *valB, const int *rowB, const int *colB, const cusparseMatDescr_t descrC, CT *valC, int *rowC,        \
      int *colC, void *buffer) {                                                                                       \
    return compute<CT>(handle, m, n, alpha, descrA, nnzA, valA, rowA, colA, beta, descrB, nnzB, valB, rowB, colB,    \
                       descrC, valC, rowC, colC, buffer);                                                              \
  }
FERRY_CSRGEAM2(S, float)
FERRY_CSRGEAM2(D, double)
FERRY_CSRGEAM2(C, cuComplex)
FERRY_CSRGEAM2(Z, cuDoubleComplex)
#undef FERRY_CSRGEAM2

} // extern "C"
