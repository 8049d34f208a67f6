/// \file
/// Contexts: primary-context reference counting, teardown (CLS destructors,
/// allocations, streams), limits, context-local storage, the legacy default
/// stream's implicit synchronisation, and the per-thread context stack.
#include "libcuda/core/Core.h"
#include "libcuda/core/MemPool.h"
#include "libcuda/DeviceProfile.h"

#include "support/Log.h"

#include <algorithm>
#include <thread>

namespace ferry::core {

static std::atomic<uint64_t> NextContextId{1};

// NVIDIA's defaults on recent GPUs (cuCtxGetLimit right after creation).
static constexpr std::array<size_t, 10> DefaultLimits = {
    1024,           // CU_LIMIT_STACK_SIZE
    1 << 20,        // CU_LIMIT_PRINTF_FIFO_SIZE
    8 << 20,        // CU_LIMIT_MALLOC_HEAP_SIZE
    2,              // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH
    2048,           // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
    64,             // CU_LIMIT_MAX_L2_FETCH_GRANULARITY
    0,              // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
    0,              // CU_LIMIT_SHMEM_SIZE
    0,              // CU_LIMIT_CIG_ENABLED
    0,              // CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED
};

// CUlimit values (the core does not see the CUDA ABI).
enum : int { LimitStack = 0, LimitPrintfFifo = 1, LimitMallocHeap = 2, LimitPendingLaunch = 4, LimitL2Fetch = 5,
             LimitPersistingL2 = 6 };

Context::Context(DeviceEntry &Dev, bool Primary, unsigned Flags)
    : Object(Kind::Context), Dev(Dev), Primary(Primary), Id(NextContextId++), Flags(Flags),
      Limits(DefaultLimits) {
  // A device profile's contexts start with the limits its GPU's do.
  if (const DeviceProfile *Pr = Dev.Backend->properties().Profile) {
    Limits[LimitStack] = Pr->StackSize;
    Limits[LimitPrintfFifo] = Pr->PrintfFifoSize;
    Limits[LimitMallocHeap] = Pr->MallocHeapSize;
    Limits[LimitPendingLaunch] = Pr->PendingLaunchCount;
    Limits[LimitL2Fetch] = Pr->MaxL2FetchGranularity;
    Limits[LimitPersistingL2] = Pr->PersistingL2CacheSize;
  }
  if (!Primary) {
    Active = true;
    prepareCompiler();
  }
}

void Context::prepareCompiler() {
  if (Dev.Family)
    if (CompilerBackend *C = Dev.Family->compiler())
      C->prepare();
}

Context::~Context() = default;

void Context::retain() {
  {
    std::lock_guard<std::mutex> L(M);
    ++Retains;
    Active = true;
    Destroyed = false;
  }
  prepareCompiler();
}

Expected<unsigned> Context::release() {
  unsigned Left;
  {
    std::lock_guard<std::mutex> L(M);
    if (Retains == 0)
      return makeError(CUDA_ERROR_INVALID_CONTEXT, "primary context released more often than retained");
    Left = --Retains;
  }
  if (Left == 0)
    teardown();
  return Left;
}

unsigned Context::retainCount() const {
  std::lock_guard<std::mutex> L(M);
  return Retains;
}

bool Context::isActive() const {
  std::lock_guard<std::mutex> L(M);
  return Active;
}

void Context::runClsDestructors() {
  std::vector<std::pair<void *, ClsEntry>> Entries;
  {
    std::lock_guard<std::mutex> L(M);
    Entries.swap(Cls);
  }
  // Destructors may call back into the driver (cudart frees its per-context
  // state), so they run without our lock.
  for (auto &[Key, E] : Entries)
    if (E.Dtor)
      E.Dtor(static_cast<Object *>(this), Key, E.Value);
}

void Context::teardown() {
  // 1. Let queued work finish: memory is about to go away.
  (void)synchronize();
  // 2. Context-local storage destructors (they may still use the context).
  runClsDestructors();
  // 3. Streams: created ones become invalid handles, defaults are dropped.
  std::vector<Stream *> Owned;
  Ref<Stream> OldLegacy;
  std::unordered_map<std::thread::id, Ref<Stream>> OldPerThread;
  std::vector<void *> Allocs;
  {
    std::lock_guard<std::mutex> L(M);
    for (Stream *S : Streams)
      if (S->role() == Stream::Role::Created)
        Owned.push_back(S);
    // The default streams die below without unregistering themselves (only
    // created streams do), so forget them here: a later synchronize must
    // not touch them.
    std::erase_if(Streams, [](Stream *S) { return S->role() != Stream::Role::Created; });
    OldLegacy = std::move(Legacy);
    OldPerThread.swap(PerThread);
    Allocs.swap(Allocations);
  }
  for (Stream *S : Owned)
    retire(S);
  OldLegacy.reset();
  OldPerThread.clear();
  // 4. Memory this context allocated.
  for (void *P : Allocs) {
    auto A = alloctable::erase(uintptr_t(P));
    if (!A)
      continue;
    switch (A->Kind) {
    case AllocKind::Device:
      if (A->Pool) // Its pool owns the block.
        mempool::reclaim(*A);
      else
        (void)Dev.Backend->release(MemoryKind::Device, P, A->Bytes);
      break;
    case AllocKind::Host:
      (void)Dev.Backend->release(MemoryKind::HostPinned, P, A->Bytes);
      break;
    case AllocKind::Managed:
      (void)Dev.Backend->release(MemoryKind::Managed, P, A->Bytes);
      break;
    case AllocKind::Registered:
      (void)Dev.Backend->unregisterHost(P);
      break;
    case AllocKind::ModuleGlobal:
      break; // Owned by its module, never noted here.
    case AllocKind::Vmm: // Never noted by a context: cuMemUnmap owns it.
    case AllocKind::Graph: // Never noted: its graph node owns it.
      break;
    }
  }
  // 5. A fresh start: the sticky error and the settings go.
  Dev.Backend->clearFault();
  std::lock_guard<std::mutex> L(M);
  Limits = DefaultLimits;
  CacheConfig = 0;
  if (Primary) {
    Active = false;
    Retains = 0;
  }
}

void Context::destroy() {
  teardown();
  Destroyed = true;
  ctxstack::forget(this);
  retire(this);
}

void Context::activateLocked() { Active = true; }

Expected<Ref<Stream>> Context::legacyStream() {
  std::lock_guard<std::mutex> L(M);
  if (Legacy)
    return Legacy;
  auto Q = Dev.Backend->createQueue(0);
  if (!Q)
    return Q.takeError();
  activateLocked();
  // Made under M: Stream's constructor does not call back into us.
  Legacy = std::make_shared<Stream>(std::static_pointer_cast<Context>(shared_from_this()),
                                    std::move(*Q), Stream::Role::Legacy, 0u, 0);
  Streams.push_back(Legacy.get());
  return Legacy;
}

Expected<Ref<Stream>> Context::perThreadStream() {
  std::lock_guard<std::mutex> L(M);
  auto Tid = std::this_thread::get_id();
  if (auto It = PerThread.find(Tid); It != PerThread.end())
    return It->second;
  auto Q = Dev.Backend->createQueue(0);
  if (!Q)
    return Q.takeError();
  activateLocked();
  auto S = std::make_shared<Stream>(std::static_pointer_cast<Context>(shared_from_this()),
                                    std::move(*Q), Stream::Role::PerThread, 0u, 0);
  PerThread[Tid] = S;
  Streams.push_back(S.get());
  return S;
}

void Context::addStream(Stream *S) {
  std::lock_guard<std::mutex> L(M);
  activateLocked();
  Streams.push_back(S);
}

void Context::removeStream(Stream *S) {
  std::lock_guard<std::mutex> L(M);
  Streams.erase(std::remove(Streams.begin(), Streams.end(), S), Streams.end());
}

Status Context::synchronize() {
  std::vector<Ref<Object>> Live;
  {
    std::lock_guard<std::mutex> L(M);
    for (Stream *S : Streams)
      if (auto R = S->weak_from_this().lock())
        Live.push_back(std::move(R));
  }
  for (auto &O : Live)
    static_cast<Stream &>(*O).queue().drain();
  mempool::onSynchronize(Dev); // Pools trim to their release thresholds.
  return stickyError();
}

Status Context::stickyError() const { return Dev.Backend->fault(); }

Status Context::orderBeforeEnqueue(Stream &S) {
  // The legacy default stream waits for all blocking streams' earlier work,
  // and blocking streams wait for the legacy stream's earlier work
  // (CUDA programming guide, "implicit synchronization"). Idle queues need
  // no command, which keeps the common single-stream program free of it.
  std::vector<Ref<Object>> Others;
  Ref<Stream> Leg;
  {
    std::lock_guard<std::mutex> L(M);
    Leg = Legacy;
    if (S.role() == Stream::Role::Legacy) {
      for (Stream *B : Streams)
        if (B != &S && B->isBlocking() && !B->isIdle())
          if (auto R = B->weak_from_this().lock())
            Others.push_back(std::move(R));
    }
  }
  if (S.role() == Stream::Role::Legacy) {
    for (auto &O : Others) {
      auto Sig = static_cast<Stream &>(*O).queue().enqueueSignal();
      if (!Sig)
        return Sig.takeError();
      if (Status St = S.queue().enqueueWait(*Sig); !St)
        return St;
    }
    return Status::ok();
  }
  if (!S.isBlocking() || !Leg || Leg.get() == &S || Leg->isIdle())
    return Status::ok();
  auto Sig = Leg->queue().enqueueSignal();
  if (!Sig)
    return Sig.takeError();
  return S.queue().enqueueWait(*Sig);
}

Expected<size_t> Context::getLimit(int Limit) const {
  if (Limit < 0 || size_t(Limit) >= DefaultLimits.size())
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown limit " + std::to_string(Limit));
  std::lock_guard<std::mutex> L(M);
  return Limits[size_t(Limit)];
}

Status Context::setLimit(int Limit, size_t Value) {
  if (Limit < 0 || size_t(Limit) >= DefaultLimits.size())
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown limit " + std::to_string(Limit));
  const DeviceProperties &P = Dev.Backend->properties();
  // As an H100 answers: the fetch granularity is a byte count up to 128;
  // the persisting L2 size is rounded up to sixteenths of the L2, up to the
  // device's maximum (nothing is set aside: no backend has L2 to steer).
  if (Limit == LimitL2Fetch && Value > 128)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the L2 fetch granularity is at most 128 bytes");
  if (Limit == LimitPersistingL2) {
    size_t Max = size_t(std::max(P.maxPersistingL2(), 0));
    if (Value > Max)
      return makeError(CUDA_ERROR_INVALID_VALUE, "persisting L2 size " + std::to_string(Value) +
                                                     " exceeds the device's maximum of " + std::to_string(Max));
    size_t Unit = size_t(std::max(P.L2CacheSize / 16, 1));
    Value = std::min((Value + Unit - 1) / Unit * Unit, Max);
  }
  std::lock_guard<std::mutex> L(M);
  Limits[size_t(Limit)] = Value;
  return Status::ok();
}

void Context::clsInsert(void *Key, void *Value, void (*Dtor)(void *, void *, void *)) {
  std::lock_guard<std::mutex> L(M);
  for (auto &[K, E] : Cls)
    if (K == Key) {
      E = {Value, Dtor};
      return;
    }
  Cls.push_back({Key, ClsEntry{Value, Dtor}});
}

Status Context::clsRemove(void *Key) {
  std::lock_guard<std::mutex> L(M);
  for (auto It = Cls.begin(); It != Cls.end(); ++It)
    if (It->first == Key) {
      Cls.erase(It);
      return Status::ok();
    }
  return makeError(CUDA_ERROR_INVALID_VALUE, "context-local storage has no such key");
}

Expected<void *> Context::clsGet(void *Key) const {
  std::lock_guard<std::mutex> L(M);
  for (auto &[K, E] : Cls)
    if (K == Key)
      return E.Value;
  return makeError(CUDA_ERROR_INVALID_VALUE, "context-local storage has no such key");
}

void Context::noteAllocation(void *Ptr) {
  std::lock_guard<std::mutex> L(M);
  Allocations.push_back(Ptr);
}

void Context::forgetAllocation(void *Ptr) {
  std::lock_guard<std::mutex> L(M);
  auto It = std::find(Allocations.begin(), Allocations.end(), Ptr);
  if (It != Allocations.end()) {
    *It = Allocations.back();
    Allocations.pop_back();
  }
}

//===----------------------------------------------------------------------===//
// The per-thread context stack
//===----------------------------------------------------------------------===//

static std::vector<Ref<Context>> &stack() {
  thread_local std::vector<Ref<Context>> S;
  return S;
}

Ref<Context> ctxstack::current() {
  auto &S = stack();
  return S.empty() ? nullptr : S.back();
}

void ctxstack::setCurrent(Ref<Context> C) {
  auto &S = stack();
  if (!C) {
    if (!S.empty())
      S.pop_back();
    return;
  }
  if (S.empty())
    S.push_back(std::move(C));
  else
    S.back() = std::move(C);
}

void ctxstack::push(Ref<Context> C) { stack().push_back(std::move(C)); }

Ref<Context> ctxstack::pop() {
  auto &S = stack();
  if (S.empty())
    return nullptr;
  Ref<Context> C = std::move(S.back());
  S.pop_back();
  return C;
}

void ctxstack::forget(const Context *C) {
  auto &S = stack();
  S.erase(std::remove_if(S.begin(), S.end(), [&](auto &R) { return R.get() == C; }), S.end());
}

size_t ctxstack::depth() { return stack().size(); }

Expected<Ref<Context>> currentContext() {
  Ref<Context> C = ctxstack::current();
  if (!C)
    return makeError(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
  if (C->isDestroyed())
    return makeError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the current context was destroyed");
  return C;
}

Expected<Ref<Context>> contextOrCurrent(void *Handle) {
  if (!Handle)
    return currentContext();
  auto C = resolve<Context>(Handle, CUDA_ERROR_INVALID_CONTEXT);
  if (!C)
    return C;
  if ((*C)->isDestroyed())
    return makeError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context was destroyed");
  return C;
}

} // namespace ferry::core
