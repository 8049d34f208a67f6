/// \file
/// Forwarding cuSOLVER's dense calls to rocSOLVER (see RocSolver.h). The
/// declarations below are the rocSOLVER and rocBLAS entry points and enum
/// values used, written from AMD's public documentation (rocSOLVER's LAPACK
/// functions, rocBLAS "rocBLAS Types" and its handle calls): rocblas_handle
/// and hipStream_t are opaque pointers, rocblas_int 32 bits (the LP64
/// build ROCm ships), enums and rocblas_status ints (0: success). The S
/// and D forms of each call have the same arguments but for the element
/// type, so each is held as one pointer type over void * elements.
#include "libs/cusolver/RocSolver.h"
#include "libs/common/Rocm.h"

#include <memory>
#include <mutex>
#include <string>

namespace ferry::cusolver {

namespace {

using RocStatus = int;

struct SolverApi {
  const libs::HipRuntime *Hip = nullptr;
  RocStatus (*CreateHandle)(void **) = nullptr; // rocBLAS
  RocStatus (*DestroyHandle)(void *) = nullptr;
  RocStatus (*SetStream)(void *, void *) = nullptr;
  // [0] the S form, [1] the D form.
  RocStatus (*Getrf[2])(void *, int M, int N, void *A, int Lda, int *Ipiv, int *Info) = {};
  RocStatus (*GetrfNpvt[2])(void *, int M, int N, void *A, int Lda, int *Info) = {};
  RocStatus (*Getrs[2])(void *, int Trans, int N, int Nrhs, void *A, int Lda, const int *Ipiv, void *B,
                        int Ldb) = {};
  RocStatus (*Potrf[2])(void *, int Uplo, int N, void *A, int Lda, int *Info) = {};
  RocStatus (*Potrs[2])(void *, int Uplo, int N, int Nrhs, void *A, int Lda, void *B, int Ldb) = {};
  RocStatus (*Geqrf[2])(void *, int M, int N, void *A, int Lda, void *Tau) = {};
  RocStatus (*Ormqr[2])(void *, int Side, int Trans, int M, int N, int K, void *A, int Lda, void *Tau, void *C,
                        int Ldc) = {};
  RocStatus (*Orgqr[2])(void *, int M, int N, int K, void *A, int Lda, void *Tau) = {};
};

/// Resolves rocsolver_<s|d><Name> into both slots of Out.
template <typename T> bool findBoth(void *Lib, const char *Name, T (&Out)[2], std::string &Why) {
  return libs::findRocmSymbol(Lib, (std::string("rocsolver_s") + Name).c_str(), Out[0], Why) &&
         libs::findRocmSymbol(Lib, (std::string("rocsolver_d") + Name).c_str(), Out[1], Why);
}

/// rocSOLVER, rocBLAS and HIP, loaded once; null with WhyNot.
const SolverApi *solverApi(std::string &WhyNot) {
  static libs::RocmEntries<SolverApi> Entries;
  return Entries.get(WhyNot, [](SolverApi &Api, std::string &Why) {
    std::string W;
    Api.Hip = libs::hipRuntime(W);
    if (!Api.Hip) {
      Why = W;
      return false;
    }
    // rocBLAS first: rocSOLVER needs it loaded.
    void *Blas = libs::openRocmLibrary(libs::RocblasSonames, W);
    if (!Blas) {
      Why = "rocBLAS: " + W;
      return false;
    }
    static const char *const Names[] = {"librocsolver.so.0", "librocsolver.so", nullptr};
    void *Lib = libs::openRocmLibrary(Names, W);
    if (!Lib) {
      Why = "rocSOLVER: " + W;
      return false;
    }
    bool Ok = libs::findRocmSymbol(Blas, "rocblas_create_handle", Api.CreateHandle, W) &&
              libs::findRocmSymbol(Blas, "rocblas_destroy_handle", Api.DestroyHandle, W) &&
              libs::findRocmSymbol(Blas, "rocblas_set_stream", Api.SetStream, W) &&
              findBoth(Lib, "getrf", Api.Getrf, W) &&
              findBoth(Lib, "getrf_npvt", Api.GetrfNpvt, W) &&
              findBoth(Lib, "getrs", Api.Getrs, W) && findBoth(Lib, "potrf", Api.Potrf, W) &&
              findBoth(Lib, "potrs", Api.Potrs, W) && findBoth(Lib, "geqrf", Api.Geqrf, W) &&
              findBoth(Lib, "ormqr", Api.Ormqr, W) && findBoth(Lib, "orgqr", Api.Orgqr, W);
    if (!Ok)
      Why = "rocSOLVER/rocBLAS: " + W;
    return Ok;
  });
}

/// rocblas_operation (none 111, transpose 112, conjugate transpose 113),
/// rocblas_fill (upper 121, lower 122), rocblas_side (left 141, right 142).
int rocOp(cublasOperation_t Op) { return Op == CUBLAS_OP_N ? 111 : Op == CUBLAS_OP_T ? 112 : 113; }
int rocFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER ? 121 : 122; }
int rocSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_RIGHT ? 142 : 141; }

const char *opName(RocDense::Kind K) {
  static const char *const Names[] = {"getrf", "getrs", "potrf", "potrs", "geqrf", "ormqr", "orgqr"};
  return Names[K];
}

