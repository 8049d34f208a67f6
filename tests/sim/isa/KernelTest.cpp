//===- tests/sim/isa/KernelTest.cpp - clang-compiled kernels on the sim ---===//
/// \file
/// Independent kernels (OpenCL C compiled by clang-19, not by ferry) run on
/// the ISA simulator for gfx942 (wave64), gfx1100 (wave32) and gfx90a, each
/// compared with a CPU reference computed here.
//===----------------------------------------------------------------------===//
#include "tests/sim/isa/SimTestUtil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <numeric>
#include <unistd.h>
#include <vector>

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


static unsigned waveOf(Gfx G) { return waveSize(G); }

/// |A - B| within Rel of |B| (or Abs near zero); NaNs must match.
template <typename T> static bool near(T A, T B, double Rel, double Abs = 0) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  if (std::isinf(A) || std::isinf(B))
    return A == B;
  return std::fabs(double(A) - double(B)) <= std::max(Rel * std::fabs(double(B)), Abs);
}

static uint32_t lcg(uint32_t &S) {
  S = S * 1664525u + 1013904223u;
  return S >> 8;
}

TEST_P(SimKernel, ReduceSumLds) {
  if (!load("local"))
    return;
  const int N = 1024, WG = 256;
  float *In = Mem.allocArray<float>(N), *Out = Mem.allocArray<float>(N / WG);
  uint32_t S = 1;
  for (int I = 0; I < N; ++I)
    In[I] = float(lcg(S) % 1000) / 7.0f;
  EXPECT_OK(run("reduce_sum", grid1(N, WG), In, Out));
  for (int G = 0; G < N / WG; ++G) {
    std::vector<float> T(In + G * WG, In + (G + 1) * WG);
    for (int St = WG / 2; St > 0; St >>= 1)
      for (int L = 0; L < St; ++L)
        T[L] += T[L + St];
    EXPECT_EQ(Out[G], T[0]) << G;
  }
}

TEST_P(SimKernel, ScanLds) {
  if (!load("local"))
    return;
  const int N = 512, WG = 128;
  int *In = Mem.allocArray<int>(N), *Out = Mem.allocArray<int>(N);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 37) % 11 - 5;
  EXPECT_OK(run("scan_int", grid1(N, WG), In, Out));
  for (int G = 0; G < N / WG; ++G) {
    int Acc = 0;
    for (int L = 0; L < WG; ++L) {
      Acc += In[G * WG + L];
      ASSERT_EQ(Out[G * WG + L], Acc) << G << " " << L;
    }
  }
}

TEST_P(SimKernel, Transpose2D) {
  if (!load("local"))
    return;
  const int W = 40, H = 24;
  int *In = Mem.allocArray<int>(W * H), *Out = Mem.allocArray<int>(W * H);
  for (int I = 0; I < W * H; ++I)
    In[I] = I * 3 + 1;
  Launch L;
  L.Dims = 2;
  L.Grid[0] = 48; // padded to whole tiles; the kernel checks bounds
  L.Grid[1] = 32;
  L.Group[0] = 16;
  L.Group[1] = 16;
  EXPECT_OK(run("transpose", L, In, Out, W, H));
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      ASSERT_EQ(Out[X * H + Y], In[Y * W + X]) << X << "," << Y;
}

TEST_P(SimKernel, DynamicLds) {
  if (!load("local"))
    return;
  const int N = 256, WG = 128;
  int *Out = Mem.allocArray<int>(N);
  Launch L = grid1(N, WG);
  L.DynamicLds = WG * 4;
  uint32_t LdsOffset = 0; // a __local pointer argument: offset in the group segment
  EXPECT_OK(run("dyn_lds", L, Out, LdsOffset));
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], (WG - 1 - I % WG) * 3) << I;
}

TEST_P(SimKernel, LocalAtomics) {
  if (!load("local"))
    return;
  const int N = 512, WG = 128;
  uint32_t *In = Mem.allocArray<uint32_t>(N), *Hist = Mem.allocArray<uint32_t>(16),
           *Mx = Mem.allocArray<uint32_t>(1);
  uint32_t S = 7, Ref[16] = {}, RefMax = 0;
  for (int I = 0; I < N; ++I) {
    In[I] = lcg(S);
    Ref[In[I] & 15]++;
    RefMax = std::max(RefMax, In[I]);
  }
  EXPECT_OK(run("local_hist", grid1(N, WG), In, Hist, Mx));
  for (int B = 0; B < 16; ++B)
    EXPECT_EQ(Hist[B], Ref[B]) << B;
  EXPECT_EQ(*Mx, RefMax);
}

TEST_P(SimKernel, GlobalAtomics) {
  if (!load("atomics"))
    return;
  const int N = 256;
  int *C = Mem.allocArray<int>(10), *Old = Mem.allocArray<int>(N);
  int Init[10] = {0, 1000, 50, -5, -1, 0, 0x1234, 0, 17, 0};
  memcpy(C, Init, sizeof Init);
  EXPECT_OK(run("global_atomics", grid1(N, 64), C, Old));
  std::vector<int> Sorted(Old, Old + N);
  std::sort(Sorted.begin(), Sorted.end());
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Sorted[I], I);
  int Sub = 1000, Mn = 50, Mxv = -5, And = -1, Or = 0, Xor = 0x1234;
  uint32_t UMax = 0;
  for (int I = 0; I < N; ++I) {
    Sub -= I;
    Mn = std::min(Mn, I - 100);
    Mxv = std::max(Mxv, I * 3);
    And &= ~(1 << (I & 31));
    Or |= 1 << (I & 31);
    Xor ^= I;
    UMax = std::max(UMax, uint32_t(I) ^ 0x80000000u);
  }
  EXPECT_EQ(C[0], N);
  EXPECT_EQ(C[1], Sub);
  EXPECT_EQ(C[2], Mn);
  EXPECT_EQ(C[3], Mxv);
  EXPECT_EQ(C[4], And);
  EXPECT_EQ(C[5], Or);
  EXPECT_EQ(C[6], Xor);
  EXPECT_EQ(uint32_t(C[7]), UMax);
  // Lane 17 matches 17 and stores 18; lanes performed in order after it
  // cascade (18 matches next...), so the result depends on the order.
  EXPECT_GE(C[8], 18);
  EXPECT_LE(C[8], N);
  EXPECT_EQ(C[9], 7);
}

