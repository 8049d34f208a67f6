/// \file
/// Level 3 besides gemm/syrk/trsm/geam/dgmm: symm/hemm, syr2k/her2k, herk,
/// syrkx/herkx, trmm (cuBLAS's out-of-place form), rotg/rotm/rotmg, and the
/// batched factorizations (getrf, getrs, getri, matinv, geqrf, gels, trsm)
/// on OpenBLAS's BLAS and LAPACK. Bad arguments return
/// CUBLAS_STATUS_INVALID_VALUE; the batched LAPACK forms report per-matrix
/// results in their info arrays as cuBLAS defines them (LAPACK's info).
#include "libs/cublas/Handle.h"

#include <cblas.h>

#include <complex>
#include <cstring>
#include <vector>

using namespace ferry::cublas;

using C32 = std::complex<float>;
using C64 = std::complex<double>;

// LAPACK (in OpenBLAS), Fortran interface; the trailing size_t is gfortran's
// hidden length of a character argument.
extern "C" {
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void cgetrf_(const int *, const int *, C32 *, const int *, int *, int *);
void zgetrf_(const int *, const int *, C64 *, const int *, int *, int *);
void sgetrs_(const char *, const int *, const int *, const float *, const int *, const int *, float *, const int *,
             int *, size_t);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *, const int *,
             int *, size_t);
void cgetrs_(const char *, const int *, const int *, const C32 *, const int *, const int *, C32 *, const int *, int *,
             size_t);
void zgetrs_(const char *, const int *, const int *, const C64 *, const int *, const int *, C64 *, const int *, int *,
             size_t);
void sgetri_(const int *, float *, const int *, const int *, float *, const int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void cgetri_(const int *, C32 *, const int *, const int *, C32 *, const int *, int *);
void zgetri_(const int *, C64 *, const int *, const int *, C64 *, const int *, int *);
void sgeqrf_(const int *, const int *, float *, const int *, float *, float *, const int *, int *);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void cgeqrf_(const int *, const int *, C32 *, const int *, C32 *, C32 *, const int *, int *);
void zgeqrf_(const int *, const int *, C64 *, const int *, C64 *, C64 *, const int *, int *);
void sgels_(const char *, const int *, const int *, const int *, float *, const int *, float *, const int *, float *,
            const int *, int *, size_t);
void dgels_(const char *, const int *, const int *, const int *, double *, const int *, double *, const int *,
            double *, const int *, int *, size_t);
void cgels_(const char *, const int *, const int *, const int *, C32 *, const int *, C32 *, const int *, C32 *,
            const int *, int *, size_t);
void zgels_(const char *, const int *, const int *, const int *, C64 *, const int *, C64 *, const int *, C64 *,
            const int *, int *, size_t);
}

namespace {

template <typename T> constexpr bool IsComplex = std::is_same_v<T, C32> || std::is_same_v<T, C64>;
bool validFill(cublasFillMode_t F) { return F == CUBLAS_FILL_MODE_LOWER || F == CUBLAS_FILL_MODE_UPPER; }
bool validOp(cublasOperation_t Op) { return Op == CUBLAS_OP_N || Op == CUBLAS_OP_T || Op == CUBLAS_OP_C; }
bool validSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT || S == CUBLAS_SIDE_RIGHT; }
bool validDiag(cublasDiagType_t D) { return D == CUBLAS_DIAG_NON_UNIT || D == CUBLAS_DIAG_UNIT; }
CBLAS_UPLO uplo(cublasFillMode_t F) { return F == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper; }
CBLAS_SIDE side(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight; }
CBLAS_TRANSPOSE trans(cublasOperation_t Op) {
  return Op == CUBLAS_OP_N ? CblasNoTrans : Op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}
CBLAS_DIAG diag(cublasDiagType_t D) { return D == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit; }

template <typename F> cublasStatus_t run(cublasHandle_t Hd, bool Bad, bool Empty, F &&Make) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (Bad)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Empty)
    return CUBLAS_STATUS_SUCCESS;
  return enqueue(*H, Make(*H));
}

