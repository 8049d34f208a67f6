/// \file
/// Shared memory three ways: a fixed-size __shared__ tile (1D box blur with
/// halo), an extern dynamic buffer sized at launch, and a dynamic buffer
/// above the 48 KiB default that needs cudaFuncSetAttribute first.
#include "../common/app_util.h"
#include <vector>

constexpr int Tile = 256, Radius = 4;

__global__ void boxBlur(const int *In, int *Out, int N) {
  __shared__ int Buf[Tile + 2 * Radius];
  int G = blockIdx.x * Tile + threadIdx.x;
  Buf[threadIdx.x + Radius] = G < N ? In[G] : 0;
  if (threadIdx.x < Radius) {
    int L = G - Radius, R = G + Tile;
    Buf[threadIdx.x] = L >= 0 && L < N ? In[L] : 0;
    Buf[threadIdx.x + Tile + Radius] = R < N ? In[R] : 0;
  }
  __syncthreads();
  if (G < N) {
    int S = 0;
    for (int K = -Radius; K <= Radius; ++K)
      S += Buf[threadIdx.x + Radius + K];
    Out[G] = S;
  }
}

// Sums each block's slice with a tree in dynamic shared memory of
// blockDim.x ints, then also reverses the slice through the same buffer.
__global__ void dynReduceReverse(const int *In, int *Sums, int *Rev) {
  extern __shared__ int Dyn[];
  int T = threadIdx.x, G = blockIdx.x * blockDim.x + T;
  Dyn[T] = In[G];
  __syncthreads();
  Rev[G] = Dyn[blockDim.x - 1 - T];
  __syncthreads();
  for (int S = blockDim.x / 2; S > 0; S >>= 1) {
    if (T < S)
      Dyn[T] += Dyn[T + S];
    __syncthreads();
  }
  if (T == 0)
    Sums[blockIdx.x] = Dyn[0];
}

// Uses 64 KiB of dynamic shared memory as a per-block histogram of 16-bit keys.
__global__ void bigHistogram(const unsigned short *Keys, int N, unsigned *Out) {
  extern __shared__ unsigned Hist[]; // 16384 bins
  for (int I = threadIdx.x; I < 16384; I += blockDim.x)
    Hist[I] = 0;
  __syncthreads();
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    atomicAdd(&Hist[Keys[I] & 16383], 1u);
  __syncthreads();
  for (int I = threadIdx.x; I < 16384; I += blockDim.x)
    if (Hist[I])
      atomicAdd(&Out[I], Hist[I]);
}

int main() {
  const int N = 1 << 15;
  std::vector<int> In(N), Out(N);
  Lcg Rng(5);
  for (auto &V : In)
    V = int(Rng.below(1000));
  int *DIn, *DOut, *DSums, *DRev;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(int)));
  CHECK(cudaMalloc(&DRev, N * sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  boxBlur<<<N / Tile, Tile>>>(DIn, DOut, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (int I = 0; I < N; ++I) {
    int S = 0;
    for (int K = -Radius; K <= Radius; ++K)
      S += (I + K >= 0 && I + K < N) ? In[I + K] : 0;
    Bad += Out[I] != S;
  }
  cudaFuncAttributes FA;
  CHECK(cudaFuncGetAttributes(&FA, boxBlur));
  std::printf("static tile: mismatches=%d static shared bytes=%zu\n", Bad, FA.sharedSizeBytes);

  const int Block = 512, Blocks = N / Block;
  CHECK(cudaMalloc(&DSums, Blocks * sizeof(int)));
  dynReduceReverse<<<Blocks, Block, Block * sizeof(int)>>>(DIn, DSums, DRev);
  CHECK(cudaGetLastError());
  std::vector<int> Sums(Blocks), Rev(N);
  CHECK(cudaMemcpy(Sums.data(), DSums, Blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Rev.data(), DRev, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad2 = 0;
  long long Total = 0;
  for (int B = 0; B < Blocks; ++B) {
    int S = 0;
    for (int T = 0; T < Block; ++T) {
      S += In[B * Block + T];
      Bad2 += Rev[B * Block + T] != In[B * Block + Block - 1 - T];
    }
    Bad2 += Sums[B] != S;
    Total += S;
  }
  std::printf("dynamic reduce+reverse: mismatches=%d total=%lld\n", Bad2, Total);

  const int Big = 16384 * sizeof(unsigned);
  CHECK(cudaFuncSetAttribute(bigHistogram, cudaFuncAttributeMaxDynamicSharedMemorySize, Big));
  std::vector<unsigned short> Keys(N);
  for (auto &K : Keys)
    K = (unsigned short)(Rng.below(16384) & Rng.below(16384));
  unsigned short *DKeys;
  unsigned *DHist;
  CHECK(cudaMalloc(&DKeys, N * sizeof(unsigned short)));
  CHECK(cudaMalloc(&DHist, 16384 * sizeof(unsigned)));
  CHECK(cudaMemset(DHist, 0, 16384 * sizeof(unsigned)));
  CHECK(cudaMemcpy(DKeys, Keys.data(), N * sizeof(unsigned short), cudaMemcpyHostToDevice));
  bigHistogram<<<8, 256, Big>>>(DKeys, N, DHist);
  CHECK(cudaGetLastError());
  std::vector<unsigned> Hist(16384), Want(16384, 0);
  CHECK(cudaMemcpy(Hist.data(), DHist, 16384 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (auto K : Keys)
    Want[K & 16383]++;
  int Bad3 = 0;
  unsigned MaxBin = 0;
  for (int I = 0; I < 16384; ++I) {
    Bad3 += Hist[I] != Want[I];
    MaxBin = Want[I] > MaxBin ? Want[I] : MaxBin;
  }
  std::printf("64 KiB dynamic histogram: mismatches=%d bin0=%u max bin=%u\n", Bad3, Want[0], MaxBin);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DRev));
  CHECK(cudaFree(DSums));
  CHECK(cudaFree(DKeys));
  CHECK(cudaFree(DHist));
  return finish(Bad == 0 && Bad2 == 0 && Bad3 == 0);
}
