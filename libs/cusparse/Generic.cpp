/// \file
/// The generic API's operations on the host: SpMV, SpMM, SpSV, SpSM, SDDMM,
/// SpGEMM (+ reuse), SpVV and the sparse-vector helpers (Axpby, Gather,
/// Scatter, Rot). Values and the compute type must agree (float, double,
/// complex float, complex double); mixed precisions answer NOT_SUPPORTED
/// with a log line. Every operation is one host task on the handle's
/// stream; SpGEMM's compute and nnz steps wait for it, since the caller
/// reads C's size right after them.
#include "libs/cusparse/RocSparse.h"
#include "libs/cusparse/Sparse.h"

#include <memory>
#include <new>
#include <thread>

#include <sched.h>
#include <unistd.h>

using namespace ferry::cusparse;

/// SpSV/SpSM descriptors: nothing to keep beyond the analysed matrix's
/// values pointer, which updateMatrix may replace.
struct cusparseSpSVDescr {
  bool Analysed = false;
  void *NewValues = nullptr;
};
struct cusparseSpSMDescr {
  bool Analysed = false;
  void *NewValues = nullptr;
};

/// SpGEMM's product, kept between compute (or reuse_nnz) and copy.
struct cusparseSpGEMMDescr {
  bool Estimated = false, Computed = false;
  int64_t Products = 0;
  cudaDataType Type = CUDA_R_32F;
  std::vector<int64_t> Ptr, Idx;
  std::vector<unsigned char> Val; // Type's values
  /// Bytes the product would have needed when it was refused as larger
  /// than the memory left (0: computed).
  uint64_t TooLarge = 0;
};

