/// \file
/// The context switch and the stack pool (Fiber.h).
#include "host/exec/Fiber.h"

#include <sys/mman.h>

#include <cstring>

// The switch pushes the callee-saved registers onto the current stack, stores the stack pointer, loads the other one and pops
// the same set. A fresh fiber's stack is laid out as if it had been switched
// away from just before calling ferry_fiber_start, which moves the argument
// (r12) into rdi and calls the entry (r13).
asm(R"(
  .text
  .globl ferry_fiber_switch
  .hidden ferry_fiber_switch
  .type ferry_fiber_switch,@function
  .p2align 4
ferry_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ferry_fiber_switch, .-ferry_fiber_switch

  .globl ferry_fiber_start
  .hidden ferry_fiber_start
  .type ferry_fiber_start,@function
  .p2align 4
ferry_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size ferry_fiber_start, .-ferry_fiber_start
)");

extern "C" void ferry_fiber_start();

namespace ferry::host {

void *prepareFiber(const FiberStack &S, void (*Entry)(void *), void *Arg, unsigned Color) {
  auto Top = (reinterpret_cast<uintptr_t>(S.top()) - (Color % 64) * 64) & ~uintptr_t(15);
  // Six registers, the return address, then rsp is 16-byte aligned at Top-16.
  auto *Sp = reinterpret_cast<uint64_t *>(Top - 72);
  Sp[0] = 0;                                      // r15
  Sp[1] = 0;                                      // r14
  Sp[2] = reinterpret_cast<uint64_t>(Entry);      // r13
  Sp[3] = reinterpret_cast<uint64_t>(Arg);        // r12
  Sp[4] = 0;                                      // rbx
  Sp[5] = 0;                                      // rbp
  Sp[6] = reinterpret_cast<uint64_t>(&ferry_fiber_start);
  Sp[7] = 0; // Padding: the entry runs with a 16-byte aligned stack.
  return Sp;
}

StackPool::StackPool(size_t UsableBytes) : Usable((UsableBytes + 4095) & ~size_t(4095)) {}

StackPool::~StackPool() {
  for (FiberStack &S : Free)
    munmap(S.Base, S.Bytes);
}

FiberStack StackPool::acquire() {
  if (!Free.empty()) {
    FiberStack S = Free.back();
    Free.pop_back();
    return S;
  }
  size_t Bytes = Usable + GuardBytes;
  void *P = mmap(nullptr, Bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return {};
  char *Base = static_cast<char *>(P);
  if (mprotect(Base + GuardBytes, Usable, PROT_READ | PROT_WRITE) != 0) {
    munmap(P, Bytes);
    return {};
  }
  return {Base, Bytes};
}

} // namespace ferry::host
