/// \file
/// ferry's cuBLASLt: handles, matmul/layout/preference descriptors kept in
/// the caller-visible opaque storage (its size is ABI: programs may allocate
/// it and use the *Init functions), one heuristic answer, and cublasLtMatmul
/// run on ferry's libcublas in stream order:
///  - D = alpha op(A) op(B) + beta C goes to cublasGemmStridedBatchedEx on a
///    cuBLAS handle the Lt handle owns (straight into D when C is D or
///    beta is 0 and no epilogue is asked for);
///  - otherwise the product is taken in FP32 into a scratch buffer (C copied
///    there first by a host function), and a second host function applies
///    bias, ReLU or GELU (tanh form, as cuBLASLt), stores GELU's input for the
///    _AUX forms, and converts to D's type once, as cuBLASLt's fused epilogue
///    rounds once.
/// The gradient epilogues: DGELU (the product times GELU's derivative at the
/// aux input), DGELU_BGRAD (also the bias gradient, the row sums of that),
/// BGRADA/BGRADB (the bias gradient as sums of op(A)'s rows or op(B)'s
/// columns over k). Alpha as a per-row device vector (pointer modes
/// DEVICE_VECTOR, ALPHA_DEVICE_VECTOR_BETA_ZERO/_HOST). FP8 (E4M3/E5M2) operands and outputs with per-tensor
/// scales (A, B, C, D) and D's amax go through FP32 copies: D = scaleD *
/// epilogue(alpha scaleA scaleB op(A) op(B) + beta scaleC C), rounded to
/// FP8 to nearest even, saturating. ReLU's bitmask aux (RELU_AUX(_BIAS),
/// DRELU(_BGRAD)): 1 bit per element of D, set for a pre-activation >= 0,
/// only D's bits written (as measured on the H100). Row-major layouts and
/// pointer-array batches for a plain GEMM (an epilogue with a row-major
/// matrix is NOT_SUPPORTED on the H100 too). Tiled orders (COL32, ...) and
/// block scaling return CUBLAS_STATUS_NOT_SUPPORTED.
#include "ferry/generated/CublasApi.h"
#include "ferry/generated/CublasLtApi.h"
#include "ferry/generated/DriverApi.h"
#include "libs/cublas/Numeric.h"
#include "libs/common/HostTask.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>
#include <unordered_set>

using namespace ferry::cublas;

namespace {

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void logMessage(const char *Fmt, ...) {
  char Buf[512];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Buf, sizeof(Buf), Fmt, Ap);
  va_end(Ap);
  std::fprintf(stderr, "ferry cublasLt: %s\n", Buf);
}

/// The driver entry points cuBLASLt needs itself (the GEMMs go through
/// libcublas), resolved once from the libcuda.so.1 the process loaded.
struct Driver {
  decltype(&::cuLaunchHostFunc) LaunchHostFunc = nullptr;
  decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) PrimaryCtxRetain = nullptr;
};
template <typename T> bool resolve(decltype(&::cuGetProcAddress_v2) Get, const char *Name, T &Out) {
  void *P = nullptr;
  CUdriverProcAddressQueryResult R{};
  if (Get(Name, &P, 13000, 0, &R) != CUDA_SUCCESS || !P) {
    logMessage("libcuda.so.1 does not provide %s", Name);
    return false;
  }
  Out = reinterpret_cast<T>(P);
  return true;
}
const Driver *driver() {
  static Driver D;
  static bool Ok = [] {
    void *Lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto Get = Lib ? reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(::dlsym(Lib, "cuGetProcAddress_v2")) : nullptr;
    if (!Get) {
      logMessage("cannot load libcuda.so.1's cuGetProcAddress_v2");
      return false;
    }
    return resolve(Get, "cuLaunchHostFunc", D.LaunchHostFunc) && resolve(Get, "cuCtxGetCurrent", D.CtxGetCurrent) &&
           resolve(Get, "cuCtxSetCurrent", D.CtxSetCurrent) && resolve(Get, "cuDeviceGet", D.DeviceGet) &&
           resolve(Get, "cuDevicePrimaryCtxRetain", D.PrimaryCtxRetain);
  }();
  return Ok ? &D : nullptr;
}

/// A current context for the calling thread: its own, or device 0's
/// primary context (what the runtime would use).
void ensureContext(const Driver &D) {
  CUcontext Ctx = nullptr;
  if (D.CtxGetCurrent(&Ctx) == CUDA_SUCCESS && Ctx)
    return;
  CUdevice Dev = 0;
  if (D.DeviceGet(&Dev, 0) == CUDA_SUCCESS && D.PrimaryCtxRetain(&Ctx, Dev) == CUDA_SUCCESS)
    D.CtxSetCurrent(Ctx);
}

} // namespace

struct cublasLtContext {
  static constexpr uint64_t Live = 0x6665727279424c74ull; // "ferryBLt"
  uint64_t Magic = Live;
  cublasHandle_t Blas = nullptr;
  std::mutex Lock; // One matmul at a time sets the cuBLAS handle's stream.
  /// Whether the host reaches the device's memory (asked once).
  ferry::libs::TaskKeeper Kept;
};

