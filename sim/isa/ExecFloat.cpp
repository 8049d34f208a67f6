//===- sim/isa/ExecFloat.cpp - VALU floating point ------------------------===//
/// \file
/// Float VALU semantics per the CDNA3/RDNA3 manuals, computed with the host's
/// IEEE arithmetic (this file is built with -ffp-contract=off and
/// -frounding-math so the host does exactly one rounding per operation).
///
/// Modes: MODE.FP_DENORM flushes denormal inputs/outputs (f32 field for f32
/// ops; the f16/f64 field for f16 and f64 ops), MODE.IEEE selects how min/max
/// treat signalling NaNs, MODE.DX10_CLAMP makes clamp map NaN to 0. Only the
/// f32 round-mode field is honoured (for every op of an instruction).
///
/// Accuracy: the hardware's transcendental ops (v_rcp, v_rsq, v_sqrt, v_exp,
/// v_log, v_sin, v_cos) are approximations (about 1 ULP for f32 rcp/rsq/
/// sqrt/exp/log per the manuals); here they are the correctly rounded (or
/// libm) host results, so a kernel may see results that differ from real
/// hardware in the last bit. NaN results are the canonical quiet NaN
/// 0x7fc00000 (or the input NaN, quieted), as the hardware produces.
//===----------------------------------------------------------------------===//
#include "sim/isa/Exec.h"

#include <cfenv>
#include <cmath>
#include <limits>

