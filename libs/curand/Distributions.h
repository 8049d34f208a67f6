/// \file
/// cuRAND's conversions from raw 32-bit draws to its distributions, as its
/// device API writes them (curand_uniform.h, curand_normal.h,
/// curand_lognormal.h), which NVIDIA's host-API kernels were measured to
/// use bit for bit. nvcc contracts `a * b + c` there into one fused
/// multiply-add, so the same is written here with std::fma.
///
/// Exact: every uniform (float and double). Not exact everywhere: the float
/// Box-Muller takes sine and cosine from the GPU's approximate __sincosf
/// (sin.approx/cos.approx, a hardware table ferry cannot reproduce) and its
/// logf; here they are computed precisely and rounded, which agrees with the
/// H100 on most results and otherwise within a few units in the last place
/// (tests/curand says how many). The double forms (log, sqrt, sincospi) are
/// computed with long double and rounded, which matched the H100's results
/// in the goldens except where its own last bit differs.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

namespace ferry::curand {

constexpr float Pow32Inv = 2.3283064e-10f;
constexpr double Pow32InvD = 2.3283064365386963e-10;
constexpr double Pow53InvD = 1.1102230246251565e-16;
constexpr float Pow32Inv2Pi = 2.3283064e-10f * 6.2831855f;
constexpr double MrgNorm = 2.3283065498378288e-10;

inline float uniformFloat(uint32_t X) { return std::fma(static_cast<float>(X), Pow32Inv, Pow32Inv / 2.0f); }
inline double uniformDouble32(uint32_t X) { return std::fma(static_cast<double>(X), Pow32InvD, Pow32InvD); }
/// 53 bits from two draws (_curand_uniform_double_hq).
inline double uniformDoubleHq(uint32_t X, uint32_t Y) {
  uint64_t Z = static_cast<uint64_t>(X) ^ (static_cast<uint64_t>(Y) << 21);
  return std::fma(static_cast<double>(Z), Pow53InvD, Pow53InvD / 2.0);
}

/// log, rounded from a more precise result (the GPU's logf/log are within
/// an ulp of the exact value; rounding the exact value agrees with them on
/// nearly every input).
inline float logFloat(float X) { return static_cast<float>(std::log(static_cast<double>(X))); }
inline double logDouble(double X) { return static_cast<double>(std::log(static_cast<long double>(X))); }

/// sin(pi V) and cos(pi V), from an exact reduction to |F| <= 1/4.
inline void sinCosPi(double V, double &S, double &C) {
  double K = std::nearbyint(2.0 * V);
  long double F = static_cast<long double>(V) - static_cast<long double>(K) / 2;
  const long double Pi = 3.14159265358979323846264338327950288L;
  long double Sf = std::sin(Pi * F), Cf = std::cos(Pi * F);
  long long Q = static_cast<long long>(K) & 3;
  long double Rs = Q == 0 ? Sf : Q == 1 ? Cf : Q == 2 ? -Sf : -Cf;
  long double Rc = Q == 0 ? Cf : Q == 1 ? -Sf : Q == 2 ? -Cf : Sf;
  S = static_cast<double>(Rs);
  C = static_cast<double>(Rc);
}

/// _curand_box_muller: two standard normals from two draws.
inline std::pair<float, float> boxMuller(uint32_t X, uint32_t Y) {
  float U = std::fma(static_cast<float>(X), Pow32Inv, Pow32Inv / 2.0f);
  float V = std::fma(static_cast<float>(Y), Pow32Inv2Pi, Pow32Inv2Pi / 2.0f);
  float S = std::sqrt(-2.0f * logFloat(U));
  float Sn = static_cast<float>(std::sin(static_cast<double>(V)));
  float Cs = static_cast<float>(std::cos(static_cast<double>(V)));
  return {Sn * S, Cs * S};
}

/// curand_box_muller_mrg: from two of MRG32k3a's combined values.
inline std::pair<float, float> boxMullerMrg(double R1, double R2) {
  float X = static_cast<float>(R1 * MrgNorm);
  float Y = static_cast<float>(R2 * MrgNorm) * 6.2831855f;
  float S = std::sqrt(-2.0f * logFloat(X));
  float Sn = static_cast<float>(std::sin(static_cast<double>(Y)));
  float Cs = static_cast<float>(std::cos(static_cast<double>(Y)));
  return {Sn * S, Cs * S};
}

/// _curand_box_muller_double: two standard normals from four draws.
inline std::pair<double, double> boxMullerDouble(uint32_t X0, uint32_t X1, uint32_t Y0, uint32_t Y1) {
  uint64_t Zx = static_cast<uint64_t>(X0) ^ (static_cast<uint64_t>(X1) << 21);
  uint64_t Zy = static_cast<uint64_t>(Y0) ^ (static_cast<uint64_t>(Y1) << 21);
  double U = std::fma(static_cast<double>(Zx), Pow53InvD, Pow53InvD / 2.0);
  double V = std::fma(static_cast<double>(Zy), Pow53InvD * 2.0, Pow53InvD);
  double S = std::sqrt(-2.0 * logDouble(U));
  double Sn, Cs;
  sinCosPi(V, Sn, Cs);
  return {Sn * S, Cs * S};
}

/// curand_box_muller_mrg_double.
inline std::pair<double, double> boxMullerMrgDouble(double R1, double R2) {
  double X = R1 * MrgNorm;
  double Y = R2 * MrgNorm * 2.0;
  double S = std::sqrt(-2.0 * logDouble(X));
  double Sn, Cs;
  sinCosPi(Y, Sn, Cs);
  return {Sn * S, Cs * S};
}

/// erfc^-1(Z) for Z in (0, 2), by bisection on erfcl (monotone): as close
/// to exact as long double allows, which the GPU's erfcinvf/erfcinv (within
/// a few ulp of exact) agree with after rounding on nearly every input.
inline long double erfcInverse(long double Z) {
  if (Z == 1)
    return 0;
  long double Lo = -30, Hi = 30;
  for (int I = 0; I < 80; ++I) {
    long double Mid = (Lo + Hi) / 2;
    if (std::erfc(Mid) > Z)
      Lo = Mid;
    else
      Hi = Mid;
  }
  // Newton steps: relative precision also near 0, where bisection's
  // absolute precision is not enough.
  long double Y = (Lo + Hi) / 2;
  const long double TwoOverSqrtPi = 1.12837916709551257389615890312154517L;
  for (int I = 0; I < 3; ++I)
    Y += (std::erfc(Y) - Z) / (TwoOverSqrtPi * std::exp(-Y * Y));
  return Y;
}

/// erfc^-1(Z) for Z in (0, 1], for results rounded to float: Newton's
/// method in double from an asymptotic start, then erfcInverse's long
/// double Newton steps. The long double result can differ from
/// erfcInverse's in its last bits (the steps settle on different values
/// near the root), but its float rounding was the same for 2.5M 32-bit
/// inputs of normalIcdf (all of the smallest and largest 4096 included) at
/// a sixth of the cost; doubles would round apart for 0.8%, so they keep
/// erfcInverse.
inline long double erfcInverseForFloat(long double Z) {
  if (Z == 1)
    return 0;
  double Zd = static_cast<double>(Z), Y;
  if (Zd > 0.3) {
    Y = (1 - Zd) * 0.886226925452758; // sqrt(pi) / 2: erfc(y) ~ 1 - 2y / sqrt(pi)
  } else {
    double T = std::sqrt(-std::log(Zd)); // erfc(y) ~ exp(-y^2) / (y sqrt(pi))
    Y = T - (std::log(T) + 0.5723649429247001) / (2 * T);
  }
  for (int I = 0; I < 50; ++I) {
    double D = (std::erfc(Y) - Zd) / (1.1283791670955126 * std::exp(-Y * Y));
    Y += D;
    if (std::fabs(D) <= 1e-17 * std::fabs(Y))
      break;
  }
  long double L = Y;
  const long double TwoOverSqrtPi = 1.12837916709551257389615890312154517L;
  for (int I = 0; I < 3; ++I)
    L += (std::erfc(L) - Z) / (TwoOverSqrtPi * std::exp(-L * L));
  return L;
}

/// _curand_normal_icdf: a quasi-random normal from 32 bits, mirrored about
/// the middle so the small tail keeps its precision (CURAND_SQRT2 < 0).
inline float normalIcdf(uint32_t X) {
  float S = -1.4142135f;
  if (X > 0x80000000u) {
    X = 0xffffffffu - X;
    S = -S;
  }
  float P = std::fma(static_cast<float>(X), Pow32Inv, Pow32Inv / 2.0f);
  return S * static_cast<float>(erfcInverseForFloat(2.0f * P));
}

/// _curand_normal_icdf_double from 32 bits.
inline double normalIcdfDouble(uint32_t X) {
  double S = -1.4142135623730951;
  if (X > 0x80000000u) {
    X = 0xffffffffu - X;
    S = -S;
  }
  double P = std::fma(static_cast<double>(X), Pow32InvD, Pow32InvD / 2.0);
  return S * static_cast<double>(erfcInverse(2.0 * P));
}

/// _curand_normal_icdf_double from 64 bits (53 of them).
inline double normalIcdfDouble64(uint64_t X) {
  double S = -1.4142135623730951;
  X >>= 11;
  if (X > 0x10000000000000ull) {
    X = 0x1fffffffffffffull - X;
    S = -S;
  }
  double P = std::fma(static_cast<double>(X), Pow53InvD, Pow53InvD / 2.0);
  return S * static_cast<double>(erfcInverse(2.0 * P));
}

} // namespace ferry::curand
