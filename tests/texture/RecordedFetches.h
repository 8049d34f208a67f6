/// \file
/// Reads the texture fetches scripts/h100-probe/probe_tex.cu recorded on an
/// H100 (tests/texture/data/h100-fetches.txt) and rebuilds each recorded
/// texture as a TextureDesc over the probe's texels, for the tests that
/// compare a sampler with the recording: RecordedFetch (the host backend's)
/// and tests/hsa's sampler test (the AMD backend's device sampler).
#pragma once

#include "libcuda/TextureDesc.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace ferry::recorded {

/// One recorded texture: its configuration line and the descriptor.
struct Texture {
  int Geom = 0; ///< The mode's geometry (SimtIntrinsics.def).
  bool Linear = false;
  std::string Line;
  TextureDesc Desc;
  float TexelMin = 0, TexelMax = 0; ///< The range of its texels' values.
};

/// One recorded fetch: coordinates in the mode's order (the layer after
/// them) and the four result words the H100 gave.
struct Fetch {
  uint32_t Coords[4] = {0, 0, 0, 0};
  uint32_t Result[4] = {0, 0, 0, 0};
  std::string Line;
};

// The texel values of probe_tex.cu.
inline float texelFloat(int I, int J, int K, int C) { return float((I * 37 + J * 91 + K * 53 + C * 29) % 97) / 8.f - 6.f; }
inline unsigned char texelByte(int I, int J, int K, int C) {
  return (unsigned char)(((I * 37 + J * 91 + K * 53 + C * 29 + 11) * 7) % 256);
}

inline TexAddress addressNamed(const std::string &S) {
  if (S == "wrap")
    return TexAddress::Wrap;
  if (S == "mirror")
    return TexAddress::Mirror;
  if (S == "border")
    return TexAddress::Border;
  return TexAddress::Clamp;
}

/// Whether a fetch that differs from the recording is in the one class of
/// differences allowed: trilinear filtering of 3D textures. Its eight
/// corner weights are integers out of 256 whose rounding the recording
/// does not pin down (the probe's texels are nearly linear in x, y and z,
/// so most fetches fit many weight sets); libcuda/TextureMath.h's rule
/// (the (x, z) pairs weighted as in 2D, each split by y) matches 423 of the
/// 448 linear 3D fetches, the others differ by one or two 1/256 steps of
/// weight moved between corners. Allowed: within two steps of the texels'
/// range.
inline bool trilinearAllowance(const Texture &T, const uint32_t Ours[4], const uint32_t Theirs[4]) {
  if (T.Geom != 2 || !T.Linear)
    return false;
  for (unsigned Ch = 0; Ch < 4; ++Ch) {
    float A, B;
    std::memcpy(&A, &Ours[Ch], 4);
    std::memcpy(&B, &Theirs[Ch], 4);
    if (!(std::fabs(A - B) <= 2.f / 256.f * (T.TexelMax - T.TexelMin)))
      return false;
  }
  return true;
}

/// Calls OnTexture for each recorded texture, then OnFetch for each of its
/// fetches (the descriptor's texels live until the next texture). Returns
/// an error message, or "" once the whole file was read.
inline std::string forEachRecordedFetch(const std::function<void(const Texture &)> &OnTexture,
                                        const std::function<void(const Texture &, const Fetch &)> &OnFetch) {
  std::string Path = std::string(FERRY_SOURCE_DIR) + "/tests/texture/data/h100-fetches.txt";
  std::ifstream In(Path);
  if (!In)
    return "missing " + Path;
  std::string Line;
  Texture T;
  std::vector<float> FloatTexels;
  std::vector<unsigned char> ByteTexels;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    std::string Tag;
    L >> Tag;
    if (Tag == "cfg") {
      std::string Id, K, Fmt, Addr, Filter;
      int W = 0, H = 0, D = 0, Norm = 0;
      L >> Id >> K >> T.Geom >> K >> W >> K >> H >> K >> D >> K >> Fmt >> K >> Addr >> K >> Norm >> K >> Filter;
      if (L.fail())
        return "unreadable line: " + Line;
      T.Line = Line;
      bool Uchar = Fmt == "uchar4";
      T.Linear = Filter == "linear";
      int EH = H ? H : 1, ED = D ? D : 1;
      FloatTexels.assign(size_t(W) * EH * ED, 0.f);
      ByteTexels.assign(size_t(W) * EH * ED * 4, 0);
      for (int Kk = 0; Kk < ED; ++Kk)
        for (int J = 0; J < EH; ++J)
          for (int I = 0; I < W; ++I) {
            size_t At = (size_t(Kk) * EH + J) * W + I;
            FloatTexels[At] = texelFloat(I, J, Kk, 0);
            for (int Ch = 0; Ch < 4; ++Ch)
              ByteTexels[At * 4 + Ch] = texelByte(I, J, Kk, Ch);
          }
      TextureDesc &Desc = T.Desc;
      Desc = TextureDesc();
      Desc.Magic = TextureDesc::TextureMagic;
      Desc.Type = Uchar ? TexelType::U8 : TexelType::F32;
      Desc.Channels = Uchar ? 4 : 1;
      Desc.Dims = T.Geom == 0 || T.Geom == 3 ? 1 : T.Geom == 2 ? 3 : 2;
      Desc.Layered = T.Geom == 3 || T.Geom == 4 || T.Geom >= 5;
      Desc.Cubemap = T.Geom >= 5;
      Desc.Base = Uchar ? reinterpret_cast<char *>(ByteTexels.data()) : reinterpret_cast<char *>(FloatTexels.data());
      Desc.Width = uint64_t(W);
      Desc.Height = uint64_t(EH);
      Desc.Depth = uint64_t(ED);
      Desc.Pitch = uint64_t(W) * 4;
      Desc.SlicePitch = Desc.Pitch * uint64_t(EH);
      for (auto &A : Desc.Address)
        A = addressNamed(Addr);
      Desc.FilterLinear = T.Linear;
      Desc.NormalizedCoords = Norm != 0;
      Desc.ReadNormalized = Uchar;
      T.TexelMin = Uchar ? 0.f : *std::min_element(FloatTexels.begin(), FloatTexels.end());
      T.TexelMax = Uchar ? 1.f : *std::max_element(FloatTexels.begin(), FloatTexels.end());
      const float Border[4] = {0.3f, 0.7f, -0.25f, 1.5f}; // probe_tex.cu's.
      std::memcpy(Desc.Border, Border, sizeof Border);
      OnTexture(T);
      continue;
    }
    if (Tag != "s")
      continue;
    Fetch F;
    F.Line = Line;
    int Layer;
    L >> std::hex >> F.Coords[0] >> F.Coords[1] >> F.Coords[2] >> std::dec >> Layer >> std::hex >> F.Result[0] >>
        F.Result[1] >> F.Result[2] >> F.Result[3];
    if (L.fail())
      return "unreadable line: " + Line;
    // The layer follows the coordinates (SimtIntrinsics.def).
    if (T.Geom == 3)
      F.Coords[1] = uint32_t(Layer);
    else if (T.Geom == 4)
      F.Coords[2] = uint32_t(Layer);
    else if (T.Geom == 6)
      F.Coords[3] = uint32_t(Layer);
    OnFetch(T, F);
  }
  return "";
}

} // namespace ferry::recorded
