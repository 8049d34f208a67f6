// Kernels of the warp-vectorizer execution tests (tests/warp): each one
// stresses a construct host/jit/Vectorize.cpp must turn into masked vector
// code (divergent joins, loops with per-lane exits, early returns, switch,
// private arrays, warp collectives under partial masks, atomics, tiles with
// barriers, partial warps, 3-D and narrow blocks, f16x2, f64). WarpExecTest
// runs each on the warp path and on the per-thread path and compares both
// with a C++ reference. kernels.ptx is generated from this file:
//   /usr/local/cuda/bin/nvcc -arch=sm_80 -ptx kernels.cu -o kernels.ptx
#include <cuda_fp16.h>
#include <climits>

#define FULL 0xffffffffu

__device__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// If/else chains and a nested if on a per-lane value; the joins merge
// several values (phis) that the stores after them read.
extern "C" __global__ void divergent_ifelse(const int *In, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int X = In[I], Y, Z = 1;
  if (X % 3 == 0) {
    Y = X * 2;
    if (X & 4)
      Z = X - 11;
    else
      Z = X ^ 0x55;
  } else if (X % 3 == 1) {
    Y = X - 7;
    Z = Y * Y;
  } else {
    Y = -X;
  }
  Out[2 * I] = Y + Z;
  Out[2 * I + 1] = (X > 50) ? Y : Z;
}

// Nested loops with per-lane trip counts, break and continue in both, and
// values that leave the loops at different iterations per lane.
extern "C" __global__ void nested_loops(const int *Trip, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int T = Trip[I], Acc = 0, Last = -1, A;
  for (A = 0; A < T; ++A) {
    if ((A + I) % 5 == 0)
      continue;
    int Inner = (T ^ A) % 7;
    for (int B = 0; B < Inner; ++B) {
      if (B * A > 20 + I % 13)
        break;
      if (((B + I) & 3) == 1)
        continue;
      Acc += A * 3 + B;
      Last = B;
    }
    if (Acc > 200 + I)
      break;
  }
  // A while loop whose exit value is live out (Collatz steps).
  unsigned C = unsigned(T) + 1, Steps = 0;
  while (C != 1 && Steps < 500) {
    C = (C & 1) ? 3 * C + 1 : C / 2;
    ++Steps;
  }
  Out[4 * I] = Acc;
  Out[4 * I + 1] = Last;
  Out[4 * I + 2] = A;
  Out[4 * I + 3] = int(Steps);
}

// Some lanes (and some whole warps) return early, before later code and
// before a __syncthreads() that the others reach.
extern "C" __global__ void early_return_sync(const int *In, int *Out, int *Out2) {
  __shared__ int S[256], S2[256];
  unsigned T = threadIdx.x, Nt = blockDim.x;
  int I = gid();
  S[T] = In[I];
  S2[T] = -1;
  __syncthreads();
  int V = S[(T + 1) % Nt];
  if (V < 0)
    return;
  Out[I] = V * 3 + 1;
  __syncthreads();
  S2[T] = V * 2;
  __syncthreads();
  Out2[I] = S2[(T + 3) % Nt];
}

// A switch on a per-lane value, with a fallthrough and a default.
extern "C" __global__ void switch_lane(const int *In, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int X = In[I], R;
  switch (X & 7) {
  case 0:
    R = X * 5;
    break;
  case 1:
    R = X + 100;
    break;
  case 2:
    X += 3;
    [[fallthrough]];
  case 3:
    R = X * X;
    break;
  case 5:
    R = -X;
    break;
  default:
    R = X >> 1;
    break;
  }
  Out[I] = R;
}

// A loop with a uniform trip count around divergent code.
extern "C" __global__ void uniform_loop(const float *In, float *Out, int Iters, int N) {
  int I = gid();
  if (I >= N)
    return;
  float X = In[I];
  for (int K = 0; K < Iters; ++K) {
    if (((I + K) & 3) == 0)
      X = X * 0.5f + float(K);
    else if (X > 10.0f)
      X -= 3.0f;
    else
      X += 1.0f;
  }
  Out[I] = X;
}

