/// \file
/// cuFFT transforms checked against a reference DFT computed here in long
/// double: ranks 1-3, every type (C2C/Z2Z/R2C/D2Z/C2R/Z2D), forward and
/// inverse, in and out of place, batched, cufftPlanMany's advanced layouts
/// (strides, distances, embeddings), cufftMakePlan*/GetSize/SetWorkArea/
/// SetAutoAllocation, and a transform on a stream. Errors are measured
/// against the largest output magnitude: within 1e-5 (single) and 1e-12
/// (double) relative, cuFFT's own accuracy class. Prints `CufftMore: PASS`.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

using LC = std::complex<long double>;

static int Failures = 0;

static double inputValue(long I, int Salt) { return std::sin(0.37 * I + Salt) + 0.25 * std::cos(1.3 * I * I + Salt); }

/// One logical multi-dimensional DFT of extents N (row-major) over complex
/// data; Sign -1 forward.
static std::vector<LC> dft(const std::vector<LC> &X, const std::vector<long> &N, int Sign) {
  long Total = 1;
  for (long E : N)
    Total *= E;
  std::vector<LC> Y(Total);
  const long double Pi = 3.14159265358979323846264338327950288L;
  std::vector<long> Idx(N.size()), Jdx(N.size());
  for (long K = 0; K < Total; ++K) {
    long R = K;
    for (int D = (int)N.size() - 1; D >= 0; --D) {
      Idx[D] = R % N[D];
      R /= N[D];
    }
    LC Sum = 0;
    for (long J = 0; J < Total; ++J) {
      long S = J;
      long double Phase = 0;
      for (int D = (int)N.size() - 1; D >= 0; --D) {
        Jdx[D] = S % N[D];
        S /= N[D];
        Phase += (long double)Idx[D] * Jdx[D] / N[D];
      }
      Sum += X[J] * std::polar(1.0L, Sign * 2 * Pi * Phase);
    }
    Y[K] = Sum;
  }
  return Y;
}

static void report(const char *Name, double Err, double Tol) {
  bool Ok = Err <= Tol;
  std::printf("%s %s (relative error %.3g)\n", Name, Ok ? "ok" : "FAIL", Err);
  if (!Ok)
    ++Failures;
}

/// Layout of one transform as PlanMany sees it (elements of its type).
struct Layout {
  std::vector<long> N;
  std::vector<long> InEmbed, OutEmbed; // empty: basic layout
  long IStride = 1, IDist = 0, OStride = 1, ODist = 0;
  int Batch = 1;
};

static long offsetOf(const std::vector<long> &Idx, const std::vector<long> &Embed, long Stride) {
  long Off = 0;
  for (size_t D = 0; D < Idx.size(); ++D)
    Off = Off * Embed[D] + Idx[D];
  return Off * Stride;
}

template <typename Real> struct Types;
template <> struct Types<float> {
  using C = cufftComplex;
  static constexpr cufftType C2C = CUFFT_C2C, R2C = CUFFT_R2C, C2R = CUFFT_C2R;
  static constexpr double Tol = 1e-5;
  static cufftResult c2c(cufftHandle P, C *I, C *O, int D) { return cufftExecC2C(P, I, O, D); }
  static cufftResult r2c(cufftHandle P, float *I, C *O) { return cufftExecR2C(P, I, O); }
  static cufftResult c2r(cufftHandle P, C *I, float *O) { return cufftExecC2R(P, I, O); }
};
template <> struct Types<double> {
  using C = cufftDoubleComplex;
  static constexpr cufftType C2C = CUFFT_Z2Z, R2C = CUFFT_D2Z, C2R = CUFFT_Z2D;
  static constexpr double Tol = 1e-12;
  static cufftResult c2c(cufftHandle P, C *I, C *O, int D) { return cufftExecZ2Z(P, I, O, D); }
  static cufftResult r2c(cufftHandle P, double *I, C *O) { return cufftExecD2Z(P, I, O); }
  static cufftResult c2r(cufftHandle P, C *I, double *O) { return cufftExecZ2D(P, I, O); }
};

