/// \file
/// Driver entry points (cudaGetDriverEntryPoint*), channel descriptors,
/// CUDA arrays, and texture/surface objects: each translates the runtime's
/// descriptor structs into the driver's (cudaArray_t is the driver's
/// CUarray; formats become CUarray_format plus a channel count).
#include "Runtime.h"

#include <cstring>

namespace ferry::cudart {
namespace {

/// A runtime channel descriptor as the driver's format and channel count.
cudaError_t toArrayFormat(const cudaChannelFormatDesc &D, CUarray_format &Format,
                          unsigned &Channels) {
  int Bits[4] = {D.x, D.y, D.z, D.w};
  Channels = 0;
  for (int B : Bits) {
    if (B == 0)
      break;
    if (B != D.x)
      return cudaErrorInvalidChannelDescriptor;
    ++Channels;
  }
  if (Channels == 0 || Channels == 3)
    return cudaErrorInvalidChannelDescriptor;
  switch (D.f) {
  case cudaChannelFormatKindSigned:
    Format = D.x == 8    ? CU_AD_FORMAT_SIGNED_INT8
             : D.x == 16 ? CU_AD_FORMAT_SIGNED_INT16
             : D.x == 32 ? CU_AD_FORMAT_SIGNED_INT32
                         : CUarray_format(0);
    break;
  case cudaChannelFormatKindUnsigned:
    Format = D.x == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
             : D.x == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
             : D.x == 32 ? CU_AD_FORMAT_UNSIGNED_INT32
                         : CUarray_format(0);
    break;
  case cudaChannelFormatKindFloat:
    Format = D.x == 16 ? CU_AD_FORMAT_HALF : D.x == 32 ? CU_AD_FORMAT_FLOAT : CUarray_format(0);
    break;
  default:
    Format = CUarray_format(0);
  }
  return Format ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
}

cudaError_t toResourceDesc(const cudaResourceDesc &In, CUDA_RESOURCE_DESC &Out) {
  std::memset(&Out, 0, sizeof(Out));
  Out.resType = static_cast<CUresourcetype>(In.resType);
  switch (In.resType) {
  case cudaResourceTypeArray:
    Out.res.array.hArray = reinterpret_cast<CUarray>(In.res.array.array);
    return In.res.array.array ? cudaSuccess : cudaErrorInvalidResourceHandle;
  case cudaResourceTypeMipmappedArray:
    Out.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(In.res.mipmap.mipmap);
    return In.res.mipmap.mipmap ? cudaSuccess : cudaErrorInvalidResourceHandle;
  case cudaResourceTypeLinear:
    Out.res.linear.devPtr = reinterpret_cast<CUdeviceptr>(In.res.linear.devPtr);
    Out.res.linear.sizeInBytes = In.res.linear.sizeInBytes;
    return toArrayFormat(In.res.linear.desc, Out.res.linear.format, Out.res.linear.numChannels);
  case cudaResourceTypePitch2D:
    Out.res.pitch2D.devPtr = reinterpret_cast<CUdeviceptr>(In.res.pitch2D.devPtr);
    Out.res.pitch2D.width = In.res.pitch2D.width;
    Out.res.pitch2D.height = In.res.pitch2D.height;
    Out.res.pitch2D.pitchInBytes = In.res.pitch2D.pitchInBytes;
    return toArrayFormat(In.res.pitch2D.desc, Out.res.pitch2D.format,
                         Out.res.pitch2D.numChannels);
  }
  return cudaErrorInvalidValue;
}

void toTextureDesc(const cudaTextureDesc &In, CUDA_TEXTURE_DESC &Out) {
  std::memset(&Out, 0, sizeof(Out));
  for (int I = 0; I < 3; ++I)
    Out.addressMode[I] = static_cast<CUaddress_mode>(In.addressMode[I]);
  Out.filterMode = static_cast<CUfilter_mode>(In.filterMode);
  if (In.readMode == cudaReadModeElementType)
    Out.flags |= CU_TRSF_READ_AS_INTEGER;
  if (In.normalizedCoords)
    Out.flags |= CU_TRSF_NORMALIZED_COORDINATES;
  if (In.sRGB)
    Out.flags |= CU_TRSF_SRGB;
  if (In.disableTrilinearOptimization)
    Out.flags |= CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION;
  if (In.seamlessCubemap)
    Out.flags |= CU_TRSF_SEAMLESS_CUBEMAP;
  Out.maxAnisotropy = In.maxAnisotropy;
  Out.mipmapFilterMode = static_cast<CUfilter_mode>(In.mipmapFilterMode);
  Out.mipmapLevelBias = In.mipmapLevelBias;
  Out.minMipmapLevelClamp = In.minMipmapLevelClamp;
  Out.maxMipmapLevelClamp = In.maxMipmapLevelClamp;
  std::memcpy(Out.borderColor, In.borderColor, sizeof(Out.borderColor));
}

cudaError_t entryPoint(const char *Symbol, void **FuncPtr, int Version, unsigned long long Flags,
                       cudaDriverEntryPointQueryResult *Status) {
  if (!Symbol || !FuncPtr)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  CUdriverProcAddressQueryResult Found{};
  CUresult R = driverProcAddress()(Symbol, FuncPtr, Version, Flags, &Found);
  if (Status)
    *Status = static_cast<cudaDriverEntryPointQueryResult>(Found);
  // A symbol that is absent is reported through the status, as NVIDIA's
  // runtime does, not as an error.
  if (R == CUDA_ERROR_NOT_FOUND && Status)
    return cudaSuccess;
  return finish(R);
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char *Symbol, void **FuncPtr, unsigned long long Flags,
                                    enum cudaDriverEntryPointQueryResult *Status) {
  return entryPoint(Symbol, FuncPtr, RuntimeVersion, Flags, Status);
}
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *Symbol, void **FuncPtr,
                                         unsigned long long Flags,
                                         enum cudaDriverEntryPointQueryResult *Status) {
  return entryPoint(Symbol, FuncPtr, RuntimeVersion, Flags, Status);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char *Symbol, void **FuncPtr,
                                             unsigned int Version, unsigned long long Flags,
                                             enum cudaDriverEntryPointQueryResult *Status) {
  return entryPoint(Symbol, FuncPtr, static_cast<int>(Version), Flags, Status);
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *Symbol, void **FuncPtr,
                                                  unsigned int Version, unsigned long long Flags,
                                                  enum cudaDriverEntryPointQueryResult *Status) {
  return entryPoint(Symbol, FuncPtr, static_cast<int>(Version), Flags, Status);
}

struct cudaChannelFormatDesc cudaCreateChannelDesc(int X, int Y, int Z, int W,
                                                   enum cudaChannelFormatKind F) {
  return {X, Y, Z, W, F};
}

cudaError_t cudaMalloc3DArray(cudaArray_t *Array, const struct cudaChannelFormatDesc *Desc,
                              struct cudaExtent Extent, unsigned int Flags) {
  if (!Array || !Desc)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_ARRAY3D_DESCRIPTOR D{};
  if (cudaError_t E = toArrayFormat(*Desc, D.Format, D.NumChannels))
    return recordError(E);
  D.Width = Extent.width;
  D.Height = Extent.height;
  D.Depth = Extent.depth;
  D.Flags = Flags; // cudaArray* flags share the driver's CUDA_ARRAY3D_* values
  CUarray A = nullptr;
  CUresult R = driver().cuArray3DCreate(&A, &D);
  if (R == CUDA_SUCCESS)
    *Array = reinterpret_cast<cudaArray_t>(A);
  return finish(R, C.Device);
}

cudaError_t cudaMallocArray(cudaArray_t *Array, const struct cudaChannelFormatDesc *Desc,
                            size_t Width, size_t Height, unsigned int Flags) {
  return cudaMalloc3DArray(Array, Desc, {Width, Height, 0}, Flags);
}

cudaError_t cudaFreeArray(cudaArray_t Array) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (!Array)
    return cudaSuccess;
  return finish(driver().cuArrayDestroy(reinterpret_cast<CUarray>(Array)), C.Device);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src,
                                size_t SPitch, size_t Width, size_t Height,
                                enum cudaMemcpyKind Kind) {
  // WOffset and Width are in bytes here, unlike cudaMemcpy3D's extent.
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width > SPitch)
    return recordError(cudaErrorInvalidPitchValue);
  CUDA_MEMCPY3D Q{};
  Q.srcMemoryType = Kind == cudaMemcpyDefault        ? CU_MEMORYTYPE_UNIFIED
                    : Kind == cudaMemcpyHostToDevice ? CU_MEMORYTYPE_HOST
                                                     : CU_MEMORYTYPE_DEVICE;
  if (Q.srcMemoryType == CU_MEMORYTYPE_HOST)
    Q.srcHost = Src;
  else
    Q.srcDevice = reinterpret_cast<CUdeviceptr>(Src);
  Q.srcPitch = SPitch;
  Q.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  Q.dstArray = reinterpret_cast<CUarray>(Dst);
  Q.dstXInBytes = WOffset;
  Q.dstY = HOffset;
  Q.WidthInBytes = Width;
  Q.Height = Height;
  Q.Depth = 1;
  return finish(driver().cuMemcpy3D(&Q), C.Device);
}

