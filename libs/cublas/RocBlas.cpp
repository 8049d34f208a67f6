/// \file
/// Forwarding cuBLAS GEMMs to rocBLAS (see RocBlas.h). The declarations
/// below are the few rocBLAS entry points and enum values used, written
/// from AMD's public documentation (rocBLAS "rocBLAS Types" and
/// "gemm_strided_batched_ex"; HIP's stream calls are libs/common/Rocm.h's);
/// rocblas_int is 32 bits (the LP64 build every ROCm release ships),
/// rocblas_stride 64.
#include "libs/cublas/RocBlas.h"
#include "libs/cublas/Driver.h"
#include "libs/common/Rocm.h"

#include <cstring>
#include <mutex>
#include <string>

namespace ferry::cublas {

namespace {

using RocHandle = void *;   // rocblas_handle
using HipStream = void *;   // hipStream_t
using RocStatus = int;      // rocblas_status: 0 is success
constexpr int RocOpNone = 111, RocOpTranspose = 112, RocOpConjugateTranspose = 113;
constexpr int RocPointerHost = 0, RocPointerDevice = 1;
constexpr int RocGemmAlgoStandard = 0;
constexpr int RocTypeInvalid = 255;

struct RocApi {
  RocStatus (*CreateHandle)(RocHandle *) = nullptr;
  RocStatus (*DestroyHandle)(RocHandle) = nullptr;
  RocStatus (*SetStream)(RocHandle, HipStream) = nullptr;
  RocStatus (*SetPointerMode)(RocHandle, int) = nullptr;
  RocStatus (*GemmStridedBatchedEx)(RocHandle, int TransA, int TransB, int M, int N, int K, const void *Alpha,
                                    const void *A, int AType, int Lda, int64_t StrideA, const void *B, int BType,
                                    int Ldb, int64_t StrideB, const void *Beta, const void *C, int CType, int Ldc,
                                    int64_t StrideC, void *D, int DType, int Ldd, int64_t StrideD, int BatchCount,
                                    int ComputeType, int Algo, int32_t SolutionIndex, uint32_t Flags) = nullptr;
  const libs::HipRuntime *Hip = nullptr;
};

/// rocBLAS and HIP, loaded once; null with Why when either is missing.
const RocApi *rocApi(std::string &WhyNot) {
  static libs::RocmEntries<RocApi> Entries;
  return Entries.get(WhyNot, [](RocApi &Api, std::string &Why) {
    std::string W;
    Api.Hip = libs::hipRuntime(W);
    if (!Api.Hip) {
      Why = W;
      return false;
    }
    void *BlasLib = libs::openRocmLibrary(libs::RocblasSonames, W);
    if (!BlasLib) {
      Why = "rocBLAS: " + W;
      return false;
    }
    bool Ok = libs::findRocmSymbol(BlasLib, "rocblas_create_handle", Api.CreateHandle, W) &&
              libs::findRocmSymbol(BlasLib, "rocblas_destroy_handle", Api.DestroyHandle, W) &&
              libs::findRocmSymbol(BlasLib, "rocblas_set_stream", Api.SetStream, W) &&
              libs::findRocmSymbol(BlasLib, "rocblas_set_pointer_mode", Api.SetPointerMode, W) &&
              libs::findRocmSymbol(BlasLib, "rocblas_gemm_strided_batched_ex",
                                   Api.GemmStridedBatchedEx, W);
    if (!Ok)
      Why = "rocBLAS: " + W;
    return Ok;
  });
}

int rocOp(cublasOperation_t Op) {
  return Op == CUBLAS_OP_N ? RocOpNone : Op == CUBLAS_OP_T ? RocOpTranspose : RocOpConjugateTranspose;
}

/// rocblas_datatype for a cudaDataType (rocBLAS types: 150 + ...).
int rocType(cudaDataType T) {
  switch (T) {
  case CUDA_R_16F:
    return 150;
  case CUDA_R_32F:
    return 151;
  case CUDA_R_64F:
    return 152;
  case CUDA_C_32F:
    return 154;
  case CUDA_C_64F:
    return 155;
  case CUDA_R_8I:
    return 160;
  case CUDA_R_32I:
    return 162;
  case CUDA_R_16BF:
    return 168;
  default:
    return RocTypeInvalid;
  }
}

} // namespace

/// A cuBLAS handle's rocBLAS handle and HIP stream, made at its first
/// forwarded call and gone with the last task that uses them.
struct RocState {
  const RocApi *Api = nullptr;
  RocHandle Blas = nullptr;
  HipStream Stream = nullptr;
  ~RocState() {
    if (Blas)
      Api->DestroyHandle(Blas);
    if (Stream)
      Api->Hip->StreamDestroy(Stream);
  }
};

cublasStatus_t forwardGemm(Handle &H, const RocGemm &G) {
  std::string Why;
  const RocApi *Api = rocApi(Why);
  int At = rocType(G.At), Bt = rocType(G.Bt), Ct = rocType(G.Ct), Compute = rocType(G.Compute);
  if (Api && (At == RocTypeInvalid || Bt == RocTypeInvalid || Ct == RocTypeInvalid || Compute == RocTypeInvalid))
    Why = "rocBLAS has no GEMM over these types";
  else if (Api && (G.M > INT32_MAX || G.N > INT32_MAX || G.K > INT32_MAX || G.Batch > INT32_MAX))
    Why = "rocBLAS takes 32-bit sizes";
  if (!Why.empty()) {
    libs::logNoHostAccess("cublas", "CUBLAS_STATUS_NOT_SUPPORTED", ("no rocBLAS forwarding: " + Why).c_str());
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  std::shared_ptr<RocState> S;
  {
    static std::mutex Lock; // Handles may be shared between threads.
    std::lock_guard<std::mutex> L(Lock);
    if (!H.Roc) {
      auto New = std::make_shared<RocState>();
      New->Api = Api;
      if (Api->Hip->StreamCreate(&New->Stream) != 0 || Api->CreateHandle(&New->Blas) != 0 ||
          Api->SetStream(New->Blas, New->Stream) != 0) {
        logMessage("rocBLAS handle or HIP stream creation failed");
        return CUBLAS_STATUS_NOT_INITIALIZED;
      }
      H.Roc = New;
    }
    S = H.Roc;
  }
  auto Work = [S, G, At, Bt, Ct, Compute] {
    const RocApi &A = *S->Api;
    bool OnDevice = G.AlphaPtr != nullptr;
    A.SetPointerMode(S->Blas, OnDevice ? RocPointerDevice : RocPointerHost);
    // cuBLAS's C is rocBLAS's C and D at once (in place).
    RocStatus St = A.GemmStridedBatchedEx(
        S->Blas, rocOp(G.OpA), rocOp(G.OpB), int(G.M), int(G.N), int(G.K), OnDevice ? G.AlphaPtr : G.Alpha, G.A, At,
        int(G.Lda), G.StrideA, G.B, Bt, int(G.Ldb), G.StrideB, OnDevice ? G.BetaPtr : G.Beta, G.C, Ct, int(G.Ldc),
        G.StrideC, G.C, Ct, int(G.Ldc), G.StrideC, int(G.Batch), Compute, RocGemmAlgoStandard, 0, 0);
    int Sync = A.Hip->StreamSynchronize(S->Stream);
    if (St != 0 || Sync != 0)
      logMessage("rocblas_gemm_strided_batched_ex failed (rocBLAS status %d, HIP error %d); C is not written", St,
                 Sync);
  };
  try {
    switch (libs::enqueueHostTask("cublas", H.Stream, H.Kept, std::function<void()>(std::move(Work)),
                                  /*ReadsDeviceMemory=*/false)) {
    case libs::EnqueueResult::Ok:
      return CUBLAS_STATUS_SUCCESS;
    case libs::EnqueueResult::NoMemory:
      return CUBLAS_STATUS_ALLOC_FAILED;
    case libs::EnqueueResult::NoDriver:
      return CUBLAS_STATUS_NOT_INITIALIZED;
    default:
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  } catch (const std::bad_alloc &) {
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
}

} // namespace ferry::cublas
