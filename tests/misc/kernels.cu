// Kernels of the misc-instruction execution tests (tests/misc): video
// instructions (VideoCases.def), fns, f64 fma with directed rounding,
// cp.reduce.async.bulk, cp.async.bulk.tensor, and mbarrier (raw PTX producer/consumer, token semantics, a bulk copy, and
// libcu++'s cuda::barrier). kernels.ptx is generated from this file:
//   nvcc -ptx -arch=sm_90 kernels.cu -o kernels.ptx
// With -DMISC_VALIDATE_MAIN it builds a program that runs every case on a
// real GPU and compares with MiscRef.h / MiscDriver.h (the H100 check).
#include <cuda.h>
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cstdint>

__global__ void video_all(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  uint32_t a = A[I], b = B[I], c = C[I], d;
  int K = 0;
  const int NCases = 0
#define VIDEO_CASE(S) +1
#include "VideoCases.def"
#undef VIDEO_CASE
      ;
#define VIDEO_CASE(S)                                                                              \
  asm volatile(S : "=r"(d) : "r"(a), "r"(b), "r"(c));                                              \
  Out[I * NCases + K++] = d;
#include "VideoCases.def"
#undef VIDEO_CASE
}

__global__ void fns_all(const uint32_t *M, const uint32_t *Base, const int32_t *Off, uint32_t *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  uint32_t d;
  asm volatile("fns.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(M[I]), "r"(Base[I]), "r"(Off[I]));
  Out[I] = d;
}

__global__ void fma_directed(const double *A, const double *B, const double *C, double *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  double a = A[I], b = B[I], c = C[I], rz, rm, rp;
  asm volatile("fma.rz.f64 %0, %1, %2, %3;" : "=d"(rz) : "d"(a), "d"(b), "d"(c));
  asm volatile("fma.rm.f64 %0, %1, %2, %3;" : "=d"(rm) : "d"(a), "d"(b), "d"(c));
  asm volatile("fma.rp.f64 %0, %1, %2, %3;" : "=d"(rp) : "d"(a), "d"(b), "d"(c));
  Out[3 * I] = rz;
  Out[3 * I + 1] = rm;
  Out[3 * I + 2] = rp;
}

__device__ unsigned smem(const void *P) { return unsigned(__cvta_generic_to_shared(P)); }
__device__ void mbarInit(uint64_t *B, unsigned N) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(B)), "r"(N) : "memory");
}
__device__ uint64_t mbarArrive(uint64_t *B) {
  uint64_t T;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(T) : "r"(smem(B)) : "memory");
  return T;
}
__device__ bool mbarTryWaitParity(uint64_t *B, unsigned Parity) {
  uint32_t R;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n}"
               : "=r"(R) : "r"(smem(B)), "r"(Parity) : "memory");
  return R;
}
__device__ void mbarWaitParity(uint64_t *B, unsigned Parity) {
  while (!mbarTryWaitParity(B, Parity)) {
  }
}

// Warp 0 produces Stages stages of 96 ints through a two-slot ring; warps 1-3
// consume them. full[s] counts the 32 producers, empty[s] the 96 consumers.
__global__ void mbar_pipeline(const int *In, int *Out, int Stages) {
  __shared__ uint64_t Full[2], Empty[2];
  __shared__ int Buf[2][96];
  unsigned Tid = threadIdx.x;
  if (Tid == 0) {
    for (int S = 0; S < 2; ++S) {
      mbarInit(&Full[S], 32);
      mbarInit(&Empty[S], 96);
    }
  }
  __syncthreads();
  for (int S = 0; S < Stages; ++S) {
    int Slot = S & 1;
    if (Tid < 32) {
      if (S >= 2)
        mbarWaitParity(&Empty[Slot], ((S - 2) / 2) & 1);
      for (int K = 0; K < 3; ++K)
        Buf[Slot][Tid + 32 * K] = In[S * 96 + Tid + 32 * K];
      mbarArrive(&Full[Slot]);
    } else {
      unsigned C = Tid - 32;
      mbarWaitParity(&Full[Slot], (S / 2) & 1);
      Out[S * 96 + C] = Buf[Slot][C] * 2 + S;
      mbarArrive(&Empty[Slot]);
    }
  }
}

