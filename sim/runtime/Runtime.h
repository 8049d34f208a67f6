//===- sim/runtime/Runtime.h - the HSA runtime stand-in's objects ---------===//
/// \file
/// The simulated AMD system behind libferry-hsa-sim.so: agents chosen by
/// FERRY_SIM, memory pools backed by host memory (mmap), the registry of live
/// ranges the ISA simulator checks every access against, signals, AQL queues
/// with a packet processor thread each, the copy engine, and loaded code
/// objects. The exported `hsa_*` entry points (Api*.cpp, Signals.cpp,
/// Queues.cpp, Loader.cpp) are thin: validate, find the object, call in here.
///
/// Handles are pointers to these objects. Agents, pools and ISAs live as long
/// as the Runtime (hsa_init .. the last hsa_shut_down); signals, queues and
/// executables are checked against a registry before use where a stale
/// handle can reach us cheaply (destroy, wait, packets), so misuse is an
/// error code rather than a crash.
///
/// Threading: every entry point may be called from any thread. The Runtime
/// object is created by hsa_init and destroyed by the last hsa_shut_down;
/// calling other entry points concurrently with that last shut-down is the
/// caller's error, as with ROCr.
//===----------------------------------------------------------------------===//
#ifndef FERRY_SIM_RUNTIME_RUNTIME_H
#define FERRY_SIM_RUNTIME_RUNTIME_H

#pragma GCC visibility push(default)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/amd_hsa_queue.h>
#pragma GCC visibility pop

#include "sim/isa/Simulator.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ferry::sim::rt {

/// Nanoseconds of the monotonic clock: HSA timestamps (1 GHz).
uint64_t nowNs();

/// Whether FERRY_SIM_PACKETS is set: then every packet and copy is reported
/// as it runs (a debugging aid; read once).
bool tracing();

