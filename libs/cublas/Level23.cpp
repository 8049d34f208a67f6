/// \file
/// Level 2 and 3 beyond GEMM: gemv, ger (geru/gerc), trsm, syrk, geam and
/// dgmm for S/D/C/Z. Argument checks and NVIDIA's messages follow what the
/// H100 reports (tests/cublas/goldens); an enum value cuBLAS accepts
/// without complaint but BLAS would reject (gemv's op) is no work, never
/// handed to OpenBLAS (whose xerbla would print and return).
#include "libs/cublas/Handle.h"

#include <cblas.h>

#include <complex>

using namespace ferry::cublas;

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;

template <typename T> constexpr bool IsComplex = std::is_same_v<T, C32> || std::is_same_v<T, C64>;

CBLAS_TRANSPOSE cblasOp(cublasOperation_t Op) {
  return Op == CUBLAS_OP_N ? CblasNoTrans : Op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}
bool validOp(cublasOperation_t Op) { return Op == CUBLAS_OP_N || Op == CUBLAS_OP_T || Op == CUBLAS_OP_C; }
bool validFill(cublasFillMode_t F) { return F == CUBLAS_FILL_MODE_LOWER || F == CUBLAS_FILL_MODE_UPPER; }
/// The routine name as NVIDIA's messages spell it: type letter, name, padded.
std::string routine(char P, const char *Name) {
  std::string S(1, P);
  S += Name;
  while (S.size() < 6)
    S += ' ';
  return S;
}
template <typename T> char letter() {
  return std::is_same_v<T, float> ? 'S' : std::is_same_v<T, double> ? 'D' : std::is_same_v<T, C32> ? 'C' : 'Z';
}

template <typename T>
cublasStatus_t gemv(cublasHandle_t Hd, cublasOperation_t Op, int M, int N, const T *Alpha, const T *A, int Lda,
                    const T *X, int IncX, const T *Beta, T *Y, int IncY) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (M < 0 || N < 0 || Lda < std::max(1, M))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!validOp(Op) || M == 0 || N == 0 || IncX == 0 || IncY == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha), Be = scalar(*H, Beta);
  return enqueue(*H, [=] {
    T A1 = Al.get(), B1 = Be.get();
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemv(CblasColMajor, cblasOp(Op), M, N, A1, A, Lda, X, IncX, B1, Y, IncY);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dgemv(CblasColMajor, cblasOp(Op), M, N, A1, A, Lda, X, IncX, B1, Y, IncY);
    else if constexpr (std::is_same_v<T, C32>)
      cblas_cgemv(CblasColMajor, cblasOp(Op), M, N, &A1, A, Lda, X, IncX, &B1, Y, IncY);
    else
      cblas_zgemv(CblasColMajor, cblasOp(Op), M, N, &A1, A, Lda, X, IncX, &B1, Y, IncY);
  });
}

template <typename T>
cublasStatus_t ger(cublasHandle_t Hd, int M, int N, const T *Alpha, const T *X, int IncX, const T *Y, int IncY, T *A,
                   int Lda, bool Conj) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  std::string Name = routine(letter<T>(), IsComplex<T> ? (Conj ? "GERC" : "GERU") : "GER");
  if (M < 0)
    return invalidParam(Name.c_str(), 1);
  if (N < 0)
    return invalidParam(Name.c_str(), 2);
  if (IncX == 0)
    return invalidParam(Name.c_str(), 5);
  if (IncY == 0)
    return invalidParam(Name.c_str(), 7);
  if (Lda < std::max(1, M))
    return invalidParam(Name.c_str(), 9);
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha);
  return enqueue(*H, [=] {
    T A1 = Al.get();
    if constexpr (std::is_same_v<T, float>)
      cblas_sger(CblasColMajor, M, N, A1, X, IncX, Y, IncY, A, Lda);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dger(CblasColMajor, M, N, A1, X, IncX, Y, IncY, A, Lda);
    else if constexpr (std::is_same_v<T, C32>)
      (Conj ? cblas_cgerc : cblas_cgeru)(CblasColMajor, M, N, &A1, X, IncX, Y, IncY, A, Lda);
    else
      (Conj ? cblas_zgerc : cblas_zgeru)(CblasColMajor, M, N, &A1, X, IncX, Y, IncY, A, Lda);
  });
}

