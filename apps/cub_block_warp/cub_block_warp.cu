/// \file
/// CUB's block- and warp-level collectives inside hand-written kernels, every
/// algorithm variant of each, against a CPU emulation of what the collective
/// is documented to compute: BlockLoad/BlockStore (direct, striped,
/// vectorized, transpose, warp-transpose, time-sliced; full and partial
/// tiles), BlockExchange, BlockReduce and BlockScan (raking, commutative-only
/// raking, memoized raking, warp reductions/scans; block sizes that are and
/// are not warp multiples; a running prefix across tiles), BlockRadixSort,
/// BlockMergeSort, BlockHistogram (sort and atomic), BlockDiscontinuity,
/// BlockAdjacentDifference, BlockShuffle, BlockRunLengthDecode; WarpReduce
/// and WarpScan over logical warps of 4, 8, 16 and 32 lanes (full, partial,
/// segmented), WarpExchange, WarpLoad/WarpStore and WarpMergeSort.
#include "../common/cccl_util.h"
#include <algorithm>
#include <climits>
#include <cub/block/block_run_length_decode.cuh>
#include <cub/block/block_shuffle.cuh>
#include <cub/cub.cuh>
#include <numeric>

constexpr int Tiles = 24;

// ------------------------------------------------------------ load / store
template <int B, int Ipt, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
__global__ void loadStore(const int *In, int *Out, int N) {
  using Load = cub::BlockLoad<int, B, Ipt, LA>;
  using Store = cub::BlockStore<int, B, Ipt, SA>;
  __shared__ union {
    typename Load::TempStorage L;
    typename Store::TempStorage S;
  } Tmp;
  int Base = blockIdx.x * B * Ipt;
  int Valid = min(B * Ipt, N - Base);
  int Items[Ipt];
  if (Valid == B * Ipt)
    Load(Tmp.L).Load(In + Base, Items);
  else
    Load(Tmp.L).Load(In + Base, Items, Valid, -7);
  for (int I = 0; I < Ipt; ++I)
    Items[I] += 1000000 * I + (Items[I] == -7 ? 5 : 0);
  __syncthreads();
  if (Valid == B * Ipt)
    Store(Tmp.S).Store(Out + Base, Items);
  else
    Store(Tmp.S).Store(Out + Base, Items, Valid);
}

static bool stripedLoad(cub::BlockLoadAlgorithm A) { return A == cub::BLOCK_LOAD_STRIPED; }
static bool stripedStore(cub::BlockStoreAlgorithm A) { return A == cub::BLOCK_STORE_STRIPED; }
// Warp-striped: warps own consecutive chunks, lanes stride inside them. Only
// the *_DIRECT/VECTORIZE/TRANSPOSE algorithms are blocked; the
// WARP_TRANSPOSE ones also end blocked. So two arrangements suffice.
template <int B, int Ipt, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
static int runLoadStore(const std::vector<int> &H, const DBuf<int> &D, const char *Name) {
  int N = int(H.size());
  DBuf<int> Out(N);
  int Grid = (N + B * Ipt - 1) / (B * Ipt);
  loadStore<B, Ipt, LA, SA><<<Grid, B>>>(D.P, Out.P, N);
  CHECK(cudaGetLastError());
  std::vector<int> W(N);
  for (int G = 0; G < Grid; ++G)
    for (int T = 0; T < B; ++T)
      for (int I = 0; I < Ipt; ++I) {
        int PIn = stripedLoad(LA) ? I * B + T : T * Ipt + I;
        int POut = stripedStore(SA) ? I * B + T : T * Ipt + I;
        int Base = G * B * Ipt;
        int V = Base + PIn < N ? H[Base + PIn] + 1000000 * I : -7 + 1000000 * I + 5;
        if (Base + POut < N)
          W[Base + POut] = V;
      }
  int Bad = countDiff(Out.down(), W);
  std::printf("  %s: mismatches=%d\n", Name, Bad);
  return Bad;
}

// ------------------------------------------------------------ exchange
template <int B, int Ipt> __global__ void exchange(const int *In, int *Out) {
  using Ex = cub::BlockExchange<int, B, Ipt>;
  __shared__ typename Ex::TempStorage Tmp;
  int Base = blockIdx.x * B * Ipt * 4;
  int Items[Ipt], Ranks[Ipt];
  cub::LoadDirectStriped<B>(threadIdx.x, In + Base, Items);
  Ex(Tmp).StripedToBlocked(Items, Items);
  cub::StoreDirectBlocked(threadIdx.x, Out + Base, Items);
  __syncthreads();
  cub::LoadDirectBlocked(threadIdx.x, In + Base + B * Ipt, Items);
  Ex(Tmp).BlockedToWarpStriped(Items, Items);
  cub::StoreDirectStriped<B>(threadIdx.x, Out + Base + B * Ipt, Items);
  __syncthreads();
  cub::LoadDirectWarpStriped(threadIdx.x, In + Base + 2 * B * Ipt, Items);
  Ex(Tmp).WarpStripedToBlocked(Items, Items);
  cub::StoreDirectBlocked(threadIdx.x, Out + Base + 2 * B * Ipt, Items);
  __syncthreads();
  // Scatter to the reversed order of the tile.
  cub::LoadDirectBlocked(threadIdx.x, In + Base + 3 * B * Ipt, Items);
  for (int I = 0; I < Ipt; ++I)
    Ranks[I] = B * Ipt - 1 - (threadIdx.x * Ipt + I);
  Ex(Tmp).ScatterToBlocked(Items, Ranks);
  cub::StoreDirectBlocked(threadIdx.x, Out + Base + 3 * B * Ipt, Items);
}

