/// \file
/// One-dimensional complex FFTs with cuFFT's basic API (cufftPlan1d,
/// cufftExecC2C forward then inverse), the way spectral codes call it: a
/// signal of three tones plus noise, its spectrum's peaks, and the round
/// trip back (scaled by 1/N, since cuFFT does not normalise). Sizes: a power
/// of two, a product of small primes (1000) and a prime (1009). Checked
/// against a double-precision DFT on the CPU (relative error below 1e-5);
/// peak magnitudes and checksums are printed for the matrix's tolerance.
#include "../common/fft_util.h"

int main() {
  const int Sizes[] = {4096, 1000, 1009};
  bool Ok = true;
  for (int N : Sizes) {
    std::vector<cufftComplex> X(N);
    std::vector<Cd> Xd(N);
    const int Tones[3] = {5, 37, N / 3};
    for (int I = 0; I < N; ++I) {
      double Re = 0, Im = 0;
      for (int T = 0; T < 3; ++T) {
        Re += (T + 1) * std::cos(2 * M_PI * Tones[T] * I / N);
        Im += (T + 1) * std::sin(2 * M_PI * Tones[T] * I / N);
      }
      Re += 0.1 * signal(I, 1);
      X[I] = make_cuFloatComplex((float)Re, (float)Im);
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftComplex *D = upload(X), *F;
    CHECK(cudaMalloc(&F, sizeof(cufftComplex) * N));
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan1d(&Plan, N, CUFFT_C2C, 1));
    CUFFT_CHECK(cufftExecC2C(Plan, D, F, CUFFT_FORWARD));
    std::vector<cufftComplex> Spec = download(F, N);
    std::vector<Cd> Want = refDft(Xd, {N}, -1);
    double Err = relError(Spec, Want);
    char Name[64];
    std::snprintf(Name, sizeof Name, "c2c %d fwd", N);
    report(Name, Err < 1e-5, sumAbsComplex(Spec));
    Ok &= Err < 1e-5;
    for (int T = 0; T < 3; ++T) {
      cufftComplex P = Spec[Tones[T]];
      std::printf("  bin %4d: |X| / N = %.4f\n", Tones[T], std::sqrt((double)P.x * P.x + (double)P.y * P.y) / N);
    }
    CUFFT_CHECK(cufftExecC2C(Plan, F, F, CUFFT_INVERSE));
    std::vector<cufftComplex> Back = download(F, N);
    std::vector<Cd> Scaled(N);
    for (int I = 0; I < N; ++I)
      Scaled[I] = Xd[I] * (double)N;
    Err = relError(Back, Scaled);
    std::snprintf(Name, sizeof Name, "c2c %d round", N);
    report(Name, Err < 1e-5, sumAbsComplex(Back) / N);
    Ok &= Err < 1e-5;
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
    CHECK(cudaFree(F));
  }
  return finish(Ok && Failures == 0);
}
