/// \file
/// Multi-dimensional quasi-Monte Carlo with cuRAND's Sobol generators: the
/// host API's CURAND_RNG_QUASI_SOBOL32 in 5 dimensions and SOBOL64 in 4
/// (results laid out dimension by dimension), an offset, floats, doubles
/// and inverse-CDF normals, and the device API fed with the library's
/// direction vectors (curandGetDirectionVectors32/64, JOEKUO6) in a kernel.
/// The values are printed exactly; the checks are properties every Sobol
/// sequence has (each dimension's first 2^k points are the multiples of
/// 2^-k), that the device API gives the same points as the host API, and a
/// 5-dimensional integral whose QMC error must be small.
#include "../common/sobol_util.h"

int main() {
  bool Ok = true;
  const unsigned Dims = 5, Points = 4096;
  const size_t N = Dims * Points;
  auto [U, F, L, D] = allocDraws(N);

  curandGenerator_t G = quasiGenerator(CURAND_RNG_QUASI_SOBOL32, Dims);
  CURAND_CHECK(curandGenerate(G, U, N));
  std::vector<unsigned> Ui = download(U, N);
  Ok &= dumpDims("sobol32", Ui, Dims, Points, 6, "grid", 20);
  // The same points from the device API and the library's direction vectors.
  curandDirectionVectors32_t *V32;
  CURAND_CHECK(curandGetDirectionVectors32(&V32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  std::printf("direction vectors 32, dim 2: %08x %08x %08x %08x; dim 4: %08x %08x %08x\n", V32[2][0], V32[2][1],
              V32[2][2], V32[2][31], V32[4][0], V32[4][1], V32[4][5]);
  bool Same = deviceSobol<unsigned, false>(V32, nullptr, Dims, Points, 0) == Ui;
  std::printf("device API curand_init(vectors[d], 0) gives the host API's points: %s\n", Same ? "ok" : "WRONG");
  Ok &= Same;

  // Offset 1000 points, floats; a second call continues.
  CURAND_CHECK(curandSetGeneratorOffset(G, 1000));
  CURAND_CHECK(curandGenerateUniform(G, F, N));
  std::vector<float> Uf = download(F, N);
  double Sum = 0;
  for (unsigned I = 0; I < Points; ++I) {
    double P = 1;
    for (unsigned K = 0; K < Dims; ++K)
      P *= 2 * Uf[K * Points + I];
    Sum += P;
  }
  Sum /= Points;
  bool Qmc = std::fabs(Sum - 1) < 0.01;
  std::printf("sobol32 offset 1000 floats: %.9g %.9g %.9g %.9g; integral of prod 2x_k %.8f %s\n", Uf[0],
              Uf[Points], Uf[2 * Points], Uf[4 * Points + 7], Sum, Qmc ? "ok" : "WRONG");
  Ok &= Qmc;
  CURAND_CHECK(curandGenerate(G, U, Dims * 16));
  Ui = download(U, Dims * 16);
  std::printf("sobol32 next call:");
  for (int I = 0; I < 4; ++I)
    std::printf(" %08x", Ui[I * 16 + 3]);
  std::printf("\n");
  CURAND_CHECK(curandSetGeneratorOffset(G, 7));
  CURAND_CHECK(curandGenerateNormal(G, F, Dims * 64, 0.0f, 1.0f));
  Uf = download(F, Dims * 64);
  std::printf("sobol32 offset 7 normals: %.9g %.9g %.9g %.9g\n", Uf[0], Uf[64], Uf[128], Uf[319]);
  int Status = curandGenerate(G, U, Dims * 4 + 1);
  std::printf("sobol32 length not a multiple of the dimensions: status %d\n", Status);
  CURAND_CHECK(curandDestroyGenerator(G));

  // Sobol64 in 4 dimensions, 64-bit integers and doubles.
  const unsigned Dims64 = 4;
  G = quasiGenerator(CURAND_RNG_QUASI_SOBOL64, Dims64);
  CURAND_CHECK(curandSetGeneratorOffset(G, 3));
  CURAND_CHECK(curandGenerateLongLong(G, L, Dims64 * Points));
  std::vector<unsigned long long> Li = download(L, Dims64 * Points);
  dumpDims("sobol64 offset 3", Li, Dims64, Points, 3);
  curandDirectionVectors64_t *V64;
  CURAND_CHECK(curandGetDirectionVectors64(&V64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  std::printf("direction vectors 64, dim 3: %016llx %016llx %016llx\n", V64[3][0], V64[3][1], V64[3][63]);
  bool Same64 = deviceSobol<unsigned long long, false>(V64, nullptr, Dims64, Points, 3) == Li;
  std::printf("device API curand_init(vectors[d], 3) gives the host API's points: %s\n", Same64 ? "ok" : "WRONG");
  Ok &= Same64;
  CURAND_CHECK(curandSetGeneratorOffset(G, 0));
  CURAND_CHECK(curandGenerateUniformDouble(G, D, Dims64 * Points));
  std::vector<double> Dd = download(D, Dims64 * Points);
  double E = 0;
  for (unsigned I = 0; I < Points; ++I)
    E += std::exp(Dd[I] + Dd[Points + I] - Dd[2 * Points + I] * Dd[3 * Points + I]);
  E /= Points;
  // Integral over [0,1]^4 of e^(x+y) e^(-zw) = (e-1)^2 * int_0^1 (1-e^-z)/z dz.
  const double Exact = (M_E - 1) * (M_E - 1) * 0.79659959929705313;
  bool Qmc64 = std::fabs(E - Exact) < 2e-3;
  std::printf("sobol64 doubles: %.17g %.17g %.17g; integral %.9f (exact %.9f) %s\n", Dd[0], Dd[Points + 1],
              Dd[3 * Points + 2], E, Exact, Qmc64 ? "ok" : "WRONG");
  Ok &= Qmc64;
  CURAND_CHECK(curandSetGeneratorOffset(G, 11));
  CURAND_CHECK(curandGenerateLogNormalDouble(G, D, Dims64 * 8, 0.0, 0.5));
  Dd = download(D, Dims64 * 8);
  std::printf("sobol64 offset 11 log-normals: %.17g %.17g %.17g\n", Dd[0], Dd[9], Dd[31]);
  CURAND_CHECK(curandDestroyGenerator(G));
  freeDraws({U, F, L, D});
  return finish(Ok);
}
