/// \file
/// Texture objects the way image code uses them: a float cudaArray sampled
/// with point and bilinear filtering, unnormalised and normalised
/// coordinates, clamp/wrap/mirror/border addressing; an 8-bit RGBA array read
/// as normalised floats; 1D fetches from linear memory; and a 2D texture over
/// pitched memory. Sample positions fall on 1/4-texel steps so the
/// hardware's 8-bit interpolation weights are exact.
#include "../common/app_util.h"
#include <vector>

constexpr int W = 16, H = 16;

struct Probe {
  float X, Y;
};

__global__ void sample(cudaTextureObject_t Tex, const Probe *P, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2D<float>(Tex, P[I].X, P[I].Y);
}

__global__ void sampleRgba(cudaTextureObject_t Tex, float4 *Out) {
  int X = threadIdx.x, Y = blockIdx.x;
  Out[Y * 4 + X] = tex2D<float4>(Tex, X + 0.5f, Y + 0.5f);
}

__global__ void fetch1D(cudaTextureObject_t Tex, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex1Dfetch<int>(Tex, I) * 2 + tex1Dfetch<int>(Tex, N - 1 - I);
}

static float texel(int X, int Y) { return float((X * 3 + Y * 5) % 17); }

static int wrapI(int I, int N) { return ((I % N) + N) % N; }
static int clampI(int I, int N) { return I < 0 ? 0 : (I >= N ? N - 1 : I); }
static int mirrorI(int I, int N) {
  int P = wrapI(I, 2 * N);
  return P < N ? P : 2 * N - 1 - P;
}

// Reference sampler: Mode 0 clamp, 1 wrap, 2 mirror, 3 border (0 outside).
static float refSample(float X, float Y, bool Linear, int Mode) {
  auto At = [&](int XI, int YI) -> float {
    if (Mode == 3 && (XI < 0 || XI >= W || YI < 0 || YI >= H))
      return 0.f;
    if (Mode == 1)
      return texel(wrapI(XI, W), wrapI(YI, H));
    if (Mode == 2)
      return texel(mirrorI(XI, W), mirrorI(YI, H));
    return texel(clampI(XI, W), clampI(YI, H));
  };
  if (!Linear)
    return At(int(std::floor(X)), int(std::floor(Y)));
  float XB = X - 0.5f, YB = Y - 0.5f;
  int X0 = int(std::floor(XB)), Y0 = int(std::floor(YB));
  float A = XB - X0, B = YB - Y0;
  return (1 - A) * (1 - B) * At(X0, Y0) + A * (1 - B) * At(X0 + 1, Y0) + (1 - A) * B * At(X0, Y0 + 1) +
         A * B * At(X0 + 1, Y0 + 1);
}

