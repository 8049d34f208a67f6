/// \file
/// Types of the graphics-interop and profiler corners of the runtime and
/// driver APIs (OpenGL, EGL, VDPAU, profiler). libcudart.so.13 exports these
/// functions, so the API table lists them and ferry answers NOT_SUPPORTED; only their
/// parameter types are needed. The few window-system types they take are
/// declared here with the same underlying types as the Khronos and VDPAU
/// headers, so ferry never needs those headers installed.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ferry/cuda.h"
#include "ferry/cuda_runtime_types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Window-system types, ABI-equal to their GL/EGL/VDPAU definitions.
typedef unsigned int GLuint;
typedef unsigned int GLenum;
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
typedef int32_t EGLint;
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id,
                                    void **function_pointer);

/// Passed as the timeout of cuEGLStreamConsumerAcquireFrame to wait forever.
#define CUDA_EGL_INFINITE_TIMEOUT 0xFFFFFFFF

// Driver API side.
typedef enum CUGLDeviceList_enum {
  CU_GL_DEVICE_LIST_ALL = 1,
  CU_GL_DEVICE_LIST_CURRENT_FRAME = 2,
  CU_GL_DEVICE_LIST_NEXT_FRAME = 3,
} CUGLDeviceList;

typedef enum CUGLmap_flags_enum {
  CU_GL_MAP_RESOURCE_FLAGS_NONE = 0,
  CU_GL_MAP_RESOURCE_FLAGS_READ_ONLY = 1,
  CU_GL_MAP_RESOURCE_FLAGS_WRITE_DISCARD = 2,
} CUGLmap_flags;

typedef enum CUeglFrameType_enum {
  CU_EGL_FRAME_TYPE_ARRAY = 0,
  CU_EGL_FRAME_TYPE_PITCH = 1,
} CUeglFrameType;

typedef enum CUeglResourceLocationFlags_enum {
  CU_EGL_RESOURCE_LOCATION_SYSMEM = 0,
  CU_EGL_RESOURCE_LOCATION_VIDMEM = 1,
} CUeglResourceLocationFlags;

