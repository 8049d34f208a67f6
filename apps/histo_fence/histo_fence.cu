/// \file
/// Counting and reduction idioms of the classic samples:
/// - histogram64 with per-thread 8-bit counters packed four to a word in
///   shared memory (at most 255 increments per thread before merging), merged
///   with SWAR byte sums;
/// - histogram256 with one sub-histogram per warp, updated two ways: shared
///   atomicAdd, and the pre-atomics "tagged" retry loop (the top bits of a
///   counter hold the writing lane, a lane repeats until its own write
///   survived) on a volatile array, as old code still does;
/// - warp-aggregated atomics: in divergent code, lanes with equal keys are
///   grouped with __match_any_sync(__activemask(), key) and one leader per
///   group adds __popc of the group;
/// - a dot product reduced across blocks in one launch: each block writes its
///   partial, __threadfence(), then atomicInc on a retirement counter tells
///   the last block to sum all partials and reset the counter.
/// All results are exact integers checked against the CPU.
#include "../common/app_util.h"
#include <vector>

// -------------------------------------------------------------- histogram64

constexpr unsigned H64Threads = 64;
constexpr unsigned H64MaxWords = 63; // 63 words * 4 bytes = 252 increments per thread

__global__ void histogram64Kernel(unsigned *PartialHist, const unsigned *Data, unsigned NumWords) {
  __shared__ unsigned char SHist[64 * H64Threads]; // [bin][thread]
  unsigned T = threadIdx.x;
  for (unsigned I = T; I < 64 * H64Threads / 4; I += H64Threads)
    reinterpret_cast<unsigned *>(SHist)[I] = 0;
  __syncthreads();
  // Thread columns are interleaved (thread t's counter for bin b sits at
  // b*64 + t) so threads hit different banks.
  unsigned Base = blockIdx.x * H64Threads * H64MaxWords;
  for (unsigned K = 0; K < H64MaxWords; ++K) {
    unsigned Pos = Base + K * H64Threads + T;
    if (Pos < NumWords) {
      unsigned W = Data[Pos];
      SHist[((W >> 2) & 0x3fu) * H64Threads + T]++;
      SHist[((W >> 10) & 0x3fu) * H64Threads + T]++;
      SHist[((W >> 18) & 0x3fu) * H64Threads + T]++;
      SHist[((W >> 26) & 0x3fu) * H64Threads + T]++;
    }
  }
  __syncthreads();
  // Thread T merges bin T: 64 counters = 16 words of 4 bytes.
  const unsigned *Row = reinterpret_cast<const unsigned *>(SHist + T * H64Threads);
  unsigned Sum = 0;
  for (unsigned I = 0; I < H64Threads / 4; ++I) {
    unsigned W = Row[(I + T) % (H64Threads / 4)];
    W = (W & 0x00ff00ffu) + ((W >> 8) & 0x00ff00ffu);
    Sum += (W & 0xffffu) + (W >> 16);
  }
  PartialHist[blockIdx.x * 64 + T] = Sum;
}

__global__ void mergeHistogram64(unsigned *Hist, const unsigned *Partial, unsigned NumPartial) {
  __shared__ unsigned S[256];
  unsigned Sum = 0;
  for (unsigned I = threadIdx.x; I < NumPartial; I += 256)
    Sum += Partial[blockIdx.x + I * 64];
  S[threadIdx.x] = Sum;
  for (unsigned Stride = 128; Stride > 0; Stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < Stride)
      S[threadIdx.x] += S[threadIdx.x + Stride];
  }
  if (threadIdx.x == 0)
    Hist[blockIdx.x] = S[0];
}

// ------------------------------------------------------------- histogram256

