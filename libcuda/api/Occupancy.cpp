/// \file
/// The occupancy calculator (cuOccupancy*). It applies NVIDIA's documented
/// model to the device's reported limits: resident blocks per
/// multiprocessor are bounded by threads (in whole warps), by blocks, by
/// shared memory (static + dynamic) and by registers. The host backend's
/// limits are those it reports through cuDeviceGetAttribute, so programs
/// that size cooperative grids from these answers get grids the executor
/// accepts (every block of a cooperative launch must be resident at once).
#include "libcuda/api/Common.h"

#include <algorithm>

using namespace ferry;
using namespace ferry::api;
using core::Kernel;

namespace {

struct Bound {
  const DeviceProperties *P = nullptr;
  const KernelInfo *Info = nullptr;
  Kernel *K = nullptr;
  core::DeviceEntry *Dev = nullptr;
};

/// Resolves the function and the current context's device, compiling the
/// kernel so its static shared size and limits are known.
Expected<Bound> bind(CUfunction F) {
  auto K = core::resolve<Kernel>(F);
  if (!K)
    return K.takeError();
  auto C = core::currentContext();
  if (!C)
    return C.takeError();
  core::DeviceEntry &D = (*C)->device();
  auto Code = (*K)->library().kernelCode(D, (*K)->name(), "occupancy query");
  if (!Code)
    return Code.takeError();
  Bound B;
  B.P = &D.Backend->properties();
  B.Info = Code->Info;
  B.K = K->get();
  B.Dev = &D;
  // The LoadedCode stays alive with the library; Info points into it.
  return B;
}

uint32_t kernelMaxThreads(const Bound &B) {
  uint32_t Max = uint32_t(B.P->MaxThreadsPerBlock);
  if (B.Info->MaxThreadsPerBlock)
    Max = std::min(Max, B.Info->MaxThreadsPerBlock);
  return Max;
}

/// Resident blocks of BlockSize threads with DynSmem bytes of dynamic shared
/// memory on one multiprocessor; 0 when such a block cannot run at all.
int activeBlocks(const Bound &B, int BlockSize, size_t DynSmem) {
  if (BlockSize <= 0)
    return 0;
  OccupancyInput In;
  In.Registers = B.Info->Registers ? B.Info->Registers : 32;
  In.StaticShared = B.Info->StaticSharedBytes;
  int Set = B.K->MaxDynamicShared.load();
  In.DynamicSharedLimit = Set ? size_t(Set) : sharedLimit(*B.P, *B.K) - std::min<size_t>(In.StaticShared, sharedLimit(*B.P, *B.K));
  In.CarveoutPercent = B.K->PreferredCarveout.load();
  if (B.Info->ResidentBlocks) {
    // The backend's model (AMD); CUDA's shared memory limit still holds.
    if (DynSmem > In.DynamicSharedLimit)
      return 0;
    return std::clamp(B.Info->ResidentBlocks(BlockSize, DynSmem), 0, B.P->MaxBlocksPerMultiprocessor);
  }
  return occupancyBlocks(*B.P, In, BlockSize, DynSmem);
}

// CU_OCCUPANCY_DEFAULT (0) and CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE (1).
constexpr unsigned KnownOccupancyFlags = 0x1;

} // namespace

int ferry::api::residentBlocks(const DeviceProperties &P, const KernelInfo &Info, core::Kernel &K,
                               int BlockSize, size_t DynSmem) {
  Bound B;
  B.P = &P;
  B.Info = &Info;
  B.K = &K;
  return activeBlocks(B, BlockSize, DynSmem);
}

FERRY_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                                           int blockSize, size_t dynamicSMemSize,
                                                                           unsigned int flags) {
  if (!numBlocks)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "numBlocks is null");
  if (flags & ~KnownOccupancyFlags)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown flags");
  auto B = bind(func);
  if (!B)
    return fail(__func__, B.error());
  if (blockSize <= 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "blockSize must be positive");
  *numBlocks = activeBlocks(*B, blockSize, dynamicSMemSize);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                                  size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

static CUresult potentialBlockSize(const char *Fn, int *minGridSize, int *blockSize, CUfunction func,
                                   CUoccupancyB2DSize ToSmem, size_t dynamicSMemSize, int blockSizeLimit,
                                   unsigned flags) {
  if (!minGridSize || !blockSize)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "minGridSize or blockSize is null");
  if (flags & ~KnownOccupancyFlags)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown flags");
  auto B = bind(func);
  if (!B)
    return fail(Fn, B.error());
  int Warp = std::max(B->P->WarpSize, 1);
  int Limit = int(kernelMaxThreads(*B));
  if (blockSizeLimit > 0)
    Limit = std::min(Limit, blockSizeLimit);
  // The largest block size reaching the best occupancy (threads resident
  // per multiprocessor), as NVIDIA's calculator prefers.
  int BestSize = 0, BestBlocks = 0;
  long BestThreads = -1;
  for (int Size = Limit; Size > 0; Size = Size % Warp ? Size / Warp * Warp : Size - Warp) {
    size_t Dyn = ToSmem ? ToSmem(Size) : dynamicSMemSize;
    int Blocks = activeBlocks(*B, Size, Dyn);
    long Threads = long(Blocks) * Size;
    if (Threads > BestThreads) {
      BestThreads = Threads;
      BestSize = Size;
      BestBlocks = Blocks;
    }
  }
  *blockSize = BestSize;
  *minGridSize = BestBlocks * B->P->MultiprocessorCount;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                       CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                       size_t dynamicSMemSize, int blockSizeLimit) {
  return potentialBlockSize(__func__, minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                            blockSizeLimit, 0);
}

FERRY_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                                CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                                size_t dynamicSMemSize, int blockSizeLimit,
                                                                unsigned int flags) {
  return potentialBlockSize(__func__, minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                            blockSizeLimit, flags);
}

FERRY_EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                              int numBlocks, int blockSize) {
  if (!dynamicSmemSize)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dynamicSmemSize is null");
  auto B = bind(func);
  if (!B)
    return fail(__func__, B.error());
  if (numBlocks <= 0 || blockSize <= 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "numBlocks and blockSize must be positive");
  if (activeBlocks(*B, blockSize, 0) < numBlocks) {
    *dynamicSmemSize = 0;
    return CUDA_SUCCESS;
  }
  const DeviceProperties &P = *B->P;
  size_t PerBlock = P.SharedMemPerMultiprocessor / size_t(numBlocks);
  PerBlock = PerBlock > P.ReservedSharedMemPerBlock ? PerBlock - P.ReservedSharedMemPerBlock : 0;
  PerBlock = std::min(PerBlock, sharedLimit(P, *B->K));
  size_t Static = B->Info->StaticSharedBytes;
  *dynamicSmemSize = PerBlock > Static ? PerBlock - Static : 0;
  return CUDA_SUCCESS;
}
