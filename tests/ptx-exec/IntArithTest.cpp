/// \file
/// Execution tests of the integer arithmetic instructions (PTX ISA 9.7.1,
/// 9.7.2): add/sub (wrapping and .sat), mul .lo/.hi/.wide, mad (incl. .hi
/// and .hi.sat), mul24/mad24, sad, div/rem (incl. division by zero and
/// MIN / -1 as SimtIR.md defines them; the ISA leaves both unspecified),
/// min/max, abs/neg, and the extended-precision carry chains. 16-bit unary
/// forms are exhaustive; the others use edge-biased random vectors.
#include "Check.h"

#include <algorithm>
#include <climits>

using namespace ferry::ptxexec;

namespace {

KernelSpec bin(const std::string &Name, const std::string &T, const std::string &Op) {
  return {Name, {T, T}, {T}, Op + " %o0, %i0, %i1;"};
}
KernelSpec tern(const std::string &Name, std::vector<std::string> In, const std::string &Out,
                const std::string &Op) {
  return {Name, In, {Out}, Op + " %o0, %i0, %i1, %i2;"};
}

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S = {
      bin("add_u16", "u16", "add.u16"),       bin("sub_s16", "s16", "sub.s16"),
      bin("add_s32", "s32", "add.s32"),       bin("sub_u64", "u64", "sub.u64"),
      bin("add_sat_s32", "s32", "add.sat.s32"), bin("sub_sat_s32", "s32", "sub.sat.s32"),
      bin("mul_lo_s32", "s32", "mul.lo.s32"), bin("mul_hi_s32", "s32", "mul.hi.s32"),
      bin("mul_hi_u32", "u32", "mul.hi.u32"), bin("mul_hi_u64", "u64", "mul.hi.u64"),
      bin("mul_hi_s64", "s64", "mul.hi.s64"), bin("mul_lo_u64", "u64", "mul.lo.u64"),
      bin("mul_hi_s16", "s16", "mul.hi.s16"),
      {"mul_wide_s32", {"s32", "s32"}, {"s64"}, "mul.wide.s32 %o0, %i0, %i1;"},
      {"mul_wide_u32", {"u32", "u32"}, {"u64"}, "mul.wide.u32 %o0, %i0, %i1;"},
      {"mul_wide_s16", {"s16", "s16"}, {"s32"}, "mul.wide.s16 %o0, %i0, %i1;"},
      bin("mul24_lo_u32", "u32", "mul24.lo.u32"), bin("mul24_hi_s32", "s32", "mul24.hi.s32"),
      bin("mul24_hi_u32", "u32", "mul24.hi.u32"),
      tern("mad_lo_s32", {"s32", "s32", "s32"}, "s32", "mad.lo.s32"),
      tern("mad_hi_u32", {"u32", "u32", "u32"}, "u32", "mad.hi.u32"),
      tern("mad_hi_sat_s32", {"s32", "s32", "s32"}, "s32", "mad.hi.sat.s32"),
      tern("mad_wide_s32", {"s32", "s32", "s64"}, "s64", "mad.wide.s32"),
      tern("mad_hi_s64", {"s64", "s64", "s64"}, "s64", "mad.hi.s64"),
      tern("mad24_lo_s32", {"s32", "s32", "s32"}, "s32", "mad24.lo.s32"),
      tern("sad_u32", {"u32", "u32", "u32"}, "u32", "sad.u32"),
      tern("sad_s32", {"s32", "s32", "s32"}, "s32", "sad.s32"),
      bin("div_u32", "u32", "div.u32"),       bin("div_s32", "s32", "div.s32"),
      bin("rem_u32", "u32", "rem.u32"),       bin("rem_s32", "s32", "rem.s32"),
      bin("div_s64", "s64", "div.s64"),       bin("rem_u64", "u64", "rem.u64"),
      bin("div_s16", "s16", "div.s16"),
      bin("min_s32", "s32", "min.s32"),       bin("max_u32", "u32", "max.u32"),
      bin("min_u64", "u64", "min.u64"),       bin("max_s64", "s64", "max.s64"),
      bin("min_s16", "s16", "min.s16"),       bin("max_relu_s32", "s32", "max.relu.s32"),
      bin("min_relu_s32", "s32", "min.relu.s32"),
      {"abs_s16", {"s16"}, {"s16"}, "abs.s16 %o0, %i0;"},
      {"neg_s16", {"s16"}, {"s16"}, "neg.s16 %o0, %i0;"},
      {"abs_s32", {"s32"}, {"s32"}, "abs.s32 %o0, %i0;"},
      {"neg_s64", {"s64"}, {"s64"}, "neg.s64 %o0, %i0;"},
      // 64-bit add/sub from 32-bit halves through CC.CF, then the carry out.
      {"add_cc_chain", {"u64", "u64"}, {"u64", "u32"},
       "mov.b64 {%r0, %r1}, %i0; mov.b64 {%r2, %r3}, %i1;\n"
       "add.cc.u32 %r4, %r0, %r2; addc.cc.u32 %r5, %r1, %r3; addc.u32 %o1, 0, 0;\n"
       "mov.b64 %o0, {%r4, %r5};"},
      {"sub_cc_chain", {"u64", "u64"}, {"u64", "u32"},
       "mov.b64 {%r0, %r1}, %i0; mov.b64 {%r2, %r3}, %i1;\n"
       "sub.cc.u32 %r4, %r0, %r2; subc.cc.u32 %r5, %r1, %r3; subc.u32 %o1, 0, 0;\n"
       "mov.b64 %o0, {%r4, %r5};"},
      // 32x32 -> 64 multiply-accumulate as nvcc emits for wide products:
      // lo = a*b + c.lo with carry into hi = hi(a*b) + c.hi + CF.
      {"mad_cc_chain", {"u32", "u32", "u64"}, {"u64"},
       "mov.b64 {%r2, %r3}, %i2;\n"
       "mad.lo.cc.u32 %r4, %i0, %i1, %r2; madc.hi.u32 %r5, %i0, %i1, %r3;\n"
       "mov.b64 %o0, {%r4, %r5};"},
      // 64-bit add with 64-bit carry ops.
      {"add_cc_u64", {"u64", "u64"}, {"u64"},
       "add.cc.u64 %rl0, %i0, %i1; addc.u64 %o0, 0, 0;"},
      // The carry-in forms with a known CF: a first instruction sets CF to
      // (c != 0) (c + all ones carries unless c is 0), or, for the
      // subtractions, the borrow to (c == 0) (c - 1 borrows only from 0);
      // the form under test then reads CF and writes its own carry out,
      // which addc/subc 0, 0 turn into a value.
      {"madc_lo_cc_u32", {"u32", "u32", "u32"}, {"u32", "u32"},
       "add.cc.u32 %r0, %i2, 0xFFFFFFFF; madc.lo.cc.u32 %o0, %i0, %i1, %i2; addc.u32 %o1, 0, 0;"},
      {"madc_hi_cc_u32", {"u32", "u32", "u32"}, {"u32", "u32"},
       "add.cc.u32 %r0, %i2, 0xFFFFFFFF; madc.hi.cc.u32 %o0, %i0, %i1, %i2; addc.u32 %o1, 0, 0;"},
      {"mad_hi_cc_u32", {"u32", "u32", "u32"}, {"u32", "u32"},
       "mad.hi.cc.u32 %o0, %i0, %i1, %i2; addc.u32 %o1, 0, 0;"},
      {"madc_hi_s32", {"s32", "s32", "s32"}, {"s32"},
       "add.cc.u32 %r0, %i2, 0xFFFFFFFF; madc.hi.s32 %o0, %i0, %i1, %i2;"},
      {"addc_cc_s32", {"s32", "s32", "s32"}, {"s32", "s32"},
       "add.cc.s32 %r0, %i2, -1; addc.cc.s32 %o0, %i0, %i1; addc.s32 %o1, 0, 0;"},
      {"subc_cc_s32", {"s32", "s32", "s32"}, {"s32", "s32"},
       "sub.cc.s32 %r0, %i2, 1; subc.cc.s32 %o0, %i0, %i1; subc.s32 %o1, 0, 0;"},
      {"madc_lo_cc_u64", {"u64", "u64", "u64"}, {"u64", "u64"},
       "add.cc.u64 %rl0, %i2, 0xFFFFFFFFFFFFFFFF; madc.lo.cc.u64 %o0, %i0, %i1, %i2; addc.u64 %o1, 0, 0;"},
      {"madc_hi_cc_u64", {"u64", "u64", "u64"}, {"u64", "u64"},
       "add.cc.u64 %rl0, %i2, 0xFFFFFFFFFFFFFFFF; madc.hi.cc.u64 %o0, %i0, %i1, %i2; addc.u64 %o1, 0, 0;"},
      {"mad_lo_cc_u64", {"u64", "u64", "u64"}, {"u64", "u64"},
       "mad.lo.cc.u64 %o0, %i0, %i1, %i2; addc.u64 %o1, 0, 0;"},
      {"subc_cc_u64", {"u64", "u64", "u64"}, {"u64", "u64"},
       "sub.cc.u64 %rl0, %i2, 1; subc.cc.u64 %o0, %i0, %i1; subc.u64 %o1, 0, 0;"},
      // CF living across a loop with a per-lane trip count (c & 7), the
      // loop leaving from its top, and across a divergent branch whose
      // sides set CF differently, read after the join.
      {"carry_loop", {"u32", "u32", "u32"}, {"u32", "u32"},
       "and.b32 %r0, %i2, 7; mov.u32 %r1, 0; add.cc.u32 %r3, %i0, %i1;\n"
       "CL_TOP: setp.ge.u32 %p0, %r1, %r0; @%p0 bra CL_DONE;\n"
       "addc.cc.u32 %r3, %r3, %i0; add.u32 %r1, %r1, 1; bra CL_TOP;\n"
       "CL_DONE: addc.u32 %o1, 0, 0; mov.u32 %o0, %r3;"},
      {"carry_branch", {"u32", "u32", "u32"}, {"u32", "u32"},
       "add.cc.u32 %r0, %i0, %i1; and.b32 %r1, %i2, 1; setp.eq.u32 %p0, %r1, 0;\n"
       "@%p0 bra CB_ELSE; addc.cc.u32 %r2, %i0, %i2; bra CB_JOIN;\n"
       "CB_ELSE: add.cc.u32 %r2, %i1, %i2;\n"
       "CB_JOIN: addc.u32 %o1, %i2, 0; mov.u32 %o0, %r2;"},
  };
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

template <typename T> std::vector<T> as(const std::vector<uint32_t> &V) {
  return std::vector<T>(V.begin(), V.end());
}
template <typename T> std::vector<T> as64(const std::vector<uint64_t> &V) {
  return std::vector<T>(V.begin(), V.end());
}
std::vector<uint16_t> rnd16(size_t N) {
  std::vector<uint16_t> V;
  for (uint32_t X : edgyU32(N))
    V.push_back(uint16_t(X ^ (X >> 16)));
  return V;
}

constexpr size_t N = 20000;

TEST(PtxIntArith, AddSubWrapAndSat) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  auto A16 = rnd16(N), B16 = rnd16(N);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  checkExact<uint16_t>(F, "add_u16", [](uint16_t X, uint16_t Y) { return uint16_t(X + Y); }, A16, B16);
  checkExact<uint16_t>(F, "sub_s16", [](uint16_t X, uint16_t Y) { return uint16_t(X - Y); }, A16, B16);
  checkExact<uint32_t>(F, "add_s32", [](uint32_t X, uint32_t Y) { return X + Y; }, A, B);
  checkExact<uint64_t>(F, "sub_u64", [](uint64_t X, uint64_t Y) { return X - Y; }, A64, B64);
  auto Sat = [](int64_t V) { return uint32_t(int32_t(std::clamp<int64_t>(V, INT32_MIN, INT32_MAX))); };
  checkExact<uint32_t>(F, "add_sat_s32", [&](uint32_t X, uint32_t Y) { return Sat(int64_t(int32_t(X)) + int32_t(Y)); }, A, B);
  checkExact<uint32_t>(F, "sub_sat_s32", [&](uint32_t X, uint32_t Y) { return Sat(int64_t(int32_t(X)) - int32_t(Y)); }, A, B);
}

