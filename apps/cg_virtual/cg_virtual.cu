/// \file
/// C++ and cooperative-groups shapes that template-heavy third-party code
/// uses:
/// - polymorphic objects built in device memory with placement new inside a
///   kernel (vtables in device code), virtual calls from divergent lanes,
///   and device-side new/delete through the device heap;
/// - coalesced_threads() in nested divergent branches: size, thread_rank,
///   shfl by rank, ballot/any/all, cg::reduce and cg::exclusive_scan over
///   groups of odd sizes; labeled_partition and binary_partition of a warp
///   tile, tiled_partition<4> of a tile<16> with meta_group_rank;
/// - a recursive device function deep enough to need a larger stack
///   (cudaDeviceSetLimit(cudaLimitStackSize)) and a 4 KB per-thread local
///   array indexed by data.
#include "../common/app_util.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <new>
#include <vector>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------- virtuals

struct Shape {
  int Id;
  __device__ explicit Shape(int I) : Id(I) {}
  __device__ virtual ~Shape() {}
  __device__ virtual long long area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
  int W, H;
  __device__ Rect(int I, int W, int H) : Shape(I), W(W), H(H) {}
  __device__ long long area() const override { return (long long)W * H; }
  __device__ int sides() const override { return 4; }
};
struct Square : Rect {
  __device__ Square(int I, int S) : Rect(I, S, S) {}
  __device__ int sides() const override { return 4 + 100; } // marks the override chain
};
struct Tri : Shape {
  int B, H;
  __device__ Tri(int I, int B, int H) : Shape(I), B(B), H(H) {}
  __device__ long long area() const override { return (long long)B * H / 2; }
  __device__ int sides() const override { return 3; }
};
struct Circle : Shape {
  int R;
  __device__ Circle(int I, int R) : Shape(I), R(R) {}
  __device__ long long area() const override { return 355LL * R * R / 113; }
};

constexpr int SlotBytes = 32;

__global__ void buildShapes(char *Pool, const int *Kinds, const int *Params, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  void *Slot = Pool + (size_t)I * SlotBytes;
  int P = Params[I];
  switch (Kinds[I]) { // divergent construction
  case 0: new (Slot) Rect(I, P % 97 + 1, P % 89 + 1); break;
  case 1: new (Slot) Square(I, P % 101 + 1); break;
  case 2: new (Slot) Tri(I, P % 53 + 1, P % 59 + 1); break;
  default: new (Slot) Circle(I, P % 31 + 1); break;
  }
}

__global__ void useShapes(const char *Pool, int N, long long *Area, int *Sides, unsigned long long *Total) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  const Shape *S = reinterpret_cast<const Shape *>(Pool + (size_t)I * SlotBytes);
  long long A = S->area();
  Area[I] = A;
  Sides[I] = S->sides() * 100000 + S->Id % 100000;
  atomicAdd(Total, (unsigned long long)A);
}

__global__ void heapShapes(int N, long long *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  Shape *S;
  if (I % 3 == 0)
    S = new Tri(I, I % 17 + 2, I % 13 + 2);
  else
    S = new Rect(I, I % 7 + 1, I % 11 + 1);
  if (!S) {
    Out[I] = -1;
    return;
  }
  Out[I] = S->area() * 10 + S->sides();
  delete S; // virtual destructor
}

// ---------------------------------------------------------------- groups

