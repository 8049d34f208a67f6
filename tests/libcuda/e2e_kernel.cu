// End-to-end: a program with a kernel, built by nvcc. cudart registers its
// fatbin through cuLibraryLoadData at start-up; the kernel is compiled from
// the fatbin's PTX on first launch, runs on the host backend, and its result
// is checked element by element. Prints "E2E OK" when everything holds.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * f + float(i);
}

__device__ int launches;
__global__ void count() {
  if (threadIdx.x == 0)
    atomicAdd(&launches, 1);
}

int main() {
  const int n = 1000;
  float h[n];
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 7);
  float *d = nullptr;
  cudaError_t e = cudaMalloc(&d, n * sizeof(float));
  std::printf("malloc: %s\n", cudaGetErrorName(e));
  if (e != cudaSuccess)
    return 1;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cudaFuncAttributes attr;
  e = cudaFuncGetAttributes(&attr, scale);
  std::printf("attributes: %s maxThreads=%d\n", cudaGetErrorName(e), attr.maxThreadsPerBlock);
  scale<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s\n", cudaGetErrorName(launch));
  std::printf("sync: %s\n", cudaGetErrorName(sync));
  float out[n];
  cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != h[i] * 2.0f + float(i);
  std::printf("mismatches: %d\n", bad);
  for (int i = 0; i < 5; ++i)
    count<<<3, 32>>>();
  int c = 0;
  cudaError_t sym = cudaMemcpyFromSymbol(&c, launches, sizeof c);
  std::printf("symbol: %s launches=%d\n", cudaGetErrorName(sym), c);
  // Too many threads per block must be refused at launch, not run.
  scale<<<1, 2048>>>(d, 1.0f, n);
  cudaError_t tooBig = cudaGetLastError();
  std::printf("2048 threads: %s\n", cudaGetErrorName(tooBig));
  bool ok = e == cudaSuccess && launch == cudaSuccess && sync == cudaSuccess && bad == 0 &&
            sym == cudaSuccess && c == 15 && tooBig == cudaErrorInvalidValue;
  std::printf(ok ? "E2E OK\n" : "E2E FAILED\n");
  return ok ? 0 : 1;
}
