/// \file
/// Level-2 BLAS besides gemv and ger: symv/hemv, syr/her, syr2/her2,
/// trmv/trsv, the banded (gbmv, sbmv/hbmv, tbmv/tbsv) and packed (spmv/hpmv,
/// spr/hpr, spr2/hpr2, tpmv/tpsv) forms, for S/D/C/Z as cuBLAS has them.
/// OpenBLAS does the work; the complex symmetric forms CBLAS lacks (csymv,
/// csyr, csyr2) are written out. Bad arguments (an enum out of range,
/// n < 0, a leading dimension too small, a zero increment) return
/// CUBLAS_STATUS_INVALID_VALUE, as gemv does on the H100; n == 0 is no work.
#include "libs/cublas/Handle.h"

#include <cblas.h>

#include <complex>

using namespace ferry::cublas;

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;
template <typename T> constexpr bool IsComplex = std::is_same_v<T, C32> || std::is_same_v<T, C64>;
template <typename T> constexpr bool IsFloat = std::is_same_v<T, float> || std::is_same_v<T, C32>;

bool validFill(cublasFillMode_t F) { return F == CUBLAS_FILL_MODE_LOWER || F == CUBLAS_FILL_MODE_UPPER; }
bool validOp(cublasOperation_t Op) { return Op == CUBLAS_OP_N || Op == CUBLAS_OP_T || Op == CUBLAS_OP_C; }
bool validDiag(cublasDiagType_t D) { return D == CUBLAS_DIAG_NON_UNIT || D == CUBLAS_DIAG_UNIT; }
CBLAS_UPLO uplo(cublasFillMode_t F) { return F == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper; }
CBLAS_TRANSPOSE trans(cublasOperation_t Op) {
  return Op == CUBLAS_OP_N ? CblasNoTrans : Op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}
CBLAS_DIAG diag(cublasDiagType_t D) { return D == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit; }

/// Element I of a BLAS vector of N elements (a negative increment walks back).
template <typename T> T &vat(T *X, int N, int Inc, int I) {
  return Inc > 0 ? X[(int64_t)I * Inc] : X[(int64_t)(N - 1 - I) * -Inc];
}

/// The checked, enqueued body every routine shares.
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

// --- symv / hemv ---
template <typename T>
cublasStatus_t symv(cublasHandle_t Hd, cublasFillMode_t F, int N, const T *Al, const T *A, int Lda, const T *X,
                    int Ix, const T *Be, T *Y, int Iy, bool Herm) {
  return run(Hd, !validFill(F) || N < 0 || Lda < std::max(1, N) || Ix == 0 || Iy == 0, N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al), B1 = scalar(H, Be);
    return [=] {
      T a = A1.get(), b = B1.get();
      if constexpr (std::is_same_v<T, float>)
        cblas_ssymv(CblasColMajor, uplo(F), N, a, A, Lda, X, Ix, b, Y, Iy);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dsymv(CblasColMajor, uplo(F), N, a, A, Lda, X, Ix, b, Y, Iy);
      else if (Herm) {
        if constexpr (std::is_same_v<T, C32>)
          cblas_chemv(CblasColMajor, uplo(F), N, &a, A, Lda, X, Ix, &b, Y, Iy);
        else
          cblas_zhemv(CblasColMajor, uplo(F), N, &a, A, Lda, X, Ix, &b, Y, Iy);
      } else {
        // Complex symmetric: y = alpha A x + beta y, A from one triangle.
        std::vector<T> R(N);
        for (int I = 0; I < N; ++I) {
          T S{};
          for (int J = 0; J < N; ++J) {
            bool Stored = F == CUBLAS_FILL_MODE_LOWER ? I >= J : I <= J;
            T Aij = Stored ? A[(int64_t)J * Lda + I] : A[(int64_t)I * Lda + J];
            S += Aij * vat(X, N, Ix, J);
          }
          R[I] = S;
        }
        for (int I = 0; I < N; ++I) {
          T &Yi = vat(Y, N, Iy, I);
          Yi = a * R[I] + (b == T{} ? T{} : b * Yi);
        }
      }
    };
  });
}

