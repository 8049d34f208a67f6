//===- sim/runtime/Queues.cpp - user-mode AQL queues and their processor --===//
/// \file
/// A queue is what ROCr gives a client: a ring of 64-byte AQL packets in
/// memory the client writes directly, an amd_queue_t holding the read and
/// write indexes, and a doorbell signal. The packet processor (one thread per
/// queue, standing in for the GPU's command processor) follows the AQL
/// protocol strictly, so a client that gets it wrong finds out here:
///  - it takes the packet at the read index only after the doorbell was rung
///    with that index or a later one, and only once the packet's header was
///    published (type no longer INVALID; read with acquire, so a client that
///    wrote the header before the body, or without release, is racing);
///  - a doorbell value beyond the write index, a packet type it cannot run,
///    or a malformed dispatch (zero sizes, more than 1024 work-items, a
///    setup of 0 or >3 dimensions, an unused dimension not 1, an LDS size
///    beyond the agent's, a kernel object that is no loaded kernel
///    descriptor) is reported to the queue's error callback, and the queue
///    stops, as ROCr's does after an error;
///  - kernel dispatches run through the agent's Simulator, one at a time per
///    agent; a fault (DispatchResult not Ok) goes to the callback with the
///    status ROCr would give (memory violation, illegal instruction,
///    exception for s_trap) and stops the queue. As in ROCr, the completion
///    signal of a packet that failed is never decremented.
/// Packets run one after another, so the barrier bit always holds; fences
/// are performed as C++ fences (the simulator's memory is the host's).
/// After a packet: header INVALID, read index advanced, then the completion
/// signal decremented (a client that waited on it sees the index moved).
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include <cstring>

