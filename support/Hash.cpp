/// \file
/// SHA-256 as specified in FIPS 180-4.
#include "support/Hash.h"

#include <atomic>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ferry {

static constexpr uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rotr(uint32_t X, int N) { return (X >> N) | (X << (32 - N)); }

Sha256::Sha256() {
  static constexpr uint32_t Init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::memcpy(H, Init, sizeof(H));
}

#if defined(__x86_64__)
namespace {

std::atomic<bool> ShaExtensionsWanted{true};

bool haveShaExtensions() {
  static const bool Have = [] {
    unsigned A, B, C, D;
    if (!__get_cpuid_count(7, 0, &A, &B, &C, &D))
      return false;
    bool Sha = B & (1u << 29);
    if (!__get_cpuid(1, &A, &B, &C, &D))
      return false;
    return Sha && (C & (1u << 19)) && (C & (1u << 9)); // SSE4.1, SSSE3
  }();
  return Have && ShaExtensionsWanted.load(std::memory_order_relaxed);
}

/// One block with the x86 SHA extensions (SHA-NI): the state is kept as
/// ABEF and CDGH, each sha256rnds2 does two rounds, msg1/msg2 extend the
/// message schedule four words at a time.
__attribute__((target("sha,sse4.1"))) void blockShaNi(uint32_t H[8], const uint8_t *P) {
  const __m128i Swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i Tmp = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(H)), 0xB1);
  __m128i S1 = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(H + 4)), 0x1B);
  __m128i S0 = _mm_alignr_epi8(Tmp, S1, 8); // ABEF
  S1 = _mm_blend_epi16(S1, Tmp, 0xF0);      // CDGH
  const __m128i Abef = S0, Cdgh = S1;
  __m128i W[4];
  for (int I = 0; I < 4; ++I)
    W[I] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(P + 16 * I)), Swap);
  for (int G = 0; G < 16; ++G) {
    __m128i &Cur = W[G % 4];
    if (G >= 4) {
      // Words 4G..4G+3 from the four groups before them.
      __m128i X = _mm_sha256msg1_epu32(Cur, W[(G + 1) % 4]);
      X = _mm_add_epi32(X, _mm_alignr_epi8(W[(G + 3) % 4], W[(G + 2) % 4], 4));
      Cur = _mm_sha256msg2_epu32(X, W[(G + 3) % 4]);
    }
    __m128i Msg = _mm_add_epi32(Cur, _mm_loadu_si128(reinterpret_cast<const __m128i *>(K + 4 * G)));
    S1 = _mm_sha256rnds2_epu32(S1, S0, Msg);
    S0 = _mm_sha256rnds2_epu32(S0, S1, _mm_shuffle_epi32(Msg, 0x0E));
  }
  S0 = _mm_add_epi32(S0, Abef);
  S1 = _mm_add_epi32(S1, Cdgh);
  Tmp = _mm_shuffle_epi32(S0, 0x1B);   // FEBA
  S1 = _mm_shuffle_epi32(S1, 0xB1);    // DCHG
  S0 = _mm_blend_epi16(Tmp, S1, 0xF0); // DCBA
  S1 = _mm_alignr_epi8(S1, Tmp, 8);    // HGFE
  _mm_storeu_si128(reinterpret_cast<__m128i *>(H), S0);
  _mm_storeu_si128(reinterpret_cast<__m128i *>(H + 4), S1);
}

} // namespace
#endif

void Sha256::useCpuExtensions(bool On) {
#if defined(__x86_64__)
  ShaExtensionsWanted = On;
#else
  (void)On;
#endif
}

void Sha256::block(const uint8_t *P) {
#if defined(__x86_64__)
  if (haveShaExtensions())
    return blockShaNi(H, P);
#endif
  uint32_t W[64];
  for (int I = 0; I < 16; ++I)
    W[I] = uint32_t(P[4 * I]) << 24 | uint32_t(P[4 * I + 1]) << 16 | uint32_t(P[4 * I + 2]) << 8 |
           uint32_t(P[4 * I + 3]);
  for (int I = 16; I < 64; ++I) {
    uint32_t S0 = rotr(W[I - 15], 7) ^ rotr(W[I - 15], 18) ^ (W[I - 15] >> 3);
    uint32_t S1 = rotr(W[I - 2], 17) ^ rotr(W[I - 2], 19) ^ (W[I - 2] >> 10);
    W[I] = W[I - 16] + S0 + W[I - 7] + S1;
  }
  uint32_t A = H[0], B = H[1], C = H[2], D = H[3], E = H[4], F = H[5], G = H[6], Hh = H[7];
  for (int I = 0; I < 64; ++I) {
    uint32_t S1 = rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25);
    uint32_t Ch = (E & F) ^ (~E & G);
    uint32_t T1 = Hh + S1 + Ch + K[I] + W[I];
    uint32_t S0 = rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22);
    uint32_t Maj = (A & B) ^ (A & C) ^ (B & C);
    uint32_t T2 = S0 + Maj;
    Hh = G;
    G = F;
    F = E;
    E = D + T1;
    D = C;
    C = B;
    B = A;
    A = T1 + T2;
  }
  H[0] += A;
  H[1] += B;
  H[2] += C;
  H[3] += D;
  H[4] += E;
  H[5] += F;
  H[6] += G;
  H[7] += Hh;
}

void Sha256::update(const void *Data, size_t Size) {
  const uint8_t *P = static_cast<const uint8_t *>(Data);
  TotalLen += Size;
  while (Size > 0) {
    size_t N = std::min(Size, size_t(64) - BufLen);
    std::memcpy(Buf + BufLen, P, N);
    BufLen += N;
    P += N;
    Size -= N;
    if (BufLen == 64) {
      block(Buf);
      BufLen = 0;
    }
  }
}

Sha256::Digest Sha256::finish() {
  uint64_t Bits = TotalLen * 8;
  uint8_t Pad = 0x80;
  update(&Pad, 1);
  uint8_t Zero = 0;
  while (BufLen != 56)
    update(&Zero, 1);
  uint8_t Len[8];
  for (int I = 0; I < 8; ++I)
    Len[I] = uint8_t(Bits >> (56 - 8 * I));
  update(Len, 8);
  Digest D;
  for (int I = 0; I < 8; ++I)
    for (int J = 0; J < 4; ++J)
      D[4 * I + J] = uint8_t(H[I] >> (24 - 8 * J));
  return D;
}

Sha256::Digest Sha256::of(std::string_view S) {
  Sha256 Ctx;
  Ctx.update(S);
  return Ctx.finish();
}

std::string Sha256::hex(const Digest &D) {
  static const char *Digits = "0123456789abcdef";
  std::string Out;
  for (uint8_t B : D) {
    Out += Digits[B >> 4];
    Out += Digits[B & 15];
  }
  return Out;
}

} // namespace ferry
