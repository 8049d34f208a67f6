/// \file
/// Fast Walsh-Hadamard transform of many rows, one block per row, written the
/// way fused GPU transform kernels are: each thread owns kNChunks chunks of
/// kNElts consecutive elements, loaded and stored as one vector of the
/// matching byte size (a __align__-ed BytesToType<> type: uint4, uint2 or
/// unsigned); butterflies on the element bits run in registers, the lane
/// bits through __shfl_xor_sync, the warp bits through a swizzled exchange
/// in shared memory (uint4 stores) and shuffles, and the chunk bits in
/// registers again. float, half and bfloat16 inputs; rows shorter than the
/// transform are zero padded; the result is scaled. Checked against an
/// O(N log N) CPU transform.
#include "../common/app_util.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <type_traits>
#include <vector>

template <int Bytes> struct BytesToType;
template <> struct BytesToType<16> {
  using Type = uint4;
};
template <> struct BytesToType<8> {
  using Type = uint2;
};
template <> struct BytesToType<4> {
  using Type = unsigned;
};

__device__ __forceinline__ float toF(float V) { return V; }
__device__ __forceinline__ float toF(__half V) { return __half2float(V); }
__device__ __forceinline__ float toF(__nv_bfloat16 V) {
  return __bfloat162float(V);
}
template <typename T> __device__ __forceinline__ T fromF(float V);
template <> __device__ __forceinline__ float fromF<float>(float V) { return V; }
template <> __device__ __forceinline__ __half fromF<__half>(float V) {
  return __float2half_rn(V);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromF<__nv_bfloat16>(float V) {
  return __float2bfloat16_rn(V);
}

constexpr int ilog2(int N) { return N <= 1 ? 0 : 1 + ilog2(N / 2); }
constexpr int imin(int A, int B) { return A < B ? A : B; }

template <int kNThreads, int kLogN, typename T> struct FhtTraits {
  static constexpr int N = 1 << kLogN;
  static constexpr int kNElts = imin(16 / int(sizeof(T)), N / kNThreads);
  static constexpr int kLogNElts = ilog2(kNElts);
  static constexpr int kNChunks = N / (kNElts * kNThreads);
  static constexpr int kLogNChunks = ilog2(kNChunks);
  static constexpr int kNWarps = kNThreads / 32;
  static constexpr int kLogNWarps = ilog2(kNWarps);
  using VecT = typename BytesToType<int(sizeof(T)) * kNElts>::Type;
  // Element (chunk C, thread Tid, element E) is C * kNThreads * kNElts +
  // Tid * kNElts + E, so a chunk of a thread is one aligned vector.
};

// Butterflies on the low index bits held in one thread's chunk.
template <int kLogNElts, int kNChunks, int kNElts>
__device__ __forceinline__ void butterflyThread(float (&X)[kNChunks][kNElts]) {
#pragma unroll
  for (int S = 0; S < kLogNElts; ++S) {
#pragma unroll
    for (int C = 0; C < kNChunks; ++C) {
#pragma unroll
      for (int E = 0; E < kNElts; ++E) {
        if (E & (1 << S))
          continue;
        const float A = X[C][E], B = X[C][E | (1 << S)];
        X[C][E] = A + B;
        X[C][E | (1 << S)] = A - B;
      }
    }
  }
}

// Butterflies on kLogWidth index bits held by lanes 1 << S apart, in the
// sign * mine + theirs form.
template <int kLogWidth, int kNChunks, int kNElts>
__device__ __forceinline__ void butterflyWarp(float (&X)[kNChunks][kNElts]) {
  const int Lane = threadIdx.x % (1 << kLogWidth);
#pragma unroll
  for (int S = 0; S < kLogWidth; ++S) {
    const float Sign = (Lane & (1 << S)) ? -1.0f : 1.0f;
#pragma unroll
    for (int C = 0; C < kNChunks; ++C) {
#pragma unroll
      for (int E = 0; E < kNElts; ++E) {
        const float Other = __shfl_xor_sync(0xffffffffu, X[C][E], 1 << S);
        X[C][E] = Sign * X[C][E] + Other;
      }
    }
  }
}

// Butterflies on the chunk bits: all in this thread's registers.
template <int kLogNChunks, int kNChunks, int kNElts>
__device__ __forceinline__ void butterflyChunks(float (&X)[kNChunks][kNElts]) {
#pragma unroll
  for (int S = 0; S < kLogNChunks; ++S) {
#pragma unroll
    for (int C = 0; C < kNChunks; ++C) {
      if (C & (1 << S))
        continue;
#pragma unroll
      for (int E = 0; E < kNElts; ++E) {
        const float A = X[C][E], B = X[C | (1 << S)][E];
        X[C][E] = A + B;
        X[C | (1 << S)][E] = A - B;
      }
    }
  }
}

// Moves the warp bits of the index into lane bits and back. After the Pre
// exchange thread T holds the values of warp T % kNWarps, lane T / kNWarps,
// so a shuffle stage over the low lane bits combines across warps; the
// other exchange undoes it. Values pass through shared memory as 16-byte
// vectors, with an xor swizzle on the slot so the stores of one warp
// spread over the banks.
template <int kNThreads, int kNWarps, bool Pre, int kNChunks, int kNElts>
__device__ __forceinline__ void exchange(float (&X)[kNChunks][kNElts],
                                         uint4 *Smem) {
  constexpr int kVecs = kNElts / 4;
  const int Warp = threadIdx.x / 32, Lane = threadIdx.x % 32;
  const int Row = threadIdx.x % kNWarps, Col = threadIdx.x / kNWarps;
  const int Mine = Pre ? (Warp * 32 + Lane) ^ Warp : (Row * 32 + Col) ^ Row;
  const int Theirs = Pre ? (Row * 32 + Col) ^ Row : (Warp * 32 + Lane) ^ Warp;
#pragma unroll
  for (int C = 0; C < kNChunks; ++C) {
    __syncthreads();
#pragma unroll
    for (int V = 0; V < kVecs; ++V)
      Smem[V * kNThreads + Mine] = reinterpret_cast<uint4 *>(X[C])[V];
    __syncthreads();
#pragma unroll
    for (int V = 0; V < kVecs; ++V)
      reinterpret_cast<uint4 *>(X[C])[V] = Smem[V * kNThreads + Theirs];
  }
}

// The warp bits for chunks too small for 16-byte exchanges: each thread
// stores its values, then combines with the thread 32 << S away.
template <int kNThreads, int kLogNWarps, int kNChunks, int kNElts>
__device__ __forceinline__ void butterflyWarpsScalar(
    float (&X)[kNChunks][kNElts], float *Smem) {
  const int Tid = threadIdx.x;
#pragma unroll
  for (int S = 0; S < kLogNWarps; ++S) {
    __syncthreads();
#pragma unroll
    for (int C = 0; C < kNChunks; ++C)
#pragma unroll
      for (int E = 0; E < kNElts; ++E)
        Smem[(C * kNElts + E) * kNThreads + Tid] = X[C][E];
    __syncthreads();
    const int Partner = Tid ^ (32 << S);
    const bool Upper = Tid & (32 << S);
#pragma unroll
    for (int C = 0; C < kNChunks; ++C)
#pragma unroll
      for (int E = 0; E < kNElts; ++E) {
        const float T = Smem[(C * kNElts + E) * kNThreads + Partner];
        X[C][E] = Upper ? T - X[C][E] : X[C][E] + T;
      }
  }
}

/// Launch parameters passed by value, as transform libraries pass them:
/// pointers untyped, strides 32-bit unsigned.
struct FhtParams {
  int Batch, Dim, LogN;
  const void *XPtr;
  void *OutPtr;
  uint32_t XBatchStride, OutBatchStride;
  float Scale;
};

template <int kNThreads, int kLogN, typename InputT>
__global__ __launch_bounds__(kNThreads) void fhtFwd(FhtParams P) {
  using Tr = FhtTraits<kNThreads, kLogN, InputT>;
  constexpr int kNElts = Tr::kNElts, kNChunks = Tr::kNChunks;
  using VecT = typename Tr::VecT;
  extern __shared__ float4 SmemRaw[];
  const int BatchId = blockIdx.x;
  const InputT *Row =
      reinterpret_cast<const InputT *>(P.XPtr) + BatchId * P.XBatchStride;
  InputT *OutRow =
      reinterpret_cast<InputT *>(P.OutPtr) + BatchId * P.OutBatchStride;

  // Loads land in a private array of the input type through a vector
  // pointer (the chunk size is the vector's), then widen to float.
  alignas(sizeof(VecT)) InputT Loaded[kNChunks][kNElts] = {};
#pragma unroll
  for (int C = 0; C < kNChunks; ++C)
    if ((C * blockDim.x + threadIdx.x) * kNElts < P.Dim)
      reinterpret_cast<VecT *>(Loaded)[C] =
          reinterpret_cast<const VecT *>(Row)[C * blockDim.x + threadIdx.x];
  float X[kNChunks][kNElts];
#pragma unroll
  for (int C = 0; C < kNChunks; ++C)
#pragma unroll
    for (int E = 0; E < kNElts; ++E)
      X[C][E] = toF(Loaded[C][E]);

  butterflyThread<Tr::kLogNElts>(X);
  butterflyWarp<5>(X);
  if constexpr (Tr::kNWarps > 1) {
    if constexpr (kNElts % 4 == 0) {
      exchange<kNThreads, Tr::kNWarps, true>(X, reinterpret_cast<uint4 *>(SmemRaw));
      butterflyWarp<Tr::kLogNWarps>(X);
      exchange<kNThreads, Tr::kNWarps, false>(X, reinterpret_cast<uint4 *>(SmemRaw));
    } else {
      butterflyWarpsScalar<kNThreads, Tr::kLogNWarps>(X, reinterpret_cast<float *>(SmemRaw));
    }
  }
  if constexpr (kNChunks > 1)
    butterflyChunks<Tr::kLogNChunks>(X);

  alignas(sizeof(VecT)) InputT Stored[kNChunks][kNElts];
#pragma unroll
  for (int C = 0; C < kNChunks; ++C)
#pragma unroll
    for (int E = 0; E < kNElts; ++E)
      Stored[C][E] = fromF<InputT>(X[C][E] * P.Scale);
#pragma unroll
  for (int C = 0; C < kNChunks; ++C)
    if ((C * blockDim.x + threadIdx.x) * kNElts < P.Dim)
      reinterpret_cast<VecT *>(OutRow)[C * blockDim.x + threadIdx.x] =
          reinterpret_cast<const VecT *>(Stored)[C];
}

// Host side: values are multiples of 1/8 in [-4, 4), exact in every input
// type, so the CPU works from the same inputs as the GPU.
template <typename T> static T hostFrom(float V) {
  if constexpr (sizeof(T) == 4) {
    return V;
  } else {
    uint32_t Bits;
    std::memcpy(&Bits, &V, 4);
    uint16_t H;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      H = uint16_t(Bits >> 16); // exact: the values have few mantissa bits
    } else {
      __half Tmp = __float2half(V);
      std::memcpy(&H, &Tmp, 2);
    }
    T R;
    std::memcpy(&R, &H, 2);
    return R;
  }
}
template <typename T> static float hostTo(T V) {
  if constexpr (sizeof(T) == 4) {
    return V;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    uint16_t H;
    std::memcpy(&H, &V, 2);
    uint32_t Bits = uint32_t(H) << 16;
    float F;
    std::memcpy(&F, &Bits, 4);
    return F;
  } else {
    return __half2float(V);
  }
}

