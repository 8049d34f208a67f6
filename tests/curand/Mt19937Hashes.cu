/// \file
/// curand.mt19937.hashes: FNV-1a hashes of what cuRAND's MT19937 host API
/// gives in the calls tests/curand/MtDump.cu made on the H100 (the same
/// seeds, call sizes, reseed, distributions, orderings and host
/// generator), one line each; goldens/Mt19937Hashes.out holds the same
/// hashes of the H100's raw dumps; the "probe.", "probe2." and "probe3."
/// lines likewise replay tests/curand/Mt19937Probe*.cu's. Normals from device generators are left
/// out (NVIDIA's go through the GPU's erfcinvf; ferry's are exact, as
/// NVIDIA's host generator's are; the 32-bit calls after them are kept),
/// and so are MtDump's calls at lambda 3000 (NVIDIA's normal
/// approximation, refused by ferry).
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

static void line(const std::string &Name, size_t Bytes, curandStatus_t S, const void *Host = nullptr) {
  cudaDeviceSynchronize();
  std::vector<unsigned char> H(Bytes);
  if (Host)
    H.assign(static_cast<const unsigned char *>(Host), static_cast<const unsigned char *>(Host) + Bytes);
  else
    cudaMemcpy(H.data(), Buf, Bytes, cudaMemcpyDeviceToHost);
  if (S != CURAND_STATUS_SUCCESS)
    std::printf("%s status %d\n", Name.c_str(), (int)S);
  else
    std::printf("%s %08x\n", Name.c_str(), fnv(H.data(), Bytes));
}

