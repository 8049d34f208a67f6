// FLAGS: -Xclang -mlink-builtin-bitcode -Xclang ${OCML}
// More of the ROCm device library: every f32/f64/f16 function below runs
// on the simulator and is compared with the host's libm.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "common.h"
#include "oclc.h"

float __ocml_tan_f32(float);
float __ocml_asin_f32(float);
float __ocml_acos_f32(float);
float __ocml_atan_f32(float);
float __ocml_sinh_f32(float);
float __ocml_cosh_f32(float);
float __ocml_exp2_f32(float);
float __ocml_exp10_f32(float);
float __ocml_log2_f32(float);
float __ocml_log10_f32(float);
float __ocml_log1p_f32(float);
float __ocml_expm1_f32(float);
float __ocml_sqrt_f32(float);
float __ocml_rsqrt_f32(float);
float __ocml_erfc_f32(float);
float __ocml_lgamma_f32(float);
float __ocml_tgamma_f32(float);
float __ocml_asinh_f32(float);
float __ocml_atanh_f32(float);
float __ocml_round_f32(float);
float __ocml_rint_f32(float);
float __ocml_fmod_f32(float, float);
float __ocml_remainder_f32(float, float);
float __ocml_hypot_f32(float, float);
float __ocml_fdim_f32(float, float);
double __ocml_tan_f64(double);
double __ocml_asin_f64(double);
double __ocml_atan_f64(double);
double __ocml_cosh_f64(double);
double __ocml_exp2_f64(double);
double __ocml_log2_f64(double);
double __ocml_log1p_f64(double);
double __ocml_expm1_f64(double);
double __ocml_sqrt_f64(double);
double __ocml_erfc_f64(double);
double __ocml_tgamma_f64(double);
double __ocml_cbrt_f64(double);
double __ocml_hypot_f64(double, double);
double __ocml_fmod_f64(double, double);
half __ocml_sin_f16(half);
half __ocml_cos_f16(half);
half __ocml_exp_f16(half);
half __ocml_log_f16(half);
half __ocml_sqrt_f16(half);
half __ocml_rsqrt_f16(half);
half __ocml_exp2_f16(half);
half __ocml_log2_f16(half);
half __ocml_tanh_f16(half);
half __ocml_pow_f16(half, half);

__kernel void more_f32(__global const float *a, __global const float *b, __global float *o) {
  uint i = gid(0);
  float x = a[i], y = b[i];
  o[25 * i + 0] = __ocml_tan_f32(x);
  o[25 * i + 1] = __ocml_asin_f32(x);
  o[25 * i + 2] = __ocml_acos_f32(x);
  o[25 * i + 3] = __ocml_atan_f32(x);
  o[25 * i + 4] = __ocml_sinh_f32(x);
  o[25 * i + 5] = __ocml_cosh_f32(x);
  o[25 * i + 6] = __ocml_exp2_f32(x);
  o[25 * i + 7] = __ocml_exp10_f32(x);
  o[25 * i + 8] = __ocml_log2_f32(x);
  o[25 * i + 9] = __ocml_log10_f32(x);
  o[25 * i + 10] = __ocml_log1p_f32(x);
  o[25 * i + 11] = __ocml_expm1_f32(x);
  o[25 * i + 12] = __ocml_sqrt_f32(x);
  o[25 * i + 13] = __ocml_rsqrt_f32(x);
  o[25 * i + 14] = __ocml_erfc_f32(x);
  o[25 * i + 15] = __ocml_lgamma_f32(x);
  o[25 * i + 16] = __ocml_tgamma_f32(x);
  o[25 * i + 17] = __ocml_asinh_f32(x);
  o[25 * i + 18] = __ocml_atanh_f32(x);
  o[25 * i + 19] = __ocml_round_f32(x);
  o[25 * i + 20] = __ocml_rint_f32(x);
  o[25 * i + 21] = __ocml_fmod_f32(x, y);
  o[25 * i + 22] = __ocml_remainder_f32(x, y);
  o[25 * i + 23] = __ocml_hypot_f32(x, y);
  o[25 * i + 24] = __ocml_fdim_f32(x, y);
}

__kernel void more_f64(__global const double *a, __global const double *b, __global double *o) {
  uint i = gid(0);
  double x = a[i], y = b[i];
  o[14 * i + 0] = __ocml_tan_f64(x);
  o[14 * i + 1] = __ocml_asin_f64(x);
  o[14 * i + 2] = __ocml_atan_f64(x);
  o[14 * i + 3] = __ocml_cosh_f64(x);
  o[14 * i + 4] = __ocml_exp2_f64(x);
  o[14 * i + 5] = __ocml_log2_f64(x);
  o[14 * i + 6] = __ocml_log1p_f64(x);
  o[14 * i + 7] = __ocml_expm1_f64(x);
  o[14 * i + 8] = __ocml_sqrt_f64(x);
  o[14 * i + 9] = __ocml_erfc_f64(x);
  o[14 * i + 10] = __ocml_tgamma_f64(x);
  o[14 * i + 11] = __ocml_cbrt_f64(x);
  o[14 * i + 12] = __ocml_hypot_f64(x, y);
  o[14 * i + 13] = __ocml_fmod_f64(x, y);
}

__kernel void more_f16(__global const half *a, __global const half *b, __global half *o) {
  uint i = gid(0);
  half x = a[i], y = b[i];
  o[10 * i + 0] = __ocml_sin_f16(x);
  o[10 * i + 1] = __ocml_cos_f16(x);
  o[10 * i + 2] = __ocml_exp_f16(x);
  o[10 * i + 3] = __ocml_log_f16(x);
  o[10 * i + 4] = __ocml_sqrt_f16(x);
  o[10 * i + 5] = __ocml_rsqrt_f16(x);
  o[10 * i + 6] = __ocml_exp2_f16(x);
  o[10 * i + 7] = __ocml_log2_f16(x);
  o[10 * i + 8] = __ocml_tanh_f16(x);
  o[10 * i + 9] = __ocml_pow_f16(x, y);
}
