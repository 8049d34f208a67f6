/// \file
/// Quasi-Monte Carlo with cuRAND's Sobol generators (host API), one
/// dimension: CURAND_RNG_QUASI_SOBOL32 for 32-bit integers and floats,
/// CURAND_RNG_QUASI_SOBOL64 for 64-bit integers and doubles, with an offset
/// to skip the start of the sequence as QMC codes do. The points are
/// printed exactly; the checks are Sobol's defining property (the first
/// 2^k points of dimension 1 are the multiples of 2^-k in some order), the
/// float/double conversions of the integers, and an integral whose QMC
/// error must be far below Monte Carlo's.
#include "../common/lib_util.h"
#include <algorithm>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

int main() {
  const size_t N = 1 << 16;
  unsigned *U;
  float *F;
  unsigned long long *L;
  double *D;
  CHECK(cudaMalloc(&U, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&F, sizeof(float) * N));
  CHECK(cudaMalloc(&L, sizeof(unsigned long long) * N));
  CHECK(cudaMalloc(&D, sizeof(double) * N));
  bool Ok = true;

  curandGenerator_t G32;
  CURAND_CHECK(curandCreateGenerator(&G32, CURAND_RNG_QUASI_SOBOL32));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G32, 1));
  CURAND_CHECK(curandGenerate(G32, U, N));
  std::vector<unsigned> Ui = download(U, N);
  std::printf("sobol32 ints:");
  for (int I = 0; I < 8; ++I)
    std::printf(" %08x", Ui[I]);
  std::printf(" ... %08x\n", Ui[N - 1]);
  std::vector<unsigned> Sorted(Ui);
  std::sort(Sorted.begin(), Sorted.end());
  bool Net = true;
  for (size_t I = 0; I < N; ++I)
    Net &= Sorted[I] == (unsigned)(I << 16);
  std::printf("sobol32 first 2^16 points form the 2^-16 grid: %s\n", Net ? "ok" : "WRONG");
  Ok &= Net;
  // The same points as floats, from offset 0 again.
  CURAND_CHECK(curandSetGeneratorOffset(G32, 0));
  CURAND_CHECK(curandGenerateUniform(G32, F, N));
  std::vector<float> Uf = download(F, N);
  bool Conv = true;
  for (size_t I = 0; I < N; ++I)
    Conv &= Uf[I] == (float)(Ui[I] * (1.0 / 4294967296.0) + 1.0 / 8589934592.0) || Uf[I] == Ui[I] * 2.3283064e-10f + 1.1641532e-10f;
  std::printf("sobol32 floats: %.9g %.9g %.9g %.9g, from the ints: %s\n", Uf[0], Uf[1], Uf[2], Uf[3],
              Conv ? "ok" : "WRONG");
  Ok &= Conv;
  // Skip the first 1000 points, as QMC codes do, then integrate x^3.
  CURAND_CHECK(curandSetGeneratorOffset(G32, 1000));
  CURAND_CHECK(curandGenerateUniform(G32, F, N));
  std::vector<float> Off = download(F, N);
  double S = 0;
  for (float X : Off)
    S += (double)X * X * X;
  S /= N;
  bool Qmc = std::fabs(S - 0.25) < 1e-4;
  std::printf("sobol32 offset 1000: %.9g %.9g; integral of x^3 %.8f %s\n", Off[0], Off[1], S, Qmc ? "ok" : "WRONG");
  Ok &= Qmc;
  CURAND_CHECK(curandDestroyGenerator(G32));

  curandGenerator_t G64;
  CURAND_CHECK(curandCreateGenerator(&G64, CURAND_RNG_QUASI_SOBOL64));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G64, 1));
  CURAND_CHECK(curandGenerateLongLong(G64, L, N));
  std::vector<unsigned long long> Li = download(L, N);
  std::printf("sobol64 ints: %016llx %016llx %016llx %016llx ... %016llx\n", Li[0], Li[1], Li[2], Li[3], Li[N - 1]);
  std::vector<unsigned long long> Sorted64(Li);
  std::sort(Sorted64.begin(), Sorted64.end());
  bool Net64 = true;
  for (size_t I = 0; I < N; ++I)
    Net64 &= Sorted64[I] == (unsigned long long)I << 48;
  std::printf("sobol64 first 2^16 points form the 2^-16 grid: %s\n", Net64 ? "ok" : "WRONG");
  Ok &= Net64;
  CURAND_CHECK(curandSetGeneratorOffset(G64, 5));
  CURAND_CHECK(curandGenerateUniformDouble(G64, D, N));
  std::vector<double> Dd = download(D, N);
  double E = 0;
  for (double X : Dd)
    E += std::exp(X);
  E /= N;
  bool Qmc64 = std::fabs(E - (M_E - 1)) < 1e-4;
  std::printf("sobol64 offset 5 doubles: %.17g %.17g; integral of e^x %.9f %s\n", Dd[0], Dd[1], E,
              Qmc64 ? "ok" : "WRONG");
  Ok &= Qmc64;
  CURAND_CHECK(curandDestroyGenerator(G64));
  CHECK(cudaFree(U));
  CHECK(cudaFree(F));
  CHECK(cudaFree(L));
  CHECK(cudaFree(D));
  return finish(Ok);
}
