/// \file
/// A bank of small kernels, one per extended-precision idiom that big-number
/// code writes with inline PTX, each checked against a CPU reference:
/// 256-bit add/sub/multiply through the 32-bit and 64-bit carry-chain forms
/// (add.cc, addc.cc, addc, sub.cc, subc.cc, subc, mad.lo.cc, madc.lo.cc,
/// madc.hi.cc, madc.hi; .u32, .s32 and .u64), the carry flag living across
/// separate asm statements, across loop iterations that are not unrolled and
/// across divergent branches, beside registers rotated through a limb loop,
/// guarded carry instructions, predicates taken
/// from carry results, and the integer intrinsics such code leans on
/// (__umulhi, __umul64hi, __mulhi, __mul64hi, mul.wide, __byte_perm,
/// __funnelshift_l/r). Inputs mix random words with long runs of all-ones
/// and zero words, so carries and borrows ripple across every limb.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

constexpr int N = 1024; // threads, one input vector each
constexpr int L = 8;    // 32-bit limbs of a 256-bit number

// One asm statement per instruction: CC.CF is the only link between them.
__device__ __forceinline__ uint32_t add_cc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t addc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t sub_cc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t subc_cc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t subc(uint32_t A, uint32_t B) {
  uint32_t R;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(R) : "r"(A), "r"(B));
  return R;
}
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t R;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(R) : "r"(A), "r"(B), "r"(C));
  return R;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t R;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(R) : "r"(A), "r"(B), "r"(C));
  return R;
}
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t R;
  asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(R) : "r"(A), "r"(B), "r"(C));
  return R;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t R;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(R) : "r"(A), "r"(B), "r"(C));
  return R;
}
__device__ __forceinline__ uint32_t madc_hi(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t R;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(R) : "r"(A), "r"(B), "r"(C));
  return R;
}

// 256-bit sum with the carry out as a ninth word.
__global__ void add256(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * (L + 1);
  Z[0] = add_cc(X[0], Y[0]);
#pragma unroll
  for (int I = 1; I < L; ++I)
    Z[I] = addc_cc(X[I], Y[I]);
  Z[L] = addc(0, 0);
}

// 256-bit difference; the ninth word is the borrow as subc makes it
// (0 - 0 - borrow: 0 or all ones).
__global__ void sub256(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * (L + 1);
  Z[0] = sub_cc(X[0], Y[0]);
#pragma unroll
  for (int I = 1; I < L; ++I)
    Z[I] = subc_cc(X[I], Y[I]);
  Z[L] = subc(0, 0);
}

// The same sum with the carry living across iterations of a loop that is
// not unrolled (the counter update and compare sit between the carries).
__global__ void add256Loop(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * (L + 1);
  Z[0] = add_cc(X[0], Y[0]);
#pragma unroll 1
  for (int I = 1; I < L; ++I)
    Z[I] = addc_cc(X[I], Y[I]);
  Z[L] = addc(0, 0);
}

// Limb 1 is added with or without the carry of limb 0 depending on the data
// (divergent within a warp); the carry that branch leaves is consumed after
// the join. Add path: the carry out of limb 0 flows in; other path: a fresh
// carry of x + ~y.
__global__ void branchCarry(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * 4;
  Z[0] = add_cc(X[0], Y[0]);
  if (X[2] & 1)
    Z[1] = addc_cc(X[1], Y[1]);
  else
    Z[1] = add_cc(X[1], ~Y[1]);
  Z[2] = addc_cc(X[3], Y[3]);
  Z[3] = addc(0, 0);
}

