/// \file
/// Zero-copy: kernels read and write host memory directly, through a mapped
/// cudaHostAlloc buffer, a cudaHostRegister'ed malloc buffer, and the same
/// host pointer used as a device pointer under unified addressing.
#include "../common/app_util.h"
#include <cstring>

__global__ void squareInto(const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I] * In[I] - 3 * In[I];
}

__global__ void addOne(int *Data, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    Data[I] += 1;
}

int main() {
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  int CanMap = 0, Uva = 0;
  CHECK(cudaDeviceGetAttribute(&CanMap, cudaDevAttrCanMapHostMemory, 0));
  CHECK(cudaDeviceGetAttribute(&Uva, cudaDevAttrUnifiedAddressing, 0));
  std::printf("can map host memory: %s, unified addressing: %s\n", CanMap ? "yes" : "no", Uva ? "yes" : "no");

  const int N = 50000;
  int *HIn, *HOut;
  CHECK(cudaHostAlloc(&HIn, N * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&HOut, N * sizeof(int), cudaHostAllocMapped | cudaHostAllocWriteCombined));
  Lcg Rng(7);
  for (int I = 0; I < N; ++I)
    HIn[I] = int(Rng.below(2001)) - 1000;
  int *DIn, *DOut;
  CHECK(cudaHostGetDevicePointer(&DIn, HIn, 0));
  CHECK(cudaHostGetDevicePointer(&DOut, HOut, 0));
  squareInto<<<(N + 127) / 128, 128>>>(DIn, DOut, N);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int Bad = 0;
  long long Sum = 0;
  for (int I = 0; I < N; ++I) {
    int Want = HIn[I] * HIn[I] - 3 * HIn[I];
    Bad += HOut[I] != Want;
    Sum += Want;
  }
  std::printf("mapped alloc: mismatches=%d sum=%lld\n", Bad, Sum);

  // A buffer the program got from malloc, pinned after the fact.
  const size_t Bytes = 64 * 4096;
  int *Plain = (int *)std::aligned_alloc(4096, Bytes);
  const int M = int(Bytes / sizeof(int));
  for (int I = 0; I < M; ++I)
    Plain[I] = I;
  CHECK(cudaHostRegister(Plain, Bytes, cudaHostRegisterMapped));
  int *DPlain;
  CHECK(cudaHostGetDevicePointer(&DPlain, Plain, 0));
  addOne<<<64, 256>>>(DPlain, M);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // Under UVA the host pointer itself is valid on the device.
  addOne<<<64, 256>>>(Uva ? Plain : DPlain, M);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int Bad2 = 0;
  for (int I = 0; I < M; ++I)
    Bad2 += Plain[I] != I + 2;
  cudaPointerAttributes Attr;
  CHECK(cudaPointerGetAttributes(&Attr, Plain));
  std::printf("registered buffer: mismatches=%d type=%s\n", Bad2, Attr.type == cudaMemoryTypeHost ? "host" : "other");
  CHECK(cudaHostUnregister(Plain));
  std::free(Plain);
  CHECK(cudaFreeHost(HIn));
  CHECK(cudaFreeHost(HOut));
  return finish(Bad == 0 && Bad2 == 0);
}
