/// \file
/// Device queries: count, handles, name, UUID, PCI identity, memory, and
/// every CUdevice_attribute, answered from the backend's DeviceProperties
/// (and from its device profile, FERRY_DEVICE_PROFILE, where it has one).
#include "libcuda/api/Common.h"
#include "libcuda/DeviceProfile.h"

#include <cstdio>
#include <cstring>

using namespace ferry;
using namespace ferry::api;

FERRY_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!count)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  *count = core::deviceCount();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!device)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "device is null");
  auto D = deviceArg(ordinal);
  if (!D)
    return fail(__func__, D.error());
  *device = ordinal;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  if (!name || len <= 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "name is null or len <= 0");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  const std::string &N = (*D)->Backend->properties().Name;
  size_t Copy = std::min(N.size(), size_t(len) - 1);
  std::memcpy(name, N.data(), Copy);
  name[Copy] = '\0';
  return CUDA_SUCCESS;
}

static CUresult getUuid(const char *Fn, CUuuid *uuid, CUdevice dev) {
  if (!uuid)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "uuid is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(Fn, D.error());
  std::memcpy(uuid->bytes, (*D)->Backend->properties().Uuid.data(), 16);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return getUuid(__func__, uuid, dev); }
FERRY_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
  return getUuid(__func__, uuid, dev);
}

FERRY_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  if (!bytes)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "bytes is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *bytes = (*D)->Backend->properties().TotalMemory;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  if (!major || !minor)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "major or minor is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *major = (*D)->Backend->properties().CcMajor;
  *minor = (*D)->Backend->properties().CcMinor;
  return CUDA_SUCCESS;
}

/// The value of one attribute, or nullopt for an attribute number CUDA 13
/// does not define. Texture/surface limits are the values of a current
/// NVIDIA GPU: ferry's texture path is software and honours them.
static std::optional<int> attributeValue(const DeviceProperties &P, int A) {
  auto Clamp = [](uint64_t V) { return int(std::min<uint64_t>(V, 0x7fffffff)); };
  switch (A) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return P.MaxThreadsPerBlock;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return P.MaxBlockDim[0];
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return P.MaxBlockDim[1];
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return P.MaxBlockDim[2];
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return P.MaxGridDim[0];
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return P.MaxGridDim[1];
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return P.MaxGridDim[2];
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return Clamp(P.SharedMemPerBlock);
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return Clamp(P.TotalConstantMemory);
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return P.WarpSize;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 0x7fffffff;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return P.RegistersPerBlock;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return P.ClockRateKHz;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
  case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return P.MultiprocessorCount;
  case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
  case CU_DEVICE_ATTRIBUTE_INTEGRATED: return P.Integrated;
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return P.CanMapHostMemory;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return 0; // CU_COMPUTEMODE_DEFAULT
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: return 131072;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: return 131072;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: return 65536;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: return 2048;
  case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
  case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 0;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return P.PciBus;
  case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return P.PciDevice;
  case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return P.MemoryClockRateKHz;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return P.MemoryBusWidth;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return P.L2CacheSize;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return P.MaxThreadsPerMultiprocessor;
  case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return P.AsyncEngineCount;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: return 2048;
  case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: return 1;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE: return 8192;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: return 8192;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: return 32768;
  case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return P.PciDomain;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: return 2046;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: return 131072;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: return 65536;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: return 2048;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: return 2048;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: return 2046;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: return 268435456;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: return 131072;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: return 65000;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: return 2097120;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: return 32768;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return P.CcMajor;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return P.CcMinor;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: return 32768;
  case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return Clamp(P.SharedMemPerMultiprocessor);
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return P.RegistersPerMultiprocessor;
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return P.ManagedMemory;
  case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
  case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: return P.HostNativeAtomics;
  case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
  case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: return P.PageableMemoryAccess;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return P.ConcurrentManagedAccess;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
  // Stream memory operations (StreamMemOps.cpp) run on the queue threads.
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: return 1;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1: return 1;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: return 1;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return P.CooperativeLaunch;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: return 0;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return Clamp(P.SharedMemPerBlockOptin);
  case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: return 1;
  case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: return P.PageableMemoryAccess;
  case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: return P.Integrated;
  case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return P.MaxBlocksPerMultiprocessor;
  // Compression and L2 persistence are hints a program cannot observe
  // except through timing: ferry accepts them and reads them back (Vmm.cpp,
  // StreamAttributes.cpp, Context.cpp), so programs keep their GPU path.
  case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return P.maxPersistingL2();
  case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return P.MaxAccessPolicyWindowSize;
  case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return Clamp(P.ReservedSharedMemPerBlock);
  case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1; // core/MemPool.h
  case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: return 0;
  case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: return 0;
  case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: return 0;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 0;
  case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: return 1;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: return 1;
  case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 1;
  case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: return 0;
  case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: return 0;
  case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;
  case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
  case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK: return 0;
  case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH: return 0;
  case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: return 0;
  case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED: return 0;
  case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED: return 0;
  default: return std::nullopt;
  }
}

