// A shuffle-based sum, as in NVIDIA's "Faster Parallel Reductions on Kepler":
// each thread sums a grid-stride slice, the warp combines its 32 partial sums
// with __shfl_down_sync, and lane 0 adds the warp's total to the result with
// one atomicAdd. Launched with a fixed grid (grid-stride loop).
__inline__ __device__ float warpReduceSum(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void reduce_sum(const float *in, float *out, int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = warpReduceSum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, sum);
}
