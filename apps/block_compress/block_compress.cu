/// \file
/// DXT1-style texture compression with an exhaustive cluster fit, written
/// the way GPU texture compressors are: one 64-thread block per 4x4 pixel
/// block; the first 16 threads load the colours into shared memory; the
/// colours are ordered along a principal axis by ranks counted in shared
/// memory (ties broken by index); all 64 threads share the 969 ways of
/// splitting the ordered colours into four runs, fitting end points to each
/// by least squares (__saturatef, rintf, 5:6:5 quantisation); a min-error
/// reduction in shared memory picks the best split (lowest error, then lowest
/// index); the thread that found it writes the block as a uint2.
///
/// The CPU reference runs the same algorithm in the same order with the same
/// roundings: every multiply-add is an explicit fmaf on both sides, so nvcc
/// has nothing to contract and each error is the same float on both. Any
/// difference is counted per block.
#include "../common/app_util.h"
#include <cfloat>
#include <vector>

constexpr int Splits = 969; // (i, j, k) with 0 <= i <= j <= k <= 16
constexpr int Threads = 64;
constexpr int Side = 64;    // image side in pixels
constexpr int Blocks = (Side / 4) * (Side / 4);

struct Fit {
  float Err;
  int R0, G0, B0, R1, G1, B1; // 5:6:5 end points
};

__host__ __device__ inline void splitOf(int Index, int &I, int &J, int &K) {
  // Enumerates (i, j, k) in lexicographic order; the search returns from
  // inside the three loops (nvcc unrolls them into many exits).
  int N = 0;
  for (I = 0; I <= 16; ++I)
    for (J = I; J <= 16; ++J)
      for (K = J; K <= 16; ++K)
        if (N++ == Index)
          return;
}

__host__ __device__ inline float sat(float X) {
#ifdef __CUDA_ARCH__
  return __saturatef(X);
#else
  return X < 0.0f ? 0.0f : (X > 1.0f ? 1.0f : X);
#endif
}

/// Least-squares end points for one split of the ordered colours (Sorted
/// holds colour indices in axis order); the error is the sum of squared
/// distances to the quantised palette, in the closed form of a cluster fit.
__host__ __device__ inline Fit fitSplit(const float *R, const float *G, const float *B, const int *Sorted, int I,
                                        int J, int K, float XX) {
  const float Third = 1.0f / 3.0f, TwoThirds = 2.0f / 3.0f;
  float A2 = 0, B2 = 0, AB = 0, AXr = 0, AXg = 0, AXb = 0, BXr = 0, BXg = 0, BXb = 0;
  for (int P = 0; P < 16; ++P) {
    float Alpha = P < I ? 1.0f : (P < J ? TwoThirds : (P < K ? Third : 0.0f));
    float Beta = 1.0f - Alpha;
    int C = Sorted[P];
    A2 = fmaf(Alpha, Alpha, A2);
    B2 = fmaf(Beta, Beta, B2);
    AB = fmaf(Alpha, Beta, AB);
    AXr = fmaf(Alpha, R[C], AXr);
    AXg = fmaf(Alpha, G[C], AXg);
    AXb = fmaf(Alpha, B[C], AXb);
    BXr = fmaf(Beta, R[C], BXr);
    BXg = fmaf(Beta, G[C], BXg);
    BXb = fmaf(Beta, B[C], BXb);
  }
  Fit F;
  float Den = fmaf(A2, B2, -(AB * AB));
  if (!(Den > 1e-6f)) {
    F.Err = FLT_MAX;
    F.R0 = F.G0 = F.B0 = F.R1 = F.G1 = F.B1 = 0;
    return F;
  }
  float Inv = 1.0f / Den;
  float Ar = sat(fmaf(AXr, B2, -(BXr * AB)) * Inv), Ag = sat(fmaf(AXg, B2, -(BXg * AB)) * Inv),
        Ab = sat(fmaf(AXb, B2, -(BXb * AB)) * Inv);
  float Br = sat(fmaf(BXr, A2, -(AXr * AB)) * Inv), Bg = sat(fmaf(BXg, A2, -(AXg * AB)) * Inv),
        Bb = sat(fmaf(BXb, A2, -(AXb * AB)) * Inv);
  F.R0 = int(rintf(Ar * 31.0f));
  F.G0 = int(rintf(Ag * 63.0f));
  F.B0 = int(rintf(Ab * 31.0f));
  F.R1 = int(rintf(Br * 31.0f));
  F.G1 = int(rintf(Bg * 63.0f));
  F.B1 = int(rintf(Bb * 31.0f));
  // Back to the quantised grid: the error is measured for the end points
  // the block will really hold.
  Ar = F.R0 / 31.0f, Ag = F.G0 / 63.0f, Ab = F.B0 / 31.0f;
  Br = F.R1 / 31.0f, Bg = F.G1 / 63.0f, Bb = F.B1 / 31.0f;
  float AA = fmaf(Ar, Ar, fmaf(Ag, Ag, Ab * Ab));
  float BB = fmaf(Br, Br, fmaf(Bg, Bg, Bb * Bb));
  float ABd = fmaf(Ar, Br, fmaf(Ag, Bg, Ab * Bb));
  float AdX = fmaf(Ar, AXr, fmaf(Ag, AXg, Ab * AXb));
  float BdX = fmaf(Br, BXr, fmaf(Bg, BXg, Bb * BXb));
  float E = fmaf(AA, A2, XX);
  E = fmaf(BB, B2, E);
  E = fmaf(2.0f * ABd, AB, E);
  E = fmaf(-2.0f, AdX, E);
  E = fmaf(-2.0f, BdX, E);
  F.Err = E;
  return F;
}

