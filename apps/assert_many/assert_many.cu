/// \file
/// A kernel whose assert fails in several threads at once: two lanes of one
/// warp, a lane of another warp of the same block, and a thread of another
/// block. The GPU prints one assertion line per failing thread (on stderr),
/// and the launch fails with the sticky cudaErrorAssert. The program checks
/// the error codes; the lines themselves are what the golden's .err keeps.
#include "../common/app_util.h"
#include <cassert>

__global__ void checkRanges(const int *Data, int N, int *Count) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    assert(Data[I] < 1000 && "sample out of range");
    atomicAdd(Count, 1);
  }
}

int main() {
  const int Blocks = 4, Threads = 64, N = Blocks * Threads;
  int Host[N];
  for (int I = 0; I < N; ++I)
    Host[I] = (I * 37) % 1000;
  int *Dev, *Count;
  CHECK(cudaMalloc(&Dev, N * sizeof(int)));
  CHECK(cudaMalloc(&Count, sizeof(int)));
  CHECK(cudaMemcpy(Dev, Host, sizeof(Host), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(Count, 0, sizeof(int)));
  checkRanges<<<Blocks, Threads>>>(Dev, N, Count);
  CHECK(cudaDeviceSynchronize());
  int Clean = 0;
  CHECK(cudaMemcpy(&Clean, Count, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("clean run: %d threads passed\n", Clean);
  // Four bad samples: block 0 threads 5 and 9 (one warp), block 0 thread 40
  // (the next warp), block 2 thread 17.
  const int BadAt[] = {5, 9, 40, 2 * Threads + 17};
  for (int At : BadAt)
    Host[At] = 5000 + At;
  CHECK(cudaMemcpy(Dev, Host, sizeof(Host), cudaMemcpyHostToDevice));
  std::fflush(stdout);
  checkRanges<<<Blocks, Threads>>>(Dev, N, Count);
  cudaError_t Sync = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(Sync));
  std::printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaError_t Again = cudaMemset(Count, 0, sizeof(int));
  std::printf("memset after assert: %s\n", cudaGetErrorName(Again));
  std::printf("failing threads planted: %d\n", int(sizeof(BadAt) / sizeof(BadAt[0])));
  bool Ok = Clean == N && Sync == cudaErrorAssert && Again == cudaErrorAssert;
  return finish(Ok);
}
