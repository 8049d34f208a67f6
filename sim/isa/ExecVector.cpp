//===- sim/isa/ExecVector.cpp - VALU driver, integer ops, lanes, DPP/SDWA -===//
/// \file
/// Runs VOP1/VOP2/VOP3/VOPC/VOP3P instructions: reads each active lane's
/// sources (through DPP lane selection or SDWA sub-dword selects), computes
/// the lane (integer ops here, float ops in ExecFloat.cpp) and writes under
/// EXEC. Cross-lane ops (readlane, writelane, readfirstlane, permlane,
/// compares writing masks) are handled whole-wave.
//===----------------------------------------------------------------------===//
#include "sim/isa/Exec.h"

#include <bit>

namespace ferry::sim {

namespace {

struct Shape {
  uint8_t NDst = 1;
  uint8_t Src64 = 0;    // bit k: source k is 64 bits wide
  uint8_t DstBits = 32;
  bool MaskSrc2 = false; // source 2 is a lane mask (carry in / select)
  uint8_t Src16 = 0;     // bit k: source k is a 16-bit operand
  bool Packed16 = false; // VOP3P with 16-bit halves
};

Shape shapeOf(const Inst &I) {
  Shape S;
  switch (I.Opcode) {
  case Op::v_add_co_u32: case Op::v_sub_co_u32: case Op::v_subrev_co_u32:
    S.NDst = 2; break;
  case Op::v_addc_co_u32: case Op::v_subb_co_u32: case Op::v_subbrev_co_u32:
    S.NDst = 2; S.MaskSrc2 = true; break;
  case Op::v_cndmask_b32:
    S.MaskSrc2 = true; break;
  case Op::v_cndmask_b16:
    S.MaskSrc2 = true; S.DstBits = 16; break;
  case Op::v_div_scale_f32:
    S.NDst = 2; break;
  case Op::v_div_scale_f64:
    S.NDst = 2; S.Src64 = 7; S.DstBits = 64; break;
  case Op::v_mad_u64_u32: case Op::v_mad_i64_i32:
    S.NDst = 2; S.Src64 = 4; S.DstBits = 64; break;
  case Op::v_fma_f64: case Op::v_div_fmas_f64: case Op::v_div_fixup_f64:
  case Op::v_add_f64: case Op::v_mul_f64: case Op::v_min_f64: case Op::v_max_f64:
  case Op::v_fmac_f64: case Op::v_pk_fma_f32: case Op::v_pk_mul_f32: case Op::v_pk_add_f32:
  case Op::v_pk_mov_b32:
    S.Src64 = 7; S.DstBits = 64; break;
  case Op::v_ldexp_f64: case Op::v_trig_preop_f64:
    S.Src64 = 1; S.DstBits = 64; break;
  case Op::v_trunc_f64: case Op::v_ceil_f64: case Op::v_rndne_f64: case Op::v_floor_f64:
  case Op::v_fract_f64: case Op::v_rcp_f64: case Op::v_rsq_f64: case Op::v_sqrt_f64:
  case Op::v_frexp_mant_f64: case Op::v_mov_b64:
    S.Src64 = 1; S.DstBits = 64; break;
  case Op::v_cvt_i32_f64: case Op::v_cvt_u32_f64: case Op::v_cvt_f32_f64:
  case Op::v_frexp_exp_i32_f64:
    S.Src64 = 1; break;
  case Op::v_cvt_f64_i32: case Op::v_cvt_f64_u32: case Op::v_cvt_f64_f32:
    S.DstBits = 64; break;
  case Op::v_lshlrev_b64: case Op::v_lshrrev_b64: case Op::v_ashrrev_i64:
    S.Src64 = 2; S.DstBits = 64; break;
  case Op::v_lshl_add_u64:
    S.Src64 = 5; S.DstBits = 64; break;
  // 16-bit results.
  case Op::v_cvt_f16_f32: case Op::v_cvt_f16_u16: case Op::v_cvt_f16_i16:
  case Op::v_cvt_u16_f16: case Op::v_cvt_i16_f16: case Op::v_rcp_f16: case Op::v_sqrt_f16:
  case Op::v_rsq_f16: case Op::v_log_f16: case Op::v_exp_f16: case Op::v_floor_f16:
  case Op::v_ceil_f16: case Op::v_trunc_f16: case Op::v_rndne_f16: case Op::v_fract_f16:
  case Op::v_sin_f16: case Op::v_cos_f16: case Op::v_frexp_mant_f16: case Op::v_frexp_exp_i16_f16:
  case Op::v_add_f16: case Op::v_sub_f16: case Op::v_subrev_f16: case Op::v_mul_f16:
  case Op::v_mac_f16: case Op::v_fmac_f16: case Op::v_add_u16: case Op::v_sub_u16:
  case Op::v_fmaak_f16: case Op::v_fmamk_f16: case Op::v_madak_f16: case Op::v_madmk_f16:
  case Op::v_subrev_u16: case Op::v_mul_lo_u16: case Op::v_lshlrev_b16: case Op::v_lshrrev_b16:
  case Op::v_ashrrev_i16: case Op::v_max_f16: case Op::v_min_f16: case Op::v_max_u16:
  case Op::v_max_i16: case Op::v_min_u16: case Op::v_min_i16: case Op::v_ldexp_f16:
  case Op::v_mad_f16: case Op::v_mad_u16: case Op::v_mad_i16: case Op::v_fma_f16:
  case Op::v_div_fixup_f16: case Op::v_min3_f16: case Op::v_max3_f16: case Op::v_med3_f16:
  case Op::v_min3_i16: case Op::v_max3_i16: case Op::v_med3_i16: case Op::v_min3_u16:
  case Op::v_max3_u16: case Op::v_med3_u16: case Op::v_add_i16: case Op::v_sub_i16:
  case Op::v_fma_mixlo_f16: case Op::v_fma_mixhi_f16: case Op::v_mad_mixlo_f16:
  case Op::v_mad_mixhi_f16: case Op::v_maxmin_f16: case Op::v_minmax_f16:
    S.DstBits = 16; S.Src16 = 7; break;
  case Op::v_cvt_f32_f16: case Op::v_pack_b32_f16:
    S.Src16 = 3; break;
  case Op::v_mad_u32_u16: case Op::v_mad_i32_i16:
    S.Src16 = 3; break;
  case Op::v_pk_mad_i16: case Op::v_pk_mul_lo_u16: case Op::v_pk_add_i16: case Op::v_pk_sub_i16:
  case Op::v_pk_lshlrev_b16: case Op::v_pk_lshrrev_b16: case Op::v_pk_ashrrev_i16:
  case Op::v_pk_max_i16: case Op::v_pk_min_i16: case Op::v_pk_mad_u16: case Op::v_pk_add_u16:
  case Op::v_pk_sub_u16: case Op::v_pk_max_u16: case Op::v_pk_min_u16: case Op::v_pk_fma_f16:
  case Op::v_pk_add_f16: case Op::v_pk_mul_f16: case Op::v_pk_min_f16: case Op::v_pk_max_f16:
  case Op::v_pk_fmac_f16: case Op::v_dot2_f32_f16: case Op::v_dot2c_f32_f16:
  case Op::v_dot2_i32_i16: case Op::v_dot2_u32_u16:
    S.Packed16 = true; break;
  default:
    break;
  }
  if (S.DstBits == 16 && I.Opcode != Op::v_cvt_f16_f32 && I.Opcode != Op::v_cndmask_b16 &&
      I.Opcode != Op::v_fma_mixlo_f16 && I.Opcode != Op::v_fma_mixhi_f16 &&
      I.Opcode != Op::v_mad_mixlo_f16 && I.Opcode != Op::v_mad_mixhi_f16)
    S.Src16 = 7;
  if (I.Opcode == Op::v_cndmask_b16)
    S.Src16 = 3;
  return S;
}

int32_t sextN(uint64_t V, unsigned Bits) {
  return static_cast<int32_t>(static_cast<int64_t>(V << (64 - Bits)) >> (64 - Bits));
}

/// The 16-bit half of source K a non-packed 16-bit op reads (op_sel).
uint16_t half(const LaneIn &In, unsigned K) {
  return static_cast<uint16_t>((In.I.OpSel >> K) & 1 ? In.Src[K] >> 16 : In.Src[K]);
}

/// Packed source halves (VOP3P): lo and hi operand of source K.
void packed(const LaneIn &In, unsigned K, uint16_t &Lo, uint16_t &Hi) {
  uint32_t V = static_cast<uint32_t>(In.Src[K]);
  Lo = static_cast<uint16_t>((In.I.OpSel >> K) & 1 ? V >> 16 : V);
  Hi = static_cast<uint16_t>((In.I.OpSelHi >> K) & 1 ? V >> 16 : V);
}

uint32_t med3u(uint32_t A, uint32_t B, uint32_t C) { return std::max(std::min(A, B), std::min(std::max(A, B), C)); }
int32_t med3i(int32_t A, int32_t B, int32_t C) { return std::max(std::min(A, B), std::min(std::max(A, B), C)); }

uint32_t satU16(int64_t V) { return uint32_t(std::clamp<int64_t>(V, 0, 0xffff)); }
uint32_t satI16(int64_t V) { return uint32_t(std::clamp<int64_t>(V, -32768, 32767)) & 0xffff; }

/// Integer VALU ops of one lane: 1 handled, 0 not an integer op.
int intLane(LaneIn &In, uint64_t &R, bool &Carry) {
  const uint64_t *S = In.Src;
  uint32_t A = uint32_t(S[0]), B = uint32_t(S[1]), Cc = uint32_t(S[2]);
  bool Clamp = In.I.Clamp;
  switch (In.I.Opcode) {
  case Op::v_mov_b32: case Op::v_accvgpr_read_b32: case Op::v_accvgpr_write_b32:
  case Op::v_accvgpr_mov_b32:
    R = A; return 1;
  case Op::v_mov_b64: R = S[0]; return 1;
  case Op::v_not_b32: R = ~A; return 1;
  case Op::v_bfrev_b32: R = bitReverse32(A); return 1;
  case Op::v_ffbh_u32: R = A ? std::countl_zero(A) : ~0u; return 1;
  case Op::v_ffbl_b32: R = A ? std::countr_zero(A) : ~0u; return 1;
  case Op::v_ffbh_i32: {
    uint32_t V = int32_t(A) < 0 ? ~A : A;
    R = (A == 0 || A == ~0u) ? ~0u : std::countl_zero(V);
    return 1;
  }
  case Op::v_cndmask_b32: {
    // VOP3 v_cndmask takes float input modifiers on its two data sources.
    auto Mod = [&](uint32_t V, unsigned K) {
      if (In.SrcOps[K].Abs) V &= 0x7fffffffu;
      if (In.SrcOps[K].Neg) V ^= 0x80000000u;
      return V;
    };
    R = Cc ? Mod(B, 1) : Mod(A, 0);
    return 1;
  }
  case Op::v_cndmask_b16: R = Cc ? half(In, 1) : half(In, 0); return 1;
  case Op::v_mul_i32_i24: R = uint32_t(sextN(A, 24) * sextN(B, 24)); return 1;
  case Op::v_mul_hi_i32_i24: R = uint32_t((int64_t(sextN(A, 24)) * sextN(B, 24)) >> 32); return 1;
  case Op::v_mul_u32_u24: R = (A & 0xffffff) * (B & 0xffffff); return 1;
  case Op::v_mul_hi_u32_u24: R = uint32_t((uint64_t(A & 0xffffff) * (B & 0xffffff)) >> 32); return 1;
  case Op::v_mad_i32_i24: R = uint32_t(sextN(A, 24) * sextN(B, 24) + int32_t(Cc)); return 1;
  case Op::v_mad_u32_u24: R = (A & 0xffffff) * (B & 0xffffff) + Cc; return 1;
  case Op::v_min_i32: R = uint32_t(std::min(int32_t(A), int32_t(B))); return 1;
  case Op::v_max_i32: R = uint32_t(std::max(int32_t(A), int32_t(B))); return 1;
  case Op::v_min_u32: R = std::min(A, B); return 1;
  case Op::v_max_u32: R = std::max(A, B); return 1;
  case Op::v_lshrrev_b32: R = B >> (A & 31); return 1;
  case Op::v_ashrrev_i32: R = uint32_t(int32_t(B) >> (A & 31)); return 1;
  case Op::v_lshlrev_b32: R = B << (A & 31); return 1;
  case Op::v_and_b32: R = A & B; return 1;
  case Op::v_or_b32: R = A | B; return 1;
  case Op::v_xor_b32: R = A ^ B; return 1;
  case Op::v_xnor_b32: R = ~(A ^ B); return 1;
  case Op::v_add_co_u32: { uint64_t T = uint64_t(A) + B; Carry = T >> 32; R = Clamp && Carry ? ~0u : uint32_t(T); return 1; }
  case Op::v_sub_co_u32: { Carry = B > A; R = Clamp && Carry ? 0 : A - B; return 1; }
  case Op::v_subrev_co_u32: { Carry = A > B; R = Clamp && Carry ? 0 : B - A; return 1; }
  case Op::v_addc_co_u32: { uint64_t T = uint64_t(A) + B + (Cc & 1); Carry = T >> 32; R = Clamp && Carry ? ~0u : uint32_t(T); return 1; }
  case Op::v_subb_co_u32: { uint64_t Sub = uint64_t(B) + (Cc & 1); Carry = Sub > A; R = Clamp && Carry ? 0 : uint32_t(A - Sub); return 1; }
  case Op::v_subbrev_co_u32: { uint64_t Sub = uint64_t(A) + (Cc & 1); Carry = Sub > B; R = Clamp && Carry ? 0 : uint32_t(B - Sub); return 1; }
  case Op::v_add_u32: { uint64_t T = uint64_t(A) + B; R = Clamp && (T >> 32) ? ~0u : uint32_t(T); return 1; }
  case Op::v_sub_u32: R = Clamp && B > A ? 0 : A - B; return 1;
  case Op::v_subrev_u32: R = Clamp && A > B ? 0 : B - A; return 1;
  case Op::v_add_i32: {
    int64_t T = int64_t(int32_t(A)) + int32_t(B);
    R = uint32_t(Clamp ? std::clamp<int64_t>(T, INT32_MIN, INT32_MAX) : T);
    return 1;
  }
  case Op::v_sub_i32: {
    int64_t T = int64_t(int32_t(A)) - int32_t(B);
    R = uint32_t(Clamp ? std::clamp<int64_t>(T, INT32_MIN, INT32_MAX) : T);
    return 1;
  }
  // 16-bit integer.
  case Op::v_add_u16: { uint32_t T = uint32_t(half(In, 0)) + half(In, 1); R = Clamp ? satU16(T) : T & 0xffff; return 1; }
  case Op::v_sub_u16: { int32_t T = int32_t(half(In, 0)) - half(In, 1); R = Clamp ? satU16(T) : uint32_t(T) & 0xffff; return 1; }
  case Op::v_subrev_u16: { int32_t T = int32_t(half(In, 1)) - half(In, 0); R = Clamp ? satU16(T) : uint32_t(T) & 0xffff; return 1; }
  case Op::v_add_i16: { int32_t T = int16_t(half(In, 0)) + int16_t(half(In, 1)); R = Clamp ? satI16(T) : uint32_t(T) & 0xffff; return 1; }
  case Op::v_sub_i16: { int32_t T = int16_t(half(In, 0)) - int16_t(half(In, 1)); R = Clamp ? satI16(T) : uint32_t(T) & 0xffff; return 1; }
  case Op::v_mul_lo_u16: R = (uint32_t(half(In, 0)) * half(In, 1)) & 0xffff; return 1;
  case Op::v_lshlrev_b16: R = (uint32_t(half(In, 1)) << (half(In, 0) & 15)) & 0xffff; return 1;
  case Op::v_lshrrev_b16: R = half(In, 1) >> (half(In, 0) & 15); return 1;
  case Op::v_ashrrev_i16: R = uint32_t(int16_t(half(In, 1)) >> (half(In, 0) & 15)) & 0xffff; return 1;
  case Op::v_max_u16: R = std::max(half(In, 0), half(In, 1)); return 1;
  case Op::v_min_u16: R = std::min(half(In, 0), half(In, 1)); return 1;
  case Op::v_max_i16: R = uint16_t(std::max(int16_t(half(In, 0)), int16_t(half(In, 1)))); return 1;
  case Op::v_min_i16: R = uint16_t(std::min(int16_t(half(In, 0)), int16_t(half(In, 1)))); return 1;
  case Op::v_mad_u16: { uint32_t T = uint32_t(half(In, 0)) * half(In, 1) + half(In, 2); R = Clamp ? satU16(T) : T & 0xffff; return 1; }
  case Op::v_mad_i16: { int64_t T = int64_t(int16_t(half(In, 0))) * int16_t(half(In, 1)) + int16_t(half(In, 2)); R = Clamp ? satI16(T) : uint32_t(T) & 0xffff; return 1; }
  case Op::v_mad_u32_u16: R = uint32_t(half(In, 0)) * half(In, 1) + Cc; return 1;
  case Op::v_mad_i32_i16: R = uint32_t(int32_t(int16_t(half(In, 0))) * int16_t(half(In, 1)) + int32_t(Cc)); return 1;
  case Op::v_min3_u16: R = std::min({half(In, 0), half(In, 1), half(In, 2)}); return 1;
  case Op::v_max3_u16: R = std::max({half(In, 0), half(In, 1), half(In, 2)}); return 1;
  case Op::v_med3_u16: R = med3u(half(In, 0), half(In, 1), half(In, 2)); return 1;
  case Op::v_min3_i16: R = uint16_t(std::min({int16_t(half(In, 0)), int16_t(half(In, 1)), int16_t(half(In, 2))})); return 1;
  case Op::v_max3_i16: R = uint16_t(std::max({int16_t(half(In, 0)), int16_t(half(In, 1)), int16_t(half(In, 2))})); return 1;
  case Op::v_med3_i16: R = uint16_t(med3i(int16_t(half(In, 0)), int16_t(half(In, 1)), int16_t(half(In, 2)))); return 1;
  // VOP3 integer.
  case Op::v_bfe_u32: { unsigned Off = B & 31, W = Cc & 31; R = W ? (A >> Off) & ((1ull << W) - 1) : 0; return 1; }
  case Op::v_bfe_i32: {
    unsigned Off = B & 31, W = Cc & 31;
    R = W ? uint32_t(sextN((A >> Off) & ((1ull << W) - 1), W)) : 0;
    return 1;
  }
  case Op::v_bfi_b32: R = (A & B) | (~A & Cc); return 1;
  case Op::v_bfm_b32: R = ((1u << (A & 31)) - 1) << (B & 31); return 1;
  case Op::v_alignbit_b32: R = uint32_t(((uint64_t(A) << 32) | B) >> (Cc & 31)); return 1;
  case Op::v_alignbyte_b32: R = uint32_t(((uint64_t(A) << 32) | B) >> (8 * (Cc & 3))); return 1;
  case Op::v_min3_i32: R = uint32_t(std::min({int32_t(A), int32_t(B), int32_t(Cc)})); return 1;
  case Op::v_max3_i32: R = uint32_t(std::max({int32_t(A), int32_t(B), int32_t(Cc)})); return 1;
  case Op::v_med3_i32: R = uint32_t(med3i(int32_t(A), int32_t(B), int32_t(Cc))); return 1;
  case Op::v_min3_u32: R = std::min({A, B, Cc}); return 1;
  case Op::v_max3_u32: R = std::max({A, B, Cc}); return 1;
  case Op::v_med3_u32: R = med3u(A, B, Cc); return 1;
  case Op::v_mad_u64_u32: {
    unsigned __int128 T = (unsigned __int128)(uint64_t(A) * B) + S[2];
    R = uint64_t(T);
    Carry = (T >> 64) != 0;
    return 1;
  }
  case Op::v_mad_i64_i32: {
    __int128 T = (__int128)(int64_t(int32_t(A)) * int32_t(B)) + (__int128)int64_t(S[2]);
    R = uint64_t(T);
    Carry = T != (__int128)int64_t(R);
    return 1;
  }
  case Op::v_lshl_add_u32: R = (A << (B & 31)) + Cc; return 1;
  case Op::v_add_lshl_u32: R = (A + B) << (Cc & 31); return 1;
  case Op::v_add3_u32: R = A + B + Cc; return 1;
  case Op::v_lshl_or_b32: R = (A << (B & 31)) | Cc; return 1;
  case Op::v_and_or_b32: R = (A & B) | Cc; return 1;
  case Op::v_or3_b32: R = A | B | Cc; return 1;
  case Op::v_xor3_b32: R = A ^ B ^ Cc; return 1;
  case Op::v_maxmin_i32: R = uint32_t(std::min(std::max(int32_t(A), int32_t(B)), int32_t(Cc))); return 1;
  case Op::v_minmax_i32: R = uint32_t(std::max(std::min(int32_t(A), int32_t(B)), int32_t(Cc))); return 1;
  case Op::v_maxmin_u32: R = std::min(std::max(A, B), Cc); return 1;
  case Op::v_minmax_u32: R = std::max(std::min(A, B), Cc); return 1;
  case Op::v_xad_u32: R = (A ^ B) + Cc; return 1;
  case Op::v_mul_lo_u32: R = A * B; return 1;
  case Op::v_mul_hi_u32: R = uint32_t((uint64_t(A) * B) >> 32); return 1;
  case Op::v_mul_hi_i32: R = uint32_t((int64_t(int32_t(A)) * int32_t(B)) >> 32); return 1;
  case Op::v_bcnt_u32_b32: R = std::popcount(A) + B; return 1;
  case Op::v_mbcnt_lo_u32_b32: {
    uint32_t Below = In.Lane >= 32 ? ~0u : (1u << In.Lane) - 1;
    R = std::popcount(A & Below) + B;
    return 1;
  }
  case Op::v_mbcnt_hi_u32_b32: {
    uint32_t Below = In.Lane < 32 ? 0u : In.Lane == 32 ? 0u : (1u << (In.Lane - 32)) - 1;
    R = std::popcount(A & Below) + B;
    return 1;
  }
  case Op::v_lshlrev_b64: R = S[1] << (A & 63); return 1;
  case Op::v_lshrrev_b64: R = S[1] >> (A & 63); return 1;
  case Op::v_ashrrev_i64: R = uint64_t(int64_t(S[1]) >> (A & 63)); return 1;
  case Op::v_lshl_add_u64: R = (S[0] << (B & 7)) + S[2]; return 1;
  case Op::v_cvt_pk_u16_u32: R = satU16(A) | satU16(B) << 16; return 1;
  case Op::v_cvt_pk_i16_i32: R = satI16(int32_t(A)) | satI16(int32_t(B)) << 16; return 1;
  case Op::v_perm_b32: {
    // Selector bytes pick from {S0, S1} as a byte array (S1 low), with
    // constant and sign-replicate codes per the manual.
    uint64_t Pool = (uint64_t(A) << 32) | B;
    uint32_t Out = 0;
    for (unsigned K = 0; K < 4; ++K) {
      unsigned Sel = (Cc >> (8 * K)) & 0xff;
      uint32_t Byte;
      if (Sel < 8)
        Byte = (Pool >> (8 * Sel)) & 0xff;
      else if (Sel < 12) {
        static const unsigned SignBit[] = {15, 31, 47, 63};
        Byte = (Pool >> SignBit[Sel - 8]) & 1 ? 0xff : 0;
      } else if (Sel == 12)
        Byte = 0;
      else
        Byte = 0xff;
      Out |= Byte << (8 * K);
    }
    R = Out;
    return 1;
  }
  case Op::v_sad_u32: R = (A > B ? A - B : B - A) + Cc; return 1;
  case Op::v_sad_u8: case Op::v_msad_u8: {
    uint32_t T = Cc;
    for (unsigned K = 0; K < 4; ++K) {
      int X = (A >> 8 * K) & 0xff, Y = (B >> 8 * K) & 0xff;
      if (In.I.Opcode == Op::v_msad_u8 && Y == 0)
        continue;
      T += uint32_t(std::abs(X - Y));
    }
    R = T;
    return 1;
  }
  // Packed 16-bit integer (VOP3P).
  case Op::v_pk_mad_i16: case Op::v_pk_mul_lo_u16: case Op::v_pk_add_i16: case Op::v_pk_sub_i16:
  case Op::v_pk_lshlrev_b16: case Op::v_pk_lshrrev_b16: case Op::v_pk_ashrrev_i16:
  case Op::v_pk_max_i16: case Op::v_pk_min_i16: case Op::v_pk_mad_u16: case Op::v_pk_add_u16:
  case Op::v_pk_sub_u16: case Op::v_pk_max_u16: case Op::v_pk_min_u16: {
    uint16_t L[3] = {}, H[3] = {};
    for (unsigned K = 0; K < In.NSrc && K < 3; ++K)
      packed(In, K, L[K], H[K]);
    auto One = [&](uint16_t X, uint16_t Y, uint16_t Z) -> uint32_t {
      switch (In.I.Opcode) {
      case Op::v_pk_mad_i16: { int32_t T = int16_t(X) * int16_t(Y) + int16_t(Z); return Clamp ? satI16(T) : T & 0xffff; }
      case Op::v_pk_mad_u16: { uint32_t T = uint32_t(X) * Y + Z; return Clamp ? satU16(T) : T & 0xffff; }
      case Op::v_pk_mul_lo_u16: return (uint32_t(X) * Y) & 0xffff;
      case Op::v_pk_add_i16: { int32_t T = int16_t(X) + int16_t(Y); return Clamp ? satI16(T) : T & 0xffff; }
      case Op::v_pk_sub_i16: { int32_t T = int16_t(X) - int16_t(Y); return Clamp ? satI16(T) : T & 0xffff; }
      case Op::v_pk_add_u16: { uint32_t T = uint32_t(X) + Y; return Clamp ? satU16(T) : T & 0xffff; }
      case Op::v_pk_sub_u16: { int32_t T = int32_t(X) - Y; return Clamp ? satU16(T) : T & 0xffff; }
      case Op::v_pk_lshlrev_b16: return (uint32_t(Y) << (X & 15)) & 0xffff;
      case Op::v_pk_lshrrev_b16: return Y >> (X & 15);
      case Op::v_pk_ashrrev_i16: return uint32_t(int16_t(Y) >> (X & 15)) & 0xffff;
      case Op::v_pk_max_i16: return uint16_t(std::max(int16_t(X), int16_t(Y)));
      case Op::v_pk_min_i16: return uint16_t(std::min(int16_t(X), int16_t(Y)));
      case Op::v_pk_max_u16: return std::max(X, Y);
      case Op::v_pk_min_u16: return std::min(X, Y);
      default: return 0;
      }
    };
    R = One(L[0], L[1], L[2]) | One(H[0], H[1], H[2]) << 16;
    return 1;
  }
  case Op::v_dot2_i32_i16: case Op::v_dot2_u32_u16: {
    uint16_t L0, H0, L1, H1;
    packed(In, 0, L0, H0);
    packed(In, 1, L1, H1);
    if (In.I.Opcode == Op::v_dot2_i32_i16) {
      int64_t T = int64_t(int16_t(L0)) * int16_t(L1) + int64_t(int16_t(H0)) * int16_t(H1) + int32_t(Cc);
      R = uint32_t(Clamp ? std::clamp<int64_t>(T, INT32_MIN, INT32_MAX) : T);
    } else {
      uint64_t T = uint64_t(L0) * L1 + uint64_t(H0) * H1 + Cc;
      R = uint32_t(Clamp ? std::min<uint64_t>(T, 0xffffffffu) : T);
    }
    return 1;
  }
  case Op::v_dot4_i32_i8: case Op::v_dot4_u32_u8: case Op::v_dot4c_i32_i8:
  case Op::v_dot8_i32_i4: case Op::v_dot8_u32_u4: {
    bool Eight = In.I.Opcode == Op::v_dot8_i32_i4 || In.I.Opcode == Op::v_dot8_u32_u4;
    bool Signed = In.I.Opcode != Op::v_dot4_u32_u8 && In.I.Opcode != Op::v_dot8_u32_u4;
    unsigned Bits = Eight ? 4 : 8, N = Eight ? 8 : 4;
    // v_dot4c accumulates into its destination.
    uint32_t Acc = In.I.Opcode == Op::v_dot4c_i32_i8 ? readV32(In.W, In.I.Ops[0], In.Lane) : Cc;
    int64_t T = Signed ? int64_t(int32_t(Acc)) : int64_t(Acc);
    for (unsigned K = 0; K < N; ++K) {
      uint32_t X = (A >> (Bits * K)) & ((1u << Bits) - 1), Y = (B >> (Bits * K)) & ((1u << Bits) - 1);
      T += Signed ? int64_t(sextN(X, Bits)) * sextN(Y, Bits) : int64_t(X) * Y;
    }
    if (Clamp)
      T = Signed ? std::clamp<int64_t>(T, INT32_MIN, INT32_MAX) : std::clamp<int64_t>(T, 0, 0xffffffffll);
    R = uint32_t(T);
    return 1;
  }
  default:
    return 0;
  }
}

/// The lane DPP reads source 0 from, or -1 when out of range.
int dppLane(const Inst &I, unsigned L, unsigned Size) {
  unsigned Row = L & ~15u, In = L & 15;
  int N = int(I.DppCtrl);
  switch (I.Dpp) {
  case DppKind::None: return int(L);
  case DppKind::QuadPerm: return int((L & ~3u) | ((I.DppCtrl >> (2 * (L & 3))) & 3));
  case DppKind::RowShl: return int(In) + N > 15 ? -1 : int(L) + N;
  case DppKind::RowShr: return int(In) - N < 0 ? -1 : int(L) - N;
  case DppKind::RowRor: return int(Row + ((In - N) & 15));
  case DppKind::WaveShl: return L + 1 >= Size ? -1 : int(L + 1);
  case DppKind::WaveShr: return L == 0 ? -1 : int(L - 1);
  case DppKind::WaveRol: return int((L + 1) % Size);
  case DppKind::WaveRor: return int((L + Size - 1) % Size);
  case DppKind::RowMirror: return int(Row + 15 - In);
  case DppKind::RowHalfMirror: return int((L & ~7u) + 7 - (L & 7));
  case DppKind::RowBcast15: return Row == 0 ? -1 : int(Row - 1);
  case DppKind::RowBcast31: return L < 32 ? -1 : 31;
  case DppKind::RowShare: return int(Row + (N & 15));
  case DppKind::RowXmask: return int(Row + ((In ^ N) & 15));
  case DppKind::Dpp8: return int((L & ~7u) + ((I.DppCtrl >> (3 * (L & 7))) & 7));
  }
  return -1;
}

uint32_t sdwaSel(uint32_t V, uint8_t Sel, bool Sext) {
  if (Sel == SelDword)
    return V;
  if (Sel < 4) {
    uint32_t B = (V >> (8 * Sel)) & 0xff;
    return Sext ? uint32_t(sextN(B, 8)) : B;
  }
  uint32_t H = (V >> (Sel == SelWord1 ? 16 : 0)) & 0xffff;
  return Sext ? uint32_t(sextN(H, 16)) : H;
}

uint32_t sdwaDst(uint32_t Old, uint32_t R, const Inst &I) {
  if (I.DstSel == SelDword)
    return R;
  unsigned Shift = I.DstSel < 4 ? 8 * I.DstSel : (I.DstSel == SelWord1 ? 16 : 0);
  unsigned Bits = I.DstSel < 4 ? 8 : 16;
  uint32_t Mask = ((1u << Bits) - 1) << Shift;
  uint32_t Field = (R << Shift) & Mask;
  if (I.DstUnused == 2)
    return (Old & ~Mask) | Field;
  if (I.DstUnused == 1 && ((R >> (Bits - 1)) & 1))
    return Field | ~((1u << (Shift + Bits)) - 1);
  return Field;
}

bool intCompare(uint8_t Cond, uint8_t Type, uint64_t A, uint64_t B) {
  bool Signed = Type == TyI16 || Type == TyI32 || Type == TyI64;
  int64_t SA, SB;
  switch (Type) {
  case TyI16: SA = int16_t(A); SB = int16_t(B); A &= 0xffff; B &= 0xffff; break;
  case TyU16: A &= 0xffff; B &= 0xffff; SA = int64_t(A); SB = int64_t(B); break;
  case TyI32: SA = int32_t(A); SB = int32_t(B); A = uint32_t(A); B = uint32_t(B); break;
  case TyU32: A = uint32_t(A); B = uint32_t(B); SA = int64_t(A); SB = int64_t(B); break;
  default: SA = int64_t(A); SB = int64_t(B); break;
  }
  switch (Cond) {
  case CcF: return false;
  case CcLt: return Signed ? SA < SB : A < B;
  case CcEq: return A == B;
  case CcLe: return Signed ? SA <= SB : A <= B;
  case CcGt: return Signed ? SA > SB : A > B;
  case CcLg: return A != B;
  case CcGe: return Signed ? SA >= SB : A >= B;
  case CcTru: return true;
  }
  return false;
}

} // namespace

/// Reads source operand index OpIdx for lane SrcLane as seen by Lane.
/// The packed-f32 ops (gfx90a+) read 64-bit register pairs, but an inline
/// constant is the 32-bit float in the low dword (LLVM emits `1.0
/// op_sel_hi:[1,0]` so that both halves read it), not the f64 encoding.
static bool packedF32(Op O) {
  return O == Op::v_pk_fma_f32 || O == Op::v_pk_mul_f32 || O == Op::v_pk_add_f32 || O == Op::v_pk_mov_b32;
}

static uint64_t readSource(const WaveState &W, const Inst &I, unsigned OpIdx, unsigned SrcK,
                           unsigned Lane, bool Wide, bool MaskSrc) {
  const Operand &O = I.Ops[OpIdx];
  if (MaskSrc)
    return (readMask(W, O) >> Lane) & 1;
  uint64_t V = Wide ? readV64(W, O, Lane) : readV32(W, O, Lane);
  if (I.Sdwa && SrcK < 2)
    V = sdwaSel(uint32_t(V), SrcK == 0 ? I.Src0Sel : I.Src1Sel, O.Sext);
  return V;
}

static bool execCompare(WaveState &W, const Inst &I, ExecCtx &C) {
  if (I.Dpp != DppKind::None)
    return C.unsupported(I, "DPP on a compare");
  bool X = I.Opcode == Op::v_cmpx || I.Opcode == Op::v_cmpx_class;
  bool Class = I.Opcode == Op::v_cmp_class || I.Opcode == Op::v_cmpx_class;
  // v_cmp: sdst, src0, src1. v_cmpx on RDNA3 has no sdst; on GFX9 its
  // VOP3 form names one (written as well as EXEC).
  unsigned First = I.NumOps >= 3 ? 1 : 0;
  if (I.NumOps < 2 + First)
    return C.unsupported(I, "compare with unexpected operands");
  bool Wide = I.Type == TyI64 || I.Type == TyU64 || I.Type == TyF64;
  uint64_t Exec = W.exec(), Mask = 0;
  LaneIn In{W, I, C, 0, {0, 0, 0}, &I.Ops[First], 2};
  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    In.Lane = L;
    In.Src[0] = readSource(W, I, First, 0, L, Wide, false);
    In.Src[1] = readSource(W, I, First + 1, 1, L, Wide && !Class, false);
    if (I.Type == TyF16 || I.Type == TyI16 || I.Type == TyU16) {
      In.Src[0] = (I.OpSel & 1) ? In.Src[0] >> 16 : In.Src[0] & 0xffff;
      In.Src[1] = (I.OpSel & 2) ? In.Src[1] >> 16 : In.Src[1] & 0xffff;
      for (unsigned K = 0; K < 2; ++K)
        if (I.Ops[First + K].Kind == OpndKind::Const && !(Class && K == 1))
          In.Src[K] = I.Ops[First + K].C16;
    }
    bool R;
    if (Class)
      R = floatClass(In, I.Type);
    else if (I.Type >= TyF16)
      R = floatCompare(In, I.Cond, I.Type);
    else
      R = intCompare(I.Cond, I.Type, In.Src[0], In.Src[1]);
    if (R)
      Mask |= 1ull << L;
  }
  if (First)
    writeMask(W, I.Ops[0], Mask);
  if (X)
    W.setExec(Mask);
  return true;
}

