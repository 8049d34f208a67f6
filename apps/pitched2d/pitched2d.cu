/// \file
/// Pitched 2D images: cudaMallocPitch, cudaMemcpy2D in every direction,
/// cudaMemset2D on a sub-rectangle and cudaMemcpy2DAsync into a host buffer
/// whose pitch differs from both the device's and the image width.
#include "../common/app_util.h"
#include <vector>

__global__ void brighten(float *Img, size_t Pitch, int W, int H, float Gain) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X < W && Y < H) {
    float *Row = (float *)((char *)Img + Y * Pitch);
    Row[X] = Row[X] * Gain + float(Y);
  }
}

int main() {
  const int W = 300, H = 200;
  std::vector<float> Host(W * H);
  Lcg Rng(3);
  for (auto &V : Host)
    V = float(Rng.below(256));
  float *Dev, *Dev2;
  size_t Pitch, Pitch2;
  CHECK(cudaMallocPitch(&Dev, &Pitch, W * sizeof(float), H));
  CHECK(cudaMallocPitch(&Dev2, &Pitch2, W * sizeof(float), H));
  std::printf("pitch covers row: %s, pitch aligned to 32 bytes: %s\n",
              Pitch >= W * sizeof(float) ? "yes" : "no", Pitch % 32 == 0 ? "yes" : "no");
  CHECK(cudaMemcpy2D(Dev, Pitch, Host.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  // Zero a 100x50 window starting at column 20, row 10 (bytes 0 make 0.0f).
  CHECK(cudaMemset2D((char *)Dev + 10 * Pitch + 20 * sizeof(float), Pitch, 0, 100 * sizeof(float), 50));
  dim3 Block(32, 8), Grid((W + 31) / 32, (H + 7) / 8);
  brighten<<<Grid, Block>>>(Dev, Pitch, W, H, 0.5f);
  CHECK(cudaGetLastError());
  // Device-to-device copy of the lower half into a second pitched image.
  CHECK(cudaMemset2D(Dev2, Pitch2, 0, W * sizeof(float), H));
  CHECK(cudaMemcpy2D((char *)Dev2 + (H / 2) * Pitch2, Pitch2, (char *)Dev + (H / 2) * Pitch, Pitch,
                     W * sizeof(float), H / 2, cudaMemcpyDeviceToDevice));
  const int HostPitchFloats = W + 13;
  std::vector<float> Back(HostPitchFloats * H, -1.f), Back2(W * H, -1.f);
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaMemcpy2DAsync(Back.data(), HostPitchFloats * sizeof(float), Dev, Pitch, W * sizeof(float), H,
                          cudaMemcpyDeviceToHost, S));
  CHECK(cudaMemcpy2DAsync(Back2.data(), W * sizeof(float), Dev2, Pitch2, W * sizeof(float), H,
                          cudaMemcpyDeviceToHost, S));
  CHECK(cudaStreamSynchronize(S));
  int Bad = 0, PadTouched = 0;
  double Sum = 0;
  for (int Y = 0; Y < H; ++Y) {
    for (int X = 0; X < W; ++X) {
      bool Zeroed = Y >= 10 && Y < 60 && X >= 20 && X < 120;
      float Want = (Zeroed ? 0.f : Host[Y * W + X]) * 0.5f + float(Y);
      Bad += Back[Y * HostPitchFloats + X] != Want;
      Bad += Back2[Y * W + X] != (Y >= H / 2 ? Want : 0.f);
      Sum += Want;
    }
    for (int X = W; X < HostPitchFloats; ++X)
      PadTouched += Back[Y * HostPitchFloats + X] != -1.f;
  }
  std::printf("image %dx%d mismatches=%d host padding touched=%d checksum=%.1f\n", W, H, Bad, PadTouched, Sum);
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(Dev));
  CHECK(cudaFree(Dev2));
  return finish(Bad == 0 && PadTouched == 0);
}
