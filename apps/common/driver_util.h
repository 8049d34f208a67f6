/// \file
/// The driver-API counterpart of app_util.h's CHECK: apps that call cu*
/// directly end with a FAILED line naming the error, the call and the line
/// (never an address or a path, so outputs compare between machines).
/// Included by relative path, like app_util.h.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU(Call)                                                               \
  do {                                                                         \
    CUresult CuRes_ = (Call);                                                  \
    if (CuRes_ != CUDA_SUCCESS) {                                              \
      const char *CuName_ = nullptr;                                           \
      cuGetErrorName(CuRes_, &CuName_);                                        \
      std::printf("driver error %s from %s (line %d)\nFAILED\n",               \
                  CuName_ ? CuName_ : "?", #Call, __LINE__);                   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
