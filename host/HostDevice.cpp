/// \file
/// The host device: this machine's CPU presented as one CUDA device. Memory
/// is aligned host memory, queues are worker threads, copies are memcpy.
/// The kernel executor plugs in through HostDevice::installExecutor.
#include "host/HostDevice.h"

#include "libcuda/DeviceProfile.h"

#include "support/Hash.h"
#include "support/Log.h"
#include "support/Settings.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/mman.h>
#include <unistd.h>

namespace ferry::host {

uint64_t nowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

void HostSignal::wait() const {
  if (isComplete())
    return;
  std::unique_lock<std::mutex> L(M);
  Cv.wait(L, [&] { return isComplete(); });
}

void HostSignal::complete() {
  {
    std::lock_guard<std::mutex> L(M);
    Stamp = nowNs();
    Done.store(true, std::memory_order_release);
  }
  Cv.notify_all();
}

//===----------------------------------------------------------------------===//
// Queue
//===----------------------------------------------------------------------===//

HostQueue::~HostQueue() {
  drain();
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  Cv.notify_all();
  if (Worker.joinable())
    Worker.join();
}

/// How long a queue's worker, or a thread draining it, spins before it
/// sleeps: back-to-back launches and launch + synchronize then need no
/// thread wake-up, which costs tens of microseconds on some machines.
constexpr uint64_t SpinNs = 20000;

/// Spins until Ready() or SpinNs have passed; true when Ready() held.
template <typename Fn> static bool spinFor(Fn &&Ready) {
  uint64_t Start = nowNs();
  for (unsigned I = 0;; ++I) {
    if (Ready())
      return true;
    __builtin_ia32_pause();
    if ((I & 63) == 63 && nowNs() - Start > SpinNs)
      return false;
  }
}

void HostQueue::push(Command Cmd) {
  std::lock_guard<std::mutex> L(M);
  Commands.push_back(std::move(Cmd));
  ++Pending;
  PendingNow.store(Pending, std::memory_order_release);
  QueuedNow.store(Commands.size(), std::memory_order_release);
  if (!Worker.joinable())
    Worker = std::thread([this] { run(); });
  Cv.notify_one();
}

void HostQueue::run() {
  std::unique_lock<std::mutex> L(M);
  for (;;) {
    if (!Stop && Commands.empty()) {
      L.unlock();
      spinFor([&] { return QueuedNow.load(std::memory_order_acquire) != 0; });
      L.lock();
    }
    // Commands wait while the enqueuing thread runs inline host work.
    Cv.wait(L, [&] { return (Stop && Commands.empty()) || (!Commands.empty() && !InlineBusy); });
    if (Commands.empty())
      return; // Stop with nothing left.
    Command Cmd = std::move(Commands.front());
    Commands.pop_front();
    QueuedNow.store(Commands.size(), std::memory_order_release);
    L.unlock();
    if (Cmd.Fn)
      Cmd.Fn();
    L.lock();
    // The signal completes and Pending drops under one lock, so neither is
    // seen without the other: after drain() every signal enqueued so far
    // reads complete (a pool releasing blocks whose frees it just waited
    // for), and after a signal's wait() an idle stream queries idle.
    // (Lock order: queue, then signal; nothing takes them the other way.)
    if (Cmd.Done)
      Cmd.Done->complete();
    --Pending;
    PendingNow.store(Pending, std::memory_order_release);
    if (Pending == 0)
      IdleCv.notify_all();
  }
}

bool HostQueue::beginInline() {
  std::lock_guard<std::mutex> L(M);
  if (Pending != 0 || Stop || Dev.hasFault())
    return false; // A faulted queue skips host functions: the usual path does.
  InlineBusy = true;
  Pending = 1;
  PendingNow.store(Pending, std::memory_order_release);
  return true;
}

void HostQueue::endInline() {
  {
    std::lock_guard<std::mutex> L(M);
    InlineBusy = false;
    --Pending;
    PendingNow.store(Pending, std::memory_order_release);
    if (Pending == 0)
      IdleCv.notify_all();
  }
  Cv.notify_one(); // Commands enqueued meanwhile may go now.
}

bool HostQueue::isIdle() const {
  std::lock_guard<std::mutex> L(M);
  return Pending == 0;
}

void HostQueue::drain() {
  // Pending drops after the command's signal completed (both under M), so
  // seeing zero here with acquire order also sees those completions.
  if (spinFor([&] { return PendingNow.load(std::memory_order_acquire) == 0; }))
    return;
  std::unique_lock<std::mutex> L(M);
  IdleCv.wait(L, [&] { return Pending == 0; });
}

static void copyRect(const CopyRect &R) {
  auto *D = static_cast<char *>(R.Dst);
  auto *S = static_cast<const char *>(R.Src);
  // A contiguous box is one memmove: the common 1-D case stays fast.
  if (R.Depth == 1 && R.Height == 1) {
    std::memmove(D, S, R.WidthBytes);
    return;
  }
  for (size_t Z = 0; Z < R.Depth; ++Z)
    for (size_t Y = 0; Y < R.Height; ++Y)
      std::memmove(D + Z * R.DstSlicePitch + Y * R.DstPitch,
                   S + Z * R.SrcSlicePitch + Y * R.SrcPitch, R.WidthBytes);
}

static void fillRect(const FillRect &R) {
  for (size_t Y = 0; Y < R.Height; ++Y) {
    char *Row = static_cast<char *>(R.Dst) + Y * R.Pitch;
    switch (R.ElemBytes) {
    case 1:
      std::memset(Row, int(R.Value & 0xff), R.Width);
      break;
    case 2: {
      uint16_t V = uint16_t(R.Value);
      for (size_t X = 0; X < R.Width; ++X)
        std::memcpy(Row + 2 * X, &V, 2);
      break;
    }
    default: {
      uint32_t V = R.Value;
      for (size_t X = 0; X < R.Width; ++X)
        std::memcpy(Row + 4 * X, &V, 4);
      break;
    }
    }
  }
}

// After a kernel fault, NVIDIA fails every later operation of the context;
// here the queued data movement is skipped so a faulted program cannot
// observe half-finished state as if it were valid.
Status HostQueue::enqueueCopy(const CopyRect &R) {
  push([this, R] {
    if (!Dev.hasFault())
      copyRect(R);
  });
  return Status::ok();
}

Status HostQueue::enqueueFill(const FillRect &R) {
  if (R.ElemBytes != 1 && R.ElemBytes != 2 && R.ElemBytes != 4)
    return makeError(CUDA_ERROR_INVALID_VALUE, "fill element size must be 1, 2 or 4");
  push([this, R] {
    if (!Dev.hasFault())
      fillRect(R);
  });
  return Status::ok();
}

Status HostQueue::enqueueLaunch(const LaunchRequest &Req) {
  push([this, Req] {
    if (Dev.hasFault())
      return;
    Status S = Dev.launchKernel(Req);
    if (!S)
      Dev.setFault(S.code(), S.message());
  });
  return Status::ok();
}

Status HostQueue::enqueueHostFunction(std::function<void(CUresult)> Fn) {
  push([this, Fn = std::move(Fn)] { Fn(Dev.fault().code()); });
  return Status::ok();
}

Status HostQueue::enqueueWait(std::shared_ptr<Signal> S) {
  if (!S)
    return makeError(CUDA_ERROR_INVALID_VALUE, "wait on a null signal");
  if (S->isComplete())
    return Status::ok();
  push([S = std::move(S)] { S->wait(); });
  return Status::ok();
}

Expected<std::shared_ptr<Signal>> HostQueue::enqueueSignal() {
  auto S = std::make_shared<HostSignal>();
  {
    // An idle queue completes the signal at once: no thread round trip for
    // the frequent record-on-idle-stream case.
    std::unique_lock<std::mutex> L(M);
    if (Pending == 0) {
      L.unlock();
      S->complete();
      return std::shared_ptr<Signal>(S);
    }
  }
  push(Command{nullptr, S});
  return std::shared_ptr<Signal>(S);
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

static std::string cpuInfoField(const char *Key) {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind(Key, 0) != 0)
      continue;
    auto Colon = Line.find(':');
    if (Colon == std::string::npos)
      continue;
    auto V = Line.substr(Colon + 1);
    while (!V.empty() && (V.front() == ' ' || V.front() == '\t'))
      V.erase(V.begin());
    return V;
  }
  return {};
}

