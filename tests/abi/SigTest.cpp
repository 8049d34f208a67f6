/// \file
/// Every prototype generated from the API table has exactly NVIDIA's type:
/// same return type, same parameter count and types (after typedefs, which
/// is what the ABI sees). Mangled type names are compared because they
/// encode all of that and name structs/enums/handles by tag, so CUcontext
/// for CUstream or size_t for unsigned int are caught.
#include "SigEntry.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

TEST(AbiSignatures, EveryPrototypeMatchesNvidia) {
  std::map<std::string, std::string> Theirs;
  for (size_t I = 0; I < NvidiaSigCount; ++I)
    Theirs[NvidiaSigs[I].Symbol] = NvidiaSigs[I].Mangled;
  for (size_t I = 0; I < NvidiaEglSigCount; ++I)
    Theirs[NvidiaEglSigs[I].Symbol] = NvidiaEglSigs[I].Mangled;
  ASSERT_EQ(OursSigCount, Theirs.size());
  ASSERT_GT(OursSigCount, 1000u);
  std::string Bad;
  size_t NumBad = 0;
  for (size_t I = 0; I < OursSigCount; ++I) {
    auto It = Theirs.find(OursSigs[I].Symbol);
    ASSERT_NE(It, Theirs.end()) << OursSigs[I].Symbol;
    if (It->second != OursSigs[I].Mangled) {
      ++NumBad;
      Bad += std::string(OursSigs[I].Symbol) + ": ours " + OursSigs[I].Mangled + ", NVIDIA's " +
             It->second + "\n";
    }
  }
  EXPECT_EQ(NumBad, 0u) << Bad;
}
