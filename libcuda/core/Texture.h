/// \file
/// CUDA arrays and texture/surface objects in the object model.
///
/// An array (CUarray) is an Object in the handle table, like a stream. Its
/// storage is ordinary device memory of the owning context's device, laid
/// out densely (row pitch = Width * element bytes, slices Height rows
/// apart), so array copies are rectangle copies and kernels address texels
/// directly; CUDA keeps the layout opaque, which leaves us that choice.
///
/// Texture and surface objects are not pointers in CUDA but 64-bit values
/// that kernels receive as parameters, so their handle is the address of
/// their TextureDesc (libcuda/TextureDesc.h), which a backend reads
/// directly. A separate registry of live handles validates them on the API
/// side; the descriptor's magic word is what kernels check.
#pragma once

#include "ferry/cuda.h"
#include "libcuda/TextureDesc.h"
#include "libcuda/core/Core.h"

namespace ferry::core {

/// An array's shape as cuArray3DCreate describes it (Height/Depth 0 for
/// absent dimensions), plus its element type.
struct ArrayShape {
  size_t Width = 0, Height = 0, Depth = 0;
  CUarray_format Format = CU_AD_FORMAT_FLOAT;
  unsigned Channels = 1;
  unsigned Flags = 0; ///< CUDA_ARRAY3D_* flags.
};

/// What an array format means for sampling: its channel type, and whether
/// the format itself asks for normalised reads (the UNORM_/SNORM_ formats).
struct FormatInfo {
  TexelType Type;
  unsigned Channels = 0;     ///< Fixed by the format; 0 when NumChannels decides.
  bool AlwaysNormalized = false;
};
/// nullopt for formats ferry cannot sample or store (NV12, BCn, packed).
std::optional<FormatInfo> formatInfo(CUarray_format F);

class Array final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Array;
  /// Validates Shape (CUDA_ERROR_INVALID_VALUE with the reason) and
  /// allocates storage on Ctx's device.
  static Expected<Ref<Array>> create(Ref<Context> Ctx, const ArrayShape &Shape);
  Array(Ref<Context> Ctx, const ArrayShape &Shape, FormatInfo Info);
  ~Array() override;

  const ArrayShape &shape() const { return Shape; }
  TexelType type() const { return Info.Type; }
  bool alwaysNormalized() const { return Info.AlwaysNormalized; }
  unsigned elementBytes() const { return texelTypeBytes(Info.Type) * Shape.Channels; }
  char *data() const { return Data; }
  size_t pitch() const { return Shape.Width * elementBytes(); }
  /// Rows per slice (1 for a 1D or 1D-layered array).
  size_t rows() const { return Shape.Height ? Shape.Height : 1; }
  size_t slices() const { return Shape.Depth ? Shape.Depth : 1; }
  size_t bytes() const { return pitch() * rows() * slices(); }
  Context &context() const { return *Ctx; }

  /// cuArrayDestroy: waits for queued work, frees the storage, retires the
  /// handle. The storage of a live texture object's array stays valid until
  /// that object is destroyed too (it holds a reference).
  void destroy();

private:
  Ref<Context> Ctx;
  ArrayShape Shape;
  FormatInfo Info;
  char *Data = nullptr;
};

/// A texture or surface object: the descriptor kernels read, and what the
/// Get*Desc calls give back.
struct SampledObject {
  /// What kernels read. The handle is the address of a copy in memory the
  /// device can read (pinned host memory from the backend: a GPU cannot
  /// read ferry's heap), or of Desc itself when that cannot be had.
  TextureDesc Desc;
  void *DeviceCopy = nullptr;
  SampledObject() = default;
  SampledObject(const SampledObject &) = delete;
  SampledObject &operator=(const SampledObject &) = delete;
  ~SampledObject();
  bool IsSurface = false;
  Ref<Context> Ctx;
  Ref<Array> Arr; ///< Keeps an array resource's storage alive.
  CUDA_RESOURCE_DESC Resource{};
  CUDA_TEXTURE_DESC Sampler{};
  bool HasView = false;
  CUDA_RESOURCE_VIEW_DESC View{};
};

namespace sampled {
/// Registers Obj and returns its handle.
uint64_t publish(std::shared_ptr<SampledObject> Obj);
/// The live object behind Handle, of the given kind; CUDA_ERROR_INVALID_VALUE
/// (what cuTexObjectDestroy and friends document) otherwise.
Expected<std::shared_ptr<SampledObject>> resolve(uint64_t Handle, bool Surface);
/// Unregisters Handle; the descriptor stays alive while kernels that were
/// queued with it may still run (the caller synchronises first).
void retire(uint64_t Handle);
} // namespace sampled

} // namespace ferry::core
