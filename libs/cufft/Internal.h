/// \file
/// What libs/cufft's files share inside the library: Cufft.cpp owns the
/// plans and FFTW's planner lock; Xt.cpp (cufftXt's multi-GPU calls) reads a
/// plan through a PlanView and keeps the GPUs of multi-GPU plans itself,
/// answering the few hooks Cufft.cpp calls for them.
#pragma once

#include "ferry/generated/CufftApi.h"
#include "libs/common/HostTask.h"

#include <mutex>

namespace ferry::cufft {

/// A plan as Cufft.cpp holds it (basic layout when !Advanced).
struct PlanView {
  bool Made = false;
  cufftType Type = CUFFT_C2C;
  int Rank = 0;
  long long N[3] = {1, 1, 1};
  long long Batch = 1;
  bool Advanced = false;
  cudaStream_t Stream = nullptr;
  ferry::libs::TaskKeeper *Kept = nullptr; ///< lives as long as the plan
};

/// False when H is no plan.
bool viewPlan(cufftHandle H, PlanView &V);

/// FFTW's planner is not thread safe (its plans' execution is).
std::mutex &fftwPlannerLock();

// Xt.cpp's hooks.

/// How many GPUs cufftXtSetGPUs gave H (0: a single-GPU plan).
int xtGpuCount(cufftHandle H);
/// Checks a multi-GPU plan's shape as it is made (the status NVIDIA's
/// documents or answers for what multi-GPU cuFFT cannot do) and writes a
/// work size of 0 for each of its GPUs.
cufftResult xtMake(cufftHandle H, int Rank, const long long *N, bool Advanced, cufftType Type,
                   long long Batch, size_t *WorkSize);
/// One work size of 0 for each GPU of a multi-GPU plan (nothing otherwise).
void xtWorkSizes(cufftHandle H, size_t *WorkSize);
/// The plan is destroyed.
void xtForget(cufftHandle H);

} // namespace ferry::cufft