namespace ferry::sim {

RoundingScope::RoundingScope(uint32_t Mode) {
  unsigned R = (Mode >> ModeRound32Shift) & 3;
  if (R == 0)
    return;
  Saved = fegetround();
  static const int Host[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  fesetround(Host[R]);
}
RoundingScope::~RoundingScope() {
  if (Saved >= 0)
    fesetround(Saved);
}

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  int Exp = (H >> 10) & 0x1f;
  uint32_t Man = H & 0x3ff;
  if (Exp == 0x1f)
    return bitCast<float>(Sign | 0x7f800000u | (Man << 13));
  if (Exp == 0) {
    float F = std::ldexp(float(Man), -24);
    return Sign ? -F : F;
  }
  return bitCast<float>(Sign | uint32_t(Exp - 15 + 127) << 23 | Man << 13);
}

static uint16_t doubleToHalf(double D, bool TowardZero) {
  uint64_t B = bitCast<uint64_t>(D);
  uint16_t Sign = uint16_t((B >> 48) & 0x8000);
  if (std::isnan(D))
    return uint16_t(Sign | 0x7e00 | ((B >> 42) & 0x1ff));
  double A = std::fabs(D);
  if (std::isinf(A))
    return Sign | 0x7c00;
  // Scale into an integer significand at the half's precision, round there.
  int E;
  std::frexp(A, &E); // A = m * 2^E, m in [0.5, 1)
  int Exp = E - 1;    // A = 1.f * 2^Exp
  if (Exp < -14)
    Exp = -14;        // denormal range shares the minimum exponent
  double Scaled = std::ldexp(A, 10 - Exp); // significand with 10 fraction bits
  double R;
  if (TowardZero)
    R = std::trunc(Scaled);
  else
    R = std::nearbyint(Scaled); // current mode: nearest even by default
  uint64_t M = uint64_t(R);
  if (M >= 2048) { // rounding carried into the next binade
    M >>= 1;
    ++Exp;
  }
  if (Exp > 15)
    return TowardZero ? uint16_t(Sign | 0x7bff) : uint16_t(Sign | 0x7c00);
  if (M < 1024) // denormal (or zero)
    return uint16_t(Sign | M);
  return uint16_t(Sign | uint16_t(Exp + 15) << 10 | (M & 0x3ff));
}

uint16_t floatToHalf(float F, bool TowardZero) { return doubleToHalf(F, TowardZero); }

namespace {

constexpr uint32_t QNaN32 = 0x7fc00000u;
constexpr uint64_t QNaN64 = 0x7ff8000000000000ull;
constexpr uint16_t QNaN16 = 0x7e00;

struct Ctx {
  const LaneIn &In;
  bool Den32In, Den32Out, Den64In, Den64Out, Ieee, Dx10;
  explicit Ctx(const LaneIn &L) : In(L) {
    uint32_t M = L.W.Mode;
    Den32In = (M >> ModeDenorm32Shift) & 1;
    Den32Out = (M >> (ModeDenorm32Shift + 1)) & 1;
    Den64In = (M >> ModeDenorm64Shift) & 1;
    Den64Out = (M >> (ModeDenorm64Shift + 1)) & 1;
    Ieee = M & ModeIeee;
    Dx10 = M & ModeDx10Clamp;
  }
  const Operand &op(unsigned K) const { return In.SrcOps[K]; }
  // Source K as f32, with abs/neg and input flushing.
  float f32(unsigned K) const { return f32bits(uint32_t(In.Src[K]), K); }
  float f32bits(uint32_t B, unsigned K) const {
    if (op(K).Abs) B &= 0x7fffffffu;
    if (op(K).Neg) B ^= 0x80000000u;
    float F = bitCast<float>(B);
    if (!Den32In && std::fpclassify(F) == FP_SUBNORMAL)
      F = std::copysign(0.0f, F);
    return F;
  }
  double f64(unsigned K) const {
    uint64_t B = In.Src[K];
    if (op(K).Abs) B &= ~(1ull << 63);
    if (op(K).Neg) B ^= 1ull << 63;
    double D = bitCast<double>(B);
    if (!Den64In && std::fpclassify(D) == FP_SUBNORMAL)
      D = std::copysign(0.0, D);
    return D;
  }
  // f16 from a 16-bit pattern, with the given neg/abs.
  float f16v(uint16_t H, bool Neg, bool Abs) const {
    if (Abs) H &= 0x7fff;
    if (Neg) H ^= 0x8000;
    if (!Den64In && (H & 0x7c00) == 0)
      H &= 0x8000;
    return halfToFloat(H);
  }
  float f16(unsigned K) const {
    uint16_t H = uint16_t((In.I.OpSel >> K) & 1 ? In.Src[K] >> 16 : In.Src[K]);
    return f16v(H, op(K).Neg, op(K).Abs);
  }
  bool anyNaN32(unsigned N) const {
    for (unsigned K = 0; K < N; ++K)
      if (std::isnan(f32(K)))
        return true;
    return false;
  }
  // Output: omod, clamp, NaN canonicalisation, output flushing.
  uint32_t out32(float R, unsigned NIn) const {
    if (std::isnan(R)) {
      // MODE.DX10_CLAMP: clamp makes every NaN result 0, an input's
      // quieted NaN included (CDNA3/RDNA3 ISA, "MODE register").
      if (In.I.Clamp && Dx10)
        return 0;
      for (unsigned K = 0; K < NIn; ++K) {
        float S = f32(K);
        if (std::isnan(S))
          return bitCast<uint32_t>(S) | 0x00400000u;
      }
      return QNaN32;
    }
    R = omod(R);
    if (In.I.Clamp)
      R = std::isnan(R) ? 0.0f : std::fmin(std::fmax(R, 0.0f), 1.0f);
    if (!Den32Out && std::fpclassify(R) == FP_SUBNORMAL)
      R = std::copysign(0.0f, R);
    return bitCast<uint32_t>(R);
  }
  uint64_t out64(double R, unsigned NIn) const {
    if (std::isnan(R)) {
      if (In.I.Clamp && Dx10)
        return 0;
      for (unsigned K = 0; K < NIn; ++K) {
        double S = f64(K);
        if (std::isnan(S))
          return bitCast<uint64_t>(S) | (1ull << 51);
      }
      return QNaN64;
    }
    if (In.I.Omod == 1) R *= 2; else if (In.I.Omod == 2) R *= 4; else if (In.I.Omod == 3) R *= 0.5;
    if (In.I.Clamp)
      R = std::fmin(std::fmax(R, 0.0), 1.0);
    if (!Den64Out && std::fpclassify(R) == FP_SUBNORMAL)
      R = std::copysign(0.0, R);
    return bitCast<uint64_t>(R);
  }
  uint16_t out16(double R) const {
    if (std::isnan(R))
      return In.I.Clamp && Dx10 ? 0 : QNaN16;
    if (In.I.Omod == 1) R *= 2; else if (In.I.Omod == 2) R *= 4; else if (In.I.Omod == 3) R *= 0.5;
    if (In.I.Clamp)
      R = std::fmin(std::fmax(R, 0.0), 1.0);
    uint16_t H = doubleToHalf(R, false);
    if (!Den64Out && (H & 0x7c00) == 0)
      H &= 0x8000;
    return H;
  }
  float omod(float R) const {
    switch (In.I.Omod) {
    case 1: return R * 2;
    case 2: return R * 4;
    case 3: return R * 0.5f;
    }
    return R;
  }
};

/// 2/pi as a 1201-bit binary fraction, least significant 64-bit word
/// first (bit 1200 is the first fraction bit), for v_trig_preop_f64.
/// Computed from Machin's formula with integer arithmetic.
const uint64_t TwoOverPi[19] = {
    0xba10ac06608df8f6ull, 0x25d4d7f6bf623f1aull, 0xe2f67a0e73ef14a5ull, 0xd45aea4f758fd7cbull,
    0x136e9e8c7ecd3cbfull, 0xda3eda6cfd9e4f96ull, 0x301fde5e2316b414ull, 0x50763ff12fffbc0bull,
    0x73e93908bf177bf2ull, 0xfc827323ac7306a6ull, 0x8909d338e04d68beull, 0x4e7dd1046bea5d76ull,
    0x2439fc3bd6396253ull, 0xa5c00c925dd413a3ull, 0x8ac36e48dc74849bull, 0x2083fca2c757bd77ull,
    0xbb81b6c52b327887ull, 0x2a53f84eafa3ea69ull, 0x000145f306dc9c88ull};

bool isSNaN32(float F) { return std::isnan(F) && !(bitCast<uint32_t>(F) & 0x00400000u); }
bool isSNaN64(double D) { return std::isnan(D) && !(bitCast<uint64_t>(D) & (1ull << 51)); }

/// v_min/v_max: a quiet NaN operand loses to a number; in IEEE mode a
/// signalling NaN operand yields a quiet NaN. -0 orders below +0.
template <typename T> T fminmax(T A, T B, bool Max, bool Ieee, bool SnanA, bool SnanB) {
  if (Ieee && (SnanA || SnanB))
    return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(A)) return B;
  if (std::isnan(B)) return A;
  if (A == B && A == 0) {
    bool NegA = std::signbit(A);
    return Max ? (NegA ? B : A) : (NegA ? A : B);
  }
  return Max ? (A > B ? A : B) : (A < B ? A : B);
}

template <typename T> T med3(T A, T B, T C, bool Ieee) {
  if (std::isnan(A) || std::isnan(B) || std::isnan(C))
    return fminmax(fminmax(A, B, false, Ieee, false, false), C, false, Ieee, false, false);
  T Mx = std::max({A, B, C});
  if (Mx == A) return std::max(B, C);
  if (Mx == B) return std::max(A, C);
  return std::max(A, B);
}

int expOf(float F) { return (bitCast<uint32_t>(F) >> 23) & 0xff; }
int expOf(double D) { return int((bitCast<uint64_t>(D) >> 52) & 0x7ff); }

template <typename T> T divScale(T S0, T S1, T S2, bool &Vcc) {
  constexpr bool F32 = sizeof(T) == 4;
  const int Gap = F32 ? 96 : 768, Mant = F32 ? 23 : 53, Scale = F32 ? 64 : 128;
  Vcc = false;
  auto Denorm = [](T X) { return std::fpclassify(X) == FP_SUBNORMAL; };
  // "S2 / S1 is denormal" read as "below the normal range": a quotient
  // that underflows to 0 needs the same numerator scaling (1e-33 / 1e31
  // scaled both operands up as a tiny numerator and made the denominator
  // infinite). Computed wider, so it does not round to 0 first.
  auto TinyQuotient = [&] {
    long double Q = static_cast<long double>(S2) / static_cast<long double>(S1);
    return Q != 0 && std::fabs(Q) < static_cast<long double>(std::numeric_limits<T>::min());
  };
  if (S2 == 0 || S1 == 0)
    return std::numeric_limits<T>::quiet_NaN();
  if (expOf(S2) - expOf(S1) >= Gap) {
    Vcc = true;
    return S0 == S1 ? std::ldexp(S0, Scale) : S0;
  }
  if (Denorm(S1))
    return std::ldexp(S0, Scale);
  if (Denorm(T(1) / S1) && TinyQuotient()) {
    // A huge denominator and a tiny quotient (1 / FLT_MAX): the
    // denominator goes down by 2^Scale, so its reciprocal and the quotient
    // are normal, and v_div_fmas (VCC, quotient exponent below the bias)
    // scales the result back down. Scaling it up, as the manuals' text
    // reads, makes it infinite and every such quotient inf; these rules
    // are the ones under which LLVM's fdiv sequence is correctly rounded.
    Vcc = true;
    return S0 == S1 ? std::ldexp(S0, -Scale) : S0;
  }
  if (Denorm(T(1) / S1))
    return std::ldexp(S0, -Scale);
  if (TinyQuotient()) {
    Vcc = true;
    return S0 == S2 ? std::ldexp(S0, Scale) : S0;
  }
  if (expOf(S2) <= Mant)
    return std::ldexp(S0, Scale);
  return S0;
}

template <typename T> T divFixup(T Q, T D, T N) {
  bool Sign = std::signbit(D) != std::signbit(N);
  const T Inf = std::numeric_limits<T>::infinity();
  if (std::isnan(N)) return N;
  if (std::isnan(D)) return D;
  if (D == 0 && N == 0) return std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(D) && std::isinf(N)) return std::numeric_limits<T>::quiet_NaN();
  if (D == 0 || std::isinf(N)) return Sign ? -Inf : Inf;
  if (std::isinf(D) || N == 0) return Sign ? T(-0.0) : T(0.0);
  if (std::isnan(Q)) return Sign ? -Inf : Inf; // the manual's overflow case
  return Sign ? -std::fabs(Q) : std::fabs(Q);
}

