/// \file
/// Forwarding cuFFT transforms to rocFFT on an AMD GPU whose memory the
/// host cannot reach (libs/README.md, "The AMD backend"): librocfft is
/// dlopen'ed (libs/common/Rocm.h), a cuFFT plan gets one rocFFT plan per
/// placement and direction it executes, and each transform runs on a HIP
/// stream of the plan's own inside a host task on the cuFFT plan's stream
/// that reads no device memory itself.
#pragma once

#include "ferry/libs/cufft.h"
#include "libs/common/HostTask.h"

#include <memory>

namespace ferry::cufft {

/// One transform as a cuFFT plan describes it, dimension 0 outermost (the
/// reverse of rocFFT's order); strides and distances count elements of the
/// array's own type (real or complex), as in both APIs.
struct RocTransform {
  int Rank = 1;
  long long N[3] = {1, 1, 1};
  long long IStride[3] = {1, 1, 1}, OStride[3] = {1, 1, 1};
  long long IDist = 0, ODist = 0, Batch = 1;
  cufftType Type = CUFFT_C2C;
  bool InPlace = false;
  int Sign = CUFFT_FORWARD;
};

/// What a cuFFT plan keeps of rocFFT (its plans, work buffers, HIP stream),
/// made at its first forwarded transform; gone with the plan and the last
/// task that uses it.
struct RocPlans;

/// Enqueues T on Stream through rocFFT. CUFFT_NOT_SUPPORTED, with ferry's
/// log line naming the entry point and why, when rocFFT or the HIP runtime
/// does not load or rocFFT refuses the layout.
cufftResult forwardTransform(std::shared_ptr<RocPlans> &State, CUstream Stream, libs::TaskKeeper &Kept,
                             const RocTransform &T, void *In, void *Out);

} // namespace ferry::cufft
