/// \file
/// Hashing: SHA-256 for code-cache keys and checksums (collisions there
/// would run the wrong code), FNV-1a for in-memory tables.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ferry {

class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;
  Sha256();
  void update(const void *Data, size_t Size);
  void update(std::string_view S) { update(S.data(), S.size()); }
  Digest finish();
  static Digest of(std::string_view S);
  static std::string hex(const Digest &D);
  /// Whether blocks use the x86 SHA extensions where the CPU has them (on
  /// by default; tests turn it off to check the portable code as well).
  static void useCpuExtensions(bool On);

private:
  void block(const uint8_t *P);
  uint32_t H[8];
  uint8_t Buf[64];
  size_t BufLen = 0;
  uint64_t TotalLen = 0;
};

constexpr uint64_t fnv1a64(std::string_view S, uint64_t Seed = 0xcbf29ce484222325ull) {
  uint64_t H = Seed;
  for (char C : S) {
    H ^= uint8_t(C);
    H *= 0x100000001b3ull;
  }
  return H;
}

} // namespace ferry
