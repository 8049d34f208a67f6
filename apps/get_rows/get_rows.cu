/// \file
/// Row gather of a 4-D tensor by an int32 index tensor, in the shape of an
/// LLM inference engine's embedding lookup: the source rows are addressed by
/// byte strides (size_t nb01/nb02/nb03) added to a char pointer and cast back,
/// the grid carries the index position in y and the batch dimensions in z,
/// and the row itself is walked block-strided over x. One kernel per
/// (source, destination) element type (float/half), plus a pair variant that
/// loads float2/half2 and writes the two halves of a pair apart. Checked
/// exactly against a CPU gather (the conversions are exact or are done the
/// same way on the CPU).
#include "../common/app_util.h"
#include <cuda_fp16.h>
#include <algorithm>
#include <cstring>
#include <vector>

template <typename DstT> __device__ DstT castTo(float V);
template <> __device__ float castTo<float>(float V) { return V; }
template <> __device__ __half castTo<__half>(float V) {
  return __float2half(V);
}
__device__ float toFloat(float V) { return V; }
__device__ float toFloat(__half V) { return __half2float(V); }

// Src0 is [ne03][ne02][ne01][ne00] with byte strides nb0x; Src1 (the indices)
// is [ne12][ne11][ne10] with element strides s1x; Dst is [ne12][ne11][ne10]
// rows of ne00 elements with element strides s1..s3.
template <typename SrcT, typename DstT>
__global__ void getRowsFloat(const SrcT *__restrict__ Src0,
                             const int32_t *__restrict__ Src1,
                             DstT *__restrict__ Dst, const int64_t Ne00,
                             const int64_t Ne12, const size_t S1,
                             const size_t S2, const size_t S3,
                             const size_t Nb01, const size_t Nb02,
                             const size_t Nb03, const size_t S10,
                             const size_t S11, const size_t S12) {
  const int I10 = blockIdx.y;
  const int I11 = (blockIdx.z * blockDim.z + threadIdx.z) / Ne12;
  const int I12 = (blockIdx.z * blockDim.z + threadIdx.z) % Ne12;
  for (int64_t I00 = blockIdx.x * blockDim.x + threadIdx.x; I00 < Ne00;
       I00 += int64_t(gridDim.x) * blockDim.x) {
    const int I01 = Src1[I10 * S10 + I11 * S11 + I12 * S12];
    DstT *DstRow = Dst + I10 * S1 + I11 * S2 + I12 * S3;
    const SrcT *SrcRow = (const SrcT *)((const char *)Src0 + I01 * Nb01 +
                                        I11 * Nb02 + I12 * Nb03);
    DstRow[I00] = castTo<DstT>(toFloat(SrcRow[I00]));
  }
}

__device__ float2 loadPair(const float *P) {
  return *reinterpret_cast<const float2 *>(P);
}
__device__ float2 loadPair(const __half *P) {
  return __half22float2(*reinterpret_cast<const __half2 *>(P));
}

