// End-to-end: NVIDIA's cudart over ferry's libcuda.so.1, no kernels.
// Each check prints FAIL with its line on mismatch; the last line is
// "E2E OK" only when every check passed. ctest matches both.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int Failures = 0;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("FAIL line %d: %s\n", __LINE__, #cond);                                          \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)
#define OK(call) CHECK((call) == cudaSuccess)

static int CallbackHits = 0;
static void CUDART_CB onStream(cudaStream_t, cudaError_t status, void *p) {
  if (status == cudaSuccess)
    ++*static_cast<int *>(p);
}
static void CUDART_CB hostFn(void *p) { ++*static_cast<int *>(p); }

int main() {
  int n = 0;
  OK(cudaGetDeviceCount(&n));
  CHECK(n >= 1);
  cudaDeviceProp prop;
  OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  CHECK(prop.warpSize == 32);
  CHECK(prop.maxThreadsPerBlock == 1024);
  CHECK(prop.unifiedAddressing == 1);
  int v = 0;
  OK(cudaDriverGetVersion(&v));
  CHECK(v >= 13000);

  // Device memory, memset, copies.
  const int N = 1 << 16;
  int *d = nullptr, *d2 = nullptr;
  OK(cudaMalloc(&d, N * sizeof(int)));
  OK(cudaMalloc(&d2, N * sizeof(int)));
  OK(cudaMemset(d, 0x01, N * sizeof(int)));
  static int h[N];
  OK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h[0] == 0x01010101 && h[N - 1] == 0x01010101);
  for (int i = 0; i < N; ++i)
    h[i] = i * 3;
  OK(cudaMemcpy(d, h, N * sizeof(int), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(d2, d, N * sizeof(int), cudaMemcpyDeviceToDevice));
  std::memset(h, 0, sizeof(h));
  OK(cudaMemcpy(h, d2, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h[12345] == 12345 * 3);
  cudaPointerAttributes attr;
  OK(cudaPointerGetAttributes(&attr, d + 7));
  CHECK(attr.type == cudaMemoryTypeDevice);

  // 2-D copy with pitch.
  int *pitched;
  size_t pitch;
  OK(cudaMallocPitch(&pitched, &pitch, 10 * sizeof(int), 4));
  CHECK(pitch >= 10 * sizeof(int));
  int grid[4][10], back[4][10];
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 10; ++x)
      grid[y][x] = y * 100 + x;
  OK(cudaMemcpy2D(pitched, pitch, grid, sizeof(grid[0]), sizeof(grid[0]), 4, cudaMemcpyHostToDevice));
  OK(cudaMemcpy2D(back, sizeof(back[0]), pitched, pitch, sizeof(back[0]), 4, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(grid, back, sizeof(grid)) == 0);
  OK(cudaFree(pitched));

  // Pinned memory, streams, events, callbacks.
  int *pinned;
  OK(cudaMallocHost(&pinned, N * sizeof(int)));
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  cudaEvent_t start, stop;
  OK(cudaEventCreate(&start));
  OK(cudaEventCreate(&stop));
  OK(cudaEventRecord(start, s));
  OK(cudaMemsetAsync(d2, 0, N * sizeof(int), s));
  OK(cudaMemcpyAsync(pinned, d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
  OK(cudaStreamAddCallback(s, onStream, &CallbackHits, 0));
  OK(cudaLaunchHostFunc(s, hostFn, &CallbackHits));
  OK(cudaEventRecord(stop, s));
  OK(cudaEventSynchronize(stop));
  OK(cudaStreamSynchronize(s));
  CHECK(CallbackHits == 2);
  CHECK(pinned[N - 1] == (N - 1) * 3);
  float ms = -1;
  OK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);
  CHECK(cudaStreamQuery(s) == cudaSuccess);
  OK(cudaStreamDestroy(s));
  OK(cudaEventDestroy(start));
  OK(cudaEventDestroy(stop));
  OK(cudaFreeHost(pinned));

  // Managed memory is host-visible.
  int *managed;
  OK(cudaMallocManaged(&managed, 64 * sizeof(int)));
  managed[5] = 42;
  OK(cudaMemcpy(h, managed, 64 * sizeof(int), cudaMemcpyDefault));
  CHECK(h[5] == 42);
  OK(cudaFree(managed));

  // Errors: strings and invalid arguments do not crash.
  std::printf("error string: %s\n", cudaGetErrorString(cudaErrorInvalidValue));
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation") == 0);
  CHECK(cudaSetDevice(99) != cudaSuccess);
  cudaGetLastError();
  OK(cudaFree(nullptr));
  OK(cudaFree(d));
  OK(cudaFree(d2));
  OK(cudaDeviceSynchronize());
  OK(cudaDeviceReset());
  std::printf(Failures ? "E2E FAILED (%d)\n" : "E2E OK\n", Failures);
  return Failures != 0;
}
