/// \file
/// The CUDA device runtime (dynamic parallelism) as SIMT IR sees it: the
/// operation codes of ferry.cdp.call (DeviceRuntime.def) and CUDA's special
/// device-side stream handles. Shared by the PTX lowering, which emits the
/// codes, and the executors, which implement them.
#pragma once

#include <cstdint>

namespace ferry::cdp {

enum class Op : uint32_t {
  /// A __cudaCDP2* function ferry does not implement; argument 0 is the
  /// address of its name (a C string), argument 1 is 1 when it returns a
  /// pointer. Logs it; returns cudaErrorNotSupported (or NULL).
  Unsupported,
#define FERRY_CDP(Id, Name, Args, Result) Id,
#include "ptx/lower/DeviceRuntime.def"
#undef FERRY_CDP
};

/// cudaStream_t values with a meaning of their own in device code
/// (cuda_device_runtime_api.h, driver_types.h).
inline constexpr uint64_t StreamNull = 0, StreamLegacy = 1, StreamPerThread = 2,
                          StreamTailLaunch = 3, StreamFireAndForget = 4;

} // namespace ferry::cdp
