/// \file
/// Work-efficient (Blelloch) exclusive prefix sum over 1M integers in three
/// passes: per-block up-sweep/down-sweep in shared memory (with padding
/// against bank conflicts), a recursive scan of the block sums, and a
/// uniform add.
#include "../common/app_util.h"
#include <vector>

constexpr int BlockThreads = 256, Elems = 2 * BlockThreads;
#define PAD(I) ((I) + ((I) >> 5))

__global__ void blockScan(const int *In, int *Out, int *Sums, int N) {
  __shared__ int T[PAD(Elems) + 1];
  int Base = blockIdx.x * Elems, Tid = threadIdx.x;
  int A = Tid, B = Tid + BlockThreads;
  T[PAD(A)] = Base + A < N ? In[Base + A] : 0;
  T[PAD(B)] = Base + B < N ? In[Base + B] : 0;
  int Off = 1;
  for (int D = Elems >> 1; D > 0; D >>= 1) {
    __syncthreads();
    if (Tid < D) {
      int AI = Off * (2 * Tid + 1) - 1, BI = Off * (2 * Tid + 2) - 1;
      T[PAD(BI)] += T[PAD(AI)];
    }
    Off <<= 1;
  }
  if (Tid == 0) {
    if (Sums)
      Sums[blockIdx.x] = T[PAD(Elems - 1)];
    T[PAD(Elems - 1)] = 0;
  }
  for (int D = 1; D < Elems; D <<= 1) {
    Off >>= 1;
    __syncthreads();
    if (Tid < D) {
      int AI = Off * (2 * Tid + 1) - 1, BI = Off * (2 * Tid + 2) - 1;
      int Tmp = T[PAD(AI)];
      T[PAD(AI)] = T[PAD(BI)];
      T[PAD(BI)] += Tmp;
    }
  }
  __syncthreads();
  if (Base + A < N)
    Out[Base + A] = T[PAD(A)];
  if (Base + B < N)
    Out[Base + B] = T[PAD(B)];
}

__global__ void addOffsets(int *Data, const int *Offsets, int N) {
  int I = blockIdx.x * Elems + threadIdx.x;
  int O = Offsets[blockIdx.x];
  if (I < N)
    Data[I] += O;
  if (I + BlockThreads < N)
    Data[I + BlockThreads] += O;
}

static void scanDevice(const int *In, int *Out, int N) {
  int Blocks = (N + Elems - 1) / Elems;
  if (Blocks == 1) {
    blockScan<<<1, BlockThreads>>>(In, Out, nullptr, N);
    return;
  }
  int *Sums, *SumsScanned;
  CHECK(cudaMalloc(&Sums, Blocks * sizeof(int)));
  CHECK(cudaMalloc(&SumsScanned, Blocks * sizeof(int)));
  blockScan<<<Blocks, BlockThreads>>>(In, Out, Sums, N);
  scanDevice(Sums, SumsScanned, Blocks);
  addOffsets<<<Blocks, BlockThreads>>>(Out, SumsScanned, N);
  CHECK(cudaFree(Sums));
  CHECK(cudaFree(SumsScanned));
}

int main() {
  const int N = 1000000;
  std::vector<int> In(N), Out(N);
  Lcg Rng(10);
  for (auto &V : In)
    V = int(Rng.below(100));
  int *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  scanDevice(DIn, DOut, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad = 0, Run = 0;
  for (int I = 0; I < N; ++I) {
    Bad += Out[I] != Run;
    Run += In[I];
  }
  std::printf("exclusive scan n=%d total=%d out[12345]=%d mismatches=%d\n", N, Run, Out[12345], Bad);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return finish(Bad == 0);
}
