#include "common.h"
// Divergent control flow: per-lane loop trip counts, nested branches.
__kernel void collatz(__global const uint *in, __global uint *steps) {
  uint n = in[gid(0)], s = 0;
  while (n != 1 && s < 1000) {
    if (n & 1)
      n = 3 * n + 1;
    else
      n >>= 1;
    ++s;
  }
  steps[gid(0)] = s;
}
// Private array with dynamic indexing (scratch / private segment buffer).
__kernel void private_array(__global const int *idx, __global int *out) {
  int a[48];
  int i = (int)gid(0);
  for (int k = 0; k < 48; ++k)
    a[k] = k * i + (k ^ i);
  for (int k = 0; k < 5; ++k)
    a[(idx[i] + k) % 48] += k;
  out[i] = a[idx[i] % 48] + a[(idx[i] * 7) % 48];
}
// 32-bit integer division and remainder (expanded by the compiler).
__kernel void int_div(__global const int *a, __global const int *b, __global int *q, __global uint *r) {
  int i = gid(0);
  q[i] = a[i] / b[i];
  r[i] = (uint)a[i] % (uint)b[i];
}
// 64-bit integer arithmetic: mul, shifts, compares, division.
__kernel void int64(__global const ulong *a, __global const ulong *b, __global ulong *o) {
  uint i = gid(0);
  ulong x = a[i], y = b[i];
  o[6 * i + 0] = x * y + (x >> 7);
  o[6 * i + 1] = (ulong)((long)x >> (y & 63));
  o[6 * i + 2] = x > y ? x - y : y - x;
  o[6 * i + 3] = x / (y | 1);
  o[6 * i + 4] = x % ((y >> 3) | 1);
  o[6 * i + 5] = (ulong)(((long)x) * 3 - (long)(y << 1));
}
// Bit operations: popcount, clz, ctz, bit reverse, rotates, bitfield extract.
__kernel void bits(__global const uint *in, __global uint *o) {
  uint i = gid(0), x = in[i];
  o[8 * i + 0] = __builtin_popcount(x);
  o[8 * i + 1] = x ? __builtin_clz(x) : 32;
  o[8 * i + 2] = x ? __builtin_ctz(x) : 32;
  o[8 * i + 3] = __builtin_bitreverse32(x);
  o[8 * i + 4] = (x << (i & 31)) | (x >> ((32 - (i & 31)) & 31));
  o[8 * i + 5] = (x >> (i % 20)) & 0x7ff;
  o[8 * i + 6] = (uint)(((int)(x << 3)) >> 9);
  o[8 * i + 7] = (uint)(((ulong)x * 0x9e3779b9u) >> 32);
}
// Uniform (scalar) integer work: the SALU computes, lanes store.
__kernel void salu(__global uint *o, uint a, uint b) {
  uint r[8];
  r[0] = a * b; r[1] = a / (b | 1); r[2] = a < b ? a : b; r[3] = a ^ (b << 3);
  r[4] = __builtin_popcount(a); r[5] = (uint)((int)a >> 5); r[6] = a > 5u ? 1u : 0u;
  r[7] = __builtin_clz(b | 1);
  o[gid(0)] = r[gid(0) & 7] + grp(0);
}
// 3D grid: ids in x, y, z (packed work-item id VGPR).
__kernel void grid3d(__global uint *o) {
  uint x = gid(0), y = gid(1), z = gid(2);
  uint w = gsize(0), h = gsize(1);
  o[(z * h + y) * w + x] = x | y << 8 | z << 16 | lid(2) << 24;
}
// Byte and short memory (sign/zero extension).
__kernel void narrow(__global const char *c, __global const ushort *s, __global short *o, __global uchar *ob) {
  uint i = gid(0);
  o[i] = (short)(c[i] * 3 + (short)s[i]);
  ob[i] = (uchar)(c[i] ^ 0x55);
}
// Generic (flat) pointers reaching global, local and private memory.
static int sum3(__generic int *p) { return p[0] + p[1] + p[2]; }
__kernel void flat_ptrs(__global int *g, __global int *o) {
  __local int l[64 * 3];
  int pr[3];
  uint i = lid(0);
  for (int k = 0; k < 3; ++k) {
    l[3 * i + k] = (int)(i + k);
    pr[k] = g[(gid(0) + k) % 64] * 2;
  }
  bar();
  o[gid(0)] = sum3(&g[gid(0) % 60]) + sum3(&l[3 * ((i + 1) % lsize(0))]) + sum3(pr);
}
