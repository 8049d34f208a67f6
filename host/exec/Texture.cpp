/// \file
/// Texture fetches, gathers, queries and surface loads/stores for kernels
/// on the host backend (Texture.h says whose semantics), and the runtime
/// entry points compiled kernels call for them. One call per fetch: the
/// descriptor decides format, addressing and filtering at run time, as the
/// texture unit does, so the compiled kernel needs nothing per texture.
/// The arithmetic of a fetch (an H100's, bit for bit) is in
/// libcuda/TextureMath.h, shared with the AMD backend's device sampler.
#include "host/exec/Texture.h"

#include "host/exec/ExecInternal.h"
#include "libcuda/TextureMath.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace ferry::host::tex {

namespace {

enum Geometry : uint32_t { G1d, G2d, G3d, GA1d, GA2d, GCube, GACube, G2dms, GA2dms };

/// Where a fetch or surface access lands: texel coordinates per axis plus
/// the layer, from the mode's geometry (SimtIntrinsics.def's coordinate
/// order: x, y, z, then the layer for arrays).
struct Axes {
  unsigned Count = 1;  ///< Spatial coordinates used (1..3).
  int Layer = -1;      ///< Index into Coords of the layer, -1 when none.
  bool Supported = true;
};

Axes axesOf(uint32_t Mode) {
  switch (Mode & 15) {
  case G1d: return {1, -1};
  case G2d:
  case G2dms: return {2, -1};
  case G3d: return {3, -1};
  case GA1d: return {1, 1};
  case GA2d:
  case GA2dms: return {2, 2};
  case GCube: return {3, -1};
  case GACube: return {3, 3};
  default: return {2, 2, false};
  }
}

uint64_t extent(const TextureDesc &D, unsigned Axis) {
  return Axis == 0 ? D.Width : Axis == 1 ? D.Height : D.Layered ? 1 : D.Depth;
}

const char *texelAddress(const TextureDesc &D, int64_t I, int64_t J, int64_t K) {
  return D.Base + uint64_t(K) * D.SlicePitch + uint64_t(J) * D.Pitch + uint64_t(I) * D.elementBytes();
}

using texmath::floatBits;

int64_t layerOf(const TextureDesc &D, const Axes &A, const uint32_t Coords[4]) {
  if (!D.Layered || A.Layer < 0)
    return 0;
  return texmath::clampLayer(Coords[A.Layer], D.Depth);
}

/// A coordinate of a fetch in texels (texmath::texelCoordinate).
double texelCoordinate(const TextureDesc &D, float X, unsigned Axis) {
  return texmath::texelCoordinate(X, extent(D, Axis), D.NormalizedCoords);
}

/// The texel at integer indices (already addressed; -1 marks a border
/// texel on any axis), all four channels.
void texel(const TextureDesc &D, const int64_t Idx[3], int64_t Layer, uint32_t Out[4]) {
  bool Border = Idx[0] < 0 || Idx[1] < 0 || Idx[2] < 0;
  int64_t K = D.Layered ? Layer : Idx[2];
  for (unsigned C = 0; C < 4; ++C)
    Out[C] = Border ? texmath::borderChannel(D, C) : texelChannel(D, Idx[0], Idx[1], K, C);
}

} // namespace

int64_t floorIndex(float X) {
  if (std::isnan(X))
    return 0;
  float F = std::floor(X);
  constexpr float Lim = float(1 << 30);
  return int64_t(std::clamp(F, -Lim, Lim));
}

// Halves round up: an H100 gives 5/256 for a fraction of 4.5/256.
float quantizeWeight(float Frac) { return std::floor(Frac * 256.f + 0.5f) / 256.f; }

