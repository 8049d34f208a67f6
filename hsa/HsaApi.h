/// \file
/// The slice of the HSA runtime API (HSA 1.x core + AMD extensions) that
/// ferry uses, declared from the public specification so ferry builds without
/// ROCm headers, and the table of entry points resolved with dlsym from
/// `libhsa-runtime64.so.1` (never linked: libcuda.so.1 must load without
/// ROCm). Only what ferry calls is here; enum values are the specification's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::hsa::api {

using hsa_status_t = int;
constexpr hsa_status_t HSA_STATUS_SUCCESS = 0;
constexpr hsa_status_t HSA_STATUS_INFO_BREAK = 1;
constexpr hsa_status_t HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008;
constexpr hsa_status_t HSA_STATUS_ERROR_NOT_INITIALIZED = 0x100B;
// A kernel executed s_trap (hsa.h).
constexpr hsa_status_t HSA_STATUS_ERROR_EXCEPTION = 0x1016;
// Queue errors ROCr reports for kernel faults (hsa_ext_amd.h).
constexpr hsa_status_t HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION = 41;
constexpr hsa_status_t HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION = 42;
constexpr hsa_status_t HSA_STATUS_ERROR_MEMORY_FAULT = 43;

struct hsa_agent_t { uint64_t handle; };
struct hsa_signal_t { uint64_t handle; };
struct hsa_region_t { uint64_t handle; };
struct hsa_isa_t { uint64_t handle; };
struct hsa_executable_t { uint64_t handle; };
struct hsa_executable_symbol_t { uint64_t handle; };
struct hsa_code_object_reader_t { uint64_t handle; };
struct hsa_amd_memory_pool_t { uint64_t handle; };
using hsa_signal_value_t = int64_t;

/// The user-mode queue (HSA spec "hsa_queue_t"), 64-bit large model.
struct hsa_queue_t {
  uint32_t type;
  uint32_t features;
  void *base_address;
  hsa_signal_t doorbell_signal;
  uint32_t size;
  uint32_t reserved1;
  uint64_t id;
};

/// AQL kernel dispatch packet (64 bytes).
struct hsa_kernel_dispatch_packet_t {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size_x, workgroup_size_y, workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x, grid_size_y, grid_size_z;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  void *kernarg_address;
  uint64_t reserved2;
  hsa_signal_t completion_signal;
};
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == 64);

/// AQL barrier-AND packet (64 bytes): waits until all dep_signal are 0.
struct hsa_barrier_and_packet_t {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  hsa_signal_t dep_signal[5];
  uint64_t reserved2;
  hsa_signal_t completion_signal;
};
static_assert(sizeof(hsa_barrier_and_packet_t) == 64);

// Packet header fields.
constexpr uint16_t HSA_PACKET_TYPE_INVALID = 1;
constexpr uint16_t HSA_PACKET_TYPE_KERNEL_DISPATCH = 2;
constexpr uint16_t HSA_PACKET_TYPE_BARRIER_AND = 3;
constexpr unsigned HSA_PACKET_HEADER_BARRIER = 8;
constexpr unsigned HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE = 9;
constexpr unsigned HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE = 11;
constexpr uint16_t HSA_FENCE_SCOPE_SYSTEM = 2;
constexpr unsigned HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS = 0;

enum hsa_agent_info_t : int {
  HSA_AGENT_INFO_NAME = 0,
  HSA_AGENT_INFO_VENDOR_NAME = 1,
  HSA_AGENT_INFO_WAVEFRONT_SIZE = 6,
  HSA_AGENT_INFO_WORKGROUP_MAX_SIZE = 8,
  HSA_AGENT_INFO_QUEUE_MAX_SIZE = 14,
  HSA_AGENT_INFO_DEVICE = 17,
  HSA_AMD_AGENT_INFO_CACHELINE_SIZE = 0xA001,
  HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT = 0xA002,
  HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY = 0xA003,
  HSA_AMD_AGENT_INFO_BDFID = 0xA006,
  HSA_AMD_AGENT_INFO_MEMORY_WIDTH = 0xA007,
  HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY = 0xA008,
  HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009,
  HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU = 0xA00A,
  HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F,
  HSA_AMD_AGENT_INFO_UUID = 0xA011,
};
constexpr uint32_t HSA_DEVICE_TYPE_CPU = 0, HSA_DEVICE_TYPE_GPU = 1;
constexpr int HSA_ISA_INFO_NAME_LENGTH = 0, HSA_ISA_INFO_NAME = 1;
constexpr int HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY = 3;