// ------------------------------------------------------------ reduce / scan
struct MaxIdx {
  int V, I;
};
struct MaxIdxOp {
  __host__ __device__ MaxIdx operator()(const MaxIdx &A, const MaxIdx &B) const {
    return B.V > A.V || (B.V == A.V && B.I < A.I) ? B : A;
  }
};
// A running prefix carried across the tiles one block scans in turn.
struct RunningPrefix {
  long long Total;
  __device__ long long operator()(long long Aggregate) {
    long long Old = Total;
    Total += Aggregate;
    return Old;
  }
};

// Out layout per block (B threads): [0] sum, [1] max over Valid items, [2]
// exclusive-sum aggregate, [3] argmax value, [4] argmax index, then B
// exclusive sums, B inclusive max-scans, B exclusive scans with an init, and
// B*2 items of a two-items-per-thread inclusive sum.
template <int B, cub::BlockReduceAlgorithm RA, cub::BlockScanAlgorithm SA>
__global__ void reduceScan(const int *In, long long *Out, long long *Running, int Valid) {
  using Red = cub::BlockReduce<int, B, RA>;
  using RedM = cub::BlockReduce<MaxIdx, B, RA>;
  using Scan = cub::BlockScan<int, B, SA>;
  using ScanL = cub::BlockScan<long long, B, SA>;
  __shared__ union {
    typename Red::TempStorage R;
    typename RedM::TempStorage RM;
    typename Scan::TempStorage S;
    typename ScanL::TempStorage SL;
  } Tmp;
  const int Stride = 5 + 5 * B;
  long long *O = Out + blockIdx.x * Stride;
  int T = threadIdx.x;
  int V = In[blockIdx.x * B + T];
  int Sum = Red(Tmp.R).Sum(V);
  __syncthreads();
  int Mx = Red(Tmp.R).Reduce(V, cuda::maximum<int>(), Valid);
  __syncthreads();
  MaxIdx M = RedM(Tmp.RM).Reduce(MaxIdx{V % 100, T}, MaxIdxOp());
  __syncthreads();
  if (T == 0) {
    O[0] = Sum;
    O[1] = Mx;
    O[3] = M.V;
    O[4] = M.I;
  }
  int Ex, Agg, Inc, Ex2;
  Scan(Tmp.S).ExclusiveSum(V, Ex, Agg);
  __syncthreads();
  Scan(Tmp.S).InclusiveScan(V, Inc, cuda::maximum<int>());
  __syncthreads();
  Scan(Tmp.S).ExclusiveScan(V, Ex2, -3, cuda::minimum<int>());
  __syncthreads();
  int Two[2] = {V, V & 15}, TwoOut[2];
  Scan(Tmp.S).InclusiveSum(Two, TwoOut);
  __syncthreads();
  if (T == 0)
    O[2] = Agg;
  O[5 + T] = Ex;
  O[5 + B + T] = Inc;
  O[5 + 2 * B + T] = Ex2;
  O[5 + 3 * B + 2 * T] = TwoOut[0];
  O[5 + 3 * B + 2 * T + 1] = TwoOut[1];
  // Block 0 scans all tiles in turn with a running prefix.
  if (blockIdx.x == 0) {
    RunningPrefix P{0};
    for (int Tile = 0; Tile < Tiles; ++Tile) {
      long long X = In[Tile * B + T], Y;
      ScanL(Tmp.SL).ExclusiveScan(X, Y, cuda::std::plus<long long>(), P);
      __syncthreads();
      Running[Tile * B + T] = Y;
    }
  }
}

