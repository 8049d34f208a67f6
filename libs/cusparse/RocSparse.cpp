/// \file
/// Forwarding cuSPARSE's SpMV and SpMM to rocSPARSE (see RocSparse.h). The
/// declarations below are the few rocSPARSE entry points and enum values
/// used, written from AMD's public documentation (rocSPARSE "Types",
/// "Auxiliary functions", "Sparse generic functions"): handles and
/// descriptors are opaque pointers, enums and rocsparse_status are ints
/// (0: success), sizes int64_t. rocSPARSE 3 and later (librocsparse.so.1,
/// ROCm 6 on) take the stage in rocsparse_spmv; rocSPARSE 2.4-2.x
/// (librocsparse.so.0, ROCm 5.4-5.7) in rocsparse_spmv_ex, with the same
/// arguments and stage values.
#include "libs/cusparse/RocSparse.h"
#include "libs/common/Rocm.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

namespace ferry::cusparse {

namespace {

using RocStatus = int;
constexpr int StageBufferSize = 1, StagePreprocess = 2, StageCompute = 3;
constexpr int AlgDefault = 0; // rocsparse_spmv_alg_default / rocsparse_spmm_alg_default
constexpr int PointerHost = 0, PointerDevice = 1;

struct SparseApi {
  RocStatus (*CreateHandle)(void **) = nullptr;
  RocStatus (*DestroyHandle)(void *) = nullptr;
  RocStatus (*SetStream)(void *, void *) = nullptr;
  RocStatus (*SetPointerMode)(void *, int) = nullptr;
  /// create_csr_descr and create_csc_descr: (descr, rows, cols, nnz,
  /// offsets, indices, values, offset type, index type, base, data type).
  RocStatus (*CreateCsr)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int, int) = nullptr;
  RocStatus (*CreateCsc)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int, int) = nullptr;
  /// (descr, rows, cols, nnz, row indices, column indices, values, index
  /// type, base, data type).
  RocStatus (*CreateCoo)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int) = nullptr;
  RocStatus (*DestroySpMat)(void *) = nullptr;
  RocStatus (*CreateDnVec)(void **, int64_t, void *, int) = nullptr;
  RocStatus (*DestroyDnVec)(void *) = nullptr;
  RocStatus (*CreateDnMat)(void **, int64_t Rows, int64_t Cols, int64_t Ld, void *, int Type, int Order) = nullptr;
  RocStatus (*DestroyDnMat)(void *) = nullptr;
  RocStatus (*Spmv)(void *, int Trans, const void *Alpha, void *A, void *X, const void *Beta, void *Y, int Compute,
                    int Alg, int Stage, size_t *Size, void *Buffer) = nullptr;
  RocStatus (*Spmm)(void *, int TransA, int TransB, const void *Alpha, void *A, void *B, const void *Beta, void *C,
                    int Compute, int Alg, int Stage, size_t *Size, void *Buffer) = nullptr;
  const libs::HipRuntime *Hip = nullptr;
};

