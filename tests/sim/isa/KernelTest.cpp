//===- tests/sim/isa/KernelTest.cpp - clang-compiled kernels on the sim ---===//
/// \file
/// Independent kernels (OpenCL C compiled by clang-19, not by ferry) run on
/// the ISA simulator for gfx942 (wave64), gfx1100 (wave32) and gfx90a, each
/// compared with a CPU reference computed here.
//===----------------------------------------------------------------------===//
#include "tests/sim/isa/SimTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace ferry::sim;
using namespace ferry::sim::test;

namespace {

class SimKernel : public ::testing::TestWithParam<Gfx> {
protected:
  HostMemory Mem;
  std::unique_ptr<Simulator> Sim;
  CodeObject CO;
  Gfx G = Gfx::Gfx942;

  void SetUp() override {
    G = GetParam();
    Sim = Simulator::create(G, Mem);
  }
  bool load(const std::string &Name) {
    std::string Err;
    bool Ok = loadCodeObject(kernelPath(Name, G), Mem, CO, Err);
    EXPECT_TRUE(Ok) << Err;
    return Ok;
  }
  template <typename... A> DispatchResult run(const std::string &K, const Launch &L, A... Args) {
    struct Packed {
      alignas(8) uint8_t B[256];
      size_t N = 0;
      void add(const void *P, size_t S, size_t Al) {
        N = (N + Al - 1) & ~(Al - 1);
        memcpy(B + N, P, S);
        N += S;
      }
    } P;
    (P.add(&Args, sizeof(A), alignof(A)), ...);
    return dispatch(*Sim, Mem, CO, K, L, P.B, P.N);
  }
  static Launch grid1(uint32_t N, uint32_t WG) {
    Launch L;
    L.Grid[0] = N;
    L.Group[0] = WG;
    return L;
  }
};

#define EXPECT_OK(R) ASSERT_EQ((R).Status, DispatchResult::Ok) << (R).Message

TEST_P(SimKernel, VectorAdd) {
  if (!load("vadd"))
    return;
  const int N = 1000;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *C = Mem.allocArray<float>(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(I) * 0.5f;
    B[I] = 1.0f / float(I + 1);
  }
  auto R = run("vadd", grid1(N, 256), A, B, C, N);
  EXPECT_OK(R);
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << I;
}

INSTANTIATE_TEST_SUITE_P(Targets, SimKernel,
                         ::testing::Values(Gfx::Gfx942, Gfx::Gfx1100, Gfx::Gfx90a),
                         [](const ::testing::TestParamInfo<Gfx> &I) {
                           return std::string(gfxName(I.param));
                         });

} // namespace
