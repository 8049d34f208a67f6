/// \file
/// Devices and contexts: the per-thread current device, each device's
/// primary context (retained once, made current lazily on the first call
/// that needs it, as NVIDIA's runtime does), sticky errors per device, and
/// the device-management entry points (count, select, properties,
/// attributes, synchronize, reset, limits, cache config, flags, peers).
#include "Runtime.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

namespace ferry::cudart {
namespace {

struct DeviceSlot {
  std::mutex Mutex;
  CUdevice Dev = 0;
  CUcontext Primary = nullptr; ///< retained by us; null until first use
  std::atomic<int> Sticky{0};  ///< a sticky cudaError_t, 0 when none
};

struct DeviceTable {
  int Count = 0;
  std::unique_ptr<DeviceSlot[]> Slots;
};

DeviceTable &devices() {
  // Leaked: see Driver.cpp's state().
  static DeviceTable *T = [] {
    auto *T = new DeviceTable;
    if (driverInitResult() != cudaSuccess)
      return T;
    const DriverTable &D = driver();
    int N = 0;
    if (D.cuDeviceGetCount(&N) != CUDA_SUCCESS || N < 0)
      N = 0;
    T->Slots = std::make_unique<DeviceSlot[]>(N);
    for (int I = 0; I < N; ++I)
      if (D.cuDeviceGet(&T->Slots[I].Dev, I) != CUDA_SUCCESS)
        T->Slots[I].Dev = I;
    T->Count = N;
    return T;
  }();
  return *T;
}

/// The device cudaSetDevice chose on this thread; -1 means "not chosen":
/// a context made current through the driver API is then adopted, else
/// device 0 is used.
thread_local int ThreadDevice = -1;

int ordinalOf(CUdevice Dev) {
  DeviceTable &T = devices();
  for (int I = 0; I < T.Count; ++I)
    if (T.Slots[I].Dev == Dev)
      return I;
  return -1;
}

cudaError_t checkSticky(int Dev) {
  DeviceTable &T = devices();
  if (Dev < 0 || Dev >= T.Count)
    return cudaSuccess;
  return static_cast<cudaError_t>(T.Slots[Dev].Sticky.load(std::memory_order_relaxed));
}

/// The ordinal the runtime currently targets on this thread, without
/// creating a context.
int currentOrdinal() {
  if (ThreadDevice >= 0)
    return ThreadDevice;
  CUcontext Cur = nullptr;
  const DriverTable &D = driver();
  if (D.cuCtxGetCurrent(&Cur) == CUDA_SUCCESS && Cur) {
    CUdevice Dev;
    if (D.cuCtxGetDevice(&Dev, Cur) == CUDA_SUCCESS) {
      int Ord = ordinalOf(Dev);
      if (Ord >= 0)
        return Ord;
    }
  }
  return 0;
}

} // namespace

cudaError_t enterDriver() { return recordError(driverInitResult()); }

int deviceCount() { return driverInitResult() == cudaSuccess ? devices().Count : 0; }

cudaError_t deviceHandle(int Dev, CUdevice &Out) {
  DeviceTable &T = devices();
  if (Dev < 0 || Dev >= T.Count)
    return cudaErrorInvalidDevice;
  Out = T.Slots[Dev].Dev;
  return cudaSuccess;
}

cudaError_t primaryContext(int Dev, CUcontext &Out) {
  DeviceTable &T = devices();
  if (Dev < 0 || Dev >= T.Count)
    return cudaErrorInvalidDevice;
  DeviceSlot &S = T.Slots[Dev];
  std::lock_guard<std::mutex> Lock(S.Mutex);
  if (!S.Primary) {
    CUresult R = driver().cuDevicePrimaryCtxRetain(&S.Primary, S.Dev);
    if (R != CUDA_SUCCESS) {
      S.Primary = nullptr;
      logMessage("cannot retain the primary context of device %d", Dev);
      return toCudaError(R);
    }
  }
  Out = S.Primary;
  return cudaSuccess;
}

cudaError_t enter(Context &C) {
  if (cudaError_t E = enterDriver())
    return E;
  const DriverTable &D = driver();
  CUcontext Cur = nullptr;
  if (D.cuCtxGetCurrent(&Cur) != CUDA_SUCCESS)
    Cur = nullptr;
  if (ThreadDevice < 0 && Cur) {
    // Driver-API interop: a context the application made current is used
    // as is, as long as the driver still knows it.
    CUdevice Dev;
    if (D.cuCtxGetDevice(&Dev, Cur) == CUDA_SUCCESS) {
      int Ord = ordinalOf(Dev);
      if (Ord >= 0) {
        C.Ctx = Cur;
        C.Device = Ord;
        return recordError(checkSticky(Ord));
      }
    }
  }
  int Dev = ThreadDevice < 0 ? 0 : ThreadDevice;
  CUcontext Primary = nullptr;
  if (cudaError_t E = primaryContext(Dev, Primary))
    return recordError(E);
  if (Cur != Primary)
    if (CUresult R = D.cuCtxSetCurrent(Primary))
      return recordError(toCudaError(R));
  C.Ctx = Primary;
  C.Device = Dev;
  return recordError(checkSticky(Dev));
}

cudaError_t finish(CUresult R, int Device) {
  cudaError_t E = toCudaError(R);
  if (isStickyError(E)) {
    DeviceTable &T = devices();
    if (Device < 0)
      Device = ThreadDevice < 0 ? 0 : ThreadDevice;
    if (Device < T.Count) {
      int Expected = 0;
      T.Slots[Device].Sticky.compare_exchange_strong(Expected, E);
    }
  }
  return recordError(E);
}

} // namespace ferry::cudart

