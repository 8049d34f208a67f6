/// \file
/// Stream-ordered host work (see HostTask.h).
#include "libs/common/HostTask.h"
#include "libs/common/Driver.h"

#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <execinfo.h>
#include <link.h>
#include <new>
#include <set>
#include <string>

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

bool askHostAccess() {
  const DriverTable *D = driver();
  if (!D || !ensureContext())
    return true; // Nothing will run: the enqueue reports that itself.
  CUdevice Dev = 0;
  if (D->CtxGetDevice(&Dev, nullptr) != CUDA_SUCCESS)
    return true;
  if (hasLibsSlot(D->Ferry, offsetof(FerryLibsTable, DeviceMemoryHostAccess))) {
    int Yes = 1;
    if (D->Ferry->DeviceMemoryHostAccess(Dev, &Yes) == CUDA_SUCCESS)
      return Yes != 0;
    return true;
  }
  if (D->Ferry)
    return true; // An older ferry driver: its backends were host-reachable.
  // Another driver: device memory is the host's to touch only where the
  // device works on the host's page tables (ATS, e.g. Grace Hopper).
  int Shared = 0;
  return D->DeviceGetAttribute(&Shared, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
                               Dev) == CUDA_SUCCESS &&
         Shared != 0;
}

/// The innermost exported function of this library on the calling
/// thread's stack (the entry point the program called), or empty. Every
/// library links its own copy of this file, so "this library" is the
/// object that holds this function.
std::string entryPointOnStack() {
  void *Frames[48];
  int N = ::backtrace(Frames, 48);
  Dl_info Self{};
  if (!::dladdr(reinterpret_cast<void *>(&entryPointOnStack), &Self))
    return {};
  for (int I = 1; I < N; ++I) {
    auto Pc = reinterpret_cast<uintptr_t>(Frames[I]) - 1; // Inside the call instruction.
    Dl_info Info{};
    void *Entry = nullptr;
    if (!::dladdr1(reinterpret_cast<void *>(Pc), &Info, &Entry, RTLD_DL_SYMENT) || !Info.dli_sname || !Entry ||
        Info.dli_fbase != Self.dli_fbase)
      continue;
    const auto *Sym = static_cast<const ElfW(Sym) *>(Entry);
    // dladdr names the nearest exported symbol below Pc; only a frame inside
    // that function counts (a local function lies between exports).
    if (ELF64_ST_TYPE(Sym->st_info) == STT_FUNC && Pc - reinterpret_cast<uintptr_t>(Info.dli_saddr) < Sym->st_size)
      return Info.dli_sname;
  }
  return {};
}

/// Runs on the stream's host-function thread, or inline on the enqueuing
/// thread (LaunchHostFuncInline): nothing may escape it.
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

bool TaskKeeper::hostReachesDeviceMemory() {
  int Known = HostAccess.load(std::memory_order_acquire);
  if (Known < 0) {
    Known = askHostAccess() ? 1 : 0;
    HostAccess.store(Known, std::memory_order_release);
  }
  return Known != 0;
}

void logNoHostAccess(const char *Lib, const char *What, const char *Detail) {
  std::string Call = entryPointOnStack();
  if (Call.empty())
    Call = std::string("a ") + Lib + " call";
  static std::mutex SeenLock;
  static auto *Seen = new std::set<std::string>; // Never destroyed: exit order.
  {
    std::lock_guard<std::mutex> G(SeenLock);
    if (!Seen->insert(Call).second)
      return;
  }
  logMessage(Lib,
             "%s: %s: the host cannot access this device's memory (a discrete GPU whose VRAM the CPU "
             "cannot map: no large BAR), and ferry's %s works on the host%s%s",
             Call.c_str(), What, Lib, Detail ? "; " : "", Detail ? Detail : "");
}

EnqueueResult enqueueHostTask(const char *Lib, CUstream Stream, TaskKeeper &Keeper, std::function<void()> Work,
                              bool ReadsDeviceMemory) try {
  const DriverTable *D = driver();
  if (!D)
    return EnqueueResult::NoDriver;
  ensureContext();
  if (ReadsDeviceMemory && !Keeper.hostReachesDeviceMemory())
    return EnqueueResult::NoHostAccess;
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
  // Over ferry's driver, work for an idle stream runs on this thread before
  // the call returns (no hand-off to the stream's thread and back: SGEMM of
  // n = 256 went from 82% to 95-98% of OpenBLAS called directly); captured
  // work never runs inline. Either way runHostTask owns the task once the
  // launch succeeded.
  int RanInline = 0;
  CUresult R = !Kept && D->Ferry ? D->Ferry->LaunchHostFuncInline(Stream, runHostTask, Raw, &RanInline)
                                 : D->LaunchHostFunc(Stream, runHostTask, Raw);
  if (R != CUDA_SUCCESS) {
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