namespace {

/// What NVIDIA's cuSPARSE answers for an invalid handle in the generic API.
constexpr cusparseStatus_t BadHandle = CUSPARSE_STATUS_INVALID_VALUE;

bool validOp(cusparseOperation_t Op) {
  return Op == CUSPARSE_OPERATION_NON_TRANSPOSE || Op == CUSPARSE_OPERATION_TRANSPOSE ||
         Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
}

/// The operand types must all be ComputeType, one of the four ferry computes.
cusparseStatus_t checkTypes(const char *Name, cudaDataType Compute,
                            std::initializer_list<cudaDataType> Types) {
  for (cudaDataType T : Types)
    if (T != Compute) {
      logMessage("%s: value type %d with compute type %d is not implemented", Name,
                 static_cast<int>(T), static_cast<int>(Compute));
      return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
  if (!valueSize(Compute)) {
    logMessage("%s: compute type %d is not implemented", Name, static_cast<int>(Compute));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

/// Formats the operations take (BLOCKED_ELL and SLICED_ELL are not kept).
cusparseStatus_t checkFormat(const char *Name, const cusparseSpMatDescr *A) {
  switch (A->Format) {
  case CUSPARSE_FORMAT_CSR:
  case CUSPARSE_FORMAT_CSC:
  case CUSPARSE_FORMAT_COO:
  case CUSPARSE_FORMAT_BSR:
    break;
  default:
    logMessage("%s: sparse format %d is not implemented", Name, static_cast<int>(A->Format));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  if (A->BatchCount > 1) {
    logMessage("%s: batched sparse matrices are not implemented", Name);
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

/// NVIDIA's SpMV and SpMM refuse a matrix whose fill mode or diagonal type
/// was set (recorded: "triangular matrix properties ... are not supported").
cusparseStatus_t checkGeneral(const char *Name, const cusparseSpMatDescr *A) {
  if (!A->Triangular)
    return CUSPARSE_STATUS_SUCCESS;
  logMessage("%s: a matrix with a fill mode or diagonal type set is not supported (as NVIDIA's)",
             Name);
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}

/// SpSV and SpSM take only valid fill modes and diagonal types (NVIDIA's
/// stores any value and faults later).
cusparseStatus_t checkTriangle(const char *Name, const cusparseSpMatDescr *A) {
  if ((A->Fill == CUSPARSE_FILL_MODE_LOWER || A->Fill == CUSPARSE_FILL_MODE_UPPER) &&
      (A->Diag == CUSPARSE_DIAG_TYPE_NON_UNIT || A->Diag == CUSPARSE_DIAG_TYPE_UNIT))
    return CUSPARSE_STATUS_SUCCESS;
  logMessage("%s: fill mode %d / diagonal type %d are not valid", Name, static_cast<int>(A->Fill),
             static_cast<int>(A->Diag));
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}

/// The arrays an operation reads must exist: NVIDIA's descriptors accept
/// null arrays, and its kernels then fault and the call answers
/// INTERNAL_ERROR (recorded for SpMV over null row offsets); ferry answers
/// the same without touching them, and logs what was missing.
bool hasData(const cusparseSpMatDescr *A) {
  if (A->Format != CUSPARSE_FORMAT_COO && !A->Offsets && A->Rows > 0)
    return false;
  if (A->Nnz > 0 && (!A->Indices || !A->Values || (A->Format == CUSPARSE_FORMAT_COO && !A->Rows2)))
    return false;
  return true;
}
cusparseStatus_t checkData(const char *Name,
                           std::initializer_list<const cusparseSpMatDescr *> Sparse,
                           std::initializer_list<std::pair<const void *, int64_t>> Dense) {
  for (const cusparseSpMatDescr *A : Sparse)
    if (!hasData(A)) {
      logMessage(
          "%s: a sparse matrix without its arrays (CUSPARSE_STATUS_INTERNAL_ERROR, as NVIDIA's)",
          Name);
      return CUSPARSE_STATUS_INTERNAL_ERROR;
    }
  for (auto [Values, Count] : Dense)
    if (!Values && Count > 0) {
      logMessage("%s: a dense operand without values (CUSPARSE_STATUS_INTERNAL_ERROR, as NVIDIA's)",
                 Name);
      return CUSPARSE_STATUS_INTERNAL_ERROR;
    }
  return CUSPARSE_STATUS_SUCCESS;
}

/// Rows and columns of op(A).
void opShape(const cusparseSpMatDescr *A, cusparseOperation_t Op, int64_t &M, int64_t &N) {
  int64_t R = A->Rows, C = A->Cols;
  if (A->Format == CUSPARSE_FORMAT_BSR) {
    R *= A->BlockRows;
    C *= A->BlockCols;
  }
  M = Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? R : C;
  N = Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? C : R;
}
void opShape(const cusparseDnMatDescr *B, cusparseOperation_t Op, int64_t &M, int64_t &N) {
  M = Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? B->Rows : B->Cols;
  N = Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? B->Cols : B->Rows;
}

/// Our scratch need for every buffer-size query: NVIDIA's sizes differ by
/// algorithm; ferry needs none, but reports a small size so programs that
/// allocate it get a real buffer (and a null one stays checkable).
constexpr size_t ScratchBytes = 128;

// SpMV

template <typename T, typename O, typename I>
void csrMvRows(int64_t R0, int64_t R1, const O *__restrict Ptr, const I *__restrict Idx,
               const T *__restrict Val, int64_t Base, const T *__restrict X, T *__restrict Y,
               T Alpha, T Beta) {
  // Offsets count from the index base; shifting the arrays once keeps the
  // inner loop a plain dot product.
  const I *Ix = Idx - Base;
  const T *Vx = Val - Base, *Xb = X - Base;
  bool Plain = Alpha == T(1) && Beta == T{};
  for (int64_t R = R0; R < R1; ++R) {
    T Sum{};
    for (O K = Ptr[R], E = Ptr[R + 1]; K < E; ++K)
      Sum += Vx[K] * Xb[Ix[K]];
    Y[R] = Plain ? Sum : Beta == T{} ? Alpha * Sum : Alpha * Sum + Beta * Y[R];
  }
}

/// Threads for one large SpMV: the CPUs the process may use (the work holds
/// its stream, so it competes with no kernel of that stream), or
/// FERRY_SPARSE_THREADS.
unsigned spmvThreads() {
  static const unsigned N = [] {
    if (const char *E = std::getenv("FERRY_SPARSE_THREADS"))
      if (int V = std::atoi(E); V > 0)
        return static_cast<unsigned>(V);
    cpu_set_t Set;
    int C = sched_getaffinity(0, sizeof(Set), &Set) == 0 ? CPU_COUNT(&Set) : 1;
    return static_cast<unsigned>(std::max(1, std::min(C, 64)));
  }();
  return N;
}

/// y = alpha A x + beta y over CSR rows, split into row blocks of about equal
/// entries on several threads when the matrix is large enough to pay for them.
template <typename T, typename O, typename I>
void csrMv(int64_t Rows, const O *Ptr, const I *Idx, const T *Val, int64_t Base, const T *X, T *Y,
           T Alpha, T Beta) {
  int64_t Nnz = Rows > 0 ? static_cast<int64_t>(Ptr[Rows] - Ptr[0]) : 0;
  unsigned Threads = static_cast<unsigned>(std::min<int64_t>(spmvThreads(), Nnz / (1 << 18)));
  if (Threads <= 1)
    return csrMvRows(0, Rows, Ptr, Idx, Val, Base, X, Y, Alpha, Beta);
  std::vector<int64_t> Cut(Threads + 1, Rows);
  Cut[0] = 0;
  for (unsigned T0 = 1; T0 < Threads; ++T0) {
    O Want = static_cast<O>(Ptr[0] + Nnz * T0 / Threads);
    Cut[T0] = std::upper_bound(Ptr, Ptr + Rows, Want) - Ptr - 1;
    Cut[T0] = std::max(Cut[T0], Cut[T0 - 1]);
  }
  std::vector<std::thread> Pool;
  unsigned Started = 1;
  try {
    for (; Started < Threads; ++Started)
      Pool.emplace_back([=] {
        csrMvRows(Cut[Started], Cut[Started + 1], Ptr, Idx, Val, Base, X, Y, Alpha, Beta);
      });
  } catch (const std::exception &) {
    // No thread to be had: this one does the blocks not started.
  }
  for (unsigned T0 = Started; T0 < Threads; ++T0)
    csrMvRows(Cut[T0], Cut[T0 + 1], Ptr, Idx, Val, Base, X, Y, Alpha, Beta);
  csrMvRows(Cut[0], Cut[1], Ptr, Idx, Val, Base, X, Y, Alpha, Beta);
  for (std::thread &Th : Pool)
    Th.join();
}

template <typename T>
void spmv(const cusparseSpMatDescr &A, cusparseOperation_t Op, T Alpha, const T *X, T Beta, T *Y) {
  if (A.Format == CUSPARSE_FORMAT_CSR && Op == CUSPARSE_OPERATION_NON_TRANSPOSE) {
    const T *V = static_cast<const T *>(A.Values);
    if (A.OffType == CUSPARSE_INDEX_32I && A.IdxType == CUSPARSE_INDEX_32I)
      return csrMv(A.Rows, static_cast<const int32_t *>(A.Offsets),
                   static_cast<const int32_t *>(A.Indices), V, A.Base, X, Y, Alpha, Beta);
    if (A.OffType == CUSPARSE_INDEX_64I && A.IdxType == CUSPARSE_INDEX_64I)
      return csrMv(A.Rows, static_cast<const int64_t *>(A.Offsets),
                   static_cast<const int64_t *>(A.Indices), V, A.Base, X, Y, Alpha, Beta);
  }
  Csr<T> C = readOp<T>(A, Op);
  csrMv(C.Rows, C.Ptr.data(), C.Idx.data(), C.Val.data(), 0, X, Y, Alpha, Beta);
}

cusparseStatus_t checkSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                           cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                           const void *beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                           cusparseSpMVAlg_t alg) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !vecX || !vecY || !alpha || !beta || !validOp(opA))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (alg < CUSPARSE_SPMV_ALG_DEFAULT || alg > CUSPARSE_SPMV_BSR_ALG1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  // A conjugate transpose of real values is refused (recorded for every
  // format and algorithm).
  if (opA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE &&
      (matA->Type == CUDA_R_32F || matA->Type == CUDA_R_64F || matA->Type == CUDA_R_16F ||
       matA->Type == CUDA_R_16BF))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int64_t M, N;
  opShape(matA, opA, M, N);
  if (vecX->Size != N || vecY->Size != M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S =
          checkTypes("cusparseSpMV", computeType, {matA->Type, vecX->Type, vecY->Type}))
    return S;
  if (cusparseStatus_t S = checkGeneral("cusparseSpMV", matA))
    return S;
  return checkFormat("cusparseSpMV", matA);
}

// Triangular solves

/// Solves op(A) Y = Alpha X in place of Y for NRhs right-hand sides, where
/// only the triangle named by Fill (of A, before op) counts.
template <typename T>
void triSolve(const cusparseSpMatDescr &M, cusparseOperation_t Op, T Alpha, int64_t NRhs,
              const std::function<T(int64_t, int64_t)> &Rhs,
              const std::function<T &(int64_t, int64_t)> &Out) {
  Csr<T> A = readOp<T>(M, Op);
  bool Lower = (M.Fill == CUSPARSE_FILL_MODE_LOWER) == (Op == CUSPARSE_OPERATION_NON_TRANSPOSE);
  bool Unit = M.Diag == CUSPARSE_DIAG_TYPE_UNIT;
  int64_t N = A.Rows;
  std::vector<T> Y(N);
  for (int64_t C = 0; C < NRhs; ++C) {
    for (int64_t Step = 0; Step < N; ++Step) {
      int64_t I = Lower ? Step : N - 1 - Step;
      T Sum = Alpha * Rhs(I, C), Diag = T(1);
      for (int64_t K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K) {
        int64_t J = A.Idx[K];
        if (J == I) {
          if (!Unit)
            Diag = A.Val[K];
        } else if (Lower ? J < I : J > I) {
          Sum -= A.Val[K] * Y[J];
        }
      }
      Y[I] = Sum / Diag;
    }
    for (int64_t I = 0; I < N; ++I)
      Out(I, C) = Y[I];
  }
}

// SpGEMM

/// Bytes spgemmProduct keeps per entry of the product: an int64 column and
/// two values (the product's and its copy), plus the row offsets.
template <typename T> uint64_t spgemmBytes(uint64_t Entries, int64_t Rows) {
  return Entries * (sizeof(int64_t) + 2 * sizeof(T)) + static_cast<uint64_t>(Rows + 1) * sizeof(int64_t);
}

/// The host memory not in use now (the product is kept in host memory).
uint64_t availableHostBytes() {
  long Pages = sysconf(_SC_AVPHYS_PAGES), Size = sysconf(_SC_PAGESIZE);
  return Pages > 0 && Size > 0 ? static_cast<uint64_t>(Pages) * static_cast<uint64_t>(Size) : UINT64_MAX;
}

/// Whether the product of A and B fits in the host memory left; *Need is
/// the bytes it takes (exact, or the upper bound when counting exactly
/// would take too long). Growing a product that does not fit would end
/// with the process killed for memory, not an error.
template <typename T> bool spgemmFits(const Csr<T> &A, const Csr<T> &B, uint64_t *Need) {
  // Upper bound: each row has at most min(B's columns, the B entries its
  // A entries reach) entries.
  uint64_t Bound = 0, Products = 0;
  for (int64_t I = 0; I < A.Rows; ++I) {
    uint64_t Row = 0;
    for (int64_t K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K)
      Row += static_cast<uint64_t>(B.Ptr[A.Idx[K] + 1] - B.Ptr[A.Idx[K]]);
    Products += Row;
    Bound += std::min<uint64_t>(Row, static_cast<uint64_t>(B.Cols));
  }
  uint64_t Free = availableHostBytes();
  *Need = spgemmBytes<T>(Bound, A.Rows);
  if (*Need <= Free)
    return true;
  constexpr uint64_t MaxCountedProducts = uint64_t(1) << 31; // a few seconds of counting
  if (Products > MaxCountedProducts)
    return false;
  std::vector<int64_t> Mark(B.Cols, -1);
  uint64_t Entries = 0;
  for (int64_t I = 0; I < A.Rows; ++I)
    for (int64_t K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K)
      for (int64_t L = B.Ptr[A.Idx[K]]; L < B.Ptr[A.Idx[K] + 1]; ++L)
        if (Mark[B.Idx[L]] != I) {
          Mark[B.Idx[L]] = I;
          ++Entries;
        }
  *Need = spgemmBytes<T>(Entries, A.Rows);
  return *Need <= Free;
}

template <typename T>
void spgemmProduct(const Csr<T> &A, const Csr<T> &B, T Alpha, cusparseSpGEMMDescr &D) {
  uint64_t Need = 0;
  D.TooLarge = 0;
  if (!spgemmFits(A, B, &Need)) {
    D.TooLarge = Need;
    D.Ptr.clear();
    D.Idx.clear();
    D.Val.clear();
    return;
  }
  D.Ptr.assign(A.Rows + 1, 0);
  D.Idx.clear();
  std::vector<T> Vals;
  std::vector<int64_t> Mark(B.Cols, -1);
  std::vector<T> Acc(B.Cols);
  std::vector<int64_t> Cols;
  int64_t Products = 0;
  for (int64_t I = 0; I < A.Rows; ++I) {
    Cols.clear();
    for (int64_t K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K) {
      int64_t Kc = A.Idx[K];
      for (int64_t L = B.Ptr[Kc]; L < B.Ptr[Kc + 1]; ++L) {
        int64_t J = B.Idx[L];
        ++Products;
        if (Mark[J] != I) {
          Mark[J] = I;
          Acc[J] = T{};
          Cols.push_back(J);
        }
        Acc[J] += A.Val[K] * B.Val[L];
      }
    }
    std::sort(Cols.begin(), Cols.end());
    for (int64_t J : Cols) {
      D.Idx.push_back(J);
      Vals.push_back(Alpha * Acc[J]);
    }
    D.Ptr[I + 1] = static_cast<int64_t>(D.Idx.size());
  }
  D.Products = Products;
  D.Val.resize(Vals.size() * sizeof(T));
  if (!Vals.empty())
    std::memcpy(D.Val.data(), Vals.data(), D.Val.size());
}

cusparseStatus_t checkSpGEMM(const char *Name, cusparseHandle_t handle, cusparseOperation_t opA,
                             cusparseOperation_t opB, cusparseConstSpMatDescr_t matA,
                             cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
                             cudaDataType computeType, cusparseSpGEMMAlg_t alg,
                             cusparseSpGEMMDescr_t descr, bool Typed) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !matB || !matC || !descr || !validOp(opA) || !validOp(opB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (alg < CUSPARSE_SPGEMM_DEFAULT || alg > CUSPARSE_SPGEMM_ALG3)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (opA != CUSPARSE_OPERATION_NON_TRANSPOSE || opB != CUSPARSE_OPERATION_NON_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as NVIDIA's: SpGEMM takes no transposes
  if (matA->Format != CUSPARSE_FORMAT_CSR || matB->Format != CUSPARSE_FORMAT_CSR ||
      matC->Format != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (matA->Cols != matB->Rows || matC->Rows != matA->Rows || matC->Cols != matB->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return checkTypes(Name, Typed ? computeType : matA->Type, {matA->Type, matB->Type, matC->Type});
}

/// The step that needs a buffer: a null buffer asks for its size.
cusparseStatus_t sizeQuery(size_t *Size, void *Buffer, bool &Query) {
  if (!Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Query = !Buffer;
  if (Query)
    *Size = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

/// Computes descr's product of A and B (stream ordered) and waits for it.
cusparseStatus_t spgemmCompute(cusparseHandle_t handle, const cusparseSpMatDescr *A,
                               const cusparseSpMatDescr *B, cusparseSpMatDescr *C,
                               cudaDataType Type, Scalar Alpha, cusparseSpGEMMDescr *D) {
  D->Type = Type;
  cusparseStatus_t S = enqueue(handle, [A = *A, B = *B, Type, Alpha, D, C] {
    dispatchType(Type, [&](auto Zero) {
      using T = decltype(Zero);
      spgemmProduct(readCsr<T>(A), readCsr<T>(B), scalarValue<T>(Alpha), *D);
    });
    D->Computed = !D->TooLarge;
    C->Nnz = static_cast<int64_t>(D->Idx.size());
  });
  if (S != CUSPARSE_STATUS_SUCCESS)
    return S;
  if ((S = syncStream(handle)))
    return S;
  if (D->TooLarge) {
    logMessage("cusparseSpGEMM_compute: the product needs %llu bytes of host memory, more than is free "
               "(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)",
               static_cast<unsigned long long>(D->TooLarge));
    return CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

/// Writes descr's product into C's arrays (structure, values or both).
void spgemmWrite(const cusparseSpGEMMDescr &D, const cusparseSpMatDescr &C, bool Structure,
                 bool Values) {
  int64_t B = C.Base;
  if (Structure) {
    for (size_t I = 0; I < D.Ptr.size(); ++I)
      storeIndex(C.Offsets, C.OffType, static_cast<int64_t>(I), D.Ptr[I] + B);
    for (size_t K = 0; K < D.Idx.size(); ++K)
      storeIndex(C.Indices, C.IdxType, static_cast<int64_t>(K), D.Idx[K] + B);
  }
  if (Values && !D.Val.empty())
    std::memcpy(C.Values, D.Val.data(), D.Val.size());
}

} // namespace

extern "C" {

cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                         const void *alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnVecDescr_t vecX, const void *beta,
                                         cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                         cusparseSpMVAlg_t alg, size_t *bufferSize) {
  if (cusparseStatus_t S = checkSpMV(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg))
    return S;
  if (!bufferSize)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = mustForward(handle) ? rocSpmvBufferSize(handle, opA, alpha, *matA, *vecX, beta, *vecY, computeType,
                                                        ScratchBytes)
                                    : ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                         const void *alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnVecDescr_t vecX, const void *beta,
                                         cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                         cusparseSpMVAlg_t alg, void *) {
  return checkSpMV(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
}

cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                              cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                              const void *beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                              cusparseSpMVAlg_t alg, void *externalBuffer) {
  if (cusparseStatus_t S = checkSpMV(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg))
    return S;
  if (!externalBuffer) // ferry's SpMV needs no scratch, but NVIDIA's refuses a null one (recorded)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (vecY->Size == 0)
    return CUSPARSE_STATUS_SUCCESS;
  if (cusparseStatus_t S = checkData("cusparseSpMV", {matA},
                                     {{vecX->Values, vecX->Size}, {vecY->Values, vecY->Size}}))
    return S;
  Scalar Al = takeScalar(handle, alpha, computeType), Be = takeScalar(handle, beta, computeType);
  if (mustForward(handle))
    return rocSpmv(handle, opA, Al, *matA, *vecX, Be, *vecY, computeType, externalBuffer);
  return enqueue(handle, [A = *matA, opA, Al, Be, X = vecX->Values, Y = vecY->Values, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      spmv<T>(A, opA, scalarValue<T>(Al), static_cast<const T *>(X), scalarValue<T>(Be),
              static_cast<T *>(Y));
    });
  });
}

// SpMM: C = alpha op(A) op(B) + beta C.

static cusparseStatus_t checkSpMM(cusparseHandle_t handle, cusparseOperation_t opA,
                                  cusparseOperation_t opB, const void *alpha,
                                  cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                  const void *beta, cusparseDnMatDescr_t matC,
                                  cudaDataType computeType, cusparseSpMMAlg_t alg) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !matB || !matC || !alpha || !beta || !validOp(opA) || !validOp(opB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (alg < CUSPARSE_SPMM_ALG_DEFAULT || alg > CUSPARSE_SPMM_BSR_ALG1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  int64_t M, K, K2, N;
  opShape(matA, opA, M, K);
  opShape(matB, opB, K2, N);
  if (K != K2 || matC->Rows != M || matC->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S =
          checkTypes("cusparseSpMM", computeType, {matA->Type, matB->Type, matC->Type}))
    return S;
  if (matB->BatchCount > 1 || matC->BatchCount > 1) {
    logMessage("cusparseSpMM: batched dense matrices are not implemented");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  if (cusparseStatus_t S = checkGeneral("cusparseSpMM", matA))
    return S;
  if (matA->Format == CUSPARSE_FORMAT_BSR && matA->BlockOrder == CUSPARSE_ORDER_COL) {
    // NVIDIA's SpMM takes row-major blocks only (recorded: NOT_SUPPORTED).
    logMessage("cusparseSpMM: BSR with column-major blocks is not supported (as NVIDIA's)");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return checkFormat("cusparseSpMM", matA);
}

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, const void *beta,
                                         cusparseDnMatDescr_t matC, cudaDataType computeType,
                                         cusparseSpMMAlg_t alg, size_t *bufferSize) {
  if (cusparseStatus_t S =
          checkSpMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg))
    return S;
  if (!bufferSize)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = mustForward(handle) ? rocSpmmBufferSize(handle, opA, opB, alpha, *matA, *matB, beta, *matC,
                                                        computeType, ScratchBytes)
                                    : ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, const void *beta,
                                         cusparseDnMatDescr_t matC, cudaDataType computeType,
                                         cusparseSpMMAlg_t alg, void *) {
  return checkSpMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg);
}

cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA,
                              cusparseOperation_t opB, const void *alpha,
                              cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                              const void *beta, cusparseDnMatDescr_t matC, cudaDataType computeType,
                              cusparseSpMMAlg_t alg, void *externalBuffer) {
  if (cusparseStatus_t S =
          checkSpMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg))
    return S;
  if (!externalBuffer) {
    // NVIDIA's runs into the null buffer and answers INTERNAL_ERROR (recorded).
    logMessage("cusparseSpMM: null externalBuffer (CUSPARSE_STATUS_INTERNAL_ERROR, as NVIDIA's)");
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  }
  if (cusparseStatus_t S = checkData(
          "cusparseSpMM", {matA},
          {{matB->Values, matB->Rows * matB->Cols}, {matC->Values, matC->Rows * matC->Cols}}))
    return S;
  Scalar Al = takeScalar(handle, alpha, computeType), Be = takeScalar(handle, beta, computeType);
  if (mustForward(handle))
    return rocSpmm(handle, opA, opB, Al, *matA, *matB, Be, *matC, computeType, externalBuffer);
  return enqueue(handle, [A = *matA, B = *matB, C = *matC, opA, opB, Al, Be, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      Csr<T> Op = readOp<T>(A, opA);
      Dense<T> Db = dense<T>(B), Dc = dense<T>(C);
      T Alpha = scalarValue<T>(Al), Beta = scalarValue<T>(Be);
      std::vector<T> Row(C.Cols);
      for (int64_t I = 0; I < C.Rows; ++I) {
        std::fill(Row.begin(), Row.end(), T{});
        for (int64_t K = Op.Ptr[I]; K < Op.Ptr[I + 1]; ++K)
          for (int64_t J = 0; J < C.Cols; ++J)
            Row[J] += Op.Val[K] * opAt(Db, opB, Op.Idx[K], J);
        for (int64_t J = 0; J < C.Cols; ++J) {
          T &Cij = Dc.at(I, J);
          Cij = Beta == T{} ? Alpha * Row[J] : Alpha * Row[J] + Beta * Cij;
        }
      }
    });
  });
}

// SpSV: op(A) Y = alpha X, A triangular.

cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *descr) {
  if (!descr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *descr = new (std::nothrow) cusparseSpSVDescr;
  return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t descr) {
  delete descr;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t checkSpSV(cusparseHandle_t handle, cusparseOperation_t opA,
                                  const void *alpha, cusparseConstSpMatDescr_t matA,
                                  cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                  cudaDataType computeType, cusparseSpSVAlg_t alg,
                                  cusparseSpSVDescr_t descr, bool Solving = false) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !vecX || !vecY || !alpha || !descr || !validOp(opA) ||
      alg != CUSPARSE_SPSV_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  int64_t M, N;
  opShape(matA, opA, M, N);
  // NVIDIA's bufferSize and analysis accept vectors of another size
  // (recorded); the solve, which reads them, refuses them.
  if (M != N || (Solving && (vecX->Size != N || vecY->Size != M)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S =
          checkTypes("cusparseSpSV", computeType, {matA->Type, vecX->Type, vecY->Type}))
    return S;
  if (cusparseStatus_t S = checkTriangle("cusparseSpSV", matA))
    return S;
  if (matA->Format != CUSPARSE_FORMAT_CSR && matA->Format != CUSPARSE_FORMAT_COO &&
      matA->Format != CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return checkFormat("cusparseSpSV", matA);
}

cusparseStatus_t cusparseSpSV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                         const void *alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                         cudaDataType computeType, cusparseSpSVAlg_t alg,
                                         cusparseSpSVDescr_t spsvDescr, size_t *bufferSize) {
  if (cusparseStatus_t S =
          checkSpSV(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr))
    return S;
  if (!bufferSize)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSV_analysis(cusparseHandle_t handle, cusparseOperation_t opA,
                                       const void *alpha, cusparseConstSpMatDescr_t matA,
                                       cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                       cudaDataType computeType, cusparseSpSVAlg_t alg,
                                       cusparseSpSVDescr_t spsvDescr, void *externalBuffer) {
  if (cusparseStatus_t S =
          checkSpSV(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr))
    return S;
  (void)externalBuffer; // NVIDIA's accepts a null buffer here (recorded); ferry needs none
  spsvDescr->Analysed = true;
  spsvDescr->NewValues = nullptr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSV_solve(cusparseHandle_t handle, cusparseOperation_t opA,
                                    const void *alpha, cusparseConstSpMatDescr_t matA,
                                    cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                    cudaDataType computeType, cusparseSpSVAlg_t alg,
                                    cusparseSpSVDescr_t spsvDescr) {
  if (cusparseStatus_t S =
          checkSpSV(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr, true))
    return S;
  if (!spsvDescr->Analysed)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = checkData("cusparseSpSV_solve", {matA},
                                     {{vecX->Values, vecX->Size}, {vecY->Values, vecY->Size}}))
    return S;
  Scalar Al = takeScalar(handle, alpha, computeType);
  cusparseSpMatDescr A = *matA;
  if (spsvDescr->NewValues)
    A.Values = spsvDescr->NewValues;
  return enqueue(handle, [A, opA, Al, X = vecX->Values, Y = vecY->Values, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      const T *Xv = static_cast<const T *>(X);
      T *Yv = static_cast<T *>(Y);
      triSolve<T>(
          A, opA, scalarValue<T>(Al), 1, [Xv](int64_t I, int64_t) { return Xv[I]; },
          [Yv](int64_t I, int64_t) -> T & { return Yv[I]; });
    });
  });
}

cusparseStatus_t cusparseSpSV_updateMatrix(cusparseHandle_t handle, cusparseSpSVDescr_t spsvDescr,
                                           void *newValues, cusparseSpSVUpdate_t updatePart) {
  if (!validHandle(handle))
    return BadHandle;
  if (!spsvDescr || !newValues)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (updatePart != CUSPARSE_SPSV_UPDATE_GENERAL) {
    logMessage("cusparseSpSV_updateMatrix: CUSPARSE_SPSV_UPDATE_DIAGONAL is not implemented");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  spsvDescr->NewValues = newValues;
  return CUSPARSE_STATUS_SUCCESS;
}

// SpSM: op(A) C = alpha op(B), A triangular.

cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *descr) {
  if (!descr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *descr = new (std::nothrow) cusparseSpSMDescr;
  return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t descr) {
  delete descr;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t checkSpSM(cusparseHandle_t handle, cusparseOperation_t opA,
                                  cusparseOperation_t opB, const void *alpha,
                                  cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                  cusparseDnMatDescr_t matC, cudaDataType computeType,
                                  cusparseSpSMAlg_t alg, cusparseSpSMDescr_t descr) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !matB || !matC || !alpha || !descr || !validOp(opA) || !validOp(opB) ||
      alg != CUSPARSE_SPSM_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  int64_t M, N, Bm, Bn;
  opShape(matA, opA, M, N);
  opShape(matB, opB, Bm, Bn);
  if (M != N || Bm != M || matC->Rows != M || matC->Cols != Bn)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S =
          checkTypes("cusparseSpSM", computeType, {matA->Type, matB->Type, matC->Type}))
    return S;
  if (cusparseStatus_t S = checkTriangle("cusparseSpSM", matA))
    return S;
  if (matA->Format != CUSPARSE_FORMAT_CSR && matA->Format != CUSPARSE_FORMAT_COO &&
      matA->Format != CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return checkFormat("cusparseSpSM", matA);
}

cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, cusparseDnMatDescr_t matC,
                                         cudaDataType computeType, cusparseSpSMAlg_t alg,
                                         cusparseSpSMDescr_t spsmDescr, size_t *bufferSize) {
  if (cusparseStatus_t S =
          checkSpSM(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr))
    return S;
  if (!bufferSize)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t handle, cusparseOperation_t opA,
                                       cusparseOperation_t opB, const void *alpha,
                                       cusparseConstSpMatDescr_t matA,
                                       cusparseConstDnMatDescr_t matB, cusparseDnMatDescr_t matC,
                                       cudaDataType computeType, cusparseSpSMAlg_t alg,
                                       cusparseSpSMDescr_t spsmDescr, void *externalBuffer) {
  if (cusparseStatus_t S =
          checkSpSM(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr))
    return S;
  (void)externalBuffer; // as SpSV_analysis: a null buffer is accepted
  spsmDescr->Analysed = true;
  spsmDescr->NewValues = nullptr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t handle, cusparseOperation_t opA,
                                    cusparseOperation_t opB, const void *alpha,
                                    cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                    cusparseDnMatDescr_t matC, cudaDataType computeType,
                                    cusparseSpSMAlg_t alg, cusparseSpSMDescr_t spsmDescr) {
  if (cusparseStatus_t S =
          checkSpSM(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr))
    return S;
  if (!spsmDescr->Analysed)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = checkData(
          "cusparseSpSM_solve", {matA},
          {{matB->Values, matB->Rows * matB->Cols}, {matC->Values, matC->Rows * matC->Cols}}))
    return S;
  Scalar Al = takeScalar(handle, alpha, computeType);
  cusparseSpMatDescr A = *matA;
  if (spsmDescr->NewValues)
    A.Values = spsmDescr->NewValues;
  return enqueue(handle, [A, B = *matB, C = *matC, opA, opB, Al, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      Dense<T> Db = dense<T>(B), Dc = dense<T>(C);
      triSolve<T>(
          A, opA, scalarValue<T>(Al), C.Cols,
          [&](int64_t I, int64_t J) { return opAt(Db, opB, I, J); },
          [&](int64_t I, int64_t J) -> T & { return Dc.at(I, J); });
    });
  });
}

cusparseStatus_t cusparseSpSM_updateMatrix(cusparseHandle_t handle, cusparseSpSMDescr_t spsmDescr,
                                           void *newValues, cusparseSpSMUpdate_t updatePart) {
  if (!validHandle(handle))
    return BadHandle;
  if (!spsmDescr || !newValues)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (updatePart != CUSPARSE_SPSM_UPDATE_GENERAL) {
    logMessage("cusparseSpSM_updateMatrix: CUSPARSE_SPSM_UPDATE_DIAGONAL is not implemented");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  spsmDescr->NewValues = newValues;
  return CUSPARSE_STATUS_SUCCESS;
}

// SDDMM: C = alpha (op(A) op(B)) .* spy(C) + beta C, C in CSR (COO refused, as NVIDIA's).

static cusparseStatus_t checkSDDMM(cusparseHandle_t handle, cusparseOperation_t opA,
                                   cusparseOperation_t opB, const void *alpha,
                                   cusparseConstDnMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                   const void *beta, cusparseSpMatDescr_t matC,
                                   cudaDataType computeType, cusparseSDDMMAlg_t alg) {
  if (!validHandle(handle))
    return BadHandle;
  if (!matA || !matB || !matC || !alpha || !beta || !validOp(opA) || !validOp(opB) ||
      alg != CUSPARSE_SDDMM_ALG_DEFAULT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  int64_t M, K, K2, N;
  opShape(matA, opA, M, K);
  opShape(matB, opB, K2, N);
  if (K != K2 || matC->Rows != M || matC->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S =
          checkTypes("cusparseSDDMM", computeType, {matA->Type, matB->Type, matC->Type}))
    return S;
  if (matC->Format != CUSPARSE_FORMAT_CSR) { // NVIDIA's refuses COO too (recorded)
    logMessage("cusparseSDDMM: sparse format %d is not implemented",
               static_cast<int>(matC->Format));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return checkFormat("cusparseSDDMM", matC);
}

cusparseStatus_t cusparseSDDMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                          cusparseOperation_t opB, const void *alpha,
                                          cusparseConstDnMatDescr_t matA,
                                          cusparseConstDnMatDescr_t matB, const void *beta,
                                          cusparseSpMatDescr_t matC, cudaDataType computeType,
                                          cusparseSDDMMAlg_t alg, size_t *bufferSize) {
  if (cusparseStatus_t S =
          checkSDDMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg))
    return S;
  if (!bufferSize)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSDDMM_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                          cusparseOperation_t opB, const void *alpha,
                                          cusparseConstDnMatDescr_t matA,
                                          cusparseConstDnMatDescr_t matB, const void *beta,
                                          cusparseSpMatDescr_t matC, cudaDataType computeType,
                                          cusparseSDDMMAlg_t alg, void *) {
  return checkSDDMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg);
}

cusparseStatus_t cusparseSDDMM(cusparseHandle_t handle, cusparseOperation_t opA,
                               cusparseOperation_t opB, const void *alpha,
                               cusparseConstDnMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                               const void *beta, cusparseSpMatDescr_t matC,
                               cudaDataType computeType, cusparseSDDMMAlg_t alg, void *) {
  if (cusparseStatus_t S =
          checkSDDMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg))
    return S;
  if (cusparseStatus_t S = checkData(
          "cusparseSDDMM", {matC},
          {{matA->Values, matA->Rows * matA->Cols}, {matB->Values, matB->Rows * matB->Cols}}))
    return S;
  Scalar Al = takeScalar(handle, alpha, computeType), Be = takeScalar(handle, beta, computeType);
  int64_t K, M;
  opShape(matA, opA, M, K);
  return enqueue(handle, [A = *matA, B = *matB, C = *matC, opA, opB, Al, Be, computeType, K] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      Dense<T> Da = dense<T>(A), Db = dense<T>(B);
      T Alpha = scalarValue<T>(Al), Beta = scalarValue<T>(Be);
      T *V = static_cast<T *>(C.Values);
      int64_t Base = C.Base;
      auto One = [&](int64_t I, int64_t J, int64_t At) {
        T Sum{};
        for (int64_t L = 0; L < K; ++L)
          Sum += opAt(Da, opA, I, L) * opAt(Db, opB, L, J);
        V[At] = Beta == T{} ? Alpha * Sum : Alpha * Sum + Beta * V[At];
      };
      if (C.Format == CUSPARSE_FORMAT_COO) {
        for (int64_t E = 0; E < C.Nnz; ++E)
          One(loadIndex(C.Rows2, C.IdxType, E) - Base, loadIndex(C.Indices, C.IdxType, E) - Base,
              E);
        return;
      }
      for (int64_t I = 0; I < C.Rows; ++I)
        for (int64_t E = loadIndex(C.Offsets, C.OffType, I) - Base;
             E < loadIndex(C.Offsets, C.OffType, I + 1) - Base; ++E)
          One(I, loadIndex(C.Indices, C.IdxType, E) - Base, E);
    });
  });
}

