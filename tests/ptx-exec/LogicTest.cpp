/// \file
/// Execution tests of the logic, shift and bit-manipulation instructions
/// (PTX ISA 9.7.1.14-24, 9.7.8): and/or/xor/not/cnot, shl/shr with counts
/// at and beyond the width, shf wrap/clamp, lop3 with all 256 LUTs, bfe/bfi
/// (positions/lengths past the msb, zero length), brev, clz, popc, bfind
/// (.shiftamt, signed), prmt in every mode (default mode exhaustive over the
/// 16-bit selector), dp4a/dp2a in every signedness, bmsk and szext. The
/// references follow the pseudo-code of the ISA.
#include "Check.h"

#include <algorithm>

using namespace ferry::ptxexec;

namespace {

std::string lop3Body() {
  std::string B = "ld.param.u64 %rl0, [lop3_all_raw0];\nmad.lo.u64 %rl1, %idx_, 1024, %rl0;\n";
  for (unsigned L = 0; L < 256; ++L)
    B += "lop3.b32 %r0, %i0, %i1, %i2, " + std::to_string(L) + "; st.global.u32 [%rl1+" +
         std::to_string(4 * L) + "], %r0;\n";
  return B;
}

const char *PrmtModes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S = {
      {"and_b32", {"b32", "b32"}, {"b32"}, "and.b32 %o0, %i0, %i1;"},
      {"or_b64", {"b64", "b64"}, {"b64"}, "or.b64 %o0, %i0, %i1;"},
      {"xor_b16", {"b16", "b16"}, {"b16"}, "xor.b16 %o0, %i0, %i1;"},
      {"not_b16", {"b16"}, {"b16"}, "not.b16 %o0, %i0;"},
      {"cnot_b16", {"b16"}, {"b16"}, "cnot.b16 %o0, %i0;"},
      {"cnot_b32", {"b32"}, {"b32"}, "cnot.b32 %o0, %i0;"},
      {"pred_logic", {"pred", "pred"}, {"pred", "pred", "pred", "pred"},
       "and.pred %o0, %i0, %i1; or.pred %o1, %i0, !%i1; xor.pred %o2, %i0, %i1; not.pred %o3, %i0;"},
      {"shl_b16", {"b16", "u32"}, {"b16"}, "shl.b16 %o0, %i0, %i1;"},
      {"shl_b32", {"b32", "u32"}, {"b32"}, "shl.b32 %o0, %i0, %i1;"},
      {"shr_u32", {"u32", "u32"}, {"u32"}, "shr.u32 %o0, %i0, %i1;"},
      {"shr_s32", {"s32", "u32"}, {"s32"}, "shr.s32 %o0, %i0, %i1;"},
      {"shr_s16", {"s16", "u32"}, {"s16"}, "shr.s16 %o0, %i0, %i1;"},
      {"shl_b64", {"b64", "u32"}, {"b64"}, "shl.b64 %o0, %i0, %i1;"},
      {"shr_s64", {"s64", "u32"}, {"s64"}, "shr.s64 %o0, %i0, %i1;"},
      {"shr_u64", {"u64", "u32"}, {"u64"}, "shr.u64 %o0, %i0, %i1;"},
      {"shf_l_wrap", {"b32", "b32", "u32"}, {"b32"}, "shf.l.wrap.b32 %o0, %i0, %i1, %i2;"},
      {"shf_l_clamp", {"b32", "b32", "u32"}, {"b32"}, "shf.l.clamp.b32 %o0, %i0, %i1, %i2;"},
      {"shf_r_wrap", {"b32", "b32", "u32"}, {"b32"}, "shf.r.wrap.b32 %o0, %i0, %i1, %i2;"},
      {"shf_r_clamp", {"b32", "b32", "u32"}, {"b32"}, "shf.r.clamp.b32 %o0, %i0, %i1, %i2;"},
      {"lop3_all", {"b32", "b32", "b32"}, {}, lop3Body(), 1},
      {"bfe_u32", {"u32", "u32", "u32"}, {"u32"}, "bfe.u32 %o0, %i0, %i1, %i2;"},
      {"bfe_s32", {"s32", "u32", "u32"}, {"s32"}, "bfe.s32 %o0, %i0, %i1, %i2;"},
      {"bfe_u64", {"u64", "u32", "u32"}, {"u64"}, "bfe.u64 %o0, %i0, %i1, %i2;"},
      {"bfe_s64", {"s64", "u32", "u32"}, {"s64"}, "bfe.s64 %o0, %i0, %i1, %i2;"},
      {"bfi_b32", {"b32", "b32", "u32"}, {"b32"},
       "shr.u32 %r0, %i2, 8; bfi.b32 %o0, %i0, %i1, %i2, %r0;"},
      {"bfi_b64", {"b64", "b64", "u32"}, {"b64"},
       "shr.u32 %r0, %i2, 8; bfi.b64 %o0, %i0, %i1, %i2, %r0;"},
      {"brev_b32", {"b32"}, {"b32"}, "brev.b32 %o0, %i0;"},
      {"brev_b64", {"b64"}, {"b64"}, "brev.b64 %o0, %i0;"},
      {"clz_b32", {"b32"}, {"u32"}, "clz.b32 %o0, %i0;"},
      {"clz_b64", {"b64"}, {"u32"}, "clz.b64 %o0, %i0;"},
      {"popc_b32", {"b32"}, {"u32"}, "popc.b32 %o0, %i0;"},
      {"popc_b64", {"b64"}, {"u32"}, "popc.b64 %o0, %i0;"},
      {"bfind_u32", {"u32"}, {"u32"}, "bfind.u32 %o0, %i0;"},
      {"bfind_s32", {"s32"}, {"u32"}, "bfind.s32 %o0, %i0;"},
      {"bfind_shiftamt_u32", {"u32"}, {"u32"}, "bfind.shiftamt.u32 %o0, %i0;"},
      {"bfind_shiftamt_s64", {"s64"}, {"u32"}, "bfind.shiftamt.s64 %o0, %i0;"},
      {"bfind_u64", {"u64"}, {"u32"}, "bfind.u64 %o0, %i0;"},
      {"prmt", {"b32", "b32", "b32"}, {"b32"}, "prmt.b32 %o0, %i0, %i1, %i2;"},
      {"dp4a_uu", {"u32", "u32", "u32"}, {"u32"}, "dp4a.u32.u32 %o0, %i0, %i1, %i2;"},
      {"dp4a_ss", {"u32", "u32", "u32"}, {"u32"}, "dp4a.s32.s32 %o0, %i0, %i1, %i2;"},
      {"dp4a_us", {"u32", "u32", "u32"}, {"u32"}, "dp4a.u32.s32 %o0, %i0, %i1, %i2;"},
      {"dp4a_su", {"u32", "u32", "u32"}, {"u32"}, "dp4a.s32.u32 %o0, %i0, %i1, %i2;"},
      {"dp2a_lo_uu", {"u32", "u32", "u32"}, {"u32"}, "dp2a.lo.u32.u32 %o0, %i0, %i1, %i2;"},
      {"dp2a_hi_ss", {"u32", "u32", "u32"}, {"u32"}, "dp2a.hi.s32.s32 %o0, %i0, %i1, %i2;"},
      {"dp2a_lo_su", {"u32", "u32", "u32"}, {"u32"}, "dp2a.lo.s32.u32 %o0, %i0, %i1, %i2;"},
      {"dp2a_hi_us", {"u32", "u32", "u32"}, {"u32"}, "dp2a.hi.u32.s32 %o0, %i0, %i1, %i2;"},
      {"bmsk_clamp", {"u32", "u32"}, {"b32"}, "bmsk.clamp.b32 %o0, %i0, %i1;"},
      {"bmsk_wrap", {"u32", "u32"}, {"b32"}, "bmsk.wrap.b32 %o0, %i0, %i1;"},
      {"szext_clamp_s32", {"u32", "u32"}, {"u32"}, "szext.clamp.s32 %o0, %i0, %i1;"},
      {"szext_wrap_s32", {"u32", "u32"}, {"u32"}, "szext.wrap.s32 %o0, %i0, %i1;"},
      {"szext_clamp_u32", {"u32", "u32"}, {"u32"}, "szext.clamp.u32 %o0, %i0, %i1;"},
      {"szext_wrap_u32", {"u32", "u32"}, {"u32"}, "szext.wrap.u32 %o0, %i0, %i1;"},
  };
  for (const char *M : PrmtModes)
    S.push_back({std::string("prmt_") + M, {"b32", "b32", "b32"}, {"b32"},
                 std::string("prmt.b32.") + M + " %o0, %i0, %i1, %i2;"});
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

constexpr size_t N = 20000;

/// Shift counts: every value 0..70 often, and huge ones.
std::vector<uint32_t> counts(size_t Num) {
  std::vector<uint32_t> V = edgyU32(Num);
  for (size_t K = 0; K < Num; K += 2)
    V[K] = uint32_t(K / 2 % 71);
  return V;
}
std::vector<uint16_t> to16(const std::vector<uint32_t> &V) {
  std::vector<uint16_t> R;
  for (uint32_t X : V)
    R.push_back(uint16_t(X ^ (X >> 16)));
  return R;
}

TEST(PtxLogic, Boolean) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N);
  auto A64 = edgyU64(N), B64 = edgyU64(N);
  checkExact<uint32_t>(F, "and_b32", [](uint32_t X, uint32_t Y) { return X & Y; }, A, B);
  checkExact<uint64_t>(F, "or_b64", [](uint64_t X, uint64_t Y) { return X | Y; }, A64, B64);
  checkExact<uint16_t>(F, "xor_b16", [](uint16_t X, uint16_t Y) { return uint16_t(X ^ Y); }, to16(A), to16(B));
  auto All = all16();
  checkExact<uint16_t>(F, "not_b16", [](uint16_t X) { return uint16_t(~X); }, All);
  checkExact<uint16_t>(F, "cnot_b16", [](uint16_t X) { return uint16_t(X == 0); }, All);
  checkExact<uint32_t>(F, "cnot_b32", [](uint32_t X) { return uint32_t(X == 0); }, A);
  std::vector<uint32_t> P = {0, 0, 1, 1}, Q = {0, 1, 0, 1};
  std::vector<uint32_t> O0(4), O1(4), O2(4), O3(4);
  ASSERT_EQ(F.launch("pred_logic", 4, {O0.data(), O1.data(), O2.data(), O3.data()}, {P.data(), Q.data()}), "");
  for (int K = 0; K < 4; ++K) {
    EXPECT_EQ(O0[K], P[K] & Q[K]);
    EXPECT_EQ(O1[K], P[K] | !Q[K]);
    EXPECT_EQ(O2[K], P[K] ^ Q[K]);
    EXPECT_EQ(O3[K], uint32_t(!P[K]));
  }
}

