//===- sim/isa/Simulator.cpp - dispatch set-up and wave scheduling --------===//
/// \file
/// Reads the kernel descriptor (code object v5 layout, AMDGPUUsage), builds
/// every workgroup's waves with the initial register state the descriptor
/// asks for (user SGPRs, system SGPRs, work-item id VGPRs, MODE), and runs
/// the waves in turns of at most 4096 instructions, s_barrier holding a
/// workgroup's waves together. Workgroups start in dispatch order; one that
/// does not finish within a turn lets the next start beside it, up to the
/// number the GPU holds at once (residentGroups), and resident workgroups
/// take turns, so one may wait for another (a grid barrier) as on hardware.
/// Memory is performed at once (a functional model: no timing).
//===----------------------------------------------------------------------===//
#include "sim/isa/Decoder.h"
#include "sim/isa/Exec.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace ferry::sim {

bool parseGfx(const std::string &Name, Gfx &Out) {
  std::string N = Name.substr(0, Name.find(':'));
  if (N == "gfx90a") Out = Gfx::Gfx90a;
  else if (N == "gfx942") Out = Gfx::Gfx942;
  else if (N == "gfx1100") Out = Gfx::Gfx1100;
  else return false;
  return true;
}

const char *gfxName(Gfx G) {
  switch (G) {
  case Gfx::Gfx90a: return "gfx90a";
  case Gfx::Gfx942: return "gfx942";
  case Gfx::Gfx1100: return "gfx1100";
  }
  return "?";
}

unsigned waveSize(Gfx G) { return G == Gfx::Gfx1100 ? 32 : 64; }

namespace {

// Apertures: 48-bit values above the x86-64 user address space, so they can
// never alias a host allocation, and so that a V# (48-bit base) can carry
// the private aperture for the private segment buffer.
constexpr uint64_t SharedAperture = 0x0000A00000000000ull;
constexpr uint64_t PrivateAperture = 0x0000C00000000000ull;

/// Workgroups of one dispatch the GPU holds at once: per CU, the wave slots
/// (gfx90a/gfx942: 4 SIMDs of 8 waves, 512 VGPRs+AGPRs per lane in granules
/// of 8, 800 SGPRs per SIMD in granules of 16; gfx11: a CU is half a WGP, 2
/// SIMDs of 16 wave32 waves, 1536 VGPRs per lane in granules of 24), 64 KiB
/// of LDS and 16 barriers for workgroups of more than one wave (AMD's
/// CDNA3 and RDNA3 ISA guides; LLVM's AMDGPUBaseInfo), times the CUs.
uint64_t residentGroups(bool Gfx9, unsigned Vgprs, unsigned Sgprs, unsigned WavesPerGroup,
                        uint32_t Lds, uint32_t ComputeUnits) {
  auto RoundUp = [](unsigned N, unsigned A) { return (std::max(N, 1u) + A - 1) / A * A; };
  unsigned Simds = Gfx9 ? 4 : 2, PerSimd;
  if (Gfx9)
    PerSimd = std::min({8u, 512 / RoundUp(Vgprs, 8), 800 / RoundUp(Sgprs, 16)});
  else
    PerSimd = std::min(16u, 1536 / RoundUp(Vgprs, 24));
  uint64_t PerCu = Simds * PerSimd / std::max(WavesPerGroup, 1u);
  if (WavesPerGroup > 1)
    PerCu = std::min<uint64_t>(PerCu, 16);
  if (Lds)
    PerCu = std::min<uint64_t>(PerCu, 65536 / Lds);
  return std::max<uint64_t>(PerCu, 1) * std::max(ComputeUnits, 1u);
}

struct KernelDescriptor {
  uint32_t GroupFixed, PrivateFixed, KernargSize;
  int64_t EntryOffset;
  uint32_t Rsrc3, Rsrc1, Rsrc2;
  uint16_t Properties, KernargPreload;
};

class SimulatorImpl final : public Simulator {
public:
  SimulatorImpl(Gfx T, const MemoryMap &M)
      : Target(T), Mem(M), Dec(T, SharedAperture, PrivateAperture) {}
  Gfx target() const override { return Target; }
  DispatchResult run(const Dispatch &D) override;
  void forgetCode(uint64_t Addr, uint64_t Size) override {
    for (uint64_t P = Addr >> 12; P <= (Addr + Size) >> 12; ++P)
      Pages.erase(P);
    LastPage = nullptr;
    LastPageNo = ~0ull;
  }
  uint64_t sharedApertureBase() const override { return SharedAperture; }
  uint64_t privateApertureBase() const override { return PrivateAperture; }

private:
  struct Page {
    std::unique_ptr<Inst> Slot[1024];
  };
  const Inst *fetch(uint64_t Pc, ExecCtx &C);
  bool step(WaveState &W, ExecCtx &C, uint64_t &Count, uint64_t Until);

