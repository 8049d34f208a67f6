//===- Fp8Test.cpp - fp8 conversion execution tests -------------------------===//
/// \file
/// Execution tests of the fp8 forms of cvt (PTX ISA 9.7.9.21): f32 pairs
/// and f16x2 to e4m3x2/e5m2x2 (.rn.satfinite, with and without .relu) and
/// every e4m3x2/e5m2x2 pattern back to f16x2, against Fp8Ref.h (nearest
/// code by value, ties to even, saturated, NaN 0x7F), which matched an H100
/// on the same kinds of inputs.
#include "Check.h"
#include "Fp8Ref.h"

using namespace ferry::ptxexec;

namespace {

std::vector<KernelSpec> specs() {
  return {
      {"e4m3x2_f32", {"f32", "f32"}, {"b16"}, "cvt.rn.satfinite.e4m3x2.f32 %o0, %i0, %i1;"},
      {"e5m2x2_f32", {"f32", "f32"}, {"b16"}, "cvt.rn.satfinite.e5m2x2.f32 %o0, %i0, %i1;"},
      {"e4m3x2_f32_relu", {"f32", "f32"}, {"b16"}, "cvt.rn.satfinite.relu.e4m3x2.f32 %o0, %i0, %i1;"},
      {"e5m2x2_f16x2", {"b32"}, {"b16"}, "cvt.rn.satfinite.e5m2x2.f16x2 %o0, %i0;"},
      {"f16x2_e4m3x2", {"b16"}, {"b32"}, "cvt.rn.f16x2.e4m3x2 %o0, %i0;"},
      {"f16x2_e5m2x2_relu", {"b16"}, {"b32"}, "cvt.rn.relu.f16x2.e5m2x2 %o0, %i0;"},
  };
}

Family &fam() {
  static Family F(specs());
  return F;
}

/// f32 inputs: every fp8 value and the midpoints between neighbours (ties),
/// nudged one f32 ulp either way, around both formats' ranges, plus the
/// harness's edge patterns.
std::vector<float> inputs() {
  std::vector<float> V;
  for (bool E4 : {true, false})
    for (unsigned C = 0; C < 256; ++C) {
      double X = fp8ref::value(uint8_t(C), E4), Y = fp8ref::value(uint8_t(C + 1), E4);
      for (double Z : {X, (X + Y) / 2}) {
        float F = float(Z);
        V.push_back(F);
        V.push_back(std::nextafter(F, INFINITY));
        V.push_back(std::nextafter(F, -INFINITY));
      }
    }
  for (uint32_t B : edgyF32(4000))
    V.push_back(asF(B));
  return V;
}

uint16_t pack(uint8_t Hi, uint8_t Lo) { return uint16_t(Hi << 8 | Lo); }

TEST(PtxFp8, FromF32) {
  Family &F = fam();
  std::vector<float> A = inputs(), B = A;
  std::reverse(B.begin(), B.end());
  for (bool E4 : {true, false})
    checkExact<uint16_t>(F, E4 ? "e4m3x2_f32" : "e5m2x2_f32", [E4](float X, float Y) {
      return pack(fp8ref::encode(X, E4, false), fp8ref::encode(Y, E4, false));
    }, A, B);
  checkExact<uint16_t>(F, "e4m3x2_f32_relu", [](float X, float Y) {
    return pack(fp8ref::encode(X, true, true), fp8ref::encode(Y, true, true));
  }, A, B);
}

TEST(PtxFp8, FromF16x2) {
  Family &F = fam();
  // Every f16 in the high half, a random one in the low half.
  std::vector<uint32_t> A;
  for (unsigned H = 0; H < 65536; ++H)
    A.push_back(H << 16 | uint32_t(rng()() & 0xFFFF));
  checkExact<uint16_t>(F, "e5m2x2_f16x2", [](uint32_t X) {
    return pack(fp8ref::encode(f16ToDouble(uint16_t(X >> 16)), false, false),
                fp8ref::encode(f16ToDouble(uint16_t(X)), false, false));
  }, A);
}

TEST(PtxFp8, ToF16x2) {
  Family &F = fam();
  std::vector<uint16_t> A = all16();
  auto Half = [](uint8_t C, bool E4, bool Relu) -> uint32_t {
    double V = fp8ref::value(C, E4);
    if (std::isnan(V))
      return 0x7FFF;
    if (Relu && std::signbit(V))
      V = 0; // -0 too, as on an H100
    return doubleToF16Bits(V);
  };
  auto Same = [](uint32_t G, uint32_t W) {
    return sameF16(uint16_t(G), uint16_t(W)) && sameF16(uint16_t(G >> 16), uint16_t(W >> 16));
  };
  checkKernel<uint32_t>(F, "f16x2_e4m3x2", Same, [&](uint16_t X) {
    return Half(uint8_t(X >> 8), true, false) << 16 | Half(uint8_t(X), true, false);
  }, A);
  checkKernel<uint32_t>(F, "f16x2_e5m2x2_relu", Same, [&](uint16_t X) {
    return Half(uint8_t(X >> 8), false, true) << 16 | Half(uint8_t(X), false, true);
  }, A);
}

} // namespace
