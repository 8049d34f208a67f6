//===- tests/sim/isa/InstTest.cpp - per-instruction semantics -------------===//
/// \file
/// Small kernels assembled with llvm-mc-19 from AMD assembler text: each
/// lane loads four input dwords (v1..v4), runs the instruction(s) under
/// test, and stores v5:v6. Edge values: NaN, infinities, denormals, signed
/// zero, wrap-around, saturation. Also the strictness contract: unknown
/// opcodes, registers beyond the allocation, out-of-bounds and misaligned
/// accesses, traps.
//===----------------------------------------------------------------------===//
#include "tests/sim/isa/SimTestUtil.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>

using namespace ferry::sim;
using namespace ferry::sim::test;

namespace {

using Lane = std::array<uint32_t, 4>;
using Out = std::array<uint32_t, 2>;

uint32_t f2u(float F) {
  uint32_t U;
  memcpy(&U, &F, 4);
  return U;
}
float u2f(uint32_t U) {
  float F;
  memcpy(&F, &U, 4);
  return F;
}

struct Kernel {
  std::string Body;
  std::string Directives; // extra .amdhsa_* lines
  unsigned Vgprs = 32;
  unsigned Agprs = 0; // CDNA: AGPRs above ACCUM_OFFSET in the unified file
  unsigned Lds = 0;
};

std::string wrap(const Kernel &K, Gfx G) {
  bool G11 = G == Gfx::Gfx1100;
  std::string S;
  S += ".amdgcn_target \"amdgcn-amd-amdhsa--" + std::string(gfxName(G)) + "\"\n";
  S += ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n";
  S += G11 ? "  s_load_b128 s[4:7], s[0:1], 0x0\n" : "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n";
  S += "  v_lshlrev_b32 v10, 4, v0\n  s_waitcnt lgkmcnt(0)\n";
  // 64-bit aligned tuples (gfx90a/gfx942 require them): load into
  // v[12:15], then hand the test v1..v4.
  S += G11 ? "  global_load_b128 v[12:15], v10, s[4:5]\n" : "  global_load_dwordx4 v[12:15], v10, s[4:5]\n";
  S += "  s_waitcnt vmcnt(0)\n  v_mov_b32 v1, v12\n  v_mov_b32 v2, v13\n  v_mov_b32 v3, v14\n"
       "  v_mov_b32 v4, v15\n  v_mov_b32 v5, 0\n  v_mov_b32 v6, 0\n";
  S += K.Body + "\n";
  S += "  v_lshlrev_b32 v10, 3, v0\n  v_mov_b32 v16, v5\n  v_mov_b32 v17, v6\n";
  S += G11 ? "  global_store_b64 v10, v[16:17], s[6:7]\n" : "  global_store_dwordx2 v10, v[16:17], s[6:7]\n";
  S += "  s_endpgm\n";
  S += ".rodata\n.p2align 6\n.amdhsa_kernel k\n";
  S += "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n";
  S += "  .amdhsa_next_free_vgpr " + std::to_string(K.Vgprs + K.Agprs) + "\n";
  S += "  .amdhsa_next_free_sgpr 32\n";
  S += "  .amdhsa_group_segment_fixed_size " + std::to_string(K.Lds) + "\n";
  if (G11)
    S += "  .amdhsa_wavefront_size32 1\n";
  else
    S += "  .amdhsa_accum_offset " + std::to_string(K.Vgprs) + "\n";
  S += K.Directives;
  S += ".end_amdhsa_kernel\n";
  return S;
}

class Inst : public ::testing::TestWithParam<Gfx> {
protected:
  Gfx G = Gfx::Gfx942;
  void SetUp() override { G = GetParam(); }
  bool g11() const { return G == Gfx::Gfx1100; }

