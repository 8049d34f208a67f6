/// \file
/// Cubemap textures and surfaces the way environment-map code uses them: a
/// float cubemap (cudaArrayCubemap) and a layered one (cudaArrayLayered |
/// cudaArrayCubemap) written by surfCubemapwrite / surfCubemapLayeredwrite
/// from a kernel, read back with surfCubemapread / surfCubemapLayeredread,
/// and sampled with texCubemap / texCubemapLayered (point and linear
/// filtering, RGBA 8-bit read as normalised floats too). A CPU reference
/// picks the face by the CUDA programming guide's cubemap table. Directions
/// keep a clear major axis (ties between faces are not this app's subject)
/// and linear sampling is checked against a tolerance that covers the
/// hardware's 8-bit weights.
#include "../common/app_util.h"
#include <vector>

constexpr int W = 8, Layers = 3;

__host__ __device__ inline float texelValue(int X, int Y, int Face, int Layer) {
  return float((X * 7 + Y * 13 + Face * 31 + Layer * 5) % 41) * 0.25f - 3.f;
}

__host__ __device__ inline uchar4 texelRgba(int X, int Y, int Face) {
  return make_uchar4((unsigned char)(X * 30 + Face), (unsigned char)(Y * 30 + Face * 3), (unsigned char)(Face * 40),
                     (unsigned char)(255 - X * Y));
}

// One thread per texel of every face (and layer): fill through the surface.
__global__ void fillCube(cudaSurfaceObject_t S) {
  int X = threadIdx.x, Y = threadIdx.y, Face = blockIdx.x;
  surfCubemapwrite(texelValue(X, Y, Face, 0), S, X * int(sizeof(float)), Y, Face);
}

__global__ void fillCubeLayered(cudaSurfaceObject_t S) {
  int X = threadIdx.x, Y = threadIdx.y, Face = blockIdx.x, Layer = blockIdx.y;
  surfCubemapLayeredwrite(texelValue(X, Y, Face, Layer), S, X * int(sizeof(float)), Y, Layer * 6 + Face);
}

__global__ void fillRgba(cudaSurfaceObject_t S) {
  int X = threadIdx.x, Y = threadIdx.y, Face = blockIdx.x;
  surfCubemapwrite(texelRgba(X, Y, Face), S, X * int(sizeof(uchar4)), Y, Face);
}

// Reads every texel back through the surface, doubled, into linear memory.
__global__ void readCube(cudaSurfaceObject_t S, cudaSurfaceObject_t SL, float *Out, float *OutL) {
  int X = threadIdx.x, Y = threadIdx.y, Face = blockIdx.x;
  float V;
  surfCubemapread(&V, S, X * int(sizeof(float)), Y, Face);
  Out[(Face * W + Y) * W + X] = 2.f * V;
  for (int L = 0; L < Layers; ++L) {
    surfCubemapLayeredread(&V, SL, X * int(sizeof(float)), Y, L * 6 + Face);
    OutL[((L * 6 + Face) * W + Y) * W + X] = 2.f * V;
  }
}

struct Dir {
  float X, Y, Z;
  int Layer;
};

__global__ void sampleCube(cudaTextureObject_t T, cudaTextureObject_t TL, cudaTextureObject_t TR, const Dir *D,
                           float *Out, float *OutL, float4 *OutR, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  Dir P = D[I];
  Out[I] = texCubemap<float>(T, P.X, P.Y, P.Z);
  OutL[I] = texCubemapLayered<float>(TL, P.X, P.Y, P.Z, P.Layer);
  OutR[I] = texCubemap<float4>(TR, P.X, P.Y, P.Z);
}

/// The face and the face coordinates (s, t in [0, 1]) of a direction, by the
/// programming guide's table.
static void cubeFace(float X, float Y, float Z, int &Face, float &S, float &T) {
  float AX = std::fabs(X), AY = std::fabs(Y), AZ = std::fabs(Z), M, Sc, Tc;
  if (AX >= AY && AX >= AZ) {
    Face = X > 0 ? 0 : 1, M = AX, Sc = X > 0 ? -Z : Z, Tc = -Y;
  } else if (AY >= AZ) {
    Face = Y > 0 ? 2 : 3, M = AY, Sc = X, Tc = Y > 0 ? Z : -Z;
  } else {
    Face = Z > 0 ? 4 : 5, M = AZ, Sc = Z > 0 ? X : -X, Tc = -Y;
  }
  S = (Sc / M + 1.f) * 0.5f;
  T = (Tc / M + 1.f) * 0.5f;
}

static int clampI(int I) { return I < 0 ? 0 : I >= W ? W - 1 : I; }

