/// \file
/// Measurement tool (not a test): what NVIDIA's cuRAND MT19937 host API
/// gives for more seeds (0, 1, 2^32-1, 0x0123456789abcdef, 2^32, 5489, none
/// set), a reseed after 1000 and after 70000 results (device and host
/// generators), Poisson at lambda 4-100000 and normals, as raw
/// little-endian files DIR/<name>.bin; statuses to stdout. Recorded on the
/// H100 on 2026-11-27 at 23:32 UTC (the run stopped at its 50 s limit in
/// the host generator's Poisson at lambda 1000: files up to pois1000.bin
/// came back). Material for libs/curand/Mt19937.cpp; Mt19937Hashes.cu
/// replays the calls. Usage: Mt19937Probe DIR
#include <cstdio>
#include <curand.h>
#include <cuda_runtime.h>
#include <vector>
#include <string>
static std::string Dir;
static unsigned *U;
static void dump(const char *Name, const void *P, size_t Bytes) {
  FILE *F = fopen((Dir + "/" + Name).c_str(), "wb"); fwrite(P, 1, Bytes, F); fclose(F);
}
static void dev(curandGenerator_t G, size_t N, const char *Name) {
  printf("%s gen %d\n", Name, (int)curandGenerate(G, U, N));
  std::vector<unsigned> H(N); cudaMemcpy(H.data(), U, N * 4, cudaMemcpyDeviceToHost); dump(Name, H.data(), N * 4);
}
int main(int argc, char **argv) {
  Dir = argv[1];
  cudaMalloc(&U, 200000 * 8);
  curandGenerator_t G;
  // seeds
  unsigned long long Seeds[] = {0ull, 1ull, 0xffffffffull, 0x0123456789abcdefull, 0x100000000ull, 5489ull};
  for (int S = 0; S < 6; ++S) {
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, Seeds[S]);
    std::string N = "seed" + std::to_string(S) + ".bin"; dev(G, 2048, N.c_str()); curandDestroyGenerator(G);
  }
  // default seed (no SetSeed call)
  curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); dev(G, 2048, "seeddefault.bin"); curandDestroyGenerator(G);
  // reseed after 1000 and after 70000 (device), and host
  for (int A : {1000, 70000}) {
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    std::string N1 = "reseed" + std::to_string(A) + "a.bin", N2 = "reseed" + std::to_string(A) + "b.bin";
    dev(G, A, N1.c_str()); curandSetPseudoRandomGeneratorSeed(G, 99); dev(G, 140000, N2.c_str()); curandDestroyGenerator(G);
    std::vector<unsigned> H(140000);
    curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("host a %d\n", (int)curandGenerate(G, H.data(), A)); dump(("h" + N1).c_str(), H.data(), A * 4);
    curandSetPseudoRandomGeneratorSeed(G, 99);
    printf("host b %d\n", (int)curandGenerate(G, H.data(), 140000)); dump(("h" + N2).c_str(), H.data(), 140000 * 4);
    curandDestroyGenerator(G);
  }
  // Poisson, device and host
  for (double Lam : {4.0, 16.0, 30.0, 63.0, 100.0, 1000.0, 1500.0, 2000.0, 100000.0}) {
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("pois %g %d\n", Lam, (int)curandGeneratePoisson(G, U, 8192, Lam));
    std::vector<unsigned> H(8192); cudaMemcpy(H.data(), U, 8192 * 4, cudaMemcpyDeviceToHost);
    dump(("pois" + std::to_string((int)Lam) + ".bin").c_str(), H.data(), 8192 * 4); curandDestroyGenerator(G);
    curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937); curandSetPseudoRandomGeneratorSeed(G, 1234);
    printf("hpois %g %d\n", Lam, (int)curandGeneratePoisson(G, H.data(), 8192, Lam));
    dump(("hpois" + std::to_string((int)Lam) + ".bin").c_str(), H.data(), 8192 * 4); curandDestroyGenerator(G);
  }
  // normals: host and device, float and double, normal and lognormal (seed 1234, 8192 each, mean 1 sd 2)
  for (int Host = 0; Host < 2; ++Host)
    for (int K = 0; K < 4; ++K) {
      if (Host) curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937); else curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937);
      curandSetPseudoRandomGeneratorSeed(G, 1234);
      std::vector<double> H(8192); void *P = Host ? (void *)H.data() : (void *)U; int st;
      if (K == 0) st = curandGenerateNormal(G, (float *)P, 8192, 1.0f, 2.0f);
      else if (K == 1) st = curandGenerateNormalDouble(G, (double *)P, 8192, 1.0, 2.0);
      else if (K == 2) st = curandGenerateLogNormal(G, (float *)P, 8192, 0.5f, 0.75f);
      else st = curandGenerateLogNormalDouble(G, (double *)P, 8192, 0.5, 0.75);
      size_t B = (K & 1) ? 8192 * 8 : 8192 * 4;
      if (!Host) cudaMemcpy(H.data(), U, B, cudaMemcpyDeviceToHost);
      printf("normal host %d kind %d: %d\n", Host, K, st);
      dump(((Host ? "hnorm" : "norm") + std::to_string(K) + ".bin").c_str(), H.data(), B);
      curandDestroyGenerator(G);
    }
  cudaDeviceSynchronize();
  printf("done\n");
}
