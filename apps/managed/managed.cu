/// \file
/// Unified (managed) memory: cudaMallocManaged arrays and a __managed__
/// variable used by host and device in turn, with prefetch and advice hints
/// (the CUDA 13 cudaMemLocation forms) and a stream-attached allocation.
#include "../common/app_util.h"

__managed__ int TotalHits;

__global__ void classify(const float *X, const float *Y, int *Inside, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    int In = X[I] * X[I] + Y[I] * Y[I] <= 1.0f;
    Inside[I] = In;
    if (In)
      atomicAdd(&TotalHits, 1);
  }
}

__global__ void prefixFlags(int *Inside, int N) {
  // Single-thread pass: this app is about memory, not speed.
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (int I = 1; I < N; ++I)
      Inside[I] += Inside[I - 1];
}

int main() {
  int Managed = 0;
  CHECK(cudaDeviceGetAttribute(&Managed, cudaDevAttrManagedMemory, 0));
  std::printf("managed memory supported: %s\n", Managed ? "yes" : "no");
  const int N = 40000;
  float *X, *Y;
  int *Inside;
  CHECK(cudaMallocManaged(&X, N * sizeof(float)));
  CHECK(cudaMallocManaged(&Y, N * sizeof(float)));
  CHECK(cudaMallocManaged(&Inside, N * sizeof(int)));
  Lcg Rng(42);
  for (int I = 0; I < N; ++I) {
    // Multiples of 1/1024: squares and sums are exact, so fused or unfused
    // arithmetic classifies every point the same way.
    X[I] = (int(Rng.below(2049)) - 1024) / 1024.0f;
    Y[I] = (int(Rng.below(2049)) - 1024) / 1024.0f;
  }
  TotalHits = 0;
  cudaMemLocation Dev{};
  Dev.type = cudaMemLocationTypeDevice;
  Dev.id = 0;
  CHECK(cudaMemAdvise(X, N * sizeof(float), cudaMemAdviseSetReadMostly, Dev));
  CHECK(cudaMemPrefetchAsync(X, N * sizeof(float), Dev, 0, 0));
  CHECK(cudaMemPrefetchAsync(Y, N * sizeof(float), Dev, 0, 0));
  classify<<<(N + 255) / 256, 256>>>(X, Y, Inside, N);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int HostHits = 0;
  for (int I = 0; I < N; ++I)
    HostHits += X[I] * X[I] + Y[I] * Y[I] <= 1.0f;
  std::printf("hits gpu=%d cpu=%d\n", TotalHits, HostHits);
  prefixFlags<<<1, 1>>>(Inside, N);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("prefix last=%d\n", Inside[N - 1]);
  bool Ok = TotalHits == HostHits && Inside[N - 1] == HostHits;

  // Memory attached to one stream: the host may touch it once that stream is idle.
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  int *Local;
  CHECK(cudaMallocManaged(&Local, 1024 * sizeof(int), cudaMemAttachHost));
  for (int I = 0; I < 1024; ++I)
    Local[I] = I;
  CHECK(cudaStreamAttachMemAsync(S, Local, 0, cudaMemAttachSingle));
  prefixFlags<<<1, 1, 0, S>>>(Local, 1024);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(S));
  std::printf("stream-attached prefix last=%d (want %d)\n", Local[1023], 1023 * 1024 / 2);
  Ok = Ok && Local[1023] == 1023 * 1024 / 2;
  cudaPointerAttributes Attr;
  CHECK(cudaPointerGetAttributes(&Attr, X));
  std::printf("pointer type: %s\n", Attr.type == cudaMemoryTypeManaged ? "managed" : "other");
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(Local));
  CHECK(cudaFree(X));
  CHECK(cudaFree(Y));
  CHECK(cudaFree(Inside));
  return finish(Ok);
}
