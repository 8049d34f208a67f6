/// \file
/// Fibers for the host executor: a minimal x86-64 context switch (the
/// callee-saved registers; nothing else is live across a call in the SysV
/// ABI, and kernel code never changes MXCSR or the x87 control word, so
/// those are shared by all fibers of a worker) and pooled mmap'ed stacks with a guard page below
/// each, so a runaway kernel stack faults instead of corrupting a neighbour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if !defined(__x86_64__)
#error "the host executor's fiber switch is written for x86-64"
#endif

extern "C" {
/// Saves the current context's stack pointer to *SaveSp and resumes the
/// context whose stack pointer is NewSp.
void ferry_fiber_switch(void **SaveSp, void *NewSp);
}

namespace ferry::host {

struct FiberStack {
  char *Base = nullptr; ///< Lowest address (the guard page starts here).
  size_t Bytes = 0;     ///< Whole mapping, guard included.
  char *top() const { return Base + Bytes; }
  bool inGuard(const void *Addr, size_t Guard) const {
    return Addr >= Base && Addr < Base + Guard;
  }
};

/// Prepares a fresh stack so that switching to the returned stack pointer
/// calls Entry(Arg). Entry must never return (it switches away for good).
/// Color (0..63) offsets the start by Color*64 bytes: stacks are page
/// aligned, so without it the hot frames of all fibers of a block would map
/// to the same L1 cache sets.
void *prepareFiber(const FiberStack &S, void (*Entry)(void *), void *Arg, unsigned Color = 0);

/// A free list of stacks of one size. Not thread-safe: one per worker.
class StackPool {
public:
  explicit StackPool(size_t UsableBytes);
  ~StackPool();
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;
  /// A stack, or a null Base when mmap fails.
  FiberStack acquire();
  void release(FiberStack S) { Free.push_back(S); }
  static constexpr size_t GuardBytes = 4096;

private:
  size_t Usable;
  std::vector<FiberStack> Free;
};

} // namespace ferry::host
