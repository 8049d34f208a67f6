/// \file
/// The host backend's texture and surface semantics against the CUDA
/// programming guide's texture-fetching appendix and the PTX ISA's
/// surface rules: address modes, 8-bit fixed-point filtering weights,
/// format conversions (unorm/snorm/half/sRGB), layered and 3D fetches,
/// tld4's texel order, and surface boundary modes. Descriptors point at
/// plain host buffers, as libcuda's do on the host backend.
#include "host/exec/Texture.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

using namespace ferry;
using namespace ferry::host::tex;

namespace {

uint32_t fbits(float F) { return std::bit_cast<uint32_t>(F); }
float fval(uint32_t B) { return std::bit_cast<float>(B); }

/// Mode words (SimtIntrinsics.def).
constexpr uint32_t Tex1d = 0, Tex2d = 1, Tex3d = 2, TexA1d = 3, TexA2d = 4, IntCoords = 1u << 4;
uint32_t surfMode(uint32_t Geom, unsigned ElemBytes, unsigned Count, unsigned Oob) {
  return Geom | (ElemBytes << 12) | (Count << 16) | (Oob << 20);
}

template <typename T> TextureDesc desc(std::vector<T> &Data, TexelType Type, unsigned Channels,
                                       uint64_t W, uint64_t H = 1, uint64_t D = 1) {
  TextureDesc Desc;
  Desc.Magic = TextureDesc::TextureMagic;
  Desc.Type = Type;
  Desc.Channels = uint8_t(Channels);
  Desc.Dims = D > 1 ? 3 : H > 1 ? 2 : 1;
  Desc.Base = reinterpret_cast<char *>(Data.data());
  Desc.Width = W;
  Desc.Height = H;
  Desc.Depth = D;
  Desc.Pitch = W * Desc.elementBytes();
  Desc.SlicePitch = Desc.Pitch * H;
  return Desc;
}

float sample1(const TextureDesc &D, uint32_t Mode, float X, float Y = 0, float Z = 0, uint32_t Layer = 0) {
  uint32_t C[4] = {fbits(X), fbits(Y), fbits(Z), 0};
  if ((Mode & 15) == TexA1d)
    C[1] = Layer;
  if ((Mode & 15) == TexA2d)
    C[2] = Layer;
  uint32_t Out[4];
  fetch(D, Mode, C, Out);
  return fval(Out[0]);
}

} // namespace

TEST(TextureAddressing, ModesOnIndices) {
  // Wrap: modulo N, negative indices too.
  EXPECT_EQ(addressIndex(-1, 4, TexAddress::Wrap, true), 3);
  EXPECT_EQ(addressIndex(9, 4, TexAddress::Wrap, true), 1);
  // Mirror: 0 1 2 3 | 3 2 1 0 | 0 1 ...
  EXPECT_EQ(addressIndex(4, 4, TexAddress::Mirror, true), 3);
  EXPECT_EQ(addressIndex(7, 4, TexAddress::Mirror, true), 0);
  EXPECT_EQ(addressIndex(8, 4, TexAddress::Mirror, true), 0);
  EXPECT_EQ(addressIndex(-1, 4, TexAddress::Mirror, true), 0);
  EXPECT_EQ(addressIndex(-5, 4, TexAddress::Mirror, true), 3);
  // Clamp and border.
  EXPECT_EQ(addressIndex(-3, 4, TexAddress::Clamp, false), 0);
  EXPECT_EQ(addressIndex(10, 4, TexAddress::Clamp, false), 3);
  EXPECT_EQ(addressIndex(4, 4, TexAddress::Border, false), -1);
  EXPECT_EQ(addressIndex(-1, 4, TexAddress::Border, false), -1);
  EXPECT_EQ(addressIndex(2, 4, TexAddress::Border, false), 2);
  // Wrap and mirror need normalised coordinates; otherwise they clamp.
  EXPECT_EQ(addressIndex(-1, 4, TexAddress::Wrap, false), 0);
  EXPECT_EQ(addressIndex(5, 4, TexAddress::Mirror, false), 3);
}

TEST(TextureAddressing, FloorIndex) {
  EXPECT_EQ(floorIndex(-0.25f), -1);
  EXPECT_EQ(floorIndex(3.999f), 3);
  EXPECT_EQ(floorIndex(NAN), 0);
  EXPECT_EQ(floorIndex(INFINITY), int64_t(1) << 30);
}

