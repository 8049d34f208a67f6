/// \file
/// libcu++ (the CUDA C++ standard library) in device code, each part against
/// a host computation: cuda::atomic and cuda::atomic_ref (every fetch
/// operation, CAS loops, 8/16/32/64-bit and floating types, block, device
/// and system scopes, memory orders, release/acquire message passing between
/// warps), cuda::barrier (arrive_and_wait, arrive_and_drop, a completion
/// function, with cuda::memcpy_async), cuda::std::latch and
/// counting_semaphore, cuda::pipeline double buffering; cuda::std
/// numeric_limits, complex, <bit>, <cmath> functions that are exact (so the
/// device must give the host's bits), span, array, tuple, optional, variant,
/// min/max/clamp, gcd/lcm/midpoint.
#include "../common/cccl_util.h"
#include <cmath>
#include <cstring>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/__algorithm/clamp.h> // no public <cuda/std/algorithm> in this CCCL
#include <cuda/std/__algorithm/max.h>
#include <cuda/std/__algorithm/min.h>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/cmath>
#include <cuda/std/complex>
#include <cuda/std/latch>
#include <cuda/std/limits>
#include <cuda/std/numeric>
#include <cuda/std/optional>
#include <cuda/std/semaphore>
#include <cuda/std/span>
#include <cuda/std/tuple>
#include <cuda/std/variant>
#include <new>
#include <numeric>

// libcu++'s barriers in __shared__ memory have a constructor; its
// documentation silences this diagnostic the same way.
#pragma nv_diag_suppress static_var_with_dynamic_init

// ------------------------------------------------------------ atomics
struct Counters {
  int Add, Sub, And, Or, Xor, Max, Min, Exch, CasMul;
  unsigned long long Sum64;
  float FSum;
  double DSum;
  unsigned short Half[4];
  unsigned char Bytes[8];
  int BlockTotals[64];
  int Order[64];
};

__global__ void atomics(const int *In, Counters *C, unsigned long long *Sys, int *Hist) {
  int G = blockIdx.x * blockDim.x + threadIdx.x;
  int V = In[G];
  cuda::atomic_ref<int, cuda::thread_scope_device> Add(C->Add), Sub(C->Sub), And(C->And), Or(C->Or), Xor(C->Xor),
      Mx(C->Max), Mn(C->Min), Ex(C->Exch), Mul(C->CasMul);
  Add.fetch_add(V, cuda::std::memory_order_relaxed);
  Sub.fetch_sub(V & 255);
  And.fetch_and(~(1 << (G % 31)), cuda::std::memory_order_acq_rel);
  Or.fetch_or(1 << (V & 31));
  Xor.fetch_xor(V);
  Mx.fetch_max(V);
  Mn.fetch_min(V);
  Ex.exchange(1, cuda::std::memory_order_seq_cst);
  // A CAS loop: multiply modulo a prime (commutative, so the order of the
  // threads does not matter).
  int Old = Mul.load(cuda::std::memory_order_relaxed);
  int Factor = (V & 7) + 2;
  while (!Mul.compare_exchange_weak(Old, int((1LL * Old * Factor) % 1000003), cuda::std::memory_order_acq_rel,
                                    cuda::std::memory_order_relaxed)) {
  }
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(C->Sum64).fetch_add(1ULL * (unsigned)V * 4096u);
  cuda::atomic_ref<float, cuda::thread_scope_device>(C->FSum).fetch_add(float(V & 1023) * 0.25f);
  cuda::atomic_ref<double, cuda::thread_scope_device>(C->DSum).fetch_add(double(V % 1000) * 0.125);
  cuda::atomic_ref<unsigned short, cuda::thread_scope_device>(C->Half[G % 4]).fetch_add((unsigned short)(V & 15));
  cuda::atomic_ref<unsigned char, cuda::thread_scope_device>(C->Bytes[G % 8]).fetch_or((unsigned char)(1u << (V % 8)));
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*Sys).fetch_add(unsigned(V) & 0xffff);
  // Block scope in shared memory, then one device-scope add per block.
  __shared__ int Local;
  __shared__ int Bins[16];
  if (threadIdx.x == 0)
    Local = 0;
  if (threadIdx.x < 16)
    Bins[threadIdx.x] = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block>(Local).fetch_add(V & 1023);
  cuda::atomic_ref<int, cuda::thread_scope_block>(Bins[V & 15]).fetch_add(1, cuda::std::memory_order_relaxed);
  __syncthreads();
  if (threadIdx.x == 0)
    C->BlockTotals[blockIdx.x] = Local;
  if (threadIdx.x < 16)
    cuda::atomic_ref<int, cuda::thread_scope_device>(Hist[threadIdx.x]).fetch_add(Bins[threadIdx.x]);
}

