/// \file
/// Shared helpers of the entry points (STYLE.md item 2): every failure path
/// goes through `fail`, which logs the function, the reason and the code on
/// the api logger and returns the code, so the caller writes
/// `return fail(__func__, Code, "why")` — a visible return, no macro.
#pragma once

#include "ferry/cuda.h"
#include "libcuda/Occupancy.h"
#include "libcuda/core/Core.h"
#include "support/Log.h"

#include <algorithm>

#if __has_include("ferry/generated/DriverApi.h")
// The generated prototypes make the compiler check each definition here
// against the API table's signature.
#include "ferry/generated/DriverApi.h"
#endif

#define FERRY_EXPORT extern "C" __attribute__((visibility("default")))

namespace ferry::api {

const char *errorName(CUresult R);

inline CUresult fail(const char *Fn, CUresult Code, std::string_view Why) {
  log::api().info("{} -> {}: {}", Fn, errorName(Code), Why);
  return Code;
}
inline CUresult fail(const char *Fn, const Error &E) { return fail(Fn, E.code(), E.message()); }

/// Maps a core Status to the function's result, logging failures.
inline CUresult done(const char *Fn, Status S) {
  if (S)
    return CUDA_SUCCESS;
  return fail(Fn, S.code(), S.message());
}

template <typename H> H handleOf(const core::Object *O) {
  return reinterpret_cast<H>(const_cast<core::Object *>(O));
}

/// The current context, or a logged error naming the entry point.
inline Expected<core::Ref<core::Context>> current(const char *Fn) {
  auto C = core::currentContext();
  if (!C)
    fail(Fn, C.error());
  return C;
}

/// The current context for an operation that creates or queues work: after
/// a kernel fault the context is unusable and, as on NVIDIA, such calls
/// return the sticky error until the context is reset or destroyed.
inline Expected<core::Ref<core::Context>> usableCurrent(const char *Fn) {
  auto C = current(Fn);
  if (!C)
    return C;
  if (Status S = (*C)->stickyError(); !S) {
    fail(Fn, S.code(), S.message());
    return S.takeError();
  }
  return C;
}

/// Device ordinal check with init check first (NOT_INITIALIZED wins).
inline Expected<core::DeviceEntry *> deviceArg(CUdevice Dev) {
  if (Status S = core::requireInit(); !S)
    return S.takeError();
  core::DeviceEntry *D = core::device(Dev);
  if (!D)
    return makeError(CUDA_ERROR_INVALID_DEVICE, "device ordinal " + std::to_string(Dev) +
                                                    " out of range (" +
                                                    std::to_string(core::deviceCount()) + " devices)");
  return D;
}

/// The stream behind a CUstream argument. PerThread is true in the
/// `_ptsz`/`_ptds` entry points, where stream 0 means the per-thread stream.
inline Expected<core::Ref<core::Stream>> streamArg(CUstream S, bool PerThread) {
  return core::resolveStream(S, PerThread);
}

/// Shared memory (static + dynamic) one block of K may use: the static
/// 48 KiB window, or more up to the device's opt-in limit once
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES asks for it, as on NVIDIA.
inline size_t sharedLimit(const DeviceProperties &P, const core::Kernel &K) {
  return std::min<size_t>(P.SharedMemPerBlockOptin,
                          std::max<size_t>(P.SharedMemPerBlock, size_t(K.MaxDynamicShared.load())));
}

/// Blocks of a kernel that fit on one multiprocessor at once (the occupancy
/// model of Occupancy.cpp); cooperative launches must not exceed this times
/// the multiprocessor count.
int residentBlocks(const DeviceProperties &P, const KernelInfo &Info, core::Kernel &K, int BlockSize,
                   size_t DynSmem);

} // namespace ferry::api
