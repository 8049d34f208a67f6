/// \file
/// Handles, their settings, version and status queries, and stream-ordered
/// execution (see Handle.h).
#include "libs/cublas/Handle.h"
#include "libs/cublas/Driver.h"

#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <sched.h>
#include <unordered_set>

namespace ferry::cublas {

namespace {

std::mutex RegistryLock;
std::unordered_set<Handle *> &registry() {
  static auto *R = new std::unordered_set<Handle *>; // Never destroyed: atexit order.
  return *R;
}

/// The cublasGet* calls of one handle setting: the handle must be live and
/// the out pointer not null, as NVIDIA's checks them, in that order.
template <typename T> cublasStatus_t getField(cublasHandle_t Hd, T *Out, T Handle::*Field) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Out = H->*Field;
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

Handle *lookup(cublasHandle_t H) {
  if (!H)
    return nullptr;
  auto *P = reinterpret_cast<Handle *>(H);
  std::lock_guard<std::mutex> G(RegistryLock);
  if (!registry().count(P) || P->Magic != Handle::Live)
    return nullptr;
  return P;
}

cublasStatus_t invalidParam(const char *Routine, int Param) {
  std::printf(" ** On entry to %s parameter number %d had an illegal value\n", Routine, Param);
  return CUBLAS_STATUS_INVALID_VALUE;
}

void configureBlasThreads() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    // OpenBLAS reads OPENBLAS_NUM_THREADS itself; otherwise use the CPUs this
    // process may run on. A BLAS call runs while its stream waits, so it
    // does not compete with that stream's kernels; FERRY_BLAS_THREADS
    // overrides both.
    if (const char *E = std::getenv("FERRY_BLAS_THREADS")) {
      if (int N = std::atoi(E); N > 0)
        openblas_set_num_threads(N);
      return;
    }
    if (std::getenv("OPENBLAS_NUM_THREADS"))
      return;
    cpu_set_t Set;
    int N = sched_getaffinity(0, sizeof(Set), &Set) == 0 ? CPU_COUNT(&Set) : 1;
    openblas_set_num_threads(N > 0 ? N : 1);
  });
}