// A private array indexed by per-lane indices.
extern "C" __global__ void private_array(const int *In, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int A[16];
  int X = In[I];
  for (int K = 0; K < 16; ++K)
    A[K] = X * K + K * K;
  int Idx = X & 15, J = (Idx * 7) & 15;
  int Tmp = A[Idx];
  A[Idx] = A[J];
  A[J] = Tmp;
  if (X & 16)
    A[(X >> 5) & 15] += 1000;
  int Sum = 0;
  for (int K = 0; K < 16; ++K)
    Sum += A[K] * (K + 1);
  Out[2 * I] = Sum;
  Out[2 * I + 1] = A[(Idx + 3) & 15];
}

// A grid-stride loop (N is not a multiple of the grid size).
extern "C" __global__ void grid_stride(const float *A, const float *B, float *Out, int N) {
  for (int I = gid(); I < N; I += blockDim.x * gridDim.x)
    Out[I] = A[I] * 2.0f + B[I];
}

// A grid-stride sum reduced with shuffles, one atomicAdd per warp (the
// benchmark's reduction): its loop's value lives out of the loop.
extern "C" __global__ void grid_stride_sum(const float *In, float *Out, int N) {
  float Sum = 0.0f;
  for (int I = gid(); I < N; I += blockDim.x * gridDim.x)
    Sum += In[I];
  for (int Off = 16; Off > 0; Off /= 2)
    Sum += __shfl_down_sync(FULL, Sum, Off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(Out, Sum);
}

// Shuffles with constant offsets and widths (int, float and double).
extern "C" __global__ void shfl_const(const int *In, int *Out, double *OutD) {
  int I = gid();
  int V = In[I];
  int *O = Out + 10 * I;
  O[0] = __shfl_sync(FULL, V, 3);
  O[1] = __shfl_up_sync(FULL, V, 1);
  O[2] = __shfl_down_sync(FULL, V, 5);
  O[3] = __shfl_xor_sync(FULL, V, 6);
  O[4] = __shfl_sync(FULL, V, 2, 8);
  O[5] = __shfl_up_sync(FULL, V, 3, 16);
  O[6] = __shfl_down_sync(FULL, V, 1, 4);
  O[7] = __shfl_xor_sync(FULL, V, 1, 8);
  O[8] = __float_as_int(__shfl_xor_sync(FULL, float(V) * 0.25f, 17));
  O[9] = __shfl_sync(FULL, V, 37); // lane 37 & 31
  OutD[I] = __shfl_down_sync(FULL, double(V) * 1.5 + 1e10, 7);
}

// Shuffles with runtime offsets and widths: per lane (Offs) and uniform
// variables (U, Wd), then partial member masks in divergent branches.
extern "C" __global__ void shfl_var(const int *In, const int *Offs, int *Out, int U, int Wd) {
  int I = gid();
  int V = In[I], Off = Offs[I];
  unsigned Lane = threadIdx.x & 31;
  int *O = Out + 10 * I;
  O[0] = __shfl_sync(FULL, V, Off);
  O[1] = __shfl_up_sync(FULL, V, Off & 7);
  O[2] = __shfl_down_sync(FULL, V, U);
  O[3] = __shfl_xor_sync(FULL, V, U, Wd);
  O[4] = __shfl_sync(FULL, V, Off, Wd);
  O[5] = __shfl_xor_sync(FULL, V, Off & 3, 1 << (Lane % 6)); // per-lane width
  if (Lane < 16)
    O[6] = __shfl_xor_sync(0x0000ffffu, V, 1);
  else
    O[6] = __shfl_down_sync(0xffff0000u, V, 2, 16);
  O[7] = __shfl_up_sync(FULL, V, U, Wd);
  if (Lane % 3 == 0) { // every third lane: a rotation among them
    unsigned M = 0x49249249u;
    int Src = (Lane + 3) % 33;
    O[8] = __shfl_sync(M, V, Src);
  } else {
    O[8] = -1;
  }
  if (V & 1) { // a data-dependent side: broadcast from its first lane
    unsigned M = __activemask();
    O[9] = __shfl_sync(M, V * 10, __ffs(M) - 1);
  } else {
    O[9] = 0;
  }
}

// Votes and activemask in divergent branches (and full-warp ones).
extern "C" __global__ void votes(const int *In, unsigned *Out) {
  int I = gid();
  int V = In[I];
  unsigned *O = Out + 6 * I;
  O[0] = __ballot_sync(FULL, V & 1);
  if (V % 3 == 0) {
    unsigned M = __activemask();
    O[1] = M;
    O[2] = __ballot_sync(M, V > 50);
    O[3] = __any_sync(M, V > 90);
    O[4] = __all_sync(M, V < 80);
  } else {
    unsigned M = __activemask();
    O[1] = M;
    O[2] = __ballot_sync(M, V < 20);
    O[3] = __any_sync(M, V == 7);
    O[4] = __all_sync(M, V != 1000);
  }
  O[5] = __all_sync(FULL, V >= 0);
}

// match.any / match.all (32 and 64 bits), full and in a divergent branch.
extern "C" __global__ void matches(const int *In, unsigned *Out) {
  int I = gid();
  int V = In[I];
  unsigned *O = Out + 5 * I;
  O[0] = __match_any_sync(FULL, V);
  int Pred;
  O[1] = __match_all_sync(FULL, V >> 4, &Pred);
  O[2] = Pred;
  if (V & 2) {
    unsigned M = __activemask();
    O[3] = __match_any_sync(M, (long long)(V & 1) << 40);
    O[4] = __match_all_sync(M, V & 2, &Pred) | Pred;
  } else {
    O[3] = __match_any_sync(__activemask(), V % 3);
    O[4] = 7;
  }
}

// redux.sync (sm_80), full and in a divergent branch.
extern "C" __global__ void reduxes(const int *In, int *Out) {
  int I = gid();
  int V = In[I];
  int *O = Out + 8 * I;
  O[0] = __reduce_add_sync(FULL, V);
  O[1] = __reduce_min_sync(FULL, V);
  O[2] = __reduce_max_sync(FULL, V);
  O[3] = int(__reduce_min_sync(FULL, unsigned(V)));
  O[4] = int(__reduce_max_sync(FULL, unsigned(V)));
  if (V > 0) {
    unsigned M = __activemask();
    O[5] = __reduce_add_sync(M, V);
    O[6] = int(__reduce_and_sync(M, unsigned(V)));
    O[7] = int(__reduce_or_sync(M, unsigned(V)) ^ __reduce_xor_sync(M, unsigned(V)));
  } else {
    unsigned M = __activemask();
    O[5] = __reduce_max_sync(M, V);
    O[6] = __reduce_min_sync(M, V);
    O[7] = 0;
  }
}

// Atomics on shared and global memory from divergent code, many lanes to
// one address: atomicAdd, atomicMax, an atomicCAS loop and tickets.
extern "C" __global__ void atomics(const int *In, int *Hist, int *Sum, int *Max, unsigned *Xor, int *Tickets,
                                   int *Counter) {
  __shared__ int Sh[8];
  __shared__ int SMax;
  unsigned T = threadIdx.x;
  if (T < 8)
    Sh[T] = 0;
  if (T == 0)
    SMax = INT_MIN;
  __syncthreads();
  int I = gid();
  int V = In[I];
  if (V & 1) {
    atomicAdd(&Sh[V & 7], 1);
    atomicAdd(Sum, V);
  } else {
    atomicMax(&SMax, V);
    atomicMax(Max, V);
  }
  if (V % 5 == 0) {
    unsigned Old = *(volatile unsigned *)Xor, Assumed;
    do {
      Assumed = Old;
      Old = atomicCAS(Xor, Assumed, Assumed ^ (unsigned(V) * 2654435761u));
    } while (Assumed != Old);
  }
  if (V % 4 != 3)
    Tickets[atomicAdd(Counter, 1)] = I;
  __syncthreads();
  if (T < 8)
    atomicAdd(&Hist[T], Sh[T]);
  if (T == 0)
    atomicMax(&Hist[8], SMax);
}

// C = A * B with shared tiles of blockDim.y x 16 (A) and 16 x blockDim.x
// (B), loaded cooperatively, a barrier after each load and each use.
extern "C" __global__ void tiled_matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  const int TK = 16;
  __shared__ float As[32][TK + 1], Bs[TK][33];
  int Tx = threadIdx.x, Ty = threadIdx.y, Bx = blockDim.x, By = blockDim.y;
  int Row = blockIdx.y * By + Ty, Col = blockIdx.x * Bx + Tx;
  int Lin = Ty * Bx + Tx, Nt = Bx * By;
  float Acc = 0.0f;
  for (int K0 = 0; K0 < K; K0 += TK) {
    for (int E = Lin; E < By * TK; E += Nt) {
      int R = E / TK, Cc = E % TK, GR = blockIdx.y * By + R, GC = K0 + Cc;
      As[R][Cc] = (GR < M && GC < K) ? A[GR * K + GC] : 0.0f;
    }
    for (int E = Lin; E < TK * Bx; E += Nt) {
      int R = E / Bx, Cc = E % Bx, GR = K0 + R, GC = blockIdx.x * Bx + Cc;
      Bs[R][Cc] = (GR < K && GC < N) ? B[GR * N + GC] : 0.0f;
    }
    __syncthreads();
    for (int Kk = 0; Kk < TK; ++Kk)
      Acc += As[Ty][Kk] * Bs[Kk][Tx];
    __syncthreads();
  }
  if (Row < M && Col < N)
    C[Row * N + Col] = Acc;
}

