/// \file
/// Sum reductions as third-party code writes them, in the style of the
/// classic multi-kernel reduction sample: kernels templated on the element
/// type, the block size and whether n needs no bound check on the second
/// load, instantiated for every power-of-two block size from 1 to 1024 by a
/// switch; dynamic shared memory through a templated `extern __shared__`
/// helper; cooperative groups (`this_thread_block`, `sync`,
/// `tiled_partition`, `shfl_down`, `cg::reduce`); masks from `__ballot_sync`
/// for `__shfl_down_sync`; grid-stride loads; and the partial sums reduced
/// again on the GPU, pass after pass, until one is left. Each (type, kernel,
/// n, block size) case is checked against an exact CPU sum (the float and
/// double inputs are small multiples of a power of two, so every order of
/// addition gives the same sum).
#include "../common/app_util.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstring>
#include <type_traits>
#include <vector>

namespace cg = cooperative_groups;

// One dynamic shared array, seen as T. Declared through int (and through
// double for double) as the samples do, so two instantiations never declare
// the same extern array with two types.
template <class T> struct DynShared {
  __device__ operator T *() {
    extern __shared__ int DynIntWords[];
    return reinterpret_cast<T *>(DynIntWords);
  }
};
template <> struct DynShared<double> {
  __device__ operator double *() {
    extern __shared__ double DynDoubleWords[];
    return DynDoubleWords;
  }
};

// 0: interleaved addressing, divergent branch on a modulo.
template <class T> __global__ void reduceInterleaved(const T *In, T *Out, unsigned N) {
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * blockDim.x + Tid;
  S[Tid] = I < N ? In[I] : T(0);
  cg::sync(Cta);
  for (unsigned Step = 1; Step < blockDim.x; Step *= 2) {
    if (Tid % (2 * Step) == 0)
      S[Tid] += S[Tid + Step];
    cg::sync(Cta);
  }
  if (Tid == 0)
    Out[blockIdx.x] = S[0];
}

// 1: interleaved addressing with a strided index (no modulo).
template <class T> __global__ void reduceStrided(const T *In, T *Out, unsigned N) {
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * blockDim.x + Tid;
  S[Tid] = I < N ? In[I] : T(0);
  cg::sync(Cta);
  for (unsigned Step = 1; Step < blockDim.x; Step *= 2) {
    unsigned At = 2 * Step * Tid;
    if (At < blockDim.x)
      S[At] += S[At + Step];
    cg::sync(Cta);
  }
  if (Tid == 0)
    Out[blockIdx.x] = S[0];
}

// 2: sequential addressing, the first add done while loading, the running
// sum kept in a register.
template <class T> __global__ void reduceFirstAdd(const T *In, T *Out, unsigned N) {
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * (blockDim.x * 2) + Tid;
  T Sum = I < N ? In[I] : T(0);
  if (I + blockDim.x < N)
    Sum += In[I + blockDim.x];
  S[Tid] = Sum;
  cg::sync(Cta);
  for (unsigned Step = blockDim.x / 2; Step > 0; Step >>= 1) {
    if (Tid < Step)
      S[Tid] = Sum = Sum + S[Tid + Step];
    cg::sync(Cta);
  }
  if (Tid == 0)
    Out[blockIdx.x] = Sum;
}

// 3: the last warp through a tile's shfl_down (a tile as wide as the block
// when the block is narrower than a warp).
template <class T, unsigned BlockSize> __global__ void reduceTileShfl(const T *In, T *Out, unsigned N) {
  constexpr unsigned Width = BlockSize < 32 ? BlockSize : 32;
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * (BlockSize * 2) + Tid;
  T Sum = I < N ? In[I] : T(0);
  if (I + BlockSize < N)
    Sum += In[I + BlockSize];
  S[Tid] = Sum;
  cg::sync(Cta);
  for (unsigned Step = blockDim.x / 2; Step > 32; Step >>= 1) {
    if (Tid < Step)
      S[Tid] = Sum = Sum + S[Tid + Step];
    cg::sync(Cta);
  }
  cg::thread_block_tile<Width> Tile = cg::tiled_partition<Width>(Cta);
  if (Cta.thread_rank() < 32) {
    if (BlockSize >= 64)
      Sum += S[Tid + 32];
    for (int Offset = Tile.size() / 2; Offset > 0; Offset /= 2)
      Sum += Tile.shfl_down(Sum, Offset);
  }
  if (Cta.thread_rank() == 0)
    Out[blockIdx.x] = Sum;
}