namespace ferry::sim::rt {

namespace {
std::atomic<uint64_t> NextQueueId{1};

uint16_t loadHeader(const void *Slot) {
  return __atomic_load_n(static_cast<const uint16_t *>(Slot), __ATOMIC_ACQUIRE);
}

const char *packetTypeName(unsigned T) {
  switch (T) {
  case HSA_PACKET_TYPE_VENDOR_SPECIFIC:
    return "vendor-specific";
  case HSA_PACKET_TYPE_INVALID:
    return "invalid";
  case HSA_PACKET_TYPE_KERNEL_DISPATCH:
    return "kernel dispatch";
  case HSA_PACKET_TYPE_BARRIER_AND:
    return "barrier-AND";
  case HSA_PACKET_TYPE_AGENT_DISPATCH:
    return "agent dispatch";
  case HSA_PACKET_TYPE_BARRIER_OR:
    return "barrier-OR";
  }
  return "unknown";
}
} // namespace

Queue::Queue(Runtime &Rt, Agent &A, uint32_t Size, hsa_queue_type32_t Type,
             void (*Callback)(hsa_status_t, hsa_queue_t *, void *), void *Data)
    : Rt(Rt), Owner(A), Size(Size), Type(Type), Callback(Callback), CallbackData(Data),
      Id(NextQueueId.fetch_add(1)) {}

hsa_status_t Queue::start() {
  Ring = mapMemory(size_t(Size) * 64);
  Amd = static_cast<amd_queue_t *>(mapMemory(4096));
  if (!Ring || !Amd)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  // Every slot starts INVALID, as ROCr leaves a new ring.
  for (uint32_t I = 0; I < Size; ++I)
    *reinterpret_cast<uint16_t *>(static_cast<uint8_t *>(Ring) + size_t(I) * 64) =
        HSA_PACKET_TYPE_INVALID;
  Doorbell = std::make_shared<Signal>(0);
  Doorbell->DoorbellOf = this;
  hsa_queue_t &Q = Amd->hsa_queue;
  Q.type = Type;
  Q.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  Q.base_address = Ring;
  Q.doorbell_signal = hsa_signal_t{reinterpret_cast<uint64_t>(Doorbell.get())};
  Q.size = Size;
  Q.id = Id;
  Amd->write_dispatch_id = 0;
  Amd->read_dispatch_id = 0;
  Amd->max_cu_id = Owner.Spec->ComputeUnits - 1;
  Amd->max_wave_id = Owner.Spec->MaxWavesPerCu - 1;
  Amd->queue_properties = AMD_QUEUE_PROPERTIES_IS_PTR64;
  std::string Why;
  if (Simulator *Sim = Owner.simulator(Why)) {
    Amd->group_segment_aperture_base_hi = uint32_t(Sim->sharedApertureBase() >> 32);
    Amd->private_segment_aperture_base_hi = uint32_t(Sim->privateApertureBase() >> 32);
  }
  // The GPU reads packets (dispatch_ptr) and the queue (queue_ptr).
  Range R;
  R.What = Range::QueueMemory;
  R.Access = Owner.bit() | Rt.Agents[0]->bit();
  R.Base = reinterpret_cast<uint64_t>(Ring);
  R.Size = uint64_t(Size) * 64;
  if (!Rt.Memory.add(R))
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  R.Base = reinterpret_cast<uint64_t>(Amd);
  R.Size = sizeof(amd_queue_t);
  if (!Rt.Memory.add(R))
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  Processor = std::thread([this] { run(); });
  return HSA_STATUS_SUCCESS;
}

Queue::~Queue() {
  Stopping = true;
  Wake.poke();
  if (Processor.joinable()) {
    // An error callback that destroys its own queue runs on the processor.
    if (Processor.get_id() == std::this_thread::get_id())
      Processor.detach();
    else
      Processor.join();
  }
  if (Ring) {
    Rt.Memory.remove(reinterpret_cast<uint64_t>(Ring));
    unmapMemory(Ring, size_t(Size) * 64);
  }
  if (Amd) {
    Rt.Memory.remove(reinterpret_cast<uint64_t>(Amd));
    unmapMemory(Amd, 4096);
  }
}

void Queue::ring(int64_t Value) {
  uint64_t Write = __atomic_load_n(&Amd->write_dispatch_id, __ATOMIC_ACQUIRE);
  if (Value >= 0 && uint64_t(Value) >= Write) {
    int64_t None = -1;
    BadDoorbell.compare_exchange_strong(None, Value);
  } else {
    int64_t Old = Rung.load();
    while (Value > Old && !Rung.compare_exchange_weak(Old, Value)) {
    }
  }
  Wake.poke();
}

bool Queue::waitForPacket(uint64_t Index, uint16_t &Header) {
  void *Slot = static_cast<uint8_t *>(Ring) + (Index % Size) * 64;
  std::unique_lock<std::mutex> L(Wake.M);
  while (true) {
    if (Stopping || BadDoorbell.load() >= 0)
      return !Stopping;
    if (Rung.load() >= int64_t(Index)) {
      Header = loadHeader(Slot);
      if ((Header & 0xff) != HSA_PACKET_TYPE_INVALID)
        return true;
      // Rung, but the header is not published yet. A memory write wakes no
      // one, so look again shortly (the only polling here, and only for a
      // client that rings before publishing).
      Wake.CV.wait_for(L, std::chrono::microseconds(200));
      continue;
    }
    uint64_t Seen = Wake.Gen;
    Wake.CV.wait(L, [&] { return Wake.Gen != Seen || Stopping; });
  }
}

bool Queue::waitDeps(const std::vector<std::shared_ptr<Signal>> &Deps, bool And, bool &Failed) {
  Failed = false;
  if (Deps.empty())
    return true;
  for (auto &D : Deps)
    D->addWaiter(&Wake);
  bool Done = false;
  {
    std::unique_lock<std::mutex> L(Wake.M);
    while (!Stopping) {
      bool All = true, Any = false;
      for (auto &D : Deps) {
        int64_t V = D->load();
        bool Zero = V == 0;
        All = All && Zero;
        Any = Any || Zero;
        Failed = Failed || V < 0;
      }
      // A negative dependency is a failed command (a copy the copy engine
      // could not do, Memory.cpp): an AND barrier fails at once.
      if ((And && Failed) || (And ? All : Any)) {
        Done = true;
        break;
      }
      uint64_t Seen = Wake.Gen;
      Wake.CV.wait(L, [&] { return Wake.Gen != Seen || Stopping; });
    }
  }
  for (auto &D : Deps)
    D->removeWaiter(&Wake);
  return Done;
}

void Queue::fail(hsa_status_t S, const std::string &Why) {
  const char *Text = "";
  hsa_status_string(S, &Text);
  report("queue %lu on %s stopped: %s [%s]", (unsigned long)Id, Owner.Spec->Name, Why.c_str(),
         Text);
  if (Callback)
    Callback(S, hsaQueue(), CallbackData);
}

void Queue::retire(uint64_t Index, const std::shared_ptr<Signal> &Completion, uint64_t Start) {
  void *Slot = static_cast<uint8_t *>(Ring) + (Index % Size) * 64;
  __atomic_store_n(static_cast<uint16_t *>(Slot), uint16_t(HSA_PACKET_TYPE_INVALID),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&Amd->read_dispatch_id, Index + 1, __ATOMIC_RELEASE);
  if (!Completion)
    return;
  if (Profiling.load()) {
    Completion->StartTs = Start;
    Completion->EndTs = nowNs();
  }
  Completion->update([](std::atomic<int64_t> &V) { return V.fetch_sub(1); });
}

hsa_status_t Queue::dispatch(uint64_t Index, const hsa_kernel_dispatch_packet_t &P,
                             std::string &Why) {
  const GpuSpec &G = *Owner.Spec;
  unsigned Dims = (P.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) & 3;
  auto Bad = [&](std::string Text) {
    Why = "kernel dispatch packet " + std::to_string(Index) + ": " + Text;
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  };
  if (Dims < 1 || Dims > 3)
    return Bad("setup gives " + std::to_string(Dims) + " dimensions (1 to 3 allowed)");
  uint32_t Wg[3] = {P.workgroup_size_x, P.workgroup_size_y, P.workgroup_size_z};
  uint32_t Grid[3] = {P.grid_size_x, P.grid_size_y, P.grid_size_z};
  static const char Axis[3] = {'x', 'y', 'z'};
  for (unsigned I = 0; I < 3; ++I) {
    if (!Wg[I] || !Grid[I])
      return Bad(std::string("zero ") + (Wg[I] ? "grid" : "workgroup") + " size in " + Axis[I]);
    if (I >= Dims && (Wg[I] != 1 || Grid[I] != 1))
      return Bad(std::string("a ") + std::to_string(Dims) + "-dimensional dispatch with size " +
                 std::to_string(Wg[I]) + "/" + std::to_string(Grid[I]) + " in " + Axis[I]);
  }
  uint64_t Items = uint64_t(Wg[0]) * Wg[1] * Wg[2];
  if (Items > 1024)
    return Bad("workgroup of " + std::to_string(Items) + " work-items (at most 1024)");
  if (P.group_segment_size > G.LdsBytes) {
    Why = "kernel dispatch packet " + std::to_string(Index) + ": group segment of " +
          std::to_string(P.group_segment_size) + " bytes; " + G.Name + " has " +
          std::to_string(G.LdsBytes);
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
  Range Code;
  if (!P.kernel_object || P.kernel_object % 64 || !Rt.Memory.find(P.kernel_object, Code) ||
      Code.What != Range::CodeSegment || !(Code.Access & Owner.bit()) ||
      P.kernel_object + 64 > Code.Base + Code.Size) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%#lx", (unsigned long)P.kernel_object);
    return Bad(std::string("kernel_object ") + Buf + " is not a kernel descriptor loaded for " +
               G.Name);
  }
  std::string NoSim;
  Simulator *Sim = Owner.simulator(NoSim);
  if (!Sim) {
    Why = NoSim;
    return HSA_STATUS_ERROR_INVALID_ISA;
  }
  Dispatch D;
  D.PacketAddr = reinterpret_cast<uint64_t>(Ring) + (Index % Size) * 64;
  D.QueueAddr = reinterpret_cast<uint64_t>(Amd);
  D.KernelObject = P.kernel_object;
  D.KernargAddr = reinterpret_cast<uint64_t>(P.kernarg_address);
  D.Dims = Dims;
  for (unsigned I = 0; I < 3; ++I) {
    D.WorkgroupSize[I] = Wg[I];
    D.GridSize[I] = Grid[I];
  }
  D.GroupSegmentSize = P.group_segment_size;
  D.PrivateSegmentSize = P.private_segment_size;
  D.DispatchId = Index;
  D.ComputeUnits = Owner.Spec->ComputeUnits;
  std::string Name = Rt.kernelName(P.kernel_object);
  D.KernelName = Name.empty() ? nullptr : Name.c_str();
  DispatchResult Result;
  {
    std::lock_guard<std::mutex> L(Owner.dispatchLock());
    Result = Sim->run(D);
  }
  if (tracing() && D.KernargAddr && Rt.Memory.valid(D.KernargAddr, 64, false, 0)) {
    const auto *K = reinterpret_cast<const uint32_t *>(D.KernargAddr);
    report("queue %lu: kernarg %08x %08x %08x %08x %08x %08x %08x %08x | %08x %08x %08x %08x "
           "%08x %08x %08x %08x",
           (unsigned long)Id, K[0], K[1], K[2], K[3], K[4], K[5], K[6], K[7], K[8], K[9], K[10],
           K[11], K[12], K[13], K[14], K[15]);
  }
  if (tracing())
    report("queue %lu: dispatch %lu of %s: grid %ux%ux%u, workgroup %ux%ux%u, kernarg %#lx, "
           "LDS %u, scratch %u: %s, %lu wave instructions",
           (unsigned long)Id, (unsigned long)Index, Name.empty() ? "?" : Name.c_str(), Grid[0],
           Grid[1], Grid[2], Wg[0], Wg[1], Wg[2], (unsigned long)D.KernargAddr,
           P.group_segment_size, P.private_segment_size,
           Result.Status == DispatchResult::Ok ? "ok" : "failed",
           (unsigned long)Result.Instructions);
  switch (Result.Status) {
  case DispatchResult::Ok:
    return HSA_STATUS_SUCCESS;
  case DispatchResult::MemoryFault:
    Why = Result.Message; // Names the access, PC, target and kernel.
    return hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
  case DispatchResult::IllegalInstruction:
    Why = Result.Message;
    return hsa_status_t(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
  case DispatchResult::Trap:
    Why = Result.Message;
    return HSA_STATUS_ERROR_EXCEPTION;
  case DispatchResult::Unsupported:
    Why = "not simulated: " + Result.Message;
    return hsa_status_t(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
  }
  Why = "unknown dispatch result";
  return HSA_STATUS_ERROR;
}

hsa_status_t Queue::process(uint64_t Index, uint16_t Header, std::string &Why) {
  uint8_t *Slot = static_cast<uint8_t *>(Ring) + (Index % Size) * 64;
  unsigned Type = Header & 0xff;
  if (Type != HSA_PACKET_TYPE_KERNEL_DISPATCH && Type != HSA_PACKET_TYPE_BARRIER_AND &&
      Type != HSA_PACKET_TYPE_BARRIER_OR) {
    Why = "packet " + std::to_string(Index) + " has type " + std::to_string(Type) + " (" +
          packetTypeName(Type) + "), which a GPU agent's queue does not run";
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  }
  unsigned Acquire = (Header >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) & 3;
  unsigned Release = (Header >> HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) & 3;
  if (Acquire == 3 || Release == 3) {
    Why = "packet " + std::to_string(Index) + " has fence scope 3 (reserved)";
    return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
  }
  // The body was read after the header's acquire; copy it once so a client
  // overwriting the slot early cannot change it under us.
  uint8_t Body[64];
  std::memcpy(Body, Slot, 64);
  std::memcpy(Body, &Header, 2);
  hsa_signal_t CompletionHandle;
  std::memcpy(&CompletionHandle, Body + 56, 8);
  std::shared_ptr<Signal> Completion;
  if (CompletionHandle.handle) {
    Completion = Rt.signal(CompletionHandle);
    if (!Completion) {
      Why = "packet " + std::to_string(Index) + ": completion_signal is not a live signal";
      return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    }
  }
  uint64_t Start = nowNs();
  if (Acquire != HSA_FENCE_SCOPE_NONE)
    std::atomic_thread_fence(std::memory_order_acquire);
  if (Type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
    hsa_kernel_dispatch_packet_t P;
    std::memcpy(&P, Body, 64);
    if (hsa_status_t S = dispatch(Index, P, Why); S != HSA_STATUS_SUCCESS)
      return S;
  } else {
    hsa_barrier_and_packet_t P; // Same layout as barrier-OR.
    std::memcpy(&P, Body, 64);
    std::vector<std::shared_ptr<Signal>> Deps;
    for (unsigned I = 0; I < 5; ++I) {
      if (!P.dep_signal[I].handle)
        continue;
      auto D = Rt.signal(P.dep_signal[I]);
      if (!D) {
        Why = "barrier packet " + std::to_string(Index) + ": dep_signal[" + std::to_string(I) +
              "] is not a live signal";
        return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
      }
      Deps.push_back(std::move(D));
    }
    bool DepFailed = false;
    if (!waitDeps(Deps, Type == HSA_PACKET_TYPE_BARRIER_AND, DepFailed))
      return HSA_STATUS_SUCCESS; // Stopping: the run loop sees it.
    if (DepFailed && Type == HSA_PACKET_TYPE_BARRIER_AND) {
      Why = "barrier-AND packet " + std::to_string(Index) +
            ": a signal it depends on failed (negative: an async copy that faulted)";
      return HSA_STATUS_ERROR;
    }
    if (tracing())
      report("queue %lu: barrier-%s %lu on %zu signals done", (unsigned long)Id,
             Type == HSA_PACKET_TYPE_BARRIER_AND ? "AND" : "OR", (unsigned long)Index,
             Deps.size());
  }
  if (Release != HSA_FENCE_SCOPE_NONE)
    std::atomic_thread_fence(std::memory_order_release);
  if (!Stopping)
    retire(Index, Completion, Start);
  return HSA_STATUS_SUCCESS;
}

void Queue::run() {
  uint64_t Index = __atomic_load_n(&Amd->read_dispatch_id, __ATOMIC_ACQUIRE);
  while (true) {
    uint16_t Header = 0;
    if (!waitForPacket(Index, Header))
      return;
    if (int64_t Bad = BadDoorbell.load(); Bad >= 0) {
      fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
           "doorbell rung with " + std::to_string(Bad) + ", beyond the write index " +
               std::to_string(__atomic_load_n(&Amd->write_dispatch_id, __ATOMIC_ACQUIRE)));
      return;
    }
    std::string Why;
    hsa_status_t S;
    try {
      S = process(Index, Header, Why);
    } catch (const std::exception &E) {
      S = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
      Why = E.what();
    }
    if (S != HSA_STATUS_SUCCESS) {
      fail(S, Why);
      return;
    }
    if (Stopping)
      return;
    ++Index;
  }
}

} // namespace ferry::sim::rt

using namespace ferry::sim::rt;

namespace {
amd_queue_t *amdOf(const hsa_queue_t *Q) {
  return reinterpret_cast<amd_queue_t *>(const_cast<hsa_queue_t *>(Q));
}
} // namespace

FERRY_SIM_EXPORT hsa_status_t hsa_queue_create(hsa_agent_t AgentHandle, uint32_t Size,
                                               hsa_queue_type32_t Type,
                                               void (*Callback)(hsa_status_t, hsa_queue_t *,
                                                                void *),
                                               void *Data, uint32_t PrivateSegmentSize,
                                               uint32_t GroupSegmentSize, hsa_queue_t **Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(AgentHandle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!A->isGpu())
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  if (!Out || Size == 0 || (Size & (Size - 1)) ||
      (Type != HSA_QUEUE_TYPE_MULTI && Type != HSA_QUEUE_TYPE_SINGLE &&
       Type != HSA_QUEUE_TYPE_COOPERATIVE))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (Size < 64 || Size > (1u << 17))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    auto Q = std::make_unique<Queue>(*R, *A, Size, Type, Callback, Data);
    if (hsa_status_t S = Q->start(); S != HSA_STATUS_SUCCESS)
      return S;
    *Out = Q->hsaQueue();
    R->addQueue(std::move(Q));
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_queue_destroy(hsa_queue_t *Q) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Q)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::unique_ptr<Queue> Gone = R->removeQueue(Q);
  return Gone ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_QUEUE;
}