// The textbook 16x16-tiled SGEMM (M, N, K multiples of 16), small enough
// for a group function: a 16x16 block is then one 256-lane function whose
// __syncthreads() are skipped. Each step ends with a column sum of the B
// tile, halving over threadIdx.y between barriers (divergent lanes in the
// same function as the barriers), added in as well.
extern "C" __global__ void tile16_matmul(const float *A, const float *B, float *C, int N, int K) {
  __shared__ float As[16][16], Bs[16][16];
  int Tx = threadIdx.x, Ty = threadIdx.y;
  int Row = blockIdx.y * 16 + Ty, Col = blockIdx.x * 16 + Tx;
  float Acc = 0.0f;
  for (int K0 = 0; K0 < K; K0 += 16) {
    As[Ty][Tx] = A[Row * K + K0 + Tx];
    Bs[Ty][Tx] = B[(K0 + Ty) * N + Col];
    __syncthreads();
    for (int Kk = 0; Kk < 16; ++Kk)
      Acc += As[Ty][Kk] * Bs[Kk][Tx];
    __syncthreads();
    for (int S = 8; S > 0; S >>= 1) {
      if (Ty < S)
        Bs[Ty][Tx] += Bs[Ty + S][Tx];
      __syncthreads();
    }
    Acc += Bs[0][Tx];
    __syncthreads();
  }
  C[Row * N + Col] = Acc;
}

