/// \file
/// CUDA arrays (validation of the shape, dense storage on the context's
/// device) and the registry of live texture/surface object handles.
#include "libcuda/core/Texture.h"

#include <cstring>

#include "support/Log.h"

#include <shared_mutex>
#include <unordered_map>

namespace ferry::core {

std::optional<FormatInfo> formatInfo(CUarray_format F) {
  switch (F) {
  case CU_AD_FORMAT_UNSIGNED_INT8: return FormatInfo{TexelType::U8};
  case CU_AD_FORMAT_UNSIGNED_INT16: return FormatInfo{TexelType::U16};
  case CU_AD_FORMAT_UNSIGNED_INT32: return FormatInfo{TexelType::U32};
  case CU_AD_FORMAT_SIGNED_INT8: return FormatInfo{TexelType::S8};
  case CU_AD_FORMAT_SIGNED_INT16: return FormatInfo{TexelType::S16};
  case CU_AD_FORMAT_SIGNED_INT32: return FormatInfo{TexelType::S32};
  case CU_AD_FORMAT_HALF: return FormatInfo{TexelType::F16};
  case CU_AD_FORMAT_FLOAT: return FormatInfo{TexelType::F32};
  // The CUDA 11.5 formats name their channel count and normalisation.
  case CU_AD_FORMAT_UNORM_INT8X1: return FormatInfo{TexelType::U8, 1, true};
  case CU_AD_FORMAT_UNORM_INT8X2: return FormatInfo{TexelType::U8, 2, true};
  case CU_AD_FORMAT_UNORM_INT8X4: return FormatInfo{TexelType::U8, 4, true};
  case CU_AD_FORMAT_UNORM_INT16X1: return FormatInfo{TexelType::U16, 1, true};
  case CU_AD_FORMAT_UNORM_INT16X2: return FormatInfo{TexelType::U16, 2, true};
  case CU_AD_FORMAT_UNORM_INT16X4: return FormatInfo{TexelType::U16, 4, true};
  case CU_AD_FORMAT_SNORM_INT8X1: return FormatInfo{TexelType::S8, 1, true};
  case CU_AD_FORMAT_SNORM_INT8X2: return FormatInfo{TexelType::S8, 2, true};
  case CU_AD_FORMAT_SNORM_INT8X4: return FormatInfo{TexelType::S8, 4, true};
  case CU_AD_FORMAT_SNORM_INT16X1: return FormatInfo{TexelType::S16, 1, true};
  case CU_AD_FORMAT_SNORM_INT16X2: return FormatInfo{TexelType::S16, 2, true};
  case CU_AD_FORMAT_SNORM_INT16X4: return FormatInfo{TexelType::S16, 4, true};
  default: return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

Expected<Ref<Array>> Array::create(Ref<Context> Ctx, const ArrayShape &S) {
  auto Info = formatInfo(S.Format);
  if (!Info) {
    if (int(S.Format) == CU_AD_FORMAT_NV12 || int(S.Format) >= CU_AD_FORMAT_BC1_UNORM ||
        S.Format == CU_AD_FORMAT_UNORM_INT_101010_2)
      return makeError(CUDA_ERROR_NOT_SUPPORTED,
                       "array format " + std::to_string(int(S.Format)) + " is not supported");
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown array format " + std::to_string(int(S.Format)));
  }
  ArrayShape Shape = S;
  if (Info->Channels) {
    // The sized formats fix the count; NumChannels must agree (or be 0...
    // which CUDA rejects, so agree exactly).
    if (Shape.Channels != Info->Channels)
      return makeError(CUDA_ERROR_INVALID_VALUE, "NumChannels does not match the format");
  }
  if (Shape.Channels != 1 && Shape.Channels != 2 && Shape.Channels != 4)
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "NumChannels must be 1, 2 or 4, not " + std::to_string(Shape.Channels));
  constexpr unsigned Known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                             CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_COLOR_ATTACHMENT;
  if (Shape.Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_DEPTH_TEXTURE |
                     CUDA_ARRAY3D_VIDEO_ENCODE_DECODE))
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "sparse, deferred-mapping, depth and video arrays "
                                               "are not supported");
  if (Shape.Flags & ~Known)
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown array flags");
  bool Layered = Shape.Flags & CUDA_ARRAY3D_LAYERED;
  bool Cube = Shape.Flags & CUDA_ARRAY3D_CUBEMAP;
  if (Shape.Width == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "array width is 0");
  // The shapes cuArray3DCreate documents: W (1D), W×H (2D), W×H×D (3D),
  // W×0×L (1D layered), W×H×L (2D layered), W×W×6 (cubemap), W×W×6k
  // (layered cubemap).
  if (Cube) {
    if (Shape.Width != Shape.Height || Shape.Depth == 0 || Shape.Depth % 6 ||
        (!Layered && Shape.Depth != 6))
      return makeError(CUDA_ERROR_INVALID_VALUE, "a cubemap needs Width == Height and Depth 6 "
                                                 "(a multiple of 6 when layered)");
  } else if (Layered) {
    if (Shape.Depth == 0)
      return makeError(CUDA_ERROR_INVALID_VALUE, "a layered array needs Depth (layers) > 0");
  } else if (Shape.Height == 0 && Shape.Depth != 0) {
    return makeError(CUDA_ERROR_INVALID_VALUE, "Depth > 0 needs Height > 0");
  }
  // The device's texture limits (libcuda/api/Device.cpp reports the same).
  size_t MaxW = Layered ? 32768 : Shape.Depth ? 16384 : Shape.Height ? 131072 : 131072;
  size_t MaxH = Layered ? 32768 : Shape.Depth ? 16384 : 65536;
  size_t MaxD = Layered ? 2048 : 16384;
  if (Shape.Width > MaxW || Shape.Height > MaxH || Shape.Depth > MaxD)
    return makeError(CUDA_ERROR_INVALID_VALUE, "array extent exceeds the device's limits");
  auto A = std::make_shared<Array>(std::move(Ctx), Shape, *Info);
  auto P = A->Ctx->device().Backend->allocate(MemoryKind::Device, A->bytes());
  if (!P)
    return P.takeError();
  A->Data = static_cast<char *>(*P);
  return A;
}