typedef enum CUeglColorFormat_enum {
  CU_EGL_COLOR_FORMAT_YUV420_PLANAR = 0,
  CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR = 1,
  CU_EGL_COLOR_FORMAT_YUV422_PLANAR = 2,
  CU_EGL_COLOR_FORMAT_YUV422_SEMIPLANAR = 3,
  CU_EGL_COLOR_FORMAT_RGB = 4,
  CU_EGL_COLOR_FORMAT_BGR = 5,
  CU_EGL_COLOR_FORMAT_ARGB = 6,
  CU_EGL_COLOR_FORMAT_RGBA = 7,
  CU_EGL_COLOR_FORMAT_L = 8,
  CU_EGL_COLOR_FORMAT_R = 9,
  CU_EGL_COLOR_FORMAT_YUV444_PLANAR = 10,
  CU_EGL_COLOR_FORMAT_YUV444_SEMIPLANAR = 11,
  CU_EGL_COLOR_FORMAT_YUYV_422 = 12,
  CU_EGL_COLOR_FORMAT_UYVY_422 = 13,
  CU_EGL_COLOR_FORMAT_ABGR = 14,
  CU_EGL_COLOR_FORMAT_BGRA = 15,
  CU_EGL_COLOR_FORMAT_A = 16,
  CU_EGL_COLOR_FORMAT_RG = 17,
  CU_EGL_COLOR_FORMAT_AYUV = 18,
  CU_EGL_COLOR_FORMAT_YVU444_SEMIPLANAR = 19,
  CU_EGL_COLOR_FORMAT_YVU422_SEMIPLANAR = 20,
  CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR = 21,
  CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR = 22,
  CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR = 23,
  CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR = 24,
  CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR = 25,
  CU_EGL_COLOR_FORMAT_VYUY_ER = 26,
  CU_EGL_COLOR_FORMAT_UYVY_ER = 27,
  CU_EGL_COLOR_FORMAT_YUYV_ER = 28,
  CU_EGL_COLOR_FORMAT_YVYU_ER = 29,
  CU_EGL_COLOR_FORMAT_YUV_ER = 30,
  CU_EGL_COLOR_FORMAT_YUVA_ER = 31,
  CU_EGL_COLOR_FORMAT_AYUV_ER = 32,
  CU_EGL_COLOR_FORMAT_YUV444_PLANAR_ER = 33,
  CU_EGL_COLOR_FORMAT_YUV422_PLANAR_ER = 34,
  CU_EGL_COLOR_FORMAT_YUV420_PLANAR_ER = 35,
  CU_EGL_COLOR_FORMAT_YUV444_SEMIPLANAR_ER = 36,
  CU_EGL_COLOR_FORMAT_YUV422_SEMIPLANAR_ER = 37,
  CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_ER = 38,
  CU_EGL_COLOR_FORMAT_YVU444_PLANAR_ER = 39,
  CU_EGL_COLOR_FORMAT_YVU422_PLANAR_ER = 40,
  CU_EGL_COLOR_FORMAT_YVU420_PLANAR_ER = 41,
  CU_EGL_COLOR_FORMAT_YVU444_SEMIPLANAR_ER = 42,
  CU_EGL_COLOR_FORMAT_YVU422_SEMIPLANAR_ER = 43,
  CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_ER = 44,
  CU_EGL_COLOR_FORMAT_BAYER_RGGB = 45,
  CU_EGL_COLOR_FORMAT_BAYER_BGGR = 46,
  CU_EGL_COLOR_FORMAT_BAYER_GRBG = 47,
  CU_EGL_COLOR_FORMAT_BAYER_GBRG = 48,
  CU_EGL_COLOR_FORMAT_BAYER10_RGGB = 49,
  CU_EGL_COLOR_FORMAT_BAYER10_BGGR = 50,
  CU_EGL_COLOR_FORMAT_BAYER10_GRBG = 51,
  CU_EGL_COLOR_FORMAT_BAYER10_GBRG = 52,
  CU_EGL_COLOR_FORMAT_BAYER12_RGGB = 53,
  CU_EGL_COLOR_FORMAT_BAYER12_BGGR = 54,
  CU_EGL_COLOR_FORMAT_BAYER12_GRBG = 55,
  CU_EGL_COLOR_FORMAT_BAYER12_GBRG = 56,
  CU_EGL_COLOR_FORMAT_BAYER14_RGGB = 57,
  CU_EGL_COLOR_FORMAT_BAYER14_BGGR = 58,
  CU_EGL_COLOR_FORMAT_BAYER14_GRBG = 59,
  CU_EGL_COLOR_FORMAT_BAYER14_GBRG = 60,
  CU_EGL_COLOR_FORMAT_BAYER20_RGGB = 61,
  CU_EGL_COLOR_FORMAT_BAYER20_BGGR = 62,
  CU_EGL_COLOR_FORMAT_BAYER20_GRBG = 63,
  CU_EGL_COLOR_FORMAT_BAYER20_GBRG = 64,
  CU_EGL_COLOR_FORMAT_YVU444_PLANAR = 65,
  CU_EGL_COLOR_FORMAT_YVU422_PLANAR = 66,
  CU_EGL_COLOR_FORMAT_YVU420_PLANAR = 67,
  CU_EGL_COLOR_FORMAT_BAYER_ISP_RGGB = 68,
  CU_EGL_COLOR_FORMAT_BAYER_ISP_BGGR = 69,
  CU_EGL_COLOR_FORMAT_BAYER_ISP_GRBG = 70,
  CU_EGL_COLOR_FORMAT_BAYER_ISP_GBRG = 71,
  CU_EGL_COLOR_FORMAT_BAYER_BCCR = 72,
  CU_EGL_COLOR_FORMAT_BAYER_RCCB = 73,
  CU_EGL_COLOR_FORMAT_BAYER_CRBC = 74,
  CU_EGL_COLOR_FORMAT_BAYER_CBRC = 75,
  CU_EGL_COLOR_FORMAT_BAYER10_CCCC = 76,
  CU_EGL_COLOR_FORMAT_BAYER12_BCCR = 77,
  CU_EGL_COLOR_FORMAT_BAYER12_RCCB = 78,
  CU_EGL_COLOR_FORMAT_BAYER12_CRBC = 79,
  CU_EGL_COLOR_FORMAT_BAYER12_CBRC = 80,
  CU_EGL_COLOR_FORMAT_BAYER12_CCCC = 81,
  CU_EGL_COLOR_FORMAT_Y = 82,
  CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_2020 = 83,
  CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_2020 = 84,
  CU_EGL_COLOR_FORMAT_YUV420_PLANAR_2020 = 85,
  CU_EGL_COLOR_FORMAT_YVU420_PLANAR_2020 = 86,
  CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_709 = 87,
  CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_709 = 88,
  CU_EGL_COLOR_FORMAT_YUV420_PLANAR_709 = 89,
  CU_EGL_COLOR_FORMAT_YVU420_PLANAR_709 = 90,
  CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709 = 91,
  CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_2020 = 92,
  CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_2020 = 93,
  CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR = 94,
  CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_709 = 95,
  CU_EGL_COLOR_FORMAT_Y_ER = 96,
  CU_EGL_COLOR_FORMAT_Y_709_ER = 97,
  CU_EGL_COLOR_FORMAT_Y10_ER = 98,
  CU_EGL_COLOR_FORMAT_Y10_709_ER = 99,
  CU_EGL_COLOR_FORMAT_Y12_ER = 100,
  CU_EGL_COLOR_FORMAT_Y12_709_ER = 101,
  CU_EGL_COLOR_FORMAT_YUVA = 102,
  CU_EGL_COLOR_FORMAT_YUV = 103,
  CU_EGL_COLOR_FORMAT_YVYU = 104,
  CU_EGL_COLOR_FORMAT_VYUY = 105,
  CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_ER = 106,
  CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709_ER = 107,
  CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_ER = 108,
  CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_709_ER = 109,
  CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_ER = 110,
  CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_709_ER = 111,
  CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_ER = 112,
  CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_709_ER = 113,
  CU_EGL_COLOR_FORMAT_UYVY_709 = 114,
  CU_EGL_COLOR_FORMAT_UYVY_709_ER = 115,
  CU_EGL_COLOR_FORMAT_UYVY_2020 = 116,
  CU_EGL_COLOR_FORMAT_MAX = 117,
} CUeglColorFormat;

