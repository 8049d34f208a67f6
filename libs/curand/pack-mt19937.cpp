/// \file
/// Writes libs/curand/mt19937-jump.bin, the jump polynomials cuRAND's
/// MT19937 generator needs (libs/curand/Mt19937.h): generator g of NVIDIA's
/// 8192 is generator 0 (init_genrand(seed)) advanced g * 2^2048 words of
/// the MT19937 sequence (measured on the H100: libs/README.md), so ferry
/// needs x^(2^2048 * 2^p) mod P(x) for p = 0 .. 12, P being MT19937's
/// characteristic polynomial (degree 19937).
///
/// Derivation, nothing copied: P is found by Berlekamp-Massey from the low
/// bit of the MT19937 sequence (any seed: the recurrence is
/// x[k + 624] = x[k + 397] ^ twist(x[k], x[k + 1])); x^(2^k) by k squarings
/// modulo P. A polynomial r of degree < 19937 applied to a state s (the 624
/// words x[k .. k + 623]) gives sum r_i F^i(s), F the one-word step; with
/// r = x^d mod P that is the state d words later.
///
/// Output: 13 records of 624 little-endian 32-bit words, coefficient i of
/// record p in bit i % 32 of word i / 32. Takes a few seconds.
/// Build and run: c++ -O2 -o pack-mt19937 libs/curand/pack-mt19937.cpp &&
///   ./pack-mt19937 libs/curand/mt19937-jump.bin
/// (`--check FILE` recomputes and compares instead of writing.)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int Deg = 19937, Words = 624, Mid = 397;
constexpr int FirstPower = 2048, Powers = 13;

using Poly = std::vector<uint64_t>; // coefficient i in bit i % 64 of word i / 64

bool coef(const Poly &A, int I) { return (A[I >> 6] >> (I & 63)) & 1; }
void flip(Poly &A, int I) { A[I >> 6] ^= uint64_t(1) << (I & 63); }
/// A ^= B * x^S (A large enough).
void addShifted(Poly &A, const Poly &B, int S) {
  int W = S >> 6, Bits = S & 63;
  for (size_t I = 0; I < B.size(); ++I) {
    if (!B[I])
      continue;
    if (I + W < A.size())
      A[I + W] ^= B[I] << Bits;
    if (Bits && I + W + 1 < A.size())
      A[I + W + 1] ^= B[I] >> (64 - Bits);
  }
}

uint32_t step(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t Y = (A & 0x80000000u) | (B & 0x7fffffffu);
  return C ^ (Y >> 1) ^ ((Y & 1) ? 0x9908b0dfu : 0u);
}

/// MT19937's characteristic polynomial, from Berlekamp-Massey on the low
/// bit of init_genrand(5489)'s sequence.
Poly charPoly() {
  const int Len = 2 * Deg + 64;
  std::vector<uint32_t> X(Len + Words);
  X[0] = 5489;
  for (int I = 1; I < Words; ++I)
    X[I] = 1812433253u * (X[I - 1] ^ (X[I - 1] >> 30)) + I;
  for (int K = 0; K + Words < static_cast<int>(X.size()); ++K)
    X[K + Words] = step(X[K], X[K + 1], X[K + Mid]);
  std::vector<uint8_t> S(Len);
  for (int K = 0; K < Len; ++K)
    S[K] = X[Words + K] & 1;
  const size_t W = Deg / 64 + 2;
  Poly C(W), B(W), T;
  flip(C, 0);
  flip(B, 0);
  int L = 0, M = 1;
  for (int N = 0; N < Len; ++N) {
    int D = S[N];
    for (int I = 1; I <= L; ++I)
      D ^= coef(C, I) & S[N - I];
    if (!D) {
      ++M;
      continue;
    }
    T = C;
    addShifted(C, B, M);
    if (2 * L <= N) {
      L = N + 1 - L;
      B = T;
      M = 1;
    } else {
      ++M;
    }
  }
  if (L != Deg) {
    std::fprintf(stderr, "pack-mt19937: linear complexity %d, expected %d\n", L, Deg);
    return {};
  }
  Poly P(W); // the reciprocal of the connection polynomial
  for (int I = 0; I <= L; ++I)
    if (coef(C, I))
      flip(P, L - I);
  return P;
}

/// A^2 mod P, A of degree < Deg.
Poly squareMod(const Poly &A, const Poly &P) {
  Poly R(2 * A.size() + 2);
  for (int I = 0; I < Deg; ++I)
    if (coef(A, I))
      flip(R, 2 * I);
  for (int D = 2 * Deg - 2; D >= Deg; --D) // P's leading term clears bit D
    if (coef(R, D))
      addShifted(R, P, D - Deg);
  R.resize(A.size());
  return R;
}

} // namespace

int main(int Argc, char **Argv) {
  bool Check = Argc == 3 && !std::strcmp(Argv[1], "--check");
  if (Argc != 2 && !Check) {
    std::fprintf(stderr, "usage: pack-mt19937 [--check] OUT.bin\n");
    return 2;
  }
  Poly P = charPoly();
  if (P.empty())
    return 1;
  Poly X(P.size());
  flip(X, 1);
  for (int I = 0; I < FirstPower; ++I)
    X = squareMod(X, P);
  std::vector<unsigned char> Out;
  for (int Pw = 0; Pw < Powers; ++Pw) {
    for (int Wd = 0; Wd < Words; ++Wd) {
      uint32_t V = static_cast<uint32_t>(X[Wd / 2] >> (32 * (Wd & 1)));
      for (int By = 0; By < 4; ++By)
        Out.push_back(static_cast<unsigned char>(V >> (8 * By)));
    }
    X = squareMod(X, P);
  }
  const char *Path = Argv[Argc - 1];
  if (Check) {
    std::vector<unsigned char> Old(Out.size() + 1);
    FILE *F = std::fopen(Path, "rb");
    size_t Got = F ? std::fread(Old.data(), 1, Old.size(), F) : 0;
    if (F)
      std::fclose(F);
    bool Same = Got == Out.size() && !std::memcmp(Old.data(), Out.data(), Out.size());
    std::printf("%s: %s\n", Path, Same ? "matches the derivation" : "DIFFERS from the derivation");
    return Same ? 0 : 1;
  }
  FILE *F = std::fopen(Path, "wb");
  if (!F || std::fwrite(Out.data(), 1, Out.size(), F) != Out.size() || std::fclose(F)) {
    std::fprintf(stderr, "pack-mt19937: cannot write %s\n", Path);
    return 1;
  }
  return 0;
}
