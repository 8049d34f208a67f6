/// \file
/// Elliptic-curve Diffie-Hellman over secp256k1 (y^2 = x^3 + 7 modulo
/// p = 2^256 - 2^32 - 977), as GPU key-agreement benchmarks do it: 256-bit
/// field arithmetic in Montgomery form written with inline PTX carry chains,
/// once with eight 32-bit limbs (mad.lo.cc/madc.hi.cc products, mul.lo with
/// __umulhi reductions, mul.wide for small multiples) and once with four
/// 64-bit limbs (mul.lo with __umul64hi products, mad.lo.cc.u64/madc.hi.cc.u64
/// reductions); both use R = 2^256, so their Montgomery forms are the same
/// bits. Points in Jacobian coordinates, scalars read from big-endian bytes
/// (__byte_perm) bit by bit (__funnelshift_r) for double-and-add, the
/// modular inverse by exponentiation. Each pair's public keys come from fixed private scalars
/// (side A with the 32-bit field, side B with the 64-bit one); the shared
/// secret is computed both ways, a*B with one field and b*A with the other,
/// and both must agree with each other and with a CPU reference written with
/// unsigned __int128 and plain (not Montgomery) reduction.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

constexpr int Pairs = 64;

//===----------------------------------------------------------------------===//
// Constants, set by the host (computed with the CPU arithmetic below).
//===----------------------------------------------------------------------===//

struct CurveConsts {
  uint32_t P[8];       // the prime, little-endian words
  uint32_t PM2[8];     // p - 2, the inverse's exponent
  uint32_t R2[8];      // 2^512 mod p: to Montgomery form
  uint32_t OneM[8];    // 2^256 mod p: 1 in Montgomery form
  uint32_t SevenM[8];  // 7 in Montgomery form
  uint32_t GxM[8], GyM[8];
  uint32_t PInv32;     // -p^-1 mod 2^32
  uint32_t Pad;
  uint64_t PInv64;     // -p^-1 mod 2^64
};
__constant__ CurveConsts K;

//===----------------------------------------------------------------------===//
// 32-bit limbs.
//===----------------------------------------------------------------------===//

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

