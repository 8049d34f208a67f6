/// \file
/// CUDA arrays and texture/surface objects through libcuda.so.1's C ABI:
/// the errors NVIDIA documents for bad input, validated handles, copies
/// to and from arrays (2D, 3D with offsets, 1D HtoA/AtoH), and the
/// descriptors the objects give back. The handle a kernel gets is checked
/// to be the descriptor libcuda/TextureDesc.h describes.
#include "ferry/generated/DriverApi.h"
#include "libcuda/TextureDesc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace {

class Tex : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS); }
  CUcontext Ctx = nullptr;
};

CUDA_ARRAY3D_DESCRIPTOR desc3(size_t W, size_t H, size_t D, CUarray_format F, unsigned C,
                              unsigned Flags = 0) {
  CUDA_ARRAY3D_DESCRIPTOR A{};
  A.Width = W;
  A.Height = H;
  A.Depth = D;
  A.Format = F;
  A.NumChannels = C;
  A.Flags = Flags;
  return A;
}

} // namespace

TEST_F(Tex, ArrayCreateValidates) {
  CUarray A = nullptr;
  CUDA_ARRAY_DESCRIPTOR D{};
  D.Width = 16;
  D.Height = 4;
  D.Format = CU_AD_FORMAT_FLOAT;
  D.NumChannels = 3;
  EXPECT_EQ(cuArrayCreate_v2(&A, &D), CUDA_ERROR_INVALID_VALUE);
  D.NumChannels = 1;
  D.Width = 0;
  EXPECT_EQ(cuArrayCreate_v2(&A, &D), CUDA_ERROR_INVALID_VALUE);
  D.Width = 16;
  D.Format = CUarray_format(0x55);
  EXPECT_EQ(cuArrayCreate_v2(&A, &D), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayCreate_v2(nullptr, &D), CUDA_ERROR_INVALID_VALUE);
  auto D3 = desc3(8, 0, 4, CU_AD_FORMAT_FLOAT, 1); // Depth without Height, not layered
  EXPECT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_ERROR_INVALID_VALUE);
  D3 = desc3(8, 8, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
  EXPECT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_ERROR_INVALID_VALUE);
  D3 = desc3(8, 0, 4, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_LAYERED);
  ASSERT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_SUCCESS);
  CUDA_ARRAY3D_DESCRIPTOR Got{};
  ASSERT_EQ(cuArray3DGetDescriptor_v2(&Got, A), CUDA_SUCCESS);
  EXPECT_EQ(Got.Width, 8u);
  EXPECT_EQ(Got.Height, 0u);
  EXPECT_EQ(Got.Depth, 4u);
  EXPECT_EQ(Got.NumChannels, 4u);
  EXPECT_EQ(Got.Flags, unsigned(CUDA_ARRAY3D_LAYERED));
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  // A destroyed or made-up handle is rejected, not dereferenced.
  EXPECT_EQ(cuArrayDestroy(A), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuArray3DGetDescriptor_v2(&Got, reinterpret_cast<CUarray>(&Got)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuArrayDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Tex, CopiesInAndOutOfArrays) {
  const size_t W = 5, H = 3, Dp = 2;
  auto D3 = desc3(W, H, Dp, CU_AD_FORMAT_SIGNED_INT32, 1);
  CUarray A;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_SUCCESS);
  std::vector<int> Host(W * H * Dp), Back(W * H * Dp, -1);
  std::iota(Host.begin(), Host.end(), 100);
  CUDA_MEMCPY3D P{};
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Host.data();
  P.srcPitch = W * 4;
  P.srcHeight = H;
  P.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  P.dstArray = A;
  P.WidthInBytes = W * 4;
  P.Height = H;
  P.Depth = Dp;
  ASSERT_EQ(cuMemcpy3D_v2(&P), CUDA_SUCCESS);
  // The whole array back through the 1D form (arrays are dense bytes).
  ASSERT_EQ(cuMemcpyAtoH_v2(Back.data(), A, 0, Back.size() * 4), CUDA_SUCCESS);
  EXPECT_EQ(Back, Host);
  // A 2x2 box from (1,1,1) of the array.
  CUDA_MEMCPY3D Q{};
  int Box[4] = {};
  Q.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  Q.srcArray = A;
  Q.srcXInBytes = 4;
  Q.srcY = 1;
  Q.srcZ = 1;
  Q.dstMemoryType = CU_MEMORYTYPE_HOST;
  Q.dstHost = Box;
  Q.dstPitch = 8;
  Q.WidthInBytes = 8;
  Q.Height = 2;
  Q.Depth = 1;
  ASSERT_EQ(cuMemcpy3D_v2(&Q), CUDA_SUCCESS);
  EXPECT_EQ(Box[0], Host[(1 * H + 1) * W + 1]);
  EXPECT_EQ(Box[3], Host[(1 * H + 2) * W + 2]);
  // Beyond the array, or not whole elements: INVALID_VALUE.
  Q.srcY = 2;
  EXPECT_EQ(cuMemcpy3D_v2(&Q), CUDA_ERROR_INVALID_VALUE);
  Q.srcY = 1;
  Q.srcXInBytes = 2;
  EXPECT_EQ(cuMemcpy3D_v2(&Q), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoA_v2(A, 4, Host.data(), Host.size() * 4), CUDA_ERROR_INVALID_VALUE);
  // 2D copy into the first slice with cuMemcpy2D.
  int Row[W] = {7, 7, 7, 7, 7};
  CUDA_MEMCPY2D R{};
  R.srcMemoryType = CU_MEMORYTYPE_HOST;
  R.srcHost = Row;
  R.srcPitch = sizeof(Row);
  R.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  R.dstArray = A;
  R.dstY = 2;
  R.WidthInBytes = sizeof(Row);
  R.Height = 1;
  ASSERT_EQ(cuMemcpy2D_v2(&R), CUDA_SUCCESS);
  int Probe = 0;
  ASSERT_EQ(cuMemcpyAtoH_v2(&Probe, A, (2 * W + 3) * 4, 4), CUDA_SUCCESS);
  EXPECT_EQ(Probe, 7);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
}

