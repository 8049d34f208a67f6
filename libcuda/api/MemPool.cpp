/// \file
/// Entry points of the stream-ordered allocator and memory pools
/// (cuMemAllocAsync, cuMemFreeAsync, cuMemAllocFromPoolAsync, cuMemPool*,
/// cuDevice{Get,Set}MemPool, CUDA 13's cuMem{Get,Set}MemPool). The logic
/// is in core/MemPool.cpp; here arguments are checked and the C ABI's
/// structs turned into core values. Error codes follow what NVIDIA's driver
/// returns (checked on an H100 with CUDA 13): pool handles that are not
/// live are CUDA_ERROR_INVALID_VALUE, as for a pool destroyed twice.
///
/// Only device-located pinned pools exist here; host-located and managed
/// pools, and shareable (IPC) handle types, are CUDA_ERROR_NOT_SUPPORTED
/// (the export/import entry points stay the generated NOT_SUPPORTED stubs).
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/GraphMem.h"
#include "libcuda/core/MemPool.h"

using namespace ferry;
using namespace ferry::api;
using core::MemPool;

namespace {

void *ptr(CUdeviceptr P) { return reinterpret_cast<void *>(uintptr_t(P)); }

Expected<core::Ref<MemPool>> poolArg(CUmemoryPool P) {
  if (Status S = core::requireInit(); !S)
    return S.takeError();
  return core::resolve<MemPool>(P, CUDA_ERROR_INVALID_VALUE);
}

CUresult allocAsync(const char *Fn, CUdeviceptr *Out, size_t Bytes, CUmemoryPool Pool, bool FromPool,
                    CUstream H, bool PerThread) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dptr is null");
  auto S = streamArg(H, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  core::Ref<MemPool> P;
  if (FromPool) {
    auto R = poolArg(Pool);
    if (!R)
      return fail(Fn, R.error());
    P = std::move(*R);
  } else {
    P = core::mempool::currentPool((*S)->context().device());
  }
  if (core::capture::capturingGraph(**S)) {
    // Captured: an alloc node, whose memory is the graph's (from the
    // device's graph memory, whichever pool was named, as on NVIDIA).
    if (Bytes == 0)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "a captured allocation of 0 bytes");
    CUmemPoolProps Props{};
    Props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    Props.location = {CU_MEM_LOCATION_TYPE_DEVICE, (*S)->context().device().Ordinal};
    auto A = core::GraphAlloc::create((*S)->contextRef(), Bytes, Props, {});
    if (!A)
      return fail(Fn, A.error());
    void *Ptr = (*A)->ptr();
    core::NodeWork W;
    W.Type = core::NodeType::MemAlloc;
    W.Ctx = (*S)->contextRef();
    W.Alloc = std::move(*A);
    if (auto R = core::capture::onMemNode(**S, std::move(W)); R && !*R)
      return done(Fn, std::move(*R));
    *Out = CUdeviceptr(uintptr_t(Ptr));
    return CUDA_SUCCESS;
  }
  if (Status St = core::mempool::checkCapture(**S); !St)
    return done(Fn, std::move(St));
  if (Bytes == 0) {
    *Out = 0; // NVIDIA: success and a null pointer.
    return CUDA_SUCCESS;
  }
  auto R = P->allocate(**S, Bytes);
  if (!R)
    return fail(Fn, R.error());
  *Out = CUdeviceptr(uintptr_t(*R));
  return CUDA_SUCCESS;
}

CUresult freeAsync(const char *Fn, CUdeviceptr D, CUstream H, bool PerThread) {
  auto S = streamArg(H, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (D == 0)
    return CUDA_SUCCESS; // As cuMemFree (and NVIDIA's cuMemFreeAsync) do.
  return done(Fn, core::mempool::freeAsync(uintptr_t(D), **S));
}

/// The device of a pool location: pools live on devices only here.
Expected<core::DeviceEntry *> locationDevice(const CUmemLocation *L) {
  if (!L)
    return makeError(CUDA_ERROR_INVALID_VALUE, "location is null");
  switch (L->type) {
  case CU_MEM_LOCATION_TYPE_DEVICE: {
    auto D = deviceArg(L->id);
    if (!D && D.code() == CUDA_ERROR_INVALID_DEVICE)
      return makeError(CUDA_ERROR_INVALID_VALUE, D.error().message());
    return D;
  }
  case CU_MEM_LOCATION_TYPE_HOST:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "host-located memory pools are not supported");
  default:
    return makeError(CUDA_ERROR_INVALID_VALUE, "invalid memory location type");
  }
}

/// The device of a (location, allocation type) pair of cuMem{Get,Set}MemPool.
Expected<core::DeviceEntry *> poolTarget(const CUmemLocation *L, CUmemAllocationType T) {
  if (T == CU_MEM_ALLOCATION_TYPE_MANAGED)
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "managed memory pools are not supported");
  if (T != CU_MEM_ALLOCATION_TYPE_PINNED)
    return makeError(CUDA_ERROR_INVALID_VALUE, "invalid allocation type");
  return locationDevice(L);
}

