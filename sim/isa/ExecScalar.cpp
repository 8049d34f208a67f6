//===- sim/isa/ExecScalar.cpp - SOP1/SOP2/SOPK/SOPC/SOPP and SMEM ---------===//
/// \file
/// The scalar ALU and scalar memory, per the CDNA3/RDNA3 ISA manuals' SOP*
/// and SMEM chapters. SCC rules follow the manuals' pseudocode (carry for
/// unsigned add/sub, signed overflow for _i32 add/sub, result != 0 for
/// logic, shift and bit-count ops).
//===----------------------------------------------------------------------===//
#include "sim/isa/Exec.h"

#include <bit>
#include <cstring>
#include <chrono>

namespace ferry::sim {

static uint32_t hwregMode(const WaveState &W) { return W.Mode; }

/// The constant-rate "real time" counter (s_memrealtime, GET_REALTIME):
/// 100 MHz, as on MI200/MI300 and RDNA3, from the host's steady clock.
static uint64_t realtimeClock() {
  auto Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count();
  return uint64_t(Ns) / 10;
}

static int32_t sext(uint64_t V, unsigned Bits) {
  return static_cast<int32_t>(static_cast<int64_t>(V << (64 - Bits)) >> (64 - Bits));
}

static bool compare(uint8_t Cond, uint8_t Type, uint64_t A, uint64_t B) {
  bool Signed = Type == TyI32 || Type == TyI16 || Type == TyI64;
  int64_t SA = Type == TyI32 ? int32_t(A) : int64_t(A), SB = Type == TyI32 ? int32_t(B) : int64_t(B);
  if (Type == TyU32 || Type == TyI32) {
    A = uint32_t(A);
    B = uint32_t(B);
  }
  switch (Cond) {
  case CcEq: return A == B;
  case CcLg: return A != B;
  case CcGt: return Signed ? SA > SB : A > B;
  case CcGe: return Signed ? SA >= SB : A >= B;
  case CcLt: return Signed ? SA < SB : A < B;
  case CcLe: return Signed ? SA <= SB : A <= B;
  case CcF: return false;
  case CcTru: return true;
  }
  return false;
}

static uint32_t flbit32(uint32_t V) { return V ? std::countl_zero(V) : ~0u; }
static uint32_t flbit64(uint64_t V) { return V ? std::countl_zero(V) : ~0u; }
static uint32_t ff1(uint64_t V) { return V ? std::countr_zero(V) : ~0u; }

static uint64_t wqm(uint64_t V, unsigned Bits) {
  uint64_t R = 0;
  for (unsigned Q = 0; Q < Bits; Q += 4)
    if ((V >> Q) & 0xf)
      R |= 0xfull << Q;
  return R;
}
static uint64_t quadmask(uint64_t V, unsigned Bits) {
  uint64_t R = 0;
  for (unsigned Q = 0; Q < Bits; Q += 4)
    if ((V >> Q) & 0xf)
      R |= 1ull << (Q / 4);
  return R;
}

static uint64_t bfe(uint64_t V, uint32_t Ctl, bool Signed, unsigned Bits) {
  unsigned Off = Ctl & (Bits - 1), Width = (Ctl >> 16) & 0x7f;
  if (Width == 0)
    return 0;
  uint64_t R = V >> Off;
  if (Width < 64)
    R &= (1ull << Width) - 1;
  if (Signed && Width < 64) {
    R = static_cast<uint64_t>(static_cast<int64_t>(R << (64 - Width)) >> (64 - Width));
  }
  return Bits == 32 ? uint32_t(R) : R;
}

bool execScalar(WaveState &W, const Inst &I, ExecCtx &C) {
  const Operand *O = I.Ops;
  auto S0 = [&] { return readS32(W, O[1]); };
  auto S1 = [&] { return readS32(W, O[2]); };
  auto S0w = [&] { return readS64(W, O[1]); };
  auto S1w = [&] { return readS64(W, O[2]); };
  auto D = [&](uint32_t V) { writeS32(W, O[0], V); };
  auto Dw = [&](uint64_t V) { writeS64(W, O[0], V); };
  auto Branch = [&](bool Take) {
    if (Take)
      W.Pc = W.Pc + int64_t(int16_t(O[0].C32 & 0xffff)) * 4;
    return true;
  };
  const unsigned LaneBits = W.Lanes;
  switch (I.Opcode) {
  // SOPP.
  case Op::s_endpgm:
    W.Done = true;
    return true;
  case Op::s_branch: return Branch(true);
  case Op::s_cbranch_scc0: return Branch(!W.Scc);
  case Op::s_cbranch_scc1: return Branch(W.Scc);
  case Op::s_cbranch_vccz: return Branch(W.vcc() == 0);
  case Op::s_cbranch_vccnz: return Branch(W.vcc() != 0);
  case Op::s_cbranch_execz: return Branch(W.exec() == 0);
  case Op::s_cbranch_execnz: return Branch(W.exec() != 0);
  case Op::s_barrier:
    W.AtBarrier = true;
    return true;
  case Op::s_trap: {
    char Buf[160];
    snprintf(Buf, sizeof Buf, "s_trap %u at PC 0x%llx (%s, kernel %s)",
             I.NumOps ? unsigned(O[0].C32 & 0xff) : 0u, (unsigned long long)C.CurPc,
             gfxName(C.Target), C.KernelName.c_str());
    return C.fail(DispatchResult::Trap, Buf);
  }
  case Op::s_setprio:
    W.Prio = O[0].C32 & 3;
    return true;
  case Op::s_sleep:
    return true;
  case Op::s_sendmsg:
    // Releasing VGPRs at the end of a wave has no functional effect; other
    // messages (interrupts, GS) are outside a compute model.
    if (I.Text.find("MSG_DEALLOC_VGPRS") != std::string::npos)
      return true;
    return C.unsupported(I, "message not modelled");
  case Op::s_sendmsg_rtn: {
    uint64_t V;
    if (I.Text.find("MSG_RTN_GET_REALTIME") != std::string::npos)
      V = realtimeClock();
    else if (I.Text.find("MSG_RTN_GET_DOORBELL") != std::string::npos ||
             I.Text.find("MSG_RTN_GET_DDID") != std::string::npos)
      V = 0;
    else
      return C.unsupported(I, "message not modelled");
    if (I.Width == 8) Dw(V); else D(uint32_t(V));
    return true;
  }
  case Op::s_sethalt:
    return C.unsupported(I, "halting a wave");
  case Op::s_denorm_mode:
    W.Mode = (W.Mode & ~0xf0u) | (O[0].C32 & 0xf) << 4;
    return true;
  case Op::s_round_mode:
    W.Mode = (W.Mode & ~0xfu) | (O[0].C32 & 0xf);
    return true;
  // SOPK.
  case Op::s_movk_i32: D(uint32_t(sext(O[1].C32, 16))); return true;
  case Op::s_cmovk_i32: if (W.Scc) D(uint32_t(sext(O[1].C32, 16))); return true;
  case Op::s_addk_i32: {
    int32_t A = int32_t(readS32(W, O[0])), B = sext(O[1].C32, 16);
    int32_t R;
    W.Scc = __builtin_add_overflow(A, B, &R);
    D(uint32_t(R));
    return true;
  }
  case Op::s_mulk_i32:
    D(uint32_t(int32_t(readS32(W, O[0])) * sext(O[1].C32, 16)));
    return true;
  case Op::s_cmpk: {
    uint32_t Imm = O[1].C32 & 0xffff;
    uint64_t B = I.Type == TyI32 ? uint32_t(sext(Imm, 16)) : Imm;
    W.Scc = compare(I.Cond, I.Type, readS32(W, O[0]), B);
    return true;
  }
  case Op::s_getreg_b32:
  case Op::s_setreg_b32:
  case Op::s_setreg_imm32_b32: {
    bool Get = I.Opcode == Op::s_getreg_b32;
    uint32_t Enc = Get ? O[1].C32 : O[0].C32;
    unsigned Id = Enc & 0x3f, Off = (Enc >> 6) & 0x1f, Size = ((Enc >> 11) & 0x1f) + 1;
    uint32_t Mask = Size >= 32 ? ~0u : ((1u << Size) - 1) << Off;
    if (Get) {
      uint32_t V = 0;
      if (Id == 1)
        V = hwregMode(W);
      else if (Id == 3)
        V = W.TrapSts;
      else if (Id == 4 || Id == 23)
        V = W.Id; // wave id within the group; CU/SE ids read as 0
      else if (Id == 29)
        V = uint32_t(C.Clock) & 0xfffff; // RDNA3's 20-bit shader clock
      D((V & Mask) >> Off);
      return true;
    }
    uint32_t Val = (I.Opcode == Op::s_setreg_b32 ? readS32(W, O[1]) : O[1].C32) << Off;
    if (Id == 1)
      W.Mode = (W.Mode & ~Mask) | (Val & Mask);
    else if (Id == 3)
      W.TrapSts = (W.TrapSts & ~Mask) | (Val & Mask);
    else
      return C.unsupported(I, "s_setreg of a hardware register other than MODE/TRAPSTS");
    return true;
  }
  case Op::s_call_b64:
    Dw(W.Pc);
    W.Pc = W.Pc + int64_t(int16_t(O[1].C32 & 0xffff)) * 4;
    return true;
  // SOP1.
  case Op::s_mov_b32: D(S0()); return true;
  case Op::s_mov_b64: Dw(S0w()); return true;
  case Op::s_cmov_b32: if (W.Scc) D(S0()); return true;
  case Op::s_cmov_b64: if (W.Scc) Dw(S0w()); return true;
  case Op::s_not_b32: { uint32_t R = ~S0(); D(R); W.Scc = R; return true; }
  case Op::s_not_b64: { uint64_t R = ~S0w(); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_wqm_b32: { uint32_t R = uint32_t(wqm(S0(), 32)); D(R); W.Scc = R; return true; }
  case Op::s_wqm_b64: { uint64_t R = wqm(S0w(), 64); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_quadmask_b32: { uint32_t R = uint32_t(quadmask(S0(), 32)); D(R); W.Scc = R; return true; }
  case Op::s_quadmask_b64: { uint64_t R = quadmask(S0w(), 64); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_brev_b32: D(bitReverse32(S0())); return true;
  case Op::s_brev_b64: Dw(bitReverse64(S0w())); return true;
  case Op::s_bcnt0_i32_b32: { uint32_t R = 32 - std::popcount(S0()); D(R); W.Scc = R; return true; }
  case Op::s_bcnt0_i32_b64: { uint32_t R = 64 - std::popcount(S0w()); D(R); W.Scc = R; return true; }
  case Op::s_bcnt1_i32_b32: { uint32_t R = std::popcount(S0()); D(R); W.Scc = R; return true; }
  case Op::s_bcnt1_i32_b64: { uint32_t R = std::popcount(S0w()); D(R); W.Scc = R; return true; }
  case Op::s_ff0_i32_b32: D(ff1(uint32_t(~S0()))); return true;
  case Op::s_ff0_i32_b64: D(ff1(~S0w())); return true;
  case Op::s_ff1_i32_b32: D(ff1(S0())); return true;
  case Op::s_ff1_i32_b64: D(ff1(S0w())); return true;
  case Op::s_flbit_i32_b32: D(flbit32(S0())); return true;
  case Op::s_flbit_i32_b64: D(flbit64(S0w())); return true;
  case Op::s_flbit_i32: {
    uint32_t V = S0();
    D(V == 0 || V == ~0u ? ~0u : flbit32(int32_t(V) < 0 ? ~V : V));
    return true;
  }
  case Op::s_flbit_i32_i64: {
    uint64_t V = S0w();
    D(V == 0 || V == ~0ull ? ~0u : flbit64(int64_t(V) < 0 ? ~V : V));
    return true;
  }
  case Op::s_sext_i32_i8: D(uint32_t(sext(S0(), 8))); return true;
  case Op::s_sext_i32_i16: D(uint32_t(sext(S0(), 16))); return true;
  case Op::s_bitset0_b32: D(readS32(W, O[0]) & ~(1u << (S0() & 31))); return true;
  case Op::s_bitset1_b32: D(readS32(W, O[0]) | (1u << (S0() & 31))); return true;
  case Op::s_bitset0_b64: Dw(readS64(W, O[0]) & ~(1ull << (S0() & 63))); return true;
  case Op::s_bitset1_b64: Dw(readS64(W, O[0]) | (1ull << (S0() & 63))); return true;
  case Op::s_abs_i32: {
    int32_t V = int32_t(S0());
    uint32_t R = V < 0 ? 0u - uint32_t(V) : uint32_t(V);
    D(R);
    W.Scc = R;
    return true;
  }
  case Op::s_getpc_b64: Dw(W.Pc); return true;
  case Op::s_setpc_b64: W.Pc = readS64(W, O[0]); return true;
  case Op::s_swappc_b64: {
    uint64_t T = S0w();
    Dw(W.Pc);
    W.Pc = T;
    return true;
  }
  case Op::s_movrels_b32: {
    Operand Src = O[1];
    Src.Reg = uint16_t(Src.Reg + W.S[SgprM0]);
    D(readS32(W, Src));
    return true;
  }
  case Op::s_movrels_b64: {
    Operand Src = O[1];
    Src.Reg = uint16_t(Src.Reg + W.S[SgprM0]);
    Dw(readS64(W, Src));
    return true;
  }
  case Op::s_movreld_b32: {
    Operand Dst = O[0];
    Dst.Reg = uint16_t(Dst.Reg + W.S[SgprM0]);
    writeS32(W, Dst, S0());
    return true;
  }
  case Op::s_movreld_b64: {
    Operand Dst = O[0];
    Dst.Reg = uint16_t(Dst.Reg + W.S[SgprM0]);
    writeS64(W, Dst, S0w());
    return true;
  }
  case Op::s_saveexec: {
    uint64_t Mask = I.Width == 8 ? ~0ull : 0xffffffffull;
    uint64_t Src = (I.Width == 8 ? S0w() : S0()) & Mask, Ex = W.exec() & Mask, N = 0;
    switch (I.Atom) {
    case SeAnd: N = Src & Ex; break;
    case SeOr: N = Src | Ex; break;
    case SeXor: N = Src ^ Ex; break;
    case SeAndN2: N = Src & ~Ex; break;
    case SeOrN2: N = Src | ~Ex; break;
    case SeNand: N = ~(Src & Ex); break;
    case SeNor: N = ~(Src | Ex); break;
    case SeXnor: N = ~(Src ^ Ex); break;
    case SeAndN1: N = ~Src & Ex; break;
    case SeOrN1: N = ~Src | Ex; break;
    case SeAndN1Wr: N = ~Src & Ex; break;
    case SeAndN2Wr: N = Src & ~Ex; break;
    }
    N &= Mask;
    bool Wr = I.Atom == SeAndN1Wr || I.Atom == SeAndN2Wr;
    uint64_t Out = Wr ? N : Ex;
    if (I.Width == 8) Dw(Out); else D(uint32_t(Out));
    if (I.Width == 8)
      W.setExec(N);
    else
      W.S[SgprExecLo] = uint32_t(N);
    W.Scc = N != 0;
    return true;
  }
  // SOP2.
  case Op::s_add_u32: { uint64_t R = uint64_t(S0()) + S1(); D(uint32_t(R)); W.Scc = R >> 32; return true; }
  case Op::s_sub_u32: { uint32_t A = S0(), B = S1(); D(A - B); W.Scc = B > A; return true; }
  case Op::s_addc_u32: { uint64_t R = uint64_t(S0()) + S1() + W.Scc; D(uint32_t(R)); W.Scc = R >> 32; return true; }
  case Op::s_subb_u32: {
    uint64_t A = S0(), B = uint64_t(S1()) + W.Scc;
    D(uint32_t(A - B));
    W.Scc = B > A;
    return true;
  }
  case Op::s_add_i32: { int32_t R; W.Scc = __builtin_add_overflow(int32_t(S0()), int32_t(S1()), &R); D(uint32_t(R)); return true; }
  case Op::s_sub_i32: { int32_t R; W.Scc = __builtin_sub_overflow(int32_t(S0()), int32_t(S1()), &R); D(uint32_t(R)); return true; }
  case Op::s_min_i32: { int32_t A = S0(), B = S1(); W.Scc = A < B; D(uint32_t(W.Scc ? A : B)); return true; }
  case Op::s_min_u32: { uint32_t A = S0(), B = S1(); W.Scc = A < B; D(W.Scc ? A : B); return true; }
  case Op::s_max_i32: { int32_t A = S0(), B = S1(); W.Scc = A > B; D(uint32_t(W.Scc ? A : B)); return true; }
  case Op::s_max_u32: { uint32_t A = S0(), B = S1(); W.Scc = A > B; D(W.Scc ? A : B); return true; }
  case Op::s_cselect_b32: D(W.Scc ? S0() : S1()); return true;
  case Op::s_cselect_b64: Dw(W.Scc ? S0w() : S1w()); return true;
#define LOGIC(Name, Expr)                                                        \
  case Op::Name##_b32: { uint32_t A = S0(), B = S1(); uint32_t R = Expr; D(R); W.Scc = R; return true; } \
  case Op::Name##_b64: { uint64_t A = S0w(), B = S1w(); uint64_t R = Expr; Dw(R); W.Scc = R != 0; return true; }
  LOGIC(s_and, A & B)
  LOGIC(s_or, A | B)
  LOGIC(s_xor, A ^ B)
  LOGIC(s_andn2, A & ~B)
  LOGIC(s_orn2, A | ~B)
  LOGIC(s_nand, ~(A & B))
  LOGIC(s_nor, ~(A | B))
  LOGIC(s_xnor, ~(A ^ B))
#undef LOGIC
  case Op::s_lshl_b32: { uint32_t R = S0() << (S1() & 31); D(R); W.Scc = R; return true; }
  case Op::s_lshl_b64: { uint64_t R = S0w() << (S1() & 63); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_lshr_b32: { uint32_t R = S0() >> (S1() & 31); D(R); W.Scc = R; return true; }
  case Op::s_lshr_b64: { uint64_t R = S0w() >> (S1() & 63); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_ashr_i32: { uint32_t R = uint32_t(int32_t(S0()) >> (S1() & 31)); D(R); W.Scc = R; return true; }
  case Op::s_ashr_i64: { uint64_t R = uint64_t(int64_t(S0w()) >> (S1() & 63)); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_bfm_b32: D(((1u << (S0() & 31)) - 1) << (S1() & 31)); return true;
  case Op::s_bfm_b64: Dw(((1ull << (S0() & 63)) - 1) << (S1() & 63)); return true;
  case Op::s_mul_i32: D(S0() * S1()); return true;
  case Op::s_mul_hi_u32: D(uint32_t((uint64_t(S0()) * S1()) >> 32)); return true;
  case Op::s_mul_hi_i32: D(uint32_t((int64_t(int32_t(S0())) * int32_t(S1())) >> 32)); return true;
  case Op::s_bfe_u32: { uint32_t R = uint32_t(bfe(S0(), S1(), false, 32)); D(R); W.Scc = R; return true; }
  case Op::s_bfe_i32: { uint32_t R = uint32_t(bfe(S0(), S1(), true, 32)); D(R); W.Scc = R; return true; }
  case Op::s_bfe_u64: { uint64_t R = bfe(S0w(), S1(), false, 64); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_bfe_i64: { uint64_t R = bfe(S0w(), S1(), true, 64); Dw(R); W.Scc = R != 0; return true; }
  case Op::s_absdiff_i32: {
    int64_t R = int64_t(int32_t(S0())) - int32_t(S1());
    uint32_t U = uint32_t(R < 0 ? -R : R);
    D(U);
    W.Scc = U;
    return true;
  }
  case Op::s_lshl1_add_u32: case Op::s_lshl2_add_u32: case Op::s_lshl3_add_u32:
  case Op::s_lshl4_add_u32: {
    unsigned N = 1 + unsigned(I.Opcode) - unsigned(Op::s_lshl1_add_u32);
    uint64_t R = (uint64_t(S0()) << N) + S1();
    D(uint32_t(R));
    W.Scc = (R >> 32) != 0;
    return true;
  }
  case Op::s_pack_ll_b32_b16: D((S0() & 0xffff) | S1() << 16); return true;
  case Op::s_pack_lh_b32_b16: D((S0() & 0xffff) | (S1() & 0xffff0000u)); return true;
  case Op::s_pack_hh_b32_b16: D((S0() >> 16) | (S1() & 0xffff0000u)); return true;
  case Op::s_pack_hl_b32_b16: D((S0() >> 16) | S1() << 16); return true;
  // GFX9 VGPR index mode: M0[7:0] is the index, M0[15:12] which VALU
  // operands (src0, src1, src2, dst) it offsets.
  case Op::s_set_gpr_idx_on:
    W.S[SgprM0] = (W.S[SgprM0] & ~0xf0ffu) | (readS32(W, O[0]) & 0xff) | (O[1].C32 & 0xf) << 12;
    W.GprIdxEn = true;
    return true;
  case Op::s_set_gpr_idx_off:
    W.GprIdxEn = false;
    return true;
  case Op::s_set_gpr_idx_idx:
    W.S[SgprM0] = (W.S[SgprM0] & ~0xffu) | (readS32(W, O[0]) & 0xff);
    return true;
  case Op::s_set_gpr_idx_mode:
    W.S[SgprM0] = (W.S[SgprM0] & ~0xf000u) | (O[0].C32 & 0xf) << 12;
    return true;
  // SOPC.
  case Op::s_cmp:
    if (I.Type == TyU64 || I.Type == TyI64)
      W.Scc = compare(I.Cond, I.Type, readS64(W, O[0]), readS64(W, O[1]));
    else
      W.Scc = compare(I.Cond, I.Type, readS32(W, O[0]), readS32(W, O[1]));
    return true;
  case Op::s_bitcmp0_b32: W.Scc = !((readS32(W, O[0]) >> (readS32(W, O[1]) & 31)) & 1); return true;
  case Op::s_bitcmp1_b32: W.Scc = (readS32(W, O[0]) >> (readS32(W, O[1]) & 31)) & 1; return true;
  case Op::s_bitcmp0_b64: W.Scc = !((readS64(W, O[0]) >> (readS32(W, O[1]) & 63)) & 1); return true;
  case Op::s_bitcmp1_b64: W.Scc = (readS64(W, O[0]) >> (readS32(W, O[1]) & 63)) & 1; return true;
  default:
    (void)LaneBits;
    return C.unsupported(I);
  }
}

bool execSmem(WaveState &W, const Inst &I, ExecCtx &C) {
  if (I.Opcode == Op::s_memtime) {
    writeS64(W, I.Ops[0], C.Clock);
    return true;
  }
  if (I.Opcode == Op::s_memrealtime) {
    writeS64(W, I.Ops[0], realtimeClock());
    return true;
  }
  const Operand &Dst = I.Ops[0], &Base = I.Ops[1];
  uint64_t Off = I.NumOps > 2 ? readS32(W, I.Ops[2]) : 0;
  Off += uint64_t(int64_t(I.Offset));
  unsigned N = I.Width;
  if (I.Opcode == Op::s_load) {
    // SMEM ignores the two low address bits (dword granularity).
    uint64_t Addr = (readS64(W, Base) + Off) & ~3ull;
    const uint8_t *P = C.Mem->host(Addr, 4ull * N, false);
    if (!P)
      return C.memFault("scalar load", Addr, 4ull * N);
    for (unsigned K = 0; K < N; ++K) {
      uint32_t V;
      memcpy(&V, P + 4 * K, 4);
      writeS32(W, Dst, V, K);
    }
    return true;
  }
  // s_buffer_load: V# in four SGPRs; dwords past num_records read 0.
  uint64_t BaseAddr = (uint64_t(readS32(W, Base, 0)) | uint64_t(readS32(W, Base, 1) & 0xffff) << 32);
  uint32_t Records = readS32(W, Base, 2);
  for (unsigned K = 0; K < N; ++K) {
    uint64_t O = ((Off & ~3ull) + 4ull * K);
    uint32_t V = 0;
    if (O + 4 <= Records) {
      uint64_t Addr = BaseAddr + O;
      const uint8_t *P = C.Mem->host(Addr, 4, false);
      if (!P)
        return C.memFault("scalar buffer load", Addr, 4);
      memcpy(&V, P, 4);
    }
    writeS32(W, Dst, V, K);
  }
  return true;
}

} // namespace ferry::sim
