/// \file
/// The pre-3.2 (32-bit size) forms of a few driver types. NVIDIA declares
/// them only for its own build, but libcuda.so.1 still exports the legacy
/// entry points that take them (cuMemAlloc, cuMemcpy2D, cuArrayCreate...,
/// which cuGetProcAddress returns for versions below 3020), so ferry needs
/// them to declare and implement those symbols.
/// Do not include directly; ferry/cuda.h includes it.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int CUdeviceptr_v1;

typedef struct CUDA_MEMCPY2D_v1_st {
  unsigned int srcXInBytes;
  unsigned int srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr_v1 srcDevice;
  CUarray srcArray;
  unsigned int srcPitch;
  unsigned int dstXInBytes;
  unsigned int dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr_v1 dstDevice;
  CUarray dstArray;
  unsigned int dstPitch;
  unsigned int WidthInBytes;
  unsigned int Height;
} CUDA_MEMCPY2D_v1;

typedef struct CUDA_MEMCPY3D_v1_st {
  unsigned int srcXInBytes;
  unsigned int srcY;
  unsigned int srcZ;
  unsigned int srcLOD;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr_v1 srcDevice;
  CUarray srcArray;
  void *reserved0;
  unsigned int srcPitch;
  unsigned int srcHeight;
  unsigned int dstXInBytes;
  unsigned int dstY;
  unsigned int dstZ;
  unsigned int dstLOD;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr_v1 dstDevice;
  CUarray dstArray;
  void *reserved1;
  unsigned int dstPitch;
  unsigned int dstHeight;
  unsigned int WidthInBytes;
  unsigned int Height;
  unsigned int Depth;
} CUDA_MEMCPY3D_v1;

typedef struct CUDA_ARRAY_DESCRIPTOR_v1_st {
  unsigned int Width;
  unsigned int Height;
  CUarray_format Format;
  unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR_v1;

typedef struct CUDA_ARRAY3D_DESCRIPTOR_v1_st {
  unsigned int Width;
  unsigned int Height;
  unsigned int Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR_v1;

#ifdef __cplusplus
} // extern "C"
#endif