// One thread per pair of elements; the first halves of the pairs go to the
// first half of the row and the second halves to the second half (the layout
// a dequantizer with two values per block produces).
template <typename SrcT, typename DstT>
__global__ void getRowsVec(const SrcT *__restrict__ Src0,
                           const int32_t *__restrict__ Src1,
                           DstT *__restrict__ Dst, const int64_t Ne00,
                           const int64_t Ne12, const size_t S1,
                           const size_t S2, const size_t S3, const size_t Nb01,
                           const size_t Nb02, const size_t Nb03,
                           const size_t S10, const size_t S11,
                           const size_t S12) {
  const int64_t I00 = 2 * (int64_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (I00 >= Ne00)
    return;
  const int I10 = blockIdx.y;
  const int I11 = (blockIdx.z * blockDim.z + threadIdx.z) / Ne12;
  const int I12 = (blockIdx.z * blockDim.z + threadIdx.z) % Ne12;
  const int I01 = Src1[I10 * S10 + I11 * S11 + I12 * S12];
  DstT *DstRow = Dst + I10 * S1 + I11 * S2 + I12 * S3;
  const SrcT *SrcRow = (const SrcT *)((const char *)Src0 + I01 * Nb01 +
                                      I11 * Nb02 + I12 * Nb03);
  const float2 V = loadPair(SrcRow + I00);
  DstRow[I00 / 2] = castTo<DstT>(V.x);
  DstRow[I00 / 2 + Ne00 / 2] = castTo<DstT>(V.y);
}

// Host halves are kept as their bits; values are chosen exactly
// representable in half (multiples of 1/64 below 32), so float<->half is exact.
static uint16_t halfBits(float V) {
  __half H = __float2half(V);
  uint16_t B;
  std::memcpy(&B, &H, 2);
  return B;
}

struct Shape {
  int64_t Ne00, Ne01, Ne02, Ne03; // source: row length, rows, batch dims
  int64_t Ne10, Ne11, Ne12;       // indices per batch, batch dims
};

template <typename SrcT, typename DstT>
static bool runCase(const char *Name, const Shape &S, bool Vec,
                    int BlockSize) {
  const int64_t SrcElems = S.Ne00 * S.Ne01 * S.Ne02 * S.Ne03;
  const int64_t IdxElems = S.Ne10 * S.Ne11 * S.Ne12;
  const int64_t DstElems = S.Ne00 * IdxElems;
  std::vector<float> SrcVal(SrcElems);
  Lcg Rng(uint64_t(S.Ne00 * 131 + S.Ne01));
  for (auto &V : SrcVal)
    V = float(int(Rng.below(4096)) - 2048) / 64.0f;
  std::vector<int32_t> Idx(IdxElems);
  for (auto &I : Idx)
    I = int32_t(Rng.below(uint32_t(S.Ne01)));

  std::vector<SrcT> HostSrc(SrcElems);
  for (int64_t I = 0; I < SrcElems; ++I) {
    if constexpr (sizeof(SrcT) == 2) {
      uint16_t B = halfBits(SrcVal[I]);
      std::memcpy(&HostSrc[I], &B, 2);
    } else {
      HostSrc[I] = SrcVal[I];
    }
  }
  SrcT *DSrc;
  int32_t *DIdx;
  DstT *DDst;
  CHECK(cudaMalloc(&DSrc, SrcElems * sizeof(SrcT)));
  CHECK(cudaMalloc(&DIdx, IdxElems * sizeof(int32_t)));
  CHECK(cudaMalloc(&DDst, DstElems * sizeof(DstT)));
  CHECK(cudaMemcpy(DSrc, HostSrc.data(), SrcElems * sizeof(SrcT),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DIdx, Idx.data(), IdxElems * sizeof(int32_t),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DDst, 0xff, DstElems * sizeof(DstT)));

  const size_t Nb01 = S.Ne00 * sizeof(SrcT), Nb02 = Nb01 * S.Ne01,
               Nb03 = Nb02 * S.Ne02;
  const size_t S10 = 1, S11 = S.Ne10, S12 = S.Ne10 * S.Ne11;
  const size_t S1 = S.Ne00, S2 = S1 * S.Ne10, S3 = S2 * S.Ne11;
  const int64_t Work = Vec ? S.Ne00 / 2 : S.Ne00;
  // The row-walking grid is capped so long rows take several strides.
  const unsigned BlocksX =
      unsigned(std::min<int64_t>((Work + BlockSize - 1) / BlockSize, Vec ? 1 << 20 : 2));
  const dim3 Grid(BlocksX, unsigned(S.Ne10), unsigned(S.Ne11 * S.Ne12));
  if (Vec)
    getRowsVec<SrcT, DstT><<<Grid, BlockSize>>>(DSrc, DIdx, DDst, S.Ne00,
                                                S.Ne12, S1, S2, S3, Nb01, Nb02,
                                                Nb03, S10, S11, S12);
  else
    getRowsFloat<SrcT, DstT><<<Grid, BlockSize>>>(DSrc, DIdx, DDst, S.Ne00,
                                                  S.Ne12, S1, S2, S3, Nb01,
                                                  Nb02, Nb03, S10, S11, S12);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<DstT> Got(DstElems);
  CHECK(cudaMemcpy(Got.data(), DDst, DstElems * sizeof(DstT),
                   cudaMemcpyDeviceToHost));
  int64_t Bad = 0;
  for (int64_t I12 = 0; I12 < S.Ne12; ++I12)
    for (int64_t I11 = 0; I11 < S.Ne11; ++I11)
      for (int64_t I10 = 0; I10 < S.Ne10; ++I10) {
        const int32_t Row = Idx[I10 * S10 + I11 * S11 + I12 * S12];
        for (int64_t I00 = 0; I00 < S.Ne00; ++I00) {
          const int64_t From =
              Vec ? (I00 < S.Ne00 / 2 ? 2 * I00 : 2 * (I00 - S.Ne00 / 2) + 1)
                  : I00;
          const float Want =
              SrcVal[((I12 * S.Ne02 + I11) * S.Ne01 + Row) * S.Ne00 + From];
          const DstT &G = Got[I10 * S1 + I11 * S2 + I12 * S3 + I00];
          float GotV;
          if constexpr (sizeof(DstT) == 2) {
            uint16_t B;
            std::memcpy(&B, &G, 2);
            GotV = B == halfBits(Want) ? Want : NAN;
          } else {
            GotV = G;
          }
          Bad += GotV != Want;
        }
      }
  std::printf("%-22s ne00 %5lld rows %4lld idx %3lldx%lldx%lld block %3d: "
              "%lld wrong of %lld\n",
              Name, (long long)S.Ne00, (long long)S.Ne01, (long long)S.Ne10,
              (long long)S.Ne11, (long long)S.Ne12, BlockSize, (long long)Bad,
              (long long)DstElems);
  CHECK(cudaFree(DSrc));
  CHECK(cudaFree(DIdx));
  CHECK(cudaFree(DDst));
  return Bad == 0;
}

int main() {
  // ne02 == ne11 and ne03 == ne12: each batch gathers from its own slice.
  const Shape Embed = {4096, 500, 1, 1, 64, 1, 1};
  const Shape Batched = {768, 97, 3, 2, 17, 3, 2};
  const Shape Odd = {130, 33, 2, 1, 9, 2, 1};
  bool Ok = true;
  Ok &= runCase<float, float>("rows f32->f32", Embed, false, 256);
  Ok &= runCase<__half, float>("rows f16->f32", Embed, false, 256);
  Ok &= runCase<float, __half>("rows f32->f16", Batched, false, 128);
  Ok &= runCase<__half, __half>("rows f16->f16", Batched, false, 64);
  Ok &= runCase<float, float>("rows f32->f32 odd", Odd, false, 32);
  Ok &= runCase<__half, float>("vec f16->f32", Embed, true, 256);
  Ok &= runCase<float, float>("vec f32->f32", Batched, true, 128);
  Ok &= runCase<__half, __half>("vec f16->f16", Odd, true, 32);
  return finish(Ok);
}
