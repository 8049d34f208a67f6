/// \file
/// ferry's own private table for its math libraries (libs/), reached the
/// way NVIDIA's libraries reach their driver's private tables:
/// cuGetExportTable(&Table, &FerryLibsTableId). Over another driver the
/// call fails and the libraries use the public API only.
#pragma once

#include "ferry/cuda.h"

#include <cstddef>

namespace ferry {

/// "ferry-libs-tbl-1" as bytes.
inline constexpr CUuuid FerryLibsTableId = {{'f', 'e', 'r', 'r', 'y', '-', 'l', 'i', 'b', 's', '-', 't', 'b', 'l', '-', '1'}};

struct FerryLibsTable {
  /// sizeof(FerryLibsTable) as the driver built it: a slot lies past the
  /// end (an older driver) when its offset is not below Bytes.
  size_t Bytes;
  /// As cuLaunchHostFunc, except that when the stream has nothing pending
  /// (and is not capturing, and its context has not faulted) Fn runs on the
  /// calling thread before the call returns, the stream counting as busy
  /// meanwhile (work enqueued from other threads waits for it): a library
  /// call on an idle stream then costs no thread hand-off. *RanInline says
  /// which happened. Fn must not wait for anything the caller does after
  /// the call returns.
  CUresult (*LaunchHostFuncInline)(CUstream Stream, CUhostFn Fn, void *UserData, int *RanInline);
  /// Whether the host may read and write Device's device memory (what
  /// cuMemAlloc returns) with plain loads and stores: *Yes = 1 on the host
  /// backend and on an AMD GPU whose memory the CPU reaches (an APU, or a
  /// large BAR: the CPU agent's access to the device pool is not
  /// NEVER_ALLOWED), 0 on a discrete GPU whose VRAM the CPU cannot reach,
  /// where a library's host work on device memory would fault.
  CUresult (*DeviceMemoryHostAccess)(CUdevice Device, int *Yes);
};

/// Whether T, as its driver built it, has the slot at byte offset Offset
/// (offsetof(FerryLibsTable, Slot)): an older driver's table ends before.
inline bool hasLibsSlot(const FerryLibsTable *T, size_t Offset) { return T && Offset < T->Bytes; }

} // namespace ferry