static bool execValuOne(WaveState &W, const Inst &I, ExecCtx &C, bool Defer,
                        std::vector<uint32_t> *Out);

bool execValu(WaveState &W, const Inst &I, ExecCtx &C) {
  if (W.GprIdxEn && !I.Second) {
    // GFX9 index mode: offset the enabled VGPR operands by M0[7:0]
    // (destination first, then sources in order), bounds-checked.
    Inst T = I;
    uint32_t M0 = W.S[SgprM0], Idx = M0 & 0xff, Mask = (M0 >> 12) & 0xf;
    W.GprIdxEn = false; // the copy runs without re-indexing
    unsigned NDst = shapeOf(I).NDst;
    if (I.Opcode == Op::v_cmp || I.Opcode == Op::v_cmpx || I.Opcode == Op::v_cmp_class ||
        I.Opcode == Op::v_cmpx_class)
      NDst = I.NumOps >= 3 ? 1 : 0;
    for (unsigned K = 0; K < T.NumOps; ++K) {
      Operand &Op = T.Ops[K];
      if (Op.Kind != OpndKind::Vgpr)
        continue;
      bool On = K < NDst ? (Mask & 8) : K - NDst < 3 && ((Mask >> (K - NDst)) & 1);
      if (!On)
        continue;
      Op.Reg = uint16_t(Op.Reg + Idx);
      if (Op.Reg + Op.Count > C.VgprAlloc) {
        W.GprIdxEn = true;
        return C.memFault("VGPR index mode (M0) beyond the VGPR allocation", Idx, 4);
      }
    }
    bool Ok = execValu(W, T, C);
    W.GprIdxEn = true;
    return Ok;
  }
  if (I.Second) {
    // VOPD: both halves read their sources before either writes.
    std::vector<uint32_t> X, Y;
    if (!execValuOne(W, I, C, true, &X) || !execValuOne(W, *I.Second, C, true, &Y))
      return false;
    uint64_t Exec = W.exec();
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Exec >> L) & 1) {
        writeV32(W, I.Ops[0], L, X[L]);
        writeV32(W, I.Second->Ops[0], L, Y[L]);
      }
    return true;
  }
  return execValuOne(W, I, C, false, nullptr);
}