struct F32 {
  struct Elem {
    uint32_t W[8];
  };
  __device__ static Elem load(const uint32_t *V) {
    Elem R;
#pragma unroll
    for (int I = 0; I < 8; ++I)
      R.W[I] = V[I];
    return R;
  }
  __device__ static void store(const Elem &A, uint32_t *V) {
#pragma unroll
    for (int I = 0; I < 8; ++I)
      V[I] = A.W[I];
  }
  __device__ static bool isZero(const Elem &A) {
    uint32_t Or = 0;
#pragma unroll
    for (int I = 0; I < 8; ++I)
      Or |= A.W[I];
    return Or == 0;
  }
  __device__ static bool equal(const Elem &A, const Elem &B) {
    uint32_t Or = 0;
#pragma unroll
    for (int I = 0; I < 8; ++I)
      Or |= A.W[I] ^ B.W[I];
    return Or == 0;
  }
  // T (nine words, T < 2p) minus p where that does not borrow.
  __device__ static Elem reduceOnce(const uint32_t *T, uint32_t Top) {
    Elem D;
    D.W[0] = sub_cc(T[0], K.P[0]);
#pragma unroll
    for (int I = 1; I < 8; ++I)
      D.W[I] = subc_cc(T[I], K.P[I]);
    uint32_t Borrow = subc(Top, 0);
    Elem R;
#pragma unroll
    for (int I = 0; I < 8; ++I)
      R.W[I] = Borrow == 0 ? D.W[I] : T[I];
    return R;
  }
  __device__ static Elem add(const Elem &A, const Elem &B) {
    uint32_t S[8];
    S[0] = add_cc(A.W[0], B.W[0]);
#pragma unroll
    for (int I = 1; I < 8; ++I)
      S[I] = addc_cc(A.W[I], B.W[I]);
    uint32_t Carry = addc(0, 0);
    return reduceOnce(S, Carry);
  }
  // The borrow lives across the iterations of a limb loop that is not
  // unrolled.
  __device__ static Elem sub(const Elem &A, const Elem &B) {
    Elem D;
    D.W[0] = sub_cc(A.W[0], B.W[0]);
#pragma unroll 1
    for (int I = 1; I < 8; ++I)
      D.W[I] = subc_cc(A.W[I], B.W[I]);
    uint32_t Mask = subc(0, 0); // all ones on borrow: add p back
    D.W[0] = add_cc(D.W[0], K.P[0] & Mask);
#pragma unroll
    for (int I = 1; I < 8; ++I)
      D.W[I] = addc_cc(D.W[I], K.P[I] & Mask);
    return D;
  }
  // Montgomery product A*B/2^256 mod p (CIOS): the products through
  // mad/madc chains, the reduction through mul.lo and __umulhi.
  __device__ static Elem mul(const Elem &A, const Elem &B) {
    uint32_t T[10];
#pragma unroll
    for (int I = 0; I < 10; ++I)
      T[I] = 0;
    // One row per iteration, the row's carry chains straight-line inside.
#pragma unroll 1
    for (int I = 0; I < 8; ++I) {
      uint32_t Bi = B.W[I];
      T[0] = mad_lo_cc(A.W[0], Bi, T[0]);
#pragma unroll
      for (int J = 1; J < 8; ++J)
        T[J] = madc_lo_cc(A.W[J], Bi, T[J]);
      T[8] = addc_cc(T[8], 0);
      T[9] = addc(T[9], 0);
      T[1] = mad_hi_cc(A.W[0], Bi, T[1]);
#pragma unroll
      for (int J = 1; J < 8; ++J)
        T[J + 1] = madc_hi_cc(A.W[J], Bi, T[J + 1]);
      T[9] = addc(T[9], 0);
      uint32_t M = T[0] * K.PInv32;
      uint32_t Lo[8], Hi[8];
#pragma unroll
      for (int J = 0; J < 8; ++J) {
        Lo[J] = M * K.P[J];
        Hi[J] = __umulhi(M, K.P[J]);
      }
      T[0] = add_cc(T[0], Lo[0]);
#pragma unroll
      for (int J = 1; J < 8; ++J)
        T[J] = addc_cc(T[J], Lo[J]);
      T[8] = addc_cc(T[8], 0);
      T[9] = addc(T[9], 0);
      T[1] = add_cc(T[1], Hi[0]);
#pragma unroll
      for (int J = 1; J < 8; ++J)
        T[J + 1] = addc_cc(T[J + 1], Hi[J]);
      T[9] = addc(T[9], 0);
#pragma unroll
      for (int J = 0; J < 9; ++J)
        T[J] = T[J + 1];
      T[9] = 0;
    }
    return reduceOnce(T, T[8]);
  }
  // A*k for a small k, reduced with 2^256 = 2^32 + 977 (mod p).
  __device__ static Elem mulSmall(const Elem &A, uint32_t Kf) {
    uint32_t S[8];
    uint32_t Carry = 0;
#pragma unroll
    for (int I = 0; I < 8; ++I) {
      uint64_t V = uint64_t(A.W[I]) * Kf + Carry; // mul.wide.u32
      S[I] = uint32_t(V);
      Carry = uint32_t(V >> 32);
    }
    // Fold the top word back twice (the second fold adds at most 1 * c).
#pragma unroll
    for (int Round = 0; Round < 2; ++Round) {
      uint64_t Low = uint64_t(Carry) * 977u;
      S[0] = add_cc(S[0], uint32_t(Low));
      S[1] = addc_cc(S[1], uint32_t(Low >> 32) + Carry);
#pragma unroll
      for (int I = 2; I < 8; ++I)
        S[I] = addc_cc(S[I], 0);
      Carry = addc(0, 0);
    }
    return reduceOnce(S, 0);
  }
};

//===----------------------------------------------------------------------===//
// 64-bit limbs.
//===----------------------------------------------------------------------===//