Array::Array(Ref<Context> Ctx, const ArrayShape &Shape, FormatInfo Info)
    : Object(Kind::Array), Ctx(std::move(Ctx)), Shape(Shape), Info(Info) {}

Array::~Array() {
  if (Data)
    (void)Ctx->device().Backend->release(MemoryKind::Device, Data, bytes());
}

void Array::destroy() {
  // Freeing is synchronous on NVIDIA: queued copies and kernels that use
  // the array finish first. The storage itself goes with the last
  // reference (a texture object may still hold one).
  if (!Ctx->isDestroyed())
    (void)Ctx->synchronize();
  retire(this);
}

//===----------------------------------------------------------------------===//
// Texture and surface objects
//===----------------------------------------------------------------------===//

namespace {
struct Registry {
  std::shared_mutex M;
  std::unordered_map<uint64_t, std::shared_ptr<SampledObject>> Live;
};
Registry &registry() {
  static Registry *R = new Registry(); // Leaked: used from atexit handlers.
  return *R;
}
} // namespace

SampledObject::~SampledObject() {
  if (DeviceCopy && Ctx)
    (void)Ctx->device().Backend->release(MemoryKind::HostPinned, DeviceCopy, sizeof(TextureDesc));
}

uint64_t sampled::publish(std::shared_ptr<SampledObject> Obj) {
  if (Obj->Ctx) {
    if (auto P = Obj->Ctx->device().Backend->allocate(MemoryKind::HostPinned, sizeof(TextureDesc))) {
      std::memcpy(*P, &Obj->Desc, sizeof(TextureDesc));
      Obj->DeviceCopy = *P;
    }
  }
  uint64_t H = reinterpret_cast<uintptr_t>(Obj->DeviceCopy ? Obj->DeviceCopy : &Obj->Desc);
  Registry &R = registry();
  std::unique_lock<std::shared_mutex> L(R.M);
  R.Live[H] = std::move(Obj);
  return H;
}

Expected<std::shared_ptr<SampledObject>> sampled::resolve(uint64_t Handle, bool Surface) {
  const char *What = Surface ? "surface object" : "texture object";
  if (Handle == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, std::string("null ") + What);
  Registry &R = registry();
  std::shared_lock<std::shared_mutex> L(R.M);
  auto It = R.Live.find(Handle);
  if (It == R.Live.end() || It->second->IsSurface != Surface)
    return makeError(CUDA_ERROR_INVALID_VALUE, std::string("not a live ") + What);
  return It->second;
}

void sampled::retire(uint64_t Handle) {
  std::shared_ptr<SampledObject> Last;
  Registry &R = registry();
  std::unique_lock<std::shared_mutex> L(R.M);
  auto It = R.Live.find(Handle);
  if (It == R.Live.end())
    return;
  Last = std::move(It->second);
  R.Live.erase(It);
  L.unlock();
  // Queued kernels may still read the descriptor: let them finish first.
  if (Last->Ctx && !Last->Ctx->isDestroyed())
    (void)Last->Ctx->synchronize();
}

} // namespace ferry::core