DeviceProperties hostDeviceProperties() {
  const Settings &S = Settings::get();
  DeviceProperties P;
  std::string Cpu = cpuInfoField("model name");
  if (Cpu.empty())
    Cpu = "unknown CPU";
  P.Name = "ferry host (" + Cpu + ")";

  // The UUID must be stable for this machine (cudart and programs key
  // caches and device selection on it), so derive it from stable facts.
  std::string Seed = "ferry-host-device-0:" + Cpu;
  std::ifstream Mid("/etc/machine-id");
  std::string MachineId;
  if (std::getline(Mid, MachineId))
    Seed += ":" + MachineId;
  auto D = Sha256::of(Seed);
  std::memcpy(P.Uuid.data(), D.data(), 16);
  P.Uuid[6] = uint8_t((P.Uuid[6] & 0x0f) | 0x50); // RFC 4122 name-based layout.
  P.Uuid[8] = uint8_t((P.Uuid[8] & 0x3f) | 0x80);

  int64_t Sm = S.getInt(SettingKey::Sm);
  if (Sm < 10 || Sm > 199) {
    log::host().warn("FERRY_SM={} is not a compute capability; using 86", Sm);
    Sm = 86;
  }
  P.CcMajor = int(Sm / 10);
  P.CcMinor = int(Sm % 10);

  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  uint64_t Phys = (Pages > 0 && PageSize > 0) ? uint64_t(Pages) * uint64_t(PageSize) : (8ull << 30);
  int64_t Forced = S.getInt(SettingKey::HostMemory);
  P.TotalMemory = Forced > 0 ? uint64_t(Forced) : Phys;

  long Cores = sysconf(_SC_NPROCESSORS_ONLN);
  P.MultiprocessorCount = Cores > 0 ? int(Cores) : 1;
  std::string Mhz = cpuInfoField("cpu MHz");
  if (double V = std::atof(Mhz.c_str()); V > 0)
    P.ClockRateKHz = int(V * 1000);
  long L2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  P.L2CacheSize = L2 > 0 ? int(L2) : 1 << 20;
  P.PciDomain = 0;
  P.PciBus = 0;
  P.PciDevice = 0;
  // The CPU is the device: host memory is device memory, atomics are shared.
  P.Integrated = true;
  P.PageableMemoryAccess = true;
  P.HostNativeAtomics = true;
  P.AsyncEngineCount = 1;
  // A profile (FERRY_DEVICE_PROFILE) replaces the sizes and limits with a
  // GPU's; FERRY_HOST_MEMORY, when given, still says how much memory.
  if (std::string Id = S.getString(SettingKey::DeviceProfile); !Id.empty()) {
    if (const DeviceProfile *Pr = findDeviceProfile(Id)) {
      applyDeviceProfile(*Pr, P);
      if (Forced > 0)
        P.TotalMemory = uint64_t(Forced);
      else if (P.TotalMemory > Phys)
        log::host().info("FERRY_DEVICE_PROFILE={} reports {} bytes of memory; this host has {}", Id,
                         P.TotalMemory, Phys);
    } else {
      log::host().warn("FERRY_DEVICE_PROFILE={} is not a known profile ({}); reporting the host as it is", Id,
                       deviceProfileNames());
    }
  }
  return P;
}