// One thread walks a barrier through its states and records what the
// instructions report (token, pending count, waits, tx-count).
__global__ void mbar_tokens(uint32_t *Out) {
  __shared__ uint64_t Bar;
  unsigned B = smem(&Bar);
  uint64_t T1, T2, T3, T4;
  uint32_t P1, P2, P3, W[12];
  int K = 0;
#define TEST_TOKEN(T)                                                                              \
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}" \
               : "=r"(W[K++]) : "r"(B), "l"(T) : "memory")
#define TEST_PARITY(P)                                                                             \
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}" \
               : "=r"(W[K++]) : "r"(B), "r"(P) : "memory")
  asm volatile("mbarrier.init.shared.b64 [%0], 4;" ::"r"(B) : "memory");
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(T1) : "r"(B) : "memory");
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(P1) : "l"(T1));
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1], 2;" : "=l"(T2) : "r"(B) : "memory");
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(P2) : "l"(T2));
  TEST_TOKEN(T1);     // 0: phase 0 still open
  TEST_PARITY(0u);    // 0
  TEST_PARITY(1u);    // 1: "the preceding phase" has completed
  // Drop one expected arrival: the phase completes and later phases expect 3.
  asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(T3) : "r"(B) : "memory");
  TEST_TOKEN(T1);     // 1
  TEST_TOKEN(T3);     // 1
  TEST_PARITY(0u);    // 1
  // Phase 1: expect 16 bytes, arrive 3 times: still waiting for the bytes.
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 %0, [%1], 16;" : "=l"(T4) : "r"(B) : "memory");
  asm volatile("mbarrier.arrive.shared.b64 _, [%0], 2;" ::"r"(B) : "memory");
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(P3) : "l"(T4));
  TEST_TOKEN(T4);     // 0
  asm volatile("mbarrier.complete_tx.shared.b64 [%0], 10;" ::"r"(B) : "memory");
  TEST_PARITY(1u);    // 0
  asm volatile("mbarrier.complete_tx.shared.b64 [%0], 6;" ::"r"(B) : "memory");
  TEST_TOKEN(T4);     // 1
  TEST_PARITY(1u);    // 1
  // Phase 2: bytes arrive before they are expected.
  asm volatile("mbarrier.complete_tx.shared.b64 [%0], 8;" ::"r"(B) : "memory");
  asm volatile("mbarrier.arrive.shared.b64 _, [%0], 3;" ::"r"(B) : "memory");
  TEST_PARITY(0u);    // 0: tx-count is -8
  asm volatile("mbarrier.expect_tx.shared.b64 [%0], 8;" ::"r"(B) : "memory");
  TEST_PARITY(0u);    // tx-count back at 0 through expect_tx: completes
  asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(B) : "memory");
  Out[0] = P1;
  Out[1] = P2;
  Out[2] = P3;
  for (int I = 0; I < K; ++I)
    Out[3 + I] = W[I];
}

// Thread 0 expects the bytes and issues a bulk copy that completes them;
// every thread waits on the barrier and copies the tile out.
__global__ void mbar_bulk(const int4 *G, int4 *Out) {
  __shared__ alignas(16) int4 Tile[64];
  __shared__ uint64_t Bar;
  if (threadIdx.x == 0)
    mbarInit(&Bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&Bar)), "r"(1024u)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem(Tile)), "l"(G), "r"(1024u), "r"(smem(&Bar)) : "memory");
  }
  mbarWaitParity(&Bar, 0);
  Out[threadIdx.x] = Tile[threadIdx.x];
}