FERRY_SIM_EXPORT hsa_status_t hsa_queue_inactivate(hsa_queue_t *Q) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Q)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Queue *Mine = R->queue(Q);
  if (!Mine)
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  Mine->inactivate();
  return HSA_STATUS_SUCCESS;
}

// Index operations. As in ROCr they do not look the queue up: a client calls
// them for every packet.
#define FERRY_SIM_LOAD_INDEX(Which, Field, Suffix)                                               \
  FERRY_SIM_EXPORT uint64_t hsa_queue_load_##Which##_index_##Suffix(const hsa_queue_t *Q) {      \
    return __atomic_load_n(&amdOf(Q)->Field, __ATOMIC_SEQ_CST);                                  \
  }
FERRY_SIM_LOAD_INDEX(read, read_dispatch_id, scacquire)
FERRY_SIM_LOAD_INDEX(read, read_dispatch_id, relaxed)
FERRY_SIM_LOAD_INDEX(read, read_dispatch_id, acquire)
FERRY_SIM_LOAD_INDEX(write, write_dispatch_id, scacquire)
FERRY_SIM_LOAD_INDEX(write, write_dispatch_id, relaxed)
FERRY_SIM_LOAD_INDEX(write, write_dispatch_id, acquire)
#undef FERRY_SIM_LOAD_INDEX