template <int B, cub::BlockReduceAlgorithm RA, cub::BlockScanAlgorithm SA>
static int runReduceScan(const std::vector<int> &H, const DBuf<int> &D, const char *Name) {
  const int Stride = 5 + 5 * B;
  DBuf<long long> Out(Tiles * Stride), Run(Tiles * B);
  const int Valid = B - 3;
  reduceScan<B, RA, SA><<<Tiles, B>>>(D.P, Out.P, Run.P, Valid);
  CHECK(cudaGetLastError());
  std::vector<long long> W(Tiles * Stride), WR(Tiles * B);
  long long Running = 0;
  for (int G = 0; G < Tiles; ++G) {
    long long *O = W.data() + G * Stride;
    const int *X = H.data() + G * B;
    long long S = 0, S2 = 0;
    int Mx = INT_MIN, Cm = INT_MIN, Cn = -3;
    MaxIdx M{X[0] % 100, 0};
    for (int T = 0; T < B; ++T) {
      if (T < Valid)
        Mx = std::max(Mx, X[T]);
      if (T)
        M = MaxIdxOp()(M, MaxIdx{X[T] % 100, T});
      O[5 + T] = S;
      S += X[T];
      Cm = std::max(Cm, X[T]);
      O[5 + B + T] = Cm;
      O[5 + 2 * B + T] = T ? Cn : 0; // thread 0's exclusive output is undefined: compare it as 0
      Cn = std::min(Cn, X[T]);
      S2 += X[T];
      O[5 + 3 * B + 2 * T] = S2;
      S2 += X[T] & 15;
      O[5 + 3 * B + 2 * T + 1] = S2;
      WR[G * B + T] = Running;
      Running += X[T];
    }
    O[0] = S;
    O[1] = Mx;
    O[2] = S;
    O[3] = M.V;
    O[4] = M.I;
  }
  auto G = Out.down();
  // ExclusiveScan with an initial value does define thread 0's output as the
  // initial value; compare it.
  for (int B0 = 0; B0 < Tiles; ++B0)
    W[B0 * Stride + 5 + 2 * B] = -3;
  int Bad = countDiff(G, W) + countDiff(Run.down(), WR);
  std::printf("  %s: block0 sum=%lld running total=%lld mismatches=%d\n", Name, W[0], Running, Bad);
  return Bad;
}

// ------------------------------------------------------------ sorting
struct Low6Less {
  __device__ bool operator()(unsigned A, unsigned B) const { return (A & 63u) < (B & 63u); }
};
struct Mod1000Less {
  __device__ bool operator()(int A, int B) const { return (A % 1000) < (B % 1000); }
};
template <int B, int Ipt> __global__ void blockSorts(const unsigned *Keys, const float *FKeys, unsigned *Out,
                                                     int *OutV, float *OutF, int *OutFV, unsigned *OutM, int *OutMV) {
  using RS = cub::BlockRadixSort<unsigned, B, Ipt, int>;
  using RSF = cub::BlockRadixSort<float, B, Ipt, int>;
  using MS = cub::BlockMergeSort<unsigned, B, Ipt, int>;
  __shared__ union {
    typename RS::TempStorage R;
    typename RSF::TempStorage RF;
    typename MS::TempStorage M;
  } Tmp;
  int Base = blockIdx.x * B * Ipt;
  unsigned K[Ipt];
  int V[Ipt];
  float F[Ipt];
  cub::LoadDirectBlocked(threadIdx.x, Keys + Base, K);
  for (int I = 0; I < Ipt; ++I)
    V[I] = threadIdx.x * Ipt + I;
  // Radix sort on bits [4, 20) only: a stable sort on that field.
  RS(Tmp.R).Sort(K, V, 4, 20);
  cub::StoreDirectBlocked(threadIdx.x, Out + Base, K);
  cub::StoreDirectBlocked(threadIdx.x, OutV + Base, V);
  __syncthreads();
  cub::LoadDirectBlocked(threadIdx.x, FKeys + Base, F);
  for (int I = 0; I < Ipt; ++I)
    V[I] = threadIdx.x * Ipt + I;
  RSF(Tmp.RF).SortDescendingBlockedToStriped(F, V);
  cub::StoreDirectStriped<B>(threadIdx.x, OutF + Base, F);
  cub::StoreDirectStriped<B>(threadIdx.x, OutFV + Base, V);
  __syncthreads();
  // Merge sort (stable) by the key's low 6 bits, over a partial tile: the
  // last 5 items of the tile are out of range and padded with a key that
  // sorts after every valid one.
  cub::LoadDirectBlocked(threadIdx.x, Keys + Base, K);
  for (int I = 0; I < Ipt; ++I)
    V[I] = threadIdx.x * Ipt + I;
  MS(Tmp.M).StableSort(K, V, Low6Less(), B * Ipt - 5, 0xffffffffu);
  cub::StoreDirectBlocked(threadIdx.x, OutM + Base, K);
  cub::StoreDirectBlocked(threadIdx.x, OutMV + Base, V);
}

// ------------------------------------------------------------ histogram
template <int B, int Ipt, cub::BlockHistogramAlgorithm HA>
__global__ void blockHist(const unsigned char *In, unsigned *Hist) {
  using BH = cub::BlockHistogram<unsigned char, B, Ipt, 256, HA>;
  __shared__ typename BH::TempStorage Tmp;
  __shared__ unsigned Bins[256];
  unsigned char Items[Ipt];
  cub::LoadDirectStriped<B>(threadIdx.x, In + blockIdx.x * B * Ipt, Items);
  BH(Tmp).Histogram(Items, Bins);
  __syncthreads();
  for (int I = threadIdx.x; I < 256; I += B)
    Hist[blockIdx.x * 256 + I] = Bins[I];
}

