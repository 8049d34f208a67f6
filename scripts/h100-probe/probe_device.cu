// Records what an NVIDIA GPU reports, for ferry's device profiles
// (libcuda/profiles/): every CUdevice_attribute, name, memory, limits,
// cudaDeviceProp, persisting-L2 / access-policy / compression behaviour,
// and occupancy answers for kernels whose register use ptxas reports.
// Build: nvcc -arch=sm_90 -Xptxas -v probe_device.cu -lcuda -o probe_device
// Output lines are "key value..." so a test can read them back.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#define PRINT_RESULT(What, Call)                                               \
  do {                                                                         \
    auto R_ = (Call);                                                          \
    std::printf("result %s %d\n", What, int(R_));                              \
  } while (0)

// Kernels of increasing register pressure; ptxas -v reports their counts
// (and cudaFuncGetAttributes below records them on the device).
__global__ void kTiny(int *P) { P[threadIdx.x] = threadIdx.x; }

__global__ void kMedium(const float *A, float *B, int N) {
  float Acc[12];
#pragma unroll
  for (int I = 0; I < 12; ++I)
    Acc[I] = A[(threadIdx.x + I * 37) % N];
  for (int It = 0; It < N; ++It) {
#pragma unroll
    for (int I = 0; I < 12; ++I)
      Acc[I] = Acc[I] * Acc[(I + 1) % 12] + A[(It + I) % N];
  }
  float S = 0;
#pragma unroll
  for (int I = 0; I < 12; ++I)
    S += Acc[I];
  B[threadIdx.x] = S;
}

template <int NAcc> __global__ void kHeavy(const float *A, float *B, int N) {
  float Acc[NAcc];
#pragma unroll
  for (int I = 0; I < NAcc; ++I)
    Acc[I] = A[(threadIdx.x + I * 37) % N];
  for (int It = 0; It < N; ++It) {
#pragma unroll
    for (int I = 0; I < NAcc; ++I)
      Acc[I] = Acc[I] * Acc[(I + 7) % NAcc] + A[(It * 3 + I) % N];
  }
  float S = 0;
#pragma unroll
  for (int I = 0; I < NAcc; ++I)
    S += Acc[I] * float(I);
  B[threadIdx.x] = S;
}

__global__ void kStaticSmem(float *P) {
  __shared__ float Tile[3000]; // 12000 bytes
  Tile[threadIdx.x] = P[threadIdx.x];
  __syncthreads();
  P[threadIdx.x] = Tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void __launch_bounds__(256, 4) kBounded(const float *A, float *B, int N) {
  float Acc[40];
#pragma unroll
  for (int I = 0; I < 40; ++I)
    Acc[I] = A[(threadIdx.x + I * 37) % N];
  for (int It = 0; It < N; ++It) {
#pragma unroll
    for (int I = 0; I < 40; ++I)
      Acc[I] = Acc[I] * Acc[(I + 7) % 40] + A[(It * 3 + I) % N];
  }
  float S = 0;
#pragma unroll
  for (int I = 0; I < 40; ++I)
    S += Acc[I] * float(I);
  B[threadIdx.x] = S;
}

__global__ void kDynSmem(float *P) {
  extern __shared__ float Dyn[];
  Dyn[threadIdx.x] = P[threadIdx.x];
  __syncthreads();
  P[threadIdx.x] = Dyn[(threadIdx.x + 1) % blockDim.x];
}

static size_t smemFor(int Block) { return size_t(Block) * 40; }

template <typename K> static void occupancy(const char *Name, K Kernel) {
  cudaFuncAttributes A;
  cudaFuncGetAttributes(&A, Kernel);
  std::printf("func %s regs %d static_smem %zu max_threads %d local %zu max_dyn %d\n", Name, A.numRegs,
              A.sharedSizeBytes, A.maxThreadsPerBlock, A.localSizeBytes, A.maxDynamicSharedSizeBytes);
  const int Blocks[] = {1, 32, 33, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024};
  const size_t Smems[] = {0, 1, 1024, 3000, 4096, 10000, 16384, 32768, 49152};
  for (int B : Blocks)
    for (size_t S : Smems) {
      int N = -1;
      cudaError_t E = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&N, Kernel, B, S);
      std::printf("occ %s %d %zu %d %d\n", Name, B, S, int(E), N);
    }
  // Opted in to a larger dynamic shared memory.
  cudaError_t E = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  std::printf("optin %s %d\n", Name, int(E));
  const size_t Big[] = {50000, 65536, 100000, 150000, 200000, 227000, 232448};
  for (int B : {32, 128, 256, 1024})
    for (size_t S : Big) {
      int N = -1;
      cudaError_t E2 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&N, Kernel, B, S);
      std::printf("occ %s %d %zu %d %d\n", Name, B, S, int(E2), N);
    }
  cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  for (size_t S : {size_t(0), size_t(4096)}) {
    int MinGrid = -1, Block = -1;
    cudaError_t E3 = cudaOccupancyMaxPotentialBlockSize(&MinGrid, &Block, Kernel, S, 0);
    std::printf("potential %s %zu %d %d %d\n", Name, S, int(E3), MinGrid, Block);
  }
  int MinGrid = -1, Block = -1;
  cudaError_t E4 = cudaOccupancyMaxPotentialBlockSizeVariableSMem(&MinGrid, &Block, Kernel, smemFor, 0);
  std::printf("potential_var %s %d %d %d\n", Name, int(E4), MinGrid, Block);
  for (int B : {32, 128, 256, 1024})
    for (int NB : {1, 2, 4, 8}) {
      size_t Avail = 0;
      cudaError_t E5 = cudaOccupancyAvailableDynamicSMemPerBlock(&Avail, Kernel, NB, B);
      std::printf("avail_smem %s %d %d %d %zu\n", Name, NB, B, int(E5), Avail);
    }
  // The carveout preference changes the answer on a GPU.
  for (int Carve : {0, 25, 50, 100}) {
    cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout, Carve);
    for (int B : {128, 256})
      for (size_t S : {size_t(0), size_t(4096), size_t(16384)}) {
        int N = -1;
        cudaError_t E6 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&N, Kernel, B, S);
        std::printf("occ_carve %s %d %d %zu %d %d\n", Name, Carve, B, S, int(E6), N);
      }
  }
  cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout, -1);
}