TEST(PtxIntArith, Mul) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  auto A16 = rnd16(N), B16 = rnd16(N);
  using I128 = __int128;
  using U128 = unsigned __int128;
  checkExact<uint32_t>(F, "mul_lo_s32", [](uint32_t X, uint32_t Y) { return X * Y; }, A, B);
  checkExact<uint32_t>(F, "mul_hi_s32", [](uint32_t X, uint32_t Y) { return uint32_t((int64_t(int32_t(X)) * int32_t(Y)) >> 32); }, A, B);
  checkExact<uint32_t>(F, "mul_hi_u32", [](uint32_t X, uint32_t Y) { return uint32_t((uint64_t(X) * Y) >> 32); }, A, B);
  checkExact<uint64_t>(F, "mul_hi_u64", [](uint64_t X, uint64_t Y) { return uint64_t((U128(X) * Y) >> 64); }, A64, B64);
  checkExact<uint64_t>(F, "mul_hi_s64", [](uint64_t X, uint64_t Y) { return uint64_t((I128(int64_t(X)) * int64_t(Y)) >> 64); }, A64, B64);
  checkExact<uint64_t>(F, "mul_lo_u64", [](uint64_t X, uint64_t Y) { return X * Y; }, A64, B64);
  checkExact<uint16_t>(F, "mul_hi_s16", [](uint16_t X, uint16_t Y) { return uint16_t((int32_t(int16_t(X)) * int16_t(Y)) >> 16); }, A16, B16);
  checkExact<uint64_t>(F, "mul_wide_s32", [](uint32_t X, uint32_t Y) { return uint64_t(int64_t(int32_t(X)) * int32_t(Y)); }, A, B);
  checkExact<uint64_t>(F, "mul_wide_u32", [](uint32_t X, uint32_t Y) { return uint64_t(X) * Y; }, A, B);
  checkExact<uint32_t>(F, "mul_wide_s16", [](uint16_t X, uint16_t Y) { return uint32_t(int32_t(int16_t(X)) * int16_t(Y)); }, A16, B16);
  // mul24: the low 24 bits of each operand (sign-extended for .s32); .hi
  // is bits 47..16 of the 48-bit product.
  auto S24 = [](uint32_t X) { return int64_t(int32_t(X << 8) >> 8); };
  checkExact<uint32_t>(F, "mul24_lo_u32", [](uint32_t X, uint32_t Y) { return (X & 0xFFFFFF) * (Y & 0xFFFFFF); }, A, B);
  checkExact<uint32_t>(F, "mul24_hi_u32", [](uint32_t X, uint32_t Y) { return uint32_t((uint64_t(X & 0xFFFFFF) * (Y & 0xFFFFFF)) >> 16); }, A, B);
  checkExact<uint32_t>(F, "mul24_hi_s32", [&](uint32_t X, uint32_t Y) { return uint32_t((S24(X) * S24(Y)) >> 16); }, A, B);
}