// 256-bit right shift by 0..31 bits in a limb loop that is not unrolled,
// the two limbs each step needs kept in registers and rotated (cur = next;
// next = load), each shifted word added into a running carry chain; the
// last word, after the loop, reads the rotated registers.
__global__ void shiftAddLoop(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * (L + 1);
  uint32_t Sh = Y[7] & 31, Cur = X[0], Next = X[1];
  Z[0] = add_cc(__funnelshift_r(Cur, Next, Sh), Y[0]);
#pragma unroll 1
  for (int I = 1; I < L - 1; ++I) {
    Cur = Next;
    Next = X[I + 1];
    Z[I] = addc_cc(__funnelshift_r(Cur, Next, Sh), Y[I]);
  }
  Z[L - 1] = addc_cc(__funnelshift_r(Next, 0, Sh), Y[L - 1]) ^ Cur;
  Z[L] = addc(0, 0);
}

// Full 256x256 -> 512-bit product, row by row: the low halves of a*b[i] in
// one carry chain, the high halves in a second one shifted by a word.
__global__ void mul256(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t X[L], Y[L], Z[2 * L];
#pragma unroll
  for (int I = 0; I < L; ++I) {
    X[I] = A[T * L + I];
    Y[I] = B[T * L + I];
  }
#pragma unroll
  for (int I = 0; I < 2 * L; ++I)
    Z[I] = 0;
#pragma unroll
  for (int I = 0; I < L; ++I) {
    Z[I] = mad_lo_cc(X[0], Y[I], Z[I]);
#pragma unroll
    for (int J = 1; J < L; ++J)
      Z[I + J] = madc_lo_cc(X[J], Y[I], Z[I + J]);
    Z[I + L] = addc(0, 0);
    Z[I + 1] = mad_hi_cc(X[0], Y[I], Z[I + 1]);
#pragma unroll
    for (int J = 1; J < L - 1; ++J)
      Z[I + J + 1] = madc_hi_cc(X[J], Y[I], Z[I + J + 1]);
    Z[I + L] = madc_hi(X[L - 1], Y[I], Z[I + L]);
  }
#pragma unroll
  for (int I = 0; I < 2 * L; ++I)
    R[T * 2 * L + I] = Z[I];
}

// Four 64-bit limbs: sum, difference and product's low 256 bits through
// the .u64 forms, each chain in one asm statement.
__global__ void ops64(const uint64_t *A, const uint64_t *B, uint64_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t *X = A + T * 4, *Y = B + T * 4;
  uint64_t *Z = R + T * 14;
  asm volatile("add.cc.u64 %0, %5, %9;\n\t"
               "addc.cc.u64 %1, %6, %10;\n\t"
               "addc.cc.u64 %2, %7, %11;\n\t"
               "addc.cc.u64 %3, %8, %12;\n\t"
               "addc.u64 %4, 0, 0;"
               : "=l"(Z[0]), "=l"(Z[1]), "=l"(Z[2]), "=l"(Z[3]), "=l"(Z[4])
               : "l"(X[0]), "l"(X[1]), "l"(X[2]), "l"(X[3]), "l"(Y[0]), "l"(Y[1]), "l"(Y[2]), "l"(Y[3]));
  asm volatile("sub.cc.u64 %0, %5, %9;\n\t"
               "subc.cc.u64 %1, %6, %10;\n\t"
               "subc.cc.u64 %2, %7, %11;\n\t"
               "subc.cc.u64 %3, %8, %12;\n\t"
               "subc.u64 %4, 0, 0;"
               : "=l"(Z[5]), "=l"(Z[6]), "=l"(Z[7]), "=l"(Z[8]), "=l"(Z[9])
               : "l"(X[0]), "l"(X[1]), "l"(X[2]), "l"(X[3]), "l"(Y[0]), "l"(Y[1]), "l"(Y[2]), "l"(Y[3]));
  // Low 256 bits of X*Y: rows of mad.lo/madc.lo then madc.hi, truncated.
  uint64_t P0 = 0, P1 = 0, P2 = 0, P3 = 0;
  asm volatile("mad.lo.cc.u64 %0, %4, %8, %0;\n\t"
               "madc.lo.cc.u64 %1, %5, %8, %1;\n\t"
               "madc.lo.cc.u64 %2, %6, %8, %2;\n\t"
               "madc.lo.u64 %3, %7, %8, %3;\n\t"
               "mad.hi.cc.u64 %1, %4, %8, %1;\n\t"
               "madc.hi.cc.u64 %2, %5, %8, %2;\n\t"
               "madc.hi.u64 %3, %6, %8, %3;\n\t"
               "mad.lo.cc.u64 %1, %4, %9, %1;\n\t"
               "madc.lo.cc.u64 %2, %5, %9, %2;\n\t"
               "madc.lo.u64 %3, %6, %9, %3;\n\t"
               "mad.hi.cc.u64 %2, %4, %9, %2;\n\t"
               "madc.hi.u64 %3, %5, %9, %3;\n\t"
               "mad.lo.cc.u64 %2, %4, %10, %2;\n\t"
               "madc.lo.u64 %3, %5, %10, %3;\n\t"
               "mad.hi.u64 %3, %4, %10, %3;\n\t"
               "mad.lo.u64 %3, %4, %11, %3;"
               : "+l"(P0), "+l"(P1), "+l"(P2), "+l"(P3)
               : "l"(X[0]), "l"(X[1]), "l"(X[2]), "l"(X[3]), "l"(Y[0]), "l"(Y[1]), "l"(Y[2]), "l"(Y[3]));
  Z[10] = P0, Z[11] = P1, Z[12] = P2, Z[13] = P3;
}