  /// Runs the kernel on one wave; Ins gives the first lanes' inputs.
  DispatchResult exec(const Kernel &K, const std::vector<Lane> &Ins, std::vector<Out> &Outs,
                      uint32_t *OutBuf = nullptr) {
    std::string Err;
    std::string So = assembleKernel(wrap(K, G), G, Err);
    DispatchResult Bad;
    Bad.Status = DispatchResult::Unsupported;
    if (So.empty()) {
      ADD_FAILURE() << "assembly failed: " << Err << "\n" << K.Body;
      return Bad;
    }
    HostMemory Mem;
    CodeObject CO;
    if (!loadCodeObject(So, Mem, CO, Err)) {
      ADD_FAILURE() << Err;
      return Bad;
    }
    unsigned W = waveSize(G);
    uint32_t *In = Mem.allocArray<uint32_t>(4 * W);
    uint32_t *O = Mem.allocArray<uint32_t>(2 * W);
    for (size_t L = 0; L < Ins.size() && L < W; ++L)
      memcpy(In + 4 * L, Ins[L].data(), 16);
    auto Sim = Simulator::create(G, Mem);
    Launch Ln;
    Ln.Grid[0] = W;
    Ln.Group[0] = W;
    uint64_t Args[2] = {reinterpret_cast<uint64_t>(In), reinterpret_cast<uint64_t>(O)};
    DispatchResult R = dispatch(*Sim, Mem, CO, "k", Ln, Args, sizeof Args);
    Outs.assign(W, Out{});
    for (unsigned L = 0; L < W; ++L)
      Outs[L] = {O[2 * L], O[2 * L + 1]};
    if (OutBuf)
      memcpy(OutBuf, O, 8 * W);
    return R;
  }
  /// Runs Body; checks v5 (and v6 when Expect has two words) per lane.
  void check(const std::string &Body, const std::vector<Lane> &Ins, const std::vector<Out> &Expect,
             const std::string &Directives = "", bool CheckHi = true) {
    Kernel K;
    K.Body = Body;
    K.Directives = Directives;
    std::vector<Out> Got;
    DispatchResult R = exec(K, Ins, Got);
    ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
    for (size_t L = 0; L < Expect.size(); ++L) {
      EXPECT_EQ(Got[L][0], Expect[L][0]) << "lane " << L << " v5 of:\n" << Body;
      if (CheckHi)
        EXPECT_EQ(Got[L][1], Expect[L][1]) << "lane " << L << " v6 of:\n" << Body;
    }
  }
  const char *addNc() const { return g11() ? "v_add_nc_u32" : "v_add_u32"; }
};

TEST_P(Inst, AddCarryWraps) {
  std::string B = g11() ? "v_add_co_u32 v5, vcc_lo, v1, v2\n v_cndmask_b32 v6, 0, 1, vcc_lo"
                        : "v_add_co_u32 v5, vcc, v1, v2\n v_cndmask_b32 v6, 0, 1, vcc";
  check(B, {{0xffffffffu, 1}, {5, 7}, {0x80000000u, 0x80000000u}},
        {{0, 1}, {12, 0}, {0, 1}});
}

TEST_P(Inst, AddSaturatesWithClamp) {
  check(std::string(addNc()) + "_e64 v5, v1, v2 clamp", {{0xfffffff0u, 0x20}, {1, 2}},
        {{0xffffffffu, 0}, {3, 0}});
}

TEST_P(Inst, SubCarryChain) {
  // 64-bit subtract through sub_co / subb (borrow).
  std::string B = g11() ? "v_sub_co_u32 v5, vcc_lo, v1, v3\n v_sub_co_ci_u32 v6, vcc_lo, v2, v4, vcc_lo"
                        : "v_sub_co_u32 v5, vcc, v1, v3\n v_subb_co_u32 v6, vcc, v2, v4, vcc";
  check(B, {{0, 1, 1, 0}, {5, 0, 7, 0}}, {{0xffffffffu, 0}, {0xfffffffeu, 0xffffffffu}});
}

TEST_P(Inst, FloatAddEdges) {
  float Inf = INFINITY;
  check("v_add_f32 v5, v1, v2",
        {{f2u(Inf), f2u(-Inf)}, {f2u(-0.0f), f2u(-0.0f)}, {f2u(-0.0f), f2u(0.0f)}, {0x7f800001u, f2u(1.0f)},
         {f2u(3e38f), f2u(3e38f)}},
        {{0x7fc00000u, 0}, {0x80000000u, 0}, {0, 0}, {0x7fc00001u, 0}, {f2u(Inf), 0}});
}

TEST_P(Inst, DenormalsFlushedByMode) {
  // 2^-130 * 1.0: a denormal result, flushed unless FP_DENORM allows it.
  uint32_t Den = 0x00080000u; // 2^-130 as f32 (denormal)
  check("v_mul_f32 v5, v1, v2", {{Den, f2u(1.0f)}, {f2u(1e-20f), f2u(1e-20f)}}, {{0, 0}, {0, 0}},
        "  .amdhsa_float_denorm_mode_32 0\n", false);
  check("v_mul_f32 v5, v1, v2", {{Den, f2u(1.0f)}, {0x80080000u, f2u(1.0f)}}, {{Den, 0}, {0x80080000u, 0}},
        "  .amdhsa_float_denorm_mode_32 3\n", false);
}

TEST_P(Inst, MinMaxNaN) {
  check("v_min_f32 v5, v1, v2\n v_max_f32 v6, v1, v2",
        {{0x7fc00000u, f2u(1.0f)}, {f2u(-0.0f), f2u(0.0f)}, {f2u(2.0f), f2u(-3.0f)}},
        {{f2u(1.0f), f2u(1.0f)}, {0x80000000u, 0}, {f2u(-3.0f), f2u(2.0f)}});
}

TEST_P(Inst, ClampOfNaNInputWithDx10) {
  // MODE.DX10_CLAMP (the default): clamp turns every NaN result into 0,
  // also a NaN that came in as an operand; without it the quieted NaN
  // passes. (PTX's add.sat.f32 of a NaN is 0: LLVM relies on this.)
  check("v_add_f32_e64 v5, v1, v2 clamp\n v_mul_f32_e64 v6, v1, v2 clamp",
        {{0x7fa00001u, f2u(1.0f)}, {f2u(0.5f), 0xffc00123u}, {f2u(0.25f), f2u(2.0f)}},
        {{0, 0}, {0, 0}, {f2u(1.0f), f2u(0.5f)}});
  check("v_add_f32_e64 v5, v1, v2 clamp", {{0x7fa00001u, f2u(1.0f)}}, {{0x7fe00001u, 0}},
        "  .amdhsa_dx10_clamp 0\n", false);
  // The f32 -> f16 conversion too (its NaN otherwise keeps the sign).
  check("v_cvt_f16_f32_e64 v5, v1 clamp\n v_cvt_f16_f32_e64 v6, v1", {{0xffc00000u}}, {{0, 0xfe00u}});
}

TEST_P(Inst, CvtFloatToIntSaturates) {
  check("v_cvt_i32_f32 v5, v1\n v_cvt_u32_f32 v6, v1",
        {{0x7fc00000u}, {f2u(3e9f)}, {f2u(-3e9f)}, {f2u(-1.7f)}, {f2u(INFINITY)}},
        {{0, 0}, {0x7fffffffu, 3000000000u}, {0x80000000u, 0}, {0xffffffffu, 0}, {0x7fffffffu, 0xffffffffu}});
}

TEST_P(Inst, CvtHalf) {
  // f32 -> f16 round to nearest even, overflow to inf; f16 denormal -> f32.
  check("v_cvt_f16_f32 v5, v1\n v_cvt_f32_f16 v6, v2",
        {{f2u(1.0f + 1.0f / 2048), 0x0001}, {f2u(70000.0f), 0x8200}, {f2u(-0.0f), 0x7c00}},
        {{0x3c00, f2u(5.9604645e-08f)}, {0x7c00, f2u(-3.0517578e-05f)}, {0x8000, f2u(INFINITY)}},
        "  .amdhsa_float_denorm_mode_16_64 3\n");
}

TEST_P(Inst, IntegerVop3) {
  check("v_med3_i32 v5, v1, v2, v3\n v_bfe_u32 v6, v1, 4, 8", {{0x12345678u, 5, 0x80000000u}, {3, 9, 7}},
        {{5, 0x67}, {7, 0}});
  check("v_alignbit_b32 v5, v1, v2, 8\n v_perm_b32 v6, v1, v2, v3",
        {{0x11223344u, 0x55667788u, 0x0c0d0403u}, {0xaabbccddu, 0x01020304u, 0x07000501u}},
        {{0x44556677u, 0x00ff4455u}, {0xdd010203u, 0xaa04cc03u}});
}

TEST_P(Inst, Mad64AndMulHi) {
  check("v_mov_b32 v8, v3\n v_mov_b32 v9, v4\n v_mad_u64_u32 v[18:19], " +
            std::string(g11() ? "null" : "s[8:9]") + ", v1, v2, v[8:9]\n v_mov_b32 v5, v18\n v_mov_b32 v6, v19",
        {{0xffffffffu, 0xffffffffu, 1, 0}, {3, 4, 0xfffffff0u, 0}}, {{2, 0xfffffffeu}, {0xfffffffcu, 0}});
  check("v_mul_hi_i32 v5, v1, v2\n v_mul_lo_u32 v6, v1, v2", {{0x80000000u, 2}, {0xffffffffu, 0xffffffffu}},
        {{0xffffffffu, 0}, {0, 1}});
}

TEST_P(Inst, ClassAndCompare) {
  std::string B = g11() ? "v_cmp_class_f32_e64 s8, v1, v2\n v_cndmask_b32_e64 v5, 0, 1, s8\n"
                          "v_cmp_u_f32_e64 s8, v1, v1\n v_cndmask_b32_e64 v6, 0, 1, s8"
                        : "v_cmp_class_f32_e64 s[8:9], v1, v2\n v_cndmask_b32_e64 v5, 0, 1, s[8:9]\n"
                          "v_cmp_u_f32_e64 s[8:9], v1, v1\n v_cndmask_b32_e64 v6, 0, 1, s[8:9]";
  // Mask bits: 0 sNaN, 1 qNaN, 2 -inf, 5 -0, 7 +denormal.
  check(B, {{0x7f800001u, 1}, {0x7fc00000u, 1}, {f2u(-INFINITY), 4}, {0x80000000u, 32}, {1, 0x80}, {1, 0x100}},
        {{1, 1}, {0, 1}, {1, 0}, {1, 0}, {1, 0}, {0, 0}});
}

TEST_P(Inst, ScalarAluFlags) {
  // s_add_u32 carries into SCC; s_cselect reads it; s_bfe_i32 sign-extends.
  std::string B = "v_readfirstlane_b32 s8, v1\n v_readfirstlane_b32 s9, v2\n"
                  "s_add_u32 s10, s8, s9\n s_cselect_b32 s11, 1, 0\n"
                  "s_bfe_i32 s12, s8, 0x40004\n s_add_u32 s11, s11, s12\n"
                  "v_mov_b32 v5, s10\n v_mov_b32 v6, s11";
  check(B, {{0xfffffff0u, 0x20}}, {{0x10, 1 + 0xffffffffu}});
  check(B, {{0x00000070u, 0x20}}, {{0x90, 7}});
}

TEST_P(Inst, ScalarBitScan) {
  std::string B = g11() ? "v_readfirstlane_b32 s8, v1\n s_clz_i32_u32 s9, s8\n s_ctz_i32_b32 s10, s8\n"
                          "v_mov_b32 v5, s9\n v_mov_b32 v6, s10"
                        : "v_readfirstlane_b32 s8, v1\n s_flbit_i32_b32 s9, s8\n s_ff1_i32_b32 s10, s8\n"
                          "v_mov_b32 v5, s9\n v_mov_b32 v6, s10";
  check(B, {{0x00f00000u}}, {{8, 20}});
  check(B, {{0}}, {{0xffffffffu, 0xffffffffu}});
}

TEST_P(Inst, DivFixupSpecials) {
  // Quotient fix-up: 0/0 -> NaN, x/0 -> inf, x/inf -> 0.
  check("v_div_fixup_f32 v5, v1, v2, v3",
        {{f2u(1.0f), 0, 0}, {f2u(1.0f), 0, f2u(-2.0f)}, {f2u(1.0f), f2u(INFINITY), f2u(3.0f)},
         {f2u(2.5f), f2u(-2.0f), f2u(5.0f)}},
        {{0x7fc00000u, 0}, {f2u(-INFINITY), 0}, {0, 0}, {f2u(-2.5f), 0}}, "", false);
}

TEST_P(Inst, DivScaleF32NearMax) {
  // 1 / FLT_MAX (a denormal quotient, denormal reciprocal): the denominator
  // is scaled down by 2^64, the numerator kept (VCC set, so that v_div_fmas
  // scales back). 1e-33 / 1e31 (the quotient underflows): the numerator is
  // scaled up, the denominator kept finite.
  std::string Vcc = g11() ? "vcc_lo" : "vcc";
  check("v_div_scale_f32 v5, " + Vcc + ", v1, v1, v2\n v_div_scale_f32 v6, " + Vcc + ", v2, v1, v2",
        {{0x7f7fffffu, f2u(1.0f)}, {0x69d33826u, 0x08bf510au}},
        {{0x5f7fffffu, f2u(1.0f)}, {0x69d33826u, 0x28bf510au}});
}

TEST_P(Inst, DivScaleF32ManualCases) {
  // The CDNA3/RDNA3 guides' other cases, as printed (S0 = denominator in
  // v5, = numerator in v6; v1 = denominator, v2 = numerator):
  // exponent gap >= 96 (2^100 / 1): only the denominator is scaled, by
  // 2^64; numerator exponent <= 23 (2^-110 / 1): S0 is scaled up by 2^64
  // whichever operand it is; a zero operand gives NaN.
  std::string Vcc = g11() ? "vcc_lo" : "vcc";
  check("v_div_scale_f32 v5, " + Vcc + ", v1, v1, v2\n v_div_scale_f32 v6, " + Vcc + ", v2, v1, v2",
        {{f2u(1.0f), 0x71800000u}, {f2u(1.0f), 0x08800000u}, {0, f2u(1.0f)}, {f2u(2.0f), f2u(3.0f)}},
        {{0x5f800000u, 0x71800000u}, {0x5f800000u, 0x28800000u}, {0x7fc00000u, 0x7fc00000u},
         {f2u(2.0f), f2u(3.0f)}});
}

TEST_P(Inst, DivScaleF64NearMax) {
  // 1 / DBL_MAX: the reciprocal of the denominator and the quotient are
  // both denormal; the denominator is scaled down by 2^128 (VCC set, for
  // v_div_fmas to scale the quotient back), not up to infinity.
  std::string Vcc = g11() ? "vcc_lo" : "vcc";
  check("v_div_scale_f64 v[16:17], " + Vcc + ", v[12:13], v[12:13], v[14:15]\n v_mov_b32 v5, v16\n v_mov_b32 v6, v17",
        {{0xffffffffu, 0x7fefffffu, 0, 0x3ff00000u}}, {{0xffffffffu, 0x77efffffu}});
}

TEST_P(Inst, RcpRsqSqrt) {
  check("v_rcp_f32 v5, v1\n v_sqrt_f32 v6, v2", {{0, f2u(-1.0f)}, {f2u(4.0f), f2u(16.0f)}, {0x80000000u, 0x80000000u}},
        {{f2u(INFINITY), 0x7fc00000u}, {f2u(0.25f), f2u(4.0f)}, {f2u(-INFINITY), 0x80000000u}});
}

TEST_P(Inst, SinCosRevolutions) {
  Kernel K;
  K.Body = "v_sin_f32 v5, v1\n v_cos_f32 v6, v1";
  std::vector<Out> Got;
  auto R = exec(K, {{f2u(0.25f)}, {f2u(0.5f)}, {f2u(0.0f)}}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  EXPECT_NEAR(u2f(Got[0][0]), 1.0f, 1e-6);
  EXPECT_NEAR(u2f(Got[0][1]), 0.0f, 1e-6);
  EXPECT_NEAR(u2f(Got[1][1]), -1.0f, 1e-6);
  EXPECT_EQ(u2f(Got[2][0]), 0.0f);
}

TEST_P(Inst, PackedHalf) {
  // v_pk_add_f16 with op_sel swapping src1's halves; v_pk_mul_lo_u16 wraps.
  check("v_pk_add_f16 v5, v1, v2 op_sel:[0,1] op_sel_hi:[1,0]\n v_pk_mul_lo_u16 v6, v3, v4",
        {{0x40003c00u, 0x44004200u, 0x00030100u, 0x00050100u}}, // v1 = (1.0, 2.0), v2 = (3.0, 4.0)
        {{0x45004500u, 0x000f0000u}}); // lo: 1+4, hi: 2+3
}

TEST_P(Inst, Dpp) {
  // row_shr:1 with bound_ctrl: lane 0 of each row reads 0.
  std::string B = g11() ? "v_mov_b32_dpp v5, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1"
                        : "v_mov_b32_dpp v5, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0";
  std::vector<Out> Expect;
  for (unsigned L = 0; L < 20; ++L)
    Expect.push_back({L % 16 ? L - 1 : 0, 0});
  check(B, {}, Expect);
}

TEST_P(Inst, Lds) {
  Kernel K;
  K.Lds = 1024;
  K.Body = g11() ? "v_lshlrev_b32 v7, 2, v0\n ds_store_b32 v7, v1 offset:16\n s_waitcnt lgkmcnt(0)\n"
                   "s_barrier\n v_xor_b32 v8, 4, v7\n ds_load_b32 v5, v8 offset:16\n"
                   "ds_add_rtn_u32 v6, v7, v2 offset:16\n s_waitcnt lgkmcnt(0)"
                 : "v_lshlrev_b32 v7, 2, v0\n ds_write_b32 v7, v1 offset:16\n s_waitcnt lgkmcnt(0)\n"
                   "s_barrier\n v_xor_b32 v8, 4, v7\n ds_read_b32 v5, v8 offset:16\n"
                   "ds_add_rtn_u32 v6, v7, v2 offset:16\n s_waitcnt lgkmcnt(0)";
  std::vector<Out> Got;
  std::vector<Lane> In;
  for (uint32_t L = 0; L < 8; ++L)
    In.push_back({100 + L, 1000, 0, 0});
  auto R = exec(K, In, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  for (uint32_t L = 0; L < 8; ++L) {
    EXPECT_EQ(Got[L][0], 100 + (L ^ 1)) << L;
    EXPECT_EQ(Got[L][1], 100 + L) << L;
  }
}

TEST_P(Inst, SdwaSelects) {
  if (g11())
    GTEST_SKIP() << "SDWA is GFX9 only";
  // dst = WORD_1 of (BYTE_1(src0) + sext WORD_1(src1)), low half preserved.
  check("v_mov_b32 v5, v3\n v_add_u32_sdwa v5, v1, sext(v2) dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
        "src0_sel:BYTE_1 src1_sel:WORD_1",
        {{0x0000ff00u, 0xfffe0000u, 0x1234abcdu}, {0x00000500u, 0x00070000u, 0x11112222u}},
        {{0x00fdabcdu, 0}, {0x000c2222u, 0}});
}

TEST_P(Inst, DppBroadcastsAndShares) {
  std::vector<Out> Expect;
  if (g11()) {
    // row_share:3 (every lane of a row reads lane 3 of the row), row_xmask:1.
    for (unsigned L = 0; L < 32; ++L)
      Expect.push_back({(L & ~15u) + 3, (L & ~15u) | ((L & 15) ^ 1)});
    check("v_mov_b32_dpp v5, v0 row_share:3 row_mask:0xf bank_mask:0xf\n"
          "v_mov_b32_dpp v6, v0 row_xmask:1 row_mask:0xf bank_mask:0xf",
          {}, Expect);
    return;
  }
  // row_bcast:15 (row r reads lane 16r-1; row 0 keeps its value) and
  // wave_shr:1 (lane 0 out of range: bound_ctrl writes 0).
  for (unsigned L = 0; L < 64; ++L)
    Expect.push_back({L < 16 ? 100u : (L & ~15u) - 1, L ? L - 1 : 0});
  check("v_mov_b32 v5, 100\n v_mov_b32_dpp v5, v0 row_bcast:15 row_mask:0xe bank_mask:0xf\n"
        "v_mov_b32_dpp v6, v0 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0",
        {}, Expect);
}

TEST_P(Inst, Permlane16) {
  if (!g11())
    GTEST_SKIP() << "v_permlane16 is RDNA only";
  // Selects 0x76543210 / 0xfedcba98 reversed: lane i of a row reads 15-i.
  std::vector<Out> Expect;
  for (unsigned L = 0; L < 32; ++L)
    Expect.push_back({(L & ~15u) + 15 - (L & 15), (L ^ 16)});
  check("s_mov_b32 s8, 0x89abcdef\n s_mov_b32 s9, 0x01234567\n v_permlane16_b32 v5, v0, s8, s9\n"
        "s_mov_b32 s8, 0x76543210\n s_mov_b32 s9, 0xfedcba98\n v_permlanex16_b32 v6, v0, s8, s9",
        {}, Expect);
}

TEST_P(Inst, LdsRead2St64AndPermute) {
  Kernel K;
  K.Lds = 4096;
  bool G11 = g11();
  K.Body = std::string(G11 ? "v_lshlrev_b32 v7, 2, v0\n v_add_nc_u32 v8, 0x1000, v0\n"
                             "ds_store_2addr_stride64_b32 v7, v0, v8 offset0:1 offset1:2\n"
                             "s_waitcnt lgkmcnt(0)\n"
                             "ds_load_2addr_stride64_b32 v[12:13], v7 offset0:2 offset1:1\n"
                           : "v_lshlrev_b32 v7, 2, v0\n v_add_u32 v8, 0x1000, v0\n"
                             "ds_write2st64_b32 v7, v0, v8 offset0:1 offset1:2\n"
                             "s_waitcnt lgkmcnt(0)\n"
                             "ds_read2st64_b32 v[12:13], v7 offset0:2 offset1:1\n") +
           "s_waitcnt lgkmcnt(0)\n v_sub_u32 v5, v12, v13\n"
           // ds_permute: lane i sends its id to lane (i+1) mod wave.
           "v_add_u32 v9, 1, v0\n v_lshlrev_b32 v9, 2, v9\n ds_permute_b32 v6, v9, v0\n s_waitcnt lgkmcnt(0)";
  if (G11) {
    size_t P;
    while ((P = K.Body.find("v_add_u32 ")) != std::string::npos)
      K.Body.replace(P, 10, "v_add_nc_u32 ");
    while ((P = K.Body.find("v_sub_u32 ")) != std::string::npos)
      K.Body.replace(P, 10, "v_sub_nc_u32 ");
  }
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  unsigned W = waveSize(G);
  for (unsigned L = 0; L < W; ++L) {
    EXPECT_EQ(Got[L][0], 0x1000u) << L;
    EXPECT_EQ(Got[L][1], (L + W - 1) % W) << L;
  }
}

TEST_P(Inst, LdsCompareSwap) {
  Kernel K;
  K.Lds = 256;
  // Every lane compares LDS[0] (initially 0) with its id and stores id+1:
  // lanes run in order, so the chain 0->1->...->W-1->W completes; the
  // returned values are each lane's pre-op value.
  K.Body = g11() ? "v_mov_b32 v7, 0\n ds_store_b32 v7, v7\n v_add_nc_u32 v8, 1, v0\n"
                   "ds_cmpstore_rtn_b32 v5, v7, v8, v0\n s_waitcnt lgkmcnt(0)"
                 : "v_mov_b32 v7, 0\n ds_write_b32 v7, v7\n v_add_u32 v8, 1, v0\n"
                   "ds_cmpst_rtn_b32 v5, v7, v0, v8\n s_waitcnt lgkmcnt(0)";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  for (unsigned L = 0; L < waveSize(G); ++L)
    EXPECT_EQ(Got[L][0], L) << L;
}

TEST_P(Inst, CmpxAndSaveexec) {
  // Lanes with v1 > 10 stay active; the others keep v5 = 7.
  std::string B = g11() ? "v_mov_b32 v5, 7\n s_mov_b32 s20, exec_lo\n v_cmpx_lt_u32_e32 10, v1\n"
                          "v_mov_b32 v5, v1\n s_mov_b32 exec_lo, s20\n v_mov_b32 v6, 1"
                        : "v_mov_b32 v5, 7\n s_mov_b64 s[20:21], exec\n v_cmpx_lt_u32_e32 vcc, 10, v1\n"
                          "v_mov_b32 v5, v1\n s_mov_b64 exec, s[20:21]\n v_mov_b32 v6, 1";
  check(B, {{11}, {3}, {10}, {200}}, {{11, 1}, {7, 1}, {7, 1}, {200, 1}});
  std::string S = g11() ? "v_cmp_gt_u32_e32 vcc_lo, 5, v1\n v_mov_b32 v5, 1\n s_and_saveexec_b32 s20, vcc_lo\n"
                          "v_mov_b32 v5, 2\n s_or_b32 exec_lo, exec_lo, s20\n v_mov_b32 v6, s20"
                        : "v_cmp_gt_u32_e32 vcc, 5, v1\n v_mov_b32 v5, 1\n s_and_saveexec_b64 s[20:21], vcc\n"
                          "v_mov_b32 v5, 2\n s_or_b64 exec, exec, s[20:21]\n v_mov_b32 v6, s20";
  check(S, {{1}, {9}}, {{2, 0xffffffffu}, {1, 0xffffffffu}});
}

TEST_P(Inst, ReadWriteLane) {
  check("v_readlane_b32 s8, v1, 2\n v_mov_b32 v5, s8\n v_mov_b32 v6, 0\n s_mov_b32 s9, 77\n"
        "v_writelane_b32 v6, s9, 1",
        {{10}, {11}, {12}, {13}}, {{12, 0}, {12, 77}, {12, 0}});
}

TEST_P(Inst, ModeRegisterRounding) {
  // s_setreg MODE.round32 = toward zero (3): 1 + 2^-24 + 2^-25 rounds down.
  std::string B = "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\n v_add_f32 v5, v1, v2\n"
                  "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0\n v_add_f32 v6, v1, v2";
  check(B, {{f2u(1.0f), f2u(1.7881393e-07f)}}, {{0x3f800001u, 0x3f800002u}}); // 1.5 ulp: RTZ vs RNE
  std::string G = "s_getreg_b32 s8, hwreg(HW_REG_MODE, 4, 4)\n v_mov_b32 v5, s8";
  check(G, {}, {{0xf, 0}}, "  .amdhsa_float_denorm_mode_32 3\n  .amdhsa_float_denorm_mode_16_64 3\n", false);
}

TEST_P(Inst, CallAndReturn) {
  // s_getpc + s_swappc into a function that doubles v1 and returns.
  std::string B = g11() ? "s_getpc_b64 s[8:9]\n s_add_u32 s8, s8, 16\n s_addc_u32 s9, s9, 0\n"
                          "s_swappc_b64 s[30:31], s[8:9]\n s_branch 2\n"
                          "v_add_nc_u32 v5, v1, v1\n s_setpc_b64 s[30:31]\n v_add_nc_u32 v6, 1, v5"
                        : "s_getpc_b64 s[8:9]\n s_add_u32 s8, s8, 16\n s_addc_u32 s9, s9, 0\n"
                          "s_swappc_b64 s[30:31], s[8:9]\n s_branch 2\n"
                          "v_add_u32 v5, v1, v1\n s_setpc_b64 s[30:31]\n v_add_u32 v6, 1, v5";
  check(B, {{21}}, {{42, 43}});
}

TEST_P(Inst, Scalar64) {
  check("v_readfirstlane_b32 s8, v1\n v_readfirstlane_b32 s9, v2\n s_lshl_b64 s[10:11], s[8:9], 12\n"
        "s_bfe_u64 s[12:13], s[8:9], 0x200018\n s_add_u32 s10, s10, s12\n v_mov_b32 v5, s10\n v_mov_b32 v6, s11",
        {{0x89abcdefu, 0x01234567u}}, {{0xe0245789u, 0x3456789au}});
}

TEST_P(Inst, HalfRoundingAndMix) {
  check("v_cvt_pkrtz_f16_f32 v5, v1, v2\n v_cvt_f16_f32 v6, v1",
        {{f2u(1.0f + 3.0f / 4096), f2u(-65520.0f)}}, {{0xfbff3c00u, 0x3c01}}); // 0.75 ulp: RTZ vs RNE
}

TEST_P(Inst, FractFrexpLdexp) {
  check("v_fract_f32 v5, v1\n v_frexp_exp_i32_f32 v6, v1", {{f2u(-1.25f)}, {f2u(INFINITY)}, {f2u(48.0f)}},
        {{f2u(0.75f), 1}, {0x7fc00000u, 0}, {0, 6}});
  check("v_rndne_f32 v5, v1\n v_ldexp_f32 v6, v1, v2", {{f2u(2.5f), 3}, {f2u(-3.5f), uint32_t(-200)}},
        {{f2u(2.0f), f2u(20.0f)}, {f2u(-4.0f), 0x80000000u}});
}

TEST_P(Inst, PackedF32AndAgprs) {
  if (g11())
    GTEST_SKIP() << "v_pk_fma_f32 and AGPRs are CDNA only";
  Kernel K;
  K.Body = "v_mov_b32 v8, v1\n v_mov_b32 v9, v2\n v_mov_b32 v10, v3\n v_mov_b32 v11, v4\n"
           "v_pk_fma_f32 v[18:19], v[8:9], v[10:11], v[8:9]\n v_accvgpr_write_b32 a3, v18\n"
           "v_accvgpr_read_b32 v5, a3\n v_mov_b32 v6, v19";
  std::vector<Out> Got;
  // Without AGPRs in the allocation, naming a3 faults.
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
  K.Agprs = 8;
  R = exec(K, {{f2u(2.0f), f2u(3.0f), f2u(0.5f), f2u(-1.0f)}}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  EXPECT_EQ(Got[0][0], f2u(3.0f));  // 2 * 0.5 + 2
  EXPECT_EQ(Got[0][1], f2u(0.0f));  // 3 * -1 + 3
}

TEST_P(Inst, PackedF32InlineConstant) {
  if (g11())
    GTEST_SKIP() << "v_pk_add_f32 is CDNA only";
  // An inline constant of a packed-f32 op is the f32 value in the low dword
  // (op_sel_hi:[1,0] makes both halves read it; LLVM emits this form), not
  // the f64 encoding, whose low dword is 0.
  check("v_mov_b32 v8, v1\n v_mov_b32 v9, v2\n v_pk_add_f32 v[8:9], v[8:9], 1.0 op_sel_hi:[1,0]\n"
        "v_pk_mul_f32 v[8:9], v[8:9], -2.0 op_sel_hi:[1,0]\n v_mov_b32 v5, v8\n v_mov_b32 v6, v9",
        {{f2u(2.0f), f2u(-0.5f)}}, {{f2u(-6.0f), f2u(-1.0f)}});
}

TEST_P(Inst, BufferIndexedOutOfRange) {
  // A V# over the output buffer with num_records = 3 dwords: index 0..2
  // load, beyond reads 0 (no fault).
  std::string B = g11() ? "s_mov_b32 s12, s6\n s_and_b32 s13, s7, 0xffff\n s_or_b32 s13, s13, 0x40000\n"
                          "s_mov_b32 s14, 3\n s_mov_b32 s15, 0x31014000\n v_mov_b32 v7, 0x1234\n"
                          "v_lshlrev_b32 v8, 2, v0\n buffer_store_b32 v7, v8, s[12:15], 0 offen\n"
                          "s_waitcnt vmcnt(0)\n buffer_load_b32 v5, v0, s[12:15], 0 idxen\n s_waitcnt vmcnt(0)"
                        : "s_mov_b32 s12, s6\n s_and_b32 s13, s7, 0xffff\n s_or_b32 s13, s13, 0x40000\n"
                          "s_mov_b32 s14, 3\n s_mov_b32 s15, 0x27000\n v_mov_b32 v7, 0x1234\n"
                          "v_lshlrev_b32 v8, 2, v0\n buffer_store_dword v7, v8, s[12:15], 0 offen\n"
                          "s_waitcnt vmcnt(0)\n buffer_load_dword v5, v0, s[12:15], 0 idxen\n s_waitcnt vmcnt(0)";
  check(B, {}, {{0x1234, 0}, {0x1234, 0}, {0x1234, 0}, {0, 0}, {0, 0}}, "", false);
}

TEST_P(Inst, D16Loads) {
  // global_load_short_d16_hi keeps the low half; ubyte_d16 keeps the high.
  std::string B = g11() ? "v_mov_b32 v5, 0x1111\n v_mov_b32 v6, 0x22220000\n v_mov_b32 v12, 0\n"
                          "global_load_d16_hi_b16 v5, v12, s[4:5] offset:2\n"
                          "global_load_d16_u8 v6, v12, s[4:5] offset:1\n s_waitcnt vmcnt(0)"
                        : "v_mov_b32 v5, 0x1111\n v_mov_b32 v6, 0x22220000\n v_mov_b32 v12, 0\n"
                          "global_load_short_d16_hi v5, v12, s[4:5] offset:2\n"
                          "global_load_ubyte_d16 v6, v12, s[4:5] offset:1\n s_waitcnt vmcnt(0)";
  check(B, {{0xa1b2c3d4u}}, {{0xa1b21111u, 0x222200c3u}});
}

TEST_P(Inst, ScalarBufferLoad) {
  // s_buffer_load through a V# on the input buffer; dword 3 is past
  // num_records (12 bytes) and reads 0.
  std::string B = g11() ? "s_mov_b32 s12, s4\n s_and_b32 s13, s5, 0xffff\n s_mov_b32 s14, 12\n s_mov_b32 s15, 0\n"
                          "s_buffer_load_b128 s[16:19], s[12:15], 0x0\n s_waitcnt lgkmcnt(0)\n"
                          "s_add_u32 s16, s16, s19\n v_mov_b32 v5, s16\n v_mov_b32 v6, s18"
                        : "s_mov_b32 s12, s4\n s_and_b32 s13, s5, 0xffff\n s_mov_b32 s14, 12\n s_mov_b32 s15, 0\n"
                          "s_buffer_load_dwordx4 s[16:19], s[12:15], 0x0\n s_waitcnt lgkmcnt(0)\n"
                          "s_add_u32 s16, s16, s19\n v_mov_b32 v5, s16\n v_mov_b32 v6, s18";
  check(B, {{5, 6, 7, 8}}, {{5, 7}});
}

TEST_P(Inst, FlatPrivateAndSharedApertures) {
  // Flat addresses built from src_private_base / src_shared_base reach the
  // lane's private memory and LDS.
  Kernel K;
  K.Lds = 256;
  K.Directives = "  .amdhsa_private_segment_fixed_size 64\n" +
                 std::string(g11() || G == Gfx::Gfx942 ? "  .amdhsa_enable_private_segment 1\n" : "");
  std::string St = g11() ? "flat_store_b32" : "flat_store_dword", Ld = g11() ? "flat_load_b32" : "flat_load_dword";
  K.Body = "s_mov_b64 s[8:9], src_private_base\n v_mov_b32 v12, 16\n v_mov_b32 v13, s9\n" + St +
           " v[12:13], v1\n s_mov_b64 s[8:9], src_shared_base\n v_lshlrev_b32 v14, 2, v0\n v_mov_b32 v15, s9\n" +
           St + " v[14:15], v2\n s_waitcnt vmcnt(0) lgkmcnt(0)\n" + Ld + " v5, v[12:13]\n" + Ld +
           " v6, v[14:15]\n s_waitcnt vmcnt(0) lgkmcnt(0)";
  std::vector<Out> Got;
  auto R = exec(K, {{11, 21}, {12, 22}, {13, 23}}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  for (uint32_t L = 0; L < 3; ++L) {
    EXPECT_EQ(Got[L][0], 11 + L) << L; // each lane has its own private word 16
    EXPECT_EQ(Got[L][1], 21 + L) << L;
  }
}

TEST_P(Inst, RelativeVgprIndexing) {
  if (!g11())
    GTEST_SKIP() << "v_movrels/v_movreld are GFX10+ (GFX9 uses GPR index mode, not modelled)";
  // v_movrels: v5 = v[1 + M0]; v_movreld: v[5 + M0] = v1 with M0 = 1 -> v6.
  check("s_mov_b32 m0, 2\n v_movrels_b32 v5, v1\n s_mov_b32 m0, 1\n v_movreld_b32 v5, v1",
        {{10, 20, 30, 40}}, {{30, 10}});
  Kernel K;
  K.Body = "s_mov_b32 m0, 100\n v_movrels_b32 v5, v1";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
}

TEST_P(Inst, GprIndexMode) {
  if (g11())
    GTEST_SKIP() << "VGPR index mode is GFX9";
  // Index 2 on src0: v5 = v[1 + 2]; then on the destination: v[4 + 2] = v1.
  check("s_mov_b32 s8, 2\n s_set_gpr_idx_on s8, gpr_idx(SRC0)\n v_mov_b32 v5, v1\n s_set_gpr_idx_off\n"
        "s_set_gpr_idx_on s8, gpr_idx(DST)\n v_mov_b32 v4, v1\n s_set_gpr_idx_off",
        {{10, 20, 30, 40}}, {{30, 10}});
}

TEST_P(Inst, Clocks) {
  // Real-time counter (100 MHz) moves forward; shader cycle counters too.
  std::string B = g11() ? "s_sendmsg_rtn_b64 s[8:9], sendmsg(MSG_RTN_GET_REALTIME)\n s_sleep 1\n"
                          "s_sendmsg_rtn_b64 s[10:11], sendmsg(MSG_RTN_GET_REALTIME)\n"
                          "s_getreg_b32 s12, hwreg(HW_REG_SHADER_CYCLES, 0, 20)\n"
                          "s_getreg_b32 s13, hwreg(HW_REG_SHADER_CYCLES, 0, 20)\n"
                        : "s_memrealtime s[8:9]\n s_memrealtime s[10:11]\n s_memtime s[12:13]\n"
                          "s_memtime s[14:15]\n s_waitcnt lgkmcnt(0)\n s_mov_b32 s13, s14\n";
  B += "s_sub_u32 s10, s10, s8\n s_sub_u32 s12, s13, s12\n s_cmp_ge_u32 s10, 0\n"
       "v_mov_b32 v5, s10\n v_mov_b32 v6, s12";
  Kernel K;
  K.Body = B;
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  EXPECT_LT(Got[0][0], 100000000u); // under a second apart
  EXPECT_GT(Got[0][1], 0u);         // the cycle counter advanced
}

TEST_P(Inst, WideLdsAnd64BitAtomics) {
  // ds_write_b128 / ds_read_b96, then a 64-bit LDS add returning the old
  // value, then a 64-bit global cmpswap with return.
  Kernel K;
  K.Lds = 2048;
  bool G11 = g11();
  K.Body = std::string("v_lshlrev_b32 v7, 4, v0\n") +
           (G11 ? "ds_store_b128 v7, v[1:4]\n s_waitcnt lgkmcnt(0)\n ds_load_b96 v[20:22], v7\n"
                  "v_mov_b32 v24, 5\n v_mov_b32 v25, 1\n ds_add_rtn_u64 v[26:27], v7, v[24:25]\n"
                  "s_waitcnt lgkmcnt(0)\n ds_load_b64 v[28:29], v7\n s_waitcnt lgkmcnt(0)\n"
                : "ds_write_b128 v7, v[12:15]\n s_waitcnt lgkmcnt(0)\n ds_read_b96 v[20:22], v7\n"
                  "v_mov_b32 v24, 5\n v_mov_b32 v25, 1\n ds_add_rtn_u64 v[26:27], v7, v[24:25]\n"
                  "s_waitcnt lgkmcnt(0)\n ds_read_b64 v[28:29], v7\n s_waitcnt lgkmcnt(0)\n") +
           "v_add_" + std::string(G11 ? "nc_u32" : "u32") + " v5, v22, v26\n v_mov_b32 v6, v29\n";
  if (G11) {
    size_t P = K.Body.find("ds_store_b128 v7, v[1:4]");
    K.Body.replace(P, 24, "ds_store_b128 v7, v[12:15]");
  }
  std::vector<Out> Got;
  auto R = exec(K, {{1, 2, 3, 4}, {0xffffffffu, 0, 7, 9}}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  // lane 0: v22 = 3, old 64-bit = {1, 2}: v5 = 3 + 1; new high = 2 + 1 (+0 carry).
  EXPECT_EQ(Got[0][0], 4u);
  EXPECT_EQ(Got[0][1], 3u);
  // lane 1: old = {0xffffffff, 0}; +5 carries into the high dword.
  EXPECT_EQ(Got[1][0], 7u + 0xffffffffu);
  EXPECT_EQ(Got[1][1], 2u);
}

TEST_P(Inst, GlobalCmpswap64Returns) {
  // out[lane] (8 bytes) starts 0: compare with 0 succeeds and stores v[1:2];
  // the returned old value is 0; a second cmpswap with a stale compare fails
  // and returns the stored value.
  std::string B = g11() ? "v_lshlrev_b32 v7, 3, v0\n v_mov_b32 v8, v1\n v_mov_b32 v9, v2\n v_mov_b32 v10, 0\n"
                          "v_mov_b32 v11, 0\n global_atomic_cmpswap_b64 v[20:21], v7, v[8:11], s[6:7] glc\n"
                          "s_waitcnt vmcnt(0)\n global_atomic_cmpswap_b64 v[22:23], v7, v[8:11], s[6:7] glc\n"
                          "s_waitcnt vmcnt(0)\n v_add_nc_u32 v5, v20, v22\n v_add_nc_u32 v6, v21, v23"
                        : "v_lshlrev_b32 v7, 3, v0\n v_mov_b32 v8, v1\n v_mov_b32 v9, v2\n v_mov_b32 v10, 0\n"
                          "v_mov_b32 v11, 0\n global_atomic_cmpswap_x2 v[20:21], v7, v[8:11], s[6:7] " +
                              std::string(G == Gfx::Gfx942 ? "sc0" : "glc") +
                              "\n s_waitcnt vmcnt(0)\n global_atomic_cmpswap_x2 v[22:23], v7, v[8:11], s[6:7] " +
                              std::string(G == Gfx::Gfx942 ? "sc0" : "glc") +
                              "\n s_waitcnt vmcnt(0)\n v_add_u32 v5, v20, v22\n v_add_u32 v6, v21, v23";
  check(B, {{0x11, 0x22}, {0x33, 0x44}}, {{0x11, 0x22}, {0x33, 0x44}});
}

TEST_P(Inst, PackedBf16Atomics) {
  if (G != Gfx::Gfx942)
    GTEST_SKIP() << "global/ds pk_add_bf16 are CDNA3 instructions";
  // LDS word = v1; ds_pk_add_rtn_bf16 adds v2 and returns the old word;
  // ds_pk_add_bf16 adds v2 again. Lanes: (1.0, 2.0) + (1.0, -0.5) twice;
  // (bf16 max, 1.0) + (bf16 max, 2^-8): overflow to inf, and 1 + 2^-8 is
  // a tie that stays 1.0 (even); a NaN sum is the canonical 0x7fc0.
  Kernel K;
  K.Lds = 1024;
  K.Body = "v_lshlrev_b32 v7, 2, v0\n ds_write_b32 v7, v1\n s_waitcnt lgkmcnt(0)\n"
           "ds_pk_add_rtn_bf16 v5, v7, v2\n s_waitcnt lgkmcnt(0)\n ds_pk_add_bf16 v7, v2\n"
           "s_waitcnt lgkmcnt(0)\n ds_read_b32 v6, v7\n s_waitcnt lgkmcnt(0)";
  std::vector<Out> Got;
  auto R = exec(K, {{0x40003f80u, 0xbf003f80u}, {0x3f807f7fu, 0x3b807f7fu}, {0x7fa13f80u, 0x3f803f80u}}, Got);
  ASSERT_EQ(R.Status, DispatchResult::Ok) << R.Message;
  EXPECT_EQ(Got[0][0], 0x40003f80u);
  EXPECT_EQ(Got[0][1], 0x3f804040u); // (1+1+1, 2-0.5-0.5)
  EXPECT_EQ(Got[1][0], 0x3f807f7fu);
  EXPECT_EQ(Got[1][1], 0x3f807f80u);
  EXPECT_EQ(Got[2][1], 0x7fc04040u);
  // The global form: out[lane] starts 0, gets v1 added, returns the old 0.
  check("v_lshlrev_b32 v7, 3, v0\n global_atomic_pk_add_bf16 v5, v7, v1, s[6:7] sc0\n s_waitcnt vmcnt(0)\n"
        "global_load_dword v6, v7, s[6:7]\n s_waitcnt vmcnt(0)",
        {{0x40003f80u}, {0xc0803f00u}}, {{0, 0x40003f80u}, {0, 0xc0803f00u}});
}

TEST_P(Inst, Vopd) {
  if (!g11())
    GTEST_SKIP() << "VOPD is RDNA3 only";
  // Both halves read before either writes: X reads v2 which Y overwrites.
  check("v_dual_add_f32 v5, v1, v2 :: v_dual_mov_b32 v2, 0", {{f2u(1.5f), f2u(2.0f)}}, {{f2u(3.5f), 0}}, "", false);
}

//===----------------------------------------------------------------------===//
// Strictness: failures are reported, never skipped.
//===----------------------------------------------------------------------===//

TEST_P(Inst, UnknownOpcodeIsUnsupported) {
  Kernel K;
  K.Body = "v_mqsad_u32_u8 v[20:23], v[2:3], v3, v[24:27]";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::Unsupported);
  EXPECT_NE(R.Message.find("v_mqsad_u32_u8"), std::string::npos) << R.Message;
  EXPECT_NE(R.Message.find(gfxName(G)), std::string::npos) << R.Message;
  EXPECT_NE(R.Message.find("kernel k"), std::string::npos) << R.Message;
}

TEST_P(Inst, RegisterBeyondAllocationFaults) {
  Kernel K;
  K.Body = "v_mov_b32 v40, 0";
  K.Vgprs = 16; // v40 is beyond the descriptor's granules
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
  EXPECT_NE(R.Message.find("allocation"), std::string::npos) << R.Message;
}

TEST_P(Inst, GlobalOutOfBoundsFaults) {
  Kernel K;
  K.Body = g11() ? "v_mov_b32 v12, 0\n global_store_b32 v12, v0, s[6:7] offset:4000"
                 : "v_mov_b32 v12, 0\n global_store_dword v12, v0, s[6:7] offset:4000";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
  EXPECT_NE(R.Message.find("0x"), std::string::npos) << R.Message;
}

TEST_P(Inst, LdsOutOfBoundsFaults) {
  Kernel K;
  K.Lds = 256;
  K.Body = g11() ? "v_mov_b32 v12, 256\n ds_store_b32 v12, v0" : "v_mov_b32 v12, 256\n ds_write_b32 v12, v0";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
  EXPECT_NE(R.Message.find("LDS"), std::string::npos) << R.Message;
}

TEST_P(Inst, MisalignedAtomicFaults) {
  Kernel K;
  K.Body = g11() ? "v_mov_b32 v12, 2\n global_atomic_add_u32 v12, v0, s[6:7]"
                 : "v_mov_b32 v12, 2\n global_atomic_add v12, v0, s[6:7]";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::MemoryFault) << R.Message;
  EXPECT_NE(R.Message.find("misaligned"), std::string::npos) << R.Message;
}

TEST_P(Inst, TrapIsReported) {
  Kernel K;
  K.Body = "s_trap 2";
  std::vector<Out> Got;
  auto R = exec(K, {}, Got);
  EXPECT_EQ(R.Status, DispatchResult::Trap) << R.Message;
}

INSTANTIATE_TEST_SUITE_P(Targets, Inst, ::testing::Values(Gfx::Gfx942, Gfx::Gfx1100, Gfx::Gfx90a),
                         [](const ::testing::TestParamInfo<Gfx> &I) {
                           return std::string(gfxName(I.param));
                         });

} // namespace