int64_t addressIndex(int64_t I, int64_t N, TexAddress M, bool Normalized) {
  if (!Normalized && (M == TexAddress::Wrap || M == TexAddress::Mirror))
    M = TexAddress::Clamp; // Documented: wrap and mirror need normalised coordinates.
  switch (M) {
  case TexAddress::Wrap: return ((I % N) + N) % N;
  case TexAddress::Mirror: {
    int64_t P = ((I % (2 * N)) + 2 * N) % (2 * N);
    return P < N ? P : 2 * N - 1 - P;
  }
  case TexAddress::Border: return I < 0 || I >= N ? -1 : I;
  case TexAddress::Clamp: break;
  }
  return std::clamp<int64_t>(I, 0, N - 1);
}

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Man = H & 0x3ff;
  if (Exp == 0) {
    // Zero or subnormal: Man * 2^-24.
    float F = std::ldexp(float(Man), -24);
    return Sign ? -F : F;
  }
  if (Exp == 31)
    return std::bit_cast<float>(Sign | 0x7f800000u | (Man << 13));
  return std::bit_cast<float>(Sign | ((Exp + 112) << 23) | (Man << 13));
}

float srgbToLinear(float C) {
  return C <= 0.04045f ? C / 12.92f : std::pow((C + 0.055f) / 1.055f, 2.4f);
}

uint32_t texelChannel(const TextureDesc &D, int64_t I, int64_t J, int64_t K, unsigned C) {
  bool Float = D.floatResults();
  if (C >= D.Channels)
    return 0; // Measured on an H100: missing channels, alpha included, read 0.
  const char *P = texelAddress(D, I, J, K) + C * texelTypeBytes(D.Type);
  switch (D.Type) {
  case TexelType::F32: {
    uint32_t V;
    std::memcpy(&V, P, 4);
    return V;
  }
  case TexelType::F16: {
    uint16_t V;
    std::memcpy(&V, P, 2);
    return floatBits(halfToFloat(V));
  }
  case TexelType::U8: {
    uint8_t V = uint8_t(*P);
    if (!Float)
      return V;
    float F = V / 255.f;
    return floatBits(D.Srgb && C < 3 ? srgbToLinear(F) : F);
  }
  case TexelType::S8: {
    int8_t V = int8_t(*P);
    return Float ? floatBits(std::max(V / 127.f, -1.f)) : uint32_t(int32_t(V));
  }
  case TexelType::U16: {
    uint16_t V;
    std::memcpy(&V, P, 2);
    return Float ? floatBits(V / 65535.f) : V;
  }
  case TexelType::S16: {
    int16_t V;
    std::memcpy(&V, P, 2);
    return Float ? floatBits(std::max(V / 32767.f, -1.f)) : uint32_t(int32_t(V));
  }
  case TexelType::U32:
  case TexelType::S32: {
    uint32_t V;
    std::memcpy(&V, P, 4);
    return V;
  }
  }
  return 0;
}