// Signed forms: the carry is the unsigned carry whatever the type, and
// madc.hi.s32 adds the carry to the signed high word.
__global__ void ops32s(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const int *X = (const int *)(A + T * L), *Y = (const int *)(B + T * L);
  int *Z = (int *)(R + T * 8);
  asm volatile("add.cc.s32 %0, %4, %6;\n\t"
               "addc.cc.s32 %1, %5, %7;\n\t"
               "addc.s32 %2, 0, 0;\n\t"
               "sub.cc.s32 %3, %4, %6;"
               : "=r"(Z[0]), "=r"(Z[1]), "=r"(Z[2]), "=r"(Z[3])
               : "r"(X[0]), "r"(X[1]), "r"(Y[0]), "r"(Y[1]));
  asm volatile("subc.cc.s32 %0, %2, %3;\n\t"
               "subc.s32 %1, 0, 0;"
               : "=r"(Z[4]), "=r"(Z[5])
               : "r"(X[1]), "r"(Y[1]));
  asm volatile("mad.lo.cc.s32 %0, %2, %3, %4;\n\t"
               "madc.hi.s32 %1, %2, %3, %5;"
               : "=r"(Z[6]), "=r"(Z[7])
               : "r"(X[2]), "r"(Y[2]), "r"(X[3]), "r"(Y[3]));
}

// Predicates from carries, and guarded carry instructions: a modular add
// (a + b mod m, a and b below m) that picks a+b or a+b-m from the carry and
// borrow through setp/selp, and a conditional add whose addc.cc steps run
// under a predicate (a guarded-off addc.cc leaves CC as it was).
__global__ void predCarry(const uint32_t *A, const uint32_t *B, const uint32_t *M, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * (2 * L + 1);
  uint32_t S[L], D[L];
  S[0] = add_cc(X[0], Y[0]);
#pragma unroll
  for (int I = 1; I < L; ++I)
    S[I] = addc_cc(X[I], Y[I]);
  uint32_t Carry = addc(0, 0);
  D[0] = sub_cc(S[0], M[0]);
#pragma unroll
  for (int I = 1; I < L; ++I)
    D[I] = subc_cc(S[I], M[I]);
  uint32_t Borrow = subc(Carry, 0); // 0 when a+b >= m
#pragma unroll
  for (int I = 0; I < L; ++I) {
    uint32_t V;
    asm("{\n\t.reg .pred p;\n\t"
        "setp.eq.u32 p, %3, 0;\n\t"
        "selp.b32 %0, %1, %2, p;\n\t}"
        : "=r"(V)
        : "r"(D[I]), "r"(S[I]), "r"(Borrow));
    Z[I] = V;
  }
  // Z[L..2L] = X + (Y if bit T of X[7] else X[0]-only) via guarded addc.cc.
  uint32_t Sel = (X[7] >> (T & 31)) & 1;
  uint32_t W[L + 1];
#pragma unroll
  for (int I = 0; I < L; ++I)
    W[I] = X[I];
  asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(W[0]) : "r"(Y[0]));