/// rocSPARSE and HIP, loaded once; null with WhyNot when either is missing.
const SparseApi *sparseApi(std::string &WhyNot) {
  static libs::RocmEntries<SparseApi> Entries;
  return Entries.get(WhyNot, [](SparseApi &Api, std::string &Why) {
    std::string W;
    Api.Hip = libs::hipRuntime(W);
    if (!Api.Hip) {
      Why = W;
      return false;
    }
    static const char *const V3[] = {"librocsparse.so.1", nullptr}, *const V2[] = {"librocsparse.so.0", nullptr};
    static const char *const Both[] = {"librocsparse.so.1", "librocsparse.so.0", nullptr};
    bool Staged = true; // rocsparse_spmv takes the stage (rocSPARSE 3 on)
    void *Lib = libs::openRocmLibrary(V3, W);
    if (!Lib) {
      Lib = libs::openRocmLibrary(V2, W);
      Staged = false;
    }
    if (!Lib) {
      libs::openRocmLibrary(Both, W); // for the message naming both
      Why = "rocSPARSE: " + W;
      return false;
    }
    bool Ok =
        libs::findRocmSymbol(Lib, "rocsparse_create_handle", Api.CreateHandle, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_destroy_handle", Api.DestroyHandle, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_set_stream", Api.SetStream, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_set_pointer_mode", Api.SetPointerMode, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_create_csr_descr", Api.CreateCsr, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_create_csc_descr", Api.CreateCsc, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_create_coo_descr", Api.CreateCoo, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_destroy_spmat_descr", Api.DestroySpMat, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_create_dnvec_descr", Api.CreateDnVec, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_destroy_dnvec_descr", Api.DestroyDnVec, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_create_dnmat_descr", Api.CreateDnMat, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_destroy_dnmat_descr", Api.DestroyDnMat, W) &&
        libs::findRocmSymbol(Lib, Staged ? "rocsparse_spmv" : "rocsparse_spmv_ex", Api.Spmv, W) &&
        libs::findRocmSymbol(Lib, "rocsparse_spmm", Api.Spmm, W);
    if (!Ok)
      Why = "rocSPARSE: " + W;
    return Ok;
  });
}

int rocOp(cusparseOperation_t Op) {
  return Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? 111 : Op == CUSPARSE_OPERATION_TRANSPOSE ? 112 : 113;
}

/// rocsparse_datatype of the four value types ferry's cuSPARSE computes.
int rocType(cudaDataType T) {
  switch (T) {
  case CUDA_R_32F:
    return 151;
  case CUDA_R_64F:
    return 152;
  case CUDA_C_32F:
    return 154;
  default:
    return 155; // CUDA_C_64F: checkTypes let no other through
  }
}

/// rocsparse_indextype: u16 1, i32 2, i64 3.
int rocIndex(cusparseIndexType_t T) {
  return T == CUSPARSE_INDEX_64I ? 3 : T == CUSPARSE_INDEX_16U ? 1 : 2;
}

/// rocsparse_order: row 0, column 1.
int rocOrder(cusparseOrder_t O) { return O == CUSPARSE_ORDER_ROW ? 0 : 1; }

/// The operands of one SpMV (X, Y) or SpMM (B, C), copied at the call.
struct Operands {
  bool Mm = false;
  cusparseOperation_t OpA = CUSPARSE_OPERATION_NON_TRANSPOSE, OpB = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr A;
  cusparseDnVecDescr X, Y;
  cusparseDnMatDescr B, C;
  cudaDataType Compute = CUDA_R_32F;
};

/// rocSPARSE's descriptors of one call's operands, destroyed with it.
struct Made {
  const SparseApi &Api;
  void *A = nullptr, *In = nullptr, *Out = nullptr;
  bool Mm = false;
  explicit Made(const SparseApi &Api) : Api(Api) {}
  Made(const Made &) = delete;
  ~Made() {
    if (A)
      Api.DestroySpMat(A);
    for (void *D : {In, Out})
      if (D)
        (Mm ? Api.DestroyDnMat : Api.DestroyDnVec)(D);
  }
};

RocStatus make(const Operands &O, Made &M) {
  const SparseApi &Api = M.Api;
  const cusparseSpMatDescr &A = O.A;
  int Type = rocType(A.Type), Base = A.Base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  RocStatus St = A.Format == CUSPARSE_FORMAT_COO
                     ? Api.CreateCoo(&M.A, A.Rows, A.Cols, A.Nnz, A.Rows2, A.Indices, A.Values, rocIndex(A.IdxType),
                                     Base, Type)
                     : (A.Format == CUSPARSE_FORMAT_CSR ? Api.CreateCsr : Api.CreateCsc)(
                           &M.A, A.Rows, A.Cols, A.Nnz, A.Offsets, A.Indices, A.Values, rocIndex(A.OffType),
                           rocIndex(A.IdxType), Base, Type);
  M.Mm = O.Mm;
  if (St == 0 && O.Mm) {
    St = Api.CreateDnMat(&M.In, O.B.Rows, O.B.Cols, O.B.Ld, O.B.Values, rocType(O.B.Type), rocOrder(O.B.Order));
    if (St == 0)
      St = Api.CreateDnMat(&M.Out, O.C.Rows, O.C.Cols, O.C.Ld, O.C.Values, rocType(O.C.Type), rocOrder(O.C.Order));
  } else if (St == 0) {
    St = Api.CreateDnVec(&M.In, O.X.Size, O.X.Values, rocType(O.X.Type));
    if (St == 0)
      St = Api.CreateDnVec(&M.Out, O.Y.Size, O.Y.Values, rocType(O.Y.Type));
  }
  return St;
}

RocStatus stage(void *Handle, const Operands &O, const Made &M, const void *Alpha, const void *Beta, int Stage,
                size_t *Size, void *Buffer) {
  const SparseApi &Api = M.Api;
  if (O.Mm)
    return Api.Spmm(Handle, rocOp(O.OpA), rocOp(O.OpB), Alpha, M.A, M.In, Beta, M.Out, rocType(O.Compute),
                    AlgDefault, Stage, Size, Buffer);
  return Api.Spmv(Handle, rocOp(O.OpA), Alpha, M.A, M.In, Beta, M.Out, rocType(O.Compute), AlgDefault, Stage, Size,
                  Buffer);
}

} // namespace

