/// \file
/// Floating-point workloads that lean on the math library and intrinsics:
/// - binomial option pricing (the classic one-block-per-option tree walked
///   back in shared memory, in double and in float with __expf/__fdividef
///   for the per-step factors), against a CPU tree in double and the
///   Black-Scholes closed form for the limit;
/// - a volumetric ray march: fixed-step density accumulation through a
///   field built from sqrtf, rsqrtf, sincosf, atan2f, powf, erff, expf,
///   lgammaf and tgammaf, summed per image row (continuous, so GPU and CPU
///   agree to a tolerance);
/// - the same functions at edge inputs (signed zeros, infinities, NaN,
///   poles, overflow, tiny arguments), checked within CUDA's documented ulp
///   bounds and exactly for special values.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

// ---------------------------------------------------------------- binomial

constexpr int Steps = 512;

template <class Real, bool Fast>
__global__ void binomialKernel(const Real *S, const Real *X, const Real *T, Real R, Real V, Real *Price) {
  __shared__ Real Call[Steps + 1];
  unsigned Opt = blockIdx.x;
  Real Dt = T[Opt] / Steps;
  Real VDt = V * sqrt(Dt);
  Real RDt = R * Dt;
  Real If, Df, U, D, Pu, Pd;
  if (Fast) {
    If = (Real)__expf((float)RDt);
    Df = (Real)__expf(-(float)RDt);
    U = (Real)__expf((float)VDt);
    D = (Real)__expf(-(float)VDt);
    Pu = (Real)__fdividef((float)(If - D), (float)(U - D));
  } else {
    If = exp(RDt);
    Df = exp(-RDt);
    U = exp(VDt);
    D = exp(-VDt);
    Pu = (If - D) / (U - D);
  }
  Pd = (Real)1 - Pu;
  Real PuByDf = Pu * Df, PdByDf = Pd * Df;
  for (int I = threadIdx.x; I <= Steps; I += blockDim.x) {
    Real Price0 = S[Opt] * exp(VDt * (Real)(2 * I - Steps));
    Call[I] = Price0 - X[Opt] > 0 ? Price0 - X[Opt] : (Real)0;
  }
  for (int I = Steps; I > 0; --I) {
    __syncthreads();
    Real Next[8]; // blockDim.x >= 64: at most 8 nodes per thread
    int Count = 0;
    for (int J = threadIdx.x; J < I; J += blockDim.x)
      Next[Count++] = PuByDf * Call[J + 1] + PdByDf * Call[J];
    __syncthreads();
    Count = 0;
    for (int J = threadIdx.x; J < I; J += blockDim.x)
      Call[J] = Next[Count++];
  }
  __syncthreads();
  if (threadIdx.x == 0)
    Price[Opt] = Call[0];
}

static double binomialHost(double S, double X, double T, double R, double V) {
  double Dt = T / Steps, VDt = V * std::sqrt(Dt), RDt = R * Dt;
  double If = std::exp(RDt), Df = std::exp(-RDt), U = std::exp(VDt), D = std::exp(-VDt);
  double Pu = (If - D) / (U - D), Pd = 1 - Pu;
  std::vector<double> C(Steps + 1);
  for (int I = 0; I <= Steps; ++I)
    C[I] = std::max(0.0, S * std::exp(VDt * (2 * I - Steps)) - X);
  for (int I = Steps; I > 0; --I)
    for (int J = 0; J < I; ++J)
      C[J] = Pu * Df * C[J + 1] + Pd * Df * C[J];
  return C[0];
}

static double cnd(double D) { return 0.5 * std::erfc(-D / std::sqrt(2.0)); }

static double blackScholes(double S, double X, double T, double R, double V) {
  double D1 = (std::log(S / X) + (R + 0.5 * V * V) * T) / (V * std::sqrt(T));
  double D2 = D1 - V * std::sqrt(T);
  return S * cnd(D1) - X * std::exp(-R * T) * cnd(D2);
}

// ---------------------------------------------------------------- ray march

