/// \file
/// Log-normal and normal variates in single and double precision from an
/// MRG32k3a generator (cuRAND's host API), as risk and particle-size
/// simulations draw them: curandGenerateLogNormal(Double) with a location
/// and scale, curandGenerateNormalDouble with a mean and deviation. Sample
/// moments are printed to 4 significant decimals (the variates' last bits
/// come from the GPU's transcendental functions); the uniform doubles of the
/// same generator are printed exactly. Checked against the distributions'
/// moments.
#include "../common/lib_util.h"
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

template <typename T> static void moments(const std::vector<T> &V, double &Mean, double &Sd) {
  double S = 0, Q = 0;
  for (T X : V)
    S += X;
  Mean = S / V.size();
  for (T X : V)
    Q += (X - Mean) * (X - Mean);
  Sd = std::sqrt(Q / (V.size() - 1));
}

static bool reportMoments(const char *Name, double Mean, double Sd, double WantMean, double WantSd, double Rel) {
  bool Ok = closeTo(Mean, WantMean, Rel, 0.002) && closeTo(Sd, WantSd, 2 * Rel, 0.002);
  std::printf("%-22s mean %.4f sd %.4f (expected %.4f %.4f) %s\n", Name, Mean, Sd, WantMean, WantSd,
              Ok ? "ok" : "WRONG");
  return Ok;
}

int main() {
  const size_t N = 1 << 20;
  float *F;
  double *D;
  CHECK(cudaMalloc(&F, sizeof(float) * N));
  CHECK(cudaMalloc(&D, sizeof(double) * N));
  curandGenerator_t Gen;
  CURAND_CHECK(curandCreateGenerator(&Gen, CURAND_RNG_PSEUDO_MRG32K3A));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 987654321ULL));
  bool Ok = true;

  CURAND_CHECK(curandGenerateUniformDouble(Gen, D, 1000));
  std::vector<double> U = download(D, 1000);
  std::printf("mrg32k3a uniform doubles: %.17g %.17g %.17g %.17g\n", U[0], U[1], U[2], U[999]);

  double Mean, Sd;
  const float Mu = 0.5f, Sigma = 0.25f;
  CURAND_CHECK(curandGenerateLogNormal(Gen, F, N, Mu, Sigma));
  moments(download(F, N), Mean, Sd);
  double Lm = std::exp(Mu + Sigma * Sigma / 2), Ls = Lm * std::sqrt(std::exp(Sigma * Sigma) - 1);
  Ok &= reportMoments("lognormal float", Mean, Sd, Lm, Ls, 0.01);

  const double MuD = -1.0, SigmaD = 0.5;
  CURAND_CHECK(curandGenerateLogNormalDouble(Gen, D, N, MuD, SigmaD));
  moments(download(D, N), Mean, Sd);
  Lm = std::exp(MuD + SigmaD * SigmaD / 2);
  Ls = Lm * std::sqrt(std::exp(SigmaD * SigmaD) - 1);
  Ok &= reportMoments("lognormal double", Mean, Sd, Lm, Ls, 0.01);

  CURAND_CHECK(curandGenerateNormalDouble(Gen, D, N, 10.0, 3.0));
  std::vector<double> Nd = download(D, N);
  moments(Nd, Mean, Sd);
  Ok &= reportMoments("normal double", Mean, Sd, 10.0, 3.0, 0.005);
  size_t Within = 0;
  for (double X : Nd)
    Within += std::fabs(X - 10.0) <= 3.0;
  double Frac = double(Within) / N;
  bool Rule = std::fabs(Frac - 0.6827) < 0.005;
  std::printf("normal double within 1 sd: %.3f %s\n", Frac, Rule ? "ok" : "WRONG");
  Ok &= Rule;

  CURAND_CHECK(curandGenerateNormal(Gen, F, N, -2.0f, 0.1f));
  moments(download(F, N), Mean, Sd);
  Ok &= reportMoments("normal float", Mean, Sd, -2.0, 0.1, 0.005);

  CURAND_CHECK(curandDestroyGenerator(Gen));
  CHECK(cudaFree(F));
  CHECK(cudaFree(D));
  return finish(Ok);
}
