/// \file
/// Internals shared by the runtime's entry points: error recording (the
/// per-thread last error, sticky errors), the CUresult -> cudaError_t map,
/// the per-thread current device and its primary context, and the lookup of
/// kernels and variables registered by nvcc's host code.
///
/// Every entry point follows one shape: `enter` (driver loaded, context
/// current; records and returns the error otherwise), the driver call, and
/// `finish` (maps the CUresult, records it as the thread's last error, notes
/// sticky errors). No macro hides a return.
#pragma once

#include "Driver.h"

#include <cstddef>

namespace ferry::cudart {

/// Writes one line to stderr when FERRY_LOG is set (libcudart may not link
/// ferry's support library, so it cannot use the spdlog loggers).
void logMessage(const char *Format, ...) __attribute__((format(printf, 1, 2)));

/// The runtime error NVIDIA's cudart reports for a driver result.
cudaError_t toCudaError(CUresult R);

/// Whether \p E leaves the context unusable (kernel faults): such errors
/// are returned by every later call on that device until it is reset.
bool isStickyError(cudaError_t E);

/// Records \p E as this thread's last error (unless it is cudaSuccess or
/// cudaErrorNotReady, which are not errors) and returns it.
cudaError_t recordError(cudaError_t E);

/// The context the runtime uses on this thread.
struct Context {
  CUcontext Ctx = nullptr;
  int Device = 0;
};

/// Makes sure the driver is loaded and the current device's primary context
/// is current on this thread (or adopts a context the application made
/// current with the driver API, as NVIDIA's runtime does), then returns it.
/// On failure the error is recorded and returned.
cudaError_t enter(Context &C);

/// Like enter, but only loads the driver (APIs that need no context).
cudaError_t enterDriver();

/// Maps \p R, notes a sticky error on \p Device, records and returns it.
cudaError_t finish(CUresult R, int Device = -1);

/// Runs \p Call (a driver call returning CUresult) in the current context:
/// enter, the call, finish.
template <typename Fn> cudaError_t inContext(Fn &&Call) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(Call(), C.Device);
}

/// Number of devices (0 if the driver failed to load).
int deviceCount();

/// The driver device of ordinal \p Dev, validated (cudaErrorInvalidDevice).
cudaError_t deviceHandle(int Dev, CUdevice &Out);

/// The primary context of \p Dev, retained once for the process.
cudaError_t primaryContext(int Dev, CUcontext &Out);

/// The kernel registered for the host stub \p HostFn (loading its module on
/// first use). cudaErrorInvalidResourceHandle when \p HostFn is unknown.
cudaError_t lookupKernel(const void *HostFn, CUkernel &Out);
/// Why the calling thread's last __cudaGetKernel failed (cudaSuccess when it
/// did not), and forgets it. nvcc's launch stubs pass the null kernel of a
/// failed lookup on to __cudaLaunchKernel, which reports this reason (a
/// kernel whose image was refused, say) rather than a bad handle.
cudaError_t takeGetKernelError();

/// The device kernel name registered for \p HostFn (null when unknown).
const char *lookupKernelName(const void *HostFn);

/// The host stub whose kernel is \p Kernel (null when none was looked up
/// through lookupKernel): graph kernel nodes report it as their func.
const void *lookupHostFunction(CUkernel Kernel);

/// The driver's form of a runtime 3D copy (an array side is addressed in
/// elements). The caller has checked the kind and that no side names both
/// an array and a pointer.
cudaError_t toDriverCopy3D(const cudaMemcpy3DParms *P, CUDA_MEMCPY3D &Q);

/// Address and size of the device variable whose host shadow is \p Symbol,
/// in the current context. cudaErrorInvalidSymbol when unknown.
cudaError_t lookupSymbol(const void *Symbol, CUdeviceptr &Ptr, size_t &Size);

/// Forgets every per-device cache (cudaDeviceReset).
void resetDeviceState(int Dev);

} // namespace ferry::cudart
