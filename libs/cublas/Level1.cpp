/// \file
/// Level-1 BLAS (axpy, dot, nrm2, asum, scal, iamax/iamin, copy, swap, rot)
/// for S/D/C/Z and their _64 forms, on OpenBLAS. Argument handling as
/// measured on the H100: n <= 0 or a zero increment is no work and
/// CUBLAS_STATUS_SUCCESS (reductions then give 0), a null result pointer is
/// INVALID_VALUE. Reductions with a host result (pointer mode HOST) wait
/// for the stream, as NVIDIA's do.
#include "libs/cublas/Handle.h"

#include <cblas.h>

#include <array>
#include <climits>
#include <complex>

using namespace ferry::cublas;

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;

/// OpenBLAS counts in int: larger vectors are refused rather than cut.
bool fitsInt(int64_t N, int64_t A = 0, int64_t B = 0) {
  auto Ok = [](int64_t V) { return V >= INT_MIN && V <= INT_MAX; };
  return Ok(N) && Ok(A) && Ok(B);
}

template <typename T> void axpyT(int N, T Alpha, const T *X, int IncX, T *Y, int IncY) {
  if constexpr (std::is_same_v<T, float>)
    cblas_saxpy(N, Alpha, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, double>)
    cblas_daxpy(N, Alpha, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, C32>)
    cblas_caxpy(N, &Alpha, X, IncX, Y, IncY);
  else
    cblas_zaxpy(N, &Alpha, X, IncX, Y, IncY);
}

template <typename T> T dotT(int N, const T *X, int IncX, const T *Y, int IncY, bool Conj) {
  if constexpr (std::is_same_v<T, float>)
    return cblas_sdot(N, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, double>)
    return cblas_ddot(N, X, IncX, Y, IncY);
  else {
    T R{};
    if constexpr (std::is_same_v<T, C32>)
      (Conj ? cblas_cdotc_sub : cblas_cdotu_sub)(N, X, IncX, Y, IncY, &R);
    else
      (Conj ? cblas_zdotc_sub : cblas_zdotu_sub)(N, X, IncX, Y, IncY, &R);
    return R;
  }
}

template <typename T> auto nrm2T(int N, const T *X, int IncX) {
  if constexpr (std::is_same_v<T, float>)
    return cblas_snrm2(N, X, IncX);
  else if constexpr (std::is_same_v<T, double>)
    return cblas_dnrm2(N, X, IncX);
  else if constexpr (std::is_same_v<T, C32>)
    return cblas_scnrm2(N, X, IncX);
  else
    return cblas_dznrm2(N, X, IncX);
}

template <typename T> auto asumT(int N, const T *X, int IncX) {
  if constexpr (std::is_same_v<T, float>)
    return cblas_sasum(N, X, IncX);
  else if constexpr (std::is_same_v<T, double>)
    return cblas_dasum(N, X, IncX);
  else if constexpr (std::is_same_v<T, C32>)
    return cblas_scasum(N, X, IncX);
  else
    return cblas_dzasum(N, X, IncX);
}

template <typename T> size_t iamaxT(int N, const T *X, int IncX, bool Max) {
  if constexpr (std::is_same_v<T, float>)
    return Max ? cblas_isamax(N, X, IncX) : cblas_isamin(N, X, IncX);
  else if constexpr (std::is_same_v<T, double>)
    return Max ? cblas_idamax(N, X, IncX) : cblas_idamin(N, X, IncX);
  else if constexpr (std::is_same_v<T, C32>)
    return Max ? cblas_icamax(N, X, IncX) : cblas_icamin(N, X, IncX);
  else
    return Max ? cblas_izamax(N, X, IncX) : cblas_izamin(N, X, IncX);
}

template <typename T> void copyT(int N, const T *X, int IncX, T *Y, int IncY) {
  if constexpr (std::is_same_v<T, float>)
    cblas_scopy(N, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, double>)
    cblas_dcopy(N, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, C32>)
    cblas_ccopy(N, X, IncX, Y, IncY);
  else
    cblas_zcopy(N, X, IncX, Y, IncY);
}

