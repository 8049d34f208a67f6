/// \file
/// The on-disk code cache (DESIGN.md "Code cache"): compiled kernels stored
/// under a key derived from everything that affects the code (PTX text,
/// target, ferry build id, options). Entries are written atomically (a
/// temporary file renamed into place) and carry a checksum verified on read,
/// so a crash mid-write or a corrupted file is a miss, never wrong code.
///
/// Threading: any number of threads and processes may use one directory at
/// once; concurrent writers of one key are harmless (last rename wins, both
/// wrote the same bytes).
#pragma once

#include "support/Hash.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ferry {

class CodeCache {
public:
  /// A cache in `Dir`; an empty `Dir` disables it. `MaxBytes` bounds the
  /// total size: after a store that passes it, the least recently used
  /// entries are removed.
  CodeCache(std::string Dir, uint64_t MaxBytes);

  /// The cache configured by CUDA_CACHE_PATH / CUDA_CACHE_DISABLE /
  /// CUDA_CACHE_MAXSIZE (default directory: $XDG_CACHE_HOME/ferry or
  /// ~/.cache/ferry).
  static CodeCache &fromSettings();

  bool enabled() const { return !Dir.empty(); }
  const std::string &directory() const { return Dir; }

  /// What identifies this build of ferry in keys: the shared object (or
  /// executable) holding this code, with its size and modification time,
  /// so a rebuilt ferry never loads code an older one compiled.
  static const std::string &buildIdentity();

  /// Builds a key from the parts that determine the compiled code.
  class KeyBuilder {
  public:
    KeyBuilder &add(std::string_view Part);
    std::string finish();

  private:
    Sha256 H;
  };

  /// The stored bytes for `Key`, or nothing on a miss or a bad entry (a bad
  /// entry is deleted and logged).
  std::optional<std::string> load(const std::string &Key);
  /// Stores `Data` under `Key`; failures are logged and otherwise ignored
  /// (a cache that cannot write is a slower ferry, not a broken one).
  void store(const std::string &Key, std::string_view Data);

  /// Counters for tests and `ferry info`.
  struct Stats {
    uint64_t Hits = 0, Misses = 0, Corrupt = 0, Stores = 0;
  };
  Stats stats() const { return Counters; }

private:
  std::string pathFor(const std::string &Key) const;
  void evictIfNeeded();

  std::string Dir;
  uint64_t MaxBytes;
  Stats Counters;
};

} // namespace ferry
