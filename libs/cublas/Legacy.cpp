/// \file
/// The hand-written part of the legacy API: cublasInit/Shutdown, the error
/// state, cublasAlloc/Free (driver allocations) and cublasSetKernelStream.
/// The legacy BLAS functions themselves are generated (gen-legacy).
#include "libs/cublas/Legacy.h"
#include "libs/cublas/Driver.h"

#include <cctype>
#include <mutex>

namespace ferry::cublas {

namespace {
std::mutex LegacyLock;
cublasHandle_t Legacy = nullptr;
thread_local cublasStatus_t LastError = CUBLAS_STATUS_SUCCESS;
} // namespace

cublasHandle_t legacyHandle() {
  std::lock_guard<std::mutex> G(LegacyLock);
  if (!Legacy)
    LastError = CUBLAS_STATUS_NOT_INITIALIZED;
  return Legacy;
}

void setLegacyError(cublasStatus_t S) { LastError = S; }

cublasOperation_t legacyOp(char C) {
  switch (std::toupper((unsigned char)C)) {
  case 'N':
    return CUBLAS_OP_N;
  case 'T':
    return CUBLAS_OP_T;
  case 'C':
    return CUBLAS_OP_C;
  }
  return static_cast<cublasOperation_t>(-1);
}
cublasFillMode_t legacyFill(char C) {
  switch (std::toupper((unsigned char)C)) {
  case 'L':
    return CUBLAS_FILL_MODE_LOWER;
  case 'U':
    return CUBLAS_FILL_MODE_UPPER;
  }
  return static_cast<cublasFillMode_t>(-1);
}
cublasSideMode_t legacySide(char C) {
  switch (std::toupper((unsigned char)C)) {
  case 'L':
    return CUBLAS_SIDE_LEFT;
  case 'R':
    return CUBLAS_SIDE_RIGHT;
  }
  return static_cast<cublasSideMode_t>(-1);
}
cublasDiagType_t legacyDiag(char C) {
  switch (std::toupper((unsigned char)C)) {
  case 'N':
    return CUBLAS_DIAG_NON_UNIT;
  case 'U':
    return CUBLAS_DIAG_UNIT;
  }
  return static_cast<cublasDiagType_t>(-1);
}

} // namespace ferry::cublas

using namespace ferry::cublas;

extern "C" cublasStatus_t cublasInit(void) {
  std::lock_guard<std::mutex> G(LegacyLock);
  if (Legacy)
    return CUBLAS_STATUS_SUCCESS;
  return cublasCreate_v2(&Legacy);
}

extern "C" cublasStatus_t cublasShutdown(void) {
  std::lock_guard<std::mutex> G(LegacyLock);
  if (!Legacy)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasStatus_t S = cublasDestroy_v2(Legacy);
  Legacy = nullptr;
  return S;
}

/// Returns the last legacy status and resets it, as cuBLAS documents.
extern "C" cublasStatus_t cublasGetError(void) {
  cublasStatus_t S = LastError;
  LastError = CUBLAS_STATUS_SUCCESS;
  return S;
}

extern "C" cublasStatus_t cublasSetKernelStream(cudaStream_t Stream) {
  cublasHandle_t H = legacyHandle();
  return H ? cublasSetStream_v2(H, Stream) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasAlloc(int N, int ElemSize, void **Ptr) {
  if (!Ptr || N <= 0 || ElemSize <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  const DriverTable *D = driver();
  if (!D || !ensureContext())
    return CUBLAS_STATUS_NOT_INITIALIZED;
  CUdeviceptr P = 0;
  if (D->MemAlloc(&P, (size_t)N * (size_t)ElemSize) != CUDA_SUCCESS)
    return CUBLAS_STATUS_ALLOC_FAILED;
  *Ptr = reinterpret_cast<void *>(P);
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasFree(void *Ptr) {
  const DriverTable *D = driver();
  if (!D)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Ptr)
    return CUBLAS_STATUS_SUCCESS;
  return D->MemFree(reinterpret_cast<CUdeviceptr>(Ptr)) == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
                                                                         : CUBLAS_STATUS_INTERNAL_ERROR;
}
