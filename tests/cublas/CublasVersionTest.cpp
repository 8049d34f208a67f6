/// \file
/// cublasGetVersion_v2 as clients call it: JAX's CUDA plugin checks the
/// version at start-up with a null handle (jaxlib/cuda/versions_helpers.cc,
/// `cublasGetVersion(nullptr, &version)`), which NVIDIA's library answers;
/// ferry's said NOT_INITIALIZED and JAX refused to start.
#include "ferry/generated/CublasApi.h"

#include <gtest/gtest.h>

TEST(CublasVersion, NullHandleGivesTheVersion) {
  int V = 0;
  ASSERT_EQ(cublasGetVersion_v2(nullptr, &V), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(V, CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH);
  EXPECT_GE(V, 130000);
  EXPECT_EQ(cublasGetVersion_v2(nullptr, nullptr), CUBLAS_STATUS_INVALID_VALUE);
  // A handle that is not one, though, is still refused.
  int Bogus = 0;
  EXPECT_EQ(cublasGetVersion_v2(reinterpret_cast<cublasHandle_t>(&Bogus), &V), CUBLAS_STATUS_NOT_INITIALIZED);
}