cublasStatus_t enqueueTask(Handle &H, std::function<void()> Work, bool WaitForHostResult) {
  const DriverTable *D = driver();
  if (!D)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  configureBlasThreads();
  switch (libs::enqueueHostTask("cublas", H.Stream, H.Kept, std::move(Work))) {
  case libs::EnqueueResult::Ok:
    break;
  case libs::EnqueueResult::NoDriver:
    return CUBLAS_STATUS_NOT_INITIALIZED;
  case libs::EnqueueResult::LaunchFailed:
    return CUBLAS_STATUS_EXECUTION_FAILED;
  case libs::EnqueueResult::NoMemory:
    // Nothing throws across the C ABI: the task could not be allocated.
    return CUBLAS_STATUS_ALLOC_FAILED;
  case libs::EnqueueResult::NoHostAccess:
    libs::logNoHostAccess("cublas", "CUBLAS_STATUS_NOT_SUPPORTED");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  // Captured work is not run now, so there is no result to wait for.
  CUstreamCaptureStatus Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (WaitForHostResult && H.PointerMode == CUBLAS_POINTER_MODE_HOST &&
      D->StreamIsCapturing(H.Stream, &Capture) == CUDA_SUCCESS && Capture == CU_STREAM_CAPTURE_STATUS_NONE &&
      D->StreamSynchronize(H.Stream) != CUDA_SUCCESS)
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace ferry::cublas

using namespace ferry::cublas;

// ---------------------------------------------------------------------------
// Handles and settings.
// ---------------------------------------------------------------------------

extern "C" cublasStatus_t cublasCreate_v2(cublasHandle_t *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!driver())
    return CUBLAS_STATUS_NOT_INITIALIZED;
  CUcontext Ctx = ensureContext();
  if (!Ctx) {
    logMessage("cublasCreate: no CUDA device");
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  auto *H = new (std::nothrow) Handle;
  if (!H)
    return CUBLAS_STATUS_ALLOC_FAILED;
  H->Ctx = Ctx;
  try {
    std::lock_guard<std::mutex> G(RegistryLock);
    registry().insert(H);
  } catch (const std::bad_alloc &) {
    delete H;
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  *Out = reinterpret_cast<cublasHandle_t>(H);
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasDestroy_v2(cublasHandle_t Hd) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  // Work still queued refers to nothing of the handle but captured tasks;
  // wait for the stream so those are not freed under a running graph node.
  if (const DriverTable *D = driver(); D && !H->Kept.empty())
    D->StreamSynchronize(H->Stream);
  {
    std::lock_guard<std::mutex> G(RegistryLock);
    registry().erase(H);
  }
  H->Magic = 0;
  delete H;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetVersion_v2(cublasHandle_t Hd, int *Version) {
  // The version needs no handle: JAX asks with a null one at start-up
  // (jaxlib/cuda/versions_helpers.cc), as NVIDIA's library allows.
  if (Hd && !lookup(Hd))
    return badHandle();
  if (!Version)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Version = CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetProperty(libraryPropertyType Type, int *Value) {
  if (!Value)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (Type) {
  case MAJOR_VERSION:
    *Value = CUBLAS_VER_MAJOR;
    return CUBLAS_STATUS_SUCCESS;
  case MINOR_VERSION:
    *Value = CUBLAS_VER_MINOR;
    return CUBLAS_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *Value = CUBLAS_VER_PATCH;
    return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

extern "C" size_t cublasGetCudartVersion(void) { return 13000; }

extern "C" cublasStatus_t cublasSetStream_v2(cublasHandle_t Hd, cudaStream_t Stream) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  H->Stream = Stream;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetStream_v2(cublasHandle_t Hd, cudaStream_t *Stream) {
  return getField(Hd, Stream, &Handle::Stream);
}

extern "C" cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t Hd, cublasPointerMode_t Mode) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (Mode != CUBLAS_POINTER_MODE_HOST && Mode != CUBLAS_POINTER_MODE_DEVICE)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->PointerMode = Mode;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t Hd, cublasPointerMode_t *Mode) {
  return getField(Hd, Mode, &Handle::PointerMode);
}

extern "C" cublasStatus_t cublasSetMathMode(cublasHandle_t Hd, cublasMath_t Mode) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  // One base mode, optionally with the reduced-precision-reduction flag.
  int Base = Mode & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  if (Base != CUBLAS_DEFAULT_MATH && Base != CUBLAS_TENSOR_OP_MATH && Base != CUBLAS_PEDANTIC_MATH &&
      Base != CUBLAS_TF32_TENSOR_OP_MATH && Base != CUBLAS_FP32_EMULATED_BF16X9_MATH &&
      Base != CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->MathMode = Mode;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetMathMode(cublasHandle_t Hd, cublasMath_t *Mode) {
  return getField(Hd, Mode, &Handle::MathMode);
}

extern "C" cublasStatus_t cublasSetAtomicsMode(cublasHandle_t Hd, cublasAtomicsMode_t Mode) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (Mode != CUBLAS_ATOMICS_NOT_ALLOWED && Mode != CUBLAS_ATOMICS_ALLOWED)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->Atomics = Mode;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetAtomicsMode(cublasHandle_t Hd, cublasAtomicsMode_t *Mode) {
  return getField(Hd, Mode, &Handle::Atomics);
}

extern "C" cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t Hd, cublasEmulationStrategy_t S) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (S < CUBLAS_EMULATION_STRATEGY_DEFAULT || S > CUBLAS_EMULATION_STRATEGY_EAGER)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->Emulation = S;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t Hd, cublasEmulationStrategy_t *S) {
  return getField(Hd, S, &Handle::Emulation);
}

/// The CPU routines need no workspace; the buffer is recorded so the
/// handle reports what it was given. NVIDIA's accepts any pointer and size.
extern "C" cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t Hd, void *Workspace, size_t Size) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  H->Workspace = Workspace;
  H->WorkspaceSize = Size;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" const char *cublasGetStatusName(cublasStatus_t S) {
  switch (S) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "unrecognized status";
}

extern "C" const char *cublasGetStatusString(cublasStatus_t S) {
  switch (S) {
  case CUBLAS_STATUS_SUCCESS:
    return "success";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "the library was not initialized";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "the resource allocation failed";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "an unsupported value or parameter was passed to the function";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "the function requires an architectural feature absent from the device";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "an access to GPU memory space failed";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "the function failed to launch on the GPU";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "an internal operation failed";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "the requested functionality is not supported";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "the license check failed";
  }
  return "unrecognized status";
}

/// Stubs report through this hook (see the generated CublasStubs.cpp).
extern "C" __attribute__((visibility("hidden"))) void ferryCublasNotImplemented(const char *Name) {
  logMessage("%s is not implemented; returning CUBLAS_STATUS_NOT_SUPPORTED", Name);
}
