// -rdc=true sample, part 1: a kernel that calls a device function defined in
// another translation unit (rdc_b.cu), so a device link is needed.
extern __device__ int triple(int X);

__global__ void useTriple(int *P) { P[threadIdx.x] = triple(P[threadIdx.x]); }
