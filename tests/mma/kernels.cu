/// \file
/// Kernels of the matrix-instruction execution tests (wmma, mma.sync,
/// ldmatrix, stmatrix, movmatrix), one warp each. kernels.ptx is this file
/// compiled by `nvcc -arch=sm_90 -ptx kernels.cu -o kernels.ptx` (nvcc 13);
/// MmaExecTest.cpp runs that PTX on the host executor. Built with
/// -DMMA_VALIDATE_MAIN the same kernels run natively against the same
/// reference (MmaRef.h): that is how the mma.sync fragment formulas below,
/// written from the PTX ISA's "Matrix Fragments for mma.m16n8kK" tables
/// independently of ptx/lower/LowerMma.cpp, were checked on an H100.
#include "MmaRef.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>

using namespace nvcuda;

//===----------------------------------------------------------------------===//
// wmma: load A, B, C (layouts and strides as given), mma, store D.
//===----------------------------------------------------------------------===//

typedef float AccMem_F32;
typedef __half AccMem_F16;
typedef int AccMem_S32;
typedef double AccMem_F64;

template <int M, int N, int K, typename InMem, typename Frag, typename AccT, typename LA, typename LB>
__device__ void wmmaBody(const InMem *A, const InMem *B, const AccT *C, AccT *D, int Lda, int Ldb,
                         int Ldc, int CRow) {
  wmma::fragment<wmma::matrix_a, M, N, K, Frag, LA> FA;
  wmma::fragment<wmma::matrix_b, M, N, K, Frag, LB> FB;
  wmma::fragment<wmma::accumulator, M, N, K, AccT> FC;
  wmma::load_matrix_sync(FA, A, Lda);
  wmma::load_matrix_sync(FB, B, Ldb);
  wmma::layout_t L = CRow ? wmma::mem_row_major : wmma::mem_col_major;
  wmma::load_matrix_sync(FC, C, Ldc, L);
  wmma::mma_sync(FC, FA, FB, FC);
  wmma::store_matrix_sync(D, FC, Ldc, L);
}

#define WMMA_CASE(Name, M, N, K, InMem, Frag, In, Acc, LA, LB)                                     \
  extern "C" __global__ void Name(const InMem *A, const InMem *B, const AccMem_##Acc *C,          \
                                  AccMem_##Acc *D, int Lda, int Ldb, int Ldc, int CRow) {         \
    wmmaBody<M, N, K, InMem, Frag, AccMem_##Acc, wmma::LA, wmma::LB>(A, B, C, D, Lda, Ldb, Ldc,   \
                                                                     CRow);                       \
  }
#include "MmaCases.def"

// A from shared memory (wmma.load...shared), B from a pointer that is shared
// or global at run time (generic wmma.load). 16x16x16, A row-major, B
// column-major, C and D row-major, all dense.
extern "C" __global__ void wmma_shared_generic(const __half *A, const __half *B, const float *C,
                                               float *D, int UseShared) {
  __shared__ __align__(32) __half SA[256], SB[256];
  for (int I = threadIdx.x; I < 256; I += 32) {
    SA[I] = A[I];
    SB[I] = B[I];
  }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FA;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FB;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> FC;
  wmma::load_matrix_sync(FA, SA, 16);
  wmma::load_matrix_sync(FB, UseShared ? SB : B, 16);
  wmma::load_matrix_sync(FC, C, 16, wmma::mem_row_major);
  wmma::mma_sync(FC, FA, FB, FC);
  wmma::store_matrix_sync(D, FC, 16, wmma::mem_row_major);
}

// Element-wise fragment access: D = 2 * (A*B + 1.5) with f32 accumulate,
// DH = A*B + 1 with f16 accumulate (fill_fragment, x[i] *= 2).
extern "C" __global__ void wmma_fill_scale(const __half *A, const __half *B, float *D, __half *DH) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FA;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FB;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> FC;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> FH;
  wmma::load_matrix_sync(FA, A, 16);
  wmma::load_matrix_sync(FB, B, 16);
  wmma::fill_fragment(FC, 1.5f);
  wmma::fill_fragment(FH, __float2half(1.0f));
  wmma::mma_sync(FC, FA, FB, FC);
  wmma::mma_sync(FH, FA, FB, FH);
  for (int I = 0; I < FC.num_elements; ++I)
    FC.x[I] *= 2.0f;
  wmma::store_matrix_sync(D, FC, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(DH, FH, 16, wmma::mem_row_major);
}

//===----------------------------------------------------------------------===//
// mma.sync: each lane gathers its fragment elements with the PTX ISA's
// formulas (groupID G = lane >> 2, threadID_in_group T = lane & 3).
// A row-major MxK, B column-major (k, n) at n*K + k, C/D row-major MxN.
//===----------------------------------------------------------------------===//

