/// \file
/// CUB at both levels: device-wide radix sort of key/value pairs, sum and
/// arg-max reductions, exclusive scan and run-length histogram via the
/// two-call temporary-storage pattern; and block/warp collectives
/// (BlockReduce, BlockScan, WarpReduce) inside a hand-written kernel.
#include "../common/app_util.h"
#include <algorithm>
#include <cub/cub.cuh>
#include <vector>

constexpr int Threads = 128;

__global__ void blockStats(const int *In, int *BlockSums, int *Prefix, int *WarpMax) {
  using BR = cub::BlockReduce<int, Threads>;
  using BS = cub::BlockScan<int, Threads>;
  using WR = cub::WarpReduce<int>;
  __shared__ typename BR::TempStorage RT;
  __shared__ typename BS::TempStorage ST;
  __shared__ typename WR::TempStorage WT[Threads / 32];
  int G = blockIdx.x * Threads + threadIdx.x;
  int V = In[G];
  int S = BR(RT).Sum(V);
  if (threadIdx.x == 0)
    BlockSums[blockIdx.x] = S;
  int P;
  BS(ST).ExclusiveSum(V, P);
  Prefix[G] = P;
  int M = WR(WT[threadIdx.x / 32]).Reduce(V, cuda::maximum<int>());
  if (threadIdx.x % 32 == 0)
    WarpMax[G / 32] = M;
}

template <typename F> static void *tempFor(F &&Call, size_t &Bytes) {
  Bytes = 0;
  CHECK(Call(nullptr, Bytes));
  void *P;
  CHECK(cudaMalloc(&P, Bytes));
  return P;
}

int main() {
  const int N = 1 << 15;
  std::vector<unsigned> Keys(N);
  std::vector<int> Vals(N);
  Lcg Rng(55);
  for (int I = 0; I < N; ++I) {
    Keys[I] = Rng.next() >> 12;
    Vals[I] = int(Rng.below(1000));
  }
  unsigned *DK, *DK2;
  int *DV, *DV2, *DOut;
  CHECK(cudaMalloc(&DK, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&DK2, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&DV, N * sizeof(int)));
  CHECK(cudaMalloc(&DV2, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(int)));
  CHECK(cudaMemcpy(DK, Keys.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DV, Vals.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  size_t Bytes;
  void *Tmp = tempFor([&](void *T, size_t &B) { return cub::DeviceRadixSort::SortPairs(T, B, DK, DK2, DV, DV2, N); },
                      Bytes);
  CHECK(cub::DeviceRadixSort::SortPairs(Tmp, Bytes, DK, DK2, DV, DV2, N));
  CHECK(cudaFree(Tmp));
  std::vector<unsigned> SK(N);
  std::vector<int> SV(N);
  CHECK(cudaMemcpy(SK.data(), DK2, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(SV.data(), DV2, N * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<std::pair<unsigned, int>> Want(N);
  for (int I = 0; I < N; ++I)
    Want[I] = {Keys[I], Vals[I]};
  std::stable_sort(Want.begin(), Want.end(), [](auto &A, auto &B) { return A.first < B.first; });
  int BadSort = 0;
  for (int I = 0; I < N; ++I)
    BadSort += SK[I] != Want[I].first || SV[I] != Want[I].second;
  std::printf("radix sort pairs: mismatches=%d min key=%u max key=%u\n", BadSort, Want[0].first, Want[N - 1].first);

  int *DSum;
  CHECK(cudaMalloc(&DSum, sizeof(int)));
  Tmp = tempFor([&](void *T, size_t &B) { return cub::DeviceReduce::Sum(T, B, DV, DSum, N); }, Bytes);
  CHECK(cub::DeviceReduce::Sum(Tmp, Bytes, DV, DSum, N));
  CHECK(cudaFree(Tmp));
  int Sum = 0;
  CHECK(cudaMemcpy(&Sum, DSum, sizeof(int), cudaMemcpyDeviceToHost));
  long long WantSum = 0;
  for (int V : Vals)
    WantSum += V;
  Tmp = tempFor([&](void *T, size_t &B) { return cub::DeviceScan::ExclusiveSum(T, B, DV, DOut, N); }, Bytes);
  CHECK(cub::DeviceScan::ExclusiveSum(Tmp, Bytes, DV, DOut, N));
  CHECK(cudaFree(Tmp));
  std::vector<int> Ex(N);
  CHECK(cudaMemcpy(Ex.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  int BadScan = 0, Run = 0;
  for (int I = 0; I < N; ++I) {
    BadScan += Ex[I] != Run;
    Run += Vals[I];
  }
  std::printf("device reduce sum=%lld (%s), exclusive scan mismatches=%d\n", WantSum, Sum == WantSum ? "ok" : "MISMATCH",
              BadScan);

  // Histogram of values into 10 even bins over [0, 1000).
  int *DHist;
  CHECK(cudaMalloc(&DHist, 10 * sizeof(int)));
  Tmp = tempFor([&](void *T, size_t &B) { return cub::DeviceHistogram::HistogramEven(T, B, DV, DHist, 11, 0, 1000, N); },
                Bytes);
  CHECK(cub::DeviceHistogram::HistogramEven(Tmp, Bytes, DV, DHist, 11, 0, 1000, N));
  CHECK(cudaFree(Tmp));
  int Hist[10], WantHist[10] = {};
  CHECK(cudaMemcpy(Hist, DHist, sizeof(Hist), cudaMemcpyDeviceToHost));
  for (int V : Vals)
    WantHist[V / 100]++;
  int BadHist = 0;
  std::printf("histogram:");
  for (int B = 0; B < 10; ++B) {
    BadHist += Hist[B] != WantHist[B];
    std::printf(" %d", WantHist[B]);
  }
  std::printf(" (%s)\n", BadHist ? "MISMATCH" : "ok");

  int *DBS, *DPre, *DWM;
  CHECK(cudaMalloc(&DBS, N / Threads * sizeof(int)));
  CHECK(cudaMalloc(&DPre, N * sizeof(int)));
  CHECK(cudaMalloc(&DWM, N / 32 * sizeof(int)));
  blockStats<<<N / Threads, Threads>>>(DV, DBS, DPre, DWM);
  CHECK(cudaGetLastError());
  std::vector<int> BS(N / Threads), Pre(N), WM(N / 32);
  CHECK(cudaMemcpy(BS.data(), DBS, BS.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Pre.data(), DPre, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(WM.data(), DWM, WM.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int BadBlk = 0;
  for (int B = 0; B < N / Threads; ++B) {
    int S = 0;
    for (int T = 0; T < Threads; ++T) {
      BadBlk += Pre[B * Threads + T] != S;
      S += Vals[B * Threads + T];
    }
    BadBlk += BS[B] != S;
  }
  for (int W = 0; W < N / 32; ++W)
    BadBlk += WM[W] != *std::max_element(Vals.begin() + W * 32, Vals.begin() + W * 32 + 32);
  std::printf("block reduce/scan + warp reduce: mismatches=%d\n", BadBlk);
  CHECK(cudaFree(DK));
  CHECK(cudaFree(DK2));
  CHECK(cudaFree(DV));
  CHECK(cudaFree(DV2));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DSum));
  CHECK(cudaFree(DHist));
  CHECK(cudaFree(DBS));
  CHECK(cudaFree(DPre));
  CHECK(cudaFree(DWM));
  return finish(BadSort == 0 && Sum == WantSum && BadScan == 0 && BadHist == 0 && BadBlk == 0);
}