HostDevice::HostDevice(int Index) : Props(hostDeviceProperties()) {
  // Several host devices are the same machine: each tells itself apart by
  // its UUID and PCI bus, as distinct GPUs do.
  Props.Uuid[15] = uint8_t(Props.Uuid[15] ^ Index);
  Props.PciBus = Index;
}

Expected<void *> HostDevice::allocate(MemoryKind Kind, size_t Bytes) {
  if (Bytes == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "zero-byte allocation");
  uint64_t Now = Used.load();
  if (Bytes > Props.TotalMemory || Now + Bytes > Props.TotalMemory)
    return makeError(CUDA_ERROR_OUT_OF_MEMORY,
                     "host device: " + std::to_string(Bytes) + " bytes requested, " +
                         std::to_string(Props.TotalMemory - Now) + " available");
  // Big blocks are page-aligned so later vector code never straddles pages
  // needlessly; small ones get CUDA's 256-byte guarantee. Blocks of 2 MiB
  // and more sit on 2 MiB boundaries and ask for transparent huge pages, as
  // a GPU maps device memory with large pages: kernels that stride through
  // memory (grid-stride loops jump blockDim * gridDim elements) would
  // otherwise take a TLB miss on nearly every access.
  constexpr size_t Huge = size_t(2) << 20;
  size_t Align = Bytes >= Huge ? Huge : Bytes >= (1u << 20) ? 4096 : 256;
  size_t Rounded = (Bytes + Align - 1) / Align * Align;
  if (Low.load(std::memory_order_acquire)) {
    // Where 32-bit PTX addresses reach; page-aligned, so every alignment
    // above holds except the 2 MiB one (huge pages are only a speed-up).
    void *P = mmap(nullptr, Rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (P == MAP_FAILED)
      return makeError(CUDA_ERROR_OUT_OF_MEMORY, "host device: no room for " + std::to_string(Bytes) +
                                                     " bytes below 2 GiB, where 32-bit PTX addresses reach");
    std::lock_guard<std::mutex> L(LowM);
    LowBlocks[P] = Rounded;
    Used += Bytes;
    (void)Kind;
    return P;
  }
  void *P = std::aligned_alloc(Align, Rounded);
  if (!P)
    return makeError(CUDA_ERROR_OUT_OF_MEMORY,
                     "host device: allocation of " + std::to_string(Bytes) + " bytes failed");
  if (Align == Huge)
    (void)madvise(P, Rounded, MADV_HUGEPAGE); // advice only: without THP nothing changes
  Used += Bytes;
  (void)Kind;
  return P;
}

bool HostDevice::placeBelow4GiB() {
  Low.store(true, std::memory_order_release);
  return true;
}

Status HostDevice::release(MemoryKind Kind, void *Ptr, size_t Bytes) {
  {
    std::lock_guard<std::mutex> L(LowM);
    if (auto It = LowBlocks.find(Ptr); It != LowBlocks.end()) {
      munmap(Ptr, It->second);
      LowBlocks.erase(It);
      Used -= Bytes;
      (void)Kind;
      return Status::ok();
    }
  }
  std::free(Ptr);
  Used -= Bytes;
  (void)Kind;
  return Status::ok();
}

Expected<void *> HostDevice::registerHost(void *Ptr, size_t Bytes) {
  if (!Ptr || Bytes == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "registering an empty host range");
  return Ptr; // Host memory already is device memory here.
}

Status HostDevice::unregisterHost(void *Ptr) { return Status::ok(); }

Device::MemoryInfo HostDevice::memoryInfo() const {
  MemoryInfo I;
  I.Total = Props.TotalMemory;
  long Avail = sysconf(_SC_AVPHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  uint64_t Free = (Avail > 0 && PageSize > 0) ? uint64_t(Avail) * uint64_t(PageSize) : I.Total;
  I.Free = std::min(Free, I.Total);
  return I;
}

Expected<std::unique_ptr<Queue>> HostDevice::createQueue(int Priority) {
  return std::unique_ptr<Queue>(std::make_unique<HostQueue>(*this));
}

std::shared_ptr<Signal> HostDevice::completedSignal() {
  auto S = std::make_shared<HostSignal>();
  S->complete();
  return S;
}

namespace {
struct ExecutorHooks {
  std::atomic<HostDevice::LaunchHook> Launch{nullptr};
  std::atomic<HostDevice::LoadHook> Load{nullptr};
};
ExecutorHooks &hooks() {
  static ExecutorHooks H;
  return H;
}
} // namespace

void HostDevice::installExecutor(LaunchHook Launch, LoadHook Load) {
  hooks().Launch.store(Launch);
  hooks().Load.store(Load);
}

Status HostDevice::launchKernel(const LaunchRequest &L) {
  if (auto Hook = hooks().Launch.load())
    return Hook(*this, L);
  // KERNEL EXECUTOR HOOK: nothing installed yet.
  return makeError(CUDA_ERROR_NOT_SUPPORTED, "host backend: kernel execution is not implemented yet");
}

Expected<std::unique_ptr<LoadedCode>> HostDevice::load(const CodeObject &Code) {
  if (auto Hook = hooks().Load.load())
    return Hook(*this, Code);
  return makeError(CUDA_ERROR_NOT_SUPPORTED, "host backend: loading compiled kernels is not implemented yet");
}

Status HostDevice::fault() const {
  if (!hasFault())
    return Status::ok();
  std::lock_guard<std::mutex> L(FaultM);
  return makeError(FaultCode, FaultMessage);
}

void HostDevice::clearFault() {
  std::lock_guard<std::mutex> L(FaultM);
  FaultCode = CUDA_SUCCESS;
  FaultMessage.clear();
  Faulted.store(false, std::memory_order_release);
}

void HostDevice::setFault(CUresult Code, std::string Message) {
  std::lock_guard<std::mutex> L(FaultM);
  if (Faulted.load())
    return;
  FaultCode = Code;
  FaultMessage = std::move(Message);
  Faulted.store(true, std::memory_order_release);
  log::host().error("device fault: {}", FaultMessage);
}

//===----------------------------------------------------------------------===//
// Backend
//===----------------------------------------------------------------------===//

static std::atomic<CompilerBackend *> &compilerSlot() {
  static std::atomic<CompilerBackend *> C{nullptr};
  return C;
}

void HostBackend::setCompiler(CompilerBackend *C) { compilerSlot().store(C); }

HostBackend::HostBackend() {
  int64_t Count = std::clamp<int64_t>(Settings::get().getInt(SettingKey::HostDevices), 1, 16);
  for (int I = 0; I < Count; ++I) {
    Devs.push_back(std::make_unique<HostDevice>(I));
    DevicePtrs.push_back(Devs.back().get());
  }
}

CompilerBackend *HostBackend::compiler() { return compilerSlot().load(); }

static Expected<std::unique_ptr<DeviceBackend>> createHostBackend() {
  return std::unique_ptr<DeviceBackend>(std::make_unique<HostBackend>());
}

// Lowest preference: `auto` picks a GPU backend when one finds devices.
static BackendRegistration RegisterHost("host", 0, createHostBackend);

} // namespace ferry::host