#define LANE_IDS                                                                                   \
  int Lane = threadIdx.x & 31, G = Lane >> 2, T = Lane & 3;                                        \
  (void)G;                                                                                         \
  (void)T;

__device__ void setBits(uint32_t *R, int I, int Width, uint32_t V) {
  int PerReg = 32 / Width, Sh = (I % PerReg) * Width;
  uint32_t Mask = (Width == 32 ? ~0u : ((1u << Width) - 1)) << Sh;
  R[I / PerReg] = (R[I / PerReg] & ~Mask) | ((V << Sh) & Mask);
}
__device__ uint32_t getBits(const uint32_t *R, int I, int Width) {
  int PerReg = 32 / Width, Sh = (I % PerReg) * Width;
  return Width == 32 ? R[I] : (R[I / PerReg] >> Sh) & ((1u << Width) - 1);
}
// C/D element I of an m16n8 accumulator: row G + 8*(I >= 2), column 2T + (I & 1).
__device__ int cRow(int I, int G) { return G + (I >= 2 ? 8 : 0); }
__device__ int cCol(int I, int T) { return 2 * T + (I & 1); }

// f16/bf16, m16n8k16: a0..a7 in 4 regs, b0..b3 in 2 regs.
__device__ int aRowK16(int I, int G) { return G + ((I < 2 || (I >= 4 && I < 6)) ? 0 : 8); }
__device__ int aColK16(int I, int T) { return T * 2 + (I & 1) + (I >= 4 ? 8 : 0); }
__device__ int bRowK16(int I, int T) { return T * 2 + (I & 1) + (I >= 2 ? 8 : 0); }

