//===- sim/runtime/Loader.cpp - the code object loader ---------------------===//
/// \file
/// Loads AMDGPU code objects (HSA code object v4-v6: a linked ELF shared
/// object) for an agent as ROCr's loader does, from the object's own
/// description (ELF headers, the NT_AMDGPU_METADATA msgpack note, LLVM's
/// AMDGPUUsage), never from what ferry's compiler meant to produce:
///  - the ELF header must say ELF64, little-endian, OS ABI AMDGPU_HSA, an ABI
///    version of v4..v6, EM_AMDGPU, ET_DYN; otherwise INVALID_CODE_OBJECT;
///  - the processor in e_flags (and the xnack/sramecc settings) must match
///    the agent's ISA; otherwise INCOMPATIBLE_ARGUMENTS, as ROCr answers;
///  - PT_LOAD segments are copied into one fresh mapping at their virtual
///    addresses and registered as ranges of the agent (writable only where
///    the segment is), dynamic relocations (RELATIVE64, ABS64, ABS32,
///    ABS32_LO/HI) are applied against the object's own symbols, and global
///    symbols become the executable's: `name.kd` descriptors are kernels
///    (with the metadata's kernarg, group, private sizes and dynamic stack),
///    other data objects are variables.
/// Every offset read from the file is bounds-checked (the metadata with a
/// reader of its own, MsgPackReader), so a malformed object
/// gives an HSA error and a line saying why, never a crash.
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"

#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ferry::sim::rt {

namespace {

using ElfFile = llvm::object::ELF64LEFile;
using Phdr = ElfFile::Elf_Phdr;
using Shdr = ElfFile::Elf_Shdr;
using Sym = ElfFile::Elf_Sym;

/// Kernel facts from the metadata note, by descriptor symbol name.
struct KernelMeta {
  uint64_t KernargSize = 0, KernargAlign = 16, GroupSize = 0, PrivateSize = 0;
  bool DynamicStack = false;
};

/// A bounds-checked reader of the msgpack the metadata note holds. LLVM's
/// msgpack::Document trusts its input (a map keyed by a map crashes it), and
/// the loader must survive any bytes, so this reads only what it needs:
/// scalars, strings, and the extent of arrays and maps, never past End and
/// never deeper than MaxDepth.
class MsgPackReader {
public:
  enum Kind { Nil, Bool, UInt, Int, Float, Str, Bin, Array, Map, Ext };
  struct Item {
    Kind K = Nil;
    uint64_t U = 0; ///< UInt value; Array/Map element count.
    int64_t I = 0;
    bool B = false;
    llvm::StringRef S; ///< Str payload.
  };
  MsgPackReader(const uint8_t *Begin, size_t Size) : P(Begin), End(Begin + Size) {}

  /// Reads one item's header (and a string's or blob's payload; an array's
  /// or map's elements follow). False on malformed or truncated input.
  bool next(Item &It) {
    if (P >= End)
      return false;
    uint8_t C = *P++;
    It = Item();
    if (C <= 0x7f)
      return It.K = UInt, It.U = C, true;
    if (C >= 0xe0)
      return It.K = Int, It.I = int8_t(C), true;
    if ((C & 0xf0) == 0x80)
      return container(Map, C & 0x0f, It);
    if ((C & 0xf0) == 0x90)
      return container(Array, C & 0x0f, It);
    if ((C & 0xe0) == 0xa0)
      return payload(Str, C & 0x1f, It);
    uint64_t N = 0;
    switch (C) {
    case 0xc0:
      return It.K = Nil, true;
    case 0xc2:
    case 0xc3:
      return It.K = Bool, It.B = C == 0xc3, true;
    case 0xc4: case 0xc5: case 0xc6:
      return be(1u << (C - 0xc4), N) && payload(Bin, N, It);
    case 0xc7: case 0xc8: case 0xc9:
      return be(1u << (C - 0xc7), N) && skipBytes(1 + N) && (It.K = Ext, true);
    case 0xca: case 0xcb:
      return skipBytes(C == 0xca ? 4 : 8) && (It.K = Float, true);
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
      return be(1u << (C - 0xcc), It.U) && (It.K = UInt, true);
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
      unsigned Bytes = 1u << (C - 0xd0);
      if (!be(Bytes, N))
        return false;
      It.K = Int;
      It.I = Bytes == 8 ? int64_t(N) : int64_t(N << (64 - 8 * Bytes)) >> (64 - 8 * Bytes);
      return true;
    }
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
      return skipBytes(1 + (1u << (C - 0xd4))) && (It.K = Ext, true);
    case 0xd9: case 0xda: case 0xdb:
      return be(1u << (C - 0xd9), N) && payload(Str, N, It);
    case 0xdc: case 0xdd:
      return be(C == 0xdc ? 2 : 4, N) && container(Array, N, It);
    case 0xde: case 0xdf:
      return be(C == 0xde ? 2 : 4, N) && container(Map, N, It);
    }
    return false; // 0xc1 is never used.
  }