TEST_F(Tex, TextureObjects) {
  CUarray A;
  auto D3 = desc3(4, 4, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4);
  ASSERT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC R{};
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = A;
  CUDA_TEXTURE_DESC T{};
  T.addressMode[0] = CU_TR_ADDRESS_MODE_WRAP;
  T.addressMode[1] = CU_TR_ADDRESS_MODE_BORDER;
  T.filterMode = CU_TR_FILTER_MODE_LINEAR;
  T.flags = CU_TRSF_NORMALIZED_COORDINATES;
  T.borderColor[2] = 0.5f;
  CUtexObject Obj = 0;
  EXPECT_EQ(cuTexObjectCreate(nullptr, &R, &T, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_SUCCESS);
  // The handle is the descriptor kernels read.
  const auto *D = reinterpret_cast<const ferry::TextureDesc *>(uintptr_t(Obj));
  EXPECT_EQ(D->Magic, ferry::TextureDesc::TextureMagic);
  EXPECT_EQ(D->Type, ferry::TexelType::U8);
  EXPECT_EQ(D->Channels, 4);
  EXPECT_EQ(D->Dims, 2);
  EXPECT_TRUE(D->ReadNormalized); // No CU_TRSF_READ_AS_INTEGER: promoted.
  EXPECT_TRUE(D->NormalizedCoords);
  EXPECT_TRUE(D->FilterLinear);
  EXPECT_EQ(D->Address[1], ferry::TexAddress::Border);
  CUDA_RESOURCE_DESC R2{};
  CUDA_TEXTURE_DESC T2{};
  ASSERT_EQ(cuTexObjectGetResourceDesc(&R2, Obj), CUDA_SUCCESS);
  EXPECT_EQ(R2.res.array.hArray, A);
  ASSERT_EQ(cuTexObjectGetTextureDesc(&T2, Obj), CUDA_SUCCESS);
  EXPECT_EQ(T2.borderColor[2], 0.5f);
  // Surfaces need CUDA_ARRAY3D_SURFACE_LDST.
  CUsurfObject S = 0;
  EXPECT_EQ(cuSurfObjectCreate(&S, &R), CUDA_ERROR_INVALID_VALUE);
  // A texture handle is not a surface handle.
  EXPECT_EQ(cuSurfObjectDestroy(Obj), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuTexObjectDestroy(Obj), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(Obj), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuTexObjectGetResourceDesc(&R2, Obj), CUDA_ERROR_INVALID_VALUE);
  // Bad sampler fields and unsupported resources.
  T.addressMode[2] = CUaddress_mode(7);
  EXPECT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_ERROR_INVALID_VALUE);
  T.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
  R.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
  EXPECT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = reinterpret_cast<CUarray>(&T);
  EXPECT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
}

