/// \file
/// ferry's cuRAND engines and conversions on their own (libs/curand): the
/// skip-ahead matrices agree with stepping, subsequences with repeated
/// subsequence skips, and the first values of thread 0 are those NVIDIA's
/// H100 stack gave for seed 1234 (tests/curand/goldens: the first 32-bit
/// result of each generator is thread 0's first draw in every ordering).
#include "libs/curand/Distributions.h"
#include "libs/curand/Engines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace ferry::curand;

namespace {

template <typename E> bool sameDraws(E A, E B, int Count = 8) {
  for (int I = 0; I < Count; ++I)
    if (A.next() != B.next())
      return false;
  return true;
}

template <typename E> void checkSkips(uint64_t Seed) {
  E Base;
  Base.init(Seed, 0, 0);
  for (uint64_t N : {1ull, 63ull, 64ull, 65ull, 511ull, 513ull, 4097ull}) {
    E Stepped = Base;
    for (uint64_t I = 0; I < N; ++I)
      Stepped.next();
    E Skipped;
    Skipped.init(Seed, 0, N);
    EXPECT_TRUE(sameDraws(Stepped, Skipped)) << "offset " << N;
  }
  // Large skips compose.
  E A, B;
  A.init(Seed, 3, 1000000000000ull);
  A.skip(500000000001ull);
  B.init(Seed, 3, 1500000000001ull);
  EXPECT_TRUE(sameDraws(A, B));
  // Subsequence t == t single subsequence skips.
  E C, D;
  C.init(Seed, 5, 0);
  D.init(Seed, 0, 0);
  for (int I = 0; I < 5; ++I)
    D.skipSubsequences(1);
  EXPECT_TRUE(sameDraws(C, D));
}

} // namespace

TEST(CurandEngines, XorwowSkips) { checkSkips<Xorwow>(1234); }
TEST(CurandEngines, Mrg32k3aSkips) { checkSkips<Mrg32k3a>(0xdeadbeefcafeull); }

TEST(CurandEngines, PhiloxSkips) {
  Philox Base;
  Base.init(77, 9, 0);
  for (uint64_t N : {1ull, 3ull, 4ull, 5ull, 1001ull}) {
    Philox Stepped = Base;
    for (uint64_t I = 0; I < N; ++I)
      Stepped.next();
    Philox Skipped;
    Skipped.init(77, 9, N);
    EXPECT_TRUE(sameDraws(Stepped, Skipped)) << "offset " << N;
  }
  // The low counter word carries into the next (Philox_State_Incr).
  Philox A, B;
  A.init(77, 9, (1ull << 34) - 4);
  B.init(77, 9, 0);
  B.skip((1ull << 34) - 4);
  EXPECT_TRUE(sameDraws(A, B));
  EXPECT_EQ(A.Ctr[0], 0xffffffffu);
}

TEST(CurandEngines, FirstValuesAsOnTheH100) {
  // seed 1234, thread 0 (subsequence 0), first draw: the goldens' first
  // 32-bit result of xorwow/philox/mrg32k3a.
  Xorwow X;
  X.init(1234, 0, 0);
  EXPECT_EQ(X.next(), 624778773u);
  Philox P;
  P.init(1234, 0, 0);
  EXPECT_EQ(P.next(), 546353992u);
  Mrg32k3a M;
  M.init(1234, 0, 0);
  EXPECT_EQ(M.next(), 3379073520u);
  // Seed 0 gives the published XORWOW state (the goldens' seed0 first value).
  Xorwow Z;
  Z.init(0, 0, 0);
  EXPECT_EQ(Z.next(), 3179217846u);
}

TEST(CurandEngines, Conversions) {
  EXPECT_EQ(uniformFloat(0), std::ldexp(1.0f, -33));
  EXPECT_EQ(uniformFloat(0xffffffffu), 1.0f); // cuRAND's uniform excludes 0, includes 1
  EXPECT_EQ(uniformDoubleHq(0, 0), std::ldexp(1.0, -54));
  EXPECT_EQ(erfcInverse(1.0L), 0.0L);
  for (double Y : {-2.5, -0.3, 1e-9, 0.7, 3.0})
    EXPECT_NEAR((double)erfcInverse(std::erfc((long double)Y)), Y, 1e-15 * std::max(1.0, std::fabs(Y)));
  double S, C;
  sinCosPi(0.5, S, C);
  EXPECT_EQ(S, 1.0);
  EXPECT_EQ(C, 0.0);
  sinCosPi(1.0 / 6, S, C);
  EXPECT_NEAR(S, 0.5, 1e-16);
}