static std::vector<std::vector<long>> allIndices(const std::vector<long> &N) {
  std::vector<std::vector<long>> Out;
  long Total = 1;
  for (long E : N)
    Total *= E;
  for (long K = 0; K < Total; ++K) {
    std::vector<long> I(N.size());
    long R = K;
    for (int D = (int)N.size() - 1; D >= 0; --D) {
      I[D] = R % N[D];
      R /= N[D];
    }
    Out.push_back(I);
  }
  return Out;
}

/// Complex-to-complex in the given layout; InPlace uses one buffer.
template <typename Real> static void c2c(const char *Name, Layout L, int Sign, bool InPlace) {
  using T = Types<Real>;
  int Rank = (int)L.N.size();
  bool Basic = L.InEmbed.empty();
  if (Basic) {
    L.InEmbed = L.OutEmbed = L.N;
    long Total = 1;
    for (long E : L.N)
      Total *= E;
    L.IDist = L.ODist = Total;
    L.IStride = L.OStride = 1;
  }
  long InSize = L.IDist * (L.Batch - 1) + offsetOf(std::vector<long>(L.N.begin(), L.N.end()), L.InEmbed, L.IStride) + 1;
  long OutSize = L.ODist * (L.Batch - 1) + offsetOf(std::vector<long>(L.N.begin(), L.N.end()), L.OutEmbed, L.OStride) + 1;
  long Size = InPlace ? std::max(InSize, OutSize) : InSize;
  std::vector<typename T::C> Host(Size);
  for (long I = 0; I < Size; ++I)
    Host[I] = {(Real)inputValue(I, 1), (Real)inputValue(I, 2)};
  typename T::C *In, *Out;
  cudaMalloc(&In, Size * sizeof(Host[0]));
  Out = In;
  if (!InPlace)
    cudaMalloc(&Out, OutSize * sizeof(Host[0]));
  cudaMemcpy(In, Host.data(), Size * sizeof(Host[0]), cudaMemcpyHostToDevice);
  int N[3], Ie[3], Oe[3];
  for (int D = 0; D < Rank; ++D) {
    N[D] = (int)L.N[D];
    Ie[D] = (int)L.InEmbed[D];
    Oe[D] = (int)L.OutEmbed[D];
  }
  cufftHandle P;
  cufftResult R = Basic ? cufftPlanMany(&P, Rank, N, nullptr, 1, 0, nullptr, 1, 0, T::C2C, L.Batch)
                        : cufftPlanMany(&P, Rank, N, Ie, (int)L.IStride, (int)L.IDist, Oe, (int)L.OStride,
                                        (int)L.ODist, T::C2C, L.Batch);
  if (R == CUFFT_SUCCESS)
    R = T::c2c(P, In, Out, Sign);
  std::vector<typename T::C> Got(InPlace ? Size : OutSize);
  cudaDeviceSynchronize();
  cudaMemcpy(Got.data(), Out, Got.size() * sizeof(Got[0]), cudaMemcpyDeviceToHost);
  double Err = R == CUFFT_SUCCESS ? 0 : 1e30, Scale = 1e-30;
  auto Idx = allIndices(L.N);
  for (int B = 0; B < L.Batch; ++B) {
    std::vector<LC> X;
    for (auto &I : Idx) {
      auto V = Host[B * L.IDist + offsetOf(I, L.InEmbed, L.IStride)];
      X.push_back(LC(V.x, V.y));
    }
    auto Y = dft(X, L.N, Sign);
    for (size_t K = 0; K < Idx.size(); ++K) {
      auto V = Got[B * L.ODist + offsetOf(Idx[K], L.OutEmbed, L.OStride)];
      Err = std::max(Err, (double)std::abs(LC(V.x, V.y) - Y[K]));
      Scale = std::max(Scale, (double)std::abs(Y[K]));
    }
  }
  report(Name, Err / Scale, T::Tol);
  cufftDestroy(P);
  cudaFree(In);
  if (!InPlace)
    cudaFree(Out);
}

