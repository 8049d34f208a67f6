// The benchmark kernels of bench/kernels/*.cu written in OpenCL C 1.2, for
// PoCL's CPU device. Same algorithms, same work-group shapes; the reduction
// has no shuffles or float atomics in OpenCL 1.2, so each work-group reduces
// in local memory and writes one partial sum (the host adds the partials).
__kernel void vecadd(__global const float *a, __global const float *b,
                     __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n)
    c[i] = a[i] + b[i];
}

__kernel void triad(__global float *a, __global const float *b,
                    __global const float *c, float s, int n) {
  int i = get_global_id(0);
  if (i < n)
    a[i] = b[i] + s * c[i];
}

#define RED_WG 256
__kernel void reduce_sum(__global const float *in, __global float *partial, int n) {
  __local float sh[RED_WG];
  int lid = get_local_id(0);
  float sum = 0.0f;
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    sum += in[i];
  sh[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = RED_WG / 2; s > 0; s >>= 1) {
    if (lid < s)
      sh[lid] += sh[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = sh[0];
}

#define TILE 16
__kernel void sgemm_tiled(__global const float *A, __global const float *B,
                          __global float *C, int n) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * TILE + ty;
  int col = get_group_id(0) * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
}

__kernel void empty(void) {}
