/// \file
/// Texture sampling and surface access on the host, over the descriptors
/// libcuda makes (libcuda/TextureDesc.h). The executor's runtime entry
/// points (ferry_rt_tex and friends, Runtime.def) decode the handle and call
/// these; they are plain functions of a descriptor so the sampling math is
/// testable without a kernel.
///
/// The semantics follow the CUDA programming guide's texture fetching
/// appendix: point sampling takes the texel floor(x); linear filtering
/// blends the texels around x - 0.5 with weights in 9-bit fixed point
/// (8 fractional bits); wrap and mirror need normalised coordinates and act
/// as clamp otherwise; border gives the border colour for texels outside.
/// The `mode` words are those of ptx/lower/SimtIntrinsics.def.
#pragma once

#include "libcuda/TextureDesc.h"

#include <cstdint>

namespace ferry::host::tex {

/// Index I of an axis of N texels under address mode M (wrap and mirror
/// only with normalised coordinates). Returns -1 for a border texel.
int64_t addressIndex(int64_t I, int64_t N, TexAddress M, bool Normalized);

/// A filtering weight as the texture unit uses it: Frac in [0,1) rounded to
/// a multiple of 1/256.
float quantizeWeight(float Frac);

/// floor(X) as an integer, NaN as 0, saturated to ±2^30.
int64_t floorIndex(float X);

float halfToFloat(uint16_t H);
float srgbToLinear(float C);

/// Channel C of the texel at (I, J, K) of D, converted as a fetch returns
/// it: float bits when D.floatResults(), else a sign- or zero-extended
/// integer. Channels the format lacks read 0 (alpha too, as on an H100).
uint32_t texelChannel(const TextureDesc &D, int64_t I, int64_t J, int64_t K, unsigned C);

/// tex: Coords are x, y, z, layer (bit patterns; float unless mode bit 4).
void fetch(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]);
/// tld4: one component (mode bits 8-9) of the four texels bilinear
/// filtering of (x, y) reads, in the order (i0,j1) (i1,j1) (i1,j0) (i0,j0).
void gather(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]);
/// txq/suq query codes (SimtIntrinsics.def).
int32_t query(const TextureDesc &D, uint32_t Query);

/// suld.b/sust.b: x in bytes, a multiple of the access size (element bytes
/// times vector length; an H100 faults otherwise, in every boundary mode).
/// OutOfRange only in trap mode; the caller faults the launch.
enum class SurfaceStatus { Ok, OutOfRange, Misaligned };
SurfaceStatus surfaceLoad(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]);
SurfaceStatus surfaceStore(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], const uint32_t Vals[4]);

} // namespace ferry::host::tex

extern "C" {
// The runtime entry points (host/jit/Runtime.def). Handles are validated by
// their descriptor's magic word; a bad one faults the launch.
void ferry_rt_tex(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out);
void ferry_rt_tld4(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out);
int32_t ferry_rt_txq(void *Ctx, uint64_t Handle, uint32_t Query);
int32_t ferry_rt_suq(void *Ctx, uint64_t Handle, uint32_t Query);
void ferry_rt_suld(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out);
void ferry_rt_sust(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, const uint32_t *Vals);
}