// 4: completely unrolled on the template block size; the last warp uses
// __shfl_down_sync under a mask from __ballot_sync.
template <class T, unsigned BlockSize> __global__ void reduceUnrolled(const T *In, T *Out, unsigned N) {
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * (BlockSize * 2) + Tid;
  T Sum = I < N ? In[I] : T(0);
  if (I + BlockSize < N)
    Sum += In[I + BlockSize];
  S[Tid] = Sum;
  cg::sync(Cta);
  if (BlockSize >= 1024 && Tid < 512)
    S[Tid] = Sum = Sum + S[Tid + 512];
  cg::sync(Cta);
  if (BlockSize >= 512 && Tid < 256)
    S[Tid] = Sum = Sum + S[Tid + 256];
  cg::sync(Cta);
  if (BlockSize >= 256 && Tid < 128)
    S[Tid] = Sum = Sum + S[Tid + 128];
  cg::sync(Cta);
  if (BlockSize >= 128 && Tid < 64)
    S[Tid] = Sum = Sum + S[Tid + 64];
  cg::sync(Cta);
  unsigned Mask = __ballot_sync(0xffffffffu, Tid < (BlockSize < 32 ? BlockSize : 32));
  if (Tid < 32) {
    if (BlockSize >= 64)
      Sum += S[Tid + 32];
    for (unsigned Offset = 16; Offset > 0; Offset /= 2) {
      T Other = __shfl_down_sync(Mask, Sum, Offset);
      if (Tid + Offset < BlockSize)
        Sum += Other;
    }
  }
  if (Tid == 0)
    Out[blockIdx.x] = Sum;
}

// 5: grid-stride loads, then shuffles within each warp, the warps' sums
// through shared memory, and the first warp reducing those.
template <class T, unsigned BlockSize, bool NoBoundCheck>
__global__ void reduceGridStride(const T *In, T *Out, unsigned N) {
  constexpr unsigned Width = BlockSize < 32 ? BlockSize : 32;
  constexpr unsigned Warps = BlockSize / 32 > 0 ? BlockSize / 32 : 1;
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned GridSize = BlockSize * 2 * gridDim.x;
  unsigned I = blockIdx.x * BlockSize * 2 + Tid;
  T Sum = 0;
  while (I < N) {
    Sum += In[I];
    if (NoBoundCheck || I + BlockSize < N)
      Sum += In[I + BlockSize];
    I += GridSize;
  }
  unsigned Mask = __ballot_sync(0xffffffffu, Tid < BlockSize);
  for (unsigned Offset = Width / 2; Offset > 0; Offset /= 2)
    Sum += __shfl_down_sync(Mask, Sum, Offset);
  if (Tid % 32 == 0)
    S[Tid / 32] = Sum;
  cg::sync(Cta);
  unsigned First = __ballot_sync(Mask, Tid < Warps);
  if (Tid < Warps) {
    Sum = S[Tid];
    for (unsigned Offset = Warps / 2; Offset > 0; Offset /= 2)
      Sum += __shfl_down_sync(First, Sum, Offset);
  }
  if (Tid == 0)
    Out[blockIdx.x] = Sum;
}

