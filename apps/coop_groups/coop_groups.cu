/// \file
/// Cooperative groups inside a block: thread_block sync, static tiles of 32
/// and 8 with their shuffles, cg::reduce and cg::inclusive_scan over tiles,
/// a dynamic partition, and warp-aggregated atomics with coalesced_threads()
/// to compact the elements that pass a filter.
#include "../common/app_util.h"
#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void tileWork(const int *In, int *TileSum32, int *TileMax8, int *Scan8, int *BlockSum, int *Part4) {
  cg::thread_block Block = cg::this_thread_block();
  int G = blockIdx.x * blockDim.x + threadIdx.x;
  int V = In[G];
  cg::thread_block_tile<32> Warp = cg::tiled_partition<32>(Block);
  cg::thread_block_tile<8> Oct = cg::tiled_partition<8>(Block);
  int S = cg::reduce(Warp, V, cg::plus<int>());
  if (Warp.thread_rank() == 0)
    TileSum32[G / 32] = S;
  int M = V;
  for (int D = Oct.size() / 2; D > 0; D /= 2)
    M = max(M, Oct.shfl_down(M, D));
  if (Oct.thread_rank() == 0)
    TileMax8[G / 8] = M;
  Scan8[G] = cg::inclusive_scan(Oct, V);
  __shared__ int Acc;
  if (Block.thread_rank() == 0)
    Acc = 0;
  Block.sync();
  atomicAdd(&Acc, V);
  Block.sync();
  if (Block.thread_rank() == 0)
    BlockSum[blockIdx.x] = Acc;
  cg::thread_group Quad = cg::tiled_partition(Block, 4);
  __shared__ int QuadBuf[256];
  QuadBuf[threadIdx.x] = V;
  Quad.sync();
  // Each thread adds its quad's first element (thread_rank 0 of its group).
  int Base = threadIdx.x - Quad.thread_rank();
  Part4[G] = V + QuadBuf[Base] * (int)Quad.size();
}

__global__ void filterPositive(const int *In, int N, int *Out, int *Count) {
  int G = blockIdx.x * blockDim.x + threadIdx.x;
  if (G < N && In[G] % 3 == 0) {
    cg::coalesced_group Active = cg::coalesced_threads();
    int Slot = 0;
    if (Active.thread_rank() == 0)
      Slot = atomicAdd(Count, (int)Active.size());
    Slot = Active.shfl(Slot, 0) + Active.thread_rank();
    Out[Slot] = In[G];
  }
}

int main() {
  const int N = 1 << 14;
  std::vector<int> In(N);
  Lcg Rng(31);
  for (auto &V : In)
    V = int(Rng.below(1000));
  int *DIn, *DSum32, *DMax8, *DScan8, *DBlock, *DPart4, *DOut, *DCount;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DSum32, N / 32 * sizeof(int)));
  CHECK(cudaMalloc(&DMax8, N / 8 * sizeof(int)));
  CHECK(cudaMalloc(&DScan8, N * sizeof(int)));
  CHECK(cudaMalloc(&DBlock, N / 256 * sizeof(int)));
  CHECK(cudaMalloc(&DPart4, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(int)));
  CHECK(cudaMalloc(&DCount, sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DCount, 0, sizeof(int)));
  tileWork<<<N / 256, 256>>>(DIn, DSum32, DMax8, DScan8, DBlock, DPart4);
  CHECK(cudaGetLastError());
  filterPositive<<<N / 256, 256>>>(DIn, N, DOut, DCount);
  CHECK(cudaGetLastError());
  std::vector<int> Sum32(N / 32), Max8(N / 8), Scan8(N), Block(N / 256), Part4(N), Out(N);
  int Count = 0;
  CHECK(cudaMemcpy(Sum32.data(), DSum32, Sum32.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Max8.data(), DMax8, Max8.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Scan8.data(), DScan8, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Block.data(), DBlock, Block.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Part4.data(), DPart4, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&Count, DCount, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad[5] = {};
  for (int T = 0; T < N / 32; ++T) {
    int S = 0;
    for (int K = 0; K < 32; ++K)
      S += In[T * 32 + K];
    Bad[0] += Sum32[T] != S;
  }
  for (int T = 0; T < N / 8; ++T) {
    int M = 0, S = 0;
    for (int K = 0; K < 8; ++K) {
      M = std::max(M, In[T * 8 + K]);
      S += In[T * 8 + K];
      Bad[2] += Scan8[T * 8 + K] != S;
    }
    Bad[1] += Max8[T] != M;
  }
  for (int B = 0; B < N / 256; ++B) {
    int S = 0;
    for (int K = 0; K < 256; ++K)
      S += In[B * 256 + K];
    Bad[3] += Block[B] != S;
  }
  for (int I = 0; I < N; ++I)
    Bad[4] += Part4[I] != In[I] + In[I & ~3] * 4;
  std::printf("tile<32> reduce: %s\ntile<8> shfl_down max: %s\ntile<8> inclusive_scan: %s\n",
              Bad[0] ? "MISMATCH" : "ok", Bad[1] ? "MISMATCH" : "ok", Bad[2] ? "MISMATCH" : "ok");
  std::printf("block sync + shared atomics: %s\ndynamic partition(4): %s\n", Bad[3] ? "MISMATCH" : "ok",
              Bad[4] ? "MISMATCH" : "ok");
  // Compaction order depends on scheduling: compare sorted.
  std::vector<int> Want;
  for (int V : In)
    if (V % 3 == 0)
      Want.push_back(V);
  Out.resize(Count > 0 && Count <= N ? Count : 0);
  std::sort(Out.begin(), Out.end());
  std::sort(Want.begin(), Want.end());
  bool CompactOk = Out == Want;
  long long WantSum = 0;
  for (int V : Want)
    WantSum += V;
  std::printf("coalesced compaction: count=%d sum=%lld %s\n", int(Want.size()), WantSum, CompactOk ? "ok" : "MISMATCH");
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DSum32));
  CHECK(cudaFree(DMax8));
  CHECK(cudaFree(DScan8));
  CHECK(cudaFree(DBlock));
  CHECK(cudaFree(DPart4));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DCount));
  return finish(Bad[0] + Bad[1] + Bad[2] + Bad[3] + Bad[4] == 0 && CompactOk);
}