template <typename T> T fract(T X) {
  if (std::isinf(X)) return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(X)) return X;
  T R = X - std::floor(X);
  T Below1 = std::nextafter(T(1), T(0));
  return std::min(R, Below1);
}

template <typename T> int frexpExp(T X) {
  if (std::isnan(X) || std::isinf(X)) return 0;
  int E;
  std::frexp(X, &E);
  return E;
}
template <typename T> T frexpMant(T X) {
  if (std::isnan(X) || std::isinf(X)) return X;
  int E;
  return std::frexp(X, &E);
}

int32_t cvtI32(double D) {
  if (std::isnan(D)) return 0;
  if (D >= 2147483647.0) return INT32_MAX;
  if (D <= -2147483648.0) return INT32_MIN;
  return int32_t(std::trunc(D));
}
uint32_t cvtU32(double D) {
  if (std::isnan(D) || D <= 0) return 0;
  if (D >= 4294967295.0) return UINT32_MAX;
  return uint32_t(std::trunc(D));
}

bool classTest(double X, uint32_t Mask, bool Snan) {
  // Bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
  // 7 +denormal, 8 +normal, 9 +inf.
  unsigned Bit;
  if (std::isnan(X)) Bit = Snan ? 0 : 1;
  else if (std::isinf(X)) Bit = X < 0 ? 2 : 9;
  else if (X == 0) Bit = std::signbit(X) ? 5 : 6;
  else {
    bool Neg = X < 0;
    bool Den = std::fpclassify(X) == FP_SUBNORMAL;
    Bit = Den ? (Neg ? 4 : 7) : (Neg ? 3 : 8);
  }
  return (Mask >> Bit) & 1;
}

} // namespace

