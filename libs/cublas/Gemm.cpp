/// \file
/// Every GEMM form: S/D/C/Z/H gemm, their batched and strided-batched forms,
/// SgemmEx, GemmEx, GemmBatchedEx and GemmStridedBatchedEx. One checked
/// description (GemmCall) is built on the calling thread and run in stream
/// order; FP32/FP64/complex go straight to OpenBLAS, the types a CPU BLAS
/// lacks are converted and computed as cuBLAS defines them:
///  - FP16/BF16/INT8 inputs with FP32 compute: inputs widened exactly to
///    FP32, products accumulated in FP32, the result rounded once to the
///    output type (round to nearest even);
///  - FP16 compute (Hgemm, COMPUTE_16F): an FP16 accumulator rounded after
///    every 16-deep slice of K, as the tensor cores' HMMA does;
///  - INT8 -> INT32: exact integer products and sums;
///  - TF32 (COMPUTE_32F_FAST_TF32 or CUBLAS_TF32_TENSOR_OP_MATH): FP32
///    inputs rounded to TF32 first.
#include "libs/cublas/Handle.h"
#include "libs/cublas/Numeric.h"
#include "libs/cublas/RocBlas.h"

#include <cblas.h>

#include <complex>
#include <cstring>
#include <immintrin.h>
#include <vector>

using namespace ferry::cublas;

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;

