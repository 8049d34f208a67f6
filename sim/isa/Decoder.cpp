//===- sim/isa/Decoder.cpp - machine code to Inst records -----------------===//
/// \file
/// MC disassembly + printing, then a parser for the AMD assembler syntax the
/// printer produces (operands, modifiers, DPP/SDWA controls). RDNA3 and GFX9
/// spell many instructions differently; both are mapped onto one semantic
/// opcode here, so the executors see a single vocabulary.
//===----------------------------------------------------------------------===//
#include "sim/isa/Decoder.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace llvm;

namespace ferry::sim {

Family familyOf(Op O) {
  static const Family Table[] = {
#define SIM_OP(Name, Fam) Family::Fam,
#include "sim/isa/Ops.def"
#undef SIM_OP
  };
  return O == Op::Unknown ? Family::Nop : Table[static_cast<unsigned>(O)];
}

struct Decoder::MC {
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Dis;
  std::unique_ptr<MCInstPrinter> IP;
};

static void initTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

Decoder::Decoder(Gfx T, uint64_t Shared, uint64_t Private)
    : Target(T), SharedBase(Shared), PrivateBase(Private), Impl(new MC) {
  initTargets();
  Triple TT("amdgcn-amd-amdhsa");
  std::string Err;
  const llvm::Target *LT = TargetRegistry::lookupTarget(TT.str(), Err);
  if (!LT) {
    SetupError = "AMDGPU target unavailable in LLVM: " + Err;
    return;
  }
  MC &M = *Impl;
  M.MRI.reset(LT->createMCRegInfo(TT.str()));
  MCTargetOptions Opts;
  if (M.MRI)
    M.MAI.reset(LT->createMCAsmInfo(*M.MRI, TT.str(), Opts));
  M.MII.reset(LT->createMCInstrInfo());
  const char *Features = T == Gfx::Gfx1100 ? "+wavefrontsize32" : "+wavefrontsize64";
  M.STI.reset(LT->createMCSubtargetInfo(TT.str(), gfxName(T), Features));
  if (!M.MRI || !M.MAI || !M.MII || !M.STI) {
    SetupError = "cannot create the AMDGPU MC layer";
    return;
  }
  M.Ctx = std::make_unique<MCContext>(TT, M.MAI.get(), M.MRI.get(), M.STI.get());
  M.Dis.reset(LT->createMCDisassembler(*M.STI, *M.Ctx));
  M.IP.reset(LT->createMCInstPrinter(TT, M.MAI->getAssemblerDialect(), *M.MAI, *M.MII, *M.MRI));
  if (!M.Dis || !M.IP)
    SetupError = "cannot create the AMDGPU disassembler";
}

Decoder::~Decoder() = default;

std::unique_ptr<Inst> Decoder::decode(const uint8_t *Bytes, size_t Avail, uint64_t Addr,
                                      std::string &Err) {
  if (!SetupError.empty()) {
    Err = SetupError;
    return nullptr;
  }
  MCInst MI;
  uint64_t Size = 0;
  if (Impl->Dis->getInstruction(MI, Size, ArrayRef<uint8_t>(Bytes, Avail), Addr, nulls()) !=
          MCDisassembler::Success ||
      Size == 0) {
    char Buf[64];
    snprintf(Buf, sizeof Buf, "undecodable instruction word 0x%08x",
             Avail >= 4 ? unsigned(Bytes[0] | Bytes[1] << 8 | Bytes[2] << 16 | unsigned(Bytes[3]) << 24)
                        : 0u);
    Err = Buf;
    return nullptr;
  }
  std::string Text;
  raw_string_ostream OS(Text);
  Impl->IP->printInst(&MI, Addr, "", *Impl->STI, OS);
  OS.flush();
  auto I = std::make_unique<Inst>();
  if (!parse(Text, *I, Err)) {
    Err = "unsupported instruction syntax: " + Err + " in '" + I->Text + "'";
    return nullptr;
  }
  I->Size = static_cast<uint8_t>(Size);
  // ds_swizzle's pattern prints as a swizzle(...) macro; the encoding's
  // offset field (bits 15:0 of the first dword on GFX9 and GFX11) is the
  // pattern itself, so read it from there.
  if (I->Opcode == Op::ds_swizzle_b32)
    I->Offset = Bytes[0] | Bytes[1] << 8;
  return I;
}

//===----------------------------------------------------------------------===//
// Text parsing.
//===----------------------------------------------------------------------===//

namespace {

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\n");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\n");
  return S.substr(B, E - B + 1);
}

bool startsWith(const std::string &S, const char *P) { return S.rfind(P, 0) == 0; }
bool endsWith(const std::string &S, const std::string &P) {
  return S.size() >= P.size() && S.compare(S.size() - P.size(), P.size(), P) == 0;
}

/// Splits at Sep outside brackets/parentheses/quotes.
std::vector<std::string> splitTop(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  int Depth = 0;
  bool Quote = false;
  std::string Cur;
  for (char C : S) {
    if (C == '"')
      Quote = !Quote;
    if (!Quote) {
      if (C == '[' || C == '(')
        ++Depth;
      else if (C == ']' || C == ')')
        --Depth;
    }
    if (C == Sep && Depth == 0 && !Quote) {
      Out.push_back(Cur);
      Cur.clear();
    } else {
      Cur += C;
    }
  }
  Out.push_back(Cur);
  return Out;
}

