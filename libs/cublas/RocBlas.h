/// \file
/// cuBLAS's GEMMs forwarded to rocBLAS where the host cannot touch the
/// device's memory (a discrete AMD GPU without a large BAR: libs/README.md,
/// "The AMD backend"). rocBLAS and the HIP runtime it runs on are loaded
/// with dlopen from the user's ROCm (libs/common/Rocm.h), never linked.
/// Each forwarded call is one host task on the cuBLAS handle's stream (so
/// it stays in order with that stream's other work and is captured like
/// it) that calls rocblas_gemm_strided_batched_ex on a HIP stream of the
/// handle's own and waits for it; the task itself reads no device memory.
#pragma once

#include "libs/cublas/Handle.h"

#include <cstdint>

namespace ferry::cublas {

/// One GEMM as rocblas_gemm_strided_batched_ex takes it (a plain GEMM is a
/// batch of one); strides in elements. Compute is the scale and accumulate
/// type (alpha and beta have it).
struct RocGemm {
  cublasOperation_t OpA = CUBLAS_OP_N, OpB = CUBLAS_OP_N;
  int64_t M = 0, N = 0, K = 0;
  const void *A = nullptr, *B = nullptr;
  void *C = nullptr;
  cudaDataType At = CUDA_R_32F, Bt = CUDA_R_32F, Ct = CUDA_R_32F, Compute = CUDA_R_32F;
  int64_t Lda = 0, Ldb = 0, Ldc = 0, StrideA = 0, StrideB = 0, StrideC = 0, Batch = 1;
  unsigned char Alpha[16] = {}, Beta[16] = {}; ///< Pointer mode HOST: the values.
  const void *AlphaPtr = nullptr, *BetaPtr = nullptr; ///< Pointer mode DEVICE.
};

/// Runs G with rocBLAS, in order on H's stream. CUBLAS_STATUS_NOT_SUPPORTED,
/// with a log line naming the call, when rocBLAS or HIP cannot be loaded or
/// rocBLAS has no form for G's types.
cublasStatus_t forwardGemm(Handle &H, const RocGemm &G);

} // namespace ferry::cublas