cudaError_t cudaMemcpy2DFromArray(void *Dst, size_t DPitch, cudaArray_const_t Src,
                                  size_t WOffset, size_t HOffset, size_t Width, size_t Height,
                                  enum cudaMemcpyKind Kind) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  if (Width > DPitch)
    return recordError(cudaErrorInvalidPitchValue);
  CUDA_MEMCPY3D Q{};
  Q.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  Q.srcArray = reinterpret_cast<CUarray>(const_cast<cudaArray *>(Src));
  Q.srcXInBytes = WOffset;
  Q.srcY = HOffset;
  Q.dstMemoryType = Kind == cudaMemcpyDefault        ? CU_MEMORYTYPE_UNIFIED
                    : Kind == cudaMemcpyDeviceToHost ? CU_MEMORYTYPE_HOST
                                                     : CU_MEMORYTYPE_DEVICE;
  if (Q.dstMemoryType == CU_MEMORYTYPE_HOST)
    Q.dstHost = Dst;
  else
    Q.dstDevice = reinterpret_cast<CUdeviceptr>(Dst);
  Q.dstPitch = DPitch;
  Q.WidthInBytes = Width;
  Q.Height = Height;
  Q.Depth = 1;
  return finish(driver().cuMemcpy3D(&Q), C.Device);
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *Tex, const struct cudaResourceDesc *Res,
                                    const struct cudaTextureDesc *TexDesc,
                                    const struct cudaResourceViewDesc *View) {
  if (!Tex || !Res || !TexDesc)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_RESOURCE_DESC R{};
  if (cudaError_t E = toResourceDesc(*Res, R))
    return recordError(E);
  CUDA_TEXTURE_DESC T{};
  toTextureDesc(*TexDesc, T);
  // The view descriptors share layout and enumerator values.
  static_assert(sizeof(cudaResourceViewDesc) == sizeof(CUDA_RESOURCE_VIEW_DESC));
  const auto *V = reinterpret_cast<const CUDA_RESOURCE_VIEW_DESC *>(View);
  return finish(driver().cuTexObjectCreate(Tex, &R, &T, V), C.Device);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t Tex) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuTexObjectDestroy(Tex), C.Device);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *Surf,
                                    const struct cudaResourceDesc *Res) {
  if (!Surf || !Res)
    return recordError(cudaErrorInvalidValue);
  if (Res->resType != cudaResourceTypeArray)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_RESOURCE_DESC R{};
  if (cudaError_t E = toResourceDesc(*Res, R))
    return recordError(E);
  return finish(driver().cuSurfObjectCreate(Surf, &R), C.Device);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t Surf) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(driver().cuSurfObjectDestroy(Surf), C.Device);
}

} // extern "C"
