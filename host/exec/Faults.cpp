/// \file
/// Workers and kernel faults. Each OS thread that runs kernel code has a
/// Worker with an alternate signal stack (so a fiber stack overflow can still
/// be handled). The SIGSEGV/SIGBUS/SIGILL/SIGFPE handler checks whether the
/// faulting thread is a worker inside kernel code; if so it records the fault
/// and rewrites the interrupted context to "call" faultLanding on the top of
/// the dead fiber's stack, which switches back to the worker's scheduler.
/// Leaving the handler by sigreturn (rather than longjmp) restores the
/// signal mask, so the next fault is caught as well. Faults elsewhere go to
/// the handler that was installed before ours, or to the default action.
#include "host/exec/ExecInternal.h"
#include "support/Log.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

namespace ferry::host {
namespace {

thread_local Worker *TlsWorker = nullptr;
thread_local std::unique_ptr<Worker> OwnWorker;

constexpr int Signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
struct sigaction Previous[4];

[[noreturn]] void faultLanding() {
  Worker *W = TlsWorker;
  ferry_fiber_switch(&W->DeadSp, *W->SchedSp);
  __builtin_unreachable();
}

void onSignal(int Sig, siginfo_t *Info, void *Uc) {
  Worker *W = TlsWorker;
  if (W && W->InKernel && W->CurStack) {
    W->InKernel = false;
    W->Faulted = true;
    W->FaultSignal = Sig;
    W->FaultCode = Info->si_code;
    W->FaultAddress = Info->si_addr;
    auto *Ctx = static_cast<ucontext_t *>(Uc);
    uintptr_t Top = reinterpret_cast<uintptr_t>(W->CurStack->top()) & ~uintptr_t(15);
    Ctx->uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(Top - 8); // As after a call.
    Ctx->uc_mcontext.gregs[REG_RIP] = reinterpret_cast<greg_t>(&faultLanding);
    return;
  }
  for (unsigned I = 0; I < 4; ++I) {
    if (Signals[I] != Sig)
      continue;
    const struct sigaction &Old = Previous[I];
    if (Old.sa_flags & SA_SIGINFO) {
      if (Old.sa_sigaction) {
        Old.sa_sigaction(Sig, Info, Uc);
        return;
      }
    } else if (Old.sa_handler != SIG_DFL && Old.sa_handler != SIG_IGN) {
      Old.sa_handler(Sig);
      return;
    }
    // Default action: restore it and let the faulting instruction re-run.
    struct sigaction Dfl;
    std::memset(&Dfl, 0, sizeof(Dfl));
    Dfl.sa_handler = SIG_DFL;
    sigaction(Sig, &Dfl, nullptr);
    return;
  }
}

} // namespace

Worker::Worker(unsigned Index, size_t StackBytes) : Index(Index), Stacks(StackBytes), WarpStacks(StackBytes * 16) {
  AltStackBytes = 64 * 1024;
  void *P = mmap(nullptr, AltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (P != MAP_FAILED) {
    AltStack = P;
    stack_t S;
    S.ss_sp = P;
    S.ss_size = AltStackBytes;
    S.ss_flags = 0;
    sigaltstack(&S, nullptr);
  }
}

Worker::~Worker() {
  if (AltStack) {
    stack_t S;
    std::memset(&S, 0, sizeof(S));
    S.ss_flags = SS_DISABLE;
    sigaltstack(&S, nullptr);
    munmap(AltStack, AltStackBytes);
  }
  if (Arena)
    std::free(Arena - ArenaGuard);
}

bool Worker::reserveArena(size_t Bytes) {
  if (Bytes <= ArenaBytes)
    return true;
  size_t Want = (std::max<size_t>(Bytes, 4096) + 4095) & ~size_t(4095);
  // A readable guard page on each side: warp functions may load a span of
  // shared memory that reaches past what inactive lanes would address.
  void *P = std::aligned_alloc(4096, Want + 2 * ArenaGuard);
  if (!P)
    return false;
  if (Arena)
    std::free(Arena - ArenaGuard);
  std::memset(P, 0, ArenaGuard);
  std::memset(static_cast<char *>(P) + ArenaGuard + Want, 0, ArenaGuard);
  Arena = static_cast<char *>(P) + ArenaGuard;
  ArenaBytes = Want;
  return true;
}

Worker *currentWorker() { return TlsWorker; }
void setCurrentWorker(Worker *W) { TlsWorker = W; }

Worker &threadWorker(size_t StackBytes) {
  if (!TlsWorker) {
    OwnWorker = std::make_unique<Worker>(0, StackBytes);
    TlsWorker = OwnWorker.get();
  }
  return *TlsWorker;
}

void installFaultHandlers() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    for (unsigned I = 0; I < 4; ++I) {
      struct sigaction Act;
      std::memset(&Act, 0, sizeof(Act));
      Act.sa_sigaction = &onSignal;
      Act.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&Act.sa_mask);
      sigaction(Signals[I], &Act, &Previous[I]);
    }
  });
}

void reportSignalFault(Worker &W, LaunchState &L, const uint32_t Ctaid[3]) {
  CUresult Code = CUDA_ERROR_ILLEGAL_ADDRESS;
  const char *What = "illegal address";
  if (W.FaultSignal == SIGSEGV && W.CurStack &&
      W.CurStack->inGuard(W.FaultAddress, StackPool::GuardBytes)) {
    Code = CUDA_ERROR_HARDWARE_STACK_ERROR;
    What = "stack overflow";
  } else if (W.FaultSignal == SIGBUS && W.FaultCode == BUS_ADRALN) {
    Code = CUDA_ERROR_MISALIGNED_ADDRESS;
    What = "misaligned address";
  } else if (W.FaultSignal == SIGILL) {
    Code = CUDA_ERROR_ILLEGAL_INSTRUCTION;
    What = "illegal instruction";
  } else if (W.FaultSignal == SIGFPE) {
    Code = CUDA_ERROR_LAUNCH_FAILED;
    What = "arithmetic trap (integer division by zero or overflow)";
  }
  char Buf[192];
  std::snprintf(Buf, sizeof(Buf), "%s at %p in block (%u,%u,%u)", What, W.FaultAddress, Ctaid[0],
                Ctaid[1], Ctaid[2]);
  L.fault(Code, Buf);
}

} // namespace ferry::host
