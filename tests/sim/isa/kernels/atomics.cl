#include "common.h"
// Global integer atomics of every kind, with and without return.
__kernel void global_atomics(__global int *c, __global int *old) {
  int i = (int)gid(0);
  old[i] = __atomic_fetch_add(&c[0], 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&c[1], i, __ATOMIC_RELAXED);
  __atomic_fetch_min(&c[2], i - 100, __ATOMIC_RELAXED);
  __atomic_fetch_max(&c[3], i * 3, __ATOMIC_RELAXED);
  __atomic_fetch_and(&c[4], ~(1 << (i & 31)), __ATOMIC_RELAXED);
  __atomic_fetch_or(&c[5], 1 << (i & 31), __ATOMIC_RELAXED);
  __atomic_fetch_xor(&c[6], i, __ATOMIC_RELAXED);
  __atomic_fetch_max((__global uint *)&c[7], (uint)i ^ 0x80000000u, __ATOMIC_RELAXED);
  int e = i;
  __atomic_compare_exchange_n(&c[8], &e, i + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  __atomic_exchange_n(&c[9], 7, __ATOMIC_RELAXED);
}
// 64-bit atomics.
__kernel void atomics64(__global ulong *c, __global long *m) {
  ulong i = gid(0);
  __atomic_fetch_add(&c[0], i << 33, __ATOMIC_RELAXED);
  __atomic_fetch_min(&m[0], -(long)i, __ATOMIC_RELAXED);
  ulong e = __atomic_load_n(&c[1], __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&c[1], &e, e + i * i, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}
// Float atomic add (native global_atomic_add_f32 where the target has it).
__kernel void atomic_fadd(__global float *sum, __global const float *v) {
  __atomic_fetch_add(sum, v[gid(0)], __ATOMIC_RELAXED);
}