// Release/acquire message passing inside a block: warp 0 publishes data
// and raises a flag; the other warps wait for the flag (acquire) and read
// the data. Then a counter orders the warps: each waits for its turn.
__global__ void messages(int *Out, int *Turns) {
  __shared__ int Data[32];
  __shared__ int Flag, Turn;
  int T = threadIdx.x, W = T / 32;
  if (T == 0)
    Flag = 0, Turn = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> F(Flag), Tn(Turn);
  if (W == 0) {
    Data[T] = T * T + blockIdx.x;
    __syncwarp();
    if (T == 0)
      F.store(1, cuda::std::memory_order_release);
  } else {
    while (F.load(cuda::std::memory_order_acquire) == 0) {
    }
    Out[blockIdx.x * blockDim.x + T] = Data[T % 32];
  }
  // Warps in reverse order of their index take turns.
  int Warps = blockDim.x / 32;
  while (Tn.load(cuda::std::memory_order_acquire) != Warps - 1 - W) {
  }
  __syncwarp();
  if (T % 32 == 0) {
    Turns[blockIdx.x * Warps + Tn.load()] = W;
    Tn.fetch_add(1, cuda::std::memory_order_release);
  }
}

// ------------------------------------------------------------ barriers
struct CountPhases {
  int *Phases;
  __device__ void operator()() noexcept { ++*Phases; }
};

__global__ void barriers(const int *In, long long *Out) {
  constexpr int Chunk = 256;
  __shared__ alignas(16) int Buf[Chunk];
  __shared__ int Phases;
  __shared__ cuda::barrier<cuda::thread_scope_block> Bar;
  __shared__ cuda::barrier<cuda::thread_scope_block, CountPhases> CBar;
  __shared__ long long Sum;
  int T = threadIdx.x, N = blockDim.x;
  if (T == 0) {
    init(&Bar, N);
    Phases = 0;
    init(&CBar, N, CountPhases{&Phases});
    Sum = 0;
  }
  __syncthreads();
  const int *Src = In + blockIdx.x * Chunk * 4;
  long long Mine = 0;
  for (int Round = 0; Round < 4; ++Round) {
    // Thread 0 copies the chunk asynchronously; all wait on the barrier.
    if (T == 0)
      cuda::memcpy_async(Buf, Src + Round * Chunk, cuda::aligned_size_t<16>(sizeof(Buf)), Bar);
    Bar.arrive_and_wait();
    for (int I = T; I < Chunk; I += N)
      Mine += 1LL * Buf[I] * (Round + 1);
    Bar.arrive_and_wait(); // nobody overwrites Buf before all have read it
  }
  cuda::atomic_ref<long long, cuda::thread_scope_block>(Sum).fetch_add(Mine);
  CBar.arrive_and_wait();
  // Half the threads drop out; the rest keep using the barrier.
  if (T >= N / 2) {
    CBar.arrive_and_drop();
  } else {
    for (int K = 0; K < 3; ++K)
      CBar.arrive_and_wait();
  }
  __syncthreads();
  if (T == 0) {
    Out[blockIdx.x * 2] = Sum;
    Out[blockIdx.x * 2 + 1] = Phases; // all, then drops + the rest's first, then 2 more
  }
}

