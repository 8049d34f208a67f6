/// \file
/// Copies a buffer through a templated grid-stride kernel once per element
/// type: 1-, 2-, 4-, 8-, 12- and 16-byte types, some plain and some raised to
/// a larger alignment with __align__, including a 32-byte struct of two
/// aligned structs. The alignment decides whether nvcc emits one wide vector
/// load (ld.global.v4.u32) or several narrow ones, so each type takes a
/// different load/store shape. Several grid shapes per type; each copy is
/// checked byte for byte against the source.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

typedef unsigned char uchar_t;

struct Byte2 {
  uchar_t A, B;
};
struct __align__(4) Rgba8 {
  uchar_t R, G, B, A;
};
struct __align__(8) La32 {
  float L, A;
};
struct Rgb32 {
  float R, G, B;
};
struct __align__(16) Rgb32a {
  float R, G, B;
};
struct __align__(16) Rgba32 {
  float R, G, B, A;
};
struct __align__(16) Rgba32x2 {
  Rgba32 First, Second;
};

template <class T>
__global__ void copyKernel(T *Out, const T *In, int NumElements) {
  const int Tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int NumThreads = blockDim.x * gridDim.x;
  for (int Pos = Tid; Pos < NumElements; Pos += NumThreads)
    Out[Pos] = In[Pos];
}

static bool runType(const char *Name, size_t Bytes, unsigned char *DIn,
                    unsigned char *DOut, const std::vector<unsigned char> &Ref,
                    size_t TypeSize, void (*Launch)(int, int, void *,
                                                   const void *, int)) {
  const int NumElements = int(Bytes / TypeSize);
  const size_t Used = size_t(NumElements) * TypeSize;
  static const int Shapes[][2] = {{1, 32}, {64, 128}, {256, 256}, {1000, 96}};
  bool Ok = true;
  std::vector<unsigned char> Got(Bytes);
  for (const auto &Shape : Shapes) {
    CHECK(cudaMemset(DOut, 0, Bytes));
    Launch(Shape[0], Shape[1], DOut, DIn, NumElements);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(Got.data(), DOut, Bytes, cudaMemcpyDeviceToHost));
    size_t Bad = 0;
    for (size_t I = 0; I < Bytes; ++I)
      Bad += Got[I] != (I < Used ? Ref[I] : 0);
    std::printf("%-9s size %2zu grid %4d x %3d: %zu elements, %zu bad bytes\n",
                Name, TypeSize, Shape[0], Shape[1], size_t(NumElements), Bad);
    Ok &= Bad == 0;
  }
  return Ok;
}

template <class T>
static void launchCopy(int Blocks, int Threads, void *Out, const void *In,
                       int N) {
  copyKernel<T><<<Blocks, Threads>>>(static_cast<T *>(Out),
                                     static_cast<const T *>(In), N);
}

#define RUN(T) Ok &= runType(#T, Bytes, DIn, DOut, Ref, sizeof(T), launchCopy<T>)

int main(int Argc, char **Argv) {
  // Large enough that every shape strides many times, small enough to run in
  // seconds on a CPU. Not a multiple of 12 or 32, so tails are exercised. An
  // argument gives another size in bytes.
  const size_t Bytes = Argc > 1 ? size_t(std::atoll(Argv[1])) : (4u << 20) + 20;
  std::vector<unsigned char> Ref(Bytes);
  Lcg Rng(21);
  for (auto &B : Ref)
    B = uchar_t(Rng.next() >> 24);
  unsigned char *DIn = nullptr, *DOut = nullptr;
  CHECK(cudaMalloc(&DIn, Bytes));
  CHECK(cudaMalloc(&DOut, Bytes));
  CHECK(cudaMemcpy(DIn, Ref.data(), Bytes, cudaMemcpyHostToDevice));
  bool Ok = true;
  RUN(uchar_t);
  RUN(unsigned short);
  RUN(Byte2);
  RUN(Rgba8);
  RUN(unsigned int);
  RUN(La32);
  RUN(Rgb32);
  RUN(Rgb32a);
  RUN(Rgba32);
  RUN(Rgba32x2);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  return finish(Ok);
}
