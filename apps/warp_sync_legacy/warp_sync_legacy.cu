/// \file
/// Pre-Volta warp-synchronous code, as much older third-party code still
/// has it: no __syncwarp, lanes of one warp trading values through a
/// `volatile` shared pointer and relying on the warp running in lockstep.
/// CUDA no longer promises this, but nvcc-compiled code of this shape still
/// gives the lockstep answer on current GPUs and programs depend on it:
/// - block sums whose last warp is unrolled (`vs[tid] += vs[tid + 32];
///   vs[tid] += vs[tid + 16]; ...`), over int and double and block
///   sizes 32 to 1024;
/// - Hillis-Steele warp scans over a zero-padded volatile buffer (no
///   branches) and with `if (lane >= offset)` guards, composed into block
///   scans;
/// - a warp vote through shared memory: every lane writes a flag and lane 0
///   reads all 32 at once.
/// Each result is checked against a CPU computation.
#include "../common/app_util.h"
#include <vector>

template <class T> __device__ void lastWarpSum(volatile T *Vs, unsigned Tid) {
  Vs[Tid] += Vs[Tid + 32];
  Vs[Tid] += Vs[Tid + 16];
  Vs[Tid] += Vs[Tid + 8];
  Vs[Tid] += Vs[Tid + 4];
  Vs[Tid] += Vs[Tid + 2];
  Vs[Tid] += Vs[Tid + 1];
}

template <class T, unsigned BlockSize> __global__ void blockSum(const T *In, T *Out, unsigned N) {
  __shared__ T S[BlockSize < 64 ? 64 : BlockSize];
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * BlockSize * 2 + Tid;
  T Sum = 0;
  while (I < N) {
    Sum += In[I];
    if (I + BlockSize < N)
      Sum += In[I + BlockSize];
    I += BlockSize * 2 * gridDim.x;
  }
  S[Tid] = Sum;
  if (BlockSize < 64)
    S[Tid + 32] = 0;
  __syncthreads();
  if (BlockSize >= 1024) {
    if (Tid < 512)
      S[Tid] = Sum = Sum + S[Tid + 512];
    __syncthreads();
  }
  if (BlockSize >= 512) {
    if (Tid < 256)
      S[Tid] = Sum = Sum + S[Tid + 256];
    __syncthreads();
  }
  if (BlockSize >= 256) {
    if (Tid < 128)
      S[Tid] = Sum = Sum + S[Tid + 128];
    __syncthreads();
  }
  if (BlockSize >= 128) {
    if (Tid < 64)
      S[Tid] = Sum = Sum + S[Tid + 64];
    __syncthreads();
  }
  if (Tid < 32)
    lastWarpSum<T>(S, Tid);
  if (Tid == 0)
    Out[blockIdx.x] = S[0];
}

/// Inclusive warp scan over a 64-slot buffer whose first 32 slots are
/// zero, so no lane needs a bound test (the classic branch-free form).
__device__ int warpScanPadded(volatile int *Buf, int Lane, int Value) {
  int At = Lane + 32;
  Buf[Lane] = 0;
  Buf[At] = Value;
  Buf[At] += Buf[At - 1];
  Buf[At] += Buf[At - 2];
  Buf[At] += Buf[At - 4];
  Buf[At] += Buf[At - 8];
  Buf[At] += Buf[At - 16];
  return Buf[At];
}

/// The same scan with guards instead of padding.
__device__ int warpScanGuarded(volatile int *Buf, int Lane, int Value) {
  Buf[Lane] = Value;
  if (Lane >= 1)
    Buf[Lane] += Buf[Lane - 1];
  if (Lane >= 2)
    Buf[Lane] += Buf[Lane - 2];
  if (Lane >= 4)
    Buf[Lane] += Buf[Lane - 4];
  if (Lane >= 8)
    Buf[Lane] += Buf[Lane - 8];
  if (Lane >= 16)
    Buf[Lane] += Buf[Lane - 16];
  return Buf[Lane];
}

/// Inclusive scan of each 256-element block: warp scans, the warps' totals
/// scanned by warp 0, added back.
template <bool Padded> __global__ void blockScan(const int *In, int *Out) {
  __shared__ int Bufs[8][64];
  __shared__ int Totals[8];
  int Tid = threadIdx.x, Lane = Tid & 31, Warp = Tid >> 5;
  int V = In[blockIdx.x * 256 + Tid];
  int Incl = Padded ? warpScanPadded(Bufs[Warp], Lane, V) : warpScanGuarded(Bufs[Warp], Lane, V);
  if (Lane == 31)
    Totals[Warp] = Incl;
  __syncthreads();
  if (Warp == 0) {
    int T = Lane < 8 ? Totals[Lane] : 0;
    int Scanned = Padded ? warpScanPadded(Bufs[0], Lane, T) : warpScanGuarded(Bufs[0], Lane, T);
    if (Lane < 8)
      Totals[Lane] = Scanned - T;
  }
  __syncthreads();
  Out[blockIdx.x * 256 + Tid] = Incl + Totals[Warp];
}

