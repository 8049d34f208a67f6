/// \file
/// Kernels of the wgmma execution tests (WgmmaCases.def), one warpgroup
/// (128 threads) each. kernels.ptx is this file compiled by
/// `nvcc -arch=sm_90a -ptx kernels.cu -o kernels.ptx` (nvcc 13);
/// WgmmaExecTest.cpp runs that PTX on the host executor. Built with
/// -DWGMMA_VALIDATE_MAIN the same kernels run on an H100 against the same
/// reference (WgmmaDriver.h): that is what checks the shared-memory layouts
/// and descriptors written below (from the PTX ISA's "Shared Memory Matrix
/// Layout" and "Matrix Descriptor" sections) and the accumulator layout.
#include "WgmmaDriver.h"
#include <cstdint>

// Byte offset of element (mn, k) in a tile of MN rows (A: 64, B: 16) in the
// canonical layout: core matrices of 8 rows of 16 bytes; with swizzle width
// W (16 without swizzle), K-major: (mn/8)*SBO + (kE/W)*LBO + (mn%8)*W +
// kE%W; MN-major without swizzle: (mn/8)*SBO + (k/8)*LBO + (k%8)*16 +
// (mnE)%16; MN-major swizzled: (mnE/W)*LBO + (k/8)*SBO + (k%8)*W + (mnE)%W.
// Swizzling XORs address bits 4.. with bits 7.. (3, 2 or 1 bits); tiles are
// 1024-byte aligned so offsets and addresses swizzle alike.
struct TileLayout {
  int ES, K, MN, Swz;
  bool MNMajor;
  __host__ __device__ int w() const { return Swz == 0 ? 16 : Swz == 1 ? 128 : Swz == 2 ? 64 : 32; }
  __host__ __device__ unsigned lbo() const {
    if (!MNMajor)
      return Swz ? 16 : 128;
    return Swz ? w() * K : 128 * (MN * ES / 16);
  }
  __host__ __device__ unsigned sbo() const {
    if (!MNMajor)
      return Swz ? 8 * w() : 256;
    return Swz ? 8 * w() : 128;
  }
  __host__ __device__ unsigned offset(int Mn, int Kk) const {
    unsigned W = w(), Off;
    if (!MNMajor)
      Off = (Mn / 8) * sbo() + (Kk * ES / W) * lbo() + (Mn % 8) * W + (Kk * ES) % W;
    else if (!Swz)
      Off = (Mn / 8) * sbo() + (Kk / 8) * lbo() + (Kk % 8) * 16 + (Mn * ES) % 16;
    else
      Off = (Mn * ES / W) * lbo() + (Kk / 8) * sbo() + (Kk % 8) * W + (Mn * ES) % W;
    unsigned Mask = Swz == 1 ? 7 : Swz == 2 ? 3 : Swz == 3 ? 1 : 0;
    return Off ^ (((Off >> 7) & Mask) << 4);
  }
  __device__ uint64_t descriptor(const void *Tile) const {
    uint64_t Addr = uint64_t(__cvta_generic_to_shared(Tile));
    uint64_t Mode = Swz; // 0 none, 1 128B, 2 64B, 3 32B
    return ((Addr & 0x3FFFF) >> 4) | uint64_t(lbo() >> 4) << 16 | uint64_t(sbo() >> 4) << 32 | Mode << 62;
  }
};

// Copies A (64xK row-major) and B (Kx16, column n at n*K) into their tiles,
// builds the descriptors, and (ARegs) packs A into mma.sync's m16n8kK
// register layout: register r holds row 16w + g + 8(r&1), k = t*P + e +
// (K/2)(r>>1), P = 4/ES elements low first.
template <int ES, int K, int ASwz, int BSwz, bool ATr, bool BTr>
__device__ void setup(const uint8_t *A, const uint8_t *B, uint8_t *TA, uint8_t *TB, uint64_t &DA, uint64_t &DB,
                      uint32_t *Areg) {
  TileLayout LA{ES, K, 64, ASwz, ATr}, LB{ES, K, 16, BSwz, BTr};
  for (int I = threadIdx.x; I < 8192; I += 128)
    TA[I] = 0;
  for (int I = threadIdx.x; I < 2048; I += 128)
    TB[I] = 0;
  __syncthreads();
  for (int I = threadIdx.x; I < 64 * K; I += 128)
    for (int Byte = 0; Byte < ES; ++Byte)
      TA[LA.offset(I / K, I % K) + Byte] = A[I * ES + Byte];
  for (int I = threadIdx.x; I < 16 * K; I += 128) // I = n*K + k
    for (int Byte = 0; Byte < ES; ++Byte)
      TB[LB.offset(I / K, I % K) + Byte] = B[I * ES + Byte];
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  DA = LA.descriptor(TA);
  DB = LB.descriptor(TB);
  int Lane = threadIdx.x & 31, W = threadIdx.x >> 5, G = Lane >> 2, T = Lane & 3, P = 4 / ES;
  for (int R = 0; R < 4; ++R) {
    uint32_t V = 0;
    for (int E = 0; E < P; ++E) {
      int Row = 16 * W + G + 8 * (R & 1), Kk = T * P + E + (K / 2) * (R >> 1);
      for (int Byte = 0; Byte < ES; ++Byte)
        V |= uint32_t(A[(Row * K + Kk) * ES + Byte]) << (8 * (E * ES + Byte));
    }
    Areg[R] = V;
  }
}