TEST(PtxIntArith, MadAndSad) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N), C = edgyU32(N);
  auto C64 = edgyU64(N), A64 = edgyU64(N), B64 = edgyU64(N);
  using I128 = __int128;
  checkExact<uint32_t>(F, "mad_lo_s32", [](uint32_t X, uint32_t Y, uint32_t Z) { return X * Y + Z; }, A, B, C);
  checkExact<uint32_t>(F, "mad_hi_u32", [](uint32_t X, uint32_t Y, uint32_t Z) { return uint32_t((uint64_t(X) * Y) >> 32) + Z; }, A, B, C);
  // .hi.sat: the high word plus c, clamped to s32 (ISA 9.7.1.4).
  checkExact<uint32_t>(F, "mad_hi_sat_s32", [](uint32_t X, uint32_t Y, uint32_t Z) {
    int64_t Hi = (int64_t(int32_t(X)) * int32_t(Y)) >> 32;
    return uint32_t(int32_t(std::clamp<int64_t>(Hi + int32_t(Z), INT32_MIN, INT32_MAX)));
  }, A, B, C);
  checkExact<uint64_t>(F, "mad_wide_s32", [](uint32_t X, uint32_t Y, uint64_t Z) { return uint64_t(int64_t(int32_t(X)) * int32_t(Y)) + Z; }, A, B, C64);
  checkExact<uint64_t>(F, "mad_hi_s64", [](uint64_t X, uint64_t Y, uint64_t Z) { return uint64_t((I128(int64_t(X)) * int64_t(Y)) >> 64) + Z; }, A64, B64, C64);
  auto S24 = [](uint32_t X) { return int32_t(X << 8) >> 8; };
  checkExact<uint32_t>(F, "mad24_lo_s32", [&](uint32_t X, uint32_t Y, uint32_t Z) { return uint32_t(int64_t(S24(X)) * S24(Y)) + Z; }, A, B, C);
  checkExact<uint32_t>(F, "sad_u32", [](uint32_t X, uint32_t Y, uint32_t Z) { return Z + (X > Y ? X - Y : Y - X); }, A, B, C);
  checkExact<uint32_t>(F, "sad_s32", [](uint32_t X, uint32_t Y, uint32_t Z) {
    int64_t D = int64_t(int32_t(X)) - int32_t(Y);
    return Z + uint32_t(D < 0 ? -D : D);
  }, A, B, C);
}

