/// \file
/// Monte Carlo estimate of pi: every thread runs its own 32-bit xorshift
/// generator seeded from its global index, draws 256 points on a 2^15 x 2^15
/// integer grid and counts those inside the quarter circle; a block
/// reduction in shared memory and one atomic per block give the total. The
/// CPU replays the same generators, so the count matches exactly.
#include "../common/app_util.h"
#include <vector>

constexpr int Samples = 256, Threads = 256, Blocks = 64;

__host__ __device__ inline unsigned xorshift(unsigned &S) {
  S ^= S << 13;
  S ^= S >> 17;
  S ^= S << 5;
  return S;
}

__host__ __device__ inline unsigned seedFor(unsigned Tid) { return (Tid + 1) * 2654435761u ^ 0x9e3779b9u; }

__global__ void countInside(unsigned long long *Total) {
  __shared__ unsigned Part[Threads];
  unsigned Tid = blockIdx.x * blockDim.x + threadIdx.x, S = seedFor(Tid), In = 0;
  for (int K = 0; K < Samples; ++K) {
    unsigned X = xorshift(S) >> 17, Y = xorshift(S) >> 17; // 15-bit coordinates
    In += X * X + Y * Y < (1u << 30);
  }
  Part[threadIdx.x] = In;
  __syncthreads();
  for (int D = Threads / 2; D > 0; D >>= 1) {
    if (threadIdx.x < D)
      Part[threadIdx.x] += Part[threadIdx.x + D];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(Total, (unsigned long long)Part[0]);
}

int main() {
  unsigned long long *DTotal;
  CHECK(cudaMalloc(&DTotal, sizeof(unsigned long long)));
  CHECK(cudaMemset(DTotal, 0, sizeof(unsigned long long)));
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  CHECK(cudaEventRecord(A));
  countInside<<<Blocks, Threads>>>(DTotal);
  CHECK(cudaEventRecord(B));
  CHECK(cudaGetLastError());
  CHECK(cudaEventSynchronize(B));
  float Ms = 0;
  CHECK(cudaEventElapsedTime(&Ms, A, B));
  unsigned long long Got = 0;
  CHECK(cudaMemcpy(&Got, DTotal, sizeof(Got), cudaMemcpyDeviceToHost));
  unsigned long long Want = 0;
  for (unsigned Tid = 0; Tid < unsigned(Blocks * Threads); ++Tid) {
    unsigned S = seedFor(Tid);
    for (int K = 0; K < Samples; ++K) {
      unsigned X = xorshift(S) >> 17, Y = xorshift(S) >> 17;
      Want += X * X + Y * Y < (1u << 30);
    }
  }
  unsigned long long Total = (unsigned long long)Blocks * Threads * Samples;
  std::printf("samples=%llu inside=%llu (%s) pi~%.5f\n", Total, Want, Got == Want ? "ok" : "MISMATCH",
              4.0 * double(Want) / double(Total));
  std::printf("time: kernel %.3f ms\n", Ms);
  CHECK(cudaEventDestroy(A));
  CHECK(cudaEventDestroy(B));
  CHECK(cudaFree(DTotal));
  return finish(Got == Want);
}
