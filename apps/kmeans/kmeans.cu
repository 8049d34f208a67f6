/// \file
/// K-means clustering of 32K points in 2D on an integer grid: an assignment
/// kernel (nearest centroid by squared distance, ties to the lower index),
/// an update kernel accumulating per-cluster sums with shared-memory then
/// global atomics, and integer centroids. Integer coordinates make every
/// step exact, so the run is identical on any device and on the CPU.
#include "../common/app_util.h"
#include <vector>

constexpr int K = 8;

__global__ void assign(const int2 *P, int N, const int2 *Cent, int *Label, int *Changed) {
  __shared__ int2 C[K];
  if (threadIdx.x < K)
    C[threadIdx.x] = Cent[threadIdx.x];
  __syncthreads();
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  long long Best = -1;
  int BestK = 0;
  for (int J = 0; J < K; ++J) {
    long long Dx = P[I].x - C[J].x, Dy = P[I].y - C[J].y, D = Dx * Dx + Dy * Dy;
    if (Best < 0 || D < Best) {
      Best = D;
      BestK = J;
    }
  }
  if (Label[I] != BestK) {
    Label[I] = BestK;
    atomicAdd(Changed, 1);
  }
}

__global__ void accumulate(const int2 *P, int N, const int *Label, long long *SumX, long long *SumY, int *Count) {
  __shared__ long long SX[K], SY[K];
  __shared__ int SC[K];
  if (threadIdx.x < K) {
    SX[threadIdx.x] = SY[threadIdx.x] = 0;
    SC[threadIdx.x] = 0;
  }
  __syncthreads();
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    int L = Label[I];
    atomicAdd((unsigned long long *)&SX[L], (unsigned long long)(long long)P[I].x);
    atomicAdd((unsigned long long *)&SY[L], (unsigned long long)(long long)P[I].y);
    atomicAdd(&SC[L], 1);
  }
  __syncthreads();
  if (threadIdx.x < K) {
    atomicAdd((unsigned long long *)&SumX[threadIdx.x], (unsigned long long)SX[threadIdx.x]);
    atomicAdd((unsigned long long *)&SumY[threadIdx.x], (unsigned long long)SY[threadIdx.x]);
    atomicAdd(&Count[threadIdx.x], SC[threadIdx.x]);
  }
}

int main() {
  const int N = 32768, MaxIters = 30;
  std::vector<int2> P(N);
  Lcg Rng(5150);
  int2 Truth[K];
  for (int J = 0; J < K; ++J)
    Truth[J] = make_int2(int(Rng.below(20000)) - 10000, int(Rng.below(20000)) - 10000);
  for (int I = 0; I < N; ++I) {
    int2 C = Truth[Rng.below(K)];
    P[I] = make_int2(C.x + int(Rng.below(3001)) - 1500, C.y + int(Rng.below(3001)) - 1500);
  }
  std::vector<int2> Cent(K);
  for (int J = 0; J < K; ++J)
    Cent[J] = P[J * 97];
  int2 *DP, *DC;
  int *DLabel, *DChanged, *DCount;
  long long *DSX, *DSY;
  CHECK(cudaMalloc(&DP, N * sizeof(int2)));
  CHECK(cudaMalloc(&DC, K * sizeof(int2)));
  CHECK(cudaMalloc(&DLabel, N * sizeof(int)));
  CHECK(cudaMalloc(&DChanged, sizeof(int)));
  CHECK(cudaMalloc(&DCount, K * sizeof(int)));
  CHECK(cudaMalloc(&DSX, K * sizeof(long long)));
  CHECK(cudaMalloc(&DSY, K * sizeof(long long)));
  CHECK(cudaMemcpy(DP, P.data(), N * sizeof(int2), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DLabel, 0xff, N * sizeof(int)));
  std::vector<int2> GCent = Cent;
  int Iter = 0, Changed = 1;
  std::vector<int> Count(K);
  for (; Iter < MaxIters && Changed; ++Iter) {
    CHECK(cudaMemcpy(DC, GCent.data(), K * sizeof(int2), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(DChanged, 0, sizeof(int)));
    CHECK(cudaMemset(DSX, 0, K * sizeof(long long)));
    CHECK(cudaMemset(DSY, 0, K * sizeof(long long)));
    CHECK(cudaMemset(DCount, 0, K * sizeof(int)));
    assign<<<N / 256, 256>>>(DP, N, DC, DLabel, DChanged);
    accumulate<<<N / 256, 256>>>(DP, N, DLabel, DSX, DSY, DCount);
    CHECK(cudaGetLastError());
    long long SX[K], SY[K];
    CHECK(cudaMemcpy(&Changed, DChanged, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(SX, DSX, sizeof(SX), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(SY, DSY, sizeof(SY), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Count.data(), DCount, K * sizeof(int), cudaMemcpyDeviceToHost));
    for (int J = 0; J < K; ++J)
      if (Count[J])
        GCent[J] = make_int2(int(SX[J] / Count[J]), int(SY[J] / Count[J]));
  }
  // CPU reference of the same algorithm.
  std::vector<int> Label(N, -1), CCount(K);
  std::vector<int2> CCent = Cent;
  int CIter = 0, CChanged = 1;
  for (; CIter < MaxIters && CChanged; ++CIter) {
    CChanged = 0;
    long long SX[K] = {}, SY[K] = {};
    std::fill(CCount.begin(), CCount.end(), 0);
    for (int I = 0; I < N; ++I) {
      long long Best = -1;
      int BestK = 0;
      for (int J = 0; J < K; ++J) {
        long long Dx = P[I].x - CCent[J].x, Dy = P[I].y - CCent[J].y, D = Dx * Dx + Dy * Dy;
        if (Best < 0 || D < Best) {
          Best = D;
          BestK = J;
        }
      }
      CChanged += Label[I] != BestK;
      Label[I] = BestK;
      SX[BestK] += P[I].x;
      SY[BestK] += P[I].y;
      CCount[BestK]++;
    }
    for (int J = 0; J < K; ++J)
      if (CCount[J])
        CCent[J] = make_int2(int(SX[J] / CCount[J]), int(SY[J] / CCount[J]));
  }
  int Bad = Iter != CIter;
  for (int J = 0; J < K; ++J)
    Bad += GCent[J].x != CCent[J].x || GCent[J].y != CCent[J].y || Count[J] != CCount[J];
  std::printf("kmeans points=%d k=%d iterations=%d\n", N, K, CIter);
  for (int J = 0; J < K; ++J)
    std::printf("  cluster %d: centre=(%d, %d) size=%d\n", J, CCent[J].x, CCent[J].y, CCount[J]);
  std::printf("mismatches=%d\n", Bad);
  CHECK(cudaFree(DP));
  CHECK(cudaFree(DC));
  CHECK(cudaFree(DLabel));
  CHECK(cudaFree(DChanged));
  CHECK(cudaFree(DCount));
  CHECK(cudaFree(DSX));
  CHECK(cudaFree(DSY));
  return finish(Bad == 0);
}