/// One line on stderr, prefixed "ferry-sim: ". The stand-in's only channel for
/// saying *why* (HSA statuses carry no message).
void report(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

//===----------------------------------------------------------------------===//
// Agents.
//===----------------------------------------------------------------------===//

/// What a simulated GPU reports about itself (public product data).
struct GpuSpec {
  const char *Name;    ///< "gfx942"
  Gfx Target;
  const char *Isa;     ///< "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  const char *Product; ///< "AMD Instinct MI300X"
  uint32_t EfMach;     ///< ELF e_flags EF_AMDGPU_MACH_* value
  bool Sramecc, Xnack; ///< Target features the agent has (on) or lacks.
  bool HasSrameccFeature, HasXnackFeature; ///< Whether the ISA names them at all.
  uint32_t ChipId, AsicRevision;
  uint32_t ComputeUnits, SimdsPerCu, ShaderEngines, ArraysPerSe, MaxWavesPerCu;
  uint32_t WaveSize, ClockMHz, MemoryClockMHz, MemoryWidth, CachelineSize;
  uint64_t MemoryBytes;
  uint32_t L1Bytes, L2Bytes, L3Bytes;
  uint32_t LdsBytes; ///< Largest group segment of one workgroup.
};

/// The GPU models FERRY_SIM may name; nullptr for anything else.
const GpuSpec *findGpu(const std::string &Name);

class Agent;
class MemoryRegistry;

/// An hsa_amd_memory_pool_t (and the hsa_region_t of the same memory).
struct Pool {
  Agent *Owner = nullptr;
  hsa_amd_segment_t Segment = HSA_AMD_SEGMENT_GLOBAL;
  uint32_t Flags = 0; ///< HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_*
  bool AllocAllowed = true;
  uint64_t Size = 0;
  /// Whether GPU agents may touch its memory without agents_allow_access
  /// (ROCr: system memory is DISALLOWED_BY_DEFAULT for GPUs, except that
  /// kernarg memory is mapped for every GPU).
  bool GpuAccessByDefault = false;
  std::atomic<uint64_t> Used{0};
};

/// The lent ISA of a GPU agent (hsa_isa_t).
struct Isa {
  const GpuSpec *Spec = nullptr;
};

class Agent {
public:
  Agent(unsigned Index, const GpuSpec *Spec, MemoryRegistry &Memory);
  ~Agent();
  bool isGpu() const { return Spec != nullptr; }
  /// Bit of this agent in a range's access mask (bit 0: the CPU agent).
  uint64_t bit() const { return uint64_t(1) << Index; }

  /// The simulator of this agent, created on first use; null when this build
  /// has no ISA simulator (sim/isa not built), with Why saying so.
  Simulator *simulator(std::string &Why);
  /// Serialises dispatches of all queues of this agent: one Simulator runs
  /// one dispatch at a time.
  std::mutex &dispatchLock() { return DispatchLock; }

  unsigned Index;
  const GpuSpec *Spec; ///< null: the CPU agent.
  Isa AgentIsa;
  std::vector<std::unique_ptr<Pool>> Pools;
  std::string CpuName;
  uint32_t CpuCores = 1;

private:
  class View;
  std::unique_ptr<View> MemView;
  std::mutex SimLock, DispatchLock;
  std::unique_ptr<Simulator> Sim;
  bool SimTried = false;
  std::string SimWhy;
};

//===----------------------------------------------------------------------===//
// Memory.
//===----------------------------------------------------------------------===//

/// One live range a kernel or the copy engine may touch.
struct Range {
  enum Kind { PoolMemory, Locked, CodeSegment, QueueMemory };
  uint64_t Base = 0, Size = 0;
  Kind What = PoolMemory;
  bool Writable = true;
  uint64_t Access = 0;      ///< Agent bits allowed to access it.
  Pool *From = nullptr;     ///< PoolMemory: the pool it came from.
  void *Mapping = nullptr;  ///< What to munmap when it goes (PoolMemory).
  size_t MappingSize = 0;
  unsigned LockCount = 0;   ///< Locked: hsa_amd_memory_lock calls not undone.
  /// Where the bytes are, relative to Base: 0, except device memory under
  /// FERRY_SIM_HOST_ACCESS=trap, whose address (Base, what every agent and
  /// ferry are given) is an inaccessible reservation and whose bytes live
  /// at Base + Delta, where only the simulator and the copy engine go.
  int64_t Delta = 0;
  void *Reservation = nullptr; ///< The inaccessible reservation (munmap with MappingSize).
};

/// Every live range, by base address. Ranges never overlap.
class MemoryRegistry {
public:
  /// false when [R.Base, R.Base+R.Size) overlaps a live range.
  bool add(const Range &R);
  /// Removes the range starting exactly at Base; false if there is none.
  bool remove(uint64_t Base, Range *Out = nullptr);
  /// The range containing Addr, if any.
  bool find(uint64_t Addr, Range &Out) const;
  /// Whether [Addr, Addr+Size) lies inside one range that AgentBit may
  /// access (and write, for Write). AgentBit 0: any agent (the copy engine).
  bool valid(uint64_t Addr, uint64_t Size, bool Write, uint64_t AgentBit) const;
  /// valid(), then where the bytes of Addr are (Range::Delta applied);
  /// null when not valid.
  uint8_t *host(uint64_t Addr, uint64_t Size, bool Write, uint64_t AgentBit) const;
  /// Where the bytes of Addr are if it lies in a range (else Addr itself):
  /// the runtime's own accesses, already checked.
  uint8_t *hostOf(uint64_t Addr) const;
  /// Adds agent bits to the range containing Addr; false if none.
  bool allowAccess(uint64_t Addr, uint64_t Bits);
  /// hsa_amd_memory_lock's bookkeeping, under one hold of the lock: the
  /// Locked range [Base, Base+Size) counts once more (and gains Bits), or
  /// is added with a count of 1; false when it overlaps another range.
  /// (A remove and re-add left a window in which a concurrent lock added
  /// the range afresh, losing a count, and a copy found it missing.)
  bool lockRange(uint64_t Base, uint64_t Size, uint64_t Bits);
  /// Undoes one lockRange of the Locked range starting at Base, removing it
  /// at a count of 0; false when no Locked range starts there.
  bool unlockRange(uint64_t Base);
  /// Runs F on every range (under the lock; F must not call back in).
  template <typename F> void forEach(F &&Fn) const {
    std::shared_lock<std::shared_mutex> L(Lock);
    for (const auto &[Base, R] : Ranges)
      Fn(R);
  }
  /// Changes whenever a range comes or goes (lets valid() cache lookups).
  uint64_t generation() const { return Generation.load(std::memory_order_acquire); }

private:
  void bump();
  mutable std::shared_mutex Lock;
  std::map<uint64_t, Range> Ranges;
  std::atomic<uint64_t> Generation{0};
};

//===----------------------------------------------------------------------===//
// Signals.
//===----------------------------------------------------------------------===//

/// Something waiting for signal changes: a thread parks on CV until Gen moves.
struct Waiter {
  std::mutex M;
  std::condition_variable CV;
  uint64_t Gen = 0;
  void poke() {
    {
      std::lock_guard<std::mutex> L(M);
      ++Gen;
    }
    CV.notify_all();
  }
};

class Queue;
class Runtime;

class Signal {
public:
  static constexpr uint64_t LiveMagic = 0x5349474e414c2121; // "SIGNAL!!"
  explicit Signal(int64_t Initial) : Value(Initial) {}
  ~Signal() { Magic = 0; }

  int64_t load() const { return Value.load(std::memory_order_acquire); }
  /// Every change goes through here: the atomic update, then waking waiters.
  template <typename F> int64_t update(F &&Op) {
    int64_t Old = Op(Value);
    changed();
    return Old;
  }
  void store(int64_t V);
  /// Blocks until Cond(Value, Compare) holds or TimeoutNs passed; returns the
  /// value last observed.
  int64_t wait(hsa_signal_condition_t Cond, int64_t Compare, uint64_t TimeoutNs);
  void addWaiter(Waiter *W);
  void removeWaiter(Waiter *W);

  std::atomic<uint64_t> Magic{LiveMagic};
  Queue *DoorbellOf = nullptr; ///< Set for a queue's doorbell signal.
  /// Profiling: set by the packet processor / copy engine before completion.
  std::atomic<uint64_t> StartTs{0}, EndTs{0};

private:
  void changed();
  std::atomic<int64_t> Value;
  std::mutex M;
  std::condition_variable CV;
  std::vector<Waiter *> Waiters;
};

bool conditionHolds(hsa_signal_condition_t Cond, int64_t Value, int64_t Compare);

//===----------------------------------------------------------------------===//
// Queues.
//===----------------------------------------------------------------------===//

/// A user-mode AQL queue and its packet processor thread.
class Queue {
public:
  Queue(Runtime &Rt, Agent &A, uint32_t Size, hsa_queue_type32_t Type,
        void (*Callback)(hsa_status_t, hsa_queue_t *, void *), void *Data);
  ~Queue(); ///< Stops the processor (after the packet it is running).
  /// Maps the ring and the amd_queue_t, registers them and starts the
  /// processor; an HSA status on failure.
  hsa_status_t start();
  hsa_queue_t *hsaQueue() { return &Amd->hsa_queue; }
  amd_queue_t *amd() { return Amd; }
  /// The doorbell was written with Value.
  void ring(int64_t Value);
  /// hsa_queue_inactivate: no packet is taken after the current one.
  void inactivate() {
    Stopping = true;
    Wake.poke();
  }
  std::atomic<bool> Profiling{false};
  Runtime &Rt;
  Agent &Owner;

private:
  void run();
  /// Waits until the packet at Index may be taken; false when stopping.
  bool waitForPacket(uint64_t Index, uint16_t &Header);
  /// Waits until all (And) or one (!And) of Deps reached 0; false if stopping.
  /// Failed: a dependency went negative (an AND barrier then fails).
  bool waitDeps(const std::vector<std::shared_ptr<Signal>> &Deps, bool And, bool &Failed);
  /// Runs one packet; HSA_STATUS_SUCCESS, or the error that stops the queue.
  hsa_status_t process(uint64_t Index, uint16_t Header, std::string &Why);
  hsa_status_t dispatch(uint64_t Index, const hsa_kernel_dispatch_packet_t &P,
                        std::string &Why);
  void fail(hsa_status_t S, const std::string &Why);
  /// Retires the packet at Index: header INVALID, read index past it, then
  /// the completion signal (with profiling times) decremented.
  void retire(uint64_t Index, const std::shared_ptr<Signal> &Completion, uint64_t Start);

  uint32_t Size;
  hsa_queue_type32_t Type;
  void (*Callback)(hsa_status_t, hsa_queue_t *, void *);
  void *CallbackData;
  amd_queue_t *Amd = nullptr;
  void *Ring = nullptr;
  std::shared_ptr<Signal> Doorbell;
  Waiter Wake;               ///< Doorbell rings, dependency changes, stop.
  std::atomic<int64_t> Rung{-1}; ///< Highest doorbell value written.
  std::atomic<bool> Stopping{false};
  std::atomic<int64_t> BadDoorbell{-1}; ///< A doorbell value past the write index.
  uint64_t Id;
  std::thread Processor;
};

//===----------------------------------------------------------------------===//
// Code objects.
//===----------------------------------------------------------------------===//

struct CodeObjectReader {
  std::vector<uint8_t> Bytes;
};

/// One symbol of a loaded code object, as hsa_executable_symbol_get_info
/// reports it.
struct Symbol {
  std::string Name;
  bool IsKernel = false;
  Agent *Owner = nullptr;
  uint64_t Address = 0; ///< Kernel: the kernel descriptor; variable: its data.
  uint64_t Size = 0;
  uint32_t KernargSize = 0, KernargAlign = 16, GroupSize = 0, PrivateSize = 0;
  bool DynamicCallstack = false;
};

struct LoadedCodeObject {
  Agent *Owner = nullptr;
  void *Mapping = nullptr;
  size_t MappingSize = 0;
  /// FERRY_SIM_HOST_ACCESS=trap: the inaccessible address range the loaded
  /// code lives at (as ROCr puts a discrete GPU's code objects in device
  /// memory); its bytes are Mapping (Range::Delta). Null otherwise.
  void *Reservation = nullptr;
  uint64_t LoadBase = 0; ///< Address of ELF virtual address 0.
  std::vector<uint64_t> RangeBases; ///< Registered segment ranges.
};

class Executable {
public:
  explicit Executable(Runtime &Rt) : Rt(Rt) {}
  ~Executable(); ///< Unloads: ranges unregistered, simulators told, memory unmapped.
  Runtime &Rt;
  std::mutex Lock;
  bool Frozen = false;
  hsa_profile_t Profile = HSA_PROFILE_FULL;
  std::vector<std::unique_ptr<LoadedCodeObject>> Objects;
  std::vector<std::unique_ptr<Symbol>> Symbols;
};

/// Loads Bytes for agent A into E (the code object loader, Loader.cpp).
hsa_status_t loadCodeObject(Executable &E, Agent &A, const std::vector<uint8_t> &Bytes,
                            std::string &Why);

//===----------------------------------------------------------------------===//
// The copy engine.
//===----------------------------------------------------------------------===//

struct CopyJob {
  void *Dst;
  const void *Src;
  size_t Size;
  /// The copy engine faults on this job (FERRY_SIM_FAIL_COPY_BYTES).
  bool Inject = false;
  std::vector<std::shared_ptr<Signal>> Deps;
  std::shared_ptr<Signal> Completion;
};

/// hsa_amd_memory_async_copy's DMA engine: a thread that runs each copy once
/// its dependencies reached 0, in any order among ready ones. A copy that
/// cannot run (its memory was freed meanwhile, an injected fault, or a
/// dependency that failed: negative) sets its completion signal to
/// CopyFailedValue instead of decrementing it, so waiters end and see it.
constexpr int64_t CopyFailedValue = -1;

class CopyEngine {
public:
  explicit CopyEngine(MemoryRegistry &M);
  ~CopyEngine();
  void submit(CopyJob J);
  std::atomic<bool> Profiling{false};

private:
  void run();
  MemoryRegistry &Memory;
  Waiter Wake;
  std::deque<CopyJob> Jobs; ///< Under Wake.M.
  bool Stopping = false;    ///< Under Wake.M.
  std::thread Worker;
};

//===----------------------------------------------------------------------===//
// The runtime.
//===----------------------------------------------------------------------===//

class Runtime {
public:
  /// Builds the agents FERRY_SIM names; an HSA status when it names none or
  /// something unknown.
  static hsa_status_t create(std::unique_ptr<Runtime> &Out);
  ~Runtime();

  MemoryRegistry Memory;
  std::vector<std::unique_ptr<Agent>> Agents; ///< [0] is the CPU agent.
  std::unique_ptr<CopyEngine> Copies;
  /// FERRY_SIM_HOST_ACCESS (default 1): whether the CPU may map the GPUs'
  /// device pools, as with a large BAR or an APU; 0 models a discrete GPU
  /// whose VRAM the CPU cannot reach (sim/README.md).
  bool HostAccess = true;
  /// FERRY_SIM_HOST_ACCESS=trap: as 0, and the host's loads and stores of
  /// device memory fault (Range::Delta; sim/README.md).
  bool TrapHostAccess = false;
  /// FERRY_SIM_FAIL_COPY_BYTES: async copies of exactly this many bytes
  /// fault in the copy engine (0: none); how tests provoke a failed copy.
  size_t FailCopyBytes = 0;

  Agent *agent(hsa_agent_t H) const;
  Pool *pool(uint64_t Handle) const;
  const Isa *isa(uint64_t Handle) const;

  // Live objects, so stale handles are refused.
  std::shared_ptr<Signal> signal(hsa_signal_t H);
  hsa_signal_t addSignal(std::shared_ptr<Signal> S);
  bool removeSignal(hsa_signal_t H);
  Queue *queue(const hsa_queue_t *Q);
  void addQueue(std::unique_ptr<Queue> Q);
  std::unique_ptr<Queue> removeQueue(const hsa_queue_t *Q);
  Executable *executable(hsa_executable_t H);
  CodeObjectReader *reader(hsa_code_object_reader_t H);
  Symbol *symbol(hsa_executable_symbol_t H);
  /// The name of the kernel whose descriptor is at KernelObject ("" if none),
  /// for the simulator's messages.
  std::string kernelName(uint64_t KernelObject);

  std::mutex ObjectsLock;
  std::unordered_map<Signal *, std::shared_ptr<Signal>> Signals;
  std::unordered_map<const hsa_queue_t *, std::unique_ptr<Queue>> Queues;
  std::unordered_map<Executable *, std::unique_ptr<Executable>> Executables;
  std::unordered_map<CodeObjectReader *, std::unique_ptr<CodeObjectReader>> Readers;
  std::unordered_map<Symbol *, Executable *> Symbols;
};

/// The runtime while initialised, else null (entry points then answer
/// HSA_STATUS_ERROR_NOT_INITIALIZED).
Runtime *runtime();

/// Allocates Size bytes of zeroed, page-aligned host memory for a range.
void *mapMemory(size_t Size);
void unmapMemory(void *P, size_t Size);
/// Reserves Size bytes of address space that faults on every access
/// (FERRY_SIM_HOST_ACCESS=trap's device addresses); null on failure.
void *reserveInaccessible(size_t Size);

} // namespace ferry::sim::rt

/// Entry points are C, default visibility, and never let an exception out.
#define FERRY_SIM_EXPORT extern "C" __attribute__((visibility("default")))

#endif