// SpGEMM: C = alpha op(A) op(B) (+ beta C only when beta is zero).

cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *descr) {
  if (!descr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *descr = new (std::nothrow) cusparseSpGEMMDescr;
  return *descr ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr) {
  delete descr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpGEMM_workEstimation(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize1, void *externalBuffer1) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMM_workEstimation", handle, opA, opB, matA,
                                       matB, matC, computeType, alg, spgemmDescr, true))
    return S;
  if (!alpha || !beta)
    return CUSPARSE_STATUS_INVALID_VALUE;
  bool Query;
  if (cusparseStatus_t S = sizeQuery(bufferSize1, externalBuffer1, Query))
    return S;
  if (!Query)
    spgemmDescr->Estimated = true;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpGEMM_estimateMemory(
    cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
    cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB, const void *beta,
    cusparseSpMatDescr_t matC, cudaDataType computeType, cusparseSpGEMMAlg_t alg,
    cusparseSpGEMMDescr_t spgemmDescr, float chunk_fraction, size_t *bufferSize3,
    void *externalBuffer3, size_t *bufferSize2) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMM_estimateMemory", handle, opA, opB, matA,
                                       matB, matC, computeType, alg, spgemmDescr, true))
    return S;
  if (!bufferSize3 || !bufferSize2 || chunk_fraction <= 0 || chunk_fraction > 1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  (void)alpha;
  (void)beta;
  *bufferSize3 = ScratchBytes;
  if (externalBuffer3)
    *bufferSize2 = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t opA,
                                        cusparseOperation_t opB, const void *alpha,
                                        cusparseConstSpMatDescr_t matA,
                                        cusparseConstSpMatDescr_t matB, const void *beta,
                                        cusparseSpMatDescr_t matC, cudaDataType computeType,
                                        cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr,
                                        size_t *bufferSize2, void *externalBuffer2) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMM_compute", handle, opA, opB, matA, matB, matC,
                                       computeType, alg, spgemmDescr, true))
    return S;
  if (!alpha || !beta)
    return CUSPARSE_STATUS_INVALID_VALUE;
  bool Query;
  if (cusparseStatus_t S = sizeQuery(bufferSize2, externalBuffer2, Query))
    return S;
  if (Query) // NVIDIA's answers the size even before workEstimation (recorded)
    return CUSPARSE_STATUS_SUCCESS;
  if (!spgemmDescr->Estimated)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = checkData("cusparseSpGEMM_compute", {matA, matB}, {}))
    return S;
  return spgemmCompute(handle, matA, matB, matC, computeType,
                       takeScalar(handle, alpha, computeType), spgemmDescr);
}

cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t opA,
                                     cusparseOperation_t opB, const void *alpha,
                                     cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,
                                     const void *beta, cusparseSpMatDescr_t matC,
                                     cudaDataType computeType, cusparseSpGEMMAlg_t alg,
                                     cusparseSpGEMMDescr_t spgemmDescr) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMM_copy", handle, opA, opB, matA, matB, matC,
                                       computeType, alg, spgemmDescr, true))
    return S;
  if (!alpha || !beta || !spgemmDescr->Computed)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!matC->Offsets || (matC->Nnz > 0 && (!matC->Indices || !matC->Values)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // C = alpha op(A) op(B) + beta C needs C's old pattern merged in, which
  // ferry does not do: a nonzero beta is refused (read now; a device
  // scalar after the stream's earlier work).
  if (handle->Mode == CUSPARSE_POINTER_MODE_DEVICE)
    if (cusparseStatus_t S = syncStream(handle))
      return S;
  bool BetaZero = true;
  dispatchType(computeType, [&](auto Zero) {
    decltype(Zero) V;
    std::memcpy(&V, beta, sizeof V);
    BetaZero = V == decltype(Zero){};
  });
  if (!BetaZero) {
    logMessage("cusparseSpGEMM_copy: beta != 0 (adding to C's previous values) is not implemented");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  cusparseSpGEMMDescr *D = spgemmDescr;
  return enqueue(handle, [D, C = *matC] { spgemmWrite(*D, C, true, true); });
}

cusparseStatus_t cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t spgemmDescr,
                                               int64_t *num_prods) {
  if (!spgemmDescr || !num_prods)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *num_prods = spgemmDescr->Products;
  return CUSPARSE_STATUS_SUCCESS;
}