// ------------------------------------------------------------ neighbours
// Per block, Out holds: heads flags, tails flags (with tile neighbours),
// left differences, right differences (partial), Offset(-1), Rotate(3),
// Up (prev), Down (next), all as B*Ipt or B items.
template <int B, int Ipt> __global__ void neighbours(const int *In, int *Out) {
  using Disc = cub::BlockDiscontinuity<int, B>;
  using Adj = cub::BlockAdjacentDifference<int, B>;
  using Shuf = cub::BlockShuffle<int, B>;
  __shared__ union {
    typename Disc::TempStorage D;
    typename Adj::TempStorage A;
    typename Shuf::TempStorage S;
  } Tmp;
  const int Tile = B * Ipt;
  int Base = blockIdx.x * Tile;
  int *O = Out + blockIdx.x * (6 * Tile + 2 * B);
  int X[Ipt], H[Ipt], Tl[Ipt], R[Ipt];
  cub::LoadDirectBlocked(threadIdx.x, In + Base, X);
  int Prev = blockIdx.x ? In[Base - 1] : 0, Next = In[Base + Tile];
  Disc(Tmp.D).FlagHeadsAndTails(H, Tl, Next, X, cuda::std::not_equal_to<int>());
  __syncthreads();
  if (blockIdx.x)
    Disc(Tmp.D).FlagHeads(R, X, cuda::std::not_equal_to<int>(), Prev);
  else
    Disc(Tmp.D).FlagHeads(R, X, cuda::std::not_equal_to<int>());
  __syncthreads();
  for (int I = 0; I < Ipt; ++I)
    H[I] = H[I] * 2 + R[I];
  cub::StoreDirectBlocked(threadIdx.x, O, H);
  cub::StoreDirectBlocked(threadIdx.x, O + Tile, Tl);
  Adj(Tmp.A).SubtractLeft(X, R, cuda::std::minus<int>());
  __syncthreads();
  cub::StoreDirectBlocked(threadIdx.x, O + 2 * Tile, R);
  Adj(Tmp.A).SubtractRightPartialTile(X, R, cuda::std::minus<int>(), Tile - 7);
  __syncthreads();
  cub::StoreDirectBlocked(threadIdx.x, O + 3 * Tile, R);
  int Up[Ipt], Down[Ipt];
  Shuf(Tmp.S).Up(X, Up);
  __syncthreads();
  Shuf(Tmp.S).Down(X, Down);
  __syncthreads();
  cub::StoreDirectBlocked(threadIdx.x, O + 4 * Tile, Up);
  cub::StoreDirectBlocked(threadIdx.x, O + 5 * Tile, Down);
  int Off = -99, Rot;
  Shuf(Tmp.S).Offset(X[0], Off, -1);
  __syncthreads();
  Shuf(Tmp.S).Rotate(X[0], Rot, 3);
  __syncthreads();
  O[6 * Tile + threadIdx.x] = Off;
  O[6 * Tile + B + threadIdx.x] = Rot;
}

// ------------------------------------------------------------ run-length decode
template <int B, int Runs, int Dec>
__global__ void rld(const int *Vals, const int *Lens, int *Out, int *Rel, int *Total) {
  using RLD = cub::BlockRunLengthDecode<int, B, Runs, Dec>;
  __shared__ typename RLD::TempStorage Tmp;
  int V[Runs], L[Runs];
  cub::LoadDirectBlocked(threadIdx.x, Vals + blockIdx.x * B * Runs, V);
  cub::LoadDirectBlocked(threadIdx.x, Lens + blockIdx.x * B * Runs, L);
  unsigned Size;
  RLD Decoder(Tmp, V, L, Size);
  int *O = Out + blockIdx.x * 4096, *RO = Rel + blockIdx.x * 4096;
  for (unsigned Window = 0; Window < Size; Window += B * Dec) {
    int Items[Dec];
    unsigned Offs[Dec];
    Decoder.RunLengthDecode(Items, Offs, Window);
    for (int I = 0; I < Dec; ++I) {
      unsigned P = Window + threadIdx.x * Dec + I;
      if (P < Size && P < 4096) {
        O[P] = Items[I];
        RO[P] = int(Offs[I]);
      }
    }
  }
  if (threadIdx.x == 0)
    Total[blockIdx.x] = int(Size);
}