constexpr unsigned H256Warps = 6;
template <bool Aggregated>
__global__ void histogram256Kernel(unsigned *Hist, const unsigned *Data, unsigned NumWords) {
  __shared__ unsigned SHist[H256Warps * 256];
  for (unsigned I = threadIdx.x; I < H256Warps * 256; I += blockDim.x)
    SHist[I] = 0;
  __syncthreads();
  unsigned Warp = threadIdx.x / 32, Lane = threadIdx.x % 32;
  unsigned *WarpHist = SHist + Warp * 256;
  for (unsigned Pos = blockIdx.x * blockDim.x + threadIdx.x; Pos < NumWords; Pos += blockDim.x * gridDim.x) {
    unsigned W = Data[Pos];
    for (unsigned B = 0; B < 4; ++B) {
      unsigned Bin = (W >> (8 * B)) & 0xffu;
      if (Aggregated) {
        // One shared atomic per group of lanes with the same bin.
        unsigned Peers = __match_any_sync(__activemask(), Bin);
        if (Lane == __ffs(Peers) - 1)
          atomicAdd(WarpHist + Bin, (unsigned)__popc(Peers));
      } else {
        atomicAdd(WarpHist + Bin, 1u);
      }
    }
  }
  __syncthreads();
  for (unsigned Bin = threadIdx.x; Bin < 256; Bin += blockDim.x) {
    unsigned Sum = 0;
    for (unsigned W = 0; W < H256Warps; ++W)
      Sum += SHist[W * 256 + Bin];
    atomicAdd(Hist + Bin, Sum);
  }
}

// ------------------------------------------------------- aggregated atomics

__global__ void aggregatedCount(const unsigned *Keys, unsigned N, unsigned *Counts, unsigned *Groups,
                                unsigned *Slots, unsigned *Order) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned Key = Keys[I];
  if (Key % 3 == 0) // divergent: only some lanes take part
    return;
  unsigned Active = __activemask();
  unsigned Peers = __match_any_sync(Active, Key);
  unsigned Leader = __ffs(Peers) - 1;
  unsigned Lane = threadIdx.x % 32;
  unsigned Rank = __popc(Peers & ((1u << Lane) - 1));
  unsigned Base = 0;
  if (Lane == Leader) {
    Base = atomicAdd(Counts + Key, __popc(Peers));
    atomicAdd(Groups, 1u);
  }
  Base = __shfl_sync(Peers, Base, Leader);
  // Each element gets a unique slot within its key.
  Slots[I] = Base + Rank;
  // Stream compaction of the active elements with one atomic per warp.
  unsigned WarpBase = 0;
  unsigned First = __ffs(Active) - 1;
  if (Lane == First)
    WarpBase = atomicAdd(Order, __popc(Active));
  WarpBase = __shfl_sync(Active, WarpBase, First);
  Slots[N + I] = WarpBase + __popc(Active & ((1u << Lane) - 1));
}

// ------------------------------------------------------- threadfence dot

__device__ unsigned RetirementCount = 0;

__global__ void dotFence(const int *A, const int *B, unsigned N, long long *Partial, long long *Result) {
  __shared__ long long S[256];
  __shared__ bool AmLast;
  long long Sum = 0;
  for (unsigned I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += blockDim.x * gridDim.x)
    Sum += (long long)A[I] * B[I];
  S[threadIdx.x] = Sum;
  for (unsigned Stride = blockDim.x / 2; Stride > 0; Stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < Stride)
      S[threadIdx.x] += S[threadIdx.x + Stride];
  }
  if (threadIdx.x == 0) {
    Partial[blockIdx.x] = S[0];
    __threadfence();
    unsigned Ticket = atomicInc(&RetirementCount, gridDim.x);
    AmLast = Ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (AmLast) {
    long long T = 0;
    for (unsigned I = threadIdx.x; I < gridDim.x; I += blockDim.x)
      T += ((volatile long long *)Partial)[I];
    S[threadIdx.x] = T;
    for (unsigned Stride = blockDim.x / 2; Stride > 0; Stride >>= 1) {
      __syncthreads();
      if (threadIdx.x < Stride)
        S[threadIdx.x] += S[threadIdx.x + Stride];
    }
    if (threadIdx.x == 0) {
      *Result = S[0];
      // Every block took a ticket; reset for the next launch.
      if (RetirementCount != gridDim.x)
        *Result = -1;
      RetirementCount = 0;
    }
  }
}

