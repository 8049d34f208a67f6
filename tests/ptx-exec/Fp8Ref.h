//===- Fp8Ref.h - reference fp8 conversions (e4m3, e5m2) -------*- C++ -*-===//
/// \file
/// The values of every fp8 code (PTX ISA 5.2.3: e4m3 with 4 exponent bits,
/// bias 7, no infinities, S.1111.111 NaN; e5m2 with 5 exponent bits, bias
/// 15, IEEE-like), and conversion of a double to the nearest code, ties to
/// the even code, saturated to the largest finite value (.satfinite), NaN
/// as 0x7F; .relu sends negatives and -0 to +0. Plain C++, shared by Fp8Test.cpp and the H100 check of the same
/// reference.
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <cstdint>

namespace fp8ref {

inline double value(uint8_t C, bool E4M3) {
  int S = C >> 7;
  double V;
  if (E4M3) {
    int E = (C >> 3) & 15, M = C & 7;
    if (E == 15 && M == 7)
      return NAN;
    V = E == 0 ? std::ldexp(M, -9) : std::ldexp(8 + M, E - 10);
  } else {
    int E = (C >> 2) & 31, M = C & 3;
    if (E == 31)
      return M ? NAN : (S ? -INFINITY : INFINITY);
    V = E == 0 ? std::ldexp(M, -16) : std::ldexp(4 + M, E - 17);
  }
  return S ? -V : V;
}

/// .rn.satfinite{.relu} conversion of X.
inline uint8_t encode(double X, bool E4M3, bool Relu) {
  if (std::isnan(X))
    return 0x7F;
  if (Relu && std::signbit(X)) // -0 too (as on an H100)
    return 0;
  uint8_t Sign = std::signbit(X) ? 0x80 : 0;
  double A = std::fabs(X);
  // The largest finite code is 0x7E (e4m3) or 0x7B (e5m2); codes of one
  // sign are ordered by value.
  uint8_t Best = 0, MaxCode = E4M3 ? 0x7E : 0x7B;
  if (A >= value(MaxCode, E4M3))
    return Sign | MaxCode;
  for (uint8_t C = 1; C <= MaxCode; ++C) {
    double Cur = value(C, E4M3), Prev = value(Best, E4M3);
    double DC = std::fabs(Cur - A), DP = std::fabs(Prev - A);
    if (DC < DP || (DC == DP && (C & 1) == 0))
      Best = C;
  }
  return Sign | Best;
}

} // namespace fp8ref
