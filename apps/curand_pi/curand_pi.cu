/// \file
/// Monte Carlo pi as tutorials write it with cuRAND's host API: a default
/// (XORWOW) generator seeded by the program, two uniform floats per point
/// generated straight into device memory, a kernel that counts the points
/// inside the quarter circle, then a second seed. The random numbers are
/// printed exactly (hex bits and %.9g): a seed must reproduce NVIDIA's
/// sequence bit for bit. The check: the kernel's count equals a CPU count
/// over the same numbers, and pi is within 0.01.
#include "../common/lib_util.h"
#include <cstring>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

__global__ void countInside(const float *Xy, int Points, unsigned *Hits) {
  unsigned Mine = 0;
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < Points; I += gridDim.x * blockDim.x) {
    float X = Xy[2 * I], Y = Xy[2 * I + 1];
    Mine += X * X + Y * Y <= 1.0f;
  }
  atomicAdd(Hits, Mine);
}

static unsigned bitsOf(float F) {
  unsigned U;
  std::memcpy(&U, &F, 4);
  return U;
}

int main() {
  const int Points = 1 << 20;
  float *Xy;
  unsigned *Hits;
  CHECK(cudaMalloc(&Xy, 2 * sizeof(float) * Points));
  CHECK(cudaMalloc(&Hits, sizeof(unsigned)));
  curandGenerator_t Gen;
  CURAND_CHECK(curandCreateGenerator(&Gen, CURAND_RNG_PSEUDO_DEFAULT));
  bool Ok = true;
  const unsigned long long Seeds[] = {1234ULL, 20260101ULL};
  for (unsigned long long Seed : Seeds) {
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, Seed));
    CURAND_CHECK(curandGenerateUniform(Gen, Xy, 2 * (size_t)Points));
    CHECK(cudaMemset(Hits, 0, sizeof(unsigned)));
    countInside<<<128, 256>>>(Xy, Points, Hits);
    CHECK(cudaGetLastError());
    unsigned DevHits = 0;
    CHECK(cudaMemcpy(&DevHits, Hits, sizeof DevHits, cudaMemcpyDeviceToHost));
    std::vector<float> H = download(Xy, 2 * (size_t)Points);
    unsigned CpuHits = 0;
    for (int I = 0; I < Points; ++I)
      CpuHits += H[2 * I] * H[2 * I] + H[2 * I + 1] * H[2 * I + 1] <= 1.0f;
    std::printf("seed %llu first:", Seed);
    for (int I = 0; I < 6; ++I)
      std::printf(" %08x", bitsOf(H[I]));
    std::printf("\nseed %llu values: %.9g %.9g %.9g\n", Seed, H[0], H[1], H[2]);
    std::printf("seed %llu last: %08x %08x\n", Seed, bitsOf(H[2 * Points - 2]), bitsOf(H[2 * Points - 1]));
    bool InRange = true;
    for (float V : H)
      InRange &= V > 0.0f && V <= 1.0f;
    double Pi = 4.0 * DevHits / Points;
    std::printf("seed %llu hits %u of %d, pi ~ %.6f\n", Seed, DevHits, Points, Pi);
    bool This = DevHits == CpuHits && InRange && std::fabs(Pi - M_PI) < 0.01;
    if (!This)
      std::printf("seed %llu: gpu %u cpu %u in (0,1]: %d\n", Seed, DevHits, CpuHits, (int)InRange);
    Ok &= This;
  }
  CURAND_CHECK(curandDestroyGenerator(Gen));
  CHECK(cudaFree(Xy));
  CHECK(cudaFree(Hits));
  return finish(Ok);
}
