/// \file
/// Many cuFFT plans alive at once, as an application caches one plan per
/// problem size: sizes that are powers of 2, 3, 5 and 7, mixed radices,
/// and primes (which need cuFFT's Bluestein-style algorithms), single and
/// double precision, created up front, executed in an interleaved order,
/// some executed twice, destroyed in a different order than created, and a
/// handle value reused after destroy. Also cufftGetVersion and
/// cufftGetProperty. Checked against a CPU DFT per size.
#include "../common/fft_util.h"
#include <library_types.h>

int main() {
  int Version = 0, Major = 0, Minor = 0;
  CUFFT_CHECK(cufftGetVersion(&Version));
  CUFFT_CHECK(cufftGetProperty(MAJOR_VERSION, &Major));
  CUFFT_CHECK(cufftGetProperty(MINOR_VERSION, &Minor));
  bool Ok = Version >= 11000 && Major >= 11;
  std::printf("cufft version major %s\n", Major >= 11 ? ">= 11" : "OLD");
  const int Sizes[] = {512, 729, 625, 343, 2310, 127, 251, 4099, 17 * 19, 1536};
  const int Count = sizeof Sizes / sizeof Sizes[0];
  cufftHandle Plans[Count];
  bool Double[Count];
  for (int K = 0; K < Count; ++K) {
    Double[K] = K % 3 == 2;
    CUFFT_CHECK(cufftPlan1d(&Plans[K], Sizes[K], Double[K] ? CUFFT_Z2Z : CUFFT_C2C, 1));
  }
  const int Order[] = {3, 0, 7, 5, 1, 9, 2, 8, 4, 6, 7, 0};
  for (int Step = 0; Step < (int)(sizeof Order / sizeof Order[0]); ++Step) {
    int K = Order[Step], N = Sizes[K];
    std::vector<Cd> X(N);
    for (int I = 0; I < N; ++I)
      X[I] = Cd((float)signal(I, 80 + K), (float)signal(I, 90 + K));
    std::vector<Cd> Want = refDft(X, {N}, -1);
    double Err, Sum;
    if (Double[K]) {
      std::vector<cufftDoubleComplex> H(N);
      for (int I = 0; I < N; ++I)
        H[I] = make_cuDoubleComplex(X[I].real(), X[I].imag());
      cufftDoubleComplex *D = upload(H);
      CUFFT_CHECK(cufftExecZ2Z(Plans[K], D, D, CUFFT_FORWARD));
      std::vector<cufftDoubleComplex> G = download(D, N);
      Err = relError(G, Want);
      Sum = sumAbsComplex(G);
      Err = Err < 1e-12 ? 0 : Err;
      CHECK(cudaFree(D));
    } else {
      std::vector<cufftComplex> H(N);
      for (int I = 0; I < N; ++I)
        H[I] = make_cuFloatComplex((float)X[I].real(), (float)X[I].imag());
      cufftComplex *D = upload(H);
      CUFFT_CHECK(cufftExecC2C(Plans[K], D, D, CUFFT_FORWARD));
      std::vector<cufftComplex> G = download(D, N);
      Err = relError(G, Want);
      Sum = sumAbsComplex(G);
      Err = Err < 1e-5 ? 0 : Err;
      CHECK(cudaFree(D));
    }
    char Name[32];
    std::snprintf(Name, sizeof Name, "%s %d", Double[K] ? "z2z" : "c2c", N);
    report(Name, Err == 0, Sum);
  }
  const int Destroy[] = {9, 0, 4, 2, 7, 1, 8, 3, 6, 5};
  for (int K : Destroy)
    CUFFT_CHECK(cufftDestroy(Plans[K]));
  // A fresh plan after all were destroyed still works.
  cufftHandle Again;
  CUFFT_CHECK(cufftPlan1d(&Again, 64, CUFFT_C2C, 1));
  std::vector<cufftComplex> One(64, make_cuFloatComplex(1.0f, 0.0f));
  cufftComplex *D = upload(One);
  CUFFT_CHECK(cufftExecC2C(Again, D, D, CUFFT_FORWARD));
  std::vector<cufftComplex> G = download(D, 64);
  bool Dc = std::fabs(G[0].x - 64.0f) < 1e-4f;
  for (int I = 1; I < 64; ++I)
    Dc &= std::fabs(G[I].x) < 1e-4f && std::fabs(G[I].y) < 1e-4f;
  report("new plan", Dc, G[0].x);
  CUFFT_CHECK(cufftDestroy(Again));
  CHECK(cudaFree(D));
  return finish(Ok && Failures == 0);
}
