/// \file
/// cublasSet/GetVector/Matrix(+Async): strided copies between host and
/// device memory through the driver's 2-D copy, so they work on any ferry
/// device. The checks and their order follow NVIDIA's (measured on the
/// H100): a bad increment, element size or negative count returns
/// INVALID_VALUE, except a negative vector length and a leading dimension
/// below the row count, which NVIDIA hands to the copy and reports as
/// MAPPING_ERROR.
#include "libs/cublas/Driver.h"
#include "libs/cublas/Handle.h"

#include <cstring>

using namespace ferry::cublas;

namespace {

/// Copies Height runs of Width bytes, source rows SrcPitch apart and
/// destination rows DstPitch apart; Stream null and Async false: a
/// synchronous copy ordered after all work (cudaMemcpy2D's behaviour).
cublasStatus_t copy2D(const void *Src, size_t SrcPitch, void *Dst, size_t DstPitch, size_t Width, size_t Height,
                      bool Async, cudaStream_t Stream) {
  if (Width == 0 || Height == 0)
    return CUBLAS_STATUS_SUCCESS;
  const DriverTable *D = driver();
  if (!D || !ensureContext())
    return CUBLAS_STATUS_NOT_INITIALIZED;
  CUDA_MEMCPY2D P;
  std::memset(&P, 0, sizeof(P));
  P.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.srcDevice = reinterpret_cast<CUdeviceptr>(Src);
  P.srcPitch = SrcPitch;
  P.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.dstDevice = reinterpret_cast<CUdeviceptr>(Dst);
  P.dstPitch = DstPitch;
  P.WidthInBytes = Width;
  P.Height = Height;
  CUresult R = Async ? D->Memcpy2DAsync(&P, Stream) : D->Memcpy2D(&P);
  return R == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t vectorCopy(int64_t N, int64_t ElemSize, const void *X, int64_t IncX, void *Y, int64_t IncY, bool Async,
                          cudaStream_t Stream) {
  if (IncX <= 0 || IncY <= 0 || ElemSize <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (N < 0)
    return CUBLAS_STATUS_MAPPING_ERROR;
  return copy2D(X, IncX * ElemSize, Y, IncY * ElemSize, ElemSize, N, Async, Stream);
}

cublasStatus_t matrixCopy(int64_t Rows, int64_t Cols, int64_t ElemSize, const void *A, int64_t Lda, void *B,
                          int64_t Ldb, bool Async, cudaStream_t Stream) {
  if (Rows < 0 || Cols < 0 || ElemSize <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Lda <= 0 || Ldb <= 0 || Lda < Rows || Ldb < Rows)
    return CUBLAS_STATUS_MAPPING_ERROR;
  return copy2D(A, Lda * ElemSize, B, Ldb * ElemSize, Rows * ElemSize, Cols, Async, Stream);
}

} // namespace

extern "C" cublasStatus_t cublasSetVector(int N, int ElemSize, const void *X, int IncX, void *Y, int IncY) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, false, nullptr);
}
extern "C" cublasStatus_t cublasGetVector(int N, int ElemSize, const void *X, int IncX, void *Y, int IncY) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, false, nullptr);
}
extern "C" cublasStatus_t cublasSetVectorAsync(int N, int ElemSize, const void *X, int IncX, void *Y, int IncY,
                                               cudaStream_t S) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, true, S);
}
extern "C" cublasStatus_t cublasGetVectorAsync(int N, int ElemSize, const void *X, int IncX, void *Y, int IncY,
                                               cudaStream_t S) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, true, S);
}
extern "C" cublasStatus_t cublasSetVector_64(int64_t N, int64_t ElemSize, const void *X, int64_t IncX, void *Y,
                                             int64_t IncY) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, false, nullptr);
}
extern "C" cublasStatus_t cublasGetVector_64(int64_t N, int64_t ElemSize, const void *X, int64_t IncX, void *Y,
                                             int64_t IncY) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, false, nullptr);
}
extern "C" cublasStatus_t cublasSetVectorAsync_64(int64_t N, int64_t ElemSize, const void *X, int64_t IncX, void *Y,
                                                  int64_t IncY, cudaStream_t S) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, true, S);
}
extern "C" cublasStatus_t cublasGetVectorAsync_64(int64_t N, int64_t ElemSize, const void *X, int64_t IncX, void *Y,
                                                  int64_t IncY, cudaStream_t S) {
  return vectorCopy(N, ElemSize, X, IncX, Y, IncY, true, S);
}

extern "C" cublasStatus_t cublasSetMatrix(int Rows, int Cols, int ElemSize, const void *A, int Lda, void *B, int Ldb) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, false, nullptr);
}
extern "C" cublasStatus_t cublasGetMatrix(int Rows, int Cols, int ElemSize, const void *A, int Lda, void *B, int Ldb) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, false, nullptr);
}
extern "C" cublasStatus_t cublasSetMatrixAsync(int Rows, int Cols, int ElemSize, const void *A, int Lda, void *B,
                                               int Ldb, cudaStream_t S) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, true, S);
}
extern "C" cublasStatus_t cublasGetMatrixAsync(int Rows, int Cols, int ElemSize, const void *A, int Lda, void *B,
                                               int Ldb, cudaStream_t S) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, true, S);
}
extern "C" cublasStatus_t cublasSetMatrix_64(int64_t Rows, int64_t Cols, int64_t ElemSize, const void *A, int64_t Lda,
                                             void *B, int64_t Ldb) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, false, nullptr);
}
extern "C" cublasStatus_t cublasGetMatrix_64(int64_t Rows, int64_t Cols, int64_t ElemSize, const void *A, int64_t Lda,
                                             void *B, int64_t Ldb) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, false, nullptr);
}
extern "C" cublasStatus_t cublasSetMatrixAsync_64(int64_t Rows, int64_t Cols, int64_t ElemSize, const void *A,
                                                  int64_t Lda, void *B, int64_t Ldb, cudaStream_t S) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, true, S);
}
extern "C" cublasStatus_t cublasGetMatrixAsync_64(int64_t Rows, int64_t Cols, int64_t ElemSize, const void *A,
                                                  int64_t Lda, void *B, int64_t Ldb, cudaStream_t S) {
  return matrixCopy(Rows, Cols, ElemSize, A, Lda, B, Ldb, true, S);
}
