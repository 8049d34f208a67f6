/// \file
/// Every prototype of ferry's cuBLAS API table has NVIDIA's exact C++ type
/// (each side compiled in its own translation unit; see AbiSig.h).
#include "AbiSig.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

TEST(CublasAbi, SignaturesMatchNvidia) {
  std::map<std::string, std::string> Theirs;
  for (const auto *List : {&nvidiaSigs(), &nvidiaXtSigs()})
    for (const SigEntry &E : *List)
      Theirs[E.Symbol] = E.Type;
  ASSERT_GT(oursSigs().size(), 700u);
  ASSERT_EQ(Theirs.size(), oursSigs().size());
  for (const SigEntry &E : oursSigs())
    EXPECT_EQ(Theirs[E.Symbol], E.Type) << E.Symbol;
}
