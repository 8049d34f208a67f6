/// \file
/// Device-side heap: per-thread malloc/free of variable-sized scratch
/// buffers, a per-block buffer allocated by one thread and shared through a
/// __shared__ pointer, C++ new/delete of objects in device code, a request
/// the heap cannot satisfy (must return null), and the heap size limit.
#include "../common/app_util.h"
#include <vector>

struct Node {
  int Value;
  Node *Next;
};

__global__ void perThread(const int *Len, long long *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  int L = Len[I];
  int *Buf = (int *)malloc(L * sizeof(int));
  if (!Buf) {
    Out[I] = -1;
    return;
  }
  for (int K = 0; K < L; ++K)
    Buf[K] = (I + K) % 97;
  long long S = 0;
  for (int K = 0; K < L; ++K)
    S += Buf[K] * (K + 1);
  free(Buf);
  Out[I] = S;
}

__global__ void perBlock(int *Out) {
  __shared__ int *Shared;
  if (threadIdx.x == 0)
    Shared = (int *)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  if (!Shared)
    return;
  Shared[threadIdx.x] = threadIdx.x * blockIdx.x;
  __syncthreads();
  Out[blockIdx.x * blockDim.x + threadIdx.x] = Shared[blockDim.x - 1 - threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    free(Shared);
}

__global__ void linkedList(int *Sum, int *HugeWasNull) {
  if (threadIdx.x != 0)
    return;
  Node *Head = nullptr;
  for (int I = 1; I <= 100; ++I)
    Head = new Node{I * (int)(blockIdx.x + 1), Head};
  int S = 0;
  while (Head) {
    Node *Next = Head->Next;
    S += Head->Value;
    delete Head;
    Head = Next;
  }
  atomicAdd(Sum, S);
  if (blockIdx.x == 0) {
    void *Huge = malloc(size_t(1) << 40);
    *HugeWasNull = Huge == nullptr;
    free(Huge);
  }
}

int main() {
  const size_t Heap = 16 << 20;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, Heap));
  size_t Got = 0;
  CHECK(cudaDeviceGetLimit(&Got, cudaLimitMallocHeapSize));
  std::printf("heap limit at least 16 MiB: %s\n", Got >= Heap ? "yes" : "no");
  const int N = 4096;
  std::vector<int> Len(N);
  Lcg Rng(21);
  for (auto &L : Len)
    L = 1 + int(Rng.below(64));
  int *DLen;
  long long *DOut;
  CHECK(cudaMalloc(&DLen, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(long long)));
  CHECK(cudaMemcpy(DLen, Len.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  perThread<<<N / 128, 128>>>(DLen, DOut, N);
  CHECK(cudaGetLastError());
  std::vector<long long> Out(N);
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(long long), cudaMemcpyDeviceToHost));
  int Bad = 0;
  long long Total = 0;
  for (int I = 0; I < N; ++I) {
    long long S = 0;
    for (int K = 0; K < Len[I]; ++K)
      S += ((I + K) % 97) * (K + 1);
    Bad += Out[I] != S;
    Total += S;
  }
  std::printf("per-thread buffers: mismatches=%d total=%lld\n", Bad, Total);

  const int Blocks = 16, Threads = 128;
  int *DBlk;
  CHECK(cudaMalloc(&DBlk, Blocks * Threads * sizeof(int)));
  CHECK(cudaMemset(DBlk, 0xff, Blocks * Threads * sizeof(int)));
  perBlock<<<Blocks, Threads>>>(DBlk);
  CHECK(cudaGetLastError());
  std::vector<int> Blk(Blocks * Threads);
  CHECK(cudaMemcpy(Blk.data(), DBlk, Blk.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad2 = 0;
  for (int B = 0; B < Blocks; ++B)
    for (int T = 0; T < Threads; ++T)
      Bad2 += Blk[B * Threads + T] != (Threads - 1 - T) * B;
  std::printf("per-block shared buffer: mismatches=%d\n", Bad2);

  int *DSum, *DNull;
  CHECK(cudaMalloc(&DSum, sizeof(int)));
  CHECK(cudaMalloc(&DNull, sizeof(int)));
  CHECK(cudaMemset(DSum, 0, sizeof(int)));
  CHECK(cudaMemset(DNull, 0, sizeof(int)));
  linkedList<<<8, 32>>>(DSum, DNull);
  CHECK(cudaGetLastError());
  int Sum = 0, WasNull = 0;
  CHECK(cudaMemcpy(&Sum, DSum, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&WasNull, DNull, sizeof(int), cudaMemcpyDeviceToHost));
  int WantSum = 5050 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);
  std::printf("new/delete list sum=%d (want %d), oversized malloc returned null: %s\n", Sum, WantSum,
              WasNull ? "yes" : "no");
  CHECK(cudaFree(DLen));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DBlk));
  CHECK(cudaFree(DSum));
  CHECK(cudaFree(DNull));
  return finish(Bad == 0 && Bad2 == 0 && Sum == WantSum && WasNull);
}