namespace {

/// cuBLASLt's own host work (copies, prologues, epilogues, transforms)
/// reads device memory: refused where the host cannot reach it, with one
/// log line (libs/README.md, "The AMD backend"); plain GEMMs go to
/// libcublas, which forwards or refuses them itself.
bool hostWorkRefused(cublasLtContext &H) {
  if (H.Kept.hostReachesDeviceMemory())
    return false;
  ferry::libs::logNoHostAccess("cublasLt", "CUBLAS_STATUS_NOT_SUPPORTED");
  return true;
}

std::mutex RegistryLock;
std::unordered_set<cublasLtContext *> &registry() {
  static auto *R = new std::unordered_set<cublasLtContext *>;
  return *R;
}
cublasLtContext *lookup(cublasLtHandle_t H) {
  std::lock_guard<std::mutex> G(RegistryLock);
  return H && registry().count(H) && H->Magic == cublasLtContext::Live ? H : nullptr;
}

// --- Descriptor state inside the opaque storage. ---

constexpr uint32_t LayoutMagic = 0x4c61794c, DescMagic = 0x4465734c, PrefMagic = 0x5072664c;

struct LayoutState {
  uint32_t Magic;
  uint32_t Type;
  uint64_t Rows, Cols;
  int64_t Ld;
  int32_t Order, Batch;
  int64_t Stride, PlaneOffset;
  int32_t BatchMode;
};
static_assert(sizeof(LayoutState) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout state fits");

/// Every matmul attribute value fits in 8 bytes; the descriptor keeps up to
/// 30 of them, as (attribute, size, value) slots.
struct Slot {
  uint32_t Attr, Size;
  uint64_t Value;
};
struct DescState {
  uint32_t Magic, Count;
  Slot Slots[15];
};
static_assert(sizeof(DescState) <= sizeof(cublasLtMatmulDescOpaque_t), "descriptor state fits");
struct PrefState {
  uint32_t Magic, Count;
  Slot Slots[3];
};
static_assert(sizeof(PrefState) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "preference state fits");

template <typename S> S *state(void *P, uint32_t Magic) {
  auto *St = static_cast<S *>(P);
  return St && St->Magic == Magic ? St : nullptr;
}

template <typename S> cublasStatus_t setSlot(S &St, uint32_t Attr, const void *Buf, size_t Size) {
  if (!Buf || Size == 0 || Size > 8)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t V = 0;
  std::memcpy(&V, Buf, Size);
  for (uint32_t I = 0; I < St.Count; ++I)
    if (St.Slots[I].Attr == Attr) {
      St.Slots[I] = {Attr, (uint32_t)Size, V};
      return CUBLAS_STATUS_SUCCESS;
    }
  if (St.Count == sizeof(St.Slots) / sizeof(Slot))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  St.Slots[St.Count++] = {Attr, (uint32_t)Size, V};
  return CUBLAS_STATUS_SUCCESS;
}

/// Get: the stored value, or Default (of DefaultSize bytes) when never set.
template <typename S>
cublasStatus_t getSlot(const S &St, uint32_t Attr, void *Buf, size_t Size, size_t *Written, uint64_t Default,
                       size_t DefaultSize) {
  uint64_t V = Default;
  size_t N = DefaultSize;
  for (uint32_t I = 0; I < St.Count; ++I)
    if (St.Slots[I].Attr == Attr) {
      V = St.Slots[I].Value;
      N = St.Slots[I].Size;
    }
  if (Written)
    *Written = N;
  if (Size == 0 && Written)
    return CUBLAS_STATUS_SUCCESS; // A size query.
  if (!Buf || Size < N)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, &V, N);
  return CUBLAS_STATUS_SUCCESS;
}

template <typename S> uint64_t slotOr(const S &St, uint32_t Attr, uint64_t Default) {
  for (uint32_t I = 0; I < St.Count; ++I)
    if (St.Slots[I].Attr == Attr)
      return St.Slots[I].Value;
  return Default;
}

/// The default value and size of a matmul attribute never set.
void descDefault(uint32_t Attr, uint64_t &V, size_t &N) {
  V = 0;
  N = 4;
  switch (Attr) {
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    V = CUBLASLT_EPILOGUE_DEFAULT;
    break;
  case CUBLASLT_MATMUL_DESC_FILL_MODE:
    V = CUBLAS_FILL_MODE_FULL;
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
  case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE:
  case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
  case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE:
    N = 8;
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE:
    V = (uint64_t)(uint32_t)-1; // "same as D"
    break;
  default:
    break;
  }
}

size_t elemSize(uint32_t T) {
  switch (T) {
  case CUDA_R_8I:
  case CUDA_R_8F_E4M3:
  case CUDA_R_8F_E5M2:
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

/// FP8 as the H100 stores it: E4M3 (bias 7, no infinities, S.1111.111 is
/// NaN, largest 448) and E5M2 (IEEE-like, bias 15). Conversions to FP8 round
/// to nearest even and saturate to the largest finite value (the
/// "satfinite" cuBLASLt uses for FP8 outputs); NaN stays NaN.
float fp8ToFloat(uint8_t V, bool E4M3) {
  if (!E4M3)
    return halfToFloat((uint16_t)(V << 8));
  float Sign = V & 0x80 ? -1.0f : 1.0f;
  int E = (V >> 3) & 0xf, M = V & 7;
  if (E == 15 && M == 7)
    return std::nanf("");
  if (E == 0)
    return Sign * std::ldexp((float)M, -9);
  return Sign * std::ldexp(1.0f + M / 8.0f, E - 7);
}
uint8_t floatToFp8(float F, bool E4M3) {
  if (std::isnan(F))
    return E4M3 ? 0x7f : 0x7e;
  uint8_t Sign = std::signbit(F) ? 0x80 : 0;
  float A = std::fabs(F);
  // The nearest of the 127 finite magnitudes (ties to the even code).
  int Lo = 0, Hi = E4M3 ? 0x7e : 0x7b;
  if (A >= fp8ToFloat(Hi, E4M3))
    return Sign | Hi;
  while (Hi - Lo > 1) {
    int Mid = (Lo + Hi) / 2;
    (fp8ToFloat(Mid, E4M3) <= A ? Lo : Hi) = Mid;
  }
  float DLo = A - fp8ToFloat(Lo, E4M3), DHi = fp8ToFloat(Hi, E4M3) - A;
  int Code = DLo < DHi ? Lo : DHi < DLo ? Hi : (Lo % 2 == 0 ? Lo : Hi);
  return Sign | Code;
}

float loadF(const void *P, uint32_t T, int64_t I) {
  switch (T) {
  case CUDA_R_8F_E4M3:
  case CUDA_R_8F_E5M2:
    return fp8ToFloat(static_cast<const uint8_t *>(P)[I], T == CUDA_R_8F_E4M3);
  case CUDA_R_16F:
    return halfToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_16BF:
    return bf16ToFloat(static_cast<const uint16_t *>(P)[I]);
  default:
    return static_cast<const float *>(P)[I];
  }
}
void storeF(void *P, uint32_t T, int64_t I, float V) {
  switch (T) {
  case CUDA_R_8F_E4M3:
  case CUDA_R_8F_E5M2:
    static_cast<uint8_t *>(P)[I] = floatToFp8(V, T == CUDA_R_8F_E4M3);
    break;
  case CUDA_R_16F:
    static_cast<uint16_t *>(P)[I] = floatToHalf(V);
    break;
  case CUDA_R_16BF:
    static_cast<uint16_t *>(P)[I] = floatToBf16(V);
    break;
  default:
    static_cast<float *>(P)[I] = V;
    break;
  }
}

float gelu(float X) {
  // cuBLASLt's GELU is the tanh approximation.
  return 0.5f * X * (1.0f + std::tanh(0.7978845608028654f * (X + 0.044715f * X * X * X)));
}

/// Owned by the two host functions of one matmul (prologue frees nothing;
/// the epilogue frees the scratch and itself).
struct EpilogueJob {
  float *Scratch = nullptr;
  int64_t M = 0, N = 0, Batch = 1;
  const void *C = nullptr;
  uint32_t CType = 0;
  int64_t Ldc = 0, StrideC = 0;
  void *D = nullptr;
  uint32_t DType = 0;
  int64_t Ldd = 0, StrideD = 0;
  uint32_t Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *Bias = nullptr;
  uint32_t BiasType = 0;
  int64_t BiasStride = 0;
  void *Aux = nullptr;
  uint32_t AuxType = 0;
  int64_t AuxLd = 0, AuxStride = 0;
  // Alpha as a device vector (one per row of D; pointer modes 2-4): the
  // product is taken with alpha 1 and beta 0, then scaled here.
  const float *AlphaVec = nullptr, *BetaVec = nullptr;
  float BetaHost = 0;
  int64_t AlphaVecStride = 0;
  bool VectorAlpha = false;
  // FP8: per-tensor scales (device floats, read when the work runs) and the
  // amax of the result; the FP32 copies of A and B to free.
  const float *ScaleA = nullptr, *ScaleB = nullptr, *ScaleC = nullptr, *ScaleD = nullptr;
  float *AmaxD = nullptr;
  float *ScratchA = nullptr, *ScratchB = nullptr;
  int64_t ARows = 0, ACols = 0, BRows = 0, BCols = 0;
  // Beta zero (host value, or a device float read when the work runs): C is
  // not read, and may be NULL, as NVIDIA's library allows (XLA passes none).
  bool BetaZero = false;
  const float *DeviceBeta = nullptr;
  // For the bias gradients of A or B (BGRADA/BGRADB).
  const void *A = nullptr, *B = nullptr;
  uint32_t AType = 0, BType = 0;
  int64_t Lda = 0, Ldb = 0, StrideA = 0, StrideB = 0, K = 0;
  bool TransA = false, TransB = false;
};

/// d/dx of the tanh GELU.
float geluGrad(float X) {
  const float C = 0.7978845608028654f;
  float U = C * (X + 0.044715f * X * X * X);
  float T = std::tanh(U);
  return 0.5f * (1.0f + T) + 0.5f * X * (1.0f - T * T) * C * (1.0f + 3.0f * 0.044715f * X * X);
}

void prologue(void *P) {
  auto *J = static_cast<EpilogueJob *>(P);
  if (J->ScratchA) {
    // FP8 (or scaled) operands: FP32 copies with their scales applied.
    float Sa = J->ScaleA ? *J->ScaleA : 1.0f, Sb = J->ScaleB ? *J->ScaleB : 1.0f;
    for (int64_t B = 0; B < J->Batch; ++B) {
      for (int64_t Col = 0; Col < J->ACols; ++Col)
        for (int64_t Row = 0; Row < J->ARows; ++Row)
          J->ScratchA[(B * J->ACols + Col) * J->ARows + Row] =
              Sa * loadF(J->A, J->AType, B * J->StrideA + Col * J->Lda + Row);
      for (int64_t Col = 0; Col < J->BCols; ++Col)
        for (int64_t Row = 0; Row < J->BRows; ++Row)
          J->ScratchB[(B * J->BCols + Col) * J->BRows + Row] =
              Sb * loadF(J->B, J->BType, B * J->StrideB + Col * J->Ldb + Row);
    }
  }
  float Sc = J->ScaleC ? *J->ScaleC : 1.0f;
  if (J->VectorAlpha)
    return; // C is added in the epilogue, with its per-row beta.
  if (J->BetaZero || (J->DeviceBeta && *J->DeviceBeta == 0.0f)) {
    std::fill(J->Scratch, J->Scratch + J->M * J->N * J->Batch, 0.0f);
    return;
  }
  for (int64_t B = 0; B < J->Batch; ++B)
    for (int64_t Col = 0; Col < J->N; ++Col)
      for (int64_t Row = 0; Row < J->M; ++Row)
        J->Scratch[(B * J->N + Col) * J->M + Row] = Sc * loadF(J->C, J->CType, B * J->StrideC + Col * J->Ldc + Row);
}

void epilogue(void *P) {
  auto *J = static_cast<EpilogueJob *>(P);
  uint32_t E = J->Epilogue;
  bool AddBias = E == CUBLASLT_EPILOGUE_BIAS || E == CUBLASLT_EPILOGUE_RELU_BIAS || E == CUBLASLT_EPILOGUE_GELU_BIAS ||
                 E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS || E == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  bool Relu = E == CUBLASLT_EPILOGUE_RELU || E == CUBLASLT_EPILOGUE_RELU_BIAS || E == CUBLASLT_EPILOGUE_RELU_AUX ||
              E == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  bool Gelu = E == CUBLASLT_EPILOGUE_GELU || E == CUBLASLT_EPILOGUE_GELU_BIAS || E == CUBLASLT_EPILOGUE_GELU_AUX ||
              E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  bool StoreAux = E == CUBLASLT_EPILOGUE_GELU_AUX || E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  bool DGelu = E == CUBLASLT_EPILOGUE_DGELU || E == CUBLASLT_EPILOGUE_DGELU_BGRAD;
  bool BGradD = E == CUBLASLT_EPILOGUE_DGELU_BGRAD || E == CUBLASLT_EPILOGUE_DRELU_BGRAD;
  // ReLU's aux is a bitmask: bit B * AuxStride + Col * AuxLd + Row (both in
  // bits) of the byte array, set where the pre-activation is >= 0 (the
  // H100 sets it for exact zeros too). Only the bits of D's elements are
  // written; the rest keep what the caller left there, as on the H100.
  bool ReluMask = E == CUBLASLT_EPILOGUE_RELU_AUX || E == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  bool DRelu = E == CUBLASLT_EPILOGUE_DRELU || E == CUBLASLT_EPILOGUE_DRELU_BGRAD;
  auto *MaskBytes = static_cast<uint8_t *>(J->Aux);
  float Sd = J->ScaleD ? *J->ScaleD : 1.0f, Amax = 0;
  for (int64_t B = 0; B < J->Batch; ++B) {
    for (int64_t Row = 0; Row < J->M; ++Row) {
      float RowSum = 0;
      for (int64_t Col = 0; Col < J->N; ++Col) {
        float V = J->Scratch[(B * J->N + Col) * J->M + Row];
        if (J->VectorAlpha) {
          V *= J->AlphaVec[B * J->AlphaVecStride + Row];
          float Be = J->BetaVec ? J->BetaVec[B * J->AlphaVecStride + Row] : J->BetaHost;
          if (Be != 0)
            V += Be * loadF(J->C, J->CType, B * J->StrideC + Col * J->Ldc + Row);
        }
        if (AddBias)
          V += loadF(J->Bias, J->BiasType, B * J->BiasStride + Row);
        if (StoreAux && J->Aux)
          storeF(J->Aux, J->AuxType, B * J->AuxStride + Col * J->AuxLd + Row, V);
        int64_t Bit = B * J->AuxStride + Col * J->AuxLd + Row;
        if (ReluMask) {
          uint8_t Flag = (uint8_t)(1u << (Bit & 7));
          MaskBytes[Bit >> 3] = V >= 0 ? MaskBytes[Bit >> 3] | Flag : MaskBytes[Bit >> 3] & ~Flag;
        }
        if (DRelu && !((MaskBytes[Bit >> 3] >> (Bit & 7)) & 1))
          V = 0;
        if (Relu)
          V = V > 0 ? V : 0;
        if (Gelu)
          V = gelu(V);
        if (DGelu)
          V *= geluGrad(loadF(J->Aux, J->AuxType, B * J->AuxStride + Col * J->AuxLd + Row));
        RowSum += V;
        // amax is of the result before D's scale (what the next scale is
        // computed from).
        Amax = std::max(Amax, std::fabs(V));
        storeF(J->D, J->DType, B * J->StrideD + Col * J->Ldd + Row, V * Sd);
      }
      // DGELU_BGRAD/DRELU_BGRAD: the bias gradient is the row sum of the
      // activation's gradient.
      if (BGradD)
        storeF(const_cast<void *>(J->Bias), J->BiasType, B * J->BiasStride + Row, RowSum);
    }
    // BGRADA: bias[i] = sum over k of op(A)[i, k]; BGRADB: bias[j] = sum over
    // k of op(B)[k, j].
    if (E == CUBLASLT_EPILOGUE_BGRADA)
      for (int64_t I = 0; I < J->M; ++I) {
        float S = 0;
        for (int64_t Q = 0; Q < J->K; ++Q)
          S += loadF(J->A, J->AType, B * J->StrideA + (J->TransA ? I * J->Lda + Q : Q * J->Lda + I));
        storeF(const_cast<void *>(J->Bias), J->BiasType, B * J->BiasStride + I, S);
      }
    if (E == CUBLASLT_EPILOGUE_BGRADB)
      for (int64_t Col = 0; Col < J->N; ++Col) {
        float S = 0;
        for (int64_t Q = 0; Q < J->K; ++Q)
          S += loadF(J->B, J->BType, B * J->StrideB + (J->TransB ? Q * J->Ldb + Col : Col * J->Ldb + Q));
        storeF(const_cast<void *>(J->Bias), J->BiasType, B * J->BiasStride + Col, S);
      }
  }
  if (J->AmaxD)
    *J->AmaxD = Amax;
  std::free(J->Scratch);
  std::free(J->ScratchA);
  std::free(J->ScratchB);
  delete J;
}

} // namespace

// --- Handles, versions, logger. ---

extern "C" cublasStatus_t cublasLtCreate(cublasLtHandle_t *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *H = new (std::nothrow) cublasLtContext;
  if (!H)
    return CUBLAS_STATUS_ALLOC_FAILED;
  if (cublasStatus_t S = cublasCreate_v2(&H->Blas); S != CUBLAS_STATUS_SUCCESS) {
    delete H;
    return S;
  }
  try {
    std::lock_guard<std::mutex> G(RegistryLock);
    registry().insert(H);
  } catch (const std::bad_alloc &) {
    cublasDestroy_v2(H->Blas);
    delete H;
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  *Out = H;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtDestroy(cublasLtHandle_t Hd) {
  cublasLtContext *H = lookup(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  {
    std::lock_guard<std::mutex> G(RegistryLock);
    registry().erase(H);
  }
  cublasStatus_t S = cublasDestroy_v2(H->Blas);
  H->Magic = 0;
  delete H;
  return S;
}

extern "C" size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
extern "C" size_t cublasLtGetCudartVersion(void) { return 13000; }
extern "C" cublasStatus_t cublasLtGetProperty(libraryPropertyType T, int *V) { return cublasGetProperty(T, V); }
extern "C" const char *cublasLtGetStatusName(cublasStatus_t S) { return cublasGetStatusName(S); }
extern "C" const char *cublasLtGetStatusString(cublasStatus_t S) { return cublasGetStatusString(S); }
extern "C" cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasLtLoggerSetFile(FILE *) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasLtLoggerOpenFile(const char *) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasLtLoggerSetLevel(int L) {
  return L >= 0 && L <= 5 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
extern "C" cublasStatus_t cublasLtLoggerSetMask(int) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasLtLoggerForceDisable(void) { return CUBLAS_STATUS_SUCCESS; }
extern "C" cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *C) {
  if (!C)
    return CUBLAS_STATUS_INVALID_VALUE;
  *C = 0;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t) { return CUBLAS_STATUS_SUCCESS; }

// --- Matrix layouts. ---

extern "C" cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t L, size_t Size, cudaDataType T,
                                                           uint64_t Rows, uint64_t Cols, int64_t Ld) {
  if (!L || Size < sizeof(cublasLtMatrixLayoutOpaque_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(L, 0, sizeof(*L));
  auto *S = reinterpret_cast<LayoutState *>(L);
  *S = LayoutState{LayoutMagic, (uint32_t)T, Rows, Cols, Ld, CUBLASLT_ORDER_COL, 1, 0, 0, CUBLASLT_BATCH_MODE_STRIDED};
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *L, cudaDataType T, uint64_t Rows,
                                                     uint64_t Cols, int64_t Ld) {
  if (!L)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *P = new (std::nothrow) cublasLtMatrixLayoutOpaque_t;
  if (!P)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtMatrixLayoutInit_internal(P, sizeof(*P), T, Rows, Cols, Ld);
  *L = P;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t L) {
  if (!state<LayoutState>(L, LayoutMagic))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete L;
  return CUBLAS_STATUS_SUCCESS;
}

/// Each layout attribute: its field and size.
#define LAYOUT_FIELDS(X)                                                                           \
  X(CUBLASLT_MATRIX_LAYOUT_TYPE, Type)                                                             \
  X(CUBLASLT_MATRIX_LAYOUT_ORDER, Order)                                                           \
  X(CUBLASLT_MATRIX_LAYOUT_ROWS, Rows)                                                             \
  X(CUBLASLT_MATRIX_LAYOUT_COLS, Cols)                                                             \
  X(CUBLASLT_MATRIX_LAYOUT_LD, Ld)                                                                 \
  X(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, Batch)                                                     \
  X(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, Stride)                                           \
  X(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, PlaneOffset)                                              \
  X(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, BatchMode)

extern "C" cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t L,
                                                           cublasLtMatrixLayoutAttribute_t A, const void *Buf,
                                                           size_t Size) {
  LayoutState *S = state<LayoutState>(L, LayoutMagic);
  if (!S || !Buf)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (A) {
#define SET(ATTR, FIELD)                                                                           \
  case ATTR:                                                                                       \
    if (Size != sizeof(S->FIELD))                                                                  \
      return CUBLAS_STATUS_INVALID_VALUE;                                                          \
    std::memcpy(&S->FIELD, Buf, Size);                                                             \
    return CUBLAS_STATUS_SUCCESS;
    LAYOUT_FIELDS(SET)
#undef SET
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}
extern "C" cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t L,
                                                           cublasLtMatrixLayoutAttribute_t A, void *Buf, size_t Size,
                                                           size_t *Written) {
  LayoutState *S = state<LayoutState>(L, LayoutMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (A) {
#define GET(ATTR, FIELD)                                                                           \
  case ATTR:                                                                                       \
    if (Written)                                                                                   \
      *Written = sizeof(S->FIELD);                                                                 \
    if (Size == 0 && Written)                                                                      \
      return CUBLAS_STATUS_SUCCESS;                                                                \
    if (!Buf || Size < sizeof(S->FIELD))                                                           \
      return CUBLAS_STATUS_INVALID_VALUE;                                                          \
    std::memcpy(Buf, &S->FIELD, sizeof(S->FIELD));                                                \
    return CUBLAS_STATUS_SUCCESS;
    LAYOUT_FIELDS(GET)
#undef GET
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

// --- Matmul descriptors. ---

extern "C" cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t D, size_t Size,
                                                          cublasComputeType_t Compute, cudaDataType_t Scale) {
  if (!D || Size < sizeof(cublasLtMatmulDescOpaque_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(D, 0, sizeof(*D));
  auto *S = reinterpret_cast<DescState *>(D);
  S->Magic = DescMagic;
  uint32_t C = Compute, Sc = Scale;
  setSlot(*S, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &C, 4);
  setSlot(*S, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &Sc, 4);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *D, cublasComputeType_t Compute,
                                                   cudaDataType_t Scale) {
  if (!D)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *P = new (std::nothrow) cublasLtMatmulDescOpaque_t;
  if (!P)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtMatmulDescInit_internal(P, sizeof(*P), Compute, Scale);
  *D = P;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t D) {
  if (!state<DescState>(D, DescMagic))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete D;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t D, cublasLtMatmulDescAttributes_t A,
                                                         const void *Buf, size_t Size) {
  DescState *S = state<DescState>(D, DescMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  return setSlot(*S, A, Buf, Size);
}
extern "C" cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t D, cublasLtMatmulDescAttributes_t A,
                                                         void *Buf, size_t Size, size_t *Written) {
  DescState *S = state<DescState>(D, DescMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t V;
  size_t N;
  descDefault(A, V, N);
  return getSlot(*S, A, Buf, Size, Written, V, N);
}

// --- Preferences. ---

extern "C" cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t P, size_t Size) {
  if (!P || Size < sizeof(cublasLtMatmulPreferenceOpaque_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(P, 0, sizeof(*P));
  reinterpret_cast<PrefState *>(P)->Magic = PrefMagic;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *P) {
  if (!P)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *Q = new (std::nothrow) cublasLtMatmulPreferenceOpaque_t;
  if (!Q)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtMatmulPreferenceInit_internal(Q, sizeof(*Q));
  *P = Q;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t P) {
  if (!state<PrefState>(P, PrefMagic))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete P;
  return CUBLAS_STATUS_SUCCESS;
}
/// The CPU code needs no workspace and has one algorithm: preferences are
/// kept (the first three set) and reported back, and change nothing.
extern "C" cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t P,
                                                               cublasLtMatmulPreferenceAttributes_t A,
                                                               const void *Buf, size_t Size) {
  PrefState *S = state<PrefState>(P, PrefMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  cublasStatus_t St = setSlot(*S, A, Buf, Size);
  return St == CUBLAS_STATUS_NOT_SUPPORTED ? CUBLAS_STATUS_SUCCESS : St;
}
extern "C" cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t P,
                                                               cublasLtMatmulPreferenceAttributes_t A, void *Buf,
                                                               size_t Size, size_t *Written) {
  PrefState *S = state<PrefState>(P, PrefMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  return getSlot(*S, A, Buf, Size, Written, 0, A == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ? 8 : 4);
}

// --- Matmul. ---

namespace {

struct Plan {
  cublasOperation_t Ta, Tb;
  int64_t M, N, K, Batch;
  const LayoutState *A, *B, *C, *D;
  uint32_t Compute, Scale, Epilogue, PointerMode;
  bool Convert; // FP8 data or per-tensor scales: operands go through FP32 copies.
  bool RowOrder; // Some matrix is CUBLASLT_ORDER_ROW: a plain GEMM only (cublasLtMatmul).
  bool PointerArray; // A, B, C, D are device arrays of Batch pointers: a plain GEMM only.
};

/// op(X) on a row-major matrix is the flipped op on its column-major view
/// (the transpose, same leading dimension); a conjugate without transpose
/// has no cuBLAS op, hence false.
bool flipOp(cublasOperation_t &Op) {
  if (Op == CUBLAS_OP_N)
    Op = CUBLAS_OP_T;
  else if (Op == CUBLAS_OP_T)
    Op = CUBLAS_OP_N;
  else
    return false;
  return true;
}

bool reluMaskEpilogue(uint32_t E) {
  return E == CUBLASLT_EPILOGUE_RELU_AUX || E == CUBLASLT_EPILOGUE_RELU_AUX_BIAS || E == CUBLASLT_EPILOGUE_DRELU ||
         E == CUBLASLT_EPILOGUE_DRELU_BGRAD;
}

/// Logs once per kind of layout ferry does not implement.
void logUnsupportedOrder(int32_t Order) {
  static std::mutex Lock;
  static std::unordered_set<int32_t> Seen;
  std::lock_guard<std::mutex> G(Lock);
  if (Seen.insert(Order).second)
    logMessage("matrix layouts of CUBLASLT_MATRIX_LAYOUT_ORDER %d (tiled orders) are not implemented; "
               "returning CUBLAS_STATUS_NOT_SUPPORTED",
               (int)Order);
}

/// Whether a host scalar of the scale type is zero.
bool hostScalarIsZero(const void *V, uint32_t Scale) {
  switch (Scale) {
  case CUDA_R_64F:
    return *static_cast<const double *>(V) == 0;
  case CUDA_C_32F:
    return static_cast<const float *>(V)[0] == 0 && static_cast<const float *>(V)[1] == 0;
  case CUDA_C_64F:
    return static_cast<const double *>(V)[0] == 0 && static_cast<const double *>(V)[1] == 0;
  case CUDA_R_32I:
    return *static_cast<const int32_t *>(V) == 0;
  case CUDA_R_16F:
    return (*static_cast<const uint16_t *>(V) & 0x7fff) == 0;
  default:
    return *static_cast<const float *>(V) == 0;
  }
}

/// C copied into D in stream order (same type and order): Runs contiguous
/// runs of RunLen elements per matrix, Ld apart; strided batches or, with
/// Arrays, device arrays of Batch matrix pointers read when the copy runs.
struct CopyJob {
  const void *C;
  void *D;
  size_t Elem;
  int64_t Runs, RunLen, Ldc, Ldd, StrideC, StrideD, Batch;
  bool Arrays;
};
void copyMatrices(void *P) {
  auto *J = static_cast<CopyJob *>(P);
  for (int64_t B = 0; B < J->Batch; ++B) {
    auto *Src = J->Arrays ? static_cast<const char *>(static_cast<const void *const *>(J->C)[B])
                          : static_cast<const char *>(J->C) + B * J->StrideC * J->Elem;
    auto *Dst = J->Arrays ? static_cast<char *>(static_cast<void *const *>(J->D)[B])
                          : static_cast<char *>(J->D) + B * J->StrideD * J->Elem;
    for (int64_t R = 0; R < J->Runs; ++R)
      std::memmove(Dst + R * J->Ldd * J->Elem, Src + R * J->Ldc * J->Elem, J->RunLen * J->Elem);
  }
  delete J;
}

/// Checks the descriptors and works out the problem; what ferry does not do
/// yet is CUBLAS_STATUS_NOT_SUPPORTED.
cublasStatus_t plan(cublasLtMatmulDesc_t Desc, cublasLtMatrixLayout_t Ad, cublasLtMatrixLayout_t Bd,
                    cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd, Plan &P) {
  DescState *S = state<DescState>(Desc, DescMagic);
  P.A = state<LayoutState>(Ad, LayoutMagic);
  P.B = state<LayoutState>(Bd, LayoutMagic);
  P.C = state<LayoutState>(Cd, LayoutMagic);
  P.D = Dd ? state<LayoutState>(Dd, LayoutMagic) : P.C;
  if (!S || !P.A || !P.B || !P.C || !P.D)
    return CUBLAS_STATUS_INVALID_VALUE;
  P.Ta = (cublasOperation_t)slotOr(*S, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N);
  P.Tb = (cublasOperation_t)slotOr(*S, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  P.Compute = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, CUBLAS_COMPUTE_32F);
  P.Scale = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_SCALE_TYPE, CUDA_R_32F);
  P.Epilogue = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
  P.PointerMode = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST);
  auto fp8 = [](uint32_t T) { return T == CUDA_R_8F_E4M3 || T == CUDA_R_8F_E5M2; };
  bool Scaled = slotOr(*S, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, 0) ||
                slotOr(*S, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, 0) ||
                slotOr(*S, CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, 0) ||
                slotOr(*S, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, 0) || slotOr(*S, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, 0);
  P.Convert = Scaled || fp8(P.A->Type) || fp8(P.B->Type) || fp8(P.C->Type) || fp8(P.D->Type);
  // Per-tensor scalar scales only (no block or vector scaling modes).
  for (uint32_t M : {CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                     CUBLASLT_MATMUL_DESC_C_SCALE_MODE, CUBLASLT_MATMUL_DESC_D_SCALE_MODE})
    if (slotOr(*S, M, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
      return CUBLAS_STATUS_NOT_SUPPORTED;
  if (slotOr(*S, CUBLASLT_MATMUL_DESC_TRANSC, CUBLAS_OP_N) != CUBLAS_OP_N ||
      P.PointerMode > CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  P.RowOrder = false;
  for (const LayoutState *L : {P.A, P.B, P.C, P.D}) {
    if (L->Order != CUBLASLT_ORDER_COL && L->Order != CUBLASLT_ORDER_ROW) {
      // COL32's leading dimension is the stride between 32-column tiles,
      // at least 32 rows' worth (the H100 refuses less with INVALID_VALUE).
      if (L->Order == CUBLASLT_ORDER_COL32 && L->Ld < 32 * (int64_t)L->Rows)
        return CUBLAS_STATUS_INVALID_VALUE;
      logUnsupportedOrder(L->Order);
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    P.RowOrder |= L->Order == CUBLASLT_ORDER_ROW;
  }
  // C and D share an order (the H100: INVALID_VALUE otherwise).
  if (P.C->Order != P.D->Order)
    return CUBLAS_STATUS_INVALID_VALUE;
  // Pointer-array batches: all four matrices alike, for a plain GEMM.
  P.PointerArray = P.D->BatchMode == CUBLASLT_BATCH_MODE_POINTER_ARRAY;
  for (const LayoutState *L : {P.A, P.B, P.C, P.D})
    if (L->BatchMode != P.D->BatchMode ||
        (L->BatchMode != CUBLASLT_BATCH_MODE_STRIDED && L->BatchMode != CUBLASLT_BATCH_MODE_POINTER_ARRAY))
      return CUBLAS_STATUS_NOT_SUPPORTED;
  if (P.PointerArray &&
      (P.Convert || P.C->Type != P.D->Type || P.PointerMode > CUBLASLT_POINTER_MODE_DEVICE ||
       slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT) != CUBLASLT_EPILOGUE_DEFAULT))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  // Row order (XLA's layouts) for a plain GEMM: no epilogue (the H100's
  // cuBLASLt 13 refuses every epilogue with a row-major matrix too), scales,
  // conversions or vector alpha, and no conjugate an odd number of order
  // changes would strip of its transpose.
  if (P.RowOrder) {
    bool RowD = P.D->Order == CUBLASLT_ORDER_ROW;
    cublasOperation_t Ta = P.Ta, Tb = P.Tb;
    bool OpsOk = ((P.A->Order == CUBLASLT_ORDER_ROW) == RowD || flipOp(Ta)) &&
                 ((P.B->Order == CUBLASLT_ORDER_ROW) == RowD || flipOp(Tb));
    if (!OpsOk || P.Convert || P.C->Type != P.D->Type ||
        slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT) != CUBLASLT_EPILOGUE_DEFAULT ||
        P.PointerMode > CUBLASLT_POINTER_MODE_DEVICE)
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  P.M = (int64_t)P.D->Rows;
  P.N = (int64_t)P.D->Cols;
  P.K = (int64_t)(P.Ta == CUBLAS_OP_N ? P.A->Cols : P.A->Rows);
  int64_t Am = P.Ta == CUBLAS_OP_N ? P.A->Rows : P.A->Cols;
  int64_t Bk = P.Tb == CUBLAS_OP_N ? P.B->Rows : P.B->Cols, Bn = P.Tb == CUBLAS_OP_N ? P.B->Cols : P.B->Rows;
  if (Am != P.M || Bk != P.K || Bn != P.N || P.C->Rows != P.D->Rows || P.C->Cols != P.D->Cols)
    return CUBLAS_STATUS_INVALID_VALUE;
  P.Batch = P.D->Batch;
  for (const LayoutState *L : {P.A, P.B, P.C})
    if (L->Batch != P.Batch)
      return CUBLAS_STATUS_INVALID_VALUE;
  uint32_t E = P.Epilogue;
  bool Known = E == CUBLASLT_EPILOGUE_DEFAULT || E == CUBLASLT_EPILOGUE_RELU || E == CUBLASLT_EPILOGUE_BIAS ||
               E == CUBLASLT_EPILOGUE_RELU_BIAS || E == CUBLASLT_EPILOGUE_GELU || E == CUBLASLT_EPILOGUE_GELU_BIAS ||
               E == CUBLASLT_EPILOGUE_GELU_AUX || E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
               E == CUBLASLT_EPILOGUE_DGELU || E == CUBLASLT_EPILOGUE_DGELU_BGRAD || E == CUBLASLT_EPILOGUE_BGRADA ||
               E == CUBLASLT_EPILOGUE_BGRADB || reluMaskEpilogue(E);
  if (!Known)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  // The ReLU mask's leading dimension, in bits: set, a multiple of 128 and
  // at least D's rows (else INVALID_VALUE, heuristic and matmul alike, as
  // on the H100). Its pointer's alignment and batch stride are not checked:
  // the H100 took +4-byte pointers and a 448-bit stride.
  if (reluMaskEpilogue(E)) {
    int64_t AuxLd = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, 0);
    if (AuxLd <= 0 || AuxLd % 128 != 0 || AuxLd < P.M)
      return CUBLAS_STATUS_INVALID_VALUE;
  }
  // GELU's aux (elements of D's type): its leading dimension must be set
  // and at least D's rows; any value from there on passes (M+1 included),
  // as on the H100 (apps/cublaslt_gelu).
  if (E == CUBLASLT_EPILOGUE_GELU_AUX || E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS || E == CUBLASLT_EPILOGUE_DGELU ||
      E == CUBLASLT_EPILOGUE_DGELU_BGRAD) {
    int64_t AuxLd = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, 0);
    if (AuxLd <= 0 || AuxLd < P.M)
      return CUBLAS_STATUS_INVALID_VALUE;
  }
  // The bias gradients reduce an operand the kernel reads along K: the
  // H100's cuBLASLt 13 takes BGRADA only with op(A) = N and BGRADB only
  // with op(B) = T (FP32 and BF16, heuristic and matmul alike).
  if ((E == CUBLASLT_EPILOGUE_BGRADA && P.Ta != CUBLAS_OP_N) || (E == CUBLASLT_EPILOGUE_BGRADB && P.Tb == CUBLAS_OP_N))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  // The epilogue path computes in FP32: FP32 compute and scale, real types.
  bool Fused = E != CUBLASLT_EPILOGUE_DEFAULT;
  auto realFp = [&](uint32_t T) { return T == CUDA_R_32F || T == CUDA_R_16F || T == CUDA_R_16BF || fp8(T); };
  if ((Fused || P.Convert) && (P.Scale != CUDA_R_32F || !realFp(P.C->Type) || !realFp(P.D->Type)))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (P.Convert && (!realFp(P.A->Type) || !realFp(P.B->Type)))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Desc,
                                                         cublasLtMatrixLayout_t Ad, cublasLtMatrixLayout_t Bd,
                                                         cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd,
                                                         cublasLtMatmulPreference_t, int Requested,
                                                         cublasLtMatmulHeuristicResult_t *Results, int *Returned) {
  if (!lookup(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Requested <= 0 || !Results || !Returned)
    return CUBLAS_STATUS_INVALID_VALUE;
  Plan P;
  if (cublasStatus_t S = plan(Desc, Ad, Bd, Cd, Dd, P); S != CUBLAS_STATUS_SUCCESS) {
    *Returned = 0;
    return S;
  }
  // One algorithm, needing no workspace.
  std::memset(&Results[0], 0, sizeof(Results[0]));
  Results[0].algo.data[0] = 0x6665727279; // "ferry": any algo from here is accepted by Matmul
  Results[0].state = CUBLAS_STATUS_SUCCESS;
  Results[0].wavesCount = 1.0f;
  *Returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtMatmul(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Desc, const void *Alpha,
                                         const void *A, cublasLtMatrixLayout_t Ad, const void *B,
                                         cublasLtMatrixLayout_t Bd, const void *Beta, const void *C,
                                         cublasLtMatrixLayout_t Cd, void *D, cublasLtMatrixLayout_t Dd,
                                         const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t Stream) {
  cublasLtContext *H = lookup(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  Plan P;
  if (cublasStatus_t S = plan(Desc, Ad, Bd, Cd, Dd, P); S != CUBLAS_STATUS_SUCCESS)
    return S;
  if (!Alpha || (!Beta && P.PointerMode != CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (P.M == 0 || P.N == 0 || P.Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (P.M > INT32_MAX || P.N > INT32_MAX || P.K > INT32_MAX || P.Batch > INT32_MAX)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  DescState *S = state<DescState>(Desc, DescMagic);
  std::lock_guard<std::mutex> G(H->Lock);
  cublasSetStream_v2(H->Blas, Stream);
  bool VectorAlpha = P.PointerMode > CUBLASLT_POINTER_MODE_DEVICE;
  if (VectorAlpha && P.Scale != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  // With a vector alpha the product is taken with host scalars 1 and 0.
  static const float OneF = 1.0f, ZeroF = 0.0f;
  const void *GemmAlpha = VectorAlpha ? &OneF : Alpha;
  cublasSetPointerMode_v2(H->Blas, VectorAlpha ? CUBLAS_POINTER_MODE_HOST : (cublasPointerMode_t)P.PointerMode);
  // The product on (A, B) as given, or on their FP32 copies.
  const void *GA = A, *GB = B;
  cudaDataType GAt = (cudaDataType)P.A->Type, GBt = (cudaDataType)P.B->Type;
  int64_t GLda = P.A->Ld, GLdb = P.B->Ld, GSa = P.A->Stride, GSb = P.B->Stride;
  auto gemm = [&](const void *Be, void *Out, cudaDataType OutType, int64_t Ldo, int64_t StrideO) {
    return cublasGemmStridedBatchedEx(H->Blas, P.Ta, P.Tb, (int)P.M, (int)P.N, (int)P.K, GemmAlpha, GA, GAt, (int)GLda,
                                      GSa, GB, GBt, (int)GLdb, GSb, Be, Out, OutType, (int)Ldo, StrideO, (int)P.Batch,
                                      P.Convert ? CUBLAS_COMPUTE_32F : (cublasComputeType_t)P.Compute,
                                      CUBLAS_GEMM_DEFAULT);
  };
  bool Fused = P.Epilogue != CUBLASLT_EPILOGUE_DEFAULT;
  bool SameCD = C == D && P.C->Type == P.D->Type && P.C->Ld == P.D->Ld && P.C->Stride == P.D->Stride;
  if (P.RowOrder || P.PointerArray) {
    // A plain GEMM of any orders (C's is D's) or on pointer arrays: C
    // distinct from D is copied into D first (unless beta is a host zero),
    // then the product accumulates there.
    if (!SameCD && !(P.PointerMode == CUBLASLT_POINTER_MODE_HOST && hostScalarIsZero(Beta, P.Scale))) {
      if (!C)
        return CUBLAS_STATUS_INVALID_VALUE;
      const Driver *Dr = driver();
      if (!Dr)
        return CUBLAS_STATUS_NOT_INITIALIZED;
      bool RowC = P.C->Order == CUBLASLT_ORDER_ROW;
      auto *J = new (std::nothrow) CopyJob{C, D, elemSize(P.D->Type), RowC ? P.M : P.N, RowC ? P.N : P.M,
                                           P.C->Ld, P.D->Ld, P.C->Stride, P.D->Stride, P.Batch, P.PointerArray};
      if (!J)
        return CUBLAS_STATUS_ALLOC_FAILED;
      ensureContext(*Dr);
      if (hostWorkRefused(*H)) {
        delete J;
        return CUBLAS_STATUS_NOT_SUPPORTED;
      }
      if (Dr->LaunchHostFunc(Stream, copyMatrices, J) != CUDA_SUCCESS) {
        delete J;
        return CUBLAS_STATUS_EXECUTION_FAILED;
      }
    }
    // Each row-major operand is read as its column-major transpose (op
    // flipped); a row-major D is computed as D^T = op(B)^T op(A)^T, B first,
    // every op flipped once more.
    bool RowD = P.D->Order == CUBLASLT_ORDER_ROW;
    cublasOperation_t Ta = P.Ta, Tb = P.Tb;
    if ((P.A->Order == CUBLASLT_ORDER_ROW) != RowD)
      flipOp(Ta);
    if ((P.B->Order == CUBLASLT_ORDER_ROW) != RowD)
      flipOp(Tb);
    auto Compute = (cublasComputeType_t)P.Compute;
    auto Dt = (cudaDataType)P.D->Type;
    if (P.PointerArray) {
      auto *Aa = static_cast<const void *const *>(A), *Ba = static_cast<const void *const *>(B);
      auto *Da = static_cast<void *const *>(D);
      if (RowD)
        return cublasGemmBatchedEx(H->Blas, Tb, Ta, (int)P.N, (int)P.M, (int)P.K, GemmAlpha, Ba, GBt, (int)GLdb, Aa,
                                   GAt, (int)GLda, Beta, Da, Dt, (int)P.D->Ld, (int)P.Batch, Compute,
                                   CUBLAS_GEMM_DEFAULT);
      return cublasGemmBatchedEx(H->Blas, Ta, Tb, (int)P.M, (int)P.N, (int)P.K, GemmAlpha, Aa, GAt, (int)GLda, Ba, GBt,
                                 (int)GLdb, Beta, Da, Dt, (int)P.D->Ld, (int)P.Batch, Compute, CUBLAS_GEMM_DEFAULT);
    }
    if (RowD)
      return cublasGemmStridedBatchedEx(H->Blas, Tb, Ta, (int)P.N, (int)P.M, (int)P.K, GemmAlpha, B, GBt, (int)GLdb,
                                        GSb, A, GAt, (int)GLda, GSa, Beta, D, Dt, (int)P.D->Ld, P.D->Stride,
                                        (int)P.Batch, Compute, CUBLAS_GEMM_DEFAULT);
    return cublasGemmStridedBatchedEx(H->Blas, Ta, Tb, (int)P.M, (int)P.N, (int)P.K, GemmAlpha, A, GAt, (int)GLda, GSa,
                                      B, GBt, (int)GLdb, GSb, Beta, D, Dt, (int)P.D->Ld, P.D->Stride, (int)P.Batch,
                                      Compute, CUBLAS_GEMM_DEFAULT);
  }
  bool BetaZero = P.PointerMode == CUBLASLT_POINTER_MODE_HOST && P.Scale == CUDA_R_32F && *(const float *)Beta == 0;
  if (!Fused && !P.Convert && !VectorAlpha && P.C->Type == P.D->Type && (SameCD || BetaZero))
    return gemm(Beta, D, (cudaDataType)P.D->Type, P.D->Ld, P.D->Stride);
  if (P.Scale != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED; // C != D with other scale types: not yet.
  // FP32 scratch (host memory is device memory on the host backend): C
  // there first, the product on it, then the epilogue into D.
  const Driver *Dr = driver();
  if (!Dr)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  auto *J = new (std::nothrow) EpilogueJob;
  size_t Elems = (size_t)P.M * P.N * P.Batch;
  float *Scratch = J ? static_cast<float *>(std::malloc(Elems * sizeof(float))) : nullptr;
  if (!Scratch) {
    delete J;
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  *J = EpilogueJob{Scratch, P.M, P.N, P.Batch, C, P.C->Type, P.C->Ld, P.C->Stride, D, P.D->Type, P.D->Ld,
                   P.D->Stride, P.Epilogue};
  J->Bias = reinterpret_cast<const void *>(slotOr(*S, CUBLASLT_MATMUL_DESC_BIAS_POINTER, 0));
  uint32_t BiasType = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, (uint32_t)-1);
  J->BiasType = BiasType == (uint32_t)-1 ? P.D->Type : BiasType;
  J->BiasStride = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, 0);
  J->Aux = reinterpret_cast<void *>(slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, 0));
  uint32_t AuxType = (uint32_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, (uint32_t)-1);
  J->AuxType = AuxType == (uint32_t)-1 ? P.D->Type : AuxType;
  J->AuxLd = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, P.M);
  J->AuxStride = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, 0);
  J->A = A;
  J->B = B;
  J->AType = P.A->Type;
  J->BType = P.B->Type;
  J->Lda = P.A->Ld;
  J->Ldb = P.B->Ld;
  J->StrideA = P.A->Stride;
  J->StrideB = P.B->Stride;
  J->K = P.K;
  J->TransA = P.Ta != CUBLAS_OP_N;
  J->TransB = P.Tb != CUBLAS_OP_N;
  uint32_t E = P.Epilogue;
  bool NeedsBias = E == CUBLASLT_EPILOGUE_BIAS || E == CUBLASLT_EPILOGUE_RELU_BIAS ||
                   E == CUBLASLT_EPILOGUE_GELU_BIAS || E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
                   E == CUBLASLT_EPILOGUE_DGELU_BGRAD || E == CUBLASLT_EPILOGUE_BGRADA || E == CUBLASLT_EPILOGUE_BGRADB ||
                   E == CUBLASLT_EPILOGUE_RELU_AUX_BIAS || E == CUBLASLT_EPILOGUE_DRELU_BGRAD;
  bool NeedsAux = E == CUBLASLT_EPILOGUE_DGELU || E == CUBLASLT_EPILOGUE_DGELU_BGRAD;
  bool SavesAux = E == CUBLASLT_EPILOGUE_GELU_AUX || E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  if ((NeedsBias && !J->Bias) || (NeedsAux && !J->Aux) || ((reluMaskEpilogue(E) || SavesAux) && !J->Aux)) {
    std::free(Scratch);
    delete J;
    // A ReLU mask or a GELU aux to save without its buffer: NOT_SUPPORTED
    // from the H100's matmul (its heuristic accepts it).
    return reluMaskEpilogue(E) || SavesAux ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_INVALID_VALUE;
  }
  J->BetaZero = BetaZero;
  if (P.PointerMode == CUBLASLT_POINTER_MODE_DEVICE && P.Scale == CUDA_R_32F)
    J->DeviceBeta = static_cast<const float *>(Beta);
  if (VectorAlpha) {
    J->VectorAlpha = true;
    J->AlphaVec = static_cast<const float *>(Alpha);
    J->AlphaVecStride = (int64_t)slotOr(*S, CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, 0);
    if (P.PointerMode == CUBLASLT_POINTER_MODE_DEVICE_VECTOR)
      J->BetaVec = static_cast<const float *>(Beta);
    else if (P.PointerMode == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST)
      J->BetaHost = *static_cast<const float *>(Beta);
  }
  if (P.Convert) {
    J->ScaleA = reinterpret_cast<const float *>(slotOr(*S, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, 0));
    J->ScaleB = reinterpret_cast<const float *>(slotOr(*S, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, 0));
    J->ScaleC = reinterpret_cast<const float *>(slotOr(*S, CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, 0));
    J->ScaleD = reinterpret_cast<const float *>(slotOr(*S, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, 0));
    J->AmaxD = reinterpret_cast<float *>(slotOr(*S, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, 0));
    J->ARows = (int64_t)P.A->Rows;
    J->ACols = (int64_t)P.A->Cols;
    J->BRows = (int64_t)P.B->Rows;
    J->BCols = (int64_t)P.B->Cols;
    J->ScratchA = static_cast<float *>(std::malloc(sizeof(float) * std::max<int64_t>(1, J->ARows * J->ACols * P.Batch)));
    J->ScratchB = static_cast<float *>(std::malloc(sizeof(float) * std::max<int64_t>(1, J->BRows * J->BCols * P.Batch)));
    if (!J->ScratchA || !J->ScratchB) {
      std::free(J->ScratchA);
      std::free(J->ScratchB);
      std::free(Scratch);
      delete J;
      return CUBLAS_STATUS_ALLOC_FAILED;
    }
    GA = J->ScratchA;
    GB = J->ScratchB;
    GAt = GBt = CUDA_R_32F;
    GLda = std::max<int64_t>(1, J->ARows);
    GLdb = std::max<int64_t>(1, J->BRows);
    GSa = J->ARows * J->ACols;
    GSb = J->BRows * J->BCols;
  }
  ensureContext(*Dr);
  bool Refused = hostWorkRefused(*H);
  if (Refused || Dr->LaunchHostFunc(Stream, prologue, J) != CUDA_SUCCESS) {
    std::free(J->ScratchA);
    std::free(J->ScratchB);
    std::free(Scratch);
    delete J;
    return Refused ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_EXECUTION_FAILED;
  }
  // From here the job belongs to the stream: the epilogue frees it.
  cublasStatus_t St = gemm(VectorAlpha ? &ZeroF : Beta, Scratch, CUDA_R_32F, P.M, P.M * P.N);
  if (St != CUBLAS_STATUS_SUCCESS)
    J->Epilogue = CUBLASLT_EPILOGUE_DEFAULT; // Still release it in order.
  if (Dr->LaunchHostFunc(Stream, epilogue, J) != CUDA_SUCCESS)
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return St;
}

/// Stubs report through this hook (see the generated CublasLtStubs.cpp).
extern "C" __attribute__((visibility("hidden"))) void ferryCublasLtNotImplemented(const char *Name) {
  logMessage("%s is not implemented; returning CUBLAS_STATUS_NOT_SUPPORTED", Name);
}

// --- Algorithms: ferry has one (id 0), with every capability its CPU code
// has; its configuration attributes are kept in the algo's storage. ---

namespace {
constexpr uint64_t AlgoMarker = 0x6665727279; // "ferry", in data[0]

/// Configuration attributes 0..13, as uint32 in data[1..7].
uint32_t *configSlots(cublasLtMatmulAlgo_t *A) { return reinterpret_cast<uint32_t *>(&A->data[1]); }
const uint32_t *configSlots(const cublasLtMatmulAlgo_t *A) { return reinterpret_cast<const uint32_t *>(&A->data[1]); }

cublasStatus_t answer(const void *Value, size_t N, void *Buf, size_t Size, size_t *Written) {
  if (Written)
    *Written = N;
  if (Size == 0 && Written)
    return CUBLAS_STATUS_SUCCESS;
  if (!Buf || Size < N)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, Value, N);
  return CUBLAS_STATUS_SUCCESS;
}
} // namespace

extern "C" cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t Hd, cublasComputeType_t, cudaDataType_t,
                                                   cudaDataType_t, cudaDataType_t, cudaDataType_t, cudaDataType_t,
                                                   int Requested, int *Ids, int *Returned) {
  if (!lookup(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Requested <= 0 || !Ids || !Returned)
    return CUBLAS_STATUS_INVALID_VALUE;
  Ids[0] = 0;
  *Returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t Hd, cublasComputeType_t, cudaDataType_t,
                                                 cudaDataType_t, cudaDataType_t, cudaDataType_t, cudaDataType_t,
                                                 int AlgoId, cublasLtMatmulAlgo_t *Algo) {
  if (!lookup(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Algo || AlgoId != 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(Algo, 0, sizeof(*Algo));
  Algo->data[0] = AlgoMarker;
  configSlots(Algo)[CUBLASLT_ALGO_CONFIG_SPLITK_NUM] = 1;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Desc,
                                                  cublasLtMatrixLayout_t Ad, cublasLtMatrixLayout_t Bd,
                                                  cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd,
                                                  const cublasLtMatmulAlgo_t *Algo,
                                                  cublasLtMatmulHeuristicResult_t *Result) {
  if (!lookup(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Algo || !Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  Plan P;
  if (cublasStatus_t S = plan(Desc, Ad, Bd, Cd, Dd, P); S != CUBLAS_STATUS_SUCCESS)
    return S;
  std::memset(Result, 0, sizeof(*Result));
  Result->algo = *Algo;
  Result->state = CUBLAS_STATUS_SUCCESS;
  Result->wavesCount = 1.0f;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *Algo,
                                                            cublasLtMatmulAlgoCapAttributes_t Attr, void *Buf,
                                                            size_t Size, size_t *Written) {
  if (!Algo)
    return CUBLAS_STATUS_INVALID_VALUE;
  int32_t One = 1, Zero = 0;
  uint32_t U0 = 0, Align = 1;
  uint32_t PointerModes = CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE;
  uint32_t Epilogues = CUBLASLT_EPILOGUE_DEFAULT | CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS |
                       CUBLASLT_EPILOGUE_GELU | 128 | 64 | 16 | 8 | CUBLASLT_EPILOGUE_BGRADA | CUBLASLT_EPILOGUE_BGRADB;
  uint64_t Impl = 0;
  switch (Attr) {
  case CUBLASLT_ALGO_CAP_SPLITK_SUPPORT:
  case CUBLASLT_ALGO_CAP_UPLO_SUPPORT:
  case CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX:
  case CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER:
  case CUBLASLT_ALGO_CAP_FLOATING_POINT_EMULATION_SUPPORT:
    return answer(&Zero, 4, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_POINTER_ARRAY_BATCH_SUPPORT:
  case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT:
  case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT:
  case CUBLASLT_ALGO_CAP_LD_NEGATIVE:
    return answer(Attr == CUBLASLT_ALGO_CAP_LD_NEGATIVE ? &Zero : &One, 4, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK:
  case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT:
    return answer(&U0, 4, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_TILE_IDS:
  case CUBLASLT_ALGO_CAP_STAGES_IDS:
    return answer(&U0, 4, Buf, Size, Written); // One id: UNDEFINED.
  case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK:
    return answer(&PointerModes, 4, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_EPILOGUE_MASK:
    return answer(&Epilogues, 4, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS:
    return answer(&Impl, 8, Buf, Size, Written);
  case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES:
  case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
  case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES:
  case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
    return answer(&Align, 4, Buf, Size, Written);
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

extern "C" cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *Algo,
                                                               cublasLtMatmulAlgoConfigAttributes_t Attr,
                                                               const void *Buf, size_t Size) {
  if (!Algo || !Buf || (unsigned)Attr > CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID || Size == 0 || Size > 4)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Attr == CUBLASLT_ALGO_CONFIG_ID) {
    int32_t Id = 0;
    std::memcpy(&Id, Buf, std::min<size_t>(Size, 4));
    if (Id != 0)
      return CUBLAS_STATUS_INVALID_VALUE;
  }
  uint32_t V = 0;
  std::memcpy(&V, Buf, Size);
  configSlots(Algo)[Attr] = V;
  return CUBLAS_STATUS_SUCCESS;
}

extern "C" cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *Algo,
                                                               cublasLtMatmulAlgoConfigAttributes_t Attr, void *Buf,
                                                               size_t Size, size_t *Written) {
  if (!Algo || (unsigned)Attr > CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint32_t V = configSlots(Algo)[Attr];
  size_t N = Attr == CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID || Attr == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID ? 2 : 4;
  return answer(&V, N, Buf, Size, Written);
}

// --- Emulation descriptors: kept and reported; ferry computes exactly. ---

namespace {
constexpr uint32_t EmuMagic = 0x456d754c, TransformMagic = 0x5472664c;
struct EmuState {
  uint32_t Magic, Count;
  Slot Slots[3];
};
static_assert(sizeof(EmuState) <= sizeof(cublasLtEmulationDescOpaque_t), "emulation state fits");
} // namespace

extern "C" cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t D, size_t Size) {
  if (!D || Size < sizeof(cublasLtEmulationDescOpaque_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(D, 0, sizeof(*D));
  reinterpret_cast<EmuState *>(D)->Magic = EmuMagic;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t *D) {
  if (!D)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *P = new (std::nothrow) cublasLtEmulationDescOpaque_t;
  if (!P)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtEmulationDescInit_internal(P, sizeof(*P));
  *D = P;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtEmulationDescDestroy(cublasLtEmulationDesc_t D) {
  if (!state<EmuState>(D, EmuMagic))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete D;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtEmulationDescSetAttribute(cublasLtEmulationDesc_t D,
                                                            cublasLtEmulationDescAttributes_t A, const void *Buf,
                                                            size_t Size) {
  EmuState *S = state<EmuState>(D, EmuMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  cublasStatus_t St = setSlot(*S, A, Buf, Size);
  return St == CUBLAS_STATUS_NOT_SUPPORTED ? CUBLAS_STATUS_SUCCESS : St;
}
extern "C" cublasStatus_t cublasLtEmulationDescGetAttribute(cublasLtEmulationDesc_t D,
                                                            cublasLtEmulationDescAttributes_t A, void *Buf,
                                                            size_t Size, size_t *Written) {
  EmuState *S = state<EmuState>(D, EmuMagic);
  if (!S)
    return CUBLAS_STATUS_INVALID_VALUE;
  return getSlot(*S, A, Buf, Size, Written, 0,
                 A == CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER ? 8 : 4);
}

// --- Matrix transforms: C = alpha op(A) + beta op(B), column order. ---

namespace {
struct TransformState {
  uint32_t Magic, ScaleType, PointerMode, TransA, TransB;
};
static_assert(sizeof(TransformState) <= sizeof(cublasLtMatrixTransformDescOpaque_t), "transform state fits");

struct TransformJob {
  const void *A, *B;
  void *C;
  LayoutState La, Lb, Lc;
  bool Ta, Tb;
  double Alpha, Beta;
  const void *AlphaPtr, *BetaPtr;
  uint32_t ScaleType;
};

double loadD(const void *P, uint32_t T, int64_t I) {
  return T == CUDA_R_64F ? static_cast<const double *>(P)[I] : (double)loadF(P, T, I);
}
void storeD(void *P, uint32_t T, int64_t I, double V) {
  if (T == CUDA_R_64F)
    static_cast<double *>(P)[I] = V;
  else
    storeF(P, T, I, (float)V);
}

void transform(void *P) {
  auto *J = static_cast<TransformJob *>(P);
  double Al = J->AlphaPtr ? loadD(J->AlphaPtr, J->ScaleType, 0) : J->Alpha;
  double Be = J->BetaPtr ? loadD(J->BetaPtr, J->ScaleType, 0) : J->Beta;
  for (int64_t Bi = 0; Bi < J->Lc.Batch; ++Bi)
    for (int64_t Col = 0; Col < (int64_t)J->Lc.Cols; ++Col)
      for (int64_t Row = 0; Row < (int64_t)J->Lc.Rows; ++Row) {
        double V = 0;
        if (Al != 0 && J->A)
          V += Al * loadD(J->A, J->La.Type, Bi * J->La.Stride + (J->Ta ? Row * J->La.Ld + Col : Col * J->La.Ld + Row));
        if (Be != 0 && J->B)
          V += Be * loadD(J->B, J->Lb.Type, Bi * J->Lb.Stride + (J->Tb ? Row * J->Lb.Ld + Col : Col * J->Lb.Ld + Row));
        storeD(J->C, J->Lc.Type, Bi * J->Lc.Stride + Col * J->Lc.Ld + Row, V);
      }
  delete J;
}
} // namespace

extern "C" cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t D, size_t Size,
                                                                   cudaDataType Scale) {
  if (!D || Size < sizeof(cublasLtMatrixTransformDescOpaque_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(D, 0, sizeof(*D));
  *reinterpret_cast<TransformState *>(D) = {TransformMagic, (uint32_t)Scale, CUBLASLT_POINTER_MODE_HOST, CUBLAS_OP_N,
                                            CUBLAS_OP_N};
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *D, cudaDataType Scale) {
  if (!D)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *P = new (std::nothrow) cublasLtMatrixTransformDescOpaque_t;
  if (!P)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtMatrixTransformDescInit_internal(P, sizeof(*P), Scale);
  *D = P;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t D) {
  if (!state<TransformState>(D, TransformMagic))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete D;
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t D,
                                                                  cublasLtMatrixTransformDescAttributes_t A,
                                                                  const void *Buf, size_t Size) {
  TransformState *S = state<TransformState>(D, TransformMagic);
  if (!S || !Buf || Size != 4)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint32_t *Fields[] = {&S->ScaleType, &S->PointerMode, &S->TransA, &S->TransB};
  if ((unsigned)A > CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Fields[A], Buf, 4);
  return CUBLAS_STATUS_SUCCESS;
}
extern "C" cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t D,
                                                                  cublasLtMatrixTransformDescAttributes_t A, void *Buf,
                                                                  size_t Size, size_t *Written) {
  TransformState *S = state<TransformState>(D, TransformMagic);
  if (!S || (unsigned)A > CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint32_t Fields[] = {S->ScaleType, S->PointerMode, S->TransA, S->TransB};
  return answer(&Fields[A], 4, Buf, Size, Written);
}

extern "C" cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t Hd, cublasLtMatrixTransformDesc_t Desc,
                                                  const void *Alpha, const void *A, cublasLtMatrixLayout_t Ad,
                                                  const void *Beta, const void *B, cublasLtMatrixLayout_t Bd, void *C,
                                                  cublasLtMatrixLayout_t Cd, cudaStream_t Stream) {
  if (!lookup(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  TransformState *S = state<TransformState>(Desc, TransformMagic);
  LayoutState *Lc = state<LayoutState>(Cd, LayoutMagic);
  LayoutState *La = A ? state<LayoutState>(Ad, LayoutMagic) : nullptr;
  LayoutState *Lb = B ? state<LayoutState>(Bd, LayoutMagic) : nullptr;
  if (!S || !Lc || !C || !Alpha || !Beta || (A && !La) || (B && !Lb))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (LayoutState *L : {La, Lb, Lc})
    if (L && (L->Order != CUBLASLT_ORDER_COL || !elemSize(L->Type) || L->Type == CUDA_R_8I ||
              L->Type == CUDA_C_32F || L->Type == CUDA_C_64F || L->Type == CUDA_R_32I))
      return CUBLAS_STATUS_NOT_SUPPORTED;
  if (S->ScaleType != CUDA_R_32F && S->ScaleType != CUDA_R_64F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const Driver *Dr = driver();
  if (!Dr)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  auto *J = new (std::nothrow) TransformJob{A, B, C, La ? *La : *Lc, Lb ? *Lb : *Lc, *Lc, S->TransA != CUBLAS_OP_N,
                                            S->TransB != CUBLAS_OP_N, 0, 0, nullptr, nullptr, S->ScaleType};
  if (!J)
    return CUBLAS_STATUS_ALLOC_FAILED;
  if (S->PointerMode == CUBLASLT_POINTER_MODE_DEVICE) {
    J->AlphaPtr = Alpha;
    J->BetaPtr = Beta;
  } else {
    J->Alpha = loadD(Alpha, S->ScaleType, 0);
    J->Beta = loadD(Beta, S->ScaleType, 0);
  }
  ensureContext(*Dr);
  if (hostWorkRefused(*lookup(Hd))) {
    delete J;
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (Dr->LaunchHostFunc(Stream, transform, J) != CUDA_SUCCESS) {
    delete J;
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  return CUBLAS_STATUS_SUCCESS;
}
