/// \file
/// The cuFFT 12 ABI as ferry declares it: result codes, transform types,
/// handles and data types, and cufftXt's enums and multi-GPU descriptors
/// as far as ferry's calls need them (callbacks return CUFFT_NOT_SUPPORTED).
/// Plain C, self-contained; the prototypes are generated from
/// libs/cufft/cufft.api into ferry/generated/CufftApi.h.
#pragma once

#include "ferry/cuda.h"
#include "ferry/libs/library_types.h"

#ifndef FERRY_ABI_NO_MACROS
#define CUFFT_VER_MAJOR 12
#define CUFFT_VER_MINOR 0
#define CUFFT_VER_PATCH 0
#define CUFFT_VER_BUILD 61
#define CUFFT_VERSION 12000
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
#endif

typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0x0,
  CUFFT_INVALID_PLAN = 0x1,
  CUFFT_ALLOC_FAILED = 0x2,
  CUFFT_INVALID_TYPE = 0x3,
  CUFFT_INVALID_VALUE = 0x4,
  CUFFT_INTERNAL_ERROR = 0x5,
  CUFFT_EXEC_FAILED = 0x6,
  CUFFT_SETUP_FAILED = 0x7,
  CUFFT_INVALID_SIZE = 0x8,
  CUFFT_UNALIGNED_DATA = 0x9,
  CUFFT_INVALID_DEVICE = 0xB,
  CUFFT_NO_WORKSPACE = 0xD,
  CUFFT_NOT_IMPLEMENTED = 0xE,
  CUFFT_NOT_SUPPORTED = 0x10,
  CUFFT_MISSING_DEPENDENCY = 0x11,
  CUFFT_NVRTC_FAILURE = 0x12,
  CUFFT_NVJITLINK_FAILURE = 0x13,
  CUFFT_NVSHMEM_FAILURE = 0x14
} cufftResult;

typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;
typedef int cufftHandle;

typedef enum cufftType_t {
  CUFFT_R2C = 0x2a,
  CUFFT_C2R = 0x2c,
  CUFFT_C2C = 0x29,
  CUFFT_D2Z = 0x6a,
  CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69
} cufftType;

typedef enum cufftProperty_t {
  NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT = 0x1,
  NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS = 0x2
} cufftProperty;

typedef struct CUstream_st *cudaStream_t;

/* cufftXt's multi-GPU descriptors (cudalibxt.h's layout: programs read
   descriptor->data[i] directly) and the enums libs/cufft/Xt.cpp acts on. */
#define FERRY_CUFFT_MAX_DESCRIPTOR_GPUS 64
typedef struct cudaXtDesc_t {
  int version;
  int nGPUs;
  int GPUs[FERRY_CUFFT_MAX_DESCRIPTOR_GPUS];
  void *data[FERRY_CUFFT_MAX_DESCRIPTOR_GPUS];
  size_t size[FERRY_CUFFT_MAX_DESCRIPTOR_GPUS];
  void *cudaXtState;
} cudaXtDesc;
typedef struct cudaLibXtDesc_t {
  int version;
  cudaXtDesc *descriptor;
  int library; /* libFormat: 0 is cuFFT */
  int subFormat;
  void *libDescriptor;
} cudaLibXtDesc;
typedef int cufftXtSubFormat; /* an enum */
enum {
  CUFFT_XT_FORMAT_INPUT = 0x00,
  CUFFT_XT_FORMAT_OUTPUT = 0x01,
  CUFFT_XT_FORMAT_INPLACE = 0x02,
  CUFFT_XT_FORMAT_INPLACE_SHUFFLED = 0x03,
  CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED = 0x04,
  CUFFT_XT_FORMAT_DISTRIBUTED_INPUT = 0x05,
  CUFFT_XT_FORMAT_DISTRIBUTED_OUTPUT = 0x06
};
typedef int cufftXtCopyType; /* an enum */
enum {
  CUFFT_COPY_HOST_TO_DEVICE = 0x00,
  CUFFT_COPY_DEVICE_TO_HOST = 0x01,
  CUFFT_COPY_DEVICE_TO_DEVICE = 0x02
};
typedef int cufftXtQueryType; /* an enum */
enum { CUFFT_QUERY_1D_FACTORS = 0x00 };
typedef struct cufftXt1dFactors_t {
  long long int size;
  long long int stringCount;
  long long int stringLength;
  long long int substringLength;
  long long int factor1;
  long long int factor2;
  long long int stringMask;
  long long int substringMask;
  long long int factor1Mask;
  long long int factor2Mask;
  int stringShift;
  int substringShift;
  int factor1Shift;
  int factor2Shift;
} cufftXt1dFactors;
typedef int cufftXtWorkAreaPolicy; /* an enum */
typedef int cufftXtCallbackType;   /* an enum */
