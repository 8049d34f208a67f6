/// \file
/// The cuSOLVER 12 ABI as ferry declares it: status codes, the enums of the
/// dense (Dn), sparse (Sp) and refactorization (Rf) APIs, and their opaque
/// handle types. Plain C, self-contained apart from cuBLAS's fill/side/
/// operation/diagonal enums (ferry/libs/cublas.h) and cuSPARSE's matrix
/// descriptor, which the sparse solvers take and ferry reads through
/// libcusparse's public calls. The prototypes are generated from
/// libs/cusolver/cusolver.api into ferry/generated/CusolverApi.h.
#pragma once

#include "ferry/cuda.h"
#include "ferry/libs/cublas.h"
#include "ferry/libs/library_types.h"

#include <stdint.h>

#ifndef FERRY_ABI_NO_MACROS
#define CUSOLVER_VER_MAJOR 12
#define CUSOLVER_VER_MINOR 0
#define CUSOLVER_VER_PATCH 4
#define CUSOLVER_VER_BUILD 66
#define CUSOLVER_VERSION (CUSOLVER_VER_MAJOR * 1000 + CUSOLVER_VER_MINOR * 100 + CUSOLVER_VER_PATCH)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int cusolver_int_t;

typedef enum {
  CUSOLVER_STATUS_SUCCESS = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2,
  CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4,
  CUSOLVER_STATUS_MAPPING_ERROR = 5,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  CUSOLVER_STATUS_NOT_SUPPORTED = 9,
  CUSOLVER_STATUS_ZERO_PIVOT = 10,
  CUSOLVER_STATUS_INVALID_LICENSE = 11,
  CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED = 12,
  CUSOLVER_STATUS_IRS_PARAMS_INVALID = 13,
  CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC = 14,
  CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE = 15,
  CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER = 16,
  CUSOLVER_STATUS_IRS_INTERNAL_ERROR = 20,
  CUSOLVER_STATUS_IRS_NOT_SUPPORTED = 21,
  CUSOLVER_STATUS_IRS_OUT_OF_RANGE = 22,
  CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES = 23,
  CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED = 25,
  CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED = 26,
  CUSOLVER_STATUS_IRS_MATRIX_SINGULAR = 30,
  CUSOLVER_STATUS_INVALID_WORKSPACE = 31
} cusolverStatus_t;

typedef enum { CUSOLVER_EIG_TYPE_1 = 1, CUSOLVER_EIG_TYPE_2 = 2, CUSOLVER_EIG_TYPE_3 = 3 } cusolverEigType_t;
typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;
typedef enum {
  CUSOLVER_EIG_RANGE_ALL = 1001,
  CUSOLVER_EIG_RANGE_I = 1002,
  CUSOLVER_EIG_RANGE_V = 1003
} cusolverEigRange_t;
typedef enum {
  CUSOLVER_INF_NORM = 104,
  CUSOLVER_MAX_NORM = 105,
  CUSOLVER_ONE_NORM = 106,
  CUSOLVER_FRO_NORM = 107
} cusolverNorm_t;
typedef enum {
  CUSOLVER_IRS_REFINE_NOT_SET = 1100,
  CUSOLVER_IRS_REFINE_NONE = 1101,
  CUSOLVER_IRS_REFINE_CLASSICAL = 1102,
  CUSOLVER_IRS_REFINE_CLASSICAL_GMRES = 1103,
  CUSOLVER_IRS_REFINE_GMRES = 1104,
  CUSOLVER_IRS_REFINE_GMRES_GMRES = 1105,
  CUSOLVER_IRS_REFINE_GMRES_NOPCOND = 1106,
  CUSOLVER_PREC_DD = 1150,
  CUSOLVER_PREC_SS = 1151,
  CUSOLVER_PREC_SHT = 1152
} cusolverIRSRefinement_t;
typedef enum {
  CUSOLVER_R_8I = 1201,
  CUSOLVER_R_8U = 1202,
  CUSOLVER_R_64F = 1203,
  CUSOLVER_R_32F = 1204,
  CUSOLVER_R_16F = 1205,
  CUSOLVER_R_16BF = 1206,
  CUSOLVER_R_TF32 = 1207,
  CUSOLVER_R_AP = 1208,
  CUSOLVER_C_8I = 1211,
  CUSOLVER_C_8U = 1212,
  CUSOLVER_C_64F = 1213,
  CUSOLVER_C_32F = 1214,
  CUSOLVER_C_16F = 1215,
  CUSOLVER_C_16BF = 1216,
  CUSOLVER_C_TF32 = 1217,
  CUSOLVER_C_AP = 1218
} cusolverPrecType_t;
typedef enum { CUSOLVER_ALG_0 = 0, CUSOLVER_ALG_1 = 1, CUSOLVER_ALG_2 = 2 } cusolverAlgMode_t;
typedef enum { CUBLAS_STOREV_COLUMNWISE = 0, CUBLAS_STOREV_ROWWISE = 1 } cusolverStorevMode_t;
typedef enum { CUBLAS_DIRECT_FORWARD = 0, CUBLAS_DIRECT_BACKWARD = 1 } cusolverDirectMode_t;
typedef enum {
  CUSOLVER_DETERMINISTIC_RESULTS = 1,
  CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS = 2
} cusolverDeterministicMode_t;
typedef enum { CUSOLVER_DEFAULT_MATH = 1, CUSOLVER_FP32_EMULATED_BF16X9_MATH = 2 } cusolverMathMode_t;

