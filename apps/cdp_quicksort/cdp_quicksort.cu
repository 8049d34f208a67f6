// Quicksort with dynamic parallelism (CDP2): each partition is one kernel
// launch, and the kernel launches its two halves from device code into two
// device streams of its own. Short ranges, and ranges past a depth limit,
// are finished by a selection sort in the same kernel. Launch errors seen on
// the device are counted in a global flag; the host checks the sorted
// array against std::sort and prints integer facts only.
#include "../common/app_util.h"

#include <algorithm>
#include <vector>

namespace {

constexpr int MaxDepth = 12;
constexpr int SmallRange = 24;

__device__ int DeviceErrors = 0;
__device__ int Partitions = 0;
__device__ int DeepestLevel = 0;

__device__ void selectionSort(unsigned *Data, int Lo, int Hi) {
  for (int I = Lo; I <= Hi; ++I) {
    int Min = I;
    for (int J = I + 1; J <= Hi; ++J)
      if (Data[J] < Data[Min])
        Min = J;
    unsigned T = Data[I];
    Data[I] = Data[Min];
    Data[Min] = T;
  }
}

__global__ void quicksort(unsigned *Data, int Lo, int Hi, int Depth) {
  atomicAdd(&Partitions, 1);
  atomicMax(&DeepestLevel, Depth);
  if (Depth >= MaxDepth || Hi - Lo < SmallRange) {
    selectionSort(Data, Lo, Hi);
    return;
  }
  // Hoare partition around the middle element.
  unsigned Pivot = Data[Lo + (Hi - Lo) / 2];
  int L = Lo, R = Hi;
  while (L <= R) {
    while (Data[L] < Pivot)
      ++L;
    while (Data[R] > Pivot)
      --R;
    if (L <= R) {
      unsigned T = Data[L];
      Data[L] = Data[R];
      Data[R] = T;
      ++L;
      --R;
    }
  }
  // The halves are independent: one device stream each.
  if (Lo < R) {
    cudaStream_t S;
    cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, S>>>(Data, Lo, R, Depth + 1);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&DeviceErrors, 1);
    cudaStreamDestroy(S);
  }
  if (L < Hi) {
    cudaStream_t S;
    cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, S>>>(Data, L, Hi, Depth + 1);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&DeviceErrors, 1);
    cudaStreamDestroy(S);
  }
}

} // namespace

int main() {
  const int N = 6000;
  Lcg Rng(2024);
  std::vector<unsigned> Host(N);
  for (unsigned &V : Host)
    V = Rng.below(100000);
  // A run of equal keys and a sorted stretch: partitions of every shape.
  for (int I = 1000; I < 1400; ++I)
    Host[I] = 777;
  for (int I = 3000; I < 3600; ++I)
    Host[I] = unsigned(I);
  std::vector<unsigned> Want = Host;
  std::sort(Want.begin(), Want.end());

  unsigned *Data = nullptr;
  CHECK(cudaMalloc(&Data, N * sizeof(unsigned)));
  CHECK(cudaMemcpy(Data, Host.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(Data, 0, N - 1, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> Got(N);
  CHECK(cudaMemcpy(Got.data(), Data, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int Errors = 0, Count = 0, Deepest = 0;
  CHECK(cudaMemcpyFromSymbol(&Errors, DeviceErrors, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&Count, Partitions, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&Deepest, DeepestLevel, sizeof(int)));
  CHECK(cudaFree(Data));

  int Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += Got[I] != Want[I];
  std::printf("elements: %d\n", N);
  std::printf("first: %u last: %u\n", Got[0], Got[N - 1]);
  std::printf("misplaced: %d\n", Wrong);
  std::printf("device launch errors: %d\n", Errors);
  // The partition count and depth follow from the data and the pivot rule
  // alone, so they are the same on every machine.
  std::printf("partitions: %d deepest level: %d\n", Count, Deepest);
  return finish(Wrong == 0 && Errors == 0 && Count > 1);
}
