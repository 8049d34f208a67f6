/// \file
/// Memory: allocation (device, pinned, mapped, registered, managed,
/// pitched, 3D, stream-ordered), copies (1D/2D/3D, to and from symbols,
/// peer), memsets and pointer attributes. Copies dispatch on cudaMemcpyKind
/// to the driver's typed copies (HtoD/DtoH/DtoD, as NVIDIA's runtime does)
/// and use unified addressing for cudaMemcpyDefault.
///
/// Each stream-ordered or synchronous copy with a _ptds/_ptsz twin is
/// written once over a DriverTable; the twins pass the per-thread table.
#include "Runtime.h"

#include <cstring>

namespace ferry::cudart {
namespace {

CUdeviceptr dptr(const void *P) { return reinterpret_cast<CUdeviceptr>(P); }

bool validKind(cudaMemcpyKind Kind) {
  return Kind >= cudaMemcpyHostToHost && Kind <= cudaMemcpyDefault;
}

cudaError_t copy(const DriverTable &D, void *Dst, const void *Src, size_t Count,
                 cudaMemcpyKind Kind, bool Async, cudaStream_t Stream) {
  if (!validKind(Kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Count == 0)
    return cudaSuccess;
  if (!Dst || !Src)
    return recordError(cudaErrorInvalidValue);
  CUresult R;
  switch (Kind) {
  case cudaMemcpyHostToDevice:
    R = Async ? D.cuMemcpyHtoDAsync(dptr(Dst), Src, Count, Stream)
              : D.cuMemcpyHtoD(dptr(Dst), Src, Count);
    break;
  case cudaMemcpyDeviceToHost:
    R = Async ? D.cuMemcpyDtoHAsync(Dst, dptr(Src), Count, Stream)
              : D.cuMemcpyDtoH(Dst, dptr(Src), Count);
    break;
  case cudaMemcpyDeviceToDevice:
    R = Async ? D.cuMemcpyDtoDAsync(dptr(Dst), dptr(Src), Count, Stream)
              : D.cuMemcpyDtoD(dptr(Dst), dptr(Src), Count);
    break;
  case cudaMemcpyHostToHost:
    if (!Async) {
      // Ordered after earlier work like any synchronous copy.
      if (CUresult S = D.cuCtxSynchronize(C.Ctx))
        return finish(S, C.Device);
      std::memmove(Dst, Src, Count);
      return cudaSuccess;
    }
    [[fallthrough]];
  default:
    R = Async ? D.cuMemcpyAsync(dptr(Dst), dptr(Src), Count, Stream)
              : D.cuMemcpy(dptr(Dst), dptr(Src), Count);
    break;
  }
  return finish(R, C.Device);
}

/// Fills the source or destination half of a 2D/3D copy from a plain
/// pointer, with the memory type the copy kind implies.
void setSide(CUmemorytype &Type, const void *&Host, CUdeviceptr &Dev, const void *Ptr,
             bool IsDevice, cudaMemcpyKind Kind) {
  if (Kind == cudaMemcpyDefault) {
    Type = CU_MEMORYTYPE_UNIFIED;
    Dev = dptr(Ptr);
  } else if (IsDevice) {
    Type = CU_MEMORYTYPE_DEVICE;
    Dev = dptr(Ptr);
  } else {
    Type = CU_MEMORYTYPE_HOST;
    Host = Ptr;
  }
}

bool srcIsDevice(cudaMemcpyKind K) {
  return K == cudaMemcpyDeviceToHost || K == cudaMemcpyDeviceToDevice;
}
bool dstIsDevice(cudaMemcpyKind K) {
  return K == cudaMemcpyHostToDevice || K == cudaMemcpyDeviceToDevice;
}

cudaError_t copy2D(const DriverTable &D, void *Dst, size_t DPitch, const void *Src, size_t SPitch,
                   size_t Width, size_t Height, cudaMemcpyKind Kind, bool Async,
                   cudaStream_t Stream) {
  if (!validKind(Kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  if (Width > DPitch || Width > SPitch)
    return recordError(cudaErrorInvalidPitchValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width == 0 || Height == 0)
    return cudaSuccess;
  CUDA_MEMCPY2D P{};
  const void *DstHost = nullptr;
  setSide(P.srcMemoryType, P.srcHost, P.srcDevice, Src, srcIsDevice(Kind), Kind);
  setSide(P.dstMemoryType, DstHost, P.dstDevice, Dst, dstIsDevice(Kind), Kind);
  P.dstHost = const_cast<void *>(DstHost);
  P.srcPitch = SPitch;
  P.dstPitch = DPitch;
  P.WidthInBytes = Width;
  P.Height = Height;
  CUresult R = Async ? D.cuMemcpy2DAsync(&P, Stream) : D.cuMemcpy2DUnaligned(&P);
  return finish(R, C.Device);
}

/// Bytes per element of an array (3D copies address arrays in elements).
cudaError_t arrayElementSize(CUarray A, size_t &Size) {
  CUDA_ARRAY3D_DESCRIPTOR Desc{};
  if (CUresult R = driver().cuArray3DGetDescriptor(&Desc, A))
    return toCudaError(R);
  size_t Bytes;
  switch (Desc.Format) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT8:
    Bytes = 1;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_HALF:
    Bytes = 2;
    break;
  default:
    Bytes = 4;
    break;
  }
  Size = Bytes * Desc.NumChannels;
  return cudaSuccess;
}

cudaError_t copy3D(const DriverTable &D, const cudaMemcpy3DParms *P, bool Async,
                   cudaStream_t Stream) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  if (!validKind(P->kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  if ((P->srcArray && P->srcPtr.ptr) || (P->dstArray && P->dstPtr.ptr))
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_MEMCPY3D Q;
  if (cudaError_t E = toDriverCopy3D(P, Q))
    return recordError(E);
  if (!Q.WidthInBytes || !Q.Height || !Q.Depth)
    return cudaSuccess;
  CUresult R = Async ? D.cuMemcpy3DAsync(&Q, Stream) : D.cuMemcpy3D(&Q);
  return finish(R, C.Device);
}

} // namespace

cudaError_t toDriverCopy3D(const cudaMemcpy3DParms *P, CUDA_MEMCPY3D &Q) {
  Q = CUDA_MEMCPY3D{};
  size_t Elem = 1; // extent.width is in elements when an array is involved
  if (P->srcArray || P->dstArray) {
    CUarray A = reinterpret_cast<CUarray>(P->srcArray ? P->srcArray : P->dstArray);
    if (cudaError_t E = arrayElementSize(A, Elem))
      return E;
  }
  if (P->srcArray) {
    Q.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    Q.srcArray = reinterpret_cast<CUarray>(P->srcArray);
    Q.srcXInBytes = P->srcPos.x * Elem;
  } else {
    setSide(Q.srcMemoryType, Q.srcHost, Q.srcDevice, P->srcPtr.ptr, srcIsDevice(P->kind), P->kind);
    Q.srcPitch = P->srcPtr.pitch;
    Q.srcHeight = P->srcPtr.ysize;
    Q.srcXInBytes = P->srcPos.x;
  }
  Q.srcY = P->srcPos.y;
  Q.srcZ = P->srcPos.z;
  if (P->dstArray) {
    Q.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    Q.dstArray = reinterpret_cast<CUarray>(P->dstArray);
    Q.dstXInBytes = P->dstPos.x * Elem;
  } else {
    const void *DstHost = nullptr;
    setSide(Q.dstMemoryType, DstHost, Q.dstDevice, P->dstPtr.ptr, dstIsDevice(P->kind), P->kind);
    Q.dstHost = const_cast<void *>(DstHost);
    Q.dstPitch = P->dstPtr.pitch;
    Q.dstHeight = P->dstPtr.ysize;
    Q.dstXInBytes = P->dstPos.x;
  }
  Q.dstY = P->dstPos.y;
  Q.dstZ = P->dstPos.z;
  Q.WidthInBytes = P->extent.width * Elem;
  Q.Height = P->extent.height;
  Q.Depth = P->extent.depth;
  return cudaSuccess;
}

namespace {

cudaError_t symbolCopy(const DriverTable &D, const void *Symbol, void *Host, size_t Count,
                       size_t Offset, cudaMemcpyKind Kind, bool ToSymbol, bool Async,
                       cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  bool KindOk = Kind == cudaMemcpyDefault || Kind == cudaMemcpyDeviceToDevice ||
                Kind == (ToSymbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!KindOk)
    return recordError(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr Ptr = 0;
  size_t Size = 0;
  if (cudaError_t E = lookupSymbol(Symbol, Ptr, Size))
    return recordError(E);
  if (Offset > Size || Count > Size - Offset)
    return recordError(cudaErrorInvalidValue);
  void *Dev = reinterpret_cast<void *>(Ptr + Offset);
  return ToSymbol ? copy(D, Dev, Host, Count, Kind, Async, Stream)
                  : copy(D, Host, Dev, Count, Kind, Async, Stream);
}

cudaError_t memset2D(const DriverTable &D, void *Ptr, size_t Pitch, int Value, size_t Width,
                     size_t Height, bool Async, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width == 0 || Height == 0)
    return cudaSuccess;
  if (Width > Pitch && Height > 1)
    return recordError(cudaErrorInvalidPitchValue);
  auto V = static_cast<unsigned char>(Value);
  CUresult R = Async ? D.cuMemsetD2D8Async(dptr(Ptr), Pitch, V, Width, Height, Stream)
                     : D.cuMemsetD2D8(dptr(Ptr), Pitch, V, Width, Height);
  return finish(R, C.Device);
}

cudaError_t memset1D(const DriverTable &D, void *Ptr, int Value, size_t Count, bool Async,
                     cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Count == 0)
    return cudaSuccess;
  auto V = static_cast<unsigned char>(Value);
  CUresult R = Async ? D.cuMemsetD8Async(dptr(Ptr), V, Count, Stream)
                     : D.cuMemsetD8(dptr(Ptr), V, Count);
  return finish(R, C.Device);
}

cudaError_t memset3D(const DriverTable &D, cudaPitchedPtr P, int Value, cudaExtent Extent,
                     bool Async, cudaStream_t Stream) {
  if (Extent.width > P.pitch && Extent.height * Extent.depth > 1)
    return recordError(cudaErrorInvalidPitchValue);
  // One 2D memset per slice; slices are pitch * ysize apart.
  size_t SliceBytes = P.pitch * (P.ysize ? P.ysize : Extent.height);
  for (size_t Z = 0; Z < Extent.depth; ++Z) {
    void *Slice = static_cast<char *>(P.ptr) + Z * SliceBytes;
    if (cudaError_t E = memset2D(D, Slice, P.pitch, Value, Extent.width, Extent.height, Async,
                                 Stream))
      return E;
  }
  return cudaSuccess;
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

cudaError_t cudaMalloc(void **DevPtr, size_t Size) {
  if (!DevPtr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Size == 0) {
    *DevPtr = nullptr;
    return cudaSuccess;
  }
  CUdeviceptr P = 0;
  CUresult R = driver().cuMemAlloc(&P, Size);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaFree(void *DevPtr) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  // cudaFree(0) is the idiom for "initialize the runtime"; it succeeds.
  if (!DevPtr)
    return cudaSuccess;
  return finish(driver().cuMemFree(dptr(DevPtr)), C.Device);
}

cudaError_t cudaMallocHost(void **Ptr, size_t Size) {
  if (!Ptr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUresult R = driver().cuMemHostAlloc(Ptr, Size ? Size : 1,
                                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  return finish(R, C.Device);
}

cudaError_t cudaHostAlloc(void **Ptr, size_t Size, unsigned int Flags) {
  if (!Ptr || (Flags & ~0x7u))
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuMemHostAlloc(Ptr, Size ? Size : 1, Flags), C.Device);
}

cudaError_t cudaFreeHost(void *Ptr) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (!Ptr)
    return cudaSuccess;
  // Freeing something that is not pinned host memory (a device pointer,
  // say) is cudaErrorInvalidValue on the H100, the driver's own answer.
  return finish(driver().cuMemFreeHost(Ptr), C.Device);
}

cudaError_t cudaHostRegister(void *Ptr, size_t Size, unsigned int Flags) {
  if (!Ptr || !Size || (Flags & ~0xfu))
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuMemHostRegister(Ptr, Size, Flags), C.Device);
}

cudaError_t cudaHostUnregister(void *Ptr) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuMemHostUnregister(Ptr), C.Device);
}

cudaError_t cudaHostGetDevicePointer(void **DevPtr, void *Host, unsigned int Flags) {
  if (!DevPtr || Flags)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  CUresult R = driver().cuMemHostGetDevicePointer(&P, Host, 0);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaHostGetFlags(unsigned int *Flags, void *Host) {
  if (!Flags)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuMemHostGetFlags(Flags, Host), C.Device);
}

cudaError_t cudaMallocManaged(void **DevPtr, size_t Size, unsigned int Flags) {
  if (!DevPtr || (Flags != cudaMemAttachGlobal && Flags != cudaMemAttachHost))
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Size == 0) {
    *DevPtr = nullptr;
    return cudaSuccess;
  }
  CUdeviceptr P = 0;
  CUresult R = driver().cuMemAllocManaged(&P, Size, Flags);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaMallocPitch(void **DevPtr, size_t *Pitch, size_t Width, size_t Height) {
  if (!DevPtr || !Pitch)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width == 0 || Height == 0) {
    *DevPtr = nullptr;
    *Pitch = 0;
    return cudaSuccess;
  }
  CUdeviceptr P = 0;
  CUresult R = driver().cuMemAllocPitch(&P, Pitch, Width, Height, 4);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *Ptr, struct cudaExtent Extent) {
  if (!Ptr)
    return recordError(cudaErrorInvalidValue);
  void *P = nullptr;
  size_t Pitch = 0;
  if (cudaError_t E = cudaMallocPitch(&P, &Pitch, Extent.width, Extent.height * Extent.depth))
    return E;
  *Ptr = {P, Pitch, Extent.width, Extent.height};
  return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **DevPtr, size_t Size, cudaStream_t Stream) {
  if (!DevPtr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  CUresult R = driver(false).cuMemAllocAsync(&P, Size, Stream);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaMallocAsync_ptsz(void **DevPtr, size_t Size, cudaStream_t Stream) {
  if (!DevPtr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  CUresult R = driver(true).cuMemAllocAsync(&P, Size, Stream);
  if (R == CUDA_SUCCESS)
    *DevPtr = reinterpret_cast<void *>(P);
  return finish(R, C.Device);
}

cudaError_t cudaFreeAsync(void *DevPtr, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver(false).cuMemFreeAsync(dptr(DevPtr), Stream), C.Device);
}

cudaError_t cudaFreeAsync_ptsz(void *DevPtr, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver(true).cuMemFreeAsync(dptr(DevPtr), Stream), C.Device);
}

cudaError_t cudaMemGetInfo(size_t *Free, size_t *Total) {
  if (!Free || !Total)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuMemGetInfo(Free, Total), C.Device);
}

// Copies.
cudaError_t cudaMemcpy(void *Dst, const void *Src, size_t Count, enum cudaMemcpyKind Kind) {
  return copy(driver(false), Dst, Src, Count, Kind, false, nullptr);
}
cudaError_t cudaMemcpy_ptds(void *Dst, const void *Src, size_t Count, enum cudaMemcpyKind Kind) {
  return copy(driver(true), Dst, Src, Count, Kind, false, nullptr);
}
cudaError_t cudaMemcpyAsync(void *Dst, const void *Src, size_t Count, enum cudaMemcpyKind Kind,
                            cudaStream_t Stream) {
  return copy(driver(false), Dst, Src, Count, Kind, true, Stream);
}
cudaError_t cudaMemcpyAsync_ptsz(void *Dst, const void *Src, size_t Count,
                                 enum cudaMemcpyKind Kind, cudaStream_t Stream) {
  return copy(driver(true), Dst, Src, Count, Kind, true, Stream);
}

cudaError_t cudaMemcpy2D(void *Dst, size_t DPitch, const void *Src, size_t SPitch, size_t Width,
                         size_t Height, enum cudaMemcpyKind Kind) {
  return copy2D(driver(false), Dst, DPitch, Src, SPitch, Width, Height, Kind, false, nullptr);
}
cudaError_t cudaMemcpy2D_ptds(void *Dst, size_t DPitch, const void *Src, size_t SPitch,
                              size_t Width, size_t Height, enum cudaMemcpyKind Kind) {
  return copy2D(driver(true), Dst, DPitch, Src, SPitch, Width, Height, Kind, false, nullptr);
}
cudaError_t cudaMemcpy2DAsync(void *Dst, size_t DPitch, const void *Src, size_t SPitch,
                              size_t Width, size_t Height, enum cudaMemcpyKind Kind,
                              cudaStream_t Stream) {
  return copy2D(driver(false), Dst, DPitch, Src, SPitch, Width, Height, Kind, true, Stream);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void *Dst, size_t DPitch, const void *Src, size_t SPitch,
                                   size_t Width, size_t Height, enum cudaMemcpyKind Kind,
                                   cudaStream_t Stream) {
  return copy2D(driver(true), Dst, DPitch, Src, SPitch, Width, Height, Kind, true, Stream);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *P) {
  return copy3D(driver(false), P, false, nullptr);
}
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *P) {
  return copy3D(driver(true), P, false, nullptr);
}
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *P, cudaStream_t Stream) {
  return copy3D(driver(false), P, true, Stream);
}
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *P, cudaStream_t Stream) {
  return copy3D(driver(true), P, true, Stream);
}