/* Dense (cusolverDn.h). */
typedef struct cusolverDnContext *cusolverDnHandle_t;
typedef struct syevjInfo *syevjInfo_t;
typedef struct gesvdjInfo *gesvdjInfo_t;
typedef struct cusolverDnIRSParams *cusolverDnIRSParams_t;
typedef struct cusolverDnIRSInfos *cusolverDnIRSInfos_t;
typedef struct cusolverDnParams *cusolverDnParams_t;
typedef enum { CUSOLVERDN_GETRF = 0, CUSOLVERDN_POTRF = 1, CUSOLVERDN_SYEVBATCHED = 2 } cusolverDnFunction_t;

/* Sparse (cusolverSp.h, cusolverSp_LOWLEVEL_PREVIEW.h). The matrix
   descriptor is cuSPARSE's, declared as cusparse.h declares it. */
struct cusparseMatDescr;
typedef struct cusparseMatDescr *cusparseMatDescr_t;
typedef struct cusolverSpContext *cusolverSpHandle_t;
typedef struct csrqrInfo *csrqrInfo_t;
typedef struct csrluInfoHost *csrluInfoHost_t;
typedef struct csrqrInfoHost *csrqrInfoHost_t;
typedef struct csrcholInfoHost *csrcholInfoHost_t;
typedef struct csrcholInfo *csrcholInfo_t;

/* Refactorization (cusolverRf.h). */
typedef enum {
  CUSOLVERRF_RESET_VALUES_FAST_MODE_OFF = 0,
  CUSOLVERRF_RESET_VALUES_FAST_MODE_ON = 1
} cusolverRfResetValuesFastMode_t;
typedef enum { CUSOLVERRF_MATRIX_FORMAT_CSR = 0, CUSOLVERRF_MATRIX_FORMAT_CSC = 1 } cusolverRfMatrixFormat_t;
typedef enum {
  CUSOLVERRF_UNIT_DIAGONAL_STORED_L = 0,
  CUSOLVERRF_UNIT_DIAGONAL_STORED_U = 1,
  CUSOLVERRF_UNIT_DIAGONAL_ASSUMED_L = 2,
  CUSOLVERRF_UNIT_DIAGONAL_ASSUMED_U = 3
} cusolverRfUnitDiagonal_t;
typedef enum {
  CUSOLVERRF_FACTORIZATION_ALG0 = 0,
  CUSOLVERRF_FACTORIZATION_ALG1 = 1,
  CUSOLVERRF_FACTORIZATION_ALG2 = 2
} cusolverRfFactorization_t;
typedef enum {
  CUSOLVERRF_TRIANGULAR_SOLVE_ALG1 = 1,
  CUSOLVERRF_TRIANGULAR_SOLVE_ALG2 = 2,
  CUSOLVERRF_TRIANGULAR_SOLVE_ALG3 = 3
} cusolverRfTriangularSolve_t;
typedef enum {
  CUSOLVERRF_NUMERIC_BOOST_NOT_USED = 0,
  CUSOLVERRF_NUMERIC_BOOST_USED = 1
} cusolverRfNumericBoostReport_t;
typedef struct cusolverRfCommon *cusolverRfHandle_t;

#ifdef __cplusplus
} // extern "C"
#endif
