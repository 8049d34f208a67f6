//===- Fuzz.cpp - libFuzzer entry for the PTX parser -----------------------===//
/// \file
/// Feeds arbitrary bytes to parse(), checkModule() and, when they parse
/// cleanly, the printer and a reparse: none may crash or over-read, and a
/// clean module must round-trip to an equal one.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Parser.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace ferry::ptx;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  ParseResult R = parse(Text, "fuzz");
  if (!R.ok())
    return 0;
  std::vector<Diagnostic> D = checkModule(*R.M);
  std::string Printed = printModule(*R.M);
  ParseResult Again = parse(Printed, "fuzz-printed");
  if (!Again.ok() || !equalModules(*R.M, *Again.M))
    std::abort();
  (void)D;
  return 0;
}
