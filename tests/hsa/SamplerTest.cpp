/// \file
/// The AMD backend's device-side texture sampler (hsa/device/
/// TextureSampler.cpp), compiled here for the host from the very source
/// clang-14 compiles to amdgcn bitcode, against the host backend's
/// implementation (host/exec/Texture.cpp), which the texture tests check
/// against CUDA's rules and H100 recordings. Exhaustive where the input is
/// small (half floats, 8-bit sRGB, index addressing), random descriptors,
/// modes and coordinates otherwise: fetches (point, linear, integer
/// coordinates, every format, layered, 3D and cubemap, border colours),
/// tld4 gathers, queries and surface loads/stores in the three boundary
/// modes; and every fetch an H100 recorded (tests/texture/data), which
/// the device sampler must reproduce as the host one does.
/// This is what checks the sampler's algorithm without an AMD GPU; the
/// amdgcn build itself is checked by the FileCheck tests and hsa.corpus.
#include "host/exec/Texture.h"
#include "hsa/device/TextureSampler.h"
#include "tests/texture/RecordedFetches.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace ferry;
namespace dev = ferry::devtex;
namespace ref = ferry::host::tex;

namespace {

constexpr uint32_t IntCoords = 1u << 4;

/// Equal bits, or both NaN (the NaN payload an addition keeps is the
/// compiler's operand order, not the sampler's semantics).
bool sameFloatBits(uint32_t A, uint32_t B) {
  return A == B || (std::isnan(std::bit_cast<float>(A)) && std::isnan(std::bit_cast<float>(B)));
}

/// A random descriptor over its own random bytes.
struct RandomTexture {
  TextureDesc D;
  std::vector<char> Data;
  uint32_t Geometry = 0; ///< The mode's geometry matching the resource.
  std::string Text;      ///< For failure messages.

  RandomTexture(std::mt19937 &R, bool Surface) {
    auto Pick = [&](unsigned N) { return unsigned(R() % N); };
    D.Magic = Surface ? TextureDesc::SurfaceMagic : TextureDesc::TextureMagic;
    D.Type = TexelType(Pick(8));
    const unsigned Chans[] = {1, 2, 4};
    D.Channels = uint8_t(Chans[Pick(3)]);
    // 1d, 2d, 3d, a1d, a2d, linear, cubemap, cubemap array (textures).
    unsigned Shape = Pick(Surface ? 6 : 8);
    D.Cubemap = Shape >= 6;
    D.Layered = Shape == 3 || Shape == 4 || D.Cubemap;
    D.LinearMemory = Shape == 5 && !Surface;
    D.Dims = Shape == 2 ? 3 : Shape == 1 || Shape == 4 || D.Cubemap ? 2 : 1;
    D.Width = 1 + Pick(9);
    D.Height = D.Cubemap ? D.Width : D.Dims >= 2 ? 1 + Pick(7) : 1;
    D.Depth = D.Cubemap ? 6 * (Shape == 7 ? 1 + Pick(3) : 1) : D.Dims == 3 || D.Layered ? 1 + Pick(5) : 1;
    const uint32_t Geoms[] = {0, 1, 2, 3, 4, 0, 5, 6};
    Geometry = Geoms[Shape];
    D.Pitch = D.Width * D.elementBytes() + 4 * Pick(3); // Padded rows too.
    D.SlicePitch = D.Pitch * D.Height;
    for (auto &A : D.Address)
      A = TexAddress(Pick(4));
    D.FilterLinear = Pick(2);
    D.NormalizedCoords = Pick(2);
    D.ReadNormalized = Pick(2);
    D.Srgb = D.Type == TexelType::U8 && Pick(3) == 0;
    for (float &B : D.Border)
      B = float(int(Pick(2001)) - 1000) / 256.f;
    Data.resize(D.SlicePitch * D.Depth);
    for (char &C : Data)
      C = char(R());
    // Mostly finite floats: random bytes would make most f32 texels NaN.
    if (D.Type == TexelType::F32 && Pick(4))
      for (size_t I = 0; I + 4 <= Data.size(); I += 4) {
        float F = float(int(R() % 20001) - 10000) / 64.f;
        std::memcpy(&Data[I], &F, 4);
      }
    D.Base = Data.data();
    Text = "type " + std::to_string(int(D.Type)) + " chans " + std::to_string(D.Channels) +
           " shape " + std::to_string(Shape) + " " + std::to_string(D.Width) + "x" +
           std::to_string(D.Height) + "x" + std::to_string(D.Depth) + " addr " +
           std::to_string(int(D.Address[0])) + std::to_string(int(D.Address[1])) +
           std::to_string(int(D.Address[2])) + " linear " + std::to_string(D.FilterLinear) +
           " norm " + std::to_string(D.NormalizedCoords) + " readnorm " +
           std::to_string(D.ReadNormalized) + " srgb " + std::to_string(D.Srgb);
  }
};

uint32_t randomFloatCoord(std::mt19937 &R, const TextureDesc &D, unsigned Axis) {
  uint64_t N = Axis == 0 ? D.Width : Axis == 1 ? D.Height : D.Depth;
  float Span = D.NormalizedCoords ? 1.f : float(N);
  switch (R() % 16) {
  case 0: return std::bit_cast<uint32_t>(std::nanf(""));
  case 1: return std::bit_cast<uint32_t>(R() % 2 ? INFINITY : -INFINITY);
  case 2: return std::bit_cast<uint32_t>(R() % 2 ? 3e9f : -3e9f);
  case 3: // Exactly on texel centres and edges.
    return std::bit_cast<uint32_t>(float(int(R() % (4 * N + 8)) - 8) / 2.f * (Span / float(N)));
  default: {
    float U = float(R() % 1000001) / 1000000.f * 4.f - 1.5f;
    return std::bit_cast<uint32_t>(U * Span);
  }
  }
}

/// A cubemap direction's component: small integers make faces' ties and
/// edges likely, the rest anywhere in [-1.5, 1.5], with NaN, inf and 0.
uint32_t randomDirection(std::mt19937 &R) {
  switch (R() % 12) {
  case 0: return std::bit_cast<uint32_t>(std::nanf(""));
  case 1: return std::bit_cast<uint32_t>(R() % 2 ? INFINITY : -INFINITY);
  case 2: return std::bit_cast<uint32_t>(R() % 2 ? 0.f : -0.f);
  case 3:
  case 4:
  case 5: return std::bit_cast<uint32_t>(float(int(R() % 5) - 2) / 2.f);
  default: return std::bit_cast<uint32_t>(float(R() % 1000001) / 1000000.f * 3.f - 1.5f);
  }
}

dev::u32x4 toVec(const uint32_t C[4]) { return dev::u32x4{C[0], C[1], C[2], C[3]}; }

} // namespace