__device__ __forceinline__ uint64_t add_cc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("add.cc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t addc_cc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("addc.cc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t addc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("addc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t sub_cc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("sub.cc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t subc_cc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("subc.cc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t subc64(uint64_t A, uint64_t B) {
  uint64_t R;
  asm volatile("subc.u64 %0, %1, %2;" : "=l"(R) : "l"(A), "l"(B));
  return R;
}
__device__ __forceinline__ uint64_t mad_lo_cc64(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t R;
  asm volatile("mad.lo.cc.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "l"(B), "l"(C));
  return R;
}
__device__ __forceinline__ uint64_t madc_lo_cc64(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t R;
  asm volatile("madc.lo.cc.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "l"(B), "l"(C));
  return R;
}
__device__ __forceinline__ uint64_t mad_hi_cc64(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t R;
  asm volatile("mad.hi.cc.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "l"(B), "l"(C));
  return R;
}
__device__ __forceinline__ uint64_t madc_hi_cc64(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t R;
  asm volatile("madc.hi.cc.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(A), "l"(B), "l"(C));
  return R;
}

struct F64 {
  struct Elem {
    uint64_t W[4];
  };
  __device__ static uint64_t p(int I) { return uint64_t(K.P[2 * I]) | uint64_t(K.P[2 * I + 1]) << 32; }
  __device__ static Elem load(const uint32_t *V) {
    Elem R;
#pragma unroll
    for (int I = 0; I < 4; ++I)
      R.W[I] = uint64_t(V[2 * I]) | uint64_t(V[2 * I + 1]) << 32;
    return R;
  }
  __device__ static void store(const Elem &A, uint32_t *V) {
#pragma unroll
    for (int I = 0; I < 4; ++I) {
      V[2 * I] = uint32_t(A.W[I]);
      V[2 * I + 1] = uint32_t(A.W[I] >> 32);
    }
  }
  __device__ static bool isZero(const Elem &A) { return (A.W[0] | A.W[1] | A.W[2] | A.W[3]) == 0; }
  __device__ static bool equal(const Elem &A, const Elem &B) {
    return ((A.W[0] ^ B.W[0]) | (A.W[1] ^ B.W[1]) | (A.W[2] ^ B.W[2]) | (A.W[3] ^ B.W[3])) == 0;
  }
  __device__ static Elem reduceOnce(const uint64_t *T, uint64_t Top) {
    Elem D;
    D.W[0] = sub_cc64(T[0], p(0));
#pragma unroll
    for (int I = 1; I < 4; ++I)
      D.W[I] = subc_cc64(T[I], p(I));
    uint64_t Borrow = subc64(Top, 0);
    Elem R;
#pragma unroll
    for (int I = 0; I < 4; ++I)
      R.W[I] = Borrow == 0 ? D.W[I] : T[I];
    return R;
  }
  __device__ static Elem add(const Elem &A, const Elem &B) {
    uint64_t S[4];
    S[0] = add_cc64(A.W[0], B.W[0]);
#pragma unroll
    for (int I = 1; I < 4; ++I)
      S[I] = addc_cc64(A.W[I], B.W[I]);
    uint64_t Carry = addc64(0, 0);
    return reduceOnce(S, Carry);
  }
  __device__ static Elem sub(const Elem &A, const Elem &B) {
    Elem D;
    D.W[0] = sub_cc64(A.W[0], B.W[0]);
#pragma unroll
    for (int I = 1; I < 4; ++I)
      D.W[I] = subc_cc64(A.W[I], B.W[I]);
    uint64_t Mask = subc64(0, 0);
    D.W[0] = add_cc64(D.W[0], p(0) & Mask);
#pragma unroll
    for (int I = 1; I < 4; ++I)
      D.W[I] = addc_cc64(D.W[I], p(I) & Mask);
    return D;
  }
  // Montgomery product (CIOS): products through mul.lo and __umul64hi,
  // the reduction through mad.lo.cc/madc.hi.cc chains.
  __device__ static Elem mul(const Elem &A, const Elem &B) {
    uint64_t T[6] = {0, 0, 0, 0, 0, 0};
#pragma unroll 1
    for (int I = 0; I < 4; ++I) {
      uint64_t Bi = B.W[I], Lo[4], Hi[4];
#pragma unroll
      for (int J = 0; J < 4; ++J) {
        Lo[J] = A.W[J] * Bi;
        Hi[J] = __umul64hi(A.W[J], Bi);
      }
      T[0] = add_cc64(T[0], Lo[0]);
#pragma unroll
      for (int J = 1; J < 4; ++J)
        T[J] = addc_cc64(T[J], Lo[J]);
      T[4] = addc_cc64(T[4], 0);
      T[5] = addc64(T[5], 0);
      T[1] = add_cc64(T[1], Hi[0]);
#pragma unroll
      for (int J = 1; J < 4; ++J)
        T[J + 1] = addc_cc64(T[J + 1], Hi[J]);
      T[5] = addc64(T[5], 0);
      uint64_t M = T[0] * K.PInv64;
      T[0] = mad_lo_cc64(M, p(0), T[0]);
#pragma unroll
      for (int J = 1; J < 4; ++J)
        T[J] = madc_lo_cc64(M, p(J), T[J]);
      T[4] = addc_cc64(T[4], 0);
      T[5] = addc64(T[5], 0);
      T[1] = mad_hi_cc64(M, p(0), T[1]);
#pragma unroll
      for (int J = 1; J < 4; ++J)
        T[J + 1] = madc_hi_cc64(M, p(J), T[J + 1]);
      T[5] = addc64(T[5], 0);
#pragma unroll
      for (int J = 0; J < 5; ++J)
        T[J] = T[J + 1];
      T[5] = 0;
    }
    return reduceOnce(T, T[4]);
  }
  __device__ static Elem mulSmall(const Elem &A, uint32_t Kf) {
    uint64_t S[4], Carry = 0;
    S[0] = A.W[0] * Kf;
    uint64_t H0 = __umul64hi(A.W[0], uint64_t(Kf));
    S[1] = add_cc64(A.W[1] * Kf, H0);
    S[2] = addc_cc64(A.W[2] * Kf, __umul64hi(A.W[1], uint64_t(Kf)));
    S[3] = addc_cc64(A.W[3] * Kf, __umul64hi(A.W[2], uint64_t(Kf)));
    Carry = addc64(__umul64hi(A.W[3], uint64_t(Kf)), 0);
#pragma unroll
    for (int Round = 0; Round < 2; ++Round) {
      S[0] = add_cc64(S[0], Carry * 0x1000003D1ull);
#pragma unroll
      for (int I = 1; I < 4; ++I)
        S[I] = addc_cc64(S[I], 0);
      Carry = addc64(0, 0);
    }
    return reduceOnce(S, 0);
  }
};

//===----------------------------------------------------------------------===//
// Curve arithmetic, for either field.
//===----------------------------------------------------------------------===//

template <typename F> struct Point {
  typename F::Elem X, Y, Z; // Jacobian; Z = 0 is the point at infinity
};

template <typename F> __device__ __noinline__ Point<F> dbl(const Point<F> &P) {
  if (F::isZero(P.Z) || F::isZero(P.Y)) {
    Point<F> R = P;
    R.Z = {};
    return R;
  }
  auto A = F::mul(P.X, P.X), Bs = F::mul(P.Y, P.Y), Cs = F::mul(Bs, Bs);
  auto XB = F::add(P.X, Bs);
  auto D = F::mulSmall(F::sub(F::sub(F::mul(XB, XB), A), Cs), 2);
  auto E = F::mulSmall(A, 3);
  auto Fs = F::mul(E, E);
  Point<F> R;
  R.X = F::sub(Fs, F::add(D, D));
  R.Y = F::sub(F::mul(E, F::sub(D, R.X)), F::mulSmall(Cs, 8));
  R.Z = F::mulSmall(F::mul(P.Y, P.Z), 2);
  return R;
}

// P + Q for P != +-Q. Where P = +-Q (H = 0) the sum is not computed:
// Degenerate is set, and the caller decides (double-and-add never meets
// it for scalars below n/2: P + 2kP = P would need 2k = 0 mod n).
template <typename F>
__device__ __noinline__ Point<F> add(const Point<F> &P, const Point<F> &Q, uint32_t &Degenerate) {
  if (F::isZero(P.Z))
    return Q;
  if (F::isZero(Q.Z))
    return P;
  auto Z1Z1 = F::mul(P.Z, P.Z), Z2Z2 = F::mul(Q.Z, Q.Z);
  auto U1 = F::mul(P.X, Z2Z2), U2 = F::mul(Q.X, Z1Z1);
  auto S1 = F::mul(F::mul(P.Y, Q.Z), Z2Z2), S2 = F::mul(F::mul(Q.Y, P.Z), Z1Z1);
  auto H = F::sub(U2, U1);
  auto Rr = F::mulSmall(F::sub(S2, S1), 2);
  if (F::isZero(H)) {
    Degenerate = 1;
    return P;
  }
  auto H2 = F::mulSmall(H, 2);
  auto I = F::mul(H2, H2), J = F::mul(H, I), V = F::mul(U1, I);
  Point<F> R;
  R.X = F::sub(F::sub(F::mul(Rr, Rr), J), F::add(V, V));
  auto S1J = F::mul(S1, J);
  R.Y = F::sub(F::mul(Rr, F::sub(V, R.X)), F::add(S1J, S1J));
  auto ZZ = F::add(P.Z, Q.Z);
  R.Z = F::mul(F::sub(F::sub(F::mul(ZZ, ZZ), Z1Z1), Z2Z2), H);
  return R;
}

// Scalar (8 big-endian words as stored) times P: double-and-add from the
// top bit, each bit read with a funnel shift across the limb pair.
template <typename F>
__device__ Point<F> scalarMul(const uint32_t *BigEndian, const Point<F> &P, uint32_t &Degenerate) {
  uint32_t S[9];
#pragma unroll
  for (int I = 0; I < 8; ++I)
    S[7 - I] = __byte_perm(BigEndian[I], 0, 0x0123);
  S[8] = 0;
  Point<F> Acc = P;
  Acc.Z = {}; // infinity
  for (int Bit = 255; Bit >= 0; --Bit) {
    Acc = dbl<F>(Acc);
    // Bits Bit..Bit+31 of the scalar; the lowest is the one wanted.
    if (__funnelshift_r(S[Bit / 32], S[Bit / 32 + 1], Bit % 32) & 1)
      Acc = add<F>(Acc, P, Degenerate);
  }
  return Acc;
}

template <typename F> __device__ typename F::Elem inverse(const typename F::Elem &A) {
  typename F::Elem R = F::load(K.OneM);
  for (int Bit = 255; Bit >= 0; --Bit) {
    R = F::mul(R, R);
    if ((K.PM2[Bit / 32] >> (Bit % 32)) & 1)
      R = F::mul(R, A);
  }
  return R;
}

// Affine coordinates out of Montgomery form; (0, 0) for infinity.
template <typename F> __device__ void toAffine(const Point<F> &P, uint32_t *X, uint32_t *Y) {
  typename F::Elem One = {};
  One.W[0] = 1;
  if (F::isZero(P.Z)) {
    F::store({}, X);
    F::store({}, Y);
    return;
  }
  auto Zi = inverse<F>(P.Z);
  auto Zi2 = F::mul(Zi, Zi);
  F::store(F::mul(F::mul(P.X, Zi2), One), X);
  F::store(F::mul(F::mul(F::mul(P.Y, Zi2), Zi), One), Y);
}

// Private scalar times a point, affine x and y out (16 words per thread):
// the generator when Base is null (key generation), else the peer's public
// key (affine, 16 words per thread), after checking that it is on the curve
// (Ok[T] = 1; key agreement). Ok[T] is cleared where an addition met equal
// points (not expected, see add()).
template <typename F>
__global__ void pointMul(const uint32_t *Priv, const uint32_t *Base, uint32_t *Out, uint32_t *Ok) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= Pairs)
    return;
  Point<F> Q;
  Q.Z = F::load(K.OneM);
  if (!Base) {
    Q.X = F::load(K.GxM);
    Q.Y = F::load(K.GyM);
    Ok[T] = 1;
  } else {
    auto R2 = F::load(K.R2);
    Q.X = F::mul(F::load(Base + 16 * T), R2);
    Q.Y = F::mul(F::load(Base + 16 * T + 8), R2);
    auto Lhs = F::mul(Q.Y, Q.Y);
    auto Rhs = F::add(F::mul(F::mul(Q.X, Q.X), Q.X), F::load(K.SevenM));
    Ok[T] = F::equal(Lhs, Rhs);
  }
  uint32_t Degenerate = 0;
  Point<F> S = scalarMul<F>(Priv + 8 * T, Q, Degenerate);
  toAffine<F>(S, Out + 16 * T, Out + 16 * T + 8);
  Ok[T] &= !Degenerate;
}

//===----------------------------------------------------------------------===//
// CPU reference: four 64-bit limbs, products in unsigned __int128, the
// 512-bit product folded with 2^256 = 0x1000003D1 (mod p).
//===----------------------------------------------------------------------===//

using U128 = unsigned __int128;
struct Num {
  uint64_t L[4];
};
const Num PrimeP = {{0xFFFFFFFEFFFFFC2Full, ~0ull, ~0ull, ~0ull}};
constexpr uint64_t Fold = 0x1000003D1ull;

bool geq(const Num &A, const Num &B) {
  for (int I = 3; I >= 0; --I)
    if (A.L[I] != B.L[I])
      return A.L[I] > B.L[I];
  return true;
}
// A - B, returning the borrow.
uint64_t subRaw(Num &A, const Num &B) {
  uint64_t Br = 0;
  for (int I = 0; I < 4; ++I) {
    U128 D = U128(A.L[I]) - B.L[I] - Br;
    A.L[I] = uint64_t(D);
    Br = uint64_t(D >> 64) & 1;
  }
  return Br;
}
Num addMod(const Num &A, const Num &B) {
  Num R;
  U128 C = 0;
  for (int I = 0; I < 4; ++I) {
    C += U128(A.L[I]) + B.L[I];
    R.L[I] = uint64_t(C);
    C >>= 64;
  }
  if (C || geq(R, PrimeP))
    subRaw(R, PrimeP);
  return R;
}
Num subMod(const Num &A, const Num &B) {
  Num R = A;
  if (subRaw(R, B)) {
    U128 C = 0;
    for (int I = 0; I < 4; ++I) {
      C += U128(R.L[I]) + PrimeP.L[I];
      R.L[I] = uint64_t(C);
      C >>= 64;
    }
  }
  return R;
}
Num mulMod(const Num &A, const Num &B) {
  uint64_t T[8] = {};
  for (int I = 0; I < 4; ++I) {
    U128 C = 0;
    for (int J = 0; J < 4; ++J) {
      C += U128(A.L[J]) * B.L[I] + T[I + J];
      T[I + J] = uint64_t(C);
      C >>= 64;
    }
    T[I + 4] = uint64_t(C);
  }
  // lo + hi * Fold: five limbs, then the fifth folded again.
  uint64_t R[5];
  U128 C = 0;
  for (int I = 0; I < 4; ++I) {
    C += U128(T[I + 4]) * Fold + T[I];
    R[I] = uint64_t(C);
    C >>= 64;
  }
  R[4] = uint64_t(C);
  C = U128(R[4]) * Fold;
  Num Out;
  for (int I = 0; I < 4; ++I) {
    C += R[I];
    Out.L[I] = uint64_t(C);
    C >>= 64;
  }
  if (C) { // wrapped past 2^256 once more: add Fold (cannot carry again)
    U128 D = Fold;
    for (int I = 0; I < 4; ++I) {
      D += Out.L[I];
      Out.L[I] = uint64_t(D);
      D >>= 64;
    }
  }
  while (geq(Out, PrimeP))
    subRaw(Out, PrimeP);
  return Out;
}
Num small(uint64_t V) { return Num{{V, 0, 0, 0}}; }
bool isZero(const Num &A) { return !(A.L[0] | A.L[1] | A.L[2] | A.L[3]); }
bool same(const Num &A, const Num &B) { return !std::memcmp(A.L, B.L, 32); }
Num powMod(Num A, const Num &E) {
  Num R = small(1);
  for (int Bit = 255; Bit >= 0; --Bit) {
    R = mulMod(R, R);
    if ((E.L[Bit / 64] >> (Bit % 64)) & 1)
      R = mulMod(R, A);
  }
  return R;
}

struct JPoint {
  Num X, Y, Z;
};
JPoint refDbl(const JPoint &P) {
  if (isZero(P.Z) || isZero(P.Y))
    return {small(0), small(1), small(0)};
  Num A = mulMod(P.X, P.X), Bs = mulMod(P.Y, P.Y), Cs = mulMod(Bs, Bs);
  Num XB = addMod(P.X, Bs);
  Num D = subMod(subMod(mulMod(XB, XB), A), Cs);
  D = addMod(D, D);
  Num E = addMod(addMod(A, A), A);
  Num X3 = subMod(mulMod(E, E), addMod(D, D));
  Num C8 = mulMod(Cs, small(8));
  Num Y3 = subMod(mulMod(E, subMod(D, X3)), C8);
  Num Z3 = mulMod(small(2), mulMod(P.Y, P.Z));
  return {X3, Y3, Z3};
}
JPoint refAdd(const JPoint &P, const JPoint &Q) {
  if (isZero(P.Z))
    return Q;
  if (isZero(Q.Z))
    return P;
  Num Z1Z1 = mulMod(P.Z, P.Z), Z2Z2 = mulMod(Q.Z, Q.Z);
  Num U1 = mulMod(P.X, Z2Z2), U2 = mulMod(Q.X, Z1Z1);
  Num S1 = mulMod(mulMod(P.Y, Q.Z), Z2Z2), S2 = mulMod(mulMod(Q.Y, P.Z), Z1Z1);
  Num H = subMod(U2, U1), Rr = subMod(S2, S1);
  Rr = addMod(Rr, Rr);
  if (isZero(H))
    return isZero(Rr) ? refDbl(P) : JPoint{small(0), small(1), small(0)};
  Num H2 = addMod(H, H);
  Num I = mulMod(H2, H2), J = mulMod(H, I), V = mulMod(U1, I);
  Num X3 = subMod(subMod(mulMod(Rr, Rr), J), addMod(V, V));
  Num S1J = mulMod(S1, J);
  Num Y3 = subMod(mulMod(Rr, subMod(V, X3)), addMod(S1J, S1J));
  Num ZZ = addMod(P.Z, Q.Z);
  Num Z3 = mulMod(subMod(subMod(mulMod(ZZ, ZZ), Z1Z1), Z2Z2), H);
  return {X3, Y3, Z3};
}
// Plain double-and-add, most significant bit first.
JPoint refMul(const Num &S, const JPoint &P) {
  JPoint Acc = {small(0), small(1), small(0)};
  for (int Bit = 255; Bit >= 0; --Bit) {
    Acc = refDbl(Acc);
    if ((S.L[Bit / 64] >> (Bit % 64)) & 1)
      Acc = refAdd(Acc, P);
  }
  return Acc;
}
void refAffine(const JPoint &P, Num &X, Num &Y) {
  Num Pm2 = PrimeP;
  Pm2.L[0] -= 2;
  Num Zi = powMod(P.Z, Pm2), Zi2 = mulMod(Zi, Zi);
  X = mulMod(P.X, Zi2);
  Y = mulMod(mulMod(P.Y, Zi2), Zi);
}
void toWords(const Num &A, uint32_t *W) {
  for (int I = 0; I < 4; ++I) {
    W[2 * I] = uint32_t(A.L[I]);
    W[2 * I + 1] = uint32_t(A.L[I] >> 32);
  }
}
Num fromWords(const uint32_t *W) {
  Num A;
  for (int I = 0; I < 4; ++I)
    A.L[I] = uint64_t(W[2 * I]) | uint64_t(W[2 * I + 1]) << 32;
  return A;
}
// -m^-1 mod 2^Bits for odd m (Newton: each step doubles the good bits).
uint64_t negInverse(uint64_t M) {
  uint64_t X = M; // right to 3 bits for odd M
  for (int I = 0; I < 5; ++I)
    X *= 2 - M * X;
  return 0 - X;
}

int main() {
  const Num Gx = {{0x59F2815B16F81798ull, 0x029BFCDB2DCE28D9ull, 0x55A06295CE870B07ull, 0x79BE667EF9DCBBACull}};
  const Num Gy = {{0x9C47D08FFB10D4B8ull, 0xFD17B448A6855419ull, 0x5DA4FBFC0E1108A8ull, 0x483ADA7726A3C465ull}};
  // The generator must be on the curve: y^2 = x^3 + 7.
  bool GOk = same(mulMod(Gy, Gy), addMod(mulMod(mulMod(Gx, Gx), Gx), small(7)));

  // Montgomery constants: R = 2^256 mod p = Fold, R2 = Fold^2 mod p.
  Num R = small(Fold), R2 = mulMod(R, R);
  CurveConsts H = {};
  toWords(PrimeP, H.P);
  Num Pm2 = PrimeP;
  Pm2.L[0] -= 2;
  toWords(Pm2, H.PM2);
  toWords(R2, H.R2);
  toWords(R, H.OneM);
  toWords(mulMod(small(7), R), H.SevenM);
  toWords(mulMod(Gx, R), H.GxM);
  toWords(mulMod(Gy, R), H.GyM);
  H.PInv64 = negInverse(PrimeP.L[0]);
  H.PInv32 = uint32_t(H.PInv64);
  CHECK(cudaMemcpyToSymbol(K, &H, sizeof(H)));

  // Private scalars: 255-bit, nonzero, stored big-endian as key files are.
  Lcg Rng(0xECD4);
  std::vector<uint8_t> PrivA(Pairs * 32), PrivB(Pairs * 32);
  std::vector<Num> SA(Pairs), SB(Pairs);
  for (int T = 0; T < Pairs; ++T) {
    for (int Side = 0; Side < 2; ++Side) {
      Num S;
      for (int I = 0; I < 4; ++I)
        S.L[I] = uint64_t(Rng.next()) << 32 | Rng.next();
      S.L[3] &= 0x7FFFFFFFFFFFFFFFull;
      if (T == 1) // a small scalar: most windows are zero
        S = small(Side ? 5 : 0x123456789ull);
      S.L[0] |= 1;
      uint8_t *Bytes = (Side ? PrivB.data() : PrivA.data()) + 32 * T;
      for (int I = 0; I < 32; ++I)
        Bytes[I] = uint8_t(S.L[3 - I / 8] >> (8 * (7 - I % 8)));
      (Side ? SB : SA)[T] = S;
    }
  }

  uint32_t *DPrivA, *DPrivB, *DPubA, *DPubB, *DSecAB, *DSecBA, *DOk;
  CHECK(cudaMalloc(&DPrivA, Pairs * 32));
  CHECK(cudaMalloc(&DPrivB, Pairs * 32));
  CHECK(cudaMalloc(&DPubA, Pairs * 64));
  CHECK(cudaMalloc(&DPubB, Pairs * 64));
  CHECK(cudaMalloc(&DSecAB, Pairs * 64));
  CHECK(cudaMalloc(&DSecBA, Pairs * 64));
  CHECK(cudaMalloc(&DOk, 4 * Pairs * 4));
  CHECK(cudaMemcpy(DPrivA, PrivA.data(), Pairs * 32, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DPrivB, PrivB.data(), Pairs * 32, cudaMemcpyHostToDevice));
  const int Threads = 32, Blocks = (Pairs + Threads - 1) / Threads;
  // Side A with the 32-bit field, side B with the 64-bit one; then each
  // side's secret from the other's public key.
  pointMul<F32><<<Blocks, Threads>>>(DPrivA, nullptr, DPubA, DOk);
  pointMul<F64><<<Blocks, Threads>>>(DPrivB, nullptr, DPubB, DOk + Pairs);
  CHECK(cudaGetLastError());
  pointMul<F32><<<Blocks, Threads>>>(DPrivA, DPubB, DSecAB, DOk + 2 * Pairs);
  pointMul<F64><<<Blocks, Threads>>>(DPrivB, DPubA, DSecBA, DOk + 3 * Pairs);
  CHECK(cudaGetLastError());
  std::vector<uint32_t> PubA(Pairs * 16), PubB(Pairs * 16), SecAB(Pairs * 16), SecBA(Pairs * 16), Ok(4 * Pairs);
  CHECK(cudaMemcpy(PubA.data(), DPubA, Pairs * 64, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(PubB.data(), DPubB, Pairs * 64, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(SecAB.data(), DSecAB, Pairs * 64, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(SecBA.data(), DSecBA, Pairs * 64, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Ok.data(), DOk, 4 * Pairs * 4, cudaMemcpyDeviceToHost));

  // CPU reference for every pair.
  JPoint G = {Gx, Gy, small(1)};
  int BadPub = 0, BadSecret = 0, Disagree = 0, Rejected = 0;
  uint64_t Digest = 0;
  Num S0x = small(0);
  for (int T = 0; T < Pairs; ++T) {
    Num Ax, Ay, Bx, By, Sx, Sy;
    refAffine(refMul(SA[T], G), Ax, Ay);
    refAffine(refMul(SB[T], G), Bx, By);
    refAffine(refMul(SA[T], JPoint{Bx, By, small(1)}), Sx, Sy);
    BadPub += !same(fromWords(&PubA[16 * T]), Ax) || !same(fromWords(&PubA[16 * T + 8]), Ay);
    BadPub += !same(fromWords(&PubB[16 * T]), Bx) || !same(fromWords(&PubB[16 * T + 8]), By);
    BadSecret += !same(fromWords(&SecAB[16 * T]), Sx) || !same(fromWords(&SecAB[16 * T + 8]), Sy);
    BadSecret += !same(fromWords(&SecBA[16 * T]), Sx) || !same(fromWords(&SecBA[16 * T + 8]), Sy);
    Disagree += std::memcmp(&SecAB[16 * T], &SecBA[16 * T], 64) != 0; // x and y
    Rejected += !Ok[T] + !Ok[Pairs + T] + !Ok[2 * Pairs + T] + !Ok[3 * Pairs + T];
    Digest = (Digest ^ Sx.L[0] ^ Sx.L[3]) * 0x100000001B3ull;
    if (T == 0)
      S0x = Sx;
  }
  std::printf("generator on curve: %s\n", GOk ? "yes" : "no");
  std::printf("pairs=%d public-key mismatches=%d secret mismatches=%d a*B != b*A: %d rejected=%d\n", Pairs, BadPub,
              BadSecret, Disagree, Rejected);
  std::printf("pair 0 secret x (CPU): %016llx%016llx%016llx%016llx\n", (unsigned long long)S0x.L[3],
              (unsigned long long)S0x.L[2], (unsigned long long)S0x.L[1], (unsigned long long)S0x.L[0]);
  std::printf("secret digest (CPU): %016llx\n", (unsigned long long)Digest);
  CHECK(cudaFree(DPrivA));
  CHECK(cudaFree(DPrivB));
  CHECK(cudaFree(DPubA));
  CHECK(cudaFree(DPubB));
  CHECK(cudaFree(DSecAB));
  CHECK(cudaFree(DSecBA));
  CHECK(cudaFree(DOk));
  return finish(GOk && BadPub == 0 && BadSecret == 0 && Disagree == 0 && Rejected == 0);
}
