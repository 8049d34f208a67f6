/// \file
/// The PTX entry choice rule stated in Select.h.
#include "ptx/fatbin/Select.h"

namespace ferry::fatbin {

bool ptxUsableOn(const Entry &E, unsigned DeviceSm, PtxVersion Max) {
  if (!E.isPtx())
    return false;
  if (Max < PtxVersion{E.VersionMajor, E.VersionMinor})
    return false;
  unsigned T = E.SmArch;
  if (E.archSpecific())
    return T == DeviceSm;
  if (E.familySpecific())
    return T / 10 == DeviceSm / 10 && T <= DeviceSm;
  return T <= DeviceSm;
}

/// Rule 2's order: true when A is the better choice.
static bool better(const Entry &A, const Entry &B) {
  if (A.SmArch != B.SmArch)
    return A.SmArch > B.SmArch;
  PtxVersion VA{A.VersionMajor, A.VersionMinor}, VB{B.VersionMajor, B.VersionMinor};
  if (VA < VB || VB < VA)
    return VB < VA;
  bool PlainA = !A.archSpecific() && !A.familySpecific();
  bool PlainB = !B.archSpecific() && !B.familySpecific();
  return PlainA && !PlainB;
}

std::string describeEntries(std::span<const Entry> Entries) {
  std::string S;
  for (const Entry &E : Entries) {
    if (!S.empty())
      S += ", ";
    S += E.isPtx() ? "PTX " : E.isElf() ? "ELF " : "? ";
    S += E.archName();
    if (E.isPtx())
      S += " (PTX " + std::to_string(E.VersionMajor) + "." + std::to_string(E.VersionMinor) + ")";
  }
  return S.empty() ? "no entries" : S;
}

Expected<size_t> choosePtxEntry(std::span<const Entry> Entries, unsigned DeviceSm,
                                PtxVersion Max) {
  size_t Best = Entries.size();
  for (size_t I = 0; I < Entries.size(); ++I)
    if (ptxUsableOn(Entries[I], DeviceSm, Max) &&
        (Best == Entries.size() || better(Entries[I], Entries[Best])))
      Best = I;
  if (Best != Entries.size())
    return Best;
  // PTX that would fit the device but for its ISA version is what NVIDIA's
  // driver refuses as CUDA_ERROR_UNSUPPORTED_PTX_VERSION (a newer toolchain
  // than the JIT knows); anything else is no binary for this GPU.
  bool TooNew = false;
  for (const Entry &E : Entries)
    TooNew |= E.isPtx() && ptxUsableOn(E, DeviceSm, PtxVersion{~0u, ~0u});
  if (TooNew)
    return makeError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                     "the PTX for sm_" + std::to_string(DeviceSm) + " is newer than PTX ISA " +
                         std::to_string(Max.Major) + "." + std::to_string(Max.Minor) +
                         ", the newest ferry reads (SASS is never run); the fatbin offers: " +
                         describeEntries(Entries));
  return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU,
                   "no PTX usable on sm_" + std::to_string(DeviceSm) + " with PTX ISA <= " +
                       std::to_string(Max.Major) + "." + std::to_string(Max.Minor) +
                       " (SASS is never run); the fatbin offers: " + describeEntries(Entries));
}

} // namespace ferry::fatbin
