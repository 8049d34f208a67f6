// End-to-end: device query and memory APIs of ferry's libcudart, built with
// `nvcc -cudart shared` and run over a libcuda.so.1. No kernels.
#include "Check.h"
#include <cstring>
#include <vector>

int main() {
  int Count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&Count));
  CHECK(Count >= 1);
  int Rt = 0, Drv = 0;
  CHECK_CUDA(cudaRuntimeGetVersion(&Rt));
  CHECK(Rt == 13000);
  CHECK_CUDA(cudaDriverGetVersion(&Drv));
  CHECK(Drv >= 13000);

  cudaDeviceProp Prop;
  CHECK_CUDA(cudaGetDeviceProperties(&Prop, 0));
  CHECK(Prop.name[0] != 0);
  CHECK(Prop.warpSize == 32);
  CHECK(Prop.totalGlobalMem > 0);
  CHECK(Prop.maxThreadsPerBlock >= 64);
  int Warp = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&Warp, cudaDevAttrWarpSize, 0));
  CHECK(Warp == 32);
  CHECK(cudaGetDeviceProperties(&Prop, Count) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaSetDevice(Count + 3) == cudaErrorInvalidDevice);
  CHECK_CUDA(cudaSetDevice(0));
  int Dev = -1;
  CHECK_CUDA(cudaGetDevice(&Dev));
  CHECK(Dev == 0);
  CHECK_CUDA(cudaFree(nullptr));

  size_t Free = 0, Total = 0;
  CHECK_CUDA(cudaMemGetInfo(&Free, &Total));
  CHECK(Total > 0 && Free <= Total);

  const size_t N = 1 << 16;
  std::vector<int> H(N), Back(N, -1);
  for (size_t I = 0; I < N; ++I)
    H[I] = int(I * 7 + 1);
  int *D = nullptr, *D2 = nullptr;
  CHECK_CUDA(cudaMalloc(&D, N * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&D2, N * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(D, H.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(D2, D, N * sizeof(int), cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(Back.data(), D2, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(Back == H);
  CHECK(cudaMemcpy(D, H.data(), 4, cudaMemcpyKind(42)) == cudaErrorInvalidMemcpyDirection);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidMemcpyDirection);
  CHECK(cudaGetLastError() == cudaErrorInvalidMemcpyDirection);

  CHECK_CUDA(cudaMemset(D, 0xAB, N * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(Back.data(), D, N * sizeof(int), cudaMemcpyDefault));
  unsigned char *Bytes = reinterpret_cast<unsigned char *>(Back.data());
  bool AllAB = true;
  for (size_t I = 0; I < N * sizeof(int); ++I)
    AllAB &= Bytes[I] == 0xAB;
  CHECK(AllAB);

  // Pitched 2D round trip.
  const size_t W = 100, Ht = 37;
  void *P = nullptr;
  size_t Pitch = 0;
  CHECK_CUDA(cudaMallocPitch(&P, &Pitch, W, Ht));
  CHECK(Pitch >= W);
  std::vector<unsigned char> Src(W * Ht), Dst(W * Ht, 0);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = (unsigned char)(I * 13);
  CHECK_CUDA(cudaMemcpy2D(P, Pitch, Src.data(), W, W, Ht, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy2D(Dst.data(), W, P, Pitch, W, Ht, cudaMemcpyDeviceToHost));
  CHECK(Src == Dst);
  CHECK(cudaMemcpy2D(P, 10, Src.data(), W, W, Ht, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidPitchValue);
  CHECK_CUDA(cudaMemset2D(P, Pitch, 7, W, Ht));
  CHECK_CUDA(cudaMemcpy2D(Dst.data(), W, P, Pitch, W, Ht, cudaMemcpyDeviceToHost));
  CHECK(Dst[0] == 7 && Dst[W * Ht - 1] == 7);
  CHECK_CUDA(cudaFree(P));

  // 3D: a pitched volume written with Memcpy3D and read back.
  cudaExtent Ext = make_cudaExtent(16 * sizeof(float), 8, 4);
  cudaPitchedPtr Vol;
  CHECK_CUDA(cudaMalloc3D(&Vol, Ext));
  std::vector<float> V(16 * 8 * 4), VB(16 * 8 * 4, 0);
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = float(I) * 0.5f;
  cudaMemcpy3DParms Up = {};
  Up.srcPtr = make_cudaPitchedPtr(V.data(), 16 * sizeof(float), 16, 8);
  Up.dstPtr = Vol;
  Up.extent = Ext;
  Up.kind = cudaMemcpyHostToDevice;
  CHECK_CUDA(cudaMemcpy3D(&Up));
  cudaMemcpy3DParms Down = {};
  Down.srcPtr = Vol;
  Down.dstPtr = make_cudaPitchedPtr(VB.data(), 16 * sizeof(float), 16, 8);
  Down.extent = Ext;
  Down.kind = cudaMemcpyDeviceToHost;
  CHECK_CUDA(cudaMemcpy3D(&Down));
  CHECK(V == VB);
  CHECK_CUDA(cudaFree(Vol.ptr));

  // Pinned and mapped host memory, pointer attributes.
  int *Pinned = nullptr;
  CHECK_CUDA(cudaMallocHost(&Pinned, 4096));
  Pinned[0] = 1234;
  CHECK_CUDA(cudaMemcpy(D, Pinned, sizeof(int), cudaMemcpyHostToDevice));
  int One = 0;
  CHECK_CUDA(cudaMemcpy(&One, D, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(One == 1234);
  cudaPointerAttributes A;
  CHECK_CUDA(cudaPointerGetAttributes(&A, D));
  CHECK(A.type == cudaMemoryTypeDevice);
  CHECK(A.device == 0);
  CHECK_CUDA(cudaPointerGetAttributes(&A, Pinned));
  CHECK(A.type == cudaMemoryTypeHost);
  int Stack = 0;
  CHECK_CUDA(cudaPointerGetAttributes(&A, &Stack));
  CHECK(A.type == cudaMemoryTypeUnregistered);
  void *Mapped = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(&Mapped, Pinned, 0));
  CHECK(Mapped != nullptr);
  CHECK_CUDA(cudaFreeHost(Pinned));

  int *Managed = nullptr;
  CHECK_CUDA(cudaMallocManaged(&Managed, 64 * sizeof(int)));
  Managed[3] = 99;
  CHECK_CUDA(cudaMemcpy(&One, Managed + 3, sizeof(int), cudaMemcpyDefault));
  CHECK(One == 99);
  CHECK_CUDA(cudaFree(Managed));

  CHECK_CUDA(cudaFree(D));
  CHECK_CUDA(cudaFree(D2));
  CHECK(cudaGetErrorString(cudaErrorMemoryAllocation) != nullptr);
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaDeviceReset());
  return finish("DeviceMemory");
}
