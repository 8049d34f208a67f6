/// \file
/// Every copy direction a program meets: host<->device, device<->device,
/// host<->host through cudaMemcpy, cudaMemcpyDefault with unified addressing,
/// cudaMemcpyPeer within one device, async device-to-device copies, and what
/// cudaPointerGetAttributes says about each kind of pointer.
#include "../common/app_util.h"
#include <vector>

static const char *typeName(cudaMemoryType T) {
  switch (T) {
  case cudaMemoryTypeUnregistered: return "unregistered";
  case cudaMemoryTypeHost: return "host";
  case cudaMemoryTypeDevice: return "device";
  case cudaMemoryTypeManaged: return "managed";
  }
  return "?";
}

__global__ void negate(int *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = -P[I];
}

int main() {
  const int N = 10000;
  const size_t Bytes = N * sizeof(int);
  std::vector<int> Src(N), Dst(N), Copy(N);
  for (int I = 0; I < N; ++I)
    Src[I] = I * 7 - 5000;
  int *A, *B, *Pinned, *Managed;
  CHECK(cudaMalloc(&A, Bytes));
  CHECK(cudaMalloc(&B, Bytes));
  CHECK(cudaMallocHost(&Pinned, Bytes));
  CHECK(cudaMallocManaged(&Managed, Bytes));
  int Fails = 0;
  CHECK(cudaMemcpy(A, Src.data(), Bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, A, Bytes, cudaMemcpyDeviceToDevice));
  negate<<<(N + 255) / 256, 256>>>(B, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Dst.data(), B, Bytes, cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    Fails += Dst[I] != -Src[I];
  std::printf("h2d/d2d/d2h: %s\n", Fails ? "bad" : "ok");

  CHECK(cudaMemcpy(Copy.data(), Src.data(), Bytes, cudaMemcpyHostToHost));
  int F2 = 0;
  for (int I = 0; I < N; ++I)
    F2 += Copy[I] != Src[I];
  std::printf("h2h: %s\n", F2 ? "bad" : "ok");
  Fails += F2;

  // cudaMemcpyDefault works out the direction from the pointers.
  CHECK(cudaMemcpy(Pinned, B, Bytes, cudaMemcpyDefault));
  CHECK(cudaMemcpy(Managed, Pinned, Bytes, cudaMemcpyDefault));
  negate<<<(N + 255) / 256, 256>>>(Managed, N);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int F3 = 0;
  for (int I = 0; I < N; ++I)
    F3 += Managed[I] != Src[I];
  std::printf("default-kind copies through pinned and managed: %s\n", F3 ? "bad" : "ok");
  Fails += F3;

  // Peer copy on the same device, and async device copies on a stream.
  CHECK(cudaMemset(B, 0, Bytes));
  CHECK(cudaMemcpyPeer(B, 0, A, 0, Bytes));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaMemcpyAsync(A, B + N / 2, Bytes / 2, cudaMemcpyDeviceToDevice, S));
  CHECK(cudaMemcpyAsync(Pinned, A, Bytes, cudaMemcpyDeviceToHost, S));
  CHECK(cudaStreamSynchronize(S));
  int F4 = 0;
  for (int I = 0; I < N; ++I)
    F4 += Pinned[I] != (I < N / 2 ? Src[I + N / 2] : Src[I]);
  std::printf("peer and async d2d: %s\n", F4 ? "bad" : "ok");
  Fails += F4;

  // Small and odd-sized copies, including zero bytes.
  char Bytes7[7] = {1, 2, 3, 4, 5, 6, 7}, Back7[7] = {};
  CHECK(cudaMemcpy((char *)A + 3, Bytes7, 7, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(Back7, (char *)A + 3, 7, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Back7, A, 0, cudaMemcpyDeviceToHost));
  int F5 = 0;
  for (int I = 0; I < 7; ++I)
    F5 += Back7[I] != Bytes7[I];
  std::printf("unaligned 7-byte copy: %s\n", F5 ? "bad" : "ok");
  Fails += F5;

  cudaPointerAttributes Attr;
  int Stack = 0;
  CHECK(cudaPointerGetAttributes(&Attr, A));
  std::printf("attr device: %s\n", typeName(Attr.type));
  CHECK(cudaPointerGetAttributes(&Attr, Pinned));
  std::printf("attr pinned: %s\n", typeName(Attr.type));
  CHECK(cudaPointerGetAttributes(&Attr, Managed));
  std::printf("attr managed: %s\n", typeName(Attr.type));
  CHECK(cudaPointerGetAttributes(&Attr, &Stack));
  std::printf("attr stack: %s\n", typeName(Attr.type));
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFreeHost(Pinned));
  CHECK(cudaFree(Managed));
  return finish(Fails == 0);
}