TEST(PtxLogic, Shifts) {
  Family &F = fam();
  auto A = edgyU32(N), C = counts(N);
  auto A64 = edgyU64(N);
  // Counts past the width give 0 (shl, shr.u) or the sign fill (shr.s):
  // the ISA clamps the shift amount to the width (9.7.8.7/8).
  checkExact<uint16_t>(F, "shl_b16", [](uint16_t X, uint32_t Y) { return uint16_t(Y >= 16 ? 0 : X << Y); }, to16(A), C);
  checkExact<uint32_t>(F, "shl_b32", [](uint32_t X, uint32_t Y) { return Y >= 32 ? 0 : X << Y; }, A, C);
  checkExact<uint32_t>(F, "shr_u32", [](uint32_t X, uint32_t Y) { return Y >= 32 ? 0 : X >> Y; }, A, C);
  checkExact<uint32_t>(F, "shr_s32", [](uint32_t X, uint32_t Y) { return uint32_t(int32_t(X) >> std::min(Y, 31u)); }, A, C);
  checkExact<uint16_t>(F, "shr_s16", [](uint16_t X, uint32_t Y) { return uint16_t(int16_t(X) >> std::min(Y, 15u)); }, to16(A), C);
  checkExact<uint64_t>(F, "shl_b64", [](uint64_t X, uint32_t Y) { return Y >= 64 ? 0 : X << Y; }, A64, C);
  checkExact<uint64_t>(F, "shr_u64", [](uint64_t X, uint32_t Y) { return Y >= 64 ? 0 : X >> Y; }, A64, C);
  checkExact<uint64_t>(F, "shr_s64", [](uint64_t X, uint32_t Y) { return uint64_t(int64_t(X) >> std::min(Y, 63u)); }, A64, C);
  // shf: the 64-bit {b, a} shifted by n = c & 31 (.wrap) or min(c, 32)
  // (.clamp); .l keeps the high word, .r the low word (9.7.8.9).
  auto B = edgyU32(N);
  auto Shf = [](bool Left, bool Wrap) {
    return [=](uint32_t Lo, uint32_t Hi, uint32_t Cnt) {
      uint32_t S = Wrap ? Cnt & 31 : std::min(Cnt, 32u);
      uint64_t V = uint64_t(Hi) << 32 | Lo;
      return Left ? uint32_t((S == 32 ? V << 32 : V << S) >> 32) : uint32_t(S == 32 ? V >> 32 : V >> S);
    };
  };
  checkExact<uint32_t>(F, "shf_l_wrap", Shf(true, true), A, B, C);
  checkExact<uint32_t>(F, "shf_l_clamp", Shf(true, false), A, B, C);
  checkExact<uint32_t>(F, "shf_r_wrap", Shf(false, true), A, B, C);
  checkExact<uint32_t>(F, "shf_r_clamp", Shf(false, false), A, B, C);
}