#define MMA_F16_K16_F32(Name, Type)                                                                \
  extern "C" __global__ void Name(const uint16_t *A, const uint16_t *B, const float *C, float *D) {  \
    LANE_IDS                                                                                       \
    uint32_t a[4] = {}, b[2] = {};                                                                 \
    float c[4], d[4];                                                                              \
    for (int I = 0; I < 8; ++I)                                                                    \
      setBits(a, I, 16, A[aRowK16(I, G) * 16 + aColK16(I, T)]);                                    \
    for (int I = 0; I < 4; ++I)                                                                    \
      setBits(b, I, 16, B[G * 16 + bRowK16(I, T)]);                                                \
    for (int I = 0; I < 4; ++I)                                                                    \
      c[I] = C[cRow(I, G) * 8 + cCol(I, T)];                                                       \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." Type "." Type ".f32 {%0, %1, %2, %3}, " \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                               \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),    \
                   "f"(c[1]), "f"(c[2]), "f"(c[3]));                                               \
    for (int I = 0; I < 4; ++I)                                                                    \
      D[cRow(I, G) * 8 + cCol(I, T)] = d[I];                                                       \
  }
MMA_F16_K16_F32(mma_m16n8k16_f16_f32, "f16")
MMA_F16_K16_F32(mma_m16n8k16_bf16_f32, "bf16")

extern "C" __global__ void mma_m16n8k16_f16_f16(const uint16_t *A, const uint16_t *B,
                                                const uint16_t *C, uint16_t *D) {
  LANE_IDS
  uint32_t a[4] = {}, b[2] = {}, c[2] = {}, d[2];
  for (int I = 0; I < 8; ++I)
    setBits(a, I, 16, A[aRowK16(I, G) * 16 + aColK16(I, T)]);
  for (int I = 0; I < 4; ++I)
    setBits(b, I, 16, B[G * 16 + bRowK16(I, T)]);
  for (int I = 0; I < 4; ++I)
    setBits(c, I, 16, C[cRow(I, G) * 8 + cCol(I, T)]);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, "
               "{%6, %7}, {%8, %9};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                 "r"(c[1]));
  for (int I = 0; I < 4; ++I)
    D[cRow(I, G) * 8 + cCol(I, T)] = uint16_t(getBits(d, I, 16));
}

// f16/bf16, m16n8k8: a0..a3 in 2 regs, b0, b1 in 1 reg.
#define MMA_F16_K8_F32(Name, Type)                                                                 \
  extern "C" __global__ void Name(const uint16_t *A, const uint16_t *B, const float *C, float *D) {  \
    LANE_IDS                                                                                       \
    uint32_t a[2] = {}, b[1] = {};                                                                 \
    float c[4], d[4];                                                                              \
    for (int I = 0; I < 4; ++I)                                                                    \
      setBits(a, I, 16, A[(G + (I >= 2 ? 8 : 0)) * 8 + T * 2 + (I & 1)]);                          \
    for (int I = 0; I < 2; ++I)                                                                    \
      setBits(b, I, 16, B[G * 8 + T * 2 + (I & 1)]);                                               \
    for (int I = 0; I < 4; ++I)                                                                    \
      c[I] = C[cRow(I, G) * 8 + cCol(I, T)];                                                       \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32." Type "." Type ".f32 {%0, %1, %2, %3}, "  \
                 "{%4, %5}, {%6}, {%7, %8, %9, %10};"                                              \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));   \
    for (int I = 0; I < 4; ++I)                                                                    \
      D[cRow(I, G) * 8 + cCol(I, T)] = d[I];                                                       \
  }
MMA_F16_K8_F32(mma_m16n8k8_f16_f32, "f16")
MMA_F16_K8_F32(mma_m16n8k8_bf16_f32, "bf16")

// tf32 m16n8k8: a0 (G, T), a1 (G+8, T), a2 (G, T+4), a3 (G+8, T+4); b0 (T, G), b1 (T+4, G).
extern "C" __global__ void mma_m16n8k8_tf32_f32(const uint32_t *A, const uint32_t *B, const float *C,
                                                float *D) {
  LANE_IDS
  uint32_t a[4], b[2];
  float c[4], d[4];
  for (int I = 0; I < 4; ++I)
    a[I] = A[(G + (I & 1) * 8) * 8 + T + (I >= 2 ? 4 : 0)];
  for (int I = 0; I < 2; ++I)
    b[I] = B[G * 8 + T + I * 4];
  for (int I = 0; I < 4; ++I)
    c[I] = C[cRow(I, G) * 8 + cCol(I, T)];
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                 "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[cRow(I, G) * 8 + cCol(I, T)] = d[I];
}

// tf32 m16n8k4: a0 (G, T), a1 (G+8, T); b0 (T, G).
extern "C" __global__ void mma_m16n8k4_tf32_f32(const uint32_t *A, const uint32_t *B, const float *C,
                                                float *D) {
  LANE_IDS
  uint32_t a[2], b[1];
  float c[4], d[4];
  for (int I = 0; I < 2; ++I)
    a[I] = A[(G + I * 8) * 4 + T];
  b[0] = B[G * 4 + T];
  for (int I = 0; I < 4; ++I)
    c[I] = C[cRow(I, G) * 8 + cCol(I, T)];
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, "
               "{%6}, {%7, %8, %9, %10};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[cRow(I, G) * 8 + cCol(I, T)] = d[I];
}

// 8-bit integers, m16n8k32: a0..a15 in 4 regs (row G for a0-a3 and a8-a11,
// G+8 otherwise; column 4T + (i & 3), +16 from a8), b0..b7 in 2 regs.
#define MMA_I8_K32(Name, Types, Sat)                                                               \
  extern "C" __global__ void Name(const uint8_t *A, const uint8_t *B, const int *C, int *D) {       \
    LANE_IDS                                                                                       \
    uint32_t a[4] = {}, b[2] = {};                                                                 \
    int c[4], d[4];                                                                                \
    for (int I = 0; I < 16; ++I)                                                                   \
      setBits(a, I, 8,                                                                             \
              A[(G + ((I < 4 || (I >= 8 && I < 12)) ? 0 : 8)) * 32 + T * 4 + (I & 3) +             \
                (I >= 8 ? 16 : 0)]);                                                               \
    for (int I = 0; I < 8; ++I)                                                                    \
      setBits(b, I, 8, B[G * 32 + T * 4 + (I & 3) + (I >= 4 ? 16 : 0)]);                           \
    for (int I = 0; I < 4; ++I)                                                                    \
      c[I] = C[cRow(I, G) * 8 + cCol(I, T)];                                                       \
    asm volatile("mma.sync.aligned.m16n8k32.row.col" Sat ".s32." Types ".s32 {%0, %1, %2, %3}, "  \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                               \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),    \
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));                                               \
    for (int I = 0; I < 4; ++I)                                                                    \
      D[cRow(I, G) * 8 + cCol(I, T)] = d[I];                                                       \
  }
MMA_I8_K32(mma_m16n8k32_s8_s32, "s8.s8", "")
MMA_I8_K32(mma_m16n8k32_u8s8_s32_sat, "u8.s8", ".satfinite")

// 8-bit integers, m16n8k16: a0..a7 in 2 regs (G for a0-a3, G+8 for a4-a7),
// b0..b3 in 1 reg.
extern "C" __global__ void mma_m16n8k16_s8u8_s32(const uint8_t *A, const uint8_t *B, const int *C,
                                                 int *D) {
  LANE_IDS
  uint32_t a[2] = {}, b[1] = {};
  int c[4], d[4];
  for (int I = 0; I < 8; ++I)
    setBits(a, I, 8, A[(G + (I >= 4 ? 8 : 0)) * 16 + T * 4 + (I & 3)]);
  for (int I = 0; I < 4; ++I)
    setBits(b, I, 8, B[G * 16 + T * 4 + (I & 3)]);
  for (int I = 0; I < 4; ++I)
    c[I] = C[cRow(I, G) * 8 + cCol(I, T)];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, "
               "{%6}, {%7, %8, %9, %10};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[cRow(I, G) * 8 + cCol(I, T)] = d[I];
}

