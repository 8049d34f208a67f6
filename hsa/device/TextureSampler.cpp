//===- TextureSampler.cpp - texture sampling executed by AMD kernels -------===//
/// \file
/// Texture fetches, tld4 gathers, txq/suq queries and surface loads/stores
/// as code the kernel itself runs on an AMD GPU. ferry does not build
/// hardware image descriptors (they would need ROCr's image extension,
/// which cannot be tested without a GPU); instead a texture or surface
/// handle stays what libcuda makes it, the address of a TextureDesc
/// (libcuda/TextureDesc.h), and these functions read the descriptor and the
/// texels through flat loads, with the algorithm of the host backend
/// (host/exec/Texture.cpp): same addressing modes, format conversions, tld4
/// order and surface boundary rules, and the same arithmetic of an H100's
/// texture unit (coordinate truncation, integer filtering weights, result
/// rounding, unorm8 filtering, border colours, layer clamping, cubemap
/// faces), which both take from one header, libcuda/TextureMath.h.
///
/// The file is compiled twice from the same text:
///   - by clang-14 for amdgcn-amd-amdhsa into LLVM bitcode at build time
///     (hsa/CMakeLists.txt); hsa/LowerTexture.cpp links that bitcode into
///     every module that samples, where the optimiser inlines it and folds
///     the constant `mode` word of each call site;
///   - by the host compiler into tests/hsa's sampler test, which compares it
///     with host/exec/Texture.cpp on random descriptors and coordinates, so
///     the algorithm the GPU runs is checked without a GPU.
/// Hence plain freestanding C++: no standard library (there is none for
/// amdgcn here), only compiler builtins both GCC and clang provide, and
/// -ffp-contract=off in both builds so the arithmetic rounds identically.
///
/// Faults: a bad handle, an out-of-range surface access in trap mode and a
/// misaligned surface x execute s_trap (the launch fails with
/// CUDA_ERROR_LAUNCH_FAILED; the host backend reports ILLEGAL_ADDRESS or
/// MISALIGNED_ADDRESS, which the AMD queue cannot tell apart).
//===----------------------------------------------------------------------===//
#include "hsa/device/TextureSampler.h"
#include "libcuda/TextureMath.h"

namespace ferry::devtex {
namespace {

// The descriptor is written by libcuda's host build and read by this
// file's amdgcn build: the two layouts must agree field by field.
static_assert(__builtin_offsetof(TextureDesc, Magic) == 0, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Type) == 4, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Channels) == 5, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Layered) == 7, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, LinearMemory) == 8, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Base) == 16, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Width) == 24, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, SlicePitch) == 56, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Address) == 64, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, FilterLinear) == 67, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Srgb) == 70, "TextureDesc layout");
static_assert(__builtin_offsetof(TextureDesc, Border) == 72, "TextureDesc layout");
static_assert(sizeof(TextureDesc) == 88, "TextureDesc layout");

enum Geometry : uint32_t { G1d, G2d, G3d, GA1d, GA2d, GCube, GACube, G2dms, GA2dms };

template <typename T> T minOf(T A, T B) { return B < A ? B : A; }
template <typename T> T maxOf(T A, T B) { return A < B ? B : A; }
template <typename T> T clampTo(T V, T Lo, T Hi) { return V < Lo ? Lo : Hi < V ? Hi : V; }

using texmath::bitsFloat;
using texmath::floatBits;

/// Little-endian loads of 1, 2 or 4 bytes (the size is a constant once
/// inlined; the texel and surface addresses are aligned to it).
uint32_t loadBytes(const char *P, unsigned Bytes) {
  if (Bytes == 1) return uint8_t(*P);
  if (Bytes == 2) { uint16_t V; __builtin_memcpy(&V, P, 2); return V; }
  uint32_t V; __builtin_memcpy(&V, P, 4); return V;
}
void storeBytes(char *P, unsigned Bytes, uint32_t V) {
  if (Bytes == 1) { *P = char(V); return; }
  if (Bytes == 2) { uint16_t H = uint16_t(V); __builtin_memcpy(P, &H, 2); return; }
  __builtin_memcpy(P, &V, 4);
}

/// Spatial coordinates used and where the layer is (Texture.cpp's Axes).
struct Axes {
  unsigned Count = 1;
  int Layer = -1;
  bool Supported = true;
};

Axes axesOf(uint32_t Mode) {
  switch (Mode & 15) {
  case G1d: return {1, -1, true};
  case G2d:
  case G2dms: return {2, -1, true};
  case G3d: return {3, -1, true};
  case GA1d: return {1, 1, true};
  case GA2d:
  case GA2dms: return {2, 2, true};
  case GCube: return {3, -1, true};
  case GACube: return {3, 3, true};
  default: return {2, 2, false};
  }
}