// --- syr / her, syr2 / her2 ---
template <typename T, typename S>
cublasStatus_t syr(cublasHandle_t Hd, cublasFillMode_t F, int N, const S *Al, const T *X, int Ix, const T *Y, int Iy,
                   T *A, int Lda, bool Herm, bool Two) {
  return run(Hd, !validFill(F) || N < 0 || Lda < std::max(1, N) || Ix == 0 || (Two && Iy == 0), N == 0,
             [&](Handle &H) {
               auto A1 = scalar(H, Al);
               return [=] {
                 S a = A1.get();
                 if constexpr (std::is_same_v<T, float>) {
                   if (Two)
                     cblas_ssyr2(CblasColMajor, uplo(F), N, a, X, Ix, Y, Iy, A, Lda);
                   else
                     cblas_ssyr(CblasColMajor, uplo(F), N, a, X, Ix, A, Lda);
                 } else if constexpr (std::is_same_v<T, double>) {
                   if (Two)
                     cblas_dsyr2(CblasColMajor, uplo(F), N, a, X, Ix, Y, Iy, A, Lda);
                   else
                     cblas_dsyr(CblasColMajor, uplo(F), N, a, X, Ix, A, Lda);
                 } else if (Herm) {
                   if constexpr (std::is_same_v<T, C32>) {
                     if constexpr (std::is_same_v<S, C32>)
                       cblas_cher2(CblasColMajor, uplo(F), N, &a, X, Ix, Y, Iy, A, Lda);
                     else
                       cblas_cher(CblasColMajor, uplo(F), N, a, X, Ix, A, Lda);
                   } else {
                     if constexpr (std::is_same_v<S, C64>)
                       cblas_zher2(CblasColMajor, uplo(F), N, &a, X, Ix, Y, Iy, A, Lda);
                     else
                       cblas_zher(CblasColMajor, uplo(F), N, a, X, Ix, A, Lda);
                   }
                 } else {
                   // Complex symmetric rank-1/rank-2 update of one triangle.
                   for (int J = 0; J < N; ++J)
                     for (int I = 0; I < N; ++I) {
                       if (F == CUBLAS_FILL_MODE_LOWER ? I < J : I > J)
                         continue;
                       T U = vat(X, N, Ix, I) * vat(X, N, Ix, J);
                       if (Two)
                         U = vat(X, N, Ix, I) * vat(Y, N, Iy, J) + vat(Y, N, Iy, I) * vat(X, N, Ix, J);
                       A[(int64_t)J * Lda + I] += T(a) * U;
                     }
                 }
               };
             });
}

// --- trmv / trsv, tbmv / tbsv, tpmv / tpsv ---
enum class Tri { Full, Band, Packed };
template <typename T>
cublasStatus_t tri(cublasHandle_t Hd, cublasFillMode_t F, cublasOperation_t Op, cublasDiagType_t D, int N, int K,
                   const T *A, int Lda, T *X, int Ix, Tri Kind, bool Solve) {
  int MinLda = Kind == Tri::Band ? K + 1 : std::max(1, N);
  bool Bad = !validFill(F) || !validOp(Op) || !validDiag(D) || N < 0 || K < 0 || Ix == 0 ||
             (Kind != Tri::Packed && Lda < MinLda);
  return run(Hd, Bad, N == 0, [&](Handle &) {
    return [=] {
      auto O = CblasColMajor;
      auto U = uplo(F);
      auto Tr = trans(Op);
      auto Dg = diag(D);
#define TRI_CALL(P, PTR)                                                                           \
  if (Kind == Tri::Full)                                                                           \
    Solve ? cblas_##P##trsv(O, U, Tr, Dg, N, A, Lda, X, Ix) : cblas_##P##trmv(O, U, Tr, Dg, N, A, Lda, X, Ix); \
  else if (Kind == Tri::Band)                                                                      \
    Solve ? cblas_##P##tbsv(O, U, Tr, Dg, N, K, A, Lda, X, Ix) : cblas_##P##tbmv(O, U, Tr, Dg, N, K, A, Lda, X, Ix); \
  else                                                                                             \
    Solve ? cblas_##P##tpsv(O, U, Tr, Dg, N, A, X, Ix) : cblas_##P##tpmv(O, U, Tr, Dg, N, A, X, Ix);
      if constexpr (std::is_same_v<T, float>) {
        TRI_CALL(s, )
      } else if constexpr (std::is_same_v<T, double>) {
        TRI_CALL(d, )
      } else if constexpr (std::is_same_v<T, C32>) {
        TRI_CALL(c, )
      } else {
        TRI_CALL(z, )
      }
#undef TRI_CALL
    };
  });
}

