// Which pointers NVIDIA's stack accepts where a device pointer is expected:
// garbage addresses, pageable host memory, ranges running past an
// allocation. Recorded on an H100 (pointer-probe.h100.txt beside this file)
// and compared with ferry's answers by ctest libcuda_pointer_probe.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void touch(int *P) { P[threadIdx.x] += 1; }

static void report(const char *What, cudaError_t E) {
  std::printf("%-44s %s\n", What, cudaGetErrorName(E));
  cudaGetLastError();
}

int main() {
  int H[64] = {};
  int *D = nullptr;
  report("cudaMalloc(256)", cudaMalloc(&D, 256));
  void *Garbage = reinterpret_cast<void *>(0xdead0000000ull);
  int *Pageable = static_cast<int *>(std::malloc(4096));
  report("memcpy D2H from garbage", cudaMemcpy(H, Garbage, 64, cudaMemcpyDeviceToHost));
  report("memcpy D2H from pageable host memory", cudaMemcpy(H, Pageable, 64, cudaMemcpyDeviceToHost));
  report("memcpy H2D to pageable host memory", cudaMemcpy(Pageable, H, 64, cudaMemcpyHostToDevice));
  report("memcpy D2D garbage to device", cudaMemcpy(D, Garbage, 64, cudaMemcpyDeviceToDevice));
  report("memcpy H2D past the allocation end", cudaMemcpy(D + 60, H, 64, cudaMemcpyHostToDevice));
  report("memcpy D2H past the allocation end", cudaMemcpy(H, D + 60, 64, cudaMemcpyDeviceToHost));
  report("memcpy default device to host", cudaMemcpy(H, D, 64, cudaMemcpyDefault));
  report("memset garbage", cudaMemset(Garbage, 0, 64));
  report("memset pageable host memory", cudaMemset(Pageable, 0, 64));
  report("memset past the allocation end", cudaMemset(D + 60, 0, 64));
  report("free garbage", cudaFree(Garbage));
  report("free pageable host memory", cudaFree(Pageable));
  report("free interior pointer", cudaFree(D + 1));
  report("synchronize", cudaDeviceSynchronize());
  report("free", cudaFree(D));
  return 0;
}