size_t typeSize(cudaDataType T) {
  switch (T) {
  case CUDA_R_8I:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  case CUDA_R_32F:
  case CUDA_R_32I:
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

/// A scalar of any GEMM scale type, read now or in the work (pointer mode).
struct AnyScalar {
  unsigned char Bytes[16] = {};
  const void *Ptr = nullptr;
  size_t Size = 0;
  template <typename T> T get() const {
    T V;
    std::memcpy(&V, Ptr ? Ptr : Bytes, sizeof(T));
    return V;
  }
};
AnyScalar anyScalar(const Handle &H, const void *P, size_t Size) {
  AnyScalar S;
  S.Size = Size;
  if (H.PointerMode == CUBLAS_POINTER_MODE_DEVICE)
    S.Ptr = P;
  else if (P)
    std::memcpy(S.Bytes, P, Size);
  return S;
}

struct Operand {
  const void *Ptr = nullptr;
  const void *const *Array = nullptr; // Batched: one pointer per matrix.
  cudaDataType Type = CUDA_R_32F;
  int64_t Ld = 0;
  int64_t Stride = 0; // In elements.
  const void *at(int64_t B) const {
    if (Array)
      return Array[B];
    return static_cast<const char *>(Ptr) + B * Stride * (int64_t)typeSize(Type);
  }
};

enum class Path { F32, F64, C32, C64, Widen32, Half16, Int8To32 };

struct GemmCall {
  cublasOperation_t OpA, OpB;
  int64_t M, N, K;
  Operand A, B, C;
  AnyScalar Alpha, Beta;
  int64_t Batch = 1;
  Path Kind = Path::F32;
  bool Tf32 = false;
};

CBLAS_TRANSPOSE cblasOp(cublasOperation_t Op) {
  return Op == CUBLAS_OP_N ? CblasNoTrans : Op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}

/// Widens the stored Rows x Cols matrix (leading dimension Ld) to a packed
/// FP32 one, optionally rounding to TF32.
void widen(const void *Src, cudaDataType T, int64_t Rows, int64_t Cols, int64_t Ld, std::vector<float> &Out,
           bool Tf32) {
  Out.resize(Rows * Cols);
  for (int64_t J = 0; J < Cols; ++J)
    for (int64_t I = 0; I < Rows; ++I) {
      int64_t S = J * Ld + I;
      float V;
      switch (T) {
      case CUDA_R_16F:
        V = halfToFloat(static_cast<const uint16_t *>(Src)[S]);
        break;
      case CUDA_R_16BF:
        V = bf16ToFloat(static_cast<const uint16_t *>(Src)[S]);
        break;
      case CUDA_R_8I:
        V = static_cast<const int8_t *>(Src)[S];
        break;
      default:
        V = static_cast<const float *>(Src)[S];
        break;
      }
      Out[J * Rows + I] = Tf32 ? roundTf32(V) : V;
    }
}

float loadC(const void *C, cudaDataType T, int64_t I) {
  switch (T) {
  case CUDA_R_16F:
    return halfToFloat(static_cast<const uint16_t *>(C)[I]);
  case CUDA_R_16BF:
    return bf16ToFloat(static_cast<const uint16_t *>(C)[I]);
  default:
    return static_cast<const float *>(C)[I];
  }
}
void storeC(void *C, cudaDataType T, int64_t I, float V) {
  switch (T) {
  case CUDA_R_16F:
    static_cast<uint16_t *>(C)[I] = floatToHalf(V);
    break;
  case CUDA_R_16BF:
    static_cast<uint16_t *>(C)[I] = floatToBf16(V);
    break;
  default:
    static_cast<float *>(C)[I] = V;
    break;
  }
}

/// Acc[i] = the FP16 rounding of Acc[i] + T[i] (kept as float): F16C's
/// conversion (round to nearest even, subnormals kept) where the CPU has it.
__attribute__((target("avx,f16c"))) void addRoundHalfF16C(float *Acc, const float *T, size_t N) {
  size_t I = 0;
  for (; I + 8 <= N; I += 8) {
    __m256 S = _mm256_add_ps(_mm256_loadu_ps(Acc + I), _mm256_loadu_ps(T + I));
    _mm256_storeu_ps(Acc + I, _mm256_cvtph_ps(_mm256_cvtps_ph(S, _MM_FROUND_TO_NEAREST_INT)));
  }
  for (; I < N; ++I)
    Acc[I] = halfToFloat(floatToHalf(Acc[I] + T[I]));
}
void addRoundHalf(float *Acc, const float *T, size_t N) {
  static const bool HasF16C = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  if (HasF16C)
    return addRoundHalfF16C(Acc, T, N);
  for (size_t I = 0; I < N; ++I)
    Acc[I] = halfToFloat(floatToHalf(Acc[I] + T[I]));
}

/// One matrix of the call (batch index Bi).
void runOne(const GemmCall &G, int64_t Bi) {
  const void *A = G.A.at(Bi), *B = G.B.at(Bi);
  void *C = const_cast<void *>(G.C.at(Bi));
  int M = (int)G.M, N = (int)G.N, K = (int)G.K;
  int Lda = (int)G.A.Ld, Ldb = (int)G.B.Ld, Ldc = (int)G.C.Ld;
  int64_t ARows = G.OpA == CUBLAS_OP_N ? G.M : G.K, ACols = G.OpA == CUBLAS_OP_N ? G.K : G.M;
  int64_t BRows = G.OpB == CUBLAS_OP_N ? G.K : G.N, BCols = G.OpB == CUBLAS_OP_N ? G.N : G.K;
  switch (G.Kind) {
  case Path::F32: {
    float Al = G.Alpha.get<float>(), Be = G.Beta.get<float>();
    if (!G.Tf32) {
      cblas_sgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, Al, (const float *)A, Lda,
                  (const float *)B, Ldb, Be, (float *)C, Ldc);
      return;
    }
    std::vector<float> Wa, Wb;
    widen(A, CUDA_R_32F, ARows, ACols, Lda, Wa, true);
    widen(B, CUDA_R_32F, BRows, BCols, Ldb, Wb, true);
    cblas_sgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, Al, Wa.data(), (int)std::max<int64_t>(1, ARows),
                Wb.data(), (int)std::max<int64_t>(1, BRows), Be, (float *)C, Ldc);
    return;
  }
  case Path::F64:
    cblas_dgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, G.Alpha.get<double>(), (const double *)A,
                Lda, (const double *)B, Ldb, G.Beta.get<double>(), (double *)C, Ldc);
    return;
  case Path::C32: {
    C32 Al = G.Alpha.get<C32>(), Be = G.Beta.get<C32>();
    cblas_cgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, &Al, A, Lda, B, Ldb, &Be, C, Ldc);
    return;
  }
  case Path::C64: {
    C64 Al = G.Alpha.get<C64>(), Be = G.Beta.get<C64>();
    cblas_zgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, &Al, A, Lda, B, Ldb, &Be, C, Ldc);
    return;
  }
  case Path::Widen32:
  case Path::Half16: {
    std::vector<float> Wa, Wb, Wc((size_t)M * N);
    widen(A, G.A.Type, ARows, ACols, Lda, Wa, false);
    widen(B, G.B.Type, BRows, BCols, Ldb, Wb, false);
    int64_t Lwa = std::max<int64_t>(1, ARows), Lwb = std::max<int64_t>(1, BRows);
    if (G.Kind == Path::Half16) {
      // FP16 compute is the tensor cores' HMMA with an FP16 accumulator:
      // each 16-deep slice of K is summed at FP32 and added to the FP16
      // accumulator, which is rounded after every slice (this reproduces
      // the H100's bits; a single FP32 sum would not).
      // Column panels of C keep the accumulator in cache across the slices.
      std::vector<float> Acc((size_t)M * N, 0.0f);
      const int Panel = 64;
      for (int J0 = 0; J0 < N; J0 += Panel) {
        int Nb = std::min(Panel, N - J0);
        float *AccP = Acc.data() + (size_t)J0 * M;
        for (int P0 = 0; P0 < K; P0 += 16) {
          int Kc = std::min(16, K - P0);
          const float *Sa = G.OpA == CUBLAS_OP_N ? Wa.data() + (int64_t)P0 * Lwa : Wa.data() + P0;
          const float *Sb = G.OpB == CUBLAS_OP_N ? Wb.data() + (int64_t)J0 * Lwb + P0
                                                 : Wb.data() + (int64_t)P0 * Lwb + J0;
          cblas_sgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, Nb, Kc, 1.0f, Sa, (int)Lwa, Sb, (int)Lwb,
                      0.0f, Wc.data(), std::max(1, M));
          addRoundHalf(AccP, Wc.data(), (size_t)M * Nb);
        }
      }
      float Al = halfToFloat(G.Alpha.get<uint16_t>()), Be = halfToFloat(G.Beta.get<uint16_t>());
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < M; ++I) {
          int64_t Ci = (int64_t)J * Ldc + I;
          float R = Al * Acc[(size_t)J * M + I];
          if (Be != 0.0f)
            R = std::fma(Be, halfToFloat(((const uint16_t *)C)[Ci]), R);
          ((uint16_t *)C)[Ci] = floatToHalf(R);
        }
      return;
    }
    // The FP32 sum of products; alpha and beta applied in FP32, one rounding
    // to the output type.
    if (K > 0)
      cblas_sgemm(CblasColMajor, cblasOp(G.OpA), cblasOp(G.OpB), M, N, K, 1.0f, Wa.data(), (int)Lwa, Wb.data(),
                  (int)Lwb, 0.0f, Wc.data(), std::max(1, M));
    float Al = G.Alpha.get<float>(), Be = G.Beta.get<float>();
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        int64_t Ci = (int64_t)J * Ldc + I;
        float R = Al * Wc[(size_t)J * M + I];
        if (Be != 0.0f)
          R = std::fma(Be, loadC(C, G.C.Type, Ci), R);
        storeC(C, G.C.Type, Ci, R);
      }
    return;
  }
  case Path::Int8To32: {
    int32_t Al = G.Alpha.get<int32_t>(), Be = G.Beta.get<int32_t>();
    const int8_t *Ai = (const int8_t *)A, *Bi8 = (const int8_t *)B;
    int32_t *Ci = (int32_t *)C;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        int32_t S = 0;
        for (int P = 0; P < K; ++P) {
          int32_t Av = G.OpA == CUBLAS_OP_N ? Ai[(int64_t)P * Lda + I] : Ai[(int64_t)I * Lda + P];
          int32_t Bv = G.OpB == CUBLAS_OP_N ? Bi8[(int64_t)J * Ldb + P] : Bi8[(int64_t)P * Ldb + J];
          S += Av * Bv;
        }
        int32_t &Out = Ci[(int64_t)J * Ldc + I];
        Out = Al * S + (Be ? Be * Out : 0);
      }
    return;
  }
  }
}