// SpGEMMreuse: the structure once (workEstimation, nnz, copy), then values
// (compute) as often as A's and B's values change.

cusparseStatus_t
cusparseSpGEMMreuse_workEstimation(cusparseHandle_t handle, cusparseOperation_t opA,
                                   cusparseOperation_t opB, cusparseConstSpMatDescr_t matA,
                                   cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
                                   cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr,
                                   size_t *bufferSize1, void *externalBuffer1) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMMreuse_workEstimation", handle, opA, opB, matA,
                                       matB, matC, CUDA_R_32F, alg, spgemmDescr, false))
    return S;
  bool Query;
  if (cusparseStatus_t S = sizeQuery(bufferSize1, externalBuffer1, Query))
    return S;
  if (!Query)
    spgemmDescr->Estimated = true;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpGEMMreuse_nnz(cusparseHandle_t handle, cusparseOperation_t opA,
                                         cusparseOperation_t opB, cusparseConstSpMatDescr_t matA,
                                         cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
                                         cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr,
                                         size_t *bufferSize2, void *externalBuffer2,
                                         size_t *bufferSize3, void *externalBuffer3,
                                         size_t *bufferSize4, void *externalBuffer4) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMMreuse_nnz", handle, opA, opB, matA, matB,
                                       matC, CUDA_R_32F, alg, spgemmDescr, false))
    return S;
  if (!spgemmDescr->Estimated || !bufferSize2 || !bufferSize3 || !bufferSize4)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!externalBuffer2 || !externalBuffer3 || !externalBuffer4) {
    *bufferSize2 = *bufferSize3 = *bufferSize4 = ScratchBytes;
    return CUSPARSE_STATUS_SUCCESS;
  }
  Scalar One;
  dispatchType(matA->Type, [&](auto Zero) {
    decltype(Zero) V(1);
    std::memcpy(One.Bytes, &V, sizeof V);
  });
  return spgemmCompute(handle, matA, matB, matC, matA->Type, One, spgemmDescr);
}