TEST(PtxIntArith, DivRem) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  // Make sure the corner cases are present: x/0 for many x, MIN/-1.
  for (size_t K = 0; K < 200; ++K) {
    B[K] = 0;
    A[K + 200] = 0x80000000, B[K + 200] = 0xFFFFFFFF;
  }
  // SimtIR.md: x/0 = x%0 = all ones (an H100's results); MIN/-1 = MIN, MIN%-1 = 0.
  checkExact<uint32_t>(F, "div_u32", [](uint32_t X, uint32_t Y) { return Y ? X / Y : 0xFFFFFFFFu; }, A, B);
  checkExact<uint32_t>(F, "rem_u32", [](uint32_t X, uint32_t Y) { return Y ? X % Y : 0xFFFFFFFFu; }, A, B);
  checkExact<uint32_t>(F, "div_s32", [](uint32_t X, uint32_t Y) {
    int32_t SX = int32_t(X), SY = int32_t(Y);
    return !SY ? 0xFFFFFFFFu : (SX == INT32_MIN && SY == -1) ? X : uint32_t(SX / SY);
  }, A, B);
  checkExact<uint32_t>(F, "rem_s32", [](uint32_t X, uint32_t Y) {
    int32_t SX = int32_t(X), SY = int32_t(Y);
    return !SY ? 0xFFFFFFFFu : (SX == INT32_MIN && SY == -1) ? 0u : uint32_t(SX % SY);
  }, A, B);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  for (size_t K = 0; K < 200; ++K) {
    B64[K] = 0;
    A64[K + 200] = uint64_t(INT64_MIN), B64[K + 200] = ~0ull;
  }
  checkExact<uint64_t>(F, "div_s64", [](uint64_t X, uint64_t Y) {
    int64_t SX = int64_t(X), SY = int64_t(Y);
    return !SY ? ~0ull : (SX == INT64_MIN && SY == -1) ? X : uint64_t(SX / SY);
  }, A64, B64);
  checkExact<uint64_t>(F, "rem_u64", [](uint64_t X, uint64_t Y) { return Y ? X % Y : ~0ull; }, A64, B64);
  auto A16 = rnd16(N), B16 = rnd16(N);
  for (size_t K = 0; K < 100; ++K)
    B16[K] = 0, A16[K + 100] = 0x8000, B16[K + 100] = 0xFFFF;
  checkExact<uint16_t>(F, "div_s16", [](uint16_t X, uint16_t Y) {
    int16_t SX = int16_t(X), SY = int16_t(Y);
    return !SY ? uint16_t(0xFFFF) : (SX == INT16_MIN && SY == -1) ? X : uint16_t(SX / SY);
  }, A16, B16);
}