// f64 m8n8k4: a0 (G, T); b0 (T, G); c0, c1 (G, 2T + i).
extern "C" __global__ void mma_m8n8k4_f64(const double *A, const double *B, const double *C,
                                          double *D) {
  LANE_IDS
  double a = A[G * 4 + T], b = B[G * 4 + T], c0 = C[G * 8 + 2 * T], c1 = C[G * 8 + 2 * T + 1], d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=d"(d0), "=d"(d1)
               : "d"(a), "d"(b), "d"(c0), "d"(c1));
  D[G * 8 + 2 * T] = d0;
  D[G * 8 + 2 * T + 1] = d1;
}

//===----------------------------------------------------------------------===//
// Integer mma.sync with 8-, 4- and 1-bit inputs: elements one per byte in
// memory. The PTX ISA's tables (m8n8k16/k32/k128, m16n8k32/k64 for s4/u4,
// m16n8k128/k256 for b1): with P elements per 32-bit register, A element
// i (a0, a1, ...) is in register i/P at bit (i%P)*bits; for m16n8 shapes
// registers alternate rows G and G+8 and the third and fourth hold the
// upper half of K: row G + 8*((i/P)&1), column T*P + i%P + (K/2)*(i/P/2);
// for m8n8 shapes (one register) row G, column T*P + i. B element i: row
// T*P + i%P + (K/2)*(i/P), column G. C/D: row G (+8 from c2), column
// 2T + (i&1).
//===----------------------------------------------------------------------===//

template <int M, int K, int Bits, int NA, int NB>
__device__ void packIntFragments(const uint8_t *A, const uint8_t *B, uint32_t *a, uint32_t *b, int G, int T) {
  const int P = 32 / Bits;
  for (int I = 0; I < NA * P; ++I) {
    int R = I / P;
    int Row = M == 16 ? G + 8 * (R & 1) : G;
    int Col = T * P + I % P + (M == 16 ? (K / 2) * (R >> 1) : 0);
    setBits(a, I, Bits, A[Row * K + Col]);
  }
  for (int I = 0; I < NB * P; ++I)
    setBits(b, I, Bits, B[G * K + T * P + I % P + (K / 2) * (I / P)]);
}

// m8n8: one A and one B register, two accumulators.
#define MMA_INT_M8(Name, K, Bits, Types, Sat)                                                      \
  extern "C" __global__ void Name(const uint8_t *A, const uint8_t *B, const int *C, int *D) {       \
    LANE_IDS                                                                                       \
    uint32_t a[1] = {}, b[1] = {};                                                                 \
    int c[2], d[2];                                                                                \
    packIntFragments<8, K, Bits, 1, 1>(A, B, a, b, G, T);                                          \
    for (int I = 0; I < 2; ++I)                                                                    \
      c[I] = C[G * 8 + 2 * T + I];                                                                 \
    asm volatile("mma.sync.aligned.m8n8k" #K ".row.col" Sat ".s32." Types " {%0, %1}, {%2}, "  \
                 "{%3}, {%4, %5};"                                                                 \
                 : "=r"(d[0]), "=r"(d[1])                                                          \
                 : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));                                    \
    for (int I = 0; I < 2; ++I)                                                                    \
      D[G * 8 + 2 * T + I] = d[I];                                                                 \
  }
// m16n8, the smaller K: two A registers, one B register.
#define MMA_INT_M16_2(Name, K, Bits, Types, Sat)                                                   \
  extern "C" __global__ void Name(const uint8_t *A, const uint8_t *B, const int *C, int *D) {       \
    LANE_IDS                                                                                       \
    uint32_t a[2] = {}, b[1] = {};                                                                 \
    int c[4], d[4];                                                                                \
    packIntFragments<16, K, Bits, 2, 1>(A, B, a, b, G, T);                                         \
    for (int I = 0; I < 4; ++I)                                                                    \
      c[I] = C[cRow(I, G) * 8 + cCol(I, T)];                                                       \
    asm volatile("mma.sync.aligned.m16n8k" #K ".row.col" Sat ".s32." Types " {%0, %1, %2, %3}, "   \
                 "{%4, %5}, {%6}, {%7, %8, %9, %10};"                                              \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));   \
    for (int I = 0; I < 4; ++I)                                                                    \
      D[cRow(I, G) * 8 + cCol(I, T)] = d[I];                                                       \
  }
