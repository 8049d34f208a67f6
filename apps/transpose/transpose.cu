/// \file
/// Matrix transpose three ways, as in the classic optimisation study: a
/// naive kernel, a shared-memory tiled kernel (bank conflicts), and the
/// padded tile that avoids them; on a non-square 640x384 float matrix, with
/// per-kernel timings on `time:` lines.
#include "../common/app_util.h"
#include <vector>

constexpr int Tile = 32, Rows = 8;

__global__ void naive(const float *In, float *Out, int W, int H) {
  int X = blockIdx.x * Tile + threadIdx.x, Y = blockIdx.y * Tile + threadIdx.y;
  for (int J = 0; J < Tile; J += Rows)
    if (X < W && Y + J < H)
      Out[X * H + Y + J] = In[(Y + J) * W + X];
}

template <int Pad> __global__ void tiled(const float *In, float *Out, int W, int H) {
  __shared__ float T[Tile][Tile + Pad];
  int X = blockIdx.x * Tile + threadIdx.x, Y = blockIdx.y * Tile + threadIdx.y;
  for (int J = 0; J < Tile; J += Rows)
    if (X < W && Y + J < H)
      T[threadIdx.y + J][threadIdx.x] = In[(Y + J) * W + X];
  __syncthreads();
  X = blockIdx.y * Tile + threadIdx.x; // transposed block
  Y = blockIdx.x * Tile + threadIdx.y;
  for (int J = 0; J < Tile; J += Rows)
    if (X < H && Y + J < W)
      Out[(Y + J) * H + X] = T[threadIdx.x][threadIdx.y + J];
}

int main() {
  const int W = 640, H = 384;
  std::vector<float> In(W * H), Out(W * H);
  for (int I = 0; I < W * H; ++I)
    In[I] = float(I % 10007) * 0.5f;
  float *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, W * H * sizeof(float)));
  CHECK(cudaMalloc(&DOut, W * H * sizeof(float)));
  CHECK(cudaMemcpy(DIn, In.data(), W * H * sizeof(float), cudaMemcpyHostToDevice));
  dim3 Grid(W / Tile, H / Tile), Block(Tile, Rows);
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  const char *Names[3] = {"naive", "tiled", "tiled+padded"};
  int TotalBad = 0;
  for (int K = 0; K < 3; ++K) {
    CHECK(cudaMemset(DOut, 0, W * H * sizeof(float)));
    CHECK(cudaEventRecord(A));
    if (K == 0)
      naive<<<Grid, Block>>>(DIn, DOut, W, H);
    else if (K == 1)
      tiled<0><<<Grid, Block>>>(DIn, DOut, W, H);
    else
      tiled<1><<<Grid, Block>>>(DIn, DOut, W, H);
    CHECK(cudaEventRecord(B));
    CHECK(cudaGetLastError());
    CHECK(cudaEventSynchronize(B));
    float Ms;
    CHECK(cudaEventElapsedTime(&Ms, A, B));
    CHECK(cudaMemcpy(Out.data(), DOut, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    int Bad = 0;
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X)
        Bad += Out[X * H + Y] != In[Y * W + X];
    std::printf("%-13s mismatches=%d\n", Names[K], Bad);
    std::printf("time: %s %.4f ms\n", Names[K], Ms);
    TotalBad += Bad;
  }
  CHECK(cudaEventDestroy(A));
  CHECK(cudaEventDestroy(B));
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return finish(TotalBad == 0);
}
