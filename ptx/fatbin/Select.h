/// \file
/// Which PTX entry of a container a device runs. ferry never executes SASS,
/// so only PTX entries count; the rule below is what libcuda applies when a
/// module is loaded (and `ferry inspect` shows).
///
/// The rule, for a device of compute capability D (major*10+minor, e.g. 86):
///  1. Entries that fit: PTX entries whose PTX ISA version is at most the
///     highest ferry supports (MaxSupportedPtx) and whose target T fits D as
///     NVIDIA's driver defines it:
///       - plain sm_T:        T <= D (PTX is forward compatible);
///       - arch-specific sm_Ta: T == D exactly (it may use features only
///         that one architecture has);
///       - family sm_Tf:      same major (T/10 == D/10) and T <= D.
///  2. Among entries that fit, the highest T wins (it can use the most of
///     the device); ties go to the highest PTX version, then to the plain
///     target over a/f ones (more conservative), then to the earliest entry.
///  3. None fits: ferry is a JIT for another machine, to which D is a
///     description, not a limit, so PTX for any newer target is compiled as
///     well (a compute_120 image runs as compute_80 would; an instruction
///     ferry cannot lower fails that kernel alone, with its name). The most
///     conservative wins: plain over family over arch-specific, then the
///     lowest T, then the highest PTX version. NVIDIA's driver would refuse
///     such an image on this D; programs built for a newer GPU than the one
///     ferry describes are what JIT clients (CuPy's prebuilt kernels) ship.
///  4. No PTX within MaxSupportedPtx: CUDA_ERROR_UNSUPPORTED_PTX_VERSION
///     when the container has PTX (as NVIDIA's driver says of PTX newer than
///     its JIT), else CUDA_ERROR_NO_BINARY_FOR_GPU; the message lists what
///     the container offered, so the user sees why.
#pragma once

#include "ptx/fatbin/Container.h"

namespace ferry::fatbin {

struct PtxVersion {
  unsigned Major = 0, Minor = 0;
  friend bool operator<(PtxVersion A, PtxVersion B) {
    return A.Major != B.Major ? A.Major < B.Major : A.Minor < B.Minor;
  }
  friend bool operator<=(PtxVersion A, PtxVersion B) { return !(B < A); }
};

/// The newest PTX ISA ferry's front end accepts.
inline constexpr PtxVersion MaxSupportedPtx{9, 2};

/// Rule 1: does this entry fit device compute capability DeviceSm as
/// NVIDIA's driver defines it? (Rule 3 may still choose one that does not.)
bool ptxUsableOn(const Entry &E, unsigned DeviceSm, PtxVersion Max = MaxSupportedPtx);

/// Rules 2 to 4 over one container's entries; returns the chosen entry's
/// index in Entries.
Expected<size_t> choosePtxEntry(std::span<const Entry> Entries, unsigned DeviceSm,
                                PtxVersion Max = MaxSupportedPtx);

/// "PTX sm_75 (PTX 9.0), ELF sm_80": what a list of entries offers, for
/// error messages.
std::string describeEntries(std::span<const Entry> Entries);

} // namespace ferry::fatbin