bool validOp(cublasOperation_t Op) { return Op == CUBLAS_OP_N || Op == CUBLAS_OP_T || Op == CUBLAS_OP_C; }

/// NVIDIA's checks for the GEMM family, in its order, with its parameter
/// numbers (LdaParam... differ between the forms).
cublasStatus_t checkGemm(const char *Name, const GemmCall &G, int LdaParam, int LdbParam, int LdcParam) {
  if (!validOp(G.OpA))
    return invalidParam(Name, 1);
  if (!validOp(G.OpB))
    return invalidParam(Name, 2);
  if (G.M < 0)
    return invalidParam(Name, 3);
  if (G.N < 0)
    return invalidParam(Name, 4);
  if (G.K < 0)
    return invalidParam(Name, 5);
  int64_t ARows = G.OpA == CUBLAS_OP_N ? G.M : G.K;
  int64_t BRows = G.OpB == CUBLAS_OP_N ? G.K : G.N;
  if (G.A.Ld < std::max<int64_t>(1, ARows))
    return invalidParam(Name, LdaParam);
  if (G.B.Ld < std::max<int64_t>(1, BRows))
    return invalidParam(Name, LdbParam);
  if (G.C.Ld < std::max<int64_t>(1, G.M))
    return invalidParam(Name, LdcParam);
  return CUBLAS_STATUS_SUCCESS;
}

