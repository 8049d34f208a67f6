/// \file
/// Execution tests of the half-precision instructions (PTX ISA 9.7.4):
/// f16 and bf16 scalar and x2 forms of add/sub/mul/fma (.rn, .ftz, .sat,
/// .relu), neg/abs, min/max (incl. .NaN), and the f16/bf16 -> f32
/// conversions. Unary forms are exhaustive over all 65536 inputs; binary
/// ones are exhaustive over the first operand times a representative set of
/// the second. The reference computes exactly in long double and rounds
/// with roundToFormat (PtxExec.cpp), independent of any host half type.
#include "Check.h"

#include <cmath>
#include <cstring>

using namespace ferry::ptxexec;

namespace {

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S = {
      {"cvt_f32_f16", {"b16"}, {"f32"}, "cvt.f32.f16 %o0, %i0;"},
      {"cvt_f32_bf16", {"b16"}, {"f32"}, "cvt.f32.bf16 %o0, %i0;"},
      {"cvt_f64_f16", {"b16"}, {"f64"}, "cvt.f64.f16 %o0, %i0;"},
      {"neg_f16", {"b16"}, {"b16"}, "neg.f16 %o0, %i0;"},
      {"abs_f16", {"b16"}, {"b16"}, "abs.f16 %o0, %i0;"},
      {"neg_ftz_f16", {"b16"}, {"b16"}, "neg.ftz.f16 %o0, %i0;"},
      {"neg_bf16", {"b16"}, {"b16"}, "neg.bf16 %o0, %i0;"},
      {"abs_bf16", {"b16"}, {"b16"}, "abs.bf16 %o0, %i0;"},
  };
  for (const char *T : {"f16", "bf16"})
    for (const char *Op : {"add", "sub", "mul"})
      S.push_back({std::string(Op) + "_" + T, {"b16", "b16"}, {"b16"},
                   std::string(Op) + ".rn." + T + " %o0, %i0, %i1;"});
  S.insert(S.end(), {
      {"add_ftz_f16", {"b16", "b16"}, {"b16"}, "add.rn.ftz.f16 %o0, %i0, %i1;"},
      {"mul_sat_f16", {"b16", "b16"}, {"b16"}, "mul.rn.sat.f16 %o0, %i0, %i1;"},
      {"fma_f16", {"b16", "b16", "b16"}, {"b16"}, "fma.rn.f16 %o0, %i0, %i1, %i2;"},
      {"fma_relu_f16", {"b16", "b16", "b16"}, {"b16"}, "fma.rn.relu.f16 %o0, %i0, %i1, %i2;"},
      {"fma_bf16", {"b16", "b16", "b16"}, {"b16"}, "fma.rn.bf16 %o0, %i0, %i1, %i2;"},
      {"min_f16", {"b16", "b16"}, {"b16"}, "min.f16 %o0, %i0, %i1;"},
      {"max_nan_f16", {"b16", "b16"}, {"b16"}, "max.NaN.f16 %o0, %i0, %i1;"},
      {"max_bf16", {"b16", "b16"}, {"b16"}, "max.bf16 %o0, %i0, %i1;"},
      {"add_f16x2", {"b32", "b32"}, {"b32"}, "add.rn.f16x2 %o0, %i0, %i1;"},
      {"mul_bf16x2", {"b32", "b32"}, {"b32"}, "mul.rn.bf16x2 %o0, %i0, %i1;"},
      {"fma_f16x2", {"b32", "b32", "b32"}, {"b32"}, "fma.rn.f16x2 %o0, %i0, %i1, %i2;"},
      {"min_bf16x2", {"b32", "b32"}, {"b32"}, "min.bf16x2 %o0, %i0, %i1;"},
      {"neg_f16x2", {"b32"}, {"b32"}, "neg.f16x2 %o0, %i0;"},
  });
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

bool isBf(const std::string &T) { return T == "bf16"; }
double toD(uint16_t H, bool Bf) { return Bf ? bf16ToDouble(H) : f16ToDouble(H); }
uint16_t fromExact(long double X, bool Bf, bool Ftz = false) {
  double R = Bf ? roundBf16(X, "rn") : roundF16(X, "rn");
  if (Ftz && R != 0 && std::fabs(R) < std::ldexp(1.0, -14))
    R = std::copysign(0.0, R);
  return Bf ? doubleToBf16Bits(R) : doubleToF16Bits(R);
}
/// The exactly rounded (once) value of X*Y+Z for half-format operands: the
/// product is exact in __float128, TwoSum gives the sum's exact error, and
/// the long double handed to fromExact is rounded to odd (64 bits, sticky
/// from everything dropped), so fromExact's rounding to 11 or 8 bits is the
/// only one that matters. A plain long double fma would round twice.
uint16_t fmaExact(double X, double Y, double Z, bool Bf) {
  if (std::isnan(X) || std::isnan(Y) || std::isnan(Z) || std::isinf(X) || std::isinf(Y) || std::isinf(Z))
    return fromExact((long double)X * Y + Z, Bf);
  __float128 P = (__float128)X * (__float128)Y, C = Z;
  __float128 S = P + C, BB = S - P;
  __float128 E = (P - (S - BB)) + (C - BB);
  long double L = (long double)S;
  __float128 Rest = (S - (__float128)L) + E;
  if (Rest != 0) {
    uint64_t Bits;
    std::memcpy(&Bits, &L, 8); // The x87 significand's low 64 bits.
    if ((Bits & 1) == 0)
      L = std::nextafter(L, Rest > 0 ? INFINITY : -INFINITY);
  }
  return fromExact(L, Bf);
}
double flushH(double X) { return X != 0 && std::fabs(X) < std::ldexp(1.0, -14) ? std::copysign(0.0, X) : X; }

bool bfSub(uint16_t H) { return (H & 0x7F80) == 0 && (H & 0x7F); }
/// An exact value below the normal range (the f32 value the host rounds).
bool bfTiny(long double X) { return X != 0 && std::fabs(X) < std::ldexp(1.0L, -126); }
bool bfSub2(uint32_t W) { return bfSub(uint16_t(W)) || bfSub(uint16_t(W >> 16)); }

/// Keeps the vectors K for which Keep(K) holds, in every operand vector.
template <typename Keep, typename... V> void keepIf(Keep K, V &...Vs) {
  size_t N = std::get<0>(std::forward_as_tuple(Vs...)).size(), Out = 0;
  for (size_t I = 0; I < N; ++I)
    if (K(I)) {
      ((Vs[Out] = Vs[I]), ...);
      ++Out;
    }
  (Vs.resize(Out), ...);
}

// Vectors with a bf16 subnormal input or exact result are split off into
// PtxHalf.Bf16SubnormalsAndFmaSingleRounding: on CPUs with AVX512-BF16 LLVM
// would round f32 -> bf16 with a flushing instruction; host/jit turns it off
// and supplies an exact __truncsfbf2, and that test keeps it honest.
bool SubnormalBf16 = false; ///< which half the bf16 checks run

/// Representative second operands (f16 bits): zeros, ±1, 0.5, pi, tiny
/// subnormal, min normal, max, ±inf, NaN, 1+ulp, and a value that makes
/// sums cancel or overflow.
std::vector<uint16_t> repF16() {
  return {0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0x4248, 0x0001, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x3C01, 0x83FF};
}
std::vector<uint16_t> repBf16() {
  return {0x0000, 0x8000, 0x3F80, 0xBF80, 0x3F00, 0x4049, 0x0001, 0x0080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x3F81, 0x807F};
}

void unaryExhaustive() {
  Family &F = fam();
  auto All = all16();
  checkKernel<float>(F, "cvt_f32_f16", [](float A, float B) { return bitsOf(A) == bitsOf(B) || (std::isnan(A) && std::isnan(B)); },
                     [](uint16_t H) { return float(f16ToDouble(H)); }, All);
  checkKernel<float>(F, "cvt_f32_bf16", [](float A, float B) { return bitsOf(A) == bitsOf(B) || (std::isnan(A) && std::isnan(B)); },
                     [](uint16_t H) { return float(bf16ToDouble(H)); }, All);
  checkKernel<double>(F, "cvt_f64_f16", [](double A, double B) { return bitsOf(A) == bitsOf(B) || (std::isnan(A) && std::isnan(B)); },
                      [](uint16_t H) { return f16ToDouble(H); }, All);
  // neg/abs flip/clear the sign bit (NaN inputs: any NaN). .ftz also
  // flushes a subnormal input to a signed zero.
  checkKernel<uint16_t>(F, "neg_f16", sameF16, [](uint16_t H) { return uint16_t(H ^ 0x8000); }, All);
  checkKernel<uint16_t>(F, "abs_f16", sameF16, [](uint16_t H) { return uint16_t(H & 0x7FFF); }, All);
  checkKernel<uint16_t>(F, "neg_ftz_f16", sameF16, [](uint16_t H) {
    return uint16_t(((H & 0x7C00) == 0 ? H & 0x8000 : H) ^ 0x8000);
  }, All);
  auto Bf = all16();
  keepIf([&](size_t K) { return bfSub(Bf[K]) == SubnormalBf16; }, Bf);
  checkKernel<uint16_t>(F, "neg_bf16", sameBf16, [](uint16_t H) { return uint16_t(H ^ 0x8000); }, Bf);
  checkKernel<uint16_t>(F, "abs_bf16", sameBf16, [](uint16_t H) { return uint16_t(H & 0x7FFF); }, Bf);
}

void binaryExhaustive() {
  Family &F = fam();
  for (const char *T : {"f16", "bf16"}) {
    bool Bf = isBf(T);
    auto Same = Bf ? sameBf16 : sameF16;
    auto Add = [Bf](uint16_t X, uint16_t Y) { return fromExact((long double)toD(X, Bf) + toD(Y, Bf), Bf); };
    auto Sub = [Bf](uint16_t X, uint16_t Y) { return fromExact((long double)toD(X, Bf) - toD(Y, Bf), Bf); };
    auto Mul = [Bf](uint16_t X, uint16_t Y) { return fromExact((long double)toD(X, Bf) * toD(Y, Bf), Bf); };
    for (int Op = 0; Op < 3; ++Op) {
      auto [A, B] = all16Times(Bf ? repBf16() : repF16());
      auto Ref = [&](uint16_t X, uint16_t Y) { return Op == 0 ? Add(X, Y) : Op == 1 ? Sub(X, Y) : Mul(X, Y); };
      if (Bf)
        keepIf([&](size_t K) {
          long double X = toD(A[K], true), Y = toD(B[K], true);
          long double Exact = Op == 0 ? X + Y : Op == 1 ? X - Y : X * Y;
          return (bfSub(A[K]) || bfSub(B[K]) || bfTiny(Exact)) == SubnormalBf16;
        }, A, B);
      else if (SubnormalBf16)
        continue;
      checkKernel<uint16_t>(F, std::string(Op == 0 ? "add_" : Op == 1 ? "sub_" : "mul_") + T, Same, Ref, A, B);
    }
  }
  if (SubnormalBf16) {
    auto [C, D] = all16Times(repBf16());
    keepIf([&](size_t K) { return bfSub(C[K]) || bfSub(D[K]); }, C, D);
    checkKernel<uint16_t>(F, "max_bf16", sameBf16, [&](uint16_t X, uint16_t Y) {
      double U = bf16ToDouble(X), V = bf16ToDouble(Y);
      return doubleToBf16Bits(std::isnan(U) ? V : std::isnan(V) ? U : U == V ? (std::signbit(U) ? V : U) : std::max(U, V));
    }, C, D);
    return;
  }
  auto [A, B] = all16Times(repF16());
  checkKernel<uint16_t>(F, "add_ftz_f16", sameF16, [](uint16_t X, uint16_t Y) {
    return fromExact((long double)flushH(f16ToDouble(X)) + flushH(f16ToDouble(Y)), false, true);
  }, A, B);
  // .sat: clamp to [0, 1]; NaN and -0 give +0.
  checkKernel<uint16_t>(F, "mul_sat_f16", sameF16, [](uint16_t X, uint16_t Y) {
    double R = roundF16((long double)f16ToDouble(X) * f16ToDouble(Y), "rn");
    return doubleToF16Bits(std::isnan(R) || R <= 0 ? 0.0 : R > 1 ? 1.0 : R);
  }, A, B);
  // min/max: NaN ignored unless both are NaN; -0 < +0; .NaN propagates.
  auto MinMax = [](double X, double Y, bool Max, bool Nan) {
    if (std::isnan(X) || std::isnan(Y))
      return (Nan || (std::isnan(X) && std::isnan(Y))) ? NAN : std::isnan(X) ? Y : X;
    if (X == Y)
      return (std::signbit(X) != Max) ? X : Y;
    return Max ? std::max(X, Y) : std::min(X, Y);
  };
  checkKernel<uint16_t>(F, "min_f16", sameF16, [&](uint16_t X, uint16_t Y) { return doubleToF16Bits(MinMax(f16ToDouble(X), f16ToDouble(Y), false, false)); }, A, B);
  checkKernel<uint16_t>(F, "max_nan_f16", sameF16, [&](uint16_t X, uint16_t Y) { return doubleToF16Bits(MinMax(f16ToDouble(X), f16ToDouble(Y), true, true)); }, A, B);
  auto [C, D] = all16Times(repBf16());
  keepIf([&](size_t K) { return !bfSub(C[K]) && !bfSub(D[K]); }, C, D);
  checkKernel<uint16_t>(F, "max_bf16", sameBf16, [&](uint16_t X, uint16_t Y) { return doubleToBf16Bits(MinMax(bf16ToDouble(X), bf16ToDouble(Y), true, false)); }, C, D);
}

void fmaTests() {
  Family &F = fam();
  // a exhaustive, b and c from the representative set (pairs cycled).
  for (const char *T : {"f16", "bf16"}) {
    bool Bf = isBf(T);
    auto Rep = Bf ? repBf16() : repF16();
    std::vector<uint16_t> A, B, C;
    for (size_t K = 0; K < Rep.size(); ++K)
      for (unsigned X = 0; X < 65536; ++X) {
        A.push_back(uint16_t(X));
        B.push_back(Rep[K]);
        C.push_back(Rep[(K * 7 + X) % Rep.size()]);
      }
    auto Ref = [Bf](uint16_t X, uint16_t Y, uint16_t Z) {
      return fmaExact(toD(X, Bf), toD(Y, Bf), toD(Z, Bf), Bf);
    };
    // The f32-then-half result of the same fma: where it differs from the
    // correctly rounded one, a single rounding is what tells them apart.
    auto ViaF32 = [Bf](uint16_t X, uint16_t Y, uint16_t Z) {
      return fromExact((long double)float((long double)toD(X, Bf) * toD(Y, Bf) + toD(Z, Bf)), Bf);
    };
    keepIf([&](size_t K) {
      bool Special = Bf ? (bfSub(A[K]) || bfSub(B[K]) || bfSub(C[K]) ||
                           bfTiny((long double)toD(A[K], true) * toD(B[K], true) + toD(C[K], true)) ||
                           Ref(A[K], B[K], C[K]) != ViaF32(A[K], B[K], C[K]))
                        : Ref(A[K], B[K], C[K]) != ViaF32(A[K], B[K], C[K]);
      return Special == SubnormalBf16;
    }, A, B, C);
    checkKernel<uint16_t>(F, std::string("fma_") + T, Bf ? sameBf16 : sameF16, Ref, A, B, C);
    if (!Bf) // .relu: max(x, 0) with NaN kept as NaN
      checkKernel<uint16_t>(F, "fma_relu_f16", sameF16, [&](uint16_t X, uint16_t Y, uint16_t Z) {
        uint16_t R = Ref(X, Y, Z);
        double V = f16ToDouble(R);
        return std::isnan(V) ? R : V < 0 || R == 0x8000 ? uint16_t(0) : R;
      }, A, B, C);
  }
}

void packedX2() {
  Family &F = fam();
  const size_t N = 20000;
  std::vector<uint32_t> A(N), B(N), C(N);
  auto Rep = repF16();
  for (size_t K = 0; K < N; ++K) {
    uint64_t R = rng()();
    A[K] = uint32_t(R);
    B[K] = K % 3 ? uint32_t(R >> 32) : Rep[K % Rep.size()] | uint32_t(Rep[(K / 3) % Rep.size()]) << 16;
    C[K] = uint32_t(rng()());
  }
  // Each half is computed independently (low half = element 0).
  auto Lanes = [](auto Op) {
    return [=](uint32_t X, uint32_t Y, uint32_t Z) {
      return uint32_t(Op(uint16_t(X), uint16_t(Y), uint16_t(Z))) | uint32_t(Op(uint16_t(X >> 16), uint16_t(Y >> 16), uint16_t(Z >> 16))) << 16;
    };
  };
  auto Same2 = [](auto Same) { return [=](uint32_t G, uint32_t W) { return Same(uint16_t(G), uint16_t(W)) && Same(uint16_t(G >> 16), uint16_t(W >> 16)); }; };
  auto Fma = Lanes([](uint16_t X, uint16_t Y, uint16_t Z) { return fmaExact(f16ToDouble(X), f16ToDouble(Y), f16ToDouble(Z), false); });
  auto FmaF32 = Lanes([](uint16_t X, uint16_t Y, uint16_t Z) { return fromExact((long double)float((long double)f16ToDouble(X) * f16ToDouble(Y) + f16ToDouble(Z)), false); });
  // See Bf16SubnormalsAndFmaSingleRounding for what is left out.
  auto Mul = Lanes([](uint16_t X, uint16_t Y, uint16_t) { return fromExact((long double)bf16ToDouble(X) * bf16ToDouble(Y), true); });
  keepIf([&](size_t K) {
    bool Special = bfSub2(A[K]) || bfSub2(B[K]) || bfSub2(Mul(A[K], B[K], 0)) || Fma(A[K], B[K], C[K]) != FmaF32(A[K], B[K], C[K]);
    return Special == SubnormalBf16;
  }, A, B, C);
  auto Add = Lanes([](uint16_t X, uint16_t Y, uint16_t) { return fromExact((long double)f16ToDouble(X) + f16ToDouble(Y), false); });
  checkKernel<uint32_t>(F, "add_f16x2", Same2(sameF16), [&](uint32_t X, uint32_t Y) { return Add(X, Y, 0); }, A, B);
  checkKernel<uint32_t>(F, "mul_bf16x2", Same2(sameBf16), [&](uint32_t X, uint32_t Y) { return Mul(X, Y, 0); }, A, B);
  checkKernel<uint32_t>(F, "fma_f16x2", Same2(sameF16), Fma, A, B, C);
  auto Min = Lanes([](uint16_t X, uint16_t Y, uint16_t) {
    double U = bf16ToDouble(X), V = bf16ToDouble(Y);
    double R = std::isnan(U) ? V : std::isnan(V) ? U : U == V ? (std::signbit(U) ? U : V) : std::min(U, V);
    return doubleToBf16Bits(R);
  });
  checkKernel<uint32_t>(F, "min_bf16x2", Same2(sameBf16), [&](uint32_t X, uint32_t Y) { return Min(X, Y, 0); }, A, B);
  checkKernel<uint32_t>(F, "neg_f16x2", Same2(sameF16), [](uint32_t X) { return X ^ 0x80008000u; }, A);
}

TEST(PtxHalf, UnaryExhaustive) { unaryExhaustive(); }
TEST(PtxHalf, BinaryExhaustiveTimesRepresentative) { binaryExhaustive(); }
TEST(PtxHalf, Fma) { fmaTests(); }
TEST(PtxHalf, PackedX2) { packedX2(); }

// The vectors the tests above leave out: bf16 subnormals (which the CPU's
// bf16 conversion instructions would flush; host/jit turns them off and
// rounds exactly) and f16/bf16 fma results where an f32 fma followed by a
// second rounding would differ from one rounding (host/jit computes half
// fma in double with round-to-odd).
TEST(PtxHalf, Bf16SubnormalsAndFmaSingleRounding) {
  SubnormalBf16 = true;
  unaryExhaustive();
  binaryExhaustive();
  fmaTests();
  packedX2();
  SubnormalBf16 = false;
}

} // namespace
