// FLAGS: -cl-denorms-are-zero
#include "common.h"
// Kernels built to flush f32 denormals: the descriptor's FLOAT_DENORM_MODE_32
// makes the simulated ALU flush inputs and results.
__kernel void ftz_mul(__global const float *a, __global const float *b, __global float *o) {
  uint i = gid(0);
  o[i] = a[i] * b[i];
}
