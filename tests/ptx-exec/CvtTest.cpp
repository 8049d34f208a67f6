/// \file
/// Execution tests of cvt (PTX ISA 9.7.9.21) over the type pairs: f32 ->
/// f16 in all four rounding modes (every sign/exponent/top-mantissa pattern
/// of the high 16 bits, with random low bits), f32 -> bf16 (.rn, .rz,
/// .relu), f64 <-> f32 with rounding, int -> float with rounding, float ->
/// int rounding to integer and saturating with NaN -> 0, float -> float
/// integer rounding (.rni/.rzi/.rmi/.rpi), .ftz and .sat, and integer
/// widening, narrowing and .sat narrowing. Rounded references come from
/// roundToFormat (exact), not from the host's conversions.
#include "Check.h"

#include <cfenv>
#include <cmath>

using namespace ferry::ptxexec;

namespace {

const char *Modes[] = {"rn", "rz", "rm", "rp"};

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S;
  for (const char *M : Modes) {
    std::string Ms = M;
    S.push_back({"f16_f32_" + Ms, {"f32"}, {"b16"}, "cvt." + Ms + ".f16.f32 %o0, %i0;"});
    S.push_back({"f32_f64_" + Ms, {"f64"}, {"f32"}, "cvt." + Ms + ".f32.f64 %o0, %i0;"});
    S.push_back({"f32_s32_" + Ms, {"s32"}, {"f32"}, "cvt." + Ms + ".f32.s32 %o0, %i0;"});
    S.push_back({"f32_u64_" + Ms, {"u64"}, {"f32"}, "cvt." + Ms + ".f32.u64 %o0, %i0;"});
    S.push_back({"f64_s64_" + Ms, {"s64"}, {"f64"}, "cvt." + Ms + ".f64.s64 %o0, %i0;"});
    S.push_back({"s32_f32_" + Ms, {"f32"}, {"s32"}, "cvt." + Ms + "i.s32.f32 %o0, %i0;"});
    S.push_back({"u32_f32_" + Ms, {"f32"}, {"u32"}, "cvt." + Ms + "i.u32.f32 %o0, %i0;"});
    S.push_back({"s64_f64_" + Ms, {"f64"}, {"s64"}, "cvt." + Ms + "i.s64.f64 %o0, %i0;"});
    S.push_back({"u64_f32_" + Ms, {"f32"}, {"u64"}, "cvt." + Ms + "i.u64.f32 %o0, %i0;"});
    S.push_back({"s16_f32_" + Ms, {"f32"}, {"s16"}, "cvt." + Ms + "i.s16.f32 %o0, %i0;"});
    S.push_back({"f32_f32_" + Ms + "i", {"f32"}, {"f32"}, "cvt." + Ms + "i.f32.f32 %o0, %i0;"});
    S.push_back({"f64_f64_" + Ms + "i", {"f64"}, {"f64"}, "cvt." + Ms + "i.f64.f64 %o0, %i0;"});
  }
  S.insert(S.end(), {
      {"bf16_f32_rn", {"f32"}, {"b16"}, "cvt.rn.bf16.f32 %o0, %i0;"},
      {"bf16_f32_rz", {"f32"}, {"b16"}, "cvt.rz.bf16.f32 %o0, %i0;"},
      {"bf16_f32_relu", {"f32"}, {"b16"}, "cvt.rn.relu.bf16.f32 %o0, %i0;"},
      {"f16_f32_relu", {"f32"}, {"b16"}, "cvt.rn.relu.f16.f32 %o0, %i0;"},
      {"f64_f32", {"f32"}, {"f64"}, "cvt.f64.f32 %o0, %i0;"},
      {"f32_f32_ftz", {"f32"}, {"f32"}, "cvt.ftz.f32.f32 %o0, %i0;"},
      {"f32_f32_sat", {"f32"}, {"f32"}, "cvt.sat.f32.f32 %o0, %i0;"},
      {"f32_f64_rn_ftz", {"f64"}, {"f32"}, "cvt.rn.ftz.f32.f64 %o0, %i0;"},
      {"s32_s16", {"s16"}, {"s32"}, "cvt.s32.s16 %o0, %i0;"},
      {"u32_u16", {"u16"}, {"u32"}, "cvt.u32.u16 %o0, %i0;"},
      {"u16_u32", {"u32"}, {"u16"}, "cvt.u16.u32 %o0, %i0;"},
      {"s64_s32", {"s32"}, {"s64"}, "cvt.s64.s32 %o0, %i0;"},
      {"s8_s32_sat", {"s32"}, {"s32"}, "cvt.sat.s8.s32 %r0, %i0; cvt.s32.s8 %o0, %r0;"},
      {"u8_s16_sat", {"s16"}, {"u32"}, "cvt.sat.u8.s16 %h0, %i0; cvt.u32.u8 %o0, %h0;"},
      {"u32_s32_sat", {"s32"}, {"u32"}, "cvt.sat.u32.s32 %o0, %i0;"},
      {"s32_u64_sat", {"u64"}, {"s32"}, "cvt.sat.s32.u64 %o0, %i0;"},
      {"s16_s64_sat", {"s64"}, {"s16"}, "cvt.sat.s16.s64 %o0, %i0;"},
      {"f32_u16", {"u16"}, {"f32"}, "cvt.rn.f32.u16 %o0, %i0;"},
      {"f16_s16_rn", {"s16"}, {"b16"}, "cvt.rn.f16.s16 %o0, %i0;"},
      {"s16_f16_rzi", {"b16"}, {"s16"}, "cvt.rzi.s16.f16 %o0, %i0;"},
  });
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

constexpr size_t N = 20000;

float toF32(long double X, const std::string &M) { return float(roundToFormat(X, 24, -126, 127, M)); }
double toF64(long double X, const std::string &M) { return roundToFormat(X, 53, -1022, 1023, M); }

/// The integer a float rounds to in mode M (rn: ties to even).
long double roundInt(long double X, const std::string &M) {
  if (M == "rz")
    return std::trunc(X);
  if (M == "rm")
    return std::floor(X);
  if (M == "rp")
    return std::ceil(X);
  long double F = std::floor(X), D = X - F;
  return D > 0.5L || (D == 0.5L && std::fmod(F, 2.0L) != 0) ? F + 1 : F;
}
/// float -> integer: round, then saturate to [Lo, Hi]; NaN gives 0, or
/// the top-bit pattern from f64 and into 64 bits (what an H100 does:
/// tests/ptx-conformance), which the caller passes as Nan.
template <typename T> T toInt(long double X, const std::string &M, long double Lo, long double Hi, T Nan = 0) {
  if (std::isnan(X))
    return Nan;
  long double R = roundInt(X, M);
  return R < Lo ? T(Lo) : R > Hi ? T(Hi) : T(R);
}

std::vector<float> f32s(size_t Num) {
  std::vector<float> V;
  for (uint32_t B : edgyF32(Num))
    V.push_back(asF(B));
  return V;
}
std::vector<double> f64s(size_t Num) {
  std::vector<double> V;
  for (uint64_t B : edgyF64(Num))
    V.push_back(asD(B));
  return V;
}
bool sameFloat(float A, float B) { return bitsOf(A) == bitsOf(B) || (std::isnan(A) && std::isnan(B)); }
bool sameDouble(double A, double B) { return bitsOf(A) == bitsOf(B) || (std::isnan(A) && std::isnan(B)); }

TEST(PtxCvt, FloatToHalf) {
  Family &F = fam();
  // Every high half (sign, exponent, top 7 mantissa bits) with random low
  // bits, plus the exact half-way patterns (low bits 0x1000 of an f16 ulp).
  std::vector<float> A;
  for (unsigned Hi = 0; Hi < 65536; ++Hi) {
    A.push_back(asF(Hi << 16 | uint32_t(rng()() & 0xFFFF)));
    A.push_back(asF(Hi << 16 | 0x1000));
  }
  for (const char *M : Modes)
    checkKernel<uint16_t>(F, std::string("f16_f32_") + M, sameF16,
                          [M](float X) { return doubleToF16Bits(roundF16(X, M)); }, A);
  checkKernel<uint16_t>(F, "f16_f32_relu", sameF16, [](float X) {
    double R = roundF16(X, "rn");
    return doubleToF16Bits(std::isnan(R) ? R : R <= 0 ? 0.0 : R);
  }, A);
  // bf16: leave out values below the normal range (see HalfTest.cpp: the
  // host's f32 -> bf16 conversion flushes them).
  std::vector<float> B;
  for (float X : A)
    if (!(X != 0 && std::fabs(X) < std::ldexp(1.0f, -126)))
      B.push_back(X);
  checkKernel<uint16_t>(F, "bf16_f32_rn", sameBf16, [](float X) { return doubleToBf16Bits(roundBf16(X, "rn")); }, B);
  checkKernel<uint16_t>(F, "bf16_f32_rz", sameBf16, [](float X) { return doubleToBf16Bits(roundBf16(X, "rz")); }, B);
  checkKernel<uint16_t>(F, "bf16_f32_relu", sameBf16, [](float X) {
    double R = roundBf16(X, "rn");
    return doubleToBf16Bits(std::isnan(R) ? R : R <= 0 ? 0.0 : R);
  }, B);
}

TEST(PtxCvt, FloatToFloat) {
  Family &F = fam();
  auto D = f64s(N);
  for (const char *M : Modes)
    checkKernel<float>(F, std::string("f32_f64_") + M, sameFloat, [M](double X) { return toF32(X, M); }, D);
  checkKernel<float>(F, "f32_f64_rn_ftz", sameFloat, [](double X) {
    float R = toF32(X, "rn");
    return std::fpclassify(R) == FP_SUBNORMAL ? std::copysign(0.0f, R) : R;
  }, D);
  auto A = f32s(N);
  checkKernel<double>(F, "f64_f32", sameDouble, [](float X) { return double(X); }, A);
  checkKernel<float>(F, "f32_f32_ftz", sameFloat, [](float X) { return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0f, X) : X; }, A);
  checkKernel<float>(F, "f32_f32_sat", sameFloat, [](float X) { return std::isnan(X) || X <= 0 ? 0.0f : X > 1 ? 1.0f : X; }, A);
  for (const char *M : Modes) {
    checkKernel<float>(F, std::string("f32_f32_") + M + "i", sameFloat, [M](float X) {
      return std::isfinite(X) ? std::copysign(float(roundInt(X, M)), X) : X;
    }, A);
    checkKernel<double>(F, std::string("f64_f64_") + M + "i", sameDouble, [M](double X) {
      return std::isfinite(X) ? std::copysign(double(roundInt(X, M)), X) : X;
    }, D);
  }
}

