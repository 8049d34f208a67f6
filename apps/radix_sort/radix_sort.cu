/// \file
/// LSD radix sort of 32-bit keys with 32-bit payloads, 4 bits per pass:
/// per-block digit histograms, a column-major exclusive scan of all block
/// histograms (so the sort is stable), and a scatter that ranks each element
/// within its block using shared memory.
#include "../common/app_util.h"
#include <algorithm>
#include <vector>

constexpr int Threads = 256, Radix = 16;

__global__ void digitCounts(const unsigned *Keys, int N, int Shift, unsigned *Counts) {
  __shared__ unsigned C[Radix];
  if (threadIdx.x < Radix)
    C[threadIdx.x] = 0;
  __syncthreads();
  int I = blockIdx.x * Threads + threadIdx.x;
  if (I < N)
    atomicAdd(&C[(Keys[I] >> Shift) & (Radix - 1)], 1u);
  __syncthreads();
  // Column-major: all blocks' counts of digit 0, then of digit 1, ...
  if (threadIdx.x < Radix)
    Counts[threadIdx.x * gridDim.x + blockIdx.x] = C[threadIdx.x];
}

// Single-block exclusive scan of a small array (Radix * blocks entries).
__global__ void scanCounts(unsigned *Counts, int M) {
  __shared__ unsigned Part[Threads];
  int Per = (M + Threads - 1) / Threads, Lo = threadIdx.x * Per, Hi = min(Lo + Per, M);
  unsigned S = 0;
  for (int I = Lo; I < Hi; ++I)
    S += Counts[I];
  Part[threadIdx.x] = S;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned Run = 0;
    for (int T = 0; T < Threads; ++T) {
      unsigned V = Part[T];
      Part[T] = Run;
      Run += V;
    }
  }
  __syncthreads();
  unsigned Run = Part[threadIdx.x];
  for (int I = Lo; I < Hi; ++I) {
    unsigned V = Counts[I];
    Counts[I] = Run;
    Run += V;
  }
}

__global__ void scatter(const unsigned *Keys, const unsigned *Vals, unsigned *OutK, unsigned *OutV, int N, int Shift,
                        const unsigned *Offsets) {
  __shared__ unsigned char Digits[Threads];
  int I = blockIdx.x * Threads + threadIdx.x;
  unsigned D = I < N ? (Keys[I] >> Shift) & (Radix - 1) : 0xff;
  Digits[threadIdx.x] = (unsigned char)D;
  __syncthreads();
  if (I < N) {
    // Rank among earlier threads of this block with the same digit (stable).
    unsigned Rank = 0;
    for (int T = 0; T < (int)threadIdx.x; ++T)
      Rank += Digits[T] == D;
    unsigned Pos = Offsets[D * gridDim.x + blockIdx.x] + Rank;
    OutK[Pos] = Keys[I];
    OutV[Pos] = Vals[I];
  }
}

int main() {
  const int N = 1 << 16, Blocks = N / Threads;
  std::vector<unsigned> Keys(N), Vals(N);
  Lcg Rng(123);
  for (int I = 0; I < N; ++I) {
    Keys[I] = Rng.next();
    Vals[I] = I;
  }
  unsigned *K0, *K1, *V0, *V1, *Counts;
  CHECK(cudaMalloc(&K0, N * 4));
  CHECK(cudaMalloc(&K1, N * 4));
  CHECK(cudaMalloc(&V0, N * 4));
  CHECK(cudaMalloc(&V1, N * 4));
  CHECK(cudaMalloc(&Counts, Radix * Blocks * 4));
  CHECK(cudaMemcpy(K0, Keys.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(V0, Vals.data(), N * 4, cudaMemcpyHostToDevice));
  for (int Shift = 0; Shift < 32; Shift += 4) {
    digitCounts<<<Blocks, Threads>>>(K0, N, Shift, Counts);
    scanCounts<<<1, Threads>>>(Counts, Radix * Blocks);
    scatter<<<Blocks, Threads>>>(K0, V0, K1, V1, N, Shift, Counts);
    std::swap(K0, K1);
    std::swap(V0, V1);
  }
  CHECK(cudaGetLastError());
  std::vector<unsigned> SK(N), SV(N);
  CHECK(cudaMemcpy(SK.data(), K0, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(SV.data(), V0, N * 4, cudaMemcpyDeviceToHost));
  std::vector<std::pair<unsigned, unsigned>> Want(N);
  for (int I = 0; I < N; ++I)
    Want[I] = {Keys[I], Vals[I]};
  std::stable_sort(Want.begin(), Want.end(), [](auto &A, auto &B) { return A.first < B.first; });
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    Bad += SK[I] != Want[I].first || SV[I] != Want[I].second;
  std::printf("radix sort n=%d passes=8 min=%08x median=%08x max=%08x mismatches=%d\n", N, Want[0].first,
              Want[N / 2].first, Want[N - 1].first, Bad);
  CHECK(cudaFree(K0));
  CHECK(cudaFree(K1));
  CHECK(cudaFree(V0));
  CHECK(cudaFree(V1));
  CHECK(cudaFree(Counts));
  return finish(Bad == 0);
}
