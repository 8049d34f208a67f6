/// \file
/// Memory pools and the stream-ordered allocator: block reuse in stream
/// order, release at synchronisation points, the per-device default and
/// current pools. The rules are in MemPool.h.
#include "libcuda/core/MemPool.h"

#include "libcuda/core/Graph.h"
#include "libcuda/core/GraphMem.h"
#include "support/Log.h"

#include <algorithm>

namespace ferry::core {

namespace {

/// Block sizes are rounded to the backend's allocation alignment, so a
/// block freed for one size serves nearby sizes too.
constexpr size_t Granule = 256;

// CUmemPool_attribute values (core does not see the C ABI's enums).
enum : int {
  AttrReuseFollowEvents = 1,
  AttrReuseOpportunistic = 2,
  AttrReuseInternalDeps = 3,
  AttrReleaseThreshold = 4,
  AttrReservedCurrent = 5,
  AttrReservedHigh = 6,
  AttrUsedCurrent = 7,
  AttrUsedHigh = 8,
};
constexpr unsigned AccessReadWrite = 3; // CU_MEM_ACCESS_FLAGS_PROT_READWRITE

struct Registry {
  std::mutex M;
  std::map<int, Ref<MemPool>> Default, Current;
  /// Every pool not yet finished, destroyed ones included: synchronisation
  /// points visit them, and a destroyed pool stays here until its last
  /// block is released.
  std::vector<Ref<MemPool>> All;
};
Registry &registry() {
  static Registry *R = new Registry(); // Leaked: pools outlive static dtors.
  return *R;
}
/// Number of pools ever made, so synchronisation skips all of this in
/// programs that never use the allocator.
std::atomic<int> PoolCount{0};

} // namespace

MemPool::MemPool(DeviceEntry &Dev, size_t MaxSize, bool IsDefault)
    : Object(Kind::MemPool), Dev(Dev), MaxSize(MaxSize), IsDefault(IsDefault) {}

MemPool::~MemPool() {
  std::vector<Block> All;
  for (auto &[Size, B] : Free)
    All.push_back(B);
  Free.clear();
  // Nothing can still use these: live blocks hold a reference to the pool,
  // and a free block's users finished before its Ready signal; wait for
  // those anyway rather than free under running work.
  for (auto &B : All)
    if (B.Ready)
      B.Ready->wait();
  releaseToBackend(All);
}

bool MemPool::isDestroyed() const {
  std::lock_guard<std::mutex> L(M);
  return Destroyed;
}

bool MemPool::isFinished() const {
  std::lock_guard<std::mutex> L(M);
  return Destroyed && Live.empty() && Free.empty();
}

std::optional<MemPool::Block> MemPool::takeFreeLocked(const Stream &S, size_t Need, bool &Wait) {
  // Best fit within twice the size: blocks are not split, so a much larger
  // one would waste memory the program may want for a later allocation.
  size_t Limit = Need > SIZE_MAX / 2 ? SIZE_MAX : Need * 2;
  auto Best = Free.end();
  int BestRank = 3;
  for (auto It = Free.lower_bound(Need); It != Free.end() && It->first <= Limit; ++It) {
    const Block &B = It->second;
    int Rank = 3;
    if (B.StreamId == S.id())
      Rank = 0;
    else if ((!B.Ready || B.Ready->isComplete()) && ReuseOpportunistic)
      Rank = 1;
    else if (ReuseInternalDeps)
      Rank = 2;
    if (Rank < BestRank) {
      Best = It;
      BestRank = Rank;
      if (Rank == 0)
        break;
    }
  }
  if (Best == Free.end())
    return std::nullopt;
  Block B = Best->second;
  Free.erase(Best);
  Wait = BestRank == 2;
  return B;
}

std::vector<MemPool::Block> MemPool::collectLocked(size_t Keep) {
  std::vector<Block> Out;
  // Largest first: fewest backend calls to get under Keep.
  for (auto It = Free.end(); It != Free.begin() && Reserved > Keep;) {
    --It;
    const Block &B = It->second;
    if (B.Ready && !B.Ready->isComplete())
      continue; // Work before its free may still use it.
    Reserved -= B.Bytes;
    Out.push_back(B);
    It = Free.erase(It);
  }
  return Out;
}

void MemPool::releaseToBackend(const std::vector<Block> &Blocks) {
  for (const Block &B : Blocks)
    if (Status S = Dev.Backend->release(MemoryKind::Device, B.Ptr, B.Bytes); !S)
      log::api().warn("memory pool: releasing a block failed: {}", S.message());
}

Expected<MemPool::Block> MemPool::fresh(size_t Need) {
  if (MaxSize) {
    // Make room under maxSize from completed frees first.
    std::vector<Block> Freed;
    bool Fits;
    {
      std::lock_guard<std::mutex> L(M);
      if (Reserved + Need > MaxSize)
        Freed = collectLocked(MaxSize > Need ? MaxSize - Need : 0);
      Fits = Reserved + Need <= MaxSize;
    }
    releaseToBackend(Freed);
    if (!Fits)
      return makeError(CUDA_ERROR_OUT_OF_MEMORY, "the pool's maxSize would be exceeded");
  }
  auto P = Dev.Backend->allocate(MemoryKind::Device, Need);
  if (!P && P.code() == CUDA_ERROR_OUT_OF_MEMORY) {
    // What the pool keeps for reuse is the first thing to give up.
    std::vector<Block> Freed;
    {
      std::lock_guard<std::mutex> L(M);
      Freed = collectLocked(0);
    }
    releaseToBackend(Freed);
    P = Dev.Backend->allocate(MemoryKind::Device, Need);
  }
  if (!P)
    return P.takeError();
  std::lock_guard<std::mutex> L(M);
  Reserved += Need;
  ReservedHigh = std::max(ReservedHigh, Reserved);
  Block B;
  B.Ptr = *P;
  B.Bytes = Need;
  return B;
}

Expected<void *> MemPool::allocate(Stream &S, size_t Bytes) {
  if (Bytes > SIZE_MAX - Granule)
    return makeError(CUDA_ERROR_OUT_OF_MEMORY, "allocation size too large");
  size_t Need = (Bytes + Granule - 1) / Granule * Granule;
  std::optional<Block> B;
  bool Wait = false;
  {
    std::lock_guard<std::mutex> L(M);
    B = takeFreeLocked(S, Need, Wait);
  }
  if (B && Wait && B->Ready) {
    // The internal dependency: S's later work waits for the free's.
    std::shared_ptr<Signal> Ready = B->Ready;
    Status St = S.submit([&](Queue &Q) { return Q.enqueueWait(Ready); });
    if (!St) {
      std::lock_guard<std::mutex> L(M);
      Free.emplace(B->Bytes, *B);
      return St.takeError();
    }
  }
  if (!B) {
    auto F = fresh(Need);
    if (!F)
      return F.takeError();
    B = *F;
  }
  Allocation A;
  A.Base = uintptr_t(B->Ptr);
  A.Bytes = Bytes;
  A.Kind = AllocKind::Device;
  A.DeviceOrdinal = Dev.Ordinal;
  A.Ctx = &S.context();
  A.Id = alloctable::nextId();
  A.Pool = std::static_pointer_cast<MemPool>(shared_from_this());
  {
    std::lock_guard<std::mutex> L(M);
    Live[A.Base] = LiveBlock{B->Bytes, Bytes};
    Used += Bytes;
    UsedHigh = std::max(UsedHigh, Used);
  }
  alloctable::insert(A);
  S.context().noteAllocation(B->Ptr);
  return B->Ptr;
}

void MemPool::giveBack(uintptr_t Base, uint64_t StreamId, std::shared_ptr<Signal> Ready) {
  std::vector<Block> Freed;
  {
    std::lock_guard<std::mutex> L(M);
    auto It = Live.find(Base);
    if (It == Live.end())
      return; // Not ours: the callers checked the table; nothing to undo.
    Block B;
    B.Ptr = reinterpret_cast<void *>(Base);
    B.Bytes = It->second.Bytes;
    B.StreamId = StreamId;
    B.Ready = std::move(Ready);
    Used -= It->second.UserBytes;
    Live.erase(It);
    Free.emplace(B.Bytes, std::move(B));
    if (Destroyed)
      Freed = collectLocked(0);
  }
  releaseToBackend(Freed);
}

void MemPool::releaseAboveThreshold() {
  std::vector<Block> Freed;
  {
    std::lock_guard<std::mutex> L(M);
    uint64_t Keep = Destroyed ? 0 : Threshold;
    if (Reserved <= Keep)
      return;
    Freed = collectLocked(Keep > SIZE_MAX ? SIZE_MAX : size_t(Keep));
  }
  releaseToBackend(Freed);
}

void MemPool::trimTo(size_t Keep) {
  std::vector<Block> Freed;
  {
    std::lock_guard<std::mutex> L(M);
    Freed = collectLocked(Keep);
  }
  releaseToBackend(Freed);
}

void MemPool::markDestroyed() {
  std::vector<Block> Freed;
  {
    std::lock_guard<std::mutex> L(M);
    Destroyed = true;
    Freed = collectLocked(0);
  }
  releaseToBackend(Freed);
}

Expected<uint64_t> MemPool::attribute(int Attr) const {
  std::lock_guard<std::mutex> L(M);
  switch (Attr) {
  case AttrReuseFollowEvents: return uint64_t(ReuseFollowEvents);
  case AttrReuseOpportunistic: return uint64_t(ReuseOpportunistic);
  case AttrReuseInternalDeps: return uint64_t(ReuseInternalDeps);
  case AttrReleaseThreshold: return Threshold;
  case AttrReservedCurrent: return Reserved;
  case AttrReservedHigh: return ReservedHigh;
  case AttrUsedCurrent: return Used;
  case AttrUsedHigh: return UsedHigh;
  }
  return makeError(CUDA_ERROR_INVALID_VALUE, "unknown memory pool attribute " + std::to_string(Attr));
}

Status MemPool::setAttribute(int Attr, uint64_t Value) {
  std::lock_guard<std::mutex> L(M);
  switch (Attr) {
  // Any nonzero value enables a reuse policy; NVIDIA reads 1 back.
  case AttrReuseFollowEvents: ReuseFollowEvents = Value != 0; return Status::ok();
  case AttrReuseOpportunistic: ReuseOpportunistic = Value != 0; return Status::ok();
  case AttrReuseInternalDeps: ReuseInternalDeps = Value != 0; return Status::ok();
  case AttrReleaseThreshold: Threshold = Value; return Status::ok();
  case AttrReservedHigh:
  case AttrUsedHigh:
    // The watermarks can only be reset, which sets them to the current value.
    if (Value != 0)
      return makeError(CUDA_ERROR_INVALID_VALUE, "a high watermark can only be reset to 0");
    if (Attr == AttrReservedHigh)
      ReservedHigh = Reserved;
    else
      UsedHigh = Used;
    return Status::ok();
  case AttrReservedCurrent:
  case AttrUsedCurrent:
    return makeError(CUDA_ERROR_INVALID_VALUE, "memory pool attribute " + std::to_string(Attr) + " is read-only");
  }
  return makeError(CUDA_ERROR_INVALID_VALUE, "unknown memory pool attribute " + std::to_string(Attr));
}

unsigned MemPool::access(int Ordinal) const {
  if (Ordinal == Dev.Ordinal)
    return AccessReadWrite;
  std::lock_guard<std::mutex> L(M);
  auto It = PeerAccess.find(Ordinal);
  return It == PeerAccess.end() ? 0u : It->second;
}

Status MemPool::setAccess(int Ordinal, unsigned Flags) {
  if (Ordinal == Dev.Ordinal) {
    if (Flags != AccessReadWrite)
      return makeError(CUDA_ERROR_NOT_SUPPORTED, "the owning device's access to its pool cannot be changed");
    return Status::ok();
  }
  std::lock_guard<std::mutex> L(M);
  PeerAccess[Ordinal] = Flags;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Registry and the allocator's entry points
//===----------------------------------------------------------------------===//

namespace mempool {

static Ref<MemPool> defaultLocked(Registry &R, DeviceEntry &D) {
  Ref<MemPool> &P = R.Default[D.Ordinal];
  if (!P) {
    P = std::make_shared<MemPool>(D, 0, /*IsDefault=*/true);
    publish(P);
    R.All.push_back(P);
    ++PoolCount;
  }
  return P;
}

Ref<MemPool> defaultPool(DeviceEntry &D) {
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  return defaultLocked(R, D);
}

Ref<MemPool> currentPool(DeviceEntry &D) {
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  if (auto It = R.Current.find(D.Ordinal); It != R.Current.end() && It->second)
    return It->second;
  return defaultLocked(R, D);
}

void setCurrentPool(DeviceEntry &D, Ref<MemPool> P) {
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  R.Current[D.Ordinal] = std::move(P);
}

Ref<MemPool> create(DeviceEntry &D, size_t MaxSize) {
  auto P = std::make_shared<MemPool>(D, MaxSize, /*IsDefault=*/false);
  publish(P);
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  R.All.push_back(P);
  ++PoolCount;
  return P;
}

Status destroy(const Ref<MemPool> &P) {
  if (P->isDefault())
    return makeError(CUDA_ERROR_INVALID_VALUE, "a device's default memory pool cannot be destroyed");
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> L(R.M);
    if (auto It = R.Current.find(P->device().Ordinal); It != R.Current.end() && It->second == P)
      R.Current.erase(It); // The default pool is current again.
  }
  retire(P.get());
  P->markDestroyed();
  return Status::ok();
}

Status checkCapture(Stream &S) {
  if (capture::Outstanding.load(std::memory_order_acquire) == 0)
    return Status::ok();
  if (capture::query(S).Status == capture::State::None)
    return Status::ok();
  // checkStreamWait invalidates S's capture and reports the operation as
  // unsupported, which is what an uncapturable operation must do.
  Status St = capture::checkStreamWait(S, "stream-ordered allocation (graph memory nodes)");
  if (!St)
    return St;
  return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   "memory allocated outside a capture cannot be freed in it (only graph allocations)");
}

/// cuMemFreeAsync of a graph allocation: a free node when S captures,
/// else the allocation is freed in stream order (GraphMem.h).
static Status freeGraphAlloc(uintptr_t Ptr, Stream &S) {
  auto G = GraphAlloc::find(Ptr);
  if (!G)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the graph allocation was destroyed");
  if (Ref<Graph> Into = capture::capturingGraph(S)) {
    if (Into->freeNodeOf(*G))
      return makeError(CUDA_ERROR_INVALID_VALUE, "the allocation is already freed in the graph being captured");
    NodeWork W;
    W.Type = NodeType::MemFree;
    W.Ctx = S.contextRef();
    W.Alloc = G;
    if (auto R = capture::onMemNode(S, std::move(W)))
      return std::move(*R);
  }
  if (Status St = graphmem::freeOutside(*G); !St)
    return St;
  // Work enqueued before the free may still use the memory, and the free
  // may have dropped the last reference (the graph is gone): the stream
  // holds it until that work is done.
  return S.submit([&](Queue &Q) { return Q.enqueueHostFunction([Keep = G](CUresult) {}); });
}

Status freeAsync(uintptr_t Ptr, Stream &S) {
  auto A = alloctable::find(Ptr);
  if (!A || A->Base != Ptr)
    return makeError(CUDA_ERROR_INVALID_VALUE, "pointer is not the start of a live allocation");
  if (A->Kind == AllocKind::Graph)
    return freeGraphAlloc(Ptr, S);
  if (!A->Pool) {
    if (A->Kind == AllocKind::Managed)
      return makeError(CUDA_ERROR_NOT_SUPPORTED, "managed memory cannot be freed in stream order");
    if (A->Kind != AllocKind::Device)
      return makeError(CUDA_ERROR_INVALID_VALUE, "pointer is not device memory");
    if (Status St = checkCapture(S); !St)
      return St;
    // cuMemAlloc memory: NVIDIA frees it after S's earlier work; waiting
    // for that work here is the simple correct form of it.
    std::shared_ptr<Signal> Sig;
    Status St = S.submit([&](Queue &Q) -> Status {
      auto R = Q.enqueueSignal();
      if (!R)
        return R.takeError();
      Sig = std::move(*R);
      return Status::ok();
    });
    if (!St)
      return St;
    Sig->wait();
    return release(reinterpret_cast<void *>(Ptr), {AllocKind::Device});
  }
  if (Status St = checkCapture(S); !St)
    return St;
  // The free's position in S: the block is free for others once every
  // command before it has finished.
  std::shared_ptr<Signal> Sig;
  Status St = S.submit([&](Queue &Q) -> Status {
    auto R = Q.enqueueSignal();
    if (!R)
      return R.takeError();
    Sig = std::move(*R);
    return Status::ok();
  });
  if (!St)
    return St;
  if (!alloctable::erase(Ptr))
    return makeError(CUDA_ERROR_INVALID_VALUE, "allocation was freed concurrently");
  A->Ctx->forgetAllocation(reinterpret_cast<void *>(Ptr));
  A->Pool->giveBack(Ptr, S.id(), std::move(Sig));
  return Status::ok();
}

Status freeNow(const Allocation &A) {
  (void)A.Ctx->synchronize();
  if (!alloctable::erase(A.Base))
    return makeError(CUDA_ERROR_INVALID_VALUE, "allocation was freed concurrently");
  A.Ctx->forgetAllocation(reinterpret_cast<void *>(A.Base));
  A.Pool->giveBack(A.Base, 0, nullptr);
  return Status::ok();
}

void reclaim(const Allocation &A) { A.Pool->giveBack(A.Base, 0, nullptr); }

void onSynchronize(DeviceEntry &D) {
  if (PoolCount.load(std::memory_order_relaxed) == 0)
    return;
  std::vector<Ref<MemPool>> Pools;
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> L(R.M);
    for (auto &P : R.All)
      if (&P->device() == &D)
        Pools.push_back(P);
  }
  for (auto &P : Pools)
    P->releaseAboveThreshold();
  // Destroyed pools whose last block went are dropped (their destructor
  // runs once the last Ref, possibly ours, goes).
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  std::erase_if(R.All, [](const Ref<MemPool> &P) { return P->isFinished(); });
}

} // namespace mempool

} // namespace ferry::core
