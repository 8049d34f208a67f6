/// \file
/// Every memset width through the driver API (cuMemsetD8/D16/D32, their 2D
/// and async forms) next to the runtime's cudaMemset family, on memory from
/// both cuMemAlloc and cudaMalloc, plus the driver's plain copies.
#include "../common/app_util.h"
#include <cuda.h>
#include <vector>

#define CU(Call)                                                               \
  do {                                                                         \
    CUresult R_ = (Call);                                                      \
    if (R_ != CUDA_SUCCESS) {                                                  \
      const char *Name_ = "?";                                                 \
      cuGetErrorName(R_, &Name_);                                              \
      std::printf("driver error %s from %s\nFAILED\n", Name_, #Call);          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void checksum(const unsigned char *P, int N, unsigned long long *Out) {
  unsigned long long S = 0;
  for (int I = threadIdx.x; I < N; I += blockDim.x)
    S += (unsigned long long)P[I] * (I % 7 + 1);
  atomicAdd(Out, S);
}

static unsigned long long hostChecksum(const std::vector<unsigned char> &V) {
  unsigned long long S = 0;
  for (size_t I = 0; I < V.size(); ++I)
    S += (unsigned long long)V[I] * (I % 7 + 1);
  return S;
}

int main() {
  CHECK(cudaFree(0)); // make the runtime's primary context current
  CU(cuInit(0));
  const size_t N = 4096;
  CUdeviceptr Buf;
  CU(cuMemAlloc(&Buf, N));
  std::vector<unsigned char> Want(N), Got(N);
  // Layer the fills: bytes, then 16-bit and 32-bit patterns on sub-ranges.
  CU(cuMemsetD8(Buf, 0xA5, N));
  std::fill(Want.begin(), Want.end(), 0xA5);
  CU(cuMemsetD16(Buf + 256, 0x1234, 300));
  for (int I = 0; I < 300; ++I) {
    Want[256 + 2 * I] = 0x34;
    Want[256 + 2 * I + 1] = 0x12;
  }
  CU(cuMemsetD32(Buf + 1024, 0xDEADBEEFu, 200));
  for (int I = 0; I < 200; ++I) {
    Want[1024 + 4 * I] = 0xEF;
    Want[1024 + 4 * I + 1] = 0xBE;
    Want[1024 + 4 * I + 2] = 0xAD;
    Want[1024 + 4 * I + 3] = 0xDE;
  }
  // A blocking stream: its work is ordered after the synchronous memsets and
  // pageable copies above, which may still be in flight on the NULL stream.
  CUstream S;
  CU(cuStreamCreate(&S, CU_STREAM_DEFAULT));
  CU(cuMemsetD8Async(Buf + 3000, 0x3C, 500, S));
  for (int I = 0; I < 500; ++I)
    Want[3000 + I] = 0x3C;
  CU(cuMemsetD32Async(Buf + 3600, 0x01020304u, 16, S));
  for (int I = 0; I < 16; ++I) {
    Want[3600 + 4 * I] = 4;
    Want[3600 + 4 * I + 1] = 3;
    Want[3600 + 4 * I + 2] = 2;
    Want[3600 + 4 * I + 3] = 1;
  }
  CU(cuStreamSynchronize(S));
  CU(cuMemcpyDtoH(Got.data(), Buf, N));
  int Bad1 = 0;
  for (size_t I = 0; I < N; ++I)
    Bad1 += Got[I] != Want[I];
  unsigned long long *DSum;
  CHECK(cudaMalloc(&DSum, sizeof(unsigned long long)));
  CHECK(cudaMemset(DSum, 0, sizeof(unsigned long long)));
  checksum<<<1, 256>>>((const unsigned char *)Buf, int(N), DSum);
  CHECK(cudaGetLastError());
  unsigned long long GpuSum = 0;
  CHECK(cudaMemcpy(&GpuSum, DSum, sizeof(GpuSum), cudaMemcpyDeviceToHost));
  std::printf("1D memsets: mismatches=%d checksum gpu=%llu cpu=%llu\n", Bad1, GpuSum, hostChecksum(Want));

  // 2D memsets on a pitched allocation.
  CUdeviceptr Img;
  size_t Pitch;
  const int W = 100, H = 30; // in 32-bit elements
  CU(cuMemAllocPitch(&Img, &Pitch, W * 4, H, 4));
  CU(cuMemsetD2D32(Img, Pitch, 0x11111111u, W, H));
  CU(cuMemsetD2D16(Img + 2 * Pitch, Pitch, 0x2222, 2 * 50, 10));
  CU(cuMemsetD2D8(Img + 20 * Pitch + 40, Pitch, 0x33, 120, 5));
  CU(cuMemsetD2D8Async(Img + 28 * Pitch, Pitch, 0x44, 8, 2, S));
  CU(cuStreamSynchronize(S));
  std::vector<unsigned char> Pic(W * 4 * H);
  CUDA_MEMCPY2D C = {};
  C.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  C.srcDevice = Img;
  C.srcPitch = Pitch;
  C.dstMemoryType = CU_MEMORYTYPE_HOST;
  C.dstHost = Pic.data();
  C.dstPitch = W * 4;
  C.WidthInBytes = W * 4;
  C.Height = H;
  CU(cuMemcpy2D(&C));
  int Bad2 = 0;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W * 4; ++X) {
      unsigned char E = 0x11;
      if (Y >= 2 && Y < 12 && X < 200)
        E = 0x22;
      if (Y >= 20 && Y < 25 && X >= 40 && X < 160)
        E = 0x33;
      if (Y >= 28 && X < 8)
        E = 0x44;
      Bad2 += Pic[Y * W * 4 + X] != E;
    }
  std::printf("2D memsets: mismatches=%d\n", Bad2);

  // Runtime memsets on runtime memory, and driver copies between the two.
  unsigned char *RBuf;
  CHECK(cudaMalloc(&RBuf, N));
  CHECK(cudaMemset(RBuf, 0x5A, N));
  CHECK(cudaMemsetAsync(RBuf + 100, 0x00, 50, 0));
  CU(cuMemcpyDtoD(Buf, (CUdeviceptr)RBuf, N));
  CU(cuMemcpyDtoH(Got.data(), Buf, N));
  int Bad3 = 0;
  for (size_t I = 0; I < N; ++I)
    Bad3 += Got[I] != ((I >= 100 && I < 150) ? 0x00 : 0x5A);
  std::vector<unsigned char> Up(N);
  for (size_t I = 0; I < N; ++I)
    Up[I] = (unsigned char)(I * 31);
  CU(cuMemcpyHtoD(Buf, Up.data(), N));
  CU(cuMemcpyDtoHAsync(Got.data(), Buf, N, S));
  CU(cuStreamSynchronize(S));
  for (size_t I = 0; I < N; ++I)
    Bad3 += Got[I] != Up[I];
  std::printf("runtime memsets and driver copies: mismatches=%d\n", Bad3);
  size_t Free = 0, Total = 0;
  CU(cuMemGetInfo(&Free, &Total));
  std::printf("memory info sane: %s\n", Free <= Total && Total > 0 ? "yes" : "no");
  CU(cuStreamDestroy(S));
  CU(cuMemFree(Img));
  CU(cuMemFree(Buf));
  CHECK(cudaFree(RBuf));
  CHECK(cudaFree(DSum));
  return finish(Bad1 == 0 && Bad2 == 0 && Bad3 == 0 && GpuSum == hostChecksum(Want));
}
