/// \file
/// Kernels of the driver_fatbin app. Built on their own into fatbin files
/// (nvcc -fatbin), which main.cu embeds and loads through the driver API.
/// extern "C" keeps the names unmangled for cuModuleGetFunction.

extern "C" __global__ void histogram256(const unsigned char *Data, int N, unsigned *Bins) {
  __shared__ unsigned Local[256];
  for (int I = threadIdx.x; I < 256; I += blockDim.x)
    Local[I] = 0;
  __syncthreads();
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    atomicAdd(&Local[Data[I]], 1u);
  __syncthreads();
  for (int I = threadIdx.x; I < 256; I += blockDim.x)
    atomicAdd(&Bins[I], Local[I]);
}

__device__ int Bias = 5;

extern "C" __global__ void addBias(int *Data, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] += Bias;
}
