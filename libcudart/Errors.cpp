/// \file
/// Runtime errors: the table of every cudaError_t value with its name and a
/// description (ferry's own wording), the CUresult -> cudaError_t map, the
/// per-thread last error and cudaGetErrorName/String/GetLastError/
/// PeekAtLastError.
///
/// The runtime's codes were laid out to share values with the driver's, so
/// a driver result maps to the runtime error of the same value when one
/// exists (CUDA_ERROR_INVALID_HANDLE 400 -> cudaErrorInvalidResourceHandle,
/// CUDA_ERROR_NO_BINARY_FOR_GPU 209 -> cudaErrorNoKernelImageForDevice) and
/// to cudaErrorUnknown otherwise.
#include "Runtime.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace ferry::cudart {
namespace {

struct ErrorInfo {
  int Value;
  const char *Name;
  const char *Description;
};

// Sorted by value (binary search).
constexpr ErrorInfo Errors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "an argument is out of range or invalid"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "the CUDA driver or runtime could not be initialized"},
    {4, "cudaErrorCudartUnloading", "the CUDA runtime is shutting down"},
    {5, "cudaErrorProfilerDisabled", "profiler is disabled for this run"},
    {6, "cudaErrorProfilerNotInitialized", "profiler was not initialized"},
    {7, "cudaErrorProfilerAlreadyStarted", "profiler already started"},
    {8, "cudaErrorProfilerAlreadyStopped", "profiler already stopped"},
    {9, "cudaErrorInvalidConfiguration", "the launch configuration is invalid for this device"},
    {12, "cudaErrorInvalidPitchValue", "a pitch argument is invalid"},
    {13, "cudaErrorInvalidSymbol", "the symbol is not a registered device variable"},
    {16, "cudaErrorInvalidHostPointer", "the host pointer is invalid"},
    {17, "cudaErrorInvalidDevicePointer", "the device pointer is invalid"},
    {18, "cudaErrorInvalidTexture", "the texture is invalid"},
    {19, "cudaErrorInvalidTextureBinding", "the texture binding is invalid"},
    {20, "cudaErrorInvalidChannelDescriptor", "the channel format descriptor is invalid"},
    {21, "cudaErrorInvalidMemcpyDirection", "the copy direction (cudaMemcpyKind) is invalid"},
    {22, "cudaErrorAddressOfConstant", "the address of a constant variable cannot be taken"},
    {23, "cudaErrorTextureFetchFailed", "a texture fetch failed"},
    {24, "cudaErrorTextureNotBound", "the texture is not bound"},
    {25, "cudaErrorSynchronizationError", "a synchronization operation failed"},
    {26, "cudaErrorInvalidFilterSetting", "linear filtering is not supported for this format"},
    {27, "cudaErrorInvalidNormSetting", "normalized reads are not supported for this format"},
    {28, "cudaErrorMixedDeviceExecution", "device and device-emulation code were mixed"},
    {31, "cudaErrorNotYetImplemented", "the function is not implemented"},
    {32, "cudaErrorMemoryValueTooLarge", "an emulated device pointer is out of range"},
    {34, "cudaErrorStubLibrary", "the CUDA driver is a stub library"},
    {35, "cudaErrorInsufficientDriver", "the CUDA driver is missing or older than this runtime"},
    {36, "cudaErrorCallRequiresNewerDriver", "the driver does not provide a function this call needs"},
    {37, "cudaErrorInvalidSurface", "the surface is invalid"},
    {43, "cudaErrorDuplicateVariableName", "two device variables share a name"},
    {44, "cudaErrorDuplicateTextureName", "two textures share a name"},
    {45, "cudaErrorDuplicateSurfaceName", "two surfaces share a name"},
    {46, "cudaErrorDevicesUnavailable", "all CUDA devices are busy or unavailable"},
    {49, "cudaErrorIncompatibleDriverContext", "the current context was not made by this runtime's driver"},
    {52, "cudaErrorMissingConfiguration", "the launch has no configuration"},
    {53, "cudaErrorPriorLaunchFailure", "an earlier launch failed"},
    {65, "cudaErrorLaunchMaxDepthExceeded", "device-side launch nesting is too deep"},
    {66, "cudaErrorLaunchFileScopedTex", "device-side launch with file-scoped textures"},
    {67, "cudaErrorLaunchFileScopedSurf", "device-side launch with file-scoped surfaces"},
    {68, "cudaErrorSyncDepthExceeded", "device-side synchronization nesting is too deep"},
    {69, "cudaErrorLaunchPendingCountExceeded", "too many pending device-side launches"},
    {98, "cudaErrorInvalidDeviceFunction", "the function is not a registered kernel"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is present"},
    {101, "cudaErrorInvalidDevice", "the device ordinal is invalid"},
    {102, "cudaErrorDeviceNotLicensed", "the device is not licensed for this use"},
    {103, "cudaErrorSoftwareValidityNotEstablished", "the runtime could not establish software integrity"},
    {127, "cudaErrorStartupFailure", "the runtime failed to start"},
    {200, "cudaErrorInvalidKernelImage", "the device image is invalid"},
    {201, "cudaErrorDeviceUninitialized", "no valid context is current"},
    {205, "cudaErrorMapBufferObjectFailed", "mapping a buffer object failed"},
    {206, "cudaErrorUnmapBufferObjectFailed", "unmapping a buffer object failed"},
    {207, "cudaErrorArrayIsMapped", "the array is mapped"},
    {208, "cudaErrorAlreadyMapped", "the resource is already mapped"},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image runs on this device"},
    {210, "cudaErrorAlreadyAcquired", "the resource is already acquired"},
    {211, "cudaErrorNotMapped", "the resource is not mapped"},
    {212, "cudaErrorNotMappedAsArray", "the resource is not mapped as an array"},
    {213, "cudaErrorNotMappedAsPointer", "the resource is not mapped as a pointer"},
    {214, "cudaErrorECCUncorrectable", "an uncorrectable ECC error was detected"},
    {215, "cudaErrorUnsupportedLimit", "the limit is not supported by this device"},
    {216, "cudaErrorDeviceAlreadyInUse", "the device is already in use by another thread"},
    {217, "cudaErrorPeerAccessUnsupported", "peer access is not supported between these devices"},
    {218, "cudaErrorInvalidPtx", "PTX compilation failed"},
    {219, "cudaErrorInvalidGraphicsContext", "the graphics context is invalid"},
    {220, "cudaErrorNvlinkUncorrectable", "an uncorrectable NVLink error was detected"},
    {221, "cudaErrorJitCompilerNotFound", "the PTX JIT compiler is not available"},
    {222, "cudaErrorUnsupportedPtxVersion", "the PTX was made by a newer toolchain than the driver supports"},
    {223, "cudaErrorJitCompilationDisabled", "PTX JIT compilation is disabled"},
    {224, "cudaErrorUnsupportedExecAffinity", "the execution affinity is not supported"},
    {225, "cudaErrorUnsupportedDevSideSync", "device-side synchronization is not supported here"},
    {226, "cudaErrorContained", "an error was contained to this context"},
    {300, "cudaErrorInvalidSource", "the kernel source is invalid"},
    {301, "cudaErrorFileNotFound", "the file was not found"},
    {302, "cudaErrorSharedObjectSymbolNotFound", "a shared-object symbol could not be resolved"},
    {303, "cudaErrorSharedObjectInitFailed", "shared-object initialization failed"},
    {304, "cudaErrorOperatingSystem", "an operating-system call failed"},
    {400, "cudaErrorInvalidResourceHandle", "the handle is invalid"},
    {401, "cudaErrorIllegalState", "the operation is not valid in the object's current state"},
    {402, "cudaErrorLossyQuery", "the query cannot be answered without losing information"},
    {500, "cudaErrorSymbolNotFound", "the named symbol was not found"},
    {600, "cudaErrorNotReady", "the asynchronous work has not completed yet"},
    {700, "cudaErrorIllegalAddress", "a kernel accessed an illegal address"},
    {701, "cudaErrorLaunchOutOfResources", "the launch needs more resources than the device has"},
    {702, "cudaErrorLaunchTimeout", "the kernel ran too long and was terminated"},
    {703, "cudaErrorLaunchIncompatibleTexturing", "the launch uses an incompatible texturing mode"},
    {704, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {705, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {708, "cudaErrorSetOnActiveProcess", "the setting cannot change once the device is active"},
    {709, "cudaErrorContextIsDestroyed", "the context was destroyed"},
    {710, "cudaErrorAssert", "a device-side assertion failed"},
    {711, "cudaErrorTooManyPeers", "too many peer devices"},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "the host memory is already registered"},
    {713, "cudaErrorHostMemoryNotRegistered", "the host memory is not registered"},
    {714, "cudaErrorHardwareStackError", "a kernel overflowed or corrupted its stack"},
    {715, "cudaErrorIllegalInstruction", "a kernel executed an illegal instruction"},
    {716, "cudaErrorMisalignedAddress", "a kernel accessed a misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", "a kernel used an address in the wrong state space"},
    {718, "cudaErrorInvalidPc", "a kernel's program counter became invalid"},
    {719, "cudaErrorLaunchFailure", "a kernel failed while running"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "the cooperative launch has more blocks than can be resident"},
    {721, "cudaErrorTensorMemoryLeak", "a kernel exited without freeing its tensor memory"},
    {800, "cudaErrorNotPermitted", "the operation is not permitted"},
    {801, "cudaErrorNotSupported", "the operation is not supported"},
    {802, "cudaErrorSystemNotReady", "the system is not ready for CUDA"},
    {803, "cudaErrorSystemDriverMismatch", "the driver and the kernel module versions differ"},
    {804, "cudaErrorCompatNotSupportedOnDevice", "forward compatibility is not supported on this device"},
    {805, "cudaErrorMpsConnectionFailed", "connecting to the MPS server failed"},
    {806, "cudaErrorMpsRpcFailure", "a call to the MPS server failed"},
    {807, "cudaErrorMpsServerNotReady", "the MPS server is not ready"},
    {808, "cudaErrorMpsMaxClientsReached", "the MPS server has too many clients"},
    {809, "cudaErrorMpsMaxConnectionsReached", "the MPS server has too many connections"},
    {810, "cudaErrorMpsClientTerminated", "the MPS client was terminated"},
    {811, "cudaErrorCdpNotSupported", "dynamic parallelism is not supported here"},
    {812, "cudaErrorCdpVersionMismatch", "dynamic parallelism versions differ"},
    {900, "cudaErrorStreamCaptureUnsupported", "the operation is not allowed while the stream is captured"},
    {901, "cudaErrorStreamCaptureInvalidated", "the stream capture was invalidated by an earlier error"},
    {902, "cudaErrorStreamCaptureMerge", "the operation would merge two captures"},
    {903, "cudaErrorStreamCaptureUnmatched", "the capture was not started in this stream"},
    {904, "cudaErrorStreamCaptureUnjoined", "the capture forked into a stream that was not joined"},
    {905, "cudaErrorStreamCaptureIsolation", "the operation would cross a capture boundary"},
    {906, "cudaErrorStreamCaptureImplicit", "the operation would implicitly depend on a captured stream"},
    {907, "cudaErrorCapturedEvent", "the event was recorded in a capture"},
    {908, "cudaErrorStreamCaptureWrongThread", "the capture was started by another thread"},
    {909, "cudaErrorTimeout", "the wait timed out"},
    {910, "cudaErrorGraphExecUpdateFailure", "the graph update broke an update rule"},
    {911, "cudaErrorExternalDevice", "an external device reported an error"},
    {912, "cudaErrorInvalidClusterSize", "the cluster size is invalid"},
    {913, "cudaErrorFunctionNotLoaded", "the function has not been loaded"},
    {914, "cudaErrorInvalidResourceType", "the resource type is invalid"},
    {915, "cudaErrorInvalidResourceConfiguration", "the resource configuration is invalid"},
    {999, "cudaErrorUnknown", "unknown error"},
    {10000, "cudaErrorApiFailureBase", "an API failure (base of the API failure range)"},
};

const ErrorInfo *findError(int Value) {
  auto *It = std::lower_bound(std::begin(Errors), std::end(Errors), Value,
                              [](const ErrorInfo &E, int V) { return E.Value < V; });
  if (It == std::end(Errors) || It->Value != Value)
    return nullptr;
  return It;
}

thread_local cudaError_t LastError = cudaSuccess;

} // namespace

