//===- MmaRef.h - host reference for the matrix-instruction tests ---------===//
/// \file
/// Plain C++ (no CUDA headers), shared by kernels.cu's native driver and
/// MmaExecTest.cpp: element encodings of the fragment types, a fixed-seed
/// generator of inputs whose products and sums are exact in every
/// accumulator type (so any summation order gives the same bits), matrices
/// in row- or column-major memory with a leading dimension, and the
/// reference D = A*B + C.
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mmaref {

/// Element types. The sub-byte ones (S4, U4, B1) take one byte per element
/// in a Matrix; packed() gives the dense bit layout wmma loads.
enum class ET { F16, BF16, TF32, F32, S8, U8, S32, F64, S4, U4, B1, E4M3, E5M2 };

inline unsigned bytesOf(ET T) {
  switch (T) {
  case ET::F16: case ET::BF16: return 2;
  case ET::S8: case ET::U8: case ET::S4: case ET::U4: case ET::B1: return 1;
  case ET::F64: return 8;
  default: return 4;
  }
}
inline unsigned bitsOf(ET T) { return T == ET::S4 || T == ET::U4 ? 4 : T == ET::B1 ? 1 : 8 * bytesOf(T); }
inline bool isInt(ET T) {
  return T == ET::S8 || T == ET::U8 || T == ET::S32 || T == ET::S4 || T == ET::U4 || T == ET::B1;
}

/// IEEE half bits of V; V must be a half-representable normal or zero.
inline uint16_t toHalf(double V) {
  if (V == 0)
    return std::signbit(V) ? 0x8000 : 0;
  uint16_t S = V < 0 ? 0x8000 : 0;
  int E;
  double F = std::frexp(std::fabs(V), &E); // V = F * 2^E, F in [0.5, 1)
  uint32_t Mant = uint32_t(std::ldexp(F, 11)) & 0x3FF;
  return uint16_t(S | uint32_t(E + 14) << 10 | Mant);
}
inline double fromHalf(uint16_t H) {
  int E = (H >> 10) & 31, M = H & 0x3FF;
  double V = E == 0 ? std::ldexp(M, -24) : E == 31 ? (M ? NAN : INFINITY) : std::ldexp(M | 0x400, E - 25);
  return (H & 0x8000) ? -V : V;
}

inline void put(ET T, void *Base, size_t I, double V) {
  auto *P = static_cast<unsigned char *>(Base) + I * bytesOf(T);
  switch (T) {
  case ET::F16: { uint16_t H = toHalf(V); std::memcpy(P, &H, 2); break; }
  case ET::BF16: { float F = float(V); uint32_t U; std::memcpy(&U, &F, 4); uint16_t H = uint16_t(U >> 16); std::memcpy(P, &H, 2); break; }
  case ET::TF32: case ET::F32: { float F = float(V); std::memcpy(P, &F, 4); break; }
  case ET::S8: case ET::S4: { int8_t X = int8_t(V); std::memcpy(P, &X, 1); break; }
  case ET::U8: case ET::U4: case ET::B1: { uint8_t X = uint8_t(V); std::memcpy(P, &X, 1); break; }
  case ET::S32: { int32_t X = int32_t(int64_t(V)); std::memcpy(P, &X, 4); break; }
  case ET::F64: std::memcpy(P, &V, 8); break;
  }
}
inline double get(ET T, const void *Base, size_t I) {
  auto *P = static_cast<const unsigned char *>(Base) + I * bytesOf(T);
  switch (T) {
  case ET::F16: { uint16_t H; std::memcpy(&H, P, 2); return fromHalf(H); }
  case ET::BF16: { uint16_t H; std::memcpy(&H, P, 2); uint32_t U = uint32_t(H) << 16; float F; std::memcpy(&F, &U, 4); return F; }
  case ET::TF32: case ET::F32: { float F; std::memcpy(&F, P, 4); return F; }
  case ET::S8: case ET::S4: { int8_t X; std::memcpy(&X, P, 1); return X; }
  case ET::U8: case ET::U4: case ET::B1: { uint8_t X; std::memcpy(&X, P, 1); return X; }
  case ET::S32: { int32_t X; std::memcpy(&X, P, 4); return X; }
  case ET::F64: { double X; std::memcpy(&X, P, 8); return X; }
  }
  return 0;
}

/// 64-bit LCG; the top bits are used.
struct Rng {
  uint64_t S;
  explicit Rng(uint64_t Seed) : S(Seed * 2862933555777941757ULL + 3037000493ULL) {}
  uint32_t below(uint32_t N) {
    S = S * 6364136223846793005ULL + 1442695040888963407ULL;
    return uint32_t(S >> 33) % N;
  }
};

/// An input value: floats are multiples of 1/4 in [-1, 1] (products and
/// sums of up to 32 terms are exact even in f16), accumulators small
/// integers; integers cover their whole range.
inline double randomValue(ET T, Rng &R, bool Accumulator) {
  switch (T) {
  case ET::S8: return int(R.below(256)) - 128;
  case ET::U8: return R.below(256);
  case ET::S4: return int(R.below(16)) - 8;
  case ET::U4: return R.below(16);
  case ET::B1: return R.below(2);
  case ET::S32: return int(R.below(2001)) - 1000;
  default: return Accumulator ? int(R.below(21)) - 10 : (int(R.below(9)) - 4) * 0.25;
  }
}

/// A matrix in memory: element (r, c) at r*Ld + c (row-major) or c*Ld + r.
struct Matrix {
  ET T;
  unsigned Rows, Cols, Ld;
  bool RowMajor;
  std::vector<unsigned char> Bytes;
  Matrix(ET T, unsigned Rows, unsigned Cols, bool RowMajor, unsigned Pad = 0)
      : T(T), Rows(Rows), Cols(Cols), Ld((RowMajor ? Cols : Rows) + Pad), RowMajor(RowMajor),
        Bytes(size_t(Ld) * (RowMajor ? Rows : Cols) * bytesOf(T), 0xA5) {}
  size_t index(unsigned R, unsigned C) const { return RowMajor ? size_t(R) * Ld + C : size_t(C) * Ld + R; }
  double at(unsigned R, unsigned C) const { return get(T, Bytes.data(), index(R, C)); }
  void set(unsigned R, unsigned C, double V) { put(T, Bytes.data(), index(R, C), V); }
  void fill(Rng &G, bool Accumulator) {
    for (unsigned R = 0; R < Rows; ++R)
      for (unsigned C = 0; C < Cols; ++C)
        set(R, C, randomValue(T, G, Accumulator));
  }
  void *data() { return Bytes.data(); }
  /// The elements packed bitsOf(T) bits each, element i at bit i*bits
  /// (low bits first), in the same order as Bytes (sub-byte wmma memory).
  std::vector<unsigned char> packed() const {
    unsigned W = bitsOf(T);
    size_t N = Bytes.size();
    std::vector<unsigned char> Out((N * W + 7) / 8, 0);
    for (size_t I = 0; I < N; ++I)
      Out[I * W / 8] |= (Bytes[I] & ((1u << W) - 1)) << (I * W % 8);
    return Out;
  }
};

/// The expected D (type TD): C + A*B, saturated to s32 when Sat, wrapped
/// otherwise; floats are exact by construction. Xor (b1 only): the
/// products are a XOR b (.xor.popc) instead of a AND b.
inline Matrix reference(const Matrix &A, const Matrix &B, const Matrix &C, ET TD, bool Sat, bool Xor = false) {
  Matrix D(TD, C.Rows, C.Cols, C.RowMajor, C.Ld - (C.RowMajor ? C.Cols : C.Rows));
  for (unsigned I = 0; I < C.Rows; ++I)
    for (unsigned J = 0; J < C.Cols; ++J) {
      if (isInt(TD)) {
        int64_t S = int64_t(C.at(I, J));
        for (unsigned K = 0; K < A.Cols; ++K)
          S += Xor ? int64_t(A.at(I, K) != B.at(K, J)) : int64_t(A.at(I, K)) * int64_t(B.at(K, J));
        if (Sat)
          S = S > INT32_MAX ? INT32_MAX : S < INT32_MIN ? INT32_MIN : S;
        else
          S = int32_t(uint32_t(uint64_t(S)));
        D.set(I, J, double(S));
      } else {
        double S = C.at(I, J);
        for (unsigned K = 0; K < A.Cols; ++K)
          S += A.at(I, K) * B.at(K, J);
        D.set(I, J, S);
      }
    }
  return D;
}

/// Number of elements of D that differ from Want (compared as values).
inline unsigned mismatches(const Matrix &D, const Matrix &Want) {
  unsigned Bad = 0;
  for (unsigned I = 0; I < D.Rows; ++I)
    for (unsigned J = 0; J < D.Cols; ++J)
      Bad += !(D.at(I, J) == Want.at(I, J));
  return Bad;
}

} // namespace mmaref
