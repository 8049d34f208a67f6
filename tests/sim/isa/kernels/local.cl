#include "common.h"
// Workgroup tree reduction in LDS with barriers (ds_read/ds_write, s_barrier).
__kernel void reduce_sum(__global const float *in, __global float *out) {
  __local float sm[256];
  uint l = lid(0);
  sm[l] = in[gid(0)];
  bar();
  for (uint s = lsize(0) / 2; s > 0; s >>= 1) {
    if (l < s)
      sm[l] += sm[l + s];
    bar();
  }
  if (l == 0)
    out[grp(0)] = sm[0];
}
// Inclusive Hillis-Steele scan over a workgroup (double-buffered LDS).
__kernel void scan_int(__global const int *in, __global int *out) {
  __local int buf[2][128];
  uint l = lid(0), n = lsize(0);
  int p = 0;
  buf[0][l] = in[gid(0)];
  bar();
  for (uint off = 1; off < n; off <<= 1) {
    int v = buf[p][l];
    if (l >= off)
      v += buf[p][l - off];
    buf[1 - p][l] = v;
    p = 1 - p;
    bar();
  }
  out[gid(0)] = buf[p][l];
}
// 2D tile transpose through LDS (2D work-item ids, packed v0 on gfx90a+).
__kernel void transpose(__global const int *in, __global int *out, int w, int h) {
  __local int tile[16][17];
  uint x = gid(0), y = gid(1);
  if (x < (uint)w && y < (uint)h)
    tile[lid(1)][lid(0)] = in[y * w + x];
  bar();
  uint ox = grp(1) * 16 + lid(0), oy = grp(0) * 16 + lid(1);
  if (ox < (uint)h && oy < (uint)w)
    out[oy * h + ox] = tile[lid(0)][lid(1)];
}
// Dynamic LDS: a __local pointer argument sized at dispatch.
__kernel void dyn_lds(__global int *out, __local int *scratch) {
  uint l = lid(0), n = lsize(0);
  scratch[l] = (int)(l * 3);
  bar();
  out[gid(0)] = scratch[n - 1 - l];
}
// Local atomics (ds_add/ds_max/ds_cmpst...) then one global atomic per group.
__kernel void local_hist(__global const uint *in, __global uint *hist, __global uint *mx) {
  __local uint h[16];
  __local uint m;
  uint l = lid(0);
  if (l < 16)
    h[l] = 0;
  if (l == 0)
    m = 0;
  bar();
  uint v = in[gid(0)];
  __atomic_fetch_add(&h[v & 15], 1u, __ATOMIC_RELAXED);
  __atomic_fetch_max(&m, v, __ATOMIC_RELAXED);
  bar();
  if (l < 16)
    __atomic_fetch_add(&hist[l], h[l], __ATOMIC_RELAXED);
  if (l == 0)
    __atomic_fetch_max(mx, m, __ATOMIC_RELAXED);
}