#pragma unroll
  for (int I = 1; I < L; ++I)
    asm volatile("{\n\t.reg .pred q;\n\t"
                 "setp.ne.u32 q, %2, 0;\n\t"
                 "@q addc.cc.u32 %0, %0, %1;\n\t}"
                 : "+r"(W[I])
                 : "r"(Y[I]), "r"(Sel));
  W[L] = addc(0, 0);
#pragma unroll
  for (int I = 0; I <= L; ++I)
    Z[L + I] = W[I];
}

// The integer intrinsics of big-number code.
__global__ void intrinsics(const uint32_t *A, const uint32_t *B, uint32_t *R) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t *X = A + T * L, *Y = B + T * L;
  uint32_t *Z = R + T * 16;
  uint64_t X64 = (uint64_t(X[1]) << 32) | X[0], Y64 = (uint64_t(Y[1]) << 32) | Y[0];
  Z[0] = __umulhi(X[2], Y[2]);
  Z[1] = uint32_t(__mulhi(int(X[3]), int(Y[3])));
  uint64_t H = __umul64hi(X64, Y64);
  Z[2] = uint32_t(H), Z[3] = uint32_t(H >> 32);
  int64_t SH = __mul64hi((long long)X64, (long long)Y64);
  Z[4] = uint32_t(SH), Z[5] = uint32_t(uint64_t(SH) >> 32);
  uint64_t W;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(W) : "r"(X[4]), "r"(Y[4]));
  Z[6] = uint32_t(W), Z[7] = uint32_t(W >> 32);
  uint64_t W2 = uint64_t(X[5]) * Y[5];
  Z[8] = uint32_t(W2), Z[9] = uint32_t(W2 >> 32);
  Z[10] = __byte_perm(X[6], Y[6], Y[7] & 0x7777);
  Z[11] = __byte_perm(X[6], 0, 0x0123); // byte swap
  Z[12] = __funnelshift_l(X[7], Y[3], Y[5]);
  Z[13] = __funnelshift_r(X[7], Y[3], Y[5]);
  Z[14] = __funnelshift_lc(X[7], Y[3], Y[5] & 63);
  Z[15] = __funnelshift_rc(X[7], Y[3], Y[5] & 63);
}

// CPU references.
void refAdd(const uint32_t *X, const uint32_t *Y, uint32_t *Z, bool Sub) {
  uint64_t C = Sub ? 1 : 0; // x - y = x + ~y + 1
  for (int I = 0; I < L; ++I) {
    uint64_t V = uint64_t(X[I]) + (Sub ? uint32_t(~Y[I]) : Y[I]) + C;
    Z[I] = uint32_t(V);
    C = V >> 32;
  }
  Z[L] = Sub ? (C ? 0u : 0xFFFFFFFFu) : uint32_t(C);
}