bool parseInt(const std::string &S, int64_t &V) {
  if (S.empty())
    return false;
  char *End = nullptr;
  errno = 0;
  if (S[0] == '-') {
    long long X = strtoll(S.c_str(), &End, 0);
    V = X;
  } else {
    unsigned long long X = strtoull(S.c_str(), &End, 0);
    V = static_cast<int64_t>(X);
  }
  return End && *End == 0 && errno == 0;
}

uint16_t f32ToF16Bits(float F) {
  // Only the exact inline constants reach here (0.5, 1, 2, 4, 1/2pi and
  // their negatives), all representable in half precision but 1/2pi, whose
  // half inline constant is 0x3118 by definition.
  uint32_t B;
  memcpy(&B, &F, 4);
  uint32_t Sign = (B >> 16) & 0x8000;
  int Exp = int((B >> 23) & 0xff) - 127 + 15;
  uint32_t Man = (B >> 13) & 0x3ff;
  return static_cast<uint16_t>(Sign | (Exp << 10) | Man);
}

struct Alias {
  const char *From, *To;
};

// RDNA3 (and GFX10) spellings → canonical ones.
const Alias Aliases[] = {
    {"s_and_not1_b32", "s_andn2_b32"}, {"s_and_not1_b64", "s_andn2_b64"},
    {"s_or_not1_b32", "s_orn2_b32"}, {"s_or_not1_b64", "s_orn2_b64"},
    {"s_ctz_i32_b32", "s_ff1_i32_b32"}, {"s_ctz_i32_b64", "s_ff1_i32_b64"},
    {"s_clz_i32_u32", "s_flbit_i32_b32"}, {"s_clz_i32_u64", "s_flbit_i32_b64"},
    {"s_cls_i32", "s_flbit_i32"}, {"s_cls_i32_i64", "s_flbit_i32_i64"},
    {"v_add_nc_u32", "v_add_u32"}, {"v_sub_nc_u32", "v_sub_u32"},
    {"v_subrev_nc_u32", "v_subrev_u32"}, {"v_add_co_ci_u32", "v_addc_co_u32"},
    {"v_sub_co_ci_u32", "v_subb_co_u32"}, {"v_subrev_co_ci_u32", "v_subbrev_co_u32"},
    {"v_add_nc_u16", "v_add_u16"}, {"v_sub_nc_u16", "v_sub_u16"},
    {"v_add_nc_i32", "v_add_i32"}, {"v_sub_nc_i32", "v_sub_i32"},
    {"v_add_nc_i16", "v_add_i16"}, {"v_sub_nc_i16", "v_sub_i16"},
    {"v_dot2acc_f32_f16", "v_dot2c_f32_f16"}, {"v_cvt_pk_rtz_f16_f32", "v_cvt_pkrtz_f16_f32"},
    {"v_cvt_floor_i32_f32", "v_cvt_flr_i32_f32"}, {"v_cvt_nearest_i32_f32", "v_cvt_rpi_i32_f32"},
    {"v_cls_i32", "v_ffbh_i32"}, {"v_clz_i32_u32", "v_ffbh_u32"}, {"v_ctz_i32_b32", "v_ffbl_b32"},
    {"v_mul_lo_u16", "v_mul_lo_u16"}, {"v_dot4_i32_iu8", "v_dot4_i32_i8"},
    {"v_mad_legacy_u16", "v_mad_u16"}, {"v_mad_legacy_i16", "v_mad_i16"},
    {"v_mad_legacy_f16", "v_mad_f16"}, {"v_fma_legacy_f16", "v_fma_f16"},
    {"v_div_fixup_legacy_f16", "v_div_fixup_f16"},
};

const char *const NopNames[] = {
    "s_nop", "s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt",
    "s_waitcnt_lgkmcnt", "s_waitcnt_depctr", "s_delay_alu", "s_clause", "s_code_end",
    "s_inst_prefetch", "s_icache_inv", "s_dcache_wb", "s_dcache_inv", "s_dcache_wb_vol",
    "s_dcache_inv_vol", "s_gl1_inv", "buffer_wbl2", "buffer_inv", "buffer_gl0_inv",
    "buffer_gl1_inv", "s_ttracedata", "s_set_inst_prefetch_distance", "s_wait_idle",
    "s_sendmsghalt", "s_incperflevel", "s_decperflevel", "s_setkill"};

bool parseCond(const std::string &C, uint8_t &Out) {
  static const char *Names[] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o",
                                "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
  for (unsigned I = 0; I < 16; ++I)
    if (C == Names[I]) {
      Out = I;
      return true;
    }
  if (C == "ne") { Out = CcLg; return true; }
  if (C == "t") { Out = CcTru; return true; }
  return false;
}

bool parseType(const std::string &T, uint8_t &Out) {
  static const char *Names[] = {"i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64"};
  for (unsigned I = 0; I < 9; ++I)
    if (T == Names[I]) {
      Out = I;
      return true;
    }
  if (T == "b32") { Out = TyU32; return true; }
  if (T == "b64") { Out = TyU64; return true; }
  return false;
}

