/// \file
/// Parallel reduction in the successive versions of the well-known CUDA
/// optimisation tutorial: interleaved addressing with divergence, sequential
/// addressing, first add during load, unrolled last warp, and a
/// grid-stride loop with warp shuffles; each sums 1M integers and finds the
/// minimum of 1M doubles exactly.
#include "../common/app_util.h"
#include <vector>

constexpr int T = 256;

__global__ void r1(const int *In, long long *Out, int N) { // interleaved, divergent
  __shared__ long long S[T];
  int I = blockIdx.x * T + threadIdx.x;
  S[threadIdx.x] = I < N ? In[I] : 0;
  __syncthreads();
  for (int D = 1; D < T; D *= 2) {
    if (threadIdx.x % (2 * D) == 0)
      S[threadIdx.x] += S[threadIdx.x + D];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd((unsigned long long *)Out, (unsigned long long)S[0]);
}

__global__ void r2(const int *In, long long *Out, int N) { // sequential addressing
  __shared__ long long S[T];
  int I = blockIdx.x * T + threadIdx.x;
  S[threadIdx.x] = I < N ? In[I] : 0;
  __syncthreads();
  for (int D = T / 2; D > 0; D >>= 1) {
    if (threadIdx.x < D)
      S[threadIdx.x] += S[threadIdx.x + D];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd((unsigned long long *)Out, (unsigned long long)S[0]);
}

// The last warp without __syncthreads; each step reads, syncs the warp,
// then writes, so it is also correct under independent thread scheduling.
__device__ void warpReduce(volatile long long *S, int Tid) {
  for (int D = 32; D > 0; D >>= 1) {
    long long V = S[Tid] + S[Tid + D];
    __syncwarp();
    S[Tid] = V;
    __syncwarp();
  }
}

__global__ void r3(const int *In, long long *Out, int N) { // add during load + unrolled warp
  __shared__ long long S[T];
  int I = blockIdx.x * 2 * T + threadIdx.x;
  S[threadIdx.x] = (I < N ? In[I] : 0) + (I + T < N ? In[I + T] : 0);
  __syncthreads();
  for (int D = T / 2; D > 32; D >>= 1) {
    if (threadIdx.x < D)
      S[threadIdx.x] += S[threadIdx.x + D];
    __syncthreads();
  }
  if (threadIdx.x < 32)
    warpReduce(S, threadIdx.x);
  if (threadIdx.x == 0)
    atomicAdd((unsigned long long *)Out, (unsigned long long)S[0]);
}

__global__ void r4(const int *In, long long *Out, int N) { // grid-stride + shuffles
  long long V = 0;
  for (int I = blockIdx.x * T + threadIdx.x; I < N; I += gridDim.x * T)
    V += In[I];
  for (int D = 16; D > 0; D >>= 1)
    V += __shfl_down_sync(0xffffffffu, V, D);
  __shared__ long long W[T / 32];
  if ((threadIdx.x & 31) == 0)
    W[threadIdx.x / 32] = V;
  __syncthreads();
  if (threadIdx.x < 32) {
    V = threadIdx.x < T / 32 ? W[threadIdx.x] : 0;
    for (int D = 16; D > 0; D >>= 1)
      V += __shfl_down_sync(0xffffffffu, V, D);
    if (threadIdx.x == 0)
      atomicAdd((unsigned long long *)Out, (unsigned long long)V);
  }
}

__device__ double atomicMinD(double *A, double V) {
  unsigned long long *P = (unsigned long long *)A, Old = *P, Seen;
  while (V < __longlong_as_double(Old)) {
    Seen = Old;
    Old = atomicCAS(P, Seen, __double_as_longlong(V));
    if (Old == Seen)
      break;
  }
  return __longlong_as_double(Old);
}

__global__ void minD(const double *In, double *Out, int N) {
  double M = 1e300;
  for (int I = blockIdx.x * T + threadIdx.x; I < N; I += gridDim.x * T)
    M = fmin(M, In[I]);
  for (int D = 16; D > 0; D >>= 1)
    M = fmin(M, __shfl_xor_sync(0xffffffffu, M, D));
  if ((threadIdx.x & 31) == 0)
    atomicMinD(Out, M);
}

int main() {
  const int N = 1 << 20;
  std::vector<int> In(N);
  std::vector<double> D(N);
  Lcg Rng(1000);
  long long Want = 0;
  double WantMin = 1e300;
  for (int I = 0; I < N; ++I) {
    In[I] = int(Rng.below(2000001)) - 1000000;
    Want += In[I];
    D[I] = std::sin(double(I)) * 1000.0 + Rng.uniform();
    WantMin = std::fmin(WantMin, D[I]);
  }
  int *DIn;
  long long *DOut;
  double *DD, *DMin;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, sizeof(long long)));
  CHECK(cudaMalloc(&DD, N * sizeof(double)));
  CHECK(cudaMalloc(&DMin, sizeof(double)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DD, D.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  int Bad = 0;
  for (int K = 1; K <= 4; ++K) {
    CHECK(cudaMemset(DOut, 0, sizeof(long long)));
    switch (K) {
    case 1: r1<<<N / T, T>>>(DIn, DOut, N); break;
    case 2: r2<<<N / T, T>>>(DIn, DOut, N); break;
    case 3: r3<<<N / (2 * T), T>>>(DIn, DOut, N); break;
    default: r4<<<120, T>>>(DIn, DOut, N); break;
    }
    CHECK(cudaGetLastError());
    long long Got = 0;
    CHECK(cudaMemcpy(&Got, DOut, sizeof(Got), cudaMemcpyDeviceToHost));
    std::printf("reduce%d sum=%lld %s\n", K, Want, Got == Want ? "ok" : "MISMATCH");
    Bad += Got != Want;
  }
  double Init = 1e300, GotMin = 0;
  CHECK(cudaMemcpy(DMin, &Init, sizeof(double), cudaMemcpyHostToDevice));
  minD<<<64, T>>>(DD, DMin, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&GotMin, DMin, sizeof(double), cudaMemcpyDeviceToHost));
  std::printf("min of doubles=%.6f %s\n", WantMin, GotMin == WantMin ? "ok" : "MISMATCH");
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DD));
  CHECK(cudaFree(DMin));
  return finish(Bad == 0 && GotMin == WantMin);
}