TEST(PtxIntArith, MinMaxAbsNeg) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  auto A16 = rnd16(N), B16 = rnd16(N);
  checkExact<uint32_t>(F, "min_s32", [](uint32_t X, uint32_t Y) { return uint32_t(std::min(int32_t(X), int32_t(Y))); }, A, B);
  checkExact<uint32_t>(F, "max_u32", [](uint32_t X, uint32_t Y) { return std::max(X, Y); }, A, B);
  checkExact<uint64_t>(F, "min_u64", [](uint64_t X, uint64_t Y) { return std::min(X, Y); }, A64, B64);
  checkExact<uint64_t>(F, "max_s64", [](uint64_t X, uint64_t Y) { return uint64_t(std::max(int64_t(X), int64_t(Y))); }, A64, B64);
  checkExact<uint16_t>(F, "min_s16", [](uint16_t X, uint16_t Y) { return uint16_t(std::min(int16_t(X), int16_t(Y))); }, A16, B16);
  // .relu clamps the result at 0 (ISA 9.7.1.12).
  checkExact<uint32_t>(F, "max_relu_s32", [](uint32_t X, uint32_t Y) { return uint32_t(std::max({int32_t(X), int32_t(Y), 0})); }, A, B);
  checkExact<uint32_t>(F, "min_relu_s32", [](uint32_t X, uint32_t Y) { return uint32_t(std::max(std::min(int32_t(X), int32_t(Y)), 0)); }, A, B);
  // Exhaustive 16-bit unary forms; abs(MIN) = MIN, neg wraps.
  auto All = all16();
  checkExact<uint16_t>(F, "abs_s16", [](uint16_t X) { return uint16_t(int16_t(X) < 0 ? -X : X); }, All);
  checkExact<uint16_t>(F, "neg_s16", [](uint16_t X) { return uint16_t(-X); }, All);
  checkExact<uint32_t>(F, "abs_s32", [](uint32_t X) { return int32_t(X) < 0 ? 0u - X : X; }, A);
  checkExact<uint64_t>(F, "neg_s64", [](uint64_t X) { return 0ull - X; }, A64);
}

