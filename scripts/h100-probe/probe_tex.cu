// Records texture fetches of an NVIDIA GPU bit for bit, for ferry's
// texture tests (tests/texture/data/h100-fetches.txt): linear and point
// filtering of float and uchar4 (normalised float read mode) textures in
// 1D, 2D, 3D, 1D/2D layered and cubemap (layered) geometry, every address
// mode, normalised and unnormalised coordinates.
// Texel values follow texelFloat/texelByte below; the test computes them
// the same way. Output: "cfg ..." lines, then "s x y z layer r0 r1 r2 r3"
// with the coordinates and results as hexadecimal float bits.
// Build: nvcc -arch=sm_90 probe_tex.cu -o probe_tex
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static float texelFloat(int I, int J, int K, int C) { return float((I * 37 + J * 91 + K * 53 + C * 29) % 97) / 8.f - 6.f; }
static unsigned char texelByte(int I, int J, int K, int C) {
  return (unsigned char)(((I * 37 + J * 91 + K * 53 + C * 29 + 11) * 7) % 256);
}

struct Sample {
  float X, Y, Z;
  int Layer;
};

__global__ void fetchKernel(cudaTextureObject_t T, int Geom, const Sample *S, float4 *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  Sample P = S[I];
  float4 R;
  switch (Geom) {
  case 0: R = tex1D<float4>(T, P.X); break;
  case 1: R = tex2D<float4>(T, P.X, P.Y); break;
  case 2: R = tex3D<float4>(T, P.X, P.Y, P.Z); break;
  case 3: R = tex1DLayered<float4>(T, P.X, P.Layer); break;
  case 4: R = tex2DLayered<float4>(T, P.X, P.Y, P.Layer); break;
  case 5: R = texCubemap<float4>(T, P.X, P.Y, P.Z); break;
  default: R = texCubemapLayered<float4>(T, P.X, P.Y, P.Z, P.Layer); break;
  }
  Out[I] = R;
}

struct Lcg {
  uint64_t State = 0x9e3779b97f4a7c15ull;
  uint32_t next() {
    State = State * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(State >> 32);
  }
  float uniform() { return float(next() >> 8) * (1.f / 16777216.f); }
  int below(int N) { return int((uint64_t(next()) * uint64_t(N)) >> 32); }
};