/// Width suffix of a load/store name (both spellings).
bool parseWidth(const std::string &S, uint8_t &W) {
  static const std::pair<const char *, MemWidth> Table[] = {
      {"dword", MwB32}, {"dwordx2", MwB64}, {"dwordx3", MwB96}, {"dwordx4", MwB128},
      {"b32", MwB32}, {"b64", MwB64}, {"b96", MwB96}, {"b128", MwB128},
      {"ubyte", MwU8}, {"sbyte", MwI8}, {"ushort", MwU16}, {"sshort", MwI16},
      {"u8", MwU8}, {"i8", MwI8}, {"u16", MwU16}, {"i16", MwI16},
      {"byte", MwU8}, {"short", MwU16}, {"b8", MwU8}, {"b16", MwU16},
      {"ubyte_d16", MwD16U8}, {"sbyte_d16", MwD16I8}, {"short_d16", MwD16B16},
      {"ubyte_d16_hi", MwD16HiU8}, {"sbyte_d16_hi", MwD16HiI8}, {"short_d16_hi", MwD16HiB16},
      {"byte_d16_hi", MwD16HiU8}, {"d16_u8", MwD16U8}, {"d16_i8", MwD16I8},
      {"d16_b16", MwD16B16}, {"d16_hi_u8", MwD16HiU8}, {"d16_hi_i8", MwD16HiI8},
      {"d16_hi_b16", MwD16HiB16}, {"d16_hi_b8", MwD16HiU8},
      // DS spellings.
      {"u8_d16", MwD16U8}, {"i8_d16", MwD16I8}, {"u16_d16", MwD16B16},
      {"u8_d16_hi", MwD16HiU8}, {"i8_d16_hi", MwD16HiI8}, {"u16_d16_hi", MwD16HiB16},
      {"b8_d16_hi", MwD16HiU8}, {"b16_d16_hi", MwD16HiB16},
  };
  for (auto &[N, V] : Table)
    if (S == N) {
      W = V;
      return true;
    }
  return false;
}

/// Atomic name body (after "global_atomic_" etc.) → kind and 64-bit flag.
bool parseAtomic(std::string S, uint8_t &Kind, bool &Wide) {
  Wide = false;
  const std::string Orig = S;
  for (const char *Suf : {"_x2", "_u64", "_i64", "_b64", "_f64"})
    if (endsWith(S, Suf)) {
      Wide = true;
      if (std::string(Suf) != "_f64")
        S.resize(S.size() - strlen(Suf));
    }
  // RDNA3 / DS spellings carry the signedness in the type suffix.
  bool Unsigned = endsWith(S, "_u32") || endsWith(Orig, "_u64");
  for (const char *Suf : {"_u32", "_i32", "_b32"})
    if (endsWith(S, Suf))
      S.resize(S.size() - 4);
  if (Unsigned && (S == "min" || S == "max"))
    S = S == "min" ? "umin" : "umax";
  static const std::pair<const char *, AtomKind> Table[] = {
      {"add", AkAdd}, {"sub", AkSub}, {"rsub", AkRsub}, {"inc", AkInc}, {"dec", AkDec},
      {"smin", AkMinI}, {"smax", AkMaxI}, {"umin", AkMinU}, {"umax", AkMaxU},
      {"min", AkMinI}, {"max", AkMaxI}, {"and", AkAnd}, {"or", AkOr}, {"xor", AkXor},
      {"swap", AkSwap}, {"cmpswap", AkCmpSwap}, {"add_f32", AkAddF}, {"add_f64", AkAddF},
      {"min_f32", AkMinF}, {"max_f32", AkMaxF}, {"min_f64", AkMinF}, {"max_f64", AkMaxF},
      {"fmin", AkMinF}, {"fmax", AkMaxF}, {"csub", AkCsub}, {"pk_add_f16", AkPkAddF16},
      {"pk_add_bf16", AkPkAddBF16},
      {"cmpswap_f32", AkCmpSwap}};
  for (auto &[N, V] : Table)
    if (S == N) {
      Kind = V;
      if (S == "add_f64" || S == "min_f64" || S == "max_f64")
        Wide = true;
      return true;
    }
  return false;
}

} // namespace

