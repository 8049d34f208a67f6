/// \file
/// Pointer-only reading of fatbin wrappers, containers, ELF images and PTX;
/// the rules are in Memory.h.
#include "ptx/fatbin/Memory.h"

#include <algorithm>
#include <cstring>

namespace ferry::fatbin {

const char *imageKindName(ImageKind K) {
  switch (K) {
  case ImageKind::Wrapper:
    return "fatbin wrapper";
  case ImageKind::Container:
    return "fatbin container";
  case ImageKind::Elf:
    return "ELF image";
  case ImageKind::Ptx:
    return "PTX text";
  case ImageKind::Unknown:
    return "unknown";
  }
  return "?";
}

static Error invalid(std::string Message) {
  return makeError(CUDA_ERROR_INVALID_IMAGE, std::move(Message));
}

/// True when the bytes at P are exactly Magic, compared one byte at a time so
/// a mismatch (or a NUL) stops the reading.
static bool matchesBytes(const uint8_t *P, const uint8_t (&Magic)[4]) {
  for (int I = 0; I < 4; ++I)
    if (P[I] != Magic[I])
      return false;
  return true;
}

ImageKind detectImage(const void *Ptr) {
  static const uint8_t WrapperBytes[4] = {0xB1, 0x43, 0x62, 0x46};
  static const uint8_t ContainerBytes[4] = {0x50, 0xED, 0x55, 0xBA};
  static const uint8_t ElfBytes[4] = {0x7F, 'E', 'L', 'F'};
  const uint8_t *P = static_cast<const uint8_t *>(Ptr);
  if (matchesBytes(P, WrapperBytes))
    return ImageKind::Wrapper;
  if (matchesBytes(P, ContainerBytes))
    return ImageKind::Container;
  if (matchesBytes(P, ElfBytes))
    return ImageKind::Elf;
  uint8_t C = P[0];
  if ((C >= 0x20 && C < 0x7f) || C == '\t' || C == '\n' || C == '\r' || C == '\f' || C == '\v')
    return ImageKind::Ptx;
  return ImageKind::Unknown;
}

Expected<uint64_t> containerSizeAt(const void *Ptr, const Limits &L) {
  const uint8_t *P = static_cast<const uint8_t *>(Ptr);
  if (readLE<uint32_t>(P) != ContainerMagic)
    return invalid("bad container magic " + hexOffset(readLE<uint32_t>(P)) + " at offset 0x0");
  uint16_t HeaderSize = readLE<uint16_t>(P + 6);
  uint64_t EntriesSize = readLE<uint64_t>(P + 8);
  if (HeaderSize < ContainerHeaderSize)
    return invalid("container header size " + std::to_string(HeaderSize) +
                   " at offset 0x0 is below 16");
  if (EntriesSize > L.MaxContainerSize)
    return invalid("container at offset 0x0 claims " + std::to_string(EntriesSize) +
                   " bytes of entries; the limit is " + std::to_string(L.MaxContainerSize));
  return uint64_t(HeaderSize) + EntriesSize;
}

Expected<uint64_t> elfSizeAt(const void *Ptr, const Limits &L) {
  const uint8_t *P = static_cast<const uint8_t *>(Ptr);
  if (P[4] != 2 || P[5] != 1)
    return invalid("ELF image at offset 0x0 is not 64-bit little-endian (class " +
                   std::to_string(P[4]) + ", data " + std::to_string(P[5]) + ")");
  uint64_t PhOff = readLE<uint64_t>(P + 0x20), ShOff = readLE<uint64_t>(P + 0x28);
  uint16_t PhEntSize = readLE<uint16_t>(P + 0x36), PhNum = readLE<uint16_t>(P + 0x38);
  uint16_t ShEntSize = readLE<uint16_t>(P + 0x3a), ShNum = readLE<uint16_t>(P + 0x3c);
  uint64_t Limit = L.MaxContainerSize;
  if ((PhNum && PhEntSize != 56) || (ShNum && ShEntSize != 64))
    return invalid("ELF image at offset 0x0 has header entry sizes " + std::to_string(PhEntSize) +
                   "/" + std::to_string(ShEntSize) + " (expected 56/64)");
  // All three values are below 2^48 after these checks, so sums cannot wrap.
  if (PhOff > Limit || ShOff > Limit)
    return invalid("ELF header at offset 0x0 places its tables beyond the " +
                   std::to_string(Limit) + "-byte limit");
  uint64_t Size = 64;
  Size = std::max(Size, PhOff + uint64_t(PhNum) * PhEntSize);
  Size = std::max(Size, ShOff + uint64_t(ShNum) * ShEntSize);
  if (Size > Limit)
    return invalid("ELF image at offset 0x0 would span " + std::to_string(Size) +
                   " bytes; the limit is " + std::to_string(Limit));
  for (unsigned I = 0; I < PhNum; ++I) {
    const uint8_t *Ph = P + PhOff + uint64_t(I) * 56;
    uint64_t Off = readLE<uint64_t>(Ph + 8), FileSize = readLE<uint64_t>(Ph + 0x20);
    if (Off > Limit || FileSize > Limit - Off)
      return invalid("ELF program header " + std::to_string(I) + " at offset " +
                     hexOffset(PhOff + uint64_t(I) * 56) + " reaches beyond the " +
                     std::to_string(Limit) + "-byte limit");
    Size = std::max(Size, Off + FileSize);
  }
  for (unsigned I = 0; I < ShNum; ++I) {
    const uint8_t *Sh = P + ShOff + uint64_t(I) * 64;
    if (readLE<uint32_t>(Sh + 4) == 8 /*SHT_NOBITS*/)
      continue;
    uint64_t Off = readLE<uint64_t>(Sh + 0x18), SecSize = readLE<uint64_t>(Sh + 0x20);
    if (Off > Limit || SecSize > Limit - Off)
      return invalid("ELF section header " + std::to_string(I) + " at offset " +
                     hexOffset(ShOff + uint64_t(I) * 64) + " reaches beyond the " +
                     std::to_string(Limit) + "-byte limit");
    Size = std::max(Size, Off + SecSize);
  }
  return Size;
}

/// Parses the container at P, sizing it from its own header first.
static Expected<Container> containerAt(const void *P, uint64_t ReportOffset, const Limits &L) {
  auto Size = containerSizeAt(P, L);
  if (!Size)
    return Error(Size.error().code(), Size.error().message() + " (container at " +
                                          hexOffset(ReportOffset) + " from the pointer)");
  std::span<const uint8_t> Bytes(static_cast<const uint8_t *>(P), *Size);
  return parseContainer(Bytes, ReportOffset, L);
}

Expected<MemoryImage> readImage(const void *Ptr, const Limits &L) {
  if (!Ptr)
    return makeError(CUDA_ERROR_INVALID_VALUE, "null image pointer");
  const uint8_t *P = static_cast<const uint8_t *>(Ptr);
  MemoryImage M;
  M.Kind = detectImage(Ptr);
  switch (M.Kind) {
  case ImageKind::Wrapper: {
    auto W = parseWrapper(std::span<const uint8_t>(P, WrapperSize), 0);
    if (!W)
      return W.takeError();
    if (!W->Data)
      return invalid("fatbin wrapper at offset 0x0 has a null data pointer");
    // Offsets of pointed-to containers are reported relative to the wrapper,
    // which is the only base the caller knows.
    auto Rel = [&](uint64_t Addr) { return Addr - reinterpret_cast<uintptr_t>(P); };
    auto First = containerAt(reinterpret_cast<const void *>(W->Data), Rel(W->Data), L);
    if (!First)
      return First.takeError();
    M.Containers.push_back(std::move(*First));
    M.FirstPrelinked = 1;
    if (W->Version == 2 && W->FilenameOrFatbins) {
      const uint64_t *List = reinterpret_cast<const uint64_t *>(W->FilenameOrFatbins);
      for (uint32_t I = 0; List[I]; ++I) {
        if (I >= L.MaxPrelinkedFatbins)
          return invalid("prelinked fatbin list of the wrapper at offset 0x0 has more than " +
                         std::to_string(L.MaxPrelinkedFatbins) + " entries");
        const void *Item = reinterpret_cast<const void *>(List[I]);
        // The list holds containers; accept a wrapper too and follow it.
        if (detectImage(Item) == ImageKind::Wrapper) {
          auto Inner = parseWrapper(
              std::span<const uint8_t>(static_cast<const uint8_t *>(Item), WrapperSize),
              Rel(List[I]));
          if (!Inner)
            return Inner.takeError();
          Item = reinterpret_cast<const void *>(Inner->Data);
          if (!Item)
            return invalid("prelinked wrapper " + std::to_string(I) + " has a null data pointer");
        }
        auto C = containerAt(Item, Rel(reinterpret_cast<uintptr_t>(Item)), L);
        if (!C)
          return Error(C.error().code(),
                       "prelinked fatbin " + std::to_string(I) + ": " + C.error().message());
        M.Containers.push_back(std::move(*C));
      }
    }
    M.Wrap = *W;
    return M;
  }
  case ImageKind::Container: {
    auto C = containerAt(Ptr, 0, L);
    if (!C)
      return C.takeError();
    M.Containers.push_back(std::move(*C));
    M.FirstPrelinked = 1;
    return M;
  }
  case ImageKind::Elf: {
    auto Size = elfSizeAt(Ptr, L);
    if (!Size)
      return Size.takeError();
    M.Elf = std::span<const uint8_t>(P, *Size);
    return M;
  }
  case ImageKind::Ptx: {
    const char *Text = static_cast<const char *>(Ptr);
    size_t Len = strnlen(Text, L.MaxContainerSize);
    if (Len == L.MaxContainerSize)
      return invalid("PTX text at offset 0x0 has no NUL within " +
                     std::to_string(L.MaxContainerSize) + " bytes");
    M.Ptx = std::string_view(Text, Len);
    if (M.Ptx.find(".version") == std::string_view::npos)
      return invalid("text at offset 0x0 is not PTX: it has no .version directive");
    return M;
  }
  case ImageKind::Unknown:
    break;
  }
  return invalid("image at offset 0x0 is neither a fatbin wrapper, a fatbin container, an ELF "
                 "image nor PTX text (first byte " + hexOffset(P[0]) + ")");
}

} // namespace ferry::fatbin