uint64_t extent(const TextureDesc &D, unsigned Axis) {
  return Axis == 0 ? D.Width : Axis == 1 ? D.Height : D.Layered ? 1 : D.Depth;
}

const char *texelAddress(const TextureDesc &D, int64_t I, int64_t J, int64_t K) {
  return D.Base + uint64_t(K) * D.SlicePitch + uint64_t(J) * D.Pitch + uint64_t(I) * D.elementBytes();
}

int64_t layerOf(const TextureDesc &D, const Axes &A, u32x4 Coords) {
  if (!D.Layered || A.Layer < 0)
    return 0;
  return texmath::clampLayer(Coords[A.Layer], D.Depth);
}

/// A coordinate of a fetch in texels (texmath::texelCoordinate).
double texelCoordinate(const TextureDesc &D, float X, unsigned Axis) {
  return texmath::texelCoordinate(X, extent(D, Axis), D.NormalizedCoords);
}

} // namespace

int64_t floorIndex(float X) {
  if (__builtin_isnan(X))
    return 0;
  constexpr float Lim = float(1 << 30);
  return int64_t(clampTo(__builtin_floorf(X), -Lim, Lim));
}

float quantizeWeight(float Frac) { return __builtin_floorf(Frac * 256.f + 0.5f) / 256.f; }

int64_t addressIndex(int64_t I, int64_t N, TexAddress M, bool Normalized) {
  if (!Normalized && (M == TexAddress::Wrap || M == TexAddress::Mirror))
    M = TexAddress::Clamp;
  switch (M) {
  case TexAddress::Wrap: return ((I % N) + N) % N;
  case TexAddress::Mirror: {
    int64_t P = ((I % (2 * N)) + 2 * N) % (2 * N);
    return P < N ? P : 2 * N - 1 - P;
  }
  case TexAddress::Border: return I < 0 || I >= N ? -1 : I;
  case TexAddress::Clamp: break;
  }
  return clampTo<int64_t>(I, 0, N - 1);
}

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Man = H & 0x3ff;
  if (Exp == 0) {
    float F = float(Man) * 0x1p-24f; // Exact: Man < 2^10.
    return Sign ? -F : F;
  }
  if (Exp == 31)
    return bitsFloat(Sign | 0x7f800000u | (Man << 13));
  return bitsFloat(Sign | ((Exp + 112) << 23) | (Man << 13));
}

float srgbToLinear(float C) {
  return C <= 0.04045f ? C / 12.92f : __builtin_powf((C + 0.055f) / 1.055f, 2.4f);
}

uint32_t texelChannel(const TextureDesc &D, int64_t I, int64_t J, int64_t K, unsigned C) {
  bool Float = D.floatResults();
  if (C >= D.Channels)
    return 0;
  const char *P = texelAddress(D, I, J, K) + C * texelTypeBytes(D.Type);
  switch (D.Type) {
  case TexelType::F32: return loadBytes(P, 4);
  case TexelType::F16: return floatBits(halfToFloat(uint16_t(loadBytes(P, 2))));
  case TexelType::U8: {
    uint32_t V = loadBytes(P, 1);
    if (!Float)
      return V;
    float F = float(V) / 255.f;
    return floatBits(D.Srgb && C < 3 ? srgbToLinear(F) : F);
  }
  case TexelType::S8: {
    int32_t V = int8_t(loadBytes(P, 1));
    return Float ? floatBits(maxOf(float(V) / 127.f, -1.f)) : uint32_t(V);
  }
  case TexelType::U16: {
    uint32_t V = loadBytes(P, 2);
    return Float ? floatBits(float(V) / 65535.f) : V;
  }
  case TexelType::S16: {
    int32_t V = int16_t(loadBytes(P, 2));
    return Float ? floatBits(maxOf(float(V) / 32767.f, -1.f)) : uint32_t(V);
  }
  case TexelType::U32:
  case TexelType::S32: return loadBytes(P, 4);
  }
  return 0;
}

namespace {
/// All four channels of an addressed texel; -1 on an axis marks a border
/// texel (texmath::borderChannel).
u32x4 texel(const TextureDesc &D, const int64_t Idx[3], int64_t Layer) {
  bool Border = Idx[0] < 0 || Idx[1] < 0 || Idx[2] < 0;
  int64_t K = D.Layered ? Layer : Idx[2];
  u32x4 Out = {0, 0, 0, 0};
  for (unsigned C = 0; C < 4; ++C)
    Out[C] = Border ? texmath::borderChannel(D, C) : texelChannel(D, Idx[0], Idx[1], K, C);
  return Out;
}
} // namespace