__device__ __host__ inline float fieldDensity(float X, float Y, float Z) {
#ifdef __CUDA_ARCH__
  float R2 = X * X + Y * Y + Z * Z;
  float Inv = rsqrtf(R2 + 0.25f);
  float Sn, Cs;
  sincosf(3.0f * Z + 0.5f * X, &Sn, &Cs);
  float Ang = atan2f(Y, X);
  float Shell = expf(-4.0f * (sqrtf(R2) - 1.2f) * (sqrtf(R2) - 1.2f));
  float Swirl = 0.5f + 0.5f * Sn * Cs + 0.25f * cosf(5.0f * Ang);
  float Soft = 0.5f * (1.0f + erff(2.0f * (1.5f - sqrtf(R2))));
  float Gam = tgammaf(1.5f + 0.5f * fabsf(Y)) + 0.1f * lgammaf(2.5f + X * X);
  return powf(Shell * Swirl + 0.05f, 1.3f) * Soft * Inv * Gam;
#else
  double R2 = (double)X * X + (double)Y * Y + (double)Z * Z;
  double Inv = 1.0 / std::sqrt(R2 + 0.25);
  double Sn = std::sin(3.0 * Z + 0.5 * X), Cs = std::cos(3.0 * Z + 0.5 * X);
  double Ang = std::atan2((double)Y, (double)X);
  double Shell = std::exp(-4.0 * (std::sqrt(R2) - 1.2) * (std::sqrt(R2) - 1.2));
  double Swirl = 0.5 + 0.5 * Sn * Cs + 0.25 * std::cos(5.0 * Ang);
  double Soft = 0.5 * (1.0 + std::erf(2.0 * (1.5 - std::sqrt(R2))));
  double Gam = std::tgamma(1.5 + 0.5 * std::fabs((double)Y)) + 0.1 * std::lgamma(2.5 + (double)X * X);
  return (float)(std::pow(Shell * Swirl + 0.05, 1.3) * Soft * Inv * Gam);
#endif
}

constexpr int Img = 64, MarchSteps = 96;

__global__ void rayMarch(float *Out) {
  int Px = blockIdx.x * blockDim.x + threadIdx.x, Py = blockIdx.y;
  if (Px >= Img)
    return;
  float U = (Px + 0.5f) / Img * 2.0f - 1.0f, V = (Py + 0.5f) / Img * 2.0f - 1.0f;
  float Dir[3] = {U * 0.6f, V * 0.6f, 1.0f};
  float InvLen = rsqrtf(Dir[0] * Dir[0] + Dir[1] * Dir[1] + Dir[2] * Dir[2]);
  float T = 0.0f, Trans = 1.0f, Acc = 0.0f, Dt = 4.0f / MarchSteps;
  for (int S = 0; S < MarchSteps; ++S) {
    float Z = -2.0f + Dir[2] * InvLen * T;
    float D = fieldDensity(Dir[0] * InvLen * T, Dir[1] * InvLen * T, Z);
    float A = 1.0f - expf(-D * Dt);
    Acc += Trans * A;
    Trans *= 1.0f - A;
    T += Dt;
  }
  Out[Py * Img + Px] = Acc;
}

static float rayMarchHost(int Px, int Py) {
  float U = (Px + 0.5f) / Img * 2.0f - 1.0f, V = (Py + 0.5f) / Img * 2.0f - 1.0f;
  double Dir[3] = {U * 0.6, V * 0.6, 1.0};
  double InvLen = 1.0 / std::sqrt(Dir[0] * Dir[0] + Dir[1] * Dir[1] + Dir[2] * Dir[2]);
  double T = 0.0, Trans = 1.0, Acc = 0.0, Dt = 4.0 / MarchSteps;
  for (int S = 0; S < MarchSteps; ++S) {
    double D = fieldDensity((float)(Dir[0] * InvLen * T), (float)(Dir[1] * InvLen * T),
                            (float)(-2.0 + Dir[2] * InvLen * T));
    double A = 1.0 - std::exp(-D * Dt);
    Acc += Trans * A;
    Trans *= 1.0 - A;
    T += Dt;
  }
  return (float)Acc;
}

// ---------------------------------------------------------------- edges

constexpr int NumFns = 9;

__global__ void edgeKernel(const float *A, const float *B, unsigned N, float *Out) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float X = A[I], Y = B[I];
  float *O = Out + I * NumFns;
  O[0] = erff(X);
  O[1] = lgammaf(X);
  O[2] = tgammaf(X);
  O[3] = powf(X, Y);
  O[4] = atan2f(X, Y);
  float S, C;
  sincosf(X, &S, &C);
  O[5] = S;
  O[6] = C;
  O[7] = sqrtf(X);
  O[8] = rsqrtf(X);
}

