// -rdc=true sample, part 2: the device function and one more kernel.
__device__ int triple(int X) { return 3 * X; }

__global__ void fill(int *P, int V) { P[threadIdx.x] = V; }