enum hsa_amd_memory_pool_info_t : int {
  HSA_AMD_MEMORY_POOL_INFO_SEGMENT = 0,
  HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS = 1,
  HSA_AMD_MEMORY_POOL_INFO_SIZE = 2,
  HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED = 5,
};
/// hsa_amd_agent_memory_pool_get_info: may the agent touch the pool's
/// memory (hsa_ext_amd.h hsa_amd_memory_pool_access_t).
constexpr int HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS = 0;
constexpr int HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED = 0;
constexpr uint32_t HSA_AMD_SEGMENT_GLOBAL = 0;
constexpr uint32_t HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT = 1;
constexpr uint32_t HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED = 2;
constexpr uint32_t HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED = 4;

constexpr uint32_t HSA_QUEUE_TYPE_MULTIPLE = 0;
constexpr int HSA_SIGNAL_CONDITION_EQ = 0, HSA_SIGNAL_CONDITION_LT = 2;
constexpr int HSA_WAIT_STATE_BLOCKED = 0, HSA_WAIT_STATE_ACTIVE = 1;
constexpr int HSA_PROFILE_FULL = 1;
constexpr int HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT = 0;

enum hsa_executable_symbol_info_t : int {
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11,
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14,
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS = 21,
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT = 22,
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE = 9,
};

struct hsa_amd_profiling_dispatch_time_t {
  uint64_t start, end;
};

/// hsa_amd_pointer_info's answer (hsa_ext_amd.h). type: what ROCr knows of
/// the memory; UNKNOWN is pageable host memory no DMA engine can reach.
enum hsa_amd_pointer_type_t : int {
  HSA_EXT_POINTER_TYPE_UNKNOWN = 0,
  HSA_EXT_POINTER_TYPE_HSA = 1,
  HSA_EXT_POINTER_TYPE_LOCKED = 2,
};
struct hsa_amd_pointer_info_t {
  uint32_t size; ///< sizeof(hsa_amd_pointer_info_t), set by the caller.
  hsa_amd_pointer_type_t type;
  void *agentBaseAddress;
  void *hostBaseAddress;
  size_t sizeInBytes;
  void *userData;
  hsa_agent_t agentOwner;
  uint32_t global_flags;
};

using AgentCallback = hsa_status_t (*)(hsa_agent_t, void *);
using PoolCallback = hsa_status_t (*)(hsa_amd_memory_pool_t, void *);
using IsaCallback = hsa_status_t (*)(hsa_isa_t, void *);
using QueueErrorCallback = void (*)(hsa_status_t, hsa_queue_t *, void *);

