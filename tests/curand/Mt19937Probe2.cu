/// \file
/// Measurement tool (not a test): NVIDIA's cuRAND MT19937 device generator's
/// Poisson results at lambda 1200-2000 and the host and device generators'
/// normals and log-normals (seed 1234, 8192 each), as raw little-endian
/// files DIR/<name>.bin; statuses to stdout. Recorded on the H100 on
/// 2026-11-28 at 00:10 UTC. Material for libs/curand/Mt19937.cpp;
/// Mt19937Hashes.cu replays the exact ones. Usage: Mt19937Probe2 DIR
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
  for (double Lam : {1200.0, 1500.0, 1501.0, 1700.0, 2000.0}) {
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("pois %g %d\n", Lam, (int)curandGeneratePoisson(G, U, 8192, Lam)); fflush(stdout);
    std::vector<unsigned> H(8192); cudaMemcpy(H.data(), U, 8192 * 4, cudaMemcpyDeviceToHost);
    dump("pois" + std::to_string((int)Lam) + ".bin", H.data(), 8192 * 4); curandDestroyGenerator(G);
  }
  for (int Host = 1; Host >= 0; --Host)
    for (int K = 0; K < 4; ++K) {
      if (Host) curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937); else curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937);
      curandSetPseudoRandomGeneratorSeed(G, 1234);
      std::vector<double> H(8192); void *P = Host ? (void *)H.data() : (void *)U; int st;
      if (K == 0) st = curandGenerateNormal(G, (float *)P, 8192, 1.0f, 2.0f);
      else if (K == 1) st = curandGenerateNormalDouble(G, (double *)P, 8192, 1.0, 2.0);
      else if (K == 2) st = curandGenerateLogNormal(G, (float *)P, 8192, 0.5f, 0.75f);
      else st = curandGenerateLogNormalDouble(G, (double *)P, 8192, 0.5, 0.75);
      size_t B = (K & 1) ? 8192 * 8 : 8192 * 4;
      cudaDeviceSynchronize();
      if (!Host) cudaMemcpy(H.data(), U, B, cudaMemcpyDeviceToHost);
      printf("normal host %d kind %d: %d\n", Host, K, st); fflush(stdout);
      dump(std::string(Host ? "hnorm" : "norm") + std::to_string(K) + ".bin", H.data(), B);
      curandDestroyGenerator(G);
    }
  printf("done\n");
}
