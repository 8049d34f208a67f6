/// \file
/// The CUDA device runtime on the host executor: dynamic parallelism (CDP2)
/// for kernels that launch kernels.
///
/// Design. nvcc compiles a device-side `k<<<g, b, smem, s>>>(args)` into
///   buf = cudaGetParameterBufferV2(k, g, b, smem); (stores into buf)
///   cudaLaunchDeviceV2(buf, s)
/// as calls of extern functions only libcudadevrt's SASS defines. ferry
/// translates PTX itself, so the PTX lowering turns those calls into the
/// ferry.cdp.* intrinsics (ptx/lower/LowerCdp.cpp) and the host compiler
/// into calls of the ferry_rt_cdp_* entry points below. A kernel is named
/// by its handle, the module variable "ferry.entry.<name>", which the
/// parent's module resolves (CompiledModule::kernelByHandle).
///
/// A launch from device code records a ChildWork in the launching grid
/// (LaunchState::Cdp) and returns; nothing runs until the grid's blocks have
/// all finished. HostExecutor::runGrid then runs the grid's children in the
/// order they were launched, each child with all of its own descendants
/// before the next, and the tail launches last. That order is one the GPU
/// may also choose, for every CDP2 rule:
///  - work of one stream (a block's NULL stream, a device stream) runs in
///    launch order, and a child is complete only with its descendants;
///  - children of different streams may run in any order or concurrently,
///    and a program may not rely on concurrency between grids (the
///    programming guide says so), nor can a parent wait for its children
///    (CDP2 has no device-side cudaDeviceSynchronize), so running them after
///    the parent is allowed;
///  - fire-and-forget launches may run at any time before the parent
///    completes;
///  - tail launches start after the parent and all its other work, in order.
/// Since everything runs in launch order, a device-side event wait is
/// always already satisfied: events and cudaStreamWaitEvent are checked and
/// otherwise have nothing to do. cudaMemcpyAsync/cudaMemsetAsync are child
/// work like launches.
///
/// Errors follow the device runtime: a failing call returns its code and
/// makes it the calling thread's last error (cudaGetLastError). Launches
/// nest at most 24 deep (cudaErrorLaunchMaxDepthExceeded), and at most
/// cudaLimitDevRuntimePendingLaunchCount launches of one host launch's tree
/// wait to start (cudaErrorLaunchPendingCountExceeded; ferry starts
/// children later than a GPU would, so a tree may reach the limit sooner).
/// A __cudaCDP2* function ferry does not implement returns
/// cudaErrorNotSupported and is named in a log line.
#include "host/exec/ExecInternal.h"
#include "ptx/lower/DeviceRuntime.h"
#include "support/Log.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace ferry::host;

// The driver API, for the device attributes: linked in libcuda.so, absent
// (null) where the executor runs alone (its tests).
extern "C" {
__attribute__((weak)) CUresult cuDeviceGetAttribute(int *Value, int Attribute, int Device);
__attribute__((weak)) CUresult cuDeviceGetCount(int *Count);
}

