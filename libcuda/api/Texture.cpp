/// \file
/// CUDA arrays (create, destroy, descriptors) and texture/surface objects
/// (create, destroy, descriptor queries). The objects turn the CUDA
/// resource/sampler structs into a TextureDesc (libcuda/TextureDesc.h)
/// whose address is the 64-bit handle kernels receive; copies to and from
/// arrays live with the other copies in Copy.cpp.
#include "libcuda/api/Common.h"
#include "libcuda/core/Texture.h"

#include <cstring>

using namespace ferry;
using namespace ferry::api;
using core::Array;
using core::Ref;

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

static CUresult createArray(const char *Fn, CUarray *pHandle, const core::ArrayShape &Shape) {
  auto C = current(Fn);
  if (!C)
    return C.code();
  auto A = Array::create(*C, Shape);
  if (!A)
    return fail(Fn, A.error());
  core::publish(*A);
  *pHandle = handleOf<CUarray>(A->get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pDesc) {
  if (!pHandle || !pDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  core::ArrayShape S;
  S.Width = pDesc->Width;
  S.Height = pDesc->Height;
  S.Format = pDesc->Format;
  S.Channels = pDesc->NumChannels;
  return createArray(__func__, pHandle, S);
}

FERRY_EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *pDesc) {
  if (!pHandle || !pDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  core::ArrayShape S;
  S.Width = pDesc->Width;
  S.Height = pDesc->Height;
  S.Format = pDesc->Format;
  S.Channels = pDesc->NumChannels;
  return createArray(__func__, pHandle, S);
}

FERRY_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pDesc) {
  if (!pHandle || !pDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  core::ArrayShape S;
  S.Width = pDesc->Width;
  S.Height = pDesc->Height;
  S.Depth = pDesc->Depth;
  S.Format = pDesc->Format;
  S.Channels = pDesc->NumChannels;
  S.Flags = pDesc->Flags;
  return createArray(__func__, pHandle, S);
}

FERRY_EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *pDesc) {
  if (!pHandle || !pDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  core::ArrayShape S;
  S.Width = pDesc->Width;
  S.Height = pDesc->Height;
  S.Depth = pDesc->Depth;
  S.Format = pDesc->Format;
  S.Channels = pDesc->NumChannels;
  S.Flags = pDesc->Flags;
  return createArray(__func__, pHandle, S);
}

FERRY_EXPORT CUresult cuArrayDestroy(CUarray hArray) {
  auto A = core::resolve<Array>(hArray);
  if (!A)
    return fail(__func__, A.error());
  (*A)->destroy();
  return CUDA_SUCCESS;
}

template <typename D> static CUresult get2D(const char *Fn, D *pDesc, CUarray hArray) {
  if (!pDesc)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pArrayDescriptor is null");
  auto A = core::resolve<Array>(hArray);
  if (!A)
    return fail(Fn, A.error());
  const core::ArrayShape &S = (*A)->shape();
  pDesc->Width = S.Width;
  pDesc->Height = S.Height;
  pDesc->Format = S.Format;
  pDesc->NumChannels = S.Channels;
  return CUDA_SUCCESS;
}

template <typename D> static CUresult get3D(const char *Fn, D *pDesc, CUarray hArray) {
  if (CUresult R = get2D(Fn, pDesc, hArray))
    return R;
  auto A = core::resolve<Array>(hArray);
  pDesc->Depth = (*A)->shape().Depth;
  pDesc->Flags = (*A)->shape().Flags;
  return CUDA_SUCCESS;
}

// clang-format off
FERRY_EXPORT CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray a) { return get2D(__func__, d, a); }
FERRY_EXPORT CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR_v1 *d, CUarray a) { return get2D(__func__, d, a); }
FERRY_EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a) { return get3D(__func__, d, a); }
FERRY_EXPORT CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR_v1 *d, CUarray a) { return get3D(__func__, d, a); }
// clang-format on

//===----------------------------------------------------------------------===//
// Texture and surface objects
//===----------------------------------------------------------------------===//

/// Alignment asked of linear and pitch2D texture memory. NVIDIA documents
/// CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT (512 here), but only promises 256
/// for allocations; ferry's allocations are 256-aligned, so insisting on
/// 512 would reject pointers straight from cuMemAlloc.
constexpr uint64_t LinearAlign = 256;
constexpr uint64_t PitchAlign = 32; ///< CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT.