using namespace ferry::cudart;

namespace {

/// Fills cudaDeviceProp from the driver's per-device queries.
cudaError_t fillProperties(cudaDeviceProp &P, CUdevice Dev) {
  const DriverTable &D = driver();
  std::memset(&P, 0, sizeof(P));
  if (CUresult R = D.cuDeviceGetName(P.name, sizeof(P.name), Dev))
    return toCudaError(R);
  D.cuDeviceGetUuid(reinterpret_cast<CUuuid *>(&P.uuid), Dev);
  size_t Total = 0;
  if (D.cuDeviceTotalMem(&Total, Dev) == CUDA_SUCCESS)
    P.totalGlobalMem = Total;
  auto Get = [&](int Attr) {
    int V = 0;
    if (D.cuDeviceGetAttribute(&V, static_cast<CUdevice_attribute>(Attr), Dev) != CUDA_SUCCESS)
      V = 0;
    return V;
  };
  P.sharedMemPerBlock = Get(8);
  P.regsPerBlock = Get(12);
  P.warpSize = Get(10);
  P.memPitch = static_cast<size_t>(static_cast<unsigned>(Get(11)));
  P.maxThreadsPerBlock = Get(1);
  for (int I = 0; I < 3; ++I) {
    P.maxThreadsDim[I] = Get(2 + I);
    P.maxGridSize[I] = Get(5 + I);
  }
  P.totalConstMem = Get(9);
  P.major = Get(75);
  P.minor = Get(76);
  P.textureAlignment = Get(14);
  P.texturePitchAlignment = Get(51);
  P.multiProcessorCount = Get(16);
  P.integrated = Get(18);
  P.canMapHostMemory = Get(19);
  P.maxTexture1D = Get(21);
  P.maxTexture1DMipmap = Get(77);
  P.maxTexture2D[0] = Get(22), P.maxTexture2D[1] = Get(23);
  P.maxTexture2DMipmap[0] = Get(73), P.maxTexture2DMipmap[1] = Get(74);
  for (int I = 0; I < 3; ++I) {
    P.maxTexture2DLinear[I] = Get(70 + I);
    P.maxTexture3D[I] = Get(24 + I);
    P.maxTexture3DAlt[I] = Get(47 + I);
    P.maxTexture2DLayered[I] = Get(27 + I);
    P.maxSurface3D[I] = Get(58 + I);
    P.maxSurface2DLayered[I] = Get(63 + I);
  }
  P.maxTexture2DGather[0] = Get(45), P.maxTexture2DGather[1] = Get(46);
  P.maxTextureCubemap = Get(52);
  P.maxTexture1DLayered[0] = Get(42), P.maxTexture1DLayered[1] = Get(43);
  P.maxTextureCubemapLayered[0] = Get(53), P.maxTextureCubemapLayered[1] = Get(54);
  P.maxSurface1D = Get(55);
  P.maxSurface2D[0] = Get(56), P.maxSurface2D[1] = Get(57);
  P.maxSurface1DLayered[0] = Get(61), P.maxSurface1DLayered[1] = Get(62);
  P.maxSurfaceCubemap = Get(66);
  P.maxSurfaceCubemapLayered[0] = Get(67), P.maxSurfaceCubemapLayered[1] = Get(68);
  P.surfaceAlignment = Get(30);
  P.concurrentKernels = Get(31);
  P.ECCEnabled = Get(32);
  P.pciBusID = Get(33);
  P.pciDeviceID = Get(34);
  P.pciDomainID = Get(50);
  P.tccDriver = Get(35);
  P.asyncEngineCount = Get(40);
  P.unifiedAddressing = Get(41);
  P.memoryBusWidth = Get(37);
  P.l2CacheSize = Get(38);
  P.persistingL2CacheMaxSize = Get(108);
  P.maxThreadsPerMultiProcessor = Get(39);
  P.streamPrioritiesSupported = Get(78);
  P.globalL1CacheSupported = Get(79);
  P.localL1CacheSupported = Get(80);
  P.sharedMemPerMultiprocessor = Get(81);
  P.regsPerMultiprocessor = Get(82);
  P.managedMemory = Get(83);
  P.isMultiGpuBoard = Get(84);
  P.multiGpuBoardGroupID = Get(85);
  P.hostNativeAtomicSupported = Get(86);
  P.pageableMemoryAccess = Get(88);
  P.concurrentManagedAccess = Get(89);
  P.computePreemptionSupported = Get(90);
  P.canUseHostPointerForRegisteredMem = Get(91);
  P.cooperativeLaunch = Get(95);
  P.sharedMemPerBlockOptin = Get(97);
  P.pageableMemoryAccessUsesHostPageTables = Get(100);
  P.directManagedMemAccessFromHost = Get(101);
  P.maxBlocksPerMultiProcessor = Get(106);
  P.accessPolicyMaxWindowSize = Get(109);
  P.reservedSharedMemPerBlock = Get(111);
  P.hostRegisterSupported = Get(99);
  P.sparseCudaArraySupported = Get(112);
  P.hostRegisterReadOnlySupported = Get(113);
  P.timelineSemaphoreInteropSupported = Get(114);
  P.memoryPoolsSupported = Get(115);
  P.gpuDirectRDMASupported = Get(116);
  P.gpuDirectRDMAFlushWritesOptions = Get(117);
  P.gpuDirectRDMAWritesOrdering = Get(118);
  P.memoryPoolSupportedHandleTypes = Get(119);
  P.clusterLaunch = Get(120);
  P.deferredMappingCudaArraySupported = Get(121);
  P.ipcEventSupported = Get(125);
  P.unifiedFunctionPointers = Get(129);
  P.deviceNumaConfig = Get(130);
  P.deviceNumaId = Get(131);
  P.mpsEnabled = Get(133);
  P.hostNumaId = Get(134);
  P.gpuPciDeviceID = Get(139);
  P.gpuPciSubsystemID = Get(140);
  P.hostNumaMultinodeIpcSupported = Get(143);
  return cudaSuccess;
}

} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int *Count) {
  if (!Count)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver()) {
    *Count = 0;
    return E;
  }
  *Count = deviceCount();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int Dev) {
  if (cudaError_t E = enterDriver())
    return E;
  CUcontext Primary = nullptr;
  if (cudaError_t E = primaryContext(Dev, Primary))
    return recordError(E);
  if (CUresult R = driver().cuCtxSetCurrent(Primary))
    return finish(R, Dev);
  ThreadDevice = Dev;
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int Dev, unsigned int DeviceFlags, unsigned int Flags) {
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  if (Flags & ~static_cast<unsigned>(cudaInitDeviceFlagsAreValid))
    return recordError(cudaErrorInvalidValue);
  if (Flags & cudaInitDeviceFlagsAreValid)
    if (CUresult R = driver().cuDevicePrimaryCtxSetFlags(H, DeviceFlags & ~cudaDeviceMapHost))
      return finish(R, Dev);
  CUcontext Primary = nullptr;
  return recordError(primaryContext(Dev, Primary));
}

