/// \file
/// Two transforms in the style of the old SDK samples:
/// - a 1-D Haar wavelet decomposition, one block per 2*blockDim.x-sample
///   slice, every level inside the block through dynamically sized shared
///   memory (extern __shared__, size given at launch), details written per
///   level, then a second pass combining the slices' approximations; inputs
///   are small integers so every value is a dyadic rational and the float
///   results are exact;
/// - a fast Walsh-Hadamard transform of 32-bit integers whose butterflies
///   at strides 32..1 are written the legacy warp-synchronous way: each warp
///   owns 64 consecutive elements in a volatile shared array and runs those
///   stages with no __syncthreads and no __syncwarp, trusting lockstep
///   execution; then a dyadic convolution through two transforms and a
///   pointwise product, checked against the direct O(n^2) sum.
#include "../common/app_util.h"
#include <vector>

// ------------------------------------------------------------------- Haar

__global__ void haarBlock(const float *In, float *Details, float *Approx, unsigned Levels) {
  extern __shared__ float S[]; // 2 * blockDim.x floats
  unsigned T = threadIdx.x;
  unsigned Len = 2 * blockDim.x;
  const float *Src = In + blockIdx.x * Len;
  S[T] = Src[T];
  S[T + blockDim.x] = Src[T + blockDim.x];
  __syncthreads();
  unsigned Half = blockDim.x;
  // Details of level L live at Details[(offset of level L) + block * half + i].
  unsigned LevelOffset = 0;
  for (unsigned L = 0; L < Levels; ++L) {
    float A = 0, D = 0;
    if (T < Half) {
      float X = S[2 * T], Y = S[2 * T + 1];
      A = (X + Y) * 0.5f;
      D = (X - Y) * 0.5f;
    }
    __syncthreads();
    if (T < Half) {
      S[T] = A;
      Details[LevelOffset + blockIdx.x * Half + T] = D;
    }
    LevelOffset += gridDim.x * Half;
    Half >>= 1;
    __syncthreads();
  }
  if (T < 2 * Half)
    Approx[blockIdx.x * 2 * Half + T] = S[T];
}

// ------------------------------------------------------------------- Walsh

constexpr unsigned FwtLen = 2048; // per block, 1024 threads

__device__ __forceinline__ void butterfly(volatile int *S, unsigned T, unsigned Stride) {
  unsigned I = (T / Stride) * 2 * Stride + (T % Stride);
  int A = S[I], B = S[I + Stride];
  S[I] = A + B;
  S[I + Stride] = A - B;
}

// Transforms FwtLen-element segments in place (the first log2(FwtLen) stages).
__global__ void fwtSegment(int *Data) {
  __shared__ int Buf[FwtLen];
  volatile int *S = Buf;
  unsigned T = threadIdx.x;
  int *Seg = Data + blockIdx.x * FwtLen;
  S[T] = Seg[T];
  S[T + FwtLen / 2] = Seg[T + FwtLen / 2];
  __syncthreads();
  for (unsigned Stride = FwtLen / 2; Stride >= 64; Stride >>= 1) {
    butterfly(S, T, Stride);
    __syncthreads();
  }
  // Legacy: warp w owns S[64w, 64w + 64), no barrier between stages.
  butterfly(S, T, 32);
  butterfly(S, T, 16);
  butterfly(S, T, 8);
  butterfly(S, T, 4);
  butterfly(S, T, 2);
  butterfly(S, T, 1);
  __syncthreads();
  Seg[T] = S[T];
  Seg[T + FwtLen / 2] = S[T + FwtLen / 2];
}

// Stages with strides >= FwtLen, one butterfly per thread in global memory.
__global__ void fwtGlobalStage(int *Data, unsigned Stride, unsigned Pairs) {
  unsigned T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= Pairs)
    return;
  unsigned I = (T / Stride) * 2 * Stride + (T % Stride);
  int A = Data[I], B = Data[I + Stride];
  Data[I] = A + B;
  Data[I + Stride] = A - B;
}

