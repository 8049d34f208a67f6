//===- sim/isa/Inst.h - one decoded instruction ---------------------------===//
/// \file
/// The simulator's own record of an instruction, parsed from the AMD
/// assembler text LLVM's MC printer produces. Parsing text rather than
/// reading MCInst operands keeps the simulator independent of LLVM's
/// internal opcode enumeration (not installed in Debian's headers) and of
/// how LLVM models operands; the text is the documented assembler syntax.
//===----------------------------------------------------------------------===//
#ifndef FERRY_SIM_ISA_INST_H
#define FERRY_SIM_ISA_INST_H

#include <cstdint>
#include <memory>
#include <string>

namespace ferry::sim {

/// Semantic opcodes. The enumerators are spelled as the canonical (mostly
/// GFX9) mnemonics so that Ops.def reads like the manuals; RDNA3 spellings
/// are mapped onto them in the decoder.
enum class Op : uint16_t {
#define SIM_OP(Name, Family) Name,
#include "Ops.def"
#undef SIM_OP
  Unknown
};

enum class Family : uint8_t { Scalar, Smem, Valu, Ds, Flat, Mubuf, Nop };

Family familyOf(Op O);

enum class OpndKind : uint8_t {
  None,
  Sgpr,   // includes vcc/exec/m0/flat_scratch/ttmp by their encoding index
  Vgpr,
  Agpr,
  Const,  // inline constant or literal: values per read width precomputed
  Scc,    // src_scc / scc as an operand
  ExecZ,  // src_execz
  VccZ,   // src_vccz
  Null,   // null (reads 0, writes discarded)
  Off,    // "off"
  Label,  // a branch target (immediate in the text)
};

/// Special SGPR indices as the hardware encodes them (GFX9 numbering;
/// RDNA3 shares vcc/m0/null/exec).
enum : uint16_t {
  SgprFlatScratchLo = 102,
  SgprXnackLo = 104,
  SgprVccLo = 106,
  SgprVccHi = 107,
  SgprTtmp0 = 108,
  SgprM0 = 124,
  SgprNull = 125,
  SgprExecLo = 126,
  SgprExecHi = 127,
  NumSgprSlots = 128,
};

struct Operand {
  OpndKind Kind = OpndKind::None;
  uint8_t Count = 1;  // registers (dwords) named
  bool Neg = false, Abs = false, Sext = false;
  bool Literal = false; // a hex literal (not an inline constant)
  uint16_t Reg = 0;
  // Const: the value read as 16, 32 and 64 bits (an inline float constant
  // means a different bit pattern at each width).
  uint16_t C16 = 0;
  uint32_t C32 = 0;
  uint64_t C64 = 0;
  bool isReg() const {
    return Kind == OpndKind::Sgpr || Kind == OpndKind::Vgpr || Kind == OpndKind::Agpr;
  }
};

/// DPP controls (GFX9 / GFX10+ encodings, as LLVM prints them).
enum class DppKind : uint8_t {
  None, QuadPerm, RowShl, RowShr, RowRor, WaveShl, WaveRol, WaveShr, WaveRor,
  RowMirror, RowHalfMirror, RowBcast15, RowBcast31, RowShare, RowXmask, Dpp8
};

/// SDWA selects: 0..3 byte, 4..5 word, 6 dword. Unused: 6.
enum : uint8_t { SelByte0 = 0, SelWord0 = 4, SelWord1 = 5, SelDword = 6 };

enum CmpCond : uint8_t {
  CcF, CcLt, CcEq, CcLe, CcGt, CcLg, CcGe, CcO, CcU, CcNge, CcNlg, CcNgt,
  CcNle, CcNeq, CcNlt, CcTru
};
enum CmpType : uint8_t { TyI16, TyU16, TyI32, TyU32, TyI64, TyU64, TyF16, TyF32, TyF64 };
enum MemWidth : uint8_t {
  MwU8, MwI8, MwU16, MwI16, MwB32, MwB64, MwB96, MwB128,
  MwD16U8, MwD16I8, MwD16B16, MwD16HiU8, MwD16HiI8, MwD16HiB16
};
enum AtomKind : uint8_t {
  AkAdd, AkSub, AkRsub, AkInc, AkDec, AkMinI, AkMaxI, AkMinU, AkMaxU, AkAnd,
  AkOr, AkXor, AkSwap, AkCmpSwap /* data = {src, cmp} */, AkCmpSwapDs9 /* data0 cmp, data1 src */,
  AkAddF, AkMinF, AkMaxF, AkMskor, AkCsub, AkPkAddF16, AkPkAddBF16
};
enum SaveExecKind : uint8_t { SeAnd, SeOr, SeXor, SeAndN2, SeOrN2, SeNand, SeNor, SeXnor,
  SeAndN1, SeOrN1, SeAndN1Wr, SeAndN2Wr };
enum Segment : uint8_t { SegFlat, SegGlobal, SegScratch };

struct Inst {
  Op Opcode = Op::Unknown;
  uint8_t Size = 4;     // bytes
  uint8_t NumOps = 0;
  bool Vop3 = false;    // printed with _e64 / VOP3 encoding
  bool Sdwa = false;
  bool Clamp = false;
  uint8_t Omod = 0;     // 0 none, 1 mul:2, 2 mul:4, 3 div:2
  // Memory modifiers.
  int32_t Offset = 0, Offset1 = 0;
  bool Glc = false, Slc = false, Nt = false, Dlc = false, Offen = false,
       Idxen = false, Gds = false, Lds = false, Tfe = false;
  // Variant of a family opcode: compare condition / type (v_cmp, s_cmp,
  // s_cmpk), memory width code (MemWidth), atomic kind (AtomKind) and
  // segment (Seg), saveexec kind, SMEM dwords.
  uint8_t Cond = 0, Type = 0, Width = 0, Atom = 0, Seg = 0;
  bool Rtn = false;  // atomic returns the old value (glc / sc0 / _rtn)
  uint8_t OpSel = 0, OpSelHi = 7, NegLo = 0, NegHi = 0;
  bool OpSelHiGiven = false;
  // DPP.
  DppKind Dpp = DppKind::None;
  uint32_t DppCtrl = 0;  // quad_perm packed 2 bits each / shift / dpp8 sel
  uint8_t RowMask = 0xf, BankMask = 0xf;
  bool BoundCtrl = false, FetchInactive = false;
  // SDWA.
  uint8_t DstSel = SelDword, Src0Sel = SelDword, Src1Sel = SelDword;
  uint8_t DstUnused = 0;  // 0 pad, 1 sext, 2 preserve
  // Highest register index named, for the allocation check.
  int16_t MaxSgpr = -1, MaxVgpr = -1, MaxAgpr = -1;
  Operand Ops[6];
  // VOPD (RDNA3 dual issue): the Y half lives in a second record.
  std::shared_ptr<Inst> Second;
  std::string Text;      // the printed form, for error messages
  std::string Mnemonic;  // as printed (without suffix), for error messages
};

} // namespace ferry::sim

#endif