int main() {
  cuInit(0);
  CUdevice Dev;
  cuDeviceGet(&Dev, 0);
  char Name[256];
  cuDeviceGetName(Name, sizeof(Name), Dev);
  std::printf("name %s\n", Name);
  size_t Total = 0;
  cuDeviceTotalMem(&Total, Dev);
  std::printf("total_mem %zu\n", Total);
  int Major = 0, Minor = 0;
  cuDeviceComputeCapability(&Major, &Minor, Dev);
  std::printf("cc %d %d\n", Major, Minor);
  int DrvVer = 0, RtVer = 0;
  cuDriverGetVersion(&DrvVer);
  cudaRuntimeGetVersion(&RtVer);
  std::printf("driver_version %d\nruntime_version %d\n", DrvVer, RtVer);
  for (int A = 1; A <= int(CU_DEVICE_ATTRIBUTE_MAX) + 8; ++A) {
    int V = 0;
    CUresult R = cuDeviceGetAttribute(&V, CUdevice_attribute(A), Dev);
    if (R == CUDA_SUCCESS)
      std::printf("attr %d %d\n", A, V);
    else
      std::printf("attr %d err %d\n", A, int(R));
  }
  for (int A = 1; A <= 140; ++A) {
    int V = 0;
    cudaError_t R = cudaDeviceGetAttribute(&V, cudaDeviceAttr(A), 0);
    if (R == cudaSuccess)
      std::printf("rtattr %d %d\n", A, V);
    else
      std::printf("rtattr %d err %d\n", A, int(R));
    cudaGetLastError();
  }
  const CUarray_format Fmts[] = {CU_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_FLOAT, CU_AD_FORMAT_HALF};
  for (CUarray_format F : Fmts)
    for (unsigned C : {1u, 2u, 4u}) {
      size_t W = 0;
      CUresult R = cuDeviceGetTexture1DLinearMaxWidth(&W, F, C, Dev);
      std::printf("tex1d_linear_max %d %u %d %zu\n", int(F), C, int(R), W);
    }

  cudaDeviceProp P;
  cudaGetDeviceProperties(&P, 0);
#define F(Field) std::printf("prop %s %lld\n", #Field, (long long)P.Field)
#define F2(Field) std::printf("prop %s %lld %lld\n", #Field, (long long)P.Field[0], (long long)P.Field[1])
#define F3(Field)                                                              \
  std::printf("prop %s %lld %lld %lld\n", #Field, (long long)P.Field[0], (long long)P.Field[1], (long long)P.Field[2])
  std::printf("prop name %s\n", P.name);
  F(luidDeviceNodeMask); F(totalGlobalMem); F(sharedMemPerBlock); F(regsPerBlock); F(warpSize); F(memPitch);
  F(maxThreadsPerBlock); F3(maxThreadsDim); F3(maxGridSize); F(totalConstMem); F(major); F(minor);
  F(textureAlignment); F(texturePitchAlignment); F(multiProcessorCount); F(integrated); F(canMapHostMemory);
  F(maxTexture1D); F(maxTexture1DMipmap); F2(maxTexture2D); F2(maxTexture2DMipmap); F3(maxTexture2DLinear);
  F2(maxTexture2DGather); F3(maxTexture3D); F3(maxTexture3DAlt); F(maxTextureCubemap); F2(maxTexture1DLayered);
  F3(maxTexture2DLayered); F2(maxTextureCubemapLayered); F(maxSurface1D); F2(maxSurface2D); F3(maxSurface3D);
  F2(maxSurface1DLayered); F3(maxSurface2DLayered); F(maxSurfaceCubemap); F2(maxSurfaceCubemapLayered);
  F(surfaceAlignment); F(concurrentKernels); F(ECCEnabled); F(tccDriver); F(asyncEngineCount);
  F(unifiedAddressing); F(memoryBusWidth); F(l2CacheSize); F(persistingL2CacheMaxSize);
  F(maxThreadsPerMultiProcessor); F(streamPrioritiesSupported); F(globalL1CacheSupported);
  F(localL1CacheSupported); F(sharedMemPerMultiprocessor); F(regsPerMultiprocessor); F(managedMemory);
  F(isMultiGpuBoard); F(multiGpuBoardGroupID); F(hostNativeAtomicSupported); F(pageableMemoryAccess);
  F(concurrentManagedAccess); F(computePreemptionSupported); F(canUseHostPointerForRegisteredMem);
  F(cooperativeLaunch); F(sharedMemPerBlockOptin); F(pageableMemoryAccessUsesHostPageTables);
  F(directManagedMemAccessFromHost); F(maxBlocksPerMultiProcessor); F(accessPolicyMaxWindowSize);
  F(reservedSharedMemPerBlock); F(hostRegisterSupported); F(sparseCudaArraySupported);
  F(hostRegisterReadOnlySupported); F(timelineSemaphoreInteropSupported); F(memoryPoolsSupported);
  F(gpuDirectRDMASupported); F(gpuDirectRDMAFlushWritesOptions); F(gpuDirectRDMAWritesOrdering);
  F(memoryPoolSupportedHandleTypes); F(deferredMappingCudaArraySupported); F(ipcEventSupported);
  F(clusterLaunch); F(unifiedFunctionPointers); F(deviceNumaConfig); F(deviceNumaId); F(mpsEnabled);
  F(hostNumaId); F(gpuPciDeviceID); F(gpuPciSubsystemID); F(hostNumaMultinodeIpcSupported);
#undef F
#undef F2
#undef F3

  // Limits: defaults, then what a set reads back as.
  const char *LimitNames[] = {"stack", "printf_fifo", "malloc_heap", "sync_depth", "pending_launch",
                              "max_l2_fetch", "persisting_l2"};
  for (int L = 0; L < 7; ++L) {
    size_t V = 0;
    cudaError_t R = cudaDeviceGetLimit(&V, cudaLimit(L));
    std::printf("limit %s %d %zu\n", LimitNames[L], int(R), V);
  }
  cudaGetLastError();
  for (size_t Want : {size_t(0), size_t(1), size_t(1000), size_t(1 << 20), size_t(5 << 20), size_t(30 << 20),
                      size_t(100) << 20}) {
    cudaError_t R = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, Want);
    size_t Got = 0;
    cudaError_t R2 = cudaDeviceGetLimit(&Got, cudaLimitPersistingL2CacheSize);
    std::printf("persisting_set %zu %d %d %zu\n", Want, int(R), int(R2), Got);
    cudaGetLastError();
  }
  for (size_t Want : {size_t(0), size_t(32), size_t(64), size_t(100), size_t(128), size_t(256)}) {
    cudaError_t R = cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, Want);
    size_t Got = 0;
    cudaDeviceGetLimit(&Got, cudaLimitMaxL2FetchGranularity);
    std::printf("fetch_granularity_set %zu %d %zu\n", Want, int(R), Got);
    cudaGetLastError();
  }
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  PRINT_RESULT("reset_persisting", cudaCtxResetPersistingL2Cache());

  // Stream access policy windows: accepted values and what reads back.
  cudaStream_t S;
  cudaStreamCreate(&S);
  void *Buf = nullptr;
  cudaMalloc(&Buf, 64 << 20);
  struct Win {
    size_t Bytes;
    float Ratio;
    int Hit, Miss;
  } Wins[] = {{1 << 20, 0.6f, int(cudaAccessPropertyPersisting), int(cudaAccessPropertyStreaming)},
              {size_t(16) << 20, 1.0f, int(cudaAccessPropertyPersisting), int(cudaAccessPropertyNormal)},
              {size_t(200) << 20, 0.5f, int(cudaAccessPropertyPersisting), int(cudaAccessPropertyStreaming)},
              {1000, 1.5f, int(cudaAccessPropertyPersisting), int(cudaAccessPropertyStreaming)},
              {4096, -0.5f, int(cudaAccessPropertyPersisting), int(cudaAccessPropertyStreaming)},
              {4096, 0.25f, int(cudaAccessPropertyStreaming), int(cudaAccessPropertyPersisting)},
              {0, 0.f, int(cudaAccessPropertyNormal), int(cudaAccessPropertyNormal)}};
  for (const Win &W : Wins) {
    cudaStreamAttrValue V;
    std::memset(&V, 0, sizeof(V));
    V.accessPolicyWindow.base_ptr = Buf;
    V.accessPolicyWindow.num_bytes = W.Bytes;
    V.accessPolicyWindow.hitRatio = W.Ratio;
    V.accessPolicyWindow.hitProp = cudaAccessProperty(W.Hit);
    V.accessPolicyWindow.missProp = cudaAccessProperty(W.Miss);
    cudaError_t R = cudaStreamSetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &V);
    cudaStreamAttrValue G;
    std::memset(&G, 0xff, sizeof(G));
    cudaError_t R2 = cudaStreamGetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &G);
    std::printf("stream_window %zu %a %d %d -> %d %d base_same %d %zu %a %d %d\n", W.Bytes, W.Ratio, W.Hit, W.Miss,
                int(R), int(R2), int(G.accessPolicyWindow.base_ptr == Buf), G.accessPolicyWindow.num_bytes,
                G.accessPolicyWindow.hitRatio, int(G.accessPolicyWindow.hitProp), int(G.accessPolicyWindow.missProp));
    cudaGetLastError();
  }
  // A fresh stream's window.
  {
    cudaStream_t S2;
    cudaStreamCreate(&S2);
    cudaStreamAttrValue G;
    std::memset(&G, 0xff, sizeof(G));
    cudaError_t R = cudaStreamGetAttribute(S2, cudaStreamAttributeAccessPolicyWindow, &G);
    std::printf("stream_window_fresh %d base_null %d %zu %a %d %d\n", int(R), int(G.accessPolicyWindow.base_ptr == nullptr),
                G.accessPolicyWindow.num_bytes, G.accessPolicyWindow.hitRatio, int(G.accessPolicyWindow.hitProp),
                int(G.accessPolicyWindow.missProp));
    cudaStreamDestroy(S2);
  }
  // A graph kernel node's window.
  {
    cudaGraph_t G;
    cudaGraphCreate(&G, 0);
    cudaKernelNodeParams KP;
    std::memset(&KP, 0, sizeof(KP));
    int *IP = static_cast<int *>(Buf);
    void *Args[] = {&IP};
    KP.func = reinterpret_cast<void *>(kTiny);
    KP.gridDim = dim3(1);
    KP.blockDim = dim3(32);
    KP.kernelParams = Args;
    cudaGraphNode_t N;
    PRINT_RESULT("graph_add_kernel", cudaGraphAddKernelNode(&N, G, nullptr, 0, &KP));
    cudaKernelNodeAttrValue V;
    std::memset(&V, 0, sizeof(V));
    V.accessPolicyWindow.base_ptr = Buf;
    V.accessPolicyWindow.num_bytes = 2 << 20;
    V.accessPolicyWindow.hitRatio = 0.75f;
    V.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    V.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaError_t R = cudaGraphKernelNodeSetAttribute(N, cudaKernelNodeAttributeAccessPolicyWindow, &V);
    cudaKernelNodeAttrValue Got;
    std::memset(&Got, 0xff, sizeof(Got));
    cudaError_t R2 = cudaGraphKernelNodeGetAttribute(N, cudaKernelNodeAttributeAccessPolicyWindow, &Got);
    std::printf("node_window %d %d base_same %d %zu %a %d %d\n", int(R), int(R2),
                int(Got.accessPolicyWindow.base_ptr == Buf), Got.accessPolicyWindow.num_bytes,
                Got.accessPolicyWindow.hitRatio, int(Got.accessPolicyWindow.hitProp),
                int(Got.accessPolicyWindow.missProp));
    cudaGraphExec_t E;
    PRINT_RESULT("graph_instantiate", cudaGraphInstantiate(&E, G, 0));
    PRINT_RESULT("graph_launch", cudaGraphLaunch(E, S));
    PRINT_RESULT("graph_sync", cudaStreamSynchronize(S));
    cudaGraphExecDestroy(E);
    cudaGraphDestroy(G);
  }
  // Launch with a window set on the stream.
  kTiny<<<1, 32, 0, S>>>(static_cast<int *>(Buf));
  PRINT_RESULT("window_launch", cudaStreamSynchronize(S));

  // Compressible memory through the VMM API.
  for (int Comp : {0, 1}) {
    CUmemAllocationProp AP;
    std::memset(&AP, 0, sizeof(AP));
    AP.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    AP.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    AP.location.id = Dev;
    AP.allocFlags.compressionType = Comp ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;
    size_t Gran = 0, GranRec = 0;
    CUresult R1 = cuMemGetAllocationGranularity(&Gran, &AP, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUresult R2 = cuMemGetAllocationGranularity(&GranRec, &AP, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    std::printf("vmm_granularity comp %d %d %zu %d %zu\n", Comp, int(R1), Gran, int(R2), GranRec);
    CUmemGenericAllocationHandle H;
    CUresult R3 = cuMemCreate(&H, Gran ? Gran : (2 << 20), &AP, 0);
    CUmemAllocationProp Back;
    std::memset(&Back, 0xee, sizeof(Back));
    CUresult R4 = R3 == CUDA_SUCCESS ? cuMemGetAllocationPropertiesFromHandle(&Back, H) : CUDA_ERROR_UNKNOWN;
    std::printf("vmm_create comp %d %d %d type %d loc %d %d comp %d gpuDirect %d usage %d handle %d\n", Comp,
                int(R3), int(R4), int(Back.type), int(Back.location.type), Back.location.id,
                int(Back.allocFlags.compressionType), int(Back.allocFlags.gpuDirectRDMACapable),
                int(Back.allocFlags.usage), int(Back.requestedHandleTypes));
    if (R3 == CUDA_SUCCESS) {
      CUdeviceptr Ptr = 0;
      CUresult R5 = cuMemAddressReserve(&Ptr, Gran, 0, 0, 0);
      CUresult R6 = cuMemMap(Ptr, Gran, 0, H, 0);
      CUmemAccessDesc AD;
      AD.location = AP.location;
      AD.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      CUresult R7 = cuMemSetAccess(Ptr, Gran, &AD, 1);
      CUmemGenericAllocationHandle H2;
      CUresult R8 = cuMemRetainAllocationHandle(&H2, reinterpret_cast<void *>(Ptr));
      CUmemAllocationProp Back2;
      std::memset(&Back2, 0xee, sizeof(Back2));
      CUresult R9 = R8 == CUDA_SUCCESS ? cuMemGetAllocationPropertiesFromHandle(&Back2, H2) : CUDA_ERROR_UNKNOWN;
      int Attr = -1;
      CUresult R10 = cuPointerGetAttribute(&Attr, CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, Ptr);
      CUmemAllocationProp PA;
      std::memset(&PA, 0, sizeof(PA));
      std::printf("vmm_map comp %d %d %d %d %d %d retained_comp %d rdma %d %d\n", Comp, int(R5), int(R6), int(R7),
                  int(R8), int(R9), int(Back2.allocFlags.compressionType), int(R10), Attr);
      cuMemsetD8(Ptr, 7, Gran);
      unsigned char Host[4] = {0, 0, 0, 0};
      cuMemcpyDtoH(Host, Ptr, 4);
      std::printf("vmm_data comp %d %d\n", Comp, int(Host[3]));
      if (R8 == CUDA_SUCCESS)
        cuMemRelease(H2);
      cuMemUnmap(Ptr, Gran);
      cuMemAddressFree(Ptr, Gran);
      cuMemRelease(H);
    }
  }

  occupancy("tiny", kTiny);
  occupancy("medium", kMedium);
  occupancy("heavy", kHeavy<40>);
  occupancy("huge", kHeavy<100>);
  occupancy("max", kHeavy<250>);
  occupancy("static_smem", kStaticSmem);
  occupancy("bounded", kBounded);
  occupancy("dyn_smem", kDynSmem);
  std::printf("last_error %d\n", int(cudaGetLastError()));
  std::printf("done\n");
  return 0;
}