// m16n8, the larger K: four A registers, two B registers.
#define MMA_INT_M16_4(Name, K, Bits, Types, Sat)                                                   \
  extern "C" __global__ void Name(const uint8_t *A, const uint8_t *B, const int *C, int *D) {       \
    LANE_IDS                                                                                       \
    uint32_t a[4] = {}, b[2] = {};                                                                 \
    int c[4], d[4];                                                                                \
    packIntFragments<16, K, Bits, 4, 2>(A, B, a, b, G, T);                                         \
    for (int I = 0; I < 4; ++I)                                                                    \
      c[I] = C[cRow(I, G) * 8 + cCol(I, T)];                                                       \
    asm volatile("mma.sync.aligned.m16n8k" #K ".row.col" Sat ".s32." Types " {%0, %1, %2, %3}, "   \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                               \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),    \
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));                                               \
    for (int I = 0; I < 4; ++I)                                                                    \
      D[cRow(I, G) * 8 + cCol(I, T)] = d[I];                                                       \
  }
// Types: A, B and C types, then (b1) the bit operation and .popc.
MMA_INT_M8(mma_m8n8k16_s8_s32, 16, 8, "s8.s8.s32", "")
MMA_INT_M8(mma_m8n8k32_s4_s32, 32, 4, "s4.s4.s32", "")
MMA_INT_M8(mma_m8n8k32_u4s4_s32_sat, 32, 4, "u4.s4.s32", ".satfinite")
MMA_INT_M16_2(mma_m16n8k32_s4u4_s32, 32, 4, "s4.u4.s32", "")
MMA_INT_M16_4(mma_m16n8k64_u4_s32_sat, 64, 4, "u4.u4.s32", ".satfinite")
MMA_INT_M8(mma_m8n8k128_b1_xor, 128, 1, "b1.b1.s32.xor.popc", "")
MMA_INT_M16_2(mma_m16n8k128_b1_and, 128, 1, "b1.b1.s32.and.popc", "")
MMA_INT_M16_4(mma_m16n8k256_b1_xor, 256, 1, "b1.b1.s32.xor.popc", "")

//===----------------------------------------------------------------------===//
// mma.sp m16n8k16/k32 with f16/bf16 inputs (2:4 sparsity). The compressed A
// (16 x K/2) takes the dense m16n8k(K/2) A layout; B (register r: k =
// 2t + e + 8r, column G). Metadata: the nibble of row G + 8h, group j of 4
// k (i0 | i1 << 2) sits at bits 4((j%4) + 4h) of lane 4G + Sel*(K/16) +
// j/4; the other lanes' metadata must not matter, so they hold noise.
//===----------------------------------------------------------------------===//

template <int K, int Sel, bool F16Acc>
__device__ void mmaSparseBody(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B, const void *C,
                              void *D) {
  LANE_IDS
  const int KC = K / 2, NA = K / 8;
  uint32_t a[4] = {}, b[4] = {};
  for (int I = 0; I < 2 * NA; ++I) {
    int R = I / 2;
    setBits(a, I, 16, Ac[(G + 8 * (R & 1)) * KC + 2 * T + (I & 1) + (KC / 2) * (R >> 1)]);
  }
  for (int I = 0; I < 2 * NA; ++I)
    setBits(b, I, 16, B[G * K + 2 * T + (I & 1) + 8 * (I / 2)]);
  uint32_t E = 0x9E3779B9u * (Lane + 1); // noise
  int X = T - Sel * (K / 16);
  if (X >= 0 && X < K / 16) {
    E = 0;
    for (int H = 0; H < 2; ++H)
      for (int J = 0; J < 4; ++J)
        E |= uint32_t(Nib[(G + 8 * H) * (K / 4) + 4 * X + J]) << (4 * (J + 4 * H));
  }
  if constexpr (F16Acc) {
    uint32_t c[2] = {}, d[2];
    for (int I = 0; I < 4; ++I)
      setBits(c, I, 16, static_cast<const uint16_t *>(C)[cRow(I, G) * 8 + cCol(I, T)]);
    asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, "
                 "{%6, %7, %8, %9}, {%10, %11}, %12, %13;"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "r"(c[0]), "r"(c[1]), "r"(E), "n"(Sel));
    for (int I = 0; I < 4; ++I)
      static_cast<uint16_t *>(D)[cRow(I, G) * 8 + cCol(I, T)] = uint16_t(getBits(d, I, 16));
  } else {
  float c[4], d[4];
  for (int I = 0; I < 4; ++I)
    c[I] = static_cast<const float *>(C)[cRow(I, G) * 8 + cCol(I, T)];
  if (K == 16)
    asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6, %7}, {%8, %9, %10, %11}, %12, %13;"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]),
                   "r"(E), "n"(Sel));
  else
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, %17;"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(E), "n"(Sel));
  for (int I = 0; I < 4; ++I)
    static_cast<float *>(D)[cRow(I, G) * 8 + cCol(I, T)] = d[I];
  }
}
// m16n8k16 f16 with f32 accumulators, selector 0.
template <int Sel>
__device__ void mmaSparseF16K16(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B, const float *C,
                                float *D) {
  LANE_IDS
  uint32_t a[2] = {}, b[2] = {};
  for (int I = 0; I < 4; ++I)
    setBits(a, I, 16, Ac[(G + 8 * ((I / 2) & 1)) * 8 + 2 * T + (I & 1)]);
  for (int I = 0; I < 4; ++I)
    setBits(b, I, 16, B[G * 16 + 2 * T + (I & 1) + 8 * (I / 2)]);
  uint32_t E = 0x9E3779B9u * (Lane + 1);
  if (T == Sel) {
    E = 0;
    for (int H = 0; H < 2; ++H)
      for (int J = 0; J < 4; ++J)
        E |= uint32_t(Nib[(G + 8 * H) * 4 + J]) << (4 * (J + 4 * H));
  }
  float c[4], d[4];
  for (int I = 0; I < 4; ++I)
    c[I] = C[cRow(I, G) * 8 + cCol(I, T)];
  asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
               "{%6, %7}, {%8, %9, %10, %11}, %12, %13;"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]),
                 "r"(E), "n"(Sel));
  for (int I = 0; I < 4; ++I)
    D[cRow(I, G) * 8 + cCol(I, T)] = d[I];
}
extern "C" __global__ void mma_sp_m16n8k16_f16_f32_sel0(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B,
                                                        const float *C, float *D) {
  mmaSparseF16K16<0>(Ac, Nib, B, C, D);
}
extern "C" __global__ void mma_sp_m16n8k16_bf16_f32_sel1(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B,
                                                         const float *C, float *D) {
  mmaSparseBody<16, 1, false>(Ac, Nib, B, C, D);
}
extern "C" __global__ void mma_sp_m16n8k32_f16_f16_sel1(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B,
                                                        const uint16_t *C, uint16_t *D) {
  mmaSparseBody<32, 1, true>(Ac, Nib, B, C, D);
}
extern "C" __global__ void mma_sp_m16n8k32_bf16_f32_sel0(const uint16_t *Ac, const uint8_t *Nib, const uint16_t *B,
                                                         const float *C, float *D) {
  mmaSparseBody<32, 0, false>(Ac, Nib, B, C, D);
}

