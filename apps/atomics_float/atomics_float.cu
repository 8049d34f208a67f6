/// \file
/// Floating-point atomics: float and double atomicAdd into a histogram of
/// weights, __half and __half2 atomicAdd, and compare-and-swap loops for the
/// operations the hardware lacks (float max, double min, float multiply).
/// Inputs are chosen so every sum is exact: then the order in which the
/// atomics land cannot change the answer, and results compare exactly.
#include "../common/app_util.h"
#include <cuda_fp16.h>
#include <vector>

__device__ float atomicMaxFloat(float *Addr, float V) {
  int *A = (int *)Addr;
  int Old = *A, Seen;
  do {
    Seen = Old;
    if (__int_as_float(Seen) >= V)
      break;
    Old = atomicCAS(A, Seen, __float_as_int(V));
  } while (Old != Seen);
  return __int_as_float(Old);
}

__device__ double atomicMinDouble(double *Addr, double V) {
  unsigned long long *A = (unsigned long long *)Addr;
  unsigned long long Old = *A, Seen;
  do {
    Seen = Old;
    if (__longlong_as_double(Seen) <= V)
      break;
    Old = atomicCAS(A, Seen, __double_as_longlong(V));
  } while (Old != Seen);
  return __longlong_as_double(Old);
}

__device__ float atomicMulFloat(float *Addr, float V) {
  int *A = (int *)Addr;
  int Old = *A, Seen;
  do {
    Seen = Old;
    Old = atomicCAS(A, Seen, __float_as_int(__int_as_float(Seen) * V));
  } while (Old != Seen);
  return __int_as_float(Old);
}

__global__ void accumulate(const int *Bin, const float *Wt, int N, float *HistF, double *HistD, __half *HistH,
                           __half2 *HistH2, float *MaxF, double *MinD, float *Prod) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    int B = Bin[I];
    float W = Wt[I];
    atomicAdd(&HistF[B], W);
    atomicAdd(&HistD[B], double(W) * 0.5);
    atomicAdd(&HistH[B], __float2half(1.0f));
    atomicAdd(&HistH2[B], __floats2half2_rn(1.0f, 2.0f));
    atomicMaxFloat(MaxF, W - float(B));
    atomicMinDouble(MinD, double(W) + B);
    if (I < 64)
      atomicMulFloat(Prod, (I & 1) ? 2.0f : 0.5f * ((I & 2) ? 1.0f : 4.0f));
  }
}

