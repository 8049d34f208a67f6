/// \file
/// The smaller parts of the API: logger and tuning settings (recorded and
/// reported back; ferry's CPU code needs none of them), packed <-> full
/// triangular copies (tpttr/trttp), the mixed-type level-1 Ex routines
/// (axpy, dot, dotc, nrm2, scal over FP16/BF16/FP32/FP64/complex), batched
/// gemv (S/D/C/Z and the half/bfloat16 HSH/HSS/TST/TSS forms), and the
/// complex herk/syrk Ex forms.
#include "libs/cublas/Driver.h"
#include "libs/cublas/Handle.h"
#include "libs/cublas/Numeric.h"

#include <cblas.h>

#include <atomic>
#include <cmath>
#include <complex>
#include <cstdio>
#include <new>

using namespace ferry::cublas;

using C32 = std::complex<float>;
using C64 = std::complex<double>;

// --- Logger and settings. ---

namespace {
std::atomic<cublasLogCallback> LogCallback{nullptr};
}

extern "C" cublasStatus_t cublasLoggerConfigure(int, int, int, const char *) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasSetLoggerCallback(cublasLogCallback Cb) {
  LogCallback = Cb;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *Cb) {
  if (!Cb)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Cb = LogCallback;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasGetVersion(int *Version) {
  if (!Version)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Version = CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" void cublasXerbla(const char *Name, int Info) {
  std::printf(" ** On entry to %s parameter number %d had an illegal value\n", Name ? Name : "", Info);
}

/// Setter/getter pairs of one handle field.
#define FIELD(SET, GET, T, FIELDNAME, VALID)                                                       \
  extern "C" cublasStatus_t SET(cublasHandle_t Hd, T V) {                                          \
    Handle *H = lookup(Hd);                                                                        \
    if (!H)                                                                                        \
      return badHandle();                                                                          \
    if (!(VALID))                                                                                  \
      return CUBLAS_STATUS_INVALID_VALUE;                                                          \
    H->FIELDNAME = V;                                                                              \
    return CUBLAS_STATUS_SUCCESS;                                                                  \
  }                                                                                                \
  extern "C" cublasStatus_t GET(cublasHandle_t Hd, T *V) {                                         \
    Handle *H = lookup(Hd);                                                                        \
    if (!H)                                                                                        \
      return badHandle();                                                                          \
    if (!V)                                                                                        \
      return CUBLAS_STATUS_INVALID_VALUE;                                                          \
    *V = H->FIELDNAME;                                                                             \
    return CUBLAS_STATUS_SUCCESS;                                                                  \
  }
FIELD(cublasSetSmCountTarget, cublasGetSmCountTarget, int, SmCountTarget, V >= 0)
FIELD(cublasSetEmulationSpecialValuesSupport, cublasGetEmulationSpecialValuesSupport,
      cudaEmulationSpecialValuesSupport, EmulationSpecialValues, true)
FIELD(cublasSetFixedPointEmulationMantissaControl, cublasGetFixedPointEmulationMantissaControl,
      cudaEmulationMantissaControl, MantissaControl,
      V == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC || V == CUDA_EMULATION_MANTISSA_CONTROL_FIXED)
FIELD(cublasSetFixedPointEmulationMaxMantissaBitCount, cublasGetFixedPointEmulationMaxMantissaBitCount, int,
      MaxMantissaBitCount, V >= 0)
FIELD(cublasSetFixedPointEmulationMantissaBitOffset, cublasGetFixedPointEmulationMantissaBitOffset, int,
      MantissaBitOffset, true)
FIELD(cublasSetFixedPointEmulationMantissaBitCountPointer, cublasGetFixedPointEmulationMantissaBitCountPointer, int *,
      MantissaBitCountPointer, true)

// --- tpttr / trttp: packed <-> full triangle (column-major packing). ---

namespace {
template <typename T>
cublasStatus_t packCopy(cublasHandle_t Hd, cublasFillMode_t F, int N, const T *Src, T *Dst, int Lda, bool ToFull) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if ((F != CUBLAS_FILL_MODE_LOWER && F != CUBLAS_FILL_MODE_UPPER) || N < 0 || Lda < std::max(1, N))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  return enqueue(*H, [=] {
    int64_t P = 0;
    for (int J = 0; J < N; ++J) {
      int Lo = F == CUBLAS_FILL_MODE_LOWER ? J : 0, Hi = F == CUBLAS_FILL_MODE_LOWER ? N : J + 1;
      for (int I = Lo; I < Hi; ++I, ++P) {
        if (ToFull)
          Dst[(int64_t)J * Lda + I] = Src[P];
        else
          Dst[P] = Src[(int64_t)J * Lda + I];
      }
    }
  });
}
} // namespace