TEST_P(SimKernel, Atomics64) {
  if (!load("atomics"))
    return;
  const int N = 200;
  uint64_t *C = Mem.allocArray<uint64_t>(2);
  int64_t *M = Mem.allocArray<int64_t>(1);
  EXPECT_OK(run("atomics64", grid1(N, 64), C, M));
  uint64_t S0 = 0, S1 = 0;
  for (uint64_t I = 0; I < N; ++I) {
    S0 += I << 33;
    S1 += I * I;
  }
  EXPECT_EQ(C[0], S0);
  EXPECT_EQ(C[1], S1);
  EXPECT_EQ(M[0], -(N - 1));
}

TEST_P(SimKernel, AtomicFloatAdd) {
  if (!load("atomics"))
    return;
  const int N = 256;
  float *Sum = Mem.allocArray<float>(1), *V = Mem.allocArray<float>(N);
  double Ref = 0;
  for (int I = 0; I < N; ++I) {
    V[I] = 0.25f * float(I % 13);
    Ref += V[I];
  }
  EXPECT_OK(run("atomic_fadd", grid1(N, 64), Sum, V));
  EXPECT_FLOAT_EQ(*Sum, float(Ref)); // exact: all partial sums are representable
}

TEST_P(SimKernel, Bpermute) {
  if (!load("lanes"))
    return;
  const int N = 256, K = 5;
  int *Out = Mem.allocArray<int>(N);
  EXPECT_OK(run("bpermute", grid1(N, 128), Out, K));
  unsigned W = waveOf(G);
  for (int I = 0; I < N; ++I) {
    int Base = I - I % W;
    ASSERT_EQ(Out[I], 7 * (Base + (I % W + K) % W)) << I;
  }
}

TEST_P(SimKernel, Dpp) {
  if (!load("lanes"))
    return;
  const int N = 128;
  int *Out = Mem.allocArray<int>(6 * N);
  EXPECT_OK(run("dpp", grid1(N, 64), Out));
  auto V = [](int L) { return L + 1; };
  for (int I = 0; I < N; ++I) {
    int In = I & 15, Row = I & ~15, RowNo = (I % int(waveOf(G))) >> 4;
    ASSERT_EQ(Out[6 * I + 0], In >= 1 ? V(I - 1) : 0) << "row_shr:1 lane " << I;
    ASSERT_EQ(Out[6 * I + 1], In + 2 <= 15 ? V(I + 2) : 0) << "row_shl:2 lane " << I;
    ASSERT_EQ(Out[6 * I + 2], V((I & ~3) | (3 - (I & 3)))) << "quad_perm lane " << I;
    ASSERT_EQ(Out[6 * I + 3], V(Row + 15 - In)) << "row_mirror lane " << I;
    ASSERT_EQ(Out[6 * I + 4], V(Row + ((In - 4) & 15))) << "row_ror lane " << I;
    bool RowOn = (0xa >> RowNo) & 1;
    ASSERT_EQ(Out[6 * I + 5], RowOn && In >= 1 ? V(I - 1) : -1) << "row_mask lane " << I;
  }
}

TEST_P(SimKernel, WaveBallotReadlane) {
  if (!load("lanes"))
    return;
  const int N = 128;
  int *In = Mem.allocArray<int>(N);
  uint32_t *Out = Mem.allocArray<uint32_t>(4 * N);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 7919) % 5 - 2;
  EXPECT_OK(run("wave_ops", grid1(N, 64), Out, In));
  unsigned W = waveOf(G);
  for (int I = 0; I < N; ++I) {
    int Base = I - I % W;
    uint64_t B = 0;
    for (unsigned L = 0; L < W; ++L)
      if (In[Base + L] > 0)
        B |= 1ull << L;
    ASSERT_EQ(Out[4 * I + 0], uint32_t(B)) << I;
    ASSERT_EQ(Out[4 * I + 1], W == 64 ? uint32_t(B >> 32) : 0u) << I;
    ASSERT_EQ(Out[4 * I + 2], uint32_t(In[Base])) << I;
    ASSERT_EQ(Out[4 * I + 3], uint32_t(In[Base + 5]) + I % W) << I;
  }
}

TEST_P(SimKernel, Swizzle) {
  if (!load("lanes"))
    return;
  const int N = 128;
  int *Out = Mem.allocArray<int>(2 * N);
  EXPECT_OK(run("swizzle", grid1(N, 64), Out));
  for (int I = 0; I < N; ++I) {
    ASSERT_EQ(Out[2 * I], (I & ~3) | (3 - (I & 3))) << I;
    ASSERT_EQ(Out[2 * I + 1], I ^ 1) << I;
  }
}

TEST_P(SimKernel, DppReduceAndPermlane) {
  if (!load("lanes"))
    return;
  const int N = 128;
  int *In = Mem.allocArray<int>(N), *Out = Mem.allocArray<int>(2 * N);
  for (int I = 0; I < N; ++I)
    In[I] = I * I - 50;
  EXPECT_OK(run("subgroup_reduce", grid1(N, 64), In, Out));
  for (int I = 0; I < N; ++I) {
    ASSERT_EQ(Out[I], In[I] + ((I & 15) ? In[I - 1] : 0)) << I;
    if (G == Gfx::Gfx1100)
      ASSERT_EQ(Out[N + I], In[(I & ~31) | ((I & 31) ^ 16)]) << I;
  }
}

