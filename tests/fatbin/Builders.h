/// \file
/// Builds fatbin containers byte by byte for the reader tests, following the
/// layout in /work/shared/reference/cuda13-driver-contract.md (written from
/// that description, not from the reader's code, so the two check each
/// other).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ferry::fatbin::test {

struct EntrySpec {
  uint16_t Kind = 1; ///< 1 PTX, 2 ELF
  uint32_t Sm = 75;
  uint16_t Major = 9, Minor = 0;
  uint64_t Flags = 0x11;
  std::vector<uint8_t> Payload; ///< stored bytes (already compressed if flagged)
  uint32_t CompressedSize = 0;
  uint64_t UncompressedSize = 0;
  std::string Filename;
  std::string Options;
};

/// memcpy that accepts empty (possibly null) sources.
inline void copyBytes(std::vector<uint8_t> &B, size_t At, const void *Src, size_t N) {
  if (N)
    std::memcpy(&B[At], Src, N);
}

inline void put(std::vector<uint8_t> &B, size_t At, uint64_t V, int Bytes) {
  for (int I = 0; I < Bytes; ++I)
    B[At + I] = uint8_t(V >> (8 * I));
}

inline size_t align8(size_t N) { return (N + 7) & ~size_t(7); }

inline std::vector<uint8_t> buildEntry(const EntrySpec &S) {
  // Header: 0x40 fixed bytes, then the filename (8-aligned), then the
  // options (offset, size) pair and the options text (8-aligned).
  size_t NameAt = 0x40;
  size_t PairAt = align8(NameAt + S.Filename.size());
  bool HasPair = S.Kind == 1 || !S.Options.empty();
  size_t TextAt = PairAt + (HasPair ? 8 : 0);
  size_t HeaderSize = align8(TextAt + S.Options.size());
  size_t Padded = align8(S.Payload.size());
  std::vector<uint8_t> B(HeaderSize + Padded, 0);
  put(B, 0x00, S.Kind, 2);
  put(B, 0x02, 0x0101, 2);
  put(B, 0x04, HeaderSize, 4);
  put(B, 0x08, Padded, 8);
  put(B, 0x10, S.CompressedSize, 4);
  put(B, 0x14, HasPair ? PairAt : 0, 4);
  put(B, 0x18, S.Minor, 2);
  put(B, 0x1a, S.Major, 2);
  put(B, 0x1c, S.Sm, 4);
  if (!S.Filename.empty()) {
    put(B, 0x20, NameAt, 4);
    put(B, 0x24, S.Filename.size(), 4);
    copyBytes(B, NameAt, S.Filename.data(), S.Filename.size());
  }
  put(B, 0x28, S.Flags, 8);
  put(B, 0x38, S.UncompressedSize, 8);
  if (HasPair) {
    put(B, PairAt, TextAt, 4);
    put(B, PairAt + 4, S.Options.size(), 4);
    copyBytes(B, TextAt, S.Options.data(), S.Options.size());
  }
  copyBytes(B, HeaderSize, S.Payload.data(), S.Payload.size());
  return B;
}

inline std::vector<uint8_t> buildContainer(const std::vector<EntrySpec> &Entries) {
  std::vector<uint8_t> Body;
  for (const EntrySpec &S : Entries) {
    auto E = buildEntry(S);
    Body.insert(Body.end(), E.begin(), E.end());
  }
  std::vector<uint8_t> B(16 + Body.size(), 0);
  put(B, 0, 0xBA55ED50, 4);
  put(B, 4, 1, 2);
  put(B, 6, 16, 2);
  put(B, 8, Body.size(), 8);
  for (size_t I = 0; I < Body.size(); ++I)
    B[16 + I] = Body[I];
  return B;
}

inline std::vector<uint8_t> bytesOf(const std::string &S) {
  return std::vector<uint8_t>(S.begin(), S.end());
}

} // namespace ferry::fatbin::test