#define PACK(P, T)                                                                                 \
  extern "C" cublasStatus_t cublas##P##tpttr(cublasHandle_t h, cublasFillMode_t f, int n, const T *AP, T *A, int lda) { \
    return packCopy<T>(h, f, n, AP, A, lda, true);                                                 \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##P##trttp(cublasHandle_t h, cublasFillMode_t f, int n, const T *A, int lda, T *AP) { \
    return packCopy<T>(h, f, n, A, AP, lda, false);                                                \
  }
PACK(S, float)
PACK(D, double)
PACK(C, cuComplex)
PACK(Z, cuDoubleComplex)

// --- Level-1 Ex: any storage type, computed in the execution type. ---

namespace {

bool realType(cudaDataType T) { return T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_32F || T == CUDA_R_64F; }
bool complexType(cudaDataType T) { return T == CUDA_C_32F || T == CUDA_C_64F; }

template <typename Tc> Tc load(const void *P, cudaDataType T, int64_t I) {
  switch (T) {
  case CUDA_R_16F:
    return Tc(halfToFloat(static_cast<const uint16_t *>(P)[I]));
  case CUDA_R_16BF:
    return Tc(bf16ToFloat(static_cast<const uint16_t *>(P)[I]));
  case CUDA_R_32F:
    return Tc(static_cast<const float *>(P)[I]);
  case CUDA_R_64F:
    return Tc(static_cast<const double *>(P)[I]);
  case CUDA_C_32F:
    if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
      return Tc(static_cast<const C32 *>(P)[I]);
    return Tc{};
  default:
    if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
      return Tc(static_cast<const C64 *>(P)[I]);
    return Tc{};
  }
}

template <typename Tc> void store(void *P, cudaDataType T, int64_t I, Tc V) {
  auto Re = [&] {
    if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
      return (double)V.real();
    else
      return (double)V;
  };
  switch (T) {
  case CUDA_R_16F:
    static_cast<uint16_t *>(P)[I] = floatToHalf((float)Re());
    return;
  case CUDA_R_16BF:
    static_cast<uint16_t *>(P)[I] = floatToBf16((float)Re());
    return;
  case CUDA_R_32F:
    static_cast<float *>(P)[I] = (float)Re();
    return;
  case CUDA_R_64F:
    static_cast<double *>(P)[I] = Re();
    return;
  case CUDA_C_32F:
    if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
      static_cast<C32 *>(P)[I] = C32(V);
    return;
  default:
    if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
      static_cast<C64 *>(P)[I] = C64(V);
    return;
  }
}

int64_t idx(int64_t N, int64_t Inc, int64_t I) { return Inc >= 0 ? I * Inc : (N - 1 - I) * -Inc; }

/// Calls F.template operator()<Tc>() with the C++ type of the execution type.
template <typename F> cublasStatus_t withExec(cudaDataType Exec, F &&Fn) {
  switch (Exec) {
  case CUDA_R_32F:
    return Fn.template operator()<float>();
  case CUDA_R_64F:
    return Fn.template operator()<double>();
  case CUDA_C_32F:
    return Fn.template operator()<C32>();
  case CUDA_C_64F:
    return Fn.template operator()<C64>();
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

/// Reads a scalar of type T by the handle's pointer mode (16 bytes at most).
struct RawScalar {
  unsigned char Bytes[16] = {};
  const void *Ptr = nullptr;
  const void *get() const { return Ptr ? Ptr : Bytes; }
};
size_t sizeOf(cudaDataType T) {
  switch (T) {
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  case CUDA_R_32F:
    return 4;
  case CUDA_R_64F:
  case CUDA_C_32F:
    return 8;
  case CUDA_C_64F:
    return 16;
  default:
    return 0;
  }
}
RawScalar rawScalar(const Handle &H, const void *P, cudaDataType T) {
  RawScalar S;
  if (H.PointerMode == CUBLAS_POINTER_MODE_DEVICE)
    S.Ptr = P;
  else if (P)
    std::memcpy(S.Bytes, P, sizeOf(T));
  return S;
}

bool known(cudaDataType T) { return realType(T) || complexType(T); }

} // namespace

extern "C" cublasStatus_t cublasAxpyEx(cublasHandle_t Hd, int N, const void *Alpha, cudaDataType AT, const void *X,
                                       cudaDataType XT, int IncX, void *Y, cudaDataType YT, int IncY,
                                       cudaDataType Exec) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!known(AT) || !known(XT) || !known(YT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  RawScalar A = rawScalar(*H, Alpha, AT);
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(*H, [=] {
      Tc a = load<Tc>(A.get(), AT, 0);
      for (int I = 0; I < N; ++I) {
        int64_t Xi = idx(N, IncX, I), Yi = idx(N, IncY, I);
        store<Tc>(Y, YT, Yi, a * load<Tc>(X, XT, Xi) + load<Tc>(Y, YT, Yi));
      }
    });
  });
}