/// Fills the resource half of D from R (shared by textures and surfaces).
static Status describeResource(const CUDA_RESOURCE_DESC &R, bool Surface, core::SampledObject &O) {
  TextureDesc &D = O.Desc;
  if (R.flags != 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "resource flags must be 0");
  auto Linear = [&](CUarray_format F, unsigned Channels) -> Status {
    auto Info = core::formatInfo(F);
    if (!Info)
      return makeError(CUDA_ERROR_INVALID_VALUE, "unsupported format " + std::to_string(int(F)));
    if (Info->Channels ? Channels != Info->Channels : (Channels != 1 && Channels != 2 && Channels != 4))
      return makeError(CUDA_ERROR_INVALID_VALUE, "numChannels must be 1, 2 or 4");
    D.Type = Info->Type;
    D.Channels = uint8_t(Channels);
    D.ReadNormalized = Info->AlwaysNormalized;
    return Status::ok();
  };
  switch (R.resType) {
  case CU_RESOURCE_TYPE_ARRAY: {
    auto A = core::resolve<Array>(R.res.array.hArray);
    if (!A)
      return A.takeError();
    const core::ArrayShape &S = (*A)->shape();
    if (Surface && !(S.Flags & CUDA_ARRAY3D_SURFACE_LDST))
      return makeError(CUDA_ERROR_INVALID_VALUE, "the array was not created with CUDA_ARRAY3D_SURFACE_LDST");
    O.Arr = *A;
    D.Type = (*A)->type();
    D.Channels = uint8_t(S.Channels);
    D.ReadNormalized = (*A)->alwaysNormalized();
    D.Base = (*A)->data();
    // A cubemap is a layered 2D array of 6 faces per cube; texture fetches
    // pick the face from a direction, surface accesses name the layer.
    D.Layered = (S.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    D.Cubemap = (S.Flags & CUDA_ARRAY3D_CUBEMAP) != 0 && !Surface;
    D.Dims = D.Layered ? (S.Height ? 2 : 1) : S.Depth ? 3 : S.Height ? 2 : 1;
    D.Width = S.Width;
    D.Height = (*A)->rows();
    D.Depth = (*A)->slices();
    D.Pitch = (*A)->pitch();
    D.SlicePitch = D.Pitch * D.Height;
    return Status::ok();
  }
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "mipmapped arrays are not supported");
  case CU_RESOURCE_TYPE_LINEAR: {
    if (Surface)
      break;
    if (Status S = Linear(R.res.linear.format, R.res.linear.numChannels); !S)
      return S;
    if (!R.res.linear.devPtr || R.res.linear.devPtr % LinearAlign)
      return makeError(CUDA_ERROR_INVALID_VALUE, "devPtr is null or not 256-byte aligned");
    uint64_t Elems = R.res.linear.sizeInBytes / D.elementBytes();
    if (Elems == 0 || Elems > (uint64_t(1) << 28))
      return makeError(CUDA_ERROR_INVALID_VALUE, "sizeInBytes is 0 or exceeds the 1D linear texture limit");
    D.Base = reinterpret_cast<char *>(uintptr_t(R.res.linear.devPtr));
    D.LinearMemory = true;
    D.Dims = 1;
    D.Width = Elems;
    D.Pitch = D.SlicePitch = Elems * D.elementBytes();
    return Status::ok();
  }
  case CU_RESOURCE_TYPE_PITCH2D: {
    if (Surface)
      break;
    const auto &P = R.res.pitch2D;
    if (Status S = Linear(P.format, P.numChannels); !S)
      return S;
    if (!P.devPtr || P.devPtr % LinearAlign)
      return makeError(CUDA_ERROR_INVALID_VALUE, "devPtr is null or not 256-byte aligned");
    if (P.width == 0 || P.height == 0 || P.width > 131072 || P.height > 65000)
      return makeError(CUDA_ERROR_INVALID_VALUE, "pitch2D width/height out of range");
    if (P.pitchInBytes % PitchAlign || P.pitchInBytes < P.width * D.elementBytes())
      return makeError(CUDA_ERROR_INVALID_VALUE,
                       "pitchInBytes is not a multiple of 32 or smaller than a row");
    D.Base = reinterpret_cast<char *>(uintptr_t(P.devPtr));
    D.Dims = 2;
    D.Width = P.width;
    D.Height = P.height;
    D.Pitch = P.pitchInBytes;
    D.SlicePitch = P.pitchInBytes * P.height;
    return Status::ok();
  }
  }
  return makeError(CUDA_ERROR_INVALID_VALUE,
                   Surface ? "surfaces need an array resource" : "unknown resource type");
}

