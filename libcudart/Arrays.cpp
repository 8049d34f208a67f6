/// \file
/// The rest of the CUDA array and texture-object runtime API over the
/// driver: array queries (cudaArrayGetInfo, cudaGetChannelDesc), the async
/// and per-thread forms of the 2D array copies, array-to-array copies, the
/// deprecated 1D-style cudaMemcpyToArray/FromArray, and the object
/// descriptor getters. Creation and the synchronous 2D copies are in
/// Objects.cpp.
#include "Runtime.h"

#include <algorithm>
#include <cstring>

namespace ferry::cudart {
namespace {

/// The runtime's view of a driver format (the inverse of Objects.cpp's
/// toArrayFormat).
cudaChannelFormatDesc toChannelDesc(CUarray_format F, unsigned Channels) {
  cudaChannelFormatDesc D{};
  int Bits = 0;
  switch (F) {
  case CU_AD_FORMAT_UNSIGNED_INT8: Bits = 8; D.f = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_UNSIGNED_INT16: Bits = 16; D.f = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_UNSIGNED_INT32: Bits = 32; D.f = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_SIGNED_INT8: Bits = 8; D.f = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_SIGNED_INT16: Bits = 16; D.f = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_SIGNED_INT32: Bits = 32; D.f = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_HALF: Bits = 16; D.f = cudaChannelFormatKindFloat; break;
  case CU_AD_FORMAT_FLOAT: Bits = 32; D.f = cudaChannelFormatKindFloat; break;
  default: D.f = cudaChannelFormatKindNone; return D;
  }
  int *Slot[4] = {&D.x, &D.y, &D.z, &D.w};
  for (unsigned C = 0; C < Channels && C < 4; ++C)
    *Slot[C] = Bits;
  return D;
}

CUarray drv(cudaArray_const_t A) { return reinterpret_cast<CUarray>(const_cast<cudaArray *>(A)); }

/// The pointer side of a copy with an array: host or device by the kind.
void pointerSide(CUmemorytype &Type, const void *&Host, CUdeviceptr &Dev, const void *Ptr,
                 bool PtrIsDevice, cudaMemcpyKind Kind) {
  Type = Kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED
         : PtrIsDevice            ? CU_MEMORYTYPE_DEVICE
                                  : CU_MEMORYTYPE_HOST;
  if (Type == CU_MEMORYTYPE_HOST)
    Host = Ptr;
  else
    Dev = reinterpret_cast<CUdeviceptr>(Ptr);
}

bool validKind(cudaMemcpyKind K) { return K >= cudaMemcpyHostToHost && K <= cudaMemcpyDefault; }

/// One rectangle between an array and a pitched pointer (ToArray: pointer
/// → array). Offsets and Width are in bytes, as the 2D runtime calls take.
CUresult arrayRect(const DriverTable &D, CUarray A, size_t WOff, size_t HOff, const void *Ptr,
                   size_t Pitch, size_t Width, size_t Height, cudaMemcpyKind Kind, bool ToArray,
                   bool Async, cudaStream_t Stream) {
  CUDA_MEMCPY3D Q{};
  const void *Host = nullptr;
  if (ToArray) {
    pointerSide(Q.srcMemoryType, Q.srcHost, Q.srcDevice, Ptr,
                Kind == cudaMemcpyDeviceToDevice || Kind == cudaMemcpyDeviceToHost, Kind);
    Q.srcPitch = Pitch;
    Q.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    Q.dstArray = A;
    Q.dstXInBytes = WOff;
    Q.dstY = HOff;
  } else {
    pointerSide(Q.dstMemoryType, Host, Q.dstDevice, Ptr,
                Kind == cudaMemcpyDeviceToDevice || Kind == cudaMemcpyHostToDevice, Kind);
    Q.dstHost = const_cast<void *>(Host);
    Q.dstPitch = Pitch;
    Q.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    Q.srcArray = A;
    Q.srcXInBytes = WOff;
    Q.srcY = HOff;
  }
  Q.WidthInBytes = Width;
  Q.Height = Height;
  Q.Depth = 1;
  return Async ? D.cuMemcpy3DAsync(&Q, Stream) : D.cuMemcpy3D(&Q);
}

cudaError_t copy2DArray(const DriverTable &D, cudaArray_const_t A, size_t WOff, size_t HOff,
                        const void *Ptr, size_t Pitch, size_t Width, size_t Height,
                        cudaMemcpyKind Kind, bool ToArray, bool Async, cudaStream_t Stream) {
  if (!validKind(Kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width > Pitch)
    return recordError(cudaErrorInvalidPitchValue);
  if (Width == 0 || Height == 0)
    return cudaSuccess;
  return finish(arrayRect(D, drv(A), WOff, HOff, Ptr, Pitch, Width, Height, Kind, ToArray, Async,
                          Stream),
                C.Device);
}

/// cudaMemcpyToArray/FromArray: Count bytes in row-major order from
/// (WOff bytes, HOff rows), wrapping to the next row at the array's row
/// end: up to three rectangles (head, whole rows, tail).
cudaError_t copyLinearArray(const DriverTable &D, cudaArray_const_t A, size_t WOff, size_t HOff,
                            const void *Ptr, size_t Count, cudaMemcpyKind Kind, bool ToArray,
                            bool Async, cudaStream_t Stream) {
  if (!validKind(Kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Count == 0)
    return cudaSuccess;
  CUDA_ARRAY3D_DESCRIPTOR Desc{};
  if (CUresult R = D.cuArray3DGetDescriptor(&Desc, drv(A)))
    return finish(R, C.Device);
  size_t Elem = Desc.Format == CU_AD_FORMAT_UNSIGNED_INT8 || Desc.Format == CU_AD_FORMAT_SIGNED_INT8 ? 1
                : Desc.Format == CU_AD_FORMAT_UNSIGNED_INT16 || Desc.Format == CU_AD_FORMAT_SIGNED_INT16 ||
                        Desc.Format == CU_AD_FORMAT_HALF
                    ? 2
                    : 4;
  size_t Row = Desc.Width * Elem * Desc.NumChannels;
  if (WOff >= Row)
    return recordError(cudaErrorInvalidValue);
  auto *P = static_cast<const char *>(Ptr);
  size_t Y = HOff;
  // Head: the rest of the first row.
  size_t Head = std::min(Count, Row - WOff);
  if (CUresult R = arrayRect(D, drv(A), WOff, Y, P, Head, Head, 1, Kind, ToArray, Async, Stream))
    return finish(R, C.Device);
  P += Head;
  Count -= Head;
  ++Y;
  if (size_t Rows = Count / Row) {
    if (CUresult R = arrayRect(D, drv(A), 0, Y, P, Row, Row, Rows, Kind, ToArray, Async, Stream))
      return finish(R, C.Device);
    P += Rows * Row;
    Count -= Rows * Row;
    Y += Rows;
  }
  if (Count)
    if (CUresult R = arrayRect(D, drv(A), 0, Y, P, Count, Count, 1, Kind, ToArray, Async, Stream))
      return finish(R, C.Device);
  return cudaSuccess;
}

cudaError_t copyArrayToArray(const DriverTable &D, cudaArray_t Dst, size_t WDst, size_t HDst,
                             cudaArray_const_t Src, size_t WSrc, size_t HSrc, size_t Width,
                             size_t Height, cudaMemcpyKind Kind) {
  if (!validKind(Kind))
    return recordError(cudaErrorInvalidMemcpyDirection);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width == 0 || Height == 0)
    return cudaSuccess;
  CUDA_MEMCPY3D Q{};
  Q.srcMemoryType = Q.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  Q.srcArray = drv(Src);
  Q.dstArray = drv(Dst);
  Q.srcXInBytes = WSrc;
  Q.srcY = HSrc;
  Q.dstXInBytes = WDst;
  Q.dstY = HDst;
  Q.WidthInBytes = Width;
  Q.Height = Height;
  Q.Depth = 1;
  return finish(D.cuMemcpy3D(&Q), C.Device);
}

/// The runtime resource descriptor for a driver one.
void fromResourceDesc(const CUDA_RESOURCE_DESC &In, cudaResourceDesc &Out) {
  std::memset(&Out, 0, sizeof(Out));
  Out.resType = static_cast<cudaResourceType>(In.resType);
  switch (In.resType) {
  case CU_RESOURCE_TYPE_ARRAY:
    Out.res.array.array = reinterpret_cast<cudaArray_t>(In.res.array.hArray);
    break;
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    Out.res.mipmap.mipmap = reinterpret_cast<cudaMipmappedArray_t>(In.res.mipmap.hMipmappedArray);
    break;
  case CU_RESOURCE_TYPE_LINEAR:
    Out.res.linear.devPtr = reinterpret_cast<void *>(In.res.linear.devPtr);
    Out.res.linear.desc = toChannelDesc(In.res.linear.format, In.res.linear.numChannels);
    Out.res.linear.sizeInBytes = In.res.linear.sizeInBytes;
    break;
  case CU_RESOURCE_TYPE_PITCH2D:
    Out.res.pitch2D.devPtr = reinterpret_cast<void *>(In.res.pitch2D.devPtr);
    Out.res.pitch2D.desc = toChannelDesc(In.res.pitch2D.format, In.res.pitch2D.numChannels);
    Out.res.pitch2D.width = In.res.pitch2D.width;
    Out.res.pitch2D.height = In.res.pitch2D.height;
    Out.res.pitch2D.pitchInBytes = In.res.pitch2D.pitchInBytes;
    break;
  }
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *Desc, struct cudaExtent *Extent,
                             unsigned int *Flags, cudaArray_t Array) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_ARRAY3D_DESCRIPTOR D{};
  if (CUresult R = driver().cuArray3DGetDescriptor(&D, reinterpret_cast<CUarray>(Array)))
    return finish(R, C.Device);
  if (Desc)
    *Desc = toChannelDesc(D.Format, D.NumChannels);
  if (Extent)
    *Extent = {D.Width, D.Height, D.Depth};
  if (Flags)
    *Flags = D.Flags;
  return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *Desc, cudaArray_const_t Array) {
  if (!Desc)
    return recordError(cudaErrorInvalidValue);
  return cudaArrayGetInfo(Desc, nullptr, nullptr, const_cast<cudaArray_t>(Array));
}

// clang-format off
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k) { return copy2DArray(driver(true), d, wo, ho, s, sp, w, h, k, true, false, nullptr); }
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy2DArray(driver(), d, wo, ho, s, sp, w, h, k, true, true, st); }
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy2DArray(driver(true), d, wo, ho, s, sp, w, h, k, true, true, st); }
cudaError_t cudaMemcpy2DFromArray_ptds(void *d, size_t dp, cudaArray_const_t s, size_t wo, size_t ho, size_t w, size_t h, enum cudaMemcpyKind k) { return copy2DArray(driver(true), s, wo, ho, d, dp, w, h, k, false, false, nullptr); }
cudaError_t cudaMemcpy2DFromArrayAsync(void *d, size_t dp, cudaArray_const_t s, size_t wo, size_t ho, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy2DArray(driver(), s, wo, ho, d, dp, w, h, k, false, true, st); }
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *d, size_t dp, cudaArray_const_t s, size_t wo, size_t ho, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy2DArray(driver(true), s, wo, ho, d, dp, w, h, k, false, true, st); }
cudaError_t cudaMemcpyToArray(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t n, enum cudaMemcpyKind k) { return copyLinearArray(driver(), d, wo, ho, s, n, k, true, false, nullptr); }
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t n, enum cudaMemcpyKind k) { return copyLinearArray(driver(true), d, wo, ho, s, n, k, true, false, nullptr); }
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copyLinearArray(driver(), d, wo, ho, s, n, k, true, true, st); }
cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t d, size_t wo, size_t ho, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copyLinearArray(driver(true), d, wo, ho, s, n, k, true, true, st); }
cudaError_t cudaMemcpyFromArray(void *d, cudaArray_const_t s, size_t wo, size_t ho, size_t n, enum cudaMemcpyKind k) { return copyLinearArray(driver(), s, wo, ho, d, n, k, false, false, nullptr); }
cudaError_t cudaMemcpyFromArray_ptds(void *d, cudaArray_const_t s, size_t wo, size_t ho, size_t n, enum cudaMemcpyKind k) { return copyLinearArray(driver(true), s, wo, ho, d, n, k, false, false, nullptr); }
cudaError_t cudaMemcpyFromArrayAsync(void *d, cudaArray_const_t s, size_t wo, size_t ho, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copyLinearArray(driver(), s, wo, ho, d, n, k, false, true, st); }
cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *d, cudaArray_const_t s, size_t wo, size_t ho, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copyLinearArray(driver(true), s, wo, ho, d, n, k, false, true, st); }
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s, size_t ws, size_t hs, size_t w, size_t h, enum cudaMemcpyKind k) { return copyArrayToArray(driver(), d, wd, hd, s, ws, hs, w, h, k); }
cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t d, size_t wd, size_t hd, cudaArray_const_t s, size_t ws, size_t hs, size_t w, size_t h, enum cudaMemcpyKind k) { return copyArrayToArray(driver(true), d, wd, hd, s, ws, hs, w, h, k); }
// clang-format on

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *Res, cudaTextureObject_t Tex) {
  if (!Res)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_RESOURCE_DESC R{};
  if (CUresult E = driver().cuTexObjectGetResourceDesc(&R, Tex))
    return finish(E, C.Device);
  fromResourceDesc(R, *Res);
  return cudaSuccess;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *Res, cudaSurfaceObject_t Surf) {
  if (!Res)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_RESOURCE_DESC R{};
  if (CUresult E = driver().cuSurfObjectGetResourceDesc(&R, Surf))
    return finish(E, C.Device);
  fromResourceDesc(R, *Res);
  return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *Out, cudaTextureObject_t Tex) {
  if (!Out)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_TEXTURE_DESC T{};
  if (CUresult E = driver().cuTexObjectGetTextureDesc(&T, Tex))
    return finish(E, C.Device);
  std::memset(Out, 0, sizeof(*Out));
  for (int I = 0; I < 3; ++I)
    Out->addressMode[I] = static_cast<cudaTextureAddressMode>(T.addressMode[I]);
  Out->filterMode = static_cast<cudaTextureFilterMode>(T.filterMode);
  Out->readMode = (T.flags & CU_TRSF_READ_AS_INTEGER) ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  Out->sRGB = (T.flags & CU_TRSF_SRGB) != 0;
  std::memcpy(Out->borderColor, T.borderColor, sizeof(Out->borderColor));
  Out->normalizedCoords = (T.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  Out->maxAnisotropy = T.maxAnisotropy;
  Out->mipmapFilterMode = static_cast<cudaTextureFilterMode>(T.mipmapFilterMode);
  Out->mipmapLevelBias = T.mipmapLevelBias;
  Out->minMipmapLevelClamp = T.minMipmapLevelClamp;
  Out->maxMipmapLevelClamp = T.maxMipmapLevelClamp;
  Out->disableTrilinearOptimization = (T.flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
  Out->seamlessCubemap = (T.flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
  return cudaSuccess;
}

} // extern "C"