/// Picks the computation for a data/compute type combination, as the
/// GemmEx table of the cuBLAS documentation lists them; anything else is
/// CUBLAS_STATUS_NOT_SUPPORTED (as NVIDIA answers).
bool choosePath(GemmCall &G, cublasComputeType_t Compute, const Handle &H, size_t &ScaleSize) {
  cudaDataType At = G.A.Type, Bt = G.B.Type, Ct = G.C.Type;
  if (At != Bt)
    return false;
  switch (Compute) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC:
    ScaleSize = 2;
    G.Kind = Path::Half16;
    return At == CUDA_R_16F && Ct == CUDA_R_16F;
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC:
    ScaleSize = 4;
    G.Kind = Path::Int8To32;
    return At == CUDA_R_8I && Ct == CUDA_R_32I;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
  case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
    if (At == CUDA_R_64F && Ct == CUDA_R_64F) {
      ScaleSize = 8;
      G.Kind = Path::F64;
      return true;
    }
    ScaleSize = 16;
    G.Kind = Path::C64;
    return At == CUDA_C_64F && Ct == CUDA_C_64F;
  case CUBLAS_COMPUTE_32F:
  case CUBLAS_COMPUTE_32F_PEDANTIC:
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32:
  case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
    if (At == CUDA_C_32F && Ct == CUDA_C_32F) {
      ScaleSize = 8;
      G.Kind = Path::C32;
      return true;
    }
    ScaleSize = 4;
    if (At == CUDA_R_32F && Ct == CUDA_R_32F) {
      G.Kind = Path::F32;
      bool ModeTf32 = (H.MathMode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH && Compute == CUBLAS_COMPUTE_32F;
      // FAST_16F and FAST_16BF allow TF32 too, and the H100 uses it for them.
      G.Tf32 = Compute == CUBLAS_COMPUTE_32F_FAST_TF32 || Compute == CUBLAS_COMPUTE_32F_FAST_16F ||
               Compute == CUBLAS_COMPUTE_32F_FAST_16BF || ModeTf32;
      return true;
    }
    G.Kind = Path::Widen32;
    if (At == CUDA_R_16F || At == CUDA_R_16BF)
      return Ct == At || Ct == CUDA_R_32F;
    return At == CUDA_R_8I && Ct == CUDA_R_32F;
  default:
    return false;
  }
}

bool validAlgo(int Algo) { return (Algo >= -1 && Algo <= 23) || (Algo >= 99 && Algo <= 115) || Algo == 999; }

