/// \file
/// The occupancy model: resident blocks per multiprocessor for a kernel's
/// register and shared-memory use under a device's limits and allocation
/// units (DeviceProperties). Plain C++ so tests can compare it with what a
/// GPU answered for kernels of known register use.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry {

struct DeviceProperties;

/// What the occupancy model needs of a kernel.
struct OccupancyInput {
  uint32_t Registers = 32;       ///< Per thread.
  size_t StaticShared = 0;
  size_t DynamicSharedLimit = 0; ///< CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
  int CarveoutPercent = -1;      ///< CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT.
};

/// Resident blocks of BlockSize threads with DynSmem bytes of dynamic shared
/// memory per multiprocessor; 0 when such a block cannot run.
int occupancyBlocks(const DeviceProperties &P, const OccupancyInput &In, int BlockSize, size_t DynSmem);

} // namespace ferry
