/// \file
/// The table behind cuGetProcAddress: the API table's generated rows, each
/// pointing at its exported symbol (our definition or the generated
/// NOT_SUPPORTED stub), resolved with ferry/ProcAddress.h's rule.
#include "libcuda/api/ProcAddress.h"

#include "ferry/ProcAddress.h"
#include "ferry/generated/DriverApi.h"

#include <algorithm>

namespace {
const ferry::api::ProcEntry Table[] = {
#define FERRY_PROC(Name, Version, PerThread, Symbol)                                               \
  {Name, Version, PerThread != 0, reinterpret_cast<void *>(&Symbol)},
#include FERRY_PROC_ROWS_INC
#undef FERRY_PROC
};
} // namespace

namespace ferry::api {

ProcResult resolveProc(std::string_view Name, int Version, bool PerThread) {
  ProcLookup L = lookupProc(Table, Name, Version, 0);
  if (PerThread && L.Status == ProcStatus::Found) {
    // Per-thread forms exist from CUDA 7.0 on, but runtimes ask with the
    // version of the ABI they want (cuMemcpyHtoD@3020 with the per-thread
    // flag means cuMemcpyHtoD_v2_ptds), so the per-thread rows are searched
    // as if the request were at least 7000.
    ProcLookup P = lookupProc(Table, Name, std::max(Version, 7000), ProcFlagPerThread);
    if (P.Status == ProcStatus::Found && P.Entry->PerThread)
      L = P;
  }
  switch (L.Status) {
  case ProcStatus::Found:
    return {ProcState::Found, L.Entry->Fn, L.Entry->Name};
  case ProcStatus::VersionTooOld:
    return {ProcState::VersionTooLow, nullptr, nullptr};
  case ProcStatus::NotFound:
    break;
  }
  return {ProcState::NotFound, nullptr, nullptr};
}

std::span<const ProcEntry> procTable() { return Table; }

} // namespace ferry::api