TEST(PtxLogic, Lop3AllLuts) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  const size_t M = 512;
  auto A = edgyU32(M), B = edgyU32(M), C = edgyU32(M);
  // The LUT is indexed by (a, b, c) bits as ta = 0xF0, tb = 0xCC, tc = 0xAA.
  A[0] = 0xF0F0F0F0, B[0] = 0xCCCCCCCC, C[0] = 0xAAAAAAAA;
  std::vector<uint32_t> Out(M * 256);
  ASSERT_EQ(F.launch("lop3_all", M, {}, {A.data(), B.data(), C.data()}, 128, {Out.data()}), "");
  size_t Bad = 0;
  for (size_t K = 0; K < M; ++K)
    for (unsigned L = 0; L < 256; ++L) {
      uint32_t Want = 0;
      for (int Bit = 0; Bit < 32; ++Bit) {
        unsigned Idx = ((A[K] >> Bit) & 1) << 2 | ((B[K] >> Bit) & 1) << 1 | ((C[K] >> Bit) & 1);
        Want |= ((L >> Idx) & 1u) << Bit;
      }
      if (Out[K * 256 + L] != Want && Bad++ < 5)
        ADD_FAILURE() << "lop3 lut " << L << " on " << hex(A[K]) << " " << hex(B[K]) << " "
                      << hex(C[K]) << ": got " << hex(Out[K * 256 + L]) << ", want " << hex(Want);
    }
  EXPECT_EQ(Bad, 0u);
}