static cublasStatus_t dotEx(cublasHandle_t Hd, int N, const void *X, cudaDataType XT, int IncX, const void *Y,
                            cudaDataType YT, int IncY, void *Result, cudaDataType RT, cudaDataType Exec, bool Conj) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(XT) || !known(YT) || !known(RT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(
        *H,
        [=] {
          Tc S{};
          for (int I = 0; I < N; ++I) {
            Tc Xv = load<Tc>(X, XT, idx(N, IncX, I));
            if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
              if (Conj)
                Xv = std::conj(Xv);
            S += Xv * load<Tc>(Y, YT, idx(N, IncY, I));
          }
          store<Tc>(Result, RT, 0, S);
        },
        true);
  });
}
extern "C" cublasStatus_t cublasDotEx(cublasHandle_t h, int n, const void *x, cudaDataType xt, int ix, const void *y,
                                      cudaDataType yt, int iy, void *r, cudaDataType rt, cudaDataType e) {
  return dotEx(h, n, x, xt, ix, y, yt, iy, r, rt, e, false);
}
extern "C" cublasStatus_t cublasDotcEx(cublasHandle_t h, int n, const void *x, cudaDataType xt, int ix, const void *y,
                                       cudaDataType yt, int iy, void *r, cudaDataType rt, cudaDataType e) {
  return dotEx(h, n, x, xt, ix, y, yt, iy, r, rt, e, true);
}

extern "C" cublasStatus_t cublasNrm2Ex(cublasHandle_t Hd, int N, const void *X, cudaDataType XT, int IncX,
                                       void *Result, cudaDataType RT, cudaDataType Exec) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(XT) || !realType(RT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(
        *H,
        [=] {
          // Scaled sum of squares (LAPACK's dnrm2 way): no overflow for
          // large elements, no underflow to zero for small ones.
          double Scale = 0, Ssq = 1;
          for (int I = 0; N > 0 && IncX > 0 && I < N; ++I) {
            Tc V = load<Tc>(X, XT, (int64_t)I * IncX);
            double Parts[2];
            if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>) {
              Parts[0] = std::abs((double)V.real());
              Parts[1] = std::abs((double)V.imag());
            } else {
              Parts[0] = std::abs((double)V);
              Parts[1] = 0;
            }
            for (double A : Parts) {
              if (A == 0)
                continue;
              if (Scale < A) {
                Ssq = 1 + Ssq * (Scale / A) * (Scale / A);
                Scale = A;
              } else {
                Ssq += (A / Scale) * (A / Scale);
              }
            }
          }
          store<double>(Result, RT, 0, Scale * std::sqrt(Ssq));
        },
        true);
  });
}

extern "C" cublasStatus_t cublasScalEx(cublasHandle_t Hd, int N, const void *Alpha, cudaDataType AT, void *X,
                                       cudaDataType XT, int IncX, cudaDataType Exec) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!known(AT) || !known(XT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (N <= 0 || IncX <= 0)
    return CUBLAS_STATUS_SUCCESS;
  RawScalar A = rawScalar(*H, Alpha, AT);
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(*H, [=] {
      Tc a = load<Tc>(A.get(), AT, 0);
      for (int I = 0; I < N; ++I)
        store<Tc>(X, XT, (int64_t)I * IncX, a * load<Tc>(X, XT, (int64_t)I * IncX));
    });
  });
}

