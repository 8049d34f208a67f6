/// \file
/// File classification and section extraction through LLVM's Object
/// library; see File.h for what is read and why.
#include "ptx/fatbin/File.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

namespace ferry::fatbin {

const char *fileKindName(FileKind K) {
  switch (K) {
  case FileKind::HostElf:
    return "host ELF";
  case FileKind::Cubin:
    return "cubin (SASS only)";
  case FileKind::Fatbin:
    return "fatbin";
  case FileKind::Ptx:
    return "PTX text";
  }
  return "?";
}

static Error llvmError(const std::string &Name, llvm::Error E) {
  return makeError(CUDA_ERROR_INVALID_IMAGE, Name + ": " + llvm::toString(std::move(E)));
}

static const char *elfTypeName(unsigned Type) {
  switch (Type) {
  case llvm::ELF::ET_REL:
    return "relocatable object";
  case llvm::ELF::ET_EXEC:
    return "executable";
  case llvm::ELF::ET_DYN:
    return "shared object";
  default:
    return "ELF file of unknown type";
  }
}

/// The SASS architecture a cubin's e_flags name. The field moved with the
/// CUDA ELF ABI: ABI version 8 (CUDA 12.8+) keeps it in bits 8-15, older
/// ones in bits 0-7.
static unsigned cubinSm(uint32_t Flags, uint8_t AbiVersion) {
  return AbiVersion >= 8 ? (Flags >> 8) & 0xff : Flags & 0xff;
}

static Status readElf(FileImage &F, const Limits &L) {
  llvm::MemoryBufferRef Ref(
      llvm::StringRef(reinterpret_cast<const char *>(F.Bytes.data()), F.Bytes.size()), F.Name);
  auto ObjOr = llvm::object::ObjectFile::createObjectFile(Ref);
  if (!ObjOr)
    return llvmError(F.Name, ObjOr.takeError());
  auto *Elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(ObjOr->get());
  if (!Elf)
    return makeError(CUDA_ERROR_INVALID_IMAGE, F.Name + ": not an ELF file LLVM can read");
  if (Elf->getEMachine() == llvm::ELF::EM_CUDA) {
    F.Kind = FileKind::Cubin;
    uint8_t Abi = F.Bytes.size() > llvm::ELF::EI_ABIVERSION ? F.Bytes[llvm::ELF::EI_ABIVERSION] : 0;
    F.CubinSm = cubinSm(Elf->getPlatformFlags(), Abi);
    F.Description = std::string("CUDA cubin ") + elfTypeName(Elf->getEType()) + ", sm_" +
                    std::to_string(F.CubinSm) + " SASS only (ferry runs PTX, not SASS)";
    return Status::ok();
  }
  F.Kind = FileKind::HostElf;
  F.Description = std::string("ELF ") + elfTypeName(Elf->getEType()) + ", " +
                  std::string(Elf->getFileFormatName());

  struct Mapped {
    uint64_t Addr, Size, Offset;
  };
  std::vector<Mapped> Sections;
  struct Segment {
    uint64_t Offset, Addr;
    std::span<const uint8_t> Bytes;
  };
  std::vector<Segment> Segments; // .nvFatBinSegment
  for (const llvm::object::SectionRef &S : Elf->sections()) {
    llvm::object::ELFSectionRef ES(S);
    auto NameOr = S.getName();
    if (!NameOr)
      return llvmError(F.Name, NameOr.takeError());
    if (ES.getType() == llvm::ELF::SHT_NOBITS)
      continue;
    uint64_t Off = ES.getOffset(), Size = S.getSize();
    if (Off > F.Bytes.size() || Size > F.Bytes.size() - Off)
      return makeError(CUDA_ERROR_INVALID_IMAGE,
                       F.Name + ": section " + NameOr->str() + " at offset " + hexOffset(Off) +
                           " runs past the end of the file");
    if (S.getAddress())
      Sections.push_back({S.getAddress(), Size, Off});
    std::span<const uint8_t> Bytes(F.Bytes.data() + Off, Size);
    if (*NameOr == ".nv_fatbin" || *NameOr == "__nv_relfatbin") {
      auto Cs = parseContainerSequence(Bytes, Off, L);
      if (!Cs)
        return Error(Cs.error().code(), F.Name + ": section " + NameOr->str() + ": " +
                                            Cs.error().message());
      for (Container &C : *Cs)
        F.Containers.push_back({NameOr->str(), std::move(C)});
    } else if (*NameOr == ".nvFatBinSegment") {
      Segments.push_back({Off, S.getAddress(), Bytes});
    }
  }
  for (const Segment &Seg : Segments) {
    uint64_t Off = Seg.Offset;
    std::span<const uint8_t> Bytes = Seg.Bytes;
    for (uint64_t At = 0; At + WrapperSize <= Bytes.size(); At += WrapperSize) {
      auto W = parseWrapper(Bytes.subspan(At, WrapperSize), Off + At);
      if (!W)
        return Error(W.error().code(),
                     F.Name + ": section .nvFatBinSegment: " + W.error().message());
      FileWrapper FW{*W, Seg.Addr ? Seg.Addr + At : 0, std::nullopt};
      for (const Mapped &M : Sections)
        if (W->Data && W->Data >= M.Addr && W->Data - M.Addr < M.Size)
          FW.DataOffset = M.Offset + (W->Data - M.Addr);
      F.Wrappers.push_back(FW);
    }
  }
  return Status::ok();
}

Expected<FileImage> readBuffer(std::vector<uint8_t> Bytes, std::string Name, const Limits &L) {
  FileImage F;
  F.Name = std::move(Name);
  F.Bytes = std::move(Bytes);
  auto Starts = [&](std::initializer_list<uint8_t> Magic) {
    if (F.Bytes.size() < Magic.size())
      return false;
    return std::equal(Magic.begin(), Magic.end(), F.Bytes.begin());
  };
  if (Starts({0x7f, 'E', 'L', 'F'})) {
    Status S = readElf(F, L);
    if (!S)
      return S.takeError();
    return F;
  }
  if (Starts({0x50, 0xED, 0x55, 0xBA})) {
    F.Kind = FileKind::Fatbin;
    F.Description = "fatbin";
    auto Cs = parseContainerSequence(F.Bytes, 0, L);
    if (!Cs)
      return Error(Cs.error().code(), F.Name + ": " + Cs.error().message());
    for (Container &C : *Cs)
      F.Containers.push_back({"", std::move(C)});
    return F;
  }
  std::string_view Text(reinterpret_cast<const char *>(F.Bytes.data()), F.Bytes.size());
  while (!Text.empty() && Text.back() == '\0')
    Text.remove_suffix(1);
  bool IsText = !Text.empty();
  for (unsigned char C : Text)
    if ((C < 0x20 && C != '\t' && C != '\n' && C != '\r' && C != '\f' && C != '\v') || C == 0x7f)
      IsText = false;
  if (IsText && Text.find(".version") != std::string_view::npos) {
    F.Kind = FileKind::Ptx;
    F.Description = "PTX text";
    F.Ptx = Text;
    return F;
  }
  return makeError(CUDA_ERROR_INVALID_IMAGE,
                   F.Name + ": not an ELF file, a fatbin or PTX text (" +
                       std::to_string(F.Bytes.size()) + " bytes)");
}

Expected<FileImage> readFile(const std::string &Path, const Limits &L) {
  auto BufOr = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!BufOr)
    return makeError(CUDA_ERROR_FILE_NOT_FOUND, Path + ": " + BufOr.getError().message());
  const llvm::MemoryBuffer &B = **BufOr;
  std::vector<uint8_t> Bytes(B.getBufferStart(), B.getBufferEnd());
  return readBuffer(std::move(Bytes), Path, L);
}

} // namespace ferry::fatbin