// The 32-bit forms take pos and len from the operands' low bytes (the ISA's
// pseudocode); the 64-bit ones take the whole values, as an H100 does
// (tests/ptx-conformance).
template <typename T> T bfeRef(T A, uint32_t B, uint32_t C, bool Signed) {
  const uint64_t Msb = sizeof(T) * 8 - 1;
  uint64_t Pos = sizeof(T) == 8 ? B : B & 0xFF, Len = sizeof(T) == 8 ? C : C & 0xFF;
  if (Len == 0)
    return 0; // "If the bit field length is zero, the result is zero."
  T SBit = Signed ? (A >> std::min(Pos + Len - 1, Msb)) & 1 : 0;
  T D = 0;
  for (uint64_t I = 0; I <= Msb; ++I) {
    T Bit = (I < Len && Pos + I <= Msb) ? (A >> (Pos + I)) & 1 : SBit;
    D |= Bit << I;
  }
  return D;
}
template <typename T> T bfiRef(T A, T B, uint32_t C, uint32_t D) {
  const uint64_t Msb = sizeof(T) * 8 - 1;
  uint64_t Pos = sizeof(T) == 8 ? C : C & 0xFF, Len = sizeof(T) == 8 ? D : D & 0xFF;
  T R = B;
  for (uint64_t I = 0; I < Len && Pos + I <= Msb; ++I)
    R = (R & ~(T(1) << (Pos + I))) | (((A >> I) & 1) << (Pos + I));
  return R;
}

