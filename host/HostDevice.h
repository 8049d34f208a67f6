/// \file
/// The host device backend's memory/stream/event half: one device that is
/// this machine's CPU. Device pointers are host pointers (unified
/// addressing), each queue is an in-order list of commands run by its own
/// worker thread, signals are host timestamps. Kernel launches go through
/// `HostDevice::launchKernel`, the hook the host kernel executor fills in.
#pragma once

#include "libcuda/Backend.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <map>
#include <memory>
#include <thread>
#include <vector>

namespace ferry::host {

/// Nanoseconds on the monotonic clock all host signals share.
uint64_t nowNs();

class HostSignal final : public Signal {
public:
  bool isComplete() const override { return Done.load(std::memory_order_acquire); }
  void wait() const override;
  uint64_t timestampNs() const override { return Stamp; }
  /// Marks complete at the current time and wakes waiters.
  void complete();

private:
  mutable std::mutex M;
  mutable std::condition_variable Cv;
  std::atomic<bool> Done{false};
  uint64_t Stamp = 0;
};

class HostDevice;

/// A queue whose commands run in order on one dedicated worker thread. The
/// thread starts lazily with the first command, so idle streams cost none.
class HostQueue final : public Queue {
public:
  explicit HostQueue(HostDevice &Dev) : Dev(Dev) {}
  ~HostQueue() override;
  Status enqueueCopy(const CopyRect &R) override;
  Status enqueueFill(const FillRect &R) override;
  Status enqueueLaunch(const LaunchRequest &L) override;
  Status enqueueHostFunction(std::function<void(CUresult)> Fn) override;
  Status enqueueWait(std::shared_ptr<Signal> S) override;
  Expected<std::shared_ptr<Signal>> enqueueSignal() override;
  bool isIdle() const override;
  void drain() override;
  bool beginInline() override;
  void endInline() override;

private:
  /// A command; Done (if set) completes after the queue counts the command
  /// as finished, so a thread woken by it sees the queue idle.
  struct Command {
    std::function<void()> Fn;
    std::shared_ptr<HostSignal> Done;
  };
  void push(Command Cmd);
  void push(std::function<void()> Fn) { push(Command{std::move(Fn), nullptr}); }
  void run();

  HostDevice &Dev;
  mutable std::mutex M;
  std::condition_variable Cv;     ///< Work arrived or stop requested.
  std::condition_variable IdleCv; ///< Pending reached zero.
  std::deque<Command> Commands;
  size_t Pending = 0; ///< Queued plus running.
  // Lock-free mirrors of Pending and Commands.size() (stored under M with
  // release order) so the worker and drain() can spin briefly before they
  // sleep: a futex wake-up costs more than a short launch.
  std::atomic<size_t> PendingNow{0};
  std::atomic<size_t> QueuedNow{0};
  bool Stop = false;
  bool InlineBusy = false; ///< The enqueuing thread runs host work (beginInline).
  std::thread Worker;
};

class HostDevice final : public Device {
public:
  /// Index: this one's place among FERRY_HOST_DEVICES (UUID, PCI bus).
  explicit HostDevice(int Index = 0);
  const DeviceProperties &properties() const override { return Props; }
  Expected<void *> allocate(MemoryKind Kind, size_t Bytes) override;
  Status release(MemoryKind Kind, void *Ptr, size_t Bytes) override;
  bool placeBelow4GiB() override;
  Expected<void *> registerHost(void *Ptr, size_t Bytes) override;
  Status unregisterHost(void *Ptr) override;
  MemoryInfo memoryInfo() const override;
  Expected<std::unique_ptr<Queue>> createQueue(int Priority) override;
  std::shared_ptr<Signal> completedSignal() override;
  Expected<std::unique_ptr<LoadedCode>> load(const CodeObject &Code) override;
  Status fault() const override;
  void clearFault() override;

  /// Records the first fault (later ones are dropped, as on NVIDIA where the
  /// first error is the sticky one).
  void setFault(CUresult Code, std::string Message);
  bool hasFault() const { return Faulted.load(std::memory_order_acquire); }

  /// KERNEL EXECUTOR HOOK: runs one launch on the calling (queue worker)
  /// thread and returns its outcome; a non-success result becomes the sticky
  /// fault. Until the host kernel executor exists this reports
  /// CUDA_ERROR_NOT_SUPPORTED. LoadHook likewise turns a host CodeObject
  /// into LoadedCode. The executor installs both at static-init time.
  using LaunchHook = Status (*)(HostDevice &, const LaunchRequest &);
  using LoadHook = Expected<std::unique_ptr<LoadedCode>> (*)(HostDevice &, const CodeObject &);
  static void installExecutor(LaunchHook Launch, LoadHook Load);
  Status launchKernel(const LaunchRequest &L);

private:
  DeviceProperties Props;
  std::atomic<uint64_t> Used{0};
  /// placeBelow4GiB() was called: allocations are mmap'ed with MAP_32BIT
  /// (the low 2 GiB) and remembered, as free() must not see them.
  std::atomic<bool> Low{false};
  std::mutex LowM;
  std::map<void *, size_t> LowBlocks; ///< Base → mapped bytes.
  mutable std::mutex FaultM;
  std::atomic<bool> Faulted{false};
  CUresult FaultCode = CUDA_SUCCESS;
  std::string FaultMessage;
};

class HostBackend final : public DeviceBackend {
public:
  HostBackend();
  std::string_view name() const override { return "host"; }
  std::span<Device *const> devices() const override { return {DevicePtrs.data(), DevicePtrs.size()}; }
  /// The host compiler backend is registered by the kernel engineer's files
  /// through setCompiler; null until then.
  CompilerBackend *compiler() override;
  static void setCompiler(CompilerBackend *C);

private:
  std::vector<std::unique_ptr<HostDevice>> Devs; ///< FERRY_HOST_DEVICES of them
  std::vector<Device *> DevicePtrs;
};

/// Properties of this machine as the host device reports them (exposed for
/// tests and `ferry info`).
DeviceProperties hostDeviceProperties();

} // namespace ferry::host
