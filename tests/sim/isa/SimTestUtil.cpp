//===- tests/sim/isa/SimTestUtil.cpp - running code on the ISA simulator --===//
#include "tests/sim/isa/SimTestUtil.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace llvm;

namespace ferry::sim::test {

HostMemory::~HostMemory() {
  for (void *B : Blocks)
    free(B);
}

void *HostMemory::alloc(size_t Size, bool Writable) {
  size_t Rounded = (Size + 255) & ~size_t(255);
  if (!Rounded)
    Rounded = 256;
  void *P = nullptr;
  if (posix_memalign(&P, 4096, Rounded))
    return nullptr;
  memset(P, 0, Rounded);
  std::lock_guard<std::mutex> G(Lock);
  Blocks.push_back(P);
  // Register exactly what was asked, so off-by-one accesses fault.
  Ranges[reinterpret_cast<uint64_t>(P)] = Range{Size ? Size : 1, Writable};
  return P;
}

bool HostMemory::valid(uint64_t Addr, uint64_t Size, bool Write) const {
  std::lock_guard<std::mutex> G(Lock);
  auto It = Ranges.upper_bound(Addr);
  if (It == Ranges.begin())
    return false;
  --It;
  if (Addr + Size > It->first + It->second.Size || Addr + Size < Addr)
    return false;
  return !Write || It->second.Writable;
}

bool loadCodeObject(const std::string &Path, HostMemory &Mem, CodeObject &Out, std::string &Err) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    Err = "cannot read " + Path;
    return false;
  }
  auto Obj = object::ELF64LEObjectFile::create((*Buf)->getMemBufferRef());
  if (!Obj) {
    Err = toString(Obj.takeError());
    return false;
  }
  const auto &File = Obj->getELFFile();
  auto Phdrs = File.program_headers();
  if (!Phdrs) {
    Err = toString(Phdrs.takeError());
    return false;
  }
  uint64_t End = 0;
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD)
      End = std::max<uint64_t>(End, P.p_vaddr + P.p_memsz);
  uint8_t *Base = static_cast<uint8_t *>(Mem.alloc(End, false));
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD)
      memcpy(Base + P.p_vaddr, (*Buf)->getBufferStart() + P.p_offset, P.p_filesz);
  Out.Base = reinterpret_cast<uint64_t>(Base);
  for (const object::SymbolRef &S : Obj->symbols()) {
    auto Name = S.getName();
    auto Addr = S.getAddress();
    if (Name && Addr && !Name->empty())
      Out.Symbols[Name->str()] = Out.Base + *Addr;
    else {
      if (!Name) consumeError(Name.takeError());
      if (!Addr) consumeError(Addr.takeError());
    }
  }
  // Dynamic relocations: R_AMDGPU_RELATIVE64 (13) is all a kernel with
  // constant tables of addresses needs.
  auto Sections = File.sections();
  if (Sections)
    for (const auto &Sec : *Sections) {
      if (Sec.sh_type != ELF::SHT_RELA)
        continue;
      auto Relas = File.relas(Sec);
      if (!Relas) {
        consumeError(Relas.takeError());
        continue;
      }
      for (const auto &R : *Relas) {
        uint32_t Type = R.getType(false);
        if (Type == ELF::R_AMDGPU_RELATIVE64) {
          uint64_t V = Out.Base + R.r_addend;
          memcpy(Base + R.r_offset, &V, 8);
        } else {
          Err = "unsupported relocation type " + std::to_string(Type);
          return false;
        }
      }
    }
  return true;
}