// ------------------------------------------------------------ warp level
// Per thread outputs (8): Sum, max Reduce, partial Sum over Valid lanes
// (valid in lane 0), head-segmented sum (valid at heads), inclusive sum,
// exclusive scan with init, broadcast of lane 1, exclusive sum aggregate.
template <int LW> __global__ void warpOps(const int *In, int *Out, int Valid) {
  using WR = cub::WarpReduce<int, LW>;
  using WS = cub::WarpScan<int, LW>;
  constexpr int Warps = 64 / LW;
  __shared__ typename WR::TempStorage RT[Warps];
  __shared__ typename WS::TempStorage ST[Warps];
  int T = threadIdx.x, W = T / LW, L = T % LW;
  int V = In[blockIdx.x * 64 + T];
  int *O = Out + (blockIdx.x * 64 + T) * 8;
  O[0] = WR(RT[W]).Sum(V);
  __syncwarp();
  O[1] = WR(RT[W]).Reduce(V, cuda::maximum<int>());
  __syncwarp();
  O[2] = WR(RT[W]).Sum(V, Valid);
  __syncwarp();
  O[3] = WR(RT[W]).HeadSegmentedSum(V, L == 0 || (V & 3) == 0);
  __syncwarp();
  int Inc, Ex, Agg;
  WS(ST[W]).InclusiveSum(V, Inc);
  __syncwarp();
  WS(ST[W]).ExclusiveScan(V, Ex, 11, cuda::maximum<int>());
  __syncwarp();
  O[4] = Inc;
  O[5] = Ex;
  O[6] = WS(ST[W]).Broadcast(V, 1);
  __syncwarp();
  int Dummy;
  WS(ST[W]).ExclusiveSum(V, Dummy, Agg);
  O[7] = Agg;
}

template <int LW> static int runWarpOps(const std::vector<int> &H, const DBuf<int> &D) {
  const int Blocks = 8, Valid = LW - LW / 4 - 1;
  DBuf<int> Out(Blocks * 64 * 8);
  warpOps<LW><<<Blocks, 64>>>(D.P, Out.P, Valid);
  CHECK(cudaGetLastError());
  auto G = Out.down();
  int Bad = 0;
  long long Check = 0;
  for (int Wb = 0; Wb < Blocks * 64; Wb += LW) {
    const int *X = H.data() + Wb;
    int Sum = 0, Mx = INT_MIN, Part = 0;
    for (int L = 0; L < LW; ++L) {
      Sum += X[L];
      Mx = std::max(Mx, X[L]);
      if (L < Valid)
        Part += X[L];
    }
    int Inc = 0, Ex = 11;
    for (int L = 0; L < LW; ++L) {
      const int *O = G.data() + (Wb + L) * 8;
      bool Head = L == 0 || (X[L] & 3) == 0;
      int Seg = 0;
      if (Head)
        for (int J = L; J < LW && (J == L || (X[J] & 3) != 0); ++J)
          Seg += X[J];
      Inc += X[L];
      if (L == 0)
        Bad += (O[0] != Sum) + (O[1] != Mx) + (O[2] != Part);
      if (Head)
        Bad += O[3] != Seg;
      Bad += (O[4] != Inc) + (O[5] != Ex) + (O[6] != X[1]) + (O[7] != Sum);
      Ex = std::max(Ex, X[L]);
      Check += Inc;
    }
  }
  std::printf("  logical warp %d: checksum=%lld mismatches=%d\n", LW, Check, Bad);
  return Bad;
}

// Exchange, load/store and merge sort within logical warps of LW lanes.
template <int LW, int Ipt, cub::WarpLoadAlgorithm LA, cub::WarpStoreAlgorithm SA>
__global__ void warpData(const int *In, int *Out, int *Sorted) {
  constexpr int Warps = 64 / LW;
  using WL = cub::WarpLoad<int, Ipt, LA, LW>;
  using WSt = cub::WarpStore<int, Ipt, SA, LW>;
  using WE = cub::WarpExchange<int, Ipt, LW>;
  using WMS = cub::WarpMergeSort<int, Ipt, LW, int>;
  __shared__ typename WL::TempStorage LT[Warps];
  __shared__ typename WSt::TempStorage STo[Warps];
  __shared__ typename WE::TempStorage ET[Warps];
  __shared__ typename WMS::TempStorage MT[Warps];
  int W = threadIdx.x / LW, L = threadIdx.x % LW;
  int Base = (blockIdx.x * Warps + W) * LW * Ipt;
  int X[Ipt];
  WL(LT[W]).Load(In + Base, X);
  for (int I = 0; I < Ipt; ++I)
    X[I] = X[I] * 4 + (I & 3);
  WSt(STo[W]).Store(Out + Base, X);
  __syncwarp();
  // Blocked -> striped through WarpExchange, stored striped by hand.
  cub::LoadDirectBlocked(L, In + Base, X);
  WE(ET[W]).BlockedToStriped(X, X);
  for (int I = 0; I < Ipt; ++I)
    Out[Base + I * LW + L + 64 * 1024] = X[I];
  __syncwarp();
  int V[Ipt];
  cub::LoadDirectBlocked(L, In + Base, X);
  for (int I = 0; I < Ipt; ++I)
    V[I] = L * Ipt + I;
  WMS(MT[W]).StableSort(X, V, Mod1000Less());
  cub::StoreDirectBlocked(L, Sorted + Base, X);
  cub::StoreDirectBlocked(L, Sorted + Base + 64 * 1024, V);
}