TEST(HsaSampler, DescriptorLayoutMatchesTheAmdgcnBuild) {
  // TextureSampler.cpp asserts these offsets for both of its builds; here
  // they are checked against the compiler libcuda is built with.
  EXPECT_EQ(offsetof(TextureDesc, Base), 16u);
  EXPECT_EQ(offsetof(TextureDesc, Border), 72u);
  EXPECT_EQ(sizeof(TextureDesc), 88u);
}

TEST(HsaSampler, ScalarHelpersMatchTheHost) {
  for (uint32_t H = 0; H < 65536; ++H)
    ASSERT_TRUE(sameFloatBits(std::bit_cast<uint32_t>(dev::halfToFloat(uint16_t(H))),
                              std::bit_cast<uint32_t>(ref::halfToFloat(uint16_t(H)))))
        << "half 0x" << std::hex << H;
  for (unsigned V = 0; V < 256; ++V)
    EXPECT_EQ(std::bit_cast<uint32_t>(dev::srgbToLinear(float(V) / 255.f)),
              std::bit_cast<uint32_t>(ref::srgbToLinear(float(V) / 255.f)))
        << V;
  for (int64_t N = 1; N <= 9; ++N)
    for (int64_t I = -40; I <= 40; ++I)
      for (unsigned M = 0; M < 4; ++M)
        for (bool Norm : {false, true})
          EXPECT_EQ(dev::addressIndex(I, N, TexAddress(M), Norm),
                    ref::addressIndex(I, N, TexAddress(M), Norm))
              << I << " " << N << " " << M << " " << Norm;
  std::mt19937 R(1);
  for (int K = 0; K < 100000; ++K) {
    float X = std::bit_cast<float>(uint32_t(R()));
    float F = float(R() % (1u << 24)) / float(1u << 24);
    EXPECT_EQ(dev::floorIndex(X), ref::floorIndex(X)) << X;
    EXPECT_EQ(dev::quantizeWeight(F), ref::quantizeWeight(F)) << F;
  }
}

