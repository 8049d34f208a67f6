/// \file
/// Bounds-checked parsing of fatbin containers, entries and wrappers. Every
/// check that can fail names the offset of the structure it was reading,
/// because "invalid fatbin" alone leaves the user nowhere to look.
#include "ptx/fatbin/Container.h"

#include <cstdio>

namespace ferry::fatbin {

std::string hexOffset(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

static Error invalid(std::string Message) {
  return makeError(CUDA_ERROR_INVALID_IMAGE, std::move(Message));
}

static Error truncated(const char *What, uint64_t At, uint64_t Need, uint64_t Remain) {
  return invalid(std::string("truncated ") + What + " at offset " + hexOffset(At) + ": need " +
                 std::to_string(Need) + " bytes, " + std::to_string(Remain) + " remain");
}

const char *compressionName(Compression C) {
  switch (C) {
  case Compression::None:
    return "none";
  case Compression::Lz4:
    return "lz4";
  case Compression::Zstd:
    return "zstd";
  }
  return "?";
}

std::string describeFlags(uint64_t Flags) {
  static const struct {
    uint64_t Bit;
    const char *Name;
  } Known[] = {{flags::Is64Bit, "64bit"},
               {flags::Debug, "debug"},
               {flags::ProducerCuda, "cuda"},
               {flags::ProducerOpenCL, "opencl"},
               {flags::HostLinux, "linux"},
               {flags::HostMac, "mac"},
               {flags::HostWindows, "windows"},
               {flags::Lz4, "lz4"},
               {flags::Zstd, "zstd"},
               {flags::ArchSpecific, "arch-specific"},
               {flags::FamilySpecific, "family-specific"}};
  std::string S;
  uint64_t Rest = Flags;
  for (const auto &K : Known) {
    if (!(Flags & K.Bit))
      continue;
    if (!S.empty())
      S += '|';
    S += K.Name;
    Rest &= ~K.Bit;
  }
  if (Rest) {
    if (!S.empty())
      S += '|';
    S += hexOffset(Rest);
  }
  return S.empty() ? "none" : S;
}

Compression Entry::compression() const {
  if (Flags & flags::Lz4)
    return Compression::Lz4;
  if (Flags & flags::Zstd)
    return Compression::Zstd;
  return Compression::None;
}

std::string Entry::archName() const {
  std::string S = "sm_" + std::to_string(SmArch);
  if (archSpecific())
    S += 'a';
  else if (familySpecific())
    S += 'f';
  return S;
}

uint64_t Entry::expandedSize() const {
  return compression() == Compression::None ? PaddedSize : UncompressedSize;
}

static bool isPrintableText(std::string_view S) {
  for (unsigned char C : S)
    if (C < 0x20 && C != '\t' && C != '\n' && C != '\r')
      return false;
    else if (C >= 0x7f)
      return false;
  return true;
}

/// Drops the NUL padding nvcc puts after strings stored in headers.
static std::string_view trimNuls(std::string_view S) {
  while (!S.empty() && S.back() == '\0')
    S.remove_suffix(1);
  return S;
}

// Header field offsets inside an entry header.
namespace eh {
constexpr size_t Kind = 0x00, Version = 0x02, HeaderSize = 0x04, PaddedSize = 0x08,
                 CompressedSize = 0x10, OptionsOffset = 0x14, VerMinor = 0x18, VerMajor = 0x1a,
                 Arch = 0x1c, NameOffset = 0x20, NameLength = 0x24, Flags = 0x28,
                 UncompressedSize = 0x38;
/// Headers seen so far are at most 0x80 bytes; anything far beyond is junk.
constexpr uint32_t MaxHeaderSize = 0x10000;
} // namespace eh

/// Parses one entry that starts at Bytes[At] and must end by Bytes[End].
static Expected<Entry> parseEntry(std::span<const uint8_t> Bytes, uint64_t At, uint64_t End,
                                  uint64_t Base, const Limits &L) {
  uint64_t Off = Base + At;
  uint64_t Remain = End - At;
  if (Remain < EntryHeaderMinSize)
    return truncated("entry header", Off, EntryHeaderMinSize, Remain);
  const uint8_t *H = Bytes.data() + At;
  Entry E;
  E.Offset = Off;
  E.RawKind = readLE<uint16_t>(H + eh::Kind);
  E.FormatVersion = readLE<uint16_t>(H + eh::Version);
  E.HeaderSize = readLE<uint32_t>(H + eh::HeaderSize);
  E.PaddedSize = readLE<uint64_t>(H + eh::PaddedSize);
  E.CompressedSize = readLE<uint32_t>(H + eh::CompressedSize);
  E.OptionsOffset = readLE<uint32_t>(H + eh::OptionsOffset);
  E.VersionMinor = readLE<uint16_t>(H + eh::VerMinor);
  E.VersionMajor = readLE<uint16_t>(H + eh::VerMajor);
  E.SmArch = readLE<uint32_t>(H + eh::Arch);
  uint32_t NameOffset = readLE<uint32_t>(H + eh::NameOffset);
  uint32_t NameLength = readLE<uint32_t>(H + eh::NameLength);
  E.Flags = readLE<uint64_t>(H + eh::Flags);
  E.UncompressedSize = readLE<uint64_t>(H + eh::UncompressedSize);

  std::string Where = " in entry at offset " + hexOffset(Off);
  if (!E.isPtx() && !E.isElf())
    return invalid("unknown entry kind " + std::to_string(E.RawKind) + Where +
                   " (expected 1 = PTX or 2 = ELF)");
  if (E.HeaderSize < EntryHeaderMinSize || E.HeaderSize > eh::MaxHeaderSize)
    return invalid("entry header size " + hexOffset(E.HeaderSize) + Where + " is outside [" +
                   hexOffset(EntryHeaderMinSize) + ", " + hexOffset(eh::MaxHeaderSize) + "]");
  if (E.HeaderSize > Remain)
    return truncated("entry header", Off, E.HeaderSize, Remain);
  if (E.PaddedSize > Remain - E.HeaderSize)
    return truncated("entry payload", Off + E.HeaderSize, E.PaddedSize, Remain - E.HeaderSize);
  E.PayloadOffset = Off + E.HeaderSize;

  // Names and options live inside the header; a field pointing outside it is
  // corrupt, not a reason to read elsewhere.
  if (NameLength) {
    if (NameOffset < EntryHeaderMinSize || NameOffset > E.HeaderSize ||
        NameLength > E.HeaderSize - NameOffset)
      return invalid("filename field (offset " + hexOffset(NameOffset) + ", length " +
                     std::to_string(NameLength) + ")" + Where + " lies outside its " +
                     std::to_string(E.HeaderSize) + "-byte header");
    E.Filename = std::string(trimNuls(
        std::string_view(reinterpret_cast<const char *>(H + NameOffset), NameLength)));
  }
  if (E.OptionsOffset) {
    if (E.OptionsOffset > E.HeaderSize || E.HeaderSize - E.OptionsOffset < 8)
      return invalid("options offset " + hexOffset(E.OptionsOffset) + Where +
                     " leaves no room for its (offset, size) pair in the " +
                     std::to_string(E.HeaderSize) + "-byte header");
    uint32_t OptOff = readLE<uint32_t>(H + E.OptionsOffset);
    uint32_t OptSize = readLE<uint32_t>(H + E.OptionsOffset + 4);
    if (OptSize) {
      if (OptOff > E.HeaderSize || OptSize > E.HeaderSize - OptOff)
        return invalid("options string (offset " + hexOffset(OptOff) + ", size " +
                       std::to_string(OptSize) + ")" + Where + " lies outside its " +
                       std::to_string(E.HeaderSize) + "-byte header");
      std::string_view Opt(reinterpret_cast<const char *>(H + OptOff), OptSize);
      E.OptionsAreText = isPrintableText(trimNuls(Opt));
      E.Options = std::string(E.OptionsAreText ? trimNuls(Opt) : Opt);
    }
  }

  bool IsLz4 = E.Flags & flags::Lz4, IsZstd = E.Flags & flags::Zstd;
  if (IsLz4 && IsZstd)
    return invalid("entry at offset " + hexOffset(Off) + " claims both LZ4 and zstd compression");
  if (IsLz4 || IsZstd) {
    if (E.CompressedSize == 0 || E.CompressedSize > E.PaddedSize)
      return invalid("compressed size " + std::to_string(E.CompressedSize) + Where +
                     " is not within the " + std::to_string(E.PaddedSize) +
                     "-byte payload at offset " + hexOffset(E.PayloadOffset));
    if (E.UncompressedSize == 0 || E.UncompressedSize > L.MaxUncompressedSize)
      return invalid("uncompressed size " + std::to_string(E.UncompressedSize) + Where +
                     " is not in [1, " + std::to_string(L.MaxUncompressedSize) + "]");
    E.Payload = Bytes.subspan(At + E.HeaderSize, E.CompressedSize);
  } else {
    E.Payload = Bytes.subspan(At + E.HeaderSize, E.PaddedSize);
  }
  return E;
}

Expected<Container> parseContainer(std::span<const uint8_t> Bytes, uint64_t Base,
                                   const Limits &L) {
  if (Bytes.size() < ContainerHeaderSize)
    return truncated("container header", Base, ContainerHeaderSize, Bytes.size());
  const uint8_t *H = Bytes.data();
  uint32_t Magic = readLE<uint32_t>(H);
  if (Magic != ContainerMagic)
    return invalid("bad container magic " + hexOffset(Magic) + " at offset " + hexOffset(Base) +
                   " (expected " + hexOffset(ContainerMagic) + ")");
  Container C;
  C.Offset = Base;
  C.Version = readLE<uint16_t>(H + 4);
  C.HeaderSize = readLE<uint16_t>(H + 6);
  C.EntriesSize = readLE<uint64_t>(H + 8);
  if (C.Version != 1)
    return invalid("unsupported container version " + std::to_string(C.Version) + " at offset " +
                   hexOffset(Base) + " (only 1 is known)");
  if (C.HeaderSize < ContainerHeaderSize || C.HeaderSize > Bytes.size())
    return invalid("container header size " + std::to_string(C.HeaderSize) + " at offset " +
                   hexOffset(Base) + " is below 16 or past the " + std::to_string(Bytes.size()) +
                   " bytes available");
  if (C.EntriesSize > L.MaxContainerSize)
    return invalid("container at offset " + hexOffset(Base) + " claims " +
                   std::to_string(C.EntriesSize) + " bytes of entries; the limit is " +
                   std::to_string(L.MaxContainerSize));
  uint64_t Remain = Bytes.size() - C.HeaderSize;
  if (C.EntriesSize > Remain)
    return truncated("container", Base + C.HeaderSize, C.EntriesSize, Remain);
  uint64_t End = C.HeaderSize + C.EntriesSize;
  C.Bytes = Bytes.first(End);
  for (uint64_t At = C.HeaderSize; At < End;) {
    if (C.Entries.size() >= L.MaxEntriesPerContainer)
      return invalid("container at offset " + hexOffset(Base) + " has more than " +
                     std::to_string(L.MaxEntriesPerContainer) + " entries (next at offset " +
                     hexOffset(Base + At) + ")");
    auto E = parseEntry(Bytes, At, End, Base, L);
    if (!E)
      return E.takeError();
    // HeaderSize >= 0x40, so every iteration makes progress.
    At += E->HeaderSize + E->PaddedSize;
    C.Entries.push_back(std::move(*E));
  }
  return C;
}

Expected<std::vector<Container>> parseContainerSequence(std::span<const uint8_t> Bytes,
                                                        uint64_t Base, const Limits &L) {
  std::vector<Container> Out;
  uint64_t At = 0;
  while (At < Bytes.size()) {
    // Padding between containers is zeros; skip it in 8-byte steps (the
    // alignment containers start at), tolerating a short zero tail.
    uint64_t Left = Bytes.size() - At;
    size_t Probe = Left < 8 ? size_t(Left) : 8;
    bool Zero = true;
    for (size_t I = 0; I < Probe; ++I)
      Zero &= Bytes[At + I] == 0;
    if (Zero) {
      At += Probe;
      continue;
    }
    if (Out.size() >= L.MaxContainersPerSection)
      return invalid("more than " + std::to_string(L.MaxContainersPerSection) +
                     " containers (next at offset " + hexOffset(Base + At) + ")");
    auto C = parseContainer(Bytes.subspan(At), Base + At, L);
    if (!C)
      return C.takeError();
    At += C->totalSize();
    At = (At + 7) & ~uint64_t(7);
    Out.push_back(std::move(*C));
  }
  return Out;
}

Expected<Wrapper> parseWrapper(std::span<const uint8_t> Bytes, uint64_t Base) {
  if (Bytes.size() < WrapperSize)
    return truncated("fatbin wrapper", Base, WrapperSize, Bytes.size());
  Wrapper W;
  W.Offset = Base;
  uint32_t Magic = readLE<uint32_t>(Bytes.data());
  if (Magic != WrapperMagic)
    return invalid("bad fatbin wrapper magic " + hexOffset(Magic) + " at offset " +
                   hexOffset(Base) + " (expected " + hexOffset(WrapperMagic) + ")");
  W.Version = readLE<uint32_t>(Bytes.data() + 4);
  W.Data = readLE<uint64_t>(Bytes.data() + 8);
  W.FilenameOrFatbins = readLE<uint64_t>(Bytes.data() + 16);
  if (W.Version != 1 && W.Version != 2)
    return invalid("unsupported fatbin wrapper version " + std::to_string(W.Version) +
                   " at offset " + hexOffset(Base) + " (expected 1 or 2)");
  return W;
}

} // namespace ferry::fatbin
