/// \file
/// cuRAND's pseudo-random engines (see Engines.h). The skip-ahead tables are
/// powers of each engine's one-step transition, computed by repeated
/// squaring the first time a skip needs them.
#include "libs/curand/Engines.h"

#include <cstring>
#include <mutex>

namespace ferry::curand {

// ---------------------------------------------------------------------------
// XORWOW: the xorshift part is linear over GF(2), so n steps are one
// 160x160 bit matrix. Row i of a matrix is the image of state bit i.
// ---------------------------------------------------------------------------

namespace {

using BitMatrix = uint32_t[160][5];

/// M^(2^k) for k = 0..131: offsets need k < 64, subsequences (2^67 steps
/// each, up to 2^64 of them) need k = 67..130.
constexpr int XorwowPowers = 132;
BitMatrix *XorwowPow = nullptr;

void applyBits(const BitMatrix &M, uint32_t V[5]) {
  uint32_t R[5] = {0, 0, 0, 0, 0};
  for (int I = 0; I < 160; ++I)
    if (V[I / 32] >> (I % 32) & 1)
      for (int J = 0; J < 5; ++J)
        R[J] ^= M[I][J];
  std::memcpy(V, R, sizeof(R));
}

void buildXorwowPowers() {
  XorwowPow = new BitMatrix[XorwowPowers];
  for (int I = 0; I < 160; ++I) {
    Xorwow S{};
    S.V[I / 32] = 1u << (I % 32);
    S.next();
    std::memcpy(XorwowPow[0][I], S.V, sizeof(S.V));
  }
  for (int K = 1; K < XorwowPowers; ++K)
    for (int I = 0; I < 160; ++I) {
      std::memcpy(XorwowPow[K][I], XorwowPow[K - 1][I], sizeof(uint32_t) * 5);
      applyBits(XorwowPow[K - 1], XorwowPow[K][I]);
    }
}

const BitMatrix *xorwowPowers() {
  static std::once_flag Once;
  std::call_once(Once, buildXorwowPowers);
  return XorwowPow;
}

} // namespace

void Xorwow::init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset) {
  // The seed scrambling of curand_init (curand_kernel.h).
  uint32_t S0 = static_cast<uint32_t>(Seed) ^ 0xaad26b49u;
  uint32_t S1 = static_cast<uint32_t>(Seed >> 32) ^ 0xf7dcefddu;
  uint32_t T0 = 1099087573u * S0;
  uint32_t T1 = 2591861531u * S1;
  D = 6615241u + T1 + T0;
  V[0] = 123456789u + T0;
  V[1] = 362436069u ^ T0;
  V[2] = 521288629u + T1;
  V[3] = 88675123u ^ T1;
  V[4] = 5783321u + T0;
  skipSubsequences(Subsequence);
  skip(Offset);
}

void Xorwow::skip(uint64_t N) {
  if (N < 64) {
    for (uint64_t I = 0; I < N; ++I)
      next();
    return;
  }
  const BitMatrix *P = xorwowPowers();
  for (int K = 0; K < 64; ++K)
    if (N >> K & 1)
      applyBits(P[K], V);
  D += 362437u * static_cast<uint32_t>(N);
}

void Xorwow::skipSubsequences(uint64_t N) {
  if (!N)
    return;
  const BitMatrix *P = xorwowPowers();
  for (int K = 0; K < 64; ++K)
    if (N >> K & 1)
      applyBits(P[67 + K], V);
  // 2^67 * N steps add a multiple of 2^32 to the Weyl counter.
}

// ---------------------------------------------------------------------------
// MRG32k3a: each component is linear modulo its prime, so n steps are a 3x3
// matrix power.
// ---------------------------------------------------------------------------

namespace {

using Mat3 = uint64_t[3][3];
constexpr int MrgPowers = 141; // offsets k < 64, subsequences 2^(76+k), k < 64
Mat3 *MrgPow1 = nullptr, *MrgPow2 = nullptr;

void mul3(const Mat3 &A, const Mat3 &B, uint64_t M, Mat3 &Out) {
  Mat3 R;
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J) {
      unsigned __int128 S = 0;
      for (int K = 0; K < 3; ++K)
        S += static_cast<unsigned __int128>(A[I][K]) * B[K][J];
      R[I][J] = static_cast<uint64_t>(S % M);
    }
  std::memcpy(Out, R, sizeof(R));
}

void apply3(const Mat3 &A, uint32_t S[3], uint64_t M) {
  uint64_t R[3];
  for (int I = 0; I < 3; ++I) {
    unsigned __int128 T = 0;
    for (int K = 0; K < 3; ++K)
      T += static_cast<unsigned __int128>(A[I][K]) * S[K];
    R[I] = static_cast<uint64_t>(T % M);
  }
  for (int I = 0; I < 3; ++I)
    S[I] = static_cast<uint32_t>(R[I]);
}

void buildMrgPowers() {
  MrgPow1 = new Mat3[MrgPowers];
  MrgPow2 = new Mat3[MrgPowers];
  const uint64_t M1 = Mrg32k3a::M1, M2 = Mrg32k3a::M2;
  // (s0, s1, s2) -> (s1, s2, a12 s1 - a13n s0) and (s1, s2, a21 s2 - a23n s0).
  Mat3 A1 = {{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}};
  Mat3 A2 = {{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}};
  std::memcpy(MrgPow1[0], A1, sizeof(A1));
  std::memcpy(MrgPow2[0], A2, sizeof(A2));
  for (int K = 1; K < MrgPowers; ++K) {
    mul3(MrgPow1[K - 1], MrgPow1[K - 1], M1, MrgPow1[K]);
    mul3(MrgPow2[K - 1], MrgPow2[K - 1], M2, MrgPow2[K]);
  }
}

