//===- sim/isa/Exec.h - wave state and the executors' shared helpers ------===//
/// \file
/// Internal to sim/isa: the architectural state of one wave, the per-dispatch
/// context the executors read (memory map, LDS, apertures, allocation
/// limits), operand access helpers, and the executor entry points, one per
/// instruction family (ExecScalar.cpp, ExecVector.cpp, ExecFloat.cpp,
/// ExecMemory.cpp, ExecLds.cpp).
//===----------------------------------------------------------------------===//
#ifndef FERRY_SIM_ISA_EXEC_H
#define FERRY_SIM_ISA_EXEC_H

#include "sim/isa/Inst.h"
#include "sim/isa/Simulator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ferry::sim {

/// MODE register fields (GFX9/GFX11 share the low ten bits).
enum : uint32_t {
  ModeRound32Shift = 0,
  ModeRound64Shift = 2,
  ModeDenorm32Shift = 4,
  ModeDenorm64Shift = 6,
  ModeDx10Clamp = 1u << 8,
  ModeIeee = 1u << 9,
};

struct WaveState {
  unsigned Lanes = 64;
  unsigned Id = 0;  // wave index in its workgroup
  uint32_t S[NumSgprSlots] = {};
  bool Scc = false;
  std::vector<uint32_t> V;  // [register][64 lanes]
  std::vector<uint32_t> A;  // AGPRs, same layout
  uint64_t Pc = 0;
  bool Done = false, AtBarrier = false;
  uint32_t Mode = 0, TrapSts = 0, Prio = 0;
  bool GprIdxEn = false; // GFX9 VGPR index mode (s_set_gpr_idx_on)
  std::vector<uint8_t> Priv;  // per-lane private memory, Lanes * PrivSize

  uint64_t laneMask() const { return Lanes == 64 ? ~0ull : (1ull << Lanes) - 1; }
  uint64_t exec() const {
    return (uint64_t(S[SgprExecLo]) | uint64_t(S[SgprExecHi]) << 32) & laneMask();
  }
  void setExec(uint64_t M) {
    S[SgprExecLo] = static_cast<uint32_t>(M);
    if (Lanes == 64)
      S[SgprExecHi] = static_cast<uint32_t>(M >> 32);
  }
  uint64_t vcc() const {
    return (uint64_t(S[SgprVccLo]) | uint64_t(S[SgprVccHi]) << 32) & laneMask();
  }
  void setVcc(uint64_t M) {
    S[SgprVccLo] = static_cast<uint32_t>(M);
    if (Lanes == 64)
      S[SgprVccHi] = static_cast<uint32_t>(M >> 32);
  }
  uint32_t &v(unsigned R, unsigned L) { return V[R * 64 + L]; }
  uint32_t v(unsigned R, unsigned L) const { return V[R * 64 + L]; }
  uint32_t &a(unsigned R, unsigned L) { return A[R * 64 + L]; }
};

/// What a dispatch's waves share, and where a fault is recorded.
struct ExecCtx {
  Gfx Target = Gfx::Gfx942;
  unsigned WaveSize = 64;
  const MemoryMap *Mem = nullptr;
  uint64_t SharedBase = 0, PrivateBase = 0;
  uint8_t *Lds = nullptr;
  uint32_t LdsSize = 0;
  uint32_t PrivSize = 0;  // bytes per lane
  unsigned VgprAlloc = 0, AgprAlloc = 0, SgprAlloc = 0;
  std::vector<WaveState *> *Group = nullptr;  // the workgroup's waves
  uint64_t KernelCode = 0;
  uint64_t CurPc = 0;      // address of the instruction being executed
  uint64_t Clock = 0;      // s_memtime: instructions executed so far
  std::string KernelName;
  DispatchResult::Kind Status = DispatchResult::Ok;
  std::string Msg;

  bool isGfx9() const { return Target != Gfx::Gfx1100; }
  /// Records the first fault; returns false so callers can `return fail(..)`.
  bool fail(DispatchResult::Kind K, const std::string &M) {
    if (Status == DispatchResult::Ok) {
      Status = K;
      Msg = M;
    }
    return false;
  }
  bool memFault(const char *What, uint64_t Addr, uint64_t Size);
  bool unsupported(const Inst &I, const std::string &Why = "");
};

// Family executors: false on fault (ExecCtx records why). W.Pc already
// points past the instruction; branches overwrite it.
bool execScalar(WaveState &W, const Inst &I, ExecCtx &C);
bool execSmem(WaveState &W, const Inst &I, ExecCtx &C);
bool execValu(WaveState &W, const Inst &I, ExecCtx &C);
bool execDs(WaveState &W, const Inst &I, ExecCtx &C);
bool execFlat(WaveState &W, const Inst &I, ExecCtx &C);
bool execMubuf(WaveState &W, const Inst &I, ExecCtx &C);

/// One lane's atomic on host memory P (ExecMemory.cpp): Data holds the
/// source (cmpswap: {src, cmp} in consecutive registers unless Data2 names
/// the second operand); Ret receives the old value when non-null. Shared:
/// memory other agents may touch (use host atomics).
bool laneAtomic(WaveState &W, const Inst &I, unsigned L, uint8_t *P, const Operand &Data,
                const Operand *Data2, const Operand *Ret, bool Shared);

//===----------------------------------------------------------------------===//
// Operand access.
//===----------------------------------------------------------------------===//