void logMessage(const char *Format, ...) {
  static const bool Enabled = [] {
    const char *V = std::getenv("FERRY_LOG");
    return V && *V && std::string_view(V) != "off";
  }();
  if (!Enabled)
    return;
  char Buf[512];
  va_list Args;
  va_start(Args, Format);
  std::vsnprintf(Buf, sizeof(Buf), Format, Args);
  va_end(Args);
  std::fprintf(stderr, "ferry cudart: %s\n", Buf);
}

cudaError_t toCudaError(CUresult R) {
  if (R == CUDA_SUCCESS)
    return cudaSuccess;
  if (R == MissingDriverFunction)
    return cudaErrorCallRequiresNewerDriver;
  int V = static_cast<int>(R);
  // cudaErrorApiFailureBase is a runtime-only marker, never a driver result.
  if (V != 10000 && findError(V))
    return static_cast<cudaError_t>(V);
  return cudaErrorUnknown;
}

bool isStickyError(cudaError_t E) {
  switch (E) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchTimeout:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
  case cudaErrorTensorMemoryLeak:
  case cudaErrorECCUncorrectable:
  case cudaErrorNvlinkUncorrectable:
    return true;
  default:
    return false;
  }
}

cudaError_t recordError(cudaError_t E) {
  if (E != cudaSuccess && E != cudaErrorNotReady)
    LastError = E;
  return E;
}

} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

/// Routes the generated NOT_SUPPORTED stubs' report to stderr once per
/// symbol, always: an application reaching an unimplemented API must learn
/// why it failed even without FERRY_LOG.
__attribute__((visibility("hidden"))) void ferryRuntimeNotImplemented(const char *Name) {
  std::fprintf(stderr, "ferry cudart: %s is not implemented (returns cudaErrorNotSupported)\n",
               Name);
}

const char *cudaGetErrorName(cudaError_t Error) {
  const ErrorInfo *E = findError(static_cast<int>(Error));
  // The same answer for unknown codes as NVIDIA's runtime gives (observed).
  return E ? E->Name : "unrecognized error code";
}

const char *cudaGetErrorString(cudaError_t Error) {
  const ErrorInfo *E = findError(static_cast<int>(Error));
  return E ? E->Description : "unrecognized error code";
}

cudaError_t cudaGetLastError(void) {
  // Clears even a sticky error, as NVIDIA's runtime does (observed): the
  // error stays sticky through the device state, so every later call on
  // that device reports it again and records it anew.
  cudaError_t E = LastError;
  LastError = cudaSuccess;
  return E;
}

cudaError_t cudaPeekAtLastError(void) { return LastError; }

} // extern "C"
