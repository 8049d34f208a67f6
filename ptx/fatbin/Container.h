/// \file
/// The CUDA fatbinary container format, read without trusting a byte of it.
///
/// nvcc embeds device code in a host object as a *container* (magic
/// 0xBA55ED50, a 16-byte header, then entries back to back); each entry holds
/// one PTX text or one SASS ELF image for one architecture, optionally LZ4- or
/// zstd-compressed. Host code registers the container through a
/// `__fatBinC_Wrapper_t` (magic 0x466243B1) that points at it. The layout
/// facts are in /work/shared/reference/cuda13-driver-contract.md and were
/// re-checked on nvcc 13.0 output (see tests/fatbin/).
///
/// This part is pure C++ (no LLVM, no I/O) so it can be fuzzed and run under
/// ASan cheaply. Every read is bounds-checked and every error names the byte
/// offset it concerns, relative to the base offset the caller gives (the file
/// offset when parsing a file, the distance from the pointer when parsing
/// memory). Parsed objects point into the caller's bytes; they do not copy.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::fatbin {

inline constexpr uint32_t WrapperMagic = 0x466243B1;
inline constexpr uint32_t ContainerMagic = 0xBA55ED50;
inline constexpr uint32_t ContainerHeaderSize = 16;
/// The fixed part of an entry header; PTX entries and newer ELF entries add
/// fields after it (options, -G filename), so header_size is often larger.
inline constexpr uint32_t EntryHeaderMinSize = 0x40;
/// `__fatBinC_Wrapper_t`: u32 magic, u32 version, u64 data, u64 last.
inline constexpr uint32_t WrapperSize = 24;

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };

/// Entry flag bits (u64 at entry offset 0x28).
namespace flags {
inline constexpr uint64_t Is64Bit = 0x1;
inline constexpr uint64_t Debug = 0x2;
inline constexpr uint64_t ProducerCuda = 0x4;
inline constexpr uint64_t ProducerOpenCL = 0x8;
inline constexpr uint64_t HostLinux = 0x10;
inline constexpr uint64_t HostMac = 0x20;
inline constexpr uint64_t HostWindows = 0x40;
inline constexpr uint64_t Lz4 = 0x2000;
inline constexpr uint64_t Zstd = 0x8000;
inline constexpr uint64_t ArchSpecific = 0x100000; ///< sm_90a and the like
inline constexpr uint64_t FamilySpecific = 0x200000; ///< sm_100f and the like
} // namespace flags

enum class Compression { None, Lz4, Zstd };

const char *compressionName(Compression C);

/// "64bit|linux|zstd|0x1000000": every known bit by name, the rest in hex.
std::string describeFlags(uint64_t Flags);

/// One entry of a container. Byte spans point into the parsed buffer.
struct Entry {
  uint64_t Offset = 0; ///< of the entry header
  uint16_t RawKind = 0;
  uint16_t FormatVersion = 0; ///< 0x0101 in everything seen
  uint32_t HeaderSize = 0;
  uint64_t PaddedSize = 0;     ///< payload bytes after the header, padding included
  uint32_t CompressedSize = 0; ///< 0 = stored uncompressed
  uint32_t OptionsOffset = 0;  ///< 0 = none; else where the (offset,size) pair sits
  uint16_t VersionMajor = 0;   ///< PTX ISA version for PTX; ELF ABI version for ELF
  uint16_t VersionMinor = 0;
  uint32_t SmArch = 0; ///< 75, 90, 100, ...
  uint64_t Flags = 0;
  uint64_t UncompressedSize = 0; ///< only meaningful when compressed
  std::string Filename;          ///< -G builds name the source file here
  /// The ptxas options nvcc recorded (PTX), or an opaque blob (newer ELF
  /// entries); OptionsAreText says which.
  std::string Options;
  bool OptionsAreText = true;
  uint64_t PayloadOffset = 0;
  /// The stored payload: CompressedSize bytes when compressed, else the padded
  /// payload.
  std::span<const uint8_t> Payload;

  bool isPtx() const { return RawKind == uint16_t(EntryKind::Ptx); }
  bool isElf() const { return RawKind == uint16_t(EntryKind::Elf); }
  Compression compression() const;
  bool archSpecific() const { return Flags & flags::ArchSpecific; }
  bool familySpecific() const { return Flags & flags::FamilySpecific; }
  /// "sm_90a", "sm_100f", "sm_75".
  std::string archName() const;
  /// The size the payload has once decompressed (the padded size when it is
  /// stored raw).
  uint64_t expandedSize() const;
};

struct Container {
  uint64_t Offset = 0; ///< of the container header
  uint16_t Version = 0;
  uint16_t HeaderSize = 0;
  uint64_t EntriesSize = 0; ///< bytes of entries after the header
  std::vector<Entry> Entries;
  /// The whole container (header and entries).
  std::span<const uint8_t> Bytes;
  uint64_t totalSize() const { return HeaderSize + EntriesSize; }
};

/// Limits that keep hostile input from costing unbounded time or memory.
struct Limits {
  uint64_t MaxContainerSize = 1ull << 30;
  uint64_t MaxUncompressedSize = 1ull << 30;
  uint32_t MaxEntriesPerContainer = 4096;
  uint32_t MaxContainersPerSection = 65536;
  uint32_t MaxPrelinkedFatbins = 65536;
};

/// Parses the container at the start of Bytes. Bytes may extend past the
/// container (the header says where it ends). BaseOffset is added to every
/// offset recorded or reported.
Expected<Container> parseContainer(std::span<const uint8_t> Bytes, uint64_t BaseOffset = 0,
                                   const Limits &L = {});

/// Parses a section that holds containers back to back (`.nv_fatbin` of an
/// executable: one per translation unit, each starting 8-byte aligned, zero
/// padding allowed between and after them).
Expected<std::vector<Container>> parseContainerSequence(std::span<const uint8_t> Bytes,
                                                        uint64_t BaseOffset = 0,
                                                        const Limits &L = {});

/// A `__fatBinC_Wrapper_t` as stored: the pointers are addresses in the
/// program that holds it (virtual addresses in a file, real ones in memory).
struct Wrapper {
  uint64_t Offset = 0;
  uint32_t Version = 0; ///< 1, or 2 with -rdc=true
  uint64_t Data = 0;    ///< address of the container
  /// Version 1: address of a filename (0 from nvcc 13). Version 2: address of
  /// a NULL-terminated array of prelinked fatbin addresses.
  uint64_t FilenameOrFatbins = 0;
};

/// Decodes one wrapper from its 24 bytes.
Expected<Wrapper> parseWrapper(std::span<const uint8_t> Bytes, uint64_t BaseOffset = 0);

/// Reads a little-endian integer; the caller has checked the bounds.
template <typename T> T readLE(const uint8_t *P) {
  T V = 0;
  for (size_t I = 0; I < sizeof(T); ++I)
    V |= T(P[I]) << (8 * I);
  return V;
}

/// "0x1a0"
std::string hexOffset(uint64_t V);

} // namespace ferry::fatbin
