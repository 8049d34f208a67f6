/// \file
/// The driver API as ferry's math libraries reach it: libcuda.so.1 is
/// dlopen'ed on first use and the few entry points needed are resolved
/// through cuGetProcAddress_v2 (at CUDA 13), as NVIDIA's libraries do, so a
/// library has no link-time dependency on any driver and runs over whichever
/// libcuda.so.1 the process loaded (ferry's under `ferry run`). Shared by
/// every library under libs/ (each .so holds its own copy).
#pragma once

#include "ferry/LibsExport.h"
#include "ferry/generated/DriverApi.h"

#include <cstdarg>

namespace ferry::libs {

struct DriverTable {
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuCtxGetDevice_v2) CtxGetDevice = nullptr; // (device, ctx): null ctx is the current one
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
  decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&::cuDeviceGetUuid_v2) DeviceGetUuid = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) DeviceTotalMem = nullptr;
  decltype(&::cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) PrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxGetState) PrimaryCtxGetState = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease_v2) PrimaryCtxRelease = nullptr;
  decltype(&::cuLaunchHostFunc) LaunchHostFunc = nullptr;
  decltype(&::cuStreamIsCapturing) StreamIsCapturing = nullptr;
  decltype(&::cuStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&::cuMemcpy2D_v2) Memcpy2D = nullptr;
  decltype(&::cuMemcpy2DAsync_v2) Memcpy2DAsync = nullptr;
  decltype(&::cuMemAlloc_v2) MemAlloc = nullptr;
  decltype(&::cuMemFree_v2) MemFree = nullptr;
  decltype(&::cuMemAllocHost_v2) MemAllocHost = nullptr; // pinned staging (stream-ordered async copies)
  decltype(&::cuMemFreeHost) MemFreeHost = nullptr;
  decltype(&::cuMemGetInfo_v2) MemGetInfo = nullptr;
  decltype(&::cuPointerGetAttribute) PointerGetAttribute = nullptr;
  /// ferry's private table (null over another driver); slots past
  /// LaunchHostFuncInline may be missing (hasLibsSlot).
  const FerryLibsTable *Ferry = nullptr;
};

/// Loads the driver once (thread-safe); null when libcuda.so.1 or one of
/// the entry points is missing (the reason is logged once).
const DriverTable *driver();

/// Makes sure the calling thread has a current context: the current one, or
/// device 0's primary context (what the runtime would pick). Returns it, or
/// null when the driver has no device.
CUcontext ensureContext();

/// One line on stderr, prefixed "ferry LIB:", for failures and
/// not-implemented calls (libs may not link ferry's spdlog loggers).
void logMessage(const char *Lib, const char *Fmt, ...) __attribute__((format(printf, 2, 3)));
void vlogMessage(const char *Lib, const char *Fmt, va_list Ap);

} // namespace ferry::libs