/// G for rocBLAS, where the host cannot reach the device memory: plain and
/// strided GEMMs (pointer arrays live in device memory too, and are not
/// forwarded: NOT_SUPPORTED).
cublasStatus_t forward(Handle &H, const GemmCall &G) {
  if (G.A.Array || G.B.Array || G.C.Array) {
    ferry::libs::logNoHostAccess("cublas", "CUBLAS_STATUS_NOT_SUPPORTED", "pointer-array batches are not forwarded");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  RocGemm R;
  R.OpA = G.OpA;
  R.OpB = G.OpB;
  R.M = G.M;
  R.N = G.N;
  R.K = G.K;
  R.A = G.A.Ptr;
  R.B = G.B.Ptr;
  R.C = const_cast<void *>(G.C.Ptr);
  R.At = G.A.Type;
  R.Bt = G.B.Type;
  R.Ct = G.C.Type;
  static const cudaDataType Computes[] = {CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F,
                                          CUDA_R_32F, CUDA_R_16F, CUDA_R_32I}; // By Path.
  static_assert(int(Path::Int8To32) == 6, "Computes follows Path");
  R.Compute = Computes[int(G.Kind)];
  R.Lda = G.A.Ld;
  R.Ldb = G.B.Ld;
  R.Ldc = G.C.Ld;
  R.StrideA = G.A.Stride;
  R.StrideB = G.B.Stride;
  R.StrideC = G.C.Stride;
  R.Batch = G.Batch;
  std::memcpy(R.Alpha, G.Alpha.Bytes, sizeof R.Alpha);
  std::memcpy(R.Beta, G.Beta.Bytes, sizeof R.Beta);
  R.AlphaPtr = G.Alpha.Ptr;
  R.BetaPtr = G.Beta.Ptr;
  return forwardGemm(H, R);
}

cublasStatus_t launch(Handle &H, GemmCall G) {
  if (G.M == 0 || G.N == 0 || G.Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (G.M > INT32_MAX || G.N > INT32_MAX || G.K > INT32_MAX || G.A.Ld > INT32_MAX || G.B.Ld > INT32_MAX ||
      G.C.Ld > INT32_MAX)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (!H.Kept.hostReachesDeviceMemory())
    return forward(H, G);
  return enqueue(H, [G] {
    for (int64_t B = 0; B < G.Batch; ++B)
      runOne(G, B);
  });
}

/// The typed forms (S/D/C/Z/H gemm and their batched forms).
template <typename T>
cublasStatus_t typedGemm(const char *Name, cublasHandle_t Hd, cublasOperation_t OpA, cublasOperation_t OpB, int64_t M,
                         int64_t N, int64_t K, const T *Alpha, const void *A, const void *const *AArr, int64_t Lda,
                         int64_t SA, const void *B, const void *const *BArr, int64_t Ldb, int64_t SB, const T *Beta,
                         void *C, void *const *CArr, int64_t Ldc, int64_t SC, int64_t Batch, cudaDataType Type,
                         int BatchParam) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  GemmCall G{OpA, OpB, M, N, K, {A, AArr, Type, Lda, SA}, {B, BArr, Type, Ldb, SB}, {C, (const void *const *)CArr, Type, Ldc, SC}};
  G.Batch = Batch;
  // Strided forms have a stride after each leading dimension.
  bool Strided = SA || SB || SC || BatchParam == 14 + 100;
  if (cublasStatus_t S = checkGemm(Name, G, 8, Strided ? 11 : 10, Strided ? 15 : 13); S != CUBLAS_STATUS_SUCCESS)
    return S;
  if (Batch < 0)
    return invalidParam(Name, BatchParam);
  size_t Scale = 0;
  cublasComputeType_t Compute = Type == CUDA_R_16F ? CUBLAS_COMPUTE_16F
                                : Type == CUDA_R_64F || Type == CUDA_C_64F ? CUBLAS_COMPUTE_64F
                                                                           : CUBLAS_COMPUTE_32F;
  choosePath(G, Compute, *H, Scale);
  G.Alpha = anyScalar(*H, Alpha, sizeof(T));
  G.Beta = anyScalar(*H, Beta, sizeof(T));
  return launch(*H, G);
}

cublasStatus_t exGemm(const char *Name, cublasHandle_t Hd, cublasOperation_t OpA, cublasOperation_t OpB, int64_t M,
                      int64_t N, int64_t K, const void *Alpha, const void *A, const void *const *AArr,
                      cudaDataType At, int64_t Lda, int64_t SA, const void *B, const void *const *BArr,
                      cudaDataType Bt, int64_t Ldb, int64_t SB, const void *Beta, void *C, void *const *CArr,
                      cudaDataType Ct, int64_t Ldc, int64_t SC, int64_t Batch, cublasComputeType_t Compute, int Algo,
                      bool Strided) {
  Handle *H = lookup(Hd);
  if (!H)
    return badHandle();
  GemmCall G{OpA, OpB, M, N, K, {A, AArr, At, Lda, SA}, {B, BArr, Bt, Ldb, SB}, {C, (const void *const *)CArr, Ct, Ldc, SC}};
  G.Batch = Batch;
  // Parameter numbers of GemmEx; the batched forms shift them.
  int Shift = Strided ? 1 : 0;
  if (cublasStatus_t S = checkGemm(Name, G, 9, 12 + Shift, 16 + 2 * Shift); S != CUBLAS_STATUS_SUCCESS)
    return S;
  if (Batch < 0)
    return invalidParam(Name, 17 + 3 * Shift);
  if (!validAlgo(Algo))
    return invalidParam(Name, Batch == 1 && !AArr && !Strided ? 18 : 19 + 3 * Shift);
  size_t Scale = 0;
  if (!choosePath(G, Compute, *H, Scale))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  G.Alpha = anyScalar(*H, Alpha, Scale);
  G.Beta = anyScalar(*H, Beta, Scale);
  return launch(*H, G);
}

} // namespace

// --- Typed GEMMs: plain, batched (pointer arrays), strided batched. ---