// Out = In^T through a shared tile of blockDim.y x blockDim.x; the tile is
// written back in a different thread order (rectangular tiles too).
extern "C" __global__ void tiled_transpose(const int *In, int *Out, int Rows, int Cols) {
  __shared__ int Tile[32][33];
  int Tx = threadIdx.x, Ty = threadIdx.y, Bx = blockDim.x, By = blockDim.y;
  int R0 = blockIdx.y * By, C0 = blockIdx.x * Bx;
  if (R0 + Ty < Rows && C0 + Tx < Cols)
    Tile[Ty][Tx] = In[(R0 + Ty) * Cols + C0 + Tx];
  __syncthreads();
  // Out is Cols x Rows; this block writes rows C0..C0+Bx, columns R0..R0+By.
  int Lin = Ty * Bx + Tx, R = Lin / By, Cc = Lin % By;
  if (C0 + R < Cols && R0 + Cc < Rows)
    Out[(C0 + R) * Rows + R0 + Cc] = Tile[Cc][R];
}

// Blocks of 48 threads (a partial second warp), N not a multiple of 48:
// warp collectives over the lanes that exist.
extern "C" __global__ void partial_warp(const int *In, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int V = In[I];
  unsigned M = __activemask();
  int *O = Out + 4 * I;
  O[0] = int(M);
  O[1] = int(__ballot_sync(M, V > 0));
  O[2] = __reduce_add_sync(M, V);
  int Src = __ffs(M) - 1 + ((threadIdx.x + 1) & 31) % __popc(M);
  O[3] = __shfl_sync(M, V, Src);
}

// 3-D blocks: indices, a barrier through shared memory in z-y-x order and
// a shuffle across the y/z boundary of a warp.
extern "C" __global__ void block3d(int *Out) {
  __shared__ int S[512];
  int Tx = threadIdx.x, Ty = threadIdx.y, Tz = threadIdx.z;
  int Lin = Tx + blockDim.x * (Ty + blockDim.y * Tz), Nt = blockDim.x * blockDim.y * blockDim.z;
  int B = blockIdx.x + gridDim.x * blockIdx.y;
  int V = Tz * 100 + Ty * 10 + Tx + 1000 * B;
  S[Lin] = V;
  __syncthreads();
  int *O = Out + 3 * (B * Nt + Lin);
  O[0] = V;
  O[1] = S[Nt - 1 - Lin];
  O[2] = __shfl_xor_sync(FULL, V, 9);
}