bool floatClass(const LaneIn &In, uint8_t Type) {
  uint32_t Mask = uint32_t(In.Src[1]);
  const Operand &O = In.SrcOps[0];
  if (Type == TyF32) {
    uint32_t B = uint32_t(In.Src[0]);
    if (O.Abs) B &= 0x7fffffffu;
    if (O.Neg) B ^= 0x80000000u;
    float F = bitCast<float>(B);
    // Class tests see denormals as denormals (no flushing).
    bool Den = std::fpclassify(F) == FP_SUBNORMAL;
    if (Den)
      return (Mask >> (std::signbit(F) ? 4 : 7)) & 1;
    return classTest(F, Mask, isSNaN32(F));
  }
  if (Type == TyF64) {
    uint64_t B = In.Src[0];
    if (O.Abs) B &= ~(1ull << 63);
    if (O.Neg) B ^= 1ull << 63;
    double D = bitCast<double>(B);
    return classTest(D, Mask, isSNaN64(D));
  }
  uint16_t H = uint16_t(In.Src[0]);
  if (O.Abs) H &= 0x7fff;
  if (O.Neg) H ^= 0x8000;
  if ((H & 0x7c00) == 0 && (H & 0x3ff))
    return (Mask >> ((H & 0x8000) ? 4 : 7)) & 1;
  bool Snan = (H & 0x7c00) == 0x7c00 && (H & 0x3ff) && !(H & 0x200);
  return classTest(halfToFloat(H), Mask, Snan);
}

bool floatCompare(const LaneIn &In, uint8_t Cond, uint8_t Type) {
  Ctx X(In);
  double A, B;
  if (Type == TyF32) {
    A = X.f32(0);
    B = X.f32(1);
  } else if (Type == TyF64) {
    A = X.f64(0);
    B = X.f64(1);
  } else {
    A = X.f16v(uint16_t(In.Src[0]), X.op(0).Neg, X.op(0).Abs);
    B = X.f16v(uint16_t(In.Src[1]), X.op(1).Neg, X.op(1).Abs);
  }
  bool Un = std::isnan(A) || std::isnan(B);
  switch (Cond) {
  case CcF: return false;
  case CcLt: return A < B;
  case CcEq: return A == B;
  case CcLe: return A <= B;
  case CcGt: return A > B;
  case CcLg: return !Un && A != B;
  case CcGe: return A >= B;
  case CcO: return !Un;
  case CcU: return Un;
  case CcNge: return !(A >= B);
  case CcNlg: return Un || A == B;
  case CcNgt: return !(A > B);
  case CcNle: return !(A <= B);
  case CcNeq: return !(A == B);
  case CcNlt: return !(A < B);
  case CcTru: return true;
  }
  return false;
}

