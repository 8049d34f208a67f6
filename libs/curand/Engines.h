/// \file
/// The pseudo-random engines of cuRAND as its device API defines them
/// (curand_kernel.h, curand_philox4x32_x.h): XORWOW, MRG32k3a and
/// Philox4_32_10, each with curand_init(seed, subsequence, offset)
/// semantics, so that thread t of NVIDIA's host-API kernels can be
/// reproduced exactly. The skip-ahead matrices NVIDIA ships precomputed
/// (curand_precalc.h) are computed here from their definition (powers of
/// the one-step transition) at first use.
#pragma once

#include <cstdint>

namespace ferry::curand {

/// XORWOW (Marsaglia): 160 bits of xorshift state and a Weyl counter.
/// A subsequence is 2^67 outputs.
struct Xorwow {
  uint32_t V[5];
  uint32_t D;
  void init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset);
  void skip(uint64_t N);
  void skipSubsequences(uint64_t N);
  uint32_t next() {
    uint32_t T = V[0] ^ (V[0] >> 2);
    V[0] = V[1];
    V[1] = V[2];
    V[2] = V[3];
    V[3] = V[4];
    V[4] = (V[4] ^ (V[4] << 4)) ^ (T ^ (T << 1));
    D += 362437;
    return V[4] + D;
  }
};

/// MRG32k3a (L'Ecuyer): two order-3 recurrences modulo m1 and m2. A
/// subsequence is 2^76 outputs.
struct Mrg32k3a {
  static constexpr uint32_t M1 = 4294967087u, M2 = 4294944443u;
  uint32_t S1[3], S2[3];
  void init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset);
  void skip(uint64_t N);
  void skipSubsequences(uint64_t N);
  /// The recurrences' combined value in (0, m1], as curand_MRG32k3a.
  double nextRaw();
  /// 32 bits, as curand(curandStateMRG32k3a_t *).
  uint32_t next() { return static_cast<uint32_t>(nextRaw() * 1.000000048662); }
};

/// Philox4x32-10 (Salmon et al.): a counter-based generator; four outputs
/// per 128-bit counter, subsequences in the counter's upper 64 bits.
struct Philox {
  uint32_t Ctr[4];
  uint32_t Key[2];
  uint32_t Out[4];
  unsigned Index; // next element of Out
  void init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset);
  void skip(uint64_t N);
  /// The four outputs of the current counter, then the counter advanced.
  void next4(uint32_t R[4]);
  uint32_t next() {
    uint32_t R = Out[Index++];
    if (Index == 4) {
      increment();
      Out4();
      Index = 0;
    }
    return R;
  }
  static void block(const uint32_t Ctr[4], const uint32_t Key[2], uint32_t Out[4]);

private:
  void increment(uint64_t N = 1);
  void Out4() { block(Ctr, Key, Out); }
};

} // namespace ferry::curand
