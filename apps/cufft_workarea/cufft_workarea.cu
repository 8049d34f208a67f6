/// \file
/// cuFFT's extensible plan API with work areas managed by the program, as
/// frameworks that pool GPU memory use it: cufftCreate, cufftEstimate1d /
/// cufftGetSize1d for a size estimate, cufftSetAutoAllocation(plan, 0),
/// cufftMakePlan1d / MakePlan2d / MakePlanMany returning the work size, one
/// work area big enough for all plans allocated by the program and handed
/// to each with cufftSetWorkArea, cufftGetSize after planning, and the
/// plans executed one after another sharing that area. Work sizes are
/// implementation details and are only checked for consistency (estimate
/// >= 0, GetSize equal to what MakePlan said), not printed. Results
/// checked against a CPU DFT.
#include "../common/fft_util.h"

int main() {
  bool Ok = true;
  const int N1 = 4096, Nx = 48, Ny = 40, Len = 1000, Batch = 6;
  size_t Est = 0, Est1 = 0;
  CUFFT_CHECK(cufftEstimate1d(N1, CUFFT_C2C, 1, &Est));
  cufftHandle A, B, C;
  CUFFT_CHECK(cufftCreate(&A));
  CUFFT_CHECK(cufftCreate(&B));
  CUFFT_CHECK(cufftCreate(&C));
  CUFFT_CHECK(cufftGetSize1d(A, N1, CUFFT_C2C, 1, &Est1));
  for (cufftHandle P : {A, B, C})
    CUFFT_CHECK(cufftSetAutoAllocation(P, 0));
  size_t SizeA = 0, SizeB = 0, SizeC = 0;
  CUFFT_CHECK(cufftMakePlan1d(A, N1, CUFFT_C2C, 1, &SizeA));
  CUFFT_CHECK(cufftMakePlan2d(B, Nx, Ny, CUFFT_R2C, &SizeB));
  int N[1] = {Len};
  CUFFT_CHECK(cufftMakePlanMany(C, 1, N, nullptr, 1, Len, nullptr, 1, Len, CUFFT_C2C, Batch, &SizeC));
  size_t GotA = 0, GotB = 0, GotC = 0;
  CUFFT_CHECK(cufftGetSize(A, &GotA));
  CUFFT_CHECK(cufftGetSize(B, &GotB));
  CUFFT_CHECK(cufftGetSize(C, &GotC));
  bool Sizes = GotA == SizeA && GotB == SizeB && GotC == SizeC;
  std::printf("work sizes: getsize matches makeplan %s\n", Sizes ? "ok" : "WRONG");
  Ok &= Sizes;
  size_t Need = std::max(std::max(SizeA, SizeB), std::max(SizeC, (size_t)256));
  void *Work;
  CHECK(cudaMalloc(&Work, Need));
  for (cufftHandle P : {A, B, C})
    CUFFT_CHECK(cufftSetWorkArea(P, Work));

  std::vector<cufftComplex> X1(N1);
  std::vector<Cd> X1d(N1);
  for (int I = 0; I < N1; ++I) {
    X1[I] = make_cuFloatComplex((float)signal(I, 51), (float)signal(I, 52));
    X1d[I] = Cd(X1[I].x, X1[I].y);
  }
  std::vector<float> X2(Nx * Ny);
  std::vector<Cd> X2d(Nx * Ny);
  for (int I = 0; I < Nx * Ny; ++I)
    X2d[I] = X2[I] = (float)signal(I, 53);
  std::vector<cufftComplex> X3((size_t)Len * Batch);
  for (size_t I = 0; I < X3.size(); ++I)
    X3[I] = make_cuFloatComplex((float)signal(I, 54), (float)signal(I, 55));
  cufftComplex *D1 = upload(X1), *D3 = upload(X3), *S2;
  float *D2 = upload(X2);
  CHECK(cudaMalloc(&S2, sizeof(cufftComplex) * Nx * (Ny / 2 + 1)));
  // The three plans run back to back on the same stream, sharing Work.
  CUFFT_CHECK(cufftExecC2C(A, D1, D1, CUFFT_FORWARD));
  CUFFT_CHECK(cufftExecR2C(B, D2, S2));
  CUFFT_CHECK(cufftExecC2C(C, D3, D3, CUFFT_INVERSE));
  std::vector<cufftComplex> Y1 = download(D1, N1), Y2 = download(S2, Nx * (Ny / 2 + 1)),
                            Y3 = download(D3, (size_t)Len * Batch);
  double E1 = relError(Y1, refDft(X1d, {N1}, -1));
  report("makeplan1d c2c", E1 < 1e-5, sumAbsComplex(Y1));
  std::vector<Cd> F2 = refDft(X2d, {Nx, Ny}, -1), W2(Nx * (Ny / 2 + 1));
  for (int R = 0; R < Nx; ++R)
    for (int Cc = 0; Cc <= Ny / 2; ++Cc)
      W2[R * (Ny / 2 + 1) + Cc] = F2[R * Ny + Cc];
  double E2 = relError(Y2, W2);
  report("makeplan2d r2c", E2 < 1e-5, sumAbsComplex(Y2));
  double E3 = 0;
  for (int Bt = 0; Bt < Batch; ++Bt) {
    std::vector<Cd> Xb(Len);
    for (int I = 0; I < Len; ++I)
      Xb[I] = Cd(X3[(size_t)Bt * Len + I].x, X3[(size_t)Bt * Len + I].y);
    std::vector<cufftComplex> G(Y3.begin() + (size_t)Bt * Len, Y3.begin() + (size_t)(Bt + 1) * Len);
    E3 = std::max(E3, relError(G, refDft(Xb, {Len}, 1)));
  }
  report("makeplanmany c2c", E3 < 1e-5, sumAbsComplex(Y3));
  // Destroying a plan leaves the program's work area to the program.
  CUFFT_CHECK(cufftDestroy(A));
  CUFFT_CHECK(cufftExecC2C(C, D3, D3, CUFFT_FORWARD));
  std::vector<cufftComplex> Y4 = download(D3, (size_t)Len * Batch);
  double E4 = 0;
  for (size_t I = 0; I < X3.size(); ++I)
    E4 = std::max(E4, std::abs(Cd(Y4[I].x / Len, Y4[I].y / Len) - Cd(X3[I].x, X3[I].y)));
  report("after destroy", E4 < 1e-5, sumAbsComplex(Y4) / Len);
  CUFFT_CHECK(cufftDestroy(B));
  CUFFT_CHECK(cufftDestroy(C));
  CHECK(cudaFree(Work));
  CHECK(cudaFree(D1));
  CHECK(cudaFree(D2));
  CHECK(cudaFree(D3));
  CHECK(cudaFree(S2));
  return finish(Ok && Failures == 0);
}
