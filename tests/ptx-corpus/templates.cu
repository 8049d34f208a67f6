// Corpus: templates, functors, lambdas, shared-memory reductions, several
// element types, constant memory, dynamic shared memory, launch bounds.
#include <cstdint>

template <typename T> struct Plus {
  __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T> struct MaxOp {
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <typename T, int BlockSize, typename Op>
__global__ void __launch_bounds__(BlockSize, 2) reduce(const T *in, T *out, size_t n, Op op, T init) {
  __shared__ T buf[BlockSize];
  T acc = init;
  for (size_t i = blockIdx.x * BlockSize + threadIdx.x; i < n; i += (size_t)gridDim.x * BlockSize)
    acc = op(acc, in[i]);
  buf[threadIdx.x] = acc;
  __syncthreads();
#pragma unroll
  for (int s = BlockSize / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = op(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

template __global__ void reduce<int, 256, Plus<int>>(const int *, int *, size_t, Plus<int>, int);
template __global__ void reduce<float, 128, Plus<float>>(const float *, float *, size_t, Plus<float>, float);
template __global__ void reduce<double, 64, MaxOp<double>>(const double *, double *, size_t, MaxOp<double>, double);
template __global__ void reduce<int8_t, 32, MaxOp<int8_t>>(const int8_t *, int8_t *, size_t, MaxOp<int8_t>, int8_t);
template __global__ void reduce<uint64_t, 512, Plus<uint64_t>>(const uint64_t *, uint64_t *, size_t, Plus<uint64_t>, uint64_t);
template __global__ void reduce<short, 64, Plus<short>>(const short *, short *, size_t, Plus<short>, short);

template <typename F> __global__ void apply(float *x, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i], i);
}

__constant__ float kCoeffs[16];
__device__ float gTable[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
__device__ double gScale = 2.5;
__device__ int gCounter;

void launchApply(float *x, int n) {
  float k = 3.0f;
  apply<<<1, 1>>>(x, n, [k] __device__(float v, int i) { return v * k + kCoeffs[i & 15] + gTable[i & 3][(i >> 2) & 3]; });
}

extern "C" __global__ void dynShared(float *out, int n) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = out[threadIdx.x] * (float)gScale;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
  (void)n;
}

struct Vec3 { float x, y, z; };
__global__ void structs(Vec3 *v, float4 *f4, double2 *d2, int4 *i4, char4 *c4, short2 *s2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Vec3 a = v[i];
  float4 b = f4[i];
  b.x += a.x; b.y += a.y; b.z += a.z; b.w *= 2.0f;
  f4[i] = b;
  double2 d = d2[i]; d.x = d.x * d.y; d2[i] = d;
  int4 q = i4[i]; q.w = q.x ^ q.y ^ q.z; i4[i] = q;
  char4 c = c4[i]; c.x = c.y + c.z; c4[i] = c;
  short2 s = s2[i]; s.x = s.x * s.y; s2[i] = s;
  unsigned long long big = (unsigned long long)i * 0x9E3779B97F4A7C15ull;
  v[i].x = (float)(big >> 40) + (float)(long long)(big % 977);
  long long sq = (long long)i * -7;
  v[i].y = (float)(sq / 3) + (float)(unsigned)(sq % 11);
}
