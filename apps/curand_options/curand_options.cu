/// \file
/// European option pricing by Monte Carlo, the way quant codes use cuRAND's
/// host API: a Philox4_32_10 generator, standard normals for the terminal
/// price of geometric Brownian motion, then (on the device) a kernel that
/// turns them into discounted payoffs. The prices are sums over a million
/// paths, printed to 4 decimals (float normals come from the GPU's
/// approximate sine/cosine, so their last bits are not part of the
/// contract); the raw 32-bit draws of the same generator are printed
/// exactly. Checked against Black-Scholes' closed form (within 1%) and a
/// CPU payoff sum over the same normals.
#include "../common/lib_util.h"
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

struct Option {
  const char *Name;
  double S, K, R, Sigma, T;
  bool Call;
};

static double normCdf(double X) { return 0.5 * std::erfc(-X / std::sqrt(2.0)); }

static double blackScholes(const Option &O) {
  double D1 = (std::log(O.S / O.K) + (O.R + 0.5 * O.Sigma * O.Sigma) * O.T) / (O.Sigma * std::sqrt(O.T));
  double D2 = D1 - O.Sigma * std::sqrt(O.T);
  double Disc = std::exp(-O.R * O.T);
  return O.Call ? O.S * normCdf(D1) - O.K * Disc * normCdf(D2) : O.K * Disc * normCdf(-D2) - O.S * normCdf(-D1);
}

// Payoffs in double from the float normals: the device and CPU sums then
// differ only by summation order.
__global__ void payoffs(const float *Z, int N, Option O, double *Out) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x) {
    double St = O.S * exp((O.R - 0.5 * O.Sigma * O.Sigma) * O.T + O.Sigma * sqrt(O.T) * (double)Z[I]);
    double P = O.Call ? St - O.K : O.K - St;
    Out[I] = P > 0 ? P * exp(-O.R * O.T) : 0.0;
  }
}

int main() {
  const int Paths = 1 << 20;
  float *Z;
  double *Pay;
  unsigned *Raw;
  CHECK(cudaMalloc(&Z, sizeof(float) * Paths));
  CHECK(cudaMalloc(&Pay, sizeof(double) * Paths));
  CHECK(cudaMalloc(&Raw, sizeof(unsigned) * 8));
  curandGenerator_t Gen;
  CURAND_CHECK(curandCreateGenerator(&Gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 42ULL));
  CURAND_CHECK(curandGenerate(Gen, Raw, 8));
  std::vector<unsigned> R = download(Raw, 8);
  std::printf("philox seed 42 raw:");
  for (unsigned V : R)
    std::printf(" %08x", V);
  std::printf("\n");
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gen, 2718ULL));
  CURAND_CHECK(curandSetGeneratorOffset(Gen, 0));
  CURAND_CHECK(curandGenerateNormal(Gen, Z, Paths, 0.0f, 1.0f));
  std::vector<float> Zh = download(Z, Paths);
  double Mean = 0, Var = 0;
  for (float V : Zh)
    Mean += V;
  Mean /= Paths;
  for (float V : Zh)
    Var += (V - Mean) * (V - Mean);
  Var /= Paths - 1;
  std::printf("normals mean %.4f variance %.4f\n", Mean, Var);
  bool Ok = std::fabs(Mean) < 0.005 && std::fabs(Var - 1) < 0.01;
  const Option Options[] = {{"call ATM", 100, 100, 0.05, 0.2, 1.0, true},
                            {"call OTM", 100, 120, 0.03, 0.25, 0.5, true},
                            {"put ITM", 100, 110, 0.05, 0.3, 2.0, false},
                            {"put OTM", 50, 40, 0.01, 0.4, 0.25, false}};
  for (const Option &O : Options) {
    payoffs<<<256, 256>>>(Z, Paths, O, Pay);
    CHECK(cudaGetLastError());
    std::vector<double> P = download(Pay, Paths);
    double Gpu = 0, Cpu = 0;
    for (double V : P)
      Gpu += V;
    for (float V : Zh) {
      double St = O.S * std::exp((O.R - 0.5 * O.Sigma * O.Sigma) * O.T + O.Sigma * std::sqrt(O.T) * (double)V);
      double Pv = O.Call ? St - O.K : O.K - St;
      Cpu += Pv > 0 ? Pv * std::exp(-O.R * O.T) : 0.0;
    }
    Gpu /= Paths;
    Cpu /= Paths;
    double Exact = blackScholes(O);
    bool This = closeTo(Gpu, Exact, 0.01, 0.005) && closeTo(Gpu, Cpu, 1e-9, 1e-12);
    std::printf("%-9s monte carlo %.4f black-scholes %.4f %s\n", O.Name, Gpu, Exact, This ? "ok" : "WRONG");
    Ok &= This;
  }
  CURAND_CHECK(curandDestroyGenerator(Gen));
  CHECK(cudaFree(Z));
  CHECK(cudaFree(Pay));
  CHECK(cudaFree(Raw));
  return finish(Ok);
}
