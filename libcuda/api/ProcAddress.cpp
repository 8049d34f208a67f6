/// \file
/// The table behind cuGetProcAddress: the API table's generated rows, each
/// pointing at its exported symbol (our definition or the generated
/// NOT_SUPPORTED stub), resolved with ferry/ProcAddress.h's rule.
#include "libcuda/api/ProcAddress.h"

#include "ferry/ProcAddress.h"
#include "ferry/generated/DriverApi.h"

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
  ProcLookup L = lookupProc(Table, Name, Version, PerThread ? ProcFlagPerThread : 0);
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