TEST(PtxLogic, BitFields) {
  Family &F = fam();
  auto A = edgyU32(N), P = counts(N), L = counts(N);
  std::shuffle(L.begin(), L.end(), rng());
  auto A64 = edgyU64(N);
  checkExact<uint32_t>(F, "bfe_u32", [](uint32_t X, uint32_t Y, uint32_t Z) { return bfeRef<uint32_t>(X, Y, Z, false); }, A, P, L);
  checkExact<uint32_t>(F, "bfe_s32", [](uint32_t X, uint32_t Y, uint32_t Z) { return bfeRef<uint32_t>(X, Y, Z, true); }, A, P, L);
  checkExact<uint64_t>(F, "bfe_u64", [](uint64_t X, uint32_t Y, uint32_t Z) { return bfeRef<uint64_t>(X, Y, Z, false); }, A64, P, L);
  checkExact<uint64_t>(F, "bfe_s64", [](uint64_t X, uint32_t Y, uint32_t Z) { return bfeRef<uint64_t>(X, Y, Z, true); }, A64, P, L);
  // bfi: position in the low byte of the third input, length in its second byte.
  std::vector<uint32_t> PL;
  for (size_t K = 0; K < N; ++K)
    PL.push_back(P[K] | L[K] << 8);
  auto B = edgyU32(N);
  auto B64 = edgyU64(N);
  checkExact<uint32_t>(F, "bfi_b32", [](uint32_t X, uint32_t Y, uint32_t Z) { return bfiRef<uint32_t>(X, Y, Z, Z >> 8); }, A, B, PL);
  checkExact<uint64_t>(F, "bfi_b64", [](uint64_t X, uint64_t Y, uint32_t Z) { return bfiRef<uint64_t>(X, Y, Z, Z >> 8); }, A64, B64, PL);
}