// cp.reduce.async.bulk: Acc (global) += Src (f32 add, bulk_group), Mn
// (global) = min(Mn, Src) (s32), and a shared tile (initialised from Sh)
// max'ed with Src (s32, shared::cluster with an mbarrier), copied to Out.
__global__ void bulk_reduce(const int *Src, float *Acc, int *Mn, const int *Sh, int *Out) {
  __shared__ alignas(16) int S[256];
  __shared__ alignas(16) float SF[256];
  __shared__ alignas(16) int T[256];
  __shared__ uint64_t Bar;
  S[threadIdx.x] = Src[threadIdx.x];
  SF[threadIdx.x] = float(Src[threadIdx.x]) * 0.5f;
  T[threadIdx.x] = Sh[threadIdx.x];
  if (threadIdx.x == 0)
    mbarInit(&Bar, 1);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], 1024;"
                 ::"l"(Acc), "r"(smem(SF)) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], 1024;"
                 ::"l"(Mn), "r"(smem(S)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&Bar)), "r"(1024u)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.s32 "
                 "[%0], [%1], 1024, [%2];" ::"r"(smem(T)), "r"(smem(S)), "r"(smem(&Bar)) : "memory");
  }
  mbarWaitParity(&Bar, 0);
  Out[threadIdx.x] = T[threadIdx.x];
}