  Gfx Target;
  const MemoryMap &Mem;
  Decoder Dec;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> Pages;
  Page *LastPage = nullptr;
  uint64_t LastPageNo = ~0ull;
  // FERRY_SIM_TRACE=1: print every executed instruction (debugging aid).
  bool Trace = getenv("FERRY_SIM_TRACE") != nullptr;
  // FERRY_SIM_MAX_INSTRUCTIONS=N: end a dispatch after N wave instructions
  // (a kernel that spins forever, e.g. on a workgroup that is not resident).
  uint64_t MaxInstructions = getenv("FERRY_SIM_MAX_INSTRUCTIONS")
                                 ? strtoull(getenv("FERRY_SIM_MAX_INSTRUCTIONS"), nullptr, 0)
                                 : 0;
};

const Inst *SimulatorImpl::fetch(uint64_t Pc, ExecCtx &C) {
  uint64_t PageNo = Pc >> 12;
  Page *P = LastPage;
  if (PageNo != LastPageNo) {
    auto &Slot = Pages[PageNo];
    if (!Slot)
      Slot = std::make_unique<Page>();
    P = LastPage = Slot.get();
    LastPageNo = PageNo;
  }
  std::unique_ptr<Inst> &I = P->Slot[(Pc >> 2) & 1023];
  if (I)
    return I.get();
  if (Pc & 3) {
    C.fail(DispatchResult::IllegalInstruction, "misaligned PC");
    return nullptr;
  }
  // Up to 16 bytes (the longest encodings are 12); fewer at the end of an
  // allocation.
  size_t Avail = 0;
  const uint8_t *Bytes = nullptr;
  for (size_t N : {16, 12, 8, 4})
    if ((Bytes = Mem.host(Pc, N, false))) {
      Avail = N;
      break;
    }
  if (!Avail) {
    C.memFault("instruction fetch", Pc, 4);
    return nullptr;
  }
  std::string Err;
  I = Dec.decode(Bytes, Avail, Pc, Err);
  if (!I) {
    char Buf[200];
    snprintf(Buf, sizeof Buf, " at PC 0x%llx (%s, kernel %s)", (unsigned long long)Pc,
             gfxName(Target), C.KernelName.c_str());
    // Bytes MC cannot decode are an illegal instruction; text the parser
    // does not understand is the simulator's limitation.
    bool Illegal = Err.rfind("undecodable", 0) == 0;
    C.fail(Illegal ? DispatchResult::IllegalInstruction : DispatchResult::Unsupported,
           Err + Buf);
    return nullptr;
  }
  return I.get();
}

/// Runs W until it ends, waits at a barrier, Count reaches Until (the end
/// of its turn), or faults. False on fault.
bool SimulatorImpl::step(WaveState &W, ExecCtx &C, uint64_t &Count, uint64_t Until) {
  while (!W.Done && !W.AtBarrier && Count < Until) {
    const Inst *I = fetch(W.Pc, C);
    if (!I)
      return false;
    C.CurPc = W.Pc;
    if (Trace)
      fprintf(stderr, "[sim w%u exec=%016llx] %llx: %s\n", W.Id, (unsigned long long)W.exec(),
              (unsigned long long)(W.Pc - C.KernelCode), I->Text.c_str());
    W.Pc += I->Size;
    ++Count;
    C.Clock = Count;
    if (MaxInstructions && Count > MaxInstructions) {
      char Buf[200];
      snprintf(Buf, sizeof Buf,
               "instruction limit (FERRY_SIM_MAX_INSTRUCTIONS=%llu) reached at PC 0x%llx (%s, kernel %s)",
               (unsigned long long)MaxInstructions, (unsigned long long)C.CurPc, gfxName(Target),
               C.KernelName.c_str());
      return C.fail(DispatchResult::Unsupported, Buf);
    }
    if (I->MaxVgpr >= int(C.VgprAlloc) || I->MaxAgpr >= int(C.AgprAlloc) ||
        I->MaxSgpr >= int(C.SgprAlloc)) {
      char Buf[300];
      snprintf(Buf, sizeof Buf,
               "register beyond the kernel descriptor's allocation (%u VGPRs, %u AGPRs, %u SGPRs) "
               "in '%s' at PC 0x%llx (%s, kernel %s)",
               C.VgprAlloc, C.AgprAlloc, C.SgprAlloc, I->Text.c_str(),
               (unsigned long long)C.CurPc, gfxName(Target), C.KernelName.c_str());
      return C.fail(DispatchResult::MemoryFault, Buf);
    }
    bool Ok;
    switch (familyOf(I->Opcode)) {
    case Family::Nop: Ok = I->Opcode == Op::Unknown ? C.unsupported(*I) : true; break;
    case Family::Scalar: Ok = execScalar(W, *I, C); break;
    case Family::Smem: Ok = execSmem(W, *I, C); break;
    case Family::Valu: Ok = execValu(W, *I, C); break;
    case Family::Ds: Ok = execDs(W, *I, C); break;
    case Family::Flat: Ok = execFlat(W, *I, C); break;
    case Family::Mubuf: Ok = execMubuf(W, *I, C); break;
    default: Ok = C.unsupported(*I); break;
    }
    if (!Ok)
      return false;
    if (Trace && I->NumOps && I->Ops[0].Kind == OpndKind::Vgpr) {
      unsigned L = W.exec() ? unsigned(__builtin_ctzll(W.exec())) : 0;
      fprintf(stderr, "    -> v%u[lane %u] = 0x%08x\n", I->Ops[0].Reg, L, W.v(I->Ops[0].Reg, L));
    }
  }
  return true;
}

DispatchResult SimulatorImpl::run(const Dispatch &D) {
  DispatchResult R;
  ExecCtx C;
  C.Target = Target;
  C.Mem = &Mem;
  C.SharedBase = SharedAperture;
  C.PrivateBase = PrivateAperture;
  char NameBuf[64];
  snprintf(NameBuf, sizeof NameBuf, "at 0x%llx", (unsigned long long)D.KernelObject);
  C.KernelName = D.KernelName ? D.KernelName : NameBuf;
  auto Fail = [&](DispatchResult::Kind K, const std::string &M) {
    R.Status = K;
    R.Message = M;
    return R;
  };
  if (!Dec.setupError().empty())
    return Fail(DispatchResult::Unsupported, Dec.setupError());
  const uint8_t *KD = Mem.host(D.KernelObject, 64, false);
  if (!KD)
    return Fail(DispatchResult::MemoryFault, "kernel descriptor outside the memory map");
  KernelDescriptor K;
  memcpy(&K.GroupFixed, KD + 0, 4);
  memcpy(&K.PrivateFixed, KD + 4, 4);
  memcpy(&K.KernargSize, KD + 8, 4);
  memcpy(&K.EntryOffset, KD + 16, 8);
  memcpy(&K.Rsrc3, KD + 44, 4);
  memcpy(&K.Rsrc1, KD + 48, 4);
  memcpy(&K.Rsrc2, KD + 52, 4);
  memcpy(&K.Properties, KD + 56, 2);
  memcpy(&K.KernargPreload, KD + 58, 2);

  bool Gfx9 = Target != Gfx::Gfx1100;
  unsigned WS = waveSize(Target);
  bool Wave32 = (K.Properties >> 10) & 1;
  if (Target == Gfx::Gfx1100 && !Wave32)
    return Fail(DispatchResult::Unsupported,
                "wave64 code on gfx1100 is not modelled (kernel " + C.KernelName + ")");
  if (Gfx9 && Wave32)
    return Fail(DispatchResult::IllegalInstruction,
                "kernel descriptor asks for wave32 on a wave64-only target");
  C.WaveSize = WS;
  unsigned VGran = K.Rsrc1 & 0x3f, SGran = (K.Rsrc1 >> 6) & 0xf;
  unsigned TotalV = (VGran + 1) * 8;
  if (Gfx9) {
    // Unified VGPR file: arch VGPRs below ACCUM_OFFSET, AGPRs above.
    unsigned AccOff = ((K.Rsrc3 & 0x3f) + 1) * 4;
    if (Target == Gfx::Gfx942 || Target == Gfx::Gfx90a) {
      C.VgprAlloc = std::min(AccOff, TotalV);
      C.AgprAlloc = TotalV > AccOff ? TotalV - AccOff : 0;
    }
    C.SgprAlloc = std::min(102u, (SGran + 1) * 16);
  } else {
    C.VgprAlloc = TotalV;
    C.AgprAlloc = 0;
    C.SgprAlloc = 106; // GFX10+: every wave gets the full SGPR file
  }
  C.VgprAlloc = std::min(C.VgprAlloc, 512u);
  uint64_t Entry = D.KernelObject + uint64_t(K.EntryOffset);
  C.KernelCode = Entry;

  uint32_t LdsSize = std::max(D.GroupSegmentSize, K.GroupFixed);
  if (LdsSize > 65536)
    return Fail(DispatchResult::IllegalInstruction, "group segment larger than 64 KiB");
  C.PrivSize = (std::max(D.PrivateSegmentSize, K.PrivateFixed) + 3) & ~3u;
  C.LdsSize = LdsSize;

  // Float mode from RSRC1.
  uint32_t Mode = ((K.Rsrc1 >> 12) & 0x3) << ModeRound32Shift |
                  ((K.Rsrc1 >> 14) & 0x3) << ModeRound64Shift |
                  ((K.Rsrc1 >> 16) & 0x3) << ModeDenorm32Shift |
                  ((K.Rsrc1 >> 18) & 0x3) << ModeDenorm64Shift;
  if ((K.Rsrc1 >> 21) & 1) Mode |= ModeDx10Clamp;
  if ((K.Rsrc1 >> 23) & 1) Mode |= ModeIeee;

  unsigned UserCount = (K.Rsrc2 >> 1) & 0x1f;
  bool WgId[3] = {bool((K.Rsrc2 >> 7) & 1), bool((K.Rsrc2 >> 8) & 1), bool((K.Rsrc2 >> 9) & 1)};
  bool WgInfo = (K.Rsrc2 >> 10) & 1;
  unsigned TidEnable = (K.Rsrc2 >> 11) & 3;
  bool ScratchEn = K.Rsrc2 & 1;
  bool PackedTid = true; // gfx90a, gfx942 and gfx11 all pack x|y<<10|z<<20

  uint32_t WgSize[3], NumGroups[3];
  for (int Dim = 0; Dim < 3; ++Dim) {
    WgSize[Dim] = std::max(1u, Dim < int(D.Dims) ? D.WorkgroupSize[Dim] : 1u);
    uint32_t G = Dim < int(D.Dims) ? D.GridSize[Dim] : 1u;
    NumGroups[Dim] = (G + WgSize[Dim] - 1) / WgSize[Dim];
    if (G == 0)
      return R; // an empty grid runs nothing
  }
  uint32_t Items = WgSize[0] * WgSize[1] * WgSize[2];
  if (Items > 1024)
    return Fail(DispatchResult::IllegalInstruction, "workgroup larger than 1024 work-items");
  unsigned MaxWaves = (Items + WS - 1) / WS;

  // Residency: how many workgroups the GPU holds at once (AMD's CDNA3/RDNA3
  // guides: per CU, wave slots per SIMD limited by the VGPR allocation, 64
  // KiB of LDS, 16 workgroup barriers; the agent's CU count). Workgroups
  // start in dispatch order (x fastest) as slots free up, as the dispatcher
  // does; a resident workgroup's waves are interleaved with the others', so
  // a kernel may wait for another resident workgroup (cooperative groups'
  // grid barrier) as on hardware.
  uint64_t TotalGroups = uint64_t(NumGroups[0]) * NumGroups[1] * NumGroups[2];
  uint64_t Resident = residentGroups(Gfx9, C.VgprAlloc + C.AgprAlloc, (SGran + 1) * 16, MaxWaves,
                                     LdsSize, D.ComputeUnits);
  // Memory of the simulation itself: resident wave state is bounded too
  // (about 1 GiB), which only a grid of thousands of resident long-running
  // workgroups reaches.
  uint64_t GroupBytes = uint64_t(MaxWaves) *
                            (uint64_t(std::max(C.VgprAlloc, 1u) + std::max(C.AgprAlloc, 1u)) * 256 +
                             uint64_t(C.PrivSize) * WS) +
                        LdsSize;
  Resident = std::max<uint64_t>(1, std::min<uint64_t>(Resident, (1ull << 30) / std::max<uint64_t>(GroupBytes, 1)));

  struct GroupState {
    std::vector<WaveState> Waves;
    std::vector<WaveState *> Live;
    std::vector<uint8_t> Lds;
  };
  std::vector<std::unique_ptr<GroupState>> Running, Spare;
  uint64_t NextGroup = 0;
  uint64_t Count = 0;

  // Builds workgroup Linear's waves with their initial register state.
  auto Admit = [&](uint64_t Linear, std::string &Err) -> std::unique_ptr<GroupState> {
    std::unique_ptr<GroupState> GS;
    if (!Spare.empty()) {
      GS = std::move(Spare.back());
      Spare.pop_back();
    } else {
      GS = std::make_unique<GroupState>();
      GS->Waves.resize(MaxWaves);
    }
    uint32_t G[3] = {uint32_t(Linear % NumGroups[0]), uint32_t(Linear / NumGroups[0] % NumGroups[1]),
                     uint32_t(Linear / (uint64_t(NumGroups[0]) * NumGroups[1]))};
    uint32_t Act[3];
    for (int Dim = 0; Dim < 3; ++Dim) {
      uint32_t Grid = Dim < int(D.Dims) ? D.GridSize[Dim] : 1u;
      Act[Dim] = std::min(WgSize[Dim], Grid - G[Dim] * WgSize[Dim]);
    }
    uint32_t N = Act[0] * Act[1] * Act[2];
    unsigned NW = (N + WS - 1) / WS;
    GS->Lds.assign(LdsSize ? LdsSize : 4, 0);
    GS->Live.clear();
    for (unsigned Wv = 0; Wv < NW; ++Wv) {
      WaveState &W = GS->Waves[Wv];
      W.Lanes = WS;
      W.Id = Wv;
      W.Done = W.AtBarrier = false;
      W.Pc = Entry;
      W.Mode = Mode;
      W.TrapSts = 0;
      W.Prio = 0;
      W.GprIdxEn = false;
      W.Scc = false;
      memset(W.S, 0, sizeof W.S);
      W.V.assign(size_t(std::max(C.VgprAlloc, 1u)) * 64, 0);
      W.A.assign(size_t(std::max(C.AgprAlloc, 1u)) * 64, 0);
      W.Priv.assign(size_t(C.PrivSize) * WS, 0);
      uint64_t Exec = 0;
      for (unsigned L = 0; L < WS; ++L) {
        uint32_t Flat = Wv * WS + L;
        if (Flat >= N)
          break;
        Exec |= 1ull << L;
        uint32_t X = Flat % Act[0], Y = (Flat / Act[0]) % Act[1], Z = Flat / (Act[0] * Act[1]);
        if (PackedTid) {
          W.v(0, L) = X | (TidEnable >= 1 ? Y << 10 : 0) | (TidEnable >= 2 ? Z << 20 : 0);
        } else {
          W.v(0, L) = X;
          if (TidEnable >= 1 && C.VgprAlloc > 1) W.v(1, L) = Y;
          if (TidEnable >= 2 && C.VgprAlloc > 2) W.v(2, L) = Z;
        }
      }
      W.setExec(Exec);
      // User SGPRs, in AMDGPUUsage's order.
      unsigned S = 0;
      auto Put64 = [&](uint64_t V) {
        W.S[S++] = uint32_t(V);
        W.S[S++] = uint32_t(V >> 32);
      };
      if (K.Properties & 1) {
        // Private segment buffer V#: base = private aperture (each lane
        // sees its own private memory), no range limit.
        W.S[S++] = uint32_t(PrivateAperture);
        W.S[S++] = uint32_t(PrivateAperture >> 32) & 0xffff;
        W.S[S++] = 0xffffffffu;
        W.S[S++] = 0x00e00000u;
      }
      if (K.Properties & 2) Put64(D.PacketAddr);
      if (K.Properties & 4) Put64(D.QueueAddr);
      if (K.Properties & 8) Put64(D.KernargAddr);
      if (K.Properties & 16) Put64(D.DispatchId);
      if (K.Properties & 32) Put64(0); // flat scratch init: private offsets start at 0
      if (K.Properties & 64) W.S[S++] = C.PrivSize;
      // Preloaded kernel arguments (gfx90a+/gfx942): dwords from the
      // kernarg segment at the given offset follow the user SGPRs.
      unsigned PreLen = K.KernargPreload & 0x7f, PreOff = K.KernargPreload >> 7;
      if (PreLen && Gfx9) {
        uint64_t A = D.KernargAddr + uint64_t(PreOff) * 4;
        const uint8_t *Pre = Mem.host(A, PreLen * 4ull, false);
        if (!Pre) {
          Err = "preloaded kernel arguments outside memory";
          return nullptr;
        }
        for (unsigned P = 0; P < PreLen && S < 32; ++P)
          memcpy(&W.S[S++], Pre + 4 * P, 4);
      }
      S = std::max(S, UserCount);
      for (int Dim = 0; Dim < 3; ++Dim)
        if (WgId[Dim])
          W.S[S++] = G[Dim];
      if (WgInfo) // {first_wave, 14'b0, ordered_append_term, waves in group}
        W.S[S++] = (Wv == 0 ? 1u << 31 : 0) | (NW & 0x3f);
      if (ScratchEn)
        W.S[S++] = 0; // private segment wave offset
      GS->Live.push_back(&W);
    }
    return GS;
  };

  // Runs one workgroup's waves round robin, each for at most Quantum
  // instructions per turn, releasing s_barrier once every live wave waits
  // there. 1: all waves ended; 0: a wave used its whole turn (the group
  // goes on later); -1: fault.
  constexpr uint64_t Quantum = 4096;
  auto Slice = [&](GroupState &GS) -> int {
    C.Lds = GS.Lds.data();
    C.Group = &GS.Live;
    for (;;) {
      bool AllDone = true, AllWaiting = true, Exhausted = false;
      for (WaveState *W : GS.Live) {
        if (W->Done)
          continue;
        if (!W->AtBarrier) {
          if (!step(*W, C, Count, Count + Quantum))
            return -1;
          Exhausted |= !W->Done && !W->AtBarrier;
        }
        if (!W->Done) {
          AllDone = false;
          AllWaiting &= W->AtBarrier;
        }
      }
      if (AllDone)
        return 1;
      if (AllWaiting) {
        for (WaveState *W : GS.Live)
          W->AtBarrier = false;
        continue;
      }
      if (Exhausted)
        return 0;
    }
  };

  while (NextGroup < TotalGroups || !Running.empty()) {
    if (Running.empty()) {
      std::string Err;
      auto GS = Admit(NextGroup++, Err);
      if (!GS)
        return Fail(DispatchResult::MemoryFault, Err);
      Running.push_back(std::move(GS));
    }
    // A workgroup that used its whole turn lets the next one start (up to
    // the residency limit): one that finishes within its turn runs alone,
    // which keeps ordinary kernels sequential and cache-friendly.
    bool Stalled = false;
    for (size_t I = 0; I < Running.size();) {
      int St = Slice(*Running[I]);
      if (St < 0) {
        R.Status = C.Status;
        R.Message = C.Msg;
        R.Instructions = Count;
        return R;
      }
      if (St == 1) {
        Spare.push_back(std::move(Running[I]));
        Running.erase(Running.begin() + I);
        continue;
      }
      Stalled = true;
      ++I;
    }
    if (Stalled && Running.size() < Resident && NextGroup < TotalGroups) {
      std::string Err;
      auto GS = Admit(NextGroup++, Err);
      if (!GS)
        return Fail(DispatchResult::MemoryFault, Err);
      Running.push_back(std::move(GS));
    }
  }
  R.Instructions = Count;
  return R;
}

} // namespace

std::unique_ptr<Simulator> Simulator::create(Gfx Target, const MemoryMap &Memory) {
  return std::make_unique<SimulatorImpl>(Target, Memory);
}

} // namespace ferry::sim
