//===- sim/isa/ExecLds.cpp - DS instructions (LDS and lane permutes) ------===//
/// \file
/// LDS reads, writes, read2/write2 (element-sized offsets, ×64 for st64),
/// atomics, and the LDS-crossbar lane ops (ds_bpermute, ds_permute,
/// ds_swizzle), per the CDNA3/RDNA3 manuals. Every address is checked
/// against the dispatch's group segment size; atomics must be naturally
/// aligned. GDS is not modelled.
//===----------------------------------------------------------------------===//
#include "sim/isa/Exec.h"

#include <vector>

namespace ferry::sim {

static unsigned dsBytes(uint8_t W) {
  switch (W) {
  case MwU8: case MwI8: case MwD16U8: case MwD16I8: case MwD16HiU8: case MwD16HiI8: return 1;
  case MwU16: case MwI16: case MwD16B16: case MwD16HiB16: return 2;
  case MwB32: return 4;
  case MwB64: return 8;
  case MwB96: return 12;
  default: return 16;
  }
}

// DS addresses are 32-bit: base + offset wraps (LLVM folds offsets into DS
// instructions relying on that), then the sum is checked against the group
// segment.
static bool ldsPtr(ExecCtx &C, uint64_t Addr, unsigned Size, uint8_t *&P) {
  if (Addr + Size > C.LdsSize)
    return C.memFault("LDS access beyond the group segment", Addr, Size);
  P = C.Lds + Addr;
  return true;
}

bool execDs(WaveState &W, const Inst &I, ExecCtx &C) {
  if (I.Gds)
    return C.unsupported(I, "GDS is not modelled");
  const Operand *O = I.Ops;
  uint64_t Exec = W.exec();
  switch (I.Opcode) {
  case Op::ds_nop:
    return true;
  case Op::ds_bpermute_b32: case Op::ds_permute_b32: {
    // vdst, vaddr, vdata. Lane index = (addr + offset) / 4 modulo the wave.
    std::vector<uint32_t> Tmp(W.Lanes, 0);
    bool Back = I.Opcode == Op::ds_bpermute_b32;
    for (unsigned L = 0; L < W.Lanes; ++L) {
      if (!((Exec >> L) & 1))
        continue;
      unsigned Other = ((readV32(W, O[1], L) + uint32_t(I.Offset)) / 4) & (W.Lanes - 1);
      if (Back)
        Tmp[L] = ((Exec >> Other) & 1) ? readV32(W, O[2], Other) : 0;
      else
        Tmp[Other] = readV32(W, O[2], L);
    }
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Exec >> L) & 1)
        writeV32(W, O[0], L, Tmp[L]);
    return true;
  }
  case Op::ds_swizzle_b32: {
    uint32_t Pat = uint32_t(I.Offset) & 0xffff;
    if (!C.isGfx9() && (Pat & 0xe000) == 0xe000)
      return C.unsupported(I, "ds_swizzle FFT/rotate modes");
    std::vector<uint32_t> Tmp(W.Lanes, 0);
    for (unsigned L = 0; L < W.Lanes; ++L) {
      if (!((Exec >> L) & 1))
        continue;
      unsigned Src;
      if (Pat & 0x8000) {
        Src = (L & ~3u) | ((Pat >> (2 * (L & 3))) & 3);
      } else {
        unsigned And = Pat & 0x1f, Or = (Pat >> 5) & 0x1f, Xor = (Pat >> 10) & 0x1f;
        Src = (L & ~31u) | ((((L & 31) & And) | Or) ^ Xor);
      }
      Tmp[L] = Src < W.Lanes && ((Exec >> Src) & 1) ? readV32(W, O[1], Src) : 0;
    }
    for (unsigned L = 0; L < W.Lanes; ++L)
      if ((Exec >> L) & 1)
        writeV32(W, O[0], L, Tmp[L]);
    return true;
  }
  default:
    break;
  }

  for (unsigned L = 0; L < W.Lanes; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    switch (I.Opcode) {
    case Op::ds_read: {
      unsigned Size = dsBytes(I.Width);
      uint64_t A = uint32_t(readV32(W, O[1], L) + uint32_t(I.Offset));
      uint8_t *P = nullptr;
      if (!ldsPtr(C, A, Size, P))
        return false;
      uint32_t Old = readV32(W, O[0], L);
      uint32_t V = 0;
      memcpy(&V, P, std::min(Size, 4u));
      switch (I.Width) {
      case MwI8: V = uint32_t(int32_t(int8_t(V))); break;
      case MwI16: V = uint32_t(int32_t(int16_t(V))); break;
      case MwD16U8: V = (Old & 0xffff0000u) | (V & 0xff); break;
      case MwD16I8: V = (Old & 0xffff0000u) | (uint32_t(int32_t(int8_t(V))) & 0xffff); break;
      case MwD16B16: V = (Old & 0xffff0000u) | (V & 0xffff); break;
      case MwD16HiU8: V = (Old & 0xffff) | (V & 0xff) << 16; break;
      case MwD16HiI8: V = (Old & 0xffff) | uint32_t(int32_t(int8_t(V))) << 16; break;
      case MwD16HiB16: V = (Old & 0xffff) | (V & 0xffff) << 16; break;
      default: break;
      }
      if (Size <= 4) {
        writeV32(W, O[0], L, V);
      } else {
        for (unsigned K = 0; K < Size / 4; ++K) {
          uint32_t X;
          memcpy(&X, P + 4 * K, 4);
          writeV32(W, O[0], L, X, K);
        }
      }
      break;
    }
    case Op::ds_write: {
      unsigned Size = dsBytes(I.Width);
      uint64_t A = uint32_t(readV32(W, O[0], L) + uint32_t(I.Offset));
      uint8_t *P = nullptr;
      if (!ldsPtr(C, A, Size, P))
        return false;
      uint32_t V = readV32(W, O[1], L);
      if (I.Width == MwD16HiU8 || I.Width == MwD16HiB16)
        V >>= 16;
      if (Size <= 4) {
        memcpy(P, &V, Size);
      } else {
        for (unsigned K = 0; K < Size / 4; ++K) {
          uint32_t X = readV32(W, O[1], L, K);
          memcpy(P + 4 * K, &X, 4);
        }
      }
      break;
    }
    case Op::ds_read2: case Op::ds_write2: {
      bool Read = I.Opcode == Op::ds_read2;
      unsigned Size = dsBytes(I.Width), Scale = Size * (I.Seg ? 64 : 1);
      uint32_t Base = readV32(W, O[Read ? 1 : 0], L);
      for (unsigned K = 0; K < 2; ++K) {
        uint64_t A = uint32_t(Base + (uint32_t(K ? I.Offset1 : I.Offset) & 0xff) * Scale);
        uint8_t *P = nullptr;
        if (!ldsPtr(C, A, Size, P))
          return false;
        for (unsigned D = 0; D < Size / 4; ++D) {
          if (Read) {
            uint32_t X;
            memcpy(&X, P + 4 * D, 4);
            writeV32(W, O[0], L, X, K * (Size / 4) + D);
          } else {
            uint32_t X = readV32(W, O[1 + K], L, D);
            memcpy(P + 4 * D, &X, 4);
          }
        }
      }
      break;
    }
    case Op::ds_atomic: {
      // [vdst,] vaddr, data0 [, data1]
      unsigned First = I.Rtn ? 1 : 0;
      uint64_t A = uint32_t(readV32(W, O[First], L) + uint32_t(I.Offset));
      uint8_t *P = nullptr;
      if (!ldsPtr(C, A, I.Width, P))
        return false;
      if (A % I.Width)
        return C.memFault("misaligned LDS atomic", A, I.Width);
      const Operand *Data2 = First + 2 < I.NumOps && I.Ops[First + 2].Kind == OpndKind::Vgpr
                                 ? &O[First + 2] : nullptr;
      laneAtomic(W, I, L, P, O[First + 1], Data2, I.Rtn ? &O[0] : nullptr, false);
      break;
    }
    default:
      return C.unsupported(I);
    }
  }
  return true;
}

} // namespace ferry::sim