TEST(TextureFiltering, WeightsAreEightBitFixedPoint) {
  EXPECT_EQ(quantizeWeight(0.25f), 0.25f);
  EXPECT_EQ(quantizeWeight(1.f / 3.f), 85.f / 256.f);
  EXPECT_EQ(quantizeWeight(0.999f), 1.f); // 9-bit format: 256/256 is representable.
  EXPECT_EQ(quantizeWeight(0.001f), 0.f);
  // Halves round up (measured on an H100: 4.5/256 → 5/256).
  EXPECT_EQ(quantizeWeight(4.5f / 256.f), 5.f / 256.f);
  EXPECT_EQ(quantizeWeight(10.5f / 256.f), 11.f / 256.f);
}

TEST(TextureFiltering, Linear1D) {
  std::vector<float> Data = {0.f, 1.f, 4.f, 9.f};
  TextureDesc D = desc(Data, TexelType::F32, 1, 4);
  D.FilterLinear = true;
  // Texel centres at i + 0.5: halfway between texels 0 and 1 is x = 1.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 1.f), 0.5f);
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 2.5f), 4.f);
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 2.75f), 4.f + 0.25f * 5.f);
  // The weight of a third is 85/256, not 1/3.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 0.5f + 1.f / 3.f), 85.f / 256.f);
  // Clamp: below the first centre reads texel 0, past the last texel 3.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, -3.f), 0.f);
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 10.f), 9.f);
  // Border: the outside texel is the border colour (0), blended in.
  D.Address[0] = TexAddress::Border;
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 4.f), 4.5f);
  D.Border[0] = 2.f;
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 4.f), 5.5f);
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, -1.f), 2.f);
}

TEST(TextureFiltering, NormalizedWrapAndMirror) {
  std::vector<float> Data = {10.f, 20.f, 30.f, 40.f};
  TextureDesc D = desc(Data, TexelType::F32, 1, 4);
  D.NormalizedCoords = true;
  D.Address[0] = TexAddress::Wrap;
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 1.125f), 10.f); // 4.5 → texel 4 wraps to 0.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, -0.125f), 40.f);
  D.FilterLinear = true;
  // x = 0 lies between texel 3 (wrapped -1) and texel 0.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 0.f), 25.f);
  D.Address[0] = TexAddress::Mirror;
  D.FilterLinear = false;
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 1.125f), 40.f); // Index 4 mirrors to 3.
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, -0.125f), 10.f);
}

TEST(TextureFiltering, Bilinear2DAndPoint) {
  std::vector<float> Data = {0.f, 1.f, 2.f, 3.f}; // 2x2: row 0 = 0 1, row 1 = 2 3.
  TextureDesc D = desc(Data, TexelType::F32, 1, 2, 2);
  EXPECT_FLOAT_EQ(sample1(D, Tex2d, 1.5f, 0.5f), 1.f);
  EXPECT_FLOAT_EQ(sample1(D, Tex2d, 0.2f, 1.9f), 2.f);
  D.FilterLinear = true;
  EXPECT_FLOAT_EQ(sample1(D, Tex2d, 1.f, 1.f), 1.5f);
  // x = 0.25 is left of texel 0's centre: clamping makes both columns 0.
  EXPECT_FLOAT_EQ(sample1(D, Tex2d, 0.25f, 1.f), 1.f);
  EXPECT_FLOAT_EQ(sample1(D, Tex2d, 1.25f, 1.f), 0.5f * 0.75f + 0.5f * (0.25f * 2.f + 0.75f * 3.f));
}

TEST(TextureFiltering, Trilinear3D) {
  std::vector<float> Data(8);
  for (int I = 0; I < 8; ++I)
    Data[I] = float(I); // x + 2y + 4z
  TextureDesc D = desc(Data, TexelType::F32, 1, 2, 2, 2);
  D.FilterLinear = true;
  EXPECT_FLOAT_EQ(sample1(D, Tex3d, 1.f, 1.f, 1.f), 3.5f);
  EXPECT_FLOAT_EQ(sample1(D, Tex3d, 1.f, 0.5f, 1.5f), 0.5f + 4.f);
  D.FilterLinear = false;
  EXPECT_FLOAT_EQ(sample1(D, Tex3d, 1.5f, 1.5f, 0.5f), 3.f);
}