template <typename T> void swapT(int N, T *X, int IncX, T *Y, int IncY) {
  if constexpr (std::is_same_v<T, float>)
    cblas_sswap(N, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, double>)
    cblas_dswap(N, X, IncX, Y, IncY);
  else if constexpr (std::is_same_v<T, C32>)
    cblas_cswap(N, X, IncX, Y, IncY);
  else
    cblas_zswap(N, X, IncX, Y, IncY);
}

/// Element I of a BLAS vector: a negative increment walks from the end.
template <typename T> T &at(T *X, int64_t N, int64_t Inc, int64_t I) {
  return Inc >= 0 ? X[I * Inc] : X[(N - 1 - I) * -Inc];
}

// --- Entry-point bodies; the macros below give them their C names. ---

template <typename T, typename S = T>
cublasStatus_t axpy(cublasHandle_t Hd, int64_t N, const T *Alpha, const T *X, int64_t IncX, T *Y, int64_t IncY) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!fitsInt(N, IncX, IncY))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  auto A = scalar(*H, Alpha);
  return enqueue(*H, [=] { axpyT<T>((int)N, A.get(), X, (int)IncX, Y, (int)IncY); });
}

template <typename T>
cublasStatus_t dot(cublasHandle_t Hd, int64_t N, const T *X, int64_t IncX, const T *Y, int64_t IncY, T *Result,
                   bool Conj) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!fitsInt(N, IncX, IncY))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(
      *H, [=] { *Result = N <= 0 ? T{} : dotT<T>((int)N, X, (int)IncX, Y, (int)IncY, Conj); }, true);
}

template <typename T, typename R>
cublasStatus_t reduce(cublasHandle_t Hd, int64_t N, const T *X, int64_t IncX, R *Result, bool Asum) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!fitsInt(N, IncX))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(
      *H,
      [=] {
        if (N <= 0 || IncX <= 0)
          *Result = R{};
        else
          *Result = Asum ? asumT<T>((int)N, X, (int)IncX) : nrm2T<T>((int)N, X, (int)IncX);
      },
      true);
}

template <typename T, typename I>
cublasStatus_t iamax(cublasHandle_t Hd, int64_t N, const T *X, int64_t IncX, I *Result, bool Max) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!fitsInt(N, IncX))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(
      *H,
      [=] {
        // 1-based, as BLAS; 0 for no elements.
        *Result = N <= 0 || IncX <= 0 ? 0 : (I)iamaxT<T>((int)N, X, (int)IncX, Max) + 1;
      },
      true);
}

template <typename T, typename S>
cublasStatus_t scal(cublasHandle_t Hd, int64_t N, const S *Alpha, T *X, int64_t IncX) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0 || IncX <= 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!fitsInt(N, IncX))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  auto A = scalar(*H, Alpha);
  return enqueue(*H, [=] {
    S V = A.get();
    if constexpr (std::is_same_v<T, float>)
      cblas_sscal((int)N, V, X, (int)IncX);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dscal((int)N, V, X, (int)IncX);
    else if constexpr (std::is_same_v<T, C32> && std::is_same_v<S, float>)
      cblas_csscal((int)N, V, X, (int)IncX);
    else if constexpr (std::is_same_v<T, C32>)
      cblas_cscal((int)N, &V, X, (int)IncX);
    else if constexpr (std::is_same_v<S, double>)
      cblas_zdscal((int)N, V, X, (int)IncX);
    else
      cblas_zscal((int)N, &V, X, (int)IncX);
  });
}

template <typename T>
cublasStatus_t copy(cublasHandle_t Hd, int64_t N, const T *X, int64_t IncX, T *Y, int64_t IncY) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!fitsInt(N, IncX, IncY))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(*H, [=] { copyT<T>((int)N, X, (int)IncX, Y, (int)IncY); });
}