TEST(PtxIntArith, CarryChains) {
  Family &F = fam();
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  // Two outputs: run by hand.
  std::vector<uint64_t> Sum(N), Diff(N);
  std::vector<uint32_t> Cout(N), Bout(N);
  ASSERT_EQ(F.launch("add_cc_chain", N, {Sum.data(), Cout.data()}, {A64.data(), B64.data()}), "");
  ASSERT_EQ(F.launch("sub_cc_chain", N, {Diff.data(), Bout.data()}, {A64.data(), B64.data()}), "");
  size_t Bad = 0;
  for (size_t K = 0; K < N; ++K) {
    uint64_t X = A64[K], Y = B64[K];
    // subc with 0 - 0 - borrow gives all ones when a borrow is pending.
    if (Sum[K] != X + Y || Cout[K] != uint32_t(X + Y < X) || Diff[K] != X - Y ||
        Bout[K] != (X < Y ? 0xFFFFFFFFu : 0u))
      ADD_FAILURE() << "carry chain " << hex(X) << " " << hex(Y) << ": sum " << hex(Sum[K]) << " c "
                    << Cout[K] << " diff " << hex(Diff[K]) << " b " << hex(Bout[K]) << (++Bad > 5 ? "" : "");
    if (Bad > 5)
      break;
  }
  auto A = edgyU32(N), B = edgyU32(N);
  checkExact<uint64_t>(F, "mad_cc_chain", [](uint32_t X, uint32_t Y, uint64_t Z) { return uint64_t(X) * Y + Z; }, A, B, A64);
  checkExact<uint64_t>(F, "add_cc_u64", [](uint64_t X, uint64_t Y) { return uint64_t(X + Y < X); }, A64, B64);
}

/// Runs a two-output kernel over three inputs; returns both outputs.
template <typename O, typename I>
std::pair<std::vector<O>, std::vector<O>> run2(Family &F, const std::string &Kernel, const std::vector<I> &A,
                                               const std::vector<I> &B, const std::vector<I> &C) {
  std::vector<O> O0(A.size()), O1(A.size());
  EXPECT_EQ(F.launch(Kernel, unsigned(A.size()), {O0.data(), O1.data()}, {A.data(), B.data(), C.data()}), "")
      << Kernel;
  return {O0, O1};
}

/// Compares both outputs of Kernel with Ref(a, b, c) -> {out0, out1}.
template <typename O, typename I, typename R>
void check2(Family &F, const std::string &Kernel, const std::vector<I> &A, const std::vector<I> &B,
            const std::vector<I> &C, R Ref) {
  SCOPED_TRACE(Kernel);
  ASSERT_EQ(F.error(), "");
  auto [O0, O1] = run2<O>(F, Kernel, A, B, C);
  size_t Bad = 0;
  std::string Msg;
  for (size_t K = 0; K < A.size(); ++K) {
    std::pair<O, O> W = Ref(A[K], B[K], C[K]);
    if ((O0[K] != W.first || O1[K] != W.second) && Bad++ < 6)
      Msg += "  inputs " + hex(A[K]) + " " + hex(B[K]) + " " + hex(C[K]) + ": got " + hex(O0[K]) + " " +
             hex(O1[K]) + ", want " + hex(W.first) + " " + hex(W.second) + "\n";
  }
  EXPECT_EQ(Bad, 0u) << Kernel << ": " << Bad << " of " << A.size() << " vectors differ:\n" << Msg;
}