#define FERRY_SIM_STORE_INDEX(Which, Field, Suffix)                                              \
  FERRY_SIM_EXPORT void hsa_queue_store_##Which##_index_##Suffix(const hsa_queue_t *Q,           \
                                                                 uint64_t V) {                   \
    __atomic_store_n(&amdOf(Q)->Field, V, __ATOMIC_SEQ_CST);                                     \
  }
FERRY_SIM_STORE_INDEX(write, write_dispatch_id, relaxed)
FERRY_SIM_STORE_INDEX(write, write_dispatch_id, screlease)
FERRY_SIM_STORE_INDEX(write, write_dispatch_id, release)
FERRY_SIM_STORE_INDEX(read, read_dispatch_id, relaxed)
FERRY_SIM_STORE_INDEX(read, read_dispatch_id, screlease)
FERRY_SIM_STORE_INDEX(read, read_dispatch_id, release)
#undef FERRY_SIM_STORE_INDEX

#define FERRY_SIM_WRITE_INDEX_RMW(Suffix)                                                        \
  FERRY_SIM_EXPORT uint64_t hsa_queue_add_write_index_##Suffix(const hsa_queue_t *Q,             \
                                                               uint64_t V) {                     \
    return __atomic_fetch_add(&amdOf(Q)->write_dispatch_id, V, __ATOMIC_SEQ_CST);               \
  }                                                                                              \
  FERRY_SIM_EXPORT uint64_t hsa_queue_cas_write_index_##Suffix(const hsa_queue_t *Q,             \
                                                               uint64_t Expected, uint64_t V) {  \
    uint64_t E = Expected;                                                                       \
    __atomic_compare_exchange_n(&amdOf(Q)->write_dispatch_id, &E, V, false, __ATOMIC_SEQ_CST,    \
                                __ATOMIC_SEQ_CST);                                               \
    return E;                                                                                    \
  }
