/// \file
/// The executor's internal state shared by its files: a launch, a worker (one
/// per OS thread that runs kernel code), and the two block runners (fibers
/// per thread, or one fiber running block-loop functions). Not a public
/// interface.
#pragma once

#include "host/exec/Fiber.h"
#include "host/exec/HostExecutor.h"
#include "host/jit/KernelAbi.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ferry::host {

/// Work a grid enqueued from device code (dynamic parallelism): a child
/// launch, or a memcpy/memset of cudaMemcpyAsync/cudaMemsetAsync. It runs
/// once the grid has finished (DeviceRuntime.cpp).
struct ChildWork {
  enum class Kind : uint8_t { Launch, Copy, Fill };
  Kind K = Kind::Launch;
  bool Launched = false; ///< The parameter buffer went to cudaLaunchDeviceV2.
  bool Tail = false;     ///< Launched into cudaStreamTailLaunch.
  const HostKernel *Kernel = nullptr;
  std::array<uint32_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  uint32_t DynSmem = 0;
  std::vector<std::max_align_t> Params; ///< The parameter buffer (16-byte aligned).
  void *Dst = nullptr;
  const void *Src = nullptr;
  size_t Bytes = 0;
  int Value = 0;
};

/// The device runtime state a host launch shares with all its descendants.
struct CdpTree {
  LaunchContext Context;
  std::atomic<uint64_t> Pending{0}; ///< Launched from the device, not started.
};

/// One grid's device runtime state: what its threads launched, the streams
/// and events they made, and each thread's last error (only threads whose
/// last error is not cudaSuccess have an entry).
struct CdpGrid {
  CdpTree *Tree = nullptr;
  uint32_t Depth = 0;
  std::mutex M;
  std::vector<std::unique_ptr<ChildWork>> Work; ///< In the order made.
  std::set<uint64_t> Streams, Events;
  std::map<std::array<uint32_t, 6>, int> LastError; ///< By (blockIdx, threadIdx).
};

/// One launch in flight.
struct LaunchState {
  const HostKernel *K = nullptr;
  const void *Params = nullptr;
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
  uint32_t DynSmem = 0;
  uint32_t DynOffset = 0; ///< Start of dynamic shared memory in the arena.
  uint32_t ArenaBytes = 0;
  uint32_t ThreadsPerBlock = 1;
  uint64_t Blocks = 1;
  uint64_t Chunk = 1;
  uint64_t GridId = 0;
  uint32_t NumWorkers = 1;
  uint64_t GridWorkspace = 0; ///< BlockCtx::GridWorkspace.
  uint32_t StreamMin = UINT32_MAX; ///< BlockCtx::StreamMin.
  /// The warp function for the block layout, when it is to be used.
  const HostKernel::WarpEntry *Warp = nullptr;
  std::atomic<uint64_t> Next{0};
  std::atomic<bool> Abort{false};

  std::mutex FaultM;
  CUresult Fault = CUDA_SUCCESS;
  std::string FaultMessage;

  std::mutex PrintM;
  std::string Printed;

  CdpGrid Cdp;

  /// A thread that failed a device assert; Block and Thread are linear
  /// indices, which order the report.
  struct AssertHit {
    uint64_t Block;
    uint32_t Thread;
    std::string Text;
  };
  std::mutex AssertM;
  std::vector<AssertHit> Asserts;

  // Cooperative launches: the grid barrier.
  bool Cooperative = false;
  std::mutex GridM;
  uint64_t GridAlive = 0;
  uint64_t GridArrived = 0;
  std::atomic<uint64_t> GridGen{0};

  /// Records the first fault and stops the launch.
  void fault(CUresult Code, std::string Message);
  /// Records a failed assert. The launch goes on (the failing thread or lane
  /// stops), so that every failing thread is reported, as NVIDIA reports
  /// each one that reached the assert before the grid was torn down.
  void assertFailed(uint64_t BlockLinear, uint32_t ThreadLinear, std::string Text);
  /// After the launch: prints the recorded asserts in a fixed order (stderr,
  /// where NVIDIA's driver prints them) and makes the launch's error
  /// CUDA_ERROR_ASSERT unless another fault came first.
  void reportAsserts();
  /// Takes up to Chunk block indices; false when none are left.
  bool grab(uint64_t &First, uint64_t &End) {
    if (Abort.load(std::memory_order_relaxed))
      return false;
    First = Next.fetch_add(Chunk, std::memory_order_relaxed);
    if (First >= Blocks)
      return false;
    End = std::min(Blocks, First + Chunk);
    return true;
  }
  void blockIndex(uint64_t B, uint32_t Out[3]) const {
    Out[0] = static_cast<uint32_t>(B % Grid[0]);
    Out[1] = static_cast<uint32_t>((B / Grid[0]) % Grid[1]);
    Out[2] = static_cast<uint32_t>(B / (uint64_t(Grid[0]) * Grid[1]));
  }
};

