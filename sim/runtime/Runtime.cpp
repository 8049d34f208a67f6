//===- sim/runtime/Runtime.cpp - agents, init/shut-down, object registry --===//
/// \file
/// The system the stand-in simulates: which GPUs exist (FERRY_SIM), what
/// they report about themselves (public product data of the parts the ISA
/// simulator models), their pools, and the life cycle hsa_init/hsa_shut_down
/// with ROCr's reference counting. Without FERRY_SIM, hsa_init fails as ROCr
/// does on a machine without /dev/kfd, so a client behaves as it would there.
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ferry::sim::rt {

uint64_t nowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

bool tracing() {
  static const bool On = [] {
    const char *E = std::getenv("FERRY_SIM_PACKETS");
    return E && *E && std::strcmp(E, "0") != 0;
  }();
  return On;
}

void report(const char *Fmt, ...) {
  char Buf[1024];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Buf, sizeof Buf, Fmt, Ap);
  va_end(Ap);
  std::fprintf(stderr, "ferry-sim: %s\n", Buf);
}

void *mapMemory(size_t Size) {
  // NORESERVE: a simulated 192 GiB device may hand out more than the host
  // has, as long as the program does not touch it all.
  void *P = mmap(nullptr, Size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return P == MAP_FAILED ? nullptr : P;
}

void unmapMemory(void *P, size_t Size) {
  if (P)
    munmap(P, Size);
}

//===----------------------------------------------------------------------===//
// FERRY_SIM_HOST_ACCESS=trap: device addresses the host cannot touch.
//===----------------------------------------------------------------------===//

namespace {
/// The span of every inaccessible reservation so far (the fault handler's
/// cheap, lock-free test).
std::atomic<uintptr_t> TrapLo{UINTPTR_MAX}, TrapHi{0};
struct sigaction PreviousSegv;

void writeAll(const char *S, size_t N) {
  while (N) {
    ssize_t W = write(2, S, N);
    if (W <= 0)
      return;
    S += W;
    N -= size_t(W);
  }
}

/// SIGSEGV: a fault inside the device span is named (async-signal-safe:
/// write(2) only), then the previous disposition takes over, so the
/// process still dies of it (or the program's own handler runs).
void onSegv(int Sig, siginfo_t *Info, void *Uc) {
  uintptr_t A = reinterpret_cast<uintptr_t>(Info->si_addr);
  if (A >= TrapLo.load() && A < TrapHi.load()) {
    char Msg[200] = "ferry-sim: the host touched device memory at 0x";
    size_t N = strlen(Msg);
    for (int Shift = 60; Shift >= 0; Shift -= 4)
      Msg[N++] = "0123456789abcdef"[(A >> Shift) & 15];
    const char *Tail = " (FERRY_SIM_HOST_ACCESS=trap: this GPU's memory is out of the CPU's "
                       "reach, as on a discrete GPU without a large BAR)\n";
    writeAll(Msg, N);
    writeAll(Tail, strlen(Tail));
  }
  if ((PreviousSegv.sa_flags & SA_SIGINFO) && PreviousSegv.sa_sigaction) {
    PreviousSegv.sa_sigaction(Sig, Info, Uc);
    return;
  }
  if (!(PreviousSegv.sa_flags & SA_SIGINFO) && PreviousSegv.sa_handler != SIG_DFL &&
      PreviousSegv.sa_handler != SIG_IGN) {
    PreviousSegv.sa_handler(Sig);
    return;
  }
  // Returning re-runs the access, which faults again with the default
  // action: the process dies of SIGSEGV.
  struct sigaction Dfl {};
  Dfl.sa_handler = SIG_DFL;
  sigemptyset(&Dfl.sa_mask);
  sigaction(Sig, &Dfl, nullptr);
}

void installSegvHandler() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    struct sigaction Act {};
    Act.sa_sigaction = &onSegv;
    Act.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&Act.sa_mask);
    sigaction(SIGSEGV, &Act, &PreviousSegv);
  });
}
} // namespace

