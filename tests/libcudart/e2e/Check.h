// Tiny checking helpers shared by the end-to-end programs: every check
// prints what failed and the program exits non-zero at the end.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

static int Failures = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
      ++Failures;                                                                   \
    }                                                                               \
  } while (0)
#define CHECK_CUDA(call)                                                            \
  do {                                                                              \
    cudaError_t E_ = (call);                                                        \
    if (E_ != cudaSuccess) {                                                        \
      std::printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call,              \
                  cudaGetErrorName(E_));                                            \
      ++Failures;                                                                   \
    }                                                                               \
  } while (0)
static int finish(const char *Name) {
  std::printf("%s: %s (%d failures)\n", Name, Failures ? "FAILED" : "PASS", Failures);
  return Failures ? 1 : 0;
}
