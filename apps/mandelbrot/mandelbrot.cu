/// \file
/// Mandelbrot set on a 256x192 grid with escape-time iteration counts
/// computed in 64-bit fixed point (4.28 format, 128-bit-safe products via
/// __mul64hi), so the counts are exact integers on every device; the CPU
/// repeats the same arithmetic. A 2D grid of 2D blocks, an ASCII thumbnail
/// and a histogram of counts summarise the image.
#include "../common/app_util.h"
#include <vector>

constexpr int W = 256, H = 192, MaxIter = 256, Frac = 28;
typedef long long Fix;

__host__ __device__ inline Fix fmul(Fix A, Fix B) {
#ifdef __CUDA_ARCH__
  // (A*B) >> Frac using the full 128-bit product.
  long long Hi = __mul64hi(A, B);
  unsigned long long Lo = (unsigned long long)A * (unsigned long long)B;
  return (Fix)((Lo >> Frac) | ((unsigned long long)Hi << (64 - Frac)));
#else
  return (Fix)(((__int128)A * B) >> Frac);
#endif
}

__host__ __device__ inline int escape(Fix Cr, Fix Ci) {
  Fix Zr = 0, Zi = 0;
  const Fix Four = (Fix)4 << Frac;
  int N = 0;
  while (N < MaxIter) {
    Fix Zr2 = fmul(Zr, Zr), Zi2 = fmul(Zi, Zi);
    if (Zr2 + Zi2 > Four)
      break;
    Fix T = Zr2 - Zi2 + Cr;
    Zi = 2 * fmul(Zr, Zi) + Ci;
    Zr = T;
    ++N;
  }
  return N;
}

__host__ __device__ inline Fix coordX(int X) { return ((Fix)X * (3LL << Frac)) / W - (2LL << Frac) - (1LL << (Frac - 2)); }
__host__ __device__ inline Fix coordY(int Y) { return ((Fix)Y * (9LL << (Frac - 2))) / H - (9LL << (Frac - 3)); }

__global__ void render(int *Iters) {
  int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X < W && Y < H)
    Iters[Y * W + X] = escape(coordX(X), coordY(Y));
}

int main() {
  int *D;
  CHECK(cudaMalloc(&D, W * H * sizeof(int)));
  render<<<dim3(W / 16, H / 16), dim3(16, 16)>>>(D);
  CHECK(cudaGetLastError());
  std::vector<int> Got(W * H);
  CHECK(cudaMemcpy(Got.data(), D, W * H * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad = 0, Inside = 0;
  long long Sum = 0;
  int Hist[5] = {};
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      int N = escape(coordX(X), coordY(Y));
      Bad += Got[Y * W + X] != N;
      Sum += N;
      Inside += N == MaxIter;
      Hist[N < 4 ? 0 : N < 16 ? 1 : N < 64 ? 2 : N < MaxIter ? 3 : 4]++;
    }
  const char *Shade = " .:-=+*#%@";
  for (int Y = 0; Y < H; Y += 12) {
    for (int X = 0; X < W; X += 4) {
      int N = escape(coordX(X), coordY(Y));
      std::putchar(N == MaxIter ? '@' : Shade[N * 9 / MaxIter]);
    }
    std::putchar('\n');
  }
  std::printf("pixels=%d inside=%d total iterations=%lld hist=%d/%d/%d/%d/%d mismatches=%d\n", W * H, Inside, Sum,
              Hist[0], Hist[1], Hist[2], Hist[3], Hist[4], Bad);
  CHECK(cudaFree(D));
  return finish(Bad == 0);
}