typedef struct CUeglFrame_st {
  union {
    CUarray pArray[3];
    void * pPitch[3];
  } frame;
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int pitch;
  unsigned int planeCount;
  unsigned int numChannels;
  CUeglFrameType frameType;
  CUeglColorFormat eglColorFormat;
  CUarray_format cuFormat;
} CUeglFrame_v1;

typedef CUeglFrame_v1 CUeglFrame;
typedef struct CUeglStreamConnection_st *CUeglStreamConnection;

typedef enum CUoutput_mode_enum {
  CU_OUT_KEY_VALUE_PAIR = 0,
  CU_OUT_CSV = 1,
} CUoutput_mode;

// Runtime API side.
enum cudaGLDeviceList {
  cudaGLDeviceListAll = 1,
  cudaGLDeviceListCurrentFrame = 2,
  cudaGLDeviceListNextFrame = 3,
};

enum cudaGLMapFlags {
  cudaGLMapFlagsNone = 0,
  cudaGLMapFlagsReadOnly = 1,
  cudaGLMapFlagsWriteDiscard = 2,
};

typedef enum cudaEglFrameType_enum {
  cudaEglFrameTypeArray = 0,
  cudaEglFrameTypePitch = 1,
} cudaEglFrameType;

typedef enum cudaEglResourceLocationFlags_enum {
  cudaEglResourceLocationSysmem = 0,
  cudaEglResourceLocationVidmem = 1,
} cudaEglResourceLocationFlags;