/// Real-to-complex then complex-to-real in cuFFT's basic layout (padded
/// rows in place), batched; the round trip must give N * input back.
template <typename Real> static void realPair(const char *Name, std::vector<long> Dims, int Batch, bool InPlace) {
  using T = Types<Real>;
  int Rank = (int)Dims.size();
  long Last = Dims.back(), Half = Last / 2 + 1;
  long Rows = 1;
  for (int D = 0; D + 1 < Rank; ++D)
    Rows *= Dims[D];
  long RealRow = InPlace ? 2 * Half : Last;
  long RealDist = Rows * RealRow, CDist = Rows * Half;
  std::vector<Real> Host(RealDist * Batch, 0);
  for (int B = 0; B < Batch; ++B)
    for (long R = 0; R < Rows; ++R)
      for (long X = 0; X < Last; ++X)
        Host[B * RealDist + R * RealRow + X] = (Real)inputValue(B * 1000 + R * Last + X, 3);
  Real *In;
  typename T::C *Out;
  cudaMalloc(&In, std::max(RealDist * Batch * sizeof(Real), CDist * Batch * sizeof(typename T::C)));
  Out = InPlace ? (typename T::C *)In : nullptr;
  if (!InPlace)
    cudaMalloc(&Out, CDist * Batch * sizeof(typename T::C));
  cudaMemcpy(In, Host.data(), Host.size() * sizeof(Real), cudaMemcpyHostToDevice);
  int N[3];
  for (int D = 0; D < Rank; ++D)
    N[D] = (int)Dims[D];
  cufftHandle F, I;
  cufftResult R = cufftPlanMany(&F, Rank, N, nullptr, 1, 0, nullptr, 1, 0, T::R2C, Batch);
  if (R == CUFFT_SUCCESS)
    R = cufftPlanMany(&I, Rank, N, nullptr, 1, 0, nullptr, 1, 0, T::C2R, Batch);
  if (R == CUFFT_SUCCESS)
    R = T::r2c(F, In, Out);
  std::vector<typename T::C> Spec(CDist * Batch);
  cudaDeviceSynchronize();
  cudaMemcpy(Spec.data(), Out, Spec.size() * sizeof(Spec[0]), cudaMemcpyDeviceToHost);
  double Err = R == CUFFT_SUCCESS ? 0 : 1e30, Scale = 1e-30;
  auto Idx = allIndices(Dims);
  for (int B = 0; B < Batch; ++B) {
    std::vector<LC> X;
    for (auto &Ix : Idx) {
      long Row = 0;
      for (int D = 0; D + 1 < Rank; ++D)
        Row = Row * Dims[D] + Ix[D];
      X.push_back(LC(Host[B * RealDist + Row * RealRow + Ix.back()], 0));
    }
    auto Y = dft(X, Dims, -1);
    for (size_t K = 0; K < Idx.size(); ++K) {
      if (Idx[K].back() >= Half)
        continue;
      long Row = 0;
      for (int D = 0; D + 1 < Rank; ++D)
        Row = Row * Dims[D] + Idx[K][D];
      auto V = Spec[B * CDist + Row * Half + Idx[K].back()];
      Err = std::max(Err, (double)std::abs(LC(V.x, V.y) - Y[K]));
      Scale = std::max(Scale, (double)std::abs(Y[K]));
    }
  }
  char Label[128];
  std::snprintf(Label, sizeof(Label), "%s.r2c", Name);
  report(Label, Err / Scale, T::Tol);
  // Back: C2R of the spectrum gives N * x.
  Real *Back = InPlace ? In : nullptr;
  if (!InPlace)
    cudaMalloc(&Back, RealDist * Batch * sizeof(Real));
  if (R == CUFFT_SUCCESS)
    R = T::c2r(I, Out, Back);
  std::vector<Real> Got(RealDist * Batch);
  cudaDeviceSynchronize();
  cudaMemcpy(Got.data(), Back, Got.size() * sizeof(Real), cudaMemcpyDeviceToHost);
  long Total = Rows * Last;
  Err = R == CUFFT_SUCCESS ? 0 : 1e30;
  Scale = 1e-30;
  for (int B = 0; B < Batch; ++B)
    for (long Rw = 0; Rw < Rows; ++Rw)
      for (long X = 0; X < Last; ++X) {
        long At = B * RealDist + Rw * RealRow + X;
        Err = std::max(Err, std::fabs((double)Got[At] - (double)Host[At] * Total));
        Scale = std::max(Scale, std::fabs((double)Host[At] * Total));
      }
  std::snprintf(Label, sizeof(Label), "%s.c2r", Name);
  report(Label, Err / Scale, T::Tol * 10);
  cufftDestroy(F);
  cufftDestroy(I);
  cudaFree(In);
  if (!InPlace) {
    cudaFree(Out);
    cudaFree(Back);
  }
}