cudaError_t cudaGetDevice(int *Dev) {
  if (!Dev)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  *Dev = currentOrdinal();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *Prop, int Dev) {
  if (!Prop)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return recordError(fillProperties(*Prop, H));
}

cudaError_t cudaDeviceGetAttribute(int *Value, enum cudaDeviceAttr Attr, int Dev) {
  if (!Value)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  // cudaDeviceAttr and CUdevice_attribute share their values.
  return finish(driver().cuDeviceGetAttribute(Value, static_cast<CUdevice_attribute>(Attr), H),
                Dev);
}

cudaError_t cudaDeviceSynchronize(void) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuCtxSynchronize(C.Ctx), C.Device);
}

cudaError_t cudaDeviceReset(void) {
  if (cudaError_t E = enterDriver())
    return E;
  int Dev = currentOrdinal();
  DeviceTable &T = devices();
  if (Dev >= T.Count)
    return recordError(cudaErrorNoDevice);
  DeviceSlot &S = T.Slots[Dev];
  const DriverTable &D = driver();
  CUresult R = CUDA_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    CUcontext Cur = nullptr;
    D.cuCtxGetCurrent(&Cur);
    if (S.Primary && Cur == S.Primary)
      D.cuCtxSetCurrent(nullptr);
    // Reset tears the context down whoever else retained it; our own
    // reference is dropped with it, and the next call retains afresh.
    R = D.cuDevicePrimaryCtxReset(S.Dev);
    if (S.Primary)
      D.cuDevicePrimaryCtxRelease(S.Dev);
    S.Primary = nullptr;
    S.Sticky.store(0);
  }
  // The thread's last error survives a reset (observed on NVIDIA's).
  resetDeviceState(Dev);
  return recordError(toCudaError(R));
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit Limit, size_t Value) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUresult R = driver().cuCtxSetLimit(static_cast<CUlimit>(Limit), Value);
  // A limit number the driver does not know is an invalid argument (as the
  // H100 answers); a known limit the device cannot set is unsupported.
  if (R == CUDA_ERROR_UNSUPPORTED_LIMIT)
    return recordError(cudaErrorUnsupportedLimit);
  return finish(R, C.Device);
}

