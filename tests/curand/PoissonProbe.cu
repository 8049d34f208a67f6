/// \file
/// Measurement tool (not a test): curandGeneratePoisson from XORWOW (seed
/// 1234) for lambdas between 1000 and 123456, where NVIDIA's host API
/// leaves its table method, and curandCreatePoissonDistribution there;
/// raw files DIR/xorwow.pois<lambda>.bin, statuses on stdout.
/// Usage: PoissonProbe DIR
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <string>
#include <vector>

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  std::string Dir = Argv[1];
  const size_t N = 4096;
  unsigned *D;
  cudaMalloc(&D, N * 4);
  std::vector<unsigned> H(N);
  for (double Lam : {1000.5, 1500.0, 2000.0, 3999.0, 4000.0, 4001.0, 8000.0, 20000.0, 123456.0}) {
    curandGenerator_t G;
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_XORWOW);
    curandSetPseudoRandomGeneratorSeed(G, 1234);
    int S = curandGeneratePoisson(G, D, N, Lam);
    cudaMemcpy(H.data(), D, N * 4, cudaMemcpyDeviceToHost);
    std::printf("xorwow.pois%g status %d\n", Lam, S);
    std::fflush(stdout);
    FILE *F = std::fopen((Dir + "/xorwow.pois" + std::to_string((long long)(Lam * 10)) + ".bin").c_str(), "wb");
    if (F) {
      std::fwrite(H.data(), 4, N, F);
      std::fclose(F);
    }
    curandDestroyGenerator(G);
  }
  for (double Lam : {1500.0, 4001.0, 123456.0}) {
    curandDiscreteDistribution_t Dist = nullptr;
    std::printf("dist %g ", Lam);
    std::fflush(stdout);
    int S = curandCreatePoissonDistribution(Lam, &Dist);
    std::printf("status %d\n", S);
    std::fflush(stdout);
    if (S == 0)
      curandDestroyDistribution(Dist);
  }
  std::printf("done\n");
  return 0;
}