TEST(TextureFormats, NormalizedIntegers) {
  std::vector<uint8_t> U8 = {0, 128, 255, 7};
  TextureDesc D = desc(U8, TexelType::U8, 4, 1);
  D.ReadNormalized = true;
  uint32_t C[4] = {fbits(0.5f), 0, 0, 0}, Out[4];
  fetch(D, Tex1d, C, Out);
  EXPECT_FLOAT_EQ(fval(Out[0]), 0.f);
  EXPECT_FLOAT_EQ(fval(Out[1]), 128.f / 255.f);
  EXPECT_FLOAT_EQ(fval(Out[2]), 1.f);
  EXPECT_FLOAT_EQ(fval(Out[3]), 7.f / 255.f);

  std::vector<int8_t> S8 = {-128, -127, 127, 0};
  D = desc(S8, TexelType::S8, 4, 1);
  D.ReadNormalized = true;
  fetch(D, Tex1d, C, Out);
  EXPECT_FLOAT_EQ(fval(Out[0]), -1.f); // -128 clamps to -1.
  EXPECT_FLOAT_EQ(fval(Out[1]), -1.f);
  EXPECT_FLOAT_EQ(fval(Out[2]), 1.f);
  EXPECT_FLOAT_EQ(fval(Out[3]), 0.f);

  std::vector<uint16_t> U16 = {65535, 0};
  D = desc(U16, TexelType::U16, 2, 1);
  D.ReadNormalized = true;
  fetch(D, Tex1d, C, Out);
  EXPECT_FLOAT_EQ(fval(Out[0]), 1.f);
  EXPECT_EQ(Out[2], 0u); // Missing channels read 0, alpha too (as on an H100).
  EXPECT_EQ(Out[3], 0u);

  std::vector<int16_t> S16 = {-32767, 16384};
  D = desc(S16, TexelType::S16, 2, 1);
  D.ReadNormalized = true;
  fetch(D, Tex1d, C, Out);
  EXPECT_FLOAT_EQ(fval(Out[0]), -1.f);
  EXPECT_FLOAT_EQ(fval(Out[1]), 16384.f / 32767.f);
}

TEST(TextureFormats, ElementTypeIntegers) {
  std::vector<int8_t> S8 = {-5, 3};
  TextureDesc D = desc(S8, TexelType::S8, 2, 1);
  uint32_t C[4] = {0, 0, 0, 0}, Out[4];
  fetch(D, Tex1d | IntCoords, C, Out);
  EXPECT_EQ(Out[0], 0xFFFFFFFBu); // Sign-extended.
  EXPECT_EQ(Out[1], 3u);
  EXPECT_EQ(Out[2], 0u);
  EXPECT_EQ(Out[3], 0u);
  std::vector<uint16_t> U16 = {0xFFFF};
  D = desc(U16, TexelType::U16, 1, 1);
  fetch(D, Tex1d | IntCoords, C, Out);
  EXPECT_EQ(Out[0], 0xFFFFu); // Zero-extended.
  // Linear filtering does not apply to integer results.
  std::vector<int32_t> I32 = {10, 20};
  D = desc(I32, TexelType::S32, 1, 2);
  D.FilterLinear = true;
  uint32_t F[4] = {fbits(1.f), 0, 0, 0};
  fetch(D, Tex1d, F, Out);
  EXPECT_EQ(Out[0], 20u);
}

TEST(TextureFormats, HalfAndSrgb) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.f);
  EXPECT_EQ(halfToFloat(0xC000), -2.f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.f, -24));
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_NEAR(srgbToLinear(0.5f), 0.21404f, 1e-5);
  EXPECT_FLOAT_EQ(srgbToLinear(0.04f), 0.04f / 12.92f);

  std::vector<uint16_t> H = {0x3800, 0x4200}; // 0.5, 3.0
  TextureDesc D = desc(H, TexelType::F16, 1, 2);
  D.FilterLinear = true;
  EXPECT_FLOAT_EQ(sample1(D, Tex1d, 1.f), 1.75f);

  std::vector<uint8_t> Rgba = {128, 128, 128, 128};
  D = desc(Rgba, TexelType::U8, 4, 1);
  D.ReadNormalized = true;
  D.Srgb = true;
  uint32_t C[4] = {fbits(0.5f), 0, 0, 0}, Out[4];
  fetch(D, Tex1d, C, Out);
  EXPECT_NEAR(fval(Out[0]), srgbToLinear(128.f / 255.f), 1e-6);
  EXPECT_FLOAT_EQ(fval(Out[3]), 128.f / 255.f); // Alpha stays linear.
}