inline uint32_t readS32(const WaveState &W, const Operand &O, unsigned Part = 0) {
  switch (O.Kind) {
  case OpndKind::Sgpr:
    return W.S[(O.Reg + Part) & (NumSgprSlots - 1)];
  case OpndKind::Const:
    return Part ? static_cast<uint32_t>(O.C64 >> 32) : O.C32;
  case OpndKind::Scc:
    return W.Scc;
  case OpndKind::ExecZ:
    return W.exec() == 0;
  case OpndKind::VccZ:
    return W.vcc() == 0;
  default:
    return 0;
  }
}

inline uint64_t readS64(const WaveState &W, const Operand &O) {
  if (O.Kind == OpndKind::Const)
    return O.C64;
  if (O.Kind == OpndKind::Sgpr)
    return uint64_t(readS32(W, O, 0)) | uint64_t(readS32(W, O, 1)) << 32;
  return readS32(W, O);
}

inline void writeS32(WaveState &W, const Operand &O, uint32_t V, unsigned Part = 0) {
  if (O.Kind != OpndKind::Sgpr)
    return;
  unsigned R = (O.Reg + Part) & (NumSgprSlots - 1);
  if (R == SgprNull)
    return;
  W.S[R] = V;
}

inline void writeS64(WaveState &W, const Operand &O, uint64_t V) {
  writeS32(W, O, static_cast<uint32_t>(V), 0);
  writeS32(W, O, static_cast<uint32_t>(V >> 32), 1);
}

/// A lane mask (VCC-like) written to an SGPR operand: 32 bits on wave32.
inline void writeMask(WaveState &W, const Operand &O, uint64_t M) {
  if (W.Lanes == 32 || O.Count == 1)
    writeS32(W, O, static_cast<uint32_t>(M));
  else
    writeS64(W, O, M);
}
inline uint64_t readMask(const WaveState &W, const Operand &O) {
  if (W.Lanes == 32 || O.Count == 1)
    return readS32(W, O);
  return readS64(W, O) & W.laneMask();
}

/// A VALU source at one lane (VGPR/AGPR per lane, else the scalar value).
inline uint32_t readV32(const WaveState &W, const Operand &O, unsigned Lane, unsigned Part = 0) {
  if (O.Kind == OpndKind::Vgpr)
    return W.V[(O.Reg + Part) * 64 + Lane];
  if (O.Kind == OpndKind::Agpr)
    return W.A[(O.Reg + Part) * 64 + Lane];
  return readS32(W, O, Part);
}
inline uint64_t readV64(const WaveState &W, const Operand &O, unsigned Lane) {
  if (O.Kind == OpndKind::Const)
    return O.C64;
  return uint64_t(readV32(W, O, Lane, 0)) | uint64_t(readV32(W, O, Lane, 1)) << 32;
}
inline void writeV32(WaveState &W, const Operand &O, unsigned Lane, uint32_t V,
                     unsigned Part = 0) {
  if (O.Kind == OpndKind::Vgpr)
    W.V[(O.Reg + Part) * 64 + Lane] = V;
  else if (O.Kind == OpndKind::Agpr)
    W.A[(O.Reg + Part) * 64 + Lane] = V;
}
inline void writeV64(WaveState &W, const Operand &O, unsigned Lane, uint64_t V) {
  writeV32(W, O, Lane, static_cast<uint32_t>(V), 0);
  writeV32(W, O, Lane, static_cast<uint32_t>(V >> 32), 1);
}

inline uint32_t bitReverse32(uint32_t V) {
  uint32_t R = 0;
  for (unsigned I = 0; I < 32; ++I)
    R |= ((V >> I) & 1u) << (31 - I);
  return R;
}
inline uint64_t bitReverse64(uint64_t V) {
  return uint64_t(bitReverse32(uint32_t(V))) << 32 | bitReverse32(uint32_t(V >> 32));
}

template <typename T, typename F> inline T bitCast(F X) {
  static_assert(sizeof(T) == sizeof(F));
  T Y;
  memcpy(&Y, &X, sizeof Y);
  return Y;
}

//===----------------------------------------------------------------------===//
// Float helpers (ExecFloat.cpp).
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t H);
/// IEEE conversion to half: round to nearest even, or toward zero.
uint16_t floatToHalf(float F, bool TowardZero = false);

/// One lane's worth of a VALU instruction: the raw source values after
/// DPP/SDWA selection (64-bit sources occupy a whole entry).
struct LaneIn {
  WaveState &W;
  const Inst &I;
  ExecCtx &C;
  unsigned Lane;
  uint64_t Src[3];
  const Operand *SrcOps;  // for neg/abs modifiers
  unsigned NSrc;
};

/// Float VALU ops (ExecFloat.cpp): 1 handled (Res/Carry set), 0 not a float
/// op. Carry receives the VCC-like bit of ops that produce one.
int valuFloatLane(LaneIn &In, uint64_t &Res, bool &Carry);
/// Float compare / class test for v_cmp (ExecFloat.cpp).
bool floatCompare(const LaneIn &In, uint8_t Cond, uint8_t Type);
bool floatClass(const LaneIn &In, uint8_t Type);
/// Sets the host rounding mode from MODE for one instruction; restores on
/// destruction. Only the f32 round mode field is honoured (documented).
struct RoundingScope {
  int Saved = -1;
  explicit RoundingScope(uint32_t Mode);
  ~RoundingScope();
};

} // namespace ferry::sim

#endif
