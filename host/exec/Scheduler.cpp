/// \file
/// The fiber scheduler of one block: round-robin over ready threads; block
/// barriers count arrivals of live threads; warp collectives wait until every
/// live lane of the member mask has arrived and then compute all lanes'
/// results at once. Threads that exit stop counting, so an early `return`
/// before `__syncthreads()` does not hang. Volatile shared/global accesses
/// are turns (lockstepTurn): each ready thread runs to its next one in
/// index order, which gives pre-Volta warp-synchronous code the lockstep
/// it relies on.
#include "host/exec/ExecInternal.h"
#include "support/Log.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>
#include <thread>

namespace ferry::host {

[[noreturn]] void RunnerBase::abandon() {
  W->Faulted = true;
  ferry_fiber_switch(&W->DeadSp, *W->SchedSp);
  __builtin_unreachable();
}

BlockRunner::BlockRunner(LaunchState &Launch, Worker &Wk) {
  L = &Launch;
  W = &Wk;
  UsesFibers = true;
  N = Launch.ThreadsPerBlock;
  this->Fibers = static_cast<Fiber *>(::operator new(sizeof(Fiber) * N));
  for (uint32_t I = 0; I < N; ++I)
    new (&this->Fibers[I]) Fiber();
}

BlockRunner::~BlockRunner() {
  releaseStacks();
  for (uint32_t I = 0; I < N; ++I)
    this->Fibers[I].~Fiber();
  ::operator delete(this->Fibers);
}

void BlockRunner::releaseStacks() {
  for (uint32_t I = 0; I < Stacked; ++I)
    W->Stacks.release(this->Fibers[I].Stack);
  Stacked = 0;
}

void BlockRunner::fiberMain(void *Arg) {
  auto *F = static_cast<Fiber *>(Arg);
  BlockRunner *R = F->Runner;
  R->L->K->Thread(R->L->Params, &R->Ctx, F->Tid[0], F->Tid[1], F->Tid[2]);
  R->exitCurrent();
}

bool BlockRunner::start(uint64_t B, char *Smem) {
  const LaunchState &S = *L;
  for (unsigned I = 0; I < 3; ++I) {
    Ctx.Ntid[I] = S.Block[I];
    Ctx.Nctaid[I] = S.Grid[I];
  }
  S.blockIndex(B, Ctx.Ctaid);
  Ctx.DynSmemBytes = S.DynSmem;
  Ctx.Smem = Smem;
  Ctx.GridId = S.GridId;
  Ctx.SmId = W->Index;
  Ctx.NSmId = S.NumWorkers;
  Ctx.TotalSmemBytes = S.ArenaBytes;
  Ctx.DynSmemOffset = S.DynOffset;
  Ctx.GridWorkspace = S.GridWorkspace;
  Ctx.StreamMin = S.StreamMin;
  Ctx.Runner = static_cast<RunnerBase *>(this);
  while (Stacked < N) {
    FiberStack St = W->Stacks.acquire();
    if (!St.Base)
      return false;
    this->Fibers[Stacked++].Stack = St;
  }
  uint32_t I = 0;
  for (uint32_t Z = 0; Z < S.Block[2]; ++Z)
    for (uint32_t Y = 0; Y < S.Block[1]; ++Y)
      for (uint32_t X = 0; X < S.Block[0]; ++X, ++I) {
        Fiber &F = this->Fibers[I];
        F.Tid[0] = X;
        F.Tid[1] = Y;
        F.Tid[2] = Z;
        F.Linear = I;
        F.St = TState::Ready;
        F.Runner = this;
        F.Sp = prepareFiber(F.Stack, &fiberMain, &F, I);
      }
  Alive = N;
  for (Barrier &Bar : Bars)
    Bar = Barrier();
  std::fill(std::begin(WarpWaiting), std::end(WarpWaiting), 0);
  return true;
}

RunResult BlockRunner::run() {
  uint32_t Warps = (N + 31) / 32;
  while (Alive > 0) {
    bool Ran = false, GridWaiting = false;
    for (uint32_t I = 0; I < N; ++I) {
      Fiber &F = this->Fibers[I];
      if (F.St == TState::Grid) {
        if (L->GridGen.load(std::memory_order_acquire) > F.GridGen)
          F.St = TState::Ready;
        else
          GridWaiting = true;
      }
      if (F.St != TState::Ready)
        continue;
      Ran = true;
      Current = I;
      W->enter(&SchedSp, F.Stack, F.Sp);
      if (W->Faulted)
        return RunResult::Fault;
      // A lane that blocked or exited may be the last one a collective of
      // its warp was waiting for.
      if (WarpWaiting[I / 32])
        tryCompleteWarp(I / 32, false);
    }
    if (Ran)
      continue;
    if (GridWaiting)
      return RunResult::GridWait;
    // Nobody can run. Warp collectives waiting on lanes that are blocked
    // elsewhere (a barrier, another collective) complete with the lanes that
    // did arrive, as the hardware would once those lanes diverged away.
    bool Forced = false;
    for (uint32_t Wp = 0; Wp < Warps; ++Wp)
      Forced |= tryCompleteWarp(Wp, true);
    if (Forced)
      continue;
    uint32_t AtBarrier = 0;
    for (uint32_t I = 0; I < N; ++I)
      AtBarrier += this->Fibers[I].St == TState::Bar;
    L->fault(CUDA_ERROR_LAUNCH_FAILED,
             "deadlock in block (" + std::to_string(Ctx.Ctaid[0]) + "," +
                 std::to_string(Ctx.Ctaid[1]) + "," + std::to_string(Ctx.Ctaid[2]) + "): " +
                 std::to_string(AtBarrier) + " of " + std::to_string(Alive) +
                 " live threads wait at a barrier that cannot complete");
    return RunResult::Fault;
  }
  return RunResult::Done;
}

[[noreturn]] void BlockRunner::exitCurrent() {
  Fiber &F = current();
  F.St = TState::Exited;
  --Alive;
  for (uint32_t Id = 0; Id < 16; ++Id)
    if (Bars[Id].Arrived > 0)
      checkBarrier(Id);
  if (L->Cooperative) {
    std::lock_guard<std::mutex> Lock(L->GridM);
    --L->GridAlive;
    if (L->GridArrived > 0 && L->GridArrived >= L->GridAlive) {
      L->GridArrived = 0;
      L->GridGen.fetch_add(1, std::memory_order_acq_rel);
    }
  }
  ferry_fiber_switch(&F.Sp, SchedSp);
  __builtin_unreachable();
}

void BlockRunner::yieldNow() { suspend(current()); }

void BlockRunner::lockstepTurn() {
  // run() resumes the ready threads in index order, one turn each, so the
  // lanes of a warp (consecutive indices) take their turns in a fixed
  // rotation; a lone thread has nobody to wait for.
  if (N > 1)
    suspend(current());
}

//===----------------------------------------------------------------------===//
// Block barriers.
//===----------------------------------------------------------------------===//

uint32_t BlockRunner::barrier(BarOp Op, uint32_t Id, uint32_t Count, uint32_t Pred) {
  Id &= 15;
  Barrier &B = Bars[Id];
  if (B.Arrived == 0) {
    B = Barrier();
    B.Count = Count;
  }
  ++B.Arrived;
  B.Popc += Pred != 0;
  B.And &= Pred != 0;
  B.Or |= Pred != 0;
  if (Op == BarOp::Arrive) {
    checkBarrier(Id);
    return 0;
  }
  Fiber &F = current();
  F.St = TState::Bar;
  F.BarId = static_cast<uint8_t>(Id);
  F.Op = static_cast<uint32_t>(Op);
  checkBarrier(Id);
  if (F.St == TState::Bar)
    suspend(F);
  return static_cast<uint32_t>(F.Result);
}

void BlockRunner::checkBarrier(uint32_t Id) {
  Barrier &B = Bars[Id];
  uint32_t Expected = B.Count ? B.Count : Alive;
  if (B.Arrived < Expected)
    return;
  for (uint32_t I = 0; I < N; ++I) {
    Fiber &F = this->Fibers[I];
    if (F.St != TState::Bar || F.BarId != Id)
      continue;
    switch (static_cast<BarOp>(F.Op)) {
    case BarOp::RedPopc: F.Result = B.Popc; break;
    case BarOp::RedAnd: F.Result = B.And; break;
    case BarOp::RedOr: F.Result = B.Or; break;
    default: F.Result = 0; break;
    }
    F.St = TState::Ready;
  }
  B = Barrier();
}

void BlockRunner::gridSync() {
  Fiber &F = current();
  if (!L->Cooperative) {
    if (L->Blocks == 1) { // The grid is this block.
      barrier(BarOp::Sync, 0, 0, 0);
      return;
    }
    L->fault(CUDA_ERROR_LAUNCH_FAILED, "grid.sync in a launch that is not cooperative");
    abandon();
  }
  {
    std::lock_guard<std::mutex> Lock(L->GridM);
    F.GridGen = L->GridGen.load(std::memory_order_relaxed);
    if (++L->GridArrived >= L->GridAlive) {
      L->GridArrived = 0;
      L->GridGen.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    F.St = TState::Grid;
  }
  suspend(F);
}

//===----------------------------------------------------------------------===//
// Warp collectives.
//===----------------------------------------------------------------------===//

uint64_t BlockRunner::warp(WarpOp Op, uint32_t Site, uint32_t Mask, uint64_t A, uint32_t B, uint32_t C) {
  Fiber &F = current();
  F.Op = static_cast<uint32_t>(Op);
  F.Site = Site;
  F.Mask = Mask;
  F.A = A;
  F.B = B;
  F.C = C;
  F.St = TState::Warp;
  ++WarpWaiting[F.Linear / 32];
  tryCompleteWarp(F.Linear / 32, false);
  if (F.St == TState::Warp)
    suspend(F);
  return F.Result;
}

/// Completes the collectives of one warp whose participants are all there
/// (or, with Force, with whoever is there). Returns whether any completed.
bool BlockRunner::tryCompleteWarp(uint32_t Warp, bool Force) {
  uint32_t First = Warp * 32, Count = std::min<uint32_t>(32, N - First);
  Fiber *Lanes = this->Fibers + First;
  uint32_t Live = 0, Waiting = 0, ActiveWaiting = 0, Ready = 0;
  for (uint32_t I = 0; I < Count; ++I) {
    TState S = Lanes[I].St;
    if (S != TState::Exited)
      Live |= 1u << I;
    if (S == TState::Ready)
      Ready |= 1u << I;
    if (S == TState::Warp) {
      Waiting |= 1u << I;
      if (static_cast<WarpOp>(Lanes[I].Op) == WarpOp::ActiveMask)
        ActiveWaiting |= 1u << I;
    }
  }
  bool Any = false;
  // A collective waits, too, while other lanes of the warp can still run:
  // on the GPU a converged warp reaches it together, and its lanes
  // exchange values with every lane that is there, named in the member
  // mask or not (completeGroup). Lanes blocked elsewhere do not hold it up.
  if (Ready && !Force)
    return Any;
  uint32_t Pending = Waiting & ~ActiveWaiting;
  while (Pending) {
    uint32_t I = std::countr_zero(Pending);
    // The lanes waiting at this very collective (same call site): a lane
    // of the mask blocked at another one has not got here yet (say, it is
    // still inside an if that I skipped, where the GPU would reconverge
    // before this instruction), so it is waited for, not mixed in.
    uint32_t Here = 0;
    for (uint32_t G = Waiting; G; G &= G - 1) {
      uint32_t K = std::countr_zero(G);
      if (Lanes[K].Op == Lanes[I].Op && Lanes[K].Site == Lanes[I].Site)
        Here |= 1u << K;
    }
    uint32_t Group = (Lanes[I].Mask & Live) | (1u << I);
    // Lanes waiting at the same collective with the same mask that does
    // not name them (a mask from a ballot of `tid < n`, used by the whole
    // warp) run it with this group, as the converged warp would.
    for (uint32_t G = Here & ~Group; G; G &= G - 1) {
      uint32_t K = std::countr_zero(G);
      if (Lanes[K].Mask == Lanes[I].Mask)
        Group |= 1u << K;
    }
    if ((Group & ~Here) != 0) {
      if (!Force) {
        Pending &= ~(1u << I);
        continue;
      }
      Group &= Here;
    }
    completeGroup(Warp, Group);
    Waiting &= ~Group;
    Pending &= ~Group;
    Any = true;
  }
  // __activemask(): the lanes that reached the same one together, once
  // every other live lane of the warp is blocked somewhere and no other
  // collective could complete (its lanes may still be on their way to this
  // activemask, as on the GPU they would be, converged).
  if (ActiveWaiting && !Any) {
    while (ActiveWaiting) {
      uint32_t Site = Lanes[std::countr_zero(ActiveWaiting)].Site, Here = 0;
      for (uint32_t G = ActiveWaiting; G; G &= G - 1)
        if (Lanes[std::countr_zero(G)].Site == Site)
          Here |= G & -G;
      completeGroup(Warp, Here);
      ActiveWaiting &= ~Here;
    }
    Any = true;
  }
  return Any;
}

void BlockRunner::completeGroup(uint32_t Warp, uint32_t Group) {
  Fiber *Lanes = this->Fibers + Warp * 32;
  auto Lo = [](uint64_t V) { return static_cast<uint32_t>(V); };
  uint32_t Leader = std::countr_zero(Group);
  auto Op = static_cast<WarpOp>(Lanes[Leader].Op);
  // Warp-wide facts first.
  uint32_t Ballot = 0, Sum = 0, And = ~0u, Or = 0, Xor = 0;
  uint32_t UMin = ~0u, UMax = 0;
  int32_t SMin = INT32_MAX, SMax = INT32_MIN;
  bool AllEq = true;
  for (uint32_t G = Group; G; G &= G - 1) {
    uint32_t I = std::countr_zero(G);
    uint64_t A = Lanes[I].A;
    if (A & 1)
      Ballot |= 1u << I;
    uint32_t V = Lo(A);
    Sum += V;
    And &= V;
    Or |= V;
    Xor ^= V;
    UMin = std::min(UMin, V);
    UMax = std::max(UMax, V);
    SMin = std::min(SMin, static_cast<int32_t>(V));
    SMax = std::max(SMax, static_cast<int32_t>(V));
    AllEq &= A == Lanes[Leader].A;
  }
  auto Pack = [](uint32_t V, bool P) { return uint64_t(V) | (uint64_t(P) << 32); };
  for (uint32_t G = Group; G; G &= G - 1) {
    uint32_t I = std::countr_zero(G);
    Fiber &F = Lanes[I];
    uint64_t R = 0;
    switch (Op) {
    case WarpOp::Sync: R = 0; break;
    case WarpOp::ShflUp:
    case WarpOp::ShflDown:
    case WarpOp::ShflBfly:
    case WarpOp::ShflIdx: {
      // PTX ISA, shfl.sync: c packs the clamp (bits 0-4) and the segment
      // mask (bits 8-12).
      int32_t Lane = static_cast<int32_t>(I);
      int32_t BVal = F.B & 31, CVal = F.C & 31, Seg = (F.C >> 8) & 31;
      int32_t MaxLane = (Lane & Seg) | (CVal & ~Seg);
      int32_t MinLane = Lane & Seg;
      int32_t J = Lane;
      bool P = false;
      switch (static_cast<WarpOp>(F.Op)) {
      case WarpOp::ShflUp: J = Lane - BVal; P = J >= MaxLane; break;
      case WarpOp::ShflDown: J = Lane + BVal; P = J <= MaxLane; break;
      case WarpOp::ShflBfly: J = Lane ^ BVal; P = J <= MaxLane; break;
      default: J = MinLane | (BVal & ~Seg); P = J <= MaxLane; break;
      }
      if (!P || J < 0 || J > 31)
        J = Lane;
      // A source lane outside the group: one at a collective now (the
      // same instruction on the GPU, where the warp is converged) gives
      // its operand; one that diverged away, exited or does not exist
      // gives 0, as NVIDIA GPUs do (summing such reads is common, and
      // right only with 0).
      uint32_t Src = 0;
      if ((Group >> J) & 1)
        Src = Lo(Lanes[J].A);
      else if (Warp * 32 + uint32_t(J) < N && Lanes[J].St == TState::Warp &&
               static_cast<WarpOp>(Lanes[J].Op) == static_cast<WarpOp>(F.Op) && Lanes[J].Site == F.Site)
        Src = Lo(Lanes[J].A);
      R = Pack(Src, P);
      break;
    }
    case WarpOp::VoteAll: R = Pack(0, (Ballot & Group) == Group); break;
    case WarpOp::VoteAny: R = Pack(0, Ballot != 0); break;
    case WarpOp::VoteUni: R = Pack(0, Ballot == 0 || (Ballot & Group) == Group); break;
    case WarpOp::Ballot: R = Pack(Ballot, false); break;
    case WarpOp::MatchAny: {
      uint32_t M = 0;
      for (uint32_t H = Group; H; H &= H - 1) {
        uint32_t K = std::countr_zero(H);
        if (Lanes[K].A == F.A)
          M |= 1u << K;
      }
      R = Pack(M, false);
      break;
    }
    case WarpOp::MatchAll: R = AllEq ? Pack(Group, true) : Pack(0, false); break;
    case WarpOp::ReduxAdd: R = Sum; break;
    case WarpOp::ReduxUMin: R = UMin; break;
    case WarpOp::ReduxUMax: R = UMax; break;
    case WarpOp::ReduxSMin: R = static_cast<uint32_t>(SMin); break;
    case WarpOp::ReduxSMax: R = static_cast<uint32_t>(SMax); break;
    case WarpOp::ReduxAnd: R = And; break;
    case WarpOp::ReduxOr: R = Or; break;
    case WarpOp::ReduxXor: R = Xor; break;
    case WarpOp::ActiveMask: R = Group; break;
    case WarpOp::Elect: R = Pack(Leader, I == Leader); break;
    }
    F.Result = R;
    F.St = TState::Ready;
    --WarpWaiting[Warp];
  }
}

} // namespace ferry::host
