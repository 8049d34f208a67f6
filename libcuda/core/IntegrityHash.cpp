/// \file
/// HMAC-MD2 for cudart's integrity check; see IntegrityHash.h for why.
#include "libcuda/core/IntegrityHash.h"

namespace ferry::core {

// MD2's substitution table, built from the digits of pi (RFC 1319, 3.2).
static constexpr uint8_t PiSubst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167,
    5,   243, 192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,
    253, 212, 224, 22,  103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158,
    222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,
    148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,  53,  62,
    204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,
    172, 86,  170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116,
    4,   241, 69,  157, 112, 89,  100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,
    27,  96,  37,  173, 174, 176, 185, 246, 28,  70,  97,  105, 52,  64,  126, 15,  85,  71,
    163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,  44,  83,  13,  110,
    133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109,
    233, 203, 213, 254, 59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119,
    114, 248, 235, 117, 75,  10,  49,  68,  80,  180, 143, 237, 31,  26,  219, 153, 141, 51,
    159, 17,  131, 20};

void Md2::compress() {
  for (size_t I = 0; I < 16; ++I) {
    X[16 + I] = Block[I];
    X[32 + I] = uint8_t(X[I] ^ Block[I]);
    Checksum[I] ^= PiSubst[Block[I] ^ Last];
    Last = Checksum[I];
  }
  uint8_t T = 0;
  for (unsigned Round = 0; Round < 18; ++Round) {
    for (uint8_t &B : X) {
      B ^= PiSubst[T];
      T = B;
    }
    T = uint8_t(T + Round);
  }
}

void Md2::update(std::span<const uint8_t> Bytes) {
  for (uint8_t B : Bytes) {
    Block[Count++] = B;
    if (Count == 16) {
      compress();
      Count = 0;
    }
  }
}

Digest16 Md2::finish() {
  uint8_t Pad = uint8_t(16 - Count);
  std::array<uint8_t, 16> Padding;
  Padding.fill(Pad);
  update(std::span(Padding.data(), Pad));
  std::array<uint8_t, 16> Sum = Checksum; // Copied: updating changes it.
  update(Sum);
  Digest16 D;
  std::copy(X.begin(), X.begin() + 16, D.begin());
  return D;
}

Digest16 Md2::of(std::span<const uint8_t> Bytes) {
  Md2 H;
  H.update(Bytes);
  return H.finish();
}

// Key material as the driver stores it: the key bytes are scattered over
// this table and recovered by the walk in integrityKey().
static constexpr uint8_t KeyTable[64] = {
    0x6b, 0xcf, 0x32, 0x0f, 0xa4, 0x49, 0xd3, 0xa8, 0x33, 0xf8, 0xd0, 0x8e, 0x12, 0x4e, 0xa8, 0x00,
    0xeb, 0x94, 0x2c, 0x8f, 0x34, 0x49, 0xde, 0xf6, 0xbf, 0x29, 0x91, 0x20, 0xc7, 0x65, 0xf6, 0xba,
    0x78, 0x5c, 0x66, 0x27, 0xa7, 0xb2, 0x73, 0x92, 0xdb, 0x22, 0x1e, 0x20, 0x14, 0x6f, 0x87, 0xff,
    0xa5, 0xc3, 0x18, 0x01, 0x66, 0x64, 0xa5, 0x0e, 0x70, 0x51, 0x52, 0xa7, 0x80, 0x4b, 0xdf, 0xef};

Digest16 integrityKey() {
  Digest16 Key{};
  unsigned Pos = 13;
  uint8_t Chain = 0x8b;
  // Each step yields one key byte (three table rows xored) and, from the
  // chain value, where it goes and which column comes next; the walk is a
  // cycle that returns to column 13.
  do {
    uint8_t Value = KeyTable[Pos + 16] ^ KeyTable[Pos + 32] ^ KeyTable[Pos + 48];
    uint8_t Next = Chain ^ KeyTable[Pos] ^ KeyTable[Pos + 16];
    Chain = uint8_t(~(Value ^ Chain));
    Key[Next >> 4] = Value;
    Pos = Next & 0xf;
  } while (Pos != 13);
  return Key;
}

static void putLE(std::vector<uint8_t> &Out, uint64_t V, unsigned Bytes) {
  for (unsigned I = 0; I < Bytes; ++I)
    Out.push_back(uint8_t(V >> (8 * I)));
}

Digest16 integrityAnswer(const IntegrityInput &In) {
  // Runtimes whose version ends in 0 or 1 accept a fixed answer.
  static constexpr Digest16 Fixed = {0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                                     0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e};
  if (In.RuntimeVersion % 10 == 0)
    return Fixed;
  if (In.RuntimeVersion % 10 == 1) {
    Digest16 D = Fixed;
    D[7] = 0x18;
    return D;
  }
  std::vector<uint8_t> Msg;
  putLE(Msg, In.DriverVersion, 4);
  putLE(Msg, In.RuntimeVersion, 4);
  putLE(Msg, In.ProcessId, 4);
  putLE(Msg, In.ThreadId, 4);
  putLE(Msg, In.CudartTable, 8);
  putLE(Msg, In.IntegrityTable, 8);
  putLE(Msg, In.Function, 8);
  putLE(Msg, In.Timestamp, 8);
  for (const IntegrityDevice &D : In.Devices) {
    Msg.insert(Msg.end(), D.Uuid.begin(), D.Uuid.end());
    putLE(Msg, D.PciDomain, 4);
    putLE(Msg, D.PciBus, 4);
    putLE(Msg, D.PciDevice, 4);
  }
  // HMAC with MD2's 16-byte block: inner and outer pads of the key.
  Digest16 Key = integrityKey();
  std::array<uint8_t, 16> Pad;
  Md2 Inner;
  for (size_t I = 0; I < 16; ++I)
    Pad[I] = Key[I] ^ 0x36;
  Inner.update(Pad);
  Inner.update(Msg);
  Digest16 InnerDigest = Inner.finish();
  Md2 Outer;
  for (size_t I = 0; I < 16; ++I)
    Pad[I] = Key[I] ^ 0x5c;
  Outer.update(Pad);
  Outer.update(InnerDigest);
  return Outer.finish();
}

} // namespace ferry::core
