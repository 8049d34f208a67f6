/// \file
/// Helpers the math-library apps share (cuBLAS, cuBLASLt, cuSPARSE,
/// cuSOLVER, cuFFT, cuRAND): a status check for any of those libraries
/// (each one's success status is 0), one verdict line per pattern with a
/// checksum the matrix compares with a tolerance, and host <-> device
/// vector copies. An app that wants a wider name column defines
/// LIB_REPORT_WIDTH before including this header.
#pragma once
#include "app_util.h"
#include <vector>

#ifndef LIB_REPORT_WIDTH
#define LIB_REPORT_WIDTH 14
#endif

// The library's status is printed as a number: its name differs between
// library versions, the number does not.
#define LIB_CHECK(Lib, Call)                                                                       \
  do {                                                                                             \
    int S_ = static_cast<int>(Call);                                                               \
    if (S_ != 0) {                                                                                 \
      std::printf("%s error %d from %s\nFAILED\n", Lib, S_, #Call);                                \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

/// How many patterns were WRONG so far.
static int Failures = 0;

/// One line per pattern: its verdict against the host reference and a
/// checksum the matrix compares with a tolerance.
static void report(const char *Name, bool Ok, double Check) {
  std::printf("%-*s %s check=%.6g\n", LIB_REPORT_WIDTH, Name, Ok ? "ok" : "WRONG", Check);
  Failures += !Ok;
}

template <typename T> static T *upload(const std::vector<T> &V) {
  T *P;
  CHECK(cudaMalloc(&P, V.size() * sizeof(T)));
  CHECK(cudaMemcpy(P, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice));
  return P;
}

template <typename T> static std::vector<T> download(const T *P, size_t N) {
  std::vector<T> V(N);
  CHECK(cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost));
  return V;
}
