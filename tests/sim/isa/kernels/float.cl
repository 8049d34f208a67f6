#include "common.h"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// f32 arithmetic with division, sqrt, fma, min/max, rounding, conversions.
__kernel void fmath(__global const float *a, __global const float *b, __global float *o) {
  uint i = gid(0);
  float x = a[i], y = b[i];
  o[10 * i + 0] = x / y;
  o[10 * i + 1] = __builtin_sqrtf(__builtin_fabsf(x));
  o[10 * i + 2] = __builtin_fmaf(x, y, 1.5f);
  o[10 * i + 3] = __builtin_fminf(x, y);
  o[10 * i + 4] = __builtin_fmaxf(x, y);
  o[10 * i + 5] = __builtin_floorf(x) + __builtin_ceilf(y);
  o[10 * i + 6] = __builtin_truncf(x * 3.0f) - __builtin_rintf(y * 3.0f);
  o[10 * i + 7] = (float)(int)(x * 100.0f) + (float)(uint)__builtin_fabsf(y * 10.0f);
  o[10 * i + 8] = __builtin_copysignf(x, y) * (x < y ? 2.0f : 0.5f);
  o[10 * i + 9] = __builtin_ldexpf(x, (int)(i % 7) - 3);
}
// f64 arithmetic: division and sqrt are expanded (v_div_scale/fmas/fixup,
// v_rsq_f64 refinement).
__kernel void dmath(__global const double *a, __global const double *b, __global double *o) {
  uint i = gid(0);
  double x = a[i], y = b[i];
  o[6 * i + 0] = x / y;
  o[6 * i + 1] = __builtin_sqrt(__builtin_fabs(x));
  o[6 * i + 2] = __builtin_fma(x, y, -1.25);
  o[6 * i + 3] = __builtin_fmin(x, y) + __builtin_floor(y);
  o[6 * i + 4] = (double)(long)(x * 1e6) + (double)(float)y;
  o[6 * i + 5] = x * y - x + y;
}
// Half precision scalar and packed (half2) math.
__kernel void hmath(__global const half *a, __global const half *b, __global half *o, __global float *f) {
  uint i = gid(0);
  half x = a[i], y = b[i];
  o[4 * i + 0] = x + y;
  o[4 * i + 1] = x * y;
  o[4 * i + 2] = __builtin_fmaf16(x, y, (half)0.5);
  o[4 * i + 3] = x > y ? x : y;
  f[i] = (float)x * (float)y;
}
__kernel void hmath2(__global const half2 *a, __global const half2 *b, __global half2 *o) {
  uint i = gid(0);
  half2 x = a[i], y = b[i];
  o[2 * i] = x * y + x;
  o[2 * i + 1] = x - y;
}
// Transcendentals through the hardware approximations.
__kernel void transc(__global const float *a, __global float *o) {
  uint i = gid(0);
  float x = a[i];
  o[4 * i + 0] = __builtin_amdgcn_exp2f(x);
  o[4 * i + 1] = __builtin_amdgcn_logf(__builtin_fabsf(x) + 1.0f);
  o[4 * i + 2] = __builtin_amdgcn_sinf(x * 0.1f);
  o[4 * i + 3] = __builtin_amdgcn_rcpf(x + 10.0f);
}
// Float compares and class tests feeding selects (v_cmp_*_f32, v_cmp_class).
__kernel void fcmp(__global const float *a, __global const float *b, __global int *o) {
  uint i = gid(0);
  float x = a[i], y = b[i];
  o[i] = (x < y) | (x == y) << 1 | (x != y) << 2 | __builtin_isnan(x) << 3 |
         __builtin_isinf(y) << 4 | (!(x >= y)) << 5 | __builtin_isfinite(x) << 6;
}
// Dot products (v_dot4 / v_dot2 instructions).
__kernel void dots(__global const uint *a, __global const uint *b, __global int *o) {
  uint i = gid(0);
  o[2 * i] = (int)__builtin_amdgcn_udot4(a[i], b[i], i, false);
#ifdef __gfx1100__
  o[2 * i + 1] = (int)__builtin_amdgcn_udot4(a[i] ^ 0x01010101u, b[i], 7u, false);
#else
  o[2 * i + 1] = __builtin_amdgcn_sdot4((int)a[i], (int)b[i], (int)i, false);
#endif
}
// Small matrix multiply (loops, fma, 2D ids).
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int n) {
  uint r = gid(1), c = gid(0);
  float s = 0.0f;
  for (int k = 0; k < n; ++k)
    s = __builtin_fmaf(A[r * n + k], B[k * n + c], s);
  C[r * n + c] = s;
}