template <int LW, int Ipt, cub::WarpLoadAlgorithm LA, cub::WarpStoreAlgorithm SA>
static int runWarpData(const std::vector<int> &H, const DBuf<int> &D, const char *Name) {
  const int Blocks = 4;
  const int N = Blocks * 64 * Ipt;
  DBuf<int> Out(128 * 1024), Sorted(128 * 1024);
  warpData<LW, Ipt, LA, SA><<<Blocks, 64>>>(D.P, Out.P, Sorted.P);
  CHECK(cudaGetLastError());
  auto G = Out.down();
  auto S = Sorted.down();
  bool StripedIn = LA == cub::WARP_LOAD_STRIPED, StripedOut = SA == cub::WARP_STORE_STRIPED;
  int Bad = 0;
  for (int Wb = 0; Wb < N; Wb += LW * Ipt) {
    for (int L = 0; L < LW; ++L)
      for (int I = 0; I < Ipt; ++I) {
        int PIn = StripedIn ? I * LW + L : L * Ipt + I;
        int POut = StripedOut ? I * LW + L : L * Ipt + I;
        Bad += G[Wb + POut] != H[Wb + PIn] * 4 + (I & 3);
        Bad += G[64 * 1024 + Wb + I * LW + L] != H[Wb + I * LW + L]; // striped store of striped items: the tile again
      }
    std::vector<int> Idx(LW * Ipt);
    std::iota(Idx.begin(), Idx.end(), 0);
    std::stable_sort(Idx.begin(), Idx.end(), [&](int A, int B) { return H[Wb + A] % 1000 < H[Wb + B] % 1000; });
    for (int P = 0; P < LW * Ipt; ++P)
      Bad += (S[Wb + P] != H[Wb + Idx[P]]) + (S[64 * 1024 + Wb + P] != Idx[P]);
  }
  std::printf("  %s: mismatches=%d\n", Name, Bad);
  return Bad;
}

