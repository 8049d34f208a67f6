// FLAGS: -Xclang -mlink-builtin-bitcode -Xclang ${OCML}
// Math from the ROCm device library (ocml, Debian's rocm-device-libs) linked
// into the kernel: a wide mix of VALU float instructions produced by code
// neither ferry nor the tests wrote.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "common.h"
#include "oclc.h"

float __ocml_sin_f32(float);
float __ocml_cos_f32(float);
float __ocml_exp_f32(float);
float __ocml_log_f32(float);
float __ocml_pow_f32(float, float);
float __ocml_erf_f32(float);
float __ocml_tanh_f32(float);
float __ocml_atan2_f32(float, float);
float __ocml_cbrt_f32(float);
double __ocml_sin_f64(double);
double __ocml_exp_f64(double);
double __ocml_log_f64(double);
double __ocml_pow_f64(double, double);

__kernel void ocml_f32(__global const float *a, __global const float *b, __global float *o) {
  uint i = gid(0);
  float x = a[i], y = b[i];
  o[9 * i + 0] = __ocml_sin_f32(x);
  o[9 * i + 1] = __ocml_cos_f32(x);
  o[9 * i + 2] = __ocml_exp_f32(y);
  o[9 * i + 3] = __ocml_log_f32(__builtin_fabsf(x) + 0.5f);
  o[9 * i + 4] = __ocml_pow_f32(__builtin_fabsf(x), y);
  o[9 * i + 5] = __ocml_erf_f32(y);
  o[9 * i + 6] = __ocml_tanh_f32(x);
  o[9 * i + 7] = __ocml_atan2_f32(x, y);
  o[9 * i + 8] = __ocml_cbrt_f32(x);
}

__kernel void ocml_f64(__global const double *a, __global const double *b, __global double *o) {
  uint i = gid(0);
  double x = a[i], y = b[i];
  o[4 * i + 0] = __ocml_sin_f64(x);
  o[4 * i + 1] = __ocml_exp_f64(y);
  o[4 * i + 2] = __ocml_log_f64(__builtin_fabs(x) + 0.5);
  o[4 * i + 3] = __ocml_pow_f64(__builtin_fabs(x), y);
}
