// End-to-end: the registration ABI and launches of ferry's libcudart
// (<<<>>>, cudaLaunchKernel, __constant__/__device__/__managed__ variables,
// function attributes, occupancy), built with `nvcc -cudart shared`.
#include "Check.h"
#include <vector>

__constant__ float Scale[4];
__device__ int Counter;
__managed__ int ManagedValue = 17;

__global__ void axpy(const float *X, float *Y, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = Scale[0] * X[I] + Y[I];
}

__global__ void count() {
  atomicAdd(&Counter, 1);
  if (threadIdx.x == 0 && blockIdx.x == 0)
    ManagedValue += 1;
}

int main() {
  const int N = 1000;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I)
    X[I] = float(I), Y[I] = 1.0f;
  float *DX, *DY;
  CHECK_CUDA(cudaMalloc(&DX, N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&DY, N * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(DX, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(DY, Y.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  float S[4] = {2.0f, 0, 0, 0};
  CHECK_CUDA(cudaMemcpyToSymbol(Scale, S, sizeof(S)));
  size_t Size = 0;
  CHECK_CUDA(cudaGetSymbolSize(&Size, Scale));
  CHECK(Size == sizeof(S));
  CHECK(cudaMemcpyToSymbol(Scale, S, sizeof(S), 4) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  axpy<<<(N + 127) / 128, 128>>>(DX, DY, N);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(Y.data(), DY, N * sizeof(float), cudaMemcpyDeviceToHost));
  bool Ok = true;
  for (int I = 0; I < N; ++I)
    Ok &= Y[I] == 2.0f * float(I) + 1.0f;
  CHECK(Ok);

  // Explicit cudaLaunchKernel through the host stub address.
  int Zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(Counter, &Zero, sizeof(int)));
  CHECK_CUDA(cudaLaunchKernel(reinterpret_cast<const void *>(count), dim3(4), dim3(64), nullptr,
                              0, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  int Got = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&Got, Counter, sizeof(int)));
  CHECK(Got == 256);
  CHECK(ManagedValue == 18);

  // Bad configurations and unknown functions: the codes NVIDIA's CUDA 13
  // runtime returns (checked on an H100).
  axpy<<<1, 0>>>(DX, DY, N);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  axpy<<<1, 4096>>>(DX, DY, N);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void *>(&Got), dim3(1), dim3(1), nullptr, 0,
                         nullptr) == cudaErrorInvalidResourceHandle);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);

  cudaFuncAttributes Attr;
  CHECK_CUDA(cudaFuncGetAttributes(&Attr, axpy));
  CHECK(Attr.maxThreadsPerBlock >= 128);
  CHECK_CUDA(cudaFuncSetAttribute(axpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  int Blocks = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&Blocks, axpy, 128, 0));
  CHECK(Blocks >= 1);
  const char *Name = nullptr;
  CHECK_CUDA(cudaFuncGetName(&Name, axpy));
  CHECK(Name != nullptr);

  CHECK_CUDA(cudaFree(DX));
  CHECK_CUDA(cudaFree(DY));
  return finish("Kernels");
}
