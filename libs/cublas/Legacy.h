/// \file
/// State of the legacy cuBLAS API (cublas.h): one process-wide handle made
/// by cublasInit, the last status for cublasGetError, and the letters the
/// legacy functions take for their modes. Used by the generated
/// CublasLegacy.cpp (libs/cublas/gen-legacy) and by Legacy.cpp.
#pragma once

#include "ferry/generated/CublasApi.h"

namespace ferry::cublas {

/// The handle cublasInit created, or null after recording
/// CUBLAS_STATUS_NOT_INITIALIZED for cublasGetError (as NVIDIA's legacy
/// functions do when called before cublasInit).
cublasHandle_t legacyHandle();

/// Records the status of the latest legacy call (thread-local: a thread's
/// cublasGetError sees its own calls).
void setLegacyError(cublasStatus_t S);

/// 'N'/'T'/'C', 'U'/'L', 'L'/'R', 'N'/'U' in either case; any other letter
/// gives an out-of-range value, which the _v2 function rejects.
cublasOperation_t legacyOp(char C);
cublasFillMode_t legacyFill(char C);
cublasSideMode_t legacySide(char C);
cublasDiagType_t legacyDiag(char C);

} // namespace ferry::cublas
