/// \file
/// FFTs through the cuFFT API against FFTW called directly, in one process:
/// under ferry (`ferry run`) on the host backend, cufftExec* runs FFTW inside
/// a stream-ordered host function, so the ratio is the cost of the cuFFT
/// layer (plan lookup, the host-function launch, the synchronisation).
/// FFTW is called with the flags ferry's libcufft plans with (FFTW_ESTIMATE,
/// one thread) on buffers of the same size and alignment. Cases: 1-D C2C of
/// 2^20, 2-D C2C of 1024 x 1024, a batch of 256 R2C of 4096. Figures are
/// GFLOP/s by the usual convention (5 N log2 N for complex, 2.5 N log2 N for
/// real transforms), the best of several runs, the two sides taking turns.
/// Built by nvcc, linked with -lcufft and FFTW's single-precision library.
#include <cuda_runtime.h>
#include <cufft.h>
#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F> static double best(int Reps, F &&Fn) {
  double B = 1e30;
  for (int R = 0; R < Reps; ++R) {
    double T0 = now();
    Fn();
    B = std::min(B, now() - T0);
  }
  return B;
}

struct Case {
  const char *Name;
  int Rank, N0, N1, Batch;
  bool Real;
};

int main(int Argc, char **Argv) {
  int Reps = Argc > 1 ? std::atoi(Argv[1]) : 10;
  const Case Cases[] = {{"1-D C2C 2^20", 1, 1 << 20, 1, 1, false},
                        {"2-D C2C 1024x1024", 2, 1024, 1024, 1, false},
                        {"batched R2C 256 x 4096", 1, 4096, 1, 256, true}};
  std::printf("| transform | cuFFT (ferry) | FFTW direct | ratio |\n|---|--:|--:|--:|\n");
  for (const Case &C : Cases) {
    size_t Points = (size_t)C.N0 * C.N1 * C.Batch;
    size_t InBytes = C.Real ? Points * sizeof(float) : Points * sizeof(cufftComplex);
    size_t OutBytes = C.Real ? (size_t)(C.N0 / 2 + 1) * C.Batch * sizeof(cufftComplex) : InBytes;
    void *DIn, *DOut;
    cudaMalloc(&DIn, InBytes);
    cudaMalloc(&DOut, OutBytes);
    float *HIn = (float *)fftwf_malloc(InBytes);
    fftwf_complex *HOut = (fftwf_complex *)fftwf_malloc(OutBytes);
    for (size_t I = 0; I < InBytes / sizeof(float); ++I)
      HIn[I] = (float)std::sin(0.001 * I) + 0.5f * (float)((I * 2654435761u) % 1000) / 1000.0f;
    cudaMemcpy(DIn, HIn, InBytes, cudaMemcpyHostToDevice);
    cufftHandle Plan;
    int N[2] = {C.N0, C.N1};
    cufftResult R = C.Real ? cufftPlanMany(&Plan, 1, N, nullptr, 1, C.N0, nullptr, 1, C.N0 / 2 + 1, CUFFT_R2C, C.Batch)
                           : cufftPlanMany(&Plan, C.Rank, N, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1);
    if (R != CUFFT_SUCCESS) {
      std::printf("plan failed: %d\n", (int)R);
      return 1;
    }
    fftwf_plan F;
    if (C.Real)
      F = fftwf_plan_many_dft_r2c(1, N, C.Batch, HIn, nullptr, 1, C.N0, HOut, nullptr, 1, C.N0 / 2 + 1,
                                  FFTW_ESTIMATE);
    else
      F = fftwf_plan_dft(C.Rank, N, (fftwf_complex *)HIn, HOut, FFTW_FORWARD, FFTW_ESTIMATE);
    auto Cufft = [&] {
      if (C.Real)
        cufftExecR2C(Plan, (cufftReal *)DIn, (cufftComplex *)DOut);
      else
        cufftExecC2C(Plan, (cufftComplex *)DIn, (cufftComplex *)DOut, CUFFT_FORWARD);
      cudaDeviceSynchronize();
    };
    auto Fftw = [&] { fftwf_execute(F); };
    Cufft(); // first run plans (ferry plans FFTW lazily)
    Fftw();
    double Tc = 1e30, Tf = 1e30;
    for (int Round = 0; Round < 3; ++Round) {
      Tc = std::min(Tc, best(Reps, Cufft));
      Tf = std::min(Tf, best(Reps, Fftw));
    }
    double Len = (double)C.N0 * C.N1;
    double Flops = (C.Real ? 2.5 : 5.0) * Len * std::log2(Len) * C.Batch;
    std::printf("| %s | %.2f GFLOP/s (%.2f ms) | %.2f GFLOP/s (%.2f ms) | %.0f%% |\n", C.Name, Flops / Tc * 1e-9,
                Tc * 1e3, Flops / Tf * 1e-9, Tf * 1e3, 100.0 * Tf / Tc);
    fftwf_destroy_plan(F);
    cufftDestroy(Plan);
    cudaFree(DIn);
    cudaFree(DOut);
    fftwf_free(HIn);
    fftwf_free(HOut);
  }
  return 0;
}