  /// Skips one whole value.
  bool skip(unsigned Depth = 0) {
    Item It;
    if (Depth > MaxDepth || !next(It))
      return false;
    if (It.K == Array || It.K == Map)
      for (uint64_t I = 0, N = It.K == Map ? 2 * It.U : It.U; I < N; ++I)
        if (!skip(Depth + 1))
          return false;
    return true;
  }

private:
  static constexpr unsigned MaxDepth = 32;
  bool be(unsigned Bytes, uint64_t &Out) {
    if (size_t(End - P) < Bytes)
      return false;
    Out = 0;
    for (unsigned I = 0; I < Bytes; ++I)
      Out = Out << 8 | *P++;
    return true;
  }
  bool skipBytes(uint64_t N) {
    if (uint64_t(End - P) < N)
      return false;
    P += N;
    return true;
  }
  bool payload(Kind K, uint64_t N, Item &It) {
    if (uint64_t(End - P) < N)
      return false;
    It.K = K;
    It.S = llvm::StringRef(reinterpret_cast<const char *>(P), N);
    P += N;
    return true;
  }
  bool container(Kind K, uint64_t N, Item &It) {
    // Every element takes at least a byte: a count beyond what is left is
    // malformed (and would otherwise loop for long).
    if (N > uint64_t(End - P))
      return false;
    It.K = K;
    It.U = N;
    return true;
  }
  const uint8_t *P, *End;
};

/// Parses the NT_AMDGPU_METADATA note; false with Why on anything malformed.
bool parseMetadata(llvm::ArrayRef<uint8_t> Blob, std::map<std::string, KernelMeta> &Out,
                   std::string &Why) {
  MsgPackReader R(Blob.data(), Blob.size());
  using Item = MsgPackReader::Item;
  Item Root;
  Why = "the AMDGPU metadata note is malformed msgpack";
  if (!R.next(Root) || Root.K != MsgPackReader::Map) {
    Why = "the AMDGPU metadata note is not a msgpack map";
    return false;
  }
  for (uint64_t I = 0; I < Root.U; ++I) {
    Item Key;
    if (!R.next(Key))
      return false;
    if (Key.K != MsgPackReader::Str || Key.S != "amdhsa.kernels") {
      if ((Key.K == MsgPackReader::Array || Key.K == MsgPackReader::Map))
        return Why = "a metadata key is not a string", false;
      if (!R.skip())
        return false;
      continue;
    }
    Item Kernels;
    if (!R.next(Kernels) || Kernels.K != MsgPackReader::Array)
      return Why = "amdhsa.kernels is not an array", false;
    for (uint64_t K = 0; K < Kernels.U; ++K) {
      Item Map;
      if (!R.next(Map) || Map.K != MsgPackReader::Map)
        return Why = "an amdhsa.kernels entry is not a map", false;
      KernelMeta M;
      std::string Symbol;
      for (uint64_t F = 0; F < Map.U; ++F) {
        Item Name, Value;
        if (!R.next(Name))
          return false;
        if (Name.K != MsgPackReader::Str)
          return Why = "a kernel metadata key is not a string", false;
        if (!R.next(Value))
          return false;
        if (Value.K == MsgPackReader::Array || Value.K == MsgPackReader::Map) {
          // .args and the like: skip the elements.
          for (uint64_t E = 0, N = Value.K == MsgPackReader::Map ? 2 * Value.U : Value.U; E < N;
               ++E)
            if (!R.skip(1))
              return false;
          continue;
        }
        bool IsInt = Value.K == MsgPackReader::UInt ||
                     (Value.K == MsgPackReader::Int && Value.I >= 0);
        uint64_t V = Value.K == MsgPackReader::UInt ? Value.U : uint64_t(Value.I);
        if (Name.S == ".symbol" && Value.K == MsgPackReader::Str)
          Symbol = Value.S.str();
        else if (Name.S == ".kernarg_segment_size" && IsInt)
          M.KernargSize = V;
        else if (Name.S == ".kernarg_segment_align" && IsInt)
          M.KernargAlign = V;
        else if (Name.S == ".group_segment_fixed_size" && IsInt)
          M.GroupSize = V;
        else if (Name.S == ".private_segment_fixed_size" && IsInt)
          M.PrivateSize = V;
        else if (Name.S == ".uses_dynamic_stack" && Value.K == MsgPackReader::Bool)
          M.DynamicStack = Value.B;
      }
      if (Symbol.empty())
        return Why = "a kernel in the metadata has no .symbol", false;
      if (M.KernargSize > UINT32_MAX || M.GroupSize > UINT32_MAX ||
          M.PrivateSize > UINT32_MAX || M.KernargAlign > 4096)
        return Why = "kernel " + Symbol + " has out-of-range segment sizes in its metadata", false;
      Out[Symbol] = M;
    }
  }
  return true;
}