static double ulpOf(double V) {
  float F = (float)std::fabs(V);
  if (F == 0 || !std::isfinite(F))
    return std::ldexp(1.0, -149);
  return std::max(std::ldexp(1.0, -149), (double)std::nextafter(F, INFINITY) - F);
}

int main() {
  bool Ok = true;
  // Binomial options.
  {
    const int NumOpt = 24;
    Lcg Rng(8);
    std::vector<double> S(NumOpt), X(NumOpt), T(NumOpt);
    std::vector<float> Sf(NumOpt), Xf(NumOpt), Tf(NumOpt);
    for (int I = 0; I < NumOpt; ++I) {
      Sf[I] = Rng.range(5, 30);
      Xf[I] = Rng.range(1, 100);
      Tf[I] = Rng.range(0.25f, 10);
      S[I] = Sf[I];
      X[I] = Xf[I];
      T[I] = Tf[I];
    }
    const double R = 0.06, V = 0.10;
    double *DS, *DX, *DT, *DP;
    float *FS, *FX, *FT, *FP;
    CHECK(cudaMalloc(&DS, NumOpt * 8));
    CHECK(cudaMalloc(&DX, NumOpt * 8));
    CHECK(cudaMalloc(&DT, NumOpt * 8));
    CHECK(cudaMalloc(&DP, NumOpt * 8));
    CHECK(cudaMalloc(&FS, NumOpt * 4));
    CHECK(cudaMalloc(&FX, NumOpt * 4));
    CHECK(cudaMalloc(&FT, NumOpt * 4));
    CHECK(cudaMalloc(&FP, NumOpt * 4));
    CHECK(cudaMemcpy(DS, S.data(), NumOpt * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DX, X.data(), NumOpt * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DT, T.data(), NumOpt * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(FS, Sf.data(), NumOpt * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(FX, Xf.data(), NumOpt * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(FT, Tf.data(), NumOpt * 4, cudaMemcpyHostToDevice));
    binomialKernel<double, false><<<NumOpt, 128>>>(DS, DX, DT, R, V, DP);
    CHECK(cudaGetLastError());
    binomialKernel<float, true><<<NumOpt, 96>>>(FS, FX, FT, (float)R, (float)V, FP);
    CHECK(cudaGetLastError());
    std::vector<double> GD(NumOpt);
    std::vector<float> GF(NumOpt);
    CHECK(cudaMemcpy(GD.data(), DP, NumOpt * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GF.data(), FP, NumOpt * 4, cudaMemcpyDeviceToHost));
    unsigned BadD = 0, BadF = 0, BadBs = 0;
    double Sum = 0;
    for (int I = 0; I < NumOpt; ++I) {
      double Ref = binomialHost(S[I], X[I], T[I], R, V);
      double Bs = blackScholes(S[I], X[I], T[I], R, V);
      BadD += !closeTo(GD[I], Ref, 1e-10, 1e-12);
      BadF += !closeTo(GF[I], Ref, 2e-3, 2e-3);
      BadBs += !closeTo(Ref, Bs, 1e-2, 2e-2);
      Sum += Ref;
    }
    std::printf("binomial %d options x %d steps: double bad %u, float+intrinsics bad %u, "
                "vs Black-Scholes bad %u, sum %.4f\n", NumOpt, Steps, BadD, BadF, BadBs, Sum);
    Ok &= BadD == 0 && BadF == 0 && BadBs == 0;
    for (double *P : {DS, DX, DT, DP})
      CHECK(cudaFree(P));
    for (float *P : {FS, FX, FT, FP})
      CHECK(cudaFree(P));
  }
  // Ray march.
  {
    float *DOut;
    CHECK(cudaMalloc(&DOut, Img * Img * 4));
    rayMarch<<<dim3(Img / 32, Img), 32>>>(DOut);
    CHECK(cudaGetLastError());
    std::vector<float> G(Img * Img);
    CHECK(cudaMemcpy(G.data(), DOut, Img * Img * 4, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    double Total = 0;
    for (int Y = 0; Y < Img; ++Y) {
      double Row = 0;
      for (int X = 0; X < Img; ++X) {
        float Ref = rayMarchHost(X, Y);
        Bad += !closeTo(G[Y * Img + X], Ref, 1e-4, 1e-5) || std::isnan(G[Y * Img + X]);
        Row += Ref;
      }
      Total += Row;
      if (Y % 16 == 8)
        std::printf("raymarch row %2d: %.3f\n", Y, Row);
    }
    std::printf("raymarch %dx%d, %d steps: bad pixels %u, total %.3f\n", Img, Img, MarchSteps, Bad, Total);
    Ok &= Bad == 0;
    CHECK(cudaFree(DOut));
  }
  // Edge inputs.
  {
    static const float Xs[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -0.5f, -2.5f, -3.0f, 1e-30f, -1e-30f,
                               1e-45f, 35.0f, 35.5f, 171.0f, -171.5f, 10.0f, -10.5f, 1e30f, -1e30f,
                               INFINITY, -INFINITY, NAN, 3.14159265f, 1e5f, -4.75f, 0.001f, 20.0f};
    static const float Ys[] = {0.0f, -0.0f, 2.0f, -1.0f, 0.5f, 3.0f, INFINITY, -INFINITY, 1e-7f, -2.5f, 1e10f};
    std::vector<float> A, B;
    for (float X : Xs)
      for (float Y : Ys) {
        A.push_back(X);
        B.push_back(Y);
      }
    unsigned N = A.size();
    float *DA, *DB, *DO;
    CHECK(cudaMalloc(&DA, N * 4));
    CHECK(cudaMalloc(&DB, N * 4));
    CHECK(cudaMalloc(&DO, N * NumFns * 4));
    CHECK(cudaMemcpy(DA, A.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), N * 4, cudaMemcpyHostToDevice));
    edgeKernel<<<(N + 63) / 64, 64>>>(DA, DB, N, DO);
    CHECK(cudaGetLastError());
    std::vector<float> G(N * NumFns);
    CHECK(cudaMemcpy(G.data(), DO, N * NumFns * 4, cudaMemcpyDeviceToHost));
    static const char *Names[NumFns] = {"erff", "lgammaf", "tgammaf", "powf", "atan2f", "sinf", "cosf",
                                        "sqrtf", "rsqrtf"};
    // Documented maximum ulp errors (CUDA programming guide, float
    // functions); sin/cos of huge arguments and lgamma near its negative
    // zeros are looser, so those are checked against a relative bound.
    static const double Ulps[NumFns] = {2, 6, 5, 4, 3, 2, 2, 0, 2};
    unsigned Bad[NumFns] = {};
    for (unsigned I = 0; I < N; ++I) {
      double X = A[I], Y = B[I];
      double Ref[NumFns] = {std::erf(X), std::lgamma(X), std::tgamma(X), std::pow(X, Y), std::atan2(X, Y),
                            std::sin(X), std::cos(X), std::sqrt(X), 1.0 / std::sqrt(X)};
      for (int F = 0; F < NumFns; ++F) {
        float Got = G[I * NumFns + F];
        float RefF = (float)Ref[F];
        bool Good;
        if (std::isnan(RefF) || std::isinf(RefF) || RefF == 0.0f)
          Good = (std::isnan(RefF) && std::isnan(Got)) ||
                 (!std::isnan(RefF) && Got == RefF && std::signbit(Got) == std::signbit(RefF)) ||
                 (F == 1 && std::isinf(RefF) && std::isinf(Got)) || // lgamma at poles
                 (RefF == 0.0f && std::fabs(Got) < (F == 1 ? 1e-6f : 1e-37f));
        else if ((F == 1 || F == 2) && X < 0)
          Good = std::fabs(Got - Ref[F]) <= 1e-4 * std::max(1.0, std::fabs(Ref[F]));
        else if ((F == 5 || F == 6) && std::fabs(X) > 1e4)
          Good = std::fabs(Got - Ref[F]) <= 1e-6;
        else
          Good = std::fabs(Got - Ref[F]) <= (Ulps[F] + 0.5) * ulpOf(Ref[F]);
        if (!Good) {
          if (Bad[F] < 3)
            std::printf("  %s(%g, %g) out of bounds\n", Names[F], X, Y);
          ++Bad[F];
        }
      }
    }
    for (int F = 0; F < NumFns; ++F) {
      std::printf("edge %-8s %u inputs, out of bounds %u\n", Names[F], N, Bad[F]);
      Ok &= Bad[F] == 0;
    }
    CHECK(cudaFree(DA));
    CHECK(cudaFree(DB));
    CHECK(cudaFree(DO));
  }
  return finish(Ok);
}