// 6: grid-stride loads and cg::reduce over tiles, twice.
template <class T, unsigned BlockSize, bool NoBoundCheck>
__global__ void reduceCg(const T *In, T *Out, unsigned N) {
  constexpr unsigned Width = BlockSize < 32 ? BlockSize : 32;
  cg::thread_block Cta = cg::this_thread_block();
  cg::thread_block_tile<Width> Tile = cg::tiled_partition<Width>(Cta);
  T *S = DynShared<T>();
  unsigned GridSize = BlockSize * 2 * gridDim.x;
  unsigned I = blockIdx.x * BlockSize * 2 + Cta.thread_rank();
  T Sum = 0;
  while (I < N) {
    Sum += In[I];
    if (NoBoundCheck || I + BlockSize < N)
      Sum += In[I + BlockSize];
    I += GridSize;
  }
  Sum = cg::reduce(Tile, Sum, cg::plus<T>());
  if (Tile.thread_rank() == 0)
    S[Tile.meta_group_rank()] = Sum;
  cg::sync(Cta);
  if (Tile.meta_group_rank() == 0) {
    Sum = Tile.thread_rank() < Tile.meta_group_size() ? S[Tile.thread_rank()] : T(0);
    Sum = cg::reduce(Tile, Sum, cg::plus<T>());
    if (Tile.thread_rank() == 0)
      Out[blockIdx.x] = Sum;
  }
}

// 7: as 5, but as the reduction samples write it: each warp sums under a
// mask of the block's lanes in it, always with offsets from 16 down, and
// the warps' sums are reduced by the lanes below the warp count under a
// mask from __ballot_sync. The shuffles then read lanes that do not run
// them (absent in a block narrower than a warp, diverged away in the second
// step): NVIDIA GPUs give 0 for those, and this code is right only so.
template <class T, unsigned BlockSize, bool NoBoundCheck>
__global__ void reduceWarpPartials(const T *In, T *Out, unsigned N) {
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned Short = BlockSize & 31;
  const unsigned Mask = 0xffffffffu >> (Short ? 32 - Short : 0);
  unsigned GridSize = BlockSize * 2 * gridDim.x;
  unsigned I = blockIdx.x * BlockSize * 2 + Tid;
  T Sum = 0;
  while (I < N) {
    Sum += In[I];
    if (NoBoundCheck || I + BlockSize < N)
      Sum += In[I + BlockSize];
    I += GridSize;
  }
  for (int Offset = warpSize / 2; Offset > 0; Offset /= 2)
    Sum += __shfl_down_sync(Mask, Sum, Offset);
  if (Tid % warpSize == 0)
    S[Tid / warpSize] = Sum;
  __syncthreads();
  const unsigned Warps = BlockSize / warpSize > 0 ? BlockSize / warpSize : 1;
  const unsigned First = __ballot_sync(Mask, Tid < Warps);
  if (Tid < Warps) {
    Sum = S[Tid];
    for (int Offset = warpSize / 2; Offset > 0; Offset /= 2)
      Sum += __shfl_down_sync(First, Sum, Offset);
  }
  if (Tid == 0)
    Out[blockIdx.x] = Sum;
}

// 8: as 4, with the last warp's mask a ballot of tid < BlockSize / 2 taken
// by the whole block, then used inside `if (tid < 32)` by lanes it does not
// name: a converged warp exchanges among all its running lanes.
template <class T, unsigned BlockSize> __global__ void reduceBallotMask(const T *In, T *Out, unsigned N) {
  cg::thread_block Cta = cg::this_thread_block();
  T *S = DynShared<T>();
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * (BlockSize * 2) + Tid;
  T Sum = I < N ? In[I] : T(0);
  if (I + BlockSize < N)
    Sum += In[I + BlockSize];
  S[Tid] = Sum;
  cg::sync(Cta);
  for (unsigned Step = BlockSize / 2; Step > 32; Step >>= 1) {
    if (Tid < Step)
      S[Tid] = Sum = Sum + S[Tid + Step];
    cg::sync(Cta);
  }
  unsigned Mask = __ballot_sync(0xffffffffu, int(Tid) < int(BlockSize / 2));
  if (Tid < 32) {
    if (BlockSize >= 64)
      Sum += S[Tid + 32];
    for (int Offset = 16; Offset > 0; Offset /= 2)
      Sum += __shfl_down_sync(Mask, Sum, Offset);
  }
  if (Tid == 0)
    Out[blockIdx.x] = Sum;
}