// Each typed GEMM in its int form and its _64 form (IT = int64_t).
#define TYPED_GEMM_IT(PFX, NAME, T, CT, DT, IT, SFX)                                               \
  extern "C" cublasStatus_t cublas##PFX##gemm##NAME##SFX(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, \
                                                         IT m, IT n, IT k, const T *al, const T *A, IT lda, const T *B, \
                                                         IT ldb, const T *be, T *C, IT ldc) {          \
    return typedGemm<CT>(#DT "GEMM ", h, ta, tb, m, n, k, (const CT *)al, A, nullptr, lda, 0, B, nullptr, ldb, 0, \
                         (const CT *)be, C, nullptr, ldc, 0, 1, TYPE_##PFX, 0);                   \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##PFX##gemmBatched##SFX(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, \
                                                          IT m, IT n, IT k, const T *al, const T *const *A, IT lda, \
                                                          const T *const *B, IT ldb, const T *be, T *const *C, IT ldc, \
                                                          IT batch) {                               \
    return typedGemm<CT>(#PFX "gemmBatched", h, ta, tb, m, n, k, (const CT *)al, nullptr, (const void *const *)A, \
                         lda, 0, nullptr, (const void *const *)B, ldb, 0, (const CT *)be, nullptr, (void *const *)C, \
                         ldc, 0, batch, TYPE_##PFX, 14);                                           \
  }                                                                                                \
  extern "C" cublasStatus_t cublas##PFX##gemmStridedBatched##SFX(                                  \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, const T *al, const T *A, IT lda, \
      long long sa, const T *B, IT ldb, long long sb, const T *be, T *C, IT ldc, long long sc, IT batch) { \
    return typedGemm<CT>(#PFX "gemmStridedBatched", h, ta, tb, m, n, k, (const CT *)al, A, nullptr, lda, sa, B, \
                         nullptr, ldb, sb, (const CT *)be, C, nullptr, ldc, sc, batch, TYPE_##PFX, 14); \
  }
#define TYPED_GEMM(PFX, NAME, T, CT, DT)                                                           \
  TYPED_GEMM_IT(PFX, NAME, T, CT, DT, int, )                                                       \
  TYPED_GEMM_IT(PFX, NAME, T, CT, DT, int64_t, _64)

#define TYPE_S CUDA_R_32F
#define TYPE_D CUDA_R_64F
#define TYPE_C CUDA_C_32F
#define TYPE_Z CUDA_C_64F
#define TYPE_H CUDA_R_16F
TYPED_GEMM(S, _v2, float, float, S)
TYPED_GEMM(D, _v2, double, double, D)
TYPED_GEMM(C, _v2, cuComplex, C32, C)
TYPED_GEMM(Z, _v2, cuDoubleComplex, C64, Z)
TYPED_GEMM(H, , __half, uint16_t, H)

/// gemm3m is a faster algorithm for the same product.
#define GEMM3M(SFX, IT)                                                                            \
  extern "C" cublasStatus_t cublasCgemm3m##SFX(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, \
                                               IT n, IT k, const cuComplex *al, const cuComplex *A, IT lda,        \
                                               const cuComplex *B, IT ldb, const cuComplex *be, cuComplex *C,      \
                                               IT ldc) {                                            \
    return typedGemm<C32>("CGEMM3M ", h, ta, tb, m, n, k, (const C32 *)al, A, nullptr, lda, 0, B, nullptr, ldb, 0, \
                          (const C32 *)be, C, nullptr, ldc, 0, 1, CUDA_C_32F, 0);                  \
  }
GEMM3M(, int)
GEMM3M(_64, int64_t)
extern "C" cublasStatus_t cublasZgemm3m(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                        int k, const cuDoubleComplex *al, const cuDoubleComplex *A, int lda,
                                        const cuDoubleComplex *B, int ldb, const cuDoubleComplex *be,
                                        cuDoubleComplex *C, int ldc) {
  return typedGemm<C64>("ZGEMM3M ", h, ta, tb, m, n, k, (const C64 *)al, A, nullptr, lda, 0, B, nullptr, ldb, 0,
                        (const C64 *)be, C, nullptr, ldc, 0, 1, CUDA_C_64F, 0);
}

// --- The Ex forms. ---

extern "C" cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                       int k, const void *al, const void *A, cudaDataType At, int lda, const void *B,
                                       cudaDataType Bt, int ldb, const void *be, void *C, cudaDataType Ct, int ldc,
                                       cublasComputeType_t Compute, cublasGemmAlgo_t Algo) {
  return exGemm("GEMM_EX ", h, ta, tb, m, n, k, al, A, nullptr, At, lda, 0, B, nullptr, Bt, ldb, 0, be, C, nullptr,
                Ct, ldc, 0, 1, Compute, Algo, false);
}

extern "C" cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                              int n, int k, const void *al, const void *const *A, cudaDataType At,
                                              int lda, const void *const *B, cudaDataType Bt, int ldb, const void *be,
                                              void *const *C, cudaDataType Ct, int ldc, int batch,
                                              cublasComputeType_t Compute, cublasGemmAlgo_t Algo) {
  return exGemm("GemmBatchedEx", h, ta, tb, m, n, k, al, nullptr, A, At, lda, 0, nullptr, B, Bt, ldb, 0, be, nullptr,
                C, Ct, ldc, 0, batch, Compute, Algo, false);
}

extern "C" cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                     int m, int n, int k, const void *al, const void *A,
                                                     cudaDataType At, int lda, long long sa, const void *B,
                                                     cudaDataType Bt, int ldb, long long sb, const void *be, void *C,
                                                     cudaDataType Ct, int ldc, long long sc, int batch,
                                                     cublasComputeType_t Compute, cublasGemmAlgo_t Algo) {
  return exGemm("GemmStridedBatchedEx", h, ta, tb, m, n, k, al, A, nullptr, At, lda, sa, B, nullptr, Bt, ldb, sb, be,
                C, nullptr, Ct, ldc, sc, batch, Compute, Algo, true);
}