namespace {
/// A fetch of any geometry but a cubemap's.
u32x4 fetchPlain(const TextureDesc &D, uint32_t Mode, u32x4 Coords) {
  Axes A = axesOf(Mode);
  u32x4 Zero = {0, 0, 0, 0};
  int64_t Layer = layerOf(D, A, Coords);
  if (Mode & (1u << 4)) {
    // Integer coordinates: no filtering; outside a linear buffer reads 0.
    int64_t Idx[3] = {0, 0, 0};
    for (unsigned Ax = 0; Ax < A.Count; ++Ax) {
      int64_t I = int32_t(Coords[Ax]), N = int64_t(extent(D, Ax));
      if (D.LinearMemory) {
        if (I < 0 || I >= N)
          return Zero;
        Idx[Ax] = I;
      } else {
        Idx[Ax] = addressIndex(I, N, D.Address[Ax], D.NormalizedCoords);
      }
    }
    return texel(D, Idx, Layer);
  }
  double U[3];
  for (unsigned Ax = 0; Ax < 3; ++Ax)
    U[Ax] = Ax < A.Count ? texelCoordinate(D, bitsFloat(Coords[Ax]), Ax) : 0.0;
  if (!D.FilterLinear || !D.floatResults()) {
    int64_t Idx[3] = {0, 0, 0};
    for (unsigned Ax = 0; Ax < A.Count; ++Ax)
      Idx[Ax] = addressIndex(texmath::floorIndex(U[Ax]), int64_t(extent(D, Ax)), D.Address[Ax],
                             D.NormalizedCoords);
    return texel(D, Idx, Layer);
  }
  // Linear filtering of the 2^Count texels around U - 0.5 with integer
  // corner weights; a plain 1D texture filters as 2D, one texel high, at
  // y = 0 (TextureMath.h).
  unsigned Count = (Mode & 15) == G1d ? 2 : A.Count;
  int64_t Lo[3] = {0, 0, 0}, Hi[3] = {0, 0, 0};
  unsigned Up[3] = {0, 0, 0};
  for (unsigned Ax = 0; Ax < Count; ++Ax) {
    int64_t I0;
    Up[Ax] = texmath::upperWeight(U[Ax], I0);
    int64_t N = Ax < A.Count ? int64_t(extent(D, Ax)) : 1;
    Lo[Ax] = addressIndex(I0, N, D.Address[Ax], D.NormalizedCoords);
    Hi[Ax] = addressIndex(I0 + 1, N, D.Address[Ax], D.NormalizedCoords);
  }
  unsigned W[8];
  texmath::cornerWeights(Count, Up, W);
  unsigned Corners = 1u << Count;
  float V[4][8];
  for (unsigned Corner = 0; Corner < Corners; ++Corner) {
    u32x4 T = Zero;
    if (W[Corner]) { // Keeps NaN/inf texels of unused corners out.
      int64_t Idx[3] = {0, 0, 0};
      for (unsigned Ax = 0; Ax < Count; ++Ax)
        Idx[Ax] = Corner & (1u << Ax) ? Hi[Ax] : Lo[Ax];
      T = texel(D, Idx, Layer);
    }
    for (unsigned C = 0; C < 4; ++C)
      V[C][Corner] = bitsFloat(T[C]);
  }
  u32x4 Out = Zero;
  for (unsigned C = 0; C < D.Channels && C < 4; ++C) // Missing channels read 0.
    Out[C] = texmath::filteredChannel(D, W, V[C], Corners);
  return Out;
}
} // namespace

u32x4 fetch(const TextureDesc &D, uint32_t Mode, u32x4 Coords) {
  Axes A = axesOf(Mode);
  if (!A.Supported)
    return u32x4{0, 0, 0, 0};
  if ((Mode & 15) != GCube && (Mode & 15) != GACube)
    return fetchPlain(D, Mode, Coords);
  // A cubemap: its face sampled as a layer of a 2D array.
  if (!D.Cubemap)
    return u32x4{0, 0, 0, 0};
  float Dir[3] = {bitsFloat(Coords[0]), bitsFloat(Coords[1]), bitsFloat(Coords[2])}, U[2];
  int64_t Face;
  texmath::cubeCoordinates(Dir, U, Face);
  int64_t L = (Mode & 15) == GACube ? texmath::clampLayer(Coords[3], D.Depth / 6) : 0;
  u32x4 C2 = {floatBits(U[0]), floatBits(U[1]), uint32_t(Face + 6 * L), 0};
  return fetchPlain(texmath::cubeFaceDesc(D), GA2d, C2);
}