int main() {
  const int N = 1 << 14, Bins = 64;
  std::vector<int> Bin(N);
  std::vector<float> Wt(N);
  Lcg Rng(2024);
  for (int I = 0; I < N; ++I) {
    Bin[I] = int(Rng.below(Bins));
    Wt[I] = float(Rng.below(128)) / 8.0f; // multiples of 1/8 below 16: exact sums
  }
  std::vector<float> WantF(Bins, 0.f);
  std::vector<double> WantD(Bins, 0.0);
  std::vector<int> Count(Bins, 0);
  float WantMax = -1e30f, WantProd = 1.0f;
  double WantMin = 1e300;
  for (int I = 0; I < N; ++I) {
    WantF[Bin[I]] += Wt[I];
    WantD[Bin[I]] += double(Wt[I]) * 0.5;
    Count[Bin[I]]++;
    WantMax = std::fmax(WantMax, Wt[I] - float(Bin[I]));
    WantMin = std::fmin(WantMin, double(Wt[I]) + Bin[I]);
    if (I < 64)
      WantProd *= (I & 1) ? 2.0f : 0.5f * ((I & 2) ? 1.0f : 4.0f);
  }
  int *DBin;
  float *DWt, *DHistF, *DMaxF, *DProd;
  double *DHistD, *DMinD;
  __half *DHistH;
  __half2 *DHistH2;
  CHECK(cudaMalloc(&DBin, N * sizeof(int)));
  CHECK(cudaMalloc(&DWt, N * sizeof(float)));
  CHECK(cudaMalloc(&DHistF, Bins * sizeof(float)));
  CHECK(cudaMalloc(&DHistD, Bins * sizeof(double)));
  CHECK(cudaMalloc(&DHistH, Bins * sizeof(__half)));
  CHECK(cudaMalloc(&DHistH2, Bins * sizeof(__half2)));
  CHECK(cudaMalloc(&DMaxF, sizeof(float)));
  CHECK(cudaMalloc(&DMinD, sizeof(double)));
  CHECK(cudaMalloc(&DProd, sizeof(float)));
  CHECK(cudaMemcpy(DBin, Bin.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DWt, Wt.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DHistF, 0, Bins * sizeof(float)));
  CHECK(cudaMemset(DHistD, 0, Bins * sizeof(double)));
  CHECK(cudaMemset(DHistH, 0, Bins * sizeof(__half)));
  CHECK(cudaMemset(DHistH2, 0, Bins * sizeof(__half2)));
  float InitMax = -1e30f, InitProd = 1.0f;
  double InitMin = 1e300;
  CHECK(cudaMemcpy(DMaxF, &InitMax, sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DMinD, &InitMin, sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DProd, &InitProd, sizeof(float), cudaMemcpyHostToDevice));
  accumulate<<<N / 128, 128>>>(DBin, DWt, N, DHistF, DHistD, DHistH, DHistH2, DMaxF, DMinD, DProd);
  CHECK(cudaGetLastError());
  std::vector<float> HistF(Bins);
  std::vector<double> HistD(Bins);
  std::vector<__half> HistH(Bins);
  std::vector<__half2> HistH2(Bins);
  float GotMax, GotProd;
  double GotMin;
  CHECK(cudaMemcpy(HistF.data(), DHistF, Bins * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(HistD.data(), DHistD, Bins * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(HistH.data(), DHistH, Bins * sizeof(__half), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(HistH2.data(), DHistH2, Bins * sizeof(__half2), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&GotMax, DMaxF, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&GotMin, DMinD, sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&GotProd, DProd, sizeof(float), cudaMemcpyDeviceToHost));
  int BadF = 0, BadD = 0, BadH = 0, BadH2 = 0;
  double TotF = 0;
  for (int B = 0; B < Bins; ++B) {
    BadF += HistF[B] != WantF[B];
    BadD += HistD[B] != WantD[B];
    BadH += __half2float(HistH[B]) != float(Count[B]);
    BadH2 += __low2float(HistH2[B]) != float(Count[B]) || __high2float(HistH2[B]) != 2.0f * Count[B];
    TotF += WantF[B];
  }
  std::printf("float histogram: mismatches=%d total=%.3f\n", BadF, TotF);
  std::printf("double histogram: mismatches=%d bin0=%.4f\n", BadD, WantD[0]);
  std::printf("half counts: mismatches=%d, half2 counts: mismatches=%d, bin0 count=%d\n", BadH, BadH2, Count[0]);
  std::printf("CAS float max=%.3f (%s), double min=%.3f (%s), product=%g (%s)\n", WantMax,
              GotMax == WantMax ? "ok" : "MISMATCH", WantMin, GotMin == WantMin ? "ok" : "MISMATCH", WantProd,
              GotProd == WantProd ? "ok" : "MISMATCH");
  CHECK(cudaFree(DBin));
  CHECK(cudaFree(DWt));
  CHECK(cudaFree(DHistF));
  CHECK(cudaFree(DHistD));
  CHECK(cudaFree(DHistH));
  CHECK(cudaFree(DHistH2));
  CHECK(cudaFree(DMaxF));
  CHECK(cudaFree(DMinD));
  CHECK(cudaFree(DProd));
  return finish(BadF + BadD + BadH + BadH2 == 0 && GotMax == WantMax && GotMin == WantMin && GotProd == WantProd);
}
