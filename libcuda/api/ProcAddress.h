/// \file
/// cuGetProcAddress's resolution for libcuda: (name, requested CUDA
/// version, per-thread flag) → the exported function, using the API table's
/// rows and the rule in ferry/ProcAddress.h.
#pragma once

#include <span>
#include <string_view>

namespace ferry::api {

struct ProcEntry;

enum class ProcState { Found, NotFound, VersionTooLow };

struct ProcResult {
  ProcState Status = ProcState::NotFound;
  void *Address = nullptr;
  const char *Name = nullptr; ///< The base name answered.
};

ProcResult resolveProc(std::string_view Name, int Version, bool PerThread);

/// All rows (tests).
std::span<const ProcEntry> procTable();

} // namespace ferry::api
