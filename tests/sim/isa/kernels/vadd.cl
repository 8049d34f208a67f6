#include "common.h"
// Vector add: global loads/stores, kernarg pointer, dispatch packet.
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = gid(0);
  if (i < n)
    c[i] = a[i] + b[i];
}