constexpr int Kernels = 9;
const char *KernelNames[Kernels] = {"interleaved", "strided",    "first-add",     "tile-shfl",  "unrolled",
                                    "grid-stride", "cg-reduce", "warp-partials", "ballot-mask"};
constexpr unsigned MaxGridStrideBlocks = 64;

template <class T> using KernelFn = void (*)(const T *, T *, unsigned);

/// Whether kernel K runs for type T. Every kernel runs for int; float and
/// double add the kernels that do not depend on the block size and the
/// warp-partials one, which keeps the JIT's work (one instantiation per
/// block size) within the matrix's time.
template <class T> bool offered(int K) { return std::is_same<T, int>::value || K < 3 || K == 7; }

template <class T, unsigned B> KernelFn<T> pickSized(int K, bool NoBoundCheck) {
  if constexpr (!std::is_same<T, int>::value)
    return reduceWarpPartials<T, B, false>;
  else
    switch (K) {
    case 3: return reduceTileShfl<T, B>;
    case 4: return reduceUnrolled<T, B>;
    case 5: return NoBoundCheck ? reduceGridStride<T, B, true> : reduceGridStride<T, B, false>;
    case 6: return reduceCg<T, B, false>;
    case 7: return reduceWarpPartials<T, B, false>;
    default: return reduceBallotMask<T, B>;
    }
}

template <class T> KernelFn<T> pick(int K, unsigned Block, bool NoBoundCheck) {
  switch (K) {
  case 0: return reduceInterleaved<T>;
  case 1: return reduceStrided<T>;
  case 2: return reduceFirstAdd<T>;
  }
  switch (Block) {
  case 1: return pickSized<T, 1>(K, NoBoundCheck);
  case 2: return pickSized<T, 2>(K, NoBoundCheck);
  case 4: return pickSized<T, 4>(K, NoBoundCheck);
  case 8: return pickSized<T, 8>(K, NoBoundCheck);
  case 16: return pickSized<T, 16>(K, NoBoundCheck);
  case 32: return pickSized<T, 32>(K, NoBoundCheck);
  case 64: return pickSized<T, 64>(K, NoBoundCheck);
  case 128: return pickSized<T, 128>(K, NoBoundCheck);
  case 256: return pickSized<T, 256>(K, NoBoundCheck);
  case 512: return pickSized<T, 512>(K, NoBoundCheck);
  default: return pickSized<T, 1024>(K, NoBoundCheck);
  }
}

unsigned nextPow2(unsigned X) {
  unsigned P = 1;
  while (P < X)
    P *= 2;
  return P;
}

/// Threads and blocks for one pass over N values, as the samples choose
/// them: the block no wider than needed, each thread adding two values
/// except in the kernels that load one.
void shapeFor(int K, unsigned N, unsigned MaxThreads, unsigned &Threads, unsigned &Blocks) {
  if (K < 2) {
    // One value per thread: a block of one would never shrink the count.
    if (MaxThreads < 2)
      MaxThreads = 2;
    Threads = N < MaxThreads ? nextPow2(N) : MaxThreads;
    Blocks = (N + Threads - 1) / Threads;
    return;
  }
  Threads = N < MaxThreads * 2 ? nextPow2((N + 1) / 2) : MaxThreads;
  Blocks = (N + Threads * 2 - 1) / (Threads * 2);
  if ((K == 5 || K == 6 || K == 7) && Blocks > MaxGridStrideBlocks)
    Blocks = MaxGridStrideBlocks;
}

