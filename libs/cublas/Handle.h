/// \file
/// A cuBLAS handle and the machinery every routine shares: validating a
/// handle, reading scalars by the handle's pointer mode, reporting a bad
/// argument the way NVIDIA's cuBLAS does, and running the work in order on
/// the handle's stream.
///
/// Stream order: each routine checks its arguments on the calling thread
/// (bad ones return at once, as on NVIDIA), then enqueues its work with
/// cuLaunchHostFunc on the handle's stream. The work runs on the host (the
/// device memory of the host backend is host memory in this address space)
/// after everything enqueued before it, and before everything after it,
/// and a stream being captured records it as a host node of the graph.
#pragma once

#include "ferry/generated/CublasApi.h"
#include "libs/common/HostTask.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <mutex>
#include <vector>

namespace ferry::cublas {

struct RocState; // RocBlas.cpp

struct Handle {
  static constexpr uint64_t Live = 0x6665727279424c53ull; // "ferryBLS"
  uint64_t Magic = Live;
  CUcontext Ctx = nullptr;
  cudaStream_t Stream = nullptr;
  cublasPointerMode_t PointerMode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t MathMode = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t Atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
  cublasEmulationStrategy_t Emulation = CUBLAS_EMULATION_STRATEGY_DEFAULT;
  void *Workspace = nullptr;
  size_t WorkspaceSize = 0;
  // Settings NVIDIA's cuBLAS uses to pick kernels or emulate FP64/FP32 with
  // tensor cores; ferry computes exactly and only reports them back.
  int SmCountTarget = 0;
  cudaEmulationSpecialValuesSupport EmulationSpecialValues = CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT;
  cudaEmulationMantissaControl MantissaControl = CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC;
  int MaxMantissaBitCount = 0;
  int MantissaBitOffset = 0;
  int *MantissaBitCountPointer = nullptr;
  /// Work captured into graphs lives until the handle is destroyed (as
  /// NVIDIA's captured work needs the handle's workspace to live).
  libs::TaskKeeper Kept;
  /// rocBLAS's handle and HIP stream once a GEMM was forwarded (RocBlas.h).
  std::shared_ptr<RocState> Roc;
};

/// The live handle behind H, or null (a null, destroyed or foreign handle).
Handle *lookup(cublasHandle_t H);

/// A scalar argument: read now in pointer mode HOST, inside the work in
/// pointer mode DEVICE (it may be written by earlier work on the stream).
template <typename T> struct Scalar {
  T Value{};
  const T *Ptr = nullptr;
  T get() const { return Ptr ? *Ptr : Value; }
};
template <typename T> Scalar<T> scalar(const Handle &H, const T *P) {
  Scalar<T> S;
  if (H.PointerMode == CUBLAS_POINTER_MODE_DEVICE)
    S.Ptr = P;
  else if (P)
    S.Value = *P;
  return S;
}

/// Prints NVIDIA's message for a bad argument (it goes to stdout, before
/// the call returns) and returns CUBLAS_STATUS_INVALID_VALUE. `Routine` is
/// spelled and padded as NVIDIA's ("SGEMM ", "GEMM_EX "); Param counts from
/// 1 at the argument after the handle.
cublasStatus_t invalidParam(const char *Routine, int Param);

/// Runs Work in stream order on H's stream. With WaitForHostResult (a
/// reduction whose result goes to host memory in pointer mode HOST), waits
/// for it before returning, as NVIDIA's cuBLAS does.
cublasStatus_t enqueueTask(Handle &H, std::function<void()> Work, bool WaitForHostResult);

/// enqueueTask for any callable; the std::function holding it is made here,
/// where an allocation failure becomes CUBLAS_STATUS_ALLOC_FAILED instead of
/// an exception leaving the C entry point.
template <typename F> cublasStatus_t enqueue(Handle &H, F &&Work, bool WaitForHostResult = false) {
  try {
    return enqueueTask(H, std::function<void()>(std::forward<F>(Work)), WaitForHostResult);
  } catch (const std::bad_alloc &) {
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
}

/// The status for a routine given an invalid handle.
inline cublasStatus_t badHandle() { return CUBLAS_STATUS_NOT_INITIALIZED; }

/// Sets OpenBLAS's thread count once (see DESIGN.md, libs).
void configureBlasThreads();

} // namespace ferry::cublas