// --- gbmv, sbmv / hbmv, spmv / hpmv ---
template <typename T>
cublasStatus_t gbmv(cublasHandle_t Hd, cublasOperation_t Op, int M, int N, int Kl, int Ku, const T *Al, const T *A,
                    int Lda, const T *X, int Ix, const T *Be, T *Y, int Iy) {
  bool Bad = !validOp(Op) || M < 0 || N < 0 || Kl < 0 || Ku < 0 || Lda < Kl + Ku + 1 || Ix == 0 || Iy == 0;
  return run(Hd, Bad, M == 0 || N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al), B1 = scalar(H, Be);
    return [=] {
      T a = A1.get(), b = B1.get();
      if constexpr (std::is_same_v<T, float>)
        cblas_sgbmv(CblasColMajor, trans(Op), M, N, Kl, Ku, a, A, Lda, X, Ix, b, Y, Iy);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dgbmv(CblasColMajor, trans(Op), M, N, Kl, Ku, a, A, Lda, X, Ix, b, Y, Iy);
      else if constexpr (std::is_same_v<T, C32>)
        cblas_cgbmv(CblasColMajor, trans(Op), M, N, Kl, Ku, &a, A, Lda, X, Ix, &b, Y, Iy);
      else
        cblas_zgbmv(CblasColMajor, trans(Op), M, N, Kl, Ku, &a, A, Lda, X, Ix, &b, Y, Iy);
    };
  });
}

/// sbmv/hbmv (Band, K super-diagonals) and spmv/hpmv (Packed).
template <typename T>
cublasStatus_t sbmv(cublasHandle_t Hd, cublasFillMode_t F, int N, int K, const T *Al, const T *A, int Lda, const T *X,
                    int Ix, const T *Be, T *Y, int Iy, bool Packed) {
  bool Bad = !validFill(F) || N < 0 || K < 0 || (!Packed && Lda < K + 1) || Ix == 0 || Iy == 0;
  return run(Hd, Bad, N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al), B1 = scalar(H, Be);
    return [=] {
      T a = A1.get(), b = B1.get();
      auto U = uplo(F);
      if constexpr (std::is_same_v<T, float>)
        Packed ? cblas_sspmv(CblasColMajor, U, N, a, A, X, Ix, b, Y, Iy)
               : cblas_ssbmv(CblasColMajor, U, N, K, a, A, Lda, X, Ix, b, Y, Iy);
      else if constexpr (std::is_same_v<T, double>)
        Packed ? cblas_dspmv(CblasColMajor, U, N, a, A, X, Ix, b, Y, Iy)
               : cblas_dsbmv(CblasColMajor, U, N, K, a, A, Lda, X, Ix, b, Y, Iy);
      else if constexpr (std::is_same_v<T, C32>)
        Packed ? cblas_chpmv(CblasColMajor, U, N, &a, A, X, Ix, &b, Y, Iy)
               : cblas_chbmv(CblasColMajor, U, N, K, &a, A, Lda, X, Ix, &b, Y, Iy);
      else
        Packed ? cblas_zhpmv(CblasColMajor, U, N, &a, A, X, Ix, &b, Y, Iy)
               : cblas_zhbmv(CblasColMajor, U, N, K, &a, A, Lda, X, Ix, &b, Y, Iy);
    };
  });
}

