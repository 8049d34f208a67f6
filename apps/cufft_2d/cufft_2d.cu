/// \file
/// Two-dimensional FFTs as image-processing code calls them: cufftPlan2d
/// C2C over a 128 x 96 complex field (row-major, nx = rows), and a real
/// image (64 x 50) through R2C to its 64 x 26 half spectrum, a Gaussian
/// blur applied in the frequency domain by a kernel, and C2R back.
/// Checked against a CPU DFT (and the blur against the CPU's own
/// frequency-domain blur); checksums printed for the matrix's tolerance.
#include "../common/fft_util.h"

__global__ void gaussianBlur(cufftComplex *S, int Rows, int Half, int Cols, float Sigma) {
  int K = blockIdx.x * blockDim.x + threadIdx.x;
  if (K >= Rows * Half)
    return;
  int R = K / Half, C = K % Half;
  float Fr = (R <= Rows / 2 ? R : R - Rows) / (float)Rows, Fc = C / (float)Cols;
  float G = expf(-2.0f * 3.14159265f * 3.14159265f * Sigma * Sigma * (Fr * Fr + Fc * Fc)) / (Rows * Cols);
  S[K].x *= G;
  S[K].y *= G;
}

int main() {
  bool Ok = true;
  {
    const int Nx = 128, Ny = 96, N = Nx * Ny;
    std::vector<cufftComplex> X(N);
    std::vector<Cd> Xd(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuFloatComplex((float)signal(I, 5), (float)signal(I, 6));
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftComplex *D = upload(X), *F;
    CHECK(cudaMalloc(&F, sizeof(cufftComplex) * N));
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan2d(&Plan, Nx, Ny, CUFFT_C2C));
    CUFFT_CHECK(cufftExecC2C(Plan, D, F, CUFFT_FORWARD));
    std::vector<cufftComplex> Got = download(F, N);
    double Err = relError(Got, refDft(Xd, {Nx, Ny}, -1));
    report("c2c 128x96 fwd", Err < 1e-5, sumAbsComplex(Got));
    std::printf("  dc %.4f %.4f, (1,0) magnitude %.4f\n", Got[0].x, Got[0].y, std::hypot(Got[Ny].x, Got[Ny].y));
    CUFFT_CHECK(cufftExecC2C(Plan, F, F, CUFFT_INVERSE));
    std::vector<cufftComplex> Back = download(F, N);
    for (Cd &V : Xd)
      V *= (double)N;
    Err = relError(Back, Xd);
    report("c2c 128x96 inv", Err < 1e-5, sumAbsComplex(Back) / N);
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
    CHECK(cudaFree(F));
  }
  {
    const int Rows = 64, Cols = 50, Half = Cols / 2 + 1, N = Rows * Cols;
    std::vector<float> Img(N);
    std::vector<Cd> Imgc(N);
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C) {
        // A bright square on a textured background.
        float V = (R >= 20 && R < 40 && C >= 15 && C < 30) ? 1.0f : 0.0f;
        V += 0.2f * (float)signal(R * Cols + C, 9);
        Img[R * Cols + C] = V;
        Imgc[R * Cols + C] = V;
      }
    float *D = upload(Img);
    cufftComplex *S;
    CHECK(cudaMalloc(&S, sizeof(cufftComplex) * Rows * Half));
    cufftHandle Fwd, Inv;
    CUFFT_CHECK(cufftPlan2d(&Fwd, Rows, Cols, CUFFT_R2C));
    CUFFT_CHECK(cufftPlan2d(&Inv, Rows, Cols, CUFFT_C2R));
    CUFFT_CHECK(cufftExecR2C(Fwd, D, S));
    std::vector<cufftComplex> Spec = download(S, Rows * Half);
    std::vector<Cd> Full = refDft(Imgc, {Rows, Cols}, -1), Want(Rows * Half);
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Half; ++C)
        Want[R * Half + C] = Full[R * Cols + C];
    double Err = relError(Spec, Want);
    report("r2c 64x50", Err < 1e-5, sumAbsComplex(Spec));
    Ok &= Err < 1e-5;
    const float Sigma = 1.5f;
    gaussianBlur<<<(Rows * Half + 127) / 128, 128>>>(S, Rows, Half, Cols, Sigma);
    CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2R(Inv, S, D));
    std::vector<float> Blur = download(D, N);
    // The CPU blur: the same filter on the full spectrum, inverse DFT.
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C) {
        double Fr = (R <= Rows / 2 ? R : R - Rows) / (double)Rows;
        double Fc = (C <= Cols / 2 ? C : C - Cols) / (double)Cols;
        Full[R * Cols + C] *= std::exp(-2.0 * M_PI * M_PI * Sigma * Sigma * (Fr * Fr + Fc * Fc)) / N;
      }
    std::vector<Cd> Spatial = refDft(Full, {Rows, Cols}, 1);
    std::vector<double> Ref(N);
    for (int I = 0; I < N; ++I)
      Ref[I] = Spatial[I].real();
    Err = relErrorReal(Blur, Ref);
    double Sum = 0;
    for (float V : Blur)
      Sum += V;
    report("blur 64x50", Err < 1e-4, Sum);
    std::printf("  centre %.4f, edge of square %.4f, background %.4f\n", Blur[30 * Cols + 22], Blur[20 * Cols + 15],
                Blur[5 * Cols + 5]);
    Ok &= Err < 1e-4;
    CUFFT_CHECK(cufftDestroy(Fwd));
    CUFFT_CHECK(cufftDestroy(Inv));
    CHECK(cudaFree(D));
    CHECK(cudaFree(S));
  }
  return finish(Ok && Failures == 0);
}