template <int kNThreads, int kLogN, typename T>
static bool runCase(const char *TypeName, int Rows, int Dim, double Rel) {
  constexpr int N = 1 << kLogN;
  using Tr = FhtTraits<kNThreads, kLogN, T>;
  const float Scale = 1.0f / std::sqrt(float(N));
  std::vector<float> In(size_t(Rows) * Dim);
  Lcg Rng(uint64_t(kLogN * 1000 + kNThreads + Dim));
  for (auto &V : In)
    V = float(int(Rng.below(64)) - 32) / 8.0f;
  std::vector<T> HostIn(In.size());
  for (size_t I = 0; I < In.size(); ++I)
    HostIn[I] = hostFrom<T>(In[I]);
  T *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, In.size() * sizeof(T)));
  CHECK(cudaMalloc(&DOut, In.size() * sizeof(T)));
  CHECK(cudaMemcpy(DIn, HostIn.data(), In.size() * sizeof(T),
                   cudaMemcpyHostToDevice));
  FhtParams P = {Rows, Dim, kLogN, DIn, DOut, uint32_t(Dim), uint32_t(Dim), Scale};
  const size_t SmemBytes = size_t(N) * sizeof(float);
  fhtFwd<kNThreads, kLogN, T><<<Rows, kNThreads, SmemBytes>>>(P);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<T> Got(In.size());
  CHECK(cudaMemcpy(Got.data(), DOut, In.size() * sizeof(T),
                   cudaMemcpyDeviceToHost));

  size_t Bad = 0;
  std::vector<double> Work(N);
  for (int R = 0; R < Rows; ++R) {
    for (int I = 0; I < N; ++I)
      Work[I] = I < Dim ? In[size_t(R) * Dim + I] : 0.0;
    for (int H = 1; H < N; H *= 2)
      for (int I = 0; I < N; I += 2 * H)
        for (int J = I; J < I + H; ++J) {
          const double A = Work[J], B = Work[J + H];
          Work[J] = A + B;
          Work[J + H] = A - B;
        }
    for (int I = 0; I < Dim; ++I)
      Bad += !closeTo(hostTo(Got[size_t(R) * Dim + I]), Work[I] * Scale, Rel,
                      Rel);
  }
  std::printf("fht %-5s threads %3d n %5d (elts %d chunks %d vec %2d B) "
              "rows %3d dim %5d: %zu wrong\n",
              TypeName, kNThreads, N, Tr::kNElts, Tr::kNChunks,
              int(sizeof(typename Tr::VecT)), Rows, Dim, Bad);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return Bad == 0;
}

int main() {
  bool Ok = true;
  Ok &= runCase<32, 7, float>("f32", 16, 128, 1e-5);
  Ok &= runCase<128, 10, float>("f32", 24, 1024, 1e-5);
  Ok &= runCase<256, 12, float>("f32", 8, 4096, 1e-5);
  Ok &= runCase<128, 11, float>("f32", 8, 1800, 1e-5);
  Ok &= runCase<64, 9, __half>("f16", 16, 512, 2e-3);
  Ok &= runCase<128, 12, __half>("f16", 8, 4096, 2e-3);
  Ok &= runCase<256, 11, __half>("f16", 8, 2048, 2e-3);
  Ok &= runCase<128, 8, __half>("f16", 8, 256, 2e-3);
  Ok &= runCase<128, 10, __nv_bfloat16>("bf16", 16, 1024, 1e-2);
  Ok &= runCase<256, 13, __nv_bfloat16>("bf16", 4, 8192, 1e-2);
  Ok &= runCase<64, 7, __nv_bfloat16>("bf16", 8, 128, 1e-2);
  return finish(Ok);
}
