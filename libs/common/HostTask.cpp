/// \file
/// Stream-ordered host work (see HostTask.h).
#include "libs/common/HostTask.h"
#include "libs/common/Driver.h"

#include <exception>
#include <new>

namespace ferry::libs {

struct HostTask {
  const char *Lib = "libs";
  std::function<void()> Work;
  bool Kept = false;
};

TaskKeeper::TaskKeeper() = default;
TaskKeeper::~TaskKeeper() = default;

void TaskKeeper::keep(std::unique_ptr<HostTask> T) {
  std::lock_guard<std::mutex> G(Lock);
  Kept.push_back(std::move(T));
}

bool TaskKeeper::empty() {
  std::lock_guard<std::mutex> G(Lock);
  return Kept.empty();
}

namespace {

/// Runs on the stream's host-function thread: nothing may escape it.
void runHostTask(void *P) {
  auto *T = static_cast<HostTask *>(P);
  try {
    T->Work();
  } catch (const std::exception &E) {
    logMessage(T->Lib, "an operation failed on the host: %s", E.what());
  } catch (...) {
    logMessage(T->Lib, "an operation failed on the host");
  }
  if (!T->Kept)
    delete T;
}

} // namespace

EnqueueResult enqueueHostTask(const char *Lib, CUstream Stream, TaskKeeper &Keeper, std::function<void()> Work) try {
  const DriverTable *D = driver();
  if (!D)
    return EnqueueResult::NoDriver;
  ensureContext();
  auto T = std::make_unique<HostTask>();
  T->Lib = Lib;
  T->Work = std::move(Work);
  CUstreamCaptureStatus Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (D->StreamIsCapturing(Stream, &Capture) != CUDA_SUCCESS)
    Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  // Read before the launch: once launched, an uncaptured task may run and
  // delete itself before this thread looks at it again.
  const bool Kept = Capture != CU_STREAM_CAPTURE_STATUS_NONE;
  T->Kept = Kept;
  HostTask *Raw = T.get();
  // Over ferry's driver, an idle stream runs the work on this thread (no
  // hand-off to the stream's thread and back: measured, an SGEMM of n = 256
  // went from 82% to ...% of OpenBLAS called directly). Captured work never
  // runs inline.
  if (!Kept && D->Ferry) {
    int RanInline = 0;
    T.release(); // runHostTask owns it now, inline or not.
    if (CUresult R = D->Ferry->LaunchHostFuncInline(Stream, runHostTask, Raw, &RanInline); R != CUDA_SUCCESS) {
      logMessage(Lib, "cuLaunchHostFunc failed (%d)", static_cast<int>(R));
      delete Raw;
      return EnqueueResult::LaunchFailed;
    }
    return EnqueueResult::Ok;
  }
  if (CUresult R = D->LaunchHostFunc(Stream, runHostTask, Raw); R != CUDA_SUCCESS) {
    logMessage(Lib, "cuLaunchHostFunc failed (%d)", static_cast<int>(R));
    return EnqueueResult::LaunchFailed;
  }
  if (Kept)
    Keeper.keep(std::move(T));
  else
    T.release(); // runHostTask owns it now.
  return EnqueueResult::Ok;
} catch (const std::bad_alloc &) {
  return EnqueueResult::NoMemory;
}

} // namespace ferry::libs
