/// \file
/// A kernel that validates its input with assert() and meets a bad value:
/// the launch fails with cudaErrorAssert, the error is sticky for the rest of
/// the process, and the program reports what it saw and exits cleanly. The
/// device prints the assertion message itself (on stderr or stdout, as the
/// driver chooses).
#include "../common/app_util.h"
#include <cassert>

__global__ void validate(const int *Data, int N, int *Sum) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    assert(Data[I] >= 0 && "negative sample");
    atomicAdd(Sum, Data[I]);
  }
}

int main() {
  const int N = 1024;
  int Host[N];
  for (int I = 0; I < N; ++I)
    Host[I] = I % 10;
  int *Dev, *Sum;
  CHECK(cudaMalloc(&Dev, N * sizeof(int)));
  CHECK(cudaMalloc(&Sum, sizeof(int)));
  CHECK(cudaMemcpy(Dev, Host, sizeof(Host), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(Sum, 0, sizeof(int)));
  // First a clean run.
  validate<<<N / 256, 256>>>(Dev, N, Sum);
  CHECK(cudaDeviceSynchronize());
  int Got = 0;
  CHECK(cudaMemcpy(&Got, Sum, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("clean run sum=%d\n", Got);
  // Now plant one bad sample (element 300: block 1, thread 44).
  int Bad = -7;
  CHECK(cudaMemcpy(Dev + 300, &Bad, sizeof(int), cudaMemcpyHostToDevice));
  std::fflush(stdout);
  validate<<<N / 256, 256>>>(Dev, N, Sum);
  cudaError_t Sync = cudaDeviceSynchronize();
  std::fflush(stdout);
  std::printf("synchronize: %s\n", cudaGetErrorName(Sync));
  std::printf("message: %s\n", cudaGetErrorString(Sync));
  cudaError_t Last = cudaGetLastError();
  std::printf("last error: %s\n", cudaGetErrorName(Last));
  // The context is now unusable: later calls keep reporting the assert.
  int *More = nullptr;
  cudaError_t After = cudaMalloc(&More, 16);
  std::printf("malloc after assert: %s\n", cudaGetErrorName(After));
  cudaError_t Copy = cudaMemcpy(&Got, Sum, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("memcpy after assert: %s\n", cudaGetErrorName(Copy));
  std::printf("peek: %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  int Want = 0;
  for (int I = 0; I < N; ++I)
    Want += I % 10;
  bool Ok = Got == Want && Sync == cudaErrorAssert && After == cudaErrorAssert;
  return finish(Ok);
}
