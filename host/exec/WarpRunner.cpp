/// \file
/// The warp path of the executor: blocks whose kernel has a warp function
/// (host/jit/Vectorize.h) run 32 threads per call. Without barriers the
/// warps of a block simply run one after another; with barriers every warp
/// is a fiber and the scheduler switches warps at `bar.sync`.
#include "host/exec/ExecInternal.h"

#include <bit>

namespace ferry::host {

namespace {

/// Lane 0's thread indices and the lanes that exist, for warp (or group)
/// Warp of a block of the launch's shape (threads numbered x-fastest).
/// Groups only run whole (choose()), so their Mask is unused.
void warpGeometry(const LaunchState &L, uint32_t Warp, WarpRunner::WarpFiber &F) {
  uint32_t Width = L.Warp->Lanes;
  uint32_t First = Warp * Width;
  uint32_t Nx = L.Block[0], Ny = L.Block[1];
  F.X0 = First % Nx;
  F.Y0 = (First / Nx) % Ny;
  F.Z0 = First / (Nx * Ny);
  uint32_t Count = std::min<uint32_t>(Width, L.ThreadsPerBlock - First);
  F.Mask = Count >= 32 ? ~0u : (1u << Count) - 1;
  F.Lanes = Count;
}

} // namespace

const HostKernel::WarpEntry *WarpRunner::choose(const HostKernel &K, const uint32_t Block[3], bool Groups) {
  for (const HostKernel::WarpEntry &E : K.Warps) {
    if (!E.Fn || (E.Lanes > 32 && !Groups))
      continue;
    uint32_t N = E.Lanes;
    if (N > 32 && (Block[0] * Block[1] * Block[2]) % N != 0)
      continue;
    bool Fits = E.X == 32 ? Block[0] % N == 0 || (Block[1] == 1 && Block[2] == 1)
                          : Block[0] == E.X && (Block[2] == 1 || (Block[0] * Block[1]) % N == 0);
    if (Fits)
      return &E;
  }
  return nullptr;
}

WarpRunner::WarpRunner(LaunchState &Launch, Worker &Wk) {
  L = &Launch;
  W = &Wk;
  UsesFibers = true;
  uint32_t N = (Launch.ThreadsPerBlock + Launch.Warp->Lanes - 1) / Launch.Warp->Lanes;
  Warps.resize(N);
  for (uint32_t I = 0; I < N; ++I) {
    warpGeometry(Launch, I, Warps[I]);
    Warps[I].Runner = this;
  }
}

WarpRunner::~WarpRunner() {
  for (uint32_t I = 0; I < Stacked; ++I)
    W->WarpStacks.release(Warps[I].Stack);
}

void WarpRunner::fiberMain(void *Arg) {
  auto *F = static_cast<WarpFiber *>(Arg);
  WarpRunner *R = F->Runner;
  R->L->Warp->Fn(R->L->Params, &R->Ctx, F->X0, F->Y0, F->Z0, F->Mask);
  F->St = WState::Done;
  --R->Alive;
  R->AliveThreads -= F->Lanes;
  for (uint32_t Id = 0; Id < 16; ++Id)
    if (R->Bars[Id].Arrived > 0)
      R->checkBarrier(Id);
  ferry_fiber_switch(&F->Sp, R->SchedSp);
  __builtin_unreachable();
}

static void fillBlock(BlockCtx &Ctx, const LaunchState &S, const Worker &W, uint64_t B, char *Smem,
                      RunnerBase *Runner) {
  for (unsigned I = 0; I < 3; ++I) {
    Ctx.Ntid[I] = S.Block[I];
    Ctx.Nctaid[I] = S.Grid[I];
  }
  S.blockIndex(B, Ctx.Ctaid);
  Ctx.DynSmemBytes = S.DynSmem;
  Ctx.Smem = Smem;
  Ctx.GridId = S.GridId;
  Ctx.SmId = W.Index;
  Ctx.NSmId = S.NumWorkers;
  Ctx.TotalSmemBytes = S.ArenaBytes;
  Ctx.DynSmemOffset = S.DynOffset;
  Ctx.GridWorkspace = S.GridWorkspace;
  Ctx.StreamMin = S.StreamMin;
  Ctx.Runner = Runner;
}

bool WarpRunner::start(uint64_t B, char *Smem) {
  fillBlock(Ctx, *L, *W, B, Smem, this);
  while (Stacked < Warps.size()) {
    FiberStack St = W->WarpStacks.acquire();
    if (!St.Base)
      return false;
    Warps[Stacked++].Stack = St;
  }
  for (uint32_t I = 0; I < Warps.size(); ++I) {
    WarpFiber &F = Warps[I];
    F.St = WState::Ready;
    F.Sp = prepareFiber(F.Stack, &fiberMain, &F, I);
  }
  Alive = static_cast<uint32_t>(Warps.size());
  AliveThreads = L->ThreadsPerBlock;
  for (Barrier &Bar : Bars)
    Bar = Barrier();
  return true;
}

RunResult WarpRunner::run() {
  while (Alive > 0) {
    bool Ran = false;
    for (uint32_t I = 0; I < Warps.size(); ++I) {
      WarpFiber &F = Warps[I];
      if (F.St != WState::Ready)
        continue;
      Ran = true;
      Current = I;
      W->enter(&SchedSp, F.Stack, F.Sp);
      if (W->Faulted)
        return RunResult::Fault;
    }
    if (Ran)
      continue;
    uint32_t AtBarrier = 0;
    for (WarpFiber &F : Warps)
      AtBarrier += F.St == WState::Bar ? F.Lanes : 0;
    L->fault(CUDA_ERROR_LAUNCH_FAILED,
             "deadlock in block (" + std::to_string(Ctx.Ctaid[0]) + "," +
                 std::to_string(Ctx.Ctaid[1]) + "," + std::to_string(Ctx.Ctaid[2]) + "): " +
                 std::to_string(AtBarrier) + " of " + std::to_string(AliveThreads) +
                 " live threads wait at a barrier that cannot complete");
    return RunResult::Fault;
  }
  return RunResult::Done;
}

uint64_t WarpRunner::barrier(BarOp Op, uint32_t Id, uint32_t Count, uint32_t Popc, uint32_t Active) {
  Id &= 15;
  Barrier &B = Bars[Id];
  if (B.Arrived == 0) {
    B = Barrier();
    B.Count = Count;
  }
  WarpFiber &F = Warps[Current];
  B.Arrived += F.Lanes;
  B.Popc += Popc;
  B.Active += Active;
  if (Op == BarOp::Arrive) {
    checkBarrier(Id);
    return 0;
  }
  F.St = WState::Bar;
  F.BarId = static_cast<uint8_t>(Id);
  checkBarrier(Id);
  if (F.St == WState::Bar)
    switchAway(F);
  return F.Result;
}

void WarpRunner::switchAway(WarpFiber &F) {
  // A barrier of a block of several warps (or groups) costs one switch per
  // waiting warp this way, not two and a pass of the scheduler.
  uint32_t N = static_cast<uint32_t>(Warps.size());
  for (uint32_t K = 1; K < N; ++K) {
    uint32_t I = (Current + K) % N;
    WarpFiber &Next = Warps[I];
    if (Next.St != WState::Ready)
      continue;
    Current = I;
    W->CurStack = &Next.Stack;
    ferry_fiber_switch(&F.Sp, Next.Sp);
    return;
  }
  suspend(F);
}

void WarpRunner::checkBarrier(uint32_t Id) {
  Barrier &B = Bars[Id];
  uint32_t Expected = B.Count ? B.Count : AliveThreads;
  if (B.Arrived < Expected)
    return;
  uint64_t Result = uint64_t(B.Popc) | (uint64_t(B.Active) << 32);
  for (WarpFiber &F : Warps)
    if (F.St == WState::Bar && F.BarId == Id) {
      F.Result = Result;
      F.St = WState::Ready;
    }
  B = Barrier();
}

void WarpRunner::yieldNow() { suspend(Warps[Current]); }

void WarpRunner::runPlain(void *Arg) {
  auto *R = static_cast<WarpRunner *>(Arg);
  LaunchState &S = *R->L;
  uint64_t First, End;
  while (S.grab(First, End))
    for (uint64_t B = First; B < End; ++B) {
      S.blockIndex(B, R->Ctx.Ctaid);
      for (const WarpFiber &F : R->Warps)
        S.Warp->Fn(S.Params, &R->Ctx, F.X0, F.Y0, F.Z0, F.Mask);
    }
  ferry_fiber_switch(&R->W->DeadSp, R->SchedSp);
  __builtin_unreachable();
}

} // namespace ferry::host