template <typename T>
cublasStatus_t trsm(cublasHandle_t Hd, cublasSideMode_t Side, cublasFillMode_t Fill, cublasOperation_t Op,
                    cublasDiagType_t Diag, int M, int N, const T *Alpha, const T *A, int Lda, T *B, int Ldb) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  std::string Name = routine(letter<T>(), "TRSM");
  if (Side != CUBLAS_SIDE_LEFT && Side != CUBLAS_SIDE_RIGHT)
    return invalidParam(Name.c_str(), 1);
  if (!validFill(Fill))
    return invalidParam(Name.c_str(), 2);
  if (!validOp(Op))
    return invalidParam(Name.c_str(), 3);
  if (Diag != CUBLAS_DIAG_NON_UNIT && Diag != CUBLAS_DIAG_UNIT)
    return invalidParam(Name.c_str(), 4);
  if (M < 0)
    return invalidParam(Name.c_str(), 5);
  if (N < 0)
    return invalidParam(Name.c_str(), 6);
  if (Lda < std::max(1, Side == CUBLAS_SIDE_LEFT ? M : N))
    return invalidParam(Name.c_str(), 9);
  if (Ldb < std::max(1, M))
    return invalidParam(Name.c_str(), 11);
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha);
  CBLAS_SIDE S = Side == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight;
  CBLAS_UPLO U = Fill == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper;
  CBLAS_DIAG D = Diag == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
  return enqueue(*H, [=] {
    T A1 = Al.get();
    if constexpr (std::is_same_v<T, float>)
      cblas_strsm(CblasColMajor, S, U, cblasOp(Op), D, M, N, A1, A, Lda, B, Ldb);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dtrsm(CblasColMajor, S, U, cblasOp(Op), D, M, N, A1, A, Lda, B, Ldb);
    else if constexpr (std::is_same_v<T, C32>)
      cblas_ctrsm(CblasColMajor, S, U, cblasOp(Op), D, M, N, &A1, A, Lda, B, Ldb);
    else
      cblas_ztrsm(CblasColMajor, S, U, cblasOp(Op), D, M, N, &A1, A, Lda, B, Ldb);
  });
}

template <typename T>
cublasStatus_t syrk(cublasHandle_t Hd, cublasFillMode_t Fill, cublasOperation_t Op, int N, int K, const T *Alpha,
                    const T *A, int Lda, const T *Beta, T *C, int Ldc) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  std::string Name = routine(letter<T>(), "SYRK");
  if (!validFill(Fill))
    return invalidParam(Name.c_str(), 1);
  // OP_C means OP_T for real types; complex syrk takes N or T only.
  if (!validOp(Op) || (IsComplex<T> && Op == CUBLAS_OP_C))
    return invalidParam(Name.c_str(), 2);
  if (N < 0)
    return invalidParam(Name.c_str(), 3);
  if (K < 0)
    return invalidParam(Name.c_str(), 4);
  if (Lda < std::max(1, Op == CUBLAS_OP_N ? N : K))
    return invalidParam(Name.c_str(), 7);
  if (Ldc < std::max(1, N))
    return invalidParam(Name.c_str(), 10);
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha), Be = scalar(*H, Beta);
  CBLAS_UPLO U = Fill == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper;
  CBLAS_TRANSPOSE Tr = Op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;
  return enqueue(*H, [=] {
    T A1 = Al.get(), B1 = Be.get();
    if constexpr (std::is_same_v<T, float>)
      cblas_ssyrk(CblasColMajor, U, Tr, N, K, A1, A, Lda, B1, C, Ldc);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dsyrk(CblasColMajor, U, Tr, N, K, A1, A, Lda, B1, C, Ldc);
    else if constexpr (std::is_same_v<T, C32>)
      cblas_csyrk(CblasColMajor, U, Tr, N, K, &A1, A, Lda, &B1, C, Ldc);
    else
      cblas_zsyrk(CblasColMajor, U, Tr, N, K, &A1, A, Lda, &B1, C, Ldc);
  });
}

template <typename T> T opAt(const T *A, int Lda, cublasOperation_t Op, int I, int J) {
  if (Op == CUBLAS_OP_N)
    return A[(int64_t)J * Lda + I];
  T V = A[(int64_t)I * Lda + J];
  if constexpr (IsComplex<T>)
    if (Op == CUBLAS_OP_C)
      return std::conj(V);
  return V;
}

/// C = alpha op(A) + beta op(B). With alpha (beta) zero, A (B) is not read,
/// so C = beta B in place works; C may alias A or B only untransposed.
template <typename T>
cublasStatus_t geam(cublasHandle_t Hd, cublasOperation_t OpA, cublasOperation_t OpB, int M, int N, const T *Alpha,
                    const T *A, int Lda, const T *Beta, const T *B, int Ldb, T *C, int Ldc) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  std::string Name = routine(letter<T>(), "GEAM");
  if (!validOp(OpA))
    return invalidParam(Name.c_str(), 1);
  if (!validOp(OpB))
    return invalidParam(Name.c_str(), 2);
  if (M < 0)
    return invalidParam(Name.c_str(), 3);
  if (N < 0)
    return invalidParam(Name.c_str(), 4);
  if (Lda < std::max(1, OpA == CUBLAS_OP_N ? M : N))
    return invalidParam(Name.c_str(), 7);
  if (Ldb < std::max(1, OpB == CUBLAS_OP_N ? M : N))
    return invalidParam(Name.c_str(), 10);
  if (Ldc < std::max(1, M))
    return invalidParam(Name.c_str(), 12);
  if ((C == A && (OpA != CUBLAS_OP_N || Lda != Ldc)) || (C == B && (OpB != CUBLAS_OP_N || Ldb != Ldc)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha), Be = scalar(*H, Beta);
  return enqueue(*H, [=] {
    T A1 = Al.get(), B1 = Be.get();
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        T V{};
        if (A1 != T{})
          V = A1 * opAt(A, Lda, OpA, I, J);
        if (B1 != T{})
          V += B1 * opAt(B, Ldb, OpB, I, J);
        C[(int64_t)J * Ldc + I] = V;
      }
  });
}