/// The entry points, by their exported names. X(name, return, params).
#define FERRY_HSA_FUNCTIONS(X)                                                                   \
  X(hsa_init, hsa_status_t, ())                                                                  \
  X(hsa_shut_down, hsa_status_t, ())                                                             \
  X(hsa_status_string, hsa_status_t, (hsa_status_t, const char **))                              \
  X(hsa_system_get_info, hsa_status_t, (int, void *))                                            \
  X(hsa_iterate_agents, hsa_status_t, (AgentCallback, void *))                                   \
  X(hsa_agent_get_info, hsa_status_t, (hsa_agent_t, int, void *))                                \
  X(hsa_agent_iterate_isas, hsa_status_t, (hsa_agent_t, IsaCallback, void *))                    \
  X(hsa_isa_get_info_alt, hsa_status_t, (hsa_isa_t, int, void *))                                \
  X(hsa_amd_agent_iterate_memory_pools, hsa_status_t, (hsa_agent_t, PoolCallback, void *))       \
  X(hsa_amd_memory_pool_get_info, hsa_status_t, (hsa_amd_memory_pool_t, int, void *))           \
  X(hsa_amd_agent_memory_pool_get_info, hsa_status_t, (hsa_agent_t, hsa_amd_memory_pool_t, int, void *)) \
  X(hsa_amd_memory_pool_allocate, hsa_status_t, (hsa_amd_memory_pool_t, size_t, uint32_t, void **)) \
  X(hsa_amd_memory_pool_free, hsa_status_t, (void *))                                            \
  X(hsa_amd_agents_allow_access, hsa_status_t, (uint32_t, const hsa_agent_t *, const uint32_t *, const void *)) \
  X(hsa_amd_memory_lock, hsa_status_t, (void *, size_t, hsa_agent_t *, int, void **))            \
  X(hsa_amd_memory_unlock, hsa_status_t, (void *))                                               \
  X(hsa_amd_memory_fill, hsa_status_t, (void *, uint32_t, size_t))                               \
  X(hsa_amd_pointer_info, hsa_status_t, (const void *, hsa_amd_pointer_info_t *, void *(*)(size_t), uint32_t *, hsa_agent_t **)) \
  X(hsa_amd_memory_async_copy, hsa_status_t, (void *, hsa_agent_t, const void *, hsa_agent_t, size_t, uint32_t, const hsa_signal_t *, hsa_signal_t)) \
  X(hsa_queue_create, hsa_status_t, (hsa_agent_t, uint32_t, uint32_t, QueueErrorCallback, void *, uint32_t, uint32_t, hsa_queue_t **)) \
  X(hsa_queue_destroy, hsa_status_t, (hsa_queue_t *))                                            \
  X(hsa_queue_load_read_index_scacquire, uint64_t, (const hsa_queue_t *))                        \
  X(hsa_queue_add_write_index_screlease, uint64_t, (const hsa_queue_t *, uint64_t))              \
  X(hsa_amd_profiling_set_profiler_enabled, hsa_status_t, (hsa_queue_t *, int))                  \
  X(hsa_amd_profiling_get_dispatch_time, hsa_status_t, (hsa_agent_t, hsa_signal_t, hsa_amd_profiling_dispatch_time_t *)) \
  X(hsa_signal_create, hsa_status_t, (hsa_signal_value_t, uint32_t, const hsa_agent_t *, hsa_signal_t *)) \
  X(hsa_signal_destroy, hsa_status_t, (hsa_signal_t))                                            \
  X(hsa_signal_load_scacquire, hsa_signal_value_t, (hsa_signal_t))                               \
  X(hsa_signal_store_screlease, void, (hsa_signal_t, hsa_signal_value_t))                        \
  X(hsa_signal_wait_scacquire, hsa_signal_value_t, (hsa_signal_t, int, hsa_signal_value_t, uint64_t, int)) \
  X(hsa_code_object_reader_create_from_memory, hsa_status_t, (const void *, size_t, hsa_code_object_reader_t *)) \
  X(hsa_code_object_reader_destroy, hsa_status_t, (hsa_code_object_reader_t))                    \
  X(hsa_executable_create_alt, hsa_status_t, (int, int, const char *, hsa_executable_t *))       \
  X(hsa_executable_load_agent_code_object, hsa_status_t, (hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char *, void *)) \
  X(hsa_executable_freeze, hsa_status_t, (hsa_executable_t, const char *))                       \
  X(hsa_executable_destroy, hsa_status_t, (hsa_executable_t))                                    \
  X(hsa_executable_get_symbol_by_name, hsa_status_t, (hsa_executable_t, const char *, const hsa_agent_t *, hsa_executable_symbol_t *)) \
  X(hsa_executable_symbol_get_info, hsa_status_t, (hsa_executable_symbol_t, int, void *))

/// Resolved entry points. Every pointer is non-null once load() succeeded.
struct Functions {
#define FERRY_HSA_POINTER(Name, Ret, Params) Ret(*Name) Params = nullptr;
  FERRY_HSA_FUNCTIONS(FERRY_HSA_POINTER)
#undef FERRY_HSA_POINTER
};

} // namespace ferry::hsa::api