u32x4 gather(const TextureDesc &D, uint32_t Mode, u32x4 Coords) {
  Axes A = axesOf(Mode);
  u32x4 Out = {0, 0, 0, 0};
  if (!A.Supported || A.Count != 2)
    return Out; // tld4 of cubemaps is refused where the texture is lowered.
  int64_t Layer = layerOf(D, A, Coords);
  unsigned Comp = (Mode >> 8) & 3;
  int64_t I[2], J[2];
  for (unsigned Ax = 0; Ax < 2; ++Ax) {
    int64_t I0, N = int64_t(extent(D, Ax));
    texmath::upperWeight(texelCoordinate(D, bitsFloat(Coords[Ax]), Ax), I0);
    int64_t *Dst = Ax == 0 ? I : J;
    Dst[0] = addressIndex(I0, N, D.Address[Ax], D.NormalizedCoords);
    Dst[1] = addressIndex(I0 + 1, N, D.Address[Ax], D.NormalizedCoords);
  }
  // (i0,j1) (i1,j1) (i1,j0) (i0,j0): the order of PTX's tld4.
  const int64_t Order[4][2] = {{I[0], J[1]}, {I[1], J[1]}, {I[1], J[0]}, {I[0], J[0]}};
  for (unsigned K = 0; K < 4; ++K) {
    int64_t Idx[3] = {Order[K][0], Order[K][1], 0};
    Out[K] = texel(D, Idx, Layer)[Comp];
  }
  return Out;
}

int32_t query(const TextureDesc &D, uint32_t Q) {
  // Channel type and order use OpenCL's enumerations, as PTX's txq does.
  int32_t DataType = 0;
  bool Norm = D.ReadNormalized;
  switch (D.Type) {
  case TexelType::U8: DataType = Norm ? 0x10D2 : 0x10DA; break;
  case TexelType::S8: DataType = Norm ? 0x10D0 : 0x10D7; break;
  case TexelType::U16: DataType = Norm ? 0x10D3 : 0x10DB; break;
  case TexelType::S16: DataType = Norm ? 0x10D1 : 0x10D8; break;
  case TexelType::U32: DataType = 0x10DC; break;
  case TexelType::S32: DataType = 0x10D9; break;
  case TexelType::F16: DataType = 0x10DD; break;
  case TexelType::F32: DataType = 0x10DE; break;
  }
  switch (Q) {
  case 0: return int32_t(D.Width);
  case 1: return int32_t(D.Height);
  case 2: return D.Layered ? 1 : int32_t(D.Depth);
  case 3: return DataType;
  case 4: return D.Channels == 1 ? 0x10B0 : D.Channels == 2 ? 0x10B2 : 0x10B5;
  case 5: return D.NormalizedCoords;
  case 6: return D.FilterLinear;
  case 7:
  case 8:
  case 9: return int32_t(D.Address[Q - 7]);
  case 10: return D.Layered ? int32_t(D.Depth) : 1;
  case 11: return 1;
  case 12: return 0;
  }
  return 0;
}

namespace {
/// Resolves a surface access (Texture.cpp's surfaceAddress): the row's
/// address and the byte offset in it, or Skip (zero mode) / a fault.
SurfaceStatus surfaceAddress(const TextureDesc &D, uint32_t Mode, u32x4 Coords, int64_t &X,
                             const char *&Row) {
  Axes A = axesOf(Mode);
  unsigned EB = (Mode >> 12) & 15, N = (Mode >> 16) & 7, Oob = (Mode >> 20) & 3;
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  X = int32_t(Coords[0]);
  if (X % int64_t(EB * N))
    return SurfaceStatus::Misaligned; // Even in clamp/zero mode, as on an H100.
  int64_t Y = A.Count >= 2 ? int32_t(Coords[1]) : 0;
  int64_t Z = A.Count >= 3 ? int32_t(Coords[2]) : 0;
  if (A.Layer >= 0 && D.Layered)
    Z = int32_t(Coords[A.Layer]);
  int64_t H = int64_t(D.Height), Dp = int64_t(D.Depth);
  bool In = X >= 0 && X + int64_t(EB) * N <= RowBytes && Y >= 0 && Y < H && Z >= 0 && Z < Dp;
  if (!In) {
    if (Oob == 0)
      return SurfaceStatus::OutOfRange;
    if (Oob == 2)
      return SurfaceStatus::Skipped;
    // Clamp: to the last component-sized slot of the row (Texture.cpp says
    // what the H100 recording shows and what is not settled).
    X = clampTo<int64_t>(X, 0, RowBytes - EB);
    Y = clampTo<int64_t>(Y, 0, H - 1);
    Z = clampTo<int64_t>(Z, 0, Dp - 1);
  }
  Row = D.Base + uint64_t(Z) * D.SlicePitch + uint64_t(Y) * D.Pitch;
  return SurfaceStatus::Ok;
}
} // namespace