int valuFloatLane(LaneIn &In, uint64_t &Res, bool &Carry) {
  Ctx X(In);
  const Inst &I = In.I;
  auto R32 = [&](float V, unsigned N) { Res = X.out32(V, N); return 1; };
  auto R64 = [&](double V, unsigned N) { Res = X.out64(V, N); return 1; };
  auto R16 = [&](double V) { Res = X.out16(V); return 1; };
  // VOP2 mac/fmac: the destination is the accumulator.
  auto DstF32 = [&] { return bitCast<float>(readV32(In.W, I.Ops[0], In.Lane)); };
  auto DstF64 = [&] { return bitCast<double>(readV64(In.W, I.Ops[0], In.Lane)); };
  float A = 0, B = 0, C = 0;
  switch (I.Opcode) {
  case Op::v_add_f32: return R32(X.f32(0) + X.f32(1), 2);
  case Op::v_sub_f32: return R32(X.f32(0) - X.f32(1), 2);
  case Op::v_subrev_f32: return R32(X.f32(1) - X.f32(0), 2);
  case Op::v_mul_f32: return R32(X.f32(0) * X.f32(1), 2);
  case Op::v_mul_legacy_f32:
    A = X.f32(0); B = X.f32(1);
    return R32(A == 0 || B == 0 ? 0.0f : A * B, 2);
  case Op::v_min_f32: case Op::v_max_f32:
    return R32(fminmax(X.f32(0), X.f32(1), I.Opcode == Op::v_max_f32, X.Ieee,
                       isSNaN32(X.f32(0)), isSNaN32(X.f32(1))), 0);
  case Op::v_mac_f32:
    return R32(X.f32(0) * X.f32(1) + DstF32(), 2);
  case Op::v_fmac_f32:
    return R32(std::fma(X.f32(0), X.f32(1), DstF32()), 2);
  case Op::v_madmk_f32: case Op::v_madak_f32: case Op::v_mad_f32:
    return R32(X.f32(0) * X.f32(1) + X.f32(2), 3);
  case Op::v_mad_legacy_f32:
    A = X.f32(0); B = X.f32(1);
    return R32((A == 0 || B == 0 ? 0.0f : A * B) + X.f32(2), 3);
  case Op::v_fmamk_f32: case Op::v_fmaak_f32: case Op::v_fma_f32:
    return R32(std::fma(X.f32(0), X.f32(1), X.f32(2)), 3);
  case Op::v_min3_f32: case Op::v_max3_f32: {
    bool Max = I.Opcode == Op::v_max3_f32;
    float T = fminmax(X.f32(0), X.f32(1), Max, X.Ieee, isSNaN32(X.f32(0)), isSNaN32(X.f32(1)));
    return R32(fminmax(T, X.f32(2), Max, X.Ieee, false, isSNaN32(X.f32(2))), 0);
  }
  case Op::v_med3_f32: return R32(med3(X.f32(0), X.f32(1), X.f32(2), X.Ieee), 0);
  case Op::v_maxmin_f32: case Op::v_minmax_f32: {
    bool MaxFirst = I.Opcode == Op::v_maxmin_f32;
    float T = fminmax(X.f32(0), X.f32(1), MaxFirst, X.Ieee, isSNaN32(X.f32(0)), isSNaN32(X.f32(1)));
    return R32(fminmax(T, X.f32(2), !MaxFirst, X.Ieee, false, isSNaN32(X.f32(2))), 0);
  }
  case Op::v_maxmin_f16: case Op::v_minmax_f16: {
    bool MaxFirst = I.Opcode == Op::v_maxmin_f16;
    float T = fminmax(X.f16(0), X.f16(1), MaxFirst, X.Ieee, false, false);
    return R16(fminmax(T, X.f16(2), !MaxFirst, X.Ieee, false, false));
  }
  case Op::v_trig_preop_f64: {
    // A 53-bit segment of 2/pi for range reduction: bits (1200 - shift)
    // down, scaled by 2^(-53 - shift) (the manual's pseudocode).
    double S0 = X.f64(0);
    int Exp = expOf(S0);
    int Shift = int(In.Src[1] & 31) * 53;
    if (Exp > 1077)
      Shift += Exp - 1077;
    int Lo = 1148 - Shift;
    uint64_t Seg = 0;
    for (int B = 0; B < 53; ++B) {
      int Pos = Lo + B;
      if (Pos >= 0 && Pos < 1216 && ((TwoOverPi[Pos / 64] >> (Pos % 64)) & 1))
        Seg |= 1ull << B;
    }
    int Scale = -53 - Shift + (Exp >= 1968 ? 128 : 0);
    Res = bitCast<uint64_t>(std::ldexp(double(Seg), Scale));
    return 1;
  }
  case Op::v_ldexp_f32: return R32(std::ldexp(X.f32(0), int32_t(In.Src[1])), 1);
  case Op::v_div_scale_f32: {
    bool V;
    float R = divScale(X.f32(0), X.f32(1), X.f32(2), V);
    Carry = V;
    Res = bitCast<uint32_t>(R);
    return 1;
  }
  case Op::v_div_fmas_f32: {
    float R = std::fma(X.f32(0), X.f32(1), X.f32(2));
    if ((In.W.vcc() >> In.Lane) & 1)
      R = std::ldexp(R, expOf(X.f32(2)) > 127 ? 64 : -64);
    return R32(R, 3);
  }
  case Op::v_div_fixup_f32: return R32(divFixup(X.f32(0), X.f32(1), X.f32(2)), 0);
  // f64.
  case Op::v_add_f64: return R64(X.f64(0) + X.f64(1), 2);
  case Op::v_mul_f64: return R64(X.f64(0) * X.f64(1), 2);
  case Op::v_fma_f64: return R64(std::fma(X.f64(0), X.f64(1), X.f64(2)), 3);
  case Op::v_fmac_f64: return R64(std::fma(X.f64(0), X.f64(1), DstF64()), 2);
  case Op::v_min_f64: case Op::v_max_f64:
    return R64(fminmax(X.f64(0), X.f64(1), I.Opcode == Op::v_max_f64, X.Ieee,
                       isSNaN64(X.f64(0)), isSNaN64(X.f64(1))), 0);
  case Op::v_ldexp_f64: return R64(std::ldexp(X.f64(0), int32_t(In.Src[1])), 1);
  case Op::v_div_scale_f64: {
    bool V;
    double R = divScale(X.f64(0), X.f64(1), X.f64(2), V);
    Carry = V;
    Res = bitCast<uint64_t>(R);
    return 1;
  }
  case Op::v_div_fmas_f64: {
    double R = std::fma(X.f64(0), X.f64(1), X.f64(2));
    if ((In.W.vcc() >> In.Lane) & 1)
      R = std::ldexp(R, expOf(X.f64(2)) > 1023 ? 128 : -128);
    return R64(R, 3);
  }
  case Op::v_div_fixup_f64: return R64(divFixup(X.f64(0), X.f64(1), X.f64(2)), 0);
  case Op::v_trunc_f64: return R64(std::trunc(X.f64(0)), 1);
  case Op::v_ceil_f64: return R64(std::ceil(X.f64(0)), 1);
  case Op::v_rndne_f64: return R64(std::nearbyint(X.f64(0)), 1);
  case Op::v_floor_f64: return R64(std::floor(X.f64(0)), 1);
  case Op::v_fract_f64: return R64(fract(X.f64(0)), 1);
  case Op::v_rcp_f64: return R64(1.0 / X.f64(0), 1);
  case Op::v_rsq_f64: return R64(1.0 / std::sqrt(X.f64(0)), 1);
  case Op::v_sqrt_f64: return R64(std::sqrt(X.f64(0)), 1);
  case Op::v_frexp_mant_f64: return R64(frexpMant(X.f64(0)), 1);
  case Op::v_frexp_exp_i32_f64: Res = uint32_t(frexpExp(X.f64(0))); return 1;
  // f32 unary.
  case Op::v_trunc_f32: return R32(std::trunc(X.f32(0)), 1);
  case Op::v_ceil_f32: return R32(std::ceil(X.f32(0)), 1);
  case Op::v_rndne_f32: return R32(std::nearbyint(X.f32(0)), 1);
  case Op::v_floor_f32: return R32(std::floor(X.f32(0)), 1);
  case Op::v_fract_f32: return R32(fract(X.f32(0)), 1);
  case Op::v_exp_f32: return R32(std::exp2(X.f32(0)), 1);
  case Op::v_log_f32: return R32(std::log2(X.f32(0)), 1);
  case Op::v_rcp_f32: case Op::v_rcp_iflag_f32: return R32(1.0f / X.f32(0), 1);
  case Op::v_rsq_f32: return R32(float(1.0 / std::sqrt(double(X.f32(0)))), 1);
  case Op::v_sqrt_f32: return R32(std::sqrt(X.f32(0)), 1);
  case Op::v_sin_f32: case Op::v_cos_f32: {
    // The argument is in revolutions (sin(x * 2*pi)).
    double T = double(X.f32(0));
    if (std::isinf(T)) return R32(std::numeric_limits<float>::quiet_NaN(), 0);
    double Rev = T - std::floor(T);
    double V = I.Opcode == Op::v_sin_f32 ? std::sin(Rev * 2 * M_PI) : std::cos(Rev * 2 * M_PI);
    return R32(float(V), 1);
  }
  case Op::v_frexp_mant_f32: return R32(frexpMant(X.f32(0)), 1);
  case Op::v_frexp_exp_i32_f32: Res = uint32_t(frexpExp(X.f32(0))); return 1;
  // Conversions.
  case Op::v_cvt_i32_f32: Res = uint32_t(cvtI32(X.f32(0))); return 1;
  case Op::v_cvt_u32_f32: Res = cvtU32(X.f32(0)); return 1;
  case Op::v_cvt_i32_f64: Res = uint32_t(cvtI32(X.f64(0))); return 1;
  case Op::v_cvt_u32_f64: Res = cvtU32(X.f64(0)); return 1;
  case Op::v_cvt_rpi_i32_f32: Res = uint32_t(cvtI32(std::floor(double(X.f32(0)) + 0.5))); return 1;
  case Op::v_cvt_flr_i32_f32: Res = uint32_t(cvtI32(std::floor(double(X.f32(0))))); return 1;
  case Op::v_cvt_f32_i32: return R32(float(int32_t(In.Src[0])), 0);
  case Op::v_cvt_f32_u32: return R32(float(uint32_t(In.Src[0])), 0);
  case Op::v_cvt_f64_i32: return R64(double(int32_t(In.Src[0])), 0);
  case Op::v_cvt_f64_u32: return R64(double(uint32_t(In.Src[0])), 0);
  case Op::v_cvt_f32_f64: return R32(float(X.f64(0)), 0);
  case Op::v_cvt_f64_f32: return R64(double(X.f32(0)), 0);
  case Op::v_cvt_f32_ubyte0: case Op::v_cvt_f32_ubyte1: case Op::v_cvt_f32_ubyte2:
  case Op::v_cvt_f32_ubyte3: {
    unsigned K = unsigned(I.Opcode) - unsigned(Op::v_cvt_f32_ubyte0);
    return R32(float((In.Src[0] >> (8 * K)) & 0xff), 0);
  }
  case Op::v_cvt_f32_f16: return R32(X.f16(0), 0);
  case Op::v_cvt_f16_f32: {
    float F = X.f32(0);
    if (std::isnan(F)) {
      // A NaN keeps its sign, but clamp under DX10_CLAMP makes it 0, as in
      // every other clamped op (PTX's cvt.rn.sat.f16.f32 of a NaN is 0).
      Res = I.Clamp && X.Dx10 ? 0 : QNaN16 | ((bitCast<uint32_t>(F) >> 16) & 0x8000);
      return 1;
    }
    return R16(F);
  }
  case Op::v_cvt_f32_bf16: return R32(bitCast<float>(uint32_t(uint16_t(In.Src[0])) << 16), 0);
  case Op::v_cvt_f16_u16: return R16(double(uint16_t(In.Src[0])));
  case Op::v_cvt_f16_i16: return R16(double(int16_t(In.Src[0])));
  case Op::v_cvt_u16_f16: {
    float F = X.f16(0);
    Res = std::isnan(F) ? 0 : uint32_t(std::clamp(std::trunc(F), 0.0f, 65535.0f));
    return 1;
  }
  case Op::v_cvt_i16_f16: {
    float F = X.f16(0);
    Res = std::isnan(F) ? 0 : uint32_t(int32_t(std::clamp(std::trunc(F), -32768.0f, 32767.0f))) & 0xffff;
    return 1;
  }
  case Op::v_cvt_pkrtz_f16_f32: {
    float P = X.f32(0), Q = X.f32(1);
    auto H = [](float F) { return std::isnan(F) ? QNaN16 : doubleToHalf(F, true); };
    Res = H(P) | uint32_t(H(Q)) << 16;
    return 1;
  }
  case Op::v_cvt_pknorm_i16_f32: case Op::v_cvt_pknorm_u16_f32: {
    bool S = I.Opcode == Op::v_cvt_pknorm_i16_f32;
    auto N = [&](float F) -> uint32_t {
      if (std::isnan(F)) return 0;
      if (S) return uint32_t(int32_t(std::nearbyint(std::clamp(F, -1.0f, 1.0f) * 32767.0f))) & 0xffff;
      return uint32_t(std::nearbyint(std::clamp(F, 0.0f, 1.0f) * 65535.0f));
    };
    Res = N(X.f32(0)) | N(X.f32(1)) << 16;
    return 1;
  }
  case Op::v_cvt_pk_u8_f32: {
    float F = X.f32(0);
    uint32_t V = std::isnan(F) ? 0 : uint32_t(std::clamp(std::nearbyint(F), 0.0f, 255.0f));
    unsigned Byte = uint32_t(In.Src[1]) & 3;
    Res = (uint32_t(In.Src[2]) & ~(0xffu << 8 * Byte)) | V << 8 * Byte;
    return 1;
  }
  case Op::v_pack_b32_f16: {
    auto H = [&](unsigned K) {
      uint16_t V = uint16_t((I.OpSel >> K) & 1 ? In.Src[K] >> 16 : In.Src[K]);
      if (X.op(K).Abs) V &= 0x7fff;
      if (X.op(K).Neg) V ^= 0x8000;
      return uint32_t(V);
    };
    Res = H(0) | H(1) << 16;
    return 1;
  }
  // f16 arithmetic.
  case Op::v_add_f16: return R16(double(X.f16(0)) + X.f16(1));
  case Op::v_sub_f16: return R16(double(X.f16(0)) - X.f16(1));
  case Op::v_subrev_f16: return R16(double(X.f16(1)) - X.f16(0));
  case Op::v_mul_f16: return R16(double(X.f16(0)) * X.f16(1));
  case Op::v_mac_f16: case Op::v_fmac_f16: {
    float D = X.f16v(uint16_t(readV32(In.W, I.Ops[0], In.Lane)), false, false);
    return R16(std::fma(double(X.f16(0)), double(X.f16(1)), double(D)));
  }
  case Op::v_fma_f16: case Op::v_mad_f16: case Op::v_fmaak_f16: case Op::v_fmamk_f16:
  case Op::v_madak_f16: case Op::v_madmk_f16:
    return R16(std::fma(double(X.f16(0)), double(X.f16(1)), double(X.f16(2))));
  case Op::v_max_f16: case Op::v_min_f16:
    return R16(fminmax(X.f16(0), X.f16(1), I.Opcode == Op::v_max_f16, X.Ieee, false, false));
  case Op::v_min3_f16: case Op::v_max3_f16: {
    bool Max = I.Opcode == Op::v_max3_f16;
    return R16(fminmax(fminmax(X.f16(0), X.f16(1), Max, X.Ieee, false, false), X.f16(2), Max,
                       X.Ieee, false, false));
  }
  case Op::v_med3_f16: return R16(med3(X.f16(0), X.f16(1), X.f16(2), X.Ieee));
  case Op::v_ldexp_f16: return R16(std::ldexp(double(X.f16(0)), int16_t(In.Src[1])));
  case Op::v_div_fixup_f16: return R16(divFixup(X.f16(0), X.f16(1), X.f16(2)));
  case Op::v_rcp_f16: return R16(1.0 / X.f16(0));
  case Op::v_sqrt_f16: return R16(std::sqrt(double(X.f16(0))));
  case Op::v_rsq_f16: return R16(1.0 / std::sqrt(double(X.f16(0))));
  case Op::v_log_f16: return R16(std::log2(double(X.f16(0))));
  case Op::v_exp_f16: return R16(std::exp2(double(X.f16(0))));
  case Op::v_floor_f16: return R16(std::floor(X.f16(0)));
  case Op::v_ceil_f16: return R16(std::ceil(X.f16(0)));
  case Op::v_trunc_f16: return R16(std::trunc(X.f16(0)));
  case Op::v_rndne_f16: return R16(std::nearbyint(X.f16(0)));
  case Op::v_fract_f16: return R16(fract(double(X.f16(0))));
  case Op::v_sin_f16: case Op::v_cos_f16: {
    double T = X.f16(0), Rev = T - std::floor(T);
    return R16(I.Opcode == Op::v_sin_f16 ? std::sin(Rev * 2 * M_PI) : std::cos(Rev * 2 * M_PI));
  }
  case Op::v_frexp_mant_f16: return R16(frexpMant(double(X.f16(0))));
  case Op::v_frexp_exp_i16_f16: Res = uint32_t(frexpExp(double(X.f16(0)))) & 0xffff; return 1;
  // Packed f16 (VOP3P): op_sel picks the low operand's half, op_sel_hi the
  // high operand's; neg_lo/neg_hi negate per half.
  case Op::v_pk_fma_f16: case Op::v_pk_add_f16: case Op::v_pk_mul_f16: case Op::v_pk_min_f16:
  case Op::v_pk_max_f16: case Op::v_pk_fmac_f16: {
    float L[3] = {}, H[3] = {};
    unsigned N = I.Opcode == Op::v_pk_fma_f16 ? 3 : 2;
    for (unsigned K = 0; K < N; ++K) {
      uint32_t V = uint32_t(In.Src[K]);
      uint16_t Lo = uint16_t((I.OpSel >> K) & 1 ? V >> 16 : V);
      uint16_t Hi = uint16_t((I.OpSelHi >> K) & 1 ? V >> 16 : V);
      L[K] = X.f16v(Lo, (I.NegLo >> K) & 1, false);
      H[K] = X.f16v(Hi, (I.NegHi >> K) & 1, false);
    }
    if (I.Opcode == Op::v_pk_fmac_f16) {
      uint32_t D = readV32(In.W, I.Ops[0], In.Lane);
      L[2] = X.f16v(uint16_t(D), false, false);
      H[2] = X.f16v(uint16_t(D >> 16), false, false);
    }
    auto One = [&](float P, float Q, float Rr) -> uint32_t {
      switch (I.Opcode) {
      case Op::v_pk_fma_f16: case Op::v_pk_fmac_f16: return X.out16(std::fma(double(P), double(Q), double(Rr)));
      case Op::v_pk_add_f16: return X.out16(double(P) + Q);
      case Op::v_pk_mul_f16: return X.out16(double(P) * Q);
      case Op::v_pk_min_f16: return X.out16(fminmax(P, Q, false, X.Ieee, false, false));
      default: return X.out16(fminmax(P, Q, true, X.Ieee, false, false));
      }
    };
    Res = One(L[0], L[1], L[2]) | One(H[0], H[1], H[2]) << 16;
    return 1;
  }
  // Packed f32 (CDNA2+): 64-bit register pairs.
  case Op::v_pk_fma_f32: case Op::v_pk_mul_f32: case Op::v_pk_add_f32: case Op::v_pk_mov_b32: {
    unsigned N = I.Opcode == Op::v_pk_fma_f32 ? 3 : 2;
    uint32_t Lo[3] = {}, Hi[3] = {};
    for (unsigned K = 0; K < N; ++K) {
      uint64_t V = In.Src[K];
      Lo[K] = uint32_t((I.OpSel >> K) & 1 ? V >> 32 : V);
      Hi[K] = uint32_t((I.OpSelHi >> K) & 1 ? V >> 32 : V);
    }
    if (I.Opcode == Op::v_pk_mov_b32) {
      // op_sel[0] picks src0's dword for the low result, op_sel[1] src1's
      // for the high result.
      uint32_t L0 = uint32_t(I.OpSel & 1 ? In.Src[0] >> 32 : In.Src[0]);
      uint32_t H1 = uint32_t(I.OpSel & 2 ? In.Src[1] >> 32 : In.Src[1]);
      Res = uint64_t(L0) | uint64_t(H1) << 32;
      return 1;
    }
    auto F = [&](uint32_t B, bool Neg) {
      if (Neg) B ^= 0x80000000u;
      float V = bitCast<float>(B);
      if (!X.Den32In && std::fpclassify(V) == FP_SUBNORMAL) V = std::copysign(0.0f, V);
      return V;
    };
    auto One = [&](const uint32_t *S, uint8_t Neg) -> uint32_t {
      float P = F(S[0], Neg & 1), Q = F(S[1], Neg & 2);
      float R = I.Opcode == Op::v_pk_fma_f32 ? std::fma(P, Q, F(S[2], Neg & 4))
              : I.Opcode == Op::v_pk_mul_f32 ? P * Q : P + Q;
      if (std::isnan(R)) return QNaN32;
      if (I.Clamp) R = std::fmin(std::fmax(R, 0.0f), 1.0f);
      if (!X.Den32Out && std::fpclassify(R) == FP_SUBNORMAL) R = std::copysign(0.0f, R);
      return bitCast<uint32_t>(R);
    };
    Res = uint64_t(One(Lo, I.NegLo)) | uint64_t(One(Hi, I.NegHi)) << 32;
    return 1;
  }
  case Op::v_dot2_f32_f16: case Op::v_dot2c_f32_f16: {
    uint32_t P = uint32_t(In.Src[0]), Q = uint32_t(In.Src[1]);
    auto H = [&](uint32_t V, unsigned K, bool HiHalf) {
      bool Sel = HiHalf ? (I.OpSelHi >> K) & 1 : (I.OpSel >> K) & 1;
      bool Neg = HiHalf ? (I.NegHi >> K) & 1 : (I.NegLo >> K) & 1;
      return double(X.f16v(uint16_t(Sel ? V >> 16 : V), Neg, false));
    };
    double Acc = I.Opcode == Op::v_dot2c_f32_f16 ? double(DstF32()) : double(X.f32(2));
    double T = H(P, 0, false) * H(Q, 1, false) + H(P, 0, true) * H(Q, 1, true) + Acc;
    return R32(float(T), 0);
  }
  case Op::v_fma_mix_f32: case Op::v_fma_mixlo_f16: case Op::v_fma_mixhi_f16:
  case Op::v_mad_mix_f32: case Op::v_mad_mixlo_f16: case Op::v_mad_mixhi_f16: {
    // op_sel_hi[k]: source k is f16 (op_sel[k] picks its half), else f32.
    uint8_t Hi = I.OpSelHiGiven ? I.OpSelHi : 0;
    double V[3];
    for (unsigned K = 0; K < 3; ++K) {
      if ((Hi >> K) & 1) {
        uint16_t H = uint16_t((I.OpSel >> K) & 1 ? In.Src[K] >> 16 : In.Src[K]);
        V[K] = X.f16v(H, X.op(K).Neg, X.op(K).Abs);
      } else {
        V[K] = X.f32(K);
      }
    }
    double R = std::fma(V[0], V[1], V[2]);
    if (I.Opcode == Op::v_fma_mix_f32 || I.Opcode == Op::v_mad_mix_f32)
      return R32(float(R), 0);
    return R16(R);
  }
  default:
    (void)A; (void)B; (void)C;
    return 0;
  }
}

} // namespace ferry::sim
