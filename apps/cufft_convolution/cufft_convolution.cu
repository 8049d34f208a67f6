/// \file
/// FFT convolution, the classic cuFFT use (simpleCUFFT's filtering): a
/// noisy signal and a FIR low-pass filter are zero-padded to a common
/// length, both transformed with one batched C2C plan, multiplied point by
/// point (with the 1/N scale) in a kernel, and transformed back; then the
/// same filtering done the real-to-complex way (R2C, multiply N/2+1 bins,
/// C2R). Checked against direct convolution on the CPU; the filtered
/// signal's checksum and a few samples printed for the matrix's tolerance.
#include "../common/fft_util.h"

__global__ void multiplyScale(cufftComplex *A, const cufftComplex *B, int N, float Scale) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x) {
    cufftComplex X = A[I], Y = B[I];
    A[I] = make_cuFloatComplex((X.x * Y.x - X.y * Y.y) * Scale, (X.x * Y.y + X.y * Y.x) * Scale);
  }
}

int main() {
  const int SigLen = 3000, Taps = 101, N = 4096; // N >= SigLen + Taps - 1
  std::vector<float> Sig(SigLen), Fir(Taps);
  for (int I = 0; I < SigLen; ++I)
    Sig[I] = (float)(std::sin(2 * M_PI * I / 200.0) + 0.5 * signal(I, 61));
  // Windowed-sinc low-pass, cut-off 0.05 cycles per sample (Hamming).
  double Norm = 0;
  for (int K = 0; K < Taps; ++K) {
    double M = K - (Taps - 1) / 2.0, Fc = 0.05;
    double H = M == 0 ? 2 * Fc : std::sin(2 * M_PI * Fc * M) / (M_PI * M);
    H *= 0.54 - 0.46 * std::cos(2 * M_PI * K / (Taps - 1));
    Fir[K] = (float)H;
    Norm += H;
  }
  for (float &H : Fir)
    H = (float)(H / Norm);
  const int OutLen = SigLen + Taps - 1;
  std::vector<double> Ref(OutLen, 0.0);
  for (int I = 0; I < SigLen; ++I)
    for (int K = 0; K < Taps; ++K)
      Ref[I + K] += (double)Sig[I] * Fir[K];
  bool Ok = true;
  {
    // Complex path: signal and filter as two batches of one plan.
    std::vector<cufftComplex> Both(2 * N, make_cuFloatComplex(0, 0));
    for (int I = 0; I < SigLen; ++I)
      Both[I].x = Sig[I];
    for (int K = 0; K < Taps; ++K)
      Both[N + K].x = Fir[K];
    cufftComplex *D = upload(Both);
    cufftHandle Plan, Single;
    CUFFT_CHECK(cufftPlan1d(&Plan, N, CUFFT_C2C, 2));
    CUFFT_CHECK(cufftPlan1d(&Single, N, CUFFT_C2C, 1));
    CUFFT_CHECK(cufftExecC2C(Plan, D, D, CUFFT_FORWARD));
    multiplyScale<<<32, 256>>>(D, D + N, N, 1.0f / N);
    CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2C(Single, D, D, CUFFT_INVERSE));
    std::vector<cufftComplex> Y = download(D, OutLen);
    double Err = 0, Sum = 0, Imag = 0;
    for (int I = 0; I < OutLen; ++I) {
      Err = std::max(Err, std::fabs(Y[I].x - Ref[I]));
      Imag = std::max(Imag, (double)std::fabs(Y[I].y));
      Sum += std::fabs(Y[I].x);
    }
    report("c2c filter", Err < 1e-5 && Imag < 1e-5, Sum);
    std::printf("  y[100] %.4f y[1000] %.4f y[2500] %.4f\n", Y[100].x, Y[1000].x, Y[2500].x);
    CUFFT_CHECK(cufftDestroy(Plan));
    CUFFT_CHECK(cufftDestroy(Single));
    CHECK(cudaFree(D));
  }
  {
    // Real path: R2C of both, multiply the N/2+1 bins, C2R.
    const int H = N / 2 + 1;
    std::vector<float> S(N, 0.0f), F(N, 0.0f);
    std::copy(Sig.begin(), Sig.end(), S.begin());
    std::copy(Fir.begin(), Fir.end(), F.begin());
    float *Ds = upload(S), *Df = upload(F);
    cufftComplex *Ss, *Sf;
    CHECK(cudaMalloc(&Ss, sizeof(cufftComplex) * H));
    CHECK(cudaMalloc(&Sf, sizeof(cufftComplex) * H));
    cufftHandle Fwd, Inv;
    CUFFT_CHECK(cufftPlan1d(&Fwd, N, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftPlan1d(&Inv, N, CUFFT_C2R, 1));
    CUFFT_CHECK(cufftExecR2C(Fwd, Ds, Ss));
    CUFFT_CHECK(cufftExecR2C(Fwd, Df, Sf));
    multiplyScale<<<8, 256>>>(Ss, Sf, H, 1.0f / N);
    CUFFT_CHECK(cufftExecC2R(Inv, Ss, Ds));
    std::vector<float> Y = download(Ds, OutLen);
    double Err = 0, Sum = 0;
    for (int I = 0; I < OutLen; ++I) {
      Err = std::max(Err, std::fabs(Y[I] - Ref[I]));
      Sum += std::fabs(Y[I]);
    }
    report("r2c filter", Err < 1e-5, Sum);
    // The filter removes the noise: the output follows the 200-sample sine.
    double Resid = 0;
    for (int I = 200; I < SigLen - 200; ++I)
      Resid = std::max(Resid, std::fabs(Y[I + (Taps - 1) / 2] - std::sin(2 * M_PI * I / 200.0)));
    bool Clean = Resid < 0.2;
    std::printf("  residual noise after filtering %s\n", Clean ? "small" : "LARGE");
    Ok &= Clean;
    CUFFT_CHECK(cufftDestroy(Fwd));
    CUFFT_CHECK(cufftDestroy(Inv));
    CHECK(cudaFree(Ds));
    CHECK(cudaFree(Df));
    CHECK(cudaFree(Ss));
    CHECK(cudaFree(Sf));
  }
  return finish(Ok && Failures == 0);
}