void *reserveInaccessible(size_t Size) {
  void *P = mmap(nullptr, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return nullptr;
  uintptr_t Lo = reinterpret_cast<uintptr_t>(P), Hi = Lo + Size;
  for (uintptr_t Seen = TrapLo.load(); Lo < Seen && !TrapLo.compare_exchange_weak(Seen, Lo);)
    ;
  for (uintptr_t Seen = TrapHi.load(); Hi > Seen && !TrapHi.compare_exchange_weak(Seen, Hi);)
    ;
  return P;
}

//===----------------------------------------------------------------------===//
// The GPU models. Numbers are the products' public specifications (AMD data
// sheets; what rocminfo prints on them); they only need to be plausible, and
// each is the one ferry or a CUDA program could ask for.
//===----------------------------------------------------------------------===//

static const GpuSpec Gpus[] = {
    {"gfx942", Gfx::Gfx942, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "AMD Instinct MI300X",
     0x04c, true, false, true, true, 0x74a1, 1, 304, 4, 32, 1, 32, 64, 2100, 1300, 8192, 128,
     192ull << 30, 32 << 10, 4 << 20, 256 << 20, 64 << 10},
    {"gfx90a", Gfx::Gfx90a, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "AMD Instinct MI210",
     0x03f, true, false, true, true, 0x740f, 1, 104, 4, 8, 1, 32, 64, 1700, 1600, 4096, 128,
     64ull << 30, 16 << 10, 8 << 20, 0, 64 << 10},
    {"gfx1100", Gfx::Gfx1100, "amdgcn-amd-amdhsa--gfx1100", "AMD Radeon RX 7900 XTX", 0x041, false,
     false, false, false, 0x744c, 0, 96, 2, 6, 2, 32, 32, 2482, 1250, 384, 128, 24ull << 30,
     32 << 10, 6 << 20, 96 << 20, 64 << 10},
};

const GpuSpec *findGpu(const std::string &Name) {
  for (const GpuSpec &G : Gpus)
    if (Name == G.Name)
      return &G;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Agents.
//===----------------------------------------------------------------------===//

/// What one agent's simulator sees of memory: the registry, restricted to
/// ranges this agent was given access to.
class Agent::View : public MemoryMap {
public:
  View(const MemoryRegistry &M, uint64_t Bit) : M(M), Bit(Bit) {}
  bool valid(uint64_t Addr, uint64_t Size, bool Write) const override {
    return M.valid(Addr, Size, Write, Bit);
  }
  uint8_t *host(uint64_t Addr, uint64_t Size, bool Write) const override {
    return M.host(Addr, Size, Write, Bit);
  }

private:
  const MemoryRegistry &M;
  uint64_t Bit;
};

static std::string cpuModelName() {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("model name", 0) == 0) {
      size_t Colon = Line.find(':');
      if (Colon != std::string::npos && Colon + 2 <= Line.size())
        return Line.substr(Colon + 2);
    }
  return "x86-64 CPU";
}

Agent::Agent(unsigned Index, const GpuSpec *Spec, MemoryRegistry &Memory)
    : Index(Index), Spec(Spec), MemView(std::make_unique<View>(Memory, uint64_t(1) << Index)) {
  AgentIsa.Spec = Spec;
  auto AddPool = [&](hsa_amd_segment_t Seg, uint32_t Flags, bool Alloc, uint64_t Size,
                     bool GpuDefault) {
    auto P = std::make_unique<Pool>();
    P->Owner = this;
    P->Segment = Seg;
    P->Flags = Flags;
    P->AllocAllowed = Alloc;
    P->Size = Size;
    P->GpuAccessByDefault = GpuDefault;
    Pools.push_back(std::move(P));
  };
  if (Spec) {
    // As ROCr lists a discrete GPU's pools: device memory, then LDS.
    AddPool(HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, true,
            Spec->MemoryBytes, false);
    AddPool(HSA_AMD_SEGMENT_GROUP, 0, false, Spec->LdsBytes, false);
    return;
  }
  CpuName = cpuModelName();
  long N = sysconf(_SC_NPROCESSORS_ONLN);
  CpuCores = N > 0 ? uint32_t(N) : 1;
  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  uint64_t Host = Pages > 0 && PageSize > 0 ? uint64_t(Pages) * uint64_t(PageSize) : 16ull << 30;
  // As ROCr lists system memory: fine-grained, kernarg (fine-grained, mapped
  // for every GPU), coarse-grained.
  AddPool(HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, true, Host, false);
  AddPool(HSA_AMD_SEGMENT_GLOBAL,
          HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
          true, Host, true);
  AddPool(HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, true, Host,
          false);
}

Agent::~Agent() = default;

Simulator *Agent::simulator(std::string &Why) {
  std::lock_guard<std::mutex> L(SimLock);
  if (!SimTried) {
    SimTried = true;
#if FERRY_SIM_HAVE_ISA
    Sim = Simulator::create(Spec->Target, *MemView);
    if (!Sim)
      SimWhy = std::string("the ISA simulator does not model ") + Spec->Name;
#else
    SimWhy = "this build of ferry has no ISA simulator (sim/isa was not built)";
#endif
  }
  Why = SimWhy;
  return Sim.get();
}

//===----------------------------------------------------------------------===//
// The runtime object and its life cycle.
//===----------------------------------------------------------------------===//

hsa_status_t Runtime::create(std::unique_ptr<Runtime> &Out) {
  const char *Env = std::getenv("FERRY_SIM");
  if (!Env || !*Env)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES; // As ROCr without /dev/kfd.
  auto R = std::make_unique<Runtime>();
  R->Agents.push_back(std::make_unique<Agent>(0, nullptr, R->Memory));
  std::string List(Env);
  size_t Pos = 0;
  while (Pos <= List.size()) {
    size_t Comma = List.find(',', Pos);
    std::string Name = List.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    Pos = Comma == std::string::npos ? List.size() + 1 : Comma + 1;
    // Tolerate spaces around names ("gfx942, gfx1100").
    Name.erase(0, Name.find_first_not_of(' '));
    Name.erase(Name.find_last_not_of(' ') + 1);
    if (Name.empty())
      continue;
    const GpuSpec *Spec = findGpu(Name);
    if (!Spec) {
      report("FERRY_SIM names '%s'; the simulator models gfx942, gfx90a and gfx1100", Name.c_str());
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    if (R->Agents.size() >= 63) {
      report("FERRY_SIM names more than 62 GPUs");
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    R->Agents.push_back(std::make_unique<Agent>(unsigned(R->Agents.size()), Spec, R->Memory));
  }
  if (R->Agents.size() == 1)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  if (const char *Access = std::getenv("FERRY_SIM_HOST_ACCESS"); Access && *Access) {
    if (std::strcmp(Access, "0") && std::strcmp(Access, "1") && std::strcmp(Access, "trap")) {
      report("FERRY_SIM_HOST_ACCESS is '%s'; it takes 0 (the CPU cannot reach device memory), "
             "trap (nor can it touch it: such accesses fault) or 1 (it can: large BAR, the "
             "default)",
             Access);
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    R->HostAccess = *Access == '1';
    R->TrapHostAccess = std::strcmp(Access, "trap") == 0;
    if (R->TrapHostAccess)
      installSegvHandler();
  }
  if (const char *Fail = std::getenv("FERRY_SIM_FAIL_COPY_BYTES"); Fail && *Fail) {
    char *End = nullptr;
    unsigned long long N = std::strtoull(Fail, &End, 10);
    if (*End || N == 0) {
      report("FERRY_SIM_FAIL_COPY_BYTES is '%s'; it takes a byte count (async copies of exactly "
             "that many bytes fault)",
             Fail);
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    R->FailCopyBytes = size_t(N);
  }
  R->Copies = std::make_unique<CopyEngine>(R->Memory);
  Out = std::move(R);
  return HSA_STATUS_SUCCESS;
}

Runtime::~Runtime() {
  // Queues first (their processors may be running kernels that read memory
  // and signals), then the copy engine, executables and the memory itself.
  Queues.clear();
  Copies.reset();
  Executables.clear();
  Readers.clear();
  Signals.clear();
  std::vector<Range> Left;
  Memory.forEach([&](const Range &R) { Left.push_back(R); });
  for (const Range &R : Left)
    if (R.What == Range::PoolMemory) {
      unmapMemory(R.Mapping, R.MappingSize);
      unmapMemory(R.Reservation, R.MappingSize);
    }
}

Agent *Runtime::agent(hsa_agent_t H) const {
  for (const auto &A : Agents)
    if (reinterpret_cast<uint64_t>(A.get()) == H.handle)
      return A.get();
  return nullptr;
}

Pool *Runtime::pool(uint64_t Handle) const {
  for (const auto &A : Agents)
    for (const auto &P : A->Pools)
      if (reinterpret_cast<uint64_t>(P.get()) == Handle)
        return P.get();
  return nullptr;
}

const Isa *Runtime::isa(uint64_t Handle) const {
  for (const auto &A : Agents)
    if (A->isGpu() && reinterpret_cast<uint64_t>(&A->AgentIsa) == Handle)
      return &A->AgentIsa;
  return nullptr;
}

std::shared_ptr<Signal> Runtime::signal(hsa_signal_t H) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Signals.find(reinterpret_cast<Signal *>(H.handle));
  return It == Signals.end() ? nullptr : It->second;
}

hsa_signal_t Runtime::addSignal(std::shared_ptr<Signal> S) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  hsa_signal_t H{reinterpret_cast<uint64_t>(S.get())};
  Signals.emplace(S.get(), std::move(S));
  return H;
}

bool Runtime::removeSignal(hsa_signal_t H) {
  std::shared_ptr<Signal> Gone; // Destroyed outside the lock.
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Signals.find(reinterpret_cast<Signal *>(H.handle));
  if (It == Signals.end() || It->second->DoorbellOf)
    return false;
  Gone = std::move(It->second);
  Signals.erase(It);
  Gone->Magic = 0;
  return true;
}

Queue *Runtime::queue(const hsa_queue_t *Q) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Queues.find(Q);
  return It == Queues.end() ? nullptr : It->second.get();
}

void Runtime::addQueue(std::unique_ptr<Queue> Q) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  const hsa_queue_t *Key = Q->hsaQueue();
  Queues.emplace(Key, std::move(Q));
}

std::unique_ptr<Queue> Runtime::removeQueue(const hsa_queue_t *Q) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Queues.find(Q);
  if (It == Queues.end())
    return nullptr;
  std::unique_ptr<Queue> Out = std::move(It->second);
  Queues.erase(It);
  return Out;
}