cudaError_t cudaDeviceGetLimit(size_t *Value, enum cudaLimit Limit) {
  if (!Value)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUresult R = driver().cuCtxGetLimit(Value, static_cast<CUlimit>(Limit));
  // A limit number the driver does not know is an invalid argument (as the
  // H100 answers); a known limit the device cannot set is unsupported.
  if (R == CUDA_ERROR_UNSUPPORTED_LIMIT)
    return recordError(cudaErrorUnsupportedLimit);
  return finish(R, C.Device);
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache Config) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuCtxSetCacheConfig(static_cast<CUfunc_cache>(Config)), C.Device);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *Config) {
  if (!Config)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUfunc_cache V{};
  CUresult R = driver().cuCtxGetCacheConfig(&V);
  if (R == CUDA_SUCCESS)
    *Config = static_cast<enum cudaFuncCache>(V);
  return finish(R, C.Device);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *Least, int *Greatest) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuCtxGetStreamPriorityRange(Least, Greatest), C.Device);
}

cudaError_t cudaSetDeviceFlags(unsigned int Flags) {
  if (cudaError_t E = enterDriver())
    return E;
  unsigned Sched = Flags & cudaDeviceScheduleMask;
  bool OneSchedule = Sched == 0 || Sched == cudaDeviceScheduleSpin ||
                     Sched == cudaDeviceScheduleYield || Sched == cudaDeviceScheduleBlockingSync;
  if ((Flags & ~static_cast<unsigned>(cudaDeviceMask)) || !OneSchedule)
    return recordError(cudaErrorInvalidValue);
  int Dev = currentOrdinal();
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  // Mapped host memory is always on (unified addressing); the driver's
  // primary-context flags know only scheduling and local-memory resize.
  return finish(driver().cuDevicePrimaryCtxSetFlags(H, Flags & ~cudaDeviceMapHost), Dev);
}

