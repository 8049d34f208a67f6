/// \file
/// One function's mangled type, as collected by SigOurs.cpp (ferry's
/// prototypes) and SigNvidia.cpp (NVIDIA's headers) from the same rows.
#pragma once
#include <cstddef>

struct SigEntry {
  const char *Symbol;
  const char *Mangled;
};

extern const SigEntry OursSigs[];
extern const size_t OursSigCount;
extern const SigEntry NvidiaSigs[];
extern const size_t NvidiaSigCount;
extern const SigEntry NvidiaEglSigs[];
extern const size_t NvidiaEglSigCount;