TEST(PtxLogic, BitCounts) {
  Family &F = fam();
  auto A = edgyU32(N);
  auto A64 = edgyU64(N);
  auto Brev = [](uint64_t X, int W) {
    uint64_t R = 0;
    for (int K = 0; K < W; ++K)
      R |= ((X >> K) & 1) << (W - 1 - K);
    return R;
  };
  checkExact<uint32_t>(F, "brev_b32", [&](uint32_t X) { return uint32_t(Brev(X, 32)); }, A);
  checkExact<uint64_t>(F, "brev_b64", [&](uint64_t X) { return Brev(X, 64); }, A64);
  auto Clz = [](uint64_t X, int W) {
    uint32_t N = 0;
    for (int K = W - 1; K >= 0 && !((X >> K) & 1); --K)
      ++N;
    return N;
  };
  checkExact<uint32_t>(F, "clz_b32", [&](uint32_t X) { return Clz(X, 32); }, A);
  checkExact<uint32_t>(F, "clz_b64", [&](uint64_t X) { return Clz(X, 64); }, A64);
  auto Popc = [](uint64_t X) {
    uint32_t N = 0;
    for (; X; X >>= 1)
      N += X & 1;
    return N;
  };
  checkExact<uint32_t>(F, "popc_b32", [&](uint32_t X) { return Popc(X); }, A);
  checkExact<uint32_t>(F, "popc_b64", [&](uint64_t X) { return Popc(X); }, A64);
  // bfind: the most significant bit that is not a sign bit (for signed
  // types: the first bit differing from the sign); none: 0xFFFFFFFF.
  // .shiftamt gives (width-1) - position instead.
  auto Bfind = [](uint64_t X, int W, bool Signed, bool Shift) {
    bool Neg = Signed && ((X >> (W - 1)) & 1);
    for (int K = W - (Signed ? 2 : 1); K >= 0; --K)
      if (((X >> K) & 1) != uint64_t(Neg))
        return uint32_t(Shift ? W - 1 - K : K);
    return 0xFFFFFFFFu;
  };
  checkExact<uint32_t>(F, "bfind_u32", [&](uint32_t X) { return Bfind(X, 32, false, false); }, A);
  checkExact<uint32_t>(F, "bfind_s32", [&](uint32_t X) { return Bfind(X, 32, true, false); }, A);
  checkExact<uint32_t>(F, "bfind_shiftamt_u32", [&](uint32_t X) { return Bfind(X, 32, false, true); }, A);
  checkExact<uint32_t>(F, "bfind_shiftamt_s64", [&](uint64_t X) { return Bfind(X, 64, true, true); }, A64);
  checkExact<uint32_t>(F, "bfind_u64", [&](uint64_t X) { return Bfind(X, 64, false, false); }, A64);
}

uint32_t byteOf(uint32_t A, uint32_t B, unsigned I) { return ((uint64_t(B) << 32 | A) >> (8 * (I & 7))) & 0xFF; }

TEST(PtxLogic, PrmtAllModes) {
  Family &F = fam();
  // Default mode: exhaustive over the 16-bit selector (a nibble per byte,
  // bit 3 of a nibble replicates the sign of the chosen byte).
  auto Sel = all16();
  std::vector<uint32_t> Sel32(Sel.begin(), Sel.end());
  auto A = edgyU32(65536), B = edgyU32(65536);
  checkExact<uint32_t>(F, "prmt", [](uint32_t X, uint32_t Y, uint32_t C) {
    uint32_t D = 0;
    for (unsigned I = 0; I < 4; ++I) {
      unsigned S = (C >> (4 * I)) & 0xF;
      uint32_t V = byteOf(X, Y, S);
      if (S & 8)
        V = (V & 0x80) ? 0xFF : 0;
      D |= V << (8 * I);
    }
    return D;
  }, A, B, Sel32);
  // The other modes use the two low bits of c (ISA 9.7.8.10 table).
  auto C = edgyU32(4096);
  A.resize(4096), B.resize(4096);
  for (int Mode = 0; Mode < 6; ++Mode)
    checkExact<uint32_t>(F, std::string("prmt_") + PrmtModes[Mode], [Mode](uint32_t X, uint32_t Y, uint32_t Cv) {
      unsigned S = Cv & 3, D = 0;
      for (unsigned I = 0; I < 4; ++I) {
        unsigned Idx = Mode == 0 ? S + I : Mode == 1 ? (S - I) & 7 : Mode == 2 ? S
                       : Mode == 3 ? std::max(I, S) : Mode == 4 ? std::min(I, S) : (S & 1) * 2 + (I & 1);
        D |= byteOf(X, Y, Idx) << (8 * I);
      }
      return D;
    }, A, B, C);
}