cudaError_t cudaMemcpyToSymbol(const void *Symbol, const void *Src, size_t Count, size_t Offset,
                               enum cudaMemcpyKind Kind) {
  return symbolCopy(driver(false), Symbol, const_cast<void *>(Src), Count, Offset, Kind, true,
                    false, nullptr);
}
cudaError_t cudaMemcpyToSymbol_ptds(const void *Symbol, const void *Src, size_t Count,
                                    size_t Offset, enum cudaMemcpyKind Kind) {
  return symbolCopy(driver(true), Symbol, const_cast<void *>(Src), Count, Offset, Kind, true,
                    false, nullptr);
}
cudaError_t cudaMemcpyFromSymbol(void *Dst, const void *Symbol, size_t Count, size_t Offset,
                                 enum cudaMemcpyKind Kind) {
  return symbolCopy(driver(false), Symbol, Dst, Count, Offset, Kind, false, false, nullptr);
}
cudaError_t cudaMemcpyFromSymbol_ptds(void *Dst, const void *Symbol, size_t Count, size_t Offset,
                                      enum cudaMemcpyKind Kind) {
  return symbolCopy(driver(true), Symbol, Dst, Count, Offset, Kind, false, false, nullptr);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *Symbol, const void *Src, size_t Count,
                                    size_t Offset, enum cudaMemcpyKind Kind,
                                    cudaStream_t Stream) {
  return symbolCopy(driver(false), Symbol, const_cast<void *>(Src), Count, Offset, Kind, true,
                    true, Stream);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *Symbol, const void *Src, size_t Count,
                                         size_t Offset, enum cudaMemcpyKind Kind,
                                         cudaStream_t Stream) {
  return symbolCopy(driver(true), Symbol, const_cast<void *>(Src), Count, Offset, Kind, true,
                    true, Stream);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *Dst, const void *Symbol, size_t Count, size_t Offset,
                                      enum cudaMemcpyKind Kind, cudaStream_t Stream) {
  return symbolCopy(driver(false), Symbol, Dst, Count, Offset, Kind, false, true, Stream);
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *Dst, const void *Symbol, size_t Count,
                                           size_t Offset, enum cudaMemcpyKind Kind,
                                           cudaStream_t Stream) {
  return symbolCopy(driver(true), Symbol, Dst, Count, Offset, Kind, false, true, Stream);
}