// --- Batched gemv: y_i = alpha op(A_i) x_i + beta y_i, computed in FP32
// for the half/bfloat16 forms (H: half, T: bfloat16, S: float; the name
// reads input, compute, output). ---

namespace {

template <typename T> cudaDataType typeOf() {
  if constexpr (std::is_same_v<T, float>)
    return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>)
    return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, C32>)
    return CUDA_C_32F;
  else
    return CUDA_C_64F;
}

/// Tc: compute type; AT/YT the storage of A and x, and of y.
template <typename Tc>
cublasStatus_t gemvBatched(cublasHandle_t Hd, cublasOperation_t Op, int M, int N, const Tc *Alpha, const void *const *A,
                           const void *ABase, cudaDataType AT, int Lda, long long SA, const void *const *X,
                           const void *XBase, int IncX, long long SX, const Tc *Beta, void *const *Y, void *YBase,
                           cudaDataType YT, int IncY, long long SY, int Batch) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  bool OpOk = Op == CUBLAS_OP_N || Op == CUBLAS_OP_T || Op == CUBLAS_OP_C;
  if (!OpOk || M < 0 || N < 0 || Lda < std::max(1, M) || IncX == 0 || IncY == 0 || Batch < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (M == 0 || N == 0 || Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  auto Al = scalar(*H, Alpha), Be = scalar(*H, Beta);
  size_t AS = sizeOf(AT), YS = sizeOf(YT);
  return enqueue(*H, [=] {
    Tc a = Al.get(), b = Be.get();
    int Rows = Op == CUBLAS_OP_N ? M : N, Cols = Op == CUBLAS_OP_N ? N : M;
    for (int Bi = 0; Bi < Batch; ++Bi) {
      const void *Ai = A ? A[Bi] : static_cast<const char *>(ABase) + (int64_t)Bi * SA * AS;
      const void *Xi = X ? X[Bi] : static_cast<const char *>(XBase) + (int64_t)Bi * SX * AS;
      void *Yi = Y ? Y[Bi] : static_cast<char *>(YBase) + (int64_t)Bi * SY * YS;
      for (int I = 0; I < Rows; ++I) {
        Tc S{};
        for (int J = 0; J < Cols; ++J) {
          Tc Aij = Op == CUBLAS_OP_N ? load<Tc>(Ai, AT, (int64_t)J * Lda + I) : load<Tc>(Ai, AT, (int64_t)I * Lda + J);
          if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
            if (Op == CUBLAS_OP_C)
              Aij = std::conj(Aij);
          S += Aij * load<Tc>(Xi, AT, idx(Cols, IncX, J));
        }
        int64_t Yo = idx(Rows, IncY, I);
        Tc R = a * S;
        if (b != Tc{})
          R += b * load<Tc>(Yi, YT, Yo);
        store<Tc>(Yi, YT, Yo, R);
      }
    }
  });
}

} // namespace

#define GEMV_BATCHED(NAME, IN, OUT, TC, CT, AT, YT)                                                \
  extern "C" cublasStatus_t cublas##NAME##gemvBatched(cublasHandle_t h, cublasOperation_t o, int m, int n,    \
                                                      const TC *al, const IN *const *A, int lda,   \
                                                      const IN *const *x, int ix, const TC *be,    \
                                                      OUT *const *y, int iy, int batch) {          \
    return gemvBatched<CT>(h, o, m, n, (const CT *)al, (const void *const *)A, nullptr, AT, lda, 0,           \
                           (const void *const *)x, nullptr, ix, 0, (const CT *)be, (void *const *)y, nullptr, \
                           YT, iy, 0, batch);                                                      \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##NAME##gemvStridedBatched(                                      \
      cublasHandle_t h, cublasOperation_t o, int m, int n, const TC *al, const IN *A, int lda, long long sa,   \
      const IN *x, int ix, long long sx, const TC *be, OUT *y, int iy, long long sy, int batch) {  \
    return gemvBatched<CT>(h, o, m, n, (const CT *)al, nullptr, A, AT, lda, sa, nullptr, x, ix, sx,           \
                           (const CT *)be, nullptr, y, YT, iy, sy, batch);                         \
  }
