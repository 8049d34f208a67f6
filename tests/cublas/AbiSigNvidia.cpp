/// \file
/// The C++ type of every cuBLAS function as NVIDIA's cublas.h (legacy and
/// _v2 API) declares it. cublasXt's are in AbiSigNvidiaXt.cpp: cublasXt.h
/// brings cublas_v2.h, which may not meet cublas.h.
#include "AbiSig.h"
#include <cublas.h>

#include <typeinfo>

const std::vector<SigEntry> &nvidiaSigs() {
#define FERRY_SIG(S) {#S, typeid(decltype(S)).name()},
#define FERRY_SIG_XT(S)
  static const std::vector<SigEntry> V = {
#include "CublasSigs.inc"
  };
  return V;
}
