/// \file
/// The types NVIDIA's math libraries share (library_types.h, cuComplex.h and
/// the storage of cuda_fp16.h/cuda_bf16.h), as ferry declares them for its own
/// cuBLAS, cuRAND, cuFFT... Plain C, self-contained; checked against NVIDIA's
/// headers by tests/cublas (AbiTest). The half and bfloat16 types are only
/// their 16-bit storage: ferry's libraries convert them by hand, and no
/// cuBLAS function takes one by value.
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef enum cudaDataType_t {
  CUDA_R_16F = 2,
  CUDA_C_16F = 6,
  CUDA_R_16BF = 14,
  CUDA_C_16BF = 15,
  CUDA_R_32F = 0,
  CUDA_C_32F = 4,
  CUDA_R_64F = 1,
  CUDA_C_64F = 5,
  CUDA_R_4I = 16,
  CUDA_C_4I = 17,
  CUDA_R_4U = 18,
  CUDA_C_4U = 19,
  CUDA_R_8I = 3,
  CUDA_C_8I = 7,
  CUDA_R_8U = 8,
  CUDA_C_8U = 9,
  CUDA_R_16I = 20,
  CUDA_C_16I = 21,
  CUDA_R_16U = 22,
  CUDA_C_16U = 23,
  CUDA_R_32I = 10,
  CUDA_C_32I = 11,
  CUDA_R_32U = 12,
  CUDA_C_32U = 13,
  CUDA_R_64I = 24,
  CUDA_C_64I = 25,
  CUDA_R_64U = 26,
  CUDA_C_64U = 27,
  CUDA_R_8F_E4M3 = 28,
  CUDA_R_8F_UE4M3 = 28,
  CUDA_R_8F_E5M2 = 29,
  CUDA_R_8F_UE8M0 = 30,
  CUDA_R_6F_E2M3 = 31,
  CUDA_R_6F_E3M2 = 32,
  CUDA_R_4F_E2M1 = 33
} cudaDataType;

typedef enum cudaEmulationStrategy_t {
  CUDA_EMULATION_STRATEGY_DEFAULT = 0,
  CUDA_EMULATION_STRATEGY_PERFORMANT = 1,
  CUDA_EMULATION_STRATEGY_EAGER = 2
} cudaEmulationStrategy;

typedef enum cudaEmulationMantissaControl_t {
  CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC = 0,
  CUDA_EMULATION_MANTISSA_CONTROL_FIXED = 1
} cudaEmulationMantissaControl;

typedef enum cudaEmulationSpecialValuesSupport_t {
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT = 0xFFFF,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NONE = 0,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_INFINITY = 1,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN = 2
} cudaEmulationSpecialValuesSupport;

typedef enum libraryPropertyType_t {
  MAJOR_VERSION,
  MINOR_VERSION,
  PATCH_LEVEL
} libraryPropertyType;

#ifndef __cplusplus
typedef enum cudaDataType_t cudaDataType_t;
#endif

/// cuComplex.h's types are vector_types.h's float2/double2: 8- and 16-byte
/// aligned pairs, passed by value in SSE registers. The same tags as
/// NVIDIA's, so the C++ types of the prototypes are NVIDIA's too.
struct __attribute__((aligned(8))) float2 {
  float x;
  float y;
};
struct __attribute__((aligned(16))) double2 {
  double x;
  double y;
};
typedef struct float2 float2;
typedef struct double2 double2;
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/// Storage of an IEEE binary16 and a bfloat16 value (2 bytes, 2-aligned).
typedef struct __attribute__((aligned(2))) __half {
  unsigned short x;
} __half;
typedef struct __attribute__((aligned(2))) __nv_bfloat16 {
  unsigned short x;
} __nv_bfloat16;
