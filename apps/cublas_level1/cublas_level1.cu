/// \file
/// cuBLAS level 1 as numerical codes call it: one handle bound to a
/// non-default stream, real and complex vectors, unit and strided
/// increments, results returned to the host and (pointer mode device) to
/// device memory. Each routine is checked against a CPU reference in double;
/// the program prints per-routine error verdicts, exact integer results
/// (iamax/iamin) and checksums (sums of magnitudes, compared with a relative
/// tolerance by the matrix), never raw floating-point vectors.
#include "../common/lib_util.h"
#include <cuComplex.h>
#include <cublas_v2.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)
template <typename T> static double sumAbs(const std::vector<T> &V) {
  double S = 0;
  for (T X : V)
    S += std::fabs((double)X);
  return S;
}

int main() {
  const int N = 1000;
  Lcg R(7);
  std::vector<float> X(N), Y(N);
  std::vector<double> Xd(N), Yd(N);
  for (int I = 0; I < N; ++I) {
    X[I] = R.range(-1, 1);
    Y[I] = R.range(-1, 1);
    Xd[I] = R.range(-2, 2);
    Yd[I] = R.range(-2, 2);
  }
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  CUBLAS_CHECK(cublasSetStream(H, S));
  float *DX = upload(X), *DY = upload(Y);
  double *EX = upload(Xd), *EY = upload(Yd);

  // saxpy: y = a x + y
  {
    float A = 0.75f;
    float *T = upload(Y);
    CUBLAS_CHECK(cublasSaxpy(H, N, &A, DX, 1, T, 1));
    CHECK(cudaStreamSynchronize(S));
    std::vector<float> Got = download(T, N);
    bool Ok = true;
    for (int I = 0; I < N; ++I)
      Ok &= closeTo(Got[I], 0.75 * X[I] + Y[I], 1e-6, 1e-6);
    report("saxpy", Ok, sumAbs(Got));
    cudaFree(T);
  }
  // sdot / ddot with host results
  {
    float D = 0;
    CUBLAS_CHECK(cublasSdot(H, N, DX, 1, DY, 1, &D));
    double Want = 0;
    for (int I = 0; I < N; ++I)
      Want += (double)X[I] * Y[I];
    report("sdot", closeTo(D, Want, 1e-4, 1e-4), D);
    double E = 0;
    CUBLAS_CHECK(cublasDdot(H, N, EX, 1, EY, 1, &E));
    Want = 0;
    for (int I = 0; I < N; ++I)
      Want += Xd[I] * Yd[I];
    report("ddot", closeTo(E, Want, 1e-12, 1e-12), E);
  }
  // nrm2 and asum
  {
    float Nr = 0;
    double As = 0;
    CUBLAS_CHECK(cublasSnrm2(H, N, DX, 1, &Nr));
    CUBLAS_CHECK(cublasDasum(H, N, EX, 1, &As));
    double W = 0;
    for (float V : X)
      W += (double)V * V;
    report("snrm2", closeTo(Nr, std::sqrt(W), 1e-5, 0), Nr);
    report("dasum", closeTo(As, sumAbs(Xd), 1e-12, 0), As);
  }
  // sscal on every second element (incx = 2)
  {
    float *T = upload(X);
    float A = -2.5f;
    CUBLAS_CHECK(cublasSscal(H, N / 2, &A, T, 2));
    CHECK(cudaStreamSynchronize(S));
    std::vector<float> Got = download(T, N);
    bool Ok = true;
    for (int I = 0; I < N; ++I)
      Ok &= Got[I] == (I % 2 == 0 ? -2.5f * X[I] : X[I]);
    report("sscal_inc2", Ok, sumAbs(Got));
    cudaFree(T);
  }
  // isamax / isamin: 1-based indices, exact
  {
    int Imax = 0, Imin = 0;
    CUBLAS_CHECK(cublasIsamax(H, N, DX, 1, &Imax));
    CUBLAS_CHECK(cublasIsamin(H, N, DX, 1, &Imin));
    int Wmax = 0, Wmin = 0;
    for (int I = 1; I < N; ++I) {
      if (std::fabs(X[I]) > std::fabs(X[Wmax]))
        Wmax = I;
      if (std::fabs(X[I]) < std::fabs(X[Wmin]))
        Wmin = I;
    }
    std::printf("isamax=%d isamin=%d\n", Imax, Imin);
    report("iamax_iamin", Imax == Wmax + 1 && Imin == Wmin + 1, Imax + Imin);
  }
  // scopy strided gather, dswap
  {
    float *T;
    CHECK(cudaMalloc(&T, N / 4 * sizeof(float)));
    CUBLAS_CHECK(cublasScopy(H, N / 4, DX, 4, T, 1));
    CHECK(cudaStreamSynchronize(S));
    std::vector<float> Got = download(T, N / 4);
    bool Ok = true;
    for (int I = 0; I < N / 4; ++I)
      Ok &= Got[I] == X[4 * I];
    report("scopy_inc4", Ok, sumAbs(Got));
    cudaFree(T);
    double *A = upload(Xd), *B = upload(Yd);
    CUBLAS_CHECK(cublasDswap(H, N, A, 1, B, 1));
    CHECK(cudaStreamSynchronize(S));
    std::vector<double> GA = download(A, N), GB = download(B, N);
    report("dswap", GA == Yd && GB == Xd, sumAbs(GA) - sumAbs(GB));
    cudaFree(A);
    cudaFree(B);
  }
  // srot: plane rotation with c, s
  {
    float *A = upload(X), *B = upload(Y);
    float C = 0.8f, Sn = 0.6f;
    CUBLAS_CHECK(cublasSrot(H, N, A, 1, B, 1, &C, &Sn));
    CHECK(cudaStreamSynchronize(S));
    std::vector<float> GA = download(A, N), GB = download(B, N);
    bool Ok = true;
    for (int I = 0; I < N; ++I) {
      Ok &= closeTo(GA[I], 0.8 * X[I] + 0.6 * Y[I], 1e-6, 1e-6);
      Ok &= closeTo(GB[I], 0.8 * Y[I] - 0.6 * X[I], 1e-6, 1e-6);
    }
    report("srot", Ok, sumAbs(GA) + sumAbs(GB));
    cudaFree(A);
    cudaFree(B);
  }
  // complex: cdotc (conjugated) and zaxpy
  {
    const int M = 300;
    std::vector<cuComplex> Cx(M), Cy(M);
    std::vector<cuDoubleComplex> Zx(M), Zy(M);
    for (int I = 0; I < M; ++I) {
      Cx[I] = make_cuComplex(R.range(-1, 1), R.range(-1, 1));
      Cy[I] = make_cuComplex(R.range(-1, 1), R.range(-1, 1));
      Zx[I] = make_cuDoubleComplex(R.range(-1, 1), R.range(-1, 1));
      Zy[I] = make_cuDoubleComplex(R.range(-1, 1), R.range(-1, 1));
    }
    cuComplex *DCx = upload(Cx), *DCy = upload(Cy);
    cuComplex Dot;
    CUBLAS_CHECK(cublasCdotc(H, M, DCx, 1, DCy, 1, &Dot));
    double Re = 0, Im = 0;
    for (int I = 0; I < M; ++I) {
      Re += (double)Cx[I].x * Cy[I].x + (double)Cx[I].y * Cy[I].y;
      Im += (double)Cx[I].x * Cy[I].y - (double)Cx[I].y * Cy[I].x;
    }
    report("cdotc", closeTo(Dot.x, Re, 1e-4, 1e-4) && closeTo(Dot.y, Im, 1e-4, 1e-4),
           std::fabs(Dot.x) + std::fabs(Dot.y));
    cuDoubleComplex *DZx = upload(Zx), *DZy = upload(Zy);
    cuDoubleComplex Al = make_cuDoubleComplex(0.5, -1.25);
    CUBLAS_CHECK(cublasZaxpy(H, M, &Al, DZx, 1, DZy, 1));
    CHECK(cudaStreamSynchronize(S));
    std::vector<cuDoubleComplex> G = download(DZy, M);
    bool Ok = true;
    double Sum = 0;
    for (int I = 0; I < M; ++I) {
      double WRe = 0.5 * Zx[I].x + 1.25 * Zx[I].y + Zy[I].x;
      double WIm = 0.5 * Zx[I].y - 1.25 * Zx[I].x + Zy[I].y;
      Ok &= closeTo(G[I].x, WRe, 1e-12, 1e-12) && closeTo(G[I].y, WIm, 1e-12, 1e-12);
      Sum += std::fabs(G[I].x) + std::fabs(G[I].y);
    }
    report("zaxpy", Ok, Sum);
    cudaFree(DCx);
    cudaFree(DCy);
    cudaFree(DZx);
    cudaFree(DZy);
  }
  // Pointer mode device: results written to device memory, stream-ordered,
  // then read after a synchronize (no implicit wait).
  {
    CUBLAS_CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE));
    float *Res;
    CHECK(cudaMalloc(&Res, 3 * sizeof(float)));
    CUBLAS_CHECK(cublasSdot(H, N, DX, 1, DY, 1, Res));
    CUBLAS_CHECK(cublasSnrm2(H, N, DY, 1, Res + 1));
    CUBLAS_CHECK(cublasSasum(H, N, DY, 1, Res + 2));
    CHECK(cudaStreamSynchronize(S));
    std::vector<float> G = download(Res, 3);
    double Dot = 0, Nr = 0;
    for (int I = 0; I < N; ++I) {
      Dot += (double)X[I] * Y[I];
      Nr += (double)Y[I] * Y[I];
    }
    bool Ok = closeTo(G[0], Dot, 1e-4, 1e-4) && closeTo(G[1], std::sqrt(Nr), 1e-5, 0) &&
              closeTo(G[2], sumAbs(Y), 1e-5, 0);
    report("ptrmode_dev", Ok, std::fabs(G[0]) + G[1] + G[2]);
    CUBLAS_CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST));
    cudaFree(Res);
  }
  CUBLAS_CHECK(cublasDestroy(H));
  CHECK(cudaStreamDestroy(S));
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(EX);
  cudaFree(EY);
  return finish(Failures == 0);
}
