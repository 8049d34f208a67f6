//===- Reference.cpp - The machine's own limits, measured in C++ -------------===//
/// \file
/// ferry-bench-ref: what the cores can do without ferry, measured the way
/// STREAM does: the triad (a = b + s*c) and a read-only sum over arrays far
/// larger than the caches, and peak FP32 from a loop of independent FMAs.
/// One std::thread per core, each owning a contiguous slice it first-touches,
/// timed from a barrier to a barrier; the best of kReps runs is kept. Built
/// with -O3 -march=native so the loops use the widest vectors the CPU has.
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <barrier>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <immintrin.h>

using namespace ferry::bench;

namespace {

unsigned threadCount() {
  unsigned N = std::thread::hardware_concurrency();
  return N ? N : 1;
}

/// Runs Body(thread, first, last) on every core for kReps rounds and returns
/// the best round's seconds. Slices are multiples of 64 elements, so each
/// thread's vector loops start on a cache line.
double parallelBest(long N, const std::function<void(unsigned, long, long)> &Body) {
  unsigned T = threadCount();
  std::barrier Sync(T);
  double Best = 1e30;
  Clock::time_point T0;
  std::vector<std::thread> Threads;
  for (unsigned Id = 0; Id < T; ++Id)
    Threads.emplace_back([&, Id] {
      long Chunk = (N / T + 63) / 64 * 64;
      long First = std::min(N, Id * Chunk), Last = std::min(N, First + Chunk);
      for (int R = 0; R < kReps; ++R) {
        Sync.arrive_and_wait();
        if (Id == 0)
          T0 = Clock::now();
        Body(Id, First, Last);
        Sync.arrive_and_wait();
        if (Id == 0)
          Best = std::min(Best, secondsSince(T0));
      }
    });
  for (auto &Th : Threads)
    Th.join();
  return Best;
}

float *allocArray(long N) {
  return static_cast<float *>(std::aligned_alloc(64, size_t(N) * sizeof(float)));
}

void streamFigures() {
  const long N = kStreamN;
  float *A = allocArray(N), *B = allocArray(N), *C = allocArray(N);
  // First touch by the thread that will use the slice (STREAM's init).
  parallelBest(N, [&](unsigned, long F, long L) {
    for (long I = F; I < L; ++I) {
      A[I] = 1.0f;
      B[I] = 2.0f;
      C[I] = 0.5f;
    }
  });
  const float S = 3.0f;
  double Triad = parallelBest(N, [&](unsigned, long F, long L) {
    for (long I = F; I < L; ++I)
      A[I] = B[I] + S * C[I];
  });
  report("ref.triad_gbs", streamBytes(3, N) / Triad / 1e9);

  // Read bandwidth: a sum with 64 independent float lanes so the loop is
  // bound by loads, not by the latency of one add chain.
  std::vector<float> Partial(threadCount() * 16);
  double Read = parallelBest(N, [&](unsigned Id, long F, long L) {
    typedef float V16 __attribute__((vector_size(64)));
    V16 S0 = {}, S1 = {}, S2 = {}, S3 = {};
    long I = F;
    for (; I + 64 <= L; I += 64) {
      V16 X0, X1, X2, X3;
      std::memcpy(&X0, B + I, 64);
      std::memcpy(&X1, B + I + 16, 64);
      std::memcpy(&X2, B + I + 32, 64);
      std::memcpy(&X3, B + I + 48, 64);
      S0 += X0;
      S1 += X1;
      S2 += X2;
      S3 += X3;
    }
    V16 Sum = S0 + S1 + S2 + S3;
    float Tail = 0;
    for (; I < L; ++I)
      Tail += B[I];
    Partial[Id * 16] = Tail;
    for (int J = 0; J < 16; ++J)
      Partial[Id * 16] += Sum[J];
  });
  report("ref.read_gbs", streamBytes(1, N) / Read / 1e9);

  // The same sum in the order the CUDA reduction reads (bench/kernels/
  // reduce.cu): block b's thread t reads b*256 + t + k*stride for k = 0, 1,
  // ... with stride = all threads of the grid (1 MiB of floats), so one
  // block reads 1 KiB from each of 128 places 1 MiB apart. Each core takes
  // its share of blocks in order and reads a whole block per step (16
  // vectors), prefetching 16 steps ahead as ferry does: what a hand-written
  // loop gets from that order, so the table can tell the order's cost from
  // ferry's.
  const long Stride = long(kReduceBlocks) * kReduceThreads;
  double Grid = parallelBest(N, [&](unsigned Id, long, long) {
    typedef float V16 __attribute__((vector_size(64)));
    constexpr int Vecs = kReduceThreads / 16;
    unsigned T = threadCount();
    long FirstBlock = long(kReduceBlocks) * Id / T, EndBlock = long(kReduceBlocks) * (Id + 1) / T;
    V16 Total = {};
    for (long Blk = FirstBlock; Blk < EndBlock; ++Blk) {
      V16 Acc[Vecs] = {};
      for (long I = Blk * kReduceThreads; I + kReduceThreads <= N; I += Stride) {
        for (int V = 0; V < Vecs; ++V)
          __builtin_prefetch(B + I + 16 * Stride + V * 16);
        for (int V = 0; V < Vecs; ++V) {
          V16 X;
          std::memcpy(&X, B + I + V * 16, 64);
          Acc[V] += X;
        }
      }
      for (int V = 0; V < Vecs; ++V)
        Total += Acc[V];
    }
    Partial[Id * 16] = 0;
    for (int J = 0; J < 16; ++J)
      Partial[Id * 16] += Total[J];
  });
  report("ref.grid_read_gbs", streamBytes(1, N) / Grid / 1e9);
  std::free(A);
  std::free(B);
  std::free(C);
}

/// 12 independent FMA chains per thread hide the FMA latency (4-5 cycles)
/// on two FMA pipes. Returns flops per second over all cores.
template <class Vec, int Lanes, Vec (*Fma)(Vec, Vec, Vec), Vec (*Set1)(float)>
double fmaPeak() {
  constexpr long Iters = 40'000'000;
  constexpr int Chains = 12;
  unsigned T = threadCount();
  std::vector<float> Sink(T);
  double Best = parallelBest(T, [&](unsigned Id, long, long) {
    Vec Acc[Chains];
    for (int J = 0; J < Chains; ++J)
      Acc[J] = Set1(1.0f + J * 1e-3f);
    Vec Mul = Set1(0.999999f), Add = Set1(1e-7f);
    for (long I = 0; I < Iters; ++I)
      for (int J = 0; J < Chains; ++J)
        Acc[J] = Fma(Acc[J], Mul, Add);
    float Out = 0;
    for (int J = 0; J < Chains; ++J) {
      float Lane[Lanes];
      std::memcpy(Lane, &Acc[J], sizeof(Lane));
      Out += Lane[0];
    }
    Sink[Id] = Out;
  });
  volatile float Keep = Sink[0];
  (void)Keep;
  return double(T) * Iters * Chains * Lanes * 2 / Best;
}

#ifdef __FMA__
__m256 fma256(__m256 A, __m256 B, __m256 C) { return _mm256_fmadd_ps(A, B, C); }
__m256 set256(float X) { return _mm256_set1_ps(X); }
#endif
#ifdef __AVX512F__
__m512 fma512(__m512 A, __m512 B, __m512 C) { return _mm512_fmadd_ps(A, B, C); }
__m512 set512(float X) { return _mm512_set1_ps(X); }
#endif

void peakFigure() {
  double Best = 0;
#ifdef __FMA__
  double Avx2 = fmaPeak<__m256, 8, fma256, set256>();
  report("ref.peak_avx2_gflops", Avx2 / 1e9);
  Best = std::max(Best, Avx2);
#endif
#ifdef __AVX512F__
  double Avx512 = fmaPeak<__m512, 16, fma512, set512>();
  report("ref.peak_avx512_gflops", Avx512 / 1e9);
  Best = std::max(Best, Avx512);
#endif
  if (Best > 0)
    report("ref.peak_gflops", Best / 1e9);
}

} // namespace

int main(int Argc, char **Argv) {
  report("ref.threads", threadCount());
  streamFigures();
  peakFigure();
  return 0;
}