TEST(HsaSampler, FetchesMatchTheHost) {
  std::mt19937 R(2024);
  unsigned Fetches = 0;
  for (int T = 0; T < 3000; ++T) {
    RandomTexture Tx(R, false);
    const TextureDesc &D = Tx.D;
    for (int K = 0; K < 60; ++K) {
      bool Int = R() % 4 == 0;
      uint32_t Mode = Tx.Geometry | (Int ? IntCoords : 0);
      uint32_t C[4] = {0, 0, 0, 0};
      for (unsigned Ax = 0; Ax < 3; ++Ax)
        C[Ax] = D.Cubemap ? randomDirection(R)
                : Int     ? uint32_t(int32_t(R() % (D.Width + 8)) - 4)
                          : randomFloatCoord(R, D, Ax);
      // The layer, after the coordinates (a1d: 1, a2d: 2, acube: 3).
      if (D.Cubemap)
        C[3] = uint32_t(int32_t(R() % (D.Depth / 6 + 4)) - 2);
      else if (D.Layered)
        C[D.Dims] = uint32_t(int32_t(R() % (D.Depth + 4)) - 2);
      uint32_t Want[4];
      ref::fetch(D, Mode, C, Want);
      dev::u32x4 Got = dev::fetch(D, Mode, toVec(C));
      for (unsigned Ch = 0; Ch < 4; ++Ch)
        ASSERT_TRUE(sameFloatBits(Got[Ch], Want[Ch]))
            << Tx.Text << " mode " << Mode << " coords " << std::hex << C[0] << " " << C[1] << " "
            << C[2] << " " << C[3] << " channel " << Ch << ": got " << Got[Ch] << " want " << Want[Ch];
      ++Fetches;
    }
  }
  EXPECT_EQ(Fetches, 3000u * 60u);
}

// The fetches an H100 made (tests/texture's RecordedFetch holds the host
// sampler to them): the device sampler must give the host's bits for every
// one, and so the H100's, but for the 3D trilinear class RecordedFetch
// allows (recorded::trilinearAllowance).
TEST(HsaSampler, RecordedH100FetchesMatch) {
  size_t Samples = 0, Trilinear = 0, Cubemap = 0, FromHost = 0, FromH100 = 0;
  std::string Error = recorded::forEachRecordedFetch(
      [](const recorded::Texture &) {},
      [&](const recorded::Texture &T, const recorded::Fetch &F) {
        uint32_t Want[4];
        ref::fetch(T.Desc, uint32_t(T.Geom), F.Coords, Want);
        dev::u32x4 Got = dev::fetch(T.Desc, uint32_t(T.Geom), toVec(F.Coords));
        uint32_t G[4] = {Got[0], Got[1], Got[2], Got[3]};
        ++Samples;
        Cubemap += T.Geom >= 5;
        auto Show = [](const uint32_t V[4]) {
          char B[40];
          std::snprintf(B, sizeof B, "%08x %08x %08x %08x", V[0], V[1], V[2], V[3]);
          return std::string(B);
        };
        if (std::memcmp(G, Want, sizeof G) != 0 && ++FromHost <= 5)
          ADD_FAILURE() << T.Line << "\n  at " << F.Line << "\n  device " << Show(G) << ", host " << Show(Want);
        if (std::memcmp(G, F.Result, sizeof G) == 0)
          return;
        if (recorded::trilinearAllowance(T, G, F.Result))
          ++Trilinear;
        else if (++FromH100 <= 5)
          ADD_FAILURE() << T.Line << "\n  at " << F.Line << "\n  device " << Show(G);
      });
  ASSERT_EQ(Error, "");
  EXPECT_GT(Samples, 5000u);
  EXPECT_GT(Cubemap, 0u);
  EXPECT_EQ(FromHost, 0u) << "of " << Samples << " recorded fetches differ from the host sampler's";
  EXPECT_EQ(FromH100, 0u) << "of " << Samples << " recorded fetches differ from the H100's";
  EXPECT_LE(Trilinear, 25u) << "3D trilinear fetches off by a weight step";
}

TEST(HsaSampler, GathersMatchTheHost) {
  std::mt19937 R(7);
  for (int T = 0; T < 2000; ++T) {
    RandomTexture Tx(R, false);
    const TextureDesc &D = Tx.D;
    if (D.Dims != 2 || D.Cubemap)
      continue; // tld4 is 2D (and 2D layered); of cubemaps, refused when lowered.
    for (int K = 0; K < 40; ++K) {
      uint32_t Mode = Tx.Geometry | (R() % 4) << 8;
      uint32_t C[4] = {randomFloatCoord(R, D, 0), randomFloatCoord(R, D, 1), 0, 0};
      if (D.Layered)
        C[2] = uint32_t(int32_t(R() % (D.Depth + 4)) - 2);
      uint32_t Want[4];
      ref::gather(D, Mode, C, Want);
      dev::u32x4 Got = dev::gather(D, Mode, toVec(C));
      for (unsigned I = 0; I < 4; ++I)
        ASSERT_TRUE(sameFloatBits(Got[I], Want[I])) << Tx.Text << " mode " << Mode << " texel " << I;
    }
  }
}