__global__ void pointwiseMul(int *A, const int *B, unsigned N) {
  for (unsigned I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    A[I] *= B[I];
}

static void fwtDevice(int *D, unsigned N) {
  fwtSegment<<<N / FwtLen, FwtLen / 2>>>(D);
  CHECK(cudaGetLastError());
  for (unsigned Stride = FwtLen; Stride < N; Stride <<= 1) {
    fwtGlobalStage<<<(N / 2 + 255) / 256, 256>>>(D, Stride, N / 2);
    CHECK(cudaGetLastError());
  }
}

static void fwtHost(std::vector<int> &X) {
  for (size_t Stride = 1; Stride < X.size(); Stride <<= 1)
    for (size_t I = 0; I < X.size(); I += 2 * Stride)
      for (size_t J = I; J < I + Stride; ++J) {
        int A = X[J], B = X[J + Stride];
        X[J] = A + B;
        X[J + Stride] = A - B;
      }
}

int main() {
  bool Ok = true;
  // Haar: 16 blocks of 512 samples, 6 levels in-block.
  {
    const unsigned Threads = 256, Blocks = 16, Len = 2 * Threads, N = Len * Blocks, Levels = 6;
    Lcg Rng(11);
    std::vector<float> X(N);
    for (auto &V : X)
      V = (float)Rng.below(1024);
    float *DIn, *DDet, *DApp;
    CHECK(cudaMalloc(&DIn, N * 4));
    CHECK(cudaMalloc(&DDet, N * 4));
    CHECK(cudaMalloc(&DApp, N * 4));
    CHECK(cudaMemcpy(DIn, X.data(), N * 4, cudaMemcpyHostToDevice));
    haarBlock<<<Blocks, Threads, Len * sizeof(float)>>>(DIn, DDet, DApp, Levels);
    CHECK(cudaGetLastError());
    unsigned DetCount = 0;
    for (unsigned L = 0, H = Threads; L < Levels; ++L, H >>= 1)
      DetCount += Blocks * H;
    unsigned AppCount = N >> Levels;
    std::vector<float> Det(DetCount), App(AppCount);
    CHECK(cudaMemcpy(Det.data(), DDet, DetCount * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(App.data(), DApp, AppCount * 4, cudaMemcpyDeviceToHost));
    // CPU: the same per-slice decomposition.
    unsigned Bad = 0;
    double DetSum = 0;
    std::vector<float> Cur = X;
    unsigned Off = 0;
    unsigned SliceLen = Len;
    for (unsigned L = 0; L < Levels; ++L) {
      unsigned Half = SliceLen / 2;
      std::vector<float> Next(Cur.size() / 2);
      for (unsigned B = 0; B < Blocks; ++B)
        for (unsigned I = 0; I < Half; ++I) {
          float P = Cur[B * SliceLen + 2 * I], Q = Cur[B * SliceLen + 2 * I + 1];
          Next[B * Half + I] = (P + Q) * 0.5f;
          float D = (P - Q) * 0.5f;
          Bad += Det[Off + B * Half + I] != D;
          DetSum += std::fabs(D);
        }
      Off += Blocks * Half;
      Cur.swap(Next);
      SliceLen = Half;
    }
    for (unsigned I = 0; I < AppCount; ++I)
      Bad += App[I] != Cur[I];
    std::printf("haar: %u samples, %u levels, %u details, %u approximations, mismatches %u, sum|d| %.3f\n", N,
                Levels, DetCount, AppCount, Bad, DetSum);
    Ok &= Bad == 0;
    CHECK(cudaFree(DIn));
    CHECK(cudaFree(DDet));
    CHECK(cudaFree(DApp));
  }
  // Walsh-Hadamard of several sizes, then a dyadic convolution.
  for (unsigned LogN : {11u, 14u, 16u}) {
    unsigned N = 1u << LogN;
    Lcg Rng(100 + LogN);
    std::vector<int> X(N);
    for (auto &V : X)
      V = (int)Rng.below(201) - 100;
    int *D;
    CHECK(cudaMalloc(&D, N * 4));
    CHECK(cudaMemcpy(D, X.data(), N * 4, cudaMemcpyHostToDevice));
    fwtDevice(D, N);
    std::vector<int> G(N), R = X;
    CHECK(cudaMemcpy(G.data(), D, N * 4, cudaMemcpyDeviceToHost));
    fwtHost(R);
    unsigned Bad = 0;
    long long Sum = 0;
    for (unsigned I = 0; I < N; ++I) {
      Bad += G[I] != R[I];
      Sum += (long long)R[I] * (I % 13 + 1);
    }
    std::printf("fwt n=%u: mismatches %u, weighted sum %lld, F[0]=%d F[n-1]=%d\n", N, Bad, Sum, R[0], R[N - 1]);
    Ok &= Bad == 0;
    CHECK(cudaFree(D));
  }
  {
    const unsigned N = 1u << 12;
    Lcg Rng(3);
    std::vector<int> A(N), B(N);
    for (unsigned I = 0; I < N; ++I) {
      A[I] = (int)Rng.below(9) - 4;
      B[I] = I < 64 ? (int)Rng.below(5) - 2 : 0; // short kernel
    }
    int *DA, *DB;
    CHECK(cudaMalloc(&DA, N * 4));
    CHECK(cudaMalloc(&DB, N * 4));
    CHECK(cudaMemcpy(DA, A.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), N * 4, cudaMemcpyHostToDevice));
    fwtDevice(DA, N);
    fwtDevice(DB, N);
    pointwiseMul<<<8, 256>>>(DA, DB, N);
    CHECK(cudaGetLastError());
    fwtDevice(DA, N);
    std::vector<int> G(N);
    CHECK(cudaMemcpy(G.data(), DA, N * 4, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    long long Check = 0;
    for (unsigned I = 0; I < N; ++I) {
      long long Ref = 0;
      for (unsigned J = 0; J < 64; ++J)
        Ref += (long long)A[I ^ J] * B[J];
      Bad += (G[I] % (int)N) != 0 || G[I] / (int)N != Ref;
      Check += Ref * (I + 1);
    }
    std::printf("dyadic convolution n=%u: mismatches %u, checksum %lld\n", N, Bad, Check);
    Ok &= Bad == 0;
    CHECK(cudaFree(DA));
    CHECK(cudaFree(DB));
  }
  return finish(Ok);
}
