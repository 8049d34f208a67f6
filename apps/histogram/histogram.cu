/// \file
/// Image histogram of an 8-bit 512x512 greyscale picture: per-block
/// privatised histograms in shared memory merged with global atomics, a
/// per-warp variant with one sub-histogram per warp, and the cumulative
/// distribution used for histogram equalisation applied back to the image.
#include "../common/app_util.h"
#include <vector>

__global__ void histShared(const unsigned char *Img, int N, unsigned *Hist) {
  __shared__ unsigned H[256];
  H[threadIdx.x] = 0;
  __syncthreads();
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    atomicAdd(&H[Img[I]], 1u);
  __syncthreads();
  atomicAdd(&Hist[threadIdx.x], H[threadIdx.x]);
}

__global__ void histPerWarp(const unsigned char *Img, int N, unsigned *Hist) {
  __shared__ unsigned H[8][256];
  int Warp = threadIdx.x / 32;
  for (int I = threadIdx.x; I < 8 * 256; I += blockDim.x)
    (&H[0][0])[I] = 0;
  __syncthreads();
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    atomicAdd(&H[Warp][Img[I]], 1u);
  __syncthreads();
  unsigned S = 0;
  for (int W = 0; W < 8; ++W)
    S += H[W][threadIdx.x];
  atomicAdd(&Hist[threadIdx.x], S);
}

__global__ void equalize(unsigned char *Img, int N, const unsigned char *Lut) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Img[I] = Lut[Img[I]];
}

int main() {
  const int W = 512, H = 512, N = W * H;
  std::vector<unsigned char> Img(N);
  Lcg Rng(88);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) // a dim gradient plus noise: a skewed histogram
      Img[Y * W + X] = (unsigned char)((X + Y) / 8 + Rng.below(40));
  unsigned char *DImg, *DLut;
  unsigned *DHist, *DHist2;
  CHECK(cudaMalloc(&DImg, N));
  CHECK(cudaMalloc(&DLut, 256));
  CHECK(cudaMalloc(&DHist, 256 * 4));
  CHECK(cudaMalloc(&DHist2, 256 * 4));
  CHECK(cudaMemcpy(DImg, Img.data(), N, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DHist, 0, 256 * 4));
  CHECK(cudaMemset(DHist2, 0, 256 * 4));
  histShared<<<64, 256>>>(DImg, N, DHist);
  histPerWarp<<<32, 256>>>(DImg, N, DHist2);
  CHECK(cudaGetLastError());
  std::vector<unsigned> Hist(256), Hist2(256), Want(256, 0);
  CHECK(cudaMemcpy(Hist.data(), DHist, 256 * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Hist2.data(), DHist2, 256 * 4, cudaMemcpyDeviceToHost));
  for (auto P : Img)
    Want[P]++;
  int Bad = 0;
  for (int I = 0; I < 256; ++I)
    Bad += Hist[I] != Want[I] || Hist2[I] != Want[I];
  // Equalisation table from the CDF.
  std::vector<unsigned char> Lut(256);
  unsigned Cdf = 0, CdfMin = 0;
  for (int I = 0; I < 256; ++I)
    if (Want[I]) {
      CdfMin = Want[I];
      break;
    }
  for (int I = 0; I < 256; ++I) {
    Cdf += Want[I];
    Lut[I] = (unsigned char)(Cdf <= CdfMin ? 0 : (unsigned long long)(Cdf - CdfMin) * 255 / (N - CdfMin));
  }
  CHECK(cudaMemcpy(DLut, Lut.data(), 256, cudaMemcpyHostToDevice));
  equalize<<<N / 256, 256>>>(DImg, N, DLut);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> Eq(N);
  CHECK(cudaMemcpy(Eq.data(), DImg, N, cudaMemcpyDeviceToHost));
  int BadEq = 0;
  unsigned long long Sum = 0;
  for (int I = 0; I < N; ++I) {
    BadEq += Eq[I] != Lut[Img[I]];
    Sum += Lut[Img[I]];
  }
  int Peak = 0;
  for (int I = 1; I < 256; ++I)
    Peak = Want[I] > Want[Peak] ? I : Peak;
  std::printf("histogram mismatches=%d peak bin=%d (%u pixels)\n", Bad, Peak, Want[Peak]);
  std::printf("equalized mean=%.3f mismatches=%d\n", double(Sum) / N, BadEq);
  CHECK(cudaFree(DImg));
  CHECK(cudaFree(DLut));
  CHECK(cudaFree(DHist));
  CHECK(cudaFree(DHist2));
  return finish(Bad == 0 && BadEq == 0);
}