template <typename T>
cublasStatus_t symm(cublasHandle_t Hd, cublasSideMode_t S, cublasFillMode_t F, int M, int N, const T *Al, const T *A,
                    int Lda, const T *B, int Ldb, const T *Be, T *C, int Ldc, bool Herm) {
  bool Bad = !validSide(S) || !validFill(F) || M < 0 || N < 0 || Lda < std::max(1, S == CUBLAS_SIDE_LEFT ? M : N) ||
             Ldb < std::max(1, M) || Ldc < std::max(1, M);
  return run(Hd, Bad, M == 0 || N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al), B1 = scalar(H, Be);
    return [=] {
      T a = A1.get(), b = B1.get();
      auto O = CblasColMajor;
      if constexpr (std::is_same_v<T, float>)
        cblas_ssymm(O, side(S), uplo(F), M, N, a, A, Lda, B, Ldb, b, C, Ldc);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dsymm(O, side(S), uplo(F), M, N, a, A, Lda, B, Ldb, b, C, Ldc);
      else if constexpr (std::is_same_v<T, C32>)
        (Herm ? cblas_chemm : cblas_csymm)(O, side(S), uplo(F), M, N, &a, A, Lda, B, Ldb, &b, C, Ldc);
      else
        (Herm ? cblas_zhemm : cblas_zsymm)(O, side(S), uplo(F), M, N, &a, A, Lda, B, Ldb, &b, C, Ldc);
    };
  });
}

/// syr2k/her2k (Two), herk (!Two, Herm), syrkx/herkx (X: alpha op(A) op(B)^T
/// or ^H + beta C on one triangle, computed as a full product then copied).
template <typename T, typename S, typename AS = T>
cublasStatus_t rankK(cublasHandle_t Hd, cublasFillMode_t F, cublasOperation_t Op, int N, int K, const AS *Al,
                     const T *A, int Lda, const T *B, int Ldb, const S *Be, T *C, int Ldc, bool Herm, bool Two,
                     bool X) {
  int Rows = Op == CUBLAS_OP_N ? N : K;
  bool OpOk = IsComplex<T> ? (Herm ? Op != CUBLAS_OP_T : Op != CUBLAS_OP_C) : true;
  bool Bad = !validFill(F) || !validOp(Op) || !OpOk || N < 0 || K < 0 || Lda < std::max(1, Rows) ||
             ((Two || X) && Ldb < std::max(1, Rows)) || Ldc < std::max(1, N);
  return run(Hd, Bad, N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al);
    auto B1 = scalar(H, Be);
    return [=] {
      T a = T(A1.get());
      S b = B1.get();
      auto O = CblasColMajor;
      auto U = uplo(F);
      auto Tr = Op == CUBLAS_OP_N ? CblasNoTrans : (Herm ? CblasConjTrans : CblasTrans);
      if (X) {
        // The product of op(A) and op(B)^T (^H for herkx) into a temporary.
        std::vector<T> P((size_t)N * N);
        auto Tb = Op == CUBLAS_OP_N ? (Herm ? CblasConjTrans : CblasTrans) : CblasNoTrans;
        T One(1), Zero(0);
        if constexpr (std::is_same_v<T, float>)
          cblas_sgemm(O, Tr, Tb, N, N, K, 1.0f, A, Lda, B, Ldb, 0.0f, P.data(), N);
        else if constexpr (std::is_same_v<T, double>)
          cblas_dgemm(O, Tr, Tb, N, N, K, 1.0, A, Lda, B, Ldb, 0.0, P.data(), N);
        else if constexpr (std::is_same_v<T, C32>)
          cblas_cgemm(O, Tr, Tb, N, N, K, &One, A, Lda, B, Ldb, &Zero, P.data(), N);
        else
          cblas_zgemm(O, Tr, Tb, N, N, K, &One, A, Lda, B, Ldb, &Zero, P.data(), N);
        for (int J = 0; J < N; ++J)
          for (int I = 0; I < N; ++I) {
            if (F == CUBLAS_FILL_MODE_LOWER ? I < J : I > J)
              continue;
            T &Cij = C[(int64_t)J * Ldc + I];
            T V = a * P[(size_t)J * N + I] + (b == S(0) ? T(0) : T(b) * Cij);
            if constexpr (IsComplex<T>)
              if (Herm && I == J)
                V = T(V.real(), 0);
            Cij = V;
          }
        return;
      }
      if constexpr (std::is_same_v<T, float>)
        cblas_ssyr2k(O, U, Tr, N, K, a, A, Lda, B, Ldb, b, C, Ldc);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dsyr2k(O, U, Tr, N, K, a, A, Lda, B, Ldb, b, C, Ldc);
      else if constexpr (std::is_same_v<T, C32>) {
        if constexpr (std::is_same_v<S, float>) {
          if (Two)
            cblas_cher2k(O, U, Tr, N, K, &a, A, Lda, B, Ldb, b, C, Ldc);
          else
            cblas_cherk(O, U, Tr, N, K, a.real(), A, Lda, b, C, Ldc);
        } else
          cblas_csyr2k(O, U, Tr, N, K, &a, A, Lda, B, Ldb, &b, C, Ldc);
      } else {
        if constexpr (std::is_same_v<S, double>) {
          if (Two)
            cblas_zher2k(O, U, Tr, N, K, &a, A, Lda, B, Ldb, b, C, Ldc);
          else
            cblas_zherk(O, U, Tr, N, K, a.real(), A, Lda, b, C, Ldc);
        } else
          cblas_zsyr2k(O, U, Tr, N, K, &a, A, Lda, B, Ldb, &b, C, Ldc);
      }
    };
  });
}

