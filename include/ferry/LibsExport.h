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
};

} // namespace ferry
