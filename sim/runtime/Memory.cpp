//===- sim/runtime/Memory.cpp - pools, the range registry, copies ---------===//
/// \file
/// Memory as the simulated GPU sees it. Every allocation is host memory
/// (mmap), so the host reads and writes device memory directly, as with a
/// large BAR; what makes it a GPU's memory is the registry: the simulator
/// accepts a kernel's access only inside a live range its agent may touch
/// (pool allocations of its own device pool or allowed with
/// hsa_amd_agents_allow_access, kernarg memory, memory locked for it, code
/// object segments, its queues' packets). Ranges are exact: a kernel reading
/// one byte past an allocation faults here, where real hardware's page
/// granularity might let it pass; that strictness is the point.
///
/// The copy engine stands for ROCr's SDMA engines: hsa_amd_memory_async_copy
/// queues a job that runs once its dependency signals are 0, then
/// decrements the completion signal.
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace ferry::sim::rt {

/// Generations come from one process-wide counter, so a registry created
/// where a destroyed one lived never repeats a generation a thread cached.
static std::atomic<uint64_t> Generations{1};

void MemoryRegistry::bump() {
  Generation.store(Generations.fetch_add(1) + 1, std::memory_order_release);
}

bool MemoryRegistry::add(const Range &R) {
  if (R.Size == 0 || R.Base + R.Size < R.Base)
    return false;
  std::unique_lock<std::shared_mutex> L(Lock);
  auto Next = Ranges.lower_bound(R.Base);
  if (Next != Ranges.end() && Next->first < R.Base + R.Size)
    return false;
  if (Next != Ranges.begin()) {
    auto Prev = std::prev(Next);
    if (Prev->first + Prev->second.Size > R.Base)
      return false;
  }
  Ranges.emplace(R.Base, R);
  bump();
  return true;
}

bool MemoryRegistry::remove(uint64_t Base, Range *Out) {
  std::unique_lock<std::shared_mutex> L(Lock);
  auto It = Ranges.find(Base);
  if (It == Ranges.end())
    return false;
  if (Out)
    *Out = It->second;
  Ranges.erase(It);
  bump();
  return true;
}

bool MemoryRegistry::lockRange(uint64_t Base, uint64_t Size, uint64_t Bits) {
  if (Size == 0 || Base + Size < Base)
    return false;
  std::unique_lock<std::shared_mutex> L(Lock);
  auto Next = Ranges.lower_bound(Base);
  if (Next != Ranges.end() && Next->first == Base && Next->second.What == Range::Locked &&
      Next->second.Size == Size) {
    ++Next->second.LockCount;
    Next->second.Access |= Bits;
    bump(); // Access changed: valid()'s cached lookups are stale.
    return true;
  }
  if (Next != Ranges.end() && Next->first < Base + Size)
    return false;
  if (Next != Ranges.begin()) {
    auto Prev = std::prev(Next);
    if (Prev->first + Prev->second.Size > Base)
      return false;
  }
  Range R;
  R.Base = Base;
  R.Size = Size;
  R.What = Range::Locked;
  R.Access = Bits;
  R.LockCount = 1;
  Ranges.emplace(Base, R);
  bump();
  return true;
}

bool MemoryRegistry::unlockRange(uint64_t Base) {
  std::unique_lock<std::shared_mutex> L(Lock);
  auto It = Ranges.find(Base);
  if (It == Ranges.end() || It->second.What != Range::Locked)
    return false;
  if (--It->second.LockCount == 0) {
    Ranges.erase(It);
    bump();
  }
  return true;
}

bool MemoryRegistry::find(uint64_t Addr, Range &Out) const {
  std::shared_lock<std::shared_mutex> L(Lock);
  auto It = Ranges.upper_bound(Addr);
  if (It == Ranges.begin())
    return false;
  --It;
  if (Addr - It->first >= It->second.Size)
    return false;
  Out = It->second;
  return true;
}

namespace {
/// The last range one thread validated against: a kernel's accesses mostly
/// fall in the range of the previous one, and the registry rarely changes
/// while it runs.
struct LookupCache {
  const MemoryRegistry *Registry = nullptr;
  uint64_t Generation = 0, AgentBit = 0;
  uint64_t Base = 0, End = 0;
  bool Writable = false;
  int64_t Delta = 0;
};
thread_local LookupCache Cached;
} // namespace

uint8_t *MemoryRegistry::host(uint64_t Addr, uint64_t Size, bool Write, uint64_t AgentBit) const {
  if (Addr + Size < Addr)
    return nullptr;
  LookupCache &C = Cached;
  uint64_t Gen = generation();
  if (C.Registry == this && C.Generation == Gen && C.AgentBit == AgentBit && Addr >= C.Base &&
      Addr + Size <= C.End)
    return !Write || C.Writable ? reinterpret_cast<uint8_t *>(Addr + C.Delta) : nullptr;
  Range R;
  if (!find(Addr, R))
    return nullptr;
  if (Addr + Size > R.Base + R.Size)
    return nullptr;
  if (AgentBit && !(R.Access & AgentBit))
    return nullptr;
  C = {this, Gen, AgentBit, R.Base, R.Base + R.Size, R.Writable, R.Delta};
  return !Write || R.Writable ? reinterpret_cast<uint8_t *>(Addr + R.Delta) : nullptr;
}

bool MemoryRegistry::valid(uint64_t Addr, uint64_t Size, bool Write, uint64_t AgentBit) const {
  return host(Addr, Size, Write, AgentBit) != nullptr;
}

uint8_t *MemoryRegistry::hostOf(uint64_t Addr) const {
  Range R;
  return reinterpret_cast<uint8_t *>(find(Addr, R) ? Addr + R.Delta : Addr);
}

bool MemoryRegistry::allowAccess(uint64_t Addr, uint64_t Bits) {
  std::unique_lock<std::shared_mutex> L(Lock);
  auto It = Ranges.upper_bound(Addr);
  if (It == Ranges.begin())
    return false;
  --It;
  if (Addr - It->first >= It->second.Size)
    return false;
  It->second.Access |= Bits;
  bump();
  return true;
}

//===----------------------------------------------------------------------===//
// The copy engine.
//===----------------------------------------------------------------------===//

CopyEngine::CopyEngine(MemoryRegistry &M) : Memory(M) {
  Worker = std::thread([this] { run(); });
}

CopyEngine::~CopyEngine() {
  {
    std::lock_guard<std::mutex> L(Wake.M);
    Stopping = true;
  }
  Wake.CV.notify_all();
  Worker.join();
  for (CopyJob &J : Jobs)
    for (auto &D : J.Deps)
      D->removeWaiter(&Wake);
}

void CopyEngine::submit(CopyJob J) {
  // Registered before the job is visible, so no change of a dependency can
  // slip between the worker's check and its wait.
  for (auto &D : J.Deps)
    D->addWaiter(&Wake);
  {
    std::lock_guard<std::mutex> L(Wake.M);
    Jobs.push_back(std::move(J));
    ++Wake.Gen;
  }
  Wake.CV.notify_all();
}

void CopyEngine::run() {
  std::unique_lock<std::mutex> L(Wake.M);
  while (true) {
    if (Stopping)
      return;
    auto Ready = Jobs.end();
    for (auto It = Jobs.begin(); It != Jobs.end(); ++It) {
      // Ready once every dependency is 0; one that failed (negative)
      // fails the copy at once.
      bool Ok = true;
      for (auto &D : It->Deps)
        Ok = Ok && D->load() <= 0;
      if (Ok) {
        Ready = It;
        break;
      }
    }
    if (Ready == Jobs.end()) {
      uint64_t Seen = Wake.Gen;
      Wake.CV.wait(L, [&] { return Stopping || Wake.Gen != Seen; });
      continue;
    }
    CopyJob J = std::move(*Ready);
    Jobs.erase(Ready);
    L.unlock();
    for (auto &D : J.Deps)
      D->removeWaiter(&Wake);
    uint64_t Start = nowNs();
    // The memory may have gone since the copy was queued: a DMA engine
    // would fault. The copy is dropped, said so, and its completion signal
    // goes negative (CopyFailedValue), which the copies and barrier packets
    // that depend on it treat as an error too.
    uint64_t Dst = reinterpret_cast<uint64_t>(J.Dst), Src = reinterpret_cast<uint64_t>(J.Src);
    uint8_t *To = Memory.host(Dst, J.Size, true, 0);
    const uint8_t *From = Memory.host(Src, J.Size, false, 0);
    bool Failed = true;
    if (std::any_of(J.Deps.begin(), J.Deps.end(), [](auto &D) { return D->load() < 0; }))
      report("async copy of %zu bytes from %#lx to %#lx: a signal it depends on failed; "
             "nothing copied",
             J.Size, (unsigned long)Src, (unsigned long)Dst);
    else if (!To || !From)
      report("async copy of %zu bytes from %#lx to %#lx: memory freed before the copy ran; "
             "nothing copied",
             J.Size, (unsigned long)Src, (unsigned long)Dst);
    else if (J.Inject)
      report("async copy of %zu bytes from %#lx to %#lx: fault injected "
             "(FERRY_SIM_FAIL_COPY_BYTES); nothing copied",
             J.Size, (unsigned long)Src, (unsigned long)Dst);
    else {
      std::memmove(To, From, J.Size);
      Failed = false;
    }
    if (tracing())
      report("copy of %zu bytes from %#lx to %#lx %s", J.Size, (unsigned long)Src,
             (unsigned long)Dst, Failed ? "failed" : "done");
    if (Profiling.load()) {
      J.Completion->StartTs = Start;
      J.Completion->EndTs = nowNs();
    }
    if (Failed)
      J.Completion->store(CopyFailedValue);
    else
      J.Completion->update([](std::atomic<int64_t> &V) { return V.fetch_sub(1); });
    L.lock();
  }
}

} // namespace ferry::sim::rt