/// cuBLAS's trmm writes C = alpha op(A) B (or B op(A)); B is left alone
/// unless C is B.
template <typename T>
cublasStatus_t trmm(cublasHandle_t Hd, cublasSideMode_t S, cublasFillMode_t F, cublasOperation_t Op,
                    cublasDiagType_t D, int M, int N, const T *Al, const T *A, int Lda, const T *B, int Ldb, T *C,
                    int Ldc) {
  bool Bad = !validSide(S) || !validFill(F) || !validOp(Op) || !validDiag(D) || M < 0 || N < 0 ||
             Lda < std::max(1, S == CUBLAS_SIDE_LEFT ? M : N) || Ldb < std::max(1, M) || Ldc < std::max(1, M);
  return run(Hd, Bad, M == 0 || N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al);
    return [=] {
      T a = A1.get();
      if (C != B)
        for (int J = 0; J < N; ++J)
          std::memmove(C + (int64_t)J * Ldc, B + (int64_t)J * Ldb, sizeof(T) * M);
      auto O = CblasColMajor;
      if constexpr (std::is_same_v<T, float>)
        cblas_strmm(O, side(S), uplo(F), trans(Op), diag(D), M, N, a, A, Lda, C, Ldc);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dtrmm(O, side(S), uplo(F), trans(Op), diag(D), M, N, a, A, Lda, C, Ldc);
      else if constexpr (std::is_same_v<T, C32>)
        cblas_ctrmm(O, side(S), uplo(F), trans(Op), diag(D), M, N, &a, A, Lda, C, Ldc);
      else
        cblas_ztrmm(O, side(S), uplo(F), trans(Op), diag(D), M, N, &a, A, Lda, C, Ldc);
    };
  });
}

// --- Batched factorizations. ---

template <typename T> void getrf(int N, T *A, int Lda, int *Piv, int *Info) {
  if constexpr (std::is_same_v<T, float>)
    sgetrf_(&N, &N, A, &Lda, Piv, Info);
  else if constexpr (std::is_same_v<T, double>)
    dgetrf_(&N, &N, A, &Lda, Piv, Info);
  else if constexpr (std::is_same_v<T, C32>)
    cgetrf_(&N, &N, A, &Lda, Piv, Info);
  else
    zgetrf_(&N, &N, A, &Lda, Piv, Info);
}

