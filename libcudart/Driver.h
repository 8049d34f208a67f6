/// \file
/// The driver API as libcudart reaches it: libcuda.so.1 is dlopen'ed on the
/// first runtime call that needs it and every entry point is resolved
/// through cuGetProcAddress_v2, exactly as NVIDIA's cudart does, so this
/// library runs over ferry's libcuda or NVIDIA's and has no link-time
/// dependency on either.
///
/// Two tables are resolved: the legacy-default-stream one (flags 0) for the
/// plain runtime entry points, and the per-thread one
/// (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) for the _ptsz/_ptds
/// entry points, which then reach the driver's _ptsz/_ptds forms.
#pragma once

#include "ferry/generated/DriverApi.h"
#include "ferry/generated/RuntimeApi.h"

namespace ferry::cudart {

/// The runtime version this library reports and asks the driver for.
inline constexpr int RuntimeVersion = 13000;

/// A CUresult no driver returns: an entry point the driver did not provide
/// was called. It maps to cudaErrorCallRequiresNewerDriver, as NVIDIA's
/// runtime reports an unresolved driver function.
inline constexpr CUresult MissingDriverFunction = static_cast<CUresult>(0x7fff0036);

/// Resolved driver entry points. A function the driver did not provide is
/// never null: it points at a stub returning MissingDriverFunction, so the
/// runtime needs no null checks and reports error 36 on use.
struct DriverTable {
#define FERRY_DRIVER_FN(Base, Symbol) decltype(&::Symbol) Base = nullptr;
#include "DriverFunctions.def"
#undef FERRY_DRIVER_FN
  decltype(&::cuGetProcAddress_v2) cuGetProcAddress = nullptr;
};

/// Loads the driver once (thread-safe) and returns the initialization
/// result: cudaSuccess, cudaErrorInsufficientDriver (no libcuda.so.1, no
/// cuGetProcAddress_v2, or a driver older than 13000), or cuInit's error.
cudaError_t driverInitResult();

/// The tables; valid only after driverInitResult() returned cudaSuccess.
const DriverTable &driver(bool PerThread = false);

/// The driver's own cuGetProcAddress_v2 (null when no driver was loaded);
/// cudaGetDriverEntryPoint forwards to it.
decltype(&::cuGetProcAddress_v2) driverProcAddress();

/// The driver version (0 when no driver was loaded).
int driverVersion();

} // namespace ferry::cudart