TEST(PtxIntArith, CarryInForms) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N), C = edgyU32(N);
  auto A64 = edgyU64(N), B64 = edgyU64(N), C64 = edgyU64(N);
  using U128 = unsigned __int128;
  // The seed instructions: CF = (c != 0) for the additions, borrow = (c == 0)
  // for the subtractions.
  check2<uint32_t>(F, "madc_lo_cc_u32", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint64_t V = uint64_t(X * Y) + Z + (Z != 0);
    return std::pair<uint32_t, uint32_t>(uint32_t(V), uint32_t(V >> 32));
  });
  check2<uint32_t>(F, "madc_hi_cc_u32", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint64_t V = ((uint64_t(X) * Y) >> 32) + Z + (Z != 0);
    return std::pair<uint32_t, uint32_t>(uint32_t(V), uint32_t(V >> 32));
  });
  check2<uint32_t>(F, "mad_hi_cc_u32", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint64_t V = ((uint64_t(X) * Y) >> 32) + Z;
    return std::pair<uint32_t, uint32_t>(uint32_t(V), uint32_t(V >> 32));
  });
  checkExact<uint32_t>(F, "madc_hi_s32", [](uint32_t X, uint32_t Y, uint32_t Z) {
    return uint32_t((int64_t(int32_t(X)) * int32_t(Y)) >> 32) + Z + (Z != 0);
  }, A, B, C);
  check2<uint32_t>(F, "addc_cc_s32", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint64_t V = uint64_t(X) + Y + (Z != 0); // the unsigned carry, whatever the type
    return std::pair<uint32_t, uint32_t>(uint32_t(V), uint32_t(V >> 32));
  });
  check2<uint32_t>(F, "subc_cc_s32", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint32_t Bin = Z == 0;
    bool Bout = uint64_t(X) < uint64_t(Y) + Bin;
    return std::pair<uint32_t, uint32_t>(X - Y - Bin, Bout ? 0xFFFFFFFFu : 0u);
  });
  check2<uint64_t>(F, "madc_lo_cc_u64", A64, B64, C64, [](uint64_t X, uint64_t Y, uint64_t Z) {
    U128 V = U128(X * Y) + Z + (Z != 0);
    return std::pair<uint64_t, uint64_t>(uint64_t(V), uint64_t(V >> 64));
  });
  check2<uint64_t>(F, "madc_hi_cc_u64", A64, B64, C64, [](uint64_t X, uint64_t Y, uint64_t Z) {
    U128 V = ((U128(X) * Y) >> 64) + Z + (Z != 0);
    return std::pair<uint64_t, uint64_t>(uint64_t(V), uint64_t(V >> 64));
  });
  check2<uint64_t>(F, "mad_lo_cc_u64", A64, B64, C64, [](uint64_t X, uint64_t Y, uint64_t Z) {
    U128 V = U128(X * Y) + Z;
    return std::pair<uint64_t, uint64_t>(uint64_t(V), uint64_t(V >> 64));
  });
  check2<uint64_t>(F, "subc_cc_u64", A64, B64, C64, [](uint64_t X, uint64_t Y, uint64_t Z) {
    uint64_t Bin = Z == 0;
    bool Bout = U128(X) < U128(Y) + Bin;
    return std::pair<uint64_t, uint64_t>(X - Y - Bin, Bout ? ~0ull : 0ull);
  });
}

TEST(PtxIntArith, CarryAcrossLoopsAndBranches) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N), C = edgyU32(N);
  check2<uint32_t>(F, "carry_loop", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint64_t V = uint64_t(X) + Y;
    uint32_t R = uint32_t(V), Cf = uint32_t(V >> 32);
    for (uint32_t K = 0; K < (Z & 7); ++K) {
      V = uint64_t(R) + X + Cf;
      R = uint32_t(V), Cf = uint32_t(V >> 32);
    }
    return std::pair<uint32_t, uint32_t>(R, Cf);
  });
  check2<uint32_t>(F, "carry_branch", A, B, C, [](uint32_t X, uint32_t Y, uint32_t Z) {
    uint32_t Cf = uint32_t((uint64_t(X) + Y) >> 32);
    uint64_t V = (Z & 1) ? uint64_t(X) + Z + Cf : uint64_t(Y) + Z;
    return std::pair<uint32_t, uint32_t>(uint32_t(V), Z + uint32_t(V >> 32));
  });
}

} // namespace