/// LU without pivoting (cuBLAS's getrfBatched with P == NULL); Info is the
/// first zero pivot (1-based), 0 when none.
template <typename T> void getrfNoPivot(int N, T *A, int Lda, int *Info) {
  *Info = 0;
  for (int K = 0; K < N; ++K) {
    T Piv = A[(int64_t)K * Lda + K];
    if (Piv == T(0)) {
      if (!*Info)
        *Info = K + 1;
      continue;
    }
    for (int I = K + 1; I < N; ++I)
      A[(int64_t)K * Lda + I] /= Piv;
    for (int J = K + 1; J < N; ++J)
      for (int I = K + 1; I < N; ++I)
        A[(int64_t)J * Lda + I] -= A[(int64_t)K * Lda + I] * A[(int64_t)J * Lda + K];
  }
}

template <typename T> void getri(int N, T *A, int Lda, const int *Piv, int *Info) {
  int Lwork = std::max(1, N * 64);
  std::vector<T> Work(Lwork);
  if constexpr (std::is_same_v<T, float>)
    sgetri_(&N, A, &Lda, Piv, Work.data(), &Lwork, Info);
  else if constexpr (std::is_same_v<T, double>)
    dgetri_(&N, A, &Lda, Piv, Work.data(), &Lwork, Info);
  else if constexpr (std::is_same_v<T, C32>)
    cgetri_(&N, A, &Lda, Piv, Work.data(), &Lwork, Info);
  else
    zgetri_(&N, A, &Lda, Piv, Work.data(), &Lwork, Info);
}

template <typename T>
cublasStatus_t getrfBatched(cublasHandle_t Hd, int N, T *const *A, int Lda, int *P, int *Info, int Batch) {
  return run(Hd, N < 0 || Lda < std::max(1, N) || Batch < 0 || !Info, N == 0 || Batch == 0, [&](Handle &) {
    return [=] {
      for (int B = 0; B < Batch; ++B) {
        if (P)
          getrf<T>(N, A[B], Lda, P + (int64_t)B * N, Info + B);
        else
          getrfNoPivot<T>(N, A[B], Lda, Info + B);
      }
    };
  });
}

template <typename T>
cublasStatus_t getrsBatched(cublasHandle_t Hd, cublasOperation_t Op, int N, int Nrhs, const T *const *A, int Lda,
                            const int *Piv, T *const *B, int Ldb, int *Info, int Batch) {
  // Info is a host pointer: the index of the first bad argument, negated.
  int Bad = !validOp(Op) ? -1 : N < 0 ? -2 : Nrhs < 0 ? -3 : Lda < std::max(1, N) ? -5 : Ldb < std::max(1, N) ? -8
            : Batch < 0 ? -10 : 0;
  if (Info)
    *Info = Bad;
  return run(Hd, Bad != 0, N == 0 || Nrhs == 0 || Batch == 0, [&](Handle &) {
    return [=] {
      char Tr = Op == CUBLAS_OP_N ? 'N' : Op == CUBLAS_OP_T ? 'T' : 'C';
      std::vector<int> Identity;
      for (int Bi = 0; Bi < Batch; ++Bi) {
        const int *Pv = Piv ? Piv + (int64_t)Bi * N : nullptr;
        if (!Pv) {
          Identity.resize(N);
          for (int I = 0; I < N; ++I)
            Identity[I] = I + 1;
          Pv = Identity.data();
        }
        int I = 0;
        if constexpr (std::is_same_v<T, float>)
          sgetrs_(&Tr, &N, &Nrhs, A[Bi], &Lda, Pv, B[Bi], &Ldb, &I, 1);
        else if constexpr (std::is_same_v<T, double>)
          dgetrs_(&Tr, &N, &Nrhs, A[Bi], &Lda, Pv, B[Bi], &Ldb, &I, 1);
        else if constexpr (std::is_same_v<T, C32>)
          cgetrs_(&Tr, &N, &Nrhs, A[Bi], &Lda, Pv, B[Bi], &Ldb, &I, 1);
        else
          zgetrs_(&Tr, &N, &Nrhs, A[Bi], &Lda, Pv, B[Bi], &Ldb, &I, 1);
      }
    };
  });
}

