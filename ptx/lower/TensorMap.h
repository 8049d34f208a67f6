//===- TensorMap.h - ferry's encoding of CUtensorMap ------------*- C++ -*-===//
/// \file
/// CUDA leaves the 128 bytes of a CUtensorMap opaque: the driver's
/// cuTensorMapEncodeTiled writes them and the GPU's copy engine reads them.
/// In ferry both ends are ours: libcuda encodes (libcuda/api/TensorMap.cpp)
/// and the lowering of cp.async.bulk.tensor (LowerBulkTensor.cpp) emits
/// loads of these words from the map's address. One definition, here:
///
///   word 0   Magic (bits 0-31), rank 1-5 (32-35), element bytes (36-40),
///            CUtensorMapSwizzle (41-43), CUtensorMapInterleave (44-45),
///            CUtensorMapFloatOOBfill (46), CUtensorMapDataType (48-55)
///   word 1   global address
///   words 2-6  global dimensions 0..4 (elements)
///   words 7-10 global strides of dimensions 1..4 (bytes)
///   word 11  box dimension d - 1 in bits 8d..8d+7; element stride d - 1
///            in bits 40+3d..42+3d
///   words 12-15 zero
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace ferry::ptx::tensormap {

constexpr uint32_t Magic = 0x314D5446; // "FTM1"
constexpr unsigned MaxRank = 5;
enum Word : unsigned { Header = 0, Address = 1, Dims = 2, Strides = 7, Box = 11, Words = 16 };

struct Tiled {
  unsigned DataType = 0, Rank = 0, ElemBytes = 0, Swizzle = 0, Interleave = 0, OobFill = 0;
  uint64_t GlobalAddress = 0;
  uint64_t Dim[MaxRank] = {};
  uint64_t Stride[MaxRank - 1] = {}; ///< Of dimensions 1..Rank-1, in bytes.
  uint32_t BoxDim[MaxRank] = {};     ///< 1..256
  uint32_t ElemStride[MaxRank] = {}; ///< 1..8
};

/// The 16 words of a tiled map (the caller has validated the fields).
inline void encode(const Tiled &T, uint64_t Out[Words]) {
  for (unsigned W = 0; W < Words; ++W)
    Out[W] = 0;
  Out[Header] = uint64_t(Magic) | uint64_t(T.Rank) << 32 | uint64_t(T.ElemBytes) << 36 |
                uint64_t(T.Swizzle) << 41 | uint64_t(T.Interleave) << 44 | uint64_t(T.OobFill) << 46 |
                uint64_t(T.DataType) << 48;
  Out[Address] = T.GlobalAddress;
  for (unsigned D = 0; D < MaxRank; ++D) {
    Out[Dims + D] = D < T.Rank ? T.Dim[D] : 1;
    if (D + 1 < MaxRank)
      Out[Strides + D] = D + 1 < T.Rank ? T.Stride[D] : 0;
    uint64_t BoxD = D < T.Rank ? T.BoxDim[D] : 1, ES = D < T.Rank ? T.ElemStride[D] : 1;
    Out[Word::Box] |= (BoxD - 1) << (8 * D) | (ES - 1) << (40 + 3 * D);
  }
}

} // namespace ferry::ptx::tensormap