GEMV_BATCHED(S, float, float, float, float, CUDA_R_32F, CUDA_R_32F)
GEMV_BATCHED(D, double, double, double, double, CUDA_R_64F, CUDA_R_64F)
GEMV_BATCHED(C, cuComplex, cuComplex, cuComplex, C32, CUDA_C_32F, CUDA_C_32F)
GEMV_BATCHED(Z, cuDoubleComplex, cuDoubleComplex, cuDoubleComplex, C64, CUDA_C_64F, CUDA_C_64F)
GEMV_BATCHED(HSH, __half, __half, float, float, CUDA_R_16F, CUDA_R_16F)
GEMV_BATCHED(HSS, __half, float, float, float, CUDA_R_16F, CUDA_R_32F)
GEMV_BATCHED(TST, __nv_bfloat16, __nv_bfloat16, float, float, CUDA_R_16BF, CUDA_R_16BF)
GEMV_BATCHED(TSS, __nv_bfloat16, float, float, float, CUDA_R_16BF, CUDA_R_32F)

// --- More level-1 Ex forms. ---

extern "C" cublasStatus_t cublasAsumEx(cublasHandle_t Hd, int N, const void *X, cudaDataType XT, int IncX,
                                       void *Result, cudaDataType RT, cudaDataType Exec) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(XT) || !realType(RT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(
        *H,
        [=] {
          // BLAS's asum: |re| + |im| for complex elements.
          double S = 0;
          for (int I = 0; N > 0 && IncX > 0 && I < N; ++I) {
            Tc V = load<Tc>(X, XT, (int64_t)I * IncX);
            if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
              S += std::abs((double)V.real()) + std::abs((double)V.imag());
            else
              S += std::abs((double)V);
          }
          store<double>(Result, RT, 0, S);
        },
        true);
  });
}

static cublasStatus_t copySwapEx(cublasHandle_t Hd, int N, void *X, cudaDataType XT, int IncX, void *Y,
                                 cudaDataType YT, int IncY, bool Swap) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!known(XT) || !known(YT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  // Moved through the widest type of the pair, so same-type copies are exact.
  bool Cplx = complexType(XT) || complexType(YT);
  return enqueue(*H, [=] {
    for (int I = 0; I < N; ++I) {
      int64_t Xi = idx(N, IncX, I), Yi = idx(N, IncY, I);
      if (Cplx) {
        C64 A = load<C64>(X, XT, Xi), B = load<C64>(Y, YT, Yi);
        store<C64>(Y, YT, Yi, A);
        if (Swap)
          store<C64>(X, XT, Xi, B);
      } else {
        double A = load<double>(X, XT, Xi), B = load<double>(Y, YT, Yi);
        store<double>(Y, YT, Yi, A);
        if (Swap)
          store<double>(X, XT, Xi, B);
      }
    }
  });
}
extern "C" cublasStatus_t cublasCopyEx(cublasHandle_t h, int n, const void *x, cudaDataType xt, int ix, void *y,
                                       cudaDataType yt, int iy) {
  return copySwapEx(h, n, const_cast<void *>(x), xt, ix, y, yt, iy, false);
}
extern "C" cublasStatus_t cublasSwapEx(cublasHandle_t h, int n, void *x, cudaDataType xt, int ix, void *y,
                                       cudaDataType yt, int iy) {
  return copySwapEx(h, n, x, xt, ix, y, yt, iy, true);
}