/// Readable bytes on each side of a worker's shared-memory arena.
inline constexpr size_t ArenaGuard = 4096;

/// Per-OS-thread execution state. The signal handler reads it through
/// currentWorker() to tell kernel faults from others.
struct Worker {
  explicit Worker(unsigned Index, size_t StackBytes);
  ~Worker();
  unsigned Index;
  StackPool Stacks;
  /// Stacks of warp functions, whose frames hold 32 lanes of everything.
  StackPool WarpStacks;
  char *Arena = nullptr;
  size_t ArenaBytes = 0;
  void *AltStack = nullptr;
  size_t AltStackBytes = 0;

  // Set while a fiber of this worker runs kernel code.
  volatile bool InKernel = false;
  void **SchedSp = nullptr;             ///< Where the scheduler's context is.
  const FiberStack *CurStack = nullptr; ///< The running fiber's stack.
  void *DeadSp = nullptr;               ///< Sink for abandoned contexts.
  // Filled by the signal handler.
  volatile bool Faulted = false;
  int FaultSignal = 0;
  int FaultCode = 0;
  void *FaultAddress = nullptr;

  /// Grows the arena to at least Bytes; false when out of memory.
  bool reserveArena(size_t Bytes);
  /// Switches into a fiber from the scheduler context saved in *Sched.
  void enter(void **Sched, const FiberStack &Stack, void *FiberSp) {
    SchedSp = Sched;
    CurStack = &Stack;
    InKernel = true;
    ferry_fiber_switch(Sched, FiberSp);
    InKernel = false;
  }
};

/// The worker of the calling thread, made on first use (pool threads and
/// cooperative block threads set theirs explicitly).
Worker &threadWorker(size_t StackBytes);
Worker *currentWorker();
void setCurrentWorker(Worker *W);

/// Installs the fault handlers once per process.
void installFaultHandlers();
/// Turns the signal a worker caught into the launch's fault.
void reportSignalFault(Worker &W, LaunchState &L, const uint32_t Ctaid[3]);

/// What BlockCtx::Runner points at.
struct RunnerBase {
  LaunchState *L = nullptr;
  Worker *W = nullptr;
  void *SchedSp = nullptr;
  BlockCtx Ctx{};
  bool UsesFibers = false;
  /// Leaves kernel code for good after a trap/assert/fault was recorded.
  [[noreturn]] void abandon();
};

enum class RunResult { Done, GridWait, Fault };

/// Runs one block with a fiber per thread.
class BlockRunner : public RunnerBase {
public:
  enum class TState : uint8_t { Ready, Bar, Warp, Grid, Exited };
  struct Fiber {
    void *Sp = nullptr;
    FiberStack Stack;
    uint32_t Tid[3] = {0, 0, 0};
    uint32_t Linear = 0;
    TState St = TState::Ready;
    uint8_t BarId = 0;
    uint32_t Op = 0; ///< WarpOp or BarOp while waiting.
    /// Which warp-collective call site of the kernel the thread waits at
    /// (ferry_rt_warp's op bits 8-31): lanes at different sites are at
    /// different instructions and never complete one collective together.
    uint32_t Site = 0;
    uint32_t Mask = 0;
    uint64_t A = 0;
    uint32_t B = 0, C = 0;
    uint64_t Result = 0;
    uint64_t GridGen = 0;
    BlockRunner *Runner = nullptr;
  };

  BlockRunner(LaunchState &L, Worker &W);
  ~BlockRunner();
  /// Sets up block B (linear index); false when stacks ran out.
  bool start(uint64_t B, char *Smem);
  /// Runs until every thread exited, the block waits on the grid barrier,
  /// or a fault.
  RunResult run();