typedef enum cudaEglColorFormat_enum {
  cudaEglColorFormatYUV420Planar = 0,
  cudaEglColorFormatYUV420SemiPlanar = 1,
  cudaEglColorFormatYUV422Planar = 2,
  cudaEglColorFormatYUV422SemiPlanar = 3,
  cudaEglColorFormatARGB = 6,
  cudaEglColorFormatRGBA = 7,
  cudaEglColorFormatL = 8,
  cudaEglColorFormatR = 9,
  cudaEglColorFormatYUV444Planar = 10,
  cudaEglColorFormatYUV444SemiPlanar = 11,
  cudaEglColorFormatYUYV422 = 12,
  cudaEglColorFormatUYVY422 = 13,
  cudaEglColorFormatABGR = 14,
  cudaEglColorFormatBGRA = 15,
  cudaEglColorFormatA = 16,
  cudaEglColorFormatRG = 17,
  cudaEglColorFormatAYUV = 18,
  cudaEglColorFormatYVU444SemiPlanar = 19,
  cudaEglColorFormatYVU422SemiPlanar = 20,
  cudaEglColorFormatYVU420SemiPlanar = 21,
  cudaEglColorFormatY10V10U10_444SemiPlanar = 22,
  cudaEglColorFormatY10V10U10_420SemiPlanar = 23,
  cudaEglColorFormatY12V12U12_444SemiPlanar = 24,
  cudaEglColorFormatY12V12U12_420SemiPlanar = 25,
  cudaEglColorFormatVYUY_ER = 26,
  cudaEglColorFormatUYVY_ER = 27,
  cudaEglColorFormatYUYV_ER = 28,
  cudaEglColorFormatYVYU_ER = 29,
  cudaEglColorFormatYUVA_ER = 31,
  cudaEglColorFormatAYUV_ER = 32,
  cudaEglColorFormatYUV444Planar_ER = 33,
  cudaEglColorFormatYUV422Planar_ER = 34,
  cudaEglColorFormatYUV420Planar_ER = 35,
  cudaEglColorFormatYUV444SemiPlanar_ER = 36,
  cudaEglColorFormatYUV422SemiPlanar_ER = 37,
  cudaEglColorFormatYUV420SemiPlanar_ER = 38,
  cudaEglColorFormatYVU444Planar_ER = 39,
  cudaEglColorFormatYVU422Planar_ER = 40,
  cudaEglColorFormatYVU420Planar_ER = 41,
  cudaEglColorFormatYVU444SemiPlanar_ER = 42,
  cudaEglColorFormatYVU422SemiPlanar_ER = 43,
  cudaEglColorFormatYVU420SemiPlanar_ER = 44,
  cudaEglColorFormatBayerRGGB = 45,
  cudaEglColorFormatBayerBGGR = 46,
  cudaEglColorFormatBayerGRBG = 47,
  cudaEglColorFormatBayerGBRG = 48,
  cudaEglColorFormatBayer10RGGB = 49,
  cudaEglColorFormatBayer10BGGR = 50,
  cudaEglColorFormatBayer10GRBG = 51,
  cudaEglColorFormatBayer10GBRG = 52,
  cudaEglColorFormatBayer12RGGB = 53,
  cudaEglColorFormatBayer12BGGR = 54,
  cudaEglColorFormatBayer12GRBG = 55,
  cudaEglColorFormatBayer12GBRG = 56,
  cudaEglColorFormatBayer14RGGB = 57,
  cudaEglColorFormatBayer14BGGR = 58,
  cudaEglColorFormatBayer14GRBG = 59,
  cudaEglColorFormatBayer14GBRG = 60,
  cudaEglColorFormatBayer20RGGB = 61,
  cudaEglColorFormatBayer20BGGR = 62,
  cudaEglColorFormatBayer20GRBG = 63,
  cudaEglColorFormatBayer20GBRG = 64,
  cudaEglColorFormatYVU444Planar = 65,
  cudaEglColorFormatYVU422Planar = 66,
  cudaEglColorFormatYVU420Planar = 67,
  cudaEglColorFormatBayerIspRGGB = 68,
  cudaEglColorFormatBayerIspBGGR = 69,
  cudaEglColorFormatBayerIspGRBG = 70,
  cudaEglColorFormatBayerIspGBRG = 71,
  cudaEglColorFormatBayerBCCR = 72,
  cudaEglColorFormatBayerRCCB = 73,
  cudaEglColorFormatBayerCRBC = 74,
  cudaEglColorFormatBayerCBRC = 75,
  cudaEglColorFormatBayer10CCCC = 76,
  cudaEglColorFormatBayer12BCCR = 77,
  cudaEglColorFormatBayer12RCCB = 78,
  cudaEglColorFormatBayer12CRBC = 79,
  cudaEglColorFormatBayer12CBRC = 80,
  cudaEglColorFormatBayer12CCCC = 81,
  cudaEglColorFormatY = 82,
  cudaEglColorFormatYUV420SemiPlanar_2020 = 83,
  cudaEglColorFormatYVU420SemiPlanar_2020 = 84,
  cudaEglColorFormatYUV420Planar_2020 = 85,
  cudaEglColorFormatYVU420Planar_2020 = 86,
  cudaEglColorFormatYUV420SemiPlanar_709 = 87,
  cudaEglColorFormatYVU420SemiPlanar_709 = 88,
  cudaEglColorFormatYUV420Planar_709 = 89,
  cudaEglColorFormatYVU420Planar_709 = 90,
  cudaEglColorFormatY10V10U10_420SemiPlanar_709 = 91,
  cudaEglColorFormatY10V10U10_420SemiPlanar_2020 = 92,
  cudaEglColorFormatY10V10U10_422SemiPlanar_2020 = 93,
  cudaEglColorFormatY10V10U10_422SemiPlanar = 94,
  cudaEglColorFormatY10V10U10_422SemiPlanar_709 = 95,
  cudaEglColorFormatY_ER = 96,
  cudaEglColorFormatY_709_ER = 97,
  cudaEglColorFormatY10_ER = 98,
  cudaEglColorFormatY10_709_ER = 99,
  cudaEglColorFormatY12_ER = 100,
  cudaEglColorFormatY12_709_ER = 101,
  cudaEglColorFormatYUVA = 102,
  cudaEglColorFormatYVYU = 104,
  cudaEglColorFormatVYUY = 105,
  cudaEglColorFormatY10V10U10_420SemiPlanar_ER = 106,
  cudaEglColorFormatY10V10U10_420SemiPlanar_709_ER = 107,
  cudaEglColorFormatY10V10U10_444SemiPlanar_ER = 108,
  cudaEglColorFormatY10V10U10_444SemiPlanar_709_ER = 109,
  cudaEglColorFormatY12V12U12_420SemiPlanar_ER = 110,
  cudaEglColorFormatY12V12U12_420SemiPlanar_709_ER = 111,
  cudaEglColorFormatY12V12U12_444SemiPlanar_ER = 112,
  cudaEglColorFormatY12V12U12_444SemiPlanar_709_ER = 113,
  cudaEglColorFormatUYVY709 = 114,
  cudaEglColorFormatUYVY709_ER = 115,
  cudaEglColorFormatUYVY2020 = 116,
} cudaEglColorFormat;

typedef struct cudaEglPlaneDesc_st {
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int pitch;
  unsigned int numChannels;
  struct cudaChannelFormatDesc channelDesc;
  unsigned int reserved[4];
} cudaEglPlaneDesc;

typedef struct cudaEglFrame_st {
  union {
    cudaArray_t pArray[3];
    struct cudaPitchedPtr pPitch[3];
  } frame;
  cudaEglPlaneDesc planeDesc[3];
  unsigned int planeCount;
  cudaEglFrameType frameType;
  cudaEglColorFormat eglColorFormat;
} cudaEglFrame;

typedef struct CUeglStreamConnection_st *cudaEglStreamConnection;

#ifdef __cplusplus
} // extern "C"
#endif
