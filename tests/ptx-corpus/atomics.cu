// Corpus: every atomic function, type and scope variant.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void atomicsInt(int *i, unsigned *u, unsigned long long *ull, long long *ll, int v) {
  atomicAdd(i, v); atomicSub(i, v); atomicExch(i, v); atomicMin(i, v); atomicMax(i, v);
  atomicAnd(i, v); atomicOr(i, v); atomicXor(i, v); atomicCAS(i, v, v + 1);
  atomicAdd(u, (unsigned)v); atomicSub(u, 1u); atomicExch(u, 3u); atomicMin(u, 2u); atomicMax(u, 9u);
  atomicInc(u, 17u); atomicDec(u, 17u); atomicAnd(u, 5u); atomicOr(u, 6u); atomicXor(u, 7u);
  atomicCAS(u, 1u, 2u);
  atomicAdd(ull, 1ull); atomicExch(ull, 2ull); atomicMin(ull, 3ull); atomicMax(ull, 4ull);
  atomicAnd(ull, 5ull); atomicOr(ull, 6ull); atomicXor(ull, 7ull); atomicCAS(ull, 8ull, 9ull);
  atomicMin(ll, -3ll); atomicMax(ll, -4ll);
  atomicAdd_block(i, 1); atomicAdd_system(i, 2); atomicCAS_block(u, 1u, 2u); atomicExch_system(u, 3u);
  atomicMax_block(ull, 5ull); atomicOr_system(ull, 1ull);
}

__global__ void atomicsFloat(float *f, double *d, __half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2, float v) {
  atomicAdd(f, v); atomicExch(f, v); atomicAdd(d, (double)v);
  atomicAdd_block(f, 1.0f); atomicAdd_system(d, 2.0);
  atomicAdd(h, __float2half(v)); atomicAdd(h2, __floats2half2_rn(v, v));
  atomicAdd(b, __float2bfloat16(v)); atomicAdd(b2, __floats2bfloat162_rn(v, v));
#if __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2 *>(f), make_float2(v, v));
  atomicAdd(reinterpret_cast<float4 *>(f), make_float4(v, v, v, v));
#endif
}

__shared__ int sharedCounter;
__global__ void atomicsShared(int *out) {
  __shared__ unsigned long long s64;
  __shared__ float sf;
  if (threadIdx.x == 0) { sharedCounter = 0; s64 = 0; sf = 0; }
  __syncthreads();
  atomicAdd(&sharedCounter, 1);
  atomicMax(&s64, (unsigned long long)threadIdx.x);
  atomicAdd(&sf, 0.5f);
  atomicCAS(&sharedCounter, 5, 6);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sharedCounter + (int)s64 + (int)sf;
}

__global__ void atomicsShort(unsigned short *us) {
#if __CUDA_ARCH__ >= 700
  atomicCAS(us, (unsigned short)1, (unsigned short)2);
#endif
}