/// MakePlan with a caller's work area and no auto allocation, on a stream.
static void workAreaAndStream() {
  cufftHandle P;
  size_t Ws = 123;
  cufftCreate(&P);
  cufftSetAutoAllocation(P, 0);
  cufftResult R = cufftMakePlan1d(P, 64, CUFFT_C2C, 3, &Ws);
  size_t Got = 99;
  cufftGetSize(P, &Got);
  void *Work = nullptr;
  cudaMalloc(&Work, Ws + 16);
  cufftSetWorkArea(P, Work);
  cudaStream_t S;
  cudaStreamCreate(&S);
  cufftSetStream(P, S);
  std::vector<cufftComplex> Host(64 * 3);
  for (size_t I = 0; I < Host.size(); ++I)
    Host[I] = {(float)inputValue(I, 5), 0};
  cufftComplex *D;
  cudaMalloc(&D, Host.size() * sizeof(Host[0]));
  cudaMemcpyAsync(D, Host.data(), Host.size() * sizeof(Host[0]), cudaMemcpyHostToDevice, S);
  if (R == CUFFT_SUCCESS)
    R = cufftExecC2C(P, D, D, CUFFT_FORWARD);
  std::vector<cufftComplex> Out(Host.size());
  cudaMemcpyAsync(Out.data(), D, Out.size() * sizeof(Out[0]), cudaMemcpyDeviceToHost, S);
  cudaStreamSynchronize(S);
  double Err = R == CUFFT_SUCCESS && Ws == Got ? 0 : 1e30, Scale = 1e-30;
  for (int B = 0; B < 3; ++B) {
    std::vector<LC> X;
    for (int I = 0; I < 64; ++I)
      X.push_back(LC(Host[B * 64 + I].x, 0));
    auto Y = dft(X, {64}, -1);
    for (int K = 0; K < 64; ++K) {
      Err = std::max(Err, (double)std::abs(LC(Out[B * 64 + K].x, Out[B * 64 + K].y) - Y[K]));
      Scale = std::max(Scale, (double)std::abs(Y[K]));
    }
  }
  report("stream_workarea_c2c64x3", Err / Scale, 1e-5);
  cufftDestroy(P);
  cudaStreamDestroy(S);
  cudaFree(D);
  cudaFree(Work);
}

