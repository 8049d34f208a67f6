/// \file
/// What ferry's cuSPARSE files share: the handle, the descriptors behind
/// NVIDIA's opaque types, stream-ordered work, scalars read in the pointer
/// mode of the handle, and value-type dispatch. Each call checks its
/// arguments on the calling thread and enqueues the work on the handle's
/// stream (cuLaunchHostFunc, libs/common): the host backend's device memory
/// is host memory of this process, so the work reads and writes it there.
#pragma once

#include "ferry/generated/CusparseApi.h"
#include "libs/common/Driver.h"
#include "libs/common/HostTask.h"

#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>

namespace ferry::cusparse {
struct RocSparseState; // RocSparse.cpp
} // namespace ferry::cusparse

/// The handle behind cusparseHandle_t.
struct cusparseContext {
  uint32_t Magic = 0x5350484eu;
  CUcontext Ctx = nullptr;
  cudaStream_t Stream = nullptr;
  cusparsePointerMode_t Mode = CUSPARSE_POINTER_MODE_HOST;
  ferry::libs::TaskKeeper Kept;
  /// rocSPARSE's handle and HIP stream once an operation was forwarded
  /// (RocSparse.h).
  std::shared_ptr<ferry::cusparse::RocSparseState> Roc;
};

/// The legacy matrix descriptor (cusparseMatDescr_t).
struct cusparseMatDescr {
  cusparseMatrixType_t Type = CUSPARSE_MATRIX_TYPE_GENERAL;
  cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
};

struct cusparseDnVecDescr {
  int64_t Size = 0;
  void *Values = nullptr;
  cudaDataType Type = CUDA_R_32F;
};

struct cusparseSpVecDescr {
  int64_t Size = 0, Nnz = 0;
  void *Indices = nullptr, *Values = nullptr;
  cusparseIndexType_t IdxType = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType Type = CUDA_R_32F;
};

struct cusparseDnMatDescr {
  int64_t Rows = 0, Cols = 0, Ld = 0;
  void *Values = nullptr;
  cudaDataType Type = CUDA_R_32F;
  cusparseOrder_t Order = CUSPARSE_ORDER_COL;
  int BatchCount = 1;
  int64_t BatchStride = 0;
};

/// A sparse matrix. CSR: Offsets = row offsets, Indices = column indices.
/// CSC: Offsets = column offsets, Indices = row indices. COO: Rows2 = row
/// indices, Indices = column indices. BSR: CSR of blocks (Rows, Cols in
/// blocks times BlockRows/BlockCols; Nnz counts blocks).
struct cusparseSpMatDescr {
  cusparseFormat_t Format = CUSPARSE_FORMAT_CSR;
  int64_t Rows = 0, Cols = 0, Nnz = 0;
  void *Offsets = nullptr, *Indices = nullptr, *Values = nullptr, *Rows2 = nullptr;
  cusparseIndexType_t OffType = CUSPARSE_INDEX_32I, IdxType = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType Type = CUDA_R_32F;
  cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  bool Triangular = false;              // a fill mode or diagonal type was set
  int64_t BlockRows = 1, BlockCols = 1; // BSR block size
  cusparseOrder_t BlockOrder = CUSPARSE_ORDER_ROW;
  int BatchCount = 1;
  int64_t OffsetsStride = 0, IndicesStride = 0, ValuesStride = 0;
};

namespace ferry::cusparse {

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// Whether H is a live handle of this library.
bool validHandle(cusparseHandle_t H);

/// Runs Work in stream order on H's stream.
cusparseStatus_t enqueue(cusparseHandle_t H, std::function<void()> Work);

/// Waits for H's stream (calls whose result the host reads at once).
cusparseStatus_t syncStream(cusparseHandle_t H);

/// Bytes of one value of a supported type (0: not one of F32/F64/C32/C64).
size_t valueSize(cudaDataType T);
inline size_t indexSize(cusparseIndexType_t T) {
  return T == CUSPARSE_INDEX_32I   ? 4
         : T == CUSPARSE_INDEX_64I ? 8
         : T == CUSPARSE_INDEX_16U ? 2
                                   : 0;
}

/// A scalar (alpha, beta) as the work will read it: copied now in host
/// pointer mode, read by the work in device pointer mode.
struct Scalar {
  unsigned char Bytes[16] = {};
  const void *Device = nullptr;
  size_t Size = 0;
  const void *get() const { return Device ? Device : Bytes; }
};
Scalar takeScalar(cusparseHandle_t H, const void *P, cudaDataType T);

/// Index at position K of an index array of type T.
inline int64_t loadIndex(const void *P, cusparseIndexType_t T, int64_t K) {
  if (T == CUSPARSE_INDEX_64I)
    return static_cast<const int64_t *>(P)[K];
  if (T == CUSPARSE_INDEX_16U)
    return static_cast<const uint16_t *>(P)[K];
  return static_cast<const int32_t *>(P)[K];
}
inline void storeIndex(void *P, cusparseIndexType_t T, int64_t K, int64_t V) {
  if (T == CUSPARSE_INDEX_64I)
    static_cast<int64_t *>(P)[K] = V;
  else if (T == CUSPARSE_INDEX_16U)
    static_cast<uint16_t *>(P)[K] = static_cast<uint16_t>(V);
  else
    static_cast<int32_t *>(P)[K] = static_cast<int32_t>(V);
}

/// Calls F with a value of the C++ type of T (float, double,
/// std::complex<float>, std::complex<double>).
template <typename F> void dispatchType(cudaDataType T, F &&Fn) {
  switch (T) {
  case CUDA_R_32F:
    Fn(float());
    break;
  case CUDA_R_64F:
    Fn(double());
    break;
  case CUDA_C_32F:
    Fn(std::complex<float>());
    break;
  case CUDA_C_64F:
    Fn(std::complex<double>());
    break;
  default:
    break;
  }
}

template <typename T> T conjOf(T V) { return V; }
template <typename R> std::complex<R> conjOf(std::complex<R> V) { return std::conj(V); }

/// Turns a work's exception-free status into the API's.
inline cusparseStatus_t fromEnqueue(ferry::libs::EnqueueResult R) {
  switch (R) {
  case ferry::libs::EnqueueResult::Ok:
    return CUSPARSE_STATUS_SUCCESS;
  case ferry::libs::EnqueueResult::NoMemory:
    return CUSPARSE_STATUS_ALLOC_FAILED;
  case ferry::libs::EnqueueResult::NoDriver:
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  case ferry::libs::EnqueueResult::NoHostAccess:
    ferry::libs::logNoHostAccess("cusparse", "CUSPARSE_STATUS_NOT_SUPPORTED");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  default:
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  }
}

} // namespace ferry::cusparse