template <typename T> cublasStatus_t swap(cublasHandle_t Hd, int64_t N, T *X, int64_t IncX, T *Y, int64_t IncY) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!fitsInt(N, IncX, IncY))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(*H, [=] { swapT<T>((int)N, X, (int)IncX, Y, (int)IncY); });
}

/// x' = c x + s y, y' = c y - conj(s) x: the one definition covering every
/// real/complex c and s combination cuBLAS has (c is always real).
template <typename T, typename C, typename S>
cublasStatus_t rot(cublasHandle_t Hd, int64_t N, T *X, int64_t IncX, T *Y, int64_t IncY, const C *Cp, const S *Sp) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Cs = scalar(*H, Cp);
  auto Ss = scalar(*H, Sp);
  return enqueue(*H, [=] {
    C Cv = Cs.get();
    S Sv = Ss.get();
    if constexpr (std::is_same_v<T, float> && std::is_same_v<S, float>) {
      if (fitsInt(N, IncX, IncY))
        return cblas_srot((int)N, X, (int)IncX, Y, (int)IncY, Cv, Sv);
    } else if constexpr (std::is_same_v<T, double> && std::is_same_v<S, double>) {
      if (fitsInt(N, IncX, IncY))
        return cblas_drot((int)N, X, (int)IncX, Y, (int)IncY, Cv, Sv);
    }
    for (int64_t I = 0; I < N; ++I) {
      T &Xi = at(X, N, IncX, I);
      T &Yi = at(Y, N, IncY, I);
      T Xv = Xi, Yv = Yi;
      Xi = Cv * Xv + Sv * Yv;
      if constexpr (std::is_same_v<S, C32> || std::is_same_v<S, C64>)
        Yi = Cv * Yv - std::conj(Sv) * Xv;
      else
        Yi = Cv * Yv - Sv * Xv;
    }
  });
}

} // namespace

// The C entry points: each routine in its 32-bit (int) and _64 form, with
// cuComplex/cuDoubleComplex seen as std::complex (same layout).
#define L1_BOTH(NAME, PARAMS64, PARAMS32, CALL)                                                    \
  extern "C" cublasStatus_t NAME PARAMS32 { return CALL; }                                         \
  extern "C" cublasStatus_t NAME##_64 PARAMS64 { return CALL; }

#define CX(T) reinterpret_cast<T>

#define AXPY(NAME, T, U)                                                                           \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, const T *a, const T *x, int64_t ix, T *y, int64_t iy), \
          (cublasHandle_t h, int n, const T *a, const T *x, int ix, T *y, int iy),                 \
          axpy<U>(h, n, CX(const U *)(a), CX(const U *)(x), ix, CX(U *)(y), iy))
AXPY(cublasSaxpy_v2, float, float)
AXPY(cublasDaxpy_v2, double, double)
AXPY(cublasCaxpy_v2, cuComplex, C32)
AXPY(cublasZaxpy_v2, cuDoubleComplex, C64)

#define DOT(NAME, T, U, CONJ)                                                                      \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, const T *x, int64_t ix, const T *y, int64_t iy, T *r), \
          (cublasHandle_t h, int n, const T *x, int ix, const T *y, int iy, T *r),                 \
          dot<U>(h, n, CX(const U *)(x), ix, CX(const U *)(y), iy, CX(U *)(r), CONJ))
DOT(cublasSdot_v2, float, float, false)
DOT(cublasDdot_v2, double, double, false)
DOT(cublasCdotu_v2, cuComplex, C32, false)
DOT(cublasCdotc_v2, cuComplex, C32, true)
DOT(cublasZdotu_v2, cuDoubleComplex, C64, false)
DOT(cublasZdotc_v2, cuDoubleComplex, C64, true)

#define REDUCE(NAME, T, U, R, ASUM)                                                                \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, const T *x, int64_t ix, R *r),                       \
          (cublasHandle_t h, int n, const T *x, int ix, R *r), reduce<U>(h, n, CX(const U *)(x), ix, r, ASUM))
