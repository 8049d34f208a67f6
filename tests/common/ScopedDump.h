/// \file
/// For tests that look at what ferry's compiler produced: turns FERRY_DUMP on
/// into a fresh directory, and reads the dumped files back.
#pragma once

#include "support/Settings.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ferry::test {

class ScopedDump {
public:
  /// Kinds: FERRY_DUMP's value ("ir", "ir,asm"); Name: the directory under
  /// the system's temporary directory, emptied first.
  ScopedDump(const char *Kinds, const std::string &Name)
      : Dir((std::filesystem::temp_directory_path() / Name).string()) {
    std::filesystem::remove_all(Dir);
    setenv("FERRY_DUMP", Kinds, 1);
    setenv("FERRY_DUMP_DIR", Dir.c_str(), 1);
    Settings::reload();
  }
  ~ScopedDump() { stop(); }
  ScopedDump(const ScopedDump &) = delete;
  ScopedDump &operator=(const ScopedDump &) = delete;

  /// Compilations after this dump nothing (also done on destruction).
  void stop() {
    if (Stopped)
      return;
    Stopped = true;
    unsetenv("FERRY_DUMP");
    unsetenv("FERRY_DUMP_DIR");
    Settings::reload();
  }

  const std::string &dir() const { return Dir; }

  /// The contents of every dumped file with extension Ext (".ll", ".s"),
  /// concatenated; empty when there is none.
  std::string read(const std::string &Ext) const {
    std::string All;
    std::error_code Ec;
    for (const auto &E : std::filesystem::directory_iterator(Dir, Ec))
      if (E.path().extension() == Ext) {
        std::ifstream In(E.path());
        std::stringstream S;
        S << In.rdbuf();
        All += S.str();
      }
    return All;
  }

  /// Removes the directory (call when the test passed, so a failure leaves
  /// the dump to look at).
  void remove() const { std::filesystem::remove_all(Dir); }

private:
  std::string Dir;
  bool Stopped = false;
};

} // namespace ferry::test
