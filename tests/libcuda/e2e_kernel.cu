// End-to-end: a program with a kernel. cudart registers its fatbin through
// cuLibraryLoadData at start-up; initialisation must succeed, and the launch
// (not executable until the host kernel executor exists) must come back as
// an error, not a crash. Prints "E2E OK" when both hold.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= f;
}

int main() {
  float *d = nullptr;
  cudaError_t e = cudaMalloc(&d, 256 * sizeof(float));
  std::printf("malloc: %s\n", cudaGetErrorName(e));
  if (e != cudaSuccess)
    return 1;
  cudaFuncAttributes attr;
  e = cudaFuncGetAttributes(&attr, scale);
  std::printf("attributes: %s maxThreads=%d\n", cudaGetErrorName(e), attr.maxThreadsPerBlock);
  scale<<<1, 256>>>(d, 2.0f, 256);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s\n", cudaGetErrorName(launch));
  std::printf("sync: %s\n", cudaGetErrorName(sync));
  bool ok = e == cudaSuccess && launch != cudaSuccess;
  std::printf(ok ? "E2E OK\n" : "E2E FAILED\n");
  return ok ? 0 : 1;
}