/// spr/hpr (rank 1) and spr2/hpr2 (rank 2) on packed storage.
template <typename T, typename S>
cublasStatus_t spr(cublasHandle_t Hd, cublasFillMode_t F, int N, const S *Al, const T *X, int Ix, const T *Y, int Iy,
                   T *AP, bool Two) {
  return run(Hd, !validFill(F) || N < 0 || Ix == 0 || (Two && Iy == 0), N == 0, [&](Handle &H) {
    auto A1 = scalar(H, Al);
    return [=] {
      S a = A1.get();
      auto U = uplo(F);
      if constexpr (std::is_same_v<T, float>)
        Two ? cblas_sspr2(CblasColMajor, U, N, a, X, Ix, Y, Iy, AP) : cblas_sspr(CblasColMajor, U, N, a, X, Ix, AP);
      else if constexpr (std::is_same_v<T, double>)
        Two ? cblas_dspr2(CblasColMajor, U, N, a, X, Ix, Y, Iy, AP) : cblas_dspr(CblasColMajor, U, N, a, X, Ix, AP);
      else if constexpr (std::is_same_v<T, C32>) {
        if constexpr (std::is_same_v<S, C32>)
          cblas_chpr2(CblasColMajor, U, N, &a, X, Ix, Y, Iy, AP);
        else
          cblas_chpr(CblasColMajor, U, N, a, X, Ix, AP);
      } else {
        if constexpr (std::is_same_v<S, C64>)
          cblas_zhpr2(CblasColMajor, U, N, &a, X, Ix, Y, Iy, AP);
        else
          cblas_zhpr(CblasColMajor, U, N, a, X, Ix, AP);
      }
    };
  });
}

} // namespace

#define CX(T) reinterpret_cast<T>
#define L2(P, T, U)                                                                                \
  extern "C" cublasStatus_t cublas##P##trmv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, const T *A, int lda, T *x, int ix) { \
    return tri<U>(h, f, o, d, n, 0, CX(const U *)(A), lda, CX(U *)(x), ix, Tri::Full, false);      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##trsv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, const T *A, int lda, T *x, int ix) { \
    return tri<U>(h, f, o, d, n, 0, CX(const U *)(A), lda, CX(U *)(x), ix, Tri::Full, true);       \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##tbmv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, int k, const T *A, int lda, T *x,   \
                                               int ix) {                                           \
    return tri<U>(h, f, o, d, n, k, CX(const U *)(A), lda, CX(U *)(x), ix, Tri::Band, false);      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##tbsv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, int k, const T *A, int lda, T *x,   \
                                               int ix) {                                           \
    return tri<U>(h, f, o, d, n, k, CX(const U *)(A), lda, CX(U *)(x), ix, Tri::Band, true);       \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##tpmv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, const T *AP, T *x, int ix) {        \
    return tri<U>(h, f, o, d, n, 0, CX(const U *)(AP), 1, CX(U *)(x), ix, Tri::Packed, false);     \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##tpsv_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o,     \
                                               cublasDiagType_t d, int n, const T *AP, T *x, int ix) {        \
    return tri<U>(h, f, o, d, n, 0, CX(const U *)(AP), 1, CX(U *)(x), ix, Tri::Packed, true);      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##gbmv_v2(cublasHandle_t h, cublasOperation_t o, int m, int n, int kl,   \
                                               int ku, const T *al, const T *A, int lda, const T *x, int ix,   \
                                               const T *be, T *y, int iy) {                        \
    return gbmv<U>(h, o, m, n, kl, ku, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(x), ix,        \
                   CX(const U *)(be), CX(U *)(y), iy);                                             \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##symv_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *A, int lda, const T *x, int ix, const T *be, T *y,     \
                                               int iy) {                                           \
    return symv<U>(h, f, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(x), ix, CX(const U *)(be), \
                   CX(U *)(y), iy, false);                                                         \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##syr_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,       \
                                              const T *x, int ix, T *A, int lda) {                 \
    return syr<U, U>(h, f, n, CX(const U *)(al), CX(const U *)(x), ix, nullptr, 1, CX(U *)(A), lda, false, false); \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##syr2_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *x, int ix, const T *y, int iy, T *A, int lda) {         \
    return syr<U, U>(h, f, n, CX(const U *)(al), CX(const U *)(x), ix, CX(const U *)(y), iy, CX(U *)(A), lda,  \
                     false, true);                                                                 \
  }

