/// \file
/// Tensor maps (cuTensorMapEncodeTiled, cuTensorMapReplaceAddress): the
/// arguments are checked as NVIDIA's driver documents them, then encoded
/// in ferry's layout (ptx/lower/TensorMap.h), which the lowering of
/// cp.async.bulk.tensor reads back on either backend. The im2col forms and
/// the packed sub-byte data types are not implemented (NOT_SUPPORTED).
#include "libcuda/api/Common.h"
#include "ptx/lower/TensorMap.h"

#include <cstring>

using namespace ferry;
using namespace ferry::api;

namespace {

/// Bytes of one element, 0 for the packed types ferry does not encode.
unsigned elementBytes(CUtensorMapDataType T) {
  switch (T) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32: case CU_TENSOR_MAP_DATA_TYPE_INT32: case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ: case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64: case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
  default: return 0;
  }
}

} // namespace

FERRY_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                             cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
                                             const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                                             const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                             CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                             CUtensorMapFloatOOBfill oobFill) {
  (void)l2Promotion; // A cache hint.
  if (!tensorMap || reinterpret_cast<uintptr_t>(tensorMap) % 64)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "tensorMap is null or not 64-byte aligned");
  if (tensorRank < 1 || tensorRank > ptx::tensormap::MaxRank || !globalDim || !boxDim || !elementStrides ||
      (tensorRank > 1 && !globalStrides))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "rank must be 1..5 with its dimension arrays");
  unsigned Bytes = elementBytes(tensorDataType);
  if (tensorDataType > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown data type");
  if (!Bytes)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "packed sub-byte data types are not implemented");
  unsigned Align = interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (!globalAddress || reinterpret_cast<uintptr_t>(globalAddress) % Align)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "globalAddress is null or misaligned");
  if (interleave > CU_TENSOR_MAP_INTERLEAVE_32B || swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
      oobFill > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "bad interleave, swizzle or OOB fill");
  ptx::tensormap::Tiled T;
  T.DataType = tensorDataType;
  T.Rank = tensorRank;
  T.ElemBytes = Bytes;
  T.Swizzle = swizzle;
  T.Interleave = interleave;
  T.OobFill = oobFill;
  T.GlobalAddress = reinterpret_cast<uintptr_t>(globalAddress);
  for (unsigned D = 0; D < tensorRank; ++D) {
    if (globalDim[D] == 0 || globalDim[D] > (uint64_t(1) << 32))
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "globalDim must be 1..2^32");
    if (boxDim[D] == 0 || boxDim[D] > 256 || elementStrides[D] == 0 || elementStrides[D] > 8)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "boxDim must be 1..256 and elementStrides 1..8");
    if (D + 1 < tensorRank && (globalStrides[D] % 16 || globalStrides[D] >= (uint64_t(1) << 40)))
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "globalStrides must be multiples of 16 below 2^40");
    T.Dim[D] = globalDim[D];
    T.BoxDim[D] = boxDim[D];
    T.ElemStride[D] = elementStrides[D];
    if (D + 1 < tensorRank)
      T.Stride[D] = globalStrides[D];
  }
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && swizzle != CU_TENSOR_MAP_SWIZZLE_NONE) {
    unsigned Span = swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
    if (boxDim[0] * Bytes > Span)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the inner box dimension exceeds the swizzle span");
  }
  uint64_t Words[ptx::tensormap::Words];
  ptx::tensormap::encode(T, Words);
  std::memcpy(tensorMap->opaque, Words, sizeof Words);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress) {
  if (!tensorMap || uint32_t(tensorMap->opaque[ptx::tensormap::Header]) != ptx::tensormap::Magic)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a tensor map ferry encoded");
  if (!globalAddress || reinterpret_cast<uintptr_t>(globalAddress) % 16)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "globalAddress is null or misaligned");
  tensorMap->opaque[ptx::tensormap::Address] = reinterpret_cast<uintptr_t>(globalAddress);
  return CUDA_SUCCESS;
}