TEST_P(SimKernel, DivergentLoops) {
  if (!load("scalar"))
    return;
  const int N = 300;
  uint32_t *In = Mem.allocArray<uint32_t>(N), *Steps = Mem.allocArray<uint32_t>(N);
  for (int I = 0; I < N; ++I)
    In[I] = I + 1;
  EXPECT_OK(run("collatz", grid1(N, 64), In, Steps));
  for (int I = 0; I < N; ++I) {
    uint32_t X = I + 1, St = 0;
    while (X != 1 && St < 1000) {
      X = (X & 1) ? 3 * X + 1 : X >> 1;
      ++St;
    }
    ASSERT_EQ(Steps[I], St) << I;
  }
}

TEST_P(SimKernel, PrivateArray) {
  if (!load("scalar"))
    return;
  const int N = 128;
  int *Idx = Mem.allocArray<int>(N), *Out = Mem.allocArray<int>(N);
  uint32_t S = 3;
  for (int I = 0; I < N; ++I)
    Idx[I] = int(lcg(S) % 1000);
  EXPECT_OK(run("private_array", grid1(N, 64), Idx, Out));
  for (int I = 0; I < N; ++I) {
    int A[48];
    for (int K = 0; K < 48; ++K)
      A[K] = K * I + (K ^ I);
    for (int K = 0; K < 5; ++K)
      A[(Idx[I] + K) % 48] += K;
    ASSERT_EQ(Out[I], A[Idx[I] % 48] + A[(Idx[I] * 7) % 48]) << I;
  }
}

TEST_P(SimKernel, IntDivision) {
  if (!load("scalar"))
    return;
  const int N = 256;
  int *A = Mem.allocArray<int>(N), *B = Mem.allocArray<int>(N), *Q = Mem.allocArray<int>(N);
  uint32_t *R = Mem.allocArray<uint32_t>(N);
  uint32_t S = 11;
  for (int I = 0; I < N; ++I) {
    A[I] = int(lcg(S)) - (1 << 23);
    B[I] = int(lcg(S) % 2000) - 1000;
    if (B[I] == 0)
      B[I] = 7;
  }
  A[0] = INT32_MIN + 1;
  B[0] = -1;
  EXPECT_OK(run("int_div", grid1(N, 64), A, B, Q, R));
  for (int I = 0; I < N; ++I) {
    ASSERT_EQ(Q[I], A[I] / B[I]) << I;
    ASSERT_EQ(R[I], uint32_t(A[I]) % uint32_t(B[I])) << I;
  }
}