SurfaceStatus surfaceLoad(const TextureDesc &D, uint32_t Mode, u32x4 Coords, u32x4 &Out) {
  Out = u32x4{0, 0, 0, 0};
  int64_t X;
  const char *Row;
  SurfaceStatus S = surfaceAddress(D, Mode, Coords, X, Row);
  if (S != SurfaceStatus::Ok)
    return S;
  unsigned EB = (Mode >> 12) & 15, N = minOf((Mode >> 16) & 7, 4u);
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  for (unsigned C = 0; C < N; ++C) {
    int64_t At = X + int64_t(C) * EB;
    if (At + EB > RowBytes)
      break; // A clamped vector access: components past the row read 0.
    Out[C] = loadBytes(Row + At, EB);
  }
  return SurfaceStatus::Ok;
}

SurfaceStatus surfaceStore(const TextureDesc &D, uint32_t Mode, u32x4 Coords, u32x4 Vals) {
  int64_t X;
  const char *Row;
  SurfaceStatus S = surfaceAddress(D, Mode, Coords, X, Row);
  if (S != SurfaceStatus::Ok)
    return S;
  unsigned EB = (Mode >> 12) & 15, N = minOf((Mode >> 16) & 7, 4u);
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  for (unsigned C = 0; C < N; ++C) {
    int64_t At = X + int64_t(C) * EB;
    if (At + EB > RowBytes)
      break;
    storeBytes(const_cast<char *>(Row) + At, EB, Vals[C]);
  }
  return SurfaceStatus::Ok;
}

} // namespace ferry::devtex

//===----------------------------------------------------------------------===//
// The entry points compiled kernels call (hsa/LowerTexture.cpp).
//===----------------------------------------------------------------------===//

using namespace ferry;
using namespace ferry::devtex;

namespace {
/// The descriptor behind a handle; a null or foreign one traps, as the
/// host backend faults the launch (only the first word is read first).
const TextureDesc &descriptor(uint64_t Handle, uint32_t Want, bool Either) {
  const auto *D = reinterpret_cast<const TextureDesc *>(uintptr_t(Handle));
  if (!D)
    __builtin_trap();
  uint32_t Magic = D->Magic;
  if (Magic != Want &&
      !(Either && (Magic == TextureDesc::TextureMagic || Magic == TextureDesc::SurfaceMagic)))
    __builtin_trap();
  return *D;
}

void surfaceFault(SurfaceStatus S) {
  if (S == SurfaceStatus::OutOfRange || S == SurfaceStatus::Misaligned)
    __builtin_trap();
}
} // namespace

extern "C" {

u32x4 __ferry_tex(uint64_t Handle, uint32_t Mode, u32x4 Coords) {
  return fetch(descriptor(Handle, TextureDesc::TextureMagic, false), Mode, Coords);
}

u32x4 __ferry_tld4(uint64_t Handle, uint32_t Mode, u32x4 Coords) {
  return gather(descriptor(Handle, TextureDesc::TextureMagic, false), Mode, Coords);
}

int32_t __ferry_txq(uint64_t Handle, uint32_t Query) {
  return query(descriptor(Handle, TextureDesc::TextureMagic, true), Query);
}

int32_t __ferry_suq(uint64_t Handle, uint32_t Query) {
  return query(descriptor(Handle, TextureDesc::SurfaceMagic, true), Query);
}

u32x4 __ferry_suld(uint64_t Handle, uint32_t Mode, u32x4 Coords) {
  u32x4 Out;
  surfaceFault(surfaceLoad(descriptor(Handle, TextureDesc::SurfaceMagic, false), Mode, Coords, Out));
  return Out;
}

void __ferry_sust(uint64_t Handle, uint32_t Mode, u32x4 Coords, u32x4 Vals) {
  surfaceFault(surfaceStore(descriptor(Handle, TextureDesc::SurfaceMagic, false), Mode, Coords, Vals));
}

} // extern "C"
