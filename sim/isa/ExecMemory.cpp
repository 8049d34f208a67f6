//===- sim/isa/ExecMemory.cpp - FLAT/GLOBAL/SCRATCH and MUBUF -------------===//
/// \file
/// Vector memory, performed immediately (so s_waitcnt has nothing to wait
/// for). Global addresses must lie in the runtime's MemoryMap; flat
/// addresses in the shared aperture reach LDS and in the private aperture
/// reach the lane's private memory; scratch instructions and the private
/// segment buffer (a V# whose base is the private aperture, which the
/// simulator hands the kernel) address the lane's private memory directly.
/// Atomics are performed lane by lane in lane order with host atomics, and
/// fault when not naturally aligned, as the hardware does.
//===----------------------------------------------------------------------===//
#include "sim/isa/Exec.h"

#include <cmath>
#include <cstdio>

namespace ferry::sim {

bool ExecCtx::memFault(const char *What, uint64_t Addr, uint64_t Size) {
  char Buf[256];
  snprintf(Buf, sizeof Buf,
           "memory fault: %s of %llu bytes at address 0x%llx (PC 0x%llx, %s, kernel %s)", What,
           (unsigned long long)Size, (unsigned long long)Addr, (unsigned long long)CurPc,
           gfxName(Target), KernelName.c_str());
  return fail(DispatchResult::MemoryFault, Buf);
}

bool ExecCtx::unsupported(const Inst &I, const std::string &Why) {
  char Buf[160];
  snprintf(Buf, sizeof Buf, " on %s at PC 0x%llx (offset 0x%llx), kernel %s", gfxName(Target),
           (unsigned long long)CurPc, (unsigned long long)(CurPc - KernelCode),
           KernelName.c_str());
  std::string M = "unsupported instruction '" + I.Mnemonic + "' (" + I.Text + ")" + Buf;
  if (!Why.empty())
    M += ": " + Why;
  return fail(DispatchResult::Unsupported, M);
}

namespace {

unsigned widthBytes(uint8_t W) {
  switch (W) {
  case MwU8: case MwI8: case MwD16U8: case MwD16I8: case MwD16HiU8: case MwD16HiI8: return 1;
  case MwU16: case MwI16: case MwD16B16: case MwD16HiB16: return 2;
  case MwB32: return 4;
  case MwB64: return 8;
  case MwB96: return 12;
  default: return 16;
  }
}

/// Writes loaded bytes to the destination register(s) per the width code.
void loadResult(WaveState &W, const Operand &D, unsigned L, uint8_t Width, const uint8_t *P) {
  uint32_t Old = readV32(W, D, L);
  auto U8 = [&] { return uint32_t(P[0]); };
  auto I8 = [&] { return uint32_t(int32_t(int8_t(P[0]))); };
  auto U16 = [&] { return uint32_t(P[0] | P[1] << 8); };
  switch (Width) {
  case MwU8: writeV32(W, D, L, U8()); return;
  case MwI8: writeV32(W, D, L, I8()); return;
  case MwU16: writeV32(W, D, L, U16()); return;
  case MwI16: writeV32(W, D, L, uint32_t(int32_t(int16_t(U16())))); return;
  case MwD16U8: writeV32(W, D, L, (Old & 0xffff0000u) | U8()); return;
  case MwD16I8: writeV32(W, D, L, (Old & 0xffff0000u) | (I8() & 0xffff)); return;
  case MwD16B16: writeV32(W, D, L, (Old & 0xffff0000u) | U16()); return;
  case MwD16HiU8: writeV32(W, D, L, (Old & 0xffff) | U8() << 16); return;
  case MwD16HiI8: writeV32(W, D, L, (Old & 0xffff) | I8() << 16); return;
  case MwD16HiB16: writeV32(W, D, L, (Old & 0xffff) | U16() << 16); return;
  default: {
    unsigned N = widthBytes(Width) / 4;
    for (unsigned K = 0; K < N; ++K) {
      uint32_t V;
      memcpy(&V, P + 4 * K, 4);
      writeV32(W, D, L, V, K);
    }
  }
  }
}

/// The bytes a store writes, from the data register(s).
unsigned storeData(const WaveState &W, const Operand &S, unsigned L, uint8_t Width, uint8_t *P) {
  uint32_t V = readV32(W, S, L);
  switch (Width) {
  case MwU8: case MwI8: P[0] = uint8_t(V); return 1;
  case MwU16: case MwI16: memcpy(P, &V, 2); return 2;
  case MwD16HiU8: P[0] = uint8_t(V >> 16); return 1;
  case MwD16HiB16: { uint16_t H = uint16_t(V >> 16); memcpy(P, &H, 2); return 2; }
  default: {
    unsigned N = widthBytes(Width) / 4;
    for (unsigned K = 0; K < N; ++K) {
      uint32_t X = readV32(W, S, L, K);
      memcpy(P + 4 * K, &X, 4);
    }
    return 4 * N;
  }
  }
}

template <typename T> T atomicOp(uint8_t Kind, T Old, T Src, T Cmp, bool &Store) {
  Store = true;
  using S = std::make_signed_t<T>;
  switch (Kind) {
  case AkAdd: return Old + Src;
  case AkSub: return Old - Src;
  case AkRsub: return Src - Old;
  case AkInc: return Old >= Src ? 0 : Old + 1;
  case AkDec: return (Old == 0 || Old > Src) ? Src : Old - 1;
  case AkMinI: return S(Old) < S(Src) ? Old : Src;
  case AkMaxI: return S(Old) > S(Src) ? Old : Src;
  case AkMinU: return Old < Src ? Old : Src;
  case AkMaxU: return Old > Src ? Old : Src;
  case AkAnd: return Old & Src;
  case AkOr: return Old | Src;
  case AkXor: return Old ^ Src;
  case AkSwap: return Src;
  case AkCmpSwap: case AkCmpSwapDs9:
    Store = Old == Cmp;
    return Store ? Src : Old;
  case AkCsub: return Old >= Src ? Old - Src : 0;
  case AkMskor: return (Old & ~Src) | Cmp;
  case AkAddF: case AkMinF: case AkMaxF: {
    using F = std::conditional_t<sizeof(T) == 4, float, double>;
    F A = bitCast<F>(Old), B = bitCast<F>(Src), R;
    if (Kind == AkAddF)
      R = A + B;
    else if (std::isnan(A) || std::isnan(B))
      R = std::isnan(A) ? B : A;
    else
      R = Kind == AkMinF ? std::fmin(A, B) : std::fmax(A, B);
    return bitCast<T>(R);
  }
  case AkPkAddF16: {
    uint32_t O = uint32_t(Old), Sv = uint32_t(Src);
    uint32_t Lo = floatToHalf(halfToFloat(uint16_t(O)) + halfToFloat(uint16_t(Sv)));
    uint32_t Hi = floatToHalf(halfToFloat(uint16_t(O >> 16)) + halfToFloat(uint16_t(Sv >> 16)));
    return T(Lo | Hi << 16);
  }
  case AkPkAddBF16: {
    // gfx942's global/flat/ds pk_add_bf16 (CDNA3 ISA, "GLOBAL_ATOMIC_PK_ADD_BF16",
    // "DS_PK_ADD_BF16"): two bf16 sums, round to nearest even. An f32 sum
    // rounded again to bf16 is correctly rounded (24 >= 2*8+2 bits).
    auto Add = [](uint16_t A, uint16_t B) -> uint32_t {
      float S = bitCast<float>(uint32_t(A) << 16) + bitCast<float>(uint32_t(B) << 16);
      uint32_t X = bitCast<uint32_t>(S);
      if (std::isnan(S))
        return 0x7fc0;
      return (X + 0x7fff + ((X >> 16) & 1)) >> 16;
    };
    uint32_t O = uint32_t(Old), Sv = uint32_t(Src);
    return T(Add(uint16_t(O), uint16_t(Sv)) | Add(uint16_t(O >> 16), uint16_t(Sv >> 16)) << 16);
  }
  }
  Store = false;
  return Old;
}

} // namespace

/// One lane's atomic on memory at P (host address), returning the old
/// value. Global memory may be shared with other agents and the host, so
/// the update is a host compare-exchange loop.
template <typename T>
static T doAtomic(T *P, uint8_t Kind, T Src, T Cmp, bool Shared) {
  if (!Shared) {
    bool Store;
    T Old = *P;
    T New = atomicOp(Kind, Old, Src, Cmp, Store);
    if (Store)
      *P = New;
    return Old;
  }
  T Old = __atomic_load_n(P, __ATOMIC_RELAXED);
  for (;;) {
    bool Store;
    T New = atomicOp(Kind, Old, Src, Cmp, Store);
    if (!Store)
      return Old;
    if (__atomic_compare_exchange_n(P, &Old, New, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return Old;
  }
}

/// Performs an atomic of Inst I for lane L on host memory P; writes the
/// old value to Ret when the instruction returns. Data operands: Data (src,
/// and for cmpswap {src, cmp} in consecutive registers; for DS the compare
/// or mask in Data2).
bool laneAtomic(WaveState &W, const Inst &I, unsigned L, uint8_t *P, const Operand &Data,
                const Operand *Data2, const Operand *Ret, bool Shared) {
  bool Wide = I.Width == 8;
  uint8_t K = I.Atom;
  if (!Wide) {
    uint32_t Src = readV32(W, Data, L), Cmp = 0;
    if (K == AkCmpSwap && !Data2)
      Cmp = readV32(W, Data, L, 1);
    else if (Data2)
      Cmp = readV32(W, *Data2, L);
    if (K == AkCmpSwapDs9)
      std::swap(Src, Cmp); // GFX9 ds_cmpst: data0 compare, data1 new
    uint32_t Old = doAtomic(reinterpret_cast<uint32_t *>(P), K, Src, Cmp, Shared);
    if (Ret)
      writeV32(W, *Ret, L, Old);
  } else {
    uint64_t Src = readV64(W, Data, L), Cmp = 0;
    if (K == AkCmpSwap && !Data2) {
      Operand Hi = Data;
      Hi.Reg = uint16_t(Hi.Reg + 2);
      Cmp = readV64(W, Hi, L);
    } else if (Data2) {
      Cmp = readV64(W, *Data2, L);
    }
    if (K == AkCmpSwapDs9)
      std::swap(Src, Cmp);
    uint64_t Old = doAtomic(reinterpret_cast<uint64_t *>(P), K, Src, Cmp, Shared);
    if (Ret)
      writeV64(W, *Ret, L, Old);
  }
  return true;
}

/// Resolves a lane's memory access to a host pointer: global (checked
/// against the MemoryMap), LDS (flat in the shared aperture) or private.
static uint8_t *resolve(WaveState &W, ExecCtx &C, unsigned L, uint64_t Addr, unsigned Size,
                        bool Write, bool Private, const char *What) {
  if (!Private && Addr >= C.SharedBase && Addr - C.SharedBase < (1ull << 32)) {
    uint64_t Off = Addr - C.SharedBase;
    if (Off + Size > C.LdsSize) {
      C.memFault("LDS access (flat) beyond the group segment", Addr, Size);
      return nullptr;
    }
    return C.Lds + Off;
  }
  if (Private || (Addr >= C.PrivateBase && Addr - C.PrivateBase < (1ull << 32))) {
    uint64_t Off = Private ? Addr : Addr - C.PrivateBase;
    if (Off + Size > C.PrivSize) {
      C.memFault("private (scratch) access beyond the private segment", Off, Size);
      return nullptr;
    }
    return W.Priv.data() + size_t(L) * C.PrivSize + Off;
  }
  uint8_t *P = C.Mem->host(Addr, Size, Write);
  if (!P)
    C.memFault(What, Addr, Size);
  return P;
}

bool execFlat(WaveState &W, const Inst &I, ExecCtx &C) {
  bool Load = I.Opcode == Op::flat_load, Store = I.Opcode == Op::flat_store;
  bool Atomic = I.Opcode == Op::flat_atomic;
  // Operand layout: load: vdst, vaddr, [saddr]; store / atomic without
  // return: vaddr, vdata, [saddr]; atomic with return: vdst, vaddr, vdata,
  // [saddr].
  unsigned AddrIdx = (Load || (Atomic && I.Rtn)) ? 1 : 0;
  const Operand &VAddr = I.Ops[AddrIdx];
  const Operand *Data = (Store || Atomic) ? &I.Ops[AddrIdx + 1] : nullptr;
  unsigned SIdx = AddrIdx + (Load ? 1 : 2);
  const Operand *SAddr = SIdx < I.NumOps && I.Ops[SIdx].Kind != OpndKind::Off ? &I.Ops[SIdx] : nullptr;
  unsigned Size = Atomic ? I.Width : widthBytes(I.Width);
  uint64_t Exec = W.exec();
  bool Scratch = I.Seg == SegScratch;
  // Addresses first; when every global lane falls inside one checked range
  // the per-lane MemoryMap checks are skipped (the common, coalesced case).
  uint64_t Addrs[64];
  uint64_t Lo = ~0ull, Hi = 0;
  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    uint64_t Addr;
    if (Scratch) {
      Addr = 0;
      if (VAddr.Kind == OpndKind::Vgpr)
        Addr += readV32(W, VAddr, L);
      if (SAddr)
        Addr += readS32(W, *SAddr);
      Addr = uint32_t(Addr + int64_t(I.Offset));
    } else if (I.Seg == SegGlobal && SAddr) {
      Addr = readS64(W, *SAddr) + readV32(W, VAddr, L) + int64_t(I.Offset);
    } else {
      Addr = readV64(W, VAddr, L) + int64_t(I.Offset);
    }
    Addrs[L] = Addr;
    Lo = std::min(Lo, Addr);
    Hi = std::max(Hi, Addr + Size);
  }
  // One range: every lane's address moves by the same amount to where the
  // simulator reaches it.
  uint8_t *LoHost = !Scratch && Lo < Hi && Hi - Lo <= (1ull << 32) &&
                            !(Hi > C.SharedBase && Lo < C.SharedBase + (1ull << 32)) &&
                            !(Hi > C.PrivateBase && Lo < C.PrivateBase + (1ull << 32))
                        ? C.Mem->host(Lo, Hi - Lo, !Load)
                        : nullptr;
  bool AllGlobal = LoHost != nullptr;
  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    uint64_t Addr = Addrs[L];
    const char *What = Load ? "global load" : Store ? "global store" : "global atomic";
    uint8_t *P = AllGlobal ? LoHost + (Addr - Lo)
                           : resolve(W, C, L, Addr, Size, !Load, Scratch, What);
    if (!P)
      return false;
    if (Atomic) {
      if (Addr % Size)
        return C.memFault("misaligned atomic", Addr, Size);
      bool Shared = !(P >= C.Lds && P < C.Lds + C.LdsSize) && !Scratch;
      laneAtomic(W, I, L, P, *Data, nullptr, I.Rtn ? &I.Ops[0] : nullptr, Shared);
    } else if (Load) {
      loadResult(W, I.Ops[0], L, I.Width, P);
    } else {
      uint8_t Buf[16];
      unsigned N = storeData(W, *Data, L, I.Width, Buf);
      memcpy(P, Buf, N);
    }
  }
  return true;
}

bool execMubuf(WaveState &W, const Inst &I, ExecCtx &C) {
  // vdata, vaddr|off, s[rsrc:+3], soffset [offen] [idxen] [offset:N]
  if (I.NumOps < 4 || I.Lds || I.Tfe)
    return C.unsupported(I, "buffer form not modelled");
  bool Load = I.Opcode == Op::buffer_load, Atomic = I.Opcode == Op::buffer_atomic;
  const Operand &VData = I.Ops[0], &VAddr = I.Ops[1], &Rsrc = I.Ops[2], &SOff = I.Ops[3];
  uint64_t Base = uint64_t(readS32(W, Rsrc, 0)) | uint64_t(readS32(W, Rsrc, 1) & 0xffff) << 32;
  uint32_t Stride = (readS32(W, Rsrc, 1) >> 16) & 0x3fff;
  uint32_t Records = readS32(W, Rsrc, 2);
  uint64_t SOffset = readS32(W, SOff);
  unsigned Size = Atomic ? I.Width : widthBytes(I.Width);
  bool Private = Base >= C.PrivateBase && Base - C.PrivateBase < (1ull << 32);
  uint64_t Exec = W.exec();
  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    uint64_t Index = 0, Off = 0;
    unsigned V = 0;
    if (I.Idxen)
      Index = readV32(W, VAddr, L, V++);
    if (I.Offen)
      Off = readV32(W, VAddr, L, V++);
    Off += uint64_t(int64_t(I.Offset));
    uint8_t *P;
    if (Private) {
      // The private segment buffer: every lane sees its own private
      // memory at (base - aperture) + soffset + offset.
      if (I.Idxen)
        return C.unsupported(I, "indexed access through the private segment buffer");
      P = resolve(W, C, L, (Base - C.PrivateBase) + SOffset + Off, Size, !Load, true, "");
      if (!P)
        return false;
    } else {
      uint64_t Rel = Index * Stride + Off;
      bool InRange = Stride ? Index < Records : Rel + Size <= Records;
      if (!InRange) {
        // Out-of-range buffer accesses read 0 and drop writes (the V#'s
        // range check), rather than faulting.
        if (Load)
          for (unsigned K = 0; K < (Size + 3) / 4; ++K)
            writeV32(W, VData, L, 0, K);
        continue;
      }
      uint64_t Addr = Base + SOffset + Rel;
      P = resolve(W, C, L, Addr, Size, !Load, false, Load ? "buffer load" : "buffer store");
      if (!P)
        return false;
    }
    if (Atomic) {
      laneAtomic(W, I, L, P, VData, nullptr, I.Rtn ? &VData : nullptr, !Private);
    } else if (Load) {
      loadResult(W, VData, L, I.Width, P);
    } else {
      uint8_t Buf[16];
      unsigned N = storeData(W, VData, L, I.Width, Buf);
      memcpy(P, Buf, N);
    }
  }
  return true;
}

} // namespace ferry::sim
