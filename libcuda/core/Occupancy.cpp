/// \file
/// NVIDIA's occupancy model over a device's limits (Occupancy.h): the
/// arithmetic behind cuOccupancy* (libcuda/api/Occupancy.cpp) and the
/// cooperative launch check, a pure function so it can be checked against
/// a GPU's recorded answers.
#include "libcuda/Occupancy.h"

#include "libcuda/Backend.h"

#include <algorithm>

namespace ferry {

int occupancyBlocks(const DeviceProperties &P, const OccupancyInput &In, int BlockSize, size_t DynSmem) {
  // NVIDIA's model, checked against an H100's answers (OccupancyTest): the
  // kernel's own thread limit (.maxntid) is not consulted, its register use
  // is; the dynamic shared memory may not exceed the kernel's limit.
  if (BlockSize <= 0 || DynSmem > In.DynamicSharedLimit)
    return 0;
  int Warp = std::max(P.WarpSize, 1);
  int Warps = (BlockSize + Warp - 1) / Warp;
  int Result = std::min(P.MaxThreadsPerMultiprocessor / (Warps * Warp), P.MaxBlocksPerMultiprocessor);
  // Registers: allocated per warp, in units.
  uint64_t PerWarp = uint64_t(std::max(In.Registers, 1u)) * uint64_t(Warp);
  if (P.RegisterAllocUnit > 0)
    PerWarp = (PerWarp + P.RegisterAllocUnit - 1) / P.RegisterAllocUnit * P.RegisterAllocUnit;
  Result = std::min<int>(Result, int(uint64_t(P.RegistersPerMultiprocessor) / PerWarp / uint64_t(Warps)));
  // Shared memory: the block's (with the system's reservation) in units,
  // against the carveout the preference asks for, or all of it.
  uint64_t Smem = uint64_t(In.StaticShared) + DynSmem + P.ReservedSharedMemPerBlock;
  if (P.SharedAllocUnit > 0)
    Smem = (Smem + P.SharedAllocUnit - 1) / P.SharedAllocUnit * P.SharedAllocUnit;
  uint64_t Capacity = P.SharedMemPerMultiprocessor;
  if (!P.CarveoutKiB.empty() && In.CarveoutPercent >= 0) {
    // The smallest carveout holding the preferred share, or one block.
    uint64_t Want = uint64_t(In.CarveoutPercent) * uint64_t(P.CarveoutKiB.back()) * 1024 / 100;
    auto Pick = [&](uint64_t Bytes) {
      for (int K : P.CarveoutKiB)
        if (uint64_t(K) * 1024 >= Bytes)
          return uint64_t(K) * 1024;
      return uint64_t(P.CarveoutKiB.back()) * 1024;
    };
    Capacity = std::max(Pick(Want), Pick(Smem));
  }
  if (Smem)
    Result = std::min<int>(Result, int(Capacity / Smem));
  return std::max(Result, 0);
}

} // namespace ferry