__global__ void groupsKernel(const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int V = I < N ? In[I] : 0;
  int *O = Out + I * 12;
  if (I >= N)
    return;
  for (int K = 0; K < 12; ++K)
    O[K] = -7;
  if (V % 3 != 0) {
    cg::coalesced_group G = cg::coalesced_threads();
    O[0] = G.size();
    O[1] = G.thread_rank();
    O[2] = G.shfl(V, G.size() - 1 - G.thread_rank()); // reversed by rank
    O[3] = cg::reduce(G, V, cg::plus<int>());
    O[4] = cg::exclusive_scan(G, V, cg::plus<int>());
    if (V % 5 < 2) { // nested divergence
      cg::coalesced_group H = cg::coalesced_threads();
      O[5] = H.size() * 1000 + H.thread_rank();
      O[6] = (int)H.ballot(V % 2 == 0);
      O[7] = H.any(V > 900) * 10 + H.all(V > 5);
      O[8] = cg::reduce(H, V, cg::greater<int>());
    }
  }
  cg::thread_block_tile<32> Warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::coalesced_group L = cg::labeled_partition(Warp, V % 4);
  O[9] = L.size() * 100 + L.thread_rank();
  cg::coalesced_group Bp = cg::binary_partition(Warp, V > 500);
  O[10] = cg::reduce(Bp, 1, cg::plus<int>()) * 100 + Bp.thread_rank();
  cg::thread_block_tile<16> Half = cg::tiled_partition<16>(cg::this_thread_block());
  cg::thread_block_tile<4> Quad = cg::tiled_partition<4>(Half);
  O[11] = Quad.meta_group_rank() * 1000 + Quad.meta_group_size() * 100 + Quad.shfl_xor(V, 1) % 100;
}

// ---------------------------------------------------------------- stack

__device__ long long deepSum(const int *Data, int Depth, int Pos, int N) {
  volatile int Pad[24]; // force a real frame
  for (int K = 0; K < 24; ++K)
    Pad[K] = Data[(Pos + K) % N];
  if (Depth == 0)
    return Pad[Pos % 24];
  long long Sub = deepSum(Data, Depth - 1, (Pos * 7 + 3) % N, N);
  return Sub + Pad[Depth % 24] - Pad[(Depth + 5) % 24];
}

__global__ void stackKernel(const int *Data, int N, int Depth, long long *Out) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  int Local[1024]; // 4 KB, indexed by data
  for (int K = 0; K < 1024; ++K)
    Local[K] = K * T;
  long long Acc = 0;
  for (int K = 0; K < 300; ++K) {
    int Idx = Data[(T * 31 + K) % N] & 1023;
    Local[Idx] += K;
    Acc += Local[(Idx * 5 + T) & 1023];
  }
  Out[T * 2] = Acc;
  Out[T * 2 + 1] = deepSum(Data, Depth + T % 4, T, N);
}

static long long hostDeep(const int *Data, int Depth, int Pos, int N) {
  int Pad[24];
  for (int K = 0; K < 24; ++K)
    Pad[K] = Data[(Pos + K) % N];
  if (Depth == 0)
    return Pad[Pos % 24];
  return hostDeep(Data, Depth - 1, (Pos * 7 + 3) % N, N) + Pad[Depth % 24] - Pad[(Depth + 5) % 24];
}