//===----------------------------------------------------------------------===//
// mma.sync.m8n8k4 with f16 inputs (Volta): quad pair q = lanes 4q..4q+3 and
// 4q+16..4q+19 computes its own 8x8x4 product; j = lane%4 (+4 from lane
// 16) numbers the pair's lanes. PTX ISA fragments: A .row: row j, k = i;
// A .col: row 4(j/4) + i, k = j%4; B .row: k = j%4, column 4(j/4) + i;
// B .col: k = i, column j. C/D .f16: row j, column i; .f32: row
// (lane&1) + (i&2) + 4(j/4), column (i&4) + (lane&2) + (i&1).
//===----------------------------------------------------------------------===//

template <bool ARow, bool BRow, bool F32>
__device__ void mmaQuadBody(const uint16_t *A, const uint16_t *B, const void *C, void *D) {
  int Lane = threadIdx.x & 31, Q = (Lane & 15) >> 2, J = (Lane & 3) + (Lane >= 16 ? 4 : 0);
  uint32_t a[2] = {}, b[2] = {};
  for (int I = 0; I < 4; ++I) {
    int R = ARow ? J : 4 * (J / 4) + I, K = ARow ? I : J % 4;
    setBits(a, I, 16, A[(8 * Q + R) * 4 + K]);
    int BK = BRow ? J % 4 : I, BC = BRow ? 4 * (J / 4) + I : J;
    setBits(b, I, 16, B[(8 * Q + BC) * 4 + BK]);
  }
  auto At = [&](int I) {
    int R = F32 ? (Lane & 1) + (I & 2) + 4 * (J / 4) : J, Col = F32 ? (I & 4) + (Lane & 2) + (I & 1) : I;
    return (8 * Q + R) * 8 + Col;
  };
  if (F32) {
    float c[8], d[8];
    for (int I = 0; I < 8; ++I)
      c[I] = static_cast<const float *>(C)[At(I)];
#define QUAD_ASM(L)                                                                                \
  asm volatile("mma.sync.aligned.m8n8k4." L ".f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, "    \
               "{%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"                   \
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), \
                 "=f"(d[7])                                                                        \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),      \
                 "f"(c[3]), "f"(c[4]), "f"(c[5]), "f"(c[6]), "f"(c[7]))
    if (ARow && BRow) QUAD_ASM("row.row");
    else if (ARow) QUAD_ASM("row.col");
    else if (BRow) QUAD_ASM("col.row");
    else QUAD_ASM("col.col");