/// Sums DIn[0, N) on the GPU, pass after pass, ping-ponging between two
/// scratch buffers.
template <class T> T gpuSum(int K, const T *DIn, unsigned N, unsigned MaxThreads, T *DA, T *DB) {
  const T *Src = DIn;
  T *Dst = DA;
  unsigned Count = N;
  do {
    unsigned Threads, Blocks;
    shapeFor(K, Count, MaxThreads, Threads, Blocks);
    bool NoBoundCheck = Count % (Threads * 2) == 0;
    size_t Smem = (Threads < 64 ? 64 : Threads) * sizeof(T);
    pick<T>(K, Threads, NoBoundCheck)<<<Blocks, Threads, Smem>>>(Src, Dst, Count);
    CHECK(cudaGetLastError());
    Src = Dst;
    Dst = Dst == DA ? DB : DA;
    Count = Blocks;
  } while (Count > 1);
  T Result;
  CHECK(cudaMemcpy(&Result, Src, sizeof(T), cudaMemcpyDeviceToHost));
  return Result;
}

template <class T> T valueAt(Lcg &Rng);
template <> int valueAt<int>(Lcg &Rng) { return int(Rng.below(256)) - 64; }
template <> float valueAt<float>(Lcg &Rng) { return float(Rng.below(16)); }
template <> double valueAt<double>(Lcg &Rng) { return double(Rng.below(64)) * 0.25 - 4.0; }

template <class T> int runType(const char *TypeName, unsigned long long &Check, int Only) {
  const unsigned Sizes[] = {1, 2, 3, 17, 32, 33, 100, 1000, 1024, 4097, 65536, 100003};
  const unsigned MaxN = 100003;
  std::vector<T> In(MaxN);
  Lcg Rng(sizeof(T) * 7 + 1);
  for (T &V : In)
    V = valueAt<T>(Rng);
  T *DIn, *DA, *DB;
  CHECK(cudaMalloc(&DIn, MaxN * sizeof(T)));
  CHECK(cudaMalloc(&DA, MaxN * sizeof(T)));
  CHECK(cudaMalloc(&DB, MaxN * sizeof(T)));
  CHECK(cudaMemcpy(DIn, In.data(), MaxN * sizeof(T), cudaMemcpyHostToDevice));
  int Wrong = 0;
  for (int K = 0; K < Kernels; ++K) {
    if ((Only >= 0 && K != Only) || !offered<T>(K))
      continue;
    int Cases = 0, KernelWrong = 0;
    for (unsigned N : Sizes) {
      T Want = 0;
      for (unsigned I = 0; I < N; ++I)
        Want += In[I];
      for (unsigned MaxThreads = 1; MaxThreads <= 1024; MaxThreads *= 2) {
        // Thousands of one-thread blocks add nothing the small sizes miss.
        if (K < 2 && N / MaxThreads > 8192)
          continue;
        T Got = gpuSum<T>(K, DIn, N, MaxThreads, DA, DB);
        ++Cases;
        if (Got != Want) {
          if (KernelWrong < 3)
            std::printf("  %s %s n=%u max threads %u: got %.17g, want %.17g\n", TypeName, KernelNames[K], N,
                        MaxThreads, double(Got), double(Want));
          ++KernelWrong;
        }
        Check = Check * 1000003 + (unsigned long long)(long long)(double(Want) * 4);
      }
    }
    std::printf("%s %-13s: %d cases, %d wrong\n", TypeName, KernelNames[K], Cases, KernelWrong);
    Wrong += KernelWrong;
  }
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DA));
  CHECK(cudaFree(DB));
  return Wrong;
}

// With arguments TYPE KERNEL (for debugging), only those cases run.
int main(int Argc, char **Argv) {
  const char *Type = Argc > 1 ? Argv[1] : "all";
  int Only = Argc > 2 ? std::atoi(Argv[2]) : -1;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  unsigned long long Check = 0;
  int Wrong = 0;
  if (!std::strcmp(Type, "all") || !std::strcmp(Type, "int"))
    Wrong += runType<int>("int", Check, Only);
  if (!std::strcmp(Type, "all") || !std::strcmp(Type, "float"))
    Wrong += runType<float>("float", Check, Only);
  if (!std::strcmp(Type, "all") || !std::strcmp(Type, "double"))
    Wrong += runType<double>("double", Check, Only);
  std::printf("reference checksum %016llx\n", Check);
  std::printf("%d wrong sums\n", Wrong);
  return finish(Wrong == 0);
}
