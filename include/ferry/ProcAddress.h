/// \file
/// cuGetProcAddress's version resolution, as data plus one lookup function.
///
/// NVIDIA's runtime finds every driver entry point through
/// cuGetProcAddress(name, &fn, cudaVersion, flags): `name` is the base API
/// name ("cuMemAlloc"), and the answer must be the symbol whose ABI matches
/// what a program built for `cudaVersion` expects (cuMemAlloc@3020 is
/// cuMemAlloc_v2, cuCtxSynchronize@13000 is cuCtxSynchronize_v2(CUcontext)).
/// The rows come from the API table (generated ProcAddressTable.inc): one per
/// symbol, with the version from which it answers its base name. Keeping the
/// rule here, free of libcuda's state, lets it be unit-tested against the
/// observed requests of cudart 13.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace ferry::api {

/// One cuGetProcAddress answer: `Fn` implements `Name` for requests of
/// version >= `Version` (until the next row of the same name and variant).
struct ProcEntry {
  const char *Name;
  int Version;
  bool PerThread; ///< the _ptsz/_ptds form (per-thread default stream)
  void *Fn;
};

/// The cuGetProcAddress flag asking for per-thread-default-stream forms
/// (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM).
inline constexpr uint64_t ProcFlagPerThread = 0x2;

enum class ProcStatus {
  Found,           ///< Entry/Fn are set.
  NotFound,        ///< no such API: CUDA_ERROR_NOT_FOUND, SYMBOL_NOT_FOUND.
  VersionTooOld,   ///< the API exists but only from a later version:
                   ///< CUDA_ERROR_NOT_FOUND, VERSION_NOT_SUFFICIENT.
};

struct ProcLookup {
  ProcStatus Status;
  const ProcEntry *Entry; ///< null unless Found
};

/// Resolves `Name` for a program built against `Version`.
///
/// \p Table must be sorted by Name (strcmp order), as the generated table
/// is. Among the rows of `Name` it returns the one with the newest Version
/// not above \p Version. With ProcFlagPerThread in \p Flags it considers the
/// per-thread rows first and falls back to the default ones when the API
/// has no per-thread form for that version (most APIs take no stream).
/// Without the flag (0, or CU_GET_PROC_ADDRESS_LEGACY_STREAM) only default
/// rows answer. Other flag bits are ignored.
inline ProcLookup lookupProc(std::span<const ProcEntry> Table, std::string_view Name,
                             int Version, uint64_t Flags) {
  // Lower bound by name: the rows of one name are contiguous.
  size_t Lo = 0, Hi = Table.size();
  while (Lo < Hi) {
    size_t Mid = Lo + (Hi - Lo) / 2;
    if (std::string_view(Table[Mid].Name) < Name)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  const ProcEntry *Best[2] = {nullptr, nullptr}; // [PerThread]
  bool Any = false;
  for (size_t I = Lo; I < Table.size() && std::string_view(Table[I].Name) == Name; ++I) {
    Any = true;
    const ProcEntry &E = Table[I];
    if (E.Version > Version)
      continue;
    const ProcEntry *&Slot = Best[E.PerThread ? 1 : 0];
    if (!Slot || E.Version > Slot->Version)
      Slot = &E;
  }
  if (!Any)
    return {ProcStatus::NotFound, nullptr};
  const ProcEntry *Pick = nullptr;
  if ((Flags & ProcFlagPerThread) && Best[1])
    Pick = Best[1];
  else
    Pick = Best[0];
  if (!Pick)
    return {ProcStatus::VersionTooOld, nullptr};
  return {ProcStatus::Found, Pick};
}

} // namespace ferry::api