int main() {
  bool Ok = true;
  Lcg Rng(314);
  // Virtual shapes in a device pool.
  {
    const int N = 5000;
    std::vector<int> Kinds(N), Params(N);
    for (int I = 0; I < N; ++I) {
      Kinds[I] = Rng.below(4);
      Params[I] = Rng.below(100000);
    }
    char *Pool;
    int *DK, *DP, *DSides;
    long long *DArea;
    unsigned long long *DTotal;
    CHECK(cudaMalloc(&Pool, (size_t)N * SlotBytes));
    CHECK(cudaMalloc(&DK, N * 4));
    CHECK(cudaMalloc(&DP, N * 4));
    CHECK(cudaMalloc(&DSides, N * 4));
    CHECK(cudaMalloc(&DArea, N * 8));
    CHECK(cudaMalloc(&DTotal, 8));
    CHECK(cudaMemset(DTotal, 0, 8));
    CHECK(cudaMemcpy(DK, Kinds.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DP, Params.data(), N * 4, cudaMemcpyHostToDevice));
    buildShapes<<<(N + 127) / 128, 128>>>(Pool, DK, DP, N);
    useShapes<<<(N + 63) / 64, 64>>>(Pool, N, DArea, DSides, DTotal);
    CHECK(cudaGetLastError());
    std::vector<long long> Area(N);
    std::vector<int> Sides(N);
    unsigned long long Total;
    CHECK(cudaMemcpy(Area.data(), DArea, N * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Sides.data(), DSides, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&Total, DTotal, 8, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    unsigned long long RefTotal = 0;
    for (int I = 0; I < N; ++I) {
      int P = Params[I];
      long long A;
      int S;
      switch (Kinds[I]) {
      case 0: A = (long long)(P % 97 + 1) * (P % 89 + 1); S = 4; break;
      case 1: A = (long long)(P % 101 + 1) * (P % 101 + 1); S = 104; break;
      case 2: A = (long long)(P % 53 + 1) * (P % 59 + 1) / 2; S = 3; break;
      default: A = 355LL * (P % 31 + 1) * (P % 31 + 1) / 113; S = 0; break;
      }
      Bad += Area[I] != A || Sides[I] != S * 100000 + I;
      RefTotal += A;
    }
    std::printf("virtual calls on %d placement-new objects: wrong %u, total area %llu (%s)\n", N, Bad, RefTotal,
                Total == RefTotal ? "match" : "MISMATCH");
    Ok &= Bad == 0 && Total == RefTotal;
    // Device heap.
    const int M = 2000;
    long long *DOut;
    CHECK(cudaMalloc(&DOut, M * 8));
    heapShapes<<<(M + 127) / 128, 128>>>(M, DOut);
    CHECK(cudaGetLastError());
    std::vector<long long> H(M);
    CHECK(cudaMemcpy(H.data(), DOut, M * 8, cudaMemcpyDeviceToHost));
    unsigned BadHeap = 0;
    for (int I = 0; I < M; ++I) {
      long long Want = I % 3 == 0 ? (long long)(I % 17 + 2) * (I % 13 + 2) / 2 * 10 + 3
                                  : (long long)(I % 7 + 1) * (I % 11 + 1) * 10 + 4;
      BadHeap += H[I] != Want;
    }
    std::printf("device new/delete of %d objects: wrong %u\n", M, BadHeap);
    Ok &= BadHeap == 0;
    for (void *P : {(void *)Pool, (void *)DK, (void *)DP, (void *)DSides, (void *)DArea, (void *)DTotal, (void *)DOut})
      CHECK(cudaFree(P));
  }
  // Cooperative groups.
  {
    const int N = 1024; // whole warps: partitions of a warp need every lane
    std::vector<int> In(N);
    for (int I = 0; I < N; ++I)
      In[I] = Rng.below(1000);
    int *DIn, *DOut;
    CHECK(cudaMalloc(&DIn, N * 4));
    CHECK(cudaMalloc(&DOut, 1024 * 12 * 4));
    CHECK(cudaMemcpy(DIn, In.data(), N * 4, cudaMemcpyHostToDevice));
    groupsKernel<<<(N + 255) / 256, 256>>>(DIn, DOut, N);
    CHECK(cudaGetLastError());
    std::vector<int> G(N * 12);
    CHECK(cudaMemcpy(G.data(), DOut, N * 12 * 4, cudaMemcpyDeviceToHost));
    unsigned Bad[12] = {};
    for (int W = 0; W < N; W += 32) {
      int End = std::min(N, W + 32);
      std::vector<int> Grp, Sub;
      for (int I = W; I < End; ++I)
        if (In[I] % 3 != 0) {
          Grp.push_back(I);
          if (In[I] % 5 < 2)
            Sub.push_back(I);
        }
      int Sum = 0, Scan = 0;
      for (int I : Grp)
        Sum += In[I];
      for (size_t R = 0; R < Grp.size(); ++R) {
        const int *O = &G[Grp[R] * 12];
        Bad[0] += O[0] != (int)Grp.size();
        Bad[1] += O[1] != (int)R;
        Bad[2] += O[2] != In[Grp[Grp.size() - 1 - R]];
        Bad[3] += O[3] != Sum;
        Bad[4] += O[4] != Scan;
        Scan += In[Grp[R]];
      }
      unsigned Ballot = 0;
      int Any = 0, All = 1, Max = -1;
      for (size_t R = 0; R < Sub.size(); ++R) {
        Ballot |= (unsigned)(In[Sub[R]] % 2 == 0) << R;
        Any |= In[Sub[R]] > 900;
        All &= In[Sub[R]] > 5;
        Max = std::max(Max, In[Sub[R]]);
      }
      for (size_t R = 0; R < Sub.size(); ++R) {
        const int *O = &G[Sub[R] * 12];
        Bad[5] += O[5] != (int)(Sub.size() * 1000 + R);
        Bad[6] += O[6] != (int)Ballot;
        Bad[7] += O[7] != Any * 10 + All;
        Bad[8] += O[8] != Max;
      }
      for (int I = W; I < End; ++I) {
        int Size = 0, Rank = 0, BSize = 0, BRank = 0;
        for (int J = W; J < End; ++J) {
          if (In[J] % 4 == In[I] % 4) {
            Rank += J < I;
            ++Size;
          }
          if ((In[J] > 500) == (In[I] > 500)) {
            BRank += J < I;
            ++BSize;
          }
        }
        Bad[9] += G[I * 12 + 9] != Size * 100 + Rank;
        Bad[10] += G[I * 12 + 10] != BSize * 100 + BRank;
        int Lane = I % 32, Partner = I ^ 1;
        int Want = (Lane % 16) / 4 * 1000 + 4 * 100 + (Partner < N ? In[Partner] : 0) % 100;
        Bad[11] += G[I * 12 + 11] != Want;
      }
    }
    unsigned Total = 0;
    for (int K = 0; K < 12; ++K) {
      if (Bad[K])
        std::printf("  group check %d: %u wrong\n", K, Bad[K]);
      Total += Bad[K];
    }
    std::printf("cooperative groups over %d threads: wrong %u\n", N, Total);
    Ok &= Total == 0;
    CHECK(cudaFree(DIn));
    CHECK(cudaFree(DOut));
  }
  // Deep recursion and big local arrays.
  {
    const int N = 4099, Threads = 256, Depth = 150;
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 64 * 1024));
    size_t Stack = 0;
    CHECK(cudaDeviceGetLimit(&Stack, cudaLimitStackSize));
    std::vector<int> Data(N);
    for (int I = 0; I < N; ++I)
      Data[I] = (int)Rng.below(1 << 20);
    int *DD;
    long long *DOut;
    CHECK(cudaMalloc(&DD, N * 4));
    CHECK(cudaMalloc(&DOut, Threads * 2 * 8));
    CHECK(cudaMemcpy(DD, Data.data(), N * 4, cudaMemcpyHostToDevice));
    stackKernel<<<Threads / 64, 64>>>(DD, N, Depth, DOut);
    CHECK(cudaGetLastError());
    std::vector<long long> G(Threads * 2);
    CHECK(cudaMemcpy(G.data(), DOut, G.size() * 8, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    long long Fold = 0;
    for (int T = 0; T < Threads; ++T) {
      std::vector<int> Local(1024);
      for (int K = 0; K < 1024; ++K)
        Local[K] = K * T;
      long long Acc = 0;
      for (int K = 0; K < 300; ++K) {
        int Idx = Data[(T * 31 + K) % N] & 1023;
        Local[Idx] += K;
        Acc += Local[(Idx * 5 + T) & 1023];
      }
      long long Deep = hostDeep(Data.data(), Depth + T % 4, T, N);
      Bad += G[2 * T] != Acc || G[2 * T + 1] != Deep;
      Fold = Fold * 131 + Acc + Deep;
    }
    std::printf("stack limit %s 64 KB; local arrays and recursion depth %d..%d: wrong %u, fold %lld\n",
                Stack >= 64 * 1024 ? ">=" : "<", Depth, Depth + 3, Bad, Fold);
    Ok &= Bad == 0;
    CHECK(cudaFree(DD));
    CHECK(cudaFree(DOut));
  }
  return finish(Ok);
}
