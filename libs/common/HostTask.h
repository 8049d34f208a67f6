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

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace ferry::libs {

struct HostTask;

/// What an owner keeps of its captured work.
class TaskKeeper {
public:
  TaskKeeper();
  ~TaskKeeper();
  void keep(std::unique_ptr<HostTask> T);
  /// Whether any captured work is kept (its owner then waits for its
  /// stream before going, so no graph node runs freed work).
  bool empty();

private:
  std::mutex Lock;
  std::vector<std::unique_ptr<HostTask>> Kept;
};

enum class EnqueueResult { Ok, NoDriver, LaunchFailed, NoMemory };

/// Runs Work in stream order on Stream (Lib names the library in log lines).
/// Work must not throw; an exception escaping it is caught and logged.
EnqueueResult enqueueHostTask(const char *Lib, CUstream Stream, TaskKeeper &Keeper, std::function<void()> Work);

} // namespace ferry::libs
