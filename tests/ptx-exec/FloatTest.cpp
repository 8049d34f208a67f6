/// \file
/// Execution tests of the f32/f64 instructions (PTX ISA 9.7.3): add, sub,
/// mul, fma, div, rcp, sqrt in the four IEEE rounding modes (reference: the
/// host FPU under fesetround, built with -frounding-math and volatile
/// operands so nothing is folded in the default mode), .ftz (subnormal
/// inputs and results become signed zeros), .sat (clamp to [0, 1], NaN to
/// +0), min/max (NaN-ignoring, .NaN propagating, -0 < +0), abs/neg, testp,
/// copysign, and the .approx forms against the error bounds the ISA states.
/// NaN results match any NaN (the payload is not checked).
#include "Check.h"

#include <cfenv>
#include <cmath>

using namespace ferry::ptxexec;

namespace {

const char *Modes[] = {"rn", "rz", "rm", "rp"};

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S;
  for (const char *T : {"f32", "f64"}) {
    for (const char *M : Modes) {
      std::string Sfx = std::string("_") + M + "_" + T;
      for (const char *Op : {"add", "sub", "mul", "div"})
        S.push_back({Op + Sfx, {T, T}, {T}, std::string(Op) + "." + M + "." + T + " %o0, %i0, %i1;"});
      for (const char *Op : {"rcp", "sqrt"})
        S.push_back({Op + Sfx, {T}, {T}, std::string(Op) + "." + M + "." + T + " %o0, %i0;"});
      if (std::string(T) == "f32" || std::string(M) == "rn")
        S.push_back({"fma" + Sfx, {T, T, T}, {T}, std::string("fma.") + M + "." + T + " %o0, %i0, %i1, %i2;"});
    }
    std::string TS = T;
    S.push_back({"min_" + TS, {T, T}, {T}, "min." + TS + " %o0, %i0, %i1;"});
    S.push_back({"max_" + TS, {T, T}, {T}, "max." + TS + " %o0, %i0, %i1;"});
    S.push_back({"abs_" + TS, {T}, {T}, "abs." + TS + " %o0, %i0;"});
    S.push_back({"neg_" + TS, {T}, {T}, "neg." + TS + " %o0, %i0;"});
  }
  for (const char *Op : {"add", "sub", "mul", "div"})
    S.push_back({std::string(Op) + "_ftz", {"f32", "f32"}, {"f32"}, std::string(Op) + ".rn.ftz.f32 %o0, %i0, %i1;"});
  S.push_back({"fma_ftz", {"f32", "f32", "f32"}, {"f32"}, "fma.rz.ftz.f32 %o0, %i0, %i1, %i2;"});
  S.push_back({"sqrt_ftz", {"f32"}, {"f32"}, "sqrt.rn.ftz.f32 %o0, %i0;"});
  S.push_back({"rcp_ftz", {"f32"}, {"f32"}, "rcp.rn.ftz.f32 %o0, %i0;"});
  S.push_back({"add_sat", {"f32", "f32"}, {"f32"}, "add.rn.sat.f32 %o0, %i0, %i1;"});
  S.push_back({"mul_sat_ftz", {"f32", "f32"}, {"f32"}, "mul.rn.ftz.sat.f32 %o0, %i0, %i1;"});
  S.push_back({"fma_sat", {"f32", "f32", "f32"}, {"f32"}, "fma.rp.sat.f32 %o0, %i0, %i1, %i2;"});
  S.push_back({"min_nan", {"f32", "f32"}, {"f32"}, "min.NaN.f32 %o0, %i0, %i1;"});
  S.push_back({"max_nan", {"f32", "f32"}, {"f32"}, "max.NaN.f32 %o0, %i0, %i1;"});
  S.push_back({"min_ftz", {"f32", "f32"}, {"f32"}, "min.ftz.f32 %o0, %i0, %i1;"});
  S.push_back({"abs_ftz", {"f32"}, {"f32"}, "abs.ftz.f32 %o0, %i0;"});
  S.push_back({"neg_ftz", {"f32"}, {"f32"}, "neg.ftz.f32 %o0, %i0;"});
  S.push_back({"copysign_f32", {"f32", "f32"}, {"f32"}, "copysign.f32 %o0, %i0, %i1;"});
  S.push_back({"testp_f32", {"f32"}, {"pred", "pred", "pred", "pred"},
               "testp.finite.f32 %o0, %i0; testp.infinite.f32 %o1, %i0;\n"
               "testp.number.f32 %o2, %i0; testp.subnormal.f32 %o3, %i0;"});
  S.push_back({"testp_f64", {"f64"}, {"pred", "pred"},
               "testp.notanumber.f64 %o0, %i0; testp.normal.f64 %o1, %i0;"});
  for (const char *Op : {"sin", "cos", "ex2", "lg2", "rsqrt", "sqrt", "rcp", "tanh"})
    S.push_back({std::string(Op) + "_approx", {"f32"}, {"f32"}, std::string(Op) + ".approx.f32 %o0, %i0;"});
  S.push_back({"ex2_approx_ftz", {"f32"}, {"f32"}, "ex2.approx.ftz.f32 %o0, %i0;"});
  S.push_back({"div_approx", {"f32", "f32"}, {"f32"}, "div.approx.f32 %o0, %i0, %i1;"});
  S.push_back({"div_full", {"f32", "f32"}, {"f32"}, "div.full.f32 %o0, %i0, %i1;"});
  S.push_back({"rsqrt_approx_f64", {"f64"}, {"f64"}, "rsqrt.approx.f64 %o0, %i0;"});
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

constexpr size_t N = 20000;

template <typename T> T flush(T X) {
  return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(T(0), X) : X;
}

/// op(a, b, c) in rounding mode M on the host FPU.
template <typename T> T hostOp(const std::string &Op, T A, T B, T C, const std::string &M, bool Ftz = false) {
  if (Ftz)
    A = flush(A), B = flush(B), C = flush(C);
  volatile T X = A, Y = B, Z = C;
  std::fesetround(feMode(M));
  T R;
  if (Op == "add")
    R = X + Y;
  else if (Op == "sub")
    R = X - Y;
  else if (Op == "mul")
    R = X * Y;
  else if (Op == "div")
    R = X / Y;
  else if (Op == "rcp")
    R = T(1) / X;
  else if (Op == "sqrt")
    R = std::sqrt(T(X));
  else
    R = std::fma(T(X), T(Y), T(Z));
  volatile T Keep = R; // computed before the mode is restored
  std::fesetround(FE_TONEAREST);
  return Ftz ? flush(T(Keep)) : T(Keep);
}

// .sat: NaN and every value <= 0 (also -0) give +0.
template <typename T> T sat(T X) { return std::isnan(X) || X <= 0 ? T(0) : X > 1 ? T(1) : X; }

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

/// Runs a float kernel and compares by bits (any NaN matches any NaN).
template <typename T, typename Ref, typename... I>
void checkFloat(Family &F, const std::string &Kernel, Ref R, const std::vector<I> &...Ins) {
  SCOPED_TRACE(Kernel);
  ASSERT_EQ(F.error(), "");
  std::vector<T> Got = F.run<T>(Kernel, Ins...);
  ASSERT_EQ(F.LastError, "");
  size_t Bad = 0;
  std::string Msg;
  for (size_t K = 0; K < Got.size(); ++K) {
    T Want = R(Ins[K]...);
    bool Same = bitsOf(Got[K]) == bitsOf(Want) || (std::isnan(Got[K]) && std::isnan(Want));
    if (!Same && Bad++ < 6) {
      std::string In;
      ((In += hex(bitsOf(Ins[K])) + " "), ...);
      Msg += "  inputs " + In + "got " + hex(bitsOf(Got[K])) + ", want " + hex(bitsOf(Want)) + "\n";
    }
  }
  EXPECT_EQ(Bad, 0u) << Kernel << ": " << Bad << " of " << Got.size() << " differ:\n" << Msg;
}

template <typename T> void roundingModes(const char *TypeName, const std::vector<T> &A, const std::vector<T> &B,
                                         const std::vector<T> &C) {
  Family &F = fam();
  for (const char *M : Modes) {
    std::string Sfx = std::string("_") + M + "_" + TypeName;
    for (const char *Op : {"add", "sub", "mul", "div"})
      checkFloat<T>(F, Op + Sfx, [&](T X, T Y) { return hostOp<T>(Op, X, Y, 0, M); }, A, B);
    for (const char *Op : {"rcp", "sqrt"})
      checkFloat<T>(F, Op + Sfx, [&](T X) { return hostOp<T>(Op, X, 0, 0, M); }, A);
    if (sizeof(T) == 4 || std::string(M) == "rn")
      checkFloat<T>(F, "fma" + Sfx, [&](T X, T Y, T Z) { return hostOp<T>("fma", X, Y, Z, M); }, A, B, C);
  }
}

TEST(PtxFloat, RoundingModesF32) {
  auto A = f32s(N), B = f32s(N), C = f32s(N);
  // Products near a third operand make fma's cancellation cases likely.
  for (size_t K = 0; K < N; K += 4)
    C[K] = -A[K] * B[K];
  // Sums near the overflow threshold whose TwoSum intermediates overflow.
  A[1] = asF(0xfeff1e27), B[1] = asF(0xff7fffff);
  A[2] = asF(0x7f7fffff), B[2] = asF(0x7f000001);
  roundingModes<float>("f32", A, B, C);
}

/// f64 vectors split by whether an operand or a product/quotient/root is
/// subnormal or close to it (where the residuals of the error-free
/// transformations underflow, so LowerFloat.cpp rescales).
void f64Vectors(bool Subnormal, std::vector<double> &A, std::vector<double> &B, std::vector<double> &C) {
  // Within 2^60 of the subnormal range the residuals underflow too; the
  // long double products and quotients do not underflow themselves.
  auto Sub = [](long double X) { return X != 0 && std::fabs(X) < std::ldexp(1.0L, -960); };
  auto X = f64s(4 * N), Y = f64s(4 * N), Z = f64s(4 * N);
  for (size_t K = 0; K < X.size() && A.size() < N; ++K) {
    long double LX = X[K], LY = Y[K];
    bool S = Sub(LX) || Sub(LY) || Sub(LX * LY) || Sub(LX / LY) || Sub(1 / LX);
    if (S != Subnormal)
      continue;
    A.push_back(X[K]), B.push_back(Y[K]), C.push_back(A.size() % 4 ? Z[K] : -X[K] * Y[K]);
  }
}

TEST(PtxFloat, RoundingModesF64) {
  std::vector<double> A, B, C;
  f64Vectors(false, A, B, C);
  roundingModes<double>("f64", A, B, C);
}

// f64 mul/div/rcp/sqrt with .rz/.rm/.rp near and in the subnormal range,
// where the fma residuals underflow and the lowering rescales.
TEST(PtxFloat, RoundingModesF64Subnormal) {
  std::vector<double> A, B, C;
  f64Vectors(true, A, B, C);
  // Every pair of values at the edges: results that round to 0 or to the
  // smallest subnormals, at the subnormal/normal boundary, and operands at
  // the lowering's 2^-960 rescaling threshold.
  std::vector<double> Edge;
  for (double M : {1.0, 1.0 + 0x1p-52, 1.5, 2.0 - 0x1p-52, 1.25 + 0x1p-40})
    for (double E : {0x1p-1074, 0x1p-1060, 0x1p-1023, 0x1p-1022, 0x1p-969, 0x1p-960, 0x1p-961,
                     0x1p-537, 0x1p-538, 0x1p-100, 1.0, 0x1p52, 0x1p537, 0x1p960, 0x1p1000})
      for (double S : {1.0, -1.0})
        if (std::isfinite(M * E))
          Edge.push_back(S * M * E);
  for (double V : {0x1p-1074, 3 * 0x1p-1074, 0x1p-1022 - 0x1p-1074, 0.0, -0.0, HUGE_VAL, -HUGE_VAL, 0x1.fffffffffffffp1023})
    Edge.push_back(V), Edge.push_back(-V);
  for (double X : Edge)
    for (double Y : Edge)
      A.push_back(X), B.push_back(Y), C.push_back(-X);
  roundingModes<double>("f64", A, B, C);
}

// f64 fma with .rz/.rm/.rp (ErrFma in LowerFloat.cpp); its kernels are in a
// module of their own.
TEST(PtxFloat, FmaDirectedF64) {
  std::vector<KernelSpec> S;
  for (const char *M : {"rz", "rm", "rp"})
    S.push_back({std::string("fma_") + M, {"f64", "f64", "f64"}, {"f64"},
                 std::string("fma.") + M + ".f64 %o0, %i0, %i1, %i2;"});
  Family F(S);
  auto A = f64s(N), B = f64s(N), C = f64s(N);
  for (const char *M : {"rz", "rm", "rp"})
    checkFloat<double>(F, std::string("fma_") + M, [&](double X, double Y, double Z) { return hostOp<double>("fma", X, Y, Z, M); }, A, B, C);
}

TEST(PtxFloat, FtzAndSat) {
  Family &F = fam();
  auto A = f32s(N), B = f32s(N), C = f32s(N);
  for (const char *Op : {"add", "sub", "mul", "div"})
    checkFloat<float>(F, std::string(Op) + "_ftz", [&](float X, float Y) { return hostOp<float>(Op, X, Y, 0, "rn", true); }, A, B);
  checkFloat<float>(F, "fma_ftz", [&](float X, float Y, float Z) { return hostOp<float>("fma", X, Y, Z, "rz", true); }, A, B, C);
  checkFloat<float>(F, "sqrt_ftz", [&](float X) { return hostOp<float>("sqrt", X, 0, 0, "rn", true); }, A);
  checkFloat<float>(F, "rcp_ftz", [&](float X) { return hostOp<float>("rcp", X, 0, 0, "rn", true); }, A);
  checkFloat<float>(F, "add_sat", [&](float X, float Y) { return sat(hostOp<float>("add", X, Y, 0, "rn")); }, A, B);
  checkFloat<float>(F, "mul_sat_ftz", [&](float X, float Y) { return sat(hostOp<float>("mul", X, Y, 0, "rn", true)); }, A, B);
  checkFloat<float>(F, "fma_sat", [&](float X, float Y, float Z) { return sat(hostOp<float>("fma", X, Y, Z, "rp")); }, A, B, C);
  checkFloat<float>(F, "abs_ftz", [](float X) { return std::fabs(flush(X)); }, A);
  checkFloat<float>(F, "neg_ftz", [](float X) { return -flush(X); }, A);
}

/// min/max as the ISA states: a NaN operand is ignored unless both are NaN
/// (.NaN: any NaN operand gives NaN); -0.0 is less than +0.0.
template <typename T> T minMax(T X, T Y, bool Max, bool Nan) {
  if (std::isnan(X) || std::isnan(Y))
    return (Nan || (std::isnan(X) && std::isnan(Y))) ? T(NAN) : std::isnan(X) ? Y : X;
  if (X == Y && X == 0)
    return (std::signbit(X) != Max) ? X : Y;
  return Max ? std::max(X, Y) : std::min(X, Y);
}

TEST(PtxFloat, MinMaxAbsNeg) {
  Family &F = fam();
  auto A = f32s(N), B = f32s(N);
  for (size_t K = 0; K < N; K += 8)
    B[K] = -A[K]; // ±0 pairs and equal magnitudes
  checkFloat<float>(F, "min_f32", [](float X, float Y) { return minMax(X, Y, false, false); }, A, B);
  checkFloat<float>(F, "max_f32", [](float X, float Y) { return minMax(X, Y, true, false); }, A, B);
  checkFloat<float>(F, "min_nan", [](float X, float Y) { return minMax(X, Y, false, true); }, A, B);
  checkFloat<float>(F, "max_nan", [](float X, float Y) { return minMax(X, Y, true, true); }, A, B);
  checkFloat<float>(F, "min_ftz", [](float X, float Y) { return minMax(flush(X), flush(Y), false, false); }, A, B);
  checkFloat<float>(F, "abs_f32", [](float X) { return std::fabs(X); }, A);
  checkFloat<float>(F, "neg_f32", [](float X) { return -X; }, A);
  checkFloat<float>(F, "copysign_f32", [](float X, float Y) { return std::copysign(Y, X); }, A, B);
  auto D = f64s(N), E = f64s(N);
  for (size_t K = 0; K < N; K += 8)
    E[K] = -D[K];
  checkFloat<double>(F, "min_f64", [](double X, double Y) { return minMax(X, Y, false, false); }, D, E);
  checkFloat<double>(F, "max_f64", [](double X, double Y) { return minMax(X, Y, true, false); }, D, E);
  checkFloat<double>(F, "abs_f64", [](double X) { return std::fabs(X); }, D);
  checkFloat<double>(F, "neg_f64", [](double X) { return -X; }, D);
}

TEST(PtxFloat, Testp) {
  Family &F = fam();
  auto A = f32s(N);
  std::vector<uint32_t> Fin(N), Inf(N), Num(N), Sub(N);
  ASSERT_EQ(F.launch("testp_f32", N, {Fin.data(), Inf.data(), Num.data(), Sub.data()}, {A.data()}), "");
  for (size_t K = 0; K < N; ++K) {
    float X = A[K];
    ASSERT_EQ(Fin[K], uint32_t(std::isfinite(X))) << hex(bitsOf(X));
    ASSERT_EQ(Inf[K], uint32_t(std::isinf(X))) << hex(bitsOf(X));
    ASSERT_EQ(Num[K], uint32_t(!std::isnan(X))) << hex(bitsOf(X));
    ASSERT_EQ(Sub[K], uint32_t(std::fpclassify(X) == FP_SUBNORMAL)) << hex(bitsOf(X));
  }
  auto D = f64s(N);
  std::vector<uint32_t> Nan(N), Norm(N);
  ASSERT_EQ(F.launch("testp_f64", N, {Nan.data(), Norm.data()}, {D.data()}), "");
  for (size_t K = 0; K < N; ++K) {
    ASSERT_EQ(Nan[K], uint32_t(std::isnan(D[K]))) << hex(bitsOf(D[K]));
    // testp.normal counts zero as normal: what an H100 answers
    // (tests/ptx-conformance).
    ASSERT_EQ(Norm[K], uint32_t(std::isnormal(D[K]) || D[K] == 0)) << hex(bitsOf(D[K]));
  }
}

/// Checks an approximation: |got - ref| <= max(Abs, Rel * |ref|), with the
/// special values (NaN, infinities, zeros) required to match exactly.
template <typename T, typename Ref>
void checkApprox(const std::string &Kernel, const std::vector<T> &In, Ref R, double Abs, double Rel,
                 const std::vector<T> *In2 = nullptr) {
  SCOPED_TRACE(Kernel);
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<T> Got = In2 ? F.run<T>(Kernel, In, *In2) : F.run<T>(Kernel, In);
  ASSERT_EQ(F.LastError, "");
  size_t Bad = 0;
  std::string Msg;
  for (size_t K = 0; K < In.size(); ++K) {
    long double Want = In2 ? R(In[K], (*In2)[K]) : R(In[K], T(0));
    long double G = Got[K];
    bool Ok;
    if (std::isnan(Want) || std::isinf(Want))
      Ok = std::isnan(Want) ? std::isnan(G) : G == Want;
    else
      Ok = std::fabs(G - Want) <= std::max<long double>(Abs, Rel * std::fabs(Want));
    if (!Ok && Bad++ < 6)
      Msg += "  input " + hex(bitsOf(In[K])) + (In2 ? " " + hex(bitsOf((*In2)[K])) : "") + ": got " +
             std::to_string(double(G)) + ", want " + std::to_string(double(Want)) + "\n";
  }
  EXPECT_EQ(Bad, 0u) << Kernel << ": " << Bad << " of " << In.size() << " out of bounds:\n" << Msg;
}

std::vector<float> uniform(size_t Num, float Lo, float Hi) {
  std::uniform_real_distribution<float> D(Lo, Hi);
  std::vector<float> V;
  for (size_t K = 0; K < Num; ++K)
    V.push_back(D(rng()));
  return V;
}

TEST(PtxFloat, Approximations) {
  // Bounds from the ISA sections of each instruction (9.7.3.x).
  const double Ulp = std::ldexp(1.0, -23);
  auto Pi = uniform(N, -3.14159265f, 3.14159265f);
  // sin/cos.approx: max absolute error 2^-20.9 in [-pi, pi].
  checkApprox<float>("sin_approx", Pi, [](float X, float) { return std::sin((long double)X); }, std::ldexp(1.0, -20.9), 0);
  checkApprox<float>("cos_approx", Pi, [](float X, float) { return std::cos((long double)X); }, std::ldexp(1.0, -20.9), 0);
  // ex2.approx: max relative error 2^-22 (ulp-level) over the full range;
  // subnormal results may flush, so stay above the normal range.
  auto E = uniform(N, -125.f, 127.f);
  E.insert(E.end(), {0.0f, -0.0f, INFINITY, -INFINITY, NAN});
  checkApprox<float>("ex2_approx", E, [](float X, float) { return std::exp2((long double)X); }, 0, std::ldexp(1.0, -22));
  checkApprox<float>("ex2_approx_ftz", E, [](float X, float) { return std::exp2((long double)X); }, 0, std::ldexp(1.0, -22));
  // lg2.approx: max absolute error 2^-22 (relative error for large |x|).
  auto L = uniform(N, 1e-30f, 1e30f);
  auto L2 = uniform(N, 0.25f, 4.0f);
  L.insert(L.end(), L2.begin(), L2.end());
  L.insert(L.end(), {0.0f, INFINITY, -1.0f, NAN, 1.0f});
  checkApprox<float>("lg2_approx", L, [](float X, float) { return X == 0 ? -INFINITY : std::log2((long double)X); }, std::ldexp(1.0, -22), std::ldexp(1.0, -22));
  // rsqrt.approx: max relative error 2^-22.9; sqrt.approx 2^-23 relative;
  // rcp.approx: 1 ulp.
  L.resize(N);
  L.insert(L.end(), {0.0f, INFINITY, -1.0f, NAN});
  checkApprox<float>("rsqrt_approx", L, [](float X, float) { return X == 0 ? INFINITY : 1 / std::sqrt((long double)X); }, 0, std::ldexp(1.0, -22.9));
  checkApprox<float>("sqrt_approx", L, [](float X, float) { return std::sqrt((long double)X); }, 0, std::ldexp(1.0, -23));
  checkApprox<float>("rcp_approx", L, [](float X, float) { return X == 0 ? INFINITY : 1 / (long double)X; }, 0, Ulp);
  // tanh.approx: max relative error 2^-10.987.
  auto T = uniform(N, -10.f, 10.f);
  checkApprox<float>("tanh_approx", T, [](float X, float) { return std::tanh((long double)X); }, 0, std::ldexp(1.0, -10.987));
  // div.approx: 2 ulp for |b| in [2^-126, 2^126]; div.full: 2 ulp.
  auto Num = uniform(N, -1e6f, 1e6f), Den = uniform(N, -1e3f, 1e3f);
  checkApprox<float>("div_approx", Num, [](float X, float Y) { return (long double)X / Y; }, 0, 2 * Ulp, &Den);
  checkApprox<float>("div_full", Num, [](float X, float Y) { return (long double)X / Y; }, 0, 2 * Ulp, &Den);
  // rsqrt.approx.f64: the ISA gives no bound beyond "approximate"; ask for
  // 2^-40 relative, far looser than any implementation.
  std::vector<double> D;
  for (double X : f64s(N))
    if (X > 0 && std::isfinite(X))
      D.push_back(X);
  checkApprox<double>("rsqrt_approx_f64", D, [](double X, double) { return 1 / std::sqrt((long double)X); }, 0, std::ldexp(1.0, -40));
}

} // namespace