/// Whether code built with e_flags runs on the agent G (ROCr's ISA
/// compatibility: same processor; xnack/sramecc "any" fits either setting).
bool compatible(uint32_t Flags, unsigned AbiVersion, const GpuSpec &G, std::string &Why) {
  uint32_t Mach = Flags & llvm::ELF::EF_AMDGPU_MACH;
  if (Mach != G.EfMach) {
    char Buf[160];
    std::snprintf(Buf, sizeof Buf,
                  "the code object is for processor %#x (e_flags %#x), the agent is %s (%#x)",
                  Mach, Flags, G.Name, G.EfMach);
    Why = Buf;
    return false;
  }
  auto Check = [&](uint32_t Setting, bool Has, bool On, const char *Feature) {
    // 0: unsupported, 1: any, 2: off, 3: on.
    if (Setting <= 1)
      return true;
    bool WantOn = Setting == 3;
    if (!Has || WantOn != On) {
      Why = std::string("the code object needs ") + Feature + (WantOn ? "+" : "-") + "; " +
            G.Isa;
      return false;
    }
    return true;
  };
  (void)AbiVersion;
  return Check((Flags & llvm::ELF::EF_AMDGPU_FEATURE_XNACK_V4) >> 8, G.HasXnackFeature, G.Xnack,
               "xnack") &&
         Check((Flags & llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10, G.HasSrameccFeature,
               G.Sramecc, "sramecc");
}

} // namespace