FERRY_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  if (!pi)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pi is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  auto V = attributeValue((*D)->Backend->properties(), int(attrib));
  if (!V)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown attribute " + std::to_string(int(attrib)));
  // Virtual memory management (Vmm.cpp) maps memfds, which only the host
  // backend's memory allows.
  bool HostMemory = (*D)->Family && (*D)->Family->name() == "host";
  if (attrib == CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED ||
      attrib == CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)
    V = int(HostMemory);
  // A device profile answers with the recorded GPU's value, but never
  // claims a feature ferry lacks (DeviceProfile.h).
  if (const DeviceProfile *Pr = (*D)->Backend->properties().Profile)
    if (auto PV = Pr->attribute(int(attrib)))
      V = isFeatureAttribute(int(attrib)) ? std::min(*PV, V.value_or(0)) : *PV;
  *pi = *V;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
  if (!pciBusId || len <= 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pciBusId is null or len <= 0");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  const DeviceProperties &P = (*D)->Backend->properties();
  std::snprintf(pciBusId, size_t(len), "%08X:%02X:%02X.0", unsigned(P.PciDomain), unsigned(P.PciBus),
                unsigned(P.PciDevice));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId) {
  if (!dev || !pciBusId)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dev or pciBusId is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  unsigned Domain = 0, Bus = 0, Device = 0, Function = 0;
  // Accepts "domain:bus:device.function" and "bus:device.function", hex.
  if (std::sscanf(pciBusId, "%x:%x:%x.%x", &Domain, &Bus, &Device, &Function) != 4) {
    Domain = 0;
    if (std::sscanf(pciBusId, "%x:%x.%x", &Bus, &Device, &Function) != 3)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, std::string("malformed PCI bus id '") + pciBusId + "'");
  }
  for (int I = 0; I < core::deviceCount(); ++I) {
    const DeviceProperties &P = core::device(I)->Backend->properties();
    if (unsigned(P.PciDomain) == Domain && unsigned(P.PciBus) == Bus && unsigned(P.PciDevice) == Device) {
      *dev = I;
      return CUDA_SUCCESS;
    }
  }
  return fail(__func__, CUDA_ERROR_INVALID_DEVICE, std::string("no device at PCI ") + pciBusId);
}

FERRY_EXPORT CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                              CUdevice srcDevice, CUdevice dstDevice) {
  if (!value)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto A = deviceArg(srcDevice), B = deviceArg(dstDevice);
  if (!A)
    return fail(__func__, A.error());
  if (!B)
    return fail(__func__, B.error());
  if (srcDevice == dstDevice)
    return fail(__func__, CUDA_ERROR_INVALID_DEVICE, "source and destination are the same device");
  *value = 0; // No peer access between ferry devices yet.
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  if (!canAccessPeer)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "canAccessPeer is null");
  auto A = deviceArg(dev), B = deviceArg(peerDev);
  if (!A)
    return fail(__func__, A.error());
  if (!B)
    return fail(__func__, B.error());
  *canAccessPeer = 0;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                                         CUarray_format format, unsigned numChannels,
                                                         CUdevice dev) {
  if (!maxWidthInElements)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "maxWidthInElements is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *maxWidthInElements = 268435456;
  return CUDA_SUCCESS;
}
