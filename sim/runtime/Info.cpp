//===- sim/runtime/Info.cpp - system, agent, ISA, cache and pool queries --===//
/// \file
/// The read-only half of the API: what hsa_system_get_info, hsa_agent_get_info
/// (with the hsa_amd_agent_info_t extensions), ISAs, caches and memory pools
/// report. Values have the types the HSA specification and hsa_ext_amd.h give
/// each attribute; an attribute the stand-in does not know is
/// HSA_STATUS_ERROR_INVALID_ARGUMENT, as in ROCr.
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include <cstdio>
#include <cstring>

using namespace ferry::sim::rt;

namespace {

template <typename T> hsa_status_t put(void *Value, const T &V) {
  std::memcpy(Value, &V, sizeof V);
  return HSA_STATUS_SUCCESS;
}

/// A string attribute: ROCr fills fixed arrays (64 bytes for names) with the
/// text and NUL padding.
hsa_status_t putString(void *Value, const std::string &S, size_t Room = 64) {
  char *Out = static_cast<char *>(Value);
  std::memset(Out, 0, Room);
  std::memcpy(Out, S.data(), std::min(S.size(), Room - 1));
  return HSA_STATUS_SUCCESS;
}

struct StatusText {
  hsa_status_t Status;
  const char *Text;
};

const StatusText Texts[] = {
    {HSA_STATUS_SUCCESS, "HSA_STATUS_SUCCESS: The function has been executed successfully."},
    {HSA_STATUS_INFO_BREAK, "HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been "
                            "interrupted by the application before completing."},
    {HSA_STATUS_ERROR, "HSA_STATUS_ERROR: A generic error has occurred."},
    {HSA_STATUS_ERROR_INVALID_ARGUMENT,
     "HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a "
     "precondition stated in the documentation of the corresponding formal argument."},
    {HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
     "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue creation is not valid."},
    {HSA_STATUS_ERROR_INVALID_ALLOCATION,
     "HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested allocation is not valid."},
    {HSA_STATUS_ERROR_INVALID_AGENT, "HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid."},
    {HSA_STATUS_ERROR_INVALID_REGION,
     "HSA_STATUS_ERROR_INVALID_REGION: The memory region is invalid."},
    {HSA_STATUS_ERROR_INVALID_SIGNAL, "HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid."},
    {HSA_STATUS_ERROR_INVALID_QUEUE, "HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid."},
    {HSA_STATUS_ERROR_OUT_OF_RESOURCES,
     "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
     "This error may also occur when the core runtime library needs to spawn threads or create "
     "internal OS-specific events."},
    {HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
     "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed."},
    {HSA_STATUS_ERROR_RESOURCE_FREE,
     "HSA_STATUS_ERROR_RESOURCE_FREE: An error has been detected while releasing a resource."},
    {HSA_STATUS_ERROR_NOT_INITIALIZED,
     "HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the "
     "reference count of the HSA runtime is zero."},
    {HSA_STATUS_ERROR_REFCOUNT_OVERFLOW,
     "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: The maximum reference count for the object has been "
     "reached."},
    {HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
     "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments passed to a functions are not "
     "compatible."},
    {HSA_STATUS_ERROR_INVALID_INDEX, "HSA_STATUS_ERROR_INVALID_INDEX: The index is invalid."},
    {HSA_STATUS_ERROR_INVALID_ISA,
     "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid."},
    {HSA_STATUS_ERROR_INVALID_ISA_NAME,
     "HSA_STATUS_ERROR_INVALID_ISA_NAME: The instruction set architecture name is invalid."},
    {HSA_STATUS_ERROR_INVALID_CODE_OBJECT,
     "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid."},
    {HSA_STATUS_ERROR_INVALID_EXECUTABLE,
     "HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid."},
    {HSA_STATUS_ERROR_FROZEN_EXECUTABLE,
     "HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen."},
    {HSA_STATUS_ERROR_INVALID_SYMBOL_NAME,
     "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name."},
    {HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED,
     "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: The variable is already defined."},
    {HSA_STATUS_ERROR_VARIABLE_UNDEFINED,
     "HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined."},
    {HSA_STATUS_ERROR_EXCEPTION,
     "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception."},
    {HSA_STATUS_ERROR_INVALID_CODE_SYMBOL,
     "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: The code object symbol is invalid."},
    {HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL,
     "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: The executable symbol is invalid."},
    {HSA_STATUS_ERROR_INVALID_FILE,
     "HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid."},
    {HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER,
     "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid."},
    {HSA_STATUS_ERROR_INVALID_CACHE, "HSA_STATUS_ERROR_INVALID_CACHE: The cache is invalid."},
    {HSA_STATUS_ERROR_INVALID_WAVEFRONT,
     "HSA_STATUS_ERROR_INVALID_WAVEFRONT: The wavefront is invalid."},
    {HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP,
     "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: The signal group is invalid."},
    {HSA_STATUS_ERROR_INVALID_RUNTIME_STATE,
     "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: The HSA runtime is not in the configuration state."},
    {HSA_STATUS_ERROR_FATAL,
     "HSA_STATUS_ERROR_FATAL: The queue received an error that may require process termination."},
    {hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL),
     "HSA_STATUS_ERROR_INVALID_MEMORY_POOL: The memory pool is invalid."},
    {hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION),
     "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent accessed memory beyond the maximum "
     "legal address."},
    {hsa_status_t(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION),
     "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent executed an invalid shader instruction."},
    {hsa_status_t(HSA_STATUS_ERROR_MEMORY_FAULT),
     "HSA_STATUS_ERROR_MEMORY_FAULT: The agent attempted to access an inaccessible address."},
};

