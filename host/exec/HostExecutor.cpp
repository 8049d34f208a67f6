/// \file
/// The worker pool and launches (HostExecutor.h). The launching thread works
/// too: it takes block chunks like the pool threads, so a one-block launch
/// wakes nobody. Launches are serialised on the pool; a second launching
/// thread waits for the first.
#include "host/exec/HostExecutor.h"

#include "host/exec/ExecInternal.h"
#include "support/Log.h"
#include "support/Settings.h"

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sched.h>
#include <thread>

namespace ferry::host {

struct HostExecutor::Impl {
  HostExecutorOptions Opts;
  unsigned NumThreads = 1; ///< Pool threads plus the launching thread.
  std::vector<std::thread> Threads;
  std::mutex M;
  std::condition_variable Cv, DoneCv;
  LaunchState *Job = nullptr;
  uint64_t Gen = 0;
  unsigned Wanted = 0, Taken = 0, Running = 0;
  bool Stop = false;
  std::mutex LaunchM;
  std::atomic<uint64_t> GridIds{1};
  std::once_flag CompilerOnce;
  std::unique_ptr<HostCompiler> Compiler;
  std::string CompilerError;

  void poolMain(unsigned Index);
};

namespace {

/// The largest CPU cache (the last level, shared by the cores), from sysfs;
/// 32 MiB where it cannot be read.
uint64_t lastLevelCacheBytes() {
  uint64_t Best = 0;
  for (int I = 0; I < 8; ++I) {
    std::string Path = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(I) + "/size";
    std::FILE *F = std::fopen(Path.c_str(), "r");
    if (!F)
      continue;
    unsigned long long N = 0;
    char Unit = 0;
    int Got = std::fscanf(F, "%llu%c", &N, &Unit);
    std::fclose(F);
    if (Got < 1)
      continue;
    uint64_t Bytes = N * (Unit == 'K' ? 1024ull : Unit == 'M' ? 1024ull * 1024 : Unit == 'G' ? 1ull << 30 : 1);
    Best = std::max(Best, Bytes);
  }
  return Best ? Best : uint64_t(32) << 20;
}

/// Non-temporal stores (BlockCtx::StreamMin) are weakly ordered: each
/// thread that ran blocks fences them before it reports the launch done.
inline void fenceStreamingStores() { __builtin_ia32_sfence(); }

/// The block-loop path: one fiber per worker runs whole chunks of blocks.
struct FastRun : RunnerBase {
  static void main(void *Arg) {
    auto *R = static_cast<FastRun *>(Arg);
    LaunchState &L = *R->L;
    uint64_t First, End;
    while (L.grab(First, End))
      for (uint64_t B = First; B < End; ++B) {
        L.blockIndex(B, R->Ctx.Ctaid);
        L.K->Block(L.Params, &R->Ctx);
      }
    ferry_fiber_switch(&R->W->DeadSp, R->SchedSp);
    __builtin_unreachable();
  }
};

void fillCtx(BlockCtx &Ctx, const LaunchState &L, Worker &W, char *Smem, void *Runner) {
  for (unsigned I = 0; I < 3; ++I) {
    Ctx.Ntid[I] = L.Block[I];
    Ctx.Nctaid[I] = L.Grid[I];
    Ctx.Ctaid[I] = 0;
  }
  Ctx.DynSmemBytes = L.DynSmem;
  Ctx.Smem = Smem;
  Ctx.GridId = L.GridId;
  Ctx.SmId = W.Index;
  Ctx.NSmId = L.NumWorkers;
  Ctx.TotalSmemBytes = L.ArenaBytes;
  Ctx.DynSmemOffset = L.DynOffset;
  Ctx.GridWorkspace = L.GridWorkspace;
  Ctx.StreamMin = L.StreamMin;
  Ctx.Runner = Runner;
}

/// After a block or fiber gave up because of a fault: make a signal into
/// the launch's error and reset the worker.
void settleFault(Worker &W, LaunchState &L, const uint32_t Ctaid[3]) {
  if (W.FaultSignal)
    reportSignalFault(W, L, Ctaid);
  W.Faulted = false;
  W.FaultSignal = 0;
}

/// Runs blocks of L on worker W until none are left or the launch aborts.
void runLaunch(Worker &W, LaunchState &L) {
  if (!W.reserveArena(L.ArenaBytes)) {
    L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate the shared-memory arena");
    return;
  }
  if (L.Warp && !L.Warp->Yields) {
    WarpRunner R(L, W);
    fillCtx(R.Ctx, L, W, W.Arena, static_cast<RunnerBase *>(&R));
    FiberStack S = W.WarpStacks.acquire();
    if (!S.Base) {
      L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate a fiber stack");
      return;
    }
    W.enter(&R.SchedSp, S, prepareFiber(S, &WarpRunner::runPlain, &R));
    if (W.Faulted)
      settleFault(W, L, R.Ctx.Ctaid);
    W.WarpStacks.release(S);
    return;
  }
  if (L.Warp) {
    WarpRunner R(L, W);
    uint64_t First, End;
    while (L.grab(First, End))
      for (uint64_t B = First; B < End; ++B) {
        if (L.Abort.load(std::memory_order_relaxed))
          return;
        if (!R.start(B, W.Arena)) {
          L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate fiber stacks");
          return;
        }
        if (R.run() != RunResult::Done) {
          settleFault(W, L, R.Ctx.Ctaid);
          return;
        }
      }
    return;
  }
  if (!L.K->UsesFibers) {
    FastRun R;
    R.L = &L;
    R.W = &W;
    fillCtx(R.Ctx, L, W, W.Arena, static_cast<RunnerBase *>(&R));
    FiberStack S = W.Stacks.acquire();
    if (!S.Base) {
      L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate a fiber stack");
      return;
    }
    W.enter(&R.SchedSp, S, prepareFiber(S, &FastRun::main, &R));
    if (W.Faulted)
      settleFault(W, L, R.Ctx.Ctaid);
    W.Stacks.release(S);
    return;
  }
  BlockRunner R(L, W);
  uint64_t First, End;
  while (L.grab(First, End))
    for (uint64_t B = First; B < End; ++B) {
      if (L.Abort.load(std::memory_order_relaxed))
        return;
      if (!R.start(B, W.Arena)) {
        L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate fiber stacks");
        return;
      }
      if (R.run() != RunResult::Done) {
        settleFault(W, L, R.Ctx.Ctaid);
        return;
      }
    }
}

/// One OS thread per block, so all blocks are co-resident (spin-waits on
/// other blocks make progress) and grid.sync can wait for the whole grid.
void runCooperativeBlock(LaunchState &L, uint64_t B, size_t StackBytes) {
  Worker W(static_cast<unsigned>(B % L.NumWorkers), StackBytes);
  setCurrentWorker(&W);
  if (!W.reserveArena(L.ArenaBytes)) {
    L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate the shared-memory arena");
  } else {
    BlockRunner R(L, W);
    if (!R.start(B, W.Arena)) {
      L.fault(CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate fiber stacks");
    } else {
      for (;;) {
        RunResult RR = R.run();
        if (RR == RunResult::Done)
          break;
        if (RR == RunResult::Fault) {
          settleFault(W, L, R.Ctx.Ctaid);
          break;
        }
        // Every live thread of this block waits on the grid barrier.
        uint64_t Gen = L.GridGen.load(std::memory_order_acquire);
        while (L.GridGen.load(std::memory_order_acquire) == Gen &&
               !L.Abort.load(std::memory_order_relaxed))
          sched_yield();
        if (L.Abort.load(std::memory_order_relaxed))
          break;
      }
    }
  }
  fenceStreamingStores();
  setCurrentWorker(nullptr);
}

} // namespace

void HostExecutor::Impl::poolMain(unsigned Index) {
  Worker W(Index, Opts.StackBytes);
  setCurrentWorker(&W);
  uint64_t Seen = 0;
  std::unique_lock<std::mutex> Lock(M);
  for (;;) {
    Cv.wait(Lock, [&] { return Stop || (Gen != Seen && Taken < Wanted); });
    if (Stop)
      break;
    Seen = Gen;
    ++Taken;
    LaunchState *L = Job;
    Lock.unlock();
    runLaunch(W, *L);
    fenceStreamingStores();
    Lock.lock();
    if (--Running == 0)
      DoneCv.notify_all();
  }
  setCurrentWorker(nullptr);
}

HostExecutor::HostExecutor(HostExecutorOptions Opts) : P(std::make_unique<Impl>()) {
  P->Opts = Opts;
  unsigned N = Opts.Threads;
  if (N == 0)
    N = static_cast<unsigned>(std::max<int64_t>(0, Settings::get().getInt(SettingKey::HostThreads)));
  if (N == 0)
    N = std::max(1u, std::thread::hardware_concurrency());
  P->NumThreads = N;
  installFaultHandlers();
  for (unsigned I = 1; I < N; ++I)
    P->Threads.emplace_back([this, I] { P->poolMain(I); });
  log::host().debug("host executor: {} threads, {} KiB fiber stacks", N, Opts.StackBytes / 1024);
}

HostExecutor::~HostExecutor() {
  {
    std::lock_guard<std::mutex> Lock(P->M);
    P->Stop = true;
  }
  P->Cv.notify_all();
  for (std::thread &T : P->Threads)
    T.join();
}

HostExecutor &HostExecutor::instance() {
  static HostExecutor *E = new HostExecutor(); // Never destroyed: kernels may
                                               // run from atexit handlers.
  return *E;
}

namespace {
std::thread *Preparer = nullptr;
void joinPreparer() {
  if (Preparer && Preparer->joinable())
    Preparer->join();
}
} // namespace

void HostExecutor::prepareCompiler() {
  static std::once_flag Once;
  std::call_once(Once, [this] {
    Preparer = new std::thread([this] {
      (void)compiler();
      // Exit handlers run in reverse order of registration, and building
      // the compiler registered destructors of LLVM statics it created on
      // this thread: registering again here makes the join run before them
      // (ThreadSanitizer saw them freed by exit() with no join between, in a
      // program that never launched a kernel).
      std::atexit(&joinPreparer);
    });
    // A process that exits at once must not tear LLVM down under it.
    std::atexit(&joinPreparer);
  });
}

unsigned HostExecutor::threads() const { return P->NumThreads; }
const HostExecutorOptions &HostExecutor::options() const { return P->Opts; }

Expected<HostCompiler *> HostExecutor::compiler() {
  std::call_once(P->CompilerOnce, [&] {
    Expected<std::unique_ptr<HostCompiler>> C = HostCompiler::create(runtimeSymbols());
    if (C)
      P->Compiler = std::move(*C);
    else
      P->CompilerError = C.error().message();
  });
  if (!P->Compiler)
    return makeError(CUDA_ERROR_UNKNOWN, P->CompilerError);
  return P->Compiler.get();
}

Status HostExecutor::launch(const HostKernel &K, std::array<uint32_t, 3> Grid,
                            std::array<uint32_t, 3> Block, uint32_t DynamicSharedBytes,
                            const void *Params, uint32_t Flags, const LaunchContext &Context) {
  CdpTree Tree;
  Tree.Context = Context;
  return runGrid(K, Grid, Block, DynamicSharedBytes, Params, Flags, Tree, 0);
}

Status HostExecutor::runGrid(const HostKernel &K, std::array<uint32_t, 3> Grid,
                             std::array<uint32_t, 3> Block, uint32_t DynamicSharedBytes,
                             const void *Params, uint32_t Flags, CdpTree &Tree, uint32_t Depth) {
  if (K.UsesFibers ? !K.Thread : !K.Block)
    return makeError(CUDA_ERROR_INVALID_VALUE, "launch: kernel '" + K.Name + "' has no code");
  for (unsigned I = 0; I < 3; ++I)
    if (Grid[I] == 0 || Block[I] == 0)
      return makeError(CUDA_ERROR_INVALID_VALUE, "launch: a grid or block dimension is zero");
  uint64_t Threads = uint64_t(Block[0]) * Block[1] * Block[2];
  if (Block[0] > 1024 || Block[1] > 1024 || Block[2] > 64 ||
      Threads > std::min<uint64_t>(1024, K.MaxThreadsPerBlock ? K.MaxThreadsPerBlock : 1024))
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "launch: block (" + std::to_string(Block[0]) + "," + std::to_string(Block[1]) +
                         "," + std::to_string(Block[2]) + ") exceeds the per-block limits");
  if (Grid[0] > 0x7fffffffu || Grid[1] > 65535 || Grid[2] > 65535)
    return makeError(CUDA_ERROR_INVALID_VALUE, "launch: grid dimensions exceed the limits");
  uint64_t DynOffset = (uint64_t(K.StaticSharedBytes) + 15) & ~uint64_t(15);
  uint64_t Arena = DynOffset + DynamicSharedBytes;
  if (Arena > P->Opts.MaxSharedBytes)
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "launch: " + std::to_string(Arena) + " bytes of shared memory exceed the " +
                         std::to_string(P->Opts.MaxSharedBytes) + "-byte limit");

