/// \file
/// cuSPARSE's SpMV and SpMM forwarded to rocSPARSE where the host cannot
/// touch the device's memory (a discrete AMD GPU without a large BAR:
/// libs/README.md, "The AMD backend"). rocSPARSE and the HIP runtime are
/// loaded with dlopen from the user's ROCm (libs/common/Rocm.h), never
/// linked.
///
/// The buffer-size protocol maps onto rocSPARSE's stages: the
/// cusparse*_bufferSize call runs rocSPARSE's buffer_size stage over the
/// same operands and reports that size (at least ferry's own 128 bytes), so
/// the caller allocates what rocSPARSE needs; the operation runs the
/// buffer_size stage again on the calling thread (what rocSPARSE refuses is
/// refused there, NOT_SUPPORTED with a log line, before anything is
/// enqueued), then one host task on the handle's stream runs the
/// preprocess and compute stages in the caller's buffer on a HIP stream of
/// the handle's own and waits for it. rocSPARSE's descriptors are made per
/// call, so its analysis is redone each time (correct, not fast).
#pragma once

#include "libs/cusparse/Cusparse.h"

namespace ferry::cusparse {

/// Whether H's operations on device memory must go to rocSPARSE.
inline bool mustForward(cusparseHandle_t H) { return !H->Kept.hostReachesDeviceMemory(); }

/// rocSPARSE's buffer size for an SpMV (or SpMM) over these operands, at
/// least Minimum; Minimum when rocSPARSE is missing or refuses them (the
/// operation then answers NOT_SUPPORTED).
size_t rocSpmvBufferSize(cusparseHandle_t H, cusparseOperation_t Op, const void *Alpha, const cusparseSpMatDescr &A,
                         const cusparseDnVecDescr &X, const void *Beta, const cusparseDnVecDescr &Y,
                         cudaDataType Compute, size_t Minimum);
size_t rocSpmmBufferSize(cusparseHandle_t H, cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                         const cusparseSpMatDescr &A, const cusparseDnMatDescr &B, const void *Beta,
                         const cusparseDnMatDescr &C, cudaDataType Compute, size_t Minimum);

/// y = alpha op(A) x + beta y (C = alpha op(A) op(B) + beta C) in rocSPARSE,
/// in order on H's stream, Buffer the caller's (sized by the calls above).
/// CUSPARSE_STATUS_NOT_SUPPORTED, with a log line naming the call and why,
/// when rocSPARSE or HIP cannot be loaded, A's format is not CSR, CSC or
/// COO, or rocSPARSE refuses the operands.
cusparseStatus_t rocSpmv(cusparseHandle_t H, cusparseOperation_t Op, const Scalar &Alpha, const cusparseSpMatDescr &A,
                         const cusparseDnVecDescr &X, const Scalar &Beta, const cusparseDnVecDescr &Y,
                         cudaDataType Compute, void *Buffer);
cusparseStatus_t rocSpmm(cusparseHandle_t H, cusparseOperation_t OpA, cusparseOperation_t OpB, const Scalar &Alpha,
                         const cusparseSpMatDescr &A, const cusparseDnMatDescr &B, const Scalar &Beta,
                         const cusparseDnMatDescr &C, cudaDataType Compute, void *Buffer);

} // namespace ferry::cusparse
