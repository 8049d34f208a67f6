/// \file
/// The C++ type of every prototype ferry's libcublas exports (from the API
/// table), by symbol; AbiSigTest compares them with NVIDIA's.
#include "AbiSig.h"
#include "ferry/generated/CublasApi.h"

#include <typeinfo>

const std::vector<SigEntry> &oursSigs() {
#define FERRY_SIG(S) {#S, typeid(decltype(S)).name()},
#define FERRY_SIG_XT(S) FERRY_SIG(S)
  static const std::vector<SigEntry> V = {
#include "CublasSigs.inc"
  };
  return V;
}
