/// \file
/// 3D memory: cudaMalloc3D volumes, cudaMemset3D, cudaMemcpy3D between host,
/// pitched device memory and a 3D cudaArray, and a cudaMemcpy3DAsync of a
/// sub-box with source and destination offsets.
#include "../common/app_util.h"
#include <vector>

__global__ void addDepth(cudaPitchedPtr Vol, int W, int H, int D) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  int Z = blockIdx.z;
  if (X < W && Y < H && Z < D) {
    char *Slice = (char *)Vol.ptr + size_t(Z) * Vol.pitch * H;
    int *Row = (int *)(Slice + Y * Vol.pitch);
    Row[X] += 1000 * Z;
  }
}

int main() {
  const int W = 40, H = 24, D = 10;
  std::vector<int> Host(W * H * D);
  for (int I = 0; I < W * H * D; ++I)
    Host[I] = I % 977;
  cudaExtent Ext = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr Vol;
  CHECK(cudaMalloc3D(&Vol, Ext));
  CHECK(cudaMemset3D(Vol, 0x7f, Ext));
  // Copy host -> device.
  cudaMemcpy3DParms P = {};
  P.srcPtr = make_cudaPitchedPtr(Host.data(), W * sizeof(int), W, H);
  P.dstPtr = Vol;
  P.extent = Ext;
  P.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&P));
  addDepth<<<dim3((W + 15) / 16, (H + 7) / 8, D), dim3(16, 8, 1)>>>(Vol, W, H, D);
  CHECK(cudaGetLastError());

  // Device -> 3D array -> host.
  cudaChannelFormatDesc Desc = cudaCreateChannelDesc<int>();
  cudaArray_t Arr;
  CHECK(cudaMalloc3DArray(&Arr, &Desc, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms ToArr = {};
  ToArr.srcPtr = Vol;
  ToArr.dstArray = Arr;
  ToArr.extent = make_cudaExtent(W, H, D);
  ToArr.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3D(&ToArr));
  std::vector<int> Back(W * H * D, -1);
  cudaMemcpy3DParms FromArr = {};
  FromArr.srcArray = Arr;
  FromArr.dstPtr = make_cudaPitchedPtr(Back.data(), W * sizeof(int), W, H);
  FromArr.extent = make_cudaExtent(W, H, D);
  FromArr.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&FromArr));
  int Bad = 0;
  long long Sum = 0;
  for (int Z = 0; Z < D; ++Z)
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X) {
        int I = (Z * H + Y) * W + X;
        Bad += Back[I] != Host[I] + 1000 * Z;
        Sum += Back[I];
      }
  std::printf("volume %dx%dx%d via array: mismatches=%d sum=%lld\n", W, H, D, Bad, Sum);

  // A 5x4x3 box from (2,3,4) of the device volume into (1,1,1) of a zeroed
  // host box of 8x8x8.
  std::vector<int> Box(8 * 8 * 8, 0);
  cudaMemcpy3DParms Sub = {};
  Sub.srcPtr = Vol;
  Sub.srcPos = make_cudaPos(2 * sizeof(int), 3, 4);
  Sub.dstPtr = make_cudaPitchedPtr(Box.data(), 8 * sizeof(int), 8, 8);
  Sub.dstPos = make_cudaPos(1 * sizeof(int), 1, 1);
  Sub.extent = make_cudaExtent(5 * sizeof(int), 4, 3);
  Sub.kind = cudaMemcpyDeviceToHost;
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaMemcpy3DAsync(&Sub, S));
  CHECK(cudaStreamSynchronize(S));
  int BadBox = 0;
  for (int Z = 0; Z < 8; ++Z)
    for (int Y = 0; Y < 8; ++Y)
      for (int X = 0; X < 8; ++X) {
        bool In = X >= 1 && X < 6 && Y >= 1 && Y < 5 && Z >= 1 && Z < 4;
        int Want = 0;
        if (In) {
          int SX = X - 1 + 2, SY = Y - 1 + 3, SZ = Z - 1 + 4;
          Want = Host[(SZ * H + SY) * W + SX] + 1000 * SZ;
        }
        BadBox += Box[(Z * 8 + Y) * 8 + X] != Want;
      }
  std::printf("sub-box copy: mismatches=%d corner=%d\n", BadBox, Box[(1 * 8 + 1) * 8 + 1]);

  // cudaMemset3D on a sub-volume: set slice 9 to bytes 0x01.
  cudaPitchedPtr Slice9 = Vol;
  Slice9.ptr = (char *)Vol.ptr + size_t(9) * Vol.pitch * H;
  CHECK(cudaMemset3D(Slice9, 0x01, make_cudaExtent(W * sizeof(int), H, 1)));
  int Probe = 0;
  CHECK(cudaMemcpy(&Probe, (char *)Slice9.ptr + 5 * Vol.pitch + 7 * sizeof(int), sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("memset3d probe=0x%08x\n", Probe);
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFreeArray(Arr));
  CHECK(cudaFree(Vol.ptr));
  return finish(Bad == 0 && BadBox == 0 && Probe == 0x01010101);
}