// f16x2 arithmetic with a divergent step.
extern "C" __global__ void half2_math(const __half2 *A, const __half2 *B, const __half2 *C, __half2 *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  __half2 a = A[I], b = B[I], c = C[I];
  __half2 R = __hfma2(a, b, c);
  R = __hadd2(R, __hmul2(a, a));
  if (I & 1)
    R = __hsub2(R, b);
  Out[I] = R;
}

// f64 sqrt, fma and division in divergent lanes.
extern "C" __global__ void double_math(const double *A, const double *B, double *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  double a = A[I], b = B[I], R;
  if (a > 0.0)
    R = sqrt(a);
  else
    R = fma(a, b, 1.0);
  Out[2 * I] = R / b;
  Out[2 * I + 1] = fma(R, R, -a);
}

// Device printf from a few lanes in divergent code.
extern "C" __global__ void printf_lanes(const int *In, int N) {
  int I = gid();
  if (I >= N)
    return;
  int V = In[I];
  if (V % 7 == 3)
    printf("warp-test lane %d v=%d\n", I, V);
  else if (V == 11)
    printf("warp-test eleven at %d\n", I);
}

// A search loop left by `return` from inside (per-lane exits through the
// function's end), with uniform loads in the divergent loop.
extern "C" __global__ void loop_return(const int *In, const int *Table, int *Out, int Len, int N) {
  int I = gid();
  if (I >= N)
    return;
  int V = In[I];
  for (int K = 0; K < Len; ++K)
    if (Table[K] == V) {
      Out[I] = K * 2 + (V & 1);
      return;
    }
  Out[I] = -1 - V;
}

// Shared-memory reads at affine addresses that are not the lanes' own
// words: stride 2, an offset of one, reversed, and a per-lane mix.
extern "C" __global__ void shared_strided(const int *In, int *Out) {
  __shared__ int S[512];
  int T = threadIdx.x, I = gid();
  S[T] = In[I];
  S[T + 256] = In[I] * 3;
  __syncthreads();
  int *O = Out + 4 * I;
  O[0] = S[2 * T];
  O[1] = S[T + 1];
  O[2] = S[255 - T];
  O[3] = (T & 1) ? S[(T * 5) & 511] : S[T + 200];
}

// Hillis-Steele scan in shared memory: S[t - d] only where t >= d, the low
// lanes of the first warp masked off. (Where S lies at shared offset 0, as
// in compat's stream_compaction, lane 0's 32-bit address wraps below zero;
// here other kernels' variables come first, so it does not.)
extern "C" __global__ void shared_scan(const int *In, int *Out, int N) {
  __shared__ int S[1024];
  int T = threadIdx.x;
  S[T] = T < N ? In[T] : 0;
  __syncthreads();
  for (int D = 1; D < 1024; D <<= 1) {
    int V = T >= D ? S[T - D] : 0;
    __syncthreads();
    S[T] += V;
    __syncthreads();
  }
  if (T < N)
    Out[T] = T ? S[T - 1] : 0;
}

// Warp collectives inside a loop, in 256-thread blocks: the kernel gets a
// 128-lane group function, whose collectives work per 32-lane warp.
// Shuffles with a constant, a uniform variable and a per-lane source;
// ballot, any, all and redux over full warps; activemask in a branch.
extern "C" __global__ void loop_collectives(const int *In, int *Out, int Iters) {
  int I = gid();
  int Total = gridDim.x * blockDim.x;
  unsigned Lane = threadIdx.x & 31;
  int Sh = 0, Var = 0, Any = 0, All = 0, Red = 0;
  unsigned Bal = 0, Act = 0;
  for (int K = 0; K < Iters; ++K) {
    int V = In[(I + K * 37) % Total];
    Sh += __shfl_down_sync(FULL, V, 1 + K % 3) + __shfl_xor_sync(FULL, V, 4);
    Var += __shfl_sync(FULL, V, (Lane * 7 + K) & 31);
    Bal ^= __ballot_sync(FULL, (V + K) & 1);
    Any += __any_sync(FULL, V > 90 + K);
    All += __all_sync(FULL, V > K);
    Red += __reduce_add_sync(FULL, V);
    if (V & 1)
      Act ^= __activemask();
  }
  int *O = Out + 7 * I;
  O[0] = Sh, O[1] = Var, O[2] = int(Bal), O[3] = Any, O[4] = All, O[5] = Red, O[6] = int(Act);
}