static curandGenerator_t make(unsigned long long Seed, bool Host = false) {
  curandGenerator_t G;
  if (Host)
    curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_MT19937);
  else
    curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937);
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
  line("mt.s1234.u32", Big * 4, curandGenerate(G, U, Big));
  line("mt.s1234.next.u32", Mid * 4, curandGenerate(G, U, Mid));
  line("mt.s1234.next2.u32", 1000 * 4, curandGenerate(G, U, 1000));
  line("mt.s1234.next3.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  for (size_t Small : {1000u, 333u, 70000u}) {
    G = make(1234);
    line("mt.s1234.first" + std::to_string(Small) + ".u32", Small * 4, curandGenerate(G, U, Small));
    line("mt.s1234.after" + std::to_string(Small) + ".u32", Mid * 4, curandGenerate(G, U, Mid));
    curandDestroyGenerator(G);
  }
  for (unsigned long long Seed : {0ull, 1ull, 0x123456789abcdefull, 0xffffffffull}) {
    G = make(Seed);
    line("mt.seed" + std::to_string(Seed) + ".u32", Mid * 4, curandGenerate(G, U, Mid));
    curandDestroyGenerator(G);
  }
  G = make(1234);
  curandGenerate(G, U, Mid);
  curandSetPseudoRandomGeneratorSeed(G, 99);
  line("mt.reseed99.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  G = make(99);
  line("mt.seed99.u32", Mid * 4, curandGenerate(G, U, Mid));
  curandDestroyGenerator(G);
  struct Dist {
    const char *Name;
    int Kind;
    size_t Elem;
    bool Hashed;
  } Dists[] = {{"f32", 0, 4, true},   {"f64", 1, 8, true},     {"nrm", 2, 4, false},
               {"nrm64", 3, 8, false}, {"lgn", 4, 4, false},    {"lgn64", 5, 8, false},
               {"pois4", 6, 4, true},  {"pois1000", 7, 4, true}};
  for (auto &Ds : Dists)
    for (size_t Count : {(size_t)Mid, (size_t)1000}) {
      G = make(1234);
      curandStatus_t S = CURAND_STATUS_SUCCESS;
      switch (Ds.Kind) {
      case 0: S = curandGenerateUniform(G, F, Count); break;
      case 1: S = curandGenerateUniformDouble(G, D, Count); break;
      case 2: S = curandGenerateNormal(G, F, Count, 1.0f, 2.0f); break;
      case 3: S = curandGenerateNormalDouble(G, D, Count, 1.0, 2.0); break;
      case 4: S = curandGenerateLogNormal(G, F, Count, 0.5f, 0.75f); break;
      case 5: S = curandGenerateLogNormalDouble(G, D, Count, 0.5, 0.75); break;
      case 6: S = curandGeneratePoisson(G, U, Count, 4.0); break;
      case 7: S = curandGeneratePoisson(G, U, Count, 1000.0); break;
      }
      std::string Name = std::string("mt.") + Ds.Name + "." + std::to_string(Count);
      if (Ds.Hashed)
        line(Name, Count * Ds.Elem, S);
      line(Name + ".after.u32", 4096 * 4, curandGenerate(G, U, 4096));
      curandDestroyGenerator(G);
    }
  for (curandOrdering_t O : {CURAND_ORDERING_PSEUDO_LEGACY, CURAND_ORDERING_PSEUDO_BEST}) {
    G = make(1234);
    curandSetGeneratorOrdering(G, O);
    std::string Name = "mt.ord" + std::to_string((int)O);
    line(Name + ".u32", Mid * 4, curandGenerate(G, U, Mid));
    line(Name + ".f32", Mid * 4, curandGenerateUniform(G, F, Mid));
    curandGenerateNormal(G, F, Mid, 0.0f, 1.0f);
    curandDestroyGenerator(G);
  }
  // Mt19937Probe.cu's calls (its names, prefixed "probe."): more seeds, a
  // reseed in the middle of a round, Poisson.
  const char *SeedName[] = {"seed4", "seed5", "seeddefault"};
  unsigned long long MoreSeeds[] = {0x100000000ull, 5489ull};
  for (int S = 0; S < 3; ++S) {
    if (S < 2) {
      G = make(MoreSeeds[S]);
    } else {
      curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937);
    }
    line(std::string("probe.") + SeedName[S], 2048 * 4, curandGenerate(G, U, 2048));
    curandDestroyGenerator(G);
  }
  std::vector<unsigned> H(140000);
  for (size_t A : {1000u, 70000u})
    for (int Host = 0; Host < 2; ++Host) {
      G = make(1234, Host);
      std::string Name = std::string("probe.") + (Host ? "h" : "") + "reseed" + std::to_string(A);
      line(Name + "a", A * 4, curandGenerate(G, Host ? H.data() : U, A), Host ? H.data() : nullptr);
      curandSetPseudoRandomGeneratorSeed(G, 99);
      line(Name + "b", 140000 * 4, curandGenerate(G, Host ? H.data() : U, 140000), Host ? H.data() : nullptr);
      curandDestroyGenerator(G);
    }
  for (int Lam : {4, 16, 30, 63, 100})
    for (int Host = 0; Host < 2; ++Host) {
      G = make(1234, Host);
      std::string Name = std::string("probe.") + (Host ? "h" : "") + "pois" + std::to_string(Lam);
      line(Name, 8192 * 4, curandGeneratePoisson(G, Host ? H.data() : U, 8192, Lam), Host ? H.data() : nullptr);
      curandDestroyGenerator(G);
    }
  // Mt19937Probe2.cu's exact ones ("probe2."): Poisson up to lambda 1700
  // (device generators), the host generator's float normals.
  for (int Lam : {1200, 1500, 1501, 1700}) {
    G = make(1234);
    line("probe2.pois" + std::to_string(Lam), 8192 * 4, curandGeneratePoisson(G, U, 8192, Lam));
    curandDestroyGenerator(G);
  }
  // Mt19937Probe3.cu's ("probe3."): up to the switch at 2000, and the
  // host generator at 150 and 300.
  for (double Lam : {1750.0, 1800.0, 1850.0, 1900.0, 1950.0, 1999.0, 1999.5}) {
    G = make(1234);
    line("probe3.pois" + std::to_string((int)(Lam * 10)), 8192 * 4, curandGeneratePoisson(G, U, 8192, Lam));
    curandDestroyGenerator(G);
  }
  for (int Lam : {150, 300}) {
    G = make(1234, true);
    line("probe3.hpois" + std::to_string(Lam), 8192 * 4, curandGeneratePoisson(G, H.data(), 8192, Lam), H.data());
    curandDestroyGenerator(G);
  }
  G = make(1234, true);
  std::vector<float> Normals(8192);
  line("probe2.hnorm0", 8192 * 4, curandGenerateNormal(G, Normals.data(), 8192, 1.0f, 2.0f), Normals.data());
  curandDestroyGenerator(G);
  G = make(1234, true);
  H.resize(Mid);
  line("mt.host.s1234.u32", Mid * 4, curandGenerate(G, H.data(), Mid), H.data());
  std::vector<float> HF(Mid);
  line("mt.host.nrm.after", Mid * 4, curandGenerateNormal(G, HF.data(), Mid, 0.0f, 1.0f), HF.data());
  curandDestroyGenerator(G);
  cudaFree(Buf);
  std::printf("done\n");
}