void fetch(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]) {
  Axes A = axesOf(Mode);
  std::fill(Out, Out + 4, 0u);
  if (!A.Supported)
    return;
  bool Cube = (Mode & 15) == GCube || (Mode & 15) == GACube;
  if (Cube) {
    // Sampled as the 2D face, a layer of the array (texmath::cubeFaceDesc).
    if (!D.Cubemap)
      return;
    float Dir[3], U[2];
    for (unsigned Ax = 0; Ax < 3; ++Ax)
      Dir[Ax] = std::bit_cast<float>(Coords[Ax]);
    int64_t Face;
    texmath::cubeCoordinates(Dir, U, Face);
    int64_t L = (Mode & 15) == GACube ? texmath::clampLayer(Coords[3], D.Depth / 6) : 0;
    TextureDesc F = texmath::cubeFaceDesc(D);
    uint32_t C2[4] = {std::bit_cast<uint32_t>(U[0]), std::bit_cast<uint32_t>(U[1]), uint32_t(Face + 6 * L), 0};
    fetch(F, GA2d, C2, Out);
    return;
  }
  int64_t Layer = layerOf(D, A, Coords);
  bool IntCoords = Mode & (1u << 4);
  if (IntCoords) {
    // Integer coordinates (tex1Dfetch, texel fetches): no filtering. Over
    // linear memory an index outside the buffer reads zero, as documented
    // for tex1Dfetch; arrays address it with the sampler's modes.
    int64_t Idx[3] = {0, 0, 0};
    for (unsigned Ax = 0; Ax < A.Count; ++Ax) {
      int64_t I = int32_t(Coords[Ax]), N = int64_t(extent(D, Ax));
      if (D.LinearMemory) {
        if (I < 0 || I >= N)
          return;
        Idx[Ax] = I;
      } else {
        Idx[Ax] = addressIndex(I, N, D.Address[Ax], D.NormalizedCoords);
      }
    }
    texel(D, Idx, Layer, Out);
    return;
  }
  double U[3];
  for (unsigned Ax = 0; Ax < 3; ++Ax)
    U[Ax] = Ax < A.Count ? texelCoordinate(D, std::bit_cast<float>(Coords[Ax]), Ax) : 0.0;
  if (!D.FilterLinear || !D.floatResults()) {
    int64_t Idx[3] = {0, 0, 0};
    for (unsigned Ax = 0; Ax < A.Count; ++Ax)
      Idx[Ax] = addressIndex(texmath::floorIndex(U[Ax]), int64_t(extent(D, Ax)), D.Address[Ax], D.NormalizedCoords);
    texel(D, Idx, Layer, Out);
    return;
  }
  // Linear filtering of the 2^Count texels around U - 0.5. A plain 1D
  // texture filters as 2D, one texel high, at y = 0 (TextureMath.h).
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
  uint32_t T[8][4];
  for (unsigned Corner = 0; Corner < Corners; ++Corner) {
    int64_t Idx[3] = {0, 0, 0};
    for (unsigned Ax = 0; Ax < Count; ++Ax)
      Idx[Ax] = Corner & (1u << Ax) ? Hi[Ax] : Lo[Ax];
    if (W[Corner])
      texel(D, Idx, Layer, T[Corner]);
  }
  for (unsigned C = 0; C < 4; ++C) {
    if (C >= D.Channels)
      continue; // Channels the format lacks read 0, filtered or not.
    float V[8];
    for (unsigned Corner = 0; Corner < Corners; ++Corner)
      V[Corner] = W[Corner] ? std::bit_cast<float>(T[Corner][C]) : 0.f;
    Out[C] = texmath::filteredChannel(D, W, V, Corners);
  }
}

void gather(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]) {
  Axes A = axesOf(Mode);
  std::fill(Out, Out + 4, 0u);
  if (!A.Supported || A.Count != 2)
    return; // tld4 of cubemaps is refused where the texture is lowered.
  int64_t Layer = layerOf(D, A, Coords);
  unsigned Comp = (Mode >> 8) & 3;
  int64_t I[2], J[2];
  for (unsigned Ax = 0; Ax < 2; ++Ax) {
    int64_t I0, N = int64_t(extent(D, Ax));
    texmath::upperWeight(texelCoordinate(D, std::bit_cast<float>(Coords[Ax]), Ax), I0);
    int64_t *Dst = Ax == 0 ? I : J;
    Dst[0] = addressIndex(I0, N, D.Address[Ax], D.NormalizedCoords);
    Dst[1] = addressIndex(I0 + 1, N, D.Address[Ax], D.NormalizedCoords);
  }
  const int64_t Order[4][2] = {{I[0], J[1]}, {I[1], J[1]}, {I[1], J[0]}, {I[0], J[0]}};
  for (unsigned K = 0; K < 4; ++K) {
    int64_t Idx[3] = {Order[K][0], Order[K][1], 0};
    uint32_t T[4];
    texel(D, Idx, Layer, T);
    Out[K] = T[Comp];
  }
}

