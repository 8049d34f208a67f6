// FLAGS: -cl-fp32-correctly-rounded-divide-sqrt
#include "common.h"
// IEEE f32 division and sqrt (v_div_scale/v_div_fmas/v_div_fixup_f32 and
// the scaled v_sqrt sequence), including denormal and special operands.
__kernel void fdiv_ieee(__global const float *a, __global const float *b, __global float *o) {
  uint i = gid(0);
  o[2 * i] = a[i] / b[i];
  o[2 * i + 1] = __builtin_sqrtf(a[i]);
}
