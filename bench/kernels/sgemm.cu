// The textbook tiled SGEMM (CUDA Programming Guide, "Shared Memory"):
// C = A * B for square row-major n x n matrices, n a multiple of TILE. Each
// 16x16 block stages one tile of A and one of B in shared memory per step,
// with __syncthreads() around the inner product.
#define TILE 16

extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
