/// \file
/// Stencil-style kernels of the classic samples:
/// - an FDTD-like 3-D stencil of radius 4: each thread walks one (x, y)
///   column along z keeping the z-neighbourhood in a register queue
///   (behind[], current, infront[] shifted every step), the x/y
///   neighbourhood in a shared tile with halo loads by edge threads, and the
///   coefficients in __constant__ memory; several time steps ping-pong;
/// - a separable convolution (rows, then columns) with a __constant__
///   kernel, shared tiles with apron and #pragma unroll loops;
/// - a line-of-sight computation: slope of every terrain sample from the
///   observer, an inclusive max-scan (block scan in shared memory plus a
///   scan of block maxima), visible where the slope reaches the running max.
/// Inputs are multiples of 1/16 and coefficients dyadic, so every float
/// result is exact and compared bit for bit with the CPU.
#include "../common/app_util.h"
#include <vector>

// ---------------------------------------------------------------- FDTD

constexpr int Radius = 4;
constexpr int TileX = 32, TileY = 8;
__constant__ float StencilCoeff[Radius + 1];

__device__ __forceinline__ float load3(const float *In, int X, int Y, int Z, int Nx, int Ny, int Nz) {
  return X >= 0 && X < Nx && Y >= 0 && Y < Ny && Z >= 0 && Z < Nz ? In[(Z * Ny + Y) * Nx + X] : 0.0f;
}

__global__ void fdtdStep(float *Out, const float *In, int Nx, int Ny, int Nz) {
  __shared__ float Tile[TileY + 2 * Radius][TileX + 2 * Radius];
  int Gx = blockIdx.x * TileX + threadIdx.x;
  int Gy = blockIdx.y * TileY + threadIdx.y;
  int Tx = threadIdx.x + Radius, Ty = threadIdx.y + Radius;
  bool Inside = Gx >= Radius && Gx < Nx - Radius && Gy >= Radius && Gy < Ny - Radius;
  float Behind[Radius], Infront[Radius], Current;
  // Prime the queue: z = 0..2R (z = R is the first output plane).
#pragma unroll
  for (int I = 0; I < Radius; ++I)
    Behind[I] = load3(In, Gx, Gy, Radius - 1 - I, Nx, Ny, Nz);
  Current = load3(In, Gx, Gy, Radius, Nx, Ny, Nz);
#pragma unroll
  for (int I = 0; I < Radius; ++I)
    Infront[I] = load3(In, Gx, Gy, Radius + 1 + I, Nx, Ny, Nz);
  for (int Z = Radius; Z < Nz - Radius; ++Z) {
    __syncthreads();
    // Halo loads for the current plane by the edge threads.
    if (threadIdx.y < Radius) {
      Tile[threadIdx.y][Tx] = load3(In, Gx, Gy - Radius, Z, Nx, Ny, Nz);
      Tile[Ty + TileY][Tx] = load3(In, Gx, Gy + TileY, Z, Nx, Ny, Nz);
    }
    if (threadIdx.x < Radius) {
      Tile[Ty][threadIdx.x] = load3(In, Gx - Radius, Gy, Z, Nx, Ny, Nz);
      Tile[Ty][Tx + TileX] = load3(In, Gx + TileX, Gy, Z, Nx, Ny, Nz);
    }
    Tile[Ty][Tx] = Current;
    __syncthreads();
    float V = StencilCoeff[0] * Current;
#pragma unroll
    for (int I = 1; I <= Radius; ++I)
      V += StencilCoeff[I] * (Infront[I - 1] + Behind[I - 1] + Tile[Ty - I][Tx] + Tile[Ty + I][Tx] +
                              Tile[Ty][Tx - I] + Tile[Ty][Tx + I]);
    if (Inside)
      Out[(Z * Ny + Gy) * Nx + Gx] = V;
    // Advance the queue.
#pragma unroll
    for (int I = Radius - 1; I > 0; --I)
      Behind[I] = Behind[I - 1];
    Behind[0] = Current;
    Current = Infront[0];
#pragma unroll
    for (int I = 0; I < Radius - 1; ++I)
      Infront[I] = Infront[I + 1];
    Infront[Radius - 1] = load3(In, Gx, Gy, Z + Radius + 1, Nx, Ny, Nz);
  }
}

