/// \file
/// Real-data FFTs (cufftExecR2C / cufftExecC2R), the common case for audio
/// and sensor signals: the R2C spectrum keeps N/2+1 bins (Hermitian
/// symmetry), the program finds the dominant frequencies of a sampled
/// signal, zeroes the bins above a cut-off (a brick-wall low-pass) and
/// transforms back with C2R. Even and odd lengths, out of place; checked
/// against a CPU DFT and the filtered signal computed on the CPU.
#include "../common/fft_util.h"
#include <algorithm>

int main() {
  const int Sizes[] = {2048, 999};
  bool Ok = true;
  for (int N : Sizes) {
    const int H = N / 2 + 1;
    const double Rate = 8000.0; // samples per second
    // Tones exactly on bins 55, 156 and 375, so each is one spectral peak.
    const double Freqs[3] = {55 * Rate / N, 156 * Rate / N, 375 * Rate / N};
    std::vector<float> X(N);
    std::vector<Cd> Xc(N);
    for (int I = 0; I < N; ++I) {
      double T = I / Rate, V = 0;
      for (int F = 0; F < 3; ++F)
        V += (3 - F) * std::sin(2 * M_PI * Freqs[F] * T);
      X[I] = (float)(V + 0.05 * signal(I, 3));
      Xc[I] = X[I];
    }
    float *D = upload(X);
    cufftComplex *S;
    CHECK(cudaMalloc(&S, sizeof(cufftComplex) * H));
    cufftHandle R2c, C2r;
    CUFFT_CHECK(cufftPlan1d(&R2c, N, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftPlan1d(&C2r, N, CUFFT_C2R, 1));
    CUFFT_CHECK(cufftExecR2C(R2c, D, S));
    std::vector<cufftComplex> Spec = download(S, H);
    std::vector<Cd> Full = refDft(Xc, {N}, -1);
    std::vector<Cd> Want(Full.begin(), Full.begin() + H);
    double Err = relError(Spec, Want);
    char Name[64];
    std::snprintf(Name, sizeof Name, "r2c %d", N);
    report(Name, Err < 1e-5, sumAbsComplex(Spec));
    Ok &= Err < 1e-5;
    // The three strongest bins, as a peak picker reports them.
    std::vector<int> Idx(H);
    for (int K = 0; K < H; ++K)
      Idx[K] = K;
    auto Mag = [&](int K) { return std::hypot((double)Spec[K].x, (double)Spec[K].y); };
    std::partial_sort(Idx.begin(), Idx.begin() + 3, Idx.end(), [&](int A, int B) { return Mag(A) > Mag(B); });
    for (int P = 0; P < 3; ++P)
      std::printf("  peak %d: bin %d = %.1f Hz, amplitude %.3f\n", P, Idx[P], Idx[P] * Rate / N, 2 * Mag(Idx[P]) / N);
    bool Peaks = true;
    for (int P = 0; P < 3; ++P)
      Peaks &= std::fabs(Idx[P] * Rate / N - Freqs[P]) <= Rate / N;
    Ok &= Peaks;
    // Low-pass: keep bins below 2 kHz, then back to the time domain.
    int Cut = (int)(2000.0 * N / Rate);
    for (int K = Cut; K < H; ++K)
      Spec[K] = make_cuFloatComplex(0, 0);
    CHECK(cudaMemcpy(S, Spec.data(), sizeof(cufftComplex) * H, cudaMemcpyHostToDevice));
    CUFFT_CHECK(cufftExecC2R(C2r, S, D));
    std::vector<float> Y = download(D, N);
    std::vector<double> Ref(N);
    for (int I = 0; I < N; ++I) {
      double V = Want[0].real();
      for (int K = 1; K < Cut; ++K) {
        double A = 2 * M_PI * (double)((size_t)K * I % N) / N;
        V += 2 * (Want[K].real() * std::cos(A) - Want[K].imag() * std::sin(A));
      }
      Ref[I] = V / N;
    }
    for (float &V : Y)
      V /= N;
    Err = relErrorReal(Y, Ref);
    std::snprintf(Name, sizeof Name, "lowpass %d", N);
    double Sum = 0;
    for (float V : Y)
      Sum += std::fabs(V);
    report(Name, Err < 1e-5 && Peaks, Sum);
    std::printf("  filtered samples: %.4f %.4f %.4f\n", Y[1], Y[2], Y[3]);
    Ok &= Err < 1e-5;
    CUFFT_CHECK(cufftDestroy(R2c));
    CUFFT_CHECK(cufftDestroy(C2r));
    CHECK(cudaFree(D));
    CHECK(cudaFree(S));
  }
  return finish(Ok && Failures == 0);
}
