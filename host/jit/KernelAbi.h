/// \file
/// The binary contract between code the host compiler emits and the host
/// executor that runs it. Compiled kernels read block geometry from a
/// BlockCtx the executor fills in, and call the executor's runtime
/// (the FERRY_RUNTIME rows of Runtime.def) for everything that needs the scheduler:
/// barriers, warp collectives, exit/trap/assert, printf, malloc. The compiler
/// only knows these by name; the executor hands their addresses to
/// HostCompiler, so neither library links the other for this contract.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::host {

/// One block's view of its launch, shared by all its threads. The compiler
/// reads the fields by byte offset (the static_asserts pin the layout), with
/// invariant loads, so the executor must not change them while the block runs.
struct BlockCtx {
  uint32_t Ntid[3];     ///< blockDim.
  uint32_t Nctaid[3];   ///< gridDim.
  uint32_t Ctaid[3];    ///< blockIdx.
  uint32_t DynSmemBytes;
  char *Smem;           ///< The block's shared arena: static vars, then dynamic.
  uint64_t GridId;
  uint32_t SmId;
  uint32_t NSmId;
  uint32_t TotalSmemBytes;
  uint32_t DynSmemOffset; ///< Where dynamic shared memory starts in Smem.
  void *Runner;         ///< The executor's scheduler state (opaque here).
  uint64_t GridWorkspace; ///< Cooperative launches: zeroed grid-barrier memory.
  /// Whole-line global stores of warp functions of at least this many bytes
  /// per thread go around the caches (non-temporal): the launch's threads
  /// then write more than the last-level cache holds, and a streaming
  /// store skips the read of each line it overwrites. UINT32_MAX: never.
  uint32_t StreamMin;
  uint32_t Reserved;
};
static_assert(offsetof(BlockCtx, Ntid) == 0);
static_assert(offsetof(BlockCtx, Nctaid) == 12);
static_assert(offsetof(BlockCtx, Ctaid) == 24);
static_assert(offsetof(BlockCtx, DynSmemBytes) == 36);
static_assert(offsetof(BlockCtx, Smem) == 40);
static_assert(offsetof(BlockCtx, GridId) == 48);
static_assert(offsetof(BlockCtx, SmId) == 56);
static_assert(offsetof(BlockCtx, NSmId) == 60);
static_assert(offsetof(BlockCtx, TotalSmemBytes) == 64);
static_assert(offsetof(BlockCtx, DynSmemOffset) == 68);
static_assert(offsetof(BlockCtx, Runner) == 72);
static_assert(offsetof(BlockCtx, GridWorkspace) == 80);
static_assert(offsetof(BlockCtx, StreamMin) == 88);

/// The thread function of a kernel: one CUDA thread, run on a fiber.
using ThreadFn = void (*)(const void *Params, BlockCtx *Ctx, uint32_t Tx, uint32_t Ty,
                          uint32_t Tz);
/// The block function of a kernel without barriers or warp operations: runs
/// every thread of the block in a loop (no fibers needed).
using BlockFn = void (*)(const void *Params, BlockCtx *Ctx);

/// The warp function of a kernel (host/jit/Vectorize.cpp): 32 CUDA threads
/// at once, each varying value a vector of 32 lanes. Lane l of the warp is
/// the thread with linear index First + l; the function derives the thread
/// indices from (X0, Y0, Z0), the indices of lane 0, under the layout it was
/// compiled for (HostKernel::WarpX). Mask has a bit per lane that exists
/// (the last warp of a block may be partial).
using WarpFn = void (*)(const void *Params, BlockCtx *Ctx, uint32_t X0, uint32_t Y0, uint32_t Z0,
                        uint32_t Mask);

/// The variants warp functions can be built in (Vectorize.h), in the order
/// of HostKernel::Warps, which is the order the executor prefers them: a
/// thread layout (X: x-contiguous lanes, or blockDim.x = 16 or 8) and a lane
/// count. *Group* functions run several warps at once (their vectors
/// interleave the warps' work: independent FMA chains, 512 contiguous bytes
/// per access); they are built for kernels with loops and run only blocks
/// that are whole groups. The 16-wide group has 256 lanes, a whole 16x16
/// block: the block is then one fiber, its __syncthreads() costs nothing
/// and a tiled loop keeps sixteen accumulators in registers (16x8 blocks
/// take the 32-lane function). x-contiguous groups come in 256 lanes (a
/// 256-thread block, or half a 512-thread one, in one call: a grid-stride
/// loop reads a whole block's 1 KiB per step; built for small kernels
/// only, Vectorize.cpp) and 128 (128- and 384-thread blocks, and kernels
/// too big for 256). The compiler builds the variants with Built
/// set: a 32-lane one costs about as much compile time as the scalar
/// kernel, a group function two to four times that, and 8-wide blocks are
/// rarer.
struct WarpLayout {
  uint32_t X;
  uint32_t Lanes;
  bool Built;
};
/// The largest stack frame a warp or group function may have: they run on
/// the executor's warp fibers (16 x HostExecutorOptions::StackBytes, 1 MiB
/// by default), which must also hold the runtime calls below them. A
/// variant with a larger frame is left out of the kernel's table (another
/// layout or the per-thread path runs the launch), so it never runs past
/// its stack.
inline constexpr uint64_t MaxWarpFrameBytes = 512 * 1024;
inline constexpr unsigned NumWarpLayouts = 6;
inline constexpr WarpLayout WarpLayouts[NumWarpLayouts] = {
    {32, 256, true}, {32, 128, true}, {16, 256, true}, {32, 32, true}, {16, 32, true}, {8, 32, false}};

/// Operation codes of ferry_rt_warp.
enum class WarpOp : uint32_t {
  Sync,       ///< bar.warp.sync
  ShflUp, ShflDown, ShflBfly, ShflIdx,
  VoteAll, VoteAny, VoteUni, Ballot,
  MatchAny, MatchAll,
  ReduxAdd, ReduxUMin, ReduxUMax, ReduxSMin, ReduxSMax, ReduxAnd, ReduxOr, ReduxXor,
  ActiveMask,
  Elect,
};

/// Operation codes of ferry_rt_bar.
enum class BarOp : uint32_t { Sync, Arrive, RedPopc, RedAnd, RedOr };

/// Fault kinds of ferry_rt_trap.
enum class TrapKind : uint32_t { Trap, Breakpoint };

} // namespace ferry::host
