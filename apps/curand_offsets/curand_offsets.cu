/// \file
/// Reproducible streams with cuRAND's host API, as simulations that
/// checkpoint or split work use them: curandSetGeneratorOffset to start a
/// sequence part-way, successive generate calls continuing one sequence,
/// and curandGenerateSeeds after a seed change, for XORWOW, MRG32k3a and
/// Philox4_32_10. The values are printed exactly (hex); the checks are the
/// sequence identities themselves: offset k gives the reference's values
/// from k on, and two calls of n give the values of one call of 2n.
#include "../common/lib_util.h"
#include <cstring>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

static unsigned bitsOf(float F) {
  unsigned U;
  std::memcpy(&U, &F, 4);
  return U;
}

struct Kind {
  const char *Name;
  curandRngType_t Type;
};

int main() {
  const size_t N = 20000;
  unsigned *U;
  float *F;
  CHECK(cudaMalloc(&U, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&F, sizeof(float) * N));
  const Kind Kinds[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW},
                        {"mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A},
                        {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10}};
  bool Ok = true;
  for (const Kind &K : Kinds) {
    curandGenerator_t Gen;
    CURAND_CHECK(curandCreateGenerator(&Gen, K.Type));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 5150ULL));
    // The reference: one call from offset 0.
    CURAND_CHECK(curandGenerateUniform(Gen, F, N));
    std::vector<float> Ref = download(F, N);
    // Two calls of N/2 continue one sequence.
    CURAND_CHECK(curandSetGeneratorOffset(Gen, 0));
    CURAND_CHECK(curandGenerateUniform(Gen, F, N / 2));
    CURAND_CHECK(curandGenerateUniform(Gen, F + N / 2, N / 2));
    std::vector<float> Two = download(F, N);
    bool Continues = Two == Ref;
    // Offsets that land inside a thread's share and past the first round.
    const size_t Offsets[] = {1, 7, 4096, 12345};
    bool Offs = true;
    for (size_t Off : Offsets) {
      CURAND_CHECK(curandSetGeneratorOffset(Gen, Off));
      CURAND_CHECK(curandGenerateUniform(Gen, F, 64));
      std::vector<float> V = download(F, 64);
      bool Same = true;
      for (size_t I = 0; I < 64 && Off + I < N; ++I)
        Same &= V[I] == Ref[Off + I];
      std::printf("%-8s offset %5zu: %08x %08x %08x %08x\n", K.Name, Off, bitsOf(V[0]), bitsOf(V[1]), bitsOf(V[2]),
                  bitsOf(V[63]));
      Offs &= Same;
    }
    // A large offset, as a job that resumes after 10^9 draws.
    CURAND_CHECK(curandSetGeneratorOffset(Gen, 1000000000ULL));
    CURAND_CHECK(curandGenerate(Gen, U, 8));
    std::vector<unsigned> Far = download(U, 8);
    std::printf("%-8s offset 1e9 bits:", K.Name);
    for (unsigned X : Far)
      std::printf(" %08x", X);
    std::printf("\n");
    // A new seed keeps the position; the offset is set back to 0.
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 77ULL));
    CURAND_CHECK(curandSetGeneratorOffset(Gen, 0));
    CURAND_CHECK(curandGenerateSeeds(Gen));
    CURAND_CHECK(curandGenerate(Gen, U, 4));
    std::vector<unsigned> S = download(U, 4);
    std::printf("%-8s seed 77 bits: %08x %08x %08x %08x\n", K.Name, S[0], S[1], S[2], S[3]);
    std::printf("%-8s first %08x, value %d %08x: continues %s, offsets %s\n", K.Name, bitsOf(Ref[0]), (int)N - 1,
                bitsOf(Ref[N - 1]), Continues ? "ok" : "WRONG", Offs ? "ok" : "WRONG");
    Ok &= Continues && Offs;
    CURAND_CHECK(curandDestroyGenerator(Gen));
  }
  CHECK(cudaFree(U));
  CHECK(cudaFree(F));
  return finish(Ok);
}