/// Packs a fit into the DXT1 block: colour 0 above colour 1 (four-colour
/// mode), two bits per pixel in pixel order.
__host__ __device__ inline void packBlock(const Fit &F, const int *Rank, int I, int J, int K, unsigned &Colours,
                                          unsigned &Bits) {
  unsigned C0 = unsigned(F.R0) << 11 | unsigned(F.G0) << 5 | unsigned(F.B0);
  unsigned C1 = unsigned(F.R1) << 11 | unsigned(F.G1) << 5 | unsigned(F.B1);
  bool Swap = C0 < C1;
  Bits = 0;
  if (C0 != C1)
    for (int P = 0; P < 16; ++P) {
      int Pos = Rank[P];
      unsigned Code = Pos < I ? 0u : (Pos < J ? 2u : (Pos < K ? 3u : 1u));
      if (Swap)
        Code ^= 1u;
      Bits |= Code << (2 * P);
    }
  Colours = Swap ? (C1 | C0 << 16) : (C0 | C1 << 16);
}

__global__ void compressBlocks(const unsigned *Pixels, uint2 *Out) {
  __shared__ float R[16], G[16], B[16], Value[16];
  __shared__ float Axis[4];
  __shared__ int Sorted[16], Rank[16];
  __shared__ float Errors[Threads];
  __shared__ int Index[Threads];
  int Tid = threadIdx.x;
  int Bx = blockIdx.x % (Side / 4), By = blockIdx.x / (Side / 4);
  if (Tid < 16) {
    unsigned C = Pixels[(By * 4 + Tid / 4) * Side + Bx * 4 + Tid % 4];
    R[Tid] = float(C & 255u) * (1.0f / 255.0f);
    G[Tid] = float((C >> 8) & 255u) * (1.0f / 255.0f);
    B[Tid] = float((C >> 16) & 255u) * (1.0f / 255.0f);
  }
  __syncthreads();
  if (Tid == 0) {
    // The box diagonal, flipped so its largest component is positive, and
    // the sum of squares the closed-form error needs.
    float Lo[3] = {R[0], G[0], B[0]}, Hi[3] = {R[0], G[0], B[0]}, XX = 0;
    for (int P = 0; P < 16; ++P) {
      Lo[0] = fminf(Lo[0], R[P]), Hi[0] = fmaxf(Hi[0], R[P]);
      Lo[1] = fminf(Lo[1], G[P]), Hi[1] = fmaxf(Hi[1], G[P]);
      Lo[2] = fminf(Lo[2], B[P]), Hi[2] = fmaxf(Hi[2], B[P]);
      XX = fmaf(R[P], R[P], fmaf(G[P], G[P], fmaf(B[P], B[P], XX)));
    }
    Axis[0] = Hi[0] - Lo[0];
    Axis[1] = Hi[1] - Lo[1];
    Axis[2] = Hi[2] - Lo[2];
    Axis[3] = XX;
  }
  __syncthreads();
  if (Tid < 16)
    Value[Tid] = fmaf(R[Tid], Axis[0], fmaf(G[Tid], Axis[1], B[Tid] * Axis[2]));
  __syncthreads();
  if (Tid < 16) {
    int Pos = 0;
    for (int P = 0; P < 16; ++P)
      Pos += Value[P] < Value[Tid] || (Value[P] == Value[Tid] && P < Tid);
    Rank[Tid] = Pos;
    Sorted[Pos] = Tid;
  }
  __syncthreads();
  float Best = FLT_MAX;
  int BestIndex = Splits;
  for (int S = Tid; S < Splits; S += Threads) {
    int I, J, K;
    splitOf(S, I, J, K);
    Fit F = fitSplit(R, G, B, Sorted, I, J, K, Axis[3]);
    if (F.Err < Best) {
      Best = F.Err;
      BestIndex = S;
    }
  }
  Errors[Tid] = Best;
  Index[Tid] = BestIndex;
  __syncthreads();
  for (int Step = Threads / 2; Step > 0; Step /= 2) {
    if (Tid < Step) {
      float E = Errors[Tid + Step];
      int X = Index[Tid + Step];
      if (E < Errors[Tid] || (E == Errors[Tid] && X < Index[Tid])) {
        Errors[Tid] = E;
        Index[Tid] = X;
      }
    }
    __syncthreads();
  }
  int Winner = Index[0];
  if (Winner < Splits && Tid == Winner % Threads) {
    int I, J, K;
    splitOf(Winner, I, J, K);
    Fit F = fitSplit(R, G, B, Sorted, I, J, K, Axis[3]);
    unsigned Colours, Bits;
    packBlock(F, Rank, I, J, K, Colours, Bits);
    Out[blockIdx.x] = make_uint2(Colours, Bits);
  } else if (Winner >= Splits && Tid == 0) {
    // One colour: every split is degenerate.
    unsigned C = unsigned(rintf(R[0] * 31.0f)) << 11 | unsigned(rintf(G[0] * 63.0f)) << 5 |
                 unsigned(rintf(B[0] * 31.0f));
    Out[blockIdx.x] = make_uint2(C | C << 16, 0u);
  }
}