/// cufftXtMakePlanMany over cudaDataType, executed with cufftXtExec.
static void xtPlan() {
  const int N = 20, Batch = 2;
  std::vector<cufftDoubleComplex> Host(N * Batch);
  for (int I = 0; I < N * Batch; ++I)
    Host[I] = {inputValue(I, 7), inputValue(I, 8)};
  cufftDoubleComplex *D;
  cudaMalloc(&D, Host.size() * sizeof(Host[0]));
  cudaMemcpy(D, Host.data(), Host.size() * sizeof(Host[0]), cudaMemcpyHostToDevice);
  cufftHandle P;
  cufftCreate(&P);
  long long Nn[1] = {N};
  size_t Ws = 1;
  cufftResult R = cufftXtMakePlanMany(P, 1, Nn, nullptr, 1, N, CUDA_C_64F, nullptr, 1, N, CUDA_C_64F, Batch, &Ws,
                                      CUDA_C_64F);
  if (R == CUFFT_SUCCESS)
    R = cufftXtExec(P, D, D, CUFFT_INVERSE);
  std::vector<cufftDoubleComplex> Got(Host.size());
  cudaDeviceSynchronize();
  cudaMemcpy(Got.data(), D, Got.size() * sizeof(Got[0]), cudaMemcpyDeviceToHost);
  double Err = R == CUFFT_SUCCESS ? 0 : 1e30, Scale = 1e-30;
  for (int B = 0; B < Batch; ++B) {
    std::vector<LC> X;
    for (int I = 0; I < N; ++I)
      X.push_back(LC(Host[B * N + I].x, Host[B * N + I].y));
    auto Y = dft(X, {N}, +1);
    for (int K = 0; K < N; ++K) {
      Err = std::max(Err, (double)std::abs(LC(Got[B * N + K].x, Got[B * N + K].y) - Y[K]));
      Scale = std::max(Scale, (double)std::abs(Y[K]));
    }
  }
  report("xt_z2z_20x2_inverse", Err / Scale, 1e-12);
  cufftHandle H;
  cufftCreate(&H);
  cufftResult Half = cufftXtMakePlanMany(H, 1, Nn, nullptr, 1, N, CUDA_C_16F, nullptr, 1, N, CUDA_C_16F, 1, &Ws,
                                         CUDA_C_16F);
  std::printf("xt_half_plan status %d\n", (int)Half);
  cufftDestroy(H);
  cufftDestroy(P);
  cudaFree(D);
}

int main() {
  c2c<float>("c2c_1d_16_out", {{16}}, CUFFT_FORWARD, false);
  c2c<float>("c2c_1d_12_inv_in", {{12}}, CUFFT_INVERSE, true);
  c2c<float>("c2c_1d_30_batch4_in", {{30}, {}, {}, 1, 0, 1, 0, 4}, CUFFT_FORWARD, true);
  c2c<double>("z2z_1d_17_out", {{17}}, CUFFT_FORWARD, false);
  c2c<double>("z2z_2d_6x10_in", {{6, 10}}, CUFFT_INVERSE, true);
  c2c<float>("c2c_3d_4x6x5_out", {{4, 6, 5}}, CUFFT_FORWARD, false);
  c2c<double>("z2z_3d_3x4x8_batch2", {{3, 4, 8}, {}, {}, 1, 0, 1, 0, 2}, CUFFT_FORWARD, false);
  // Advanced layouts: strided, distances, padded embeddings.
  c2c<float>("c2c_many_strided", {{8}, {8}, {8}, 2, 17, 3, 25, 3}, CUFFT_FORWARD, false);
  c2c<double>("z2z_many_embed_2d", {{5, 6}, {5, 9}, {7, 8}, 1, 47, 2, 120, 2}, CUFFT_INVERSE, false);
  c2c<float>("c2c_many_interleaved", {{10}, {10}, {10}, 4, 1, 4, 1, 4}, CUFFT_FORWARD, true);
  realPair<float>("r2c_1d_16", {16}, 1, false);
  realPair<float>("r2c_1d_15_batch3_in", {15}, 3, true);
  realPair<double>("d2z_2d_6x9", {6, 9}, 1, false);
  realPair<double>("d2z_2d_8x8_in", {8, 8}, 2, true);
  realPair<float>("r2c_3d_4x4x6", {4, 4, 6}, 1, false);
  realPair<double>("d2z_3d_3x5x7_in", {3, 5, 7}, 1, true);
  workAreaAndStream();
  xtPlan();
  std::printf("CufftMore: %s (%d failures)\n", Failures ? "FAIL" : "PASS", Failures);
  return Failures ? 1 : 0;
}