FERRY_SIM_WRITE_INDEX_RMW(scacq_screl)
FERRY_SIM_WRITE_INDEX_RMW(scacquire)
FERRY_SIM_WRITE_INDEX_RMW(relaxed)
FERRY_SIM_WRITE_INDEX_RMW(screlease)
FERRY_SIM_WRITE_INDEX_RMW(acq_rel)
FERRY_SIM_WRITE_INDEX_RMW(acquire)
FERRY_SIM_WRITE_INDEX_RMW(release)
#undef FERRY_SIM_WRITE_INDEX_RMW

FERRY_SIM_EXPORT hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t *Q, int Enable) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Queue *Mine = Q ? R->queue(Q) : nullptr;
  if (!Mine)
    return HSA_STATUS_ERROR_INVALID_QUEUE;
  Mine->Profiling = Enable != 0;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_profiling_get_dispatch_time(
    hsa_agent_t AgentHandle, hsa_signal_t Handle, hsa_amd_profiling_dispatch_time_t *Time) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!R->agent(AgentHandle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  auto S = R->signal(Handle);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!Time)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Time->start = S->StartTs.load();
  Time->end = S->EndTs.load();
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t AgentHandle,
                                                                              uint64_t AgentTick,
                                                                              uint64_t *SystemTick) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!R->agent(AgentHandle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!SystemTick)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *SystemTick = AgentTick; // Agent and system clocks are the same clock here.
  return HSA_STATUS_SUCCESS;
}
