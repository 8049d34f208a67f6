/// \file
/// SAXPY over pinned host memory, cut into chunks that each get their own
/// stream: the copy in, the kernel and the copy out of one chunk overlap with
/// the others, the way real pipelines hide transfer time.
#include "../common/app_util.h"

__global__ void saxpy(int N, float A, const float *X, float *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = A * X[I] + Y[I];
}

int main() {
  const int N = 1 << 18, Chunks = 4, ChunkN = N / Chunks;
  const float A = 2.5f;
  float *HX, *HY;
  CHECK(cudaMallocHost(&HX, N * sizeof(float)));
  CHECK(cudaHostAlloc(&HY, N * sizeof(float), cudaHostAllocPortable));
  float *Ref = (float *)std::malloc(N * sizeof(float));
  Lcg Rng(1);
  for (int I = 0; I < N; ++I) {
    HX[I] = Rng.range(-1.f, 1.f);
    HY[I] = Rng.range(-1.f, 1.f);
    Ref[I] = std::fmaf(A, HX[I], HY[I]);
  }
  unsigned Flags = 0;
  CHECK(cudaHostGetFlags(&Flags, HY));
  cudaPointerAttributes Attr;
  CHECK(cudaPointerGetAttributes(&Attr, HX));
  std::printf("pinned pointer type: %s, portable flag: %s\n",
              Attr.type == cudaMemoryTypeHost ? "host" : "other",
              (Flags & cudaHostAllocPortable) ? "yes" : "no");

  float *DX, *DY;
  CHECK(cudaMalloc(&DX, N * sizeof(float)));
  CHECK(cudaMalloc(&DY, N * sizeof(float)));
  cudaStream_t S[Chunks];
  for (int C = 0; C < Chunks; ++C)
    CHECK(cudaStreamCreateWithFlags(&S[C], cudaStreamNonBlocking));
  cudaEvent_t Start, Stop;
  CHECK(cudaEventCreate(&Start));
  CHECK(cudaEventCreate(&Stop));
  CHECK(cudaEventRecord(Start, 0));
  for (int C = 0; C < Chunks; ++C) {
    size_t Off = size_t(C) * ChunkN;
    CHECK(cudaMemcpyAsync(DX + Off, HX + Off, ChunkN * sizeof(float), cudaMemcpyHostToDevice, S[C]));
    CHECK(cudaMemcpyAsync(DY + Off, HY + Off, ChunkN * sizeof(float), cudaMemcpyHostToDevice, S[C]));
    saxpy<<<(ChunkN + 255) / 256, 256, 0, S[C]>>>(ChunkN, A, DX + Off, DY + Off);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(HY + Off, DY + Off, ChunkN * sizeof(float), cudaMemcpyDeviceToHost, S[C]));
  }
  for (int C = 0; C < Chunks; ++C)
    CHECK(cudaStreamSynchronize(S[C]));
  CHECK(cudaEventRecord(Stop, 0));
  CHECK(cudaEventSynchronize(Stop));
  float Ms = 0;
  CHECK(cudaEventElapsedTime(&Ms, Start, Stop));
  std::printf("time: pipeline %.3f ms\n", Ms);

  int Bad = 0;
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    if (!closeTo(HY[I], Ref[I], 1e-6, 1e-6))
      ++Bad;
    Sum += Ref[I];
  }
  std::printf("saxpy n=%d chunks=%d mismatches=%d checksum=%.3f\n", N, Chunks, Bad, Sum);
  for (int C = 0; C < Chunks; ++C)
    CHECK(cudaStreamDestroy(S[C]));
  CHECK(cudaEventDestroy(Start));
  CHECK(cudaEventDestroy(Stop));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DY));
  CHECK(cudaFreeHost(HX));
  CHECK(cudaFreeHost(HY));
  std::free(Ref);
  return finish(Bad == 0);
}