int32_t query(const TextureDesc &D, uint32_t Q) {
  // Channel type and order use OpenCL's enumerations, as PTX's txq does.
  auto DataType = [&]() -> int32_t {
    bool Norm = D.ReadNormalized;
    switch (D.Type) {
    case TexelType::U8: return Norm ? 0x10D2 : 0x10DA;
    case TexelType::S8: return Norm ? 0x10D0 : 0x10D7;
    case TexelType::U16: return Norm ? 0x10D3 : 0x10DB;
    case TexelType::S16: return Norm ? 0x10D1 : 0x10D8;
    case TexelType::U32: return 0x10DC;
    case TexelType::S32: return 0x10D9;
    case TexelType::F16: return 0x10DD;
    case TexelType::F32: return 0x10DE;
    }
    return 0;
  };
  switch (Q) {
  case 0: return int32_t(D.Width);
  case 1: return int32_t(D.Height);
  case 2: return D.Layered ? 1 : int32_t(D.Depth);
  case 3: return DataType();
  case 4: return D.Channels == 1 ? 0x10B0 : D.Channels == 2 ? 0x10B2 : 0x10B5; // CL_R, CL_RG, CL_RGBA
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
/// A surface access resolved to an address, or to nothing (zero mode /
/// out of range), or to a trap.
enum class SurfAt { Ok, Skip, Trap, Misaligned };

SurfAt surfaceAddress(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], int64_t &X,
                      int64_t &Row, int64_t &Slice) {
  Axes A = axesOf(Mode);
  unsigned EB = (Mode >> 12) & 15, N = (Mode >> 16) & 7, Oob = (Mode >> 20) & 3;
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  X = int32_t(Coords[0]);
  if (X % int64_t(EB * N))
    return SurfAt::Misaligned; // Even in clamp/zero mode, as on an H100.
  int64_t Y = A.Count >= 2 ? int32_t(Coords[1]) : 0;
  int64_t Z = A.Count >= 3 ? int32_t(Coords[2]) : 0;
  if (A.Layer >= 0 && D.Layered)
    Z = int32_t(Coords[A.Layer]);
  int64_t H = int64_t(D.Height), Dp = int64_t(D.Depth);
  bool In = X >= 0 && X + int64_t(EB) * N <= RowBytes && Y >= 0 && Y < H && Z >= 0 && Z < Dp;
  if (!In) {
    if (Oob == 0)
      return SurfAt::Trap;
    if (Oob == 2)
      return SurfAt::Skip;
    // Clamp: to the last component-sized slot of the row. This is what the
    // H100 recording of compat-tests' surface_ops shows for a clamped
    // float2 read of a 64x48 array (its first component is the last
    // texel's y); a probe of height-1 and 4x4 arrays returned the whole
    // last texel instead, so the rule for vector reads is not settled.
    X = std::clamp<int64_t>(X, 0, RowBytes - EB);
    Y = std::clamp<int64_t>(Y, 0, H - 1);
    Z = std::clamp<int64_t>(Z, 0, Dp - 1);
  }
  Row = Y;
  Slice = Z;
  return SurfAt::Ok;
}
} // namespace

SurfaceStatus surfaceLoad(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], uint32_t Out[4]) {
  std::fill(Out, Out + 4, 0u);
  int64_t X, Y, Z;
  SurfAt S = surfaceAddress(D, Mode, Coords, X, Y, Z);
  if (S != SurfAt::Ok)
    return S == SurfAt::Skip ? SurfaceStatus::Ok : S == SurfAt::Trap ? SurfaceStatus::OutOfRange : SurfaceStatus::Misaligned;
  unsigned EB = (Mode >> 12) & 15, N = std::min((Mode >> 16) & 7, 4u);
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  const char *Row = D.Base + uint64_t(Z) * D.SlicePitch + uint64_t(Y) * D.Pitch;
  for (unsigned C = 0; C < N; ++C) {
    int64_t At = X + int64_t(C) * EB;
    if (At + EB > RowBytes)
      break; // A clamped vector access: components past the row read 0.
    uint32_t V = 0;
    std::memcpy(&V, Row + At, EB);
    Out[C] = V;
  }
  return SurfaceStatus::Ok;
}