template <typename T>
cublasStatus_t getriBatched(cublasHandle_t Hd, int N, const T *const *A, int Lda, const int *Piv, T *const *C,
                            int Ldc, int *Info, int Batch) {
  return run(Hd, N < 0 || Lda < std::max(1, N) || Ldc < std::max(1, N) || Batch < 0 || !Info, N == 0 || Batch == 0,
             [&](Handle &) {
               return [=] {
                 std::vector<int> Identity(N);
                 for (int I = 0; I < N; ++I)
                   Identity[I] = I + 1;
                 for (int Bi = 0; Bi < Batch; ++Bi) {
                   for (int J = 0; J < N; ++J)
                     std::memcpy(C[Bi] + (int64_t)J * Ldc, A[Bi] + (int64_t)J * Lda, sizeof(T) * N);
                   getri<T>(N, C[Bi], Ldc, Piv ? Piv + (int64_t)Bi * N : Identity.data(), Info + Bi);
                 }
               };
             });
}

/// matinvBatched: cuBLAS limits n to 32.
template <typename T>
cublasStatus_t matinvBatched(cublasHandle_t Hd, int N, const T *const *A, int Lda, T *const *Ainv, int LdaInv,
                             int *Info, int Batch) {
  return run(Hd, N < 0 || N > 32 || Lda < std::max(1, N) || LdaInv < std::max(1, N) || Batch < 0 || !Info,
             N == 0 || Batch == 0, [&](Handle &) {
               return [=] {
                 std::vector<int> Piv(N);
                 for (int Bi = 0; Bi < Batch; ++Bi) {
                   for (int J = 0; J < N; ++J)
                     std::memcpy(Ainv[Bi] + (int64_t)J * LdaInv, A[Bi] + (int64_t)J * Lda, sizeof(T) * N);
                   getrf<T>(N, Ainv[Bi], LdaInv, Piv.data(), Info + Bi);
                   if (Info[Bi] == 0) {
                     int I2 = 0;
                     getri<T>(N, Ainv[Bi], LdaInv, Piv.data(), &I2);
                   }
                 }
               };
             });
}

template <typename T>
cublasStatus_t geqrfBatched(cublasHandle_t Hd, int M, int N, T *const *A, int Lda, T *const *Tau, int *Info,
                            int Batch) {
  int Bad = M < 0 ? -1 : N < 0 ? -2 : Lda < std::max(1, M) ? -4 : Batch < 0 ? -7 : 0;
  if (Info)
    *Info = Bad;
  return run(Hd, Bad != 0, M == 0 || N == 0 || Batch == 0, [&](Handle &) {
    return [=] {
      int Lwork = std::max(1, N * 64), I = 0;
      std::vector<T> Work(Lwork);
      for (int Bi = 0; Bi < Batch; ++Bi) {
        if constexpr (std::is_same_v<T, float>)
          sgeqrf_(&M, &N, A[Bi], &Lda, Tau[Bi], Work.data(), &Lwork, &I);
        else if constexpr (std::is_same_v<T, double>)
          dgeqrf_(&M, &N, A[Bi], &Lda, Tau[Bi], Work.data(), &Lwork, &I);
        else if constexpr (std::is_same_v<T, C32>)
          cgeqrf_(&M, &N, A[Bi], &Lda, Tau[Bi], Work.data(), &Lwork, &I);
        else
          zgeqrf_(&M, &N, A[Bi], &Lda, Tau[Bi], Work.data(), &Lwork, &I);
      }
    };
  });
}

