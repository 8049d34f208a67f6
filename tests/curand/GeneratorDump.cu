/// \file
/// Measurement tool (not a test): writes what NVIDIA's cuRAND gives for the
/// generators and distributions ferry does not reproduce yet (MTGP32,
/// MT19937, Sobol beyond dimension 1, scrambled Sobol, Poisson), as raw
/// little-endian files DIR/<name>.bin, and the status of each call to
/// stdout. Run once on the device machine; the files are the material for
/// working out the host API's layouts (libs/README.md).
/// Usage: GeneratorDump DIR
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <string>
#include <vector>

static std::string Dir;

static void dump(const char *Name, const void *Dev, size_t Bytes, curandStatus_t S) {
  std::printf("%s status %d\n", Name, (int)S);
  if (S != CURAND_STATUS_SUCCESS)
    return;
  std::vector<char> H(Bytes);
  cudaMemcpy(H.data(), Dev, Bytes, cudaMemcpyDeviceToHost);
  FILE *F = std::fopen((Dir + "/" + Name + ".bin").c_str(), "wb");
  if (F) {
    std::fwrite(H.data(), 1, Bytes, F);
    std::fclose(F);
  }
}

static curandGenerator_t make(curandRngType_t T, unsigned long long Seed, unsigned Dims) {
  curandGenerator_t G = nullptr;
  curandStatus_t S = curandCreateGenerator(&G, T);
  if (S != CURAND_STATUS_SUCCESS) {
    std::printf("create %d status %d\n", (int)T, (int)S);
    return nullptr;
  }
  if (Dims)
    curandSetQuasiRandomGeneratorDimensions(G, Dims);
  else
    curandSetPseudoRandomGeneratorSeed(G, Seed);
  return G;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  Dir = Argv[1];
  const size_t Big = 1 << 18, Small = 1 << 14;
  void *Buf;
  cudaMalloc(&Buf, Big * 8);
  unsigned *U = (unsigned *)Buf;
  unsigned long long *L = (unsigned long long *)Buf;
  float *F = (float *)Buf;
  double *D = (double *)Buf;
  curandGenerator_t G;
  // MTGP32 and MT19937: 32-bit results for two seeds, an offset, floats.
  const curandRngType_t Mt[2] = {CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_PSEUDO_MT19937};
  const char *MtName[2] = {"mtgp32", "mt19937"};
  for (int K = 0; K < 2; ++K) {
    std::string N = MtName[K];
    if ((G = make(Mt[K], 1234, 0))) {
      dump((N + ".s1234.u32").c_str(), U, Big * 4, curandGenerate(G, U, Big));
      dump((N + ".s1234.next.u32").c_str(), U, Small * 4, curandGenerate(G, U, Small));
      curandSetGeneratorOffset(G, 0);
      dump((N + ".s1234.f32").c_str(), F, Small * 4, curandGenerateUniform(G, F, Small));
      curandSetGeneratorOffset(G, 0);
      dump((N + ".s1234.f64").c_str(), D, Small * 8, curandGenerateUniformDouble(G, D, Small));
      curandSetGeneratorOffset(G, 1000);
      dump((N + ".s1234.off1000.u32").c_str(), U, Small * 4, curandGenerate(G, U, Small));
      curandSetPseudoRandomGeneratorSeed(G, 0);
      curandSetGeneratorOffset(G, 0);
      dump((N + ".s0.u32").c_str(), U, Small * 4, curandGenerate(G, U, Small));
      curandSetPseudoRandomGeneratorSeed(G, 0x123456789abcdefULL);
      dump((N + ".sbig.u32").c_str(), U, Small * 4, curandGenerate(G, U, Small));
      curandDestroyGenerator(G);
    }
  }
  // Sobol beyond dimension 1, and scrambled Sobol.
  const curandRngType_t Q[4] = {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
                                CURAND_RNG_QUASI_SOBOL64, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64};
  const char *QName[4] = {"sobol32", "ssobol32", "sobol64", "ssobol64"};
  for (int K = 0; K < 4; ++K) {
    for (unsigned Dims : {1u, 3u, 100u}) {
      if (!(G = make(Q[K], 0, Dims)))
        continue;
      size_t N = Dims == 100 ? 100 * 256 : Dims * 4096;
      std::string Name = std::string(QName[K]) + ".d" + std::to_string(Dims);
      if (K < 2)
        dump((Name + ".u32").c_str(), U, N * 4, curandGenerate(G, U, N));
      else
        dump((Name + ".u64").c_str(), L, N * 8, curandGenerateLongLong(G, L, N));
      curandSetGeneratorOffset(G, 77);
      dump((Name + ".off77.f64").c_str(), D, N * 8, curandGenerateUniformDouble(G, D, N));
      curandDestroyGenerator(G);
    }
  }
  // Poisson from XORWOW and Philox for small, medium and large lambdas.
  const double Lambdas[] = {0.5, 4.0, 30.0, 63.9, 64.0, 1000.0, 123456.0};
  const curandRngType_t P[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A};
  const char *PName[3] = {"xorwow", "philox", "mrg32k3a"};
  for (int K = 0; K < 3; ++K)
    for (double Lam : Lambdas) {
      if (!(G = make(P[K], 1234, 0)))
        continue;
      char Name[64];
      std::snprintf(Name, sizeof Name, "%s.pois%g", PName[K], Lam);
      dump(Name, U, Small * 4, curandGeneratePoisson(G, U, Small, Lam));
      curandDestroyGenerator(G);
    }
  cudaFree(Buf);
  std::printf("done\n");
  return 0;
}
