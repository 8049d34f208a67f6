/// \file
/// Allocation entry points (device, pitched, pinned host, registered host,
/// managed), memory info, address ranges and pointer attributes.
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/GraphMem.h"
#include "libcuda/core/MemPool.h"

#include <cstring>

using namespace ferry;
using namespace ferry::api;
using core::AllocKind;

static CUdeviceptr dptr(void *P) { return CUdeviceptr(uintptr_t(P)); }
static void *ptr(CUdeviceptr P) { return reinterpret_cast<void *>(uintptr_t(P)); }

FERRY_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptrOut, size_t bytesize) {
  if (!dptrOut)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dptr is null");
  if (bytesize == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
  auto C = usableCurrent(__func__);
  if (!C)
    return C.code();
  auto P = core::allocate(**C, AllocKind::Device, bytesize, 0);
  if (!P)
    return fail(__func__, P.error());
  *dptrOut = dptr(*P);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  if (p == 0)
    return CUDA_SUCCESS; // cudaFree(0) relies on this.
  if (auto G = core::GraphAlloc::find(uintptr_t(p))) {
    // A graph allocation stays its node's; freeing it ends its stream-order
    // lifetime. Synchronous like every cuMemFree: earlier work finishes first.
    if (Status St = core::capture::checkUnsafeCall("freeing memory"); !St)
      return done(__func__, std::move(St));
    (void)G->context().synchronize();
    return done(__func__, core::graphmem::freeOutside(*G));
  }
  return done(__func__, core::release(ptr(p), {AllocKind::Device, AllocKind::Managed}));
}

FERRY_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptrOut, size_t *pPitch, size_t WidthInBytes,
                                         size_t Height, unsigned int ElementSizeBytes) {
  if (!dptrOut || !pPitch)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dptr or pPitch is null");
  if (WidthInBytes == 0 || Height == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "width or height is 0");
  if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "ElementSizeBytes must be 4, 8 or 16");
  auto C = usableCurrent(__func__);
  if (!C)
    return C.code();
  // Rows aligned like NVIDIA's (512-byte texture pitch alignment).
  size_t Pitch = (WidthInBytes + 511) / 512 * 512;
  if (Height > SIZE_MAX / Pitch)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pitched size overflows");
  auto P = core::allocate(**C, AllocKind::Device, Pitch * Height, 0);
  if (!P)
    return fail(__func__, P.error());
  *dptrOut = dptr(*P);
  *pPitch = Pitch;
  return CUDA_SUCCESS;
}

static CUresult hostAlloc(const char *Fn, void **pp, size_t bytesize, unsigned Flags) {
  if (!pp)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pp is null");
  if (bytesize == 0)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
  if (Flags & ~unsigned(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown cuMemHostAlloc flags");
  auto C = usableCurrent(Fn);
  if (!C)
    return C.code();
  auto P = core::allocate(**C, AllocKind::Host, bytesize, Flags);
  if (!P)
    return fail(Fn, P.error());
  *pp = *P;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) {
  return hostAlloc(__func__, pp, bytesize, 0);
}
FERRY_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  return hostAlloc(__func__, pp, bytesize, Flags);
}

FERRY_EXPORT CUresult cuMemFreeHost(void *p) {
  if (!p)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "p is null");
  return done(__func__, core::release(p, {AllocKind::Host}));
}

FERRY_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  if (!pdptr || !p)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pdptr or p is null");
  if (Flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "Flags must be 0");
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto A = core::alloctable::find(uintptr_t(p));
  if (!A || (A->Kind != AllocKind::Host && A->Kind != AllocKind::Registered))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pointer is not pinned or registered host memory");
  *pdptr = dptr(p); // Unified addressing: the same address.
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  if (!pFlags || !p)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pFlags or p is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto A = core::alloctable::find(uintptr_t(p));
  if (!A || A->Kind != AllocKind::Host)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pointer is not from cuMemHostAlloc");
  // Under unified addressing every pinned allocation is mapped and
  // portable; the H100's driver reports DEVICEMAP (and WRITECOMBINED when
  // asked for) but never PORTABLE, whatever was passed, so neither do we.
  *pFlags = (A->Flags & ~unsigned(CU_MEMHOSTALLOC_PORTABLE)) | CU_MEMHOSTALLOC_DEVICEMAP;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
  if (!p || bytesize == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "p is null or bytesize is 0");
  unsigned Known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                   CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
  if (Flags & ~Known)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown cuMemHostRegister flags");
  if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "I/O memory registration is not supported");
  auto C = current(__func__);
  if (!C)
    return C.code();
  return done(__func__, core::registerHost(**C, p, bytesize, Flags));
}

FERRY_EXPORT CUresult cuMemHostUnregister(void *p) {
  if (!p)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "p is null");
  return done(__func__, core::unregisterHost(p));
}

