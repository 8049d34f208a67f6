/// \file
/// The JOEKUO6 direction vectors and the Sobol generators (Sobol.h).
#include "libs/curand/Sobol.h"

#include "libs/curand/Distributions.h"
#include "libs/curand/Incbin.h"

#include <cmath>
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

std::once_flag Once32, Once64;
std::vector<uint32_t> *Table32;
std::vector<uint64_t> *Table64;

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
void generateWith(const T *Table, bool Is64, unsigned Dimensions, Output What, uint64_t Position, size_t N, void *Out,
                  double Mean, double Stddev) {
  constexpr unsigned W = sizeof(T) * 8;
  size_t Points = N / Dimensions;
  for (unsigned D = 0; D < Dimensions; ++D) {
    const T *V = Table + size_t(D) * W;
    // Point Position directly from its Gray code, then one XOR per step.
    uint64_t Gray = Position ^ (Position >> 1);
    T X = 0;
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

void generateSobol(bool Is64, unsigned Dimensions, Output What, uint64_t Position, size_t N, void *Out, double Mean,
                   double Stddev) {
  if (Is64)
    generateWith(sobolDirections64(), true, Dimensions, What, Position, N, Out, Mean, Stddev);
  else
    generateWith(sobolDirections32(), false, Dimensions, What, Position, N, Out, Mean, Stddev);
}

} // namespace ferry::curand