/// The same algorithm for one block on the CPU, in the same order.
uint2 compressOnCpu(const std::vector<unsigned> &Pixels, int Block) {
  float R[16], G[16], B[16], Value[16];
  int Sorted[16], Rank[16];
  int Bx = Block % (Side / 4), By = Block / (Side / 4);
  for (int T = 0; T < 16; ++T) {
    unsigned C = Pixels[(By * 4 + T / 4) * Side + Bx * 4 + T % 4];
    R[T] = float(C & 255u) * (1.0f / 255.0f);
    G[T] = float((C >> 8) & 255u) * (1.0f / 255.0f);
    B[T] = float((C >> 16) & 255u) * (1.0f / 255.0f);
  }
  float Lo[3] = {R[0], G[0], B[0]}, Hi[3] = {R[0], G[0], B[0]}, XX = 0;
  for (int P = 0; P < 16; ++P) {
    Lo[0] = fminf(Lo[0], R[P]), Hi[0] = fmaxf(Hi[0], R[P]);
    Lo[1] = fminf(Lo[1], G[P]), Hi[1] = fmaxf(Hi[1], G[P]);
    Lo[2] = fminf(Lo[2], B[P]), Hi[2] = fmaxf(Hi[2], B[P]);
    XX = fmaf(R[P], R[P], fmaf(G[P], G[P], fmaf(B[P], B[P], XX)));
  }
  float Axis[3] = {Hi[0] - Lo[0], Hi[1] - Lo[1], Hi[2] - Lo[2]};
  for (int T = 0; T < 16; ++T)
    Value[T] = fmaf(R[T], Axis[0], fmaf(G[T], Axis[1], B[T] * Axis[2]));
  for (int T = 0; T < 16; ++T) {
    int Pos = 0;
    for (int P = 0; P < 16; ++P)
      Pos += Value[P] < Value[T] || (Value[P] == Value[T] && P < T);
    Rank[T] = Pos;
    Sorted[Pos] = T;
  }
  float Best = FLT_MAX;
  int Winner = Splits;
  for (int S = 0; S < Splits; ++S) {
    int I, J, K;
    splitOf(S, I, J, K);
    Fit F = fitSplit(R, G, B, Sorted, I, J, K, XX);
    if (F.Err < Best) {
      Best = F.Err;
      Winner = S;
    }
  }
  if (Winner == Splits) {
    unsigned C = unsigned(rintf(R[0] * 31.0f)) << 11 | unsigned(rintf(G[0] * 63.0f)) << 5 |
                 unsigned(rintf(B[0] * 31.0f));
    return make_uint2(C | C << 16, 0u);
  }
  int I, J, K;
  splitOf(Winner, I, J, K);
  Fit F = fitSplit(R, G, B, Sorted, I, J, K, XX);
  uint2 Out;
  packBlock(F, Rank, I, J, K, Out.x, Out.y);
  return Out;
}