// A latch counted down by every thread; a semaphore that lets at most 3
// threads into a section at once (checked with a counter).
__global__ void latchSem(int *Out) {
  __shared__ cuda::std::latch *LP;
  __shared__ alignas(cuda::std::latch) unsigned char LatchMem[sizeof(cuda::std::latch)];
  __shared__ alignas(cuda::std::counting_semaphore<3>) unsigned char SemMem[sizeof(cuda::std::counting_semaphore<3>)];
  __shared__ int Inside, MaxInside, Done, Entered;
  auto *Sem = reinterpret_cast<cuda::std::counting_semaphore<3> *>(SemMem);
  if (threadIdx.x == 0) {
    LP = new (LatchMem) cuda::std::latch(blockDim.x);
    new (SemMem) cuda::std::counting_semaphore<3>(3);
    Inside = MaxInside = Done = Entered = 0;
  }
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block>(Done).fetch_add(1);
  LP->arrive_and_wait();
  int SeenDone = cuda::atomic_ref<int, cuda::thread_scope_block>(Done).load();
  // Only one lane per warp contends: lanes of a warp spinning on each other
  // would be the warp-synchronous hazard, not the semaphore under test.
  if (threadIdx.x % 32 == 0) {
    Sem->acquire();
    int Now = cuda::atomic_ref<int, cuda::thread_scope_block>(Inside).fetch_add(1) + 1;
    cuda::atomic_ref<int, cuda::thread_scope_block>(MaxInside).fetch_max(Now);
    cuda::atomic_ref<int, cuda::thread_scope_block>(Entered).fetch_add(1);
    cuda::atomic_ref<int, cuda::thread_scope_block>(Inside).fetch_sub(1);
    Sem->release();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    Out[blockIdx.x * 3] = SeenDone;
    Out[blockIdx.x * 3 + 1] = MaxInside <= 3 && MaxInside >= 1;
    Out[blockIdx.x * 3 + 2] = Entered;
  }
}

// cuda::pipeline with two stages per thread: while stage k is consumed,
// stage k+1 is in flight.
__global__ void pipelined(const float *In, float *Out, int Tiles) {
  constexpr int Tile = 128;
  __shared__ alignas(16) float Stage[2][Tile];
  auto Pipe = cuda::make_pipeline();
  int T = threadIdx.x;
  const float *Src = In + blockIdx.x * Tiles * Tile;
  float Acc = 0;
  Pipe.producer_acquire();
  cuda::memcpy_async(&Stage[0][T], Src + T, sizeof(float), Pipe);
  Pipe.producer_commit();
  for (int K = 0; K < Tiles; ++K) {
    if (K + 1 < Tiles) {
      Pipe.producer_acquire();
      cuda::memcpy_async(&Stage[(K + 1) % 2][T], Src + (K + 1) * Tile + T, sizeof(float), Pipe);
      Pipe.producer_commit();
    }
    Pipe.consumer_wait();
    Acc = Acc * 0.5f + Stage[K % 2][T];
    Pipe.consumer_release();
  }
  Out[blockIdx.x * Tile + T] = Acc;
}

// ------------------------------------------------------------ numerics
template <typename T> __host__ __device__ void limitsOf(unsigned long long *O) {
  using L = cuda::std::numeric_limits<T>;
  T V[3] = {L::min(), L::max(), L::lowest()};
  for (int I = 0; I < 3; ++I) {
    O[I] = 0;
    memcpy(&O[I], &V[I], sizeof(T));
  }
  O[3] = L::digits;
  O[4] = L::is_signed;
}

__host__ __device__ void fpLimits(unsigned long long *O) {
  using F = cuda::std::numeric_limits<float>;
  using D = cuda::std::numeric_limits<double>;
  O[0] = cuda::std::bit_cast<unsigned>(F::epsilon());
  O[1] = cuda::std::bit_cast<unsigned>(F::denorm_min());
  O[2] = cuda::std::bit_cast<unsigned>(F::infinity());
  O[3] = cuda::std::bit_cast<unsigned>(F::quiet_NaN());
  O[4] = cuda::std::bit_cast<unsigned long long>(D::epsilon());
  O[5] = cuda::std::bit_cast<unsigned long long>(D::max());
  O[6] = cuda::std::bit_cast<unsigned long long>(D::denorm_min());
  O[7] = F::max_exponent * 1000 + D::max_exponent10;
}

constexpr int Limits = 6 * 5 + 8;

__host__ __device__ void allLimits(unsigned long long *O) {
  limitsOf<signed char>(O);
  limitsOf<unsigned short>(O + 5);
  limitsOf<int>(O + 10);
  limitsOf<unsigned>(O + 15);
  limitsOf<long long>(O + 20);
  limitsOf<unsigned long long>(O + 25);
  fpLimits(O + 30);
}
__global__ void limitsKernel(unsigned long long *O) { allLimits(O); }