cusparseStatus_t cusparseSpGEMMreuse_copy(cusparseHandle_t handle, cusparseOperation_t opA,
                                          cusparseOperation_t opB, cusparseConstSpMatDescr_t matA,
                                          cusparseConstSpMatDescr_t matB, cusparseSpMatDescr_t matC,
                                          cusparseSpGEMMAlg_t alg,
                                          cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize5,
                                          void *externalBuffer5) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMMreuse_copy", handle, opA, opB, matA, matB,
                                       matC, CUDA_R_32F, alg, spgemmDescr, false))
    return S;
  if (!spgemmDescr->Computed || !bufferSize5)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!externalBuffer5) {
    *bufferSize5 = ScratchBytes;
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (!matC->Offsets || (matC->Nnz > 0 && !matC->Indices))
    return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseSpGEMMDescr *D = spgemmDescr;
  return enqueue(handle, [D, C = *matC] { spgemmWrite(*D, C, true, false); });
}

cusparseStatus_t cusparseSpGEMMreuse_compute(cusparseHandle_t handle, cusparseOperation_t opA,
                                             cusparseOperation_t opB, const void *alpha,
                                             cusparseConstSpMatDescr_t matA,
                                             cusparseConstSpMatDescr_t matB, const void *beta,
                                             cusparseSpMatDescr_t matC, cudaDataType computeType,
                                             cusparseSpGEMMAlg_t alg,
                                             cusparseSpGEMMDescr_t spgemmDescr) {
  if (cusparseStatus_t S = checkSpGEMM("cusparseSpGEMMreuse_compute", handle, opA, opB, matA, matB,
                                       matC, computeType, alg, spgemmDescr, true))
    return S;
  if (!alpha || !beta || !spgemmDescr->Computed || !matC->Values)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Al = takeScalar(handle, alpha, computeType), Be = takeScalar(handle, beta, computeType);
  // The product with A's and B's current values, in C's structure (the
  // structure the nnz step found), scaled: C = alpha A B + beta C.
  return enqueue(handle, [A = *matA, B = *matB, C = *matC, Al, Be, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      cusparseSpGEMMDescr Fresh;
      spgemmProduct(readCsr<T>(A), readCsr<T>(B), scalarValue<T>(Al), Fresh);
      const T *P = reinterpret_cast<const T *>(Fresh.Val.data());
      T *V = static_cast<T *>(C.Values);
      T Beta = scalarValue<T>(Be);
      for (size_t K = 0; K < Fresh.Idx.size(); ++K)
        V[K] = Beta == T{} ? P[K] : P[K] + Beta * V[K];
    });
  });
}