#undef QUAD_ASM
    for (int I = 0; I < 8; ++I)
      static_cast<float *>(D)[At(I)] = d[I];
  } else {
    uint32_t c[4] = {}, d[4];
    for (int I = 0; I < 8; ++I)
      setBits(c, I, 16, static_cast<const uint16_t *>(C)[At(I)]);
#define QUAD_ASM(L)                                                                                \
  asm volatile("mma.sync.aligned.m8n8k4." L ".f16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, " \
               "{%8, %9, %10, %11};"                                                               \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
    if (ARow && BRow) QUAD_ASM("row.row");
    else if (ARow) QUAD_ASM("row.col");
    else if (BRow) QUAD_ASM("col.row");
    else QUAD_ASM("col.col");
#undef QUAD_ASM
    for (int I = 0; I < 8; ++I)
      static_cast<uint16_t *>(D)[At(I)] = uint16_t(getBits(d, I, 16));
  }
}
#define MMA_QUAD_CASE(Name, ARow, BRow, Acc)                                                       \
  extern "C" __global__ void Name(const uint16_t *A, const uint16_t *B, const void *C, void *D) {   \
    mmaQuadBody<ARow, BRow, mmaref::ET::Acc == mmaref::ET::F32>(A, B, C, D);                       \
  }
#include "MmaCases.def"

//===----------------------------------------------------------------------===//
// Sub-byte wmma (nvcuda::wmma::experimental): m8n8k32 s4/u4 (mma_sync),
// m8n8k128 b1 (bmma_sync with XOR or AND and POPC).
//===----------------------------------------------------------------------===//

template <int K, typename Prec, int Op>
__device__ void wmmaSubBody(const void *A, const void *B, const int *C, int *D, int Lda, int Ldb, int Ldc,
                            int CRow) {
  wmma::fragment<wmma::matrix_a, 8, 8, K, Prec, wmma::row_major> FA;
  wmma::fragment<wmma::matrix_b, 8, 8, K, Prec, wmma::col_major> FB;
  wmma::fragment<wmma::accumulator, 8, 8, K, int> FC;
  wmma::load_matrix_sync(FA, A, Lda);
  wmma::load_matrix_sync(FB, B, Ldb);
  wmma::layout_t L = CRow ? wmma::mem_row_major : wmma::mem_col_major;
  wmma::load_matrix_sync(FC, C, Ldc, L);
  if constexpr (Op == 0)
    wmma::mma_sync(FC, FA, FB, FC);
  else
    wmma::bmma_sync(FC, FA, FB, FC,
                    Op == 1 ? wmma::experimental::bmmaBitOpXOR : wmma::experimental::bmmaBitOpAND,
                    wmma::experimental::bmmaAccumulateOpPOPC);
  wmma::store_matrix_sync(D, FC, Ldc, L);
}
#define WMMA_SUB_CASE(Name, K, Prec, In, Op)                                                       \
  extern "C" __global__ void Name(const void *A, const void *B, const int *C, int *D, int Lda,     \
                                  int Ldb, int Ldc, int CRow) {                                    \
    wmmaSubBody<K, wmma::experimental::precision::Prec, Op>(A, B, C, D, Lda, Ldb, Ldc, CRow);      \
  }
#include "MmaCases.def"

//===----------------------------------------------------------------------===//
// ldmatrix / stmatrix / movmatrix on 8x8 b16 matrices. A shared tile has 32
// rows of 24 b16 (48 bytes: rows stay 16-byte aligned); row r of matrix m
// is tile row m*8 + (r*3 + m) % 8, so lanes supply scattered addresses.
//===----------------------------------------------------------------------===//

__device__ uint32_t rowAddr(const uint16_t *Tile, int Lane) {
  int M = Lane / 8, R = Lane % 8;
  return uint32_t(__cvta_generic_to_shared(Tile + (M * 8 + (R * 3 + M) % 8) * 24));
}