using namespace ferry::sim::rt;

namespace {
constexpr size_t Page = 4096;
size_t pageRound(size_t N) { return (N + Page - 1) & ~(Page - 1); }

/// The agent bits that may touch memory of P without agents_allow_access.
uint64_t defaultAccess(const Runtime &R, const Pool &P) {
  uint64_t Bits = P.Owner->bit() | R.Agents[0]->bit(); // The CPU reaches everything.
  if (P.GpuAccessByDefault)
    for (const auto &A : R.Agents)
      Bits |= A->bit();
  return Bits;
}
} // namespace

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t Handle,
                                                           size_t Size, uint32_t Flags,
                                                           void **Ptr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Pool *P = R->pool(Handle.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Ptr || Size == 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!P->AllocAllowed || Size > P->Size)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  // Pools account in pages, as the memory is handed out.
  size_t MapSize = pageRound(Size);
  uint64_t Used = P->Used.fetch_add(MapSize);
  if (Used + MapSize > P->Size) {
    P->Used.fetch_sub(MapSize);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  void *Mem = mapMemory(MapSize);
  if (!Mem) {
    P->Used.fetch_sub(MapSize);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  // Device memory the CPU may not touch (FERRY_SIM_HOST_ACCESS=trap): its
  // address is a reservation nothing can read or write, so a host access
  // faults; its bytes are a separate mapping only the simulator and the
  // copy engine reach (Range::Delta).
  void *Reserved = nullptr;
  if (R->TrapHostAccess && P->Owner->isGpu()) {
    Reserved = reserveInaccessible(MapSize);
    if (!Reserved) {
      unmapMemory(Mem, MapSize);
      P->Used.fetch_sub(MapSize);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
  }
  Range Rg;
  Rg.Base = reinterpret_cast<uint64_t>(Reserved ? Reserved : Mem);
  if (Reserved) {
    Rg.Delta = int64_t(reinterpret_cast<uint64_t>(Mem) - Rg.Base);
    Rg.Reservation = Reserved;
  }
  // Exact, except kernarg memory: LLVM merges a kernel's scalar argument
  // loads into wider ones that may read past kernarg_segment_size (e.g. an
  // s_load_dwordx4 for three dwords), which real hardware serves from the
  // page ROCr allocated; such a read must not fault here either.
  Rg.Size = P->Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT ? MapSize : Size;
  Rg.What = Range::PoolMemory;
  Rg.Access = defaultAccess(*R, *P);
  Rg.From = P;
  Rg.Mapping = Mem;
  Rg.MappingSize = MapSize;
  if (!R->Memory.add(Rg)) { // Cannot happen: mmap gave fresh addresses.
    unmapMemory(Mem, MapSize);
    unmapMemory(Reserved, MapSize);
    P->Used.fetch_sub(MapSize);
    return HSA_STATUS_ERROR;
  }
  *Ptr = reinterpret_cast<void *>(Rg.Base);
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_pool_free(void *Ptr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Ptr)
    return HSA_STATUS_SUCCESS;
  Range Rg;
  uint64_t Base = reinterpret_cast<uint64_t>(Ptr);
  if (!R->Memory.find(Base, Rg) || Rg.Base != Base || Rg.What != Range::PoolMemory) {
    report("hsa_amd_memory_pool_free(%p): not the start of a pool allocation", Ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  R->Memory.remove(Base);
  Rg.From->Used.fetch_sub(Rg.MappingSize);
  unmapMemory(Rg.Mapping, Rg.MappingSize);
  unmapMemory(Rg.Reservation, Rg.MappingSize);
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t NumAgents,
                                                          const hsa_agent_t *Agents,
                                                          const uint32_t *Flags, const void *Ptr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (NumAgents == 0 || !Agents || !Ptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t Bits = 0;
  for (uint32_t I = 0; I < NumAgents; ++I) {
    Agent *A = R->agent(Agents[I]);
    if (!A)
      return HSA_STATUS_ERROR_INVALID_AGENT;
    Bits |= A->bit();
  }
  Range Rg;
  uint64_t Base = reinterpret_cast<uint64_t>(Ptr);
  if (!R->Memory.find(Base, Rg) || Rg.Base != Base || Rg.What != Range::PoolMemory) {
    report("hsa_amd_agents_allow_access(%p): not the start of a pool allocation", Ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  R->Memory.allowAccess(Base, Bits);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t lockMemory(Runtime &R, void *HostPtr, size_t Size, hsa_agent_t *Agents,
                               int NumAgents, void **AgentPtr) {
  if (!HostPtr || Size == 0 || !AgentPtr || NumAgents < 0 || (NumAgents > 0 && !Agents))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t Bits = R.Agents[0]->bit();
  if (NumAgents == 0) { // Every GPU.
    for (const auto &A : R.Agents)
      Bits |= A->bit();
  }
  for (int I = 0; I < NumAgents; ++I) {
    Agent *A = R.agent(Agents[I]);
    if (!A)
      return HSA_STATUS_ERROR_INVALID_AGENT;
    Bits |= A->bit();
  }
  uint64_t Base = reinterpret_cast<uint64_t>(HostPtr);
  Range Rg;
  // Memory the runtime already gave out is reachable as it is (ROCr
  // returns the same pointer).
  if (R.Memory.find(Base, Rg) && Rg.What == Range::PoolMemory && Base + Size <= Rg.Base + Rg.Size) {
    *AgentPtr = HostPtr;
    return HSA_STATUS_SUCCESS;
  }
  // Locking the same range again counts (atomically: other threads lock,
  // unlock and copy from it meanwhile).
  if (!R.Memory.lockRange(Base, Size, Bits)) {
    report("hsa_amd_memory_lock(%p, %zu): overlaps memory already locked or allocated", HostPtr,
           Size);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  // Under the simulator the GPU reaches host memory at its own address.
  *AgentPtr = HostPtr;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_lock(void *HostPtr, size_t Size, hsa_agent_t *Agents,
                                                  int NumAgents, void **AgentPtr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  try {
    return lockMemory(*R, HostPtr, Size, Agents, NumAgents, AgentPtr);
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_unlock(void *HostPtr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  // Unlocking what was never locked is a no-op in ROCr.
  R->Memory.unlockRange(reinterpret_cast<uint64_t>(HostPtr));
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_pointer_info(const void *Ptr, hsa_amd_pointer_info_t *Info,
                                                   void *(*Alloc)(size_t), uint32_t *NumAgents,
                                                   hsa_agent_t **Agents) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Info || Info->size < offsetof(hsa_amd_pointer_info_t, agentBaseAddress))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_amd_pointer_info_t Out{};
  Out.size = uint32_t(std::min<size_t>(Info->size, sizeof Out));
  Range Rg;
  uint64_t Access = 0;
  if (!R->Memory.find(reinterpret_cast<uint64_t>(Ptr), Rg)) {
    Out.type = HSA_EXT_POINTER_TYPE_UNKNOWN; // Pageable: no agent may reach it.
  } else {
    Out.type = Rg.What == Range::Locked ? HSA_EXT_POINTER_TYPE_LOCKED : HSA_EXT_POINTER_TYPE_HSA;
    Out.agentBaseAddress = Out.hostBaseAddress = reinterpret_cast<void *>(Rg.Base);
    Out.sizeInBytes = Rg.Size;
    Agent *Owner = Rg.From ? Rg.From->Owner : R->Agents[0].get();
    Out.agentOwner = hsa_agent_t{reinterpret_cast<uint64_t>(Owner)};
    Out.global_flags = Rg.From ? Rg.From->Flags : uint32_t(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    Access = Rg.Access;
  }
  std::memcpy(Info, &Out, Out.size);
  std::vector<hsa_agent_t> List;
  for (const auto &A : R->Agents)
    if (Access & A->bit())
      List.push_back(hsa_agent_t{reinterpret_cast<uint64_t>(A.get())});
  if (NumAgents)
    *NumAgents = uint32_t(List.size());
  if (Agents && Alloc) {
    *Agents = static_cast<hsa_agent_t *>(Alloc(std::max<size_t>(1, List.size()) * sizeof(hsa_agent_t)));
    if (!*Agents)
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    std::copy(List.begin(), List.end(), *Agents);
  }
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_fill(void *Ptr, uint32_t Value, size_t Count) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  uint64_t Addr = reinterpret_cast<uint64_t>(Ptr);
  if (!Ptr || Addr % 4)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (Count == 0)
    return HSA_STATUS_SUCCESS;
  uint8_t *At = Count > (UINT64_MAX / 4) ? nullptr : R->Memory.host(Addr, Count * 4, true, 0);
  if (!At) {
    report("hsa_amd_memory_fill(%p, %zu dwords): not inside one allocation", Ptr, Count);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  auto *Out = reinterpret_cast<uint32_t *>(At);
  for (size_t I = 0; I < Count; ++I)
    Out[I] = Value;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_async_copy(void *Dst, hsa_agent_t DstAgent,
                                                        const void *Src, hsa_agent_t SrcAgent,
                                                        size_t Size, uint32_t NumDeps,
                                                        const hsa_signal_t *Deps,
                                                        hsa_signal_t Completion) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!R->agent(DstAgent) || !R->agent(SrcAgent))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Dst || !Src || !Completion.handle || (NumDeps && !Deps))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    CopyJob J;
    J.Dst = Dst;
    J.Src = Src;
    J.Size = Size;
    J.Inject = R->FailCopyBytes && Size == R->FailCopyBytes;
    J.Completion = R->signal(Completion);
    if (!J.Completion)
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
    for (uint32_t I = 0; I < NumDeps; ++I) {
      auto D = R->signal(Deps[I]);
      if (!D)
        return HSA_STATUS_ERROR_INVALID_SIGNAL;
      J.Deps.push_back(std::move(D));
    }
    // A DMA engine reaches only memory the runtime knows (pool allocations,
    // locked host memory): pageable memory would fault on real hardware.
    uint64_t D = reinterpret_cast<uint64_t>(Dst), S = reinterpret_cast<uint64_t>(Src);
    if (Size && !R->Memory.valid(D, Size, true, 0)) {
      report("hsa_amd_memory_async_copy: destination [%p, +%zu) is not inside one allocation or "
             "locked range",
             Dst, Size);
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    if (Size && !R->Memory.valid(S, Size, false, 0)) {
      report("hsa_amd_memory_async_copy: source [%p, +%zu) is not inside one allocation or "
             "locked range",
             Src, Size);
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    R->Copies->submit(std::move(J));
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_profiling_async_copy_enable(bool Enable) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  R->Copies->Profiling = Enable;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_profiling_get_async_copy_time(
    hsa_signal_t Handle, hsa_amd_profiling_async_copy_time_t *Time) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  auto S = R->signal(Handle);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!Time)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Time->start = S->StartTs.load();
  Time->end = S->EndTs.load();
  return HSA_STATUS_SUCCESS;
}

// The core API's allocation calls, over the same pools. System memory got
// this way is reachable by every agent, as HSA's fine-grained system region
// promises (the pool API instead wants agents_allow_access).
FERRY_SIM_EXPORT hsa_status_t hsa_memory_allocate(hsa_region_t Region, size_t Size, void **Ptr) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Pool *P = R->pool(Region.handle);
  if (!P)
    return HSA_STATUS_ERROR_INVALID_REGION;
  hsa_status_t S = hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{Region.handle}, Size, 0, Ptr);
  if (S == HSA_STATUS_SUCCESS && !P->Owner->isGpu()) {
    uint64_t All = 0;
    for (const auto &A : R->Agents)
      All |= A->bit();
    R->Memory.allowAccess(reinterpret_cast<uint64_t>(*Ptr), All);
  }
  return S;
}

FERRY_SIM_EXPORT hsa_status_t hsa_memory_free(void *Ptr) { return hsa_amd_memory_pool_free(Ptr); }

FERRY_SIM_EXPORT hsa_status_t hsa_memory_copy(void *Dst, const void *Src, size_t Size) {
  if (!runtime())
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Dst || !Src)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Every agent's memory is host memory here (device memory under
  // FERRY_SIM_HOST_ACCESS=trap at its Range::Delta).
  Runtime *R = runtime();
  std::memmove(R->Memory.hostOf(reinterpret_cast<uint64_t>(Dst)),
               R->Memory.hostOf(reinterpret_cast<uint64_t>(Src)), Size);
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_memory_register(void *Ptr, size_t Size) {
  if (!runtime())
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  return Ptr || !Size ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

FERRY_SIM_EXPORT hsa_status_t hsa_memory_deregister(void *Ptr, size_t Size) {
  return runtime() ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_NOT_INITIALIZED;
}

FERRY_SIM_EXPORT hsa_status_t hsa_memory_assign_agent(void *Ptr, hsa_agent_t Agent,
                                                      hsa_access_permission_t Access) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!R->agent(Agent))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  return Ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}