// cp.async.bulk.tensor, tile mode, 2D f32 (the map in global memory): a
// box of 8x8 at (36, -3) of a 40x20 tensor (partly outside: zeros), with the
// 32B swizzle, loaded into a 1024-byte aligned tile whose raw words go to
// Tile; then the tile stored back at (4, 15) (rows past 19 skipped).
__global__ void tma_tile(const CUtensorMap *Map, float *Tile, int C0, int C1, int S0, int S1) {
  __shared__ alignas(1024) float T[64];
  __shared__ uint64_t Bar;
  if (threadIdx.x == 0)
    mbarInit(&Bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&Bar)), "r"(256u) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem(T)), "l"(Map), "r"(C0), "r"(C1), "r"(smem(&Bar)) : "memory");
  }
  mbarWaitParity(&Bar, 0);
  Tile[threadIdx.x] = T[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(Map), "r"(S0), "r"(S1), "r"(smem(T)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// cuda::barrier (libcu++): Rounds phases of arrive_and_wait, each thread
// adding to a shared accumulator between phases.
__global__ void cuda_barrier(int *Out, int Rounds) {
  __shared__ cuda::barrier<cuda::thread_scope_block> Bar;
  __shared__ int Acc[2];
  if (threadIdx.x == 0) {
    init(&Bar, blockDim.x);
    Acc[0] = Acc[1] = 0;
  }
  __syncthreads();
  for (int R = 0; R < Rounds; ++R) {
    atomicAdd(&Acc[R & 1], int(threadIdx.x) + R);
    Bar.arrive_and_wait();
    if (threadIdx.x == 0)
      Out[R] = Acc[R & 1];
    auto Tok = Bar.arrive();
    if (threadIdx.x == 0)
      Acc[R & 1] = 0;
    Bar.wait(std::move(Tok));
  }
}

#ifdef MISC_VALIDATE_MAIN
#include "MiscDriver.h"
#include <cstdio>

int main() {
  miscref::Launch L = [](const char *Name, std::vector<miscref::Buffer> &Bufs, const std::vector<int> &Ints,
                         unsigned Grid, unsigned Block) -> std::string {
    std::vector<void *> Dev(Bufs.size());
    std::vector<void *> Args;
    for (size_t I = 0; I < Bufs.size(); ++I) {
      cudaMalloc(&Dev[I], Bufs[I].Bytes);
      cudaMemcpy(Dev[I], Bufs[I].Host, Bufs[I].Bytes, cudaMemcpyHostToDevice);
    }
    for (auto &D : Dev)
      Args.push_back(&D);
    std::vector<int> IntsCopy = Ints;
    for (int &V : IntsCopy)
      Args.push_back(&V);
    void *Fn = nullptr;
    std::string N = Name;
    if (N == "video_all") Fn = (void *)video_all;
    if (N == "fns_all") Fn = (void *)fns_all;
    if (N == "fma_directed") Fn = (void *)fma_directed;
    if (N == "mbar_pipeline") Fn = (void *)mbar_pipeline;
    if (N == "mbar_tokens") Fn = (void *)mbar_tokens;
    if (N == "mbar_bulk") Fn = (void *)mbar_bulk;
    if (N == "cuda_barrier") Fn = (void *)cuda_barrier;
    if (N == "bulk_reduce") Fn = (void *)bulk_reduce;
    if (N == "tma_tile") Fn = (void *)tma_tile;
    cudaError_t E;
    if (N == "bulk_reduce") {
      // Its shared::cluster form needs a cluster launch (one CTA each),
      // which is what every launch is on ferry.
      cudaLaunchConfig_t Cfg = {};
      Cfg.gridDim = dim3(Grid);
      Cfg.blockDim = dim3(Block);
      cudaLaunchAttribute At[1];
      At[0].id = cudaLaunchAttributeClusterDimension;
      At[0].val.clusterDim.x = At[0].val.clusterDim.y = At[0].val.clusterDim.z = 1;
      Cfg.attrs = At;
      Cfg.numAttrs = 1;
      E = cudaLaunchKernelExC(&Cfg, Fn, Args.data());
    } else {
      E = cudaLaunchKernel(Fn, Grid, Block, Args.data(), 0, 0);
    }
    if (E == cudaSuccess)
      E = cudaDeviceSynchronize();
    for (size_t I = 0; I < Bufs.size(); ++I) {
      cudaMemcpy(Bufs[I].Host, Dev[I], Bufs[I].Bytes, cudaMemcpyDeviceToHost);
      cudaFree(Dev[I]);
    }
    return E == cudaSuccess ? "" : cudaGetErrorString(E);
  };
  int Bad = 0;
  {
    // tma_tile: the map comes from NVIDIA's cuTensorMapEncodeTiled.
    miscref::TmaCase Case;
    float *DT, *DTile;
    CUtensorMap Map, *DMap;
    cudaMalloc(&DT, Case.Tensor.size() * 4);
    cudaMalloc(&DTile, 64 * 4);
    cudaMalloc(&DMap, sizeof Map);
    cudaMemcpy(DT, Case.Tensor.data(), Case.Tensor.size() * 4, cudaMemcpyHostToDevice);
    cuuint64_t Dims[2] = {miscref::TmaCase::W, miscref::TmaCase::H}, Strides[1] = {miscref::TmaCase::Pitch * 4};
    cuuint32_t Box[2] = {8, 8}, ES[2] = {1, 1};
    CUresult R = cuTensorMapEncodeTiled(&Map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, DT, Dims, Strides, Box, ES,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    cudaMemcpy(DMap, &Map, sizeof Map, cudaMemcpyHostToDevice);
    tma_tile<<<1, 64>>>(DMap, DTile, miscref::TmaCase::C0, miscref::TmaCase::C1, miscref::TmaCase::S0,
                        miscref::TmaCase::S1);
    cudaError_t E = cudaDeviceSynchronize();
    std::vector<float> Tile(64), After(Case.Tensor.size());
    cudaMemcpy(Tile.data(), DTile, 256, cudaMemcpyDeviceToHost);
    cudaMemcpy(After.data(), DT, After.size() * 4, cudaMemcpyDeviceToHost);
    std::string Err = R != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed"
                      : E != cudaSuccess ? cudaGetErrorString(E) : Case.check(Tile, After);
    std::printf("%s tma_tile%s\n", Err.empty() ? "PASS" : "FAIL", Err.empty() ? "" : (": " + Err).c_str());
    Bad += !Err.empty();
  }
  for (auto &[Name, Fn] : miscref::cases()) {
    std::string R = Fn(L);
    std::printf("%s %s%s\n", R.empty() ? "PASS" : "FAIL", Name, R.empty() ? "" : (": " + R).c_str());
    Bad += !R.empty();
  }
  return Bad != 0;
}
#endif
