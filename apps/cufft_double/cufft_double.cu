/// \file
/// Double-precision FFTs (cufftExecZ2Z, D2Z, Z2D), as scientific codes
/// that need more than single precision's 1e-6 use them: a 1-D Z2Z of
/// 2^12 points forward and back, a 2-D D2Z/Z2D round trip of 96 x 80, and a
/// batched D2Z through cufftPlanMany. Checked against a CPU DFT to 1e-12;
/// values printed with 12 significant digits (the matrix allows 1e-9).
#include "../common/fft_util.h"

template <typename T> static double sumAbsReal(const std::vector<T> &V) {
  double S = 0;
  for (T X : V)
    S += std::fabs(X);
  return S;
}

int main() {
  bool Ok = true;
  {
    const int N = 1 << 12;
    std::vector<cufftDoubleComplex> X(N);
    std::vector<Cd> Xd(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuDoubleComplex(signal(I, 31), signal(I, 32));
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftDoubleComplex *D = upload(X), *F;
    CHECK(cudaMalloc(&F, sizeof(cufftDoubleComplex) * N));
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan1d(&Plan, N, CUFFT_Z2Z, 1));
    CUFFT_CHECK(cufftExecZ2Z(Plan, D, F, CUFFT_FORWARD));
    std::vector<cufftDoubleComplex> Got = download(F, N);
    double Err = relError(Got, refDft(Xd, {N}, -1));
    report("z2z 4096", Err < 1e-12, sumAbsComplex(Got));
    std::printf("  X[1] = %.12g %+.12gi\n", Got[1].x, Got[1].y);
    CUFFT_CHECK(cufftExecZ2Z(Plan, F, F, CUFFT_INVERSE));
    std::vector<cufftDoubleComplex> Back = download(F, N);
    double Max = 0;
    for (int I = 0; I < N; ++I)
      Max = std::max(Max, std::abs(Cd(Back[I].x / N, Back[I].y / N) - Xd[I]));
    report("z2z round trip", Max < 1e-13, sumAbsComplex(Back) / N);
    std::printf("  x[7] back %.12g %+.12gi\n", Back[7].x / N, Back[7].y / N);
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
    CHECK(cudaFree(F));
  }
  {
    const int Rows = 96, Cols = 80, H = Cols / 2 + 1, N = Rows * Cols;
    std::vector<double> X(N);
    std::vector<Cd> Xc(N);
    for (int I = 0; I < N; ++I)
      Xc[I] = X[I] = signal(I, 33);
    double *D = upload(X);
    cufftDoubleComplex *S;
    CHECK(cudaMalloc(&S, sizeof(cufftDoubleComplex) * Rows * H));
    cufftHandle Fwd, Inv;
    CUFFT_CHECK(cufftPlan2d(&Fwd, Rows, Cols, CUFFT_D2Z));
    CUFFT_CHECK(cufftPlan2d(&Inv, Rows, Cols, CUFFT_Z2D));
    CUFFT_CHECK(cufftExecD2Z(Fwd, D, S));
    std::vector<cufftDoubleComplex> Got = download(S, Rows * H);
    std::vector<Cd> Full = refDft(Xc, {Rows, Cols}, -1), Want(Rows * H);
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < H; ++C)
        Want[R * H + C] = Full[R * Cols + C];
    double Err = relError(Got, Want);
    report("d2z 96x80", Err < 1e-12, sumAbsComplex(Got));
    std::printf("  X[3][5] = %.12g %+.12gi\n", Got[3 * H + 5].x, Got[3 * H + 5].y);
    CUFFT_CHECK(cufftExecZ2D(Inv, S, D));
    std::vector<double> Back = download(D, N);
    double Max = 0;
    for (int I = 0; I < N; ++I)
      Max = std::max(Max, std::fabs(Back[I] / N - X[I]));
    report("z2d round trip", Max < 1e-13, sumAbsReal(Back) / N);
    CUFFT_CHECK(cufftDestroy(Fwd));
    CUFFT_CHECK(cufftDestroy(Inv));
    CHECK(cudaFree(D));
    CHECK(cudaFree(S));
  }
  {
    const int Len = 360, Batch = 12, H = Len / 2 + 1;
    std::vector<double> X((size_t)Len * Batch);
    for (size_t I = 0; I < X.size(); ++I)
      X[I] = signal(I, 34);
    double *D = upload(X);
    cufftDoubleComplex *S;
    CHECK(cudaMalloc(&S, sizeof(cufftDoubleComplex) * H * Batch));
    int N[1] = {Len};
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlanMany(&Plan, 1, N, nullptr, 1, Len, nullptr, 1, H, CUFFT_D2Z, Batch));
    CUFFT_CHECK(cufftExecD2Z(Plan, D, S));
    std::vector<cufftDoubleComplex> Got = download(S, (size_t)H * Batch);
    double Err = 0;
    for (int B = 0; B < Batch; ++B) {
      std::vector<Cd> Xb(X.begin() + (size_t)B * Len, X.begin() + (size_t)(B + 1) * Len);
      std::vector<Cd> Full = refDft(Xb, {Len}, -1), Want(Full.begin(), Full.begin() + H);
      std::vector<cufftDoubleComplex> G(Got.begin() + (size_t)B * H, Got.begin() + (size_t)(B + 1) * H);
      Err = std::max(Err, relError(G, Want));
    }
    report("d2z batch 12x360", Err < 1e-12, sumAbsComplex(Got));
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
    CHECK(cudaFree(S));
  }
  return finish(Ok && Failures == 0);
}
