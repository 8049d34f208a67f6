/// \file
/// Stream compaction by prefix sum, the standard GPU pattern: flag the
/// elements to keep, exclusive-scan the flags (warp ballots + per-block
/// scan + block offsets), and scatter kept elements to their scanned
/// positions. The output keeps the input order, so it is deterministic.
#include "../common/app_util.h"
#include <vector>

constexpr int T = 256;

struct Particle {
  float X, Y, Energy;
  int Id;
};

// Per-block count of survivors, via one ballot per warp.
__global__ void countKeep(const Particle *P, int N, float Cut, int *BlockCount) {
  __shared__ int WarpCount[T / 32];
  int I = blockIdx.x * T + threadIdx.x;
  bool Keep = I < N && P[I].Energy > Cut;
  unsigned Ballot = __ballot_sync(0xffffffffu, Keep);
  if ((threadIdx.x & 31) == 0)
    WarpCount[threadIdx.x / 32] = __popc(Ballot);
  __syncthreads();
  if (threadIdx.x == 0) {
    int S = 0;
    for (int W = 0; W < T / 32; ++W)
      S += WarpCount[W];
    BlockCount[blockIdx.x] = S;
  }
}

// Single-block exclusive scan of the block counts (Blocks <= 1024).
__global__ void scanCounts(int *Counts, int Blocks, int *Total) {
  __shared__ int S[1024];
  int I = threadIdx.x;
  S[I] = I < Blocks ? Counts[I] : 0;
  __syncthreads();
  for (int D = 1; D < 1024; D <<= 1) { // Hillis-Steele inclusive scan
    int V = I >= D ? S[I - D] : 0;
    __syncthreads();
    S[I] += V;
    __syncthreads();
  }
  if (I < Blocks)
    Counts[I] = I ? S[I - 1] : 0;
  if (I == 1023)
    *Total = S[1023];
}

__global__ void scatterKeep(const Particle *P, int N, float Cut, const int *Offsets, Particle *Out) {
  __shared__ int WarpBase[T / 32];
  int I = blockIdx.x * T + threadIdx.x, Lane = threadIdx.x & 31;
  bool Keep = I < N && P[I].Energy > Cut;
  unsigned Ballot = __ballot_sync(0xffffffffu, Keep);
  if (Lane == 0)
    WarpBase[threadIdx.x / 32] = __popc(Ballot);
  __syncthreads();
  if (threadIdx.x == 0) {
    int S = 0;
    for (int W = 0; W < T / 32; ++W) {
      int C = WarpBase[W];
      WarpBase[W] = S;
      S += C;
    }
  }
  __syncthreads();
  if (Keep) {
    int Pos = Offsets[blockIdx.x] + WarpBase[threadIdx.x / 32] + __popc(Ballot & ((1u << Lane) - 1));
    Out[Pos] = P[I];
  }
}

int main() {
  const int N = 200000, Blocks = (N + T - 1) / T;
  const float Cut = 0.7f;
  std::vector<Particle> P(N);
  Lcg Rng(2718);
  for (int I = 0; I < N; ++I)
    P[I] = {Rng.range(-1, 1), Rng.range(-1, 1), Rng.uniform(), I};
  Particle *DP, *DOut;
  int *DCounts, *DTotal;
  CHECK(cudaMalloc(&DP, N * sizeof(Particle)));
  CHECK(cudaMalloc(&DOut, N * sizeof(Particle)));
  CHECK(cudaMalloc(&DCounts, Blocks * sizeof(int)));
  CHECK(cudaMalloc(&DTotal, sizeof(int)));
  CHECK(cudaMemcpy(DP, P.data(), N * sizeof(Particle), cudaMemcpyHostToDevice));
  countKeep<<<Blocks, T>>>(DP, N, Cut, DCounts);
  scanCounts<<<1, 1024>>>(DCounts, Blocks, DTotal);
  scatterKeep<<<Blocks, T>>>(DP, N, Cut, DCounts, DOut);
  CHECK(cudaGetLastError());
  int Total = 0;
  CHECK(cudaMemcpy(&Total, DTotal, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<Particle> Want;
  for (auto &Q : P)
    if (Q.Energy > Cut)
      Want.push_back(Q);
  int Bad = Total != int(Want.size());
  std::vector<Particle> Got(Want.size());
  if (!Bad) {
    CHECK(cudaMemcpy(Got.data(), DOut, Want.size() * sizeof(Particle), cudaMemcpyDeviceToHost));
    for (size_t I = 0; I < Want.size(); ++I)
      Bad += Got[I].Id != Want[I].Id || Got[I].Energy != Want[I].Energy || Got[I].X != Want[I].X;
  }
  long long IdSum = 0;
  for (auto &Q : Want)
    IdSum += Q.Id;
  std::printf("compaction n=%d kept=%d first id=%d last id=%d id sum=%lld mismatches=%d\n", N, int(Want.size()),
              Want.front().Id, Want.back().Id, IdSum, Bad);
  CHECK(cudaFree(DP));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DCounts));
  CHECK(cudaFree(DTotal));
  return finish(Bad == 0);
}