DispatchResult dispatch(Simulator &Sim, HostMemory &Mem, const CodeObject &CO,
                        const std::string &Kernel, const Launch &L, const void *Args,
                        size_t ArgSize) {
  DispatchResult Bad;
  Bad.Status = DispatchResult::Unsupported;
  auto It = CO.Symbols.find(Kernel + ".kd");
  if (It == CO.Symbols.end()) {
    Bad.Message = "no kernel " + Kernel;
    return Bad;
  }
  const uint8_t *KD = reinterpret_cast<const uint8_t *>(It->second);
  uint32_t GroupFixed, PrivFixed, KernargSize;
  memcpy(&GroupFixed, KD, 4);
  memcpy(&PrivFixed, KD + 4, 4);
  memcpy(&KernargSize, KD + 8, 4);
  size_t Explicit = (ArgSize + 7) & ~size_t(7);
  size_t Total = std::max<size_t>(KernargSize, Explicit + 256);
  uint8_t *KA = static_cast<uint8_t *>(Mem.alloc(Total, false));
  if (ArgSize)
    memcpy(KA, Args, ArgSize);
  // COV5 hidden arguments right after the explicit ones (8-aligned).
  uint8_t *H = KA + Explicit;
  for (int D = 0; D < 3; ++D) {
    uint32_t Grid = D < int(L.Dims) ? L.Grid[D] : 1, Group = D < int(L.Dims) ? L.Group[D] : 1;
    uint32_t Count = (Grid + Group - 1) / Group;
    uint16_t G16 = uint16_t(Group), Rem = uint16_t(Grid % Group);
    memcpy(H + 4 * D, &Count, 4);
    memcpy(H + 12 + 2 * D, &G16, 2);
    memcpy(H + 18 + 2 * D, &Rem, 2);
  }
  uint16_t Dims = uint16_t(L.Dims);
  memcpy(H + 64, &Dims, 2);
  memcpy(H + 120, &L.DynamicLds, 4);

  uint8_t *Pkt = static_cast<uint8_t *>(Mem.alloc(64, false));
  uint16_t Header = 2, Setup = uint16_t(L.Dims);
  memcpy(Pkt, &Header, 2);
  memcpy(Pkt + 2, &Setup, 2);
  for (int D = 0; D < 3; ++D) {
    uint16_t G = uint16_t(D < int(L.Dims) ? L.Group[D] : 1);
    uint32_t S = D < int(L.Dims) ? L.Grid[D] : 1;
    memcpy(Pkt + 4 + 2 * D, &G, 2);
    memcpy(Pkt + 12 + 4 * D, &S, 4);
  }
  Dispatch Dp;
  Dp.PacketAddr = reinterpret_cast<uint64_t>(Pkt);
  Dp.KernelObject = It->second;
  Dp.KernargAddr = reinterpret_cast<uint64_t>(KA);
  Dp.Dims = L.Dims;
  for (int D = 0; D < 3; ++D) {
    Dp.WorkgroupSize[D] = L.Group[D];
    Dp.GridSize[D] = L.Grid[D];
  }
  Dp.GroupSegmentSize = GroupFixed + L.DynamicLds;
  Dp.PrivateSegmentSize = std::max(PrivFixed, L.Private);
  uint32_t PS = Dp.PrivateSegmentSize, GS = Dp.GroupSegmentSize;
  memcpy(Pkt + 24, &PS, 4);
  memcpy(Pkt + 28, &GS, 4);
  memcpy(Pkt + 32, &Dp.KernelObject, 8);
  memcpy(Pkt + 40, &Dp.KernargAddr, 8);
  Dp.KernelName = Kernel.c_str();
  return Sim.run(Dp);
}

std::string kernelPath(const std::string &Name, Gfx G) {
  return std::string(FERRY_SIM_KERNEL_DIR) + "/" + Name + "-" + gfxName(G) + ".so";
}

std::string assembleKernel(const std::string &Asm, Gfx G, std::string &Err) {
  static int Counter = 0;
  std::string Dir = std::string(FERRY_SIM_KERNEL_DIR) + "/asm";
  std::string Stem = Dir + "/k" + std::to_string(getpid()) + "_" + std::to_string(Counter++);
  std::string S = Stem + ".s", O = Stem + ".o", So = Stem + ".so";
  (void)!system(("mkdir -p " + Dir).c_str());
  {
    std::ofstream F(S);
    F << Asm;
  }
  std::string Cmd = std::string(FERRY_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + gfxName(G) +
                    (G == Gfx::Gfx1100 ? " -mattr=+wavefrontsize32" : "") + " -filetype=obj " + S +
                    " -o " + O + " 2>" + Stem + ".err && " + FERRY_LLD + " -shared " + O + " -o " +
                    So + " 2>>" + Stem + ".err";
  if (system(Cmd.c_str()) != 0) {
    std::ifstream E(Stem + ".err");
    std::stringstream SS;
    SS << E.rdbuf();
    Err = SS.str();
    return "";
  }
  return So;
}

} // namespace ferry::sim::test
