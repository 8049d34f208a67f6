/// \file
/// Number formats a CPU BLAS lacks, converted exactly as NVIDIA's hardware
/// does: IEEE binary16 and bfloat16 with round-to-nearest-even (NaN kept
/// quiet, overflow to infinity, subnormals exact), and the TF32 rounding of
/// FP32 inputs that tensor-core GEMMs apply.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ferry::cublas {

inline uint32_t floatBits(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}
inline float bitsFloat(uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

inline float halfToFloat(uint16_t H) {
  uint32_t Sign = (uint32_t)(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Man = H & 0x3ff;
  if (Exp == 0x1f)
    return bitsFloat(Sign | 0x7f800000 | (Man << 13) | (Man ? 0x400000 : 0));
  if (Exp == 0) {
    if (Man == 0)
      return bitsFloat(Sign);
    // Subnormal: value = Man * 2^-24, exact in float.
    float F = (float)Man * 0x1p-24f;
    return Sign ? -F : F;
  }
  return bitsFloat(Sign | ((Exp + 112) << 23) | (Man << 13));
}

inline uint16_t floatToHalf(float F) {
  uint32_t U = floatBits(F);
  uint16_t Sign = (uint16_t)((U >> 16) & 0x8000);
  uint32_t Abs = U & 0x7fffffff;
  if (Abs >= 0x7f800000) // Inf or NaN (NaN stays quiet, payload's top bits kept).
    return Sign | 0x7c00 | (Abs > 0x7f800000 ? (0x200 | ((Abs >> 13) & 0x3ff)) : 0);
  if (Abs >= 0x477ff000) // Rounds to >= 65520: infinity.
    return Sign | 0x7c00;
  if (Abs < 0x38800000) {
    // Below the smallest normal half (2^-14): a subnormal, rounded to
    // nearest even in units of 2^-24; rint uses the current (nearest) mode.
    float A = bitsFloat(Abs) * 0x1p24f;
    return Sign | (uint16_t)std::nearbyint(A);
  }
  uint32_t Man = Abs + 0xc8000000; // Rebias the exponent (127 -> 15).
  Man += 0xfff + ((Man >> 13) & 1);  // Round to nearest even at bit 13.
  return Sign | (uint16_t)(Man >> 13);
}

inline float bf16ToFloat(uint16_t B) { return bitsFloat((uint32_t)B << 16); }

inline uint16_t floatToBf16(float F) {
  uint32_t U = floatBits(F);
  if ((U & 0x7fffffff) > 0x7f800000)
    return (uint16_t)((U >> 16) | 0x40);
  U += 0x7fff + ((U >> 16) & 1);
  return (uint16_t)(U >> 16);
}

/// TF32 keeps 10 mantissa bits; the H100's cuBLAS rounds to nearest, ties
/// away from zero (cvt.rna.tf32.f32), as the goldens show.
inline float roundTf32(float F) {
  uint32_t U = floatBits(F);
  if ((U & 0x7f800000) == 0x7f800000)
    return F;
  U += 0x1000;
  U &= 0xffffe000;
  return bitsFloat(U);
}

} // namespace ferry::cublas