TEST(TextureFetch, BorderColourOfIntegerTextures) {
  // An H100 returns the border colour's float bits for the format's
  // channels and 0 for the others.
  std::vector<int32_t> Data = {1, 2};
  TextureDesc D = desc(Data, TexelType::S32, 1, 2);
  D.Address[0] = TexAddress::Border;
  D.Border[0] = 3.f;
  D.Border[3] = -2.5f;
  uint32_t C[4] = {fbits(-1.f), 0, 0, 0}, Out[4];
  fetch(D, Tex1d, C, Out);
  EXPECT_EQ(Out[0], fbits(3.f));
  EXPECT_EQ(Out[3], 0u);
}

TEST(TextureFetch, LinearMemoryOutOfRangeIsZero) {
  std::vector<int32_t> Data = {7, 8, 9};
  TextureDesc D = desc(Data, TexelType::S32, 1, 3);
  D.LinearMemory = true;
  uint32_t C[4] = {2, 0, 0, 0}, Out[4];
  fetch(D, Tex1d | IntCoords, C, Out);
  EXPECT_EQ(Out[0], 9u);
  C[0] = 3;
  fetch(D, Tex1d | IntCoords, C, Out);
  EXPECT_EQ(Out[0], 0u);
  C[0] = uint32_t(-1);
  fetch(D, Tex1d | IntCoords, C, Out);
  EXPECT_EQ(Out[0], 0u);
}

TEST(TextureFetch, LayeredArrays) {
  std::vector<float> Data = {1, 2, 10, 20, 100, 200}; // 2 wide, 3 layers
  TextureDesc D = desc(Data, TexelType::F32, 1, 2, 1, 3);
  D.Layered = true;
  D.Dims = 1;
  D.FilterLinear = true;
  EXPECT_FLOAT_EQ(sample1(D, TexA1d, 1.f, 0, 0, 1), 15.f);
  EXPECT_FLOAT_EQ(sample1(D, TexA1d, 1.f, 0, 0, 2), 150.f);
  EXPECT_FLOAT_EQ(sample1(D, TexA1d, 1.f, 0, 0, 9), 150.f); // Layer clamps.
  // 2D layered: 1x1 texels, 2 layers.
  std::vector<float> L2 = {5, 6};
  TextureDesc D2 = desc(L2, TexelType::F32, 1, 1, 1, 2);
  D2.Layered = true;
  D2.Dims = 2;
  EXPECT_FLOAT_EQ(sample1(D2, TexA2d, 0.5f, 0.5f, 0, 1), 6.f);
}

TEST(TextureFetch, GatherOrder) {
  std::vector<float> Data = {0, 1, 2, 3}; // (0,0)=0 (1,0)=1 (0,1)=2 (1,1)=3
  TextureDesc D = desc(Data, TexelType::F32, 1, 2, 2);
  uint32_t C[4] = {fbits(1.f), fbits(1.f), 0, 0}, Out[4];
  gather(D, Tex2d, C, Out);
  // (i0,j1) (i1,j1) (i1,j0) (i0,j0)
  EXPECT_FLOAT_EQ(fval(Out[0]), 2.f);
  EXPECT_FLOAT_EQ(fval(Out[1]), 3.f);
  EXPECT_FLOAT_EQ(fval(Out[2]), 1.f);
  EXPECT_FLOAT_EQ(fval(Out[3]), 0.f);
}

TEST(TextureQuery, Txq) {
  std::vector<float> Data(6);
  TextureDesc D = desc(Data, TexelType::F32, 2, 3, 1);
  D.NormalizedCoords = true;
  D.Address[1] = TexAddress::Border;
  EXPECT_EQ(query(D, 0), 3);
  EXPECT_EQ(query(D, 1), 1);
  EXPECT_EQ(query(D, 4), 0x10B2); // CL_RG
  EXPECT_EQ(query(D, 3), 0x10DE); // CL_FLOAT
  EXPECT_EQ(query(D, 5), 1);
  EXPECT_EQ(query(D, 8), 3);
}