namespace {

// cudaError_t values the device runtime returns.
constexpr int Success = 0, InvalidValue = 1, MemoryAllocation = 2, InvalidConfiguration = 9,
              LaunchMaxDepthExceeded = 65, LaunchPendingCountExceeded = 69, InvalidDeviceFunction = 98,
              InvalidDevice = 101, InvalidResourceHandle = 400, NotSupported = 801;

/// CUDA's limit on the nesting depth of device-side launches.
constexpr uint32_t MaxDepth = 24;

LaunchState &launchOf(BlockCtx *Ctx) { return *static_cast<RunnerBase *>(Ctx->Runner)->L; }

std::array<uint32_t, 6> threadKey(BlockCtx *Ctx, uint32_t Tx, uint32_t Ty, uint32_t Tz) {
  return {Ctx->Ctaid[0], Ctx->Ctaid[1], Ctx->Ctaid[2], Tx, Ty, Tz};
}

/// Returns Err after making it the thread's last error. Call with G.M held.
int failWith(CdpGrid &G, const std::array<uint32_t, 6> &Thread, int Err) {
  if (Err != Success)
    G.LastError[Thread] = Err;
  return Err;
}

/// Handles of device streams and events: tagged, never 0..4 (CUDA's
/// special streams), unique in the process.
uint64_t newHandle() {
  static std::atomic<uint64_t> Next{1};
  return (uint64_t(0xcd9) << 52) | Next.fetch_add(1, std::memory_order_relaxed);
}

/// Resolves a stream argument: false when it is no stream of this grid.
/// Tail is set for cudaStreamTailLaunch. Call with G.M held.
bool streamOf(CdpGrid &G, uint64_t S, bool &Tail) {
  Tail = S == ferry::cdp::StreamTailLaunch;
  return S <= ferry::cdp::StreamFireAndForget || G.Streams.count(S);
}

void *parameterBuffer(BlockCtx *Ctx, uint64_t Handle, const std::array<uint32_t, 3> &Grid,
                      const std::array<uint32_t, 3> &Block, uint32_t Smem, const std::array<uint32_t, 6> &Me) {
  LaunchState &L = launchOf(Ctx);
  CdpGrid &G = L.Cdp;
  const HostKernel *K = L.K->Module ? L.K->Module->kernelByHandle(Handle) : nullptr;
  std::lock_guard<std::mutex> Lock(G.M);
  if (!K) {
    failWith(G, Me, InvalidDeviceFunction);
    return nullptr;
  }
  // The checks of a host launch (HostExecutor::launch), reported as the
  // device runtime reports them.
  uint64_t Threads = uint64_t(Block[0]) * Block[1] * Block[2];
  bool BadShape = Grid[0] == 0 || Grid[1] == 0 || Grid[2] == 0 || Threads == 0 || Block[0] > 1024 ||
                  Block[1] > 1024 || Block[2] > 64 ||
                  Threads > std::min<uint64_t>(1024, K->MaxThreadsPerBlock ? K->MaxThreadsPerBlock : 1024) ||
                  Grid[0] > 0x7fffffffu || Grid[1] > 65535 || Grid[2] > 65535;
  uint64_t Shared = ((uint64_t(K->StaticSharedBytes) + 15) & ~uint64_t(15)) + Smem;
  if (BadShape || Shared > HostExecutor::instance().options().MaxSharedBytes) {
    failWith(G, Me, InvalidConfiguration);
    return nullptr;
  }
  if (G.Depth + 1 > MaxDepth) {
    failWith(G, Me, LaunchMaxDepthExceeded);
    return nullptr;
  }
  auto W = std::make_unique<ChildWork>();
  W->Kernel = K;
  W->Grid = Grid;
  W->Block = Block;
  W->DynSmem = Smem;
  // The parent stores the arguments at the child's parameter offsets; the
  // executor wants a 16-byte aligned buffer of ParamBytes.
  size_t Bytes = std::max<size_t>(K->ParamBytes, 16);
  W->Params.resize((Bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  void *Buf = W->Params.data();
  G.Work.push_back(std::move(W));
  return Buf;
}

int launchDevice(BlockCtx *Ctx, void *Buf, uint64_t Stream, const std::array<uint32_t, 6> &Me) {
  LaunchState &L = launchOf(Ctx);
  CdpGrid &G = L.Cdp;
  std::lock_guard<std::mutex> Lock(G.M);
  // The buffer is nearly always the one made last.
  ChildWork *W = nullptr;
  for (auto It = G.Work.rbegin(); It != G.Work.rend() && !W; ++It)
    if ((*It)->K == ChildWork::Kind::Launch && (*It)->Params.data() == Buf)
      W = It->get();
  if (!W || W->Launched)
    return failWith(G, Me, InvalidValue);
  bool Tail;
  if (!streamOf(G, Stream, Tail))
    return failWith(G, Me, InvalidResourceHandle);
  uint64_t Pending = G.Tree->Pending.load(std::memory_order_relaxed);
  do {
    if (Pending >= G.Tree->Context.PendingLaunchLimit)
      return failWith(G, Me, LaunchPendingCountExceeded);
  } while (!G.Tree->Pending.compare_exchange_weak(Pending, Pending + 1, std::memory_order_relaxed));
  W->Launched = true;
  W->Tail = Tail;
  return Success;
}

/// Logs each unimplemented device runtime function once.
void reportUnsupported(const char *Name) {
  static std::mutex M;
  static std::set<std::string> Seen;
  std::string N = Name ? Name : "?";
  std::lock_guard<std::mutex> Lock(M);
  if (Seen.insert(N).second)
    ferry::log::host().warn("device runtime function {} is not supported by ferry's host backend; "
                            "device code gets cudaErrorNotSupported", N);
}

int64_t deviceCall(BlockCtx *Ctx, ferry::cdp::Op What, const uint64_t A[5], const std::array<uint32_t, 6> &Me) {
  using Op = ferry::cdp::Op;
  LaunchState &L = launchOf(Ctx);
  CdpGrid &G = L.Cdp;
  auto Ptr = [&](unsigned I) { return reinterpret_cast<void *>(A[I]); };
  std::lock_guard<std::mutex> Lock(G.M);
  auto Fail = [&](int Err) { return int64_t(failWith(G, Me, Err)); };
  bool Tail;
  switch (What) {
  case Op::Unsupported:
    reportUnsupported(static_cast<const char *>(Ptr(0)));
    failWith(G, Me, NotSupported);
    return A[1] ? 0 : NotSupported;
  case Op::GetLastError:
  case Op::PeekAtLastError: {
    auto It = G.LastError.find(Me);
    if (It == G.LastError.end())
      return Success;
    int Err = It->second;
    if (What == Op::GetLastError)
      G.LastError.erase(It);
    return Err;
  }
  case Op::GetDevice:
    if (!Ptr(0))
      return Fail(InvalidValue);
    *static_cast<int *>(Ptr(0)) = G.Tree->Context.Device;
    return Success;
  case Op::GetDeviceCount:
  case Op::DeviceGetAttribute: {
    if (!Ptr(0))
      return Fail(InvalidValue);
    // The driver answers as it does on the host; CUresult and cudaError_t
    // agree on the codes it can return here.
    CUresult R = CUDA_ERROR_NOT_SUPPORTED;
    if (What == Op::GetDeviceCount && cuDeviceGetCount)
      R = cuDeviceGetCount(static_cast<int *>(Ptr(0)));
    else if (What == Op::DeviceGetAttribute && cuDeviceGetAttribute)
      R = cuDeviceGetAttribute(static_cast<int *>(Ptr(0)), int(A[1]), int(A[2]));
    else
      return Fail(NotSupported);
    return R == CUDA_SUCCESS ? Success : Fail(R == CUDA_ERROR_INVALID_DEVICE ? InvalidDevice : InvalidValue);
  }
  case Op::StreamCreateWithFlags: {
    // Device streams never block on others (the host's default-stream
    // semantics do not exist on the device), so the flag changes nothing.
    if (!Ptr(0) || (A[1] & ~uint64_t(1)))
      return Fail(InvalidValue);
    uint64_t S = newHandle();
    G.Streams.insert(S);
    *static_cast<uint64_t *>(Ptr(0)) = S;
    return Success;
  }
  case Op::StreamDestroy:
    // Work already launched into the stream still runs.
    return G.Streams.erase(A[0]) ? Success : Fail(InvalidResourceHandle);
  case Op::EventCreateWithFlags: {
    if (!Ptr(0) || (A[1] & ~uint64_t(3))) // cudaEventBlockingSync | cudaEventDisableTiming
      return Fail(InvalidValue);
    uint64_t E = newHandle();
    G.Events.insert(E);
    *static_cast<uint64_t *>(Ptr(0)) = E;
    return Success;
  }
  case Op::EventDestroy:
    return G.Events.erase(A[0]) ? Success : Fail(InvalidResourceHandle);
  case Op::EventRecord:
  case Op::EventRecordWithFlags:
    // (event, stream): work runs in launch order, so recording has nothing
    // to remember.
    if (!G.Events.count(A[0]) || !streamOf(G, A[1], Tail))
      return Fail(InvalidResourceHandle);
    return Success;
  case Op::StreamWaitEvent:
    // (stream, event, flags): already satisfied in launch order.
    if (!G.Events.count(A[1]) || !streamOf(G, A[0], Tail))
      return Fail(InvalidResourceHandle);
    return Success;
  case Op::Malloc: {
    // The device heap (as malloc in device code): host memory here.
    if (!Ptr(0))
      return Fail(InvalidValue);
    size_t Bytes = std::max<uint64_t>(A[1], 1);
    void *P = std::aligned_alloc(256, (Bytes + 255) & ~size_t(255));
    *static_cast<void **>(Ptr(0)) = P;
    return P ? Success : Fail(MemoryAllocation);
  }
  case Op::Free:
    std::free(Ptr(0));
    return Success;
  case Op::MemcpyAsync:
  case Op::MemsetAsync: {
    // MemcpyAsync(dst, src, count, kind, stream); MemsetAsync(dst, value,
    // count, stream). Device code reaches device memory only, so every kind
    // is a plain copy.
    uint64_t Stream = A[What == Op::MemcpyAsync ? 4 : 3];
    if (!streamOf(G, Stream, Tail))
      return Fail(InvalidResourceHandle);
    size_t Bytes = A[2];
    if (Bytes == 0)
      return Success;
    if (!Ptr(0) || (What == Op::MemcpyAsync && !Ptr(1)))
      return Fail(InvalidValue);
    auto W = std::make_unique<ChildWork>();
    W->K = What == Op::MemcpyAsync ? ChildWork::Kind::Copy : ChildWork::Kind::Fill;
    W->Launched = true;
    W->Tail = Tail;
    W->Dst = Ptr(0);
    W->Src = Ptr(1);
    W->Value = int(A[1]);
    W->Bytes = Bytes;
    G.Work.push_back(std::move(W));
    return Success;
  }
  }
  return Fail(NotSupported);
}

} // namespace

extern "C" {

void *ferry_rt_cdp_parambuf(BlockCtx *Ctx, uint64_t Kernel, uint32_t Gx, uint32_t Gy, uint32_t Gz, uint32_t Bx,
                            uint32_t By, uint32_t Bz, uint32_t Smem, uint32_t Tx, uint32_t Ty, uint32_t Tz) {
  return parameterBuffer(Ctx, Kernel, {Gx, Gy, Gz}, {Bx, By, Bz}, Smem, threadKey(Ctx, Tx, Ty, Tz));
}

int32_t ferry_rt_cdp_launch(BlockCtx *Ctx, void *Buffer, uint64_t Stream, uint32_t Tx, uint32_t Ty,
                            uint32_t Tz) {
  return launchDevice(Ctx, Buffer, Stream, threadKey(Ctx, Tx, Ty, Tz));
}

int64_t ferry_rt_cdp_call(BlockCtx *Ctx, uint32_t Op, uint64_t A0, uint64_t A1, uint64_t A2, uint64_t A3,
                          uint64_t A4, uint32_t Tx, uint32_t Ty, uint32_t Tz) {
  const uint64_t A[5] = {A0, A1, A2, A3, A4};
  return deviceCall(Ctx, static_cast<ferry::cdp::Op>(Op), A, threadKey(Ctx, Tx, Ty, Tz));
}

} // extern "C"