// Accumulator element i of a thread: row 16w + g + 8((i>>1)&1), column
// 8(i>>2) + 2t + (i&1); 64x16 row-major in memory.
__device__ int accIndex(int I) {
  int Lane = threadIdx.x & 31, W = threadIdx.x >> 5;
  return (16 * W + (Lane >> 2) + 8 * ((I >> 1) & 1)) * 16 + 8 * (I >> 2) + 2 * (Lane & 3) + (I & 1);
}

#define PTXT_F32 "f32"
#define PTXT_F16 "f16"
#define PTXT_S32 "s32"
#define PTXT_BF16 "bf16"
#define PTXT_TF32 "tf32"
#define PTXT_E4M3 "e4m3"
#define PTXT_E5M2 "e5m2"
#define PTXT_S8 "s8"
#define PTXT_U8 "u8"
#define ES_F16 2
#define ES_BF16 2
#define ES_TF32 4
#define ES_E4M3 1
#define ES_E5M2 1
#define ES_S8 1
#define ES_U8 1
// The operands after scale-d: imm-scale-a, imm-scale-b (floats), then the
// transposes (16-bit inputs; imm-trans-a only with A in shared memory).
#define NEG_0 "1"
#define NEG_1 "-1"
#define TR_0(ATr, BTr) ", " #ATr ", " #BTr
#define TR_1(ATr, BTr) ", " #BTr
#define TAIL_F16(NegA, ATr, BTr, ARegs) ", " NEG_##NegA ", 1" TR_##ARegs(ATr, BTr)
#define TAIL_BF16(NegA, ATr, BTr, ARegs) ", " NEG_##NegA ", 1" TR_##ARegs(ATr, BTr)
#define TAIL_TF32(NegA, ATr, BTr, ARegs) ", " NEG_##NegA ", 1"
#define TAIL_E4M3(NegA, ATr, BTr, ARegs) ", " NEG_##NegA ", 1"
#define TAIL_E5M2(NegA, ATr, BTr, ARegs) ", " NEG_##NegA ", 1"
#define TAIL_S8(NegA, ATr, BTr, ARegs) ""
#define TAIL_U8(NegA, ATr, BTr, ARegs) ""
#define BTYPE_S8 "s8"
#define BTYPE_U8 "u8"

// One wgmma per accumulator kind (8 f32, 4 f16x2 or 8 s32 registers) and A
// source (descriptor or 4 registers); scale-d comes in as an integer.
#define SCALE_D(N) "{\n.reg .pred p;\nsetp.ne.b32 p, %" #N ", 0;\n"
#define ASM_F32_0(Op, Tail)                                                                        \
  asm volatile(SCALE_D(10) Op " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p" Tail ";\n}"            \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
                 "+f"(d[7])                                                                        \
               : "l"(DA), "l"(DB), "r"(ScaleD))
#define ASM_F32_1(Op, Tail)                                                                        \
  asm volatile(SCALE_D(13) Op " {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p" Tail \
               ";\n}"                                                                              \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
                 "+f"(d[7])                                                                        \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(DB), "r"(ScaleD))
#define ASM_S32_0(Op, Tail)                                                                        \
  asm volatile(SCALE_D(10) Op " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p" Tail ";\n}"            \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), \
                 "+r"(d[7])                                                                        \
               : "l"(DA), "l"(DB), "r"(ScaleD))
#define ASM_S32_1(Op, Tail)                                                                        \
  asm volatile(SCALE_D(13) Op " {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p" Tail \
               ";\n}"                                                                              \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), \
                 "+r"(d[7])                                                                        \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(DB), "r"(ScaleD))
#define ASM_F16_0(Op, Tail)                                                                        \
  asm volatile(SCALE_D(6) Op " {%0, %1, %2, %3}, %4, %5, p" Tail ";\n}"                             \
               : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3])                                    \
               : "l"(DA), "l"(DB), "r"(ScaleD))