/// Point or linear sampling of one face, clamped to its edges.
template <typename Fn> static double refSample(Fn Texel, float S, float T, bool Linear) {
  float U = S * W, V = T * W;
  if (!Linear)
    return Texel(clampI(int(std::floor(U))), clampI(int(std::floor(V))));
  float UB = U - 0.5f, VB = V - 0.5f;
  int X0 = int(std::floor(UB)), Y0 = int(std::floor(VB));
  double A = UB - X0, B = VB - Y0;
  return (1 - A) * (1 - B) * Texel(clampI(X0), clampI(Y0)) + A * (1 - B) * Texel(clampI(X0 + 1), clampI(Y0)) +
         (1 - A) * B * Texel(clampI(X0), clampI(Y0 + 1)) + A * B * Texel(clampI(X0 + 1), clampI(Y0 + 1));
}

static cudaTextureObject_t makeTexture(cudaArray_t A, bool Linear, bool NormalizedRead) {
  cudaResourceDesc RD = {};
  RD.resType = cudaResourceTypeArray;
  RD.res.array.array = A;
  cudaTextureDesc TD = {};
  TD.addressMode[0] = TD.addressMode[1] = TD.addressMode[2] = cudaAddressModeClamp;
  TD.filterMode = Linear ? cudaFilterModeLinear : cudaFilterModePoint;
  TD.readMode = NormalizedRead ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  TD.normalizedCoords = 1;
  cudaTextureObject_t T;
  CHECK(cudaCreateTextureObject(&T, &RD, &TD, nullptr));
  return T;
}

static cudaSurfaceObject_t makeSurface(cudaArray_t A) {
  cudaResourceDesc RD = {};
  RD.resType = cudaResourceTypeArray;
  RD.res.array.array = A;
  cudaSurfaceObject_t S;
  CHECK(cudaCreateSurfaceObject(&S, &RD));
  return S;
}