static bool execValuOne(WaveState &W, const Inst &I, ExecCtx &C, bool Defer,
                        std::vector<uint32_t> *Out) {
  const Operand *O = I.Ops;
  uint64_t Exec = W.exec();
  switch (I.Opcode) {
  case Op::v_nop:
    return true;
  case Op::v_cmp: case Op::v_cmpx: case Op::v_cmp_class: case Op::v_cmpx_class:
    return execCompare(W, I, C);
  case Op::v_readfirstlane_b32: {
    unsigned L = Exec ? std::countr_zero(Exec) : 0;
    writeS32(W, O[0], readV32(W, O[1], L));
    return true;
  }
  case Op::v_readlane_b32: {
    unsigned L = readS32(W, O[2]) & (W.Lanes - 1);
    writeS32(W, O[0], readV32(W, O[1], L));
    return true;
  }
  case Op::v_writelane_b32: {
    // Writes the lane whatever EXEC says (the manual's "ignores EXEC").
    unsigned L = readS32(W, O[2]) & (W.Lanes - 1);
    writeV32(W, O[0], L, readS32(W, O[1]));
    return true;
  }
  case Op::v_movrels_b32: case Op::v_movreld_b32: case Op::v_movrelsd_b32:
  case Op::v_movrelsd_2_b32: {
    // Relative VGPR addressing: M0 offsets the source (s), the destination
    // (d) or both; the offset register must stay inside the allocation.
    uint32_t M0 = W.S[SgprM0];
    Operand Dst = O[0], Src = O[1];
    bool RelS = I.Opcode != Op::v_movreld_b32, RelD = I.Opcode != Op::v_movrels_b32;
    if (RelS && Src.Kind == OpndKind::Vgpr)
      Src.Reg = uint16_t(Src.Reg + M0);
    if (RelD)
      Dst.Reg = uint16_t(Dst.Reg + M0);
    if ((RelS && Src.Kind == OpndKind::Vgpr && Src.Reg >= C.VgprAlloc) || Dst.Reg >= C.VgprAlloc ||
        Src.Reg + uint64_t(M0) > 0xffff)
      return C.memFault("VGPR relative index (M0) beyond the VGPR allocation", M0, 4);
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Exec >> L) & 1)
        writeV32(W, Dst, L, readV32(W, Src, L));
    return true;
  }
  case Op::v_swap_b32: {
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Exec >> L) & 1) {
        uint32_t A = readV32(W, O[0], L), B = readV32(W, O[1], L);
        writeV32(W, O[0], L, B);
        writeV32(W, O[1], L, A);
      }
    return true;
  }
  case Op::v_permlane16_b32: case Op::v_permlanex16_b32: {
    uint64_t Sel = uint64_t(readS32(W, O[2])) | uint64_t(readS32(W, O[3])) << 32;
    bool Fi = I.OpSel & 1, Bound = I.OpSel & 2;
    std::vector<uint32_t> Res(W.Lanes);
    uint64_t Write = 0;
    for (unsigned L = 0; L < W.Lanes; ++L) {
      if (!((Exec >> L) & 1))
        continue;
      unsigned Row = L & ~15u;
      if (I.Opcode == Op::v_permlanex16_b32)
        Row ^= 16;
      unsigned Src = Row + ((Sel >> (4 * (L & 15))) & 15);
      if (Src >= W.Lanes || (!Fi && !((Exec >> Src) & 1))) {
        if (!Bound)
          continue;
        Res[L] = 0;
      } else {
        Res[L] = readV32(W, O[1], Src);
      }
      Write |= 1ull << L;
    }
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Write >> L) & 1)
        writeV32(W, O[0], L, Res[L]);
    return true;
  }
  default:
    break;
  }

  Shape Sh = shapeOf(I);
  unsigned FirstSrc = Sh.NDst;
  // VOP2 carry forms printed without a carry destination do not exist, but
  // VOP3 v_add_u32 has one destination: trust the printed count.
  if (I.NumOps < FirstSrc)
    return C.unsupported(I, "unexpected operand count");
  unsigned NSrc = I.NumOps - FirstSrc;
  if (NSrc > 3)
    NSrc = 3;
  bool Gfx9 = C.isGfx9();
  bool ImplicitVcc = Sh.MaskSrc2 && NSrc == 2;
  if (Out)
    Out->assign(W.Lanes, 0);

  // DPP: which lanes write, and where source 0 comes from.
  bool Dpp = I.Dpp != DppKind::None;
  RoundingScope Round(W.Mode);
  uint64_t CarryMask = 0, WriteMask = 0;
  uint64_t Results[64];
  // Scalar and constant sources read the same for every lane: read once.
  uint64_t Uniform[3] = {0, 0, 0};
  unsigned UniformMask = 0;
  for (unsigned K = 0; K < NSrc && !I.Sdwa; ++K) {
    const Operand &SO = O[FirstSrc + K];
    if (SO.Kind == OpndKind::Vgpr || SO.Kind == OpndKind::Agpr || (Sh.MaskSrc2 && K == 2))
      continue;
    bool Wide = (Sh.Src64 >> K) & 1;
    uint64_t V = readSource(W, I, FirstSrc + K, K, 0, Wide, false);
    if (SO.Kind == OpndKind::Const && Wide && packedF32(I.Opcode))
      V = SO.C32;
    if (SO.Kind == OpndKind::Const && !Wide) {
      if ((Sh.Src16 >> K) & 1)
        V = SO.C16;
      else if (Sh.Packed16 && !SO.Literal)
        V = SO.C16 | uint32_t(SO.C16) << 16;
    }
    Uniform[K] = V;
    UniformMask |= 1u << K;
  }
  LaneIn In{W, I, C, 0, {0, 0, 0}, &O[FirstSrc], NSrc};
  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    bool ZeroSrc0 = false;
    unsigned Src0Lane = L;
    if (Dpp) {
      if (I.Dpp != DppKind::Dpp8) {
        if (!((I.RowMask >> (L >> 4)) & 1) || !((I.BankMask >> ((L >> 2) & 3)) & 1))
          continue;
      }
      int S = dppLane(I, L, W.Lanes);
      if (S < 0 || unsigned(S) >= W.Lanes || (!I.FetchInactive && !((Exec >> S) & 1))) {
        if (!I.BoundCtrl && I.Dpp != DppKind::Dpp8)
          continue;
        ZeroSrc0 = true;
      } else {
        Src0Lane = unsigned(S);
      }
    }
    In.Lane = L;
    for (unsigned K = 0; K < NSrc; ++K) {
      if ((UniformMask >> K) & 1) {
        In.Src[K] = (K == 0 && ZeroSrc0) ? 0 : Uniform[K];
        continue;
      }
      bool Wide = (Sh.Src64 >> K) & 1;
      bool Mask = Sh.MaskSrc2 && K == 2;
      unsigned ReadLane = K == 0 ? Src0Lane : L;
      In.Src[K] = (K == 0 && ZeroSrc0) ? 0 : readSource(W, I, FirstSrc + K, K, ReadLane, Wide, Mask);
      if (Mask)
        In.Src[K] = (readMask(W, O[FirstSrc + K]) >> L) & 1;
      const Operand &SO = O[FirstSrc + K];
      if (SO.Kind == OpndKind::Const && Wide && packedF32(I.Opcode))
        In.Src[K] = SO.C32;
      if (SO.Kind == OpndKind::Const && !Wide && !Mask) {
        // Inline constants have a per-width encoding: 16-bit sources read
        // the half-precision pattern (packed ops: in both halves).
        if ((Sh.Src16 >> K) & 1)
          In.Src[K] = SO.C16;
        else if (Sh.Packed16 && !SO.Literal)
          In.Src[K] = SO.C16 | uint32_t(SO.C16) << 16;
      }
    }
    if (ImplicitVcc) // VOPD v_dual_cndmask_b32 selects with VCC, unnamed
      In.Src[2] = (W.vcc() >> L) & 1;
    uint64_t Res = 0;
    bool Carry = false;
    int Done = intLane(In, Res, Carry);
    if (!Done)
      Done = valuFloatLane(In, Res, Carry);
    if (C.Status != DispatchResult::Ok)
      return false;
    if (!Done)
      return C.unsupported(I);
    if (Carry)
      CarryMask |= 1ull << L;
    if (Out) {
      (*Out)[L] = uint32_t(Res);
      continue;
    }
    // Every lane reads its sources before any lane writes (DPP reads other
    // lanes of registers this instruction may overwrite).
    Results[L] = Res;
    WriteMask |= 1ull << L;
  }
  for (unsigned L = 0; L < W.Lanes && !Out; ++L) {
    if (!((WriteMask >> L) & 1))
      continue;
    uint64_t Res = Results[L];
    const Operand &D = O[0];
    if (Sh.DstBits == 64) {
      writeV64(W, D, L, Res);
    } else if (Sh.DstBits == 16) {
      uint32_t Old = readV32(W, D, L);
      bool Hi = (I.OpSel >> 3) & 1 || I.Opcode == Op::v_fma_mixhi_f16 ||
                I.Opcode == Op::v_mad_mixhi_f16;
      uint32_t V;
      if (I.Sdwa)
        V = sdwaDst(Old, uint32_t(Res) & 0xffff, I);
      else if (Hi)
        V = (Old & 0xffff) | uint32_t(Res) << 16;
      else if (Gfx9 && I.Opcode != Op::v_fma_mixlo_f16 && I.Opcode != Op::v_mad_mixlo_f16)
        V = uint32_t(Res) & 0xffff; // GFX9 zeroes the high half
      else
        V = (Old & 0xffff0000u) | (uint32_t(Res) & 0xffff);
      writeV32(W, D, L, V);
    } else if (I.Sdwa) {
      writeV32(W, D, L, sdwaDst(readV32(W, D, L), uint32_t(Res), I));
    } else {
      writeV32(W, D, L, uint32_t(Res));
    }
  }
  if (Sh.NDst == 2 && !Defer)
    writeMask(W, O[1], CarryMask);
  return true;
}

} // namespace ferry::sim
