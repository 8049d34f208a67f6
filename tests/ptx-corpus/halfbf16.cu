// Corpus: half and bfloat16 arithmetic, math, comparisons and conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void halfOps(__half *a, __half2 *a2, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = a[(i + 1) % n];
  __half r = __hadd(x, y);
  r = __hsub(r, x); r = __hmul(r, y); r = __hdiv(r, y); r = __hfma(r, x, y);
  r = __hadd_sat(r, x); r = __hfma_sat(x, y, r); r = __hneg(r); r = __habs(r);
  r = __hmax(r, x); r = __hmin(r, y); r = __hmax_nan(r, x); r = __hfma_relu(x, y, r);
  r = hsqrt(r) + hrsqrt(x) + hrcp(y) + hexp(x) + hexp2(y) + hlog(x) + hlog2(y) + hsin(x) + hcos(y);
  r = hfloor(r) + hceil(x) + htrunc(y) + hrint(r);
  __half2 p = a2[i], q = a2[(i + 1) % n];
  __half2 s = __hadd2(p, q);
  s = __hmul2(s, q); s = __hfma2(s, p, q); s = __hsub2(s, p); s = __h2div(s, q);
  s = __hmax2(s, p); s = __hmin2(s, q); s = __hneg2(s); s = __habs2(s); s = h2sqrt(s); s = h2exp(s);
  s = __hfma2_relu(s, p, q); s = __hadd2_sat(s, p);
  bool c = __heq(x, y) || __hlt(x, r) || __hge(y, r) || __hisnan(r) || __hbeq2(p, q) || __hbgt2(s, p) || __hisinf(x);
  __half2 m = __hlt2(p, q);
  a[i] = c ? r : __low2half(m);
  a2[i] = __halves2half2(__high2half(s), __float2half_rz(f[i]));
  f[i] = __half2float(r) + __low2float(s) + __high2float(p);
  f[i] += (float)__half2int_rn(x) + (float)__half2uint_rz(y) + (float)__half2short_rd(r) + __half2float(__int2half_rn(i));
  f[i] += __half2float(__ushort_as_half((unsigned short)i)) + __half2float(__float2half_ru(f[i])) + __half2float(__float2half_rd(f[i]));
  f[i] += __half2float(__shfl_xor_sync(0xffffffffu, r, 1)) + __low2float(__shfl_down_sync(0xffffffffu, s, 2));
}

__global__ void bf16Ops(__nv_bfloat16 *a, __nv_bfloat162 *a2, float *f, double *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = a[(i + 1) % n];
  __nv_bfloat16 r = __hadd(x, y);
#if __CUDA_ARCH__ >= 800
  r = __hmul(r, y); r = __hfma(r, x, y); r = __hsub(r, x); r = __hdiv(r, y); r = __hneg(r); r = __habs(r);
  r = __hmax(r, x); r = __hmin(r, y); r = __hmax_nan(r, x); r = __hfma_relu(x, y, r);
  r = hsqrt(r) + hexp(x) + hlog(y) + hsin(x) + hcos(y) + hrcp(x) + hfloor(r) + hrint(y);
#endif
  __nv_bfloat162 p = a2[i], q = a2[(i + 1) % n];
  __nv_bfloat162 s = __hadd2(p, q);
#if __CUDA_ARCH__ >= 800
  s = __hmul2(s, q); s = __hfma2(s, p, q); s = __hsub2(s, p); s = __hmax2(s, p); s = __hmin2(s, q); s = __habs2(s);
#endif
  bool c = __heq(x, y) || __hlt(x, r) || __hisnan(r) || __hbge2(p, q);
  a[i] = c ? r : __float2bfloat16_rz(f[i]);
  a2[i] = __floats2bfloat162_rn(__bfloat162float(r), __low2float(s));
  f[i] = __bfloat162float(r) + __high2float(p) + (float)__bfloat162int_rn(x) + __bfloat162float(__double2bfloat16(d[i]));
  d[i] = (double)__bfloat162float(__int2bfloat16_rn(i)) + __bfloat162float(__float2bfloat16_rd(f[i]));
}