/// Maps a printed mnemonic (suffixes stripped) onto an opcode and its
/// variant fields.
static bool classify(std::string M, Gfx Target, Inst &I) {
  static const std::unordered_map<std::string, Op> Table = [] {
    std::unordered_map<std::string, Op> T;
    unsigned N = 0;
#define SIM_OP(Name, Fam) T.emplace(#Name, static_cast<Op>(N++));
#include "sim/isa/Ops.def"
#undef SIM_OP
    return T;
  }();
  for (const Alias &A : Aliases)
    if (M == A.From) {
      M = A.To;
      break;
    }
  for (const char *N : NopNames)
    if (M == N) {
      I.Opcode = Op::s_nop;
      return true;
    }
  auto Direct = [&](const std::string &Name) {
    auto It = Table.find(Name);
    if (It == Table.end())
      return false;
    I.Opcode = It->second;
    return true;
  };
  auto Rest = [&](const char *Prefix) { return M.substr(strlen(Prefix)); };

  // Compares.
  for (const char *P : {"v_cmpx_class_", "v_cmp_class_"})
    if (startsWith(M, P)) {
      I.Opcode = P[5] == 'x' ? Op::v_cmpx_class : Op::v_cmp_class;
      return parseType(Rest(P), I.Type);
    }
  for (const char *P : {"v_cmpx_", "v_cmp_", "s_cmpk_", "s_cmp_"})
    if (startsWith(M, P)) {
      std::string R = Rest(P);
      size_t U = R.rfind('_');
      if (U == std::string::npos)
        return false;
      if (!parseCond(R.substr(0, U), I.Cond) || !parseType(R.substr(U + 1), I.Type))
        return false;
      I.Opcode = P[0] == 'v' ? (P[5] == 'x' ? Op::v_cmpx : Op::v_cmp)
                             : (P[5] == 'k' ? Op::s_cmpk : Op::s_cmp);
      return true;
    }
  // saveexec / wrexec.
  if (startsWith(M, "s_") && (M.find("_saveexec_b") != std::string::npos ||
                              M.find("_wrexec_b") != std::string::npos)) {
    static const std::pair<const char *, SaveExecKind> K[] = {
        {"s_and_saveexec", SeAnd}, {"s_or_saveexec", SeOr}, {"s_xor_saveexec", SeXor},
        {"s_andn2_saveexec", SeAndN2}, {"s_and_not1_saveexec", SeAndN2},
        {"s_orn2_saveexec", SeOrN2}, {"s_or_not1_saveexec", SeOrN2},
        {"s_nand_saveexec", SeNand}, {"s_nor_saveexec", SeNor}, {"s_xnor_saveexec", SeXnor},
        {"s_andn1_saveexec", SeAndN1}, {"s_and_not0_saveexec", SeAndN1},
        {"s_orn1_saveexec", SeOrN1}, {"s_or_not0_saveexec", SeOrN1},
        {"s_andn1_wrexec", SeAndN1Wr}, {"s_and_not0_wrexec", SeAndN1Wr},
        {"s_andn2_wrexec", SeAndN2Wr}, {"s_and_not1_wrexec", SeAndN2Wr}};
    size_t U = M.rfind('_');
    std::string Base = M.substr(0, U);
    for (auto &[N, V] : K)
      if (Base == N) {
        I.Opcode = Op::s_saveexec;
        I.Atom = V;
        I.Width = endsWith(M, "_b64") ? 8 : 4;
        return true;
      }
    return false;
  }
  // Scalar memory.
  for (const char *P : {"s_load_", "s_buffer_load_"})
    if (startsWith(M, P)) {
      std::string R = Rest(P);
      static const std::pair<const char *, int> W[] = {
          {"dword", 1}, {"dwordx2", 2}, {"dwordx4", 4}, {"dwordx8", 8}, {"dwordx16", 16},
          {"b32", 1}, {"b64", 2}, {"b128", 4}, {"b256", 8}, {"b512", 16}};
      for (auto &[N, V] : W)
        if (R == N) {
          I.Opcode = P[2] == 'l' ? Op::s_load : Op::s_buffer_load;
          I.Width = V;
          return true;
        }
      return false;
    }
  if (M == "s_memtime" || M == "s_getreg_b64_shader_cycles") {
    I.Opcode = Op::s_memtime;
    return true;
  }
  if (M == "s_memrealtime") {
    I.Opcode = Op::s_memrealtime;
    return true;
  }
  if (M == "s_sendmsg_rtn_b32" || M == "s_sendmsg_rtn_b64") {
    I.Opcode = Op::s_sendmsg_rtn;
    I.Width = M.back() == '4' ? 8 : 4;
    return true;
  }
  // Vector memory.
  for (auto [P, Seg] : {std::pair{"global_", SegGlobal}, std::pair{"flat_", SegFlat},
                        std::pair{"scratch_", SegScratch}, std::pair{"buffer_", SegGlobal}}) {
    if (!startsWith(M, P))
      continue;
    bool Buf = P[0] == 'b';
    std::string R = Rest(P);
    I.Seg = Seg;
    if (startsWith(R, "load_") && parseWidth(R.substr(5), I.Width)) {
      I.Opcode = Buf ? Op::buffer_load : Op::flat_load;
      return true;
    }
    if (startsWith(R, "store_") && parseWidth(R.substr(6), I.Width)) {
      I.Opcode = Buf ? Op::buffer_store : Op::flat_store;
      return true;
    }
    if (startsWith(R, "atomic_")) {
      bool Wide;
      if (!parseAtomic(R.substr(7), I.Atom, Wide))
        return false;
      I.Width = Wide ? 8 : 4;
      I.Opcode = Buf ? Op::buffer_atomic : Op::flat_atomic;
      return true;
    }
    if (Buf && (R == "wbinvl1" || R == "wbinvl1_vol" || R == "inv" || R == "wbl2" || R == "invl2"))
      return I.Opcode = Op::s_nop, true;
    return false;
  }
  // LDS.
  if (startsWith(M, "ds_")) {
    std::string R = Rest("ds_");
    if (Direct(M))
      return true;
    if (R == "nop") return I.Opcode = Op::ds_nop, true;
    for (auto [P, O, St] : {std::tuple{"read2st64_", Op::ds_read2, true},
                            std::tuple{"load_2addr_stride64_", Op::ds_read2, true},
                            std::tuple{"read2_", Op::ds_read2, false},
                            std::tuple{"load_2addr_", Op::ds_read2, false},
                            std::tuple{"write2st64_", Op::ds_write2, true},
                            std::tuple{"store_2addr_stride64_", Op::ds_write2, true},
                            std::tuple{"write2_", Op::ds_write2, false},
                            std::tuple{"store_2addr_", Op::ds_write2, false},
                            std::tuple{"read_", Op::ds_read, false},
                            std::tuple{"load_", Op::ds_read, false},
                            std::tuple{"write_", Op::ds_write, false},
                            std::tuple{"store_", Op::ds_write, false}}) {
      if (startsWith(R, P) && parseWidth(R.substr(strlen(P)), I.Width)) {
        I.Opcode = O;
        I.Seg = St; // stride-64 flag for read2/write2
        return true;
      }
    }
    // Atomics: ds_<op>[_rtn]_<type>.
    std::string A = R;
    size_t Rtn = A.find("_rtn");
    if (Rtn != std::string::npos) {
      I.Rtn = true;
      A.erase(Rtn, 4);
    }
    bool Wide = false;
    if (startsWith(A, "wrxchg_") || startsWith(A, "storexchg_")) {
      I.Atom = AkSwap;
      Wide = endsWith(A, "b64");
    } else if (startsWith(A, "cmpst_") || startsWith(A, "cmpstore_")) {
      // GFX9 ds_cmpst: data0 is the compare value; RDNA3 ds_cmpstore:
      // data0 is the new value (the manuals swapped the order).
      I.Atom = startsWith(A, "cmpst_") ? AkCmpSwapDs9 : AkCmpSwap;
      Wide = endsWith(A, "64");
    } else if (startsWith(A, "mskor_")) {
      I.Atom = AkMskor;
      Wide = endsWith(A, "64");
    } else if (!parseAtomic(A, I.Atom, Wide)) {
      return false;
    }
    I.Width = Wide ? 8 : 4;
    I.Opcode = Op::ds_atomic;
    return true;
  }
  (void)Target;
  return Direct(M);
}

