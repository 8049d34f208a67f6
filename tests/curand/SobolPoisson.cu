/// \file
/// ctest curand.sobol_poisson: curandGeneratePoisson from Sobol32/Sobol64,
/// plain and scrambled, device and host generators, against what NVIDIA's
/// cuRAND gave on the H100 (goldens/SobolPoisson.out: the FNV-1a hashes of
/// the raw results of the same cases, recorded by the probe described in
/// goldens/RECORDED.md). The lambdas straddle Sobol32's switch from the
/// table lookup to inversion at 10 (9.99, 10) and reach 999, the last
/// below the normal approximation that ferry refuses; each case makes two
/// calls (the second continues the sequence). Also hashed: the whole
/// scrambled direction-vector tables (20000 dimensions, 32- and 64-bit),
/// which ferry regenerates (libs/README.md).
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <vector>

static unsigned long long fnv(const void *P, size_t Bytes) {
  unsigned long long H = 1469598103934665603ULL;
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ ((const unsigned char *)P)[I]) * 1099511628211ULL;
  return H;
}

int main() {
  struct Case {
    curandRngType_t Type;
    unsigned Dims;
    double Lambda;
    unsigned long long Offset;
    bool Host;
    const char *Name;
  } Cases[] = {
      {CURAND_RNG_QUASI_SOBOL32, 3, 9.99, 0, false, "p32_l999c"},
      {CURAND_RNG_QUASI_SOBOL32, 3, 10.0, 0, false, "p32_l10"},
      {CURAND_RNG_QUASI_SOBOL32, 3, 64.0, 0, false, "p32_l64"},
      {CURAND_RNG_QUASI_SOBOL32, 3, 500.0, 5, false, "p32_l500_o5"},
      {CURAND_RNG_QUASI_SOBOL32, 3, 64.0, 0, true, "p32_l64_host"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, 3, 64.0, 0, false, "s32_l64"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, 3, 999.0, 0, false, "s32_l999"},
      {CURAND_RNG_QUASI_SOBOL64, 3, 9.0, 0, false, "p64_l9"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, 3, 0.5, 0, true, "s32_l05_host"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, 2, 3.5, 0, false, "s64_l35"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, 2, 100.0, 9, false, "s64_l100_o9"},
      {CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, 2, 3.5, 0, true, "s64_l35_host"},
  };
  unsigned *D;
  if (cudaMalloc(&D, 3 * 4096 * 4) != cudaSuccess) {
    std::printf("no device memory\n");
    return 1;
  }
  int Bad = 0;
  for (const Case &C : Cases) {
    curandGenerator_t G;
    curandStatus_t S = C.Host ? curandCreateGeneratorHost(&G, C.Type) : curandCreateGenerator(&G, C.Type);
    if (S) {
      std::printf("%s create status %d\n", C.Name, S);
      ++Bad;
      continue;
    }
    curandSetQuasiRandomGeneratorDimensions(G, C.Dims);
    curandSetGeneratorOffset(G, C.Offset);
    size_t N = C.Dims * 4096;
    std::vector<unsigned> H(N);
    unsigned *Out = C.Host ? H.data() : D;
    std::printf("%s", C.Name);
    for (int Call = 0; Call < 2; ++Call) {
      S = curandGeneratePoisson(G, Out, N, C.Lambda);
      if (!C.Host)
        cudaMemcpy(H.data(), D, N * 4, cudaMemcpyDeviceToHost);
      if (S) {
        std::printf(" status %d", S);
        ++Bad;
      } else {
        std::printf(" %016llx", fnv(H.data(), N * 4));
      }
    }
    std::printf("\n");
    curandDestroyGenerator(G);
  }
  cudaFree(D);
  curandDirectionVectors32_t *V32 = nullptr;
  curandDirectionVectors64_t *V64 = nullptr;
  if (curandGetDirectionVectors32(&V32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) || !V32 ||
      curandGetDirectionVectors64(&V64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6) || !V64) {
    std::printf("scrambled direction vectors: not returned\n");
    return 1;
  }
  std::printf("scrambled dirvec32 %016llx dirvec64 %016llx\n", fnv(V32, sizeof(*V32) * 20000),
              fnv(V64, sizeof(*V64) * 20000));
  return Bad ? 1 : 0;
}
