/// \file
/// Preconditioned conjugate gradients as the cuda-samples' solvers run
/// them (conjugateGradientPrecond), shared by the cusparse_pcg_* apps:
/// cusparseSpMV for A p, cuBLAS level-1 calls for the rest, in single or
/// double precision, with the preconditioner step (z = M^-1 r, e.g. two
/// cusparseSpSV solves with an incomplete factor) supplied by the app.
#pragma once
#include "sparse_util.h"
#include <cublas_v2.h>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

// cuBLAS's level-1 calls (unit strides) and cuSPARSE's value type, by
// element type.
inline cublasStatus_t blasDot(cublasHandle_t H, int N, const float *X, const float *Y, float *R) {
  return cublasSdot(H, N, X, 1, Y, 1, R);
}
inline cublasStatus_t blasDot(cublasHandle_t H, int N, const double *X, const double *Y, double *R) {
  return cublasDdot(H, N, X, 1, Y, 1, R);
}
inline cublasStatus_t blasCopy(cublasHandle_t H, int N, const float *X, float *Y) {
  return cublasScopy(H, N, X, 1, Y, 1);
}
inline cublasStatus_t blasCopy(cublasHandle_t H, int N, const double *X, double *Y) {
  return cublasDcopy(H, N, X, 1, Y, 1);
}
inline cublasStatus_t blasScal(cublasHandle_t H, int N, const float *A, float *X) {
  return cublasSscal(H, N, A, X, 1);
}
inline cublasStatus_t blasScal(cublasHandle_t H, int N, const double *A, double *X) {
  return cublasDscal(H, N, A, X, 1);
}
inline cublasStatus_t blasAxpy(cublasHandle_t H, int N, const float *A, const float *X, float *Y) {
  return cublasSaxpy(H, N, A, X, 1, Y, 1);
}
inline cublasStatus_t blasAxpy(cublasHandle_t H, int N, const double *A, const double *X, double *Y) {
  return cublasDaxpy(H, N, A, X, 1, Y, 1);
}
template <typename T> constexpr cudaDataType valueType() {
  return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

/// CG's device vectors of N elements: x, r, z, t (a preconditioner's
/// intermediate), p and q = A p, with dense-vector descriptors for all but
/// x (SpSV reads r and t and writes t and z; SpMV reads p, writes q).
template <typename T> struct CgVectors {
  T *X, *R, *Z, *Tmp, *P, *Q;
  cusparseDnVecDescr_t VR, VZ, VT, VP, VQ;
};

template <typename T> CgVectors<T> cgVectors(int N) {
  CgVectors<T> V;
  for (T **P : {&V.X, &V.R, &V.Z, &V.Tmp, &V.P, &V.Q})
    CHECK(cudaMalloc(P, N * sizeof(T)));
  CUSPARSE_CHECK(cusparseCreateDnVec(&V.VR, N, V.R, valueType<T>()));
  CUSPARSE_CHECK(cusparseCreateDnVec(&V.VZ, N, V.Z, valueType<T>()));
  CUSPARSE_CHECK(cusparseCreateDnVec(&V.VT, N, V.Tmp, valueType<T>()));
  CUSPARSE_CHECK(cusparseCreateDnVec(&V.VP, N, V.P, valueType<T>()));
  CUSPARSE_CHECK(cusparseCreateDnVec(&V.VQ, N, V.Q, valueType<T>()));
  return V;
}

/// Preconditioned CG on A x = b from what V.X (x0) and V.R (r0 = b - A x0)
/// hold: each iteration runs Precond() (z from r), then the CG updates;
/// it stops after MaxIter iterations or once r.r < Tol * r0.r0. Returns
/// the index of the iteration it stopped in (MaxIter when it did not
/// converge). MvBuf is cusparseSpMV's buffer for A, p and q.
template <typename T, typename Step>
int pcg(cusparseHandle_t Sp, cublasHandle_t Bl, cusparseSpMatDescr_t MA, int N, const CgVectors<T> &V,
        void *MvBuf, int MaxIter, T Tol, Step Precond) {
  T One = 1, Zero = 0;
  T Rz = 0, RzOld = 0, Rr = 0, PQ = 0, Bb = 0;
  CUBLAS_CHECK(blasDot(Bl, N, V.R, V.R, &Bb));
  int K = 0;
  for (; K < MaxIter; ++K) {
    Precond();
    RzOld = Rz;
    CUBLAS_CHECK(blasDot(Bl, N, V.R, V.Z, &Rz));
    if (K == 0) {
      CUBLAS_CHECK(blasCopy(Bl, N, V.Z, V.P));
    } else {
      T Beta = Rz / RzOld;
      CUBLAS_CHECK(blasScal(Bl, N, &Beta, V.P));
      CUBLAS_CHECK(blasAxpy(Bl, N, &One, V.Z, V.P));
    }
    CUSPARSE_CHECK(cusparseSpMV(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, MA, V.VP, &Zero, V.VQ,
                                valueType<T>(), CUSPARSE_SPMV_ALG_DEFAULT, MvBuf));
    CUBLAS_CHECK(blasDot(Bl, N, V.P, V.Q, &PQ));
    T Alpha = Rz / PQ, NegAlpha = -Alpha;
    CUBLAS_CHECK(blasAxpy(Bl, N, &Alpha, V.P, V.X));
    CUBLAS_CHECK(blasAxpy(Bl, N, &NegAlpha, V.Q, V.R));
    CUBLAS_CHECK(blasDot(Bl, N, V.R, V.R, &Rr));
    if (Rr < Tol * Bb)
      break;
  }
  return K;
}