// A search that returns from inside three nested loops with an index
// uniform per block: the exit leaves every loop at once (a uniform exit,
// nothing captured per lane) and its live-outs are the loops' header
// values I, J, K, which the latch of each loop must not move on after the
// exit. Run by every thread, and by one lane inside a divergent branch.
__device__ void search_split(int Index, int &I, int &J, int &K) {
  int N = 0;
#pragma unroll 1
  for (I = 0; I <= 16; ++I)
#pragma unroll 1
    for (J = I; J <= 16; ++J)
#pragma unroll 1
      for (K = J; K <= 16; ++K)
        if (N++ == Index)
          return;
}

extern "C" __global__ void uniform_search_return(const int *Idx, int *Out) {
  int I, J, K;
  int Index = Idx[blockIdx.x];
  int *O = Out + 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  search_split(Index, I, J, K);
  O[0] = I * 10000 + J * 100 + K;
  O[1] = -1;
  if (threadIdx.x == Index % blockDim.x) {
    search_split(Index + 7, I, J, K);
    O[1] = I * 10000 + J * 100 + K;
  }
}

// Warp sums whose shuffles read lanes that take no part. O[0]: the CUDA
// reduction sample's pattern, a mask of the lanes below Ext and offsets
// from 16 down; lanes at or above Ext diverged away (or do not exist in a
// partial warp) and give 0. O[1]: a mask from a ballot of lane < 16 used
// by the whole converged warp; the lanes outside it still give their
// values.
extern "C" __global__ void shfl_absent_sources(const int *In, int *Out, int Ext) {
  int T = threadIdx.x;
  int G = blockIdx.x * blockDim.x + T;
  int V = In[G];
  int *O = Out + 2 * G;
  unsigned Bal = __ballot_sync(FULL, T % 32 < Ext);
  int S = -1;
  if (T % 32 < Ext) {
    S = V;
    for (int Off = 16; Off > 0; Off /= 2)
      S += __shfl_down_sync(Bal, S, Off);
  }
  O[0] = S;
  unsigned Half = __ballot_sync(FULL, T % 32 < 16);
  int R = V;
  for (int Off = 16; Off > 0; Off /= 2)
    R += __shfl_down_sync(Half, R, Off);
  O[1] = R;
}

// Values that rotate through registers in a loop (a column walk keeping the
// cells below, at and above: below = here; here = above; above = load) and
// are read after it. After the loop, "below" and "here" are the loop
// header's phis as they were in the last iteration, not as the latch left
// them for the next one. The trip count is uniform, so is the loop's exit.
extern "C" __global__ void rotate_live_out(const float *In, float *Out, int Len, int N) {
  int I = gid();
  if (I >= N)
    return;
  float Below = In[I], Here = In[I + N], Above = In[I + 2 * N];
  int Z = 3;
#pragma unroll 1
  for (; Z < Len; ++Z) {
    Below = Here;
    Here = Above;
    Above = In[I + Z * N];
    Out[I + Z * N] = Below + 2.0f * Here + 4.0f * Above;
  }
  Out[I] = Below;
  Out[I + N] = Here;
  Out[I + 2 * N] = Above + float(Z);
}

// An unsigned index with a run-time stride that wraps below zero in a lane
// the mask turns off (CUB's scan-by-key init kernel reads the key before
// each tile: keys[tile * items - 1] for tile > 0). Lane 0 of block 0 holds
// 0xffffffff; the other lanes must not be offset by 2^32.
extern "C" __global__ void unsigned_stride_wrap(const int *In, int *Out, unsigned Stride, int N) {
  int I = gid();
  if (I > 0 && unsigned(I) < unsigned(N))
    Out[I] = In[unsigned(I) * Stride - 1];
}