int main() {
  std::vector<float> Img(W * H);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      Img[Y * W + X] = texel(X, Y);
  cudaChannelFormatDesc Desc = cudaCreateChannelDesc<float>();
  cudaArray_t Arr;
  CHECK(cudaMallocArray(&Arr, &Desc, W, H));
  CHECK(cudaMemcpy2DToArray(Arr, 0, 0, Img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));

  // Probes in texel units, some outside the image; all on quarter steps.
  const int N = 256;
  std::vector<Probe> P(N);
  Lcg Rng(12);
  for (auto &Q : P) {
    Q.X = (int(Rng.below(96)) - 16) * 0.25f;
    Q.Y = (int(Rng.below(96)) - 16) * 0.25f;
  }
  Probe *DP;
  float *DOut;
  CHECK(cudaMalloc(&DP, N * sizeof(Probe)));
  CHECK(cudaMalloc(&DOut, N * sizeof(float)));
  std::vector<float> Out(N);
  struct Config {
    const char *Name;
    bool Linear, Normalized;
    cudaTextureAddressMode Mode;
    int RefMode;
  } Configs[] = {
      {"point clamp", false, false, cudaAddressModeClamp, 0},
      {"linear clamp", true, false, cudaAddressModeClamp, 0},
      {"point border", false, false, cudaAddressModeBorder, 3},
      {"linear border", true, false, cudaAddressModeBorder, 3},
      {"point wrap (normalized)", false, true, cudaAddressModeWrap, 1},
      {"linear wrap (normalized)", true, true, cudaAddressModeWrap, 1},
      {"point mirror (normalized)", false, true, cudaAddressModeMirror, 2},
  };
  int TotalBad = 0;
  for (const Config &C : Configs) {
    cudaResourceDesc Res = {};
    Res.resType = cudaResourceTypeArray;
    Res.res.array.array = Arr;
    cudaTextureDesc TD = {};
    TD.addressMode[0] = TD.addressMode[1] = C.Mode;
    TD.filterMode = C.Linear ? cudaFilterModeLinear : cudaFilterModePoint;
    TD.readMode = cudaReadModeElementType;
    TD.normalizedCoords = C.Normalized;
    cudaTextureObject_t Tex;
    CHECK(cudaCreateTextureObject(&Tex, &Res, &TD, nullptr));
    std::vector<Probe> Q = P;
    if (C.Normalized)
      for (auto &R : Q) {
        R.X /= W;
        R.Y /= H;
      }
    CHECK(cudaMemcpy(DP, Q.data(), N * sizeof(Probe), cudaMemcpyHostToDevice));
    sample<<<N / 64, 64>>>(Tex, DP, DOut, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost));
    int Bad = 0;
    double Sum = 0;
    for (int I = 0; I < N; ++I) {
      float Want = refSample(P[I].X, P[I].Y, C.Linear, C.RefMode);
      Bad += !closeTo(Out[I], Want, 1e-3, 1e-3);
      Sum += Want;
    }
    std::printf("%-26s mismatches=%d sum=%.2f\n", C.Name, Bad, Sum);
    TotalBad += Bad;
    CHECK(cudaDestroyTextureObject(Tex));
  }

  // 8-bit RGBA, read as normalised floats.
  uchar4 Rgba[4 * 4];
  for (int I = 0; I < 16; ++I)
    Rgba[I] = make_uchar4(I * 16, 255 - I * 16, I * 3, 255);
  cudaChannelFormatDesc D4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t Arr4;
  CHECK(cudaMallocArray(&Arr4, &D4, 4, 4));
  CHECK(cudaMemcpy2DToArray(Arr4, 0, 0, Rgba, 4 * sizeof(uchar4), 4 * sizeof(uchar4), 4, cudaMemcpyHostToDevice));
  cudaResourceDesc R4 = {};
  R4.resType = cudaResourceTypeArray;
  R4.res.array.array = Arr4;
  cudaTextureDesc T4 = {};
  T4.filterMode = cudaFilterModePoint;
  T4.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t Tex4;
  CHECK(cudaCreateTextureObject(&Tex4, &R4, &T4, nullptr));
  float4 *DF4;
  CHECK(cudaMalloc(&DF4, 16 * sizeof(float4)));
  sampleRgba<<<4, 4>>>(Tex4, DF4);
  CHECK(cudaGetLastError());
  float4 F4[16];
  CHECK(cudaMemcpy(F4, DF4, sizeof(F4), cudaMemcpyDeviceToHost));
  int Bad4 = 0;
  for (int I = 0; I < 16; ++I)
    Bad4 += !closeTo(F4[I].x, Rgba[I].x / 255.0, 0, 1e-6) || !closeTo(F4[I].y, Rgba[I].y / 255.0, 0, 1e-6) ||
            !closeTo(F4[I].z, Rgba[I].z / 255.0, 0, 1e-6) || F4[I].w != 1.0f;
  std::printf("rgba8 normalized read: mismatches=%d texel5=(%.4f, %.4f, %.4f)\n", Bad4, F4[5].x, F4[5].y, F4[5].z);

  // 1D texture over linear device memory.
  const int M = 1000;
  std::vector<int> Lin(M);
  for (int I = 0; I < M; ++I)
    Lin[I] = I * I % 1009;
  int *DLin, *DLinOut;
  CHECK(cudaMalloc(&DLin, M * sizeof(int)));
  CHECK(cudaMalloc(&DLinOut, M * sizeof(int)));
  CHECK(cudaMemcpy(DLin, Lin.data(), M * sizeof(int), cudaMemcpyHostToDevice));
  cudaResourceDesc RL = {};
  RL.resType = cudaResourceTypeLinear;
  RL.res.linear.devPtr = DLin;
  RL.res.linear.desc = cudaCreateChannelDesc<int>();
  RL.res.linear.sizeInBytes = M * sizeof(int);
  cudaTextureDesc TL = {};
  TL.readMode = cudaReadModeElementType;
  cudaTextureObject_t TexL;
  CHECK(cudaCreateTextureObject(&TexL, &RL, &TL, nullptr));
  fetch1D<<<(M + 127) / 128, 128>>>(TexL, DLinOut, M);
  CHECK(cudaGetLastError());
  std::vector<int> LinOut(M);
  CHECK(cudaMemcpy(LinOut.data(), DLinOut, M * sizeof(int), cudaMemcpyDeviceToHost));
  int BadL = 0;
  for (int I = 0; I < M; ++I)
    BadL += LinOut[I] != Lin[I] * 2 + Lin[M - 1 - I];
  std::printf("tex1Dfetch over linear memory: mismatches=%d\n", BadL);

  // 2D texture over pitched linear memory, linear filtering.
  float *DPitched;
  size_t Pitch;
  CHECK(cudaMallocPitch(&DPitched, &Pitch, W * sizeof(float), H));
  CHECK(cudaMemcpy2D(DPitched, Pitch, Img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc RP = {};
  RP.resType = cudaResourceTypePitch2D;
  RP.res.pitch2D.devPtr = DPitched;
  RP.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  RP.res.pitch2D.width = W;
  RP.res.pitch2D.height = H;
  RP.res.pitch2D.pitchInBytes = Pitch;
  cudaTextureDesc TP = {};
  TP.addressMode[0] = TP.addressMode[1] = cudaAddressModeClamp;
  TP.filterMode = cudaFilterModeLinear;
  TP.readMode = cudaReadModeElementType;
  cudaTextureObject_t TexP;
  CHECK(cudaCreateTextureObject(&TexP, &RP, &TP, nullptr));
  CHECK(cudaMemcpy(DP, P.data(), N * sizeof(Probe), cudaMemcpyHostToDevice));
  sample<<<N / 64, 64>>>(TexP, DP, DOut, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost));
  int BadP = 0;
  for (int I = 0; I < N; ++I)
    BadP += !closeTo(Out[I], refSample(P[I].X, P[I].Y, true, 0), 1e-3, 1e-3);
  std::printf("pitch2D linear clamp: mismatches=%d\n", BadP);

  CHECK(cudaDestroyTextureObject(Tex4));
  CHECK(cudaDestroyTextureObject(TexL));
  CHECK(cudaDestroyTextureObject(TexP));
  CHECK(cudaFreeArray(Arr));
  CHECK(cudaFreeArray(Arr4));
  CHECK(cudaFree(DP));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DF4));
  CHECK(cudaFree(DLin));
  CHECK(cudaFree(DLinOut));
  CHECK(cudaFree(DPitched));
  return finish(TotalBad == 0 && Bad4 == 0 && BadL == 0 && BadP == 0);
}
