/// \file
/// Memory pools of the runtime (cudaMemPool*, cudaDevice{Get,Set}MemPool,
/// cudaMem{Get,Set}MemPool, cudaMallocFromPoolAsync): thin forwards to the
/// driver's forms. cudaMemPool_t is the driver's CUmemoryPool, and the
/// runtime's pool structs and enums have the driver's layout and numbering;
/// only device ordinals in locations are translated (runtime ordinal to
/// CUdevice). cudaMallocAsync/cudaFreeAsync live in Memory.cpp.
#include "Runtime.h"

#include <cstring>
#include <vector>

using namespace ferry::cudart;

namespace {

static_assert(sizeof(cudaMemPoolProps) == sizeof(CUmemPoolProps));
static_assert(sizeof(cudaMemAccessDesc) == sizeof(CUmemAccessDesc));
static_assert(sizeof(cudaMemLocation) == sizeof(CUmemLocation));

/// The driver's form of a runtime location: a device's ordinal becomes its
/// CUdevice (cudaErrorInvalidDevice when out of range).
cudaError_t toDriver(const cudaMemLocation &L, CUmemLocation &Out) {
  Out.type = static_cast<CUmemLocationType>(L.type);
  Out.id = L.id;
  if (L.type != cudaMemLocationTypeDevice)
    return cudaSuccess;
  CUdevice D;
  if (cudaError_t E = deviceHandle(L.id, D))
    return E;
  Out.id = D;
  return cudaSuccess;
}

cudaError_t fromPool(const DriverTable &D, void **Ptr, size_t Size, cudaMemPool_t Pool, cudaStream_t Stream) {
  if (!Ptr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  CUresult R = D.cuMemAllocFromPoolAsync(&P, Size, Pool, Stream);
  if (R == CUDA_SUCCESS)
    *Ptr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

} // namespace

extern "C" {

cudaError_t cudaMallocFromPoolAsync(void **Ptr, size_t Size, cudaMemPool_t Pool, cudaStream_t Stream) {
  return fromPool(driver(false), Ptr, Size, Pool, Stream);
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void **Ptr, size_t Size, cudaMemPool_t Pool, cudaStream_t Stream) {
  return fromPool(driver(true), Ptr, Size, Pool, Stream);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *Pool, const struct cudaMemPoolProps *Props) {
  if (!Pool || !Props)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUmemPoolProps P;
  std::memcpy(&P, Props, sizeof(P));
  if (cudaError_t E = toDriver(Props->location, P.location))
    return recordError(E);
  return finish(driver().cuMemPoolCreate(Pool, &P));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t Pool) {
  if (cudaError_t E = enterDriver())
    return E;
  return finish(driver().cuMemPoolDestroy(Pool));
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t Pool, enum cudaMemPoolAttr Attr, void *Value) {
  if (cudaError_t E = enterDriver())
    return E;
  return finish(driver().cuMemPoolSetAttribute(Pool, static_cast<CUmemPool_attribute>(Attr), Value));
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t Pool, enum cudaMemPoolAttr Attr, void *Value) {
  if (cudaError_t E = enterDriver())
    return E;
  return finish(driver().cuMemPoolGetAttribute(Pool, static_cast<CUmemPool_attribute>(Attr), Value));
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t Pool, size_t MinBytesToKeep) {
  if (cudaError_t E = enterDriver())
    return E;
  return finish(driver().cuMemPoolTrimTo(Pool, MinBytesToKeep));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t Pool, const struct cudaMemAccessDesc *Descs, size_t Count) {
  if (Count && !Descs)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  std::vector<CUmemAccessDesc> D(Count);
  for (size_t I = 0; I < Count; ++I) {
    if (cudaError_t E = toDriver(Descs[I].location, D[I].location))
      return recordError(E);
    D[I].flags = static_cast<CUmemAccess_flags>(Descs[I].flags);
  }
  return finish(driver().cuMemPoolSetAccess(Pool, D.data(), Count));
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *Flags, cudaMemPool_t Pool,
                                 struct cudaMemLocation *Location) {
  if (!Flags || !Location)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUmemLocation L;
  if (toDriver(*Location, L) != cudaSuccess)
    return recordError(cudaErrorInvalidValue); // The driver's answer for a bad device.
  CUmemAccess_flags F = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CUresult R = driver().cuMemPoolGetAccess(&F, Pool, &L);
  if (R == CUDA_SUCCESS)
    *Flags = static_cast<cudaMemAccessFlags>(F);
  return finish(R);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *Pool, int Dev) {
  if (!Pool)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceGetDefaultMemPool(Pool, H), Dev);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *Pool, int Dev) {
  if (!Pool)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceGetMemPool(Pool, H), Dev);
}

cudaError_t cudaDeviceSetMemPool(int Dev, cudaMemPool_t Pool) {
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceSetMemPool(H, Pool), Dev);
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *Pool, struct cudaMemLocation *Location,
                                     enum cudaMemAllocationType Type) {
  if (!Pool || !Location)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUmemLocation L;
  if (cudaError_t E = toDriver(*Location, L))
    return recordError(E);
  return finish(driver().cuMemGetDefaultMemPool(Pool, &L, static_cast<CUmemAllocationType>(Type)));
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t *Pool, struct cudaMemLocation *Location,
                              enum cudaMemAllocationType Type) {
  if (!Pool || !Location)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUmemLocation L;
  if (cudaError_t E = toDriver(*Location, L))
    return recordError(E);
  return finish(driver().cuMemGetMemPool(Pool, &L, static_cast<CUmemAllocationType>(Type)));
}

cudaError_t cudaMemSetMemPool(struct cudaMemLocation *Location, enum cudaMemAllocationType Type,
                              cudaMemPool_t Pool) {
  if (!Location)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUmemLocation L;
  if (cudaError_t E = toDriver(*Location, L))
    return recordError(E);
  return finish(driver().cuMemSetMemPool(&L, static_cast<CUmemAllocationType>(Type), Pool));
}

} // extern "C"