/// A cuSPARSE handle's rocSPARSE handle and HIP stream, made at its first
/// forwarded call and gone with the last task that uses them. Lock keeps
/// the calling thread's buffer-size stages and the stream's tasks apart.
struct RocSparseState {
  const SparseApi *Api = nullptr;
  void *Handle = nullptr;
  void *Stream = nullptr;
  std::mutex Lock;
  ~RocSparseState() {
    if (Handle)
      Api->DestroyHandle(Handle);
    if (Stream)
      Api->Hip->StreamDestroy(Stream);
  }
};

namespace {

/// H's rocSPARSE state, made on first use; null with Why.
std::shared_ptr<RocSparseState> state(cusparseHandle_t H, const Operands &O, std::string &Why) {
  const SparseApi *Api = sparseApi(Why);
  if (!Api)
    return nullptr;
  if (O.A.Format != CUSPARSE_FORMAT_CSR && O.A.Format != CUSPARSE_FORMAT_CSC && O.A.Format != CUSPARSE_FORMAT_COO) {
    Why = "only CSR, CSC and COO matrices are forwarded";
    return nullptr;
  }
  static std::mutex Lock; // Handles may be shared between threads.
  std::lock_guard<std::mutex> L(Lock);
  if (!H->Roc) {
    auto New = std::make_shared<RocSparseState>();
    New->Api = Api;
    if (Api->Hip->StreamCreate(&New->Stream) != 0 || Api->CreateHandle(&New->Handle) != 0 ||
        Api->SetStream(New->Handle, New->Stream) != 0) {
      Why = "rocSPARSE handle or HIP stream creation failed";
      return nullptr;
    }
    H->Roc = New;
  }
  return H->Roc;
}

size_t bufferSize(cusparseHandle_t H, const Operands &O, const void *Alpha, const void *Beta, size_t Minimum) {
  std::string Why;
  std::shared_ptr<RocSparseState> S = state(H, O, Why);
  if (!S)
    return Minimum; // the operation refuses, and says why
  std::lock_guard<std::mutex> L(S->Lock);
  S->Api->SetPointerMode(S->Handle, H->Mode == CUSPARSE_POINTER_MODE_DEVICE ? PointerDevice : PointerHost);
  Made M(*S->Api);
  size_t Size = 0;
  if (make(O, M) != 0 || stage(S->Handle, O, M, Alpha, Beta, StageBufferSize, &Size, nullptr) != 0)
    return Minimum;
  return std::max(Size, Minimum);
}

cusparseStatus_t forward(cusparseHandle_t H, const Operands &O, const Scalar &Alpha, const Scalar &Beta,
                         void *Buffer) {
  std::string Why;
  std::shared_ptr<RocSparseState> S = state(H, O, Why);
  if (S) {
    // What rocSPARSE refuses, it refuses at its buffer-size stage too:
    // asked here, the caller gets the refusal instead of a log line later.
    std::lock_guard<std::mutex> L(S->Lock);
    S->Api->SetPointerMode(S->Handle, Alpha.Device ? PointerDevice : PointerHost);
    Made M(*S->Api);
    size_t Size = 0;
    RocStatus St = make(O, M);
    if (St == 0)
      St = stage(S->Handle, O, M, Alpha.get(), Beta.get(), StageBufferSize, &Size, nullptr);
    if (St != 0)
      Why = "rocSPARSE refuses these operands (rocsparse_status " + std::to_string(St) + ")";
  }
  if (!Why.empty()) {
    libs::logNoHostAccess("cusparse", "CUSPARSE_STATUS_NOT_SUPPORTED", ("no rocSPARSE forwarding: " + Why).c_str());
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  auto Work = [S, O, Alpha, Beta, Buffer] {
    std::lock_guard<std::mutex> L(S->Lock);
    const SparseApi &Api = *S->Api;
    Api.SetPointerMode(S->Handle, Alpha.Device ? PointerDevice : PointerHost);
    Made M(Api);
    size_t Size = 0;
    RocStatus St = make(O, M);
    if (St == 0)
      St = stage(S->Handle, O, M, Alpha.get(), Beta.get(), StagePreprocess, &Size, Buffer);
    if (St == 0)
      St = stage(S->Handle, O, M, Alpha.get(), Beta.get(), StageCompute, &Size, Buffer);
    int Sync = Api.Hip->StreamSynchronize(S->Stream);
    if (St != 0 || Sync != 0)
      logMessage("rocsparse_%s failed (rocsparse_status %d, HIP error %d); the result is not written",
                 O.Mm ? "spmm" : "spmv", St, Sync);
  };
  try {
    return fromEnqueue(libs::enqueueHostTask("cusparse", reinterpret_cast<CUstream>(H->Stream), H->Kept,
                                             std::function<void()>(std::move(Work)),
                                             /*ReadsDeviceMemory=*/false));
  } catch (const std::bad_alloc &) {
    return CUSPARSE_STATUS_ALLOC_FAILED;
  }
}

Operands spmvOperands(cusparseOperation_t Op, const cusparseSpMatDescr &A, const cusparseDnVecDescr &X,
                      const cusparseDnVecDescr &Y, cudaDataType Compute) {
  Operands O;
  O.OpA = Op;
  O.A = A;
  O.X = X;
  O.Y = Y;
  O.Compute = Compute;
  return O;
}

Operands spmmOperands(cusparseOperation_t OpA, cusparseOperation_t OpB, const cusparseSpMatDescr &A,
                      const cusparseDnMatDescr &B, const cusparseDnMatDescr &C, cudaDataType Compute) {
  Operands O;
  O.Mm = true;
  O.OpA = OpA;
  O.OpB = OpB;
  O.A = A;
  O.B = B;
  O.C = C;
  O.Compute = Compute;
  return O;
}

} // namespace

size_t rocSpmvBufferSize(cusparseHandle_t H, cusparseOperation_t Op, const void *Alpha, const cusparseSpMatDescr &A,
                         const cusparseDnVecDescr &X, const void *Beta, const cusparseDnVecDescr &Y,
                         cudaDataType Compute, size_t Minimum) {
  return bufferSize(H, spmvOperands(Op, A, X, Y, Compute), Alpha, Beta, Minimum);
}

size_t rocSpmmBufferSize(cusparseHandle_t H, cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                         const cusparseSpMatDescr &A, const cusparseDnMatDescr &B, const void *Beta,
                         const cusparseDnMatDescr &C, cudaDataType Compute, size_t Minimum) {
  return bufferSize(H, spmmOperands(OpA, OpB, A, B, C, Compute), Alpha, Beta, Minimum);
}

cusparseStatus_t rocSpmv(cusparseHandle_t H, cusparseOperation_t Op, const Scalar &Alpha, const cusparseSpMatDescr &A,
                         const cusparseDnVecDescr &X, const Scalar &Beta, const cusparseDnVecDescr &Y,
                         cudaDataType Compute, void *Buffer) {
  return forward(H, spmvOperands(Op, A, X, Y, Compute), Alpha, Beta, Buffer);
}

cusparseStatus_t rocSpmm(cusparseHandle_t H, cusparseOperation_t OpA, cusparseOperation_t OpB, const Scalar &Alpha,
                         const cusparseSpMatDescr &A, const cusparseDnMatDescr &B, const Scalar &Beta,
                         const cusparseDnMatDescr &C, cudaDataType Compute, void *Buffer) {
  return forward(H, spmmOperands(OpA, OpB, A, B, C, Compute), Alpha, Beta, Buffer);
}

} // namespace ferry::cusparse
