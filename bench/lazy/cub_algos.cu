// CUB's device-wide algorithms (template-heavy modules: every tuning policy
// and type instantiates its own kernels) timed from the program's first
// CUDA call: each algorithm's first call includes compiling what it
// launches (bench/lazy/run.sh builds it with nvcc and runs it under ferry,
// lazy and eager). Prints the results' checks and the times.
#include <cub/cub.cuh>

#include <chrono>
#include <cstdio>
#include <vector>

static double msSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T).count();
}

#define CHECK(X)                                                                                   \
  do {                                                                                             \
    cudaError_t E = (X);                                                                           \
    if (E != cudaSuccess) {                                                                        \
      std::printf("FAIL %s: %s\n", #X, cudaGetErrorString(E));                                     \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  const int N = 1 << 16;
  auto T0 = std::chrono::steady_clock::now();
  std::vector<unsigned> Host(N);
  for (int I = 0; I < N; ++I)
    Host[I] = (I * 2654435761u) % 100000u;
  unsigned *In, *Out, *Sum;
  CHECK(cudaMalloc(&In, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&Out, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&Sum, sizeof(unsigned)));
  CHECK(cudaMemcpy(In, Host.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::printf("set-up: %.1f ms\n", msSince(T0));
  void *Temp = nullptr;
  size_t TempBytes = 0, Need = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, Need, In, Sum, N));
  TempBytes = std::max(TempBytes, Need);
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, Need, In, Out, N));
  TempBytes = std::max(TempBytes, Need);
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, Need, In, Out, N));
  TempBytes = std::max(TempBytes, Need);
  CHECK(cudaMalloc(&Temp, TempBytes));

  auto T = std::chrono::steady_clock::now();
  CHECK(cub::DeviceReduce::Sum(Temp, TempBytes, In, Sum, N));
  CHECK(cudaDeviceSynchronize());
  std::printf("first DeviceReduce::Sum: %.1f ms (first launch done %.1f ms after start)\n", msSince(T), msSince(T0));
  T = std::chrono::steady_clock::now();
  CHECK(cub::DeviceScan::InclusiveSum(Temp, TempBytes, In, Out, N));
  CHECK(cudaDeviceSynchronize());
  std::printf("first DeviceScan::InclusiveSum: %.1f ms\n", msSince(T));
  std::vector<unsigned> Scan(N);
  CHECK(cudaMemcpy(Scan.data(), Out, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  T = std::chrono::steady_clock::now();
  CHECK(cub::DeviceRadixSort::SortKeys(Temp, TempBytes, In, Out, N));
  CHECK(cudaDeviceSynchronize());
  std::printf("first DeviceRadixSort::SortKeys: %.1f ms\n", msSince(T));
  std::vector<unsigned> Sorted(N);
  unsigned Total = 0;
  CHECK(cudaMemcpy(Sorted.data(), Out, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&Total, Sum, sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned Want = 0;
  bool ScanOk = true, SortOk = true;
  for (int I = 0; I < N; ++I) {
    Want += Host[I];
    ScanOk &= Scan[I] == Want;
    SortOk &= I == 0 || Sorted[I - 1] <= Sorted[I];
  }
  std::printf("reduce %s, scan %s, sort %s; all done %.1f ms after start\n", Total == Want ? "ok" : "WRONG",
              ScanOk ? "ok" : "WRONG", SortOk ? "ok" : "WRONG", msSince(T0));
  return Total == Want && ScanOk && SortOk ? 0 : 1;
}
