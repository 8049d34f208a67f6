/// \file
/// Execution tests of comparison and selection (PTX ISA 9.7.3.x setp/set,
/// 9.7.7): setp with every comparison operator for signed, unsigned and
/// bit types and for f32/f64 including the unordered forms and num/nan on
/// NaN inputs, .ftz comparisons, the boolean combining forms with two
/// destinations (p|q), set (integer and float results), selp and slct.
/// Each setp kernel evaluates all operators of its type and returns them
/// as a bit mask (bit K = operator K), so one kernel covers a whole type.
#include "Check.h"

#include <cmath>

using namespace ferry::ptxexec;

namespace {

const std::vector<std::string> IntOps = {"eq", "ne", "lt", "le", "gt", "ge"};
const std::vector<std::string> UOps = {"eq", "ne", "lo", "ls", "hi", "hs", "lt", "le", "gt", "ge"};
const std::vector<std::string> FOps = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu",
                                       "ltu", "leu", "gtu", "geu", "num", "nan"};

KernelSpec maskKernel(const std::string &Name, const std::string &T, const std::vector<std::string> &Ops,
                      const std::string &Mod = "") {
  std::string B = "mov.u32 %o0, 0;\n";
  for (size_t K = 0; K < Ops.size(); ++K)
    B += "setp." + Ops[K] + Mod + "." + T + " %p0, %i0, %i1; selp.u32 %r1, " + std::to_string(1u << K) +
         ", 0, %p0; or.b32 %o0, %o0, %r1;\n";
  return {Name, {T, T}, {"u32"}, B};
}

std::vector<KernelSpec> specs() {
  return {
      maskKernel("setp_s32", "s32", IntOps), maskKernel("setp_u32", "u32", UOps),
      maskKernel("setp_s64", "s64", IntOps), maskKernel("setp_u16", "u16", UOps),
      maskKernel("setp_b32", "b32", {"eq", "ne"}),
      maskKernel("setp_f32", "f32", FOps), maskKernel("setp_f64", "f64", FOps),
      maskKernel("setp_ftz_f32", "f32", FOps, ".ftz"),
      // Combining forms: p = (a < b) op c, q = !(a < b) op c.
      {"setp_combine", {"s32", "s32", "pred"}, {"pred", "pred", "pred", "pred"},
       "setp.lt.and.s32 %o0|%o1, %i0, %i1, %i2;\n"
       "setp.lt.xor.s32 %o2|%o3, %i0, %i1, !%i2;"},
      {"setp_or_f32", {"f32", "f32", "pred"}, {"pred"}, "setp.gtu.or.f32 %o0, %i0, %i1, %i2;"},
      {"set_u32_s32", {"s32", "s32"}, {"u32"}, "set.lt.u32.s32 %o0, %i0, %i1;"},
      {"set_f32_f32", {"f32", "f32"}, {"f32"}, "set.geu.f32.f32 %o0, %i0, %i1;"},
      {"set_s32_f64", {"f64", "f64"}, {"s32"}, "set.ne.s32.f64 %o0, %i0, %i1;"},
      {"selp_b64", {"b64", "b64", "pred"}, {"b64"}, "selp.b64 %o0, %i0, %i1, %i2;"},
      {"selp_f32", {"f32", "f32", "pred"}, {"f32"}, "selp.f32 %o0, %i0, %i1, %i2;"},
      {"slct_u32_s32", {"u32", "u32", "s32"}, {"u32"}, "slct.u32.s32 %o0, %i0, %i1, %i2;"},
      {"slct_f32_f32", {"f32", "f32", "f32"}, {"f32"}, "slct.f32.f32 %o0, %i0, %i1, %i2;"},
      {"slct_ftz", {"f32", "f32", "f32"}, {"f32"}, "slct.ftz.f32.f32 %o0, %i0, %i1, %i2;"},
  };
}

Family &fam() {
  static Family F(specs());
  return F;
}

constexpr size_t N = 20000;

template <typename T> uint32_t intMask(T A, T B, const std::vector<std::string> &Ops) {
  uint32_t M = 0;
  for (size_t K = 0; K < Ops.size(); ++K) {
    const std::string &O = Ops[K];
    bool R = O == "eq" ? A == B : O == "ne" ? A != B : (O == "lt" || O == "lo") ? A < B
           : (O == "le" || O == "ls") ? A <= B : (O == "gt" || O == "hi") ? A > B : A >= B;
    M |= uint32_t(R) << K;
  }
  return M;
}

/// Ordered operators are false on NaN, unordered ones ("u" suffix) true.
template <typename T> uint32_t floatMask(T A, T B) {
  uint32_t M = 0;
  bool Un = std::isnan(A) || std::isnan(B);
  for (size_t K = 0; K < FOps.size(); ++K) {
    std::string O = FOps[K];
    bool R;
    if (O == "num")
      R = !Un;
    else if (O == "nan")
      R = Un;
    else {
      bool U = O.size() == 3;
      O = O.substr(0, 2);
      bool C = O == "eq" ? A == B : O == "ne" ? A != B : O == "lt" ? A < B : O == "le" ? A <= B
             : O == "gt" ? A > B : A >= B;
      // ne is ordered-not-equal: false on NaN (C++ != is true there).
      R = Un ? U : C;
    }
    M |= uint32_t(R) << K;
  }
  return M;
}

template <typename T> T flushed(T X) { return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(T(0), X) : X; }

std::vector<float> f32s(size_t Num) {
  std::vector<float> V;
  for (uint32_t B : edgyF32(Num))
    V.push_back(asF(B));
  return V;
}