#define ASM_F16_1(Op, Tail)                                                                        \
  asm volatile(SCALE_D(9) Op " {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p" Tail ";\n}"               \
               : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(DB), "r"(ScaleD))

typedef float AccT_F32;
typedef int AccT_S32;
typedef uint16_t AccT_F16;

#define WGMMA_CASE(Name, In, Acc, K, ASwz, BSwz, ATr, BTr, ARegs, ScaleDV, NegA)                   \
  extern "C" __global__ void __launch_bounds__(128) Name(const uint8_t *A, const uint8_t *B,        \
                                                         const AccT_##Acc *C, AccT_##Acc *D) {     \
    __shared__ __align__(1024) uint8_t TA[8192];                                                   \
    __shared__ __align__(1024) uint8_t TB[2048];                                                   \
    uint64_t DA, DB;                                                                               \
    uint32_t a[4];                                                                                 \
    setup<ES_##In, K, ASwz, BSwz, ATr, BTr>(A, B, TA, TB, DA, DB, a);                              \
    int ScaleD = ScaleDV;                                                                          \
    AccT_##Acc d[8];                                                                               \
    uint32_t h[4];                                                                                 \
    for (int I = 0; I < 8; ++I)                                                                    \
      d[I] = C[accIndex(I)];                                                                       \
    for (int I = 0; I < 4; ++I)                                                                    \
      h[I] = uint32_t(C[accIndex(2 * I)]) | uint32_t(C[accIndex(2 * I + 1)]) << 16;                \
    (void)h;                                                                                       \
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                                        \
    ASM_##Acc##_##ARegs("wgmma.mma_async.sync.aligned.m64n16k" #K "." PTXT_##Acc "." PTXT_##In      \
                        "." PTXT_##In,                                                             \
                        TAIL_##In(NegA, ATr, BTr, ARegs));                                         \
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                                 \
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");                                 \
    storeAcc(D, d, h);                                                                             \
  }

__device__ void storeAcc(float *D, const float *d, const uint32_t *) {
  for (int I = 0; I < 8; ++I)
    D[accIndex(I)] = d[I];
}
__device__ void storeAcc(int *D, const int *d, const uint32_t *) {
  for (int I = 0; I < 8; ++I)
    D[accIndex(I)] = d[I];
}
__device__ void storeAcc(uint16_t *D, const uint16_t *, const uint32_t *h) {
  for (int I = 0; I < 8; ++I)
    D[accIndex(I)] = uint16_t(h[I / 2] >> (16 * (I & 1)));
}

#include "WgmmaCases.def"

#ifdef WGMMA_VALIDATE_MAIN
#include <cstdio>

static std::string launchNative(const void *Kernel, std::vector<wgmmaref::Buffer> &Bufs) {
  std::vector<void *> Dev(Bufs.size()), Args;
  for (size_t I = 0; I < Bufs.size(); ++I) {
    if (cudaMalloc(&Dev[I], Bufs[I].Bytes) != cudaSuccess ||
        cudaMemcpy(Dev[I], Bufs[I].Host, Bufs[I].Bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      return "alloc/copy failed";
    Args.push_back(&Dev[I]);
  }
  cudaError_t E = cudaLaunchKernel(Kernel, dim3(1), dim3(128), Args.data(), 0, 0);
  if (E == cudaSuccess)
    E = cudaDeviceSynchronize();
  if (E != cudaSuccess)
    return cudaGetErrorName(E);
  for (size_t I = 0; I < Bufs.size(); ++I) {
    cudaMemcpy(Bufs[I].Host, Dev[I], Bufs[I].Bytes, cudaMemcpyDeviceToHost);
    cudaFree(Dev[I]);
  }
  return "";
}

int main() {
  int Failed = 0;
#define WGMMA_CASE(Name, In, Acc, K, ASwz, BSwz, ATr, BTr, ARegs, ScaleD, NegA)                    \
  {                                                                                                \
    std::string E = wgmmaref::runWgmma(                                                            \
        [](std::vector<wgmmaref::Buffer> &B) { return launchNative((const void *)Name, B); },      \
        mmaref::ET::In, mmaref::ET::Acc, K, ScaleD, NegA);                                         \
    std::printf("%-32s %s\n", #Name, E.empty() ? "ok" : E.c_str());                               \
    Failed += !E.empty();                                                                          \
  }
#include "WgmmaCases.def"
  std::printf("%s\n", Failed ? "FAILED" : "PASSED");
  return Failed != 0;
}
#endif
