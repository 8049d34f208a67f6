#include "common.h"
// Generic pointers whose address space is only known at run time: flat
// loads, stores and atomics reaching LDS (shared aperture) and global memory.
__kernel void flat_select(__global int *g, __global int *o) {
  __local int l[256];
  uint i = lid(0);
  l[i] = (int)i * 2;
  bar();
  __generic int *p = (gid(0) & 1) ? (__generic int *)&l[(i + 1) % lsize(0)] : (__generic int *)&g[gid(0)];
  int v = *p;
  __atomic_fetch_add(p, 1000, __ATOMIC_RELAXED);
  bar();
  o[gid(0)] = v + ((gid(0) & 1) ? l[(i + 1) % lsize(0)] : g[gid(0)]);
}
// Byte and short vectors (SDWA on gfx9, op_sel / d16 on gfx11).
__kernel void vec8(__global const uchar4 *a, __global const uchar4 *b, __global uchar4 *o,
                   __global const short2 *s, __global short2 *so) {
  uint i = gid(0);
  uchar4 x = a[i], y = b[i];
  o[i] = (x + y) ^ (x >> (uchar4)(1, 2, 3, 4));
  short2 t = s[i];
  so[i] = t * (short2)(3, -2) + (short2)((short)i, (short)-i);
}
// Native float atomics where the target has them.
__kernel void fatomics(__global float *f, __global double *d, __global const float *v) {
  float x = v[gid(0)];
#if defined(__gfx90a__) || defined(__gfx942__)
  __builtin_amdgcn_global_atomic_fadd_f32(f, x);
  __builtin_amdgcn_global_atomic_fadd_f64(d, (double)x);
#else
  __atomic_fetch_add(f, x, __ATOMIC_RELAXED);
  __atomic_fetch_add(d, (double)x, __ATOMIC_RELAXED);
#endif
}
// Workgroup of several waves with divergent barriers-free phases and a
// uniform barrier: every wave must see every other wave's LDS writes.
__kernel void multiwave(__global int *o) {
  __local int buf[512];
  uint l = lid(0), n = lsize(0);
  for (uint k = l; k < 512; k += n)
    buf[k] = (int)(k * 7 + grp(0));
  bar();
  int s = 0;
  for (uint k = 0; k < 512; k += 64)
    s += buf[(k + l * 3) % 512];
  if (l & 1)
    s = -s;
  o[gid(0)] = s;
}