static bool parseRegister(const std::string &S, Operand &O) {
  auto Range = [&](size_t Start, OpndKind K) {
    O.Kind = K;
    if (S[Start] == '[') {
      unsigned A, B;
      if (sscanf(S.c_str() + Start, "[%u:%u]", &A, &B) != 2 || B < A)
        return false;
      O.Reg = A;
      O.Count = B - A + 1;
      return true;
    }
    int64_t V;
    if (!parseInt(S.substr(Start), V))
      return false;
    O.Reg = static_cast<uint16_t>(V);
    O.Count = 1;
    return true;
  };
  if (S.size() >= 2 && (S[0] == 's' || S[0] == 'v' || S[0] == 'a') &&
      (isdigit(S[1]) || S[1] == '['))
    return Range(1, S[0] == 's' ? OpndKind::Sgpr : S[0] == 'v' ? OpndKind::Vgpr : OpndKind::Agpr);
  if (startsWith(S, "ttmp")) {
    if (!Range(4, OpndKind::Sgpr))
      return false;
    O.Reg += SgprTtmp0;
    return true;
  }
  static const std::tuple<const char *, uint16_t, uint8_t> Named[] = {
      {"vcc", SgprVccLo, 2}, {"vcc_lo", SgprVccLo, 1}, {"vcc_hi", SgprVccHi, 1},
      {"exec", SgprExecLo, 2}, {"exec_lo", SgprExecLo, 1}, {"exec_hi", SgprExecHi, 1},
      {"m0", SgprM0, 1}, {"flat_scratch", SgprFlatScratchLo, 2},
      {"flat_scratch_lo", SgprFlatScratchLo, 1}, {"flat_scratch_hi", SgprFlatScratchLo + 1, 1},
      {"xnack_mask", SgprXnackLo, 2}, {"xnack_mask_lo", SgprXnackLo, 1},
      {"xnack_mask_hi", SgprXnackLo + 1, 1}};
  for (auto &[N, R, C] : Named)
    if (S == N) {
      O.Kind = OpndKind::Sgpr;
      O.Reg = R;
      O.Count = C;
      return true;
    }
  return false;
}

static void setConst(Operand &O, int64_t V) {
  O.Kind = OpndKind::Const;
  O.C64 = static_cast<uint64_t>(V);
  O.C32 = static_cast<uint32_t>(V);
  O.C16 = static_cast<uint16_t>(V);
}

static bool parseOperand(std::string S, Operand &O, uint64_t SharedBase, uint64_t PrivateBase) {
  S = trim(S);
  if (startsWith(S, "sext(") && endsWith(S, ")")) {
    O.Sext = true;
    S = S.substr(5, S.size() - 6);
  }
  if (startsWith(S, "neg(") && endsWith(S, ")")) {
    O.Neg = true;
    S = S.substr(4, S.size() - 5);
  }
  if (startsWith(S, "abs(") && endsWith(S, ")")) {
    O.Abs = true;
    S = S.substr(4, S.size() - 5);
  }
  if (S.size() > 1 && S[0] == '-' && !isdigit(S[1])) {
    O.Neg = true;
    S = S.substr(1);
  }
  if (S.size() > 2 && S.front() == '|' && S.back() == '|') {
    O.Abs = true;
    S = S.substr(1, S.size() - 2);
  }
  if (parseRegister(S, O))
    return true;
  if (S == "off") return O.Kind = OpndKind::Off, true;
  if (S == "null") return O.Kind = OpndKind::Null, true;
  if (S == "scc" || S == "src_scc") return O.Kind = OpndKind::Scc, true;
  if (S == "src_execz" || S == "execz") return O.Kind = OpndKind::ExecZ, true;
  if (S == "src_vccz" || S == "vccz") return O.Kind = OpndKind::VccZ, true;
  if (S == "src_shared_base" || S == "src_private_base") {
    // As a 32-bit operand the aperture reads as its high half (what a
    // kernel ORs into the high dword of a flat address); as 64 bits, whole.
    uint64_t B = S == "src_shared_base" ? SharedBase : PrivateBase;
    setConst(O, static_cast<int64_t>(B));
    O.C32 = static_cast<uint32_t>(B >> 32);
    return true;
  }
  if (S == "src_shared_limit" || S == "src_private_limit") {
    uint64_t B = (S == "src_shared_limit" ? SharedBase : PrivateBase) + 0xffffffffull;
    setConst(O, static_cast<int64_t>(B));
    O.C32 = static_cast<uint32_t>(B >> 32);
    return true;
  }
  if (S == "src_pops_exiting_wave_id") {
    setConst(O, 0);
    return true;
  }
  int64_t V;
  if (parseInt(S, V)) {
    setConst(O, V);
    O.Literal = startsWith(S, "0x");
    return true;
  }
  // Inline float constants: one bit pattern per width.
  if (S.find('.') != std::string::npos) {
    char *End = nullptr;
    double D = strtod(S.c_str(), &End);
    if (!End || *End)
      return false;
    O.Kind = OpndKind::Const;
    bool InvTwoPi = std::fabs(std::fabs(D) - 0.15915494) < 1e-7;
    if (InvTwoPi) {
      // 1/(2*pi) has fixed encodings per width (the manuals list them).
      O.C16 = 0x3118;
      O.C32 = 0x3e22f983;
      O.C64 = 0x3fc45f306dc9c882ull;
      return true;
    }
    float F = static_cast<float>(D);
    memcpy(&O.C32, &F, 4);
    memcpy(&O.C64, &D, 8);
    O.C16 = f32ToF16Bits(F);
    return true;
  }
  return false;
}

