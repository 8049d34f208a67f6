/// \file
/// Poisson counts from cuRAND, as event simulations draw them: the host
/// API's curandGeneratePoisson from XORWOW, Philox4_32_10, MRG32k3a,
/// Sobol32 and Sobol64 at small and large lambdas, successive calls, and
/// the device API: a kernel drawing curand_discrete from a distribution
/// made by curandCreatePoissonDistribution, and curand_poisson from
/// per-thread XORWOW states. The counts are printed exactly; the checks are
/// the sample mean and variance against lambda, and the status for
/// lambda <= 0.
#include "../common/lib_util.h"
#include <curand.h>
#include <curand_kernel.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

__global__ void discreteKernel(curandDiscreteDistribution_t Dist, unsigned *Out, int Per) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  curandState S;
  curand_init(2024, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_discrete(&S, Dist);
}

__global__ void poissonKernel(double Lambda, unsigned *Out, int Per) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  curandState S;
  curand_init(2024, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_poisson(&S, Lambda);
}

static bool moments(const char *Name, const std::vector<unsigned> &V, double Lambda, double Tol) {
  double M = 0, Q = 0;
  for (unsigned X : V)
    M += X;
  M /= V.size();
  for (unsigned X : V)
    Q += (X - M) * (X - M);
  Q /= V.size() - 1;
  bool Ok = std::fabs(M - Lambda) < Tol * std::sqrt(Lambda) && std::fabs(Q / Lambda - 1) < 0.1;
  std::printf("%s: mean %.6f variance %.6f (lambda %g) %s\n", Name, M, Q, Lambda, Ok ? "ok" : "WRONG");
  return Ok;
}

static void show(const char *Name, const std::vector<unsigned> &V) {
  std::printf("%s:", Name);
  for (int I = 0; I < 12; ++I)
    std::printf(" %u", V[I]);
  std::printf(" ... %u\n", V.back());
}

int main() {
  bool Ok = true;
  const size_t N = 1 << 16;
  unsigned *D;
  CHECK(cudaMalloc(&D, sizeof(unsigned) * N));
  struct Case {
    curandRngType_t Type;
    const char *Name;
    double Lambda;
  } Cases[] = {{CURAND_RNG_PSEUDO_XORWOW, "xorwow", 0.25},   {CURAND_RNG_PSEUDO_XORWOW, "xorwow", 7.5},
               {CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 2.0}, {CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 250.0},
               {CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 12.0},   {CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 999.0},
               {CURAND_RNG_QUASI_SOBOL32, "sobol32", 5.0},       {CURAND_RNG_QUASI_SOBOL64, "sobol64", 40.0}};
  for (const Case &C : Cases) {
    curandGenerator_t G;
    CURAND_CHECK(curandCreateGenerator(&G, C.Type));
    if (C.Type == CURAND_RNG_QUASI_SOBOL32 || C.Type == CURAND_RNG_QUASI_SOBOL64)
      CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G, 2));
    else
      CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(G, 777));
    CURAND_CHECK(curandGeneratePoisson(G, D, N, C.Lambda));
    std::vector<unsigned> V = download(D, N);
    char Name[64];
    std::snprintf(Name, sizeof Name, "%s lambda %g", C.Name, C.Lambda);
    show(Name, V);
    Ok &= moments(Name, V, C.Lambda, 0.05);
    // A second call continues the sequence.
    CURAND_CHECK(curandGeneratePoisson(G, D, 1024, C.Lambda));
    V = download(D, 1024);
    std::snprintf(Name, sizeof Name, "%s next call", C.Name);
    show(Name, V);
    CURAND_CHECK(curandDestroyGenerator(G));
  }
  curandGenerator_t G;
  CURAND_CHECK(curandCreateGenerator(&G, CURAND_RNG_PSEUDO_XORWOW));
  std::printf("lambda 0: status %d; lambda -1: status %d\n", (int)curandGeneratePoisson(G, D, 16, 0.0),
              (int)curandGeneratePoisson(G, D, 16, -1.0));
  CURAND_CHECK(curandDestroyGenerator(G));

  // Device API: a table-driven distribution and curand_poisson.
  for (double Lambda : {3.0, 80.0}) {
    curandDiscreteDistribution_t Dist;
    CURAND_CHECK(curandCreatePoissonDistribution(Lambda, &Dist));
    discreteKernel<<<64, 128>>>(Dist, D, 8);
    CHECK(cudaGetLastError());
    std::vector<unsigned> V = download(D, 64 * 128 * 8);
    char Name[64];
    std::snprintf(Name, sizeof Name, "curand_discrete lambda %g", Lambda);
    show(Name, V);
    Ok &= moments(Name, V, Lambda, 0.05);
    CURAND_CHECK(curandDestroyDistribution(Dist));
  }
  for (double Lambda : {6.0, 200.0}) {
    poissonKernel<<<64, 128>>>(Lambda, D, 8);
    CHECK(cudaGetLastError());
    std::vector<unsigned> V = download(D, 64 * 128 * 8);
    char Name[64];
    std::snprintf(Name, sizeof Name, "curand_poisson lambda %g", Lambda);
    show(Name, V);
    Ok &= moments(Name, V, Lambda, 0.05);
  }
  CHECK(cudaFree(D));
  return finish(Ok);
}