TEST_P(SimKernel, Int64) {
  if (!load("scalar"))
    return;
  const int N = 128;
  uint64_t *A = Mem.allocArray<uint64_t>(N), *B = Mem.allocArray<uint64_t>(N),
           *O = Mem.allocArray<uint64_t>(6 * N);
  uint32_t S = 5;
  for (int I = 0; I < N; ++I) {
    A[I] = uint64_t(lcg(S)) << 40 ^ uint64_t(lcg(S)) << 13 ^ lcg(S);
    B[I] = uint64_t(lcg(S)) << (I % 40) ^ lcg(S);
  }
  EXPECT_OK(run("int64", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    uint64_t X = A[I], Y = B[I];
    ASSERT_EQ(O[6 * I + 0], X * Y + (X >> 7)) << I;
    ASSERT_EQ(O[6 * I + 1], uint64_t(int64_t(X) >> (Y & 63))) << I;
    ASSERT_EQ(O[6 * I + 2], X > Y ? X - Y : Y - X) << I;
    ASSERT_EQ(O[6 * I + 3], X / (Y | 1)) << I;
    ASSERT_EQ(O[6 * I + 4], X % ((Y >> 3) | 1)) << I;
    ASSERT_EQ(O[6 * I + 5], uint64_t(int64_t(X) * 3 - int64_t(Y << 1))) << I;
  }
}

TEST_P(SimKernel, BitOps) {
  if (!load("scalar"))
    return;
  const int N = 128;
  uint32_t *In = Mem.allocArray<uint32_t>(N), *O = Mem.allocArray<uint32_t>(8 * N);
  uint32_t S = 9;
  for (int I = 0; I < N; ++I)
    In[I] = I < 3 ? uint32_t(I) * 0x80000000u : lcg(S) * 2654435761u;
  EXPECT_OK(run("bits", grid1(N, 64), In, O));
  for (uint32_t I = 0; I < uint32_t(N); ++I) {
    uint32_t X = In[I];
    uint32_t Rev = 0;
    for (int B = 0; B < 32; ++B)
      Rev |= ((X >> B) & 1) << (31 - B);
    ASSERT_EQ(O[8 * I + 0], uint32_t(__builtin_popcount(X))) << I;
    ASSERT_EQ(O[8 * I + 1], X ? uint32_t(__builtin_clz(X)) : 32u) << I;
    ASSERT_EQ(O[8 * I + 2], X ? uint32_t(__builtin_ctz(X)) : 32u) << I;
    ASSERT_EQ(O[8 * I + 3], Rev) << I;
    ASSERT_EQ(O[8 * I + 4], (X << (I & 31)) | (X >> ((32 - (I & 31)) & 31))) << I;
    ASSERT_EQ(O[8 * I + 5], (X >> (I % 20)) & 0x7ff) << I;
    ASSERT_EQ(O[8 * I + 6], uint32_t(int32_t(X << 3) >> 9)) << I;
    ASSERT_EQ(O[8 * I + 7], uint32_t((uint64_t(X) * 0x9e3779b9u) >> 32)) << I;
  }
}

TEST_P(SimKernel, ScalarAlu) {
  if (!load("scalar"))
    return;
  const int N = 64;
  uint32_t *O = Mem.allocArray<uint32_t>(N);
  uint32_t A = 0x9abcdef1u, B = 12345;
  EXPECT_OK(run("salu", grid1(N, 16), O, A, B));
  uint32_t R[8] = {A * B, A / (B | 1), A < B ? A : B, A ^ (B << 3), uint32_t(__builtin_popcount(A)),
                   uint32_t(int32_t(A) >> 5), A > 5u ? 1u : 0u, uint32_t(__builtin_clz(B | 1))};
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(O[I], R[I & 7] + I / 16) << I;
}

TEST_P(SimKernel, Grid3D) {
  if (!load("scalar"))
    return;
  Launch L;
  L.Dims = 3;
  uint32_t W = 12, H = 6, D = 5;
  L.Grid[0] = W; L.Grid[1] = H; L.Grid[2] = D;
  L.Group[0] = 4; L.Group[1] = 4; L.Group[2] = 2; // partial groups at the edges
  uint32_t *O = Mem.allocArray<uint32_t>(W * H * D);
  EXPECT_OK(run("grid3d", L, O));
  for (uint32_t Z = 0; Z < D; ++Z)
    for (uint32_t Y = 0; Y < H; ++Y)
      for (uint32_t X = 0; X < W; ++X)
        ASSERT_EQ(O[(Z * H + Y) * W + X], X | Y << 8 | Z << 16 | (Z % 2) << 24) << X << Y << Z;
}

TEST_P(SimKernel, NarrowMemory) {
  if (!load("scalar"))
    return;
  const int N = 200;
  int8_t *Cc = Mem.allocArray<int8_t>(N);
  uint16_t *Sv = Mem.allocArray<uint16_t>(N);
  int16_t *O = Mem.allocArray<int16_t>(N);
  uint8_t *Ob = Mem.allocArray<uint8_t>(N);
  for (int I = 0; I < N; ++I) {
    Cc[I] = int8_t(I * 13);
    Sv[I] = uint16_t(I * 1000 + 7);
  }
  EXPECT_OK(run("narrow", grid1(N, 64), Cc, Sv, O, Ob));
  for (int I = 0; I < N; ++I) {
    ASSERT_EQ(O[I], int16_t(Cc[I] * 3 + int16_t(Sv[I]))) << I;
    ASSERT_EQ(Ob[I], uint8_t(Cc[I] ^ 0x55)) << I;
  }
}

TEST_P(SimKernel, FlatPointers) {
  if (!load("scalar"))
    return;
  const int N = 128, WG = 64;
  int *Gm = Mem.allocArray<int>(N), *O = Mem.allocArray<int>(N);
  for (int I = 0; I < N; ++I)
    Gm[I] = I * 5 - 3;
  EXPECT_OK(run("flat_ptrs", grid1(N, WG), Gm, O));
  for (int I = 0; I < N; ++I) {
    int L = I % WG, Ln = (L + 1) % WG;
    int Sg = Gm[I % 60] + Gm[I % 60 + 1] + Gm[I % 60 + 2];
    int Sl = 3 * Ln + 3;
    int Sp = 2 * (Gm[I % 64] + Gm[(I + 1) % 64] + Gm[(I + 2) % 64]);
    ASSERT_EQ(O[I], Sg + Sl + Sp) << I;
  }
}

TEST_P(SimKernel, FloatMath) {
  if (!load("float"))
    return;
  const int N = 128;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(10 * N);
  uint32_t S = 13;
  for (int I = 0; I < N; ++I) {
    A[I] = (float(lcg(S) % 20000) - 10000.0f) / 77.0f;
    B[I] = (float(lcg(S) % 20000) - 10000.0f) / 31.0f;
    if (B[I] == 0)
      B[I] = 1.0f;
  }
  A[0] = 1e-40f; // denormal input
  B[1] = 0.0f;   // division by zero
  EXPECT_OK(run("fmath", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    float X = A[I], Y = B[I];
    EXPECT_TRUE(near(O[10 * I + 0], X / Y, 3e-7)) << I << " " << O[10 * I] << " vs " << X / Y;
    EXPECT_TRUE(near(O[10 * I + 1], std::sqrt(std::fabs(X)), 3e-7, 1e-30)) << I;
    EXPECT_EQ(O[10 * I + 2], std::fma(X, Y, 1.5f)) << I;
    EXPECT_EQ(O[10 * I + 3], std::fmin(X, Y)) << I;
    EXPECT_EQ(O[10 * I + 4], std::fmax(X, Y)) << I;
    EXPECT_EQ(O[10 * I + 5], std::floor(X) + std::ceil(Y)) << I;
    EXPECT_EQ(O[10 * I + 6], std::trunc(X * 3.0f) - std::nearbyint(Y * 3.0f)) << I;
    EXPECT_EQ(O[10 * I + 7], float(int(X * 100.0f)) + float(uint32_t(std::fabs(Y * 10.0f)))) << I;
    EXPECT_EQ(O[10 * I + 8], std::copysign(X, Y) * (X < Y ? 2.0f : 0.5f)) << I;
    EXPECT_EQ(O[10 * I + 9], std::ldexp(X, int(I % 7) - 3)) << I;
  }
}

TEST_P(SimKernel, DoubleMath) {
  if (!load("float"))
    return;
  const int N = 128;
  double *A = Mem.allocArray<double>(N), *B = Mem.allocArray<double>(N), *O = Mem.allocArray<double>(6 * N);
  uint32_t S = 17;
  for (int I = 0; I < N; ++I) {
    A[I] = (double(lcg(S)) - 8e6) / 3.0;
    B[I] = (double(lcg(S)) - 8e6) / 7.0 + 0.5;
  }
  A[0] = 1e-310; // denormal
  EXPECT_OK(run("dmath", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    double X = A[I], Y = B[I];
    EXPECT_EQ(O[6 * I + 0], X / Y) << I; // IEEE division via div_scale/fmas/fixup
    EXPECT_EQ(O[6 * I + 1], std::sqrt(std::fabs(X))) << I;
    EXPECT_EQ(O[6 * I + 2], std::fma(X, Y, -1.25)) << I;
    EXPECT_EQ(O[6 * I + 3], std::fmin(X, Y) + std::floor(Y)) << I;
    EXPECT_EQ(O[6 * I + 4], double(int64_t(X * 1e6)) + double(float(Y))) << I;
    EXPECT_TRUE(near(O[6 * I + 5], X * Y - X + Y, 1e-15)) << I;
  }
}

TEST_P(SimKernel, HalfMath) {
  if (!load("float"))
    return;
  const int N = 128;
  _Float16 *A = Mem.allocArray<_Float16>(N), *B = Mem.allocArray<_Float16>(N),
           *O = Mem.allocArray<_Float16>(4 * N);
  float *F = Mem.allocArray<float>(N);
  for (int I = 0; I < N; ++I) {
    A[I] = _Float16(float(I % 37) * 0.37f - 5.0f);
    B[I] = _Float16(float(I % 23) * -0.61f + 3.0f);
  }
  EXPECT_OK(run("hmath", grid1(N, 64), A, B, O, F));
  for (int I = 0; I < N; ++I) {
    float X = float(A[I]), Y = float(B[I]);
    EXPECT_EQ(float(O[4 * I + 0]), float(_Float16(X + Y))) << I;
    EXPECT_EQ(float(O[4 * I + 1]), float(_Float16(X * Y))) << I;
    EXPECT_EQ(float(O[4 * I + 2]), float(_Float16(std::fma(double(X), double(Y), 0.5)))) << I;
    EXPECT_EQ(float(O[4 * I + 3]), std::max(X, Y)) << I;
    EXPECT_EQ(F[I], X * Y) << I;
  }
}

TEST_P(SimKernel, PackedHalfMath) {
  if (!load("float"))
    return;
  const int N = 128;
  _Float16 *A = Mem.allocArray<_Float16>(2 * N), *B = Mem.allocArray<_Float16>(2 * N),
           *O = Mem.allocArray<_Float16>(4 * N);
  for (int I = 0; I < 2 * N; ++I) {
    A[I] = _Float16(float(I % 41) * 0.25f - 4.0f);
    B[I] = _Float16(float(I % 19) * 0.5f - 2.0f);
  }
  EXPECT_OK(run("hmath2", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I)
    for (int H = 0; H < 2; ++H) {
      float X = float(A[2 * I + H]), Y = float(B[2 * I + H]);
      // x*y + x may be contracted to an fma; both values are exact here.
      EXPECT_EQ(float(O[4 * I + H]), float(_Float16(std::fma(double(X), double(Y), double(X))))) << I;
      EXPECT_EQ(float(O[4 * I + 2 + H]), float(_Float16(X - Y))) << I;
    }
}

TEST_P(SimKernel, Transcendentals) {
  if (!load("float"))
    return;
  const int N = 128;
  float *A = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(4 * N);
  for (int I = 0; I < N; ++I)
    A[I] = float(I) * 0.173f - 9.0f;
  EXPECT_OK(run("transc", grid1(N, 64), A, O));
  for (int I = 0; I < N; ++I) {
    float X = A[I];
    EXPECT_TRUE(near(O[4 * I + 0], std::exp2(X), 2e-7)) << I;
    EXPECT_TRUE(near(O[4 * I + 1], std::log2(std::fabs(X) + 1.0f), 2e-7, 1e-7)) << I;
    EXPECT_TRUE(near(O[4 * I + 2], float(std::sin(2 * M_PI * double(X * 0.1f))), 1e-6, 1e-6)) << I;
    EXPECT_TRUE(near(O[4 * I + 3], 1.0f / (X + 10.0f), 2e-7)) << I;
  }
}

TEST_P(SimKernel, FloatCompare) {
  if (!load("float"))
    return;
  const int N = 64;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N);
  int *O = Mem.allocArray<int>(N);
  float Vals[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, INFINITY, -INFINITY, 1e-40f};
  for (int I = 0; I < N; ++I) {
    A[I] = Vals[I % 8];
    B[I] = Vals[(I / 8) % 8];
  }
  EXPECT_OK(run("fcmp", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    float X = A[I], Y = B[I];
    int R = (X < Y) | (X == Y) << 1 | (X != Y) << 2 | std::isnan(X) << 3 | std::isinf(Y) << 4 |
            (!(X >= Y)) << 5 | std::isfinite(X) << 6;
    // Denormals compare as zero when the kernel flushes f32 denormals
    // (OpenCL's default on these targets is to keep them: compare as is).
    EXPECT_EQ(O[I], R) << I << " " << X << " " << Y;
  }
}

TEST_P(SimKernel, DotProducts) {
  if (!load("float"))
    return;
  const int N = 64;
  uint32_t *A = Mem.allocArray<uint32_t>(N), *B = Mem.allocArray<uint32_t>(N);
  int *O = Mem.allocArray<int>(2 * N);
  uint32_t S = 21;
  for (int I = 0; I < N; ++I) {
    A[I] = lcg(S) * 2654435761u;
    B[I] = lcg(S) * 40503u;
  }
  EXPECT_OK(run("dots", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    uint32_t U = I;
    int64_t Sv = I;
    for (int K = 0; K < 4; ++K) {
      uint32_t X = (A[I] >> 8 * K) & 0xff, Y = (B[I] >> 8 * K) & 0xff;
      U += X * Y;
      Sv += int64_t(int8_t(X)) * int8_t(Y);
    }
    EXPECT_EQ(uint32_t(O[2 * I]), U) << I;
    if (G == Gfx::Gfx1100) {
      uint32_t U2 = 7;
      for (int K = 0; K < 4; ++K)
        U2 += (((A[I] ^ 0x01010101u) >> 8 * K) & 0xff) * ((B[I] >> 8 * K) & 0xff);
      EXPECT_EQ(uint32_t(O[2 * I + 1]), U2) << I;
    } else {
      EXPECT_EQ(O[2 * I + 1], int(Sv)) << I;
    }
  }
}

TEST_P(SimKernel, MatMul) {
  if (!load("float"))
    return;
  const int Nn = 16;
  float *A = Mem.allocArray<float>(Nn * Nn), *B = Mem.allocArray<float>(Nn * Nn),
        *Cm = Mem.allocArray<float>(Nn * Nn);
  for (int I = 0; I < Nn * Nn; ++I) {
    A[I] = float(I % 7) - 3.0f;
    B[I] = float(I % 5) * 0.5f;
  }
  Launch L;
  L.Dims = 2;
  L.Grid[0] = L.Grid[1] = Nn;
  L.Group[0] = 8;
  L.Group[1] = 8;
  EXPECT_OK(run("matmul", L, A, B, Cm, Nn));
  for (int R = 0; R < Nn; ++R)
    for (int Cc = 0; Cc < Nn; ++Cc) {
      float S = 0;
      for (int K = 0; K < Nn; ++K)
        S = std::fma(A[R * Nn + K], B[K * Nn + Cc], S);
      ASSERT_EQ(Cm[R * Nn + Cc], S) << R << "," << Cc;
    }
}


static bool sameFloat(float A, float B) {
  return (std::isnan(A) && std::isnan(B)) || (A == B && std::signbit(A) == std::signbit(B));
}

TEST_P(SimKernel, IeeeDivSqrtF32) {
  if (!load("precise"))
    return;
  const int N = 64;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(2 * N);
  float Special[][2] = {{1e-40f, 3.0f}, {1e30f, 1e-10f}, {0.0f, 0.0f}, {-1.0f, 0.0f}, {INFINITY, INFINITY},
                        {1.0f, 3.0f}, {2.0f, 1e-40f}, {1e-45f, 2.0f}, {-0.0f, 5.0f}, {-4.0f, 2.0f}};
  uint32_t S = 31;
  for (int I = 0; I < N; ++I) {
    if (I < 10) {
      A[I] = Special[I][0];
      B[I] = Special[I][1];
    } else {
      A[I] = float(lcg(S)) / float(lcg(S) + 1) * 1e3f;
      B[I] = float(lcg(S) % 1000 + 1) / 7.0f;
    }
  }
  EXPECT_OK(run("fdiv_ieee", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    EXPECT_TRUE(sameFloat(O[2 * I], A[I] / B[I])) << I << ": " << O[2 * I] << " vs " << A[I] / B[I];
    EXPECT_TRUE(sameFloat(O[2 * I + 1], std::sqrt(A[I]))) << I << ": " << O[2 * I + 1];
  }
}

TEST_P(SimKernel, FlushDenormalsMode) {
  if (!load("ftz"))
    return;
  const int N = 64;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(N);
  auto Flush = [](float F) { return std::fpclassify(F) == FP_SUBNORMAL ? std::copysign(0.0f, F) : F; };
  for (int I = 0; I < N; ++I) {
    A[I] = I % 3 == 0 ? 1e-20f : I % 3 == 1 ? -1e-40f : 1.5f;
    B[I] = I % 2 ? 1e-20f : 1e10f;
  }
  EXPECT_OK(run("ftz_mul", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I)
    EXPECT_TRUE(sameFloat(O[I], Flush(Flush(A[I]) * Flush(B[I])))) << I << ": " << O[I];
}

TEST_P(SimKernel, FlatSelectAddressSpace) {
  if (!load("mixed"))
    return;
  const int N = 128, WG = 64;
  int *Gm = Mem.allocArray<int>(N), *O = Mem.allocArray<int>(N);
  for (int I = 0; I < N; ++I)
    Gm[I] = I * 3;
  EXPECT_OK(run("flat_select", grid1(N, WG), Gm, O));
  for (int I = 0; I < N; ++I) {
    int L = I % WG, Next = (L + 1) % WG;
    int Want = (I & 1) ? 4 * Next + 1000 : 2 * (I * 3) + 1000;
    ASSERT_EQ(O[I], Want) << I;
  }
}

TEST_P(SimKernel, ByteShortVectors) {
  if (!load("mixed"))
    return;
  const int N = 128;
  uint8_t *A = Mem.allocArray<uint8_t>(4 * N), *B = Mem.allocArray<uint8_t>(4 * N), *O = Mem.allocArray<uint8_t>(4 * N);
  int16_t *Sv = Mem.allocArray<int16_t>(2 * N), *So = Mem.allocArray<int16_t>(2 * N);
  uint32_t S = 41;
  for (int I = 0; I < 4 * N; ++I) {
    A[I] = uint8_t(lcg(S));
    B[I] = uint8_t(lcg(S));
  }
  for (int I = 0; I < 2 * N; ++I)
    Sv[I] = int16_t(lcg(S));
  EXPECT_OK(run("vec8", grid1(N, 64), A, B, O, Sv, So));
  for (int I = 0; I < N; ++I) {
    for (int K = 0; K < 4; ++K) {
      uint8_t X = A[4 * I + K], Y = B[4 * I + K];
      ASSERT_EQ(O[4 * I + K], uint8_t(uint8_t(X + Y) ^ uint8_t(X >> (K + 1)))) << I << "." << K;
    }
    ASSERT_EQ(So[2 * I], int16_t(Sv[2 * I] * 3 + int16_t(I))) << I;
    ASSERT_EQ(So[2 * I + 1], int16_t(Sv[2 * I + 1] * -2 + int16_t(-I))) << I;
  }
}

TEST_P(SimKernel, FloatAtomicsNative) {
  if (!load("mixed"))
    return;
  const int N = 256;
  float *F = Mem.allocArray<float>(1), *V = Mem.allocArray<float>(N);
  double *Dv = Mem.allocArray<double>(1);
  double Ref = 0;
  for (int I = 0; I < N; ++I) {
    V[I] = 0.5f * float(I % 9) - 1.0f;
    Ref += V[I];
  }
  EXPECT_OK(run("fatomics", grid1(N, 64), F, Dv, V));
  EXPECT_EQ(*F, float(Ref));
  EXPECT_EQ(*Dv, Ref);
}

TEST_P(SimKernel, MultiWaveBarrier) {
  if (!load("mixed"))
    return;
  const int N = 512, WG = 256;
  int *O = Mem.allocArray<int>(N);
  EXPECT_OK(run("multiwave", grid1(N, WG), O));
  for (int I = 0; I < N; ++I) {
    int L = I % WG, Gp = I / WG, S = 0;
    for (int K = 0; K < 512; K += 64)
      S += ((K + L * 3) % 512) * 7 + Gp;
    ASSERT_EQ(O[I], (L & 1) ? -S : S) << I;
  }
}

TEST_P(SimKernel, ResidentWorkgroupsWaitForEachOther) {
  // 6 workgroups of 128 work-items spin on a counter until all arrived:
  // the simulated GPU (one CU here) holds them all at once and interleaves
  // them, as hardware does.
  if (!load("residency"))
    return;
  const int Groups = 6, WG = 128;
  int *Count = Mem.allocArray<int>(1), *O = Mem.allocArray<int>(Groups * WG);
  EXPECT_OK(run("grid_barrier", grid1(Groups * WG, WG), Count, O, Groups));
  for (int I = 0; I < Groups * WG; ++I)
    ASSERT_EQ(O[I], Groups * 1000 + I / WG) << I;
}

TEST_P(SimKernel, Throughput) {
  // Not a benchmark (bench/ has those): a sanity bound on simulation speed,
  // and the rate printed for the record.
  if (!load("float"))
    return;
  const int Nn = 32;
  float *A = Mem.allocArray<float>(Nn * Nn), *B = Mem.allocArray<float>(Nn * Nn),
        *Cm = Mem.allocArray<float>(Nn * Nn);
  Launch L;
  L.Dims = 2;
  L.Grid[0] = L.Grid[1] = Nn;
  L.Group[0] = 16;
  L.Group[1] = 16;
  EXPECT_OK(run("matmul", L, A, B, Cm, Nn)); // decodes; the second run is timed
  auto T0 = std::chrono::steady_clock::now();
  auto R = run("matmul", L, A, B, Cm, Nn);
  double Sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  EXPECT_OK(R);
  double Rate = double(R.Instructions) / Sec;
  printf("[ sim      ] %s: %llu wave instructions in %.3f s = %.2f M wave-instr/s\n", gfxName(G),
         (unsigned long long)R.Instructions, Sec, Rate / 1e6);
  RecordProperty("wave_instructions_per_second", std::to_string(int64_t(Rate)));
  EXPECT_GT(R.Instructions, 0u);
}

TEST_P(SimKernel, DeviceLibMathF32) {
  if (access(kernelPath("ocml", G).c_str(), R_OK) != 0)
    GTEST_SKIP() << "ocml kernels not built (rocm-device-libs missing)";
  if (!load("ocml"))
    return;
  const int N = 128;
  float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(9 * N);
  uint32_t S = 51;
  for (int I = 0; I < N; ++I) {
    A[I] = (float(lcg(S) % 20000) - 10000.0f) / 997.0f;
    B[I] = (float(lcg(S) % 20000) - 10000.0f) / 3001.0f;
  }
  EXPECT_OK(run("ocml_f32", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    double X = A[I], Y = B[I];
    double Ref[9] = {std::sin(X), std::cos(X), std::exp(Y), std::log(std::fabs(X) + 0.5),
                     std::pow(std::fabs(X), Y), std::erf(Y), std::tanh(X), std::atan2(X, Y), std::cbrt(X)};
    for (int K = 0; K < 9; ++K)
      EXPECT_TRUE(near(double(O[9 * I + K]), Ref[K], 4e-6, 1e-6))
          << "fn " << K << " lane " << I << ": " << O[9 * I + K] << " vs " << Ref[K];
  }
}

TEST_P(SimKernel, DeviceLibMathF64) {
  if (access(kernelPath("ocml", G).c_str(), R_OK) != 0)
    GTEST_SKIP() << "ocml kernels not built (rocm-device-libs missing)";
  if (!load("ocml"))
    return;
  const int N = 128;
  double *A = Mem.allocArray<double>(N), *B = Mem.allocArray<double>(N), *O = Mem.allocArray<double>(4 * N);
  uint32_t S = 61;
  for (int I = 0; I < N; ++I) {
    A[I] = (double(lcg(S) % 200000) - 100000.0) / 9973.0;
    B[I] = (double(lcg(S) % 200000) - 100000.0) / 30011.0;
  }
  A[0] = 1e10; // large arguments take the v_trig_preop_f64 reduction path
  A[1] = -3.7e22;
  A[2] = 1e300;
  EXPECT_OK(run("ocml_f64", grid1(N, 64), A, B, O));
  for (int I = 0; I < N; ++I) {
    double X = A[I], Y = B[I];
    double Ref[4] = {std::sin(X), std::exp(Y), std::log(std::fabs(X) + 0.5), std::pow(std::fabs(X), Y)};
    if (I < 3) // pow/exp of huge values are not the point of these lanes
      Ref[3] = O[4 * I + 3];
    for (int K = 0; K < 4; ++K)
      EXPECT_TRUE(near(O[4 * I + K], Ref[K], 1e-14, 1e-15))
          << "fn " << K << " lane " << I << ": " << O[4 * I + K] << " vs " << Ref[K];
  }
}

TEST_P(SimKernel, DeviceLibMoreMath) {
  if (access(kernelPath("ocml_more", G).c_str(), R_OK) != 0)
    GTEST_SKIP() << "ocml kernels not built (rocm-device-libs missing)";
  if (!load("ocml_more"))
    return;
  const int N = 64;
  uint32_t S = 71;
  // f32
  {
    float *A = Mem.allocArray<float>(N), *B = Mem.allocArray<float>(N), *O = Mem.allocArray<float>(25 * N);
    for (int I = 0; I < N; ++I) {
      A[I] = (float(lcg(S) % 60000) - 30000.0f) / 10007.0f;
      B[I] = float(lcg(S) % 40000) / 10007.0f + 0.1f;
    }
    EXPECT_OK(run("more_f32", grid1(N, 64), A, B, O));
    for (int I = 0; I < N; ++I) {
      double X = A[I], Y = B[I];
      double Ref[25] = {std::tan(X), std::asin(X), std::acos(X), std::atan(X), std::sinh(X),
                        std::cosh(X), std::exp2(X), std::pow(10.0, X), std::log2(X), std::log10(X),
                        std::log1p(X), std::expm1(X), std::sqrt(X), 1 / std::sqrt(X), std::erfc(X),
                        std::lgamma(X), std::tgamma(X), std::asinh(X), std::atanh(X),
                        std::round(X), std::nearbyint(X), std::fmod(X, Y), std::remainder(X, Y),
                        std::hypot(X, Y), std::fdim(X, Y)};
      for (int K = 0; K < 25; ++K)
        EXPECT_TRUE(near(double(O[25 * I + K]), double(float(Ref[K])), 1e-5, 1e-6))
            << "f32 fn " << K << " x=" << X << " y=" << Y << ": " << O[25 * I + K] << " vs " << Ref[K];
    }
  }
  // f64
  {
    double *A = Mem.allocArray<double>(N), *B = Mem.allocArray<double>(N), *O = Mem.allocArray<double>(14 * N);
    for (int I = 0; I < N; ++I) {
      A[I] = (double(lcg(S) % 60000) - 30000.0) / 10007.0;
      B[I] = double(lcg(S) % 40000) / 10007.0 + 0.1;
    }
    EXPECT_OK(run("more_f64", grid1(N, 64), A, B, O));
    for (int I = 0; I < N; ++I) {
      double X = A[I], Y = B[I];
      double Ref[14] = {std::tan(X), std::asin(X), std::atan(X), std::cosh(X), std::exp2(X),
                        std::log2(X), std::log1p(X), std::expm1(X), std::sqrt(X), std::erfc(X),
                        std::tgamma(X), std::cbrt(X), std::hypot(X, Y), std::fmod(X, Y)};
      for (int K = 0; K < 14; ++K)
        EXPECT_TRUE(near(O[14 * I + K], Ref[K], 1e-14, 1e-15))
            << "f64 fn " << K << " x=" << X << ": " << O[14 * I + K] << " vs " << Ref[K];
    }
  }
  // f16
  {
    _Float16 *A = Mem.allocArray<_Float16>(N), *B = Mem.allocArray<_Float16>(N), *O = Mem.allocArray<_Float16>(10 * N);
    for (int I = 0; I < N; ++I) {
      A[I] = _Float16((float(lcg(S) % 6000) - 3000.0f) / 1000.0f);
      B[I] = _Float16(float(lcg(S) % 3000) / 1000.0f + 0.1f);
    }
    EXPECT_OK(run("more_f16", grid1(N, 64), A, B, O));
    for (int I = 0; I < N; ++I) {
      double X = double(A[I]), Y = double(B[I]);
      double Ref[10] = {std::sin(X), std::cos(X), std::exp(X), std::log(X), std::sqrt(X),
                        1 / std::sqrt(X), std::exp2(X), std::log2(X), std::tanh(X), std::pow(X, Y)};
      // Debian's ocml (ROCm 5.2) __ocml_sin_f16 returns NaN for finite
      // inputs: its IR selects the NaN when llvm.amdgcn.class(|x|, 504)
      // (the finite classes) holds. The simulator reproduces that; accept
      // it, or the right answer from a fixed library.
      if (std::isnan(double(O[10 * I])))
        Ref[0] = NAN;
      for (int K = 0; K < 10; ++K)
        EXPECT_TRUE(near(double(O[10 * I + K]), double(_Float16(Ref[K])), 2e-3, 2e-3))
            << "f16 fn " << K << " x=" << X << ": " << float(O[10 * I + K]) << " vs " << Ref[K];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, SimKernel,
                         ::testing::Values(Gfx::Gfx942, Gfx::Gfx1100, Gfx::Gfx90a),
                         [](const ::testing::TestParamInfo<Gfx> &I) {
                           return std::string(gfxName(I.param));
                         });

} // namespace