RocStatus call(const SolverApi &Api, void *Blas, const RocDense &D) {
  int T = D.Double ? 1 : 0;
  switch (D.Op) {
  case RocDense::Getrf:
    return D.Ipiv ? Api.Getrf[T](Blas, D.M, D.N, D.A, D.Lda, D.Ipiv, D.Info)
                  : Api.GetrfNpvt[T](Blas, D.M, D.N, D.A, D.Lda, D.Info);
  case RocDense::Getrs:
    return Api.Getrs[T](Blas, rocOp(D.Trans), D.N, D.Nrhs, D.A, D.Lda, D.Ipiv, D.B, D.Ldb);
  case RocDense::Potrf:
    return Api.Potrf[T](Blas, rocFill(D.Uplo), D.N, D.A, D.Lda, D.Info);
  case RocDense::Potrs:
    return Api.Potrs[T](Blas, rocFill(D.Uplo), D.N, D.Nrhs, D.A, D.Lda, D.B, D.Ldb);
  case RocDense::Geqrf:
    return Api.Geqrf[T](Blas, D.M, D.N, D.A, D.Lda, D.Tau);
  case RocDense::Ormqr:
    return Api.Ormqr[T](Blas, rocSide(D.Side), rocOp(D.Trans), D.M, D.N, D.K, D.A, D.Lda, D.Tau, D.B, D.Ldb);
  case RocDense::Orgqr:
    return Api.Orgqr[T](Blas, D.M, D.N, D.K, D.A, D.Lda, D.Tau);
  }
  return -1;
}

} // namespace

/// A cuSOLVER handle's rocBLAS handle (what rocSOLVER takes) and HIP
/// stream, made at its first forwarded call and gone with the last task
/// that uses them.
struct RocSolverState {
  const SolverApi *Api = nullptr;
  void *Blas = nullptr;
  void *Stream = nullptr;
  std::mutex Lock; // one rocBLAS handle: one call at a time
  ~RocSolverState() {
    if (Blas)
      Api->DestroyHandle(Blas);
    if (Stream)
      Api->Hip->StreamDestroy(Stream);
  }
};

namespace {

/// H's rocSOLVER state, made on first use; null with Why (logged when the
/// making failed).
std::shared_ptr<RocSolverState> state(DnHandle *H, std::string &Why) {
  const SolverApi *Api = solverApi(Why);
  if (!Api)
    return nullptr;
  static std::mutex Lock; // Handles may be shared between threads.
  std::lock_guard<std::mutex> L(Lock);
  if (!H->Roc) {
    auto New = std::make_shared<RocSolverState>();
    New->Api = Api;
    if (Api->Hip->StreamCreate(&New->Stream) != 0 || Api->CreateHandle(&New->Blas) != 0 ||
        Api->SetStream(New->Blas, New->Stream) != 0) {
      Why = "rocBLAS handle or HIP stream creation failed";
      logMessage("%s (for rocSOLVER)", Why.c_str());
      return nullptr;
    }
    H->Roc = New;
  }
  return H->Roc;
}

/// Enqueues Work on H's stream as a host task that reads no device memory.
cusolverStatus_t enqueueRoc(DnHandle *H, std::function<void()> Work) {
  try {
    switch (libs::enqueueHostTask("cusolver", reinterpret_cast<CUstream>(H->Stream), H->Kept, std::move(Work),
                                  /*ReadsDeviceMemory=*/false)) {
    case libs::EnqueueResult::Ok:
      return CUSOLVER_STATUS_SUCCESS;
    case libs::EnqueueResult::NoMemory:
      return CUSOLVER_STATUS_ALLOC_FAILED;
    case libs::EnqueueResult::NoDriver:
      return CUSOLVER_STATUS_NOT_INITIALIZED;
    default:
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
  } catch (const std::bad_alloc &) {
    return CUSOLVER_STATUS_ALLOC_FAILED;
  }
}

} // namespace

cusolverStatus_t forwardDense(DnHandle *H, const RocDense &D) {
  std::string Why;
  std::shared_ptr<RocSolverState> S = state(H, Why);
  if (!S) {
    libs::logNoHostAccess("cusolver", "CUSOLVER_STATUS_NOT_SUPPORTED", ("no rocSOLVER forwarding: " + Why).c_str());
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  return enqueueRoc(H, [S, D] {
    std::lock_guard<std::mutex> L(S->Lock);
    const SolverApi &A = *S->Api;
    // devInfo 0 first: rocSOLVER's getrs, potrs and the QR calls take no
    // info, and cuSOLVER's write 0 there on success.
    int Set = D.Info ? A.Hip->MemsetD32Async(D.Info, 0, 1, S->Stream) : 0;
    RocStatus St = Set == 0 ? call(A, S->Blas, D) : -1;
    int Sync = A.Hip->StreamSynchronize(S->Stream);
    if (Set != 0 || St != 0 || Sync != 0)
      logMessage("rocsolver_%c%s failed (rocblas_status %d, HIP errors %d/%d); its results are not written",
                 D.Double ? 'd' : 's', opName(D.Op), St, Set, Sync);
  });
}

bool rocSetInfo(DnHandle *H, int *Info, int Value) {
  std::string Why;
  std::shared_ptr<RocSolverState> S = state(H, Why);
  if (!S)
    return false;
  return enqueueRoc(H, [S, Info, Value] {
           std::lock_guard<std::mutex> L(S->Lock);
           const libs::HipRuntime &Hip = *S->Api->Hip;
           int Set = Hip.MemsetD32Async(Info, Value, 1, S->Stream), Sync = Hip.StreamSynchronize(S->Stream);
           if (Set != 0 || Sync != 0)
             logMessage("devInfo (%d) not written: HIP errors %d/%d", Value, Set, Sync);
         }) == CUSOLVER_STATUS_SUCCESS;
}

} // namespace ferry::cusolver