static uint32_t bits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t E_ = (X);                                                      \
    if (E_ != cudaSuccess) {                                                   \
      std::printf("error %s at line %d\n", cudaGetErrorString(E_), __LINE__);  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main() {
  // Geometry: 0 1d, 1 2d, 2 3d, 3 1d layered, 4 2d layered, 5 cube, 6 cube layered.
  const int Dims[7][3] = {{13, 0, 0}, {11, 7, 0}, {5, 6, 7}, {9, 0, 3}, {7, 5, 3}, {4, 4, 6}, {4, 4, 12}};
  const char *AddrNames[] = {"wrap", "clamp", "mirror", "border"};
  Lcg R;
  int Cfg = 0;
  for (int Geom = 0; Geom < 7; ++Geom) {
    bool Cube = Geom >= 5;
    int W = Dims[Geom][0], H = Dims[Geom][1], D = Dims[Geom][2];
    bool Layered = Geom == 3 || Geom == 4 || Geom == 6;
    int Layers = Geom == 3 || Geom == 4 ? D : Geom == 6 ? D / 6 : 0;
    for (int Fmt = 0; Fmt < 2; ++Fmt) {
      // The array, W x max(H,1) x max(D,1) texels (D: layers/faces).
      int EH = H ? H : 1, ED = D ? D : 1;
      cudaChannelFormatDesc CD = Fmt == 0 ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<uchar4>();
      cudaExtent Ext = make_cudaExtent(W, H, D);
      unsigned Flags = (Layered ? cudaArrayLayered : 0) | (Cube ? cudaArrayCubemap : 0);
      cudaArray_t Arr;
      CHECK(cudaMalloc3DArray(&Arr, &CD, Ext, Flags));
      size_t Elem = Fmt == 0 ? 4 : 4;
      std::vector<unsigned char> Host(size_t(W) * EH * ED * Elem);
      for (int K = 0; K < ED; ++K)
        for (int J = 0; J < EH; ++J)
          for (int I = 0; I < W; ++I) {
            size_t At = ((size_t(K) * EH + J) * W + I) * Elem;
            if (Fmt == 0) {
              float V = texelFloat(I, J, K, 0);
              std::memcpy(&Host[At], &V, 4);
            } else {
              for (int C = 0; C < 4; ++C)
                Host[At + C] = texelByte(I, J, K, C);
            }
          }
      cudaMemcpy3DParms CP;
      std::memset(&CP, 0, sizeof(CP));
      CP.srcPtr = make_cudaPitchedPtr(Host.data(), W * Elem, W, EH);
      CP.dstArray = Arr;
      CP.extent = make_cudaExtent(W, EH, ED);
      CP.kind = cudaMemcpyHostToDevice;
      CHECK(cudaMemcpy3D(&CP));
      for (int Addr = 0; Addr < 4; ++Addr)
        for (int Norm = 0; Norm < 2; ++Norm)
          for (int Filter = 0; Filter < 2; ++Filter) {
            if (Cube && (Addr != 1 || Norm != 1))
              continue;
            cudaResourceDesc RD;
            std::memset(&RD, 0, sizeof(RD));
            RD.resType = cudaResourceTypeArray;
            RD.res.array.array = Arr;
            cudaTextureDesc TD;
            std::memset(&TD, 0, sizeof(TD));
            for (int A = 0; A < 3; ++A)
              TD.addressMode[A] = cudaTextureAddressMode(Addr);
            TD.filterMode = Filter ? cudaFilterModeLinear : cudaFilterModePoint;
            TD.readMode = Fmt == 0 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
            TD.normalizedCoords = Norm;
            TD.borderColor[0] = 0.3f, TD.borderColor[1] = 0.7f, TD.borderColor[2] = -0.25f, TD.borderColor[3] = 1.5f;
            cudaTextureObject_t T;
            CHECK(cudaCreateTextureObject(&T, &RD, &TD, nullptr));
            // Coordinates in texel units first, then normalised.
            std::vector<Sample> S;
            int Axes = Geom == 0 || Geom == 3 ? 1 : Geom == 2 ? 3 : 2;
            int Ext3[3] = {W, H, Geom == 2 ? D : 0};
            int Count = Cube ? 96 : 28;
            for (int N = 0; N < Count; ++N) {
              Sample P{0, 0, 0, 0};
              if (Cube) {
                // Directions: random, axis ties, and near-edge points.
                float V[3];
                for (int A = 0; A < 3; ++A)
                  V[A] = (R.uniform() * 2.f - 1.f) * (1.f + 3.f * R.uniform());
                if (N % 8 == 1)
                  V[1] = V[0];
                if (N % 8 == 2)
                  V[2] = -V[0];
                if (N % 8 == 3)
                  V[R.below(3)] = 0.f;
                if (N % 8 == 4) { // on a face, near its edge
                  int Major = R.below(3);
                  V[Major] = R.below(2) ? 1.f : -1.f;
                  for (int A = 0; A < 3; ++A)
                    if (A != Major)
                      V[A] = (R.below(2) ? 1.f : -1.f) * (1.f - float(R.below(64)) / 128.f);
                }
                P.X = V[0], P.Y = V[1], P.Z = V[2];
              } else {
                float *C[3] = {&P.X, &P.Y, &P.Z};
                for (int A = 0; A < Axes; ++A) {
                  int E = Ext3[A];
                  float U;
                  switch (N % 4) {
                  case 0: U = -1.25f * E + 3.5f * E * R.uniform(); break;
                  case 1: U = float(R.below(E + 4) - 2) + float(R.below(512)) / 512.f; break; // half weights
                  case 2: U = float(R.below(E + 2) - 1) + 0.5f + (float(R.below(9)) - 4.f) / 4096.f; break;
                  default: U = float(R.below(E * 3) - E) + R.uniform(); break;
                  }
                  *C[A] = Norm ? U / float(E) : U;
                }
              }
              if (Layered)
                P.Layer = N % 7 == 6 ? (N % 2 ? -1 : Layers) : R.below(Layers);
              S.push_back(P);
            }
            Sample *DS;
            float4 *DO;
            CHECK(cudaMalloc(&DS, S.size() * sizeof(Sample)));
            CHECK(cudaMalloc(&DO, S.size() * sizeof(float4)));
            CHECK(cudaMemcpy(DS, S.data(), S.size() * sizeof(Sample), cudaMemcpyHostToDevice));
            fetchKernel<<<(int(S.size()) + 63) / 64, 64>>>(T, Geom, DS, DO, int(S.size()));
            CHECK(cudaGetLastError());
            std::vector<float4> Out(S.size());
            CHECK(cudaMemcpy(Out.data(), DO, Out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
            std::printf("cfg %d geom %d w %d h %d d %d fmt %s addr %s norm %d filter %s\n", Cfg++, Geom, W, H, D,
                        Fmt == 0 ? "float" : "uchar4", AddrNames[Addr], Norm, Filter ? "linear" : "point");
            for (size_t N = 0; N < S.size(); ++N)
              std::printf("s %08x %08x %08x %d %08x %08x %08x %08x\n", bits(S[N].X), bits(S[N].Y), bits(S[N].Z),
                          S[N].Layer, bits(Out[N].x), bits(Out[N].y), bits(Out[N].z), bits(Out[N].w));
            cudaFree(DS);
            cudaFree(DO);
            cudaDestroyTextureObject(T);
          }
      cudaFreeArray(Arr);
    }
  }
  std::printf("done\n");
  return 0;
}