FERRY_EXPORT CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                        const CUDA_TEXTURE_DESC *pTexDesc,
                                        const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  if (!pTexObject || !pResDesc || !pTexDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  auto C = current(__func__);
  if (!C)
    return C.code();
  if (pResViewDesc)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "resource views are not supported");
  auto O = std::make_shared<core::SampledObject>();
  O->Ctx = *C;
  O->Resource = *pResDesc;
  O->Sampler = *pTexDesc;
  TextureDesc &D = O->Desc;
  if (Status S = describeResource(*pResDesc, false, *O); !S)
    return fail(__func__, S.takeError());
  const CUDA_TEXTURE_DESC &T = *pTexDesc;
  for (int I = 0; I < 3; ++I) {
    if (unsigned(T.addressMode[I]) > CU_TR_ADDRESS_MODE_BORDER)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown address mode");
    D.Address[I] = static_cast<TexAddress>(T.addressMode[I]);
  }
  if (unsigned(T.filterMode) > CU_TR_FILTER_MODE_LINEAR)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown filter mode");
  D.FilterLinear = T.filterMode == CU_TR_FILTER_MODE_LINEAR;
  D.NormalizedCoords = T.flags & CU_TRSF_NORMALIZED_COORDINATES;
  // The driver promotes 8/16-bit integers to normalised floats unless told
  // to read integers (cudart's cudaReadModeElementType sets the flag).
  D.ReadNormalized = D.ReadNormalized || !(T.flags & CU_TRSF_READ_AS_INTEGER);
  D.Srgb = (T.flags & CU_TRSF_SRGB) && D.Type == TexelType::U8;
  std::memcpy(D.Border, T.borderColor, sizeof(D.Border));
  D.Magic = TextureDesc::TextureMagic;
  *pTexObject = core::sampled::publish(std::move(O));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc) {
  if (!pSurfObject || !pResDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto O = std::make_shared<core::SampledObject>();
  O->IsSurface = true;
  O->Ctx = *C;
  O->Resource = *pResDesc;
  if (Status S = describeResource(*pResDesc, true, *O); !S)
    return fail(__func__, S.takeError());
  O->Desc.Magic = TextureDesc::SurfaceMagic;
  *pSurfObject = core::sampled::publish(std::move(O));
  return CUDA_SUCCESS;
}

static CUresult destroyObject(const char *Fn, uint64_t H, bool Surface) {
  auto O = core::sampled::resolve(H, Surface);
  if (!O)
    return fail(Fn, O.error());
  core::sampled::retire(H);
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuTexObjectDestroy(CUtexObject t) { return destroyObject(__func__, t, false); }
FERRY_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject s) { return destroyObject(__func__, s, true); }

static CUresult resourceDesc(const char *Fn, CUDA_RESOURCE_DESC *pResDesc, uint64_t H, bool Surface) {
  if (!pResDesc)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pResDesc is null");
  auto O = core::sampled::resolve(H, Surface);
  if (!O)
    return fail(Fn, O.error());
  *pResDesc = (*O)->Resource;
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *d, CUtexObject t) {
  return resourceDesc(__func__, d, t, false);
}
FERRY_EXPORT CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *d, CUsurfObject s) {
  return resourceDesc(__func__, d, s, true);
}

FERRY_EXPORT CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject t) {
  if (!pTexDesc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pTexDesc is null");
  auto O = core::sampled::resolve(t, false);
  if (!O)
    return fail(__func__, O.error());
  *pTexDesc = (*O)->Sampler;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pView, CUtexObject t) {
  if (!pView)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pResViewDesc is null");
  auto O = core::sampled::resolve(t, false);
  if (!O)
    return fail(__func__, O.error());
  // Documented: no view was given at creation → CUDA_ERROR_INVALID_VALUE.
  if (!(*O)->HasView)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the texture object has no resource view");
  *pView = (*O)->View;
  return CUDA_SUCCESS;
}