L2(S, float, float)
L2(D, double, double)
L2(C, cuComplex, C32)
L2(Z, cuDoubleComplex, C64)

#define L2REAL(P, T)                                                                               \
  extern "C" cublasStatus_t cublas##P##sbmv_v2(cublasHandle_t h, cublasFillMode_t f, int n, int k, const T *al, \
                                               const T *A, int lda, const T *x, int ix, const T *be, T *y,     \
                                               int iy) {                                           \
    return sbmv<T>(h, f, n, k, al, A, lda, x, ix, be, y, iy, false);                               \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##spmv_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *AP, const T *x, int ix, const T *be, T *y, int iy) {    \
    return sbmv<T>(h, f, n, 0, al, AP, 1, x, ix, be, y, iy, true);                                 \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##spr_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,       \
                                              const T *x, int ix, T *AP) {                         \
    return spr<T, T>(h, f, n, al, x, ix, nullptr, 1, AP, false);                                  \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##spr2_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *x, int ix, const T *y, int iy, T *AP) {    \
    return spr<T, T>(h, f, n, al, x, ix, y, iy, AP, true);                                         \
  }
L2REAL(S, float)
L2REAL(D, double)

#define L2HERM(P, T, U, R)                                                                         \
  extern "C" cublasStatus_t cublas##P##hemv_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *A, int lda, const T *x, int ix, const T *be, T *y,     \
                                               int iy) {                                           \
    return symv<U>(h, f, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(x), ix, CX(const U *)(be), \
                   CX(U *)(y), iy, true);                                                          \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##hbmv_v2(cublasHandle_t h, cublasFillMode_t f, int n, int k, const T *al, \
                                               const T *A, int lda, const T *x, int ix, const T *be, T *y,     \
                                               int iy) {                                           \
    return sbmv<U>(h, f, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(x), ix,                 \
                   CX(const U *)(be), CX(U *)(y), iy, false);                                      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##hpmv_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *AP, const T *x, int ix, const T *be, T *y, int iy) {    \
    return sbmv<U>(h, f, n, 0, CX(const U *)(al), CX(const U *)(AP), 1, CX(const U *)(x), ix,                  \
                   CX(const U *)(be), CX(U *)(y), iy, true);                                       \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##her_v2(cublasHandle_t h, cublasFillMode_t f, int n, const R *al,       \
                                              const T *x, int ix, T *A, int lda) {                 \
    return syr<U, R>(h, f, n, al, CX(const U *)(x), ix, nullptr, 1, CX(U *)(A), lda, true, false);  \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##her2_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *x, int ix, const T *y, int iy, T *A, int lda) {         \
    return syr<U, U>(h, f, n, CX(const U *)(al), CX(const U *)(x), ix, CX(const U *)(y), iy, CX(U *)(A), lda,  \
                     true, true);                                                                  \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##hpr_v2(cublasHandle_t h, cublasFillMode_t f, int n, const R *al,       \
                                              const T *x, int ix, T *AP) {                         \
    return spr<U, R>(h, f, n, al, CX(const U *)(x), ix, nullptr, 1, CX(U *)(AP), false);           \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##hpr2_v2(cublasHandle_t h, cublasFillMode_t f, int n, const T *al,      \
                                               const T *x, int ix, const T *y, int iy, T *AP) {    \
    return spr<U, U>(h, f, n, CX(const U *)(al), CX(const U *)(x), ix, CX(const U *)(y), iy, CX(U *)(AP), true); \
  }
L2HERM(C, cuComplex, C32, float)
L2HERM(Z, cuDoubleComplex, C64, double)