TEST(PtxCompare, SetpIntegers) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  for (size_t K = 0; K < N; K += 5)
    B[K] = A[K]; // equal pairs
  checkExact<uint32_t>(F, "setp_s32", [](uint32_t X, uint32_t Y) { return intMask<int32_t>(X, Y, IntOps); }, A, B);
  checkExact<uint32_t>(F, "setp_u32", [](uint32_t X, uint32_t Y) {
    // lt/le/gt/ge on .u32 compare unsigned too.
    return intMask<uint32_t>(X, Y, UOps);
  }, A, B);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  checkExact<uint32_t>(F, "setp_s64", [](uint64_t X, uint64_t Y) { return intMask<int64_t>(X, Y, IntOps); }, A64, B64);
  auto All = all16();
  std::vector<uint16_t> Other(65536);
  for (auto &V : Other)
    V = uint16_t(rng()());
  checkExact<uint32_t>(F, "setp_u16", [](uint16_t X, uint16_t Y) { return intMask<uint16_t>(X, Y, UOps); }, All, Other);
  checkExact<uint32_t>(F, "setp_b32", [](uint32_t X, uint32_t Y) { return uint32_t(X == Y) | uint32_t(X != Y) << 1; }, A, B);
}

TEST(PtxCompare, SetpFloats) {
  Family &F = fam();
  auto A = f32s(N), B = f32s(N);
  for (size_t K = 0; K < N; K += 5)
    B[K] = K % 10 ? A[K] : -A[K]; // equal pairs and ±0
  checkExact<uint32_t>(F, "setp_f32", [](float X, float Y) { return floatMask(X, Y); }, A, B);
  checkExact<uint32_t>(F, "setp_ftz_f32", [](float X, float Y) { return floatMask(flushed(X), flushed(Y)); }, A, B);
  std::vector<double> D, E;
  for (uint64_t X : edgyF64(N))
    D.push_back(asD(X));
  for (uint64_t X : edgyF64(N))
    E.push_back(asD(X));
  for (size_t K = 0; K < N; K += 5)
    E[K] = D[K];
  checkExact<uint32_t>(F, "setp_f64", [](double X, double Y) { return floatMask(X, Y); }, D, E);
}

TEST(PtxCompare, CombiningAndSet) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  std::vector<uint32_t> C(N), P(N), Q(N), P2(N), Q2(N);
  for (auto &V : C)
    V = rng()() & 1;
  ASSERT_EQ(F.launch("setp_combine", N, {P.data(), Q.data(), P2.data(), Q2.data()}, {A.data(), B.data(), C.data()}), "");
  size_t Bad = 0;
  for (size_t K = 0; K < N; ++K) {
    bool Lt = int32_t(A[K]) < int32_t(B[K]), Cv = C[K];
    // p = t op c, q = !t op c (ISA 9.7.7.2); the second uses !c.
    if (P[K] != uint32_t(Lt && Cv) || Q[K] != uint32_t(!Lt && Cv) || P2[K] != uint32_t(Lt != !Cv) ||
        Q2[K] != uint32_t(!Lt != !Cv))
      ++Bad;
  }
  EXPECT_EQ(Bad, 0u);
  auto X = f32s(N), Y = f32s(N);
  checkExact<uint32_t>(F, "setp_or_f32", [](float U, float V, uint32_t Cv) {
    return uint32_t((std::isnan(U) || std::isnan(V) || U > V) || Cv);
  }, X, Y, C);
  checkExact<uint32_t>(F, "set_u32_s32", [](uint32_t U, uint32_t V) { return int32_t(U) < int32_t(V) ? 0xFFFFFFFFu : 0u; }, A, B);
  // set with an f32 destination gives 1.0f or 0.0f.
  checkExact<uint32_t>(F, "set_f32_f32", [](float U, float V) {
    return bitsOf((std::isnan(U) || std::isnan(V) || U >= V) ? 1.0f : 0.0f);
  }, X, Y);
  std::vector<double> D, E;
  for (float V : X)
    D.push_back(V);
  for (float V : Y)
    E.push_back(V);
  checkExact<uint32_t>(F, "set_s32_f64", [](double U, double V) {
    return (!std::isnan(U) && !std::isnan(V) && U != V) ? 0xFFFFFFFFu : 0u;
  }, D, E);
}

TEST(PtxCompare, Select) {
  Family &F = fam();
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  std::vector<uint32_t> C(N);
  for (auto &V : C)
    V = rng()() & 1;
  checkExact<uint64_t>(F, "selp_b64", [](uint64_t X, uint64_t Y, uint32_t P) { return P ? X : Y; }, A64, B64, C);
  auto X = f32s(N), Y = f32s(N), Z = f32s(N);
  checkExact<uint32_t>(F, "selp_f32", [](float U, float V, uint32_t P) { return bitsOf(P ? U : V); }, X, Y, C);
  auto A = edgyU32(N), B = edgyU32(N), S = edgyU32(N);
  // slct: a if c >= 0 else b; for f32 c, -0 counts as >= 0. NaN c is
  // left out (the ISA does not define it).
  checkExact<uint32_t>(F, "slct_u32_s32", [](uint32_t U, uint32_t V, uint32_t Cv) { return int32_t(Cv) >= 0 ? U : V; }, A, B, S);
  for (float &V : Z)
    if (std::isnan(V))
      V = -0.0f;
  checkExact<uint32_t>(F, "slct_f32_f32", [](float U, float V, float Cv) { return bitsOf(Cv >= 0 ? U : V); }, X, Y, Z);
  // .ftz flushes the subnormal c (a negative subnormal selects a).
  checkExact<uint32_t>(F, "slct_ftz", [](float U, float V, float Cv) { return bitsOf(flushed(Cv) >= 0 ? U : V); }, X, Y, Z);
}

} // namespace