// ---------------------------------------------------------------- convolution

constexpr int KRad = 6;
__constant__ float ConvKernel[2 * KRad + 1];
constexpr int RowTile = 64, ColTileY = 32;

__global__ void convRows(float *Out, const float *In, int W, int H) {
  __shared__ float S[RowTile + 2 * KRad];
  int Y = blockIdx.y, X0 = blockIdx.x * RowTile;
  for (int I = threadIdx.x; I < RowTile + 2 * KRad; I += blockDim.x) {
    int X = X0 + I - KRad;
    S[I] = X >= 0 && X < W ? In[Y * W + X] : 0.0f;
  }
  __syncthreads();
  int X = X0 + threadIdx.x;
  if (X >= W)
    return;
  float Sum = 0;
#pragma unroll
  for (int K = -KRad; K <= KRad; ++K)
    Sum += ConvKernel[KRad - K] * S[threadIdx.x + KRad + K];
  Out[Y * W + X] = Sum;
}

__global__ void convCols(float *Out, const float *In, int W, int H) {
  __shared__ float S[ColTileY + 2 * KRad][16 + 1]; // padded against bank conflicts
  int X = blockIdx.x * 16 + threadIdx.x, Y0 = blockIdx.y * ColTileY;
  for (int I = threadIdx.y; I < ColTileY + 2 * KRad; I += blockDim.y) {
    int Y = Y0 + I - KRad;
    S[I][threadIdx.x] = Y >= 0 && Y < H && X < W ? In[Y * W + X] : 0.0f;
  }
  __syncthreads();
#pragma unroll 4
  for (int R = threadIdx.y; R < ColTileY; R += blockDim.y) {
    float Sum = 0;
#pragma unroll
    for (int K = -KRad; K <= KRad; ++K)
      Sum += ConvKernel[KRad - K] * S[R + KRad + K][threadIdx.x];
    if (X < W && Y0 + R < H)
      Out[(Y0 + R) * W + X] = Sum;
  }
}

// ---------------------------------------------------------------- line of sight

constexpr int ScanBlock = 256;

__global__ void slopes(const float *Height, float *Slope, int N, float Observer) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Slope[I] = (Height[I] - Observer) / (float)(I + 1);
}

__global__ void maxScanBlocks(float *Data, float *BlockMax, int N) {
  __shared__ float S[2][ScanBlock];
  int I = blockIdx.x * ScanBlock + threadIdx.x;
  int P = 0;
  S[P][threadIdx.x] = I < N ? Data[I] : -INFINITY;
  __syncthreads();
  for (int Off = 1; Off < ScanBlock; Off <<= 1) {
    float V = S[P][threadIdx.x];
    if (threadIdx.x >= Off)
      V = fmaxf(V, S[P][threadIdx.x - Off]);
    S[1 - P][threadIdx.x] = V;
    P = 1 - P;
    __syncthreads();
  }
  if (I < N)
    Data[I] = S[P][threadIdx.x];
  if (threadIdx.x == ScanBlock - 1)
    BlockMax[blockIdx.x] = S[P][threadIdx.x];
}

__global__ void visibility(const float *Slope, const float *Scanned, const float *BlockPrefix,
                           unsigned char *Visible, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  int B = I / ScanBlock;
  float Before = I % ScanBlock ? Scanned[I - 1] : -INFINITY;
  if (B > 0)
    Before = fmaxf(Before, BlockPrefix[B - 1]);
  Visible[I] = Slope[I] >= Before;
}