// Bit operations on 32- and 64-bit inputs: 12 results per input.
constexpr int BitsPer = 12;
__host__ __device__ void bitOps(unsigned X, unsigned long long Y, unsigned long long *O) {
  O[0] = cuda::std::popcount(X);
  O[1] = cuda::std::countl_zero(X);
  O[2] = cuda::std::countr_zero(X);
  O[3] = cuda::std::countl_one(X);
  O[4] = cuda::std::bit_width(Y);
  O[5] = cuda::std::bit_floor(Y);
  O[6] = X <= 0x80000000u ? cuda::std::bit_ceil(X) : 0;
  O[7] = cuda::std::rotl(X, int(Y % 67) - 33);
  O[8] = cuda::std::rotr(Y, int(X % 130));
  O[9] = cuda::std::has_single_bit(Y);
  O[10] = cuda::std::popcount(Y) * 100 + cuda::std::countr_one(Y);
  O[11] = cuda::std::bit_cast<unsigned>(cuda::std::bit_cast<float>(X) * 1.0f == cuda::std::bit_cast<float>(X)
                                            ? cuda::std::bit_cast<float>(X)
                                            : 0.0f);
}
__global__ void bitsKernel(const unsigned *X, const unsigned long long *Y, unsigned long long *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    bitOps(X[I], Y[I], O + I * BitsPer);
}

// <cmath> functions whose results are exact (or correctly rounded), so the
// device's bits must equal the host's: MathPer values per input pair, each
// a double's or a float's bits, or an integer (the kinds below).
constexpr int MathPer = 26;
enum MathKind { MD, MF, MI }; // double, float, integer result
__host__ __device__ inline MathKind mathKind(int K) { return K < 17 ? MD : K < 23 ? MF : MI; }
__host__ __device__ inline unsigned long long bd(double V) { return cuda::std::bit_cast<unsigned long long>(V); }
__host__ __device__ inline unsigned long long bf(float V) { return cuda::std::bit_cast<unsigned>(V); }
__host__ __device__ void exactMath(double A, double B, int Sh, unsigned long long *O) {
  float FA = float(A), FB = float(B);
  int E = 0;
  double Ip;
  bool Zeros = A == 0 && B == 0, FZeros = FA == 0 && FB == 0; // fmin/fmax of +0 and -0 may give either
  O[0] = bd(cuda::std::fma(A, B, -A));
  O[1] = bd(cuda::std::nextafter(A, B));
  O[2] = bd(cuda::std::copysign(A, B));
  O[3] = bd(cuda::std::frexp(A, &E));
  O[4] = bd(cuda::std::ldexp(A, Sh));
  O[5] = bd(cuda::std::modf(A, &Ip));
  O[6] = bd(Ip);
  O[7] = bd(cuda::std::trunc(A));
  O[8] = bd(cuda::std::floor(B));
  O[9] = bd(cuda::std::ceil(A));
  O[10] = bd(cuda::std::round(B));
  O[11] = bd(cuda::std::rint(A * 3.5));
  O[12] = bd(cuda::std::fmod(A, B));
  O[13] = bd(cuda::std::remainder(A, B));
  O[14] = bd(cuda::std::sqrt(cuda::std::fabs(A)));
  O[15] = bd(Zeros ? 0.0 : cuda::std::fmin(A, B));
  O[16] = bd(cuda::std::scalbn(A, -3));
  O[17] = bf(cuda::std::fma(FA, FB, 1.0f));
  O[18] = bf(cuda::std::nextafter(FA, FB));
  O[19] = bf(cuda::std::sqrt(cuda::std::fabs(FA)));
  O[20] = bf(cuda::std::fmod(FA, FB));
  O[21] = bf(FZeros ? 0.0f : cuda::std::fmax(FA, FB));
  O[22] = bf(FA / FB);
  O[23] = cuda::std::isfinite(A) ? (unsigned long long)(long long)E : 77; // E is unspecified for inf/NaN
  O[24] = (unsigned long long)((long long)cuda::std::ilogb(A) + 5000) * 8 + cuda::std::signbit(B) * 4 +
          cuda::std::isnan(A / B) * 2 + cuda::std::isinf(A / B);
  O[25] = cuda::std::fabs(B) < 1e15 ? (unsigned long long)cuda::std::lround(B * 2.5) : 1;
}
__global__ void mathKernel(const double *A, const double *B, unsigned long long *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    exactMath(A[I], B[I], I % 61 - 30, O + I * MathPer);
}