cudaError_t cudaGetDeviceFlags(unsigned int *Flags) {
  if (!Flags)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  int Dev = currentOrdinal();
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  unsigned V = 0;
  int Active = 0;
  CUresult R = driver().cuDevicePrimaryCtxGetState(H, &V, &Active);
  if (R == CUDA_SUCCESS)
    *Flags = V;
  return finish(R, Dev);
}

cudaError_t cudaChooseDevice(int *Device, const struct cudaDeviceProp *Prop) {
  if (!Device || !Prop)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  // The closest compute capability not below the request wins; if none
  // reaches it, the newest device.
  int Best = -1, BestScore = 0;
  for (int I = 0; I < deviceCount(); ++I) {
    int Major = 0, Minor = 0;
    CUdevice H = 0;
    deviceHandle(I, H);
    driver().cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, H);
    driver().cuDeviceGetAttribute(&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, H);
    int Have = Major * 10 + Minor, Want = Prop->major * 10 + Prop->minor;
    int Score = Have >= Want ? 100000 - (Have - Want) : Have;
    if (Best < 0 || Score > BestScore)
      Best = I, BestScore = Score;
  }
  if (Best < 0)
    return recordError(cudaErrorNoDevice);
  *Device = Best;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *CanAccess, int Dev, int Peer) {
  if (!CanAccess)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice A, B;
  if (cudaError_t E = deviceHandle(Dev, A))
    return recordError(E);
  if (cudaError_t E = deviceHandle(Peer, B))
    return recordError(E);
  if (Dev == Peer) {
    *CanAccess = 0;
    return cudaSuccess;
  }
  return finish(driver().cuDeviceCanAccessPeer(CanAccess, A, B));
}

cudaError_t cudaDeviceEnablePeerAccess(int Peer, unsigned int Flags) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUcontext PeerCtx;
  if (cudaError_t E = primaryContext(Peer, PeerCtx))
    return recordError(E);
  return finish(driver().cuCtxEnablePeerAccess(PeerCtx, Flags), C.Device);
}

cudaError_t cudaDeviceDisablePeerAccess(int Peer) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUcontext PeerCtx;
  if (cudaError_t E = primaryContext(Peer, PeerCtx))
    return recordError(E);
  return finish(driver().cuCtxDisablePeerAccess(PeerCtx), C.Device);
}

cudaError_t cudaDeviceGetPCIBusId(char *PciBusId, int Len, int Dev) {
  if (!PciBusId || Len <= 0)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceGetPCIBusId(PciBusId, Len, H));
}

cudaError_t cudaDeviceGetByPCIBusId(int *Device, const char *PciBusId) {
  if (!Device || !PciBusId)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  CUresult R = driver().cuDeviceGetByPCIBusId(&H, PciBusId);
  if (R != CUDA_SUCCESS)
    return finish(R);
  int Ord = ordinalOf(H);
  if (Ord < 0)
    return recordError(cudaErrorInvalidDevice);
  *Device = Ord;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *Version) {
  if (!Version)
    return recordError(cudaErrorInvalidValue);
  // No driver is not an error here: the documented answer is 0.
  *Version = driverVersion();
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *Version) {
  if (!Version)
    return recordError(cudaErrorInvalidValue);
  *Version = RuntimeVersion;
  return cudaSuccess;
}

} // extern "C"