hsa_status_t loadCodeObject(Executable &E, Agent &A, const std::vector<uint8_t> &Bytes,
                            std::string &Why) {
  auto Invalid = [&](std::string Text) {
    Why = std::move(Text);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  };
  llvm::StringRef Data(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  if (Bytes.size() < sizeof(llvm::ELF::Elf64_Ehdr) || std::memcmp(Bytes.data(), "\x7f" "ELF", 4))
    return Invalid("not an ELF file");
  const uint8_t *Ident = Bytes.data();
  if (Ident[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      Ident[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return Invalid("not a 64-bit little-endian ELF file");
  auto ObjOrErr = ElfFile::create(Data);
  if (!ObjOrErr)
    return Invalid(llvm::toString(ObjOrErr.takeError()));
  const ElfFile &Obj = *ObjOrErr;
  const auto &Hdr = Obj.getHeader();
  if (Hdr.e_machine != llvm::ELF::EM_AMDGPU)
    return Invalid("e_machine is " + std::to_string(Hdr.e_machine) + ", not EM_AMDGPU");
  if (Ident[llvm::ELF::EI_OSABI] != llvm::ELF::ELFOSABI_AMDGPU_HSA)
    return Invalid("OS ABI is " + std::to_string(Ident[llvm::ELF::EI_OSABI]) +
                   ", not AMDGPU_HSA");
  unsigned Abi = Ident[llvm::ELF::EI_ABIVERSION];
  if (Abi < llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V4 || Abi > llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    return Invalid("code object ABI version " + std::to_string(Abi) +
                   " (only v4 to v6 are loaded)");
  if (Hdr.e_type != llvm::ELF::ET_DYN)
    return Invalid("ELF type " + std::to_string(Hdr.e_type) +
                   ", not ET_DYN (link the object with ld.lld -shared)");
  if (!compatible(Hdr.e_flags, Abi, *A.Spec, Why))
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;

  auto PhdrsOrErr = Obj.program_headers();
  if (!PhdrsOrErr)
    return Invalid(llvm::toString(PhdrsOrErr.takeError()));
  std::vector<const Phdr *> Loads;
  uint64_t Low = UINT64_MAX, High = 0;
  for (const Phdr &P : *PhdrsOrErr) {
    if (P.p_type != llvm::ELF::PT_LOAD || P.p_memsz == 0)
      continue;
    if (P.p_filesz > P.p_memsz || P.p_offset > Bytes.size() ||
        P.p_filesz > Bytes.size() - P.p_offset || P.p_vaddr + P.p_memsz < P.p_vaddr ||
        P.p_memsz > (1ull << 32))
      return Invalid("a PT_LOAD segment lies outside the file or is too large");
    Loads.push_back(&P);
    Low = std::min<uint64_t>(Low, P.p_vaddr);
    High = std::max<uint64_t>(High, P.p_vaddr + P.p_memsz);
  }
  if (Loads.empty())
    return Invalid("no PT_LOAD segment");
  Low &= ~uint64_t(4095);
  if (High - Low > (1ull << 32))
    return Invalid("segments span more than 4 GiB");
  for (size_t I = 0; I < Loads.size(); ++I)
    for (size_t J = I + 1; J < Loads.size(); ++J)
      if (Loads[I]->p_vaddr < Loads[J]->p_vaddr + Loads[J]->p_memsz &&
          Loads[J]->p_vaddr < Loads[I]->p_vaddr + Loads[I]->p_memsz)
        return Invalid("PT_LOAD segments overlap");

  auto LCO = std::make_unique<LoadedCodeObject>();
  LCO->Owner = &A;
  LCO->MappingSize = size_t((High - Low + 4095) & ~uint64_t(4095));
  LCO->Mapping = mapMemory(LCO->MappingSize);
  if (!LCO->Mapping)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  auto *Image = static_cast<uint8_t *>(LCO->Mapping);
  // Under FERRY_SIM_HOST_ACCESS=trap the code and its variables are device
  // memory the host cannot touch: their addresses are an inaccessible
  // reservation; the loader writes the bytes through Image.
  if (E.Rt.TrapHostAccess && A.isGpu()) {
    LCO->Reservation = reserveInaccessible(LCO->MappingSize);
    if (!LCO->Reservation) {
      unmapMemory(LCO->Mapping, LCO->MappingSize);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
  }
  uint64_t DeviceImage = reinterpret_cast<uint64_t>(LCO->Reservation ? LCO->Reservation : Image);
  LCO->LoadBase = DeviceImage - Low;
  // From here on, LCO unmaps and unregisters itself on any failure when it
  // is moved into E; until then, clean up by hand.
  auto Discard = [&] {
    for (uint64_t Base : LCO->RangeBases)
      E.Rt.Memory.remove(Base);
    unmapMemory(LCO->Mapping, LCO->MappingSize);
    unmapMemory(LCO->Reservation, LCO->MappingSize);
  };
  for (const Phdr *P : Loads)
    std::memcpy(Image + (P->p_vaddr - Low), Bytes.data() + P->p_offset, P->p_filesz);

  // Inside a loaded segment: the test for relocation targets and symbols.
  auto InSegment = [&](uint64_t VAddr, uint64_t Size) {
    for (const Phdr *P : Loads)
      if (VAddr >= P->p_vaddr && VAddr - P->p_vaddr <= P->p_memsz &&
          Size <= P->p_memsz - (VAddr - P->p_vaddr))
        return true;
    return false;
  };

  // The metadata note.
  std::map<std::string, KernelMeta> Meta;
  bool HaveMeta = false;
  for (const Phdr &P : *PhdrsOrErr) {
    if (P.p_type != llvm::ELF::PT_NOTE)
      continue;
    if (P.p_offset > Bytes.size() || P.p_filesz > Bytes.size() - P.p_offset) {
      Discard();
      return Invalid("a PT_NOTE segment lies outside the file");
    }
    llvm::Error Err = llvm::Error::success();
    for (const auto &Note : Obj.notes(P, Err)) {
      if (Note.getName() != "AMDGPU" || Note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::ArrayRef<uint8_t> Desc = Note.getDesc(P.p_align);
      if (!parseMetadata(Desc, Meta, Why)) {
        llvm::consumeError(std::move(Err));
        Discard();
        return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      }
      HaveMeta = true;
    }
    if (Err) {
      Discard();
      return Invalid("bad note: " + llvm::toString(std::move(Err)));
    }
  }

  auto SectionsOrErr = Obj.sections();
  if (!SectionsOrErr) {
    Discard();
    return Invalid(llvm::toString(SectionsOrErr.takeError()));
  }

  // Relocations, against the object's own symbols.
  for (const Shdr &S : *SectionsOrErr) {
    if (S.sh_type == llvm::ELF::SHT_REL) {
      Discard();
      return Invalid("SHT_REL relocations (AMDGPU uses SHT_RELA)");
    }
    if (S.sh_type != llvm::ELF::SHT_RELA)
      continue;
    auto RelasOrErr = Obj.relas(S);
    if (!RelasOrErr) {
      Discard();
      return Invalid(llvm::toString(RelasOrErr.takeError()));
    }
    const Shdr *SymTab = nullptr;
    if (S.sh_link) {
      auto T = Obj.getSection(S.sh_link);
      if (!T) {
        Discard();
        return Invalid(llvm::toString(T.takeError()));
      }
      SymTab = *T;
    }
    for (const auto &R : *RelasOrErr) {
      uint32_t Type = R.getType(false);
      uint32_t SymIndex = R.getSymbol(false);
      uint64_t S0 = 0;
      if (Type == llvm::ELF::R_AMDGPU_NONE)
        continue;
      if (SymIndex) {
        if (!SymTab) {
          Discard();
          return Invalid("a relocation names a symbol but its section has no symbol table");
        }
        auto SymOrErr = Obj.getRelocationSymbol(R, SymTab);
        if (!SymOrErr || !*SymOrErr) {
          if (!SymOrErr)
            llvm::consumeError(SymOrErr.takeError());
          Discard();
          return Invalid("a relocation's symbol index is out of range");
        }
        const Sym &Target = **SymOrErr;
        if (Target.st_shndx == llvm::ELF::SHN_UNDEF) {
          std::string Name = "?";
          if (auto Str = Obj.getStringTableForSymtab(*SymTab))
            if (auto N = Target.getName(*Str))
              Name = N->str();
            else
              llvm::consumeError(N.takeError());
          else
            llvm::consumeError(Str.takeError());
          Discard();
          Why = "relocation against undefined symbol '" + Name +
                "' (the loader resolves only the object's own symbols)";
          return HSA_STATUS_ERROR_VARIABLE_UNDEFINED;
        }
        S0 = LCO->LoadBase + Target.st_value;
      }
      uint64_t Where = R.r_offset;
      unsigned Width = Type == llvm::ELF::R_AMDGPU_ABS64 || Type == llvm::ELF::R_AMDGPU_RELATIVE64
                           ? 8
                           : 4;
      if (!InSegment(Where, Width)) {
        Discard();
        return Invalid("a relocation patches outside the loaded segments");
      }
      uint8_t *Patch = Image + (Where - Low);
      uint64_t V;
      switch (Type) {
      case llvm::ELF::R_AMDGPU_RELATIVE64:
        V = LCO->LoadBase + R.r_addend;
        break;
      case llvm::ELF::R_AMDGPU_ABS64:
      case llvm::ELF::R_AMDGPU_ABS32:
      case llvm::ELF::R_AMDGPU_ABS32_LO:
        V = S0 + R.r_addend;
        break;
      case llvm::ELF::R_AMDGPU_ABS32_HI:
        V = (S0 + R.r_addend) >> 32;
        break;
      default:
        Discard();
        return Invalid("unsupported dynamic relocation type " + std::to_string(Type));
      }
      std::memcpy(Patch, &V, Width); // Little-endian: the low bytes.
    }
  }

  // Symbols: .dynsym first (what a shared object exports), then .symtab.
  std::vector<std::unique_ptr<Symbol>> NewSymbols;
  auto Known = [&](const std::string &Name) {
    for (auto &S : NewSymbols)
      if (S->Name == Name)
        return true;
    for (auto &S : E.Symbols)
      if (S->Name == Name && S->Owner == &A)
        return true;
    return false;
  };
  for (unsigned Pass = 0; Pass < 2; ++Pass)
    for (const Shdr &S : *SectionsOrErr) {
      if (S.sh_type != (Pass == 0 ? llvm::ELF::SHT_DYNSYM : llvm::ELF::SHT_SYMTAB))
        continue;
      auto SymsOrErr = Obj.symbols(&S);
      auto StrOrErr = Obj.getStringTableForSymtab(S);
      if (!SymsOrErr || !StrOrErr) {
        if (!SymsOrErr)
          llvm::consumeError(SymsOrErr.takeError());
        if (!StrOrErr)
          llvm::consumeError(StrOrErr.takeError());
        Discard();
        return Invalid("unreadable symbol table");
      }
      for (const Sym &Y : *SymsOrErr) {
        unsigned Bind = Y.getBinding(), Type = Y.getType();
        if (Y.st_shndx == llvm::ELF::SHN_UNDEF || Type != llvm::ELF::STT_OBJECT ||
            (Bind != llvm::ELF::STB_GLOBAL && Bind != llvm::ELF::STB_WEAK))
          continue;
        auto NameOrErr = Y.getName(*StrOrErr);
        if (!NameOrErr) {
          llvm::consumeError(NameOrErr.takeError());
          Discard();
          return Invalid("a symbol name lies outside its string table");
        }
        std::string Name = NameOrErr->str();
        if (Name.empty() || Known(Name))
          continue;
        if (!InSegment(Y.st_value, Y.st_size)) {
          Discard();
          return Invalid("symbol '" + Name + "' lies outside the loaded segments");
        }
        auto New = std::make_unique<Symbol>();
        New->Name = Name;
        New->Owner = &A;
        New->Address = LCO->LoadBase + Y.st_value;
        New->Size = Y.st_size;
        bool Kd = Name.size() > 3 && Name.compare(Name.size() - 3, 3, ".kd") == 0;
        if (Kd) {
          auto It = Meta.find(Name);
          if (It == Meta.end()) {
            Discard();
            return Invalid("kernel descriptor '" + Name + "' has no entry in the " +
                           (HaveMeta ? "AMDGPU metadata" : "(missing) AMDGPU metadata note"));
          }
          if (Y.st_size != 64 || New->Address % 64) {
            Discard();
            return Invalid("kernel descriptor '" + Name + "' is not 64 bytes at a 64-byte "
                           "aligned address");
          }
          New->IsKernel = true;
          New->KernargSize = uint32_t(It->second.KernargSize);
          New->KernargAlign = uint32_t(std::max<uint64_t>(It->second.KernargAlign, 16));
          New->GroupSize = uint32_t(It->second.GroupSize);
          New->PrivateSize = uint32_t(It->second.PrivateSize);
          New->DynamicCallstack = It->second.DynamicStack;
        }
        NewSymbols.push_back(std::move(New));
      }
    }

  // Register the segments: the agent (and the host) may reach them; only
  // writable segments may be written.
  for (const Phdr *P : Loads) {
    Range R;
    R.What = Range::CodeSegment;
    R.Base = LCO->LoadBase + P->p_vaddr;
    R.Size = P->p_memsz;
    R.Writable = P->p_flags & llvm::ELF::PF_W;
    R.Access = A.bit() | E.Rt.Agents[0]->bit();
    R.Delta = int64_t(reinterpret_cast<uint64_t>(Image) - DeviceImage);
    if (!E.Rt.Memory.add(R)) {
      Discard();
      return Invalid("segments overlap once loaded");
    }
    LCO->RangeBases.push_back(R.Base);
  }
  {
    std::lock_guard<std::mutex> L(E.Rt.ObjectsLock);
    for (auto &S : NewSymbols)
      E.Rt.Symbols[S.get()] = &E;
  }
  for (auto &S : NewSymbols)
    E.Symbols.push_back(std::move(S));
  E.Objects.push_back(std::move(LCO));
  return HSA_STATUS_SUCCESS;
}

Executable::~Executable() {
  {
    std::lock_guard<std::mutex> L(Rt.ObjectsLock);
    for (auto &S : Symbols)
      Rt.Symbols.erase(S.get());
  }
  for (auto &O : Objects) {
    std::string Why;
    if (O->Owner->isGpu())
      if (Simulator *Sim = O->Owner->simulator(Why)) {
        std::lock_guard<std::mutex> L(O->Owner->dispatchLock());
        Sim->forgetCode(reinterpret_cast<uint64_t>(O->Reservation ? O->Reservation : O->Mapping),
                        O->MappingSize);
      }
    for (uint64_t Base : O->RangeBases)
      Rt.Memory.remove(Base);
    unmapMemory(O->Mapping, O->MappingSize);
    unmapMemory(O->Reservation, O->MappingSize);
  }
}

} // namespace ferry::sim::rt

using namespace ferry::sim::rt;

FERRY_SIM_EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(
    const void *Data, size_t Size, hsa_code_object_reader_t *Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Data || Size == 0 || !Out)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    // A copy: the client may free its buffer once loading is done, and the
    // loader never reads past what it was given.
    auto Reader = std::make_unique<CodeObjectReader>();
    const auto *P = static_cast<const uint8_t *>(Data);
    Reader->Bytes.assign(P, P + Size);
    std::lock_guard<std::mutex> L(R->ObjectsLock);
    Out->handle = reinterpret_cast<uint64_t>(Reader.get());
    R->Readers.emplace(Reader.get(), std::move(Reader));
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_code_object_reader_create_from_file(
    hsa_file_t File, hsa_code_object_reader_t *Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Out)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  off_t End = lseek(File, 0, SEEK_END);
  if (End <= 0 || lseek(File, 0, SEEK_SET) != 0)
    return HSA_STATUS_ERROR_INVALID_FILE;
  std::vector<uint8_t> Bytes(static_cast<size_t>(End));
  size_t Got = 0;
  while (Got < Bytes.size()) {
    ssize_t N = read(File, Bytes.data() + Got, Bytes.size() - Got);
    if (N <= 0)
      return HSA_STATUS_ERROR_INVALID_FILE;
    Got += size_t(N);
  }
  return hsa_code_object_reader_create_from_memory(Bytes.data(), Bytes.size(), Out);
}

FERRY_SIM_EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t H) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  std::unique_ptr<CodeObjectReader> Gone;
  std::lock_guard<std::mutex> L(R->ObjectsLock);
  auto It = R->Readers.find(reinterpret_cast<CodeObjectReader *>(H.handle));
  if (It == R->Readers.end())
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  Gone = std::move(It->second);
  R->Readers.erase(It);
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_create_alt(hsa_profile_t Profile,
                                                        hsa_default_float_rounding_mode_t Rounding,
                                                        const char *Options,
                                                        hsa_executable_t *Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Out || (Profile != HSA_PROFILE_BASE && Profile != HSA_PROFILE_FULL) ||
      int(Rounding) < 0 || int(Rounding) > 2)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    auto E = std::make_unique<Executable>(*R);
    E->Profile = Profile;
    std::lock_guard<std::mutex> L(R->ObjectsLock);
    Out->handle = reinterpret_cast<uint64_t>(E.get());
    R->Executables.emplace(E.get(), std::move(E));
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_create(hsa_profile_t Profile,
                                                    hsa_executable_state_t,
                                                    const char *Options, hsa_executable_t *Out) {
  return hsa_executable_create_alt(Profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, Options, Out);
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t EH, hsa_agent_t AH, hsa_code_object_reader_t RH, const char *Options,
    hsa_loaded_code_object_t *Loaded) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable *E = R->executable(EH);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  Agent *A = R->agent(AH);
  if (!A || !A->isGpu())
    return HSA_STATUS_ERROR_INVALID_AGENT;
  CodeObjectReader *Reader = R->reader(RH);
  if (!Reader)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  try {
    std::lock_guard<std::mutex> L(E->Lock);
    if (E->Frozen)
      return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
    std::string Why;
    hsa_status_t S = loadCodeObject(*E, *A, Reader->Bytes, Why);
    if (S != HSA_STATUS_SUCCESS) {
      report("loading a code object for %s: %s", A->Spec->Name, Why.c_str());
      return S;
    }
    if (Loaded)
      Loaded->handle = reinterpret_cast<uint64_t>(E->Objects.back().get());
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t EH, const char *Options) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable *E = R->executable(EH);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::lock_guard<std::mutex> L(E->Lock);
  if (E->Frozen)
    return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  E->Frozen = true;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t EH) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  std::unique_ptr<Executable> Gone;
  {
    std::lock_guard<std::mutex> L(R->ObjectsLock);
    auto It = R->Executables.find(reinterpret_cast<Executable *>(EH.handle));
    if (It == R->Executables.end())
      return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    Gone = std::move(It->second);
    R->Executables.erase(It);
  }
  return HSA_STATUS_SUCCESS; // Unloaded by ~Executable, outside the lock.
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_validate(hsa_executable_t EH, uint32_t *Result) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!R->executable(EH))
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Result)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *Result = 0;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_get_info(hsa_executable_t EH,
                                                      hsa_executable_info_t Attr, void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable *E = R->executable(EH);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> L(E->Lock);
  switch (int(Attr)) {
  case HSA_EXECUTABLE_INFO_PROFILE:
    *static_cast<hsa_profile_t *>(Value) = E->Profile;
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_STATE:
    *static_cast<hsa_executable_state_t *>(Value) =
        E->Frozen ? HSA_EXECUTABLE_STATE_FROZEN : HSA_EXECUTABLE_STATE_UNFROZEN;
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    *static_cast<hsa_default_float_rounding_mode_t *>(Value) = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    return HSA_STATUS_SUCCESS;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t EH,
                                                                const char *Name,
                                                                const hsa_agent_t *AH,
                                                                hsa_executable_symbol_t *Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable *E = R->executable(EH);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Name || !Out)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Agent *A = nullptr;
  if (AH && !(A = R->agent(*AH)))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  std::lock_guard<std::mutex> L(E->Lock);
  for (auto &S : E->Symbols)
    if (S->Name == Name && (!A || S->Owner == A)) {
      Out->handle = reinterpret_cast<uint64_t>(S.get());
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_get_symbol(hsa_executable_t EH,
                                                        const char *ModuleName,
                                                        const char *Name, hsa_agent_t AH,
                                                        int32_t CallConvention,
                                                        hsa_executable_symbol_t *Out) {
  return hsa_executable_get_symbol_by_name(EH, Name, &AH, Out);
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t EH,
    hsa_status_t (*Callback)(hsa_executable_t, hsa_executable_symbol_t, void *), void *Data) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable *E = R->executable(EH);
  if (!E)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!Callback)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<hsa_executable_symbol_t> Handles;
  {
    std::lock_guard<std::mutex> L(E->Lock);
    for (auto &S : E->Symbols)
      Handles.push_back({reinterpret_cast<uint64_t>(S.get())});
  }
  for (hsa_executable_symbol_t H : Handles)
    if (hsa_status_t S = Callback(EH, H, Data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

FERRY_SIM_EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t H,
                                                             hsa_executable_symbol_info_t Attr,
                                                             void *Value) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Symbol *S = R->symbol(H);
  if (!S)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  if (!Value)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto Put = [&](auto V) {
    std::memcpy(Value, &V, sizeof V);
    return HSA_STATUS_SUCCESS;
  };
  bool K = S->IsKernel;
  switch (int(Attr)) {
  case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
    return Put(K ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE);
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
    return Put(uint32_t(S->Name.size()));
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
    std::memcpy(Value, S->Name.data(), S->Name.size()); // Not NUL-terminated, as in ROCr.
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH:
    return Put(uint32_t(0));
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME:
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
    return Put(HSA_SYMBOL_LINKAGE_PROGRAM);
  case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION:
    return Put(true);
  case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
    return Put(hsa_agent_t{reinterpret_cast<uint64_t>(S->Owner)});
  }
  if (K) {
    switch (int(Attr)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      return Put(S->Address);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
      return Put(S->KernargSize);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
      return Put(S->KernargAlign);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
      return Put(S->GroupSize);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
      return Put(S->PrivateSize);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
      return Put(S->DynamicCallstack);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
      return Put(uint32_t(0));
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  switch (int(Attr)) {
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
    return Put(S->Address);
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
    return Put(uint32_t(S->Size));
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
    return Put(HSA_VARIABLE_ALLOCATION_AGENT);
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
    return Put(HSA_VARIABLE_SEGMENT_GLOBAL);
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT:
    return Put(uint32_t(S->Address % 16 == 0 ? 16 : S->Address % 8 == 0 ? 8 : 4));
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
    return Put(false);
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}