void mrgPowers() {
  static std::once_flag Once;
  std::call_once(Once, buildMrgPowers);
}

uint32_t mulMod(uint64_t A, uint64_t B, uint64_t M) {
  return static_cast<uint32_t>(static_cast<unsigned __int128>(A) * B % M);
}

} // namespace

void Mrg32k3a::init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset) {
  for (int I = 0; I < 3; ++I)
    S1[I] = S2[I] = 12345u;
  if (Seed) {
    uint32_t X1 = static_cast<uint32_t>(Seed) ^ 0x55555555u;
    uint32_t X2 = static_cast<uint32_t>(Seed >> 32) ^ 0xaaaaaaaau;
    S1[0] = mulMod(X1, S1[0], M1);
    S1[1] = mulMod(X2, S1[1], M1);
    S1[2] = mulMod(X1, S1[2], M1);
    S2[0] = mulMod(X2, S2[0], M2);
    S2[1] = mulMod(X1, S2[1], M2);
    S2[2] = mulMod(X2, S2[2], M2);
  }
  skipSubsequences(Subsequence);
  skip(Offset);
}

void Mrg32k3a::skip(uint64_t N) {
  if (!N)
    return;
  mrgPowers();
  for (int K = 0; K < 64; ++K)
    if (N >> K & 1) {
      apply3(MrgPow1[K], S1, M1);
      apply3(MrgPow2[K], S2, M2);
    }
}

void Mrg32k3a::skipSubsequences(uint64_t N) {
  if (!N)
    return;
  mrgPowers();
  for (int K = 0; K < 64; ++K)
    if (N >> K & 1) {
      apply3(MrgPow1[76 + K], S1, M1);
      apply3(MrgPow2[76 + K], S2, M2);
    }
}

double Mrg32k3a::nextRaw() {
  // The integer form of curand_MRG32k3a; exact, so equal to its double form.
  int64_t P1 = (1403580ll * S1[1] - 810728ll * S1[0]) % static_cast<int64_t>(M1);
  if (P1 < 0)
    P1 += M1;
  S1[0] = S1[1];
  S1[1] = S1[2];
  S1[2] = static_cast<uint32_t>(P1);
  int64_t P2 = (527612ll * S2[2] - 1370589ll * S2[0]) % static_cast<int64_t>(M2);
  if (P2 < 0)
    P2 += M2;
  S2[0] = S2[1];
  S2[1] = S2[2];
  S2[2] = static_cast<uint32_t>(P2);
  return P1 <= P2 ? static_cast<double>(P1 - P2 + static_cast<int64_t>(M1)) : static_cast<double>(P1 - P2);
}

// ---------------------------------------------------------------------------
// Philox4x32-10.
// ---------------------------------------------------------------------------

void Philox::block(const uint32_t C[4], const uint32_t K[2], uint32_t R[4]) {
  uint32_t X[4] = {C[0], C[1], C[2], C[3]};
  uint32_t K0 = K[0], K1 = K[1];
  for (int Round = 0; Round < 10; ++Round) {
    if (Round) {
      K0 += 0x9E3779B9u;
      K1 += 0xBB67AE85u;
    }
    uint64_t P0 = static_cast<uint64_t>(0xD2511F53u) * X[0];
    uint64_t P1 = static_cast<uint64_t>(0xCD9E8D57u) * X[2];
    uint32_t Y[4] = {static_cast<uint32_t>(P1 >> 32) ^ X[1] ^ K0, static_cast<uint32_t>(P1),
                     static_cast<uint32_t>(P0 >> 32) ^ X[3] ^ K1, static_cast<uint32_t>(P0)};
    std::memcpy(X, Y, sizeof(X));
  }
  std::memcpy(R, X, sizeof(X));
}

void Philox::increment(uint64_t N) {
  // Philox_State_Incr, carries as curand_philox4x32_x.h propagates them.
  uint32_t Lo = static_cast<uint32_t>(N), Hi = static_cast<uint32_t>(N >> 32);
  Ctr[0] += Lo;
  if (Ctr[0] < Lo)
    ++Hi;
  Ctr[1] += Hi;
  if (Hi <= Ctr[1])
    return;
  if (++Ctr[2])
    return;
  ++Ctr[3];
}

void Philox::init(uint64_t Seed, uint64_t Subsequence, uint64_t Offset) {
  Ctr[0] = Ctr[1] = Ctr[2] = Ctr[3] = 0;
  Key[0] = static_cast<uint32_t>(Seed);
  Key[1] = static_cast<uint32_t>(Seed >> 32);
  Index = 0;
  // Subsequences live in the counter's upper half (Philox_State_Incr_hi).
  uint32_t Lo = static_cast<uint32_t>(Subsequence), Hi = static_cast<uint32_t>(Subsequence >> 32);
  Ctr[2] += Lo;
  if (Ctr[2] < Lo)
    ++Hi;
  Ctr[3] += Hi;
  skip(Offset);
}

void Philox::skip(uint64_t N) {
  Index += N & 3;
  N /= 4;
  if (Index > 3) {
    ++N;
    Index -= 4;
  }
  increment(N);
  Out4();
}

void Philox::next4(uint32_t R[4]) {
  for (int I = 0; I < 4; ++I)
    R[I] = next();
}

} // namespace ferry::curand