int main() {
  bool Ok = true;
  const unsigned NumWords = 1u << 18;
  Lcg Rng(42);
  std::vector<unsigned> Data(NumWords);
  for (unsigned I = 0; I < NumWords; ++I) {
    unsigned W = Rng.next();
    if (I % 5 == 0)
      W &= 0x0f0f0f0fu; // skew the distribution
    if (I % 17 == 0)
      W = 0xfcfcfcfcu; // many hits on one bin from one thread
    Data[I] = W;
  }
  unsigned *DData;
  CHECK(cudaMalloc(&DData, NumWords * 4));
  CHECK(cudaMemcpy(DData, Data.data(), NumWords * 4, cudaMemcpyHostToDevice));

  // histogram64
  {
    std::vector<unsigned> Ref(64, 0);
    for (unsigned W : Data)
      for (int B = 0; B < 4; ++B)
        Ref[(W >> (8 * B + 2)) & 0x3f]++;
    unsigned Blocks = (NumWords + H64Threads * H64MaxWords - 1) / (H64Threads * H64MaxWords);
    unsigned *DPartial, *DHist;
    CHECK(cudaMalloc(&DPartial, Blocks * 64 * 4));
    CHECK(cudaMalloc(&DHist, 64 * 4));
    histogram64Kernel<<<Blocks, H64Threads>>>(DPartial, DData, NumWords);
    CHECK(cudaGetLastError());
    mergeHistogram64<<<64, 256>>>(DHist, DPartial, Blocks);
    CHECK(cudaGetLastError());
    std::vector<unsigned> G(64);
    CHECK(cudaMemcpy(G.data(), DHist, 64 * 4, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    for (int I = 0; I < 64; ++I)
      Bad += G[I] != Ref[I];
    std::printf("histogram64: %u blocks, bins wrong %u, bin0 %u bin63 %u\n", Blocks, Bad, Ref[0], Ref[63]);
    Ok &= Bad == 0;
    CHECK(cudaFree(DPartial));
    CHECK(cudaFree(DHist));
  }
  // histogram256, both update styles
  {
    std::vector<unsigned> Ref(256, 0);
    for (unsigned W : Data)
      for (int B = 0; B < 4; ++B)
        Ref[(W >> (8 * B)) & 0xff]++;
    unsigned *DHist;
    CHECK(cudaMalloc(&DHist, 256 * 4));
    for (int Aggregated = 0; Aggregated < 2; ++Aggregated) {
      CHECK(cudaMemset(DHist, 0, 256 * 4));
      if (Aggregated)
        histogram256Kernel<true><<<40, H256Warps * 32>>>(DHist, DData, NumWords);
      else
        histogram256Kernel<false><<<40, H256Warps * 32>>>(DHist, DData, NumWords);
      CHECK(cudaGetLastError());
      std::vector<unsigned> G(256);
      CHECK(cudaMemcpy(G.data(), DHist, 256 * 4, cudaMemcpyDeviceToHost));
      unsigned Bad = 0;
      for (int I = 0; I < 256; ++I)
        Bad += G[I] != Ref[I];
      std::printf("histogram256 %s: bins wrong %u, bin 0xfc %u\n", Aggregated ? "match_any" : "atomic", Bad, Ref[0xfc]);
      Ok &= Bad == 0;
    }
    CHECK(cudaFree(DHist));
  }
  // warp-aggregated atomics
  {
    const unsigned N = 50000, NumKeys = 40;
    std::vector<unsigned> Keys(N);
    for (unsigned I = 0; I < N; ++I)
      Keys[I] = (I / 7) % 11 == 0 ? 5 : Rng.below(NumKeys); // runs of one key
    unsigned *DKeys, *DCounts, *DGroups, *DSlots, *DOrder;
    CHECK(cudaMalloc(&DKeys, N * 4));
    CHECK(cudaMalloc(&DCounts, NumKeys * 4));
    CHECK(cudaMalloc(&DGroups, 4));
    CHECK(cudaMalloc(&DOrder, 4));
    CHECK(cudaMalloc(&DSlots, 2 * N * 4));
    CHECK(cudaMemcpy(DKeys, Keys.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(DCounts, 0, NumKeys * 4));
    CHECK(cudaMemset(DGroups, 0, 4));
    CHECK(cudaMemset(DOrder, 0, 4));
    CHECK(cudaMemset(DSlots, 0xff, 2 * N * 4));
    aggregatedCount<<<(N + 127) / 128, 128>>>(DKeys, N, DCounts, DGroups, DSlots, DOrder);
    CHECK(cudaGetLastError());
    std::vector<unsigned> Counts(NumKeys), Slots(2 * N);
    unsigned Groups, Order;
    CHECK(cudaMemcpy(Counts.data(), DCounts, NumKeys * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Slots.data(), DSlots, 2 * N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&Groups, DGroups, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&Order, DOrder, 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> RefCounts(NumKeys, 0);
    unsigned RefGroups = 0, Active = 0;
    for (unsigned W = 0; W < N; W += 32) {
      std::vector<bool> Seen(NumKeys, false);
      for (unsigned I = W; I < std::min(N, W + 32); ++I)
        if (Keys[I] % 3 != 0) {
          RefCounts[Keys[I]]++;
          ++Active;
          if (!Seen[Keys[I]]) {
            Seen[Keys[I]] = true;
            ++RefGroups;
          }
        }
    }
    unsigned Bad = 0;
    for (unsigned K = 0; K < NumKeys; ++K)
      Bad += Counts[K] != RefCounts[K];
    // Slots per key must be a permutation of 0..count-1; compaction slots a
    // permutation of 0..active-1.
    std::vector<std::vector<bool>> Used(NumKeys);
    for (unsigned K = 0; K < NumKeys; ++K)
      Used[K].assign(RefCounts[K], false);
    std::vector<bool> UsedOrder(Active, false);
    unsigned BadSlots = 0;
    for (unsigned I = 0; I < N; ++I) {
      if (Keys[I] % 3 == 0) {
        BadSlots += Slots[I] != 0xffffffffu || Slots[N + I] != 0xffffffffu;
        continue;
      }
      unsigned S = Slots[I], K = Keys[I];
      if (S >= RefCounts[K] || Used[K][S])
        ++BadSlots;
      else
        Used[K][S] = true;
      unsigned O = Slots[N + I];
      if (O >= Active || UsedOrder[O])
        ++BadSlots;
      else
        UsedOrder[O] = true;
    }
    std::printf("aggregated atomics: %u active of %u, keys wrong %u, groups %u (expected %u), order %u, bad slots %u\n",
                Active, N, Bad, Groups, RefGroups, Order, BadSlots);
    Ok &= Bad == 0 && Groups == RefGroups && Order == Active && BadSlots == 0;
    CHECK(cudaFree(DKeys));
    CHECK(cudaFree(DCounts));
    CHECK(cudaFree(DGroups));
    CHECK(cudaFree(DSlots));
    CHECK(cudaFree(DOrder));
  }
  // threadfence reduction, launched three times (the counter must reset)
  {
    const unsigned N = 1000003;
    std::vector<int> A(N), B(N);
    long long Ref = 0;
    for (unsigned I = 0; I < N; ++I) {
      A[I] = (int)Rng.below(20001) - 10000;
      B[I] = (int)Rng.below(20001) - 10000;
      Ref += (long long)A[I] * B[I];
    }
    int *DA, *DB;
    long long *DPartial, *DResult;
    CHECK(cudaMalloc(&DA, N * 4));
    CHECK(cudaMalloc(&DB, N * 4));
    CHECK(cudaMalloc(&DPartial, 1024 * 8));
    CHECK(cudaMalloc(&DResult, 8));
    CHECK(cudaMemcpy(DA, A.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), N * 4, cudaMemcpyHostToDevice));
    for (unsigned Blocks : {1u, 37u, 256u}) {
      CHECK(cudaMemset(DResult, 0, 8));
      dotFence<<<Blocks, 256>>>(DA, DB, N, DPartial, DResult);
      CHECK(cudaGetLastError());
      long long G;
      CHECK(cudaMemcpy(&G, DResult, 8, cudaMemcpyDeviceToHost));
      std::printf("threadfence dot, %3u blocks: %lld (expected %lld)\n", Blocks, G, Ref);
      Ok &= G == Ref;
    }
    CHECK(cudaFree(DA));
    CHECK(cudaFree(DB));
    CHECK(cudaFree(DPartial));
    CHECK(cudaFree(DResult));
  }
  CHECK(cudaFree(DData));
  return finish(Ok);
}