cudaError_t cudaGetSymbolAddress(void **DevPtr, const void *Symbol) {
  if (!DevPtr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  size_t Size = 0;
  if (cudaError_t E = lookupSymbol(Symbol, P, Size))
    return recordError(E);
  *DevPtr = reinterpret_cast<void *>(P);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *Size, const void *Symbol) {
  if (!Size)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUdeviceptr P = 0;
  if (cudaError_t E = lookupSymbol(Symbol, P, *Size))
    return recordError(E);
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeer(void *Dst, int DstDevice, const void *Src, int SrcDevice,
                           size_t Count) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUcontext DstCtx, SrcCtx;
  if (cudaError_t E = primaryContext(DstDevice, DstCtx))
    return recordError(E);
  if (cudaError_t E = primaryContext(SrcDevice, SrcCtx))
    return recordError(E);
  if (Count == 0)
    return cudaSuccess;
  return finish(driver().cuMemcpyPeer(dptr(Dst), DstCtx, dptr(Src), SrcCtx, Count), C.Device);
}

cudaError_t cudaMemcpyPeerAsync(void *Dst, int DstDevice, const void *Src, int SrcDevice,
                                size_t Count, cudaStream_t Stream) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUcontext DstCtx, SrcCtx;
  if (cudaError_t E = primaryContext(DstDevice, DstCtx))
    return recordError(E);
  if (cudaError_t E = primaryContext(SrcDevice, SrcCtx))
    return recordError(E);
  if (Count == 0)
    return cudaSuccess;
  return finish(
      driver().cuMemcpyPeerAsync(dptr(Dst), DstCtx, dptr(Src), SrcCtx, Count, Stream), C.Device);
}

