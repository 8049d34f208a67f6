/// \file
/// The arithmetic of a texture fetch as an H100's texture unit does it:
/// coordinate truncation, filtering weights, the rounding of filtered
/// results, unorm8 filtering, border colours, layer clamping and cubemap
/// face selection. Both device backends sample through it, so they give the
/// same bits: the host backend (host/exec/Texture.cpp) and the AMD
/// backend's device-side sampler (hsa/device/TextureSampler.cpp), which
/// clang-14 compiles for amdgcn. Hence, like TextureDesc.h, freestanding:
/// no C++ library, only compiler builtins that GCC and clang both have, no
/// call that would need libm on the GPU, and no fused multiply-adds needed
/// or harmed (the products below are exact or not followed by an add).
///
/// The rules, as inferred from 5,248 fetches recorded on an H100
/// (tests/texture/data/h100-fetches.txt; tests/texture's RecordedFetch
/// checks the host sampler against them, tests/hsa's sampler test the AMD
/// one):
///  - A normalised coordinate is truncated (towards -inf) to a multiple of
///    2^-21 before it is scaled by the extent: x * W then gives the weight
///    that the truncated x does (fractions a hair above a 1/512 step round
///    down, exact steps round up). Unnormalised coordinates are used as is.
///  - Filtering weights are 8-bit fractions a (0..256) of x - 0.5, halves
///    rounding up. The corner weights are integers summing to 256: in 2D
///    w11 = round(ax * ay / 256) and the others follow by subtraction
///    (w10 = ax - w11, w01 = ay - w11), so the rows and columns keep their
///    exact share; in 3D the (x, z) pairs are weighted so, and each splits
///    by y as hi = round(w * ay / 256), lo = w - hi. (The 3D rule is the
///    closest the recording allows: RecordedFetch lists what it misses.)
///  - Float results are sum(w * texel) / 256 computed exactly and rounded
///    to float with ties away from zero.
///  - unorm8 texels are widened to 16 bits (v * 257), filtered in integers,
///    rounded half up to 16 bits and returned as k / 65535.
///  - An unorm8 texture's border colour is quantised to the format.
///  - A plain 1D texture filters as a 2D texture one texel high sampled at
///    y = 0: half of each fetch comes from row -1, which only border mode
///    makes visible (half the border colour). Layered 1D textures do not.
///  - A layer index is unsigned and clamped to the last layer.
///  - A cubemap direction picks its face by the major axis, ties going to
///    z, then y, then x.
#pragma once

#include "libcuda/TextureDesc.h"