/// SgemmEx: FP32 compute and scalars over the types GemmEx allows with them.
extern "C" cublasStatus_t cublasSgemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                        int k, const float *al, const void *A, cudaDataType At, int lda,
                                        const void *B, cudaDataType Bt, int ldb, const float *be, void *C,
                                        cudaDataType Ct, int ldc) {
  return exGemm("SGEMMEX ", h, ta, tb, m, n, k, al, A, nullptr, At, lda, 0, B, nullptr, Bt, ldb, 0, be, C, nullptr,
                Ct, ldc, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, false);
}

// --- The Ex forms with 64-bit sizes. ---

extern "C" cublasStatus_t cublasGemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                                          int64_t n, int64_t k, const void *al, const void *A, cudaDataType At,
                                          int64_t lda, const void *B, cudaDataType Bt, int64_t ldb, const void *be,
                                          void *C, cudaDataType Ct, int64_t ldc, cublasComputeType_t Compute,
                                          cublasGemmAlgo_t Algo) {
  return exGemm("GEMM_EX ", h, ta, tb, m, n, k, al, A, nullptr, At, lda, 0, B, nullptr, Bt, ldb, 0, be, C, nullptr,
                Ct, ldc, 0, 1, Compute, Algo, false);
}

extern "C" cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                 int64_t m, int64_t n, int64_t k, const void *al,
                                                 const void *const *A, cudaDataType At, int64_t lda,
                                                 const void *const *B, cudaDataType Bt, int64_t ldb, const void *be,
                                                 void *const *C, cudaDataType Ct, int64_t ldc, int64_t batch,
                                                 cublasComputeType_t Compute, cublasGemmAlgo_t Algo) {
  return exGemm("GemmBatchedEx", h, ta, tb, m, n, k, al, nullptr, A, At, lda, 0, nullptr, B, Bt, ldb, 0, be, nullptr,
                C, Ct, ldc, 0, batch, Compute, Algo, false);
}

extern "C" cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                        int64_t m, int64_t n, int64_t k, const void *al, const void *A,
                                                        cudaDataType At, int64_t lda, long long sa, const void *B,
                                                        cudaDataType Bt, int64_t ldb, long long sb, const void *be,
                                                        void *C, cudaDataType Ct, int64_t ldc, long long sc,
                                                        int64_t batch, cublasComputeType_t Compute,
                                                        cublasGemmAlgo_t Algo) {
  return exGemm("GemmStridedBatchedEx", h, ta, tb, m, n, k, al, A, nullptr, At, lda, sa, B, nullptr, Bt, ldb, sb, be,
                C, nullptr, Ct, ldc, sc, batch, Compute, Algo, true);
}

extern "C" cublasStatus_t cublasSgemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                                           int64_t n, int64_t k, const float *al, const void *A, cudaDataType At,
                                           int64_t lda, const void *B, cudaDataType Bt, int64_t ldb, const float *be,
                                           void *C, cudaDataType Ct, int64_t ldc) {
  return exGemm("SGEMMEX ", h, ta, tb, m, n, k, al, A, nullptr, At, lda, 0, B, nullptr, Bt, ldb, 0, be, C, nullptr,
                Ct, ldc, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, false);
}

// --- Complex Ex and 3m forms, grouped batches. ---

/// CgemmEx/Cgemm3mEx: complex scalars over the complex types GemmEx takes
/// with COMPUTE_32F.
extern "C" cublasStatus_t cublasCgemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                        int k, const cuComplex *al, const void *A, cudaDataType At, int lda,
                                        const void *B, cudaDataType Bt, int ldb, const cuComplex *be, void *C,
                                        cudaDataType Ct, int ldc) {
  return exGemm("CGEMMEX ", h, ta, tb, m, n, k, al, A, nullptr, At, lda, 0, B, nullptr, Bt, ldb, 0, be, C, nullptr,
                Ct, ldc, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, false);
}
extern "C" cublasStatus_t cublasCgemm3mEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const cuComplex *al, const void *A, cudaDataType At, int lda,
                                          const void *B, cudaDataType Bt, int ldb, const cuComplex *be, void *C,
                                          cudaDataType Ct, int ldc) {
  return cublasCgemmEx(h, ta, tb, m, n, k, al, A, At, lda, B, Bt, ldb, be, C, Ct, ldc);
}
extern "C" cublasStatus_t cublasCgemm3mBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                               int n, int k, const cuComplex *al, const cuComplex *const *A, int lda,
                                               const cuComplex *const *B, int ldb, const cuComplex *be,
                                               cuComplex *const *C, int ldc, int batch) {
  return cublasCgemmBatched(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, batch);
}
extern "C" cublasStatus_t cublasCgemm3mStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                      int m, int n, int k, const cuComplex *al, const cuComplex *A,
                                                      int lda, long long sa, const cuComplex *B, int ldb,
                                                      long long sb, const cuComplex *be, cuComplex *C, int ldc,
                                                      long long sc, int batch) {
  return cublasCgemmStridedBatched(h, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch);
}