TEST(Surface, StoreLoadAndBoundaryModes) {
  std::vector<float> Data(4 * 3 * 2, 0.f); // float2 texels, 4 wide, 3 high
  TextureDesc D = desc(Data, TexelType::F32, 2, 4, 3);
  D.Magic = TextureDesc::SurfaceMagic;
  uint32_t Vals[4] = {fbits(1.5f), fbits(-2.f), 0, 0};
  uint32_t C[4] = {3 * 8, 2, 0, 0}; // x in bytes
  ASSERT_EQ(SurfaceStatus::Ok, surfaceStore(D, surfMode(Tex2d, 4, 2, 0), C, Vals));
  EXPECT_EQ(Data[(2 * 4 + 3) * 2], 1.5f);
  EXPECT_EQ(Data[(2 * 4 + 3) * 2 + 1], -2.f);
  uint32_t Out[4];
  ASSERT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex2d, 4, 2, 0), C, Out));
  EXPECT_EQ(fval(Out[0]), 1.5f);
  EXPECT_EQ(fval(Out[1]), -2.f);
  // Trap mode out of range fails; zero mode reads zeros and drops stores.
  uint32_t Far[4] = {4 * 8, 2, 0, 0};
  EXPECT_EQ(SurfaceStatus::OutOfRange, surfaceLoad(D, surfMode(Tex2d, 4, 2, 0), Far, Out));
  EXPECT_EQ(SurfaceStatus::OutOfRange, surfaceStore(D, surfMode(Tex2d, 4, 2, 0), Far, Vals));
  ASSERT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex2d, 4, 2, 2), Far, Out));
  EXPECT_EQ(Out[0], 0u);
  EXPECT_EQ(Out[1], 0u);
  ASSERT_EQ(SurfaceStatus::Ok, surfaceStore(D, surfMode(Tex2d, 4, 2, 2), Far, Vals));
  // Clamp: x clamps to the last 4-byte slot of the row (what an H100
  // returns for a clamped float2 read: the last texel's y), y to the last row.
  uint32_t Clamped[4] = {1000, 7, 0, 0};
  ASSERT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex2d, 4, 2, 1), Clamped, Out));
  EXPECT_EQ(fval(Out[0]), -2.f);
  EXPECT_EQ(Out[1], 0u);
  // x must be a multiple of the access size, in every mode.
  uint32_t Odd[4] = {4, 0, 0, 0};
  EXPECT_EQ(SurfaceStatus::Misaligned, surfaceLoad(D, surfMode(Tex2d, 4, 2, 1), Odd, Out));
  EXPECT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex2d, 4, 1, 1), Odd, Out));
  // A negative y clamps to row 0.
  uint32_t Neg[4] = {0, uint32_t(-4), 0, 0};
  Data[0] = 9.f;
  ASSERT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex2d, 4, 1, 1), Neg, Out));
  EXPECT_EQ(fval(Out[0]), 9.f);
}

TEST(Surface, ThreeDimensionalAndNarrowElements) {
  std::vector<uint8_t> Data(2 * 2 * 2, 0);
  TextureDesc D = desc(Data, TexelType::U8, 1, 2, 2, 2);
  D.Magic = TextureDesc::SurfaceMagic;
  uint32_t C[4] = {1, 1, 1, 0}, Vals[4] = {0x1FF, 0, 0, 0}, Out[4];
  ASSERT_EQ(SurfaceStatus::Ok, surfaceStore(D, surfMode(Tex3d, 1, 1, 0), C, Vals));
  EXPECT_EQ(Data[7], 0xFF); // Only the low byte is stored.
  ASSERT_EQ(SurfaceStatus::Ok, surfaceLoad(D, surfMode(Tex3d, 1, 1, 0), C, Out));
  EXPECT_EQ(Out[0], 0xFFu); // Zero-extended.
  uint32_t Z[4] = {0, 0, 2, 0};
  EXPECT_EQ(SurfaceStatus::OutOfRange, surfaceLoad(D, surfMode(Tex3d, 1, 1, 0), Z, Out));
}