static bool parseBits(const std::string &V, uint8_t &Out) {
  // "[0,1,0]" → bit mask.
  if (V.size() < 2 || V.front() != '[' || V.back() != ']')
    return false;
  Out = 0;
  unsigned Bit = 0;
  for (char C : V.substr(1, V.size() - 2)) {
    if (C == '1')
      Out |= 1u << Bit;
    if (C == ',')
      ++Bit;
  }
  return true;
}

static uint8_t parseSel(const std::string &V) {
  if (V == "BYTE_0") return 0;
  if (V == "BYTE_1") return 1;
  if (V == "BYTE_2") return 2;
  if (V == "BYTE_3") return 3;
  if (V == "WORD_0") return SelWord0;
  if (V == "WORD_1") return SelWord1;
  return SelDword;
}

static bool parseModifier(const std::string &T, Inst &I, std::string &Err) {
  size_t C = T.find(':');
  std::string K = C == std::string::npos ? T : T.substr(0, C);
  std::string V = C == std::string::npos ? "" : T.substr(C + 1);
  int64_t N = 0;
  auto Num = [&] {
    if (!parseInt(V, N)) {
      Err = "bad modifier value '" + T + "'";
      return false;
    }
    return true;
  };
  if (K == "offset") {
    if (startsWith(V, "swizzle("))
      return true; // read from the encoding (ds_swizzle)
    if (!Num()) return false;
    I.Offset = static_cast<int32_t>(N);
  } else if (K == "offset0") {
    if (!Num()) return false;
    I.Offset = static_cast<int32_t>(N);
  } else if (K == "offset1") {
    if (!Num()) return false;
    I.Offset1 = static_cast<int32_t>(N);
  } else if (K == "glc" || K == "sc0") {
    I.Glc = true;
  } else if (K == "slc" || K == "sc1") {
    I.Slc = true;
  } else if (K == "nt") {
    I.Nt = true;
  } else if (K == "dlc") {
    I.Dlc = true;
  } else if (K == "offen") {
    I.Offen = true;
  } else if (K == "idxen") {
    I.Idxen = true;
  } else if (K == "gds") {
    I.Gds = true;
  } else if (K == "lds") {
    I.Lds = true;
  } else if (K == "tfe") {
    I.Tfe = true;
  } else if (K == "clamp") {
    I.Clamp = true;
  } else if (K == "mul") {
    I.Omod = V == "2" ? 1 : 2;
  } else if (K == "div") {
    I.Omod = 3;
  } else if (K == "op_sel") {
    return parseBits(V, I.OpSel);
  } else if (K == "op_sel_hi") {
    I.OpSelHiGiven = true;
    return parseBits(V, I.OpSelHi);
  } else if (K == "neg_lo") {
    return parseBits(V, I.NegLo);
  } else if (K == "neg_hi") {
    return parseBits(V, I.NegHi);
  } else if (K == "quad_perm") {
    unsigned A, B, Cc, D;
    if (sscanf(V.c_str(), "[%u,%u,%u,%u]", &A, &B, &Cc, &D) != 4)
      return Err = "bad quad_perm", false;
    I.Dpp = DppKind::QuadPerm;
    I.DppCtrl = A | B << 2 | Cc << 4 | D << 6;
  } else if (K == "dpp8") {
    unsigned S[8];
    if (sscanf(V.c_str(), "[%u,%u,%u,%u,%u,%u,%u,%u]", &S[0], &S[1], &S[2], &S[3], &S[4],
               &S[5], &S[6], &S[7]) != 8)
      return Err = "bad dpp8", false;
    I.Dpp = DppKind::Dpp8;
    I.DppCtrl = 0;
    for (unsigned L = 0; L < 8; ++L)
      I.DppCtrl |= S[L] << (3 * L);
  } else if (K == "row_shl" || K == "row_shr" || K == "row_ror" || K == "row_share" ||
             K == "row_xmask" || K == "row_bcast") {
    if (!Num()) return false;
    I.DppCtrl = static_cast<uint32_t>(N);
    I.Dpp = K == "row_shl" ? DppKind::RowShl : K == "row_shr" ? DppKind::RowShr
          : K == "row_ror" ? DppKind::RowRor : K == "row_share" ? DppKind::RowShare
          : K == "row_xmask" ? DppKind::RowXmask
          : N == 15 ? DppKind::RowBcast15 : DppKind::RowBcast31;
  } else if (K == "wave_shl" || K == "wave_rol" || K == "wave_shr" || K == "wave_ror") {
    I.Dpp = K == "wave_shl" ? DppKind::WaveShl : K == "wave_rol" ? DppKind::WaveRol
          : K == "wave_shr" ? DppKind::WaveShr : DppKind::WaveRor;
  } else if (K == "row_mirror") {
    I.Dpp = DppKind::RowMirror;
  } else if (K == "row_half_mirror") {
    I.Dpp = DppKind::RowHalfMirror;
  } else if (K == "row_bcast15") {
    I.Dpp = DppKind::RowBcast15;
  } else if (K == "row_bcast31") {
    I.Dpp = DppKind::RowBcast31;
  } else if (K == "row_mask") {
    if (!Num()) return false;
    I.RowMask = static_cast<uint8_t>(N);
  } else if (K == "bank_mask") {
    if (!Num()) return false;
    I.BankMask = static_cast<uint8_t>(N);
  } else if (K == "bound_ctrl") {
    // LLVM prints the BOUND_CTRL bit as bound_ctrl:0 on GFX9 for
    // historical reasons and bound_ctrl:1 later: present means set.
    I.BoundCtrl = true;
  } else if (K == "fi") {
    I.FetchInactive = V == "1";
  } else if (K == "dst_sel") {
    I.DstSel = parseSel(V);
  } else if (K == "src0_sel") {
    I.Src0Sel = parseSel(V);
  } else if (K == "src1_sel") {
    I.Src1Sel = parseSel(V);
  } else if (K == "dst_unused") {
    I.DstUnused = V == "UNUSED_SEXT" ? 1 : V == "UNUSED_PRESERVE" ? 2 : 0;
  } else if (K == "addr64" || K == "format" || K == "vm" || K == "compr" || K == "done" ||
             K == "high") {
    // Not modelled operands of encodings the simulator does not execute;
    // the executor rejects those instructions by opcode.
  } else {
    Err = "unknown modifier '" + T + "'";
    return false;
  }
  return true;
}

