// A test double for rocBLAS (librocblas.so.4): the five entry points ferry's
// libcublas forwards GEMMs to (libs/cublas/RocBlas.cpp), computing on host
// memory, which the simulated GPU's device memory is. Written from AMD's
// documented signatures and enum values; it checks what a real rocBLAS
// would refuse (unknown enums, a handle without a stream from the fake HIP
// runtime) and returns rocBLAS's error statuses for them, so a wrong
// mapping shows as a failed call or a wrong result.
#include <complex>
#include <cstdint>
#include <cstdio>

namespace {
/// A stream of FakeHip.cpp's: it starts with that magic word.
bool fakeHipStreamValid(void *S) { return S && *static_cast<const uint32_t *>(S) == 0x48495053; }

struct FakeHandle {
  uint32_t Magic = 0x524f4342; // "ROCB"
  void *Stream = nullptr;
  int PointerMode = 0;
};
constexpr int Success = 0, InvalidHandle = 1, NotImplemented = 2, InvalidPointer = 3, InvalidSize = 4,
              InvalidValue = 11;

FakeHandle *handle(void *H) {
  auto *F = static_cast<FakeHandle *>(H);
  return F && F->Magic == 0x524f4342 ? F : nullptr;
}

template <typename T> T element(const void *P, int64_t I) { return static_cast<const T *>(P)[I]; }

template <typename T>
void gemm(int TransA, int TransB, int M, int N, int K, T Alpha, const void *A, int Lda, int64_t SA, const void *B,
          int Ldb, int64_t SB, T Beta, void *C, int Ldc, int64_t SC, int Batch) {
  for (int Bi = 0; Bi < Batch; ++Bi)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        T Sum{};
        for (int L = 0; L < K; ++L) {
          T X = TransA == 111 ? element<T>(A, Bi * SA + I + int64_t(L) * Lda)
                              : element<T>(A, Bi * SA + L + int64_t(I) * Lda);
          T Y = TransB == 111 ? element<T>(B, Bi * SB + L + int64_t(J) * Ldb)
                              : element<T>(B, Bi * SB + J + int64_t(L) * Ldb);
          Sum += X * Y;
        }
        T &Out = static_cast<T *>(C)[Bi * SC + I + int64_t(J) * Ldc];
        Out = Alpha * Sum + (Beta == T{} ? T{} : Beta * Out);
      }
}
} // namespace

extern "C" {
int rocblas_create_handle(void **Out) {
  if (!Out)
    return InvalidPointer;
  *Out = new FakeHandle;
  return Success;
}
int rocblas_destroy_handle(void *H) {
  if (!handle(H))
    return InvalidHandle;
  delete handle(H);
  return Success;
}
int rocblas_set_stream(void *H, void *Stream) {
  if (!handle(H))
    return InvalidHandle;
  if (!fakeHipStreamValid(Stream))
    return InvalidValue;
  handle(H)->Stream = Stream;
  return Success;
}
int rocblas_get_stream(void *H, void **Stream) { // rocSOLVER's double checks its handle with it
  if (!handle(H))
    return InvalidHandle;
  if (!Stream)
    return InvalidPointer;
  *Stream = handle(H)->Stream;
  return Success;
}
int rocblas_set_pointer_mode(void *H, int Mode) {
  if (!handle(H))
    return InvalidHandle;
  if (Mode != 0 && Mode != 1)
    return InvalidValue;
  handle(H)->PointerMode = Mode;
  return Success;
}
int rocblas_gemm_strided_batched_ex(void *H, int TransA, int TransB, int M, int N, int K, const void *Alpha,
                                    const void *A, int AType, int Lda, int64_t SA, const void *B, int BType, int Ldb,
                                    int64_t SB, const void *Beta, const void *C, int CType, int Ldc, int64_t SC,
                                    void *D, int DType, int Ldd, int64_t SD, int Batch, int Compute, int Algo,
                                    int32_t Solution, uint32_t Flags) {
  FakeHandle *F = handle(H);
  if (!F || !F->Stream)
    return InvalidHandle;
  for (int Op : {TransA, TransB})
    if (Op != 111 && Op != 112)
      return NotImplemented; // the double does no conjugates
  if (M < 0 || N < 0 || K < 0 || Batch < 0 || Lda < (TransA == 111 ? M : K) || Ldb < (TransB == 111 ? K : N) ||
      Ldc < M || Ldd < M)
    return InvalidSize;
  if (C != D || Ldc != Ldd || SC != SD || Algo != 0 || Solution != 0 || Flags != 0)
    return InvalidValue; // ferry always passes C as D, the standard algorithm, no flags
  if (AType != BType || AType != CType || CType != DType || Compute != AType)
    return NotImplemented; // the double does same-type GEMMs only
  // Pointer mode HOST: the scalars are host values; DEVICE: device memory,
  // which is host memory on the simulator too.
  switch (Compute) {
  case 151:
    gemm<float>(TransA, TransB, M, N, K, *static_cast<const float *>(Alpha), A, Lda, SA, B, Ldb, SB,
                *static_cast<const float *>(Beta), D, Ldd, SD, Batch);
    break;
  case 152:
    gemm<double>(TransA, TransB, M, N, K, *static_cast<const double *>(Alpha), A, Lda, SA, B, Ldb, SB,
                 *static_cast<const double *>(Beta), D, Ldd, SD, Batch);
    break;
  default:
    return NotImplemented;
  }
  std::fprintf(stderr, "fake rocBLAS: gemm %dx%dx%d ops %d/%d batch %d type %d pointer mode %d\n", M, N, K, TransA,
               TransB, Batch, Compute, F->PointerMode);
  return Success;
}
}
