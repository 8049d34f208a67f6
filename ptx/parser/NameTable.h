//===- NameTable.h - fixed string -> small integer lookup -------*- C++ -*-===//
/// \file
/// An open-addressing hash table from the short spellings of the grammar
/// tables (opcodes, modifiers, special registers) to their enum values. It
/// is built once and only read afterwards; lookups hash with FNV-1a, which
/// for these 2-20 byte keys is cheaper than StringMap's xxh3 and sits on the
/// parser's hottest path (every opcode word and modifier goes through it).
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ferry::ptx {

class NameTable {
public:
  /// Sized for up to N keys (at most a quarter full).
  explicit NameTable(size_t N) {
    size_t Size = 16;
    while (Size < 4 * N)
      Size *= 2;
    Slots.resize(Size);
    Mask = Size - 1;
  }
  /// Adds or replaces a key.
  void set(llvm::StringRef Key, uint16_t Value) {
    for (size_t I = hash(Key) & Mask;; I = (I + 1) & Mask) {
      Slot &S = Slots[I];
      if (!S.Used || S.Key == Key) {
        S = {Key, Value, true};
        return;
      }
    }
  }
  std::optional<uint16_t> find(llvm::StringRef Key) const {
    for (size_t I = hash(Key) & Mask;; I = (I + 1) & Mask) {
      const Slot &S = Slots[I];
      if (!S.Used)
        return std::nullopt;
      if (S.Key == Key)
        return S.Value;
    }
  }

private:
  struct Slot {
    llvm::StringRef Key;
    uint16_t Value = 0;
    bool Used = false;
  };
  static uint64_t hash(llvm::StringRef S) {
    uint64_t H = 0xcbf29ce484222325ull;
    for (char C : S)
      H = (H ^ uint8_t(C)) * 0x100000001b3ull;
    return H ^ (H >> 29);
  }
  std::vector<Slot> Slots;
  size_t Mask;
};

} // namespace ferry::ptx
