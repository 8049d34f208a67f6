/// \file
/// Black-Scholes pricing of 64K European call and put options in single
/// precision (the classic CUDA sample workload): a polynomial approximation
/// of the normal CDF, expf/logf/sqrtf per option; compared with a
/// double-precision CPU price using erfc, and put-call parity checked.
#include "../common/app_util.h"
#include <vector>

__device__ float cndf(float D) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
  const float RSqrt2Pi = 0.39894228040143267793994605993438f;
  float K = 1.0f / (1.0f + 0.2316419f * fabsf(D));
  float C = RSqrt2Pi * __expf(-0.5f * D * D) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return D > 0 ? 1.0f - C : C;
}

__global__ void price(const float *S, const float *X, const float *T, float R, float V, float *Call, float *Put, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x) {
    float SqrtT = sqrtf(T[I]);
    float D1 = (logf(S[I] / X[I]) + (R + 0.5f * V * V) * T[I]) / (V * SqrtT);
    float D2 = D1 - V * SqrtT;
    float ExpRT = expf(-R * T[I]);
    Call[I] = S[I] * cndf(D1) - X[I] * ExpRT * cndf(D2);
    Put[I] = X[I] * ExpRT * (1.0f - cndf(D2)) - S[I] * (1.0f - cndf(D1));
  }
}

static double ncdf(double D) { return 0.5 * std::erfc(-D / std::sqrt(2.0)); }

int main() {
  const int N = 65536;
  const float R = 0.02f, V = 0.30f;
  std::vector<float> S(N), X(N), T(N), Call(N), Put(N);
  Lcg Rng(9);
  for (int I = 0; I < N; ++I) {
    S[I] = Rng.range(5.f, 30.f);
    X[I] = Rng.range(1.f, 100.f);
    T[I] = Rng.range(0.25f, 10.f);
  }
  float *DS, *DX, *DT, *DC, *DP;
  CHECK(cudaMalloc(&DS, N * 4));
  CHECK(cudaMalloc(&DX, N * 4));
  CHECK(cudaMalloc(&DT, N * 4));
  CHECK(cudaMalloc(&DC, N * 4));
  CHECK(cudaMalloc(&DP, N * 4));
  CHECK(cudaMemcpy(DS, S.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DX, X.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DT, T.data(), N * 4, cudaMemcpyHostToDevice));
  price<<<128, 128>>>(DS, DX, DT, R, V, DC, DP, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Call.data(), DC, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Put.data(), DP, N * 4, cudaMemcpyDeviceToHost));
  double MaxErr = 0, SumCall = 0, SumPut = 0;
  int Bad = 0, Parity = 0;
  for (int I = 0; I < N; ++I) {
    double Sq = std::sqrt(double(T[I]));
    double D1 = (std::log(double(S[I]) / X[I]) + (R + 0.5 * V * V) * T[I]) / (V * Sq), D2 = D1 - V * Sq;
    double E = std::exp(-double(R) * T[I]);
    double C = S[I] * ncdf(D1) - X[I] * E * ncdf(D2), P = X[I] * E * ncdf(-D2) - S[I] * ncdf(-D1);
    // The polynomial CDF is accurate to ~1e-7; float rounding dominates.
    double Err = std::fmax(std::fabs(Call[I] - C), std::fabs(Put[I] - P));
    MaxErr = std::fmax(MaxErr, Err);
    Bad += Err > 1e-3 * (1 + std::fabs(X[I]));
    Parity += !closeTo(double(Call[I]) - Put[I], S[I] - X[I] * E, 0, 2e-3 * (1 + X[I]) );
    SumCall += C;
    SumPut += P;
  }
  std::printf("options=%d mean call=%.4f mean put=%.4f\n", N, SumCall / N, SumPut / N);
  std::printf("price mismatches=%d parity violations=%d max error below 1e-2: %s\n", Bad, Parity,
              MaxErr < 1e-2 ? "yes" : "no");
  CHECK(cudaFree(DS));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DT));
  CHECK(cudaFree(DC));
  CHECK(cudaFree(DP));
  return finish(Bad == 0 && Parity == 0);
}