namespace {

/// Size of one alpha/beta of a GemmEx call: the compute type's, complex
/// when C is.
size_t scaleSize(cublasComputeType_t Compute, cudaDataType Ct) {
  switch (Compute) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC:
    return 2;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
  case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
    return Ct == CUDA_C_64F ? 16 : 8;
  default:
    return Ct == CUDA_C_32F ? 8 : 4;
  }
}

/// Grouped batches: group g has group_size[g] problems of one shape, its
/// own op/sizes/leading dimensions and alpha/beta; Aarray/Barray/Carray
/// hold all problems, group after group. The per-group arrays are host
/// memory; alpha/beta follow the pointer mode.
cublasStatus_t grouped(const char *Name, cublasHandle_t Hd, const cublasOperation_t *Ta, const cublasOperation_t *Tb,
                       const int *M, const int *N, const int *K, const void *Al, const void *const *A, cudaDataType At,
                       const int *Lda, const void *const *B, cudaDataType Bt, const int *Ldb, const void *Be,
                       void *const *C, cudaDataType Ct, const int *Ldc, int Groups, const int *Size,
                       cublasComputeType_t Compute) {
  if (!lookup(Hd))
    return badHandle();
  if (Groups < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Groups && (!Ta || !Tb || !M || !N || !K || !Lda || !Ldb || !Ldc || !Size))
    return CUBLAS_STATUS_INVALID_VALUE;
  size_t S = scaleSize(Compute, Ct);
  int64_t Off = 0;
  for (int G = 0; G < Groups; ++G) {
    if (Size[G] < 0)
      return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t St = exGemm(Name, Hd, Ta[G], Tb[G], M[G], N[G], K[G], static_cast<const char *>(Al) + G * S,
                               nullptr, A + Off, At, Lda[G], 0, nullptr, B + Off, Bt, Ldb[G], 0,
                               static_cast<const char *>(Be) + G * S, nullptr, C + Off, Ct, Ldc[G], 0, Size[G],
                               Compute, CUBLAS_GEMM_DEFAULT, false);
    if (St != CUBLAS_STATUS_SUCCESS)
      return St;
    Off += Size[G];
  }
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" cublasStatus_t cublasGemmGroupedBatchedEx(
    cublasHandle_t h, const cublasOperation_t *ta, const cublasOperation_t *tb, const int *m, const int *n,
    const int *k, const void *al, const void *const *A, cudaDataType_t At, const int *lda, const void *const *B,
    cudaDataType_t Bt, const int *ldb, const void *be, void *const *C, cudaDataType_t Ct, const int *ldc, int groups,
    const int *size, cublasComputeType_t compute) {
  return grouped("GemmGroupedBatchedEx", h, ta, tb, m, n, k, al, A, At, lda, B, Bt, ldb, be, C, Ct, ldc, groups, size,
                 compute);
}
extern "C" cublasStatus_t cublasSgemmGroupedBatched(cublasHandle_t h, const cublasOperation_t *ta,
                                                    const cublasOperation_t *tb, const int *m, const int *n,
                                                    const int *k, const float *al, const float *const *A,
                                                    const int *lda, const float *const *B, const int *ldb,
                                                    const float *be, float *const *C, const int *ldc, int groups,
                                                    const int *size) {
  return grouped("SgemmGroupedBatched", h, ta, tb, m, n, k, al, (const void *const *)A, CUDA_R_32F, lda,
                 (const void *const *)B, CUDA_R_32F, ldb, be, (void *const *)C, CUDA_R_32F, ldc, groups, size,
                 CUBLAS_COMPUTE_32F);
}
extern "C" cublasStatus_t cublasDgemmGroupedBatched(cublasHandle_t h, const cublasOperation_t *ta,
                                                    const cublasOperation_t *tb, const int *m, const int *n,
                                                    const int *k, const double *al, const double *const *A,
                                                    const int *lda, const double *const *B, const int *ldb,
                                                    const double *be, double *const *C, const int *ldc, int groups,
                                                    const int *size) {
  return grouped("DgemmGroupedBatched", h, ta, tb, m, n, k, al, (const void *const *)A, CUDA_R_64F, lda,
                 (const void *const *)B, CUDA_R_64F, ldb, be, (void *const *)C, CUDA_R_64F, ldc, groups, size,
                 CUBLAS_COMPUTE_64F);
}
