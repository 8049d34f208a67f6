/// \file
/// Measurement tool (not a test): where NVIDIA's cuRAND MT19937 device
/// generator's Poisson switches from the table lookup (lambda 1750-1999.5),
/// and its host generator's Poisson at 150 and 300 (seed 1234, 8192 each),
/// as raw little-endian files DIR/<name>.bin; statuses to stdout. Recorded
/// on the H100 on 2026-11-28 at 00:15 UTC. Usage: Mt19937Probe3 DIR
#include <cstdio>
#include <curand.h>
#include <cuda_runtime.h>
#include <vector>
#include <string>
static std::string Dir;
static void dump(const std::string &Name, const void *P, size_t Bytes) {
  FILE *F = fopen((Dir + "/" + Name).c_str(), "wb"); fwrite(P, 1, Bytes, F); fclose(F);
}
int main(int argc, char **argv) {
  Dir = argv[1];
  unsigned *U; cudaMalloc(&U, 8192 * 8);
  curandGenerator_t G;
  for (double Lam : {1750.0, 1800.0, 1850.0, 1900.0, 1950.0, 1999.0, 1999.5}) {
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("pois %g %d\n", Lam, (int)curandGeneratePoisson(G, U, 8192, Lam)); fflush(stdout);
    std::vector<unsigned> H(8192); cudaMemcpy(H.data(), U, 8192 * 4, cudaMemcpyDeviceToHost);
    dump("pois" + std::to_string((int)(Lam * 10)) + ".bin", H.data(), 8192 * 4); curandDestroyGenerator(G);
  }
  for (double Lam : {150.0, 300.0}) {
    std::vector<unsigned> H(8192);
    curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("hpois %g %d\n", Lam, (int)curandGeneratePoisson(G, H.data(), 8192, Lam)); fflush(stdout);
    dump("hpois" + std::to_string((int)Lam) + ".bin", H.data(), 8192 * 4); curandDestroyGenerator(G);
  }
  printf("done\n");
}
