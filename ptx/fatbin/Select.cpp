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

/// Rule 3's order among entries for newer targets: true when A is the
/// better (more conservative) choice.
static bool saferBeyond(const Entry &A, const Entry &B) {
  auto Rank = [](const Entry &E) { return E.archSpecific() ? 2 : E.familySpecific() ? 1 : 0; };
  if (Rank(A) != Rank(B))
    return Rank(A) < Rank(B);
  if (A.SmArch != B.SmArch)
    return A.SmArch < B.SmArch;
  PtxVersion VA{A.VersionMajor, A.VersionMinor}, VB{B.VersionMajor, B.VersionMinor};
  return VB < VA;
}

Expected<size_t> choosePtxEntry(std::span<const Entry> Entries, unsigned DeviceSm,
                                PtxVersion Max) {
  size_t Best = Entries.size(), Beyond = Entries.size();
  bool AnyPtx = false;
  for (size_t I = 0; I < Entries.size(); ++I) {
    const Entry &E = Entries[I];
    AnyPtx |= E.isPtx();
    if (ptxUsableOn(E, DeviceSm, Max)) {
      if (Best == Entries.size() || better(E, Entries[Best]))
        Best = I;
    } else if (E.isPtx() && PtxVersion{E.VersionMajor, E.VersionMinor} <= Max) {
      if (Beyond == Entries.size() || saferBeyond(E, Entries[Beyond]))
        Beyond = I;
    }
  }
  if (Best != Entries.size())
    return Best;
  if (Beyond != Entries.size())
    return Beyond;
  if (AnyPtx)
    return makeError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                     "every PTX entry is newer than PTX ISA " + std::to_string(Max.Major) + "." +
                         std::to_string(Max.Minor) +
                         ", the newest ferry reads (SASS is never run); the fatbin offers: " +
                         describeEntries(Entries));
  return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU,
                   "no PTX in the image (SASS is never run); the fatbin offers: " + describeEntries(Entries));
}

} // namespace ferry::fatbin
