/// \file
/// Double-precision Monte Carlo integration with cuRAND's host API, as
/// numerical codes that need more than 24 bits of randomness do it:
/// curandGenerateUniformDouble from XORWOW and Philox4_32_10 generators,
/// integrals of known value estimated on the device (a kernel evaluates the
/// integrand, the host sums in a fixed order). The uniform doubles are
/// printed exactly (%.17g); the estimates are exact functions of them and
/// are printed to 10 digits. Checked against the integrals' closed forms
/// within four standard errors.
#include "../common/lib_util.h"
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

// Integrands on the unit cube, three coordinates per sample.
__global__ void evaluate(const double *U, int Samples, int Which, double *Out) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < Samples; I += gridDim.x * blockDim.x) {
    double X = U[3 * I], Y = U[3 * I + 1], Z = U[3 * I + 2];
    double F = 0;
    if (Which == 0)
      F = X * X + Y * Y + Z * Z; // 1
    else if (Which == 1)
      F = X * Y * Z * 8.0; // 1
    else
      F = (X * X + Y * Y <= 1.0) ? 4.0 : 0.0; // pi
    Out[I] = F;
  }
}

struct Kind {
  const char *Name;
  curandRngType_t Type;
};

int main() {
  const int Samples = 1 << 19;
  double *U, *F;
  CHECK(cudaMalloc(&U, sizeof(double) * 3 * Samples));
  CHECK(cudaMalloc(&F, sizeof(double) * Samples));
  const Kind Kinds[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW}, {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10}};
  const char *Names[] = {"x^2+y^2+z^2", "8xyz", "quarter disc"};
  const double Exact[] = {1.0, 1.0, M_PI};
  bool Ok = true;
  for (const Kind &K : Kinds) {
    curandGenerator_t Gen;
    CURAND_CHECK(curandCreateGenerator(&Gen, K.Type));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 0x5eed5eedULL));
    CURAND_CHECK(curandGenerateUniformDouble(Gen, U, 3 * (size_t)Samples));
    std::vector<double> Uh = download(U, 3 * (size_t)Samples);
    std::printf("%s doubles: %.17g %.17g %.17g %.17g\n", K.Name, Uh[0], Uh[1], Uh[2], Uh[3 * Samples - 1]);
    bool InRange = true;
    for (double V : Uh)
      InRange &= V > 0.0 && V <= 1.0;
    Ok &= InRange;
    for (int W = 0; W < 3; ++W) {
      evaluate<<<256, 256>>>(U, Samples, W, F);
      CHECK(cudaGetLastError());
      std::vector<double> Fh = download(F, Samples);
      double S = 0, Q = 0;
      for (double V : Fh) {
        S += V;
        Q += V * V;
      }
      double Mean = S / Samples;
      double Err = std::sqrt((Q / Samples - Mean * Mean) / Samples);
      bool This = std::fabs(Mean - Exact[W]) < 4 * Err;
      std::printf("%s %-12s %.10f (exact %.10f) %s\n", K.Name, Names[W], Mean, Exact[W], This ? "ok" : "WRONG");
      Ok &= This;
    }
    CURAND_CHECK(curandDestroyGenerator(Gen));
  }
  CHECK(cudaFree(U));
  CHECK(cudaFree(F));
  return finish(Ok);
}
