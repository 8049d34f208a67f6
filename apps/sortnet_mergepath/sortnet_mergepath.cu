/// \file
/// Sorting in the style of the classic sample programs: Batcher's odd-even
/// merge sort network over key/value pairs in shared memory (both
/// directions, one block per batch of 1024), then a global merge sort whose
/// merge step splits the work with a binary search along the merge path
/// (each thread finds where its diagonal crosses the two runs, then merges
/// its share serially). Keys have many duplicates so stability matters:
/// values record the original index and the CPU reference is a stable sort.
#include "../common/app_util.h"
#include <algorithm>
#include <vector>

constexpr unsigned Batch = 1024;

__device__ inline void cmpSwap(unsigned &KeyA, unsigned &ValA, unsigned &KeyB, unsigned &ValB,
                               unsigned Dir) {
  if ((KeyA > KeyB) == Dir) {
    unsigned T = KeyA; KeyA = KeyB; KeyB = T;
    T = ValA; ValA = ValB; ValB = T;
  }
}

// Batcher odd-even merge sort, each thread owns two elements as the sample
// programs do: blockDim.x == Batch / 2.
__global__ void oddEvenMergeSortShared(unsigned *Keys, unsigned *Vals, unsigned Dir) {
  __shared__ unsigned SKey[Batch];
  __shared__ unsigned SVal[Batch];
  unsigned Base = blockIdx.x * Batch;
  unsigned T = threadIdx.x;
  SKey[T] = Keys[Base + T];
  SVal[T] = Vals[Base + T];
  SKey[T + Batch / 2] = Keys[Base + T + Batch / 2];
  SVal[T + Batch / 2] = Vals[Base + T + Batch / 2];
  for (unsigned Size = 2; Size <= Batch; Size <<= 1) {
    unsigned Stride = Size / 2;
    unsigned Offset = T & (Stride - 1);
    {
      __syncthreads();
      unsigned Pos = 2 * T - (T & (Stride - 1));
      cmpSwap(SKey[Pos], SVal[Pos], SKey[Pos + Stride], SVal[Pos + Stride], Dir);
      Stride >>= 1;
    }
    for (; Stride > 0; Stride >>= 1) {
      __syncthreads();
      unsigned Pos = 2 * T - (T & (Stride - 1));
      if (Offset >= Stride)
        cmpSwap(SKey[Pos - Stride], SVal[Pos - Stride], SKey[Pos], SVal[Pos], Dir);
    }
  }
  __syncthreads();
  Keys[Base + T] = SKey[T];
  Vals[Base + T] = SVal[T];
  Keys[Base + T + Batch / 2] = SKey[T + Batch / 2];
  Vals[Base + T + Batch / 2] = SVal[T + Batch / 2];
}

