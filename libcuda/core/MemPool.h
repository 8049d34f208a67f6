/// \file
/// The stream-ordered allocator (cuMemAllocAsync, cuMemFreeAsync) and its
/// memory pools (CUmemoryPool). A pool owns backend allocations ("blocks");
/// a block is either live (handed out, and then in the allocation table like
/// any cuMemAlloc memory, with Allocation::Pool set) or free, waiting in the
/// pool with the stream it was freed on and a signal that completes once the
/// work enqueued before the free has finished.
///
/// Reuse rule (CUDA driver API, "Stream Ordered Memory Allocator"): a free
/// block goes to a new allocation on stream S when that is known safe:
///  - it was freed on S itself (stream order puts the free before the new
///    allocation's users);
///  - its free has completed (REUSE_ALLOW_OPPORTUNISTIC);
///  - otherwise S is made to wait on the free's signal
///    (REUSE_ALLOW_INTERNAL_DEPENDENCIES).
/// REUSE_FOLLOW_EVENT_DEPENDENCIES is accepted and reported, but ferry does
/// not track event chains, so it never enables reuse by itself (always
/// correct, only less reuse).
///
/// Memory goes back to the backend only from blocks whose free completed:
/// at synchronisation points (stream, event, context synchronize) for what
/// a pool holds above its release threshold, in cuMemPoolTrimTo, and when a
/// fresh backend allocation fails. Pools are per device, not per context.
///
/// Threading: every function may be called from any thread. A pool's mutex
/// guards its block lists and counters; it is never held while enqueueing on
/// a stream or calling the backend. The registry (default and current pool
/// of each device, and pools still alive after cuMemPoolDestroy) has its own
/// mutex, taken before a pool's, never after.
#pragma once

#include "libcuda/core/Core.h"

#include <map>
#include <unordered_map>

namespace ferry::core {

class MemPool final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::MemPool;
  /// MaxSize 0: no limit on reserved memory (CUmemPoolProps::maxSize).
  MemPool(DeviceEntry &Dev, size_t MaxSize, bool IsDefault);
  /// Frees the pool's free blocks; live blocks keep the pool alive (their
  /// Allocation::Pool holds a reference), so none is left by then.
  ~MemPool() override;

  DeviceEntry &device() const { return Dev; }
  bool isDefault() const { return IsDefault; }
  bool isDestroyed() const;

  /// A block of at least Bytes (> 0) usable by work enqueued on S from now
  /// on, registered in the allocation table as S's context's memory.
  Expected<void *> allocate(Stream &S, size_t Bytes);

  /// CUmemPool_attribute values, all widened to 64 bits (the reuse flags
  /// are ints at the C ABI, 0 or 1).
  Expected<uint64_t> attribute(int Attr) const;
  Status setAttribute(int Attr, uint64_t Value);
  /// cuMemPoolTrimTo: releases free blocks whose frees completed until at
  /// most Keep bytes stay reserved (or nothing more can be released).
  void trimTo(size_t Keep);
  /// Access of device Ordinal (a valid ordinal): the owner always has
  /// READWRITE; others what cuMemPoolSetAccess stored (PROT_NONE first).
  unsigned access(int Ordinal) const;
  /// The owner's access cannot change (CUDA_ERROR_NOT_SUPPORTED, as on
  /// NVIDIA); others' is recorded (all memory is reachable from every
  /// device of a backend, so nothing needs mapping).
  Status setAccess(int Ordinal, unsigned Flags);

  /// Returns the live block at Base to the free list. Ready completes when
  /// the work before the free has finished (null: already finished).
  void giveBack(uintptr_t Base, uint64_t StreamId, std::shared_ptr<Signal> Ready);
  /// At a synchronisation point: releases what is held above the release
  /// threshold (everything releasable once the pool was destroyed).
  void releaseAboveThreshold();
  /// cuMemPoolDestroy: later frees release their blocks at once.
  void markDestroyed();
  /// Destroyed, with no live and no free block left.
  bool isFinished() const;

private:
  struct Block {
    void *Ptr = nullptr;
    size_t Bytes = 0;       ///< Backend allocation size.
    uint64_t StreamId = 0;  ///< Stream of the free; 0 for a synchronous free.
    std::shared_ptr<Signal> Ready;
  };
  struct LiveBlock {
    size_t Bytes = 0;     ///< Backend allocation size.
    size_t UserBytes = 0; ///< What was asked for (USED_MEM counters).
  };
  /// Takes a suitable free block for S out of the list (lock held). Wait
  /// is set when S must wait for the block's free first.
  std::optional<Block> takeFreeLocked(const Stream &S, size_t Need, bool &Wait);
  /// Unlinks completed free blocks until Reserved <= Keep (lock held); the
  /// caller releases them with releaseToBackend after unlocking.
  std::vector<Block> collectLocked(size_t Keep);
  void releaseToBackend(const std::vector<Block> &Blocks);
  Expected<Block> fresh(size_t Need);

  DeviceEntry &Dev;
  const size_t MaxSize;
  const bool IsDefault;

  mutable std::mutex M; ///< Guards everything below.
  bool Destroyed = false;
  std::multimap<size_t, Block> Free; ///< By size, for best fit.
  std::unordered_map<uintptr_t, LiveBlock> Live;
  bool ReuseFollowEvents = true, ReuseOpportunistic = true, ReuseInternalDeps = true;
  uint64_t Threshold = 0;
  uint64_t Reserved = 0, ReservedHigh = 0, Used = 0, UsedHigh = 0;
  std::map<int, unsigned> PeerAccess;
};

namespace mempool {
/// The device's default pool (made on first use; never destroyed).
Ref<MemPool> defaultPool(DeviceEntry &D);
/// The pool cuMemAllocAsync uses on D (cuDeviceSetMemPool), the default one
/// until set.
Ref<MemPool> currentPool(DeviceEntry &D);
/// P must belong to D.
void setCurrentPool(DeviceEntry &D, Ref<MemPool> P);
/// cuMemPoolCreate: a new published pool on D.
Ref<MemPool> create(DeviceEntry &D, size_t MaxSize);
/// cuMemPoolDestroy: the default pool cannot be destroyed
/// (CUDA_ERROR_INVALID_VALUE); a current pool is replaced by the default
/// one. The handle is retired at once; the pool lives on until its last
/// block is freed.
Status destroy(const Ref<MemPool> &P);

/// Refuses stream-ordered pool work on a capturing stream
/// (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; the capture is invalidated):
/// what a capture can hold is graph memory (an allocation captured becomes
/// an alloc node, its free a free node; api/MemPool.cpp, freeAsync), never
/// the free of memory allocated outside it.
Status checkCapture(Stream &S);
/// cuMemFreeAsync: Ptr must be the start of a live allocation. Pool memory
/// returns to its pool after S's earlier work; memory from cuMemAlloc is
/// freed at once after that work (NVIDIA accepts it too); managed memory is
/// CUDA_ERROR_NOT_SUPPORTED, anything else CUDA_ERROR_INVALID_VALUE.
Status freeAsync(uintptr_t Ptr, Stream &S);
/// cuMemFree of pool memory (core::release has synchronised and checked
/// the kind): back to the pool as an already completed free.
Status freeNow(const Allocation &A);
/// Context teardown, after its work drained: A (pool memory of that
/// context, already erased from the table) goes back to its pool.
void reclaim(const Allocation &A);
/// Stream/event/context synchronisation on D: pools release what they hold
/// above their thresholds. Cheap when no pool exists.
void onSynchronize(DeviceEntry &D);
} // namespace mempool

} // namespace ferry::core