// Out[lane*14 + ...]: x1 (1 reg), x2 (2), x4 (4), x1.trans, x2.trans, x4.trans.
extern "C" __global__ void ldmatrix_all(const uint16_t *In, uint32_t *Out) {
  __shared__ __align__(16) uint16_t Tile[32 * 24];
  for (int I = threadIdx.x; I < 32 * 24; I += 32)
    Tile[I] = In[I];
  __syncwarp();
  int Lane = threadIdx.x;
  uint32_t P = rowAddr(Tile, Lane), *O = Out + Lane * 14;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(O[0]) : "r"(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(O[1]), "=r"(O[2]) : "r"(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(O[3]), "=r"(O[4]), "=r"(O[5]), "=r"(O[6]) : "r"(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(O[7]) : "r"(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(O[8]), "=r"(O[9]) : "r"(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(O[10]), "=r"(O[11]), "=r"(O[12]), "=r"(O[13]) : "r"(P));
}

// Lane L stores In[L*4 + m] as register m: x4 into tile 0, x2.trans into
// tile 1, x1 into tile 2 (each zeroed first); Out receives the three tiles.
extern "C" __global__ void stmatrix_all(const uint32_t *In, uint16_t *Out) {
  __shared__ __align__(16) uint16_t Tiles[3][32 * 24];
  for (int I = threadIdx.x; I < 3 * 32 * 24; I += 32)
    (&Tiles[0][0])[I] = 0;
  __syncwarp();
  int Lane = threadIdx.x;
  const uint32_t *R = In + Lane * 4;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(rowAddr(Tiles[0], Lane)), "r"(R[0]), "r"(R[1]), "r"(R[2]), "r"(R[3]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
               :: "r"(rowAddr(Tiles[1], Lane)), "r"(R[0]), "r"(R[1]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
               :: "r"(rowAddr(Tiles[2], Lane)), "r"(R[0]) : "memory");
  __syncwarp();
  for (int I = threadIdx.x; I < 3 * 32 * 24; I += 32)
    Out[I] = (&Tiles[0][0])[I];
}

extern "C" __global__ void movmatrix_trans(const uint32_t *In, uint32_t *Out) {
  uint32_t D;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(D) : "r"(In[threadIdx.x]));
  Out[threadIdx.x] = D;
}

#ifdef MMA_VALIDATE_MAIN
//===----------------------------------------------------------------------===//
// Native driver: every case on the GPU, compared with MmaRef.h.
//===----------------------------------------------------------------------===//
#include "MmaDriver.h"
#include <cstdio>
#include <type_traits>

static std::string launchNative(const void *Kernel, std::vector<mmaref::Buffer> &Bufs,
                                const std::vector<int> &Ints) {
  std::vector<void *> Dev(Bufs.size());
  std::vector<void *> Args;
  for (size_t I = 0; I < Bufs.size(); ++I) {
    if (cudaMalloc(&Dev[I], Bufs[I].Bytes) != cudaSuccess ||
        cudaMemcpy(Dev[I], Bufs[I].Host, Bufs[I].Bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      return "alloc/copy failed";
  }
  for (size_t I = 0; I < Bufs.size(); ++I)
    Args.push_back(&Dev[I]);
  std::vector<int> IntCopy(Ints);
  for (int &V : IntCopy)
    Args.push_back(&V);
  cudaError_t E = cudaLaunchKernel(Kernel, dim3(1), dim3(32), Args.data(), 0, 0);
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
  auto Report = [&](const char *Name, const std::string &Err) {
    std::printf("%-34s %s\n", Name, Err.empty() ? "ok" : Err.c_str());
    Failed += !Err.empty();
  };
#define L(K) [](std::vector<mmaref::Buffer> &B, const std::vector<int> &I) { return launchNative((const void *)K, B, I); }
#define WMMA_CASE(Name, M, N, K, InMem, Frag, In, Acc, LA, LB)                                     \
  Report(#Name, mmaref::runWmma(L(Name), M, N, K, mmaref::ET::In, mmaref::ET::Acc,                 \
                                std::is_same<wmma::LA, wmma::row_major>::value, std::is_same<wmma::LB, wmma::row_major>::value));
#define MMA_CASE(Name, M, N, K, TA, TB, TC, TD, Sat)                                               \
  Report(#Name, mmaref::runMma(L(Name), M, N, K, mmaref::ET::TA, mmaref::ET::TB, mmaref::ET::TC,   \
                               mmaref::ET::TD, Sat));
#define MMA_BITS_CASE(Name, M, N, K, Xor) Report(#Name, mmaref::runMmaBits(L(Name), M, N, K, Xor));
#define WMMA_SUB_CASE(Name, K, Prec, In, Op) Report(#Name, mmaref::runWmmaSub(L(Name), K, mmaref::ET::In, Op == 1));
#define MMA_QUAD_CASE(Name, ARow, BRow, Acc) Report(#Name, mmaref::runMmaQuad(L(Name), mmaref::ET::Acc));
#define MMA_SP_CASE(Name, K, In, Acc, Sel) Report(#Name, mmaref::runMmaSparse(L(Name), K, mmaref::ET::In, mmaref::ET::Acc));
#include "MmaCases.def"
  Report("wmma_shared_generic", mmaref::runSharedGeneric(L(wmma_shared_generic)));
  Report("wmma_fill_scale", mmaref::runFillScale(L(wmma_fill_scale)));
  Report("ldmatrix_all", mmaref::runLdmatrix(L(ldmatrix_all)));
  Report("stmatrix_all", mmaref::runStmatrix(L(stmatrix_all)));
  Report("movmatrix_trans", mmaref::runMovmatrix(L(movmatrix_trans)));
  std::printf("%s\n", Failed ? "FAILED" : "PASSED");
  return Failed != 0;
}
#endif
