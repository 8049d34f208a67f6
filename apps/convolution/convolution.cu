/// \file
/// Separable 2D convolution (a 9-tap binomial blur) of a 256x256 image:
/// filter taps in __constant__ memory, a row pass and a column pass that
/// each stage a tile plus apron in shared memory, and a direct 2D 3x3
/// Sobel edge kernel. Integer pixels and integer taps keep results exact.
#include "../common/app_util.h"
#include <vector>

constexpr int W = 256, H = 256, R = 4, TW = 32, TH = 8;
__constant__ int Taps[2 * R + 1];
__constant__ int SobelX[9], SobelY[9];

__global__ void rows(const int *In, int *Out) {
  __shared__ int S[TH][TW + 2 * R];
  int X = blockIdx.x * TW + threadIdx.x, Y = blockIdx.y * TH + threadIdx.y;
  S[threadIdx.y][threadIdx.x + R] = In[Y * W + X];
  if (threadIdx.x < R) {
    int L = X - R, Rt = X + TW;
    S[threadIdx.y][threadIdx.x] = L >= 0 ? In[Y * W + L] : 0;
    S[threadIdx.y][threadIdx.x + TW + R] = Rt < W ? In[Y * W + Rt] : 0;
  }
  __syncthreads();
  int Acc = 0;
  for (int K = -R; K <= R; ++K)
    Acc += Taps[K + R] * S[threadIdx.y][threadIdx.x + R + K];
  Out[Y * W + X] = Acc;
}

__global__ void cols(const int *In, int *Out) {
  __shared__ int S[TH + 2 * R][TW];
  int X = blockIdx.x * TW + threadIdx.x, Y = blockIdx.y * TH + threadIdx.y;
  S[threadIdx.y + R][threadIdx.x] = In[Y * W + X];
  if (threadIdx.y < R) {
    int Up = Y - R, Dn = Y + TH;
    S[threadIdx.y][threadIdx.x] = Up >= 0 ? In[Up * W + X] : 0;
    S[threadIdx.y + TH + R][threadIdx.x] = Dn < H ? In[Dn * W + X] : 0;
  }
  __syncthreads();
  int Acc = 0;
  for (int K = -R; K <= R; ++K)
    Acc += Taps[K + R] * S[threadIdx.y + R + K][threadIdx.x];
  Out[Y * W + X] = Acc >> 16; // taps sum to 256 per pass
}

__global__ void sobel(const int *In, int *Mag) {
  int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X < 1 || Y < 1 || X >= W - 1 || Y >= H - 1) {
    if (X < W && Y < H)
      Mag[Y * W + X] = 0;
    return;
  }
  int Gx = 0, Gy = 0;
  for (int DY = -1; DY <= 1; ++DY)
    for (int DX = -1; DX <= 1; ++DX) {
      int P = In[(Y + DY) * W + X + DX];
      Gx += SobelX[(DY + 1) * 3 + DX + 1] * P;
      Gy += SobelY[(DY + 1) * 3 + DX + 1] * P;
    }
  Mag[Y * W + X] = abs(Gx) + abs(Gy);
}

int main() {
  std::vector<int> Img(W * H);
  Lcg Rng(77);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) // checkerboard blocks with noise
      Img[Y * W + X] = (((X / 32) + (Y / 32)) % 2) * 200 + int(Rng.below(50));
  int HTaps[2 * R + 1] = {1, 8, 28, 56, 70, 56, 28, 8, 1}; // binomial, sums to 256
  int HSx[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1}, HSy[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
  CHECK(cudaMemcpyToSymbol(Taps, HTaps, sizeof(HTaps)));
  CHECK(cudaMemcpyToSymbol(SobelX, HSx, sizeof(HSx)));
  CHECK(cudaMemcpyToSymbol(SobelY, HSy, sizeof(HSy)));
  int *DIn, *DTmp, *DOut, *DMag;
  CHECK(cudaMalloc(&DIn, W * H * sizeof(int)));
  CHECK(cudaMalloc(&DTmp, W * H * sizeof(int)));
  CHECK(cudaMalloc(&DOut, W * H * sizeof(int)));
  CHECK(cudaMalloc(&DMag, W * H * sizeof(int)));
  CHECK(cudaMemcpy(DIn, Img.data(), W * H * sizeof(int), cudaMemcpyHostToDevice));
  dim3 Block(TW, TH), Grid(W / TW, H / TH);
  rows<<<Grid, Block>>>(DIn, DTmp);
  cols<<<Grid, Block>>>(DTmp, DOut);
  sobel<<<dim3(W / 16, H / 16), dim3(16, 16)>>>(DOut, DMag);
  CHECK(cudaGetLastError());
  std::vector<int> Out(W * H), Mag(W * H);
  CHECK(cudaMemcpy(Out.data(), DOut, W * H * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Mag.data(), DMag, W * H * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> Tmp(W * H), Blur(W * H), WantMag(W * H, 0);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      int A = 0;
      for (int K = -R; K <= R; ++K)
        A += (X + K >= 0 && X + K < W) ? HTaps[K + R] * Img[Y * W + X + K] : 0;
      Tmp[Y * W + X] = A;
    }
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      int A = 0;
      for (int K = -R; K <= R; ++K)
        A += (Y + K >= 0 && Y + K < H) ? HTaps[K + R] * Tmp[(Y + K) * W + X] : 0;
      Blur[Y * W + X] = A >> 16;
    }
  for (int Y = 1; Y < H - 1; ++Y)
    for (int X = 1; X < W - 1; ++X) {
      int Gx = 0, Gy = 0;
      for (int DY = -1; DY <= 1; ++DY)
        for (int DX = -1; DX <= 1; ++DX) {
          Gx += HSx[(DY + 1) * 3 + DX + 1] * Blur[(Y + DY) * W + X + DX];
          Gy += HSy[(DY + 1) * 3 + DX + 1] * Blur[(Y + DY) * W + X + DX];
        }
      WantMag[Y * W + X] = std::abs(Gx) + std::abs(Gy);
    }
  int Bad = 0, Edges = 0;
  long long Sum = 0;
  for (int I = 0; I < W * H; ++I) {
    Bad += Out[I] != Blur[I] || Mag[I] != WantMag[I];
    Sum += Blur[I];
    Edges += WantMag[I] > 400;
  }
  std::printf("blur sum=%lld edge pixels=%d mismatches=%d\n", Sum, Edges, Bad);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DTmp));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DMag));
  return finish(Bad == 0);
}