int main() {
  bool Ok = true;
  // FDTD.
  {
    const int Nx = 80, Ny = 44, Nz = 40, N = Nx * Ny * Nz, TimeSteps = 2;
    const float Coeff[Radius + 1] = {-0.5f, 0.125f, 0.0625f, -0.03125f, 0.015625f};
    CHECK(cudaMemcpyToSymbol(StencilCoeff, Coeff, sizeof(Coeff)));
    Lcg Rng(31);
    std::vector<float> A(N);
    for (auto &V : A)
      V = (float)Rng.below(64) / 16.0f;
    float *D0, *D1;
    CHECK(cudaMalloc(&D0, N * 4));
    CHECK(cudaMalloc(&D1, N * 4));
    CHECK(cudaMemcpy(D0, A.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(D1, A.data(), N * 4, cudaMemcpyHostToDevice));
    dim3 Grid((Nx + TileX - 1) / TileX, (Ny + TileY - 1) / TileY);
    for (int T = 0; T < TimeSteps; ++T) {
      fdtdStep<<<Grid, dim3(TileX, TileY)>>>(T % 2 ? D0 : D1, T % 2 ? D1 : D0, Nx, Ny, Nz);
      CHECK(cudaGetLastError());
    }
    std::vector<float> G(N);
    CHECK(cudaMemcpy(G.data(), TimeSteps % 2 ? D1 : D0, N * 4, cudaMemcpyDeviceToHost));
    std::vector<float> Cur = A, Next = A;
    auto At = [&](const std::vector<float> &V, int X, int Y, int Z) { return V[(Z * Ny + Y) * Nx + X]; };
    for (int T = 0; T < TimeSteps; ++T) {
      for (int Z = Radius; Z < Nz - Radius; ++Z)
        for (int Y = Radius; Y < Ny - Radius; ++Y)
          for (int X = Radius; X < Nx - Radius; ++X) {
            float V = Coeff[0] * At(Cur, X, Y, Z);
            for (int I = 1; I <= Radius; ++I)
              V += Coeff[I] * (At(Cur, X, Y, Z + I) + At(Cur, X, Y, Z - I) + At(Cur, X, Y - I, Z) +
                               At(Cur, X, Y + I, Z) + At(Cur, X - I, Y, Z) + At(Cur, X + I, Y, Z));
            Next[(Z * Ny + Y) * Nx + X] = V;
          }
      Cur.swap(Next);
      // The kernel leaves the boundary of its output buffer as it was (the
      // buffer two steps back); the CPU pair of buffers does the same.
    }
    unsigned Bad = 0;
    double Sum = 0;
    for (int I = 0; I < N; ++I) {
      Bad += G[I] != Cur[I];
      Sum += Cur[I] * (double)(I % 7);
    }
    std::printf("fdtd %dx%dx%d radius %d, %d steps: mismatches %u, checksum %.6f\n", Nx, Ny, Nz, Radius,
                TimeSteps, Bad, Sum);
    Ok &= Bad == 0;
    CHECK(cudaFree(D0));
    CHECK(cudaFree(D1));
  }
  // Separable convolution.
  {
    const int W = 300, H = 170;
    float K[2 * KRad + 1];
    for (int I = 0; I <= 2 * KRad; ++I)
      K[I] = (float)((I * 5) % 9 - 3) / 8.0f;
    CHECK(cudaMemcpyToSymbol(ConvKernel, K, sizeof(K)));
    Lcg Rng(12);
    std::vector<float> Img(W * H);
    for (auto &V : Img)
      V = (float)Rng.below(256) / 16.0f;
    float *DIn, *DTmp, *DOut;
    CHECK(cudaMalloc(&DIn, W * H * 4));
    CHECK(cudaMalloc(&DTmp, W * H * 4));
    CHECK(cudaMalloc(&DOut, W * H * 4));
    CHECK(cudaMemcpy(DIn, Img.data(), W * H * 4, cudaMemcpyHostToDevice));
    convRows<<<dim3((W + RowTile - 1) / RowTile, H), RowTile>>>(DTmp, DIn, W, H);
    CHECK(cudaGetLastError());
    convCols<<<dim3((W + 15) / 16, (H + ColTileY - 1) / ColTileY), dim3(16, 8)>>>(DOut, DTmp, W, H);
    CHECK(cudaGetLastError());
    std::vector<float> G(W * H), Tmp(W * H), Ref(W * H);
    CHECK(cudaMemcpy(G.data(), DOut, W * H * 4, cudaMemcpyDeviceToHost));
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X) {
        float S = 0;
        for (int Kk = -KRad; Kk <= KRad; ++Kk)
          if (X + Kk >= 0 && X + Kk < W)
            S += K[KRad - Kk] * Img[Y * W + X + Kk];
        Tmp[Y * W + X] = S;
      }
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X) {
        float S = 0;
        for (int Kk = -KRad; Kk <= KRad; ++Kk)
          if (Y + Kk >= 0 && Y + Kk < H)
            S += K[KRad - Kk] * Tmp[(Y + Kk) * W + X];
        Ref[Y * W + X] = S;
      }
    unsigned Bad = 0;
    double Sum = 0;
    for (int I = 0; I < W * H; ++I) {
      Bad += G[I] != Ref[I];
      Sum += Ref[I];
    }
    std::printf("separable convolution %dx%d radius %d: mismatches %u, sum %.4f\n", W, H, KRad, Bad, Sum);
    Ok &= Bad == 0;
    CHECK(cudaFree(DIn));
    CHECK(cudaFree(DTmp));
    CHECK(cudaFree(DOut));
  }
  // Line of sight.
  {
    const int N = 10000;
    const float Observer = 12.0f;
    Lcg Rng(99);
    std::vector<float> Height(N);
    float H = 10.0f;
    for (int I = 0; I < N; ++I) {
      H += (float)((int)Rng.below(33) - 15) / 16.0f;
      Height[I] = H;
    }
    float *DH, *DSlope, *DScan, *DBlockMax, *DBlockScan, *DDummy;
    unsigned char *DVis;
    int Blocks = (N + ScanBlock - 1) / ScanBlock;
    CHECK(cudaMalloc(&DH, N * 4));
    CHECK(cudaMalloc(&DSlope, N * 4));
    CHECK(cudaMalloc(&DScan, N * 4));
    CHECK(cudaMalloc(&DBlockMax, Blocks * 4));
    CHECK(cudaMalloc(&DBlockScan, Blocks * 4));
    CHECK(cudaMalloc(&DDummy, 4));
    CHECK(cudaMalloc(&DVis, N));
    CHECK(cudaMemcpy(DH, Height.data(), N * 4, cudaMemcpyHostToDevice));
    slopes<<<Blocks, ScanBlock>>>(DH, DSlope, N, Observer);
    CHECK(cudaMemcpy(DScan, DSlope, N * 4, cudaMemcpyDeviceToDevice));
    maxScanBlocks<<<Blocks, ScanBlock>>>(DScan, DBlockMax, N);
    CHECK(cudaMemcpy(DBlockScan, DBlockMax, Blocks * 4, cudaMemcpyDeviceToDevice));
    maxScanBlocks<<<1, ScanBlock>>>(DBlockScan, DDummy, Blocks);
    visibility<<<Blocks, ScanBlock>>>(DSlope, DScan, DBlockScan, DVis, N);
    CHECK(cudaGetLastError());
    std::vector<unsigned char> G(N);
    CHECK(cudaMemcpy(G.data(), DVis, N, cudaMemcpyDeviceToHost));
    unsigned Bad = 0, Visible = 0;
    float Max = -INFINITY;
    int LastVisible = -1;
    for (int I = 0; I < N; ++I) {
      float S = (Height[I] - Observer) / (float)(I + 1);
      bool V = S >= Max;
      Max = std::max(Max, S);
      Bad += G[I] != V;
      Visible += V;
      if (V)
        LastVisible = I;
    }
    std::printf("line of sight over %d samples: visible %u, last visible %d, mismatches %u\n", N, Visible,
                LastVisible, Bad);
    Ok &= Bad == 0;
    for (void *P : {(void *)DH, (void *)DSlope, (void *)DScan, (void *)DBlockMax, (void *)DBlockScan,
                    (void *)DDummy, (void *)DVis})
      CHECK(cudaFree(P));
  }
  return finish(Ok);
}