/// A test image: smooth gradients, hard two-colour edges, noisy patches
/// and flat blocks, so every kind of split wins somewhere.
std::vector<unsigned> makeImage() {
  std::vector<unsigned> Img(Side * Side);
  Lcg Rng(2024);
  for (int Y = 0; Y < Side; ++Y)
    for (int X = 0; X < Side; ++X) {
      int Kind = ((Y / 4) * 7 + (X / 4) * 3) % 5;
      unsigned R, G, B;
      if (Kind == 0) { // gradient
        R = (X * 4 + Y) & 255, G = (Y * 3 + 17) & 255, B = (X * Y) & 255;
      } else if (Kind == 1) { // edge between two colours
        bool Side0 = (X % 4) + (Y % 4) < 3;
        R = Side0 ? 200 : 30, G = Side0 ? 40 : 180, B = Side0 ? 90 : 220;
      } else if (Kind == 2) { // flat
        R = 120, G = 64, B = (X / 4) * 16 & 255;
      } else { // noise around a base colour
        R = (60 + Rng.below(120)) & 255, G = (40 + Rng.below(160)) & 255, B = Rng.below(256);
      }
      Img[Y * Side + X] = R | G << 8 | B << 16 | 0xff000000u;
    }
  return Img;
}

int main() {
  std::vector<unsigned> Img = makeImage();
  unsigned *DImg;
  uint2 *DOut;
  CHECK(cudaMalloc(&DImg, Img.size() * sizeof(unsigned)));
  CHECK(cudaMalloc(&DOut, Blocks * sizeof(uint2)));
  CHECK(cudaMemcpy(DImg, Img.data(), Img.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DOut, 0xff, Blocks * sizeof(uint2)));
  compressBlocks<<<Blocks, Threads>>>(DImg, DOut);
  CHECK(cudaGetLastError());
  std::vector<uint2> Got(Blocks);
  CHECK(cudaMemcpy(Got.data(), DOut, Blocks * sizeof(uint2), cudaMemcpyDeviceToHost));
  int BadColours = 0, BadBits = 0, BadBlocks = 0;
  unsigned long long Check = 0;
  for (int Bk = 0; Bk < Blocks; ++Bk) {
    uint2 Want = compressOnCpu(Img, Bk);
    bool C = Got[Bk].x != Want.x, Bt = Got[Bk].y != Want.y;
    BadColours += C;
    BadBits += Bt;
    if (C || Bt) {
      if (BadBlocks < 5)
        std::printf("  block %d: got %08x %08x, want %08x %08x\n", Bk, Got[Bk].x, Got[Bk].y, Want.x, Want.y);
      ++BadBlocks;
    }
    Check = Check * 1000003 + Want.x * 65537ull + Want.y;
  }
  std::printf("%d blocks of 4x4 pixels compressed\n", Blocks);
  std::printf("reference checksum %016llx\n", Check);
  std::printf("mismatches: %d blocks (%d end point words, %d index words)\n", BadBlocks, BadColours, BadBits);
  CHECK(cudaFree(DImg));
  CHECK(cudaFree(DOut));
  return finish(BadBlocks == 0);
}
