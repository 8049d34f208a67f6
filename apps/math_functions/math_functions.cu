/// \file
/// The CUDA math library against the host's libm: float and double
/// elementary and special functions (sin/cos/tan, exp/log families, pow,
/// erf/erfc, lgamma/tgamma, sincos, atan2, cbrt, hypot, fmod, ...) and the
/// fast intrinsics (__sinf, __expf, __fdividef). Each function's worst error
/// is compared with a tolerance several times its documented ulp bound, so
/// the verdict is stable; printed sums come from the host reference.
#include "../common/app_util.h"
#include <vector>

constexpr int NF = 20, ND = 14;

__global__ void floatFns(const float *X, const float *Y, float *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float x = X[I], y = Y[I], ax = fabsf(x) + 0.01f;
  float *R = O + I * NF;
  R[0] = sinf(x);
  R[1] = cosf(x);
  R[2] = tanf(x * 0.25f);
  R[3] = expf(x);
  R[4] = logf(ax);
  R[5] = powf(ax, y);
  R[6] = erff(x);
  R[7] = erfcf(x);
  R[8] = lgammaf(ax);
  R[9] = tgammaf(ax);
  float S, C;
  sincosf(x * 3.0f, &S, &C);
  R[10] = S + 2.0f * C;
  R[11] = atan2f(y, x);
  R[12] = cbrtf(x);
  R[13] = hypotf(x, y);
  R[14] = fmodf(x * 7.0f, 1.5f);
  R[15] = exp2f(y) + log2f(ax) + log10f(ax);
  R[16] = tanhf(x) + asinhf(y);
  R[17] = __sinf(x) + __cosf(x);
  R[18] = __expf(x * 0.5f);
  R[19] = __fdividef(y, ax) + rsqrtf(ax);
}

__global__ void doubleFns(const double *X, const double *Y, double *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  double x = X[I], y = Y[I], ax = fabs(x) + 0.01;
  double *R = O + I * ND;
  R[0] = sin(x);
  R[1] = cos(x);
  R[2] = exp(x);
  R[3] = log(ax);
  R[4] = pow(ax, y);
  R[5] = erf(x);
  R[6] = lgamma(ax);
  double S, C;
  sincos(x, &S, &C);
  R[7] = S * C;
  R[8] = atan2(y, x);
  R[9] = sqrt(ax) + cbrt(x);
  R[10] = expm1(x * 0.1) + log1p(ax);
  R[11] = fma(x, y, ax);
  R[12] = sinh(x * 0.5) + acos(y / 4.5);
  R[13] = j0(x) + y0(ax);
}