int main() {
  Lcg Rng(2024);
  std::vector<uint32_t> A(N * L), B(N * L), M(L);
  // Word patterns: random, all ones, zero, one; runs of all ones make the
  // carries ripple through every limb.
  auto Word = [&](uint32_t Kind) -> uint32_t {
    switch (Kind) {
    case 0: return 0xFFFFFFFFu;
    case 1: return 0;
    case 2: return 1;
    case 3: return 0x80000000u;
    default: return Rng.next();
    }
  };
  for (int T = 0; T < N; ++T) {
    uint32_t Style = T % 4; // 0: random, 1-3: more and more edge words
    for (int I = 0; I < L; ++I) {
      uint32_t Ka = Style == 0 ? 9 : Rng.below(4 + 3 * (3 - Style));
      uint32_t Kb = Style == 0 ? 9 : Rng.below(4 + 3 * (3 - Style));
      A[T * L + I] = Word(Ka);
      B[T * L + I] = Word(Kb);
    }
  }
  // Modulus for the modular add: 2^256 - 2^32 - 977; operands reduced below it
  // by clearing the top bit (a word past 0x7FFFFFFF is then impossible).
  for (int I = 0; I < L; ++I)
    M[I] = 0xFFFFFFFFu;
  M[0] = 0xFFFFFC2Fu, M[1] = 0xFFFFFFFEu;
  std::vector<uint32_t> AM(A), BM(B);
  for (int T = 0; T < N; ++T) {
    AM[T * L + 7] &= 0x7FFFFFFFu;
    BM[T * L + 7] |= 0x80000000u; // b < m still, and a + b crosses 2^255
    if (BM[T * L + 7] == 0xFFFFFFFFu)
      BM[T * L + 7] = 0xFFFFFFFEu;
  }

  uint32_t *dA, *dB, *dAM, *dBM, *dM, *dR;
  const size_t RWords = N * 28; // largest result (ops64)
  CHECK(cudaMalloc(&dA, N * L * 4));
  CHECK(cudaMalloc(&dB, N * L * 4));
  CHECK(cudaMalloc(&dAM, N * L * 4));
  CHECK(cudaMalloc(&dBM, N * L * 4));
  CHECK(cudaMalloc(&dM, L * 4));
  CHECK(cudaMalloc(&dR, RWords * 4));
  CHECK(cudaMemcpy(dA, A.data(), N * L * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), N * L * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dAM, AM.data(), N * L * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dBM, BM.data(), N * L * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dM, M.data(), L * 4, cudaMemcpyHostToDevice));
  std::vector<uint32_t> Got(RWords);
  auto Fetch = [&](size_t Words) {
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Got.data(), dR, Words * 4, cudaMemcpyDeviceToHost));
  };
  const int Threads = 128, Blocks = N / Threads;
  int TotalBad = 0;
  auto Report = [&](const char *Name, int Bad) {
    std::printf("%-12s mismatches=%d\n", Name, Bad);
    TotalBad += Bad;
  };

  // add256, sub256, add256Loop
  for (int K = 0; K < 3; ++K) {
    CHECK(cudaMemset(dR, 0, RWords * 4));
    if (K == 0)
      add256<<<Blocks, Threads>>>(dA, dB, dR);
    else if (K == 1)
      sub256<<<Blocks, Threads>>>(dA, dB, dR);
    else
      add256Loop<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * (L + 1));
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      uint32_t Want[L + 1];
      refAdd(&A[T * L], &B[T * L], Want, K == 1);
      Bad += std::memcmp(Want, &Got[T * (L + 1)], sizeof(Want)) != 0;
    }
    Report(K == 0 ? "add256" : K == 1 ? "sub256" : "add256-loop", Bad);
  }

  {
    branchCarry<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * 4);
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      const uint32_t *X = &A[T * L], *Y = &B[T * L];
      uint64_t S0 = uint64_t(X[0]) + Y[0];
      uint32_t W[4];
      W[0] = uint32_t(S0);
      uint64_t C;
      if (X[2] & 1) {
        uint64_t S1 = uint64_t(X[1]) + Y[1] + (S0 >> 32);
        W[1] = uint32_t(S1), C = S1 >> 32;
      } else {
        uint64_t S1 = uint64_t(X[1]) + uint32_t(~Y[1]);
        W[1] = uint32_t(S1), C = S1 >> 32;
      }
      uint64_t S2 = uint64_t(X[3]) + Y[3] + C;
      W[2] = uint32_t(S2), W[3] = uint32_t(S2 >> 32);
      Bad += std::memcmp(W, &Got[T * 4], sizeof(W)) != 0;
    }
    Report("branch-carry", Bad);
  }

  {
    shiftAddLoop<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * (L + 1));
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      const uint32_t *X = &A[T * L], *Y = &B[T * L];
      uint32_t Sh = Y[7] & 31, W[L + 1];
      uint64_t C = 0;
      for (int I = 0; I < L; ++I) {
        uint64_t Pair = (uint64_t(I + 1 < L ? X[I + 1] : 0) << 32) | X[I];
        C += uint64_t(uint32_t(Pair >> Sh)) + Y[I];
        W[I] = uint32_t(C);
        C >>= 32;
      }
      W[L - 1] ^= X[L - 2]; // the rotated register read after the loop
      W[L] = uint32_t(C);
      Bad += std::memcmp(W, &Got[T * (L + 1)], sizeof(W)) != 0;
    }
    Report("shift-loop", Bad);
  }

  {
    mul256<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * 2 * L);
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      uint32_t W[2 * L] = {};
      for (int I = 0; I < L; ++I) {
        uint64_t C = 0;
        for (int J = 0; J < L; ++J) {
          uint64_t V = uint64_t(A[T * L + J]) * B[T * L + I] + W[I + J] + C;
          W[I + J] = uint32_t(V);
          C = V >> 32;
        }
        W[I + L] = uint32_t(C);
      }
      Bad += std::memcmp(W, &Got[T * 2 * L], sizeof(W)) != 0;
    }
    Report("mul256", Bad);
  }

  {
    ops64<<<Blocks, Threads>>>((const uint64_t *)dA, (const uint64_t *)dB, (uint64_t *)dR);
    Fetch(N * 28);
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      uint64_t X[4], Y[4], W[14];
      std::memcpy(X, &A[T * L], 32);
      std::memcpy(Y, &B[T * L], 32);
      unsigned __int128 C = 0;
      for (int I = 0; I < 4; ++I) {
        C += (unsigned __int128)X[I] + Y[I];
        W[I] = uint64_t(C);
        C >>= 64;
      }
      W[4] = uint64_t(C);
      uint64_t Br = 0;
      for (int I = 0; I < 4; ++I) {
        unsigned __int128 D = (unsigned __int128)X[I] - Y[I] - Br;
        W[5 + I] = uint64_t(D);
        Br = uint64_t(D >> 64) ? 1 : 0;
      }
      W[9] = Br ? ~0ull : 0;
      uint64_t P[4] = {};
      for (int I = 0; I < 4; ++I) {
        unsigned __int128 Cy = 0;
        for (int J = 0; I + J < 4; ++J) {
          Cy += (unsigned __int128)X[J] * Y[I] + P[I + J];
          P[I + J] = uint64_t(Cy);
          Cy >>= 64;
        }
      }
      std::memcpy(&W[10], P, 32);
      Bad += std::memcmp(W, &Got[T * 28], sizeof(W)) != 0;
    }
    Report("ops-u64", Bad);
  }

  {
    ops32s<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * 8);
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      const uint32_t *X = &A[T * L], *Y = &B[T * L];
      uint32_t W[8];
      uint64_t S0 = uint64_t(X[0]) + Y[0], S1 = uint64_t(X[1]) + Y[1] + (S0 >> 32);
      W[0] = uint32_t(S0), W[1] = uint32_t(S1), W[2] = uint32_t(S1 >> 32);
      uint32_t B0 = X[0] < Y[0];
      W[3] = X[0] - Y[0];
      W[4] = X[1] - Y[1] - B0;
      W[5] = (uint64_t(X[1]) < uint64_t(Y[1]) + B0) ? 0xFFFFFFFFu : 0u;
      int64_t P = int64_t(int32_t(X[2])) * int32_t(Y[2]);
      uint64_t Lo = uint64_t(uint32_t(P)) + X[3];
      W[6] = uint32_t(Lo);
      W[7] = uint32_t(uint64_t(P) >> 32) + Y[3] + uint32_t(Lo >> 32);
      Bad += std::memcmp(W, &Got[T * 8], sizeof(W)) != 0;
    }
    Report("ops-s32", Bad);
  }

  {
    predCarry<<<Blocks, Threads>>>(dAM, dBM, dM, dR);
    Fetch(N * (2 * L + 1));
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      const uint32_t *X = &AM[T * L], *Y = &BM[T * L];
      uint32_t W[2 * L + 1], S[L + 1], D[L + 1];
      refAdd(X, Y, S, false);
      refAdd(S, M.data(), D, true);
      bool UseD = S[L] || !D[L]; // carried past 2^256, or no borrow
      for (int I = 0; I < L; ++I)
        W[I] = UseD ? D[I] : S[I];
      uint32_t Sel = (X[7] >> (T & 31)) & 1;
      uint64_t C = uint64_t(X[0]) + Y[0];
      W[L] = uint32_t(C);
      C >>= 32;
      for (int I = 1; I < L; ++I) {
        if (Sel) {
          C += uint64_t(X[I]) + Y[I];
          W[L + I] = uint32_t(C);
          C >>= 32;
        } else {
          W[L + I] = X[I];
        }
      }
      W[2 * L] = uint32_t(C);
      Bad += std::memcmp(W, &Got[T * (2 * L + 1)], sizeof(W)) != 0;
    }
    Report("pred-carry", Bad);
  }

  {
    intrinsics<<<Blocks, Threads>>>(dA, dB, dR);
    Fetch(N * 16);
    int Bad = 0;
    for (int T = 0; T < N; ++T) {
      const uint32_t *X = &A[T * L], *Y = &B[T * L];
      uint32_t W[16];
      uint64_t X64 = (uint64_t(X[1]) << 32) | X[0], Y64 = (uint64_t(Y[1]) << 32) | Y[0];
      W[0] = uint32_t((uint64_t(X[2]) * Y[2]) >> 32);
      W[1] = uint32_t(uint64_t(int64_t(int32_t(X[3])) * int32_t(Y[3])) >> 32);
      uint64_t H = uint64_t(((unsigned __int128)X64 * Y64) >> 64);
      W[2] = uint32_t(H), W[3] = uint32_t(H >> 32);
      uint64_t SH = uint64_t((__int128(int64_t(X64)) * int64_t(Y64)) >> 64);
      W[4] = uint32_t(SH), W[5] = uint32_t(SH >> 32);
      uint64_t P4 = uint64_t(X[4]) * Y[4], P5 = uint64_t(X[5]) * Y[5];
      W[6] = uint32_t(P4), W[7] = uint32_t(P4 >> 32);
      W[8] = uint32_t(P5), W[9] = uint32_t(P5 >> 32);
      uint8_t Bytes[8];
      std::memcpy(Bytes, &X[6], 4);
      std::memcpy(Bytes + 4, &Y[6], 4);
      uint32_t Sel = Y[7] & 0x7777, Perm = 0;
      for (int K = 0; K < 4; ++K)
        Perm |= uint32_t(Bytes[(Sel >> (4 * K)) & 7]) << (8 * K);
      W[10] = Perm;
      W[11] = __builtin_bswap32(X[6]);
      uint64_t Pair = (uint64_t(Y[3]) << 32) | X[7];
      uint32_t Sh = Y[5] & 31, ShC = (Y[5] & 63) > 32 ? 32 : (Y[5] & 63);
      W[12] = uint32_t((Pair << Sh) >> 32);
      W[13] = uint32_t(Pair >> Sh);
      W[14] = ShC == 32 ? X[7] : uint32_t((Pair << ShC) >> 32);
      W[15] = ShC == 32 ? Y[3] : uint32_t(Pair >> ShC);
      Bad += std::memcmp(W, &Got[T * 16], sizeof(W)) != 0;
    }
    Report("intrinsics", Bad);
  }

  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dAM));
  CHECK(cudaFree(dBM));
  CHECK(cudaFree(dM));
  CHECK(cudaFree(dR));
  std::printf("%d kernels x %d vectors, total mismatches=%d\n", 10, N, TotalBad);
  return finish(TotalBad == 0);
}