// Memsets.
cudaError_t cudaMemset(void *Ptr, int Value, size_t Count) {
  return memset1D(driver(false), Ptr, Value, Count, false, nullptr);
}
cudaError_t cudaMemset_ptds(void *Ptr, int Value, size_t Count) {
  return memset1D(driver(true), Ptr, Value, Count, false, nullptr);
}
cudaError_t cudaMemsetAsync(void *Ptr, int Value, size_t Count, cudaStream_t Stream) {
  return memset1D(driver(false), Ptr, Value, Count, true, Stream);
}
cudaError_t cudaMemsetAsync_ptsz(void *Ptr, int Value, size_t Count, cudaStream_t Stream) {
  return memset1D(driver(true), Ptr, Value, Count, true, Stream);
}
cudaError_t cudaMemset2D(void *Ptr, size_t Pitch, int Value, size_t Width, size_t Height) {
  return memset2D(driver(false), Ptr, Pitch, Value, Width, Height, false, nullptr);
}
cudaError_t cudaMemset2D_ptds(void *Ptr, size_t Pitch, int Value, size_t Width, size_t Height) {
  return memset2D(driver(true), Ptr, Pitch, Value, Width, Height, false, nullptr);
}
cudaError_t cudaMemset2DAsync(void *Ptr, size_t Pitch, int Value, size_t Width, size_t Height,
                              cudaStream_t Stream) {
  return memset2D(driver(false), Ptr, Pitch, Value, Width, Height, true, Stream);
}
cudaError_t cudaMemset2DAsync_ptsz(void *Ptr, size_t Pitch, int Value, size_t Width,
                                   size_t Height, cudaStream_t Stream) {
  return memset2D(driver(true), Ptr, Pitch, Value, Width, Height, true, Stream);
}
cudaError_t cudaMemset3D(struct cudaPitchedPtr P, int Value, struct cudaExtent Extent) {
  return memset3D(driver(false), P, Value, Extent, false, nullptr);
}
cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr P, int Value, struct cudaExtent Extent) {
  return memset3D(driver(true), P, Value, Extent, false, nullptr);
}
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr P, int Value, struct cudaExtent Extent,
                              cudaStream_t Stream) {
  return memset3D(driver(false), P, Value, Extent, true, Stream);
}
cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr P, int Value, struct cudaExtent Extent,
                                   cudaStream_t Stream) {
  return memset3D(driver(true), P, Value, Extent, true, Stream);
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *Attr, const void *Ptr) {
  if (!Attr)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  unsigned MemType = 0;
  int Ordinal = -2;
  CUdeviceptr DevPtr = 0;
  void *HostPtr = nullptr;
  unsigned IsManaged = 0;
  CUpointer_attribute Attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                 CU_POINTER_ATTRIBUTE_HOST_POINTER,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *Data[] = {&MemType, &Ordinal, &DevPtr, &HostPtr, &IsManaged};
  // Unlike cuPointerGetAttribute, this answers unknown pointers with
  // defaults (memory type 0) instead of failing.
  CUresult R = driver().cuPointerGetAttributes(5, Attrs, Data, dptr(Ptr));
  if (R != CUDA_SUCCESS)
    return finish(R, C.Device);
  *Attr = {};
  switch (MemType) {
  case CU_MEMORYTYPE_HOST:
    Attr->type = IsManaged ? cudaMemoryTypeManaged : cudaMemoryTypeHost;
    break;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    Attr->type = IsManaged ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    break;
  default:
    // Plain host memory: NVIDIA's runtime reports it as its own host
    // pointer (observed).
    Attr->type = cudaMemoryTypeUnregistered;
    Attr->device = cudaInvalidDeviceId;
    Attr->hostPointer = const_cast<void *>(Ptr);
    return cudaSuccess;
  }
  Attr->device = Ordinal;
  Attr->devicePointer = reinterpret_cast<void *>(DevPtr);
  Attr->hostPointer = HostPtr;
  return cudaSuccess;
}

} // extern "C"
