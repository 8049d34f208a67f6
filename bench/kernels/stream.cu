// STREAM-style kernels, written the way a CUDA program would: one element per
// thread, 256-thread blocks, bounds check. No barriers and no warp operations,
// so the host backend runs each block as a loop LLVM can vectorise.
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// STREAM's triad: a = b + s * c.
extern "C" __global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}