// Complex arithmetic compared with a tolerance (exp/log/pow differ in the
// last bits between any two libraries); 4 doubles per input.
__global__ void complexKernel(const double *A, const double *B, double *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  cuda::std::complex<double> Z(A[I], B[I]), W(B[I] * 0.5, 1.25);
  auto R = Z * W / (W + 1.0) + cuda::std::exp(Z * 0.1) - cuda::std::sqrt(Z) + cuda::std::pow(W, 2.0);
  cuda::std::complex<float> Zf{float(A[I]), float(B[I])};
  auto Rf = cuda::std::polar(cuda::std::abs(Zf), cuda::std::arg(Zf)) * cuda::std::conj(Zf) + cuda::std::log(Zf + 10.0f);
  O[I * 4] = R.real();
  O[I * 4 + 1] = R.imag();
  O[I * 4 + 2] = Rf.real();
  O[I * 4 + 3] = Rf.imag();
}

// Vocabulary types in device code: 8 ints per thread.
struct Visitor {
  __host__ __device__ int operator()(int V) const { return V * 2; }
  __host__ __device__ int operator()(float V) const { return int(V * 10.0f); }
  __host__ __device__ int operator()(cuda::std::tuple<short, char> V) const {
    return cuda::std::get<0>(V) * 100 + cuda::std::get<1>(V);
  }
};
__host__ __device__ void vocabulary(int X, int *O) {
  cuda::std::array<int, 8> Arr{};
  for (int I = 0; I < 8; ++I)
    Arr[I] = (X * (I + 3)) % 17;
  cuda::std::span<int> Sp(Arr.data() + 2, 5);
  int SpanSum = 0;
  for (int V : Sp)
    SpanSum += V;
  auto Tup = cuda::std::make_tuple(X, short(X % 300), 'a' + X % 26);
  auto [P, Q, R] = Tup;
  cuda::std::optional<int> Opt;
  if (X % 3)
    Opt = X / 3;
  using Var = cuda::std::variant<int, float, cuda::std::tuple<short, char>>;
  Var V = X % 3 == 0 ? Var(X) : X % 3 == 1 ? Var(float(X) * 0.5f) : Var(cuda::std::tuple<short, char>(short(X % 50), char(X % 7)));
  O[0] = SpanSum + int(Sp.size()) * 1000;
  O[1] = P + Q + R;
  O[2] = Opt.value_or(-1) + (Opt.has_value() ? 100000 : 0);
  O[3] = cuda::std::visit(Visitor(), V) + int(V.index()) * 1000000;
  O[4] = cuda::std::clamp(X - 500, -100, 100) + cuda::std::min(X, 77) * 1000 + cuda::std::max(X % 10, 4) * 1000000;
  O[5] = cuda::std::gcd(X, 360) * 1000 + cuda::std::lcm(X % 20 + 1, 12);
  O[6] = cuda::std::midpoint(X, -X * 3);
  O[7] = cuda::std::accumulate(Arr.begin(), Arr.end(), 0) * 100 + Arr.back();
}
__global__ void vocabKernel(int *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    vocabulary(I * 7 + 1, O + I * 8);
}