/// Per warp: how many of its lanes hold a value above the threshold, and
/// the lowest such lane, counted by lane 0 from flags the other lanes have
/// just written (no __syncwarp between).
__global__ void warpVote(const int *In, int Threshold, int *Count, int *First) {
  __shared__ volatile int Flags[256];
  int Tid = threadIdx.x, Lane = Tid & 31, Base = Tid - Lane;
  int G = blockIdx.x * blockDim.x + Tid;
  Flags[Tid] = In[G] > Threshold;
  if (Lane == 0) {
    int C = 0, F = -1;
    for (int L = 31; L >= 0; --L)
      if (Flags[Base + L]) {
        ++C;
        F = L;
      }
    Count[G / 32] = C;
    First[G / 32] = F;
  }
}

template <class T, unsigned B> int checkSum(const char *Name, const std::vector<T> &Host, const T *DIn, T *DOut,
                                            unsigned N, unsigned Grid) {
  blockSum<T, B><<<Grid, B>>>(DIn, DOut, N);
  CHECK(cudaGetLastError());
  std::vector<T> Part(Grid);
  CHECK(cudaMemcpy(Part.data(), DOut, Grid * sizeof(T), cudaMemcpyDeviceToHost));
  T Got = 0, Want = 0;
  for (T P : Part)
    Got += P;
  for (unsigned I = 0; I < N; ++I)
    Want += Host[I];
  if (Got != Want) {
    std::printf("  %s block %u: got %.17g, want %.17g\n", Name, B, double(Got), double(Want));
    return 1;
  }
  return 0;
}

template <class T> int sumsOf(const char *Name, Lcg &Rng, T Scale) {
  const unsigned N = 200003, Grid = 24;
  std::vector<T> Host(N);
  for (T &V : Host)
    V = T(int(Rng.below(100)) - 30) * Scale;
  T *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, N * sizeof(T)));
  CHECK(cudaMalloc(&DOut, Grid * sizeof(T)));
  CHECK(cudaMemcpy(DIn, Host.data(), N * sizeof(T), cudaMemcpyHostToDevice));
  int Wrong = checkSum<T, 32>(Name, Host, DIn, DOut, N, Grid) + checkSum<T, 64>(Name, Host, DIn, DOut, N, Grid) +
              checkSum<T, 128>(Name, Host, DIn, DOut, N, Grid) + checkSum<T, 256>(Name, Host, DIn, DOut, N, Grid) +
              checkSum<T, 1024>(Name, Host, DIn, DOut, N, Grid);
  std::printf("%s block sums, block sizes 32, 64, 128, 256, 1024: %d wrong\n", Name, Wrong);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return Wrong;
}

int main() {
  Lcg Rng(77);
  int Wrong = sumsOf<int>("int", Rng, 1) + sumsOf<double>("double", Rng, 0.125);

  const int ScanBlocks = 64, ScanN = ScanBlocks * 256;
  std::vector<int> In(ScanN), Want(ScanN), Got(ScanN);
  for (int &V : In)
    V = int(Rng.below(1000)) - 300;
  for (int B = 0; B < ScanBlocks; ++B)
    for (int I = 0, Acc = 0; I < 256; ++I)
      Want[B * 256 + I] = Acc += In[B * 256 + I];
  int *DIn, *DOut, *DCount, *DFirst;
  CHECK(cudaMalloc(&DIn, ScanN * sizeof(int)));
  CHECK(cudaMalloc(&DOut, ScanN * sizeof(int)));
  CHECK(cudaMalloc(&DCount, ScanN / 32 * sizeof(int)));
  CHECK(cudaMalloc(&DFirst, ScanN / 32 * sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), ScanN * sizeof(int), cudaMemcpyHostToDevice));
  for (int Padded = 1; Padded >= 0; --Padded) {
    if (Padded)
      blockScan<true><<<ScanBlocks, 256>>>(DIn, DOut);
    else
      blockScan<false><<<ScanBlocks, 256>>>(DIn, DOut);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Got.data(), DOut, ScanN * sizeof(int), cudaMemcpyDeviceToHost));
    int Bad = 0;
    for (int I = 0; I < ScanN; ++I)
      Bad += Got[I] != Want[I];
    std::printf("block scan, %s warp scans: %d of %d wrong\n", Padded ? "padded" : "guarded", Bad, ScanN);
    Wrong += Bad != 0;
  }

  const int Threshold = 550;
  warpVote<<<ScanN / 256, 256>>>(DIn, Threshold, DCount, DFirst);
  CHECK(cudaGetLastError());
  std::vector<int> Count(ScanN / 32), First(ScanN / 32);
  CHECK(cudaMemcpy(Count.data(), DCount, Count.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(First.data(), DFirst, First.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int BadVotes = 0, Total = 0;
  for (int W = 0; W < ScanN / 32; ++W) {
    int C = 0, F = -1;
    for (int L = 31; L >= 0; --L)
      if (In[W * 32 + L] > Threshold)
        ++C, F = L;
    Total += C;
    BadVotes += Count[W] != C || First[W] != F;
  }
  std::printf("shared-memory warp votes: %d lanes above %d, %d of %d warps wrong\n", Total, Threshold, BadVotes,
              ScanN / 32);
  Wrong += BadVotes != 0;
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DCount));
  CHECK(cudaFree(DFirst));
  return finish(Wrong == 0);
}
