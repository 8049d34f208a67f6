/// \file
/// The device-side texture sampler of the AMD backend (TextureSampler.cpp
/// says how it is built and why it is software). Declared here for the
/// second build of the same source: the host test that compares it with
/// the host backend (tests/hsa/SamplerTest.cpp). Freestanding: no standard
/// library header, since the amdgcn build has none.
#pragma once

#include "libcuda/TextureDesc.h"

namespace ferry::devtex {

/// Four 32-bit lanes: coordinates in, texel channels out. A GCC/clang
/// vector so that the amdgcn build passes and returns it as LLVM's
/// <4 x i32>, the type of the ferry.tex/tld4/suld operands.
typedef uint32_t u32x4 __attribute__((vector_size(16)));

int64_t floorIndex(float X);
float quantizeWeight(float Frac);
int64_t addressIndex(int64_t I, int64_t N, TexAddress M, bool Normalized);
float halfToFloat(uint16_t H);
float srgbToLinear(float C);
uint32_t texelChannel(const TextureDesc &D, int64_t I, int64_t J, int64_t K, unsigned C);

/// tex (coordinates as bit patterns, `mode` of SimtIntrinsics.def).
u32x4 fetch(const TextureDesc &D, uint32_t Mode, u32x4 Coords);
/// tld4: one component of the four bilinear texels.
u32x4 gather(const TextureDesc &D, uint32_t Mode, u32x4 Coords);
/// txq/suq query codes.
int32_t query(const TextureDesc &D, uint32_t Query);

/// Skipped: out of range in zero mode (loads read 0, stores do nothing).
enum class SurfaceStatus { Ok, Skipped, OutOfRange, Misaligned };
SurfaceStatus surfaceLoad(const TextureDesc &D, uint32_t Mode, u32x4 Coords, u32x4 &Out);
SurfaceStatus surfaceStore(const TextureDesc &D, uint32_t Mode, u32x4 Coords, u32x4 Vals);

} // namespace ferry::devtex

/// What kernels call; hsa/LowerTexture.cpp declares them with these types
/// (handle i64, mode i32, coordinates/values <4 x i32>).
extern "C" {
ferry::devtex::u32x4 __ferry_tex(uint64_t Handle, uint32_t Mode, ferry::devtex::u32x4 Coords);
ferry::devtex::u32x4 __ferry_tld4(uint64_t Handle, uint32_t Mode, ferry::devtex::u32x4 Coords);
int32_t __ferry_txq(uint64_t Handle, uint32_t Query);
int32_t __ferry_suq(uint64_t Handle, uint32_t Query);
ferry::devtex::u32x4 __ferry_suld(uint64_t Handle, uint32_t Mode, ferry::devtex::u32x4 Coords);
void __ferry_sust(uint64_t Handle, uint32_t Mode, ferry::devtex::u32x4 Coords, ferry::devtex::u32x4 Vals);
}