namespace ferry::texmath {

inline uint32_t floatBits(float F) { return __builtin_bit_cast(uint32_t, F); }
inline float bitsFloat(uint32_t B) { return __builtin_bit_cast(float, B); }

/// A coordinate in texels, as a double (exact: the truncated normalised
/// coordinate has at most 24 significant bits and the extent at most 17).
inline double texelCoordinate(float X, uint64_t Extent, bool Normalized) {
  if (!Normalized)
    return double(X);
  if (!__builtin_isfinite(X))
    return double(X) * double(Extent);
  constexpr double Step = double(1 << 21);
  return __builtin_floor(double(X) * Step) * (1.0 / Step) * double(Extent);
}

/// floor(X) as an index, NaN as 0, clamped far outside any extent so that
/// the addressing arithmetic cannot overflow.
inline int64_t floorIndex(double X) {
  if (__builtin_isnan(X))
    return 0;
  constexpr double Lim = double(1 << 30);
  double F = __builtin_floor(X);
  return int64_t(F < -Lim ? -Lim : F > Lim ? Lim : F);
}

/// The 8-bit weight (0..256) of the upper texel for texel coordinate U;
/// I0 is the lower texel.
inline unsigned upperWeight(double U, int64_t &I0) {
  double B = U - 0.5;
  I0 = floorIndex(B);
  if (__builtin_isnan(B))
    return 0;
  double F = B - double(I0);
  F = F < 0.0 ? 0.0 : F > 1.0 ? 1.0 : F;
  return unsigned(__builtin_floor(F * 256.0 + 0.5));
}

/// The 2D corner weights (x0y0, x1y0, x0y1, x1y1) of upper weights X, Y.
inline void weights2d(unsigned X, unsigned Y, unsigned W[4]) {
  unsigned W11 = (X * Y + 128) >> 8;
  W[3] = W11, W[1] = X - W11, W[2] = Y - W11, W[0] = 256 - X - Y + W11;
}

/// The integer corner weights (out of 256) of Count axes, corner bit Ax set
/// for the upper texel of axis Ax.
inline void cornerWeights(unsigned Count, const unsigned A[3], unsigned W[8]) {
  if (Count == 1) {
    W[0] = 256 - A[0], W[1] = A[0];
    return;
  }
  if (Count == 2) {
    weights2d(A[0], A[1], W);
    return;
  }
  unsigned XZ[4];
  weights2d(A[0], A[2], XZ);
  for (unsigned K = 0; K < 4; ++K) {
    unsigned X = K & 1, Z = K >> 1;
    unsigned Hi = (XZ[K] * A[1] + 128) >> 8;
    W[X | 2 | (Z << 2)] = Hi;
    W[X | (Z << 2)] = XZ[K] - Hi;
  }
}

/// The float next to F towards +inf (Up) or -inf; F is not NaN.
inline float nextFloat(float F, bool Up) {
  if (F == 0)
    return bitsFloat(Up ? 1u : 0x80000001u);
  uint32_t B = floatBits(F);
  return bitsFloat((F > 0) == Up ? B + 1 : B - 1);
}

/// sum(W[i] * V[i]) / 256 rounded to float with ties away from zero. The
/// sum is kept as an unevaluated double pair (each product is exact in a
/// double: 9 by 24 bits), which is exact unless the texels' magnitudes
/// differ by more than about 2^50, where no tie can occur anyway.
inline float weightedSum(const unsigned *W, const float *V, unsigned N) {
  double Hi = 0, Lo = 0;
  for (unsigned I = 0; I < N; ++I) {
    if (!W[I])
      continue; // Also keeps NaN/inf texels of unused corners out.
    double P = double(W[I]) * double(V[I]) * (1.0 / 256.0);
    double S = Hi + P, Bp = S - Hi;
    Lo += (Hi - (S - Bp)) + (P - Bp); // TwoSum's error term.
    Hi = S;
  }
  double X = Hi + Lo;
  Lo -= X - Hi;
  Hi = X;
  if (!__builtin_isfinite(Hi) || Hi == 0)
    return float(Hi);
  // The two floats around the exact value, and which one it is nearer.
  float Near = float(Hi);
  double E = (double(Near) - Hi) - Lo; // Near - exact.
  if (E == 0)
    return Near;
  float Other = nextFloat(Near, E < 0);
  double Mid = (double(Near) + double(Other)) * 0.5; // Exact: 25 bits.
  double D = (Mid - Hi) - Lo;                        // Mid - exact; its sign is exact.
  if (D == 0) // A tie: away from zero.
    return __builtin_fabsf(Near) > __builtin_fabsf(Other) ? Near : Other;
  return (Near > Other ? D < 0 : D > 0) ? Near : Other;
}

/// Whether fetches filter in unorm8's 16-bit integers: 8-bit unsigned data
/// read as normalised floats, without sRGB conversion.
inline bool isUnorm8(const TextureDesc &D) {
  return D.Type == TexelType::U8 && D.ReadNormalized && !D.Srgb;
}

/// An unorm8 texture's filtered channel from its corner values (v / 255
/// floats, texels and quantised border alike): in integers on the 8-bit
/// values widened to 16 bits, rounded half up to 16 bits, as k / 65535.
inline float unorm8Filtered(const unsigned *W, const float *V, unsigned N) {
  uint64_t Acc = 0;
  for (unsigned I = 0; I < N; ++I)
    if (W[I]) // V * 255 is within an ulp of the integer it came from.
      Acc += uint64_t(W[I]) * uint64_t(__builtin_rintf(V[I] * 255.f)) * 257u;
  return float((Acc + 128) >> 8) / 65535.f;
}

/// A filtered channel from the corner weights and the corners' channel
/// values (float bits; corners of weight 0 are not read).
inline uint32_t filteredChannel(const TextureDesc &D, const unsigned *W, const float *V, unsigned N) {
  return floatBits(isUnorm8(D) ? unorm8Filtered(W, V, N) : weightedSum(W, V, N));
}

/// An 8-bit unsigned normalised texture's border colour as the texture unit
/// holds it: quantised to the format. An H100 returns 76/255 and 178/255
/// for 0.3 and 0.7, so it rounds c * 255 (76.5 and 178.5 in float) to even
/// or down; the recording cannot tell which, this takes even.
inline uint32_t unorm8Border(float C) {
  float V = C < 0.f ? 0.f : C > 1.f ? 1.f : C; // NaN stays NaN...
  return V == V ? uint32_t(__builtin_rintf(V * 255.f)) : 0u; // ...and reads 0.
}

/// Channel C of the border colour as a fetch returns it: 0 for channels the
/// format lacks (as for texels), the quantised colour for unorm8, else the
/// colour's float bits (an H100 gives those for integer reads too).
inline uint32_t borderChannel(const TextureDesc &D, unsigned C) {
  if (C >= D.Channels)
    return 0;
  if (isUnorm8(D))
    return floatBits(float(unorm8Border(D.Border[C])) / 255.f);
  return floatBits(D.Border[C]);
}

/// The layer a layered fetch reads. An H100 takes the index as unsigned
/// and clamps it to the last layer: -1 reads the last layer, not the
/// first (RecordedFetch).
inline int64_t clampLayer(uint32_t L, uint64_t Layers) {
  uint64_t Last = Layers ? Layers - 1 : 0;
  return int64_t(L < Last ? uint64_t(L) : Last);
}

/// A cubemap fetch's face and normalised face coordinates: the face of the
/// direction's major axis and the face's (s, t) by the CUDA programming
/// guide's cubemap table. Ties go to z, then y (as on an H100: |x| = |y|
/// takes a y face, |x| = |z| a z face; |y| = |z| was not recorded).
inline void cubeCoordinates(const float Dir[3], float U[2], int64_t &Face) {
  float X = Dir[0], Y = Dir[1], Z = Dir[2];
  float AX = __builtin_fabsf(X), AY = __builtin_fabsf(Y), AZ = __builtin_fabsf(Z), M, S, T;
  if (AZ >= AX && AZ >= AY) {
    Face = Z >= 0 ? 4 : 5, M = AZ, S = Z >= 0 ? X : -X, T = -Y;
  } else if (AY >= AX) {
    Face = Y >= 0 ? 2 : 3, M = AY, S = X, T = Y >= 0 ? Z : -Z;
  } else {
    Face = X >= 0 ? 0 : 1, M = AX, S = X >= 0 ? -Z : Z, T = -Y;
  }
  U[0] = (S / M + 1.f) * 0.5f;
  U[1] = (T / M + 1.f) * 0.5f;
}

/// The descriptor a cubemap fetch samples: the cubemap's faces as a layered
/// 2D texture with normalised coordinates, clamped to the face's edges (an
/// H100 does not filter across faces: RecordedFetch has fetches next to
/// every edge). The layer is face + 6 * cube.
inline TextureDesc cubeFaceDesc(const TextureDesc &D) {
  TextureDesc F = D;
  F.Address[0] = F.Address[1] = TexAddress::Clamp;
  F.NormalizedCoords = true;
  F.Cubemap = false;
  F.Layered = true;
  return F;
}

} // namespace ferry::texmath