int main() {
  cudaChannelFormatDesc FD = cudaCreateChannelDesc<float>(), RD = cudaCreateChannelDesc<uchar4>();
  cudaArray_t Cube, CubeL, CubeR;
  CHECK(cudaMalloc3DArray(&Cube, &FD, make_cudaExtent(W, W, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&CubeL, &FD, make_cudaExtent(W, W, 6 * Layers),
                          cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&CubeR, &RD, make_cudaExtent(W, W, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
  cudaExtent Got;
  cudaChannelFormatDesc GotDesc;
  unsigned GotFlags = 0;
  CHECK(cudaArrayGetInfo(&GotDesc, &Got, &GotFlags, CubeL));
  bool InfoOk = Got.width == W && Got.height == W && Got.depth == 6 * Layers &&
                (GotFlags & cudaArrayCubemap) && (GotFlags & cudaArrayLayered);
  std::printf("layered cubemap array info: %s\n", InfoOk ? "ok" : "wrong");

  cudaSurfaceObject_t S = makeSurface(Cube), SL = makeSurface(CubeL), SR = makeSurface(CubeR);
  fillCube<<<6, dim3(W, W)>>>(S);
  fillCubeLayered<<<dim3(6, Layers), dim3(W, W)>>>(SL);
  fillRgba<<<6, dim3(W, W)>>>(SR);
  CHECK(cudaGetLastError());

  // Surface reads, and the array's contents as a host copy sees them.
  float *DOut, *DOutL;
  CHECK(cudaMalloc(&DOut, 6 * W * W * sizeof(float)));
  CHECK(cudaMalloc(&DOutL, Layers * 6 * W * W * sizeof(float)));
  readCube<<<6, dim3(W, W)>>>(S, SL, DOut, DOutL);
  CHECK(cudaGetLastError());
  std::vector<float> Back(6 * W * W), BackL(Layers * 6 * W * W), Copy(Layers * 6 * W * W);
  CHECK(cudaMemcpy(Back.data(), DOut, Back.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(BackL.data(), DOutL, BackL.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaMemcpy3DParms CP = {};
  CP.srcArray = CubeL;
  CP.dstPtr = make_cudaPitchedPtr(Copy.data(), W * sizeof(float), W, W);
  CP.extent = make_cudaExtent(W, W, 6 * Layers);
  CP.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&CP));
  int SurfBad = 0, CopyBad = 0;
  for (int L = 0; L < Layers; ++L)
    for (int F = 0; F < 6; ++F)
      for (int Y = 0; Y < W; ++Y)
        for (int X = 0; X < W; ++X) {
          float Want = texelValue(X, Y, F, L);
          size_t At = ((size_t(L) * 6 + F) * W + Y) * W + X;
          SurfBad += BackL[At] != 2.f * Want;
          CopyBad += Copy[At] != Want;
          if (L == 0)
            SurfBad += Back[(F * W + Y) * W + X] != 2.f * texelValue(X, Y, F, 0);
        }
  std::printf("surface cubemap reads: %d wrong of %d\n", SurfBad, 6 * W * W * (Layers + 1));
  std::printf("layered cubemap copied to host: %d wrong of %d\n", CopyBad, Layers * 6 * W * W);

  // Directions with a clear major axis, on every face.
  const int N = 1536;
  std::vector<Dir> Dirs(N);
  Lcg Rng(29);
  for (int I = 0; I < N; ++I) {
    float V[3];
    int Major = I % 3;
    for (int A = 0; A < 3; ++A)
      V[A] = Rng.range(-0.9f, 0.9f);
    V[Major] = (I / 3) % 2 ? -1.f : 1.f;
    float Scale = Rng.range(0.5f, 4.f);
    Dirs[I] = {V[0] * Scale, V[1] * Scale, V[2] * Scale, int(Rng.below(Layers))};
  }
  Dir *DDirs;
  float *DSamp, *DSampL;
  float4 *DSampR;
  CHECK(cudaMalloc(&DDirs, N * sizeof(Dir)));
  CHECK(cudaMalloc(&DSamp, N * sizeof(float)));
  CHECK(cudaMalloc(&DSampL, N * sizeof(float)));
  CHECK(cudaMalloc(&DSampR, N * sizeof(float4)));
  CHECK(cudaMemcpy(DDirs, Dirs.data(), N * sizeof(Dir), cudaMemcpyHostToDevice));
  bool Ok = InfoOk && SurfBad == 0 && CopyBad == 0;
  for (int Linear = 0; Linear < 2; ++Linear) {
    cudaTextureObject_t T = makeTexture(Cube, Linear, false), TL = makeTexture(CubeL, Linear, false),
                        TR = makeTexture(CubeR, Linear, true);
    sampleCube<<<(N + 127) / 128, 128>>>(T, TL, TR, DDirs, DSamp, DSampL, DSampR, N);
    CHECK(cudaGetLastError());
    std::vector<float> Samp(N), SampL(N);
    std::vector<float4> SampR(N);
    CHECK(cudaMemcpy(Samp.data(), DSamp, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(SampL.data(), DSampL, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(SampR.data(), DSampR, N * sizeof(float4), cudaMemcpyDeviceToHost));
    // Point sampling is exact; linear is within the 8-bit weights' error
    // (1/256 of the largest difference between neighbouring texels).
    double Tol = Linear ? 10.25 / 256 + 1e-5 : 0.0, TolR = Linear ? 1.0 / 256 + 1e-5 : 1e-6;
    int Bad = 0, BadL = 0, BadR = 0, FaceCount[6] = {};
    for (int I = 0; I < N; ++I) {
      int Face;
      float Sc, Tc;
      cubeFace(Dirs[I].X, Dirs[I].Y, Dirs[I].Z, Face, Sc, Tc);
      ++FaceCount[Face];
      double Want = refSample([&](int X, int Y) { return texelValue(X, Y, Face, 0); }, Sc, Tc, Linear);
      double WantL = refSample([&](int X, int Y) { return texelValue(X, Y, Face, Dirs[I].Layer); }, Sc, Tc, Linear);
      Bad += !(std::fabs(Samp[I] - Want) <= Tol);
      BadL += !(std::fabs(SampL[I] - WantL) <= Tol);
      float Got[4] = {SampR[I].x, SampR[I].y, SampR[I].z, SampR[I].w};
      for (int C = 0; C < 4; ++C) {
        double WantR = refSample(
            [&](int X, int Y) {
              uchar4 V = texelRgba(X, Y, Face);
              unsigned char Ch[4] = {V.x, V.y, V.z, V.w};
              return Ch[C] / 255.0;
            },
            Sc, Tc, Linear);
        BadR += !(std::fabs(Got[C] - WantR) <= TolR);
      }
    }
    const char *Kind = Linear ? "linear" : "point";
    std::printf("texCubemap %s: %d wrong of %d (faces %d %d %d %d %d %d)\n", Kind, Bad, N, FaceCount[0],
                FaceCount[1], FaceCount[2], FaceCount[3], FaceCount[4], FaceCount[5]);
    std::printf("texCubemapLayered %s: %d wrong of %d\n", Kind, BadL, N);
    std::printf("texCubemap rgba8 %s: %d wrong of %d\n", Kind, BadR, 4 * N);
    Ok = Ok && Bad == 0 && BadL == 0 && BadR == 0;
    CHECK(cudaDestroyTextureObject(T));
    CHECK(cudaDestroyTextureObject(TL));
    CHECK(cudaDestroyTextureObject(TR));
  }
  CHECK(cudaDestroySurfaceObject(S));
  CHECK(cudaDestroySurfaceObject(SL));
  CHECK(cudaDestroySurfaceObject(SR));
  CHECK(cudaFreeArray(Cube));
  CHECK(cudaFreeArray(CubeL));
  CHECK(cudaFreeArray(CubeR));
  return finish(Ok);
}
