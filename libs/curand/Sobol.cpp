/// \file
/// The JOEKUO6 direction vectors and the Sobol generators (Sobol.h).
#include "libs/curand/Sobol.h"

#include "libs/curand/Distributions.h"
#include "libs/curand/Incbin.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

// joe-kuo-6.bin, linked in as read-only data (pack-joe-kuo writes it).
FERRY_INCBIN(ferryJoeKuo6, FERRY_JOE_KUO_BIN);

namespace ferry::curand {
namespace {

/// Reads the packed stream least significant bit first.
class BitReader {
public:
  uint32_t take(unsigned Width) {
    uint32_t V = 0;
    for (unsigned B = 0; B < Width; ++B, ++Pos) {
      size_t Byte = Pos / 8;
      unsigned Bit = Byte < size_t(ferryJoeKuo6End - ferryJoeKuo6) ? ferryJoeKuo6[Byte] >> (Pos % 8) & 1 : 0;
      V |= Bit << B;
    }
    return V;
  }

private:
  size_t Pos = 0;
};

/// Direction vectors of W bits for every dimension, row d at d * W.
template <typename T> std::vector<T> buildTable() {
  constexpr unsigned W = sizeof(T) * 8;
  std::vector<T> V(size_t(SobolMaxDimensions) * W);
  for (unsigned K = 0; K < W; ++K)
    V[K] = T(1) << (W - 1 - K);
  BitReader R;
  for (unsigned D = 1; D < SobolMaxDimensions; ++D) {
    T *Row = &V[size_t(D) * W];
    unsigned S = R.take(5);
    uint32_t A = R.take(S - 1);
    for (unsigned K = 0; K < S; ++K) {
      T M = R.take(K + 1);
      if (K < W)
        Row[K] = M << (W - 1 - K);
    }
    for (unsigned K = S; K < W; ++K) {
      T X = Row[K - S] ^ (Row[K - S] >> S);
      for (unsigned J = 1; J < S; ++J)
        if (A >> (S - 1 - J) & 1)
          X ^= Row[K - J];
      Row[K] = X;
    }
  }
  return V;
}

std::once_flag Once32, Once64, OnceScrambled;
std::vector<uint32_t> *Table32;
std::vector<uint64_t> *Table64;

struct ScrambledTables {
  std::vector<uint32_t> V32, C32;
  std::vector<uint64_t> V64, C64;
};
ScrambledTables *ScrambledSet;

/// The scrambled tables from their XORWOW stream (Sobol.h's comment).
void buildScrambled() {
  constexpr size_t Dims = SobolMaxDimensions;
  constexpr size_t MatrixWords = Dims * 64; // 64-bit values u_k
  // Words w_0 .. w_(2K): u_k takes w_(2k+1) and w_(2k+2).
  std::vector<uint32_t> W(2 * (MatrixWords + Dims) + 1);
  std::shared_ptr<StateCache> Cache;
  Layout L{};
  L.Kind = Engine::Xorwow;
  L.Seed = 0;
  L.Threads = 4096; // the default ordering's
  generate(L, Cache, Output::Bits, 0, W.size(), W.data(), 0, 1);
  auto U = [&W](size_t K) { return uint64_t(W[2 * K + 2]) << 32 | W[2 * K + 1]; };

  auto *S = new ScrambledTables;
  S->V64.resize(Dims * 64);
  S->V32.resize(Dims * 32);
  S->C64.resize(Dims);
  S->C32.resize(Dims);
  const uint64_t *Plain = sobolDirections64();
  for (size_t D = 0; D < Dims; ++D) {
    // L_d's columns: Col[j] has bit 63 - i where row i has column j.
    uint64_t Col[64];
    for (unsigned J = 0; J < 64; ++J)
      Col[J] = uint64_t(1) << (63 - J);
    for (unsigned I = 1; I < 64; ++I) {
      uint64_t Row = U(D * 64 + I) & ~uint64_t(0) << (64 - I); // columns 0 .. i-1
      for (; Row; Row &= Row - 1)
        Col[63 - __builtin_ctzll(Row)] |= uint64_t(1) << (63 - I);
    }
    for (unsigned K = 0; K < 64; ++K) {
      uint64_t X = 0;
      for (uint64_t V = Plain[D * 64 + K]; V; V &= V - 1)
        X ^= Col[63 - __builtin_ctzll(V)];
      S->V64[D * 64 + K] = X;
      if (K < 32)
        S->V32[D * 32 + K] = static_cast<uint32_t>(X >> 32);
    }
    S->C64[D] = U(MatrixWords + D);
    S->C32[D] = static_cast<uint32_t>(S->C64[D] >> 32);
  }
  ScrambledSet = S;
}

/// One point's value converted as the device API converts it.
template <typename T>
void store(bool Is64, Output What, T X, size_t I, void *Out, double Mean, double Stddev) {
  uint64_t X64 = Is64 ? uint64_t(X) : uint64_t(X) << 32;
  uint32_t X32 = static_cast<uint32_t>(X64 >> 32); // 64-bit: floats from the top half
  auto *F = static_cast<float *>(Out);
  auto *D = static_cast<double *>(Out);
  switch (What) {
  case Output::Bits:
    if (Is64)
      static_cast<uint64_t *>(Out)[I] = X64;
    else
      static_cast<uint32_t *>(Out)[I] = X32;
    break;
  case Output::Uniform:
    F[I] = uniformFloat(X32);
    break;
  case Output::UniformDouble:
    D[I] = Is64 ? std::fma(static_cast<double>(X64 >> 11), Pow53InvD, Pow53InvD / 2.0) : uniformDouble32(X32);
    break;
  case Output::Normal:
    F[I] = std::fma(normalIcdf(X32), static_cast<float>(Stddev), static_cast<float>(Mean));
    break;
  case Output::LogNormal:
    F[I] = static_cast<float>(
        std::exp(static_cast<double>(std::fma(normalIcdf(X32), static_cast<float>(Stddev), static_cast<float>(Mean)))));
    break;
  case Output::NormalDouble:
  case Output::LogNormalDouble: {
    double V = std::fma(Is64 ? normalIcdfDouble64(X64) : normalIcdfDouble(X32), Stddev, Mean);
    D[I] = What == Output::NormalDouble ? V : static_cast<double>(std::exp(static_cast<long double>(V)));
    break;
  }
  }
}

template <typename T>
void generateWith(const T *Table, const T *Constants, bool Is64, unsigned Dimensions, Output What, uint64_t Position,
                  size_t N, void *Out, double Mean, double Stddev) {
  constexpr unsigned W = sizeof(T) * 8;
  size_t Points = N / Dimensions;
  for (unsigned D = 0; D < Dimensions; ++D) {
    const T *V = Table + size_t(D) * W;
    // Point Position directly from its Gray code, then one XOR per step.
    uint64_t Gray = Position ^ (Position >> 1);
    T X = Constants ? Constants[D] : T(0);
    for (unsigned K = 0; K < W && K < 64; ++K)
      if (Gray >> K & 1)
        X ^= V[K];
    for (size_t I = 0; I < Points; ++I) {
      store<T>(Is64, What, X, size_t(D) * Points + I, Out, Mean, Stddev);
      uint64_t Index = Position + I;
      unsigned Zero = ~Index ? __builtin_ctzll(~Index) : 64; // the bit the Gray code flips
      X ^= Zero < W ? V[Zero] : T(0);
    }
  }
}

} // namespace

const uint32_t *sobolDirections32() {
  std::call_once(Once32, [] { Table32 = new std::vector<uint32_t>(buildTable<uint32_t>()); });
  return Table32->data();
}

const uint64_t *sobolDirections64() {
  std::call_once(Once64, [] { Table64 = new std::vector<uint64_t>(buildTable<uint64_t>()); });
  return Table64->data();
}

const uint32_t *scrambledDirections32() {
  std::call_once(OnceScrambled, buildScrambled);
  return ScrambledSet->V32.data();
}

const uint64_t *scrambledDirections64() {
  std::call_once(OnceScrambled, buildScrambled);
  return ScrambledSet->V64.data();
}

const uint32_t *scrambleConstants32() {
  std::call_once(OnceScrambled, buildScrambled);
  return ScrambledSet->C32.data();
}

const uint64_t *scrambleConstants64() {
  std::call_once(OnceScrambled, buildScrambled);
  return ScrambledSet->C64.data();
}

void generateSobol(bool Is64, bool Scrambled, unsigned Dimensions, Output What, uint64_t Position, size_t N,
                   void *Out, double Mean, double Stddev) {
  if (Is64)
    generateWith(Scrambled ? scrambledDirections64() : sobolDirections64(), Scrambled ? scrambleConstants64() : nullptr,
                 true, Dimensions, What, Position, N, Out, Mean, Stddev);
  else
    generateWith(Scrambled ? scrambledDirections32() : sobolDirections32(), Scrambled ? scrambleConstants32() : nullptr,
                 false, Dimensions, What, Position, N, Out, Mean, Stddev);
}

} // namespace ferry::curand