Executable *Runtime::executable(hsa_executable_t H) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Executables.find(reinterpret_cast<Executable *>(H.handle));
  return It == Executables.end() ? nullptr : It->second.get();
}

CodeObjectReader *Runtime::reader(hsa_code_object_reader_t H) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Readers.find(reinterpret_cast<CodeObjectReader *>(H.handle));
  return It == Readers.end() ? nullptr : It->second.get();
}

Symbol *Runtime::symbol(hsa_executable_symbol_t H) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  auto It = Symbols.find(reinterpret_cast<Symbol *>(H.handle));
  return It == Symbols.end() ? nullptr : It->first;
}

std::string Runtime::kernelName(uint64_t KernelObject) {
  std::lock_guard<std::mutex> L(ObjectsLock);
  for (const auto &[S, E] : Symbols)
    if (S->IsKernel && S->Address == KernelObject)
      return S->Name.size() > 3 ? S->Name.substr(0, S->Name.size() - 3) : S->Name;
  return "";
}

namespace {
// Never destroyed by static destructors: clients (ferry among them) still
// free memory and destroy queues from their own exit-time code, as ROCr
// lets them. Only the last hsa_shut_down tears the runtime down.
std::mutex &LifeLock = *new std::mutex;
unsigned RefCount = 0;
std::atomic<Runtime *> Current{nullptr};
} // namespace

Runtime *runtime() { return Current.load(std::memory_order_acquire); }

} // namespace ferry::sim::rt

using namespace ferry::sim::rt;

FERRY_SIM_EXPORT hsa_status_t hsa_init() {
  try {
    std::lock_guard<std::mutex> L(LifeLock);
    if (RefCount == 0) {
      std::unique_ptr<Runtime> R;
      if (hsa_status_t S = Runtime::create(R); S != HSA_STATUS_SUCCESS)
        return S;
      Current.store(R.release(), std::memory_order_release);
    }
    if (RefCount == UINT32_MAX)
      return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
    ++RefCount;
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_shut_down() {
  try {
    std::unique_ptr<Runtime> Gone;
    {
      std::lock_guard<std::mutex> L(LifeLock);
      if (RefCount == 0)
        return HSA_STATUS_ERROR_NOT_INITIALIZED;
      if (--RefCount == 0)
        Gone.reset(Current.exchange(nullptr, std::memory_order_acq_rel));
    }
    return HSA_STATUS_SUCCESS; // Gone is torn down here, outside the lock.
  } catch (...) {
    return HSA_STATUS_ERROR;
  }
}
