/// \file
/// The descriptor behind a texture or surface object handle: what
/// cuTexObjectCreate/cuSurfObjectCreate resolve a resource and sampler
/// description into, and what a device backend's kernels read when they
/// sample. The 64-bit CUtexObject/CUsurfObject value a kernel receives is
/// the address of one of these (the core keeps it alive and immutable until
/// the object is destroyed), so a backend needs no lookup per fetch.
///
/// Plain C++ on purpose: libcuda fills it, backends (host/exec) read it, and
/// neither needs the other's headers or the CUDA ABI structs for that.
/// The AMD backend also compiles it for the GPU (hsa/device/), where there
/// is no C++ library: hence <stdint.h> (clang's freestanding one there) and
/// nothing from std.
#pragma once

#include <stdint.h>

namespace ferry {

/// Element type of one channel. Formats CUDA has beyond these (NV12, BCn,
/// packed 10-bit...) are refused when the array or object is created.
enum class TexelType : uint8_t { U8, S8, U16, S16, U32, S32, F16, F32 };

/// Addressing outside [0, N): the CUaddress_mode values.
enum class TexAddress : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };

inline constexpr unsigned texelTypeBytes(TexelType T) {
  switch (T) {
  case TexelType::U8:
  case TexelType::S8: return 1;
  case TexelType::U16:
  case TexelType::S16:
  case TexelType::F16: return 2;
  default: return 4;
  }
}

struct TextureDesc {
  /// First word of every live descriptor: kernels check it before trusting
  /// a handle (a stale or made-up handle faults the launch instead of
  /// reading garbage).
  static constexpr uint32_t TextureMagic = 0x54584F31; // "TXO1"
  static constexpr uint32_t SurfaceMagic = 0x53464F31; // "SFO1"
  uint32_t Magic = 0;

  // The resource.
  TexelType Type = TexelType::F32;
  uint8_t Channels = 1;   ///< 1, 2 or 4.
  uint8_t Dims = 1;       ///< 1, 2 or 3 (a layered array: 1 or 2, plus Layers).
  bool Layered = false;   ///< Depth counts layers, not a third dimension.
  bool LinearMemory = false; ///< cuTexObjectCreate over CU_RESOURCE_TYPE_LINEAR.
  char *Base = nullptr;
  uint64_t Width = 1, Height = 1, Depth = 1; ///< In elements (Depth: layers when Layered).
  uint64_t Pitch = 0;      ///< Bytes between rows.
  uint64_t SlicePitch = 0; ///< Bytes between slices or layers.

  // The sampler (textures only).
  TexAddress Address[3] = {TexAddress::Clamp, TexAddress::Clamp, TexAddress::Clamp};
  bool FilterLinear = false;
  bool NormalizedCoords = false;
  /// 8- and 16-bit integer data is returned as floats in [0,1] (unsigned)
  /// or [-1,1] (signed): the driver's default, CU_TRSF_READ_AS_INTEGER off.
  bool ReadNormalized = false;
  bool Srgb = false; ///< sRGB → linear on the colour channels of 8-bit unorm data.
  /// A cubemap texture (Layered, Depth: 6 faces per cube, face + 6 * cube):
  /// fetches pick the face from a direction (host/exec/Texture.cpp).
  bool Cubemap = false;
  float Border[4] = {0, 0, 0, 0};

  unsigned elementBytes() const { return texelTypeBytes(Type) * Channels; }
  /// Whether fetches produce floats (else 32-bit integers).
  bool floatResults() const {
    return Type == TexelType::F32 || Type == TexelType::F16 ||
           (ReadNormalized && texelTypeBytes(Type) < 4);
  }
};

} // namespace ferry
