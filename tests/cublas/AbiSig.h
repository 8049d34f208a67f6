/// \file
/// One prototype's identity: its symbol and the mangled name of its C++
/// function type (a different parameter type or count changes it).
#pragma once
#include <vector>

struct SigEntry {
  const char *Symbol;
  const char *Type;
};

const std::vector<SigEntry> &oursSigs();
const std::vector<SigEntry> &nvidiaSigs();
const std::vector<SigEntry> &nvidiaXtSigs();
