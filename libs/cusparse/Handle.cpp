/// \file
/// cuSPARSE handles (context, stream, pointer mode), version and status
/// strings, the logger calls, and the legacy matrix descriptor
/// (cusparseMatDescr_t), which cuSOLVER's sparse solvers also take.
#include "libs/cusparse/Cusparse.h"

#include <cstdarg>
#include <mutex>
#include <new>
#include <unordered_set>

using namespace ferry::cusparse;

namespace {

std::mutex RegistryLock;
std::unordered_set<cusparseHandle_t> &registry() {
  static auto *R = new std::unordered_set<cusparseHandle_t>; // never destroyed: atexit order
  return *R;
}

} // namespace

namespace ferry::cusparse {

void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  ferry::libs::vlogMessage("cusparse", Fmt, Ap);
  va_end(Ap);
}

bool validHandle(cusparseHandle_t H) {
  if (!H)
    return false;
  std::lock_guard<std::mutex> G(RegistryLock);
  return registry().count(H) != 0;
}

cusparseStatus_t enqueue(cusparseHandle_t H, std::function<void()> Work) {
  return fromEnqueue(ferry::libs::enqueueHostTask("cusparse", reinterpret_cast<CUstream>(H->Stream),
                                                  H->Kept, std::move(Work)));
}

cusparseStatus_t syncStream(cusparseHandle_t H) {
  const ferry::libs::DriverTable *D = ferry::libs::driver();
  if (!D)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  return D->StreamSynchronize(reinterpret_cast<CUstream>(H->Stream)) == CUDA_SUCCESS
             ? CUSPARSE_STATUS_SUCCESS
             : CUSPARSE_STATUS_EXECUTION_FAILED;
}

size_t valueSize(cudaDataType T) {
  switch (T) {
  case CUDA_R_32F:
    return 4;
  case CUDA_R_64F:
  case CUDA_C_32F:
    return 8;
  case CUDA_C_64F:
    return 16;
  default:
    return 0;
  }
}

Scalar takeScalar(cusparseHandle_t H, const void *P, cudaDataType T) {
  Scalar S;
  S.Size = valueSize(T);
  if (H->Mode == CUSPARSE_POINTER_MODE_DEVICE)
    S.Device = P;
  else if (P)
    std::memcpy(S.Bytes, P, S.Size);
  return S;
}

} // namespace ferry::cusparse

