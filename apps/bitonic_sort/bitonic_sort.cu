/// \file
/// Bitonic sort of 64K floats with keys carried along: a shared-memory
/// kernel sorts 1024-element chunks, then global merge steps and
/// shared-memory merges finish the network. Sorting is exact, so the output
/// matches std::sort element for element.
#include "../common/app_util.h"
#include <algorithm>
#include <vector>

constexpr int Chunk = 1024;

__device__ inline void cmpSwap(float &A, float &B, int &IA, int &IB, bool Up) {
  if ((A > B || (A == B && IA > IB)) == Up) {
    float T = A; A = B; B = T;
    int TI = IA; IA = IB; IB = TI;
  }
}

// Sorts (or merges, from stage Start) each Chunk in shared memory.
__global__ void sharedSort(float *V, int *Id, int StartSize, int Total) {
  __shared__ float S[Chunk];
  __shared__ int SI[Chunk];
  int Base = blockIdx.x * Chunk;
  for (int I = threadIdx.x; I < Chunk; I += blockDim.x) {
    S[I] = V[Base + I];
    SI[I] = Id[Base + I];
  }
  __syncthreads();
  for (int Size = StartSize; Size <= (StartSize == 2 ? Chunk : StartSize); Size <<= 1) {
    int Stride0 = StartSize == 2 ? Size / 2 : Chunk / 2;
    for (int Stride = Stride0; Stride > 0; Stride >>= 1) {
      for (int T = threadIdx.x; T < Chunk / 2; T += blockDim.x) {
        int Lo = 2 * T - (T & (Stride - 1)), Hi = Lo + Stride;
        bool Up = ((Base + Lo) & Size) == 0;
        cmpSwap(S[Lo], S[Hi], SI[Lo], SI[Hi], Up);
      }
      __syncthreads();
    }
  }
  for (int I = threadIdx.x; I < Chunk; I += blockDim.x) {
    V[Base + I] = S[I];
    Id[Base + I] = SI[I];
  }
}

__global__ void globalStep(float *V, int *Id, int Size, int Stride) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  int Lo = 2 * T - (T & (Stride - 1)), Hi = Lo + Stride;
  bool Up = (Lo & Size) == 0;
  float A = V[Lo], B = V[Hi];
  int IA = Id[Lo], IB = Id[Hi];
  cmpSwap(A, B, IA, IB, Up);
  V[Lo] = A;
  V[Hi] = B;
  Id[Lo] = IA;
  Id[Hi] = IB;
}

int main() {
  const int N = 1 << 16;
  std::vector<float> V(N);
  std::vector<int> Id(N);
  Lcg Rng(4242);
  for (int I = 0; I < N; ++I) {
    V[I] = float(int(Rng.below(50000)) - 25000) * 0.25f; // duplicates on purpose
    Id[I] = I;
  }
  float *DV;
  int *DId;
  CHECK(cudaMalloc(&DV, N * sizeof(float)));
  CHECK(cudaMalloc(&DId, N * sizeof(int)));
  CHECK(cudaMemcpy(DV, V.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DId, Id.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  sharedSort<<<N / Chunk, 256>>>(DV, DId, 2, N);
  for (int Size = 2 * Chunk; Size <= N; Size <<= 1) {
    for (int Stride = Size / 2; Stride >= Chunk; Stride >>= 1)
      globalStep<<<N / 2 / 256, 256>>>(DV, DId, Size, Stride);
    sharedSort<<<N / Chunk, 256>>>(DV, DId, Size, N); // strides below Chunk
  }
  CHECK(cudaGetLastError());
  std::vector<float> Got(N);
  std::vector<int> GotId(N);
  CHECK(cudaMemcpy(Got.data(), DV, N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(GotId.data(), DId, N * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<std::pair<float, int>> Want(N);
  for (int I = 0; I < N; ++I)
    Want[I] = {V[I], I};
  std::sort(Want.begin(), Want.end());
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    Bad += Got[I] != Want[I].first || GotId[I] != Want[I].second;
  std::printf("bitonic n=%d min=%.2f median=%.2f max=%.2f mismatches=%d\n", N, Want[0].first, Want[N / 2].first,
              Want[N - 1].first, Bad);
  CHECK(cudaFree(DV));
  CHECK(cudaFree(DId));
  return finish(Bad == 0);
}