// Number of elements taken from A among the first Diag of merge(A, B),
// ties going to A (stable).
__device__ unsigned mergePath(const unsigned *A, unsigned LenA, const unsigned *B, unsigned LenB,
                              unsigned Diag) {
  unsigned Lo = Diag > LenB ? Diag - LenB : 0;
  unsigned Hi = Diag < LenA ? Diag : LenA;
  while (Lo < Hi) {
    unsigned Mid = (Lo + Hi) >> 1;
    if (A[Mid] <= B[Diag - 1 - Mid])
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return Lo;
}

// Merges pairs of sorted runs of length Run into Out; each thread produces
// ItemsPerThread outputs.
template <unsigned ItemsPerThread>
__global__ void mergeRuns(const unsigned *__restrict__ InKey, const unsigned *__restrict__ InVal,
                          unsigned *__restrict__ OutKey, unsigned *__restrict__ OutVal, unsigned N,
                          unsigned Run) {
  unsigned Tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned K = Tid * ItemsPerThread;
  unsigned End = min(K + ItemsPerThread, N);
  // A thread's share may cross into the next pair of runs: one merge-path
  // search per pair it touches.
  while (K < End) {
    unsigned PairBase = K / (2 * Run) * (2 * Run);
    unsigned LenA = min(Run, N - PairBase);
    unsigned LenB = min(Run, N - PairBase - LenA);
    const unsigned *A = InKey + PairBase;
    const unsigned *B = A + LenA;
    unsigned Diag = K - PairBase;
    unsigned I = mergePath(A, LenA, B, LenB, Diag);
    unsigned J = Diag - I;
    unsigned PairEnd = min(End, PairBase + LenA + LenB);
    for (; K < PairEnd; ++K) {
      bool TakeA = J >= LenB || (I < LenA && A[I] <= B[J]);
      if (TakeA) {
        OutKey[K] = A[I];
        OutVal[K] = InVal[PairBase + I];
        ++I;
      } else {
        OutKey[K] = B[J];
        OutVal[K] = InVal[PairBase + LenA + J];
        ++J;
      }
    }
  }
}

static uint64_t checksum(const std::vector<unsigned> &K, const std::vector<unsigned> &V) {
  uint64_t H = 1469598103934665603ULL;
  for (size_t I = 0; I < K.size(); ++I) {
    H = (H ^ K[I]) * 1099511628211ULL;
    H = (H ^ V[I]) * 1099511628211ULL;
  }
  return H;
}

int main() {
  const unsigned NumBatches = 24;
  const unsigned N = NumBatches * Batch;
  Lcg Rng(2024);
  std::vector<unsigned> Key(N), Val(N);
  for (unsigned I = 0; I < N; ++I) {
    Key[I] = Rng.below(5000); // many duplicates
    Val[I] = I;
  }
  // A few extremes.
  Key[7] = 0xffffffffu;
  Key[100] = 0;
  Key[N - 1] = 0x80000000u;

  unsigned *DKey, *DVal, *DKey2, *DVal2;
  CHECK(cudaMalloc(&DKey, N * 4));
  CHECK(cudaMalloc(&DVal, N * 4));
  CHECK(cudaMalloc(&DKey2, N * 4));
  CHECK(cudaMalloc(&DVal2, N * 4));
  bool Ok = true;

  // 1. Shared-memory network, both directions; the network is not stable,
  // so only the keys are compared exactly and the values as a permutation
  // consistent with the keys.
  for (unsigned Dir = 0; Dir < 2; ++Dir) {
    CHECK(cudaMemcpy(DKey, Key.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DVal, Val.data(), N * 4, cudaMemcpyHostToDevice));
    oddEvenMergeSortShared<<<NumBatches, Batch / 2>>>(DKey, DVal, Dir);
    CHECK(cudaGetLastError());
    std::vector<unsigned> GK(N), GV(N);
    CHECK(cudaMemcpy(GK.data(), DKey, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GV.data(), DVal, N * 4, cudaMemcpyDeviceToHost));
    unsigned BadKeys = 0, BadVals = 0;
    for (unsigned B = 0; B < NumBatches; ++B) {
      std::vector<unsigned> Ref(Key.begin() + B * Batch, Key.begin() + (B + 1) * Batch);
      if (Dir)
        std::sort(Ref.begin(), Ref.end());
      else
        std::sort(Ref.begin(), Ref.end(), [](unsigned X, unsigned Y) { return X > Y; });
      std::vector<bool> Seen(Batch, false);
      for (unsigned I = 0; I < Batch; ++I) {
        unsigned G = B * Batch + I;
        BadKeys += GK[G] != Ref[I];
        unsigned V = GV[G];
        if (V < B * Batch || V >= (B + 1) * Batch || Seen[V - B * Batch] || Key[V] != GK[G])
          ++BadVals;
        else
          Seen[V - B * Batch] = true;
      }
    }
    std::printf("odd-even merge network dir=%u: %u batches of %u, bad keys %u, bad values %u\n", Dir,
                NumBatches, Batch, BadKeys, BadVals);
    Ok &= BadKeys == 0 && BadVals == 0;
  }

  // 2. Stable global merge sort: runs of 1 upwards, merge path split.
  {
    CHECK(cudaMemcpy(DKey, Key.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DVal, Val.data(), N * 4, cudaMemcpyHostToDevice));
    unsigned *InK = DKey, *InV = DVal, *OutK = DKey2, *OutV = DVal2;
    unsigned Passes = 0;
    for (unsigned Run = 1; Run < N; Run *= 2, ++Passes) {
      constexpr unsigned Ipt = 7; // deliberately not a power of two
      unsigned Threads = (N + Ipt - 1) / Ipt;
      mergeRuns<Ipt><<<(Threads + 127) / 128, 128>>>(InK, InV, OutK, OutV, N, Run);
      CHECK(cudaGetLastError());
      std::swap(InK, OutK);
      std::swap(InV, OutV);
    }
    std::vector<unsigned> GK(N), GV(N);
    CHECK(cudaMemcpy(GK.data(), InK, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GV.data(), InV, N * 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> Idx(N);
    for (unsigned I = 0; I < N; ++I)
      Idx[I] = I;
    std::stable_sort(Idx.begin(), Idx.end(), [&](unsigned A, unsigned B) { return Key[A] < Key[B]; });
    std::vector<unsigned> RK(N), RV(N);
    unsigned Bad = 0;
    for (unsigned I = 0; I < N; ++I) {
      RK[I] = Key[Idx[I]];
      RV[I] = Idx[I];
      Bad += GK[I] != RK[I] || GV[I] != RV[I];
    }
    std::printf("merge-path merge sort: %u elements, %u passes, mismatches %u\n", N, Passes, Bad);
    std::printf("reference checksum %016llx, device checksum %s\n",
                (unsigned long long)checksum(RK, RV), checksum(GK, GV) == checksum(RK, RV) ? "equal" : "DIFFERENT");
    Ok &= Bad == 0;
  }
  CHECK(cudaFree(DKey));
  CHECK(cudaFree(DVal));
  CHECK(cudaFree(DKey2));
  CHECK(cudaFree(DVal2));
  return finish(Ok);
}
