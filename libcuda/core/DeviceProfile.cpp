/// \file
/// The device profiles' tables (DeviceProfile.h says what a profile is).
/// Each profile's values come from a generated file of libcuda/profiles/.
#include "libcuda/DeviceProfile.h"

#include "libcuda/Backend.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace ferry {

namespace {

constexpr std::pair<int, int> H100Attributes[] = {
#define FERRY_PROFILE_NAME(N)
#define FERRY_PROFILE_TOTAL_MEMORY(B)
#define FERRY_PROFILE_CC(Major, Minor)
#define FERRY_PROFILE_LIMIT(Key, V)
#define FERRY_PROFILE_ATTRIBUTE(A, V) {A, V},
#include "libcuda/profiles/H100.inc"
#undef FERRY_PROFILE_ATTRIBUTE
};

struct H100Facts {
  const char *Name = nullptr;
  uint64_t Total = 0;
  int Major = 0, Minor = 0;
  size_t stack = 0, printf_fifo = 0, malloc_heap = 0, pending_launch = 0, max_l2_fetch = 0, persisting_l2 = 0;
  constexpr H100Facts() {
#undef FERRY_PROFILE_NAME
#undef FERRY_PROFILE_TOTAL_MEMORY
#undef FERRY_PROFILE_CC
#undef FERRY_PROFILE_LIMIT
#define FERRY_PROFILE_NAME(N) Name = N;
#define FERRY_PROFILE_TOTAL_MEMORY(B) Total = B;
#define FERRY_PROFILE_CC(Ma, Mi) Major = Ma, Minor = Mi;
#define FERRY_PROFILE_LIMIT(Key, V) Key = V;
#define FERRY_PROFILE_ATTRIBUTE(A, V)
#include "libcuda/profiles/H100.inc"
#undef FERRY_PROFILE_NAME
#undef FERRY_PROFILE_TOTAL_MEMORY
#undef FERRY_PROFILE_CC
#undef FERRY_PROFILE_LIMIT
#undef FERRY_PROFILE_ATTRIBUTE
  }
};
constexpr H100Facts H100;

// Hopper's shared-memory carveouts (the CUDA programming guide's compute
// capability 9.0 table); the H100 recording's occupancy answers under
// carveout preferences agree with them.
constexpr int HopperCarveoutKiB[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

const DeviceProfile Profiles[] = {
    {"h100", H100.Name, H100.Total, H100.Major, H100.Minor, H100.stack, H100.printf_fifo, H100.malloc_heap,
     H100.pending_launch, H100.max_l2_fetch, H100.persisting_l2, H100Attributes, 256, 128, HopperCarveoutKiB},
};

bool sameName(std::string_view A, std::string_view B) {
  return A.size() == B.size() && std::equal(A.begin(), A.end(), B.begin(), [](char X, char Y) {
           return std::tolower(static_cast<unsigned char>(X)) == std::tolower(static_cast<unsigned char>(Y));
         });
}

int get(const DeviceProfile &Pr, int A, int Else) { return Pr.attribute(A).value_or(Else); }

} // namespace

std::optional<int> DeviceProfile::attribute(int Attr) const {
  for (const auto &[A, V] : Attributes)
    if (A == Attr)
      return V;
  return std::nullopt;
}

const DeviceProfile *findDeviceProfile(std::string_view Id) {
  for (const DeviceProfile &P : Profiles)
    if (sameName(P.Id, Id))
      return &P;
  return nullptr;
}

std::string deviceProfileNames() {
  std::string S;
  for (const DeviceProfile &P : Profiles)
    S += (S.empty() ? "" : ", ") + std::string(P.Id);
  return S;
}

bool isFeatureAttribute(int A) {
  switch (A) {
  case 96:  // COOPERATIVE_MULTI_DEVICE_LAUNCH
  case 110: // GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
  case 112: // SPARSE_CUDA_ARRAY_SUPPORTED
  case 114: // TIMELINE_SEMAPHORE_INTEROP_SUPPORTED
  case 116: // GPU_DIRECT_RDMA_SUPPORTED
  case 117: // GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS
  case 118: // GPU_DIRECT_RDMA_WRITES_ORDERING
  case 119: // MEMPOOL_SUPPORTED_HANDLE_TYPES
  case 120: // CLUSTER_LAUNCH
  case 121: // DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED
  case 124: // DMA_BUF_SUPPORTED
  case 125: // IPC_EVENT_SUPPORTED
  case 127: // TENSOR_MAP_ACCESS_SUPPORTED
  case 128: // HANDLE_TYPE_FABRIC_SUPPORTED
  case 129: // UNIFIED_FUNCTION_POINTERS
  case 132: // MULTICAST_SUPPORTED
  case 141: // HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
  case 142: // HOST_NUMA_MEMORY_POOLS_SUPPORTED
  case 143: // HOST_NUMA_MULTINODE_IPC_SUPPORTED
  case 144: // HOST_MEMORY_POOLS_SUPPORTED
  case 145: // HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
  case 146: // HOST_ALLOC_DMA_BUF_SUPPORTED
    return true;
  default:
    return false;
  }
}

void applyDeviceProfile(const DeviceProfile &Pr, DeviceProperties &P) {
  P.Profile = &Pr;
  P.Name = Pr.Name;
  P.CcMajor = Pr.CcMajor;
  P.CcMinor = Pr.CcMinor;
  P.TotalMemory = Pr.TotalMemory;
  P.MaxThreadsPerBlock = get(Pr, 1, P.MaxThreadsPerBlock);
  for (int I = 0; I < 3; ++I) {
    P.MaxBlockDim[I] = get(Pr, 2 + I, P.MaxBlockDim[I]);
    P.MaxGridDim[I] = get(Pr, 5 + I, P.MaxGridDim[I]);
  }
  P.SharedMemPerBlock = size_t(get(Pr, 8, int(P.SharedMemPerBlock)));
  P.TotalConstantMemory = size_t(get(Pr, 9, int(P.TotalConstantMemory)));
  P.WarpSize = get(Pr, 10, P.WarpSize);
  P.RegistersPerBlock = get(Pr, 12, P.RegistersPerBlock);
  P.ClockRateKHz = get(Pr, 13, P.ClockRateKHz);
  P.MultiprocessorCount = get(Pr, 16, P.MultiprocessorCount);
  P.MemoryClockRateKHz = get(Pr, 36, P.MemoryClockRateKHz);
  P.MemoryBusWidth = get(Pr, 37, P.MemoryBusWidth);
  P.L2CacheSize = get(Pr, 38, P.L2CacheSize);
  P.MaxThreadsPerMultiprocessor = get(Pr, 39, P.MaxThreadsPerMultiprocessor);
  P.AsyncEngineCount = get(Pr, 40, P.AsyncEngineCount);
  P.SharedMemPerMultiprocessor = size_t(get(Pr, 81, int(P.SharedMemPerMultiprocessor)));
  P.RegistersPerMultiprocessor = get(Pr, 82, P.RegistersPerMultiprocessor);
  P.SharedMemPerBlockOptin = size_t(get(Pr, 97, int(P.SharedMemPerBlockOptin)));
  P.MaxBlocksPerMultiprocessor = get(Pr, 106, P.MaxBlocksPerMultiprocessor);
  P.ReservedSharedMemPerBlock = size_t(get(Pr, 111, int(P.ReservedSharedMemPerBlock)));
  P.MaxPersistingL2CacheSize = get(Pr, 108, P.MaxPersistingL2CacheSize);
  P.MaxAccessPolicyWindowSize = get(Pr, 109, P.MaxAccessPolicyWindowSize);
  // The PCI location is identity too: cudart's integrity check hashes the
  // values cuDeviceGetAttribute reports, which are the profile's.
  P.PciBus = get(Pr, 33, P.PciBus);
  P.PciDevice = get(Pr, 34, P.PciDevice);
  P.PciDomain = get(Pr, 50, P.PciDomain);
  P.RegisterAllocUnit = Pr.RegisterAllocUnit;
  P.SharedAllocUnit = Pr.SharedAllocUnit;
  P.CarveoutKiB.assign(Pr.CarveoutKiB.begin(), Pr.CarveoutKiB.end());
}

} // namespace ferry
