/// \file
/// Helpers of the CUB/Thrust/libcu++ apps: a typed device buffer with upload
/// and download, the two-call temporary-storage pattern of CUB's device
/// algorithms as one macro, and a per-check report line. Every check prints
/// its name, a CPU-computed summary and a mismatch count, so a golden
/// compares exactly and a failing check names itself.
#pragma once
#include "app_util.h"
#include <vector>

template <typename T> struct DBuf {
  T *P = nullptr;
  size_t N = 0;
  explicit DBuf(size_t Count) : N(Count) {
    CHECK(cudaMalloc(&P, (Count ? Count : 1) * sizeof(T)));
    CHECK(cudaMemset(P, 0, (Count ? Count : 1) * sizeof(T)));
  }
  explicit DBuf(const std::vector<T> &H) : DBuf(H.size()) { up(H); }
  ~DBuf() { cudaFree(P); }
  DBuf(const DBuf &) = delete;
  DBuf &operator=(const DBuf &) = delete;
  void up(const std::vector<T> &H) {
    CHECK(cudaMemcpy(P, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> down(size_t Count = size_t(-1)) const {
    std::vector<T> H(Count == size_t(-1) ? N : Count);
    CHECK(cudaMemcpy(H.data(), P, H.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return H;
  }
  T one(size_t I = 0) const {
    T V;
    CHECK(cudaMemcpy(&V, P + I, sizeof(T), cudaMemcpyDeviceToHost));
    return V;
  }
};

/// Runs a CUB device algorithm the documented way: once with a null
/// temporary buffer to size it (the call names it TmpP and TmpB), then for
/// real, then frees it.
#define CUB_RUN(...)                                                           \
  do {                                                                         \
    void *TmpP = nullptr;                                                      \
    size_t TmpB = 0;                                                           \
    CHECK((__VA_ARGS__));                                                      \
    CHECK(cudaMalloc(&TmpP, TmpB ? TmpB : 1));                                 \
    CHECK((__VA_ARGS__));                                                      \
    CHECK(cudaDeviceSynchronize());                                            \
    CHECK(cudaFree(TmpP));                                                     \
  } while (0)

/// Counts positions where two sequences differ (and a length difference).
template <typename A, typename B> static int countDiff(const A &Got, const B &Want) {
  int Bad = Got.size() != Want.size() ? 1 : 0;
  for (size_t I = 0; I < Got.size() && I < Want.size(); ++I)
    Bad += !(Got[I] == Want[I]);
  return Bad;
}

/// The report: one line per check; Failures counts the checks that failed.
struct Report {
  int Failures = 0;
  void line(const char *Name, int Bad, const char *Fmt = "", long long A = 0, long long B = 0) {
    std::printf("%s: ", Name);
    std::printf(Fmt, A, B);
    std::printf("%smismatches=%d%s\n", Fmt[0] ? " " : "", Bad, Bad ? " MISMATCH" : "");
    Failures += Bad != 0;
  }
  int done() {
    std::printf("checks failed: %d\n", Failures);
    return finish(Failures == 0);
  }
};