TEST(PtxCvt, IntToFloat) {
  Family &F = fam();
  auto I = edgyU32(N);
  auto L = edgyU64(N);
  for (const char *M : Modes) {
    checkKernel<float>(F, std::string("f32_s32_") + M, sameFloat, [M](uint32_t X) { return toF32(int32_t(X), M); }, I);
    checkKernel<float>(F, std::string("f32_u64_") + M, sameFloat, [M](uint64_t X) { return toF32(X, M); }, L);
    checkKernel<double>(F, std::string("f64_s64_") + M, sameDouble, [M](uint64_t X) { return toF64(int64_t(X), M); }, L);
  }
  auto All = all16();
  checkKernel<float>(F, "f32_u16", sameFloat, [](uint16_t X) { return float(X); }, All);
  checkKernel<uint16_t>(F, "f16_s16_rn", sameF16, [](uint16_t X) { return doubleToF16Bits(roundF16(int16_t(X), "rn")); }, All);
}

TEST(PtxCvt, FloatToInt) {
  Family &F = fam();
  auto A = f32s(N);
  auto D = f64s(N);
  // Values around the integer boundaries and halves.
  for (size_t K = 0; K < N; K += 3)
    A[K] = float(int64_t(rng()() % 200) - 100) / 2 + (K % 2 ? 0.0f : 1e-3f);
  for (const char *M : Modes) {
    std::string Ms = M;
    checkExact<int32_t>(F, "s32_f32_" + Ms, [M](float X) { return toInt<int32_t>(X, M, INT32_MIN, INT32_MAX); }, A);
    checkExact<uint32_t>(F, "u32_f32_" + Ms, [M](float X) { return toInt<uint32_t>(X, M, 0, UINT32_MAX); }, A);
    checkExact<int64_t>(F, "s64_f64_" + Ms, [M](double X) { return toInt<int64_t>(X, M, (long double)INT64_MIN, (long double)INT64_MAX, INT64_MIN); }, D);
    checkExact<uint64_t>(F, "u64_f32_" + Ms, [M](float X) { return toInt<uint64_t>(X, M, 0, (long double)UINT64_MAX, uint64_t(1) << 63); }, A);
    checkExact<int16_t>(F, "s16_f32_" + Ms, [M](float X) { return toInt<int16_t>(X, M, INT16_MIN, INT16_MAX); }, A);
  }
  // f16 -> s16: exhaustive.
  auto All = all16();
  checkExact<int16_t>(F, "s16_f16_rzi", [](uint16_t H) { return toInt<int16_t>(f16ToDouble(H), "rz", INT16_MIN, INT16_MAX); }, All);
}