constexpr bool isReuseAttribute(CUmemPool_attribute A) {
  return A == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES || A == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
         A == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES;
}

} // namespace

FERRY_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  return allocAsync(__func__, dptr, bytesize, nullptr, false, hStream, false);
}
FERRY_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  return allocAsync(__func__, dptr, bytesize, nullptr, false, hStream, true);
}
FERRY_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                              CUstream hStream) {
  return allocAsync(__func__, dptr, bytesize, pool, true, hStream, false);
}
FERRY_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                                   CUstream hStream) {
  return allocAsync(__func__, dptr, bytesize, pool, true, hStream, true);
}

FERRY_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return freeAsync(__func__, dptr, hStream, false);
}
FERRY_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  return freeAsync(__func__, dptr, hStream, true);
}

FERRY_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps) {
  if (!pool || !poolProps)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pool or poolProps is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  const CUmemPoolProps &P = *poolProps;
  if (P.allocType == CU_MEM_ALLOCATION_TYPE_MANAGED)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "managed memory pools are not supported");
  if (P.allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "allocType must be CU_MEM_ALLOCATION_TYPE_PINNED");
  constexpr unsigned KnownHandles = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_WIN32 |
                                    CU_MEM_HANDLE_TYPE_WIN32_KMT | CU_MEM_HANDLE_TYPE_FABRIC;
  if (unsigned(P.handleTypes) & ~KnownHandles)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown handle types");
  // Consistent with CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 0:
  // pools cannot be shared between processes here.
  if (P.handleTypes != CU_MEM_HANDLE_TYPE_NONE)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "shareable memory pool handles are not supported");
  if (P.usage != 0)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "memory pool usage flags are not supported");
  auto D = locationDevice(&P.location);
  if (!D)
    return fail(__func__, D.error());
  auto Pool = core::mempool::create(**D, P.maxSize);
  *pool = handleOf<CUmemoryPool>(Pool.get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  return done(__func__, core::mempool::destroy(*P));
}

FERRY_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  if (!value)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  uint64_t V = isReuseAttribute(attr) ? uint64_t(*static_cast<int *>(value) != 0)
                                      : uint64_t(*static_cast<cuuint64_t *>(value));
  return done(__func__, (*P)->setAttribute(int(attr), V));
}

FERRY_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  if (!value)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  auto V = (*P)->attribute(int(attr));
  if (!V)
    return fail(__func__, V.error());
  if (isReuseAttribute(attr))
    *static_cast<int *>(value) = int(*V);
  else
    *static_cast<cuuint64_t *>(value) = cuuint64_t(*V);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  (*P)->trimTo(minBytesToKeep);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  if (count && !map)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "map is null");
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  for (size_t I = 0; I < count; ++I) {
    const CUmemAccessDesc &A = map[I];
    if (A.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "access can only be granted to devices");
    if (!core::device(A.location.id))
      return fail(__func__, CUDA_ERROR_INVALID_DEVICE, "device ordinal out of range");
    if (A.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && A.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        A.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "invalid access flags");
    if (Status S = (*P)->setAccess(A.location.id, unsigned(A.flags)); !S)
      return done(__func__, std::move(S));
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location) {
  if (!flags || !location)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags or location is null");
  auto P = poolArg(memPool);
  if (!P)
    return fail(__func__, P.error());
  if (location->type == CU_MEM_LOCATION_TYPE_HOST) {
    *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE; // Device pools are not host-mapped (NVIDIA).
    return CUDA_SUCCESS;
  }
  if (location->type != CU_MEM_LOCATION_TYPE_DEVICE || !core::device(location->id))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "location is not a device");
  *flags = CUmemAccess_flags((*P)->access(location->id));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev) {
  if (!pool_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pool_out is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *pool_out = handleOf<CUmemoryPool>(core::mempool::defaultPool(**D).get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
  if (!pool)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pool is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *pool = handleOf<CUmemoryPool>(core::mempool::currentPool(**D).get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  if (&(*P)->device() != *D)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the pool belongs to another device");
  core::mempool::setCurrentPool(**D, std::move(*P));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                             CUmemAllocationType type) {
  if (!pool_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pool_out is null");
  auto D = poolTarget(location, type);
  if (!D)
    return fail(__func__, D.error());
  *pool_out = handleOf<CUmemoryPool>(core::mempool::defaultPool(**D).get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetMemPool(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type) {
  if (!pool_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pool_out is null");
  auto D = poolTarget(location, type);
  if (!D)
    return fail(__func__, D.error());
  *pool_out = handleOf<CUmemoryPool>(core::mempool::currentPool(**D).get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool) {
  auto D = poolTarget(location, type);
  if (!D)
    return fail(__func__, D.error());
  auto P = poolArg(pool);
  if (!P)
    return fail(__func__, P.error());
  if (&(*P)->device() != *D)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the pool belongs to another location");
  core::mempool::setCurrentPool(**D, std::move(*P));
  return CUDA_SUCCESS;
}
