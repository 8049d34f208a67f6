/// \file
/// In-place FFTs, as memory-bound codes run them (input and output in one
/// buffer): a 1-D C2C of 3000 and a 2-D C2C of 60 x 72 overwriting their
/// input; a 2-D R2C in place, where each real row is padded to 2*(n/2+1)
/// floats (cuFFT's documented in-place layout) and C2R back in the same
/// buffer; and an in-place Z2Z batch. Checked against a CPU DFT.
#include "../common/fft_util.h"

int main() {
  bool Ok = true;
  {
    const int N = 3000;
    std::vector<cufftComplex> X(N);
    std::vector<Cd> Xd(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuFloatComplex((float)signal(I, 41), (float)signal(I, 42));
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftComplex *D = upload(X);
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan1d(&Plan, N, CUFFT_C2C, 1));
    CUFFT_CHECK(cufftExecC2C(Plan, D, D, CUFFT_FORWARD));
    std::vector<cufftComplex> Got = download(D, N);
    double Err = relError(Got, refDft(Xd, {N}, -1));
    report("c2c 3000 inplace", Err < 1e-5, sumAbsComplex(Got));
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
  }
  {
    const int Nx = 60, Ny = 72, N = Nx * Ny;
    std::vector<cufftComplex> X(N);
    std::vector<Cd> Xd(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuFloatComplex((float)signal(I, 43), (float)signal(I, 44));
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftComplex *D = upload(X);
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan2d(&Plan, Nx, Ny, CUFFT_C2C));
    CUFFT_CHECK(cufftExecC2C(Plan, D, D, CUFFT_INVERSE));
    std::vector<cufftComplex> Got = download(D, N);
    double Err = relError(Got, refDft(Xd, {Nx, Ny}, 1));
    report("c2c 60x72 inplace", Err < 1e-5, sumAbsComplex(Got));
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
  }
  {
    const int Rows = 40, Cols = 90, H = Cols / 2 + 1, Pitch = 2 * H;
    std::vector<float> Buf((size_t)Rows * Pitch, 0.0f);
    std::vector<Cd> Xc(Rows * Cols);
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C) {
        float V = (float)signal(R * Cols + C, 45);
        Buf[(size_t)R * Pitch + C] = V;
        Xc[R * Cols + C] = V;
      }
    float *D = upload(Buf);
    cufftHandle Fwd, Inv;
    CUFFT_CHECK(cufftPlan2d(&Fwd, Rows, Cols, CUFFT_R2C));
    CUFFT_CHECK(cufftPlan2d(&Inv, Rows, Cols, CUFFT_C2R));
    CUFFT_CHECK(cufftExecR2C(Fwd, D, (cufftComplex *)D));
    std::vector<cufftComplex> Got = download((cufftComplex *)D, (size_t)Rows * H);
    std::vector<Cd> Full = refDft(Xc, {Rows, Cols}, -1), Want(Rows * H);
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < H; ++C)
        Want[R * H + C] = Full[R * Cols + C];
    double Err = relError(Got, Want);
    report("r2c 40x90 inplace", Err < 1e-5, sumAbsComplex(Got));
    CUFFT_CHECK(cufftExecC2R(Inv, (cufftComplex *)D, D));
    std::vector<float> Back = download(D, (size_t)Rows * Pitch);
    double Max = 0, Sum = 0;
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C) {
        double V = Back[(size_t)R * Pitch + C] / (Rows * Cols);
        Max = std::max(Max, std::fabs(V - Xc[R * Cols + C].real()));
        Sum += std::fabs(V);
      }
    report("c2r 40x90 inplace", Max < 1e-5, Sum);
    CUFFT_CHECK(cufftDestroy(Fwd));
    CUFFT_CHECK(cufftDestroy(Inv));
    CHECK(cudaFree(D));
  }
  {
    const int Len = 210, Batch = 8;
    std::vector<cufftDoubleComplex> X((size_t)Len * Batch);
    for (size_t I = 0; I < X.size(); ++I)
      X[I] = make_cuDoubleComplex(signal(I, 46), signal(I, 47));
    cufftDoubleComplex *D = upload(X);
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan1d(&Plan, Len, CUFFT_Z2Z, Batch));
    CUFFT_CHECK(cufftExecZ2Z(Plan, D, D, CUFFT_FORWARD));
    std::vector<cufftDoubleComplex> Got = download(D, (size_t)Len * Batch);
    double Err = 0;
    for (int B = 0; B < Batch; ++B) {
      std::vector<Cd> Xb(Len);
      for (int I = 0; I < Len; ++I)
        Xb[I] = Cd(X[(size_t)B * Len + I].x, X[(size_t)B * Len + I].y);
      std::vector<cufftDoubleComplex> G(Got.begin() + (size_t)B * Len, Got.begin() + (size_t)(B + 1) * Len);
      Err = std::max(Err, relError(G, refDft(Xb, {Len}, -1)));
    }
    report("z2z 8x210 inplace", Err < 1e-12, sumAbsComplex(Got));
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
  }
  return finish(Ok && Failures == 0);
}