  // Compiled code may assume a 16-byte aligned parameter buffer of
  // ParamBytes (HostCompiler.h).
  std::vector<std::max_align_t> Aligned;
  if ((reinterpret_cast<uintptr_t>(Params) & 15) && K.ParamBytes) {
    Aligned.resize((K.ParamBytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
    std::memcpy(Aligned.data(), Params, K.ParamBytes);
    Params = Aligned.data();
  }
  LaunchState L;
  L.K = &K;
  L.Params = Params;
  L.Cdp.Tree = &Tree;
  L.Cdp.Depth = Depth;
  for (unsigned I = 0; I < 3; ++I) {
    L.Grid[I] = Grid[I];
    L.Block[I] = Block[I];
  }
  L.DynSmem = DynamicSharedBytes;
  L.DynOffset = static_cast<uint32_t>(DynOffset);
  L.ArenaBytes = static_cast<uint32_t>(Arena);
  L.ThreadsPerBlock = static_cast<uint32_t>(Threads);
  L.Blocks = uint64_t(Grid[0]) * Grid[1] * Grid[2];
  L.NumWorkers = P->NumThreads;
  L.GridId = P->GridIds.fetch_add(1);
  L.Chunk = std::clamp<uint64_t>(L.Blocks / (uint64_t(P->NumThreads) * 8), 1, 1024);
  // Stores of StreamMin bytes or more per thread write more than the
  // last-level cache holds over the launch: those go around the caches.
  static const uint64_t Llc = lastLevelCacheBytes();
  uint64_t Stream = P->Opts.StreamBytes ? P->Opts.StreamBytes : Llc;
  uint64_t AllThreads = L.Blocks * Threads;
  if (AllThreads > 0)
    L.StreamMin = static_cast<uint32_t>(std::min<uint64_t>((Stream + AllThreads - 1) / AllThreads, UINT32_MAX));
  static const bool WarpWanted = Settings::get().getBool(SettingKey::HostWarp);
  if (WarpWanted && !(Flags & (LaunchCooperative | LaunchNoWarp)))
    L.Warp = WarpRunner::choose(K, L.Block, !(Flags & LaunchNoGroup));

  // A cooperative kernel without barriers never waits on other blocks
  // through ferry, so it runs as an ordinary launch.
  if ((Flags & LaunchCooperative) && K.UsesFibers) {
    if (L.Blocks > P->Opts.MaxCooperativeBlocks)
      return makeError(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                       "cooperative launch of " + std::to_string(L.Blocks) +
                           " blocks; the host runs at most " +
                           std::to_string(P->Opts.MaxCooperativeBlocks) + " at once");
    L.Cooperative = true;
    L.GridAlive = L.Blocks * Threads;
    // Cooperative groups synchronise the grid with atomics on this memory
    // (CUDA's driver hands it to every launch made cooperative).
    alignas(64) static thread_local uint32_t Workspace[16];
    std::memset(Workspace, 0, sizeof Workspace);
    L.GridWorkspace = reinterpret_cast<uintptr_t>(Workspace);
    std::vector<std::thread> Ts;
    Ts.reserve(L.Blocks);
    for (uint64_t B = 0; B < L.Blocks; ++B)
      Ts.emplace_back([&L, B, this] { runCooperativeBlock(L, B, P->Opts.StackBytes); });
    for (std::thread &T : Ts)
      T.join();
  } else {
    std::lock_guard<std::mutex> LaunchLock(P->LaunchM);
    Worker &Me = threadWorker(P->Opts.StackBytes);
    uint64_t Chunks = (L.Blocks + L.Chunk - 1) / L.Chunk;
    unsigned Helpers = static_cast<unsigned>(std::min<uint64_t>(P->NumThreads - 1, Chunks - 1));
    if (Helpers) {
      std::lock_guard<std::mutex> Lock(P->M);
      P->Job = &L;
      ++P->Gen;
      P->Wanted = Helpers;
      P->Taken = 0;
      P->Running = Helpers;
    }
    if (Helpers)
      P->Cv.notify_all();
    runLaunch(Me, L);
    fenceStreamingStores();
    if (Helpers) {
      std::unique_lock<std::mutex> Lock(P->M);
      // Helpers that have not started yet would only find no work left.
      P->Running -= P->Wanted - P->Taken;
      P->Wanted = P->Taken;
      P->DoneCv.wait(Lock, [&] { return P->Running == 0; });
      P->Job = nullptr;
    }
  }

  if (!L.Printed.empty()) {
    std::fwrite(L.Printed.data(), 1, L.Printed.size(), stdout);
    std::fflush(stdout);
  }
  L.reportAsserts();
  if (L.Fault != CUDA_SUCCESS) {
    log::host().error("kernel '{}' failed: {}", K.Name, L.FaultMessage);
    return makeError(L.Fault, L.FaultMessage);
  }
  // The grid is complete once the work it launched is (CUDA's CDP2 rule);
  // its tail launches come last, each after the one before and all that
  // one launched.
  for (bool Tail : {false, true})
    for (const std::unique_ptr<ChildWork> &W : L.Cdp.Work) {
      if (!W->Launched || W->Tail != Tail)
        continue;
      if (W->K == ChildWork::Kind::Copy) {
        std::memmove(W->Dst, W->Src, W->Bytes);
        continue;
      }
      if (W->K == ChildWork::Kind::Fill) {
        std::memset(W->Dst, W->Value, W->Bytes);
        continue;
      }
      Tree.Pending.fetch_sub(1, std::memory_order_relaxed);
      if (Status S = runGrid(*W->Kernel, W->Grid, W->Block, W->DynSmem, W->Params.data(), 0, Tree, Depth + 1); !S)
        return S;
    }
  return Status::ok();
}

} // namespace ferry::host