int main() {
  Report R;
  Lcg Rng(31337);
  const int N = 20000;
  std::vector<int> H(N);
  for (auto &V : H)
    V = int(Rng.below(20001)) - 10000;
  DBuf<int> D(H);

  int Bad = 0;
  const int LsN = 128 * 4 * 9 + 77; // the last tile is partial
  std::vector<int> Ls(H.begin(), H.begin() + LsN);
  DBuf<int> DLs(Ls);
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>(Ls, DLs, "direct/direct");
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED>(Ls, DLs, "striped/striped");
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE>(Ls, DLs, "vectorize/vectorize");
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>(Ls, DLs, "transpose/transpose");
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(Ls, DLs,
                                                                                                 "warp-transpose");
  Bad += runLoadStore<128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>(
      Ls, DLs, "warp-transpose-timesliced");
  Bad += runLoadStore<96, 3, cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_TRANSPOSE>(Ls, DLs, "striped/transpose 96x3");
  Bad += runLoadStore<64, 8, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_STRIPED>(Ls, DLs, "transpose/striped 64x8");
  R.line("block load/store (all algorithms, partial tiles)", Bad);

  {
    const int B = 64, Ipt = 5, Blocks = 6;
    std::vector<int> X(H.begin(), H.begin() + Blocks * 4 * B * Ipt);
    DBuf<int> DX(X), Out(X.size());
    exchange<B, Ipt><<<Blocks, B>>>(DX.P, Out.P);
    CHECK(cudaGetLastError());
    std::vector<int> W(X.size());
    const int Tile = B * Ipt;
    for (int G = 0; G < Blocks; ++G) {
      const int *In = X.data() + G * 4 * Tile;
      int *O = W.data() + G * 4 * Tile;
      for (int T = 0; T < B; ++T)
        for (int I = 0; I < Ipt; ++I) {
          // Striped load then blocked store is the identity on the tile.
          O[T * Ipt + I] = In[T * Ipt + I];
          // Blocked -> warp-striped, stored block-striped.
          int Wp = T / 32, Ln = T % 32;
          int WarpPos = Wp * 32 * Ipt + I * 32 + Ln; // tile position this item came from
          O[Tile + I * B + T] = In[Tile + WarpPos];
          // Warp-striped load then warp-striped->blocked: identity.
          O[2 * Tile + T * Ipt + I] = In[2 * Tile + T * Ipt + I];
          O[3 * Tile + T * Ipt + I] = In[3 * Tile + Tile - 1 - (T * Ipt + I)];
        }
    }
    R.line("block exchange (striped, warp-striped, scatter)", countDiff(Out.down(), W));
  }

  Bad = 0;
  Bad += runReduceScan<128, cub::BLOCK_REDUCE_RAKING, cub::BLOCK_SCAN_RAKING>(H, D, "raking / raking, 128");
  Bad += runReduceScan<128, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, cub::BLOCK_SCAN_RAKING_MEMOIZE>(
      H, D, "raking-commutative / raking-memoize, 128");
  Bad += runReduceScan<128, cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::BLOCK_SCAN_WARP_SCANS>(
      H, D, "warp-reductions / warp-scans, 128");
  Bad += runReduceScan<80, cub::BLOCK_REDUCE_RAKING, cub::BLOCK_SCAN_WARP_SCANS>(H, D, "raking / warp-scans, 80");
  Bad += runReduceScan<80, cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::BLOCK_SCAN_RAKING>(H, D,
                                                                                      "warp-reductions / raking, 80");
  Bad += runReduceScan<48, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, cub::BLOCK_SCAN_RAKING_MEMOIZE>(
      H, D, "raking-commutative / raking-memoize, 48");
  R.line("block reduce / block scan (all algorithms)", Bad);

  {
    const int B = 64, Ipt = 6, Blocks = 10, Tile = B * Ipt, M = Blocks * Tile;
    std::vector<unsigned> K(M);
    std::vector<float> F(M);
    for (int I = 0; I < M; ++I) {
      K[I] = Rng.next();
      if ((K[I] & 63) == 63) // the padding key 0xffffffff must sort strictly last
        K[I] ^= 1;
      F[I] = float(int(Rng.below(4001)) - 2000) * 0.5f;
    }
    DBuf<unsigned> DK(K), O(M), OM(M);
    DBuf<float> DF(F), OF(M);
    DBuf<int> OV(M), OFV(M), OMV(M);
    blockSorts<B, Ipt><<<Blocks, B>>>(DK.P, DF.P, O.P, OV.P, OF.P, OFV.P, OM.P, OMV.P);
    CHECK(cudaGetLastError());
    auto GO = O.down(), GM = OM.down();
    auto GOV = OV.down(), GFV = OFV.down(), GMV = OMV.down();
    auto GF = OF.down();
    Bad = 0;
    for (int G = 0; G < Blocks; ++G) {
      std::vector<int> Idx(Tile), FIdx(Tile), MIdx(Tile - 5);
      std::iota(Idx.begin(), Idx.end(), 0);
      std::iota(FIdx.begin(), FIdx.end(), 0);
      std::iota(MIdx.begin(), MIdx.end(), 0);
      const unsigned *Kb = K.data() + G * Tile;
      const float *Fb = F.data() + G * Tile;
      std::stable_sort(Idx.begin(), Idx.end(),
                       [&](int A, int B2) { return ((Kb[A] >> 4) & 0xffff) < ((Kb[B2] >> 4) & 0xffff); });
      std::stable_sort(FIdx.begin(), FIdx.end(), [&](int A, int B2) { return Fb[A] > Fb[B2]; });
      std::stable_sort(MIdx.begin(), MIdx.end(), [&](int A, int B2) { return (Kb[A] & 63) < (Kb[B2] & 63); });
      for (int P = 0; P < Tile; ++P) {
        Bad += (GO[G * Tile + P] != Kb[Idx[P]]) + (GOV[G * Tile + P] != Idx[P]);
        Bad += (GF[G * Tile + P] != Fb[FIdx[P]]) + (GFV[G * Tile + P] != FIdx[P]);
        // Only the valid prefix is defined: CUB leaves what it likes past it.
        if (P < Tile - 5)
          Bad += (GM[G * Tile + P] != Kb[MIdx[P]]) + (GMV[G * Tile + P] != MIdx[P]);
      }
    }
    R.line("block radix sort (bit range, descending floats to striped) / block merge sort (partial)", Bad);
  }

  {
    const int B = 128, Ipt = 8, Blocks = 12, M = Blocks * B * Ipt;
    std::vector<unsigned char> X(M);
    for (int I = 0; I < M; ++I)
      X[I] = (unsigned char)(I % 3 == 0 ? 7 : Rng.below(256)); // a hot bin
    DBuf<unsigned char> DX(X);
    DBuf<unsigned> HS(Blocks * 256), HA(Blocks * 256);
    blockHist<B, Ipt, cub::BLOCK_HISTO_SORT><<<Blocks, B>>>(DX.P, HS.P);
    blockHist<B, Ipt, cub::BLOCK_HISTO_ATOMIC><<<Blocks, B>>>(DX.P, HA.P);
    CHECK(cudaGetLastError());
    std::vector<unsigned> W(Blocks * 256, 0);
    for (int I = 0; I < M; ++I)
      W[(I / (B * Ipt)) * 256 + X[I]]++;
    R.line("block histogram sort/atomic", countDiff(HS.down(), W) + countDiff(HA.down(), W), "hot bin=%lld ", W[7]);
  }

  {
    const int B = 64, Ipt = 4, Blocks = 8, Tile = B * Ipt;
    std::vector<int> X(Blocks * Tile + 1);
    for (size_t I = 0; I < X.size(); ++I)
      X[I] = Rng.below(3) == 0 || I == 0 ? int(Rng.below(10)) : X[I - 1];
    DBuf<int> DX(X), Out(Blocks * (6 * Tile + 2 * B));
    neighbours<B, Ipt><<<Blocks, B>>>(DX.P, Out.P);
    CHECK(cudaGetLastError());
    auto G = Out.down();
    Bad = 0;
    for (int Bk = 0; Bk < Blocks; ++Bk) {
      const int *In = X.data() + Bk * Tile;
      const int *O = G.data() + Bk * (6 * Tile + 2 * B);
      for (int P = 0; P < Tile; ++P) {
        int HeadNoPred = P == 0 ? 1 : In[P] != In[P - 1];
        int HeadPred = P == 0 ? (Bk ? In[-1] != In[0] : 1) : In[P] != In[P - 1];
        int Tail = In[P] != In[P + 1]; // In[Tile] is the next tile's first (tile_successor_item)
        Bad += (O[P] != HeadNoPred * 2 + HeadPred) + (O[Tile + P] != Tail);
        Bad += O[2 * Tile + P] != (P ? In[P] - In[P - 1] : In[P]);
        if (P < Tile - 7)
          Bad += O[3 * Tile + P] != (P < Tile - 8 ? In[P] - In[P + 1] : In[P]);
        // Up: prev[i] is the item one rank lower (rank 0 keeps its own
        // input); Down: next[i] is one rank higher (the last keeps its own).
        if (P > 0)
          Bad += O[4 * Tile + P] != In[P - 1];
        if (P < Tile - 1)
          Bad += O[5 * Tile + P] != In[P + 1];
      }
      for (int T = 0; T < B; ++T) {
        if (T >= 1)
          Bad += O[6 * Tile + T] != In[(T - 1) * Ipt];
        else
          Bad += O[6 * Tile + T] != -99; // no source: the output is left alone
        Bad += O[6 * Tile + B + T] != In[((T + 3) % B) * Ipt];
      }
    }
    R.line("block discontinuity / adjacent difference / shuffle", Bad);
  }

  {
    const int B = 32, Runs = 2, Dec = 4, Blocks = 5, RunsPerBlock = B * Runs;
    std::vector<int> V(Blocks * RunsPerBlock), L(Blocks * RunsPerBlock);
    for (size_t I = 0; I < V.size(); ++I) {
      V[I] = int(I) * 3 + 1;
      // Zero-length runs only at the end of a block's runs (CUB's rule).
      L[I] = I % RunsPerBlock >= RunsPerBlock - 3 ? 0 : 1 + int(Rng.below(40));
    }
    DBuf<int> DV(V), DL(L), Out(Blocks * 4096), Rel(Blocks * 4096), Tot(Blocks);
    rld<B, Runs, Dec><<<Blocks, B>>>(DV.P, DL.P, Out.P, Rel.P, Tot.P);
    CHECK(cudaGetLastError());
    auto GO = Out.down(), GR = Rel.down(), GT = Tot.down();
    Bad = 0;
    long long Sizes = 0;
    for (int Bk = 0; Bk < Blocks; ++Bk) {
      std::vector<int> WV, WRel;
      for (int I = 0; I < RunsPerBlock; ++I)
        for (int J = 0; J < L[Bk * RunsPerBlock + I]; ++J)
          WV.push_back(V[Bk * RunsPerBlock + I]), WRel.push_back(J);
      Bad += GT[Bk] != int(WV.size());
      Sizes += WV.size();
      for (size_t P = 0; P < WV.size(); ++P)
        Bad += (GO[Bk * 4096 + P] != WV[P]) + (GR[Bk * 4096 + P] != WRel[P]);
    }
    R.line("block run-length decode", Bad, "decoded=%lld ", Sizes);
  }

  Bad = runWarpOps<4>(H, D) + runWarpOps<8>(H, D) + runWarpOps<16>(H, D) + runWarpOps<32>(H, D);
  R.line("warp reduce / warp scan (logical warps 4-32, partial, segmented)", Bad);

  Bad = runWarpData<32, 4, cub::WARP_LOAD_DIRECT, cub::WARP_STORE_DIRECT>(H, D, "warp 32x4 direct");
  Bad += runWarpData<32, 4, cub::WARP_LOAD_STRIPED, cub::WARP_STORE_STRIPED>(H, D, "warp 32x4 striped");
  Bad += runWarpData<16, 4, cub::WARP_LOAD_VECTORIZE, cub::WARP_STORE_VECTORIZE>(H, D, "warp 16x4 vectorize");
  Bad += runWarpData<8, 8, cub::WARP_LOAD_TRANSPOSE, cub::WARP_STORE_TRANSPOSE>(H, D, "warp 8x8 transpose");
  Bad += runWarpData<32, 3, cub::WARP_LOAD_STRIPED, cub::WARP_STORE_TRANSPOSE>(H, D, "warp 32x3 striped/transpose");
  R.line("warp load/store / warp exchange / warp merge sort", Bad);
  return R.done();
}
