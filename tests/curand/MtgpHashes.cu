/// \file
/// curand.mtgp32: FNV-1a hashes of what cuRAND's MTGP32 host API gives in
/// the calls tests/curand/MtDump.cu made on the H100 (the same generators,
/// seeds, orderings and call sequences), one line each; goldens/
/// MtgpHashes.out holds the same hashes of the H100's raw dumps. Normals
/// from device generators are left out (NVIDIA's go through the GPU's
/// erfcinvf; ferry's are exact, as NVIDIA's host generator's are).
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <string>
#include <vector>

static unsigned fnv(const void *P, size_t N) {
  unsigned H = 2166136261u;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ static_cast<const unsigned char *>(P)[I]) * 16777619u;
  return H;
}

static void *Buf;

static void line(const char *Name, size_t Bytes, curandStatus_t S) {
  cudaDeviceSynchronize();
  std::vector<unsigned char> H(Bytes);
  cudaMemcpy(H.data(), Buf, Bytes, cudaMemcpyDeviceToHost);
  if (S != CURAND_STATUS_SUCCESS)
    std::printf("%s status %d\n", Name, (int)S);
  else
    std::printf("%s %08x\n", Name, fnv(H.data(), Bytes));
}

static curandGenerator_t make(unsigned long long Seed) {
  curandGenerator_t G;
  curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MTGP32);
  curandSetPseudoRandomGeneratorSeed(G, Seed);
  return G;
}

int main() {
  const size_t Big = 1 << 21, Mid = 1 << 16;
  cudaMalloc(&Buf, Big * 4);
  unsigned *U = static_cast<unsigned *>(Buf);
  float *F = static_cast<float *>(Buf);
  double *D = static_cast<double *>(Buf);
  curandGenerator_t G = make(1234);
  line("mtgp.s1234.u32", Big * 4, curandGenerate(G, U, Big));
  line("mtgp.s1234.next.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  G = make(1234);
  line("mtgp.s1234.first333.u32", 333 * 4, curandGenerate(G, U, 333));
  line("mtgp.s1234.after333.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  for (unsigned long long Seed : {0ull, 1ull, 0x123456789abcdefull, 0xffffffffull}) {
    G = make(Seed);
    std::string Name = "mtgp.seed" + std::to_string(Seed) + ".u32";
    line(Name.c_str(), Mid * 4, curandGenerate(G, U, Mid));
    curandDestroyGenerator(G);
  }
  G = make(1234);
  curandGenerate(G, U, Mid);
  curandSetPseudoRandomGeneratorSeed(G, 99);
  line("mtgp.reseed99.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  G = make(1234);
  line("mtgp.f32.65536", Mid * 4, curandGenerateUniform(G, F, Mid));
  line("mtgp.f32.65536.after.u32", 4096 * 4, curandGenerate(G, U, 4096));
  curandDestroyGenerator(G);
  G = make(1234);
  line("mtgp.f64.65536", Mid * 8, curandGenerateUniformDouble(G, D, Mid));
  curandDestroyGenerator(G);
  G = make(1234);
  line("mtgp.pois4.65536", Mid * 4, curandGeneratePoisson(G, U, Mid, 4.0));
  curandDestroyGenerator(G);
  G = make(1234);
  // The first 4096 of 65536 (the H100 dump kept those).
  line("mtgp.pois30.65536", 4096 * 4, curandGeneratePoisson(G, U, Mid, 30.0));
  curandDestroyGenerator(G);
  G = make(1234);
  curandGenerateNormal(G, F, 1000, 1.0f, 2.0f);
  line("mtgp.nrm.1000.after.u32", 4096 * 4, curandGenerate(G, U, 4096));
  curandDestroyGenerator(G);
  G = make(1234);
  curandSetGeneratorOrdering(G, CURAND_ORDERING_PSEUDO_LEGACY);
  line("mtgp.ord103.u32", Mid * 4, curandGenerate(G, U, Mid));
  line("mtgp.ord103.f32", Mid * 4, curandGenerateUniform(G, F, Mid));
  curandDestroyGenerator(G);
  // The host generator's normals are computed exactly, as ferry's.
  curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MTGP32);
  curandSetPseudoRandomGeneratorSeed(G, 1234);
  std::vector<unsigned> HU(Mid);
  std::vector<float> HF(Mid);
  curandGenerate(G, HU.data(), Mid);
  std::printf("mtgp.host.s1234.u32 %08x\n", fnv(HU.data(), Mid * 4));
  curandStatus_t S = curandGenerateNormal(G, HF.data(), Mid, 0.0f, 1.0f);
  std::printf("mtgp.host.nrm.after %08x status %d\n", fnv(HF.data(), Mid * 4), (int)S);
  curandDestroyGenerator(G);
  cudaFree(Buf);
  return 0;
}
