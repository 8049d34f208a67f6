/// \file
/// The C++ type of every cublasXt function as NVIDIA's cublasXt.h declares it.
#include "AbiSig.h"
#include <cublasXt.h>

#include <typeinfo>

const std::vector<SigEntry> &nvidiaXtSigs() {
#define FERRY_SIG(S)
#define FERRY_SIG_XT(S) {#S, typeid(decltype(S)).name()},
  static const std::vector<SigEntry> V = {
#include "CublasSigs.inc"
  };
  return V;
}
