/// \file
/// The generic API's descriptors: sparse matrices (CSR, CSC, COO, BSR),
/// sparse vectors, dense vectors and dense matrices, with their get/set
/// calls and attributes. A const descriptor is the same object as a
/// non-const one (NVIDIA's const types only restrict the caller).
#include "libs/cusparse/Cusparse.h"

#include <new>

using namespace ferry::cusparse;

namespace {

bool validBase(cusparseIndexBase_t B) {
  return B == CUSPARSE_INDEX_BASE_ZERO || B == CUSPARSE_INDEX_BASE_ONE;
}
bool validIndex(cusparseIndexType_t T) {
  return T == CUSPARSE_INDEX_16U || T == CUSPARSE_INDEX_32I || T == CUSPARSE_INDEX_64I;
}
bool validValue(cudaDataType T) {
  switch (T) {
  case CUDA_R_16F:
  case CUDA_R_16BF:
  case CUDA_C_16F:
  case CUDA_C_16BF:
  case CUDA_R_32F:
  case CUDA_R_64F:
  case CUDA_C_32F:
  case CUDA_C_64F:
  case CUDA_R_8I:
  case CUDA_R_32I:
    return true;
  default:
    return false;
  }
}
bool validOrder(cusparseOrder_t O) { return O == CUSPARSE_ORDER_COL || O == CUSPARSE_ORDER_ROW; }

/// A 32-bit index type cannot address more than INT32_MAX.
bool fits(cusparseIndexType_t T, int64_t V) { return T != CUSPARSE_INDEX_32I || V <= INT32_MAX; }

cusparseStatus_t createCompressed(cusparseSpMatDescr_t *Out, cusparseFormat_t Format, int64_t Rows,
                                  int64_t Cols, int64_t Nnz, const void *Offsets,
                                  const void *Indices, const void *Values,
                                  cusparseIndexType_t OffType, cusparseIndexType_t IdxType,
                                  cusparseIndexBase_t Base, cudaDataType Type) {
  if (!Out || Rows < 0 || Cols < 0 || Nnz < 0 || !validBase(Base) || !validValue(Type) ||
      !validIndex(OffType) || !validIndex(IdxType))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // nnz beyond rows x cols is refused (NVIDIA's: "dimension mismatch").
  if (Format != CUSPARSE_FORMAT_BSR && Nnz > 0 &&
      (Rows == 0 || Cols == 0 || (Nnz - 1) / Rows >= Cols))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // 16-bit indices, and offsets and indices of different sizes: NVIDIA's
  // answers NOT_SUPPORTED ("different index sizes ... not currently
  // supported", recorded for 16U offsets with 32I indices).
  if (OffType == CUSPARSE_INDEX_16U || IdxType == CUSPARSE_INDEX_16U || OffType != IdxType)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (!fits(OffType, Nnz) || !fits(IdxType, Format == CUSPARSE_FORMAT_CSC ? Rows : Cols))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // Null arrays are accepted, as NVIDIA's does (SpGEMM's C gets its arrays
  // later, with CsrSetPointers); the operations check what they read.
  auto *M = new (std::nothrow) cusparseSpMatDescr;
  if (!M)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  M->Format = Format;
  M->Rows = Rows;
  M->Cols = Cols;
  M->Nnz = Nnz;
  M->Offsets = const_cast<void *>(Offsets);
  M->Indices = const_cast<void *>(Indices);
  M->Values = const_cast<void *>(Values);
  M->OffType = OffType;
  M->IdxType = IdxType;
  M->Base = Base;
  M->Type = Type;
  *Out = M;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t getCompressed(cusparseConstSpMatDescr_t M, cusparseFormat_t Format, int64_t *Rows,
                               int64_t *Cols, int64_t *Nnz, const void **Offsets,
                               const void **Indices, const void **Values,
                               cusparseIndexType_t *OffType, cusparseIndexType_t *IdxType,
                               cusparseIndexBase_t *Base, cudaDataType *Type) {
  if (!M || M->Format != Format || !Rows || !Cols || !Nnz || !Offsets || !Indices || !Values ||
      !OffType || !IdxType || !Base || !Type)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Rows = M->Rows;
  *Cols = M->Cols;
  *Nnz = M->Nnz;
  *Offsets = M->Offsets;
  *Indices = M->Indices;
  *Values = M->Values;
  *OffType = M->OffType;
  *IdxType = M->IdxType;
  *Base = M->Base;
  *Type = M->Type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t createCoo(cusparseSpMatDescr_t *Out, int64_t Rows, int64_t Cols, int64_t Nnz,
                           const void *RowInd, const void *ColInd, const void *Values,
                           cusparseIndexType_t IdxType, cusparseIndexBase_t Base,
                           cudaDataType Type) {
  cusparseStatus_t S = createCompressed(Out, CUSPARSE_FORMAT_COO, Rows, Cols, Nnz, nullptr, ColInd,
                                        Values, IdxType, IdxType, Base, Type);
  if (S == CUSPARSE_STATUS_SUCCESS)
    (*Out)->Rows2 = const_cast<void *>(RowInd);
  return S;
}

cusparseStatus_t createBsr(cusparseSpMatDescr_t *Out, int64_t Brows, int64_t Bcols, int64_t Bnnz,
                           int64_t RowBlock, int64_t ColBlock, const void *Offsets,
                           const void *ColInd, const void *Values, cusparseIndexType_t OffType,
                           cusparseIndexType_t IdxType, cusparseIndexBase_t Base, cudaDataType Type,
                           cusparseOrder_t Order) {
  if (RowBlock <= 0 || ColBlock <= 0 || !validOrder(Order))
    return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseStatus_t S = createCompressed(Out, CUSPARSE_FORMAT_BSR, Brows, Bcols, Bnnz, Offsets,
                                        ColInd, Values, OffType, IdxType, Base, Type);
  if (S == CUSPARSE_STATUS_SUCCESS) {
    (*Out)->BlockRows = RowBlock;
    (*Out)->BlockCols = ColBlock;
    (*Out)->BlockOrder = Order;
  }
  return S;
}

cusparseStatus_t createDnVec(cusparseDnVecDescr_t *Out, int64_t Size, const void *Values,
                             cudaDataType Type) {
  if (!Out || Size < 0 || !validValue(Type)) // null values accepted, as NVIDIA's
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *V = new (std::nothrow) cusparseDnVecDescr;
  if (!V)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  V->Size = Size;
  V->Values = const_cast<void *>(Values);
  V->Type = Type;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t createDnMat(cusparseDnMatDescr_t *Out, int64_t Rows, int64_t Cols, int64_t Ld,
                             const void *Values, cudaDataType Type, cusparseOrder_t Order) {
  if (!Out || Rows < 0 || Cols < 0 || !validValue(Type) || !validOrder(Order))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Ld < (Order == CUSPARSE_ORDER_COL ? Rows : Cols) || Ld < 1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *M = new (std::nothrow) cusparseDnMatDescr;
  if (!M)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  M->Rows = Rows;
  M->Cols = Cols;
  M->Ld = Ld;
  M->Values = const_cast<void *>(Values);
  M->Type = Type;
  M->Order = Order;
  *Out = M;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t createSpVec(cusparseSpVecDescr_t *Out, int64_t Size, int64_t Nnz,
                             const void *Indices, const void *Values, cusparseIndexType_t IdxType,
                             cusparseIndexBase_t Base, cudaDataType Type) {
  if (!Out || Size < 0 || Nnz < 0 || Nnz > Size || !validIndex(IdxType) || !validBase(Base) ||
      !validValue(Type))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *V = new (std::nothrow) cusparseSpVecDescr;
  if (!V)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  V->Size = Size;
  V->Nnz = Nnz;
  V->Indices = const_cast<void *>(Indices);
  V->Values = const_cast<void *>(Values);
  V->IdxType = IdxType;
  V->Base = Base;
  V->Type = Type;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

} // namespace

extern "C" {

// Sparse matrices.

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                   int64_t nnz, void *csrRowOffsets, void *csrColInd,
                                   void *csrValues, cusparseIndexType_t csrRowOffsetsType,
                                   cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase,
                                   cudaDataType valueType) {
  return createCompressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets,
                          csrColInd, csrValues, csrRowOffsetsType, csrColIndType, idxBase,
                          valueType);
}

cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows,
                                        int64_t cols, int64_t nnz, const void *csrRowOffsets,
                                        const void *csrColInd, const void *csrValues,
                                        cusparseIndexType_t csrRowOffsetsType,
                                        cusparseIndexType_t csrColIndType,
                                        cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return createCompressed(const_cast<cusparseSpMatDescr_t *>(spMatDescr), CUSPARSE_FORMAT_CSR, rows,
                          cols, nnz, csrRowOffsets, csrColInd, csrValues, csrRowOffsetsType,
                          csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                   int64_t nnz, void *cscColOffsets, void *cscRowInd,
                                   void *cscValues, cusparseIndexType_t cscColOffsetsType,
                                   cusparseIndexType_t cscRowIndType, cusparseIndexBase_t idxBase,
                                   cudaDataType valueType) {
  return createCompressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets,
                          cscRowInd, cscValues, cscColOffsetsType, cscRowIndType, idxBase,
                          valueType);
}

cusparseStatus_t cusparseCreateConstCsc(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows,
                                        int64_t cols, int64_t nnz, const void *cscColOffsets,
                                        const void *cscRowInd, const void *cscValues,
                                        cusparseIndexType_t cscColOffsetsType,
                                        cusparseIndexType_t cscRowIndType,
                                        cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return createCompressed(const_cast<cusparseSpMatDescr_t *>(spMatDescr), CUSPARSE_FORMAT_CSC, rows,
                          cols, nnz, cscColOffsets, cscRowInd, cscValues, cscColOffsetsType,
                          cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                   int64_t nnz, void *cooRowInd, void *cooColInd, void *cooValues,
                                   cusparseIndexType_t cooIdxType, cusparseIndexBase_t idxBase,
                                   cudaDataType valueType) {
  return createCoo(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd, cooValues, cooIdxType,
                   idxBase, valueType);
}

cusparseStatus_t cusparseCreateConstCoo(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows,
                                        int64_t cols, int64_t nnz, const void *cooRowInd,
                                        const void *cooColInd, const void *cooValues,
                                        cusparseIndexType_t cooIdxType, cusparseIndexBase_t idxBase,
                                        cudaDataType valueType) {
  return createCoo(const_cast<cusparseSpMatDescr_t *>(spMatDescr), rows, cols, nnz, cooRowInd,
                   cooColInd, cooValues, cooIdxType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateBsr(cusparseSpMatDescr_t *spMatDescr, int64_t brows, int64_t bcols,
                                   int64_t bnnz, int64_t rowBlockSize, int64_t colBlockSize,
                                   void *bsrRowOffsets, void *bsrColInd, void *bsrValues,
                                   cusparseIndexType_t bsrRowOffsetsType,
                                   cusparseIndexType_t bsrColIndType, cusparseIndexBase_t idxBase,
                                   cudaDataType valueType, cusparseOrder_t order) {
  return createBsr(spMatDescr, brows, bcols, bnnz, rowBlockSize, colBlockSize, bsrRowOffsets,
                   bsrColInd, bsrValues, bsrRowOffsetsType, bsrColIndType, idxBase, valueType,
                   order);
}

cusparseStatus_t
cusparseCreateConstBsr(cusparseConstSpMatDescr_t *spMatDescr, int64_t brows, int64_t bcols,
                       int64_t bnnz, int64_t rowBlockDim, int64_t colBlockDim,
                       const void *bsrRowOffsets, const void *bsrColInd, const void *bsrValues,
                       cusparseIndexType_t bsrRowOffsetsType, cusparseIndexType_t bsrColIndType,
                       cusparseIndexBase_t idxBase, cudaDataType valueType, cusparseOrder_t order) {
  return createBsr(const_cast<cusparseSpMatDescr_t *>(spMatDescr), brows, bcols, bnnz, rowBlockDim,
                   colBlockDim, bsrRowOffsets, bsrColInd, bsrValues, bsrRowOffsetsType,
                   bsrColIndType, idxBase, valueType, order);
}

cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr) {
  delete spMatDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                int64_t *nnz, void **csrRowOffsets, void **csrColInd,
                                void **csrValues, cusparseIndexType_t *csrRowOffsetsType,
                                cusparseIndexType_t *csrColIndType, cusparseIndexBase_t *idxBase,
                                cudaDataType *valueType) {
  return getCompressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz,
                       const_cast<const void **>(csrRowOffsets),
                       const_cast<const void **>(csrColInd), const_cast<const void **>(csrValues),
                       csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseConstCsrGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows,
                                     int64_t *cols, int64_t *nnz, const void **csrRowOffsets,
                                     const void **csrColInd, const void **csrValues,
                                     cusparseIndexType_t *csrRowOffsetsType,
                                     cusparseIndexType_t *csrColIndType,
                                     cusparseIndexBase_t *idxBase, cudaDataType *valueType) {
  return getCompressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd,
                       csrValues, csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCscGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                int64_t *nnz, void **cscColOffsets, void **cscRowInd,
                                void **cscValues, cusparseIndexType_t *cscColOffsetsType,
                                cusparseIndexType_t *cscRowIndType, cusparseIndexBase_t *idxBase,
                                cudaDataType *valueType) {
  return getCompressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz,
                       const_cast<const void **>(cscColOffsets),
                       const_cast<const void **>(cscRowInd), const_cast<const void **>(cscValues),
                       cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseConstCscGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows,
                                     int64_t *cols, int64_t *nnz, const void **cscColOffsets,
                                     const void **cscRowInd, const void **cscValues,
                                     cusparseIndexType_t *cscColOffsetsType,
                                     cusparseIndexType_t *cscRowIndType,
                                     cusparseIndexBase_t *idxBase, cudaDataType *valueType) {
  return getCompressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd,
                       cscValues, cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseConstCooGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows,
                                     int64_t *cols, int64_t *nnz, const void **cooRowInd,
                                     const void **cooColInd, const void **cooValues,
                                     cusparseIndexType_t *idxType, cusparseIndexBase_t *idxBase,
                                     cudaDataType *valueType) {
  if (!spMatDescr || spMatDescr->Format != CUSPARSE_FORMAT_COO || !rows || !cols || !nnz ||
      !cooRowInd || !cooColInd || !cooValues || !idxType || !idxBase || !valueType)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = spMatDescr->Rows;
  *cols = spMatDescr->Cols;
  *nnz = spMatDescr->Nnz;
  *cooRowInd = spMatDescr->Rows2;
  *cooColInd = spMatDescr->Indices;
  *cooValues = spMatDescr->Values;
  *idxType = spMatDescr->IdxType;
  *idxBase = spMatDescr->Base;
  *valueType = spMatDescr->Type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCooGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                int64_t *nnz, void **cooRowInd, void **cooColInd, void **cooValues,
                                cusparseIndexType_t *idxType, cusparseIndexBase_t *idxBase,
                                cudaDataType *valueType) {
  return cusparseConstCooGet(spMatDescr, rows, cols, nnz, const_cast<const void **>(cooRowInd),
                             const_cast<const void **>(cooColInd),
                             const_cast<const void **>(cooValues), idxType, idxBase, valueType);
}

cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void *csrRowOffsets,
                                        void *csrColInd, void *csrValues) {
  if (!spMatDescr || spMatDescr->Format != CUSPARSE_FORMAT_CSR) // null arrays accepted, as NVIDIA's
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->Offsets = csrRowOffsets;
  spMatDescr->Indices = csrColInd;
  spMatDescr->Values = csrValues;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCscSetPointers(cusparseSpMatDescr_t spMatDescr, void *cscColOffsets,
                                        void *cscRowInd, void *cscValues) {
  if (!spMatDescr || spMatDescr->Format != CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->Offsets = cscColOffsets;
  spMatDescr->Indices = cscRowInd;
  spMatDescr->Values = cscValues;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCooSetPointers(cusparseSpMatDescr_t spMatDescr, void *cooRows,
                                        void *cooColumns, void *cooValues) {
  if (!spMatDescr || spMatDescr->Format != CUSPARSE_FORMAT_COO)
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->Rows2 = cooRows;
  spMatDescr->Indices = cooColumns;
  spMatDescr->Values = cooValues;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows,
                                      int64_t *cols, int64_t *nnz) {
  if (!spMatDescr || !rows || !cols || !nnz)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = spMatDescr->Rows;
  *cols = spMatDescr->Cols;
  *nnz = spMatDescr->Nnz;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetFormat(cusparseConstSpMatDescr_t spMatDescr,
                                        cusparseFormat_t *format) {
  if (!spMatDescr || !format)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *format = spMatDescr->Format;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetIndexBase(cusparseConstSpMatDescr_t spMatDescr,
                                           cusparseIndexBase_t *idxBase) {
  if (!spMatDescr || !idxBase)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *idxBase = spMatDescr->Base;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t spMatDescr, void **values) {
  if (!spMatDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = spMatDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstSpMatGetValues(cusparseConstSpMatDescr_t spMatDescr,
                                             const void **values) {
  if (!spMatDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = spMatDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t spMatDescr, void *values) {
  if (!spMatDescr || (!values && spMatDescr->Nnz > 0))
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->Values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetStridedBatch(cusparseConstSpMatDescr_t spMatDescr,
                                              int *batchCount) {
  if (!spMatDescr || !batchCount)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *batchCount = spMatDescr->BatchCount;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCsrSetStridedBatch(cusparseSpMatDescr_t spMatDescr, int batchCount,
                                            int64_t offsetsBatchStride,
                                            int64_t columnsValuesBatchStride) {
  if (!spMatDescr || batchCount <= 0 || offsetsBatchStride < 0 || columnsValuesBatchStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->BatchCount = batchCount;
  spMatDescr->OffsetsStride = offsetsBatchStride;
  spMatDescr->IndicesStride = spMatDescr->ValuesStride = columnsValuesBatchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCooSetStridedBatch(cusparseSpMatDescr_t spMatDescr, int batchCount,
                                            int64_t batchStride) {
  if (!spMatDescr || batchCount <= 0 || batchStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->BatchCount = batchCount;
  spMatDescr->IndicesStride = spMatDescr->ValuesStride = spMatDescr->OffsetsStride = batchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseBsrSetStridedBatch(cusparseSpMatDescr_t spMatDescr, int batchCount,
                                            int64_t offsetsBatchStride, int64_t columnsBatchStride,
                                            int64_t ValuesBatchStride) {
  if (!spMatDescr || batchCount <= 0 || offsetsBatchStride < 0 || columnsBatchStride < 0 ||
      ValuesBatchStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->BatchCount = batchCount;
  spMatDescr->OffsetsStride = offsetsBatchStride;
  spMatDescr->IndicesStride = columnsBatchStride;
  spMatDescr->ValuesStride = ValuesBatchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetAttribute(cusparseConstSpMatDescr_t spMatDescr,
                                           cusparseSpMatAttribute_t attribute, void *data,
                                           size_t dataSize) {
  if (!spMatDescr || !data)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t)) {
    *static_cast<cusparseFillMode_t *>(data) = spMatDescr->Fill;
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t)) {
    *static_cast<cusparseDiagType_t *>(data) = spMatDescr->Diag;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t spMatDescr,
                                           cusparseSpMatAttribute_t attribute, void *data,
                                           size_t dataSize) {
  if (!spMatDescr || !data)
    return CUSPARSE_STATUS_INVALID_VALUE;
  // NVIDIA's stores any value (a bad one is refused later, by the
  // operations) and, once either attribute is set, treats the matrix as
  // triangular: SpMV and SpMM refuse it (both recorded).
  if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t)) {
    spMatDescr->Fill = *static_cast<cusparseFillMode_t *>(data);
    spMatDescr->Triangular = true;
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t)) {
    spMatDescr->Diag = *static_cast<cusparseDiagType_t *>(data);
    spMatDescr->Triangular = true;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

// Sparse vectors.

cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *spVecDescr, int64_t size, int64_t nnz,
                                     void *indices, void *values, cusparseIndexType_t idxType,
                                     cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return createSpVec(spVecDescr, size, nnz, indices, values, idxType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateConstSpVec(cusparseConstSpVecDescr_t *spVecDescr, int64_t size,
                                          int64_t nnz, const void *indices, const void *values,
                                          cusparseIndexType_t idxType, cusparseIndexBase_t idxBase,
                                          cudaDataType valueType) {
  return createSpVec(const_cast<cusparseSpVecDescr_t *>(spVecDescr), size, nnz, indices, values,
                     idxType, idxBase, valueType);
}

cusparseStatus_t cusparseDestroySpVec(cusparseConstSpVecDescr_t spVecDescr) {
  delete spVecDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstSpVecGet(cusparseConstSpVecDescr_t spVecDescr, int64_t *size,
                                       int64_t *nnz, const void **indices, const void **values,
                                       cusparseIndexType_t *idxType, cusparseIndexBase_t *idxBase,
                                       cudaDataType *valueType) {
  if (!spVecDescr || !size || !nnz || !indices || !values || !idxType || !idxBase || !valueType)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *size = spVecDescr->Size;
  *nnz = spVecDescr->Nnz;
  *indices = spVecDescr->Indices;
  *values = spVecDescr->Values;
  *idxType = spVecDescr->IdxType;
  *idxBase = spVecDescr->Base;
  *valueType = spVecDescr->Type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpVecGet(cusparseSpVecDescr_t spVecDescr, int64_t *size, int64_t *nnz,
                                  void **indices, void **values, cusparseIndexType_t *idxType,
                                  cusparseIndexBase_t *idxBase, cudaDataType *valueType) {
  return cusparseConstSpVecGet(spVecDescr, size, nnz, const_cast<const void **>(indices),
                               const_cast<const void **>(values), idxType, idxBase, valueType);
}

cusparseStatus_t cusparseSpVecGetIndexBase(cusparseConstSpVecDescr_t spVecDescr,
                                           cusparseIndexBase_t *idxBase) {
  if (!spVecDescr || !idxBase)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *idxBase = spVecDescr->Base;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpVecGetValues(cusparseSpVecDescr_t spVecDescr, void **values) {
  if (!spVecDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = spVecDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstSpVecGetValues(cusparseConstSpVecDescr_t spVecDescr,
                                             const void **values) {
  if (!spVecDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = spVecDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpVecSetValues(cusparseSpVecDescr_t spVecDescr, void *values) {
  if (!spVecDescr || (!values && spVecDescr->Nnz > 0))
    return CUSPARSE_STATUS_INVALID_VALUE;
  spVecDescr->Values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

// Dense vectors.

cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *dnVecDescr, int64_t size, void *values,
                                     cudaDataType valueType) {
  return createDnVec(dnVecDescr, size, values, valueType);
}

cusparseStatus_t cusparseCreateConstDnVec(cusparseConstDnVecDescr_t *dnVecDescr, int64_t size,
                                          const void *values, cudaDataType valueType) {
  return createDnVec(const_cast<cusparseDnVecDescr_t *>(dnVecDescr), size, values, valueType);
}

cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr) {
  delete dnVecDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstDnVecGet(cusparseConstDnVecDescr_t dnVecDescr, int64_t *size,
                                       const void **values, cudaDataType *valueType) {
  if (!dnVecDescr || !size || !values || !valueType)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *size = dnVecDescr->Size;
  *values = dnVecDescr->Values;
  *valueType = dnVecDescr->Type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t dnVecDescr, int64_t *size, void **values,
                                  cudaDataType *valueType) {
  return cusparseConstDnVecGet(dnVecDescr, size, const_cast<const void **>(values), valueType);
}

cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t dnVecDescr, void **values) {
  if (!dnVecDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = dnVecDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstDnVecGetValues(cusparseConstDnVecDescr_t dnVecDescr,
                                             const void **values) {
  if (!dnVecDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = dnVecDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr, void *values) {
  if (!dnVecDescr || (!values && dnVecDescr->Size > 0))
    return CUSPARSE_STATUS_INVALID_VALUE;
  dnVecDescr->Values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

// Dense matrices.

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols,
                                     int64_t ld, void *values, cudaDataType valueType,
                                     cusparseOrder_t order) {
  return createDnMat(dnMatDescr, rows, cols, ld, values, valueType, order);
}

cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *dnMatDescr, int64_t rows,
                                          int64_t cols, int64_t ld, const void *values,
                                          cudaDataType valueType, cusparseOrder_t order) {
  return createDnMat(const_cast<cusparseDnMatDescr_t *>(dnMatDescr), rows, cols, ld, values,
                     valueType, order);
}

cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr) {
  delete dnMatDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstDnMatGet(cusparseConstDnMatDescr_t dnMatDescr, int64_t *rows,
                                       int64_t *cols, int64_t *ld, const void **values,
                                       cudaDataType *type, cusparseOrder_t *order) {
  if (!dnMatDescr || !rows || !cols || !ld || !values || !type || !order)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = dnMatDescr->Rows;
  *cols = dnMatDescr->Cols;
  *ld = dnMatDescr->Ld;
  *values = dnMatDescr->Values;
  *type = dnMatDescr->Type;
  *order = dnMatDescr->Order;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t dnMatDescr, int64_t *rows, int64_t *cols,
                                  int64_t *ld, void **values, cudaDataType *type,
                                  cusparseOrder_t *order) {
  return cusparseConstDnMatGet(dnMatDescr, rows, cols, ld, const_cast<const void **>(values), type,
                               order);
}

cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t dnMatDescr, void **values) {
  if (!dnMatDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = dnMatDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstDnMatGetValues(cusparseConstDnMatDescr_t dnMatDescr,
                                             const void **values) {
  if (!dnMatDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *values = dnMatDescr->Values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t dnMatDescr, void *values) {
  if (!dnMatDescr || !values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  dnMatDescr->Values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatSetStridedBatch(cusparseDnMatDescr_t dnMatDescr, int batchCount,
                                              int64_t batchStride) {
  if (!dnMatDescr || batchCount <= 0 || batchStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  dnMatDescr->BatchCount = batchCount;
  dnMatDescr->BatchStride = batchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatGetStridedBatch(cusparseConstDnMatDescr_t dnMatDescr, int *batchCount,
                                              int64_t *batchStride) {
  if (!dnMatDescr || !batchCount || !batchStride)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *batchCount = dnMatDescr->BatchCount;
  *batchStride = dnMatDescr->BatchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

} // extern "C"
