/// \file
/// Stream-ordered host work, shared by ferry's math libraries: a library
/// call checks its arguments on the calling thread, then enqueues its work
/// with cuLaunchHostFunc on its stream. The work runs on the host (the
/// device memory of the host backend is host memory in this address space)
/// after everything enqueued before it and before everything after it; a
/// stream being captured records it as a host node of the graph, and since a
/// graph may run it any number of times, such work is kept by its owner
/// (a handle, a plan, a generator) until the owner goes.
#pragma once

#include "ferry/cuda.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace ferry::libs {

struct HostTask;

/// What an owner (a handle, a plan, a generator) keeps of its captured
/// work, and whether the host may touch its device's memory.
class TaskKeeper {
public:
  TaskKeeper();
  ~TaskKeeper();
  void keep(std::unique_ptr<HostTask> T);
  /// Whether any captured work is kept (its owner then waits for its
  /// stream before going, so no graph node runs freed work).
  bool empty();
  /// Whether host work may load and store the device memory of this
  /// owner's device (the current context's at the first ask, remembered):
  /// ferry's table answers (host backend, APU, large-BAR GPU: yes; a
  /// discrete GPU whose VRAM the CPU cannot reach: no); over another
  /// driver, whether device memory shares the host's page tables.
  bool hostReachesDeviceMemory();

private:
  std::mutex Lock;
  std::vector<std::unique_ptr<HostTask>> Kept;
  std::atomic<int> HostAccess{-1}; ///< -1 not asked yet, else 0/1.
};

enum class EnqueueResult { Ok, NoDriver, LaunchFailed, NoMemory, NoHostAccess };

/// Runs Work in stream order on Stream (Lib names the library in log lines).
/// Work must not throw; an exception escaping it is caught and logged.
/// NoHostAccess, with one log line per entry point naming it and why, when
/// the host cannot reach the owner's device memory: the work would fault
/// there, so the caller returns its library's NOT_SUPPORTED instead. Work
/// that touches no device memory itself (ReadsDeviceMemory false: it hands
/// the device pointers to a ROCm library, Rocm.h) is never refused.
EnqueueResult enqueueHostTask(const char *Lib, CUstream Stream, TaskKeeper &Keeper, std::function<void()> Work,
                              bool ReadsDeviceMemory = true);

/// Logs, once per entry point, that Lib's work cannot run on the host here
/// (NoHostAccess); the entry point is found on the calling thread's stack
/// (the innermost of Lib's exported functions), else named generically.
/// What says what happens instead, e.g. "CUBLAS_STATUS_NOT_SUPPORTED";
/// Detail, if any, is added at the end.
void logNoHostAccess(const char *Lib, const char *What, const char *Detail = nullptr);

} // namespace ferry::libs
