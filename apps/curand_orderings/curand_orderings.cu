/// \file
/// The orderings of cuRAND's host API (curandSetGeneratorOrdering): how one
/// generator's sequence is spread over the GPU's threads. Programs that
/// pick BEST or DYNAMIC for speed and LEGACY or SEEDED for reproducibility
/// across versions print these values; NVIDIA's exact bits are the
/// contract. DYNAMIC is left out: its spread follows the GPU's SM count,
/// so it differs between GPUs by design. For each generator and ordering it prints the first 32-bit
/// results (hex) and a hash of 65536 of them; the check is statistical
/// (bit balance and uniform mean) and that a reset to the same ordering
/// repeats the same values.
#include "../common/lib_util.h"
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

struct Case {
  const char *Gen, *Order;
  curandRngType_t Type;
  curandOrdering_t Ordering;
};

int main() {
  const size_t N = 65536;
  unsigned *U;
  CHECK(cudaMalloc(&U, sizeof(unsigned) * N));
  const Case Cases[] = {
      {"xorwow", "default", CURAND_RNG_PSEUDO_XORWOW, CURAND_ORDERING_PSEUDO_DEFAULT},
      {"xorwow", "best", CURAND_RNG_PSEUDO_XORWOW, CURAND_ORDERING_PSEUDO_BEST},
      {"xorwow", "seeded", CURAND_RNG_PSEUDO_XORWOW, CURAND_ORDERING_PSEUDO_SEEDED},
      {"xorwow", "legacy", CURAND_RNG_PSEUDO_XORWOW, CURAND_ORDERING_PSEUDO_LEGACY},
      {"mrg32k3a", "default", CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_DEFAULT},
      {"mrg32k3a", "legacy", CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_LEGACY},
      {"mrg32k3a", "best", CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_BEST},
      {"philox", "default", CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_ORDERING_PSEUDO_DEFAULT},
  };
  bool Ok = true;
  for (const Case &C : Cases) {
    curandGenerator_t Gen;
    CURAND_CHECK(curandCreateGenerator(&Gen, C.Type));
    CURAND_CHECK(curandSetGeneratorOrdering(Gen, C.Ordering));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 31337ULL));
    CURAND_CHECK(curandGenerate(Gen, U, N));
    std::vector<unsigned> V = download(U, N);
    // The same ordering and seed again: the same values.
    CURAND_CHECK(curandSetGeneratorOffset(Gen, 0));
    CURAND_CHECK(curandGenerate(Gen, U, N));
    bool Repeats = download(U, N) == V;
    unsigned long long Hash = 1469598103934665603ULL;
    long long Ones[32] = {0};
    double Mean = 0;
    for (unsigned X : V) {
      Hash = (Hash ^ X) * 1099511628211ULL;
      for (int B = 0; B < 32; ++B)
        Ones[B] += (X >> B) & 1;
      Mean += X * (1.0 / 4294967296.0);
    }
    Mean /= N;
    bool Balanced = std::fabs(Mean - 0.5) < 0.005;
    for (int B = 0; B < 32; ++B)
      Balanced &= std::fabs(Ones[B] / double(N) - 0.5) < 0.01;
    std::printf("%-8s %-7s %08x %08x %08x %08x hash %016llx %s\n", C.Gen, C.Order, V[0], V[1], V[2], V[N - 1], Hash,
                Balanced && Repeats ? "ok" : "WRONG");
    Ok &= Balanced && Repeats;
    CURAND_CHECK(curandDestroyGenerator(Gen));
  }
  CHECK(cudaFree(U));
  return finish(Ok);
}
