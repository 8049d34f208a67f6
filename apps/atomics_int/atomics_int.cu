/// \file
/// Integer atomics of every kind and width on global and shared memory:
/// add/sub/min/max/and/or/xor/inc/dec/exch/CAS on int, unsigned, unsigned
/// long long and (CAS) unsigned short. Results that do not depend on the order
/// of the atomics are compared exactly; atomicExch is checked by the set of
/// values it handed out.
#include "../common/app_util.h"
#include <vector>

struct Results {
  int SumI, MinI, MaxI, SubI;
  unsigned SumU, AndU, OrU, XorU, IncU, DecU;
  unsigned long long SumULL, MaxULL, MinULL, AndULL, OrULL, XorULL;
  int CasCount;
  unsigned long long CasULL;
  int Exch;
  unsigned short Cas16[2];
  int SharedTotal;
};

__global__ void hammer(const int *V, int N, Results *R, int *ExchOld) {
  __shared__ int BlockSum;
  if (threadIdx.x == 0)
    BlockSum = 0;
  __syncthreads();
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    int X = V[I];
    unsigned U = unsigned(X) * 2654435761u;
    unsigned long long L = (unsigned long long)U << 20 | unsigned(I);
    atomicAdd(&R->SumI, X);
    atomicSub(&R->SubI, X);
    atomicMin(&R->MinI, X);
    atomicMax(&R->MaxI, X);
    atomicAdd(&R->SumU, U);
    atomicAnd(&R->AndU, U | 0x80000001u);
    atomicOr(&R->OrU, U & 0x00ff00ffu);
    atomicXor(&R->XorU, U);
    atomicInc(&R->IncU, 999u);
    atomicDec(&R->DecU, 999u);
    atomicAdd(&R->SumULL, L);
    atomicMax(&R->MaxULL, L);
    atomicMin(&R->MinULL, L);
    atomicAnd(&R->AndULL, L | 0xffff0000000fffffULL);
    atomicOr(&R->OrULL, L & 0x0000ffff00000000ULL);
    atomicXor(&R->XorULL, L);
    ExchOld[I] = atomicExch(&R->Exch, I);
    // Increment by a compare-and-swap loop, the classic hand-rolled atomic.
    int Old = R->CasCount, Seen;
    do {
      Seen = Old;
      Old = atomicCAS(&R->CasCount, Seen, Seen + 1);
    } while (Old != Seen);
    unsigned long long OldL = R->CasULL, SeenL;
    do {
      SeenL = OldL;
      OldL = atomicCAS(&R->CasULL, SeenL, SeenL + (unsigned long long)(X + 1000));
    } while (OldL != SeenL);
    // 16-bit CAS on the two halves of one word: each thread bumps one half.
    unsigned short *H = &R->Cas16[I & 1];
    unsigned short OldH = *H, SeenH;
    do {
      SeenH = OldH;
      OldH = atomicCAS(H, SeenH, (unsigned short)(SeenH + 1));
    } while (OldH != SeenH);
    atomicAdd(&BlockSum, X);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(&R->SharedTotal, BlockSum);
}

int main() {
  const int N = 1 << 15;
  std::vector<int> V(N);
  Lcg Rng(99);
  for (auto &X : V)
    X = int(Rng.below(200001)) - 100000;
  Results Init = {};
  Init.MinI = 0x7fffffff;
  Init.MaxI = int(0x80000000);
  Init.AndU = 0xffffffffu;
  Init.MinULL = ~0ULL;
  Init.AndULL = ~0ULL;
  Init.Exch = -1;
  // CPU reference.
  Results W = Init;
  for (int I = 0; I < N; ++I) {
    int X = V[I];
    unsigned U = unsigned(X) * 2654435761u;
    unsigned long long L = (unsigned long long)U << 20 | unsigned(I);
    W.SumI += X;
    W.SubI -= X;
    W.MinI = X < W.MinI ? X : W.MinI;
    W.MaxI = X > W.MaxI ? X : W.MaxI;
    W.SumU += U;
    W.AndU &= U | 0x80000001u;
    W.OrU |= U & 0x00ff00ffu;
    W.XorU ^= U;
    W.IncU = W.IncU >= 999u ? 0 : W.IncU + 1;
    W.DecU = (W.DecU == 0 || W.DecU > 999u) ? 999u : W.DecU - 1;
    W.SumULL += L;
    W.MaxULL = L > W.MaxULL ? L : W.MaxULL;
    W.MinULL = L < W.MinULL ? L : W.MinULL;
    W.AndULL &= L | 0xffff0000000fffffULL;
    W.OrULL |= L & 0x0000ffff00000000ULL;
    W.XorULL ^= L;
    W.CasCount += 1;
    W.CasULL += (unsigned long long)(X + 1000);
    W.Cas16[I & 1]++;
    W.SharedTotal += X;
  }
  int *DV, *DOld;
  Results *DR;
  CHECK(cudaMalloc(&DV, N * sizeof(int)));
  CHECK(cudaMalloc(&DOld, N * sizeof(int)));
  CHECK(cudaMalloc(&DR, sizeof(Results)));
  CHECK(cudaMemcpy(DV, V.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DR, &Init, sizeof(Results), cudaMemcpyHostToDevice));
  hammer<<<N / 256, 256>>>(DV, N, DR, DOld);
  CHECK(cudaGetLastError());
  Results G;
  std::vector<int> Old(N);
  CHECK(cudaMemcpy(&G, DR, sizeof(Results), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Old.data(), DOld, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad = 0;
#define CMP(F, Fmt)                                                            \
  do {                                                                         \
    bool Same = G.F == W.F;                                                    \
    Bad += !Same;                                                              \
    std::printf("%-12s " Fmt " %s\n", #F, W.F, Same ? "ok" : "MISMATCH");      \
  } while (0)
  CMP(SumI, "%d");
  CMP(SubI, "%d");
  CMP(MinI, "%d");
  CMP(MaxI, "%d");
  CMP(SumU, "%u");
  CMP(AndU, "%08x");
  CMP(OrU, "%08x");
  CMP(XorU, "%08x");
  CMP(IncU, "%u");
  CMP(DecU, "%u");
  CMP(SumULL, "%llu");
  CMP(MaxULL, "%llx");
  CMP(MinULL, "%llx");
  CMP(AndULL, "%016llx");
  CMP(OrULL, "%016llx");
  CMP(XorULL, "%016llx");
  CMP(CasCount, "%d");
  CMP(CasULL, "%llu");
  CMP(Cas16[0], "%u");
  CMP(Cas16[1], "%u");
  CMP(SharedTotal, "%d");
  // The old values from atomicExch plus the final value are -1..N-1, each once.
  std::vector<int> Seen(N + 1, 0);
  int BadExch = 0;
  for (int I = 0; I < N; ++I) {
    if (Old[I] < -1 || Old[I] >= N)
      ++BadExch;
    else
      Seen[Old[I] + 1]++;
  }
  if (G.Exch < 0 || G.Exch >= N)
    ++BadExch;
  else
    Seen[G.Exch + 1]++;
  for (int K = 0; K <= N; ++K)
    BadExch += Seen[K] != 1;
  std::printf("exch permutation: %s\n", BadExch ? "MISMATCH" : "ok");
  CHECK(cudaFree(DV));
  CHECK(cudaFree(DOld));
  CHECK(cudaFree(DR));
  return finish(Bad == 0 && BadExch == 0);
}