REDUCE(cublasSnrm2_v2, float, float, float, false)
REDUCE(cublasDnrm2_v2, double, double, double, false)
REDUCE(cublasScnrm2_v2, cuComplex, C32, float, false)
REDUCE(cublasDznrm2_v2, cuDoubleComplex, C64, double, false)
REDUCE(cublasSasum_v2, float, float, float, true)
REDUCE(cublasDasum_v2, double, double, double, true)
REDUCE(cublasScasum_v2, cuComplex, C32, float, true)
REDUCE(cublasDzasum_v2, cuDoubleComplex, C64, double, true)

#define IAMAX(NAME, T, U, MAX)                                                                     \
  extern "C" cublasStatus_t NAME(cublasHandle_t h, int n, const T *x, int ix, int *r) {            \
    return iamax<U>(h, n, CX(const U *)(x), ix, r, MAX);                                           \
  }                                                                                                \
  extern "C" cublasStatus_t NAME##_64(cublasHandle_t h, int64_t n, const T *x, int64_t ix, int64_t *r) { \
    return iamax<U>(h, n, CX(const U *)(x), ix, r, MAX);                                           \
  }
IAMAX(cublasIsamax_v2, float, float, true)
IAMAX(cublasIdamax_v2, double, double, true)
IAMAX(cublasIcamax_v2, cuComplex, C32, true)
IAMAX(cublasIzamax_v2, cuDoubleComplex, C64, true)
IAMAX(cublasIsamin_v2, float, float, false)
IAMAX(cublasIdamin_v2, double, double, false)
IAMAX(cublasIcamin_v2, cuComplex, C32, false)
IAMAX(cublasIzamin_v2, cuDoubleComplex, C64, false)

#define SCAL(NAME, T, U, ST, SU)                                                                   \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, const ST *a, T *x, int64_t ix),                      \
          (cublasHandle_t h, int n, const ST *a, T *x, int ix), scal<U>(h, n, CX(const SU *)(a), CX(U *)(x), ix))
SCAL(cublasSscal_v2, float, float, float, float)
SCAL(cublasDscal_v2, double, double, double, double)
SCAL(cublasCscal_v2, cuComplex, C32, cuComplex, C32)
SCAL(cublasCsscal_v2, cuComplex, C32, float, float)
SCAL(cublasZscal_v2, cuDoubleComplex, C64, cuDoubleComplex, C64)
SCAL(cublasZdscal_v2, cuDoubleComplex, C64, double, double)

#define COPYSWAP(NAME, T, U, FN, CONSTX)                                                           \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, CONSTX T *x, int64_t ix, T *y, int64_t iy),          \
          (cublasHandle_t h, int n, CONSTX T *x, int ix, T *y, int iy), FN<U>(h, n, CX(CONSTX U *)(x), ix, CX(U *)(y), iy))
COPYSWAP(cublasScopy_v2, float, float, copy, const)
COPYSWAP(cublasDcopy_v2, double, double, copy, const)
COPYSWAP(cublasCcopy_v2, cuComplex, C32, copy, const)
COPYSWAP(cublasZcopy_v2, cuDoubleComplex, C64, copy, const)
COPYSWAP(cublasSswap_v2, float, float, swap, )
COPYSWAP(cublasDswap_v2, double, double, swap, )
COPYSWAP(cublasCswap_v2, cuComplex, C32, swap, )
COPYSWAP(cublasZswap_v2, cuDoubleComplex, C64, swap, )

#define ROT(NAME, T, U, CT, ST, SU)                                                                \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, T *x, int64_t ix, T *y, int64_t iy, const CT *c, const ST *s), \
          (cublasHandle_t h, int n, T *x, int ix, T *y, int iy, const CT *c, const ST *s),          \
          rot<U>(h, n, CX(U *)(x), ix, CX(U *)(y), iy, c, CX(const SU *)(s)))
