/// \file
/// A kernel that dereferences a bad pointer: the fault surfaces as the sticky
/// cudaErrorIllegalAddress at the next synchronisation, later calls in the
/// context report it, and the program tears the context down with
/// cudaDeviceReset and exits cleanly. (Work after the reset is not part of
/// the test: on the recording machine a new context right after a GPU fault
/// was refused with cudaErrorDevicesUnavailable.)
#include "../common/app_util.h"

__global__ void scatter(int *Out, const int *Index, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    // The bug: a sentinel index (-1) turns into a near-null pointer.
    int *Target = Index[I] >= 0 ? Out + Index[I] : (int *)(size_t)(64 * I);
    *Target = I;
  }
}

__global__ void square(int *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = I * I;
}

int main() {
  const int N = 256;
  int Index[N];
  for (int I = 0; I < N; ++I)
    Index[I] = (I * 7) % N;
  Index[100] = -1; // a missing entry the kernel does not expect
  int *Out, *DIndex;
  CHECK(cudaMalloc(&Out, N * sizeof(int)));
  CHECK(cudaMalloc(&DIndex, N * sizeof(int)));
  CHECK(cudaMemcpy(DIndex, Index, sizeof(Index), cudaMemcpyHostToDevice));
  scatter<<<1, N>>>(Out, DIndex, N);
  cudaError_t Sync = cudaDeviceSynchronize();
  std::printf("synchronize after bad kernel: %s\n", cudaGetErrorName(Sync));
  int *More = nullptr;
  cudaError_t Alloc = cudaMalloc(&More, 64);
  std::printf("malloc in faulted context: %s\n", cudaGetErrorName(Alloc));
  square<<<1, N>>>(Out, N);
  cudaError_t Launch = cudaGetLastError();
  std::printf("launch in faulted context: %s\n", cudaGetErrorName(Launch));
  std::printf("cudaGetLastError after the sticky error: %s\n", cudaGetErrorName(cudaGetLastError()));

  cudaError_t Reset = cudaDeviceReset();
  std::printf("device reset: %s\n", cudaGetErrorName(Reset));
  bool Ok = Sync == cudaErrorIllegalAddress && Alloc == cudaErrorIllegalAddress &&
            Launch == cudaErrorIllegalAddress && Reset == cudaSuccess;
  return finish(Ok);
}