// Sparse vectors.

cusparseStatus_t cusparseSpVV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opX,
                                         cusparseConstSpVecDescr_t vecX,
                                         cusparseConstDnVecDescr_t vecY, const void *result,
                                         cudaDataType computeType, size_t *bufferSize) {
  if (!validHandle(handle))
    return BadHandle;
  if (!vecX || !vecY || !result || !bufferSize || !validOp(opX) || vecX->Size != vecY->Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = checkTypes("cusparseSpVV", computeType, {vecX->Type, vecY->Type}))
    return S;
  *bufferSize = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpVV(cusparseHandle_t handle, cusparseOperation_t opX,
                              cusparseConstSpVecDescr_t vecX, cusparseConstDnVecDescr_t vecY,
                              void *result, cudaDataType computeType, void *) {
  if (!validHandle(handle))
    return BadHandle;
  if (!vecX || !vecY || !result || !validOp(opX) || opX == CUSPARSE_OPERATION_TRANSPOSE ||
      vecX->Size != vecY->Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = checkTypes("cusparseSpVV", computeType, {vecX->Type, vecY->Type}))
    return S;
  cusparseStatus_t S = enqueue(handle, [X = *vecX, Y = vecY->Values, result, opX, computeType] {
    dispatchType(computeType, [&](auto Zero) {
      using T = decltype(Zero);
      const T *Xv = static_cast<const T *>(X.Values), *Yv = static_cast<const T *>(Y);
      T Sum{};
      for (int64_t K = 0; K < X.Nnz; ++K) {
        T V = opX == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? conjOf(Xv[K]) : Xv[K];
        Sum += V * Yv[loadIndex(X.Indices, X.IdxType, K) - X.Base];
      }
      std::memcpy(result, &Sum, sizeof Sum);
    });
  });
  // A host result is ready when the call returns.
  if (S == CUSPARSE_STATUS_SUCCESS && handle->Mode == CUSPARSE_POINTER_MODE_HOST)
    S = syncStream(handle);
  return S;
}

static cusparseStatus_t checkVecPair(cusparseHandle_t handle, cusparseConstSpVecDescr_t vecX,
                                     cusparseConstDnVecDescr_t vecY) {
  if (!validHandle(handle))
    return BadHandle;
  if (!vecX || !vecY || vecX->Size != vecY->Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (vecX->Type != vecY->Type || !valueSize(vecX->Type)) {
    logMessage("sparse vector operation on value types %d and %d is not implemented",
               static_cast<int>(vecX->Type), static_cast<int>(vecY->Type));
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseAxpby(cusparseHandle_t handle, const void *alpha,
                               cusparseConstSpVecDescr_t vecX, const void *beta,
                               cusparseDnVecDescr_t vecY) {
  if (cusparseStatus_t S = checkVecPair(handle, vecX, vecY))
    return S;
  if (!alpha || !beta)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Al = takeScalar(handle, alpha, vecX->Type), Be = takeScalar(handle, beta, vecX->Type);
  return enqueue(handle, [X = *vecX, Y = *vecY, Al, Be] {
    dispatchType(X.Type, [&](auto Zero) {
      using T = decltype(Zero);
      const T *Xv = static_cast<const T *>(X.Values);
      T *Yv = static_cast<T *>(Y.Values);
      T Alpha = scalarValue<T>(Al), Beta = scalarValue<T>(Be);
      for (int64_t I = 0; I < Y.Size; ++I)
        Yv[I] = Beta == T{} ? T{} : Beta * Yv[I];
      for (int64_t K = 0; K < X.Nnz; ++K)
        Yv[loadIndex(X.Indices, X.IdxType, K) - X.Base] += Alpha * Xv[K];
    });
  });
}

cusparseStatus_t cusparseGather(cusparseHandle_t handle, cusparseConstDnVecDescr_t vecY,
                                cusparseSpVecDescr_t vecX) {
  if (cusparseStatus_t S = checkVecPair(handle, vecX, vecY))
    return S;
  return enqueue(handle, [X = *vecX, Y = *vecY] {
    size_t Size = valueSize(X.Type);
    for (int64_t K = 0; K < X.Nnz; ++K)
      std::memcpy(static_cast<char *>(X.Values) + K * Size,
                  static_cast<const char *>(Y.Values) +
                      (loadIndex(X.Indices, X.IdxType, K) - X.Base) * Size,
                  Size);
  });
}

cusparseStatus_t cusparseScatter(cusparseHandle_t handle, cusparseConstSpVecDescr_t vecX,
                                 cusparseDnVecDescr_t vecY) {
  if (cusparseStatus_t S = checkVecPair(handle, vecX, vecY))
    return S;
  return enqueue(handle, [X = *vecX, Y = *vecY] {
    size_t Size = valueSize(X.Type);
    for (int64_t K = 0; K < X.Nnz; ++K)
      std::memcpy(static_cast<char *>(Y.Values) +
                      (loadIndex(X.Indices, X.IdxType, K) - X.Base) * Size,
                  static_cast<const char *>(X.Values) + K * Size, Size);
  });
}

cusparseStatus_t cusparseRot(cusparseHandle_t handle, const void *c_coeff, const void *s_coeff,
                             cusparseSpVecDescr_t vecX, cusparseDnVecDescr_t vecY) {
  if (cusparseStatus_t S = checkVecPair(handle, vecX, vecY))
    return S;
  if (!c_coeff || !s_coeff)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Cc = takeScalar(handle, c_coeff, vecX->Type), Sc = takeScalar(handle, s_coeff, vecX->Type);
  return enqueue(handle, [X = *vecX, Y = *vecY, Cc, Sc] {
    dispatchType(X.Type, [&](auto Zero) {
      using T = decltype(Zero);
      T *Xv = static_cast<T *>(X.Values), *Yv = static_cast<T *>(Y.Values);
      T C = scalarValue<T>(Cc), S = scalarValue<T>(Sc);
      for (int64_t K = 0; K < X.Nnz; ++K) {
        T &Y1 = Yv[loadIndex(X.Indices, X.IdxType, K) - X.Base];
        T X1 = Xv[K];
        Xv[K] = C * X1 + S * Y1;
        Y1 = C * Y1 - S * X1;
      }
    });
  });
}

} // extern "C"