// A grid-stride copy of a 32-byte struct: two 16-byte vector loads and
// stores per element. nvcc unrolls the loop by four after a remainder loop
// whose trip count differs per lane, so the unrolled loop's addresses vary
// freely over the lanes: vector accesses at scattered places.
struct __align__(16) Quad {
  float X, Y, Z, W;
};
struct __align__(16) QuadPair {
  Quad A, B;
};
extern "C" __global__ void struct32_grid_copy(const QuadPair *In, QuadPair *Out, int N) {
  for (int I = gid(); I < N; I += blockDim.x * gridDim.x)
    Out[I] = In[I];
}

// A large private array indexed by a lane value: its 32 copies in a warp
// function (4 KiB each) pass MaxWarpFrameBytes, so the warp and group
// variants must be left out and the per-thread path run the launch.
extern "C" __global__ void big_private_array(const int *In, int *Out, int N) {
  int I = gid();
  if (I >= N)
    return;
  int A[4096];
  for (int K = 0; K < 4096; ++K)
    A[K] = In[I] * K + (K ^ I);
  int Sum = 0;
  for (int K = 0; K < 64; ++K)
    Sum += A[(In[I] + 61 * K) & 4095];
  Out[I] = Sum;
}

// Byte and 16-bit elements at scattered places. nvcc unrolls the
// grid-stride copy four times after a remainder loop whose trip count
// differs per lane, so the unrolled loop's addresses vary freely over the
// lanes: byte gathers and scatters, which x86 lacks (the vectorizer reads
// the words that hold them and stores them in a loop). The two-byte struct
// is copied as two u8 accesses at a stride of two.
struct Bytes2 {
  unsigned char A, B;
};
extern "C" __global__ void subword_grid_copy(const unsigned char *In8, unsigned char *Out8,
                                             const unsigned short *In16, unsigned short *Out16,
                                             const Bytes2 *In2, Bytes2 *Out2, int N) {
  for (int I = gid(); I < N; I += blockDim.x * gridDim.x)
    Out8[I] = In8[I];
  for (int I = gid(); I < N / 2; I += blockDim.x * gridDim.x)
    Out16[I] = In16[I];
  for (int I = gid(); I < N / 2; I += blockDim.x * gridDim.x)
    Out2[I] = In2[I];
}

// Sub-word gathers and scatters through a permutation, under a divergent
// branch (partial masks), at every byte offset within a word: In8 is read
// at Perm[I] and the byte written at Perm[I] ^ 1; halves and shorts go the
// same way.
extern "C" __global__ void subword_permute(const unsigned char *In8, unsigned char *Out8,
                                           const __half *InH, __half *OutH, const short *In16,
                                           short *Out16, const int *Perm, int N) {
  int I = gid();
  if (I >= N)
    return;
  int P = Perm[I];
  if (P % 3 != 0) {
    Out8[P ^ 1] = In8[P] + 1;
    OutH[P ^ 1] = __hadd(InH[P], __float2half(1.0f));
  } else {
    Out16[P ^ 1] = In16[P] - 3;
  }
}

// A recursive device function (a tree walk of depth In[I] % 24), which the
// vectorizer cannot inline: it must refuse the kernel at once, and the
// per-thread path runs the recursion on the fiber stack.
__device__ __noinline__ int recursive_walk(int X, int Depth) {
  if (Depth == 0)
    return X & 0xff;
  int Left = recursive_walk(X * 3 + 1, Depth - 1);
  return (Left ^ (X >> 2)) + Depth;
}
extern "C" __global__ void recursive_device_function(const int *In, int *Out, int N) {
  int I = gid();
  if (I < N)
    Out[I] = recursive_walk(In[I], In[I] % 24);
}

// Lanes that skip a branch reach a collective after it while the lanes
// inside are still at their own collectives (a loop of shuffles over the
// branch's active mask): the per-thread path must not complete the later
// shuffle with lanes waiting at the earlier ones.
extern "C" __global__ void collective_after_branch(const int *In, int *Out) {
  int I = gid();
  int V = In[I];
  unsigned Lane = threadIdx.x & 31;
  int S = 0;
  if (V % 3 != 0) {
    unsigned M = __activemask();
    for (unsigned R = M; R; R &= R - 1)
      S += __shfl_sync(M, V, __ffs(R) - 1);
  }
  Out[2 * I] = S;
  Out[2 * I + 1] = __shfl_xor_sync(0xfu << (Lane & ~3u), V, 1);
}