FERRY_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptrOut, size_t bytesize, unsigned int flags) {
  if (!dptrOut)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dptr is null");
  if (bytesize == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be CU_MEM_ATTACH_GLOBAL or _HOST");
  auto C = usableCurrent(__func__);
  if (!C)
    return C.code();
  auto P = core::allocate(**C, AllocKind::Managed, bytesize, flags);
  if (!P)
    return fail(__func__, P.error());
  *dptrOut = dptr(*P);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetInfo_v2(size_t *freeOut, size_t *totalOut) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto I = (*C)->device().Backend->memoryInfo();
  if (freeOut)
    *freeOut = I.Free;
  if (totalOut)
    *totalOut = I.Total;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  // Page-locked host memory (cuMemHostAlloc, any flags) and registered
  // memory have a range too: the H100 answers with the host allocation's
  // base and size (Numba sizes mapped arrays this way).
  auto A = core::alloctable::find(uintptr_t(p));
  if (!A)
    return fail(__func__, CUDA_ERROR_NOT_FOUND, "address is not in any allocation");
  if (pbase)
    *pbase = CUdeviceptr(A->Base);
  if (psize)
    *psize = A->Bytes;
  return CUDA_SUCCESS;
}

/// Writes one pointer attribute. Known==false means ptr is in no
/// allocation; then values are the documented defaults of
/// cuPointerGetAttributes (zeros / null), and Strict makes it an error as
/// cuPointerGetAttribute does.
static CUresult pointerAttribute(const char *Fn, void *data, CUpointer_attribute attribute,
                                 CUdeviceptr p, bool Strict) {
  auto A = core::alloctable::find(uintptr_t(p));
  if (!A && Strict)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pointer is not in any allocation ferry knows");
  auto Put = [&](auto V) { std::memcpy(data, &V, sizeof(V)); };
  core::Allocation None;
  const core::Allocation &Al = A ? *A : None;
  bool Host = A && (Al.Kind == AllocKind::Host || Al.Kind == AllocKind::Registered);
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: {
    // Pool memory belongs to no context: NVIDIA reports null for it.
    core::Context *Owner = A && !Al.Pool ? Al.Ctx : nullptr;
    // A module variable belongs to the context the module was loaded into;
    // ferry's libraries are context-free, so that is the calling thread's
    // context when it is on the variable's device (the module's user),
    // else the device's primary context (cudart's).
    // A `__managed__` variable belongs to none: an H100 answered null
    // (compat-tests/goldens/managed_symbol_attrs).
    core::Ref<core::Context> Cur;
    if (A && Al.Kind == AllocKind::ModuleGlobal && !Al.isManaged()) {
      Cur = core::ctxstack::current();
      if (!Cur || Cur->device().Ordinal != Al.DeviceOrdinal)
        if (core::DeviceEntry *D = core::device(Al.DeviceOrdinal))
          Cur = D->Primary;
      Owner = Cur.get();
    } else if (A && Al.Kind == AllocKind::ModuleGlobal) {
      Owner = nullptr;
    }
    Put(Owner ? handleOf<CUcontext>(Owner) : CUcontext(nullptr));
    break;
  }
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    Put((unsigned)(A ? (Host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE) : 0));
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    Put(A ? p : CUdeviceptr(0));
    break;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER: {
    // Device memory has no host address on NVIDIA; here all memory is
    // host-reachable but we keep the NVIDIA answer for device memory.
    bool DeviceOnly = (Al.Kind == AllocKind::Device || Al.Kind == AllocKind::Vmm ||
                       Al.Kind == AllocKind::ModuleGlobal || Al.Kind == AllocKind::Graph) &&
                      !Al.ManagedVariable;
    if (A && DeviceOnly && Strict)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "device memory has no host pointer");
    Put(A && !DeviceOnly ? ptr(p) : nullptr);
    break;
  }
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    Put(bool(A));
    break;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    Put((unsigned long long)Al.Id);
    break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    // 4 bytes: NVIDIA's static cudart reads an unsigned int here (a 1-byte
    // write left garbage that turned device memory into "managed").
    Put(unsigned(A && Al.isManaged()));
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    Put(int(A ? Al.DeviceOrdinal : -2));
    break;
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    Put(false);
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    Put(reinterpret_cast<void *>(Al.Base));
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    Put(size_t(Al.Bytes));
    break;
  case CU_POINTER_ATTRIBUTE_MAPPED:
    Put(bool(A));
    break;
  case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    Put((unsigned long long)0);
    break;
  case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    Put(false);
    break;
  case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
    Put((unsigned)(A ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE));
    break;
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    Put(A && Al.Pool ? handleOf<CUmemoryPool>(Al.Pool.get()) : CUmemoryPool(nullptr));
    break;
  case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
    Put(size_t(Al.Bytes));
    break;
  case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
    Put(reinterpret_cast<void *>(Al.Base));
    break;
  case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
    Put((unsigned long long)Al.Id);
    break;
  default:
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unsupported pointer attribute " + std::to_string(int(attribute)));
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr p) {
  if (!data)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "data is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  return pointerAttribute(__func__, data, attribute, p, /*Strict=*/true);
}

FERRY_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                             void **data, CUdeviceptr p) {
  if (numAttributes == 0 || !attributes || !data)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "empty attribute list");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  for (unsigned I = 0; I < numAttributes; ++I) {
    if (!data[I])
      continue;
    if (CUresult R = pointerAttribute(__func__, data[I], attributes[I], p, /*Strict=*/false))
      return R;
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr p) {
  if (attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "only CU_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set");
  if (!core::alloctable::find(uintptr_t(p)))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pointer is not in any allocation");
  return CUDA_SUCCESS; // Memory operations are always synchronous here.
}
