/// \file
/// JIT options (CUjit_option arrays) as cuModuleLoadDataEx, cuLinkCreate and
/// cuLinkAddData take them: read once, and the log buffers, their
/// *_SIZE_BYTES slots and CU_JIT_WALL_TIME written back the way the driver
/// API reference describes (the option value slots are the output).
#pragma once

#include "libcuda/api/Common.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ferry::api {

/// A log buffer the user handed in through JIT options, and the option
/// value slot its "bytes filled" goes back to.
struct LogSink {
  char *Buffer = nullptr;
  size_t Capacity = 0;
  void **SizeSlot = nullptr;

  /// Copies Text (truncated, NUL-terminated) into the buffer and reports
  /// the length of the text, terminator not included: an H100 wrote back
  /// 439 for a 439-character ptxas info log, and 0 for an empty one.
  void write(const std::string &Text) const {
    if (!Buffer || Capacity == 0)
      return;
    size_t N = std::min(Text.size(), Capacity - 1);
    std::memcpy(Buffer, Text.data(), N);
    Buffer[N] = '\0';
    if (SizeSlot)
      *SizeSlot = reinterpret_cast<void *>(uintptr_t(N));
  }
};

/// The options of one call (cuLinkCreate's are kept for the link's life).
struct JitOptions {
  LogSink Info, Error;
  void **WallTimeSlot = nullptr;
  bool Verbose = false;
  /// CU_JIT_TARGET (a CUjit_target, e.g. 90 for sm_90); 0 when not given.
  unsigned Target = 0;
  /// CU_JIT_THREADS_PER_BLOCK: the minimum block size asked for, and the
  /// slot that gets the block size the compiler targeted.
  unsigned ThreadsPerBlock = 0;
  void **ThreadsSlot = nullptr;

  /// Whether the caller asked for anything the compile writes back.
  bool wantsOutput() const {
    return Info.Buffer || Error.Buffer || WallTimeSlot || ThreadsSlot;
  }

  /// Writes Ms into the CU_JIT_WALL_TIME slot (a float, as NVIDIA does).
  void putWallTime(double Ms) const {
    if (!WallTimeSlot)
      return;
    float F = float(Ms);
    void *Slot = nullptr;
    std::memcpy(&Slot, &F, sizeof F);
    *WallTimeSlot = Slot;
  }
};

Expected<JitOptions> readOptions(unsigned N, CUjit_option *Options, void **Values);

} // namespace ferry::api