struct Cache {
  const char *Name;
  uint8_t Level;
  uint32_t Size;
};

/// The caches of an agent, outermost last. Handles are (agent index << 8 |
/// level) + 1, so they survive no pointer.
std::vector<Cache> caches(const Agent &A) {
  std::vector<Cache> Out;
  if (!A.isGpu())
    return Out;
  if (A.Spec->L1Bytes)
    Out.push_back({"L1", 1, A.Spec->L1Bytes});
  if (A.Spec->L2Bytes)
    Out.push_back({"L2", 2, A.Spec->L2Bytes});
  if (A.Spec->L3Bytes)
    Out.push_back({"L3", 3, A.Spec->L3Bytes});
  return Out;
}

hsa_status_t gpuInfo(const Agent &A, int Attr, void *Value) {
  const GpuSpec &G = *A.Spec;
  switch (Attr) {
  case HSA_AGENT_INFO_NAME:
    return putString(Value, G.Name);
  case HSA_AGENT_INFO_VENDOR_NAME:
    return putString(Value, "AMD");
  case HSA_AGENT_INFO_FEATURE:
    return put(Value, HSA_AGENT_FEATURE_KERNEL_DISPATCH);
  case HSA_AGENT_INFO_MACHINE_MODEL:
    return put(Value, HSA_MACHINE_MODEL_LARGE);
  case HSA_AGENT_INFO_PROFILE:
    return put(Value, HSA_PROFILE_BASE);
  case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
  case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
    return put(Value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
  case HSA_AGENT_INFO_FAST_F16_OPERATION:
    return put(Value, true);
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
    return put(Value, G.WaveSize);
  case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
    uint16_t Dims[3] = {1024, 1024, 1024};
    return put(Value, Dims);
  }
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
    return put(Value, uint32_t(1024));
  case HSA_AGENT_INFO_GRID_MAX_DIM:
    return put(Value, hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX});
  case HSA_AGENT_INFO_GRID_MAX_SIZE:
    return put(Value, uint32_t(UINT32_MAX));
  case HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
    return put(Value, uint32_t(32));
  case HSA_AGENT_INFO_QUEUES_MAX:
    return put(Value, uint32_t(128));
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    return put(Value, uint32_t(64));
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    return put(Value, uint32_t(1) << 17);
  case HSA_AGENT_INFO_QUEUE_TYPE:
    return put(Value, HSA_QUEUE_TYPE_MULTI);
  case HSA_AGENT_INFO_NODE:
    return put(Value, uint32_t(A.Index));
  case HSA_AGENT_INFO_DEVICE:
    return put(Value, HSA_DEVICE_TYPE_GPU);
  case HSA_AGENT_INFO_CACHE_SIZE: {
    uint32_t Sizes[4] = {G.L1Bytes, G.L2Bytes, G.L3Bytes, 0};
    return put(Value, Sizes);
  }
  case HSA_AGENT_INFO_ISA:
    return put(Value, hsa_isa_t{reinterpret_cast<uint64_t>(&A.AgentIsa)});
  case HSA_AGENT_INFO_EXTENSIONS: {
    uint8_t Bits[128] = {};
    Bits[HSA_EXTENSION_AMD_PROFILER / 8] |= 1 << (HSA_EXTENSION_AMD_PROFILER % 8);
    Bits[HSA_EXTENSION_AMD_LOADER / 8] |= 1 << (HSA_EXTENSION_AMD_LOADER % 8);
    std::memcpy(Value, Bits, sizeof Bits);
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AGENT_INFO_VERSION_MAJOR:
    return put(Value, uint16_t(1));
  case HSA_AGENT_INFO_VERSION_MINOR:
    return put(Value, uint16_t(1));
  case HSA_AMD_AGENT_INFO_CHIP_ID:
    return put(Value, G.ChipId);
  case HSA_AMD_AGENT_INFO_CACHELINE_SIZE:
    return put(Value, G.CachelineSize);
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
  case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
    return put(Value, G.ComputeUnits);
  case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY:
    return put(Value, G.ClockMHz);
  case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID:
    return put(Value, uint32_t(A.Index));
  case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS:
    return put(Value, uint32_t(4));
  case HSA_AMD_AGENT_INFO_BDFID:
    return put(Value, uint32_t(A.Index) << 8); // Bus = agent index, device 0.
  case HSA_AMD_AGENT_INFO_MEMORY_WIDTH:
    return put(Value, G.MemoryWidth);
  case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY:
    return put(Value, G.MemoryClockMHz);
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    return putString(Value, G.Product);
  case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU:
    return put(Value, G.MaxWavesPerCu);
  case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU:
    return put(Value, G.SimdsPerCu);
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES:
    return put(Value, G.ShaderEngines);
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE:
    return put(Value, G.ArraysPerSe);
  case HSA_AMD_AGENT_INFO_HDP_FLUSH:
    return put(Value, hsa_amd_hdp_flush_t{nullptr, nullptr});
  case HSA_AMD_AGENT_INFO_DOMAIN:
    return put(Value, uint32_t(0));
  case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES:
    return put(Value, true);
  case HSA_AMD_AGENT_INFO_UUID: {
    // ROCr: "GPU-" and 16 hex digits; unique per simulated agent.
    char Uuid[32];
    std::snprintf(Uuid, sizeof Uuid, "GPU-%08x%08x", G.ChipId, 0x51300000u + A.Index);
    return putString(Value, Uuid, 21);
  }
  case HSA_AMD_AGENT_INFO_ASIC_REVISION:
    return put(Value, G.AsicRevision);
  case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS:
    return put(Value, false);
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

hsa_status_t cpuInfo(const Agent &A, int Attr, void *Value) {
  switch (Attr) {
  case HSA_AGENT_INFO_NAME:
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    return putString(Value, A.CpuName);
  case HSA_AGENT_INFO_VENDOR_NAME:
    return putString(Value, "CPU");
  case HSA_AGENT_INFO_FEATURE:
    return put(Value, uint32_t(0));
  case HSA_AGENT_INFO_MACHINE_MODEL:
    return put(Value, HSA_MACHINE_MODEL_LARGE);
  case HSA_AGENT_INFO_PROFILE:
    return put(Value, HSA_PROFILE_FULL);
  case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
  case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
    return put(Value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
  case HSA_AGENT_INFO_FAST_F16_OPERATION:
    return put(Value, false);
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
  case HSA_AGENT_INFO_GRID_MAX_SIZE:
  case HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
  case HSA_AGENT_INFO_QUEUES_MAX:
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
  case HSA_AMD_AGENT_INFO_CHIP_ID:
  case HSA_AMD_AGENT_INFO_BDFID:
  case HSA_AMD_AGENT_INFO_MEMORY_WIDTH:
  case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY:
  case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU:
  case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU:
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES:
  case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE:
  case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS:
  case HSA_AMD_AGENT_INFO_DOMAIN:
  case HSA_AMD_AGENT_INFO_ASIC_REVISION:
  case HSA_AGENT_INFO_NODE:
  case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID:
    return put(Value, uint32_t(0));
  case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
    uint16_t Dims[3] = {0, 0, 0};
    return put(Value, Dims);
  }
  case HSA_AGENT_INFO_GRID_MAX_DIM:
    return put(Value, hsa_dim3_t{0, 0, 0});
  case HSA_AGENT_INFO_QUEUE_TYPE:
    return put(Value, HSA_QUEUE_TYPE_MULTI);
  case HSA_AGENT_INFO_DEVICE:
    return put(Value, HSA_DEVICE_TYPE_CPU);
  case HSA_AGENT_INFO_CACHE_SIZE: {
    uint32_t Sizes[4] = {};
    return put(Value, Sizes);
  }
  case HSA_AGENT_INFO_ISA:
    return put(Value, hsa_isa_t{0});
  case HSA_AGENT_INFO_EXTENSIONS: {
    uint8_t Bits[128] = {};
    std::memcpy(Value, Bits, sizeof Bits);
    return HSA_STATUS_SUCCESS;
  }
  case HSA_AGENT_INFO_VERSION_MAJOR:
    return put(Value, uint16_t(1));
  case HSA_AGENT_INFO_VERSION_MINOR:
    return put(Value, uint16_t(1));
  case HSA_AMD_AGENT_INFO_CACHELINE_SIZE:
    return put(Value, uint32_t(64));
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
  case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
    return put(Value, A.CpuCores);
  case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY:
    return put(Value, uint32_t(3000));
  case HSA_AMD_AGENT_INFO_HDP_FLUSH:
    return put(Value, hsa_amd_hdp_flush_t{nullptr, nullptr});
  case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES:
  case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS:
    return put(Value, false);
  case HSA_AMD_AGENT_INFO_UUID:
    return putString(Value, "CPU-XX", 21);
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

} // namespace

FERRY_SIM_EXPORT hsa_status_t hsa_status_string(hsa_status_t Status, const char **Out) {
  if (!Out)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const StatusText &T : Texts)
    if (T.Status == Status) {
      *Out = T.Text;
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

FERRY_SIM_EXPORT hsa_status_t hsa_system_get_info(hsa_system_info_t Attr, void *Value) {
  if (!runtime())
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (int(Attr)) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR:
    return put(Value, uint16_t(1));
  case HSA_SYSTEM_INFO_VERSION_MINOR:
    return put(Value, uint16_t(1));
  case HSA_SYSTEM_INFO_TIMESTAMP:
    return put(Value, nowNs());
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
    return put(Value, uint64_t(1000000000)); // Timestamps are nanoseconds.
  case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT:
    return put(Value, uint64_t(UINT64_MAX));
  case HSA_SYSTEM_INFO_ENDIANNESS:
    return put(Value, HSA_ENDIANNESS_LITTLE);
  case HSA_SYSTEM_INFO_MACHINE_MODEL:
    return put(Value, HSA_MACHINE_MODEL_LARGE);
  case HSA_SYSTEM_INFO_EXTENSIONS: {
    uint8_t Bits[128] = {};
    Bits[HSA_EXTENSION_AMD_PROFILER / 8] |= 1 << (HSA_EXTENSION_AMD_PROFILER % 8);
    Bits[HSA_EXTENSION_AMD_LOADER / 8] |= 1 << (HSA_EXTENSION_AMD_LOADER % 8);
    std::memcpy(Value, Bits, sizeof Bits);
    return HSA_STATUS_SUCCESS;
  }
  case 0x200: // HSA_AMD_SYSTEM_INFO_BUILD_VERSION
    *static_cast<const char **>(Value) = "ferry-sim";
    return HSA_STATUS_SUCCESS;
  case 0x201: // HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED
  case 0x202: // HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT
  case 0x203: // HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED
  case 0x204: // HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED
    return put(Value, false);
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_system_extension_supported(uint16_t Extension, uint16_t Major,
                                                             uint16_t Minor, bool *Result) {
  if (!runtime())
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Result)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Only the tables a client asks for through entry points we export; no
  // extension function table is offered.
  *Result = false;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*Callback)(hsa_agent_t, void *),
                                                 void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const auto &A : R->Agents)
    if (hsa_status_t S = Callback(hsa_agent_t{reinterpret_cast<uint64_t>(A.get())}, Data);
        S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t Handle, hsa_agent_info_t Attr,
                                                 void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(Handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return A->isGpu() ? gpuInfo(*A, int(Attr), Value) : cpuInfo(*A, int(Attr), Value);
}

FERRY_SIM_EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t Handle,
                                                     hsa_status_t (*Callback)(hsa_isa_t, void *),
                                                     void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(Handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!A->isGpu())
    return HSA_STATUS_SUCCESS; // ROCr's CPU agent has no ISA.
  return Callback(hsa_isa_t{reinterpret_cast<uint64_t>(&A->AgentIsa)}, Data);
}

FERRY_SIM_EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t Handle, hsa_isa_info_t Attr,
                                                   void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  const Isa *I = R->isa(Handle.handle);
  if (!I)
    return HSA_STATUS_ERROR_INVALID_ISA;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const GpuSpec &G = *I->Spec;
  switch (int(Attr)) {
  case HSA_ISA_INFO_NAME_LENGTH:
    return put(Value, uint32_t(std::strlen(G.Isa))); // Without the NUL.
  case HSA_ISA_INFO_NAME:
    std::memcpy(Value, G.Isa, std::strlen(G.Isa) + 1);
    return HSA_STATUS_SUCCESS;
  case HSA_ISA_INFO_MACHINE_MODELS: {
    bool Models[2] = {false, true};
    return put(Value, Models);
  }
  case HSA_ISA_INFO_PROFILES: {
    bool Profiles[2] = {true, false};
    return put(Value, Profiles);
  }
  case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES: {
    bool Modes[3] = {false, false, true};
    return put(Value, Modes);
  }
  case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
    bool Modes[3] = {false, false, true};
    return put(Value, Modes);
  }
  case 9: // HSA_ISA_INFO_FAST_F16_OPERATION
    return put(Value, true);
  case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
    uint16_t Dims[3] = {1024, 1024, 1024};
    return put(Value, Dims);
  }
  case HSA_ISA_INFO_WORKGROUP_MAX_SIZE:
    return put(Value, uint32_t(1024));
  case HSA_ISA_INFO_GRID_MAX_DIM:
    return put(Value, hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX});
  case HSA_ISA_INFO_GRID_MAX_SIZE:
    return put(Value, uint64_t(UINT64_MAX));
  case HSA_ISA_INFO_FBARRIER_MAX_SIZE:
    return put(Value, uint32_t(32));
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_agent_iterate_caches(hsa_agent_t Handle,
                                                       hsa_status_t (*Callback)(hsa_cache_t,
                                                                                void *),
                                                       void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(Handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const Cache &C : caches(*A))
    if (hsa_status_t S = Callback(hsa_cache_t{(uint64_t(A->Index) << 8 | C.Level) + 1}, Data);
        S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_cache_get_info(hsa_cache_t Handle, hsa_cache_info_t Attr,
                                                 void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  uint64_t H = Handle.handle - 1;
  if (!Handle.handle || (H >> 8) >= R->Agents.size())
    return HSA_STATUS_ERROR_INVALID_CACHE;
  for (const Cache &C : caches(*R->Agents[H >> 8]))
    if (C.Level == (H & 0xff)) {
      if (!Value)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      switch (int(Attr)) {
      case HSA_CACHE_INFO_NAME_LENGTH:
        return put(Value, uint32_t(std::strlen(C.Name)));
      case HSA_CACHE_INFO_NAME:
        std::memcpy(Value, C.Name, std::strlen(C.Name) + 1);
        return HSA_STATUS_SUCCESS;
      case HSA_CACHE_INFO_LEVEL:
        return put(Value, C.Level);
      case HSA_CACHE_INFO_SIZE:
        return put(Value, C.Size);
      default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      }
    }
  return HSA_STATUS_ERROR_INVALID_CACHE;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t Handle, hsa_status_t (*Callback)(hsa_amd_memory_pool_t, void *), void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(Handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const auto &P : A->Pools)
    if (hsa_status_t S = Callback(hsa_amd_memory_pool_t{reinterpret_cast<uint64_t>(P.get())}, Data);
        S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t Handle,
                                                           hsa_amd_memory_pool_info_t Attr,
                                                           void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Pool *P = R->pool(Handle.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (int(Attr)) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
    return put(Value, P->Segment);
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
    return put(Value, P->Flags);
  case HSA_AMD_MEMORY_POOL_INFO_SIZE:
    return put(Value, size_t(P->Size));
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
    return put(Value, P->AllocAllowed);
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT:
    return put(Value, size_t(P->AllocAllowed ? 4096 : 0));
  case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL:
    return put(Value, P->GpuAccessByDefault);
  case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE:
    return put(Value, size_t(P->AllocAllowed ? P->Size : 0));
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_agent_memory_pool_get_info(
    hsa_agent_t AgentHandle, hsa_amd_memory_pool_t PoolHandle,
    hsa_amd_agent_memory_pool_info_t Attr, void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(AgentHandle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  Pool *P = R->pool(PoolHandle.handle);
  if (!P)
    return hsa_status_t(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Access as ROCr decides it for a discrete GPU: the owner by default;
  // system memory for other GPUs once allowed; another GPU's memory only
  // after allow_access (peer access); LDS never. The CPU reaches system
  // memory by default and a GPU's device memory once allowed where the BAR
  // spans it (ROCr: DISALLOWED_BY_DEFAULT; HIP reads anything but
  // NEVER_ALLOWED as a large BAR), never under FERRY_SIM_HOST_ACCESS=0.
  hsa_amd_memory_pool_access_t Access;
  if (P->Segment != HSA_AMD_SEGMENT_GLOBAL)
    Access = P->Owner == A ? HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
                           : HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  else if (!A->isGpu() && P->Owner->isGpu())
    Access = R->HostAccess ? HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT
                           : HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  else if (P->Owner == A || !A->isGpu() || P->GpuAccessByDefault)
    Access = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
  else
    Access = HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT;
  switch (int(Attr)) {
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
    return put(Value, Access);
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS:
    return put(Value, uint32_t(P->Owner == A ? 0 : 1));
  case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO: {
    hsa_amd_memory_pool_link_info_t Link{};
    Link.link_type = HSA_AMD_LINK_INFO_TYPE_PCIE;
    Link.numa_distance = P->Owner == A ? 10 : 20;
    if (P->Owner != A)
      std::memcpy(Value, &Link, sizeof Link);
    return HSA_STATUS_SUCCESS;
  }
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

// Regions: HSA's older view of the same memory. Each pool is a region (as in
// ROCr, whose region and pool handles coincide); kernarg memory is a global
// region with the KERNARG flag.
FERRY_SIM_EXPORT hsa_status_t hsa_agent_iterate_regions(hsa_agent_t Handle,
                                                        hsa_status_t (*Callback)(hsa_region_t,
                                                                                 void *),
                                                        void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent *A = R->agent(Handle);
  if (!A)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const auto &P : A->Pools)
    if (hsa_status_t S = Callback(hsa_region_t{reinterpret_cast<uint64_t>(P.get())}, Data);
        S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_region_get_info(hsa_region_t Handle, hsa_region_info_t Attr,
                                                  void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Pool *P = R->pool(Handle.handle);
  if (!P)
    return HSA_STATUS_ERROR_INVALID_REGION;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool Global = P->Segment == HSA_AMD_SEGMENT_GLOBAL;
  switch (int(Attr)) {
  case HSA_REGION_INFO_SEGMENT:
    return put(Value, Global ? HSA_REGION_SEGMENT_GLOBAL : HSA_REGION_SEGMENT_GROUP);
  case HSA_REGION_INFO_GLOBAL_FLAGS: {
    uint32_t Flags = 0;
    if (P->Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
      Flags |= HSA_REGION_GLOBAL_FLAG_KERNARG;
    if (P->Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
      Flags |= HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
    if (P->Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
      Flags |= HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
    return put(Value, Flags);
  }
  case HSA_REGION_INFO_SIZE:
    return put(Value, size_t(P->Size));
  case HSA_REGION_INFO_ALLOC_MAX_SIZE:
    return put(Value, size_t(P->AllocAllowed ? P->Size : 0));
  case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE:
    return put(Value, uint32_t(0));
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED:
    return put(Value, P->AllocAllowed);
  case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE:
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT:
    return put(Value, size_t(P->AllocAllowed ? 4096 : 0));
  case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE:
    // ROCr: system memory only (a large BAR is reported through the pool
    // access query instead).
    return put(Value, !P->Owner->isGpu());
  case HSA_AMD_REGION_INFO_BASE:
    return put(Value, static_cast<void *>(nullptr));
  case HSA_AMD_REGION_INFO_BUS_WIDTH:
    return put(Value, P->Owner->isGpu() ? P->Owner->Spec->MemoryWidth : uint32_t(64));
  case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY:
    return put(Value, P->Owner->isGpu() ? P->Owner->Spec->MemoryClockMHz : uint32_t(3200));
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}