/// gelsBatched: cuBLAS supports only op N and m >= n (least squares).
template <typename T>
cublasStatus_t gelsBatched(cublasHandle_t Hd, cublasOperation_t Op, int M, int N, int Nrhs, T *const *A, int Lda,
                           T *const *C, int Ldc, int *Info, int *DevInfo, int Batch) {
  int Bad = Op != CUBLAS_OP_N ? -1 : M < 0 ? -2 : N < 0 || N > M ? -3 : Nrhs < 0 ? -4 : Lda < std::max(1, M) ? -6
            : Ldc < std::max(1, M) ? -8 : Batch < 0 ? -11 : 0;
  if (Info)
    *Info = Bad;
  return run(Hd, Bad != 0, Batch == 0, [&](Handle &) {
    return [=] {
      char Tr = 'N';
      for (int Bi = 0; Bi < Batch; ++Bi) {
        int Lwork = -1, I = 0;
        T Query{};
        auto call = [&](T *W, int L) {
          if constexpr (std::is_same_v<T, float>)
            sgels_(&Tr, &M, &N, &Nrhs, A[Bi], &Lda, C[Bi], &Ldc, W, &L, &I, 1);
          else if constexpr (std::is_same_v<T, double>)
            dgels_(&Tr, &M, &N, &Nrhs, A[Bi], &Lda, C[Bi], &Ldc, W, &L, &I, 1);
          else if constexpr (std::is_same_v<T, C32>)
            cgels_(&Tr, &M, &N, &Nrhs, A[Bi], &Lda, C[Bi], &Ldc, W, &L, &I, 1);
          else
            zgels_(&Tr, &M, &N, &Nrhs, A[Bi], &Lda, C[Bi], &Ldc, W, &L, &I, 1);
        };
        call(&Query, Lwork);
        Lwork = std::max(1, (int)std::real(Query));
        std::vector<T> Work(Lwork);
        call(Work.data(), Lwork);
        if (DevInfo)
          DevInfo[Bi] = I;
      }
    };
  });
}

template <typename T>
cublasStatus_t trsmBatched(cublasHandle_t Hd, cublasSideMode_t S, cublasFillMode_t F, cublasOperation_t Op,
                           cublasDiagType_t D, int M, int N, const T *Al, const T *const *A, int Lda, T *const *B,
                           int Ldb, int Batch) {
  bool Bad = !validSide(S) || !validFill(F) || !validOp(Op) || !validDiag(D) || M < 0 || N < 0 ||
             Lda < std::max(1, S == CUBLAS_SIDE_LEFT ? M : N) || Ldb < std::max(1, M) || Batch < 0;
  return run(Hd, Bad, M == 0 || N == 0 || Batch == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al);
    return [=] {
      T a = A1.get();
      auto O = CblasColMajor;
      for (int Bi = 0; Bi < Batch; ++Bi) {
        if constexpr (std::is_same_v<T, float>)
          cblas_strsm(O, side(S), uplo(F), trans(Op), diag(D), M, N, a, A[Bi], Lda, B[Bi], Ldb);
        else if constexpr (std::is_same_v<T, double>)
          cblas_dtrsm(O, side(S), uplo(F), trans(Op), diag(D), M, N, a, A[Bi], Lda, B[Bi], Ldb);
        else if constexpr (std::is_same_v<T, C32>)
          cblas_ctrsm(O, side(S), uplo(F), trans(Op), diag(D), M, N, &a, A[Bi], Lda, B[Bi], Ldb);
        else
          cblas_ztrsm(O, side(S), uplo(F), trans(Op), diag(D), M, N, &a, A[Bi], Lda, B[Bi], Ldb);
      }
    };
  });
}

} // namespace

#define CX(T) reinterpret_cast<T>
#define CXA(T) reinterpret_cast<T>