TEST_F(Tex, LinearAndPitchResources) {
  CUdeviceptr P;
  ASSERT_EQ(cuMemAlloc_v2(&P, 4096), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC R{};
  R.resType = CU_RESOURCE_TYPE_LINEAR;
  R.res.linear.devPtr = P;
  R.res.linear.format = CU_AD_FORMAT_FLOAT;
  R.res.linear.numChannels = 2;
  R.res.linear.sizeInBytes = 4096;
  CUDA_TEXTURE_DESC T{};
  T.flags = CU_TRSF_READ_AS_INTEGER;
  CUtexObject Obj;
  ASSERT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_SUCCESS);
  const auto *D = reinterpret_cast<const ferry::TextureDesc *>(uintptr_t(Obj));
  EXPECT_EQ(D->Width, 4096u / 8);
  EXPECT_TRUE(D->LinearMemory);
  EXPECT_EQ(cuTexObjectDestroy(Obj), CUDA_SUCCESS);
  R.res.linear.devPtr = P + 4; // Misaligned.
  EXPECT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_ERROR_INVALID_VALUE);
  R.resType = CU_RESOURCE_TYPE_PITCH2D;
  R.res.pitch2D.devPtr = P;
  R.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
  R.res.pitch2D.numChannels = 1;
  R.res.pitch2D.width = 10;
  R.res.pitch2D.height = 4;
  R.res.pitch2D.pitchInBytes = 40; // Not a multiple of 32.
  EXPECT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_ERROR_INVALID_VALUE);
  R.res.pitch2D.pitchInBytes = 64;
  ASSERT_EQ(cuTexObjectCreate(&Obj, &R, &T, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(Obj), CUDA_SUCCESS);
  // Surfaces only take arrays.
  CUsurfObject S;
  EXPECT_EQ(cuSurfObjectCreate(&S, &R), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
}

TEST_F(Tex, SurfaceObjects) {
  CUarray A;
  auto D3 = desc3(6, 2, 3, CU_AD_FORMAT_HALF, 2, CUDA_ARRAY3D_SURFACE_LDST);
  ASSERT_EQ(cuArray3DCreate_v2(&A, &D3), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC R{};
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = A;
  CUsurfObject S;
  ASSERT_EQ(cuSurfObjectCreate(&S, &R), CUDA_SUCCESS);
  const auto *D = reinterpret_cast<const ferry::TextureDesc *>(uintptr_t(S));
  EXPECT_EQ(D->Magic, ferry::TextureDesc::SurfaceMagic);
  EXPECT_EQ(D->Dims, 3);
  EXPECT_EQ(D->Pitch, 6u * 4);
  EXPECT_EQ(D->SlicePitch, 6u * 4 * 2);
  CUDA_RESOURCE_DESC R2{};
  ASSERT_EQ(cuSurfObjectGetResourceDesc(&R2, S), CUDA_SUCCESS);
  EXPECT_EQ(R2.res.array.hArray, A);
  EXPECT_EQ(cuSurfObjectDestroy(S), CUDA_SUCCESS);
  EXPECT_EQ(cuSurfObjectDestroy(S), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
}
