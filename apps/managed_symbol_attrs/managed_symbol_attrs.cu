/// \file
/// Pointer attributes of a `__managed__` variable, asked of both the
/// runtime (cudaPointerGetAttributes) and the driver (cuPointerGetAttribute,
/// cuPointerGetAttributes, cuMemGetAddressRange), side by side with the same
/// questions about cudaMallocManaged memory and cudaMalloc memory. Libraries
/// decide from these answers whether a pointer can be read on the host, so a
/// managed variable must answer as managed memory. Addresses are never
/// printed, only how they compare.
#include "../common/app_util.h"
#include "../common/driver_util.h"
#include <cuda.h>

__managed__ int Histogram[64];

__global__ void countDigits(const int *Values, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    atomicAdd(&Histogram[Values[I] % 64], 1);
}

static const char *typeName(cudaMemoryType T) {
  switch (T) {
  case cudaMemoryTypeUnregistered: return "unregistered";
  case cudaMemoryTypeHost: return "host";
  case cudaMemoryTypeDevice: return "device";
  case cudaMemoryTypeManaged: return "managed";
  }
  return "?";
}

static const char *cuTypeName(unsigned T) {
  switch (T) {
  case CU_MEMORYTYPE_HOST: return "host";
  case CU_MEMORYTYPE_DEVICE: return "device";
  case CU_MEMORYTYPE_ARRAY: return "array";
  case CU_MEMORYTYPE_UNIFIED: return "unified";
  }
  return "none";
}

/// Prints what both APIs say about P (Bytes long, inside an allocation that
/// starts at Base); returns whether it is reported as managed everywhere.
static bool describe(const char *What, void *P, void *Base, size_t Bytes) {
  cudaPointerAttributes A;
  CHECK(cudaPointerGetAttributes(&A, P));
  std::printf("%s: runtime type=%s device=%d devicePointer=%s hostPointer=%s\n", What,
              typeName(A.type), A.device, A.devicePointer == P ? "same" : "other",
              A.hostPointer == P ? "same" : A.hostPointer ? "other" : "null");
  CUdeviceptr D = CUdeviceptr(P);
  unsigned IsManaged = 7, MemType = 0;
  int Ordinal = -7;
  CUdeviceptr Start = 0;
  size_t Size = 0;
  CUcontext Ctx = nullptr, Current = nullptr;
  CU(cuPointerGetAttribute(&IsManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, D));
  CU(cuPointerGetAttribute(&MemType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, D));
  CU(cuPointerGetAttribute(&Ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, D));
  CU(cuPointerGetAttribute(&Start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, D));
  CU(cuPointerGetAttribute(&Size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, D));
  CU(cuPointerGetAttribute(&Ctx, CU_POINTER_ATTRIBUTE_CONTEXT, D));
  CU(cuCtxGetCurrent(&Current));
  std::printf("%s: driver managed=%u type=%s ordinal=%d rangeStart=%s rangeSize=%s context=%s\n",
              What, IsManaged, cuTypeName(MemType), Ordinal,
              Start == CUdeviceptr(Base) ? "base" : "other", Size == Bytes ? "size" : "other",
              Ctx == Current ? "current" : Ctx ? "other" : "null");
  // The batched form, at an interior address.
  CUpointer_attribute List[] = {CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER};
  unsigned BManaged = 7, BType = 0;
  CUdeviceptr BDev = 0;
  void *BHost = nullptr;
  void *Data[] = {&BManaged, &BType, &BDev, &BHost};
  CUdeviceptr Inside = D + 8;
  CU(cuPointerGetAttributes(4, List, Data, Inside));
  std::printf("%s: batched managed=%u type=%s devicePointer=%s hostPointer=%s\n", What, BManaged,
              cuTypeName(BType), BDev == Inside ? "same" : "other",
              BHost == reinterpret_cast<void *>(Inside) ? "same" : BHost ? "other" : "null");
  CUdeviceptr RBase = 0;
  size_t RSize = 0;
  CU(cuMemGetAddressRange(&RBase, &RSize, Inside));
  std::printf("%s: address range base=%s size=%s\n", What, RBase == CUdeviceptr(Base) ? "base" : "other",
              RSize == Bytes ? "size" : "other");
  return A.type == cudaMemoryTypeManaged && IsManaged == 1 && BManaged == 1;
}

int main() {
  const int N = 4096;
  int *Values;
  CHECK(cudaMallocManaged(&Values, N * sizeof(int)));
  for (int I = 0; I < N; ++I)
    Values[I] = (I * 7 + 3) % 1000;
  countDigits<<<N / 256, 256>>>(Values, N);
  CHECK(cudaDeviceSynchronize());
  // The host reads the variable directly, as managed memory allows.
  int Want[64] = {};
  for (int I = 0; I < N; ++I)
    ++Want[Values[I] % 64];
  bool Counts = true;
  for (int B = 0; B < 64; ++B)
    Counts &= Histogram[B] == Want[B];
  std::printf("histogram matches the host count: %s\n", Counts ? "yes" : "no");

  void *Sym = nullptr;
  size_t SymBytes = 0;
  CHECK(cudaGetSymbolAddress(&Sym, Histogram));
  CHECK(cudaGetSymbolSize(&SymBytes, Histogram));
  std::printf("symbol size: %zu\n", SymBytes);
  std::printf("symbol address is the host-visible variable: %s\n", Sym == (void *)Histogram ? "yes" : "no");
  bool SymManaged = describe("managed variable", Sym, Sym, SymBytes);
  bool AllocManaged = describe("cudaMallocManaged", Values, Values, N * sizeof(int));
  int *Plain;
  CHECK(cudaMalloc(&Plain, 256));
  bool PlainManaged = describe("cudaMalloc", Plain, Plain, 256);
  CHECK(cudaFree(Plain));
  CHECK(cudaFree(Values));
  return finish(Counts && SymBytes == sizeof(Histogram) && SymManaged && AllocManaged && !PlainManaged);
}