static cublasStatus_t iamaxEx(cublasHandle_t Hd, int N, const void *X, cudaDataType XT, int IncX, int *Result,
                              bool Max) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(XT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return enqueue(
      *H,
      [=] {
        // 1-based index of the first element of largest (smallest) |re|+|im|.
        int Best = 0;
        double BestV = 0;
        for (int I = 0; N > 0 && IncX > 0 && I < N; ++I) {
          C64 V = complexType(XT) ? load<C64>(X, XT, (int64_t)I * IncX) : C64(load<double>(X, XT, (int64_t)I * IncX));
          double M = std::abs(V.real()) + std::abs(V.imag());
          if (I == 0 || (Max ? M > BestV : M < BestV)) {
            Best = I + 1;
            BestV = M;
          }
        }
        *Result = Best;
      },
      true);
}
extern "C" cublasStatus_t cublasIamaxEx(cublasHandle_t h, int n, const void *x, cudaDataType xt, int ix, int *r) {
  return iamaxEx(h, n, x, xt, ix, r, true);
}
extern "C" cublasStatus_t cublasIaminEx(cublasHandle_t h, int n, const void *x, cudaDataType xt, int ix, int *r) {
  return iamaxEx(h, n, x, xt, ix, r, false);
}

extern "C" cublasStatus_t cublasRotEx(cublasHandle_t Hd, int N, void *X, cudaDataType XT, int IncX, void *Y,
                                      cudaDataType YT, int IncY, const void *Cp, const void *Sp, cudaDataType CsT,
                                      cudaDataType Exec) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  if (!known(XT) || !known(YT) || !known(CsT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  // c is real; s has csType (real, or complex for the complex rotation).
  RawScalar Cs = rawScalar(*H, Cp, realType(CsT) ? CsT : (CsT == CUDA_C_32F ? CUDA_R_32F : CUDA_R_64F));
  RawScalar Ss = rawScalar(*H, Sp, CsT);
  cudaDataType CT = realType(CsT) ? CsT : (CsT == CUDA_C_32F ? CUDA_R_32F : CUDA_R_64F);
  return withExec(Exec, [&]<typename Tc>() {
    return enqueue(*H, [=] {
      Tc C = load<Tc>(Cs.get(), CT, 0), S = load<Tc>(Ss.get(), CsT, 0);
      for (int I = 0; I < N; ++I) {
        int64_t Xi = idx(N, IncX, I), Yi = idx(N, IncY, I);
        Tc Xv = load<Tc>(X, XT, Xi), Yv = load<Tc>(Y, YT, Yi);
        Tc Sc = S;
        if constexpr (std::is_same_v<Tc, C32> || std::is_same_v<Tc, C64>)
          Sc = std::conj(S);
        store<Tc>(X, XT, Xi, C * Xv + S * Yv);
        store<Tc>(Y, YT, Yi, C * Yv - Sc * Xv);
      }
    });
  });
}

// --- Complex herk/syrk Ex: the complex single types only (C_32F). ---

extern "C" cublasStatus_t cublasCherkEx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, int k,
                                        const float *al, const void *A, cudaDataType At, int lda, const float *be,
                                        void *C, cudaDataType Ct, int ldc) {
  if (At != CUDA_C_32F || Ct != CUDA_C_32F)
    return lookup(h) ? CUBLAS_STATUS_NOT_SUPPORTED : badHandle();
  return cublasCherk_v2(h, f, o, n, k, al, (const cuComplex *)A, lda, be, (cuComplex *)C, ldc);
}
extern "C" cublasStatus_t cublasCherk3mEx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, int k,
                                          const float *al, const void *A, cudaDataType At, int lda, const float *be,
                                          void *C, cudaDataType Ct, int ldc) {
  return cublasCherkEx(h, f, o, n, k, al, A, At, lda, be, C, Ct, ldc);
}
extern "C" cublasStatus_t cublasCsyrkEx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, int k,
                                        const cuComplex *al, const void *A, cudaDataType At, int lda,
                                        const cuComplex *be, void *C, cudaDataType Ct, int ldc) {
  if (At != CUDA_C_32F || Ct != CUDA_C_32F)
    return lookup(h) ? CUBLAS_STATUS_NOT_SUPPORTED : badHandle();
  return cublasCsyrk_v2(h, f, o, n, k, al, (const cuComplex *)A, lda, be, (cuComplex *)C, ldc);
}
extern "C" cublasStatus_t cublasCsyrk3mEx(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t o, int n, int k,
                                          const cuComplex *al, const void *A, cudaDataType At, int lda,
                                          const cuComplex *be, void *C, cudaDataType Ct, int ldc) {
  return cublasCsyrkEx(h, f, o, n, k, al, A, At, lda, be, C, Ct, ldc);
}