/// C = A diag(x) (right) or diag(x) A (left); x may run backwards.
template <typename T>
cublasStatus_t dgmm(cublasHandle_t Hd, cublasSideMode_t Mode, int M, int N, const T *A, int Lda, const T *X, int IncX,
                    T *C, int Ldc) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  std::string Name = routine(letter<T>(), "DGMM");
  if (Mode != CUBLAS_SIDE_LEFT && Mode != CUBLAS_SIDE_RIGHT)
    return invalidParam(Name.c_str(), 1);
  if (M < 0)
    return invalidParam(Name.c_str(), 2);
  if (N < 0)
    return invalidParam(Name.c_str(), 3);
  if (Lda < std::max(1, M))
    return invalidParam(Name.c_str(), 5);
  if (Ldc < std::max(1, M))
    return invalidParam(Name.c_str(), 9);
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  return enqueue(*H, [=] {
    int Len = Mode == CUBLAS_SIDE_LEFT ? M : N;
    auto x = [&](int I) { return IncX >= 0 ? X[(int64_t)I * IncX] : X[(int64_t)(Len - 1 - I) * -IncX]; };
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I)
        C[(int64_t)J * Ldc + I] = A[(int64_t)J * Lda + I] * x(Mode == CUBLAS_SIDE_LEFT ? I : J);
  });
}

} // namespace

#define CX(T) reinterpret_cast<T>

#define LEVEL23(P, T, U)                                                                           \
  extern "C" cublasStatus_t cublas##P##gemv_v2(cublasHandle_t h, cublasOperation_t op, int m, int n, const T *al, \
                                               const T *A, int lda, const T *x, int ix, const T *be, T *y, int iy) { \
    return gemv<U>(h, op, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(x), ix, CX(const U *)(be), \
                   CX(U *)(y), iy);                                                                \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##trsm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, \
                                               cublasOperation_t op, cublasDiagType_t d, int m, int n, const T *al, \
                                               const T *A, int lda, T *B, int ldb) {               \
    return trsm<U>(h, s, f, op, d, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(U *)(B), ldb); \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##syrk_v2(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t op, int n, \
                                               int k, const T *al, const T *A, int lda, const T *be, T *C, int ldc) { \
    return syrk<U>(h, f, op, n, k, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(be), CX(U *)(C), ldc); \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, \
                                            int n, const T *al, const T *A, int lda, const T *be, const T *B, int ldb, \
                                            T *C, int ldc) {                                       \
    return geam<U>(h, ta, tb, m, n, CX(const U *)(al), CX(const U *)(A), lda, CX(const U *)(be), CX(const U *)(B), \
                   ldb, CX(U *)(C), ldc);                                                          \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##dgmm(cublasHandle_t h, cublasSideMode_t mode, int m, int n, const T *A, \
                                            int lda, const T *x, int ix, T *C, int ldc) {          \
    return dgmm<U>(h, mode, m, n, CX(const U *)(A), lda, CX(const U *)(x), ix, CX(U *)(C), ldc);   \
  }

LEVEL23(S, float, float)
LEVEL23(D, double, double)
LEVEL23(C, cuComplex, C32)
LEVEL23(Z, cuDoubleComplex, C64)

#define GER(NAME, T, U, CONJ)                                                                      \
  extern "C" cublasStatus_t NAME(cublasHandle_t h, int m, int n, const T *al, const T *x, int ix, const T *y, int iy, \
                                 T *A, int lda) {                                                  \
    return ger<U>(h, m, n, CX(const U *)(al), CX(const U *)(x), ix, CX(const U *)(y), iy, CX(U *)(A), lda, CONJ); \
  }
GER(cublasSger_v2, float, float, false)
GER(cublasDger_v2, double, double, false)
GER(cublasCgeru_v2, cuComplex, C32, false)
GER(cublasCgerc_v2, cuComplex, C32, true)
GER(cublasZgeru_v2, cuDoubleComplex, C64, false)
GER(cublasZgerc_v2, cuDoubleComplex, C64, true)