TEST(PtxLogic, DotProducts) {
  Family &F = fam();
  auto A = edgyU32(N), B = edgyU32(N), C = edgyU32(N);
  auto Elt = [](uint32_t V, unsigned I, unsigned Bits, bool S) {
    uint32_t E = (V >> (I * Bits)) & ((1u << Bits) - 1);
    return S ? int64_t(E) - ((E >> (Bits - 1)) ? (int64_t(1) << Bits) : 0) : int64_t(E);
  };
  for (auto [K, SA, SB] : {std::tuple{"dp4a_uu", false, false}, {"dp4a_ss", true, true},
                           {"dp4a_us", false, true}, {"dp4a_su", true, false}})
    checkExact<uint32_t>(F, K, [&, SA = SA, SB = SB](uint32_t X, uint32_t Y, uint32_t Z) {
      int64_t Acc = 0;
      for (unsigned I = 0; I < 4; ++I)
        Acc += Elt(X, I, 8, SA) * Elt(Y, I, 8, SB);
      return uint32_t(Acc) + Z;
    }, A, B, C);
  // dp2a: a's two 16-bit halves times bytes 0,1 (.lo) or 2,3 (.hi) of b.
  for (auto [K, Hi, SA, SB] : {std::tuple{"dp2a_lo_uu", false, false, false}, {"dp2a_hi_ss", true, true, true},
                               {"dp2a_lo_su", false, true, false}, {"dp2a_hi_us", true, false, true}})
    checkExact<uint32_t>(F, K, [&, Hi = Hi, SA = SA, SB = SB](uint32_t X, uint32_t Y, uint32_t Z) {
      int64_t Acc = 0;
      for (unsigned I = 0; I < 2; ++I)
        Acc += Elt(X, I, 16, SA) * Elt(Y, I + (Hi ? 2 : 0), 8, SB);
      return uint32_t(Acc) + Z;
    }, A, B, C);
}

TEST(PtxLogic, BmskSzext) {
  Family &F = fam();
  auto A = counts(N), B = counts(N);
  std::shuffle(B.begin(), B.end(), rng());
  // bmsk: width b bits of ones starting at bit a, truncated to 32 bits;
  // .clamp limits a and b to 32, .wrap takes them mod 32 (9.7.1.22).
  auto Bmsk = [](bool Wrap) {
    return [=](uint32_t Pos, uint32_t W) {
      Pos = Wrap ? Pos & 31 : std::min(Pos, 32u);
      W = Wrap ? W & 31 : std::min(W, 32u);
      uint64_t M = ((uint64_t(1) << W) - 1) << Pos;
      return uint32_t(M);
    };
  };
  checkExact<uint32_t>(F, "bmsk_clamp", Bmsk(false), A, B);
  checkExact<uint32_t>(F, "bmsk_wrap", Bmsk(true), A, B);
  // szext: extend the low N bits of a, N = min(b, 32) (.clamp) or b mod 32
  // (.wrap); N = 0 gives 0 (9.7.1.21).
  auto V = edgyU32(N);
  auto Szext = [](bool Wrap, bool Signed) {
    return [=](uint32_t X, uint32_t Nb) {
      Nb = Wrap ? Nb & 31 : std::min(Nb, 32u);
      if (Nb == 0)
        return 0u;
      if (Nb == 32)
        return X;
      uint32_t Low = X & ((1u << Nb) - 1);
      return Signed && ((Low >> (Nb - 1)) & 1) ? Low | ~((1u << Nb) - 1) : Low;
    };
  };
  checkExact<uint32_t>(F, "szext_clamp_s32", Szext(false, true), V, B);
  checkExact<uint32_t>(F, "szext_wrap_s32", Szext(true, true), V, B);
  checkExact<uint32_t>(F, "szext_clamp_u32", Szext(false, false), V, B);
  checkExact<uint32_t>(F, "szext_wrap_u32", Szext(true, false), V, B);
}

} // namespace