TEST(HsaSampler, QueriesMatchTheHost) {
  std::mt19937 R(3);
  for (int T = 0; T < 500; ++T) {
    RandomTexture Tx(R, T % 2);
    for (uint32_t Q = 0; Q <= 13; ++Q)
      EXPECT_EQ(dev::query(Tx.D, Q), ref::query(Tx.D, Q)) << Tx.Text << " query " << Q;
  }
}

TEST(HsaSampler, SurfaceAccessesMatchTheHost) {
  std::mt19937 R(11);
  for (int T = 0; T < 2000; ++T) {
    RandomTexture Tx(R, true);
    TextureDesc &D = Tx.D;
    int64_t RowBytes = int64_t(D.Width * D.elementBytes());
    for (int K = 0; K < 40; ++K) {
      const unsigned Sizes[] = {1, 2, 4}, Counts[] = {1, 2, 4};
      unsigned EB = Sizes[R() % 3], N = Counts[R() % 3], Oob = R() % 3;
      if (EB > RowBytes)
        continue; // No access fits the row: clamping has nowhere to go (on either side).
      uint32_t Mode = Tx.Geometry | EB << 12 | N << 16 | Oob << 20;
      int64_t Step = EB * N;
      int64_t X = (int64_t(R() % uint64_t(RowBytes / Step + 5)) - 2) * Step;
      if (R() % 8 == 0)
        X += 1 + R() % 3; // Misaligned (or, for bytes, just another slot).
      uint32_t C[4] = {uint32_t(int32_t(X)), uint32_t(int32_t(R() % (D.Height + 3)) - 1),
                       uint32_t(int32_t(R() % (D.Depth + 3)) - 1), 0};
      if (D.Layered)
        C[D.Dims] = uint32_t(int32_t(R() % (D.Depth + 3)) - 1);
      uint32_t Want[4];
      ref::SurfaceStatus WantS = ref::surfaceLoad(D, Mode, C, Want);
      dev::u32x4 Got;
      dev::SurfaceStatus GotS = dev::surfaceLoad(D, Mode, toVec(C), Got);
      auto Same = [](dev::SurfaceStatus G, ref::SurfaceStatus W) {
        switch (G) {
        case dev::SurfaceStatus::Ok:
        case dev::SurfaceStatus::Skipped: return W == ref::SurfaceStatus::Ok;
        case dev::SurfaceStatus::OutOfRange: return W == ref::SurfaceStatus::OutOfRange;
        case dev::SurfaceStatus::Misaligned: return W == ref::SurfaceStatus::Misaligned;
        }
        return false;
      };
      ASSERT_TRUE(Same(GotS, WantS)) << Tx.Text << " load mode " << std::hex << Mode << " x " << X;
      if (WantS == ref::SurfaceStatus::Ok)
        for (unsigned I = 0; I < 4; ++I)
          ASSERT_EQ(Got[I], Want[I]) << Tx.Text << " load mode " << std::hex << Mode << " x " << X;
      // Stores: the same values into two copies of the texels.
      uint32_t Vals[4] = {uint32_t(R()), uint32_t(R()), uint32_t(R()), uint32_t(R())};
      std::vector<char> Copy = Tx.Data;
      TextureDesc DC = D;
      DC.Base = Copy.data();
      WantS = ref::surfaceStore(D, Mode, C, Vals);
      GotS = dev::surfaceStore(DC, Mode, toVec(C), toVec(Vals));
      ASSERT_TRUE(Same(GotS, WantS)) << Tx.Text << " store mode " << std::hex << Mode << " x " << X;
      ASSERT_EQ(Copy, Tx.Data) << Tx.Text << " store mode " << std::hex << Mode << " x " << X;
    }
  }
}

TEST(HsaSampler, EntryPointsReadTheHandle) {
  // The extern "C" functions kernels call take the descriptor's address.
  std::vector<float> Texels = {1.f, 2.f, 3.f, 4.f};
  TextureDesc D;
  D.Magic = TextureDesc::TextureMagic;
  D.Base = reinterpret_cast<char *>(Texels.data());
  D.Width = 4;
  D.Pitch = D.SlicePitch = 16;
  uint64_t H = uint64_t(uintptr_t(&D));
  dev::u32x4 C = {std::bit_cast<uint32_t>(2.5f), 0, 0, 0};
  EXPECT_EQ(std::bit_cast<float>(__ferry_tex(H, 0, C)[0]), 3.f);
  EXPECT_EQ(__ferry_txq(H, 0), 4);
  D.FilterLinear = true;
  C[0] = std::bit_cast<uint32_t>(2.f);
  EXPECT_EQ(std::bit_cast<float>(__ferry_tex(H, 0, C)[0]), 2.5f);
}