  // Runtime entry points (called on a fiber).
  uint32_t barrier(BarOp Op, uint32_t Id, uint32_t Count, uint32_t Pred);
  uint64_t warp(WarpOp Op, uint32_t Site, uint32_t Mask, uint64_t A, uint32_t B, uint32_t C);
  void gridSync();
  void yieldNow();
  /// A turn before a volatile shared/global access: every other ready
  /// thread of the block runs up to its next turn (or block) before this
  /// one goes on, which keeps the volatile accesses of a warp in lockstep.
  void lockstepTurn();
  [[noreturn]] void exitCurrent();
  Fiber &current() { return Fibers[Current]; }

private:
  static void fiberMain(void *Arg);
  void releaseStacks();
  void checkBarrier(uint32_t Id);
  bool tryCompleteWarp(uint32_t Warp, bool Force);
  void completeGroup(uint32_t Warp, uint32_t Group);
  void suspend(Fiber &F) { ferry_fiber_switch(&F.Sp, SchedSp); }

  struct Barrier {
    uint32_t Arrived = 0, Count = 0, Popc = 0;
    bool And = true, Or = false;
  };
  Fiber *Fibers = nullptr;
  uint32_t N = 0, Stacked = 0, Alive = 0, Current = 0;
  uint64_t GridAliveMine = 0;
  Barrier Bars[16];
  uint8_t WarpWaiting[32] = {}; ///< Lanes per warp waiting in a collective.
};

/// Runs blocks as warps (HostKernel::Warp). When the warp function calls
/// barriers each warp is a fiber and `bar.sync` switches warps; a barrier
/// counts a warp's threads when the warp arrives (PTX: barriers are
/// executed per warp).
class WarpRunner : public RunnerBase {
public:
  enum class WState : uint8_t { Ready, Bar, Done };
  struct WarpFiber {
    void *Sp = nullptr;
    FiberStack Stack;
    uint32_t X0 = 0, Y0 = 0, Z0 = 0, Mask = 0, Lanes = 0;
    WState St = WState::Ready;
    uint8_t BarId = 0;
    uint64_t Result = 0;
    WarpRunner *Runner = nullptr;
  };

  WarpRunner(LaunchState &L, Worker &W);
  ~WarpRunner();
  /// The warp function of K made for the launch's block layout, if any.
  /// Group functions (128 or 256 lanes) only when Groups is set and the
  /// block is made of whole groups.
  static const HostKernel::WarpEntry *choose(const HostKernel &K, const uint32_t Block[3], bool Groups);
  /// Sets up block B; false when stacks ran out.
  bool start(uint64_t B, char *Smem);
  RunResult run();
  /// Runs the blocks this worker grabs, for warp functions without
  /// barriers (called on a fiber).
  static void runPlain(void *Arg);

  uint64_t barrier(BarOp Op, uint32_t Id, uint32_t Count, uint32_t Popc, uint32_t Active);
  void yieldNow();

private:
  static void fiberMain(void *Arg);
  void checkBarrier(uint32_t Id);
  void suspend(WarpFiber &F) { ferry_fiber_switch(&F.Sp, SchedSp); }
  /// Suspends F (the current fiber) in favour of the next ready one,
  /// switching to it directly; to the scheduler when none is ready.
  void switchAway(WarpFiber &F);

  struct Barrier {
    uint32_t Arrived = 0, Count = 0, Popc = 0, Active = 0;
  };
  std::vector<WarpFiber> Warps;
  uint32_t Stacked = 0, AliveThreads = 0, Current = 0, Alive = 0;
  Barrier Bars[16];
};

} // namespace ferry::host

// The device runtime's entry points (DeviceRuntime.cpp; Runtime.def rows).
extern "C" {
void *ferry_rt_cdp_parambuf(ferry::host::BlockCtx *Ctx, uint64_t Kernel, uint32_t Gx, uint32_t Gy, uint32_t Gz,
                            uint32_t Bx, uint32_t By, uint32_t Bz, uint32_t Smem, uint32_t Tx, uint32_t Ty,
                            uint32_t Tz);
int32_t ferry_rt_cdp_launch(ferry::host::BlockCtx *Ctx, void *Buffer, uint64_t Stream, uint32_t Tx, uint32_t Ty,
                            uint32_t Tz);
int64_t ferry_rt_cdp_call(ferry::host::BlockCtx *Ctx, uint32_t Op, uint64_t A0, uint64_t A1, uint64_t A2,
                          uint64_t A3, uint64_t A4, uint32_t Tx, uint32_t Ty, uint32_t Tz);
}

namespace ferry::host {

/// Formats a device printf call (PTX vprintf ABI) and appends the text to
/// Out. Returns the number of arguments consumed, or -1 for a null format.
int formatDevicePrintf(const char *Format, const char *Args, std::string &Out);

} // namespace ferry::host
