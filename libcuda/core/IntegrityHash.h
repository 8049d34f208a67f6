/// \file
/// The answer to cudart's integrity check (export table D4082055, slot 1).
/// cudart 13 refuses to work (every call fails with error 103) unless the
/// driver answers with the value NVIDIA's driver computes. The algorithm
/// was reverse-engineered by the ZLUDA project; ferry's implementation is
/// its own: it is HMAC over MD2 (RFC 1319) with a 16-byte key recovered from
/// a scrambled 64-byte table, over the call's facts (see
/// reference/cuda13-driver-contract.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ferry::core {

using Digest16 = std::array<uint8_t, 16>;

/// MD2 as in RFC 1319 (exposed so tests can pin it with the RFC's vectors).
class Md2 {
public:
  void update(std::span<const uint8_t> Bytes);
  Digest16 finish();
  static Digest16 of(std::span<const uint8_t> Bytes);

private:
  void compress();
  std::array<uint8_t, 48> X{};
  std::array<uint8_t, 16> Checksum{};
  std::array<uint8_t, 16> Block{};
  uint8_t Last = 0; ///< The previous checksum byte (L in the RFC).
  size_t Count = 0; ///< Bytes in Block.
};

struct IntegrityDevice {
  std::array<uint8_t, 16> Uuid{};
  uint32_t PciDomain = 0, PciBus = 0, PciDevice = 0;
};

struct IntegrityInput {
  uint32_t DriverVersion = 0;
  uint32_t RuntimeVersion = 0;
  uint32_t ProcessId = 0;
  uint32_t ThreadId = 0;      ///< (u32)pthread_self()
  uint64_t CudartTable = 0;   ///< address of export table 6BD5FB6C
  uint64_t IntegrityTable = 0;///< address of export table D4082055
  uint64_t Function = 0;      ///< address of its slot-1 function
  uint64_t Timestamp = 0;     ///< the caller's unix time argument
  std::vector<IntegrityDevice> Devices;
};

/// The 16 bytes to write to the caller's output buffer.
Digest16 integrityAnswer(const IntegrityInput &In);

/// The HMAC key (exposed for tests).
Digest16 integrityKey();

} // namespace ferry::core