/// A modifier is key:value with the ':' outside brackets, or a bare flag.
static bool isModifierToken(const std::string &T) {
  int Depth = 0;
  for (char C : T) {
    if (C == '[' || C == '(')
      ++Depth;
    else if (C == ']' || C == ')')
      --Depth;
    else if (C == ':' && Depth == 0)
      return true;
  }
  static const char *Flags[] = {"glc", "slc", "dlc", "sc0", "sc1", "nt", "offen", "idxen",
                                "gds", "lds", "tfe", "clamp", "row_mirror",
                                "row_half_mirror", "addr64", "row_bcast15", "row_bcast31"};
  for (const char *F : Flags)
    if (T == F)
      return true;
  return false;
}

static bool parseOne(const std::string &Text, Gfx Target, Inst &I, std::string &Err,
                     uint64_t SharedBase, uint64_t PrivateBase) {
  std::string S = trim(Text);
  size_t Sp = S.find_first_of(" \t");
  std::string M = Sp == std::string::npos ? S : S.substr(0, Sp);
  std::string Rest = Sp == std::string::npos ? "" : trim(S.substr(Sp));
  for (const char *Suf : {"_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"})
    if (endsWith(M, Suf)) {
      if (std::string(Suf) == "_e64" || std::string(Suf) == "_e64_dpp")
        I.Vop3 = true;
      if (std::string(Suf) == "_sdwa")
        I.Sdwa = true;
      M.resize(M.size() - strlen(Suf));
      break;
    }
  I.Mnemonic = M;
  if (!classify(M, Target, I)) {
    I.Opcode = Op::Unknown;
    return true; // reported when executed, with the PC and kernel
  }
  if (I.Opcode == Op::s_nop || I.Opcode == Op::s_sendmsg)
    return true;
  if (I.Opcode == Op::s_sendmsg_rtn) {
    // "sdst, sendmsg(MSG_RTN_...)": the destination, the message stays in
    // the text.
    std::string Dst = trim(Rest.substr(0, Rest.find(',')));
    if (!parseOperand(Dst, I.Ops[0], SharedBase, PrivateBase))
      return Err = "bad s_sendmsg_rtn destination", false;
    I.NumOps = 1;
    return true;
  }
  if (Rest.empty())
    return true;
  // hwreg(...) operands of s_getreg/s_setreg: encode as the SIMM16 field.
  std::vector<std::string> Parts = splitTop(Rest, ',');
  unsigned NOps = 0;
  for (size_t P = 0; P < Parts.size(); ++P) {
    std::vector<std::string> Toks;
    for (const std::string &T : splitTop(trim(Parts[P]), ' '))
      if (!trim(T).empty())
        Toks.push_back(trim(T));
    for (size_t T = 0; T < Toks.size(); ++T) {
      const std::string &Tok = Toks[T];
      bool First = T == 0;
      (void)First;
      if (First && startsWith(Tok, "gpr_idx(")) {
        // s_set_gpr_idx_on's mode: SRC0=1, SRC1=2, SRC2=4, DST=8.
        unsigned Mask = 0;
        for (auto [N, B] : {std::pair{"SRC0", 1}, std::pair{"SRC1", 2}, std::pair{"SRC2", 4},
                            std::pair{"DST", 8}})
          if (Tok.find(N) != std::string::npos)
            Mask |= B;
        setConst(I.Ops[NOps++], Mask);
        continue;
      }
      if (First && startsWith(Tok, "hwreg(")) {
        static const std::pair<const char *, unsigned> Regs[] = {
            {"HW_REG_MODE", 1}, {"HW_REG_STATUS", 2}, {"HW_REG_TRAPSTS", 3},
            {"HW_REG_HW_ID", 4}, {"HW_REG_GPR_ALLOC", 5}, {"HW_REG_LDS_ALLOC", 6},
            {"HW_REG_IB_STS", 7}, {"HW_REG_SH_MEM_BASES", 15}, {"HW_REG_HW_ID1", 23},
            {"HW_REG_HW_ID2", 24}, {"HW_REG_XNACK_MASK", 22}, {"HW_REG_SHADER_CYCLES", 29}};
        std::vector<std::string> F = splitTop(Tok.substr(6, Tok.size() - 7), ',');
        unsigned Id = 0, Off = 0, Size = 32;
        std::string Name = trim(F[0]);
        int64_t V;
        bool Found = false;
        for (auto &[N, R] : Regs)
          if (Name == N)
            Id = R, Found = true;
        if (!Found && parseInt(Name, V))
          Id = static_cast<unsigned>(V), Found = true;
        if (!Found)
          return Err = "unknown hardware register " + Name, false;
        if (F.size() == 3 && parseInt(trim(F[1]), V)) {
          Off = static_cast<unsigned>(V);
          if (parseInt(trim(F[2]), V))
            Size = static_cast<unsigned>(V);
        }
        Operand &O = I.Ops[NOps++];
        setConst(O, Id | Off << 6 | (Size - 1) << 11);
        continue;
      }
      if (isModifierToken(Tok)) {
        if (!parseModifier(Tok, I, Err))
          return false;
        continue;
      }
      if (NOps >= 6)
        return Err = "too many operands", false;
      Operand &O = I.Ops[NOps];
      if (!parseOperand(Tok, O, SharedBase, PrivateBase)) {
        Err = "cannot parse operand '" + Tok + "'";
        return false;
      }
      ++NOps;
    }
  }
  I.NumOps = static_cast<uint8_t>(NOps);
  // A literal for an f64 operand is the high half of the double (the
  // printer shows the 32 encoded bits); integer 64-bit operands take the
  // literal as printed.
  if (M.find("_f64") != std::string::npos)
    for (unsigned K = 0; K < NOps; ++K)
      if (I.Ops[K].Kind == OpndKind::Const && I.Ops[K].Literal && I.Ops[K].C64 <= 0xffffffffull)
        I.Ops[K].C64 <<= 32;
  for (unsigned K = 0; K < NOps; ++K) {
    const Operand &O = I.Ops[K];
    int Top = O.Reg + O.Count - 1;
    if (O.Kind == OpndKind::Vgpr)
      I.MaxVgpr = std::max<int16_t>(I.MaxVgpr, static_cast<int16_t>(Top));
    else if (O.Kind == OpndKind::Agpr)
      I.MaxAgpr = std::max<int16_t>(I.MaxAgpr, static_cast<int16_t>(Top));
    else if (O.Kind == OpndKind::Sgpr && O.Reg < SgprFlatScratchLo)
      I.MaxSgpr = std::max<int16_t>(I.MaxSgpr, static_cast<int16_t>(Top));
  }
  // RDNA3 atomics return with glc, CDNA3 with sc0 (printed as glc/sc0).
  if (I.Opcode == Op::flat_atomic || I.Opcode == Op::buffer_atomic)
    I.Rtn = I.Glc;
  return true;
}

