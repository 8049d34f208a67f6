/// \file
/// Three-dimensional FFTs as volume and PDE codes use them: cufftPlan3d C2C
/// over a 16 x 20 x 24 grid (forward, inverse), and a spectral Poisson
/// solve on a periodic 32 x 16 x 12 grid: R2C of the right-hand side,
/// division by -|k|^2 in a kernel, C2R back, compared with the analytic
/// solution of a sum of Fourier modes. Checked against a CPU DFT; the
/// solution's checksum and samples printed for the matrix's tolerance.
#include "../common/fft_util.h"

__global__ void poisson(cufftComplex *S, int Nx, int Ny, int Nzh, int Total) {
  int K = blockIdx.x * blockDim.x + threadIdx.x;
  if (K >= Nx * Ny * Nzh)
    return;
  int Z = K % Nzh, Y = (K / Nzh) % Ny, X = K / (Nzh * Ny);
  float Kx = X <= Nx / 2 ? X : X - Nx, Ky = Y <= Ny / 2 ? Y : Y - Ny, Kz = Z;
  float K2 = Kx * Kx + Ky * Ky + Kz * Kz;
  float Scale = K2 > 0 ? -1.0f / (K2 * Total) : 0.0f;
  S[K].x *= Scale;
  S[K].y *= Scale;
}

int main() {
  bool Ok = true;
  {
    const int Nx = 16, Ny = 20, Nz = 24, N = Nx * Ny * Nz;
    std::vector<cufftComplex> X(N);
    std::vector<Cd> Xd(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuFloatComplex((float)signal(I, 11), (float)signal(I, 12));
      Xd[I] = Cd(X[I].x, X[I].y);
    }
    cufftComplex *D = upload(X);
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlan3d(&Plan, Nx, Ny, Nz, CUFFT_C2C));
    CUFFT_CHECK(cufftExecC2C(Plan, D, D, CUFFT_FORWARD));
    std::vector<cufftComplex> Got = download(D, N);
    double Err = relError(Got, refDft(Xd, {Nx, Ny, Nz}, -1));
    report("c2c 16x20x24", Err < 1e-5, sumAbsComplex(Got));
    Ok &= Err < 1e-5;
    CUFFT_CHECK(cufftExecC2C(Plan, D, D, CUFFT_INVERSE));
    std::vector<cufftComplex> Back = download(D, N);
    for (Cd &V : Xd)
      V *= (double)N;
    Err = relError(Back, Xd);
    report("c2c 3d inverse", Err < 1e-5, sumAbsComplex(Back) / N);
    Ok &= Err < 1e-5;
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(D));
  }
  {
    // Solve lap(u) = f on [0, 2pi)^3 with u = sum of modes a*sin(k.x).
    const int Nx = 32, Ny = 16, Nz = 12, N = Nx * Ny * Nz, Nzh = Nz / 2 + 1;
    const int Modes[3][3] = {{1, 2, 3}, {4, 0, 1}, {2, 5, 2}};
    const double Amp[3] = {1.0, -0.5, 0.25};
    std::vector<float> F(N);
    std::vector<double> U(N);
    for (int X = 0; X < Nx; ++X)
      for (int Y = 0; Y < Ny; ++Y)
        for (int Z = 0; Z < Nz; ++Z) {
          double Fv = 0, Uv = 0;
          for (int M = 0; M < 3; ++M) {
            double Ph = 2 * M_PI * (Modes[M][0] * X / (double)Nx + Modes[M][1] * Y / (double)Ny +
                                    Modes[M][2] * Z / (double)Nz);
            double K2 = Modes[M][0] * Modes[M][0] + Modes[M][1] * Modes[M][1] + Modes[M][2] * Modes[M][2];
            Uv += Amp[M] * std::sin(Ph);
            Fv -= K2 * Amp[M] * std::sin(Ph);
          }
          F[(X * Ny + Y) * Nz + Z] = (float)Fv;
          U[(X * Ny + Y) * Nz + Z] = Uv;
        }
    float *D = upload(F);
    cufftComplex *S;
    CHECK(cudaMalloc(&S, sizeof(cufftComplex) * Nx * Ny * Nzh));
    cufftHandle Fwd, Inv;
    CUFFT_CHECK(cufftPlan3d(&Fwd, Nx, Ny, Nz, CUFFT_R2C));
    CUFFT_CHECK(cufftPlan3d(&Inv, Nx, Ny, Nz, CUFFT_C2R));
    CUFFT_CHECK(cufftExecR2C(Fwd, D, S));
    poisson<<<(Nx * Ny * Nzh + 255) / 256, 256>>>(S, Nx, Ny, Nzh, N);
    CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2R(Inv, S, D));
    std::vector<float> Sol = download(D, N);
    double Err = relErrorReal(Sol, U), Sum = 0;
    for (float V : Sol)
      Sum += std::fabs(V);
    report("poisson 32x16x12", Err < 1e-5, Sum);
    std::printf("  u(1,2,3) = %.4f (exact %.4f)\n", Sol[(1 * Ny + 2) * Nz + 3], U[(1 * Ny + 2) * Nz + 3]);
    Ok &= Err < 1e-5;
    CUFFT_CHECK(cufftDestroy(Fwd));
    CUFFT_CHECK(cufftDestroy(Inv));
    CHECK(cudaFree(D));
    CHECK(cudaFree(S));
  }
  return finish(Ok && Failures == 0);
}
