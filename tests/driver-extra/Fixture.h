/// \file
/// The shared fixture of the driver-extra tests: cuInit once, device 0's
/// primary context current for each test.
#pragma once

#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

namespace ferry::test {

class Driver : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS); }
  CUcontext Ctx = nullptr;
};

} // namespace ferry::test
