/// \file
/// cublasXt's handle and settings (see Xt.h); the BLAS-3 routines are
/// generated into CublasXt.cpp.
#include "libs/cublas/Xt.h"
#include "libs/cublas/Driver.h"
#include "libs/cublas/Handle.h"

#include <new>

struct cublasXtContext {
  cublasHandle_t Blas = nullptr;
  int BlockDim = 1024;
  cublasXtPinnedMemMode_t Pinning = CUBLASXT_PINNING_DISABLED;
};

namespace ferry::cublas {

cublasHandle_t xtBlasHandle(cublasXtHandle_t H) { return H ? H->Blas : nullptr; }

cublasStatus_t xtFinish(cublasHandle_t Hd, cublasStatus_t S) {
  if (S != CUBLAS_STATUS_SUCCESS)
    return S;
  Handle *H = lookup(Hd);
  const DriverTable *D = driver();
  if (!H || !D)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return D->StreamSynchronize(H->Stream) == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // namespace ferry::cublas

using namespace ferry::cublas;

extern "C" cublasStatus_t cublasXtCreate(cublasXtHandle_t *H) {
  if (!H)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *X = new (std::nothrow) cublasXtContext;
  if (!X)
    return CUBLAS_STATUS_ALLOC_FAILED;
  if (cublasStatus_t S = cublasCreate_v2(&X->Blas); S != CUBLAS_STATUS_SUCCESS) {
    delete X;
    return S;
  }
  *H = X;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasXtDestroy(cublasXtHandle_t H) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasStatus_t S = cublasDestroy_v2(H->Blas);
  delete H;
  return S;
}
extern "C" cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t H, int Nb, int *Ids) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return Nb >= 1 && Ids ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
extern "C" cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t H, int B) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (B <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->BlockDim = B;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t H, int *B) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!B)
    return CUBLAS_STATUS_INVALID_VALUE;
  *B = H->BlockDim;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasXtSetPinningMemMode(cublasXtHandle_t H, cublasXtPinnedMemMode_t M) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  H->Pinning = M;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasXtGetPinningMemMode(cublasXtHandle_t H, cublasXtPinnedMemMode_t *M) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!M)
    return CUBLAS_STATUS_INVALID_VALUE;
  *M = H->Pinning;
  return CUBLAS_STATUS_SUCCESS;
}
/// The CPU share and CPU routines of a hybrid run: ferry's whole run is on
/// the CPU already, so they are accepted and have no effect.
extern "C" cublasStatus_t cublasXtSetCpuRatio(cublasXtHandle_t H, cublasXtBlasOp_t, cublasXtOpType_t, float R) {
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return R >= 0 && R <= 1 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
extern "C" cublasStatus_t cublasXtSetCpuRoutine(cublasXtHandle_t H, cublasXtBlasOp_t, cublasXtOpType_t, void *) {
  return H ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
extern "C" cublasStatus_t cublasXtMaxBoards(int *N) {
  if (!N)
    return CUBLAS_STATUS_INVALID_VALUE;
  *N = 1;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasXtGetNumBoards(int Nb, int *, int *Boards) {
  if (!Boards)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Boards = Nb > 0 ? 1 : 0;
  return CUBLAS_STATUS_SUCCESS;
}