#define L3(P, T, U)                                                                                \
  extern "C" cublasStatus_t cublas##P##symm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, int m, \
                                               int n, const T *al, const T *A, int lda, const T *B, int ldb,   \
                                               const T *be, T *C, int ldc) {                       \
    return symm<U>(h, s, f, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb,            \
                   CX(const U *)(be), CX(U *)(C), ldc, false);                                     \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##syr2k_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, \
                                                int k, const T *al, const T *A, int lda, const T *B, int ldb,  \
                                                const T *be, T *C, int ldc) {                      \
    return rankK<U, U>(h, f, o, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb,        \
                       CX(const U *)(be), CX(U *)(C), ldc, false, true, false);                    \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##syrkx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, \
                                             int k, const T *al, const T *A, int lda, const T *B, int ldb,     \
                                             const T *be, T *C, int ldc) {                         \
    return rankK<U, U>(h, f, o, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb,        \
                       CX(const U *)(be), CX(U *)(C), ldc, false, false, true);                    \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##trmm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f,      \
                                               cublasOperation_t o, cublasDiagType_t d, int m, int n,          \
                                               const T *al, const T *A, int lda, const T *B, int ldb, T *C,     \
                                               int ldc) {                                          \
    return trmm<U>(h, s, f, o, d, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb,      \
                   CX(U *)(C), ldc);                                                               \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##getrfBatched(cublasHandle_t h, int n, T *const *A, int lda, int *piv,  \
                                                    int *info, int batch) {                        \
    return getrfBatched<U>(h, n, CXA(U *const *)(A), lda, piv, info, batch);                         \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##getrsBatched(cublasHandle_t h, cublasOperation_t o, int n, int nrhs,   \
                                                    const T *const *A, int lda, const int *piv, T *const *B,  \
                                                    int ldb, int *info, int batch) {               \
    return getrsBatched<U>(h, o, n, nrhs, CXA(const U *const *)(A), lda, piv, CXA(U *const *)(B), ldb, info,   \
                           batch);                                                                 \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##getriBatched(cublasHandle_t h, int n, const T *const *A, int lda,      \
                                                    const int *piv, T *const *C, int ldc, int *info, int batch) { \
    return getriBatched<U>(h, n, CXA(const U *const *)(A), lda, piv, CXA(U *const *)(C), ldc, info, batch);     \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##matinvBatched(cublasHandle_t h, int n, const T *const *A, int lda,     \
                                                     T *const *Ainv, int ldi, int *info, int batch) { \
    return matinvBatched<U>(h, n, CXA(const U *const *)(A), lda, CXA(U *const *)(Ainv), ldi, info, batch);    \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t h, int m, int n, T *const *A, int lda,     \
                                                    T *const *tau, int *info, int batch) {         \
    return geqrfBatched<U>(h, m, n, CXA(U *const *)(A), lda, CXA(U *const *)(tau), info, batch);   \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##gelsBatched(cublasHandle_t h, cublasOperation_t o, int m, int n,       \
                                                   int nrhs, T *const *A, int lda, T *const *C, int ldc,      \
                                                   int *info, int *dinfo, int batch) {             \
    return gelsBatched<U>(h, o, m, n, nrhs, CXA(U *const *)(A), lda, CXA(U *const *)(C), ldc, info, dinfo,     \
                          batch);                                                                  \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##trsmBatched(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f,  \
                                                   cublasOperation_t o, cublasDiagType_t d, int m, int n,     \
                                                   const T *al, const T *const *A, int lda, T *const *B,      \
                                                   int ldb, int batch) {                           \
    return trsmBatched<U>(h, s, f, o, d, m, n, CX(const U *)(al), CXA(const U *const *)(A), lda,               \
                          CXA(U *const *)(B), ldb, batch);                                         \
  }

L3(S, float, float)
L3(D, double, double)
L3(C, cuComplex, C32)
L3(Z, cuDoubleComplex, C64)

#define L3HERM(P, T, U, R)                                                                         \
  extern "C" cublasStatus_t cublas##P##hemm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, int m, \
                                               int n, const T *al, const T *A, int lda, const T *B, int ldb,   \
                                               const T *be, T *C, int ldc) {                       \
    return symm<U>(h, s, f, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb,            \
                   CX(const U *)(be), CX(U *)(C), ldc, true);                                      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##her2k_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, \
                                                int k, const T *al, const T *A, int lda, const T *B, int ldb,  \
                                                const R *be, T *C, int ldc) {                      \
    return rankK<U, R>(h, f, o, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb, be,     \
                       CX(U *)(C), ldc, true, true, false);                                        \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##herkx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, \
                                             int k, const T *al, const T *A, int lda, const T *B, int ldb,     \
                                             const R *be, T *C, int ldc) {                         \
    return rankK<U, R>(h, f, o, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(B), ldb, be,     \
                       CX(U *)(C), ldc, true, false, true);                                        \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##herk_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, \
                                               int k, const R *al, const T *A, int lda, const R *be, T *C,     \
                                               int ldc) {                                          \
    return rankK<U, R, R>(h, f, o, n, k, al, CX(const U *)(A), lda, nullptr, 1, be, CX(U *)(C), ldc, true, false, \
                          false);                                                                  \
  }
L3HERM(C, cuComplex, C32, float)
L3HERM(Z, cuDoubleComplex, C64, double)