int main() {
  Report Rp;
  Lcg Rng(606);
  // --- atomics
  {
    const int Blocks = 48, Threads = 256, N = Blocks * Threads;
    std::vector<int> In(N);
    for (auto &V : In)
      V = int(Rng.below(2000001)) - 1000000;
    DBuf<int> DIn(In), Hist(16);
    DBuf<Counters> DC(1);
    Counters Init{};
    Init.And = -1;
    Init.Max = INT32_MIN;
    Init.Min = INT32_MAX;
    Init.CasMul = 1;
    CHECK(cudaMemcpy(DC.P, &Init, sizeof(Init), cudaMemcpyHostToDevice));
    unsigned long long *Sys;
    CHECK(cudaMallocManaged(&Sys, sizeof(*Sys)));
    *Sys = 5;
    atomics<<<Blocks, Threads>>>(DIn.P, DC.P, Sys, Hist.P);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    Counters G = DC.one(), W = Init;
    std::vector<int> WH(16, 0);
    unsigned long long WSys = 5;
    for (int I = 0; I < N; ++I) {
      int V = In[I];
      W.Add += V;
      W.Sub -= V & 255;
      W.And &= ~(1 << (I % 31));
      W.Or |= 1 << (V & 31);
      W.Xor ^= V;
      W.Max = std::max(W.Max, V);
      W.Min = std::min(W.Min, V);
      W.CasMul = int((1LL * W.CasMul * ((V & 7) + 2)) % 1000003);
      W.Sum64 += 1ULL * unsigned(V) * 4096u;
      W.FSum += float(V & 1023) * 0.25f;
      W.DSum += double(V % 1000) * 0.125;
      W.Half[I % 4] += (unsigned short)(V & 15);
      W.Bytes[I % 8] |= (unsigned char)(1u << (V % 8));
      WSys += unsigned(V) & 0xffff;
      W.BlockTotals[I / Threads] += V & 1023;
      WH[V & 15]++;
    }
    W.Exch = 1;
    int Bad = (G.Add != W.Add) + (G.Sub != W.Sub) + (G.And != W.And) + (G.Or != W.Or) + (G.Xor != W.Xor) +
              (G.Max != W.Max) + (G.Min != W.Min) + (G.Exch != 1) + (G.CasMul != W.CasMul) + (G.Sum64 != W.Sum64) +
              (G.FSum != W.FSum) + (G.DSum != W.DSum) + (*Sys != WSys) + countDiff(Hist.down(), WH);
    for (int I = 0; I < 4; ++I)
      Bad += G.Half[I] != W.Half[I];
    for (int I = 0; I < 8; ++I)
      Bad += G.Bytes[I] != W.Bytes[I];
    for (int I = 0; I < Blocks; ++I)
      Bad += G.BlockTotals[I] != W.BlockTotals[I];
    std::printf("atomics: add=%d and=%08x or=%08x xor=%d max=%d min=%d casmul=%d sum64=%llu fsum=%.2f dsum=%.3f "
                "half0=%u bytes0=%02x system=%llu\n",
                W.Add, W.And, W.Or, W.Xor, W.Max, W.Min, W.CasMul, W.Sum64, W.FSum, W.DSum, W.Half[0], W.Bytes[0], WSys);
    Rp.line("atomic/atomic_ref fetch ops, CAS loop, 8/16/32/64-bit, float/double, block/device/system scope", Bad);
    CHECK(cudaFree(Sys));
  }
  {
    const int Blocks = 6, Threads = 128, Warps = Threads / 32;
    DBuf<int> Out(Blocks * Threads), Turns(Blocks * Warps);
    messages<<<Blocks, Threads>>>(Out.P, Turns.P);
    CHECK(cudaGetLastError());
    auto GO = Out.down(), GT = Turns.down();
    int Bad = 0;
    for (int B = 0; B < Blocks; ++B) {
      for (int T = 32; T < Threads; ++T)
        Bad += GO[B * Threads + T] != (T % 32) * (T % 32) + B;
      for (int K = 0; K < Warps; ++K)
        Bad += GT[B * Warps + K] != Warps - 1 - K;
    }
    Rp.line("release/acquire message passing and turn-taking between warps", Bad);
  }
  // --- barriers, memcpy_async, latch, semaphore, pipeline
  {
    const int Blocks = 10, Threads = 96;
    std::vector<int> In(Blocks * 1024);
    for (auto &V : In)
      V = int(Rng.below(100000));
    DBuf<int> DIn(In);
    DBuf<long long> Out(Blocks * 2);
    barriers<<<Blocks, Threads>>>(DIn.P, Out.P);
    CHECK(cudaGetLastError());
    auto G = Out.down();
    int Bad = 0;
    long long Total = 0;
    for (int B = 0; B < Blocks; ++B) {
      long long S = 0;
      for (int R = 0; R < 4; ++R)
        for (int I = 0; I < 256; ++I)
          S += 1LL * In[B * 1024 + R * 256 + I] * (R + 1);
      Bad += (G[B * 2] != S) + (G[B * 2 + 1] != 4);
      Total += S;
    }
    std::printf("barrier + memcpy_async: total=%lld phases=4\n", Total);
    Rp.line("barrier arrive_and_wait/arrive_and_drop/completion, memcpy_async", Bad);

    DBuf<int> LS(Blocks * 3);
    latchSem<<<Blocks, Threads * 2>>>(LS.P);
    CHECK(cudaGetLastError());
    auto GL = LS.down();
    Bad = 0;
    for (int B = 0; B < Blocks; ++B)
      Bad += (GL[B * 3] != Threads * 2) + (GL[B * 3 + 1] != 1) + (GL[B * 3 + 2] != Threads * 2 / 32);
    Rp.line("latch / counting_semaphore", Bad);

    const int Tiles = 9;
    std::vector<float> F(Blocks * Tiles * 128);
    for (auto &V : F)
      V = float(int(Rng.below(1000))) * 0.5f;
    DBuf<float> DF(F), PO(Blocks * 128);
    pipelined<<<Blocks, 128>>>(DF.P, PO.P, Tiles);
    CHECK(cudaGetLastError());
    std::vector<float> WP(Blocks * 128);
    for (int B = 0; B < Blocks; ++B)
      for (int T = 0; T < 128; ++T) {
        float Acc = 0;
        for (int K = 0; K < Tiles; ++K)
          Acc = Acc * 0.5f + F[(B * Tiles + K) * 128 + T];
        WP[B * 128 + T] = Acc;
      }
    Rp.line("pipeline double buffering", countDiff(PO.down(), WP));
  }
  // --- numerics
  {
    DBuf<unsigned long long> DL(Limits);
    limitsKernel<<<1, 1>>>(DL.P);
    CHECK(cudaGetLastError());
    std::vector<unsigned long long> WL(Limits);
    allLimits(WL.data());
    std::printf("limits: int max=%llu ull max=%llx float eps=%08llx double max=%016llx\n", WL[11], WL[26], WL[30],
                WL[35]);
    Rp.line("numeric_limits (integers, float, double)", countDiff(DL.down(), WL));

    const int N = 4000;
    std::vector<unsigned> X(N);
    std::vector<unsigned long long> Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = I < 40 ? (I < 32 ? 1u << I : I == 32 ? 0u : ~0u >> (I - 33)) : Rng.next() >> (Rng.below(32));
      Y[I] = I < 70 ? (I < 64 ? 1ULL << I : 0ULL + I - 64) : (uint64_t(Rng.next()) << 32 | Rng.next()) >> Rng.below(64);
    }
    DBuf<unsigned> DX(X);
    DBuf<unsigned long long> DY(Y), DB(N * BitsPer);
    bitsKernel<<<(N + 127) / 128, 128>>>(DX.P, DY.P, DB.P, N);
    CHECK(cudaGetLastError());
    std::vector<unsigned long long> WB(N * BitsPer);
    unsigned long long Sum = 0;
    for (int I = 0; I < N; ++I) {
      bitOps(X[I], Y[I], WB.data() + I * BitsPer);
      for (int K = 0; K < BitsPer; ++K)
        Sum = Sum * 31 + WB[I * BitsPer + K];
    }
    std::printf("bit ops: checksum=%016llx\n", Sum);
    Rp.line("<bit>: popcount/countl_zero/countr_zero/bit_width/bit_floor/bit_ceil/rotl/rotr/bit_cast", countDiff(DB.down(), WB));

    std::vector<double> A(N), B(N);
    const double Edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-310, -1e-310, 1e308, -1e308, 3.0,
                           7.0, -7.0, 1e-5, 123456.75, INFINITY, -INFINITY, NAN, 4.9e-324, 2.0, 0.1};
    const int NE = sizeof(Edge) / sizeof(Edge[0]);
    for (int I = 0; I < N; ++I) {
      if (I < NE * NE) {
        A[I] = Edge[I / NE];
        B[I] = Edge[I % NE];
      } else {
        A[I] = (double(Rng.next()) - 2147483648.0) / double(1u << Rng.below(30)) + Rng.uniform();
        B[I] = (double(Rng.next()) - 2147483648.0) / double(1u << Rng.below(31)) + 0.25;
      }
    }
    DBuf<double> DA(A), DBB(B);
    DBuf<unsigned long long> DM(N * MathPer);
    mathKernel<<<(N + 127) / 128, 128>>>(DA.P, DBB.P, DM.P, N);
    CHECK(cudaGetLastError());
    std::vector<unsigned long long> WM(N * MathPer);
    Sum = 0;
    for (int I = 0; I < N; ++I) {
      exactMath(A[I], B[I], I % 61 - 30, WM.data() + I * MathPer);
      for (int K = 0; K < MathPer; ++K)
        Sum = Sum * 31 + WM[I * MathPer + K];
    }
    // NaN results may differ in payload between machines: compare NaNs as a class.
    auto GM = DM.down();
    int Bad = 0;
    for (int I = 0; I < N * MathPer; ++I) {
      unsigned long long Gv = GM[I], Wv = WM[I];
      if (Gv == Wv)
        continue;
      MathKind Kd = mathKind(I % MathPer);
      auto IsNan = [&](unsigned long long V) {
        return Kd == MD ? (V & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (V & 0xfffffffffffffULL)
                        : (V & 0x7f800000u) == 0x7f800000u && (V & 0x7fffffu);
      };
      if (Kd != MI && IsNan(Gv) && IsNan(Wv))
        continue;
      if (Bad < 5)
        std::printf("  math %d(%d): a=%a b=%a got %016llx want %016llx\n", I / MathPer, I % MathPer, A[I / MathPer],
                    B[I / MathPer], Gv, Wv);
      ++Bad;
    }
    std::printf("exact math: checksum=%016llx\n", Sum);
    Rp.line("<cmath> exact functions (fma/nextafter/frexp/ldexp/modf/rounding/fmod/remainder/sqrt/...)", Bad);

    std::vector<double> CA(500), CB(500);
    for (int I = 0; I < 500; ++I)
      CA[I] = Rng.range(-4.0f, 4.0f), CB[I] = Rng.range(-4.0f, 4.0f);
    DBuf<double> DCA(CA), DCB(CB), DCo(500 * 4);
    complexKernel<<<4, 128>>>(DCA.P, DCB.P, DCo.P, 500);
    CHECK(cudaGetLastError());
    auto GC = DCo.down();
    Bad = 0;
    double CS = 0;
    for (int I = 0; I < 500; ++I) {
      cuda::std::complex<double> Z(CA[I], CB[I]), W(CB[I] * 0.5, 1.25);
      auto R = Z * W / (W + 1.0) + cuda::std::exp(Z * 0.1) - cuda::std::sqrt(Z) + cuda::std::pow(W, 2.0);
      cuda::std::complex<float> Zf{float(CA[I]), float(CB[I])};
      auto Rf = cuda::std::polar(cuda::std::abs(Zf), cuda::std::arg(Zf)) * cuda::std::conj(Zf) +
                cuda::std::log(Zf + 10.0f);
      double Mag = std::abs(std::complex<double>(R.real(), R.imag())) + 1.0;
      double MagF = std::abs(std::complex<double>(Rf.real(), Rf.imag())) + 1.0;
      Bad += !closeTo(GC[I * 4], R.real(), 0, 1e-12 * Mag) || !closeTo(GC[I * 4 + 1], R.imag(), 0, 1e-12 * Mag);
      Bad += !closeTo(GC[I * 4 + 2], Rf.real(), 0, 1e-5 * MagF) || !closeTo(GC[I * 4 + 3], Rf.imag(), 0, 1e-5 * MagF);
      CS += R.real();
    }
    std::printf("complex: real checksum=%.6f\n", CS);
    Rp.line("cuda::std::complex (double and float)", Bad);

    DBuf<int> DV(N * 8);
    vocabKernel<<<(N + 127) / 128, 128>>>(DV.P, N);
    CHECK(cudaGetLastError());
    std::vector<int> WV(N * 8);
    long long VS = 0;
    for (int I = 0; I < N; ++I) {
      vocabulary(I * 7 + 1, WV.data() + I * 8);
      for (int K = 0; K < 8; ++K)
        VS += WV[I * 8 + K];
    }
    std::printf("vocabulary types: checksum=%lld\n", VS);
    Rp.line("span/array/tuple/optional/variant/clamp/gcd/lcm/midpoint in device code", countDiff(DV.down(), WV));
  }
  return Rp.done();
}
