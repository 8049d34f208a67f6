/// \file
/// The sm_80 warp reduction instructions (__reduce_add/min/max/and/or/xor
/// _sync) over full warps and over a partial mask of the even lanes, used to
/// build per-warp statistics of a sensor stream.
#include "../common/app_util.h"
#include <vector>

__global__ void warpStats(const unsigned *In, unsigned *Out) {
  int Lane = threadIdx.x & 31;
  int G = blockIdx.x * blockDim.x + threadIdx.x;
  int Warp = G / 32;
  unsigned V = In[G];
  int S = int(V) - 5000;
  unsigned Full = 0xffffffffu;
  unsigned Add = __reduce_add_sync(Full, V);
  unsigned MinU = __reduce_min_sync(Full, V);
  unsigned MaxU = __reduce_max_sync(Full, V);
  int MinS = __reduce_min_sync(Full, S);
  int MaxS = __reduce_max_sync(Full, S);
  unsigned And = __reduce_and_sync(Full, V | 0x8000u);
  unsigned Or = __reduce_or_sync(Full, V & 0x0f0fu);
  unsigned Xor = __reduce_xor_sync(Full, V);
  unsigned EvenAdd = 0;
  if ((Lane & 1) == 0)
    EvenAdd = __reduce_add_sync(0x55555555u, V);
  if (Lane == 0) {
    unsigned *O = Out + Warp * 9;
    O[0] = Add;
    O[1] = MinU;
    O[2] = MaxU;
    O[3] = unsigned(MinS);
    O[4] = unsigned(MaxS);
    O[5] = And;
    O[6] = Or;
    O[7] = Xor;
    O[8] = EvenAdd;
  }
}

int main() {
  const int Warps = 256, N = Warps * 32;
  std::vector<unsigned> In(N), Out(Warps * 9);
  Lcg Rng(8);
  for (auto &V : In)
    V = Rng.below(10000);
  unsigned *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&DOut, Warps * 9 * sizeof(unsigned)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  warpStats<<<N / 256, 256>>>(DIn, DOut);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, Warps * 9 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int Bad[9] = {};
  unsigned long long Check = 0;
  for (int W = 0; W < Warps; ++W) {
    unsigned Want[9] = {0, ~0u, 0, 0, 0, ~0u, 0, 0, 0};
    int MinS = 1 << 30, MaxS = -(1 << 30);
    for (int L = 0; L < 32; ++L) {
      unsigned V = In[W * 32 + L];
      int S = int(V) - 5000;
      Want[0] += V;
      Want[1] = V < Want[1] ? V : Want[1];
      Want[2] = V > Want[2] ? V : Want[2];
      MinS = S < MinS ? S : MinS;
      MaxS = S > MaxS ? S : MaxS;
      Want[5] &= V | 0x8000u;
      Want[6] |= V & 0x0f0fu;
      Want[7] ^= V;
      if ((L & 1) == 0)
        Want[8] += V;
    }
    Want[3] = unsigned(MinS);
    Want[4] = unsigned(MaxS);
    for (int F = 0; F < 9; ++F) {
      Bad[F] += Out[W * 9 + F] != Want[F];
      Check = Check * 31 + Want[F];
    }
  }
  const char *Names[9] = {"add", "min u32", "max u32", "min s32", "max s32", "and", "or", "xor", "add even lanes"};
  int Total = 0;
  for (int F = 0; F < 9; ++F) {
    std::printf("reduce %-15s %s\n", Names[F], Bad[F] ? "MISMATCH" : "ok");
    Total += Bad[F];
  }
  std::printf("warps=%d checksum=%llu\n", Warps, Check);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return finish(Total == 0);
}
