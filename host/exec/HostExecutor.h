/// \file
/// The host executor: runs kernels compiled by HostCompiler on this CPU.
///
/// Execution model. A persistent pool of worker threads (FERRY_HOST_THREADS,
/// default one per core; the launching thread is one of them) takes blocks
/// in chunks from an atomic counter. A block runs on one worker with that
/// worker's shared-memory arena:
/// - kernels the compiler vectorised (host/jit/Vectorize.h) run as warp
///   functions, 32 threads per call, when the block's layout has a variant
///   (FERRY_HOST_WARP=0 turns this off): warps one after another, or one
///   fiber per warp switched at `bar.sync` when the kernel has barriers;
/// - otherwise, kernels with barriers or warp collectives run each CUDA thread as a
///   fiber (pooled mmap'ed stacks with a guard page); `bar.sync` and every
///   warp operation switch fibers until the participants have arrived, then
///   compute all lanes' results at once, which gives Volta independent thread
///   scheduling semantics;
/// - other kernels run the compiled block function (a loop over threads).
/// Cooperative launches give every block its own OS thread so that all are
/// co-resident; `ferry.grid.sync` waits for every live thread of the grid.
///
/// Faults. Segmentation faults, bus errors, SIGILL and SIGFPE raised by
/// kernel code on a worker are caught (the handler chains to any earlier one
/// for faults elsewhere): the launch is abandoned and returns
/// CUDA_ERROR_ILLEGAL_ADDRESS (MISALIGNED_ADDRESS for alignment bus errors,
/// HARDWARE_STACK_ERROR for a fiber stack overflow, ILLEGAL_INSTRUCTION,
/// LAUNCH_FAILED for division traps). `trap` gives CUDA_ERROR_LAUNCH_FAILED,
/// a failed device assert CUDA_ERROR_ASSERT with CUDA's message on stderr.
/// The process and the executor stay usable.
///
/// Device printf output is buffered per launch and written to stdout when
/// the launch ends.
///
/// Threading: launch() may be called from any thread; launches are
/// serialised on the pool and each returns when its kernel has finished.
#pragma once

#include "host/jit/HostCompiler.h"
#include "support/Expected.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace ferry::host {

enum LaunchFlags : uint32_t {
  LaunchCooperative = 1u << 0, ///< cuLaunchCooperativeKernel semantics.
  LaunchNoWarp = 1u << 1,      ///< Run each thread on its own even where a
                               ///< warp function exists (tests compare both).
  LaunchNoGroup = 1u << 2,     ///< Use 32-lane warp functions only, not the
                               ///< group functions (tests compare).
};

struct CdpTree;

/// What a launch inherits from the context it was made in, for the device
/// runtime (dynamic parallelism) of its kernels.
struct LaunchContext {
  /// cudaLimitDevRuntimePendingLaunchCount: device-side launches made but
  /// not yet started, over the whole tree of a host launch.
  uint32_t PendingLaunchLimit = 2048;
  int Device = 0; ///< What cudaGetDevice answers in device code.
};

struct HostExecutorOptions {
  unsigned Threads = 0;            ///< 0: FERRY_HOST_THREADS, else the core count.
  size_t StackBytes = 64 * 1024;   ///< Usable bytes of each fiber stack.
  size_t MaxSharedBytes = 100 * 1024; ///< Static + dynamic shared per block.
  unsigned MaxCooperativeBlocks = 256; ///< One OS thread each.
  /// Bytes a launch must write to get streaming stores (BlockCtx::StreamMin);
  /// 0: the last-level cache's size.
  uint64_t StreamBytes = 0;
};

class HostExecutor {
public:
  explicit HostExecutor(HostExecutorOptions Opts = {});
  ~HostExecutor();
  HostExecutor(const HostExecutor &) = delete;
  HostExecutor &operator=(const HostExecutor &) = delete;

  /// The process-wide executor (options from the settings table).
  static HostExecutor &instance();

  /// The runtime entry points compiled code calls (KernelAbi.h).
  static std::vector<RuntimeSymbol> runtimeSymbols();

  /// A compiler wired to this executor's runtime, made on first use.
  Expected<HostCompiler *> compiler();
  /// Makes the compiler (compiler()) on a background thread, once; a
  /// compiler() call meanwhile waits for it. Joined at exit.
  void prepareCompiler();

  /// Runs K over Grid × Block threads and returns when it has finished.
  /// Params is the kernel's parameter buffer, laid out as CUDA lays out
  /// kernelParams; it must stay valid during the call (a buffer that is not
  /// 16-byte aligned is copied to one that is). Errors: CUDA_ERROR_INVALID_VALUE for a bad
  /// configuration (a zero dimension, more than 1024 threads or the
  /// kernel's maximum, blockDim over (1024,1024,64), gridDim.y/z over 65535,
  /// shared memory over the limit), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
  /// or the fault the kernel raised (see the file comment).
  ///
  /// Dynamic parallelism: grids the kernel launches from device code run
  /// after it, each with its own descendants, before this call returns
  /// (host/exec/DeviceRuntime.cpp); a fault in any of them is the launch's.
  Status launch(const HostKernel &K, std::array<uint32_t, 3> Grid, std::array<uint32_t, 3> Block,
                uint32_t DynamicSharedBytes, const void *Params, uint32_t Flags = 0,
                const LaunchContext &Context = {});

  unsigned threads() const;
  const HostExecutorOptions &options() const;

  struct Impl;

private:
  /// One grid of a launch tree at nesting depth Depth (0: launched by the
  /// host), then the work it launched from the device.
  Status runGrid(const HostKernel &K, std::array<uint32_t, 3> Grid, std::array<uint32_t, 3> Block,
                 uint32_t DynamicSharedBytes, const void *Params, uint32_t Flags,
                 CdpTree &Tree, uint32_t Depth);
  std::unique_ptr<Impl> P;
};

} // namespace ferry::host