ROT(cublasSrot_v2, float, float, float, float, float)
ROT(cublasDrot_v2, double, double, double, double, double)
ROT(cublasCrot_v2, cuComplex, C32, float, cuComplex, C32)
ROT(cublasCsrot_v2, cuComplex, C32, float, float, float)
ROT(cublasZrot_v2, cuDoubleComplex, C64, double, cuDoubleComplex, C64)
ROT(cublasZdrot_v2, cuDoubleComplex, C64, double, double, double)

// --- Givens rotations: rotg, rotm, rotmg. Their scalars follow the pointer
// mode; with host pointers the call waits for the result, as NVIDIA's does.

namespace {

template <typename F> cublasStatus_t withHandle(cublasHandle_t Hd, F &&Work, bool Wait) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  return enqueue(*H, std::forward<F>(Work), Wait);
}

/// rotm's param: a flag and the 2x2 H (BLAS's layout); read inside the work.
template <typename T> void rotmT(int N, T *X, int IncX, T *Y, int IncY, const T *P) {
  if constexpr (std::is_same_v<T, float>)
    cblas_srotm(N, X, IncX, Y, IncY, P);
  else
    cblas_drotm(N, X, IncX, Y, IncY, P);
}

} // namespace

extern "C" cublasStatus_t cublasSrotg_v2(cublasHandle_t h, float *a, float *b, float *c, float *s) {
  return withHandle(h, [=] { cblas_srotg(a, b, c, s); }, true);
}
extern "C" cublasStatus_t cublasDrotg_v2(cublasHandle_t h, double *a, double *b, double *c, double *s) {
  return withHandle(h, [=] { cblas_drotg(a, b, c, s); }, true);
}
extern "C" cublasStatus_t cublasCrotg_v2(cublasHandle_t h, cuComplex *a, cuComplex *b, float *c, cuComplex *s) {
  return withHandle(h, [=] { cblas_crotg(a, b, c, s); }, true);
}
extern "C" cublasStatus_t cublasZrotg_v2(cublasHandle_t h, cuDoubleComplex *a, cuDoubleComplex *b, double *c,
                                         cuDoubleComplex *s) {
  return withHandle(h, [=] { cblas_zrotg(a, b, c, s); }, true);
}
extern "C" cublasStatus_t cublasSrotmg_v2(cublasHandle_t h, float *d1, float *d2, float *x1, const float *y1,
                                          float *param) {
  return withHandle(h, [=] { cblas_srotmg(d1, d2, x1, *y1, param); }, true);
}
extern "C" cublasStatus_t cublasDrotmg_v2(cublasHandle_t h, double *d1, double *d2, double *x1, const double *y1,
                                          double *param) {
  return withHandle(h, [=] { cblas_drotmg(d1, d2, x1, *y1, param); }, true);
}

#define ROTM(NAME, T)                                                                              \
  L1_BOTH(NAME, (cublasHandle_t h, int64_t n, T *x, int64_t ix, T *y, int64_t iy, const T *p),     \
          (cublasHandle_t h, int n, T *x, int ix, T *y, int iy, const T *p), rotm<T>(h, n, x, ix, y, iy, p))
namespace {
template <typename T>
cublasStatus_t rotm(cublasHandle_t Hd, int64_t N, T *X, int64_t IncX, T *Y, int64_t IncY, const T *P) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!fitsInt(N, IncX, IncY))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  // In pointer mode HOST the 5 parameters are copied now.
  std::array<T, 5> Copy{};
  bool Host = H->PointerMode == CUBLAS_POINTER_MODE_HOST;
  if (Host)
    std::copy(P, P + 5, Copy.begin());
  return enqueue(*H, [=] { rotmT<T>((int)N, X, (int)IncX, Y, (int)IncY, Host ? Copy.data() : P); });
}
} // namespace
ROTM(cublasSrotm_v2, float)
ROTM(cublasDrotm_v2, double)
