// Kernels for the fatbin reader tests: small, but with a template (mangled
// names) and a __constant__ so the PTX has more than one kind of directive.
__constant__ float Bias[4];

__global__ void addOne(int *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] += 1;
}

template <typename T> __global__ void scale(T *P, T S, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = P[I] * S + T(Bias[I & 3]);
}

template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *, double, int);
