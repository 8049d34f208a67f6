/// \file
/// Radix-2 Cooley-Tukey FFT written by hand: a bit-reversal permutation
/// kernel, then log2(N) butterfly stages, run on a batch of 64 signals of
/// 1024 complex samples; an inverse transform restores the input. Checked
/// against a direct O(N^2) DFT in double on the CPU for a few signals, and
/// peaks of known tones are located exactly.
#include "../common/app_util.h"
#include <vector>

constexpr int N = 1024, LogN = 10, Batch = 64;
constexpr double Pi = 3.14159265358979323846;

__global__ void bitReverse(const float2 *In, float2 *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int Sig = I / N, K = I % N;
  int Rev = __brev(K) >> (32 - LogN);
  Out[Sig * N + Rev] = In[I];
}

__global__ void butterfly(float2 *Data, int Half, float Sign) {
  int T = blockIdx.x * blockDim.x + threadIdx.x; // one thread per butterfly
  int Sig = T / (N / 2), B = T % (N / 2);
  int Group = B / Half, Pos = B % Half;
  int I = Sig * N + Group * 2 * Half + Pos, J = I + Half;
  float S, C;
  sincospif(Sign * float(Pos) / float(Half), &S, &C);
  float2 A = Data[I], Bv = Data[J];
  float2 Tw = make_float2(Bv.x * C - Bv.y * S, Bv.x * S + Bv.y * C);
  Data[I] = make_float2(A.x + Tw.x, A.y + Tw.y);
  Data[J] = make_float2(A.x - Tw.x, A.y - Tw.y);
}

__global__ void scale(float2 *Data, float F) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  Data[I].x *= F;
  Data[I].y *= F;
}

static void fft(float2 *D, float2 *Tmp, float Sign) {
  bitReverse<<<Batch * N / 256, 256>>>(D, Tmp);
  for (int Half = 1; Half < N; Half *= 2)
    butterfly<<<Batch * N / 2 / 256, 256>>>(Tmp, Half, Sign);
  CHECK(cudaMemcpy(D, Tmp, Batch * N * sizeof(float2), cudaMemcpyDeviceToDevice));
}

int main() {
  std::vector<float2> Sig(Batch * N);
  Lcg Rng(1);
  std::vector<int> Tone(Batch);
  for (int S = 0; S < Batch; ++S) {
    Tone[S] = 1 + int(Rng.below(N / 2 - 2));
    for (int K = 0; K < N; ++K) {
      double Ph = 2 * Pi * Tone[S] * K / N;
      Sig[S * N + K] = make_float2(float(std::cos(Ph) + 0.1 * (Rng.uniform() - 0.5)),
                                   float(std::sin(Ph) + 0.1 * (Rng.uniform() - 0.5)));
    }
  }
  float2 *D, *Tmp;
  CHECK(cudaMalloc(&D, Batch * N * sizeof(float2)));
  CHECK(cudaMalloc(&Tmp, Batch * N * sizeof(float2)));
  CHECK(cudaMemcpy(D, Sig.data(), Batch * N * sizeof(float2), cudaMemcpyHostToDevice));
  fft(D, Tmp, -1.0f);
  CHECK(cudaGetLastError());
  std::vector<float2> Spec(Batch * N);
  CHECK(cudaMemcpy(Spec.data(), D, Batch * N * sizeof(float2), cudaMemcpyDeviceToHost));
  // Peaks: every signal's strongest bin is its tone.
  int PeakBad = 0;
  for (int S = 0; S < Batch; ++S) {
    int Best = 0;
    double BestMag = -1;
    for (int K = 0; K < N; ++K) {
      double M = double(Spec[S * N + K].x) * Spec[S * N + K].x + double(Spec[S * N + K].y) * Spec[S * N + K].y;
      if (M > BestMag) {
        BestMag = M;
        Best = K;
      }
    }
    PeakBad += Best != Tone[S];
  }
  // Full DFT check of four signals.
  int Bad = 0;
  double Energy = 0;
  std::vector<double> Cos(N), Sin(N);
  for (int K = 0; K < N; ++K) {
    Cos[K] = std::cos(-2 * Pi * K / N);
    Sin[K] = std::sin(-2 * Pi * K / N);
  }
  for (int S = 0; S < Batch; S += 16)
    for (int K = 0; K < N; ++K) {
      double Re = 0, Im = 0;
      for (int T = 0; T < N; ++T) {
        int Ph = int((long long)K * T % N);
        Re += Sig[S * N + T].x * Cos[Ph] - Sig[S * N + T].y * Sin[Ph];
        Im += Sig[S * N + T].x * Sin[Ph] + Sig[S * N + T].y * Cos[Ph];
      }
      Bad += !closeTo(Spec[S * N + K].x, Re, 0, 2e-3 * N / 32) || !closeTo(Spec[S * N + K].y, Im, 0, 2e-3 * N / 32);
      Energy += Re * Re + Im * Im;
    }
  fft(D, Tmp, 1.0f);
  scale<<<Batch * N / 256, 256>>>(D, 1.0f / N);
  CHECK(cudaGetLastError());
  std::vector<float2> Back(Batch * N);
  CHECK(cudaMemcpy(Back.data(), D, Batch * N * sizeof(float2), cudaMemcpyDeviceToHost));
  int BadInv = 0;
  for (int I = 0; I < Batch * N; ++I)
    BadInv += !closeTo(Back[I].x, Sig[I].x, 0, 1e-4) || !closeTo(Back[I].y, Sig[I].y, 0, 1e-4);
  std::printf("fft n=%d batch=%d tone peaks wrong=%d dft mismatches=%d inverse mismatches=%d\n", N, Batch, PeakBad, Bad,
              BadInv);
  std::printf("spectral energy of checked signals=%.4e first tone=%d\n", Energy, Tone[0]);
  CHECK(cudaFree(D));
  CHECK(cudaFree(Tmp));
  return finish(PeakBad == 0 && Bad == 0 && BadInv == 0);
}