TEST(PtxCvt, IntToInt) {
  Family &F = fam();
  auto All = all16();
  checkExact<uint32_t>(F, "s32_s16", [](uint16_t X) { return uint32_t(int32_t(int16_t(X))); }, All);
  checkExact<uint32_t>(F, "u32_u16", [](uint16_t X) { return uint32_t(X); }, All);
  checkExact<uint32_t>(F, "u8_s16_sat", [](uint16_t X) { return uint32_t(std::clamp<int>(int16_t(X), 0, 255)); }, All);
  auto I = edgyU32(N);
  auto L = edgyU64(N);
  checkExact<uint16_t>(F, "u16_u32", [](uint32_t X) { return uint16_t(X); }, I);
  checkExact<uint64_t>(F, "s64_s32", [](uint32_t X) { return uint64_t(int64_t(int32_t(X))); }, I);
  checkExact<uint32_t>(F, "s8_s32_sat", [](uint32_t X) { return uint32_t(std::clamp<int32_t>(int32_t(X), -128, 127)); }, I);
  checkExact<uint32_t>(F, "u32_s32_sat", [](uint32_t X) { return int32_t(X) < 0 ? 0u : X; }, I);
  checkExact<uint32_t>(F, "s32_u64_sat", [](uint64_t X) { return uint32_t(std::min<uint64_t>(X, INT32_MAX)); }, L);
  checkExact<uint16_t>(F, "s16_s64_sat", [](uint64_t X) { return uint16_t(std::clamp<int64_t>(int64_t(X), INT16_MIN, INT16_MAX)); }, L);
}

} // namespace
