/// \file
/// Scrambled Sobol sequences from cuRAND: the host API's
/// CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 (3 dimensions) and
/// SCRAMBLED_SOBOL64 (2 dimensions) with offsets, floats and doubles, and
/// the device API fed with the library's scrambled direction vectors and
/// scramble constants (curandGetScrambleConstants32/64). The values are
/// printed exactly; the checks are what a scrambled Sobol sequence keeps
/// (each dimension's first 2^k points still fall one in each interval of
/// width 2^-k), that the device API gives the host API's points, and a
/// 3-dimensional integral.
#include "../common/sobol_util.h"

int main() {
  bool Ok = true;
  const unsigned Dims = 3, Points = 2048;
  const size_t N = Dims * Points;
  auto [U, F, L, D] = allocDraws(N);

  curandGenerator_t G = quasiGenerator(CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, Dims);
  CURAND_CHECK(curandGenerate(G, U, N));
  std::vector<unsigned> Ui = download(U, N);
  Ok &= dumpDims("scrambled sobol32", Ui, Dims, Points, 5, "strata", 21);
  unsigned *C32;
  CURAND_CHECK(curandGetScrambleConstants32(&C32));
  curandDirectionVectors32_t *V32;
  CURAND_CHECK(curandGetDirectionVectors32(&V32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  std::printf("scramble constants 32: %08x %08x %08x; scrambled vectors dim 1: %08x %08x %08x\n", C32[0], C32[1],
              C32[2], V32[1][0], V32[1][1], V32[1][31]);
  bool Same = deviceSobol<unsigned, true>(V32, C32, Dims, Points, 0) == Ui;
  std::printf("device API with the scrambled vectors and constants: %s\n", Same ? "ok" : "WRONG");
  Ok &= Same;

  CURAND_CHECK(curandSetGeneratorOffset(G, 100));
  CURAND_CHECK(curandGenerateUniform(G, F, N));
  std::vector<float> Uf = download(F, N);
  double Sum = 0;
  for (unsigned I = 0; I < Points; ++I)
    Sum += Uf[I] * Uf[I] + Uf[Points + I] * Uf[2 * Points + I];
  Sum /= Points;
  bool Qmc = std::fabs(Sum - (1.0 / 3 + 0.25)) < 2e-3;
  std::printf("offset 100 floats: %.9g %.9g %.9g; integral of x^2 + yz %.8f %s\n", Uf[0], Uf[Points + 1],
              Uf[2 * Points + 2], Sum, Qmc ? "ok" : "WRONG");
  Ok &= Qmc;
  CURAND_CHECK(curandSetGeneratorOffset(G, 5));
  CURAND_CHECK(curandGenerateUniformDouble(G, D, Dims * 8));
  std::vector<double> Dd = download(D, Dims * 8);
  std::printf("offset 5 doubles: %.17g %.17g %.17g\n", Dd[0], Dd[8], Dd[23]);
  CURAND_CHECK(curandDestroyGenerator(G));

  const unsigned Dims64 = 2;
  G = quasiGenerator(CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, Dims64);
  CURAND_CHECK(curandSetGeneratorOffset(G, 9));
  CURAND_CHECK(curandGenerateLongLong(G, L, Dims64 * Points));
  std::vector<unsigned long long> Li = download(L, Dims64 * Points);
  dumpDims("scrambled sobol64 offset 9", Li, Dims64, Points, 2);
  unsigned long long *C64;
  CURAND_CHECK(curandGetScrambleConstants64(&C64));
  curandDirectionVectors64_t *V64;
  CURAND_CHECK(curandGetDirectionVectors64(&V64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
  std::printf("scramble constants 64: %016llx %016llx\n", C64[0], C64[1]);
  bool Same64 = deviceSobol<unsigned long long, true>(V64, C64, Dims64, Points, 9) == Li;
  std::printf("device API 64 with the scrambled vectors and constants: %s\n", Same64 ? "ok" : "WRONG");
  Ok &= Same64;
  CURAND_CHECK(curandSetGeneratorOffset(G, 0));
  CURAND_CHECK(curandGenerateNormalDouble(G, D, Dims64 * 16, 2.0, 0.5));
  Dd = download(D, Dims64 * 16);
  std::printf("scrambled sobol64 normals: %.17g %.17g %.17g\n", Dd[0], Dd[16], Dd[31]);
  CURAND_CHECK(curandDestroyGenerator(G));
  freeDraws({U, F, L, D});
  return finish(Ok);
}
