/// \file
/// Helpers every app shares: a CUDA error check that ends the program with a
/// FAILED line, a fixed-seed generator (so inputs are the same on every
/// machine and C library), and tolerance comparisons. Included by relative
/// path, so each app still builds with one plain nvcc command.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Errors print the call and the line, never an address or a path, so the
// output stays comparable between machines.
#define CHECK(Call)                                                            \
  do {                                                                         \
    cudaError_t Err_ = (Call);                                                 \
    if (Err_ != cudaSuccess) {                                                 \
      std::printf("CUDA error %s from %s (line %d)\nFAILED\n",                 \
                  cudaGetErrorName(Err_), #Call, __LINE__);                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// 64-bit LCG (Knuth's MMIX constants); the top bits are used because the low
/// bits of an LCG have short periods.
struct Lcg {
  uint64_t State;
  explicit Lcg(uint64_t Seed) : State(Seed * 2862933555777941757ULL + 3037000493ULL) {}
  uint32_t next() {
    State = State * 6364136223846793005ULL + 1442695040888963407ULL;
    return uint32_t(State >> 32);
  }
  /// Uniform in [0, 1) with 24 bits, exactly representable as a float.
  float uniform() { return float(next() >> 8) * (1.0f / 16777216.0f); }
  float range(float Lo, float Hi) { return Lo + (Hi - Lo) * uniform(); }
  uint32_t below(uint32_t N) { return uint32_t((uint64_t(next()) * N) >> 32); }
};

/// True when |Got - Want| <= Abs + Rel * |Want|.
inline bool closeTo(double Got, double Want, double Rel, double Abs) {
  return std::fabs(Got - Want) <= Abs + Rel * std::fabs(Want);
}

/// Prints the verdict line the matrix looks for and gives the exit status.
inline int finish(bool Ok) {
  std::printf("%s\n", Ok ? "PASSED" : "FAILED");
  return Ok ? 0 : 1;
}
