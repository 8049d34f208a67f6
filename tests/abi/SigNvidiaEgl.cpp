/// \file
/// NVIDIA's types for the runtime's EGL interop functions. Separate from
/// SigNvidia.cpp because cuda_egl_interop.h includes cuda_runtime.h, whose
/// C++ overloads (cudaMalloc, cudaLaunchKernel...) would make decltype of
/// those names ambiguous there.
#include "SigEntry.h"

#include "NvidiaHeaders.h"

#include <typeinfo>

#define FERRY_SIG(Symbol, NvidiaType)
#define FERRY_SIG_EGL(Symbol, NvidiaType) {#Symbol, typeid(NvidiaType).name()},
const SigEntry NvidiaEglSigs[] = {
#include "SigRows.inc"
};
const size_t NvidiaEglSigCount = sizeof(NvidiaEglSigs) / sizeof(NvidiaEglSigs[0]);