extern "C" {

/// Where the generated stubs report a call not implemented.
__attribute__((visibility("hidden"))) void ferryCusparseNotImplemented(const char *Name) {
  logMessage("%s is not implemented (CUSPARSE_STATUS_NOT_SUPPORTED)", Name);
}

cusparseStatus_t cusparseCreate(cusparseHandle_t *handle) {
  if (!handle)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!ferry::libs::driver())
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  CUcontext Ctx = ferry::libs::ensureContext();
  if (!Ctx) {
    logMessage("cusparseCreate: no CUDA device");
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  }
  auto *H = new (std::nothrow) cusparseContext;
  if (!H)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  H->Ctx = Ctx;
  try {
    std::lock_guard<std::mutex> G(RegistryLock);
    registry().insert(H);
  } catch (const std::bad_alloc &) {
    delete H;
    return CUSPARSE_STATUS_ALLOC_FAILED;
  }
  *handle = H;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
  if (!handle)
    return CUSPARSE_STATUS_SUCCESS; // as NVIDIA's (recorded)
  {
    std::lock_guard<std::mutex> G(RegistryLock);
    if (!registry().erase(handle))
      return CUSPARSE_STATUS_NOT_INITIALIZED;
  }
  // Queued work reads nothing of the handle, but captured work is kept by
  // it: wait for the stream so no graph node runs freed work.
  if (!handle->Kept.empty())
    syncStream(handle);
  handle->Magic = 0;
  delete handle;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId) {
  if (!validHandle(handle))
    return CUSPARSE_STATUS_INVALID_VALUE; // a null or unknown handle, as NVIDIA's
  handle->Stream = streamId;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t *streamId) {
  if (!validHandle(handle))
    return CUSPARSE_STATUS_INVALID_VALUE; // a null or unknown handle, as NVIDIA's
  if (!streamId)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *streamId = handle->Stream;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode) {
  if (!validHandle(handle))
    return CUSPARSE_STATUS_INVALID_VALUE; // a null or unknown handle, as NVIDIA's
  if (mode != CUSPARSE_POINTER_MODE_HOST && mode != CUSPARSE_POINTER_MODE_DEVICE)
    return CUSPARSE_STATUS_INVALID_VALUE;
  handle->Mode = mode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t *mode) {
  if (!validHandle(handle))
    return CUSPARSE_STATUS_INVALID_VALUE; // a null or unknown handle, as NVIDIA's
  if (!mode)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *mode = handle->Mode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int *version) {
  if (!validHandle(handle))
    return CUSPARSE_STATUS_INVALID_VALUE; // a null or unknown handle, as NVIDIA's
  if (!version)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *version = CUSPARSE_VERSION;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetProperty(libraryPropertyType type, int *value) {
  if (!value)
    return CUSPARSE_STATUS_INVALID_VALUE;
  switch (type) {
  case MAJOR_VERSION:
    *value = CUSPARSE_VER_MAJOR;
    return CUSPARSE_STATUS_SUCCESS;
  case MINOR_VERSION:
    *value = CUSPARSE_VER_MINOR;
    return CUSPARSE_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *value = CUSPARSE_VER_PATCH;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

const char *cusparseGetErrorName(cusparseStatus_t status) {
  switch (status) {
  case CUSPARSE_STATUS_SUCCESS:
    return "CUSPARSE_STATUS_SUCCESS";
  case CUSPARSE_STATUS_NOT_INITIALIZED:
    return "CUSPARSE_STATUS_NOT_INITIALIZED";
  case CUSPARSE_STATUS_ALLOC_FAILED:
    return "CUSPARSE_STATUS_ALLOC_FAILED";
  case CUSPARSE_STATUS_INVALID_VALUE:
    return "CUSPARSE_STATUS_INVALID_VALUE";
  case CUSPARSE_STATUS_ARCH_MISMATCH:
    return "CUSPARSE_STATUS_ARCH_MISMATCH";
  case CUSPARSE_STATUS_MAPPING_ERROR:
    return "CUSPARSE_STATUS_MAPPING_ERROR";
  case CUSPARSE_STATUS_EXECUTION_FAILED:
    return "CUSPARSE_STATUS_EXECUTION_FAILED";
  case CUSPARSE_STATUS_INTERNAL_ERROR:
    return "CUSPARSE_STATUS_INTERNAL_ERROR";
  case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
    return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
  case CUSPARSE_STATUS_ZERO_PIVOT:
    return "CUSPARSE_STATUS_ZERO_PIVOT";
  case CUSPARSE_STATUS_NOT_SUPPORTED:
    return "CUSPARSE_STATUS_NOT_SUPPORTED";
  case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES:
    return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
  }
  return "unrecognized error code";
}

const char *cusparseGetErrorString(cusparseStatus_t status) {
  switch (status) {
  case CUSPARSE_STATUS_SUCCESS:
    return "success";
  case CUSPARSE_STATUS_NOT_INITIALIZED:
    return "initialization error";
  case CUSPARSE_STATUS_ALLOC_FAILED:
    return "out of memory";
  case CUSPARSE_STATUS_INVALID_VALUE:
    return "invalid value";
  case CUSPARSE_STATUS_ARCH_MISMATCH:
    return "architecture mismatch";
  case CUSPARSE_STATUS_MAPPING_ERROR:
    return "texture memory mapping error";
  case CUSPARSE_STATUS_EXECUTION_FAILED:
    return "kernel launch failure";
  case CUSPARSE_STATUS_INTERNAL_ERROR:
    return "internal error";
  case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
    return "matrix type not supported";
  case CUSPARSE_STATUS_ZERO_PIVOT:
    return "zero pivot";
  case CUSPARSE_STATUS_NOT_SUPPORTED:
    return "operation not supported";
  case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES:
    return "insufficient resources";
  }
  return "unrecognized error code";
}

// The logger: ferry's cuSPARSE logs only through its own stderr lines, so
// these accept their settings (a program setting a level must not fail).
cusparseStatus_t cusparseLoggerSetCallback(cusparseLoggerCallback_t) {
  return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseLoggerSetFile(FILE *) { return CUSPARSE_STATUS_SUCCESS; }
cusparseStatus_t cusparseLoggerOpenFile(const char *logFile) {
  return logFile ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
cusparseStatus_t cusparseLoggerSetLevel(int level) {
  return level < 0 || level > 5 ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseLoggerSetMask(int mask) {
  return mask < 0 ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseLoggerForceDisable(void) { return CUSPARSE_STATUS_SUCCESS; }

// The legacy matrix descriptor.

cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *descrA) {
  if (!descrA)
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *D = new (std::nothrow) cusparseMatDescr;
  if (!D)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  *descrA = D;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t descrA) {
  delete descrA; // NVIDIA's accepts a null descriptor
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t descrA, cusparseMatrixType_t type) {
  if (!descrA)
    return CUSPARSE_STATUS_NOT_INITIALIZED; // as NVIDIA's (recorded)
  if (type < CUSPARSE_MATRIX_TYPE_GENERAL || type > CUSPARSE_MATRIX_TYPE_TRIANGULAR)
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->Type = type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseMatrixType_t cusparseGetMatType(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->Type : CUSPARSE_MATRIX_TYPE_GENERAL;
}

cusparseStatus_t cusparseSetMatFillMode(cusparseMatDescr_t descrA, cusparseFillMode_t fillMode) {
  if (!descrA)
    return CUSPARSE_STATUS_NOT_INITIALIZED; // as NVIDIA's (recorded)
  if ((fillMode != CUSPARSE_FILL_MODE_LOWER && fillMode != CUSPARSE_FILL_MODE_UPPER))
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->Fill = fillMode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseFillMode_t cusparseGetMatFillMode(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->Fill : CUSPARSE_FILL_MODE_LOWER;
}

cusparseStatus_t cusparseSetMatDiagType(cusparseMatDescr_t descrA, cusparseDiagType_t diagType) {
  if (!descrA)
    return CUSPARSE_STATUS_NOT_INITIALIZED; // as NVIDIA's (recorded)
  if ((diagType != CUSPARSE_DIAG_TYPE_NON_UNIT && diagType != CUSPARSE_DIAG_TYPE_UNIT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->Diag = diagType;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseDiagType_t cusparseGetMatDiagType(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->Diag : CUSPARSE_DIAG_TYPE_NON_UNIT;
}

cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t descrA, cusparseIndexBase_t base) {
  if (!descrA)
    return CUSPARSE_STATUS_NOT_INITIALIZED; // as NVIDIA's (recorded)
  if ((base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->Base = base;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseIndexBase_t cusparseGetMatIndexBase(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->Base : CUSPARSE_INDEX_BASE_ZERO;
}

} // extern "C"
