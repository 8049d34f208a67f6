/// \file
/// Warp-level primitives as real kernels use them: shuffle broadcast,
/// shuffle-up scans, shuffle-down and xor-butterfly reductions (also with a
/// sub-warp width), ballot/any/all votes, match.any/match.all grouping, and
/// the bit-manipulation intrinsics. Each warp's results are checked against a
/// CPU model of the same warp.
#include "../common/app_util.h"
#include <vector>

constexpr int Fields = 12;

// No intrinsic exposes %lanemask_lt; real code reads it with inline PTX.
__device__ unsigned laneMaskLt() {
  unsigned M;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(M));
  return M;
}

__global__ void warpOps(const int *In, int *Out) {
  int Lane = threadIdx.x & 31;
  int G = blockIdx.x * blockDim.x + threadIdx.x;
  int V = In[G];
  unsigned Full = 0xffffffffu;
  int *O = Out + G * Fields;
  O[0] = __shfl_sync(Full, V, 7);                // broadcast lane 7
  int Scan = V;                                    // inclusive scan
  for (int D = 1; D < 32; D <<= 1) {
    int Up = __shfl_up_sync(Full, Scan, D);
    if (Lane >= D)
      Scan += Up;
  }
  O[1] = Scan;
  int Red = V;                                     // shuffle-down reduction
  for (int D = 16; D > 0; D >>= 1)
    Red += __shfl_down_sync(Full, Red, D);
  O[2] = __shfl_sync(Full, Red, 0);
  int Mx = V;                                      // butterfly max
  for (int D = 16; D > 0; D >>= 1)
    Mx = max(Mx, __shfl_xor_sync(Full, Mx, D));
  O[3] = Mx;
  int Half = V;                                    // width-8 sums
  for (int D = 4; D > 0; D >>= 1)
    Half += __shfl_xor_sync(Full, Half, D, 8);
  O[4] = Half;
  unsigned Ballot = __ballot_sync(Full, V & 1);
  O[5] = int(Ballot);
  O[6] = __any_sync(Full, V > 900) | (__all_sync(Full, V >= 0) << 1) | (__all_sync(Full, V > 500) << 2);
  O[7] = int(__match_any_sync(Full, V % 5));
  int Pred = 0;
  unsigned AllMask = __match_all_sync(Full, V / 1024, &Pred); // all equal (V<1024)
  O[8] = int(AllMask) ^ Pred;
  O[9] = __popc(Ballot) + __ffs(int(Ballot)) * 100 + __clz(V) * 10000;
  O[10] = int(__brev(unsigned(V)) ^ __byte_perm(unsigned(V), 0x12345678u, 0x5140));
  O[11] = int(__funnelshift_l(unsigned(V), 0xabcdef01u, Lane) + __activemask() * 0u + (__popc(laneMaskLt()) == Lane));
}

static unsigned brev(unsigned X) {
  unsigned R = 0;
  for (int I = 0; I < 32; ++I)
    if (X & (1u << I))
      R |= 1u << (31 - I);
  return R;
}
static unsigned bytePerm(unsigned X, unsigned Y, unsigned S) {
  unsigned char B[8];
  for (int I = 0; I < 4; ++I) {
    B[I] = (X >> (8 * I)) & 0xff;
    B[4 + I] = (Y >> (8 * I)) & 0xff;
  }
  unsigned R = 0;
  for (int I = 0; I < 4; ++I)
    R |= unsigned(B[(S >> (4 * I)) & 7]) << (8 * I);
  return R;
}
static int clz(unsigned X) {
  int N = 0;
  for (int I = 31; I >= 0 && !(X & (1u << I)); --I)
    ++N;
  return N;
}
static int ffs(unsigned X) {
  for (int I = 0; I < 32; ++I)
    if (X & (1u << I))
      return I + 1;
  return 0;
}

int main() {
  const int N = 64 * 32;
  std::vector<int> In(N), Out(N * Fields);
  Lcg Rng(17);
  for (auto &V : In)
    V = int(Rng.below(1000));
  int *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * Fields * sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  warpOps<<<N / 128, 128>>>(DIn, DOut);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * Fields * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad[Fields] = {};
  long long Check = 0;
  for (int W = 0; W < N / 32; ++W) {
    const int *V = &In[W * 32];
    int Sum = 0, Mx = 0;
    unsigned Ballot = 0;
    bool Any900 = false, AllPos = true, All500 = true;
    for (int L = 0; L < 32; ++L) {
      Sum += V[L];
      Mx = V[L] > Mx ? V[L] : Mx;
      Ballot |= unsigned(V[L] & 1) << L;
      Any900 |= V[L] > 900;
      AllPos &= V[L] >= 0;
      All500 &= V[L] > 500;
    }
    int Scan = 0;
    for (int L = 0; L < 32; ++L) {
      Scan += V[L];
      int Want[Fields];
      Want[0] = V[7];
      Want[1] = Scan;
      Want[2] = Sum;
      Want[3] = Mx;
      int H = 0;
      for (int K = L & ~7; K < (L & ~7) + 8; ++K)
        H += V[K];
      Want[4] = H;
      Want[5] = int(Ballot);
      Want[6] = int(Any900) | (int(AllPos) << 1) | (int(All500) << 2);
      unsigned Match = 0;
      for (int K = 0; K < 32; ++K)
        if (V[K] % 5 == V[L] % 5)
          Match |= 1u << K;
      Want[7] = int(Match);
      Want[8] = int(0xffffffffu) ^ 1;
      Want[9] = __builtin_popcount(Ballot) + ffs(Ballot) * 100 + clz(unsigned(V[L])) * 10000;
      Want[10] = int(brev(unsigned(V[L])) ^ bytePerm(unsigned(V[L]), 0x12345678u, 0x5140));
      unsigned long long Pair = ((unsigned long long)0xabcdef01u << 32) | unsigned(V[L]);
      Want[11] = int(unsigned(Pair << L >> 32) + 1u);
      for (int F = 0; F < Fields; ++F) {
        Bad[F] += Out[(W * 32 + L) * Fields + F] != Want[F];
        Check += (long long)Want[F] * (F + 1);
      }
    }
  }
  const char *Names[Fields] = {"shfl",  "shfl_up scan", "shfl_down sum", "shfl_xor max", "width-8 sum",    "ballot",
                               "votes", "match_any",    "match_all",     "popc/ffs/clz", "brev/byte_perm", "funnelshift"};
  int Total = 0;
  for (int F = 0; F < Fields; ++F) {
    std::printf("%-15s %s\n", Names[F], Bad[F] ? "MISMATCH" : "ok");
    Total += Bad[F];
  }
  std::printf("warps=%d checksum=%lld\n", N / 32, Check);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return finish(Total == 0);
}