int main() {
  const int N = 4096;
  std::vector<float> X(N), Y(N);
  std::vector<double> XD(N), YD(N);
  Lcg Rng(314);
  for (int I = 0; I < N; ++I) {
    X[I] = Rng.range(-4.f, 4.f);
    Y[I] = Rng.range(-4.f, 4.f);
    XD[I] = X[I] + Rng.uniform() * 1e-7;
    YD[I] = Y[I];
  }
  float *DX, *DY, *DO;
  double *DXD, *DYD, *DOD;
  CHECK(cudaMalloc(&DX, N * sizeof(float)));
  CHECK(cudaMalloc(&DY, N * sizeof(float)));
  CHECK(cudaMalloc(&DO, N * NF * sizeof(float)));
  CHECK(cudaMalloc(&DXD, N * sizeof(double)));
  CHECK(cudaMalloc(&DYD, N * sizeof(double)));
  CHECK(cudaMalloc(&DOD, N * ND * sizeof(double)));
  CHECK(cudaMemcpy(DX, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DY, Y.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DXD, XD.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DYD, YD.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  floatFns<<<N / 128, 128>>>(DX, DY, DO, N);
  CHECK(cudaGetLastError());
  doubleFns<<<N / 128, 128>>>(DXD, DYD, DOD, N);
  CHECK(cudaGetLastError());
  std::vector<float> O(N * NF);
  std::vector<double> OD(N * ND);
  CHECK(cudaMemcpy(O.data(), DO, O.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(OD.data(), DOD, OD.size() * sizeof(double), cudaMemcpyDeviceToHost));

  const char *FNames[NF] = {"sinf", "cosf", "tanf", "expf", "logf", "powf", "erff", "erfcf", "lgammaf", "tgammaf",
                            "sincosf", "atan2f", "cbrtf", "hypotf", "fmodf", "exp2/log2/log10", "tanh+asinh",
                            "__sinf+__cosf", "__expf", "__fdividef+rsqrt"};
  // Relative tolerances; absolute floors cover results near zero.
  const double FRel[NF] = {1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5,
                           1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 2e-3, 2e-3, 2e-3};
  int TotalBad = 0;
  for (int F = 0; F < NF; ++F) {
    int Bad = 0;
    double Sum = 0;
    for (int I = 0; I < N; ++I) {
      double x = X[I], y = Y[I], ax = std::fabs(X[I]) + 0.01f; // same float ax as the device
      x = X[I];
      double W;
      switch (F) {
      case 0: W = std::sin(x); break;
      case 1: W = std::cos(x); break;
      case 2: W = std::tan(double(float(x * 0.25))); break;
      case 3: W = std::exp(x); break;
      case 4: W = std::log(ax); break;
      case 5: W = std::pow(ax, y); break;
      case 6: W = std::erf(x); break;
      case 7: W = std::erfc(x); break;
      case 8: W = std::lgamma(ax); break;
      case 9: W = std::tgamma(ax); break;
      case 10: W = std::sin(double(float(x * 3))) + 2 * std::cos(double(float(x * 3))); break;
      case 11: W = std::atan2(y, x); break;
      case 12: W = std::cbrt(x); break;
      case 13: W = std::hypot(x, y); break;
      case 14: W = std::fmod(double(float(x * 7)), 1.5); break;
      case 15: W = std::exp2(y) + std::log2(ax) + std::log10(ax); break;
      case 16: W = std::tanh(x) + std::asinh(y); break;
      case 17: W = std::sin(x) + std::cos(x); break;
      case 18: W = std::exp(double(float(x * 0.5))); break;
      default: W = y / ax + 1 / std::sqrt(ax); break;
      }
      Bad += !closeTo(O[I * NF + F], W, FRel[F], F >= 17 ? 2e-3 : 1e-5);
      Sum += W;
    }
    std::printf("%-18s %s sum=%.4e\n", FNames[F], Bad ? "MISMATCH" : "ok", Sum);
    if (Bad)
      std::printf("  %d values out of tolerance\n", Bad);
    TotalBad += Bad;
  }
  const char *DNames[ND] = {"sin", "cos", "exp", "log", "pow", "erf", "lgamma", "sincos", "atan2", "sqrt+cbrt",
                            "expm1+log1p", "fma", "sinh+acos", "j0+y0"};
  for (int F = 0; F < ND; ++F) {
    int Bad = 0;
    double Sum = 0;
    for (int I = 0; I < N; ++I) {
      double x = XD[I], y = YD[I], ax = std::fabs(x) + 0.01, W;
      switch (F) {
      case 0: W = std::sin(x); break;
      case 1: W = std::cos(x); break;
      case 2: W = std::exp(x); break;
      case 3: W = std::log(ax); break;
      case 4: W = std::pow(ax, y); break;
      case 5: W = std::erf(x); break;
      case 6: W = std::lgamma(ax); break;
      case 7: W = std::sin(x) * std::cos(x); break;
      case 8: W = std::atan2(y, x); break;
      case 9: W = std::sqrt(ax) + std::cbrt(x); break;
      case 10: W = std::expm1(x * 0.1) + std::log1p(ax); break;
      case 11: W = std::fma(x, y, ax); break;
      case 12: W = std::sinh(x * 0.5) + std::acos(y / 4.5); break;
      default: W = j0(x) + y0(ax); break;
      }
      Bad += !closeTo(OD[I * ND + F], W, 1e-12, 1e-13);
      Sum += W;
    }
    std::printf("%-18s %s sum=%.8e\n", DNames[F], Bad ? "MISMATCH" : "ok", Sum);
    if (Bad)
      std::printf("  %d values out of tolerance\n", Bad);
    TotalBad += Bad;
  }
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DY));
  CHECK(cudaFree(DO));
  CHECK(cudaFree(DXD));
  CHECK(cudaFree(DYD));
  CHECK(cudaFree(DOD));
  return finish(TotalBad == 0);
}
