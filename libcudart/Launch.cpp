/// \file
/// Kernel launches (cudaLaunchKernel, the <<<>>> path through
/// __cudaLaunchKernel, cudaLaunchKernelExC, cooperative launches, host
/// functions), function attributes and occupancy.
///
/// Launches pass the CUkernel to cuLaunchKernel, as NVIDIA's runtime does:
/// the driver accepts a CUkernel wherever a launch takes a CUfunction and
/// picks the current context's instance.
#include "Runtime.h"

namespace ferry::cudart {
namespace {

bool badConfig(dim3 Grid, dim3 Block) {
  return !Grid.x || !Grid.y || !Grid.z || !Block.x || !Block.y || !Block.z;
}

/// Launch results map like any other: NVIDIA's CUDA 13 runtime reports a
/// bad configuration (zero or oversized dimensions, too much shared
/// memory) as cudaErrorInvalidValue, as the driver does (observed on H100).
cudaError_t finishLaunch(CUresult R, int Device) { return finish(R, Device); }

cudaError_t launch(const DriverTable &D, CUkernel Kernel, dim3 Grid, dim3 Block, void **Args,
                   size_t SharedMem, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (!Kernel) {
    cudaError_t Why = takeGetKernelError();
    return recordError(Why != cudaSuccess ? Why : cudaErrorInvalidResourceHandle);
  }
  if (badConfig(Grid, Block))
    return recordError(cudaErrorInvalidValue);
  CUresult R = D.cuLaunchKernel(reinterpret_cast<CUfunction>(Kernel), Grid.x, Grid.y, Grid.z,
                                Block.x, Block.y, Block.z, static_cast<unsigned>(SharedMem),
                                Stream, Args, nullptr);
  return finishLaunch(R, C.Device);
}

cudaError_t launchByStub(const DriverTable &D, const void *Func, dim3 Grid, dim3 Block,
                         void **Args, size_t SharedMem, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K = nullptr;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  return launch(D, K, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t launchEx(const DriverTable &D, const cudaLaunchConfig_t *Config, const void *Func,
                     void **Args) {
  if (!Config)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K = nullptr;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  if (badConfig(Config->gridDim, Config->blockDim))
    return recordError(cudaErrorInvalidValue);
  CUlaunchConfig L{};
  L.gridDimX = Config->gridDim.x;
  L.gridDimY = Config->gridDim.y;
  L.gridDimZ = Config->gridDim.z;
  L.blockDimX = Config->blockDim.x;
  L.blockDimY = Config->blockDim.y;
  L.blockDimZ = Config->blockDim.z;
  L.sharedMemBytes = static_cast<unsigned>(Config->dynamicSmemBytes);
  L.hStream = Config->stream;
  // cudaLaunchAttribute and CUlaunchAttribute share their layout and ids.
  static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute));
  L.attrs = reinterpret_cast<CUlaunchAttribute *>(Config->attrs);
  L.numAttrs = Config->numAttrs;
  return finishLaunch(D.cuLaunchKernelEx(&L, reinterpret_cast<CUfunction>(K), Args, nullptr),
                      C.Device);
}

cudaError_t launchCooperative(const DriverTable &D, const void *Func, dim3 Grid, dim3 Block,
                              void **Args, size_t SharedMem, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K = nullptr;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  if (badConfig(Grid, Block))
    return recordError(cudaErrorInvalidValue);
  CUresult R = D.cuLaunchCooperativeKernel(reinterpret_cast<CUfunction>(K), Grid.x, Grid.y,
                                           Grid.z, Block.x, Block.y, Block.z,
                                           static_cast<unsigned>(SharedMem), Stream, Args);
  return finishLaunch(R, C.Device);
}

cudaError_t launchHostFunc(const DriverTable &D, cudaStream_t Stream, cudaHostFn_t Fn,
                           void *UserData) {
  if (!Fn)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(D.cuLaunchHostFunc(Stream, Fn, UserData), C.Device);
}

/// The kernel of \p Func and the driver device of the current context.
cudaError_t kernelAndDevice(const void *Func, Context &C, CUkernel &K, CUdevice &Dev) {
  if (cudaError_t E = enter(C))
    return E;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  return recordError(deviceHandle(C.Device, Dev));
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

cudaError_t cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block, void **Args,
                             size_t SharedMem, cudaStream_t Stream) {
  return launchByStub(driver(false), Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *Func, dim3 Grid, dim3 Block, void **Args,
                                  size_t SharedMem, cudaStream_t Stream) {
  return launchByStub(driver(true), Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t Kernel, dim3 Grid, dim3 Block, void **Args,
                               size_t SharedMem, cudaStream_t Stream) {
  return launch(driver(false), Kernel, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t Kernel, dim3 Grid, dim3 Block, void **Args,
                                    size_t SharedMem, cudaStream_t Stream) {
  return launch(driver(true), Kernel, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *Config, const void *Func, void **Args) {
  return launchEx(driver(false), Config, Func, Args);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *Config, const void *Func,
                                     void **Args) {
  return launchEx(driver(true), Config, Func, Args);
}

cudaError_t cudaLaunchCooperativeKernel(const void *Func, dim3 Grid, dim3 Block, void **Args,
                                        size_t SharedMem, cudaStream_t Stream) {
  return launchCooperative(driver(false), Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *Func, dim3 Grid, dim3 Block,
                                             void **Args, size_t SharedMem,
                                             cudaStream_t Stream) {
  return launchCooperative(driver(true), Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t Stream, cudaHostFn_t Fn, void *UserData) {
  return launchHostFunc(driver(false), Stream, Fn, UserData);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t Stream, cudaHostFn_t Fn, void *UserData) {
  return launchHostFunc(driver(true), Stream, Fn, UserData);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *Attr, const void *Func) {
  if (!Attr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  CUkernel K;
  CUdevice Dev;
  if (cudaError_t E = kernelAndDevice(Func, C, K, Dev))
    return E;
  int V[CU_FUNC_ATTRIBUTE_MAX] = {};
  for (int I = 0; I < CU_FUNC_ATTRIBUTE_MAX; ++I) {
    CUresult R = driver().cuKernelGetAttribute(&V[I], static_cast<CUfunction_attribute>(I), K, Dev);
    // The first few attributes always exist; a driver without the newer
    // cluster attributes reports them as 0.
    if (R != CUDA_SUCCESS && I <= CU_FUNC_ATTRIBUTE_BINARY_VERSION)
      return finish(R, C.Device);
    if (R != CUDA_SUCCESS)
      V[I] = 0;
  }
  *Attr = {};
  Attr->maxThreadsPerBlock = V[CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK];
  Attr->sharedSizeBytes = V[CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES];
  Attr->constSizeBytes = V[CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES];
  Attr->localSizeBytes = V[CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES];
  Attr->numRegs = V[CU_FUNC_ATTRIBUTE_NUM_REGS];
  Attr->ptxVersion = V[CU_FUNC_ATTRIBUTE_PTX_VERSION];
  Attr->binaryVersion = V[CU_FUNC_ATTRIBUTE_BINARY_VERSION];
  Attr->cacheModeCA = V[CU_FUNC_ATTRIBUTE_CACHE_MODE_CA];
  Attr->maxDynamicSharedSizeBytes = V[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES];
  Attr->preferredShmemCarveout = V[CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT];
  Attr->clusterDimMustBeSet = V[CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET];
  Attr->requiredClusterWidth = V[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
  Attr->requiredClusterHeight = V[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT];
  Attr->requiredClusterDepth = V[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH];
  Attr->nonPortableClusterSizeAllowed = V[CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED];
  Attr->clusterSchedulingPolicyPreference =
      V[CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE];
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *Func, enum cudaFuncAttribute Attr, int Value) {
  Context C;
  CUkernel K;
  CUdevice Dev;
  if (cudaError_t E = kernelAndDevice(Func, C, K, Dev))
    return E;
  return finish(
      driver().cuKernelSetAttribute(static_cast<CUfunction_attribute>(Attr), Value, K, Dev),
      C.Device);
}

cudaError_t cudaFuncSetCacheConfig(const void *Func, enum cudaFuncCache Config) {
  Context C;
  CUkernel K;
  CUdevice Dev;
  if (cudaError_t E = kernelAndDevice(Func, C, K, Dev))
    return E;
  return finish(driver().cuKernelSetCacheConfig(K, static_cast<CUfunc_cache>(Config), Dev),
                C.Device);
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *Function, const void *Symbol) {
  if (!Function)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K;
  if (cudaError_t E = lookupKernel(Symbol, K))
    return recordError(E);
  return finish(driver().cuKernelGetFunction(Function, K), C.Device);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *NumBlocks,
                                                                   const void *Func,
                                                                   int BlockSize,
                                                                   size_t DynamicSMemSize,
                                                                   unsigned int Flags) {
  if (!NumBlocks || BlockSize <= 0)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  CUfunction F;
  if (CUresult R = driver().cuKernelGetFunction(&F, K))
    return finish(R, C.Device);
  return finish(driver().cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                    NumBlocks, F, BlockSize, DynamicSMemSize, Flags),
                C.Device);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *NumBlocks, const void *Func,
                                                          int BlockSize, size_t DynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(NumBlocks, Func, BlockSize,
                                                                DynamicSMemSize,
                                                                cudaOccupancyDefault);
}

} // extern "C"
