/// \file
/// Graph allocations and the graph memory counters (see GraphMem.h).
#include "libcuda/core/GraphMem.h"

#include "support/Log.h"

#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <set>

namespace ferry::core {

/// The process-wide state: every graph allocation by base address, and
/// the counters of each device (by ordinal).
struct GraphMemState {
  struct Counters {
    uint64_t Used = 0, UsedHigh = 0, Reserved = 0, ReservedHigh = 0;
  };
  std::mutex M;
  std::map<uintptr_t, std::weak_ptr<GraphAlloc>> Allocs;
  std::map<int, Counters> Devices;
  /// The live allocations, kept alive past their graphs until freed.
  std::map<const GraphAlloc *, std::shared_ptr<GraphAlloc>> LiveRefs;
  /// References dropped under M; released after it is unlocked (the last
  /// one destroys the allocation, which takes M).
  std::vector<std::shared_ptr<GraphAlloc>> Dropped;

  Counters &of(const GraphAlloc &A) { return Devices[A.context().device().Ordinal]; }
  void setLive(GraphAlloc &A, bool Live) {
    Counters &C = of(A);
    if (Live && !A.Live) {
      C.Used += A.bytes();
      C.UsedHigh = std::max(C.UsedHigh, C.Used);
      if (!A.Mapped) {
        A.Mapped = true;
        C.Reserved += A.bytes();
        C.ReservedHigh = std::max(C.ReservedHigh, C.Reserved);
      }
      LiveRefs[&A] = A.shared_from_this();
    } else if (!Live && A.Live) {
      C.Used -= A.bytes();
      if (auto It = LiveRefs.find(&A); It != LiveRefs.end()) {
        Dropped.push_back(std::move(It->second));
        LiveRefs.erase(It);
      }
    }
    A.Live = Live;
  }
};

static GraphMemState &state() {
  // Leaked: graphs may be destroyed from atexit handlers.
  static GraphMemState *S = new GraphMemState;
  return *S;
}

Expected<std::shared_ptr<GraphAlloc>> GraphAlloc::create(Ref<Context> Ctx, size_t Bytes,
                                                         const CUmemPoolProps &Props,
                                                         std::vector<CUmemAccessDesc> Access) {
  if (Bytes == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "a graph allocation of 0 bytes");
  auto P = Ctx->device().Backend->allocate(MemoryKind::Device, Bytes);
  if (!P)
    return P.takeError();
  Allocation A;
  A.Base = uintptr_t(*P);
  A.Bytes = Bytes;
  A.Kind = AllocKind::Graph;
  A.DeviceOrdinal = Ctx->device().Ordinal;
  A.Ctx = Ctx.get();
  A.Id = alloctable::nextId();
  alloctable::insert(A);
  auto G = std::make_shared<GraphAlloc>(std::move(Ctx), *P, Bytes);
  G->Props = Props;
  G->Access = std::move(Access);
  GraphMemState &S = state();
  std::lock_guard<std::mutex> L(S.M);
  S.Allocs[A.Base] = G;
  return G;
}

GraphAlloc::~GraphAlloc() {
  GraphMemState &S = state();
  {
    std::lock_guard<std::mutex> L(S.M);
    S.setLive(*this, false);
    if (Mapped)
      S.of(*this).Reserved -= Bytes;
    S.Allocs.erase(uintptr_t(Ptr));
  }
  // The last owner is gone: its graph, its executable graph and every
  // launch of it (a launch holds its allocations until it completes).
  alloctable::erase(uintptr_t(Ptr));
  (void)Ctx->device().Backend->release(MemoryKind::Device, Ptr, Bytes);
}

std::shared_ptr<GraphAlloc> GraphAlloc::find(uintptr_t Ptr) {
  GraphMemState &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto It = S.Allocs.find(Ptr);
  return It == S.Allocs.end() ? nullptr : It->second.lock();
}

namespace graphmem {

/// Releases what the state dropped under its lock, after unlocking.
static void releaseDropped(GraphMemState &S, std::unique_lock<std::mutex> &L) {
  std::vector<std::shared_ptr<GraphAlloc>> Drop;
  Drop.swap(S.Dropped);
  L.unlock();
}

Status apply(std::span<const Op> Ops, bool AutoFree) {
  GraphMemState &S = state();
  std::unique_lock<std::mutex> L(S.M);
  // Validate on a copy of the live states first: a refused launch changes
  // nothing.
  std::map<GraphAlloc *, bool> Live;
  auto LiveOf = [&](GraphAlloc *A) {
    auto It = Live.find(A);
    return It == Live.end() ? A->Live : It->second;
  };
  for (const Op &O : Ops) {
    if (O.Alloc && LiveOf(O.A) && !AutoFree)
      return makeError(
          CUDA_ERROR_INVALID_VALUE,
          "the graph's allocation from its last launch has not been freed (free it, or "
          "instantiate with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)");
    if (!O.Alloc && !LiveOf(O.A))
      return makeError(CUDA_ERROR_INVALID_VALUE, "a free node frees memory that is not allocated");
    Live[O.A] = O.Alloc;
  }
  for (const Op &O : Ops) {
    if (O.Alloc)
      S.setLive(*O.A, false); // AUTO_FREE_ON_LAUNCH: freed just before.
    S.setLive(*O.A, O.Alloc);
  }
  releaseDropped(S, L);
  return Status::ok();
}

Status freeOutside(GraphAlloc &A) {
  GraphMemState &S = state();
  std::unique_lock<std::mutex> L(S.M);
  if (!A.Live)
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "the graph allocation is not allocated (never launched, or freed)");
  S.setLive(A, false);
  releaseDropped(S, L);
  return Status::ok();
}

uint64_t attribute(int Ordinal, int Attr) {
  GraphMemState &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto &C = S.Devices[Ordinal];
  switch (Attr) {
  case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
    return C.Used;
  case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
    return C.UsedHigh;
  case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
    return C.Reserved;
  default:
    return C.ReservedHigh;
  }
}

Status resetHigh(int Ordinal, int Attr) {
  GraphMemState &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto &C = S.Devices[Ordinal];
  if (Attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
    C.UsedHigh = C.Used;
  else if (Attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
    C.ReservedHigh = C.Reserved;
  else
    return makeError(CUDA_ERROR_INVALID_VALUE, "only the high watermark attributes can be set");
  return Status::ok();
}

Status trim(DeviceEntry &D) {
  GraphMemState &S = state();
  // Work already enqueued may still use memory that is freed in stream
  // order but not yet in time: let it finish before the pages go.
  // (Allocations are held outside the lock: dropping the last reference
  // destroys one, which takes the lock.)
  std::vector<std::shared_ptr<GraphAlloc>> Keep;
  std::set<Context *> Ctxs;
  {
    std::lock_guard<std::mutex> L(S.M);
    for (auto &[Base, W] : S.Allocs)
      if (auto A = W.lock(); A && &A->context().device() == &D && A->Mapped && !A->Live) {
        Ctxs.insert(&A->context());
        Keep.push_back(std::move(A));
      }
  }
  for (Context *C : Ctxs)
    (void)C->synchronize();
  bool Host = D.Family && D.Family->name() == "host";
  std::lock_guard<std::mutex> L(S.M);
  for (auto &A : Keep) {
    uintptr_t Base = uintptr_t(A->ptr());
    if (&A->context().device() != &D || !A->Mapped || A->Live)
      continue;
    if (Host) {
      // Whole pages inside the allocation go back to the kernel; they read
      // as zeros when next touched.
      uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
      uintptr_t Lo = (Base + Page - 1) & ~(Page - 1), Hi = (Base + A->bytes()) & ~(Page - 1);
      if (Hi > Lo)
        (void)madvise(reinterpret_cast<void *>(Lo), Hi - Lo, MADV_DONTNEED);
    } else {
      // Another backend cannot drop pages and keep the address: the
      // memory stays, and so does its place in the reserved counter.
      continue;
    }
    A->Mapped = false;
    S.of(*A).Reserved -= A->bytes();
  }
  return Status::ok();
}

} // namespace graphmem
} // namespace ferry::core