SurfaceStatus surfaceStore(const TextureDesc &D, uint32_t Mode, const uint32_t Coords[4], const uint32_t Vals[4]) {
  int64_t X, Y, Z;
  SurfAt S = surfaceAddress(D, Mode, Coords, X, Y, Z);
  if (S != SurfAt::Ok)
    return S == SurfAt::Skip ? SurfaceStatus::Ok : S == SurfAt::Trap ? SurfaceStatus::OutOfRange : SurfaceStatus::Misaligned;
  unsigned EB = (Mode >> 12) & 15, N = std::min((Mode >> 16) & 7, 4u);
  int64_t RowBytes = int64_t(D.Width) * D.elementBytes();
  char *Row = D.Base + uint64_t(Z) * D.SlicePitch + uint64_t(Y) * D.Pitch;
  for (unsigned C = 0; C < N; ++C) {
    int64_t At = X + int64_t(C) * EB;
    if (At + EB > RowBytes)
      break;
    std::memcpy(Row + At, &Vals[C], EB); // Little endian: the low EB bytes.
  }
  return SurfaceStatus::Ok;
}

} // namespace ferry::host::tex

using namespace ferry;
using namespace ferry::host;

namespace {

[[noreturn]] void faultLaunch(void *Ctx, CUresult Code, const std::string &Why) {
  auto *B = static_cast<BlockCtx *>(Ctx);
  RunnerBase &R = *static_cast<RunnerBase *>(B->Runner);
  R.L->fault(Code, Why + " in block [" + std::to_string(B->Ctaid[0]) + "," +
                       std::to_string(B->Ctaid[1]) + "," + std::to_string(B->Ctaid[2]) + "]");
  R.abandon();
}

/// The descriptor behind a kernel's handle. A null or foreign handle is
/// what an illegal address would be on a GPU: the launch faults.
const TextureDesc &descriptor(void *Ctx, uint64_t Handle, bool Surface, bool Either = false) {
  const auto *D = reinterpret_cast<const TextureDesc *>(uintptr_t(Handle));
  uint32_t Want = Surface ? TextureDesc::SurfaceMagic : TextureDesc::TextureMagic;
  if (!D || (D->Magic != Want && !(Either && (D->Magic == TextureDesc::TextureMagic ||
                                               D->Magic == TextureDesc::SurfaceMagic))))
    faultLaunch(Ctx, CUDA_ERROR_ILLEGAL_ADDRESS,
                std::string("invalid ") + (Surface ? "surface" : "texture") + " object handle 0x" +
                    [&] {
                      char B[20];
                      std::snprintf(B, sizeof(B), "%llx", static_cast<unsigned long long>(Handle));
                      return std::string(B);
                    }());
  return *D;
}

} // namespace

extern "C" {

void ferry_rt_tex(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out) {
  tex::fetch(descriptor(Ctx, Handle, false), Mode, Coords, Out);
}

void ferry_rt_tld4(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out) {
  tex::gather(descriptor(Ctx, Handle, false), Mode, Coords, Out);
}

int32_t ferry_rt_txq(void *Ctx, uint64_t Handle, uint32_t Query) {
  return tex::query(descriptor(Ctx, Handle, false, true), Query);
}

int32_t ferry_rt_suq(void *Ctx, uint64_t Handle, uint32_t Query) {
  return tex::query(descriptor(Ctx, Handle, true, true), Query);
}

static void surfaceFault(void *Ctx, tex::SurfaceStatus S, const char *What) {
  if (S == tex::SurfaceStatus::OutOfRange)
    faultLaunch(Ctx, CUDA_ERROR_ILLEGAL_ADDRESS, std::string("out-of-range surface ") + What + " (trap mode)");
  if (S == tex::SurfaceStatus::Misaligned)
    faultLaunch(Ctx, CUDA_ERROR_MISALIGNED_ADDRESS,
                std::string("surface ") + What + " x is not a multiple of the access size");
}

void ferry_rt_suld(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, uint32_t *Out) {
  surfaceFault(Ctx, tex::surfaceLoad(descriptor(Ctx, Handle, true), Mode, Coords, Out), "load");
}

void ferry_rt_sust(void *Ctx, uint64_t Handle, uint32_t Mode, const uint32_t *Coords, const uint32_t *Vals) {
  surfaceFault(Ctx, tex::surfaceStore(descriptor(Ctx, Handle, true), Mode, Coords, Vals), "store");
}

} // extern "C"
