/// \file
/// Graph memory (CUDA programming guide, "Graph Memory Nodes"): the memory
/// of alloc nodes (cuGraphAddMemAllocNode, or cuMemAllocAsync captured),
/// and the per-device counters cuDeviceGetGraphMemAttribute reports.
///
/// NVIDIA fixes an allocation's virtual address when the node is made and
/// maps physical memory when the graph runs. ferry does the same in
/// effect: a node's memory is allocated from the backend when the node is
/// made (so its address is known to the nodes built after it and never
/// changes), and it is *accounted* as reserved once an execution allocated
/// it, until cuDeviceGraphMemTrim gives the pages of allocations that are
/// not in use back to the system (host backend: madvise; the address stays
/// valid and the contents are undefined, as for any freed allocation).
///
/// Stream order is tracked at enqueue time, in program order, which is
/// where CUDA checks its rules too: a launch marks its allocations live
/// and its frees not; cuMemFreeAsync/cuMemFree of a graph allocation, or
/// another graph's free node, mark it freed. A live allocation outlives
/// its graph (the program must still free it, as on NVIDIA): the state
/// holds it until it is freed. The memory itself is never
/// reused for anything else while its node exists, so a stale access
/// cannot corrupt another allocation.
///
/// Threading: one process-wide mutex guards every allocation's state and
/// the counters; it is never held while waiting for device work.
#pragma once

#include "ferry/cuda.h"
#include "libcuda/core/Core.h"

#include <span>

namespace ferry::core {

class GraphAlloc : public std::enable_shared_from_this<GraphAlloc> {
public:
  /// Allocates Bytes (> 0) of device memory on Ctx's device and registers
  /// it in the allocation table as AllocKind::Graph.
  static Expected<std::shared_ptr<GraphAlloc>> create(Ref<Context> Ctx, size_t Bytes,
                                                      const CUmemPoolProps &Props,
                                                      std::vector<CUmemAccessDesc> Access);
  GraphAlloc(Ref<Context> Ctx, void *Ptr, size_t Bytes)
      : Ctx(std::move(Ctx)), Ptr(Ptr), Bytes(Bytes) {}
  ~GraphAlloc();
  GraphAlloc(const GraphAlloc &) = delete;
  GraphAlloc &operator=(const GraphAlloc &) = delete;

  void *ptr() const { return Ptr; }
  size_t bytes() const { return Bytes; }
  Context &context() const { return *Ctx; }
  const CUmemPoolProps &props() const { return Props; }
  const std::vector<CUmemAccessDesc> &access() const { return Access; }
  /// The allocation whose base is Ptr, if it is a live graph allocation.
  static std::shared_ptr<GraphAlloc> find(uintptr_t Ptr);

  // Stream-order state: guarded by the graph memory mutex, read and
  // written only by GraphMem.cpp.
  bool Live = false;   ///< Allocated in stream order and not yet freed.
  bool Mapped = false; ///< Counted as reserved (allocated since the last trim).

private:
  Ref<Context> Ctx;
  void *Ptr;
  size_t Bytes;
  CUmemPoolProps Props{};
  std::vector<CUmemAccessDesc> Access;
};

namespace graphmem {
/// One step of a launch's bookkeeping: Alloc (true) or free of A.
struct Op {
  GraphAlloc *A;
  bool Alloc;
};
/// Applies Ops in order, atomically: either all or none. An alloc of a
/// live allocation fails (CUDA_ERROR_INVALID_VALUE: the last launch's
/// allocation is unfreed) unless AutoFree, which frees it first; a free of
/// an allocation that is not live fails (CUDA_ERROR_INVALID_VALUE).
Status apply(std::span<const Op> Ops, bool AutoFree);
/// cuMemFree / cuMemFreeAsync of a graph allocation: marks it freed.
Status freeOutside(GraphAlloc &A);
/// CUgraphMem_attribute values of device Ordinal.
uint64_t attribute(int Ordinal, int Attr);
/// Only the high watermarks can be set, and only to 0 (reset to current).
Status resetHigh(int Ordinal, int Attr);
/// cuDeviceGraphMemTrim: waits for D's contexts' work, then returns the
/// pages of allocations that are not live to the system.
Status trim(DeviceEntry &D);
} // namespace graphmem

} // namespace ferry::core
