// Corpus: the CUDA math library (float and double), fast intrinsics,
// rounding-mode intrinsics, integer intrinsics and SIMD video intrinsics.
#include <cstdint>

__global__ void floatMath(float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i], s, c;
  sincosf(a, &s, &c);
  float r = erff(a) + erfcf(b) + lgammaf(a) + tgammaf(b) + powf(a, b) + s * c + expf(a) + exp2f(b) + exp10f(a) +
            expm1f(b) + logf(a) + log2f(b) + log10f(a) + log1pf(b) + cbrtf(a) + sqrtf(b) + rsqrtf(a) + fmodf(a, b) +
            remainderf(a, b) + atan2f(a, b) + hypotf(a, b) + sinhf(a) + coshf(b) + tanhf(a) + asinf(b) + acosf(a) +
            atanf(b) + asinhf(a) + acoshf(b) + atanhf(a) + erfinvf(b) + erfcinvf(a) + normcdff(b) + j0f(a) + y1f(b) +
            fmaf(a, b, r) + fdimf(a, b) + fminf(a, b) + fmaxf(a, b) + copysignf(a, b) + truncf(a) + roundf(b) +
            rintf(a) + nearbyintf(b) + floorf(a) + ceilf(b) + ldexpf(a, 3) + scalbnf(b, 2) + frexpf(a, &n) + logbf(b) +
            (float)ilogbf(a) + sinpif(a) + cospif(b) + rnormf(3, x) + norm3df(a, b, r) + fabsf(a);
  sincospif(b, &s, &c);
  r += s + c + __fdividef(a, b) + __expf(a) + __logf(b) + __sinf(a) + __cosf(b) + __tanf(a) + __powf(a, b) +
       __saturatef(a) + __frcp_rn(a) + __fsqrt_rz(b) + __fadd_rn(a, b) + __fsub_ru(a, b) + __fmul_rd(a, b) +
       __fmaf_rz(a, b, r) + __fdiv_rn(a, b) + __frsqrt_rn(b) + __fmaf_ieee_rn(a, b, r) + __fadd_rz(a, b);
  r += (float)__float2int_rn(a) + (float)__float2uint_rz(b) + (float)__float2ll_rd(a) + (float)__float2ull_ru(b) +
       __int2float_rz(n) + __uint2float_ru(n) + __ll2float_rd(n) + __int_as_float(__float_as_int(a) ^ 1) +
       (isnan(a) ? 1.0f : 0.0f) + (isinf(b) ? 2.0f : 0.0f) + (signbit(a) ? 3.0f : 0.0f) + (isfinite(b) ? 4.f : 0.f);
  y[i] = r;
}

__global__ void doubleMath(double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i], s, c;
  sincos(a, &s, &c);
  double r = erf(a) + erfc(b) + lgamma(a) + tgamma(b) + pow(a, b) + s * c + exp(a) + exp2(b) + log(a) + log2(b) +
             log10(a) + log1p(b) + cbrt(a) + sqrt(b) + rsqrt(a) + fmod(a, b) + remainder(a, b) + atan2(a, b) +
             hypot(a, b) + sinh(a) + tanh(b) + asin(a) + acos(b) + atan(a) + fma(a, b, s) + trunc(a) + round(b) +
             rint(a) + floor(b) + ceil(a) + ldexp(a, 2) + fmin(a, b) + fmax(a, b) + copysign(a, b) + fabs(a) +
             erfinv(b) + normcdfinv(a) + j1(b) + yn(2, a) + cyl_bessel_i0(b) + expm1(a) + frexp(b, &n) + sinpi(a);
  r += __dadd_rn(a, b) + __dmul_rz(a, b) + __dsub_ru(a, b) + __ddiv_rd(a, b) + __drcp_rn(a) + __dsqrt_ru(b) +
       __fma_rz(a, b, r) + (double)__double2float_rd(a) + (double)__double2int_rz(b) + (double)__double2ll_rn(a) +
       (double)__double2uint_ru(b) + __ll2double_rz((long long)a) + __longlong_as_double(__double_as_longlong(a) + 1) +
       (double)__double2hiint(b) + __hiloint2double(3, 4) + (double)(float)b;
  y[i] = r;
}

__global__ void intMath(unsigned *u, int *s, unsigned long long *ul, long long *sl, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = u[i], b = u[(i + 1) % n];
  int x = s[i], y = s[(i + 1) % n];
  unsigned long long p = ul[i];
  long long q = sl[i];
  unsigned r = __popc(a) + __clz(x) + __ffs(y) + __brev(a) + __byte_perm(a, b, 0x5410) + __funnelshift_l(a, b, 5) +
               __funnelshift_rc(a, b, x) + __mul24(x, y) + __umul24(a, b) + __umulhi(a, b) + (unsigned)__mulhi(x, y) +
               __sad(x, y, a) + __usad(a, b, 3u) + __popcll(p) + __clzll(q) + __ffsll(q) + (unsigned)__brevll(p) +
               (unsigned)__umul64hi(p, p) + (unsigned)__mul64hi(q, q) + __hadd(x, y) + __rhadd(x, y) + __uhadd(a, b) +
               __urhadd(a, b) + abs(x) + (unsigned)llabs(q) + min(a, b) + max(x, y) + (unsigned)(x / y) + (unsigned)(x % y) +
               a / b + a % b + (unsigned)(q / (long long)y) + (unsigned)(p % 13ull) + (unsigned)(p >> (a & 63)) +
               (unsigned)(q >> (b & 63)) + (unsigned)(p << (x & 63));
  r += __vadd4(a, b) + __vsub2(a, b) + __vabsdiffu4(a, b) + __vmaxs2(a, b) + __vminu4(a, b) + __vcmpeq4(a, b) +
       __vavgu2(a, b) + __vsetgtu4(a, b) + __vneg4(a) + __vsads2(a, b) + __vhaddu4(a, b);
#if __CUDA_ARCH__ >= 610
  r += __dp4a(x, y, 7) + __dp2a_lo(a, b, 3u) + __dp2a_hi(x, y, 5);
#endif
  u[i] = r;
}