bool Decoder::parse(const std::string &Text, Inst &I, std::string &Err) const {
  I.Text = trim(Text);
  size_t Dual = I.Text.find(" :: ");
  if (Dual == std::string::npos)
    return parseOne(I.Text, Target, I, Err, SharedBase, PrivateBase);
  // VOPD: two VALU ops issued together; "v_dual_x" is "v_x".
  std::string X = I.Text.substr(0, Dual), Y = I.Text.substr(Dual + 4);
  auto Undual = [](std::string S) {
    S = trim(S);
    if (startsWith(S, "v_dual_"))
      S = "v_" + S.substr(7);
    return S;
  };
  if (!parseOne(Undual(X), Target, I, Err, SharedBase, PrivateBase))
    return false;
  I.Second = std::make_shared<Inst>();
  I.Second->Text = I.Text;
  if (!parseOne(Undual(Y), Target, *I.Second, Err, SharedBase, PrivateBase))
    return false;
  I.MaxVgpr = std::max(I.MaxVgpr, I.Second->MaxVgpr);
  I.MaxSgpr = std::max(I.MaxSgpr, I.Second->MaxSgpr);
  if (I.Second->Opcode == Op::Unknown)
    I.Opcode = Op::Unknown, I.Mnemonic = I.Second->Mnemonic;
  return true;
}

} // namespace ferry::sim
