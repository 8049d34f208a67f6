// A test double for rocSPARSE 3 (librocsparse.so.1): the handle, descriptor,
// SpMV and SpMM entry points ferry's libcusparse forwards to
// (libs/cusparse/RocSparse.cpp), computing with plain loops on host memory,
// which the simulated GPU's device memory is. Written from AMD's documented
// signatures, enum values and stage protocol; it refuses what a real
// rocSPARSE would (unknown enums, mismatched types and sizes, a handle
// without a HIP stream, a compute stage without a preprocessed descriptor
// and buffer) with rocSPARSE's statuses, so a wrong mapping shows as a
// refused call or a wrong result. Each computing stage logs one line.
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
constexpr int Success = 0, InvalidHandle = 1, NotImplemented = 2, InvalidPointer = 3, InvalidSize = 4,
              InvalidValue = 7;
constexpr uint32_t HandleMagic = 0x52535048, MatMagic = 0x5253504d, VecMagic = 0x52535056, DnMatMagic = 0x52534444;
constexpr uint64_t BufferMark = 0x6675666665727273ull; // written by preprocess, checked by compute

/// A stream of FakeHip.cpp's: it starts with that magic word.
bool fakeHipStreamValid(void *S) { return S && *static_cast<const uint32_t *>(S) == 0x48495053; }

struct Handle {
  uint32_t Magic = HandleMagic;
  void *Stream = nullptr;
  int PointerMode = 0;
};
struct SpMat {
  uint32_t Magic = MatMagic;
  int Format = 0; // rocsparse_format: coo 0, csr 2, csc 3
  int64_t Rows = 0, Cols = 0, Nnz = 0;
  void *Ptr = nullptr, *Ind = nullptr, *Val = nullptr; // COO: Ptr holds the row indices
  int PtrType = 0, IndType = 0, Base = 0, Type = 0;
  bool Preprocessed = false;
};
struct DnVec {
  uint32_t Magic = VecMagic;
  int64_t Size = 0;
  void *Values = nullptr;
  int Type = 0;
};
struct DnMat {
  uint32_t Magic = DnMatMagic;
  int64_t Rows = 0, Cols = 0, Ld = 0;
  void *Values = nullptr;
  int Type = 0, Order = 0; // rocsparse_order: row 0, column 1
};

template <typename T> T *live(void *P, uint32_t Magic) {
  auto *D = static_cast<T *>(P);
  return D && D->Magic == Magic ? D : nullptr;
}

bool validIndex(int T) { return T >= 1 && T <= 3; } // u16, i32, i64
bool validType(int T) { return T == 151 || T == 152 || T == 154 || T == 155; }
int64_t loadIndex(const void *P, int T, int64_t K) {
  return T == 3 ? static_cast<const int64_t *>(P)[K]
         : T == 1 ? static_cast<const uint16_t *>(P)[K]
                  : static_cast<const int32_t *>(P)[K];
}
const char *formatName(int F) { return F == 0 ? "coo" : F == 2 ? "csr" : "csc"; }

int createCompressed(void **Out, int Format, int64_t Rows, int64_t Cols, int64_t Nnz, void *Ptr, void *Ind, void *Val,
                     int PtrType, int IndType, int Base, int Type) {
  if (!Out || (Nnz > 0 && (!Ind || !Val)) || (!Ptr && (Format == 0 ? Nnz > 0 : true)))
    return InvalidPointer;
  if (Rows < 0 || Cols < 0 || Nnz < 0)
    return InvalidSize;
  if (!validIndex(PtrType) || !validIndex(IndType) || (Base != 0 && Base != 1) || !validType(Type))
    return InvalidValue;
  auto *M = new SpMat;
  M->Format = Format, M->Rows = Rows, M->Cols = Cols, M->Nnz = Nnz, M->Ptr = Ptr, M->Ind = Ind, M->Val = Val;
  M->PtrType = PtrType, M->IndType = IndType, M->Base = Base, M->Type = Type;
  *Out = M;
  return Success;
}

/// Calls F(row, column, k) for each stored entry in storage order.
template <typename F> void forEntry(const SpMat &A, F &&Fn) {
  int64_t B = A.Base;
  if (A.Format == 0) {
    for (int64_t K = 0; K < A.Nnz; ++K)
      Fn(loadIndex(A.Ptr, A.IndType, K) - B, loadIndex(A.Ind, A.IndType, K) - B, K);
    return;
  }
  int64_t Outer = A.Format == 2 ? A.Rows : A.Cols;
  for (int64_t O = 0; O < Outer; ++O)
    for (int64_t K = loadIndex(A.Ptr, A.PtrType, O) - B, E = loadIndex(A.Ptr, A.PtrType, O + 1) - B; K < E; ++K) {
      int64_t I = loadIndex(A.Ind, A.IndType, K) - B;
      if (A.Format == 2)
        Fn(O, I, K);
      else
        Fn(I, O, K);
    }
}

template <typename T> T conjOf(T V) { return V; }
template <typename R> std::complex<R> conjOf(std::complex<R> V) { return std::conj(V); }

/// Acc(op(A) row, :) += op(A)(r, c) * Row(c) for every entry, in storage order.
template <typename T, typename G>
void accumulate(const SpMat &A, int Trans, int64_t Width, std::vector<T> &Acc, G &&RowOf) {
  const T *V = static_cast<const T *>(A.Val);
  forEntry(A, [&](int64_t I, int64_t J, int64_t K) {
    T Av = Trans == 113 ? conjOf(V[K]) : V[K];
    int64_t R = Trans == 111 ? I : J, C = Trans == 111 ? J : I;
    for (int64_t W = 0; W < Width; ++W)
      Acc[R * Width + W] += Av * RowOf(C, W);
  });
}

template <typename T> T blend(T Alpha, T Sum, T Beta, T Old) {
  return Beta == T{} ? Alpha * Sum : Alpha * Sum + Beta * Old;
}

template <typename T> void spmv(const SpMat &A, int Trans, const T *Alpha, const DnVec &X, const T *Beta, DnVec &Y) {
  std::vector<T> Acc(Y.Size);
  const T *Xv = static_cast<const T *>(X.Values);
  accumulate<T>(A, Trans, 1, Acc, [&](int64_t C, int64_t) { return Xv[C]; });
  T *Yv = static_cast<T *>(Y.Values);
  for (int64_t I = 0; I < Y.Size; ++I)
    Yv[I] = blend(*Alpha, Acc[I], *Beta, Yv[I]);
}

template <typename T> T &at(const DnMat &M, int64_t I, int64_t J) {
  T *P = static_cast<T *>(M.Values);
  return M.Order == 0 ? P[I * M.Ld + J] : P[I + J * M.Ld];
}

template <typename T>
void spmm(const SpMat &A, int TransA, int TransB, const T *Alpha, const DnMat &B, const T *Beta, DnMat &C) {
  std::vector<T> Acc(C.Rows * C.Cols);
  accumulate<T>(A, TransA, C.Cols, Acc, [&](int64_t K, int64_t J) {
    return TransB == 111 ? at<T>(B, K, J) : TransB == 112 ? at<T>(B, J, K) : conjOf(at<T>(B, J, K));
  });
  for (int64_t I = 0; I < C.Rows; ++I)
    for (int64_t J = 0; J < C.Cols; ++J)
      at<T>(C, I, J) = blend(*Alpha, Acc[I * C.Cols + J], *Beta, at<T>(C, I, J));
}

template <typename F> void dispatch(int Type, F &&Fn) {
  switch (Type) {
  case 151:
    return Fn(float());
  case 152:
    return Fn(double());
  case 154:
    return Fn(std::complex<float>());
  default:
    return Fn(std::complex<double>());
  }
}

/// The stage protocol both operations share: buffer_size (1) writes the
/// size, preprocess (2) needs the buffer and marks the descriptor,
/// compute (3) needs both; anything else is rocsparse_status_invalid_value.
int stageCheck(SpMat &A, int Stage, size_t *Size, void *Buffer, size_t Need, bool &Compute) {
  Compute = false;
  switch (Stage) {
  case 1:
    if (!Size)
      return InvalidPointer;
    *Size = Need;
    return Success;
  case 2:
    if (!Buffer)
      return InvalidPointer;
    std::memcpy(Buffer, &BufferMark, sizeof BufferMark);
    A.Preprocessed = true;
    return Success;
  case 3:
    if (!Buffer || std::memcmp(Buffer, &BufferMark, sizeof BufferMark) != 0 || !A.Preprocessed)
      return InvalidPointer; // not preprocessed in this buffer
    Compute = true;
    return Success;
  default:
    return InvalidValue;
  }
}
} // namespace

extern "C" {
int rocsparse_create_handle(void **Out) {
  if (!Out)
    return InvalidPointer;
  *Out = new Handle;
  return Success;
}
int rocsparse_destroy_handle(void *H) {
  if (!live<Handle>(H, HandleMagic))
    return InvalidHandle;
  static_cast<Handle *>(H)->Magic = 0;
  delete static_cast<Handle *>(H);
  return Success;
}
int rocsparse_set_stream(void *H, void *Stream) {
  if (!live<Handle>(H, HandleMagic))
    return InvalidHandle;
  if (!fakeHipStreamValid(Stream))
    return InvalidValue;
  static_cast<Handle *>(H)->Stream = Stream;
  return Success;
}
int rocsparse_set_pointer_mode(void *H, int Mode) {
  if (!live<Handle>(H, HandleMagic))
    return InvalidHandle;
  if (Mode != 0 && Mode != 1)
    return InvalidValue;
  static_cast<Handle *>(H)->PointerMode = Mode;
  return Success;
}
int rocsparse_create_csr_descr(void **Out, int64_t Rows, int64_t Cols, int64_t Nnz, void *Ptr, void *Ind, void *Val,
                               int PtrType, int IndType, int Base, int Type) {
  return createCompressed(Out, 2, Rows, Cols, Nnz, Ptr, Ind, Val, PtrType, IndType, Base, Type);
}
int rocsparse_create_csc_descr(void **Out, int64_t Rows, int64_t Cols, int64_t Nnz, void *Ptr, void *Ind, void *Val,
                               int PtrType, int IndType, int Base, int Type) {
  return createCompressed(Out, 3, Rows, Cols, Nnz, Ptr, Ind, Val, PtrType, IndType, Base, Type);
}
int rocsparse_create_coo_descr(void **Out, int64_t Rows, int64_t Cols, int64_t Nnz, void *RowInd, void *ColInd,
                               void *Val, int IndType, int Base, int Type) {
  return createCompressed(Out, 0, Rows, Cols, Nnz, RowInd, ColInd, Val, IndType, IndType, Base, Type);
}
int rocsparse_destroy_spmat_descr(void *D) {
  if (!live<SpMat>(D, MatMagic))
    return InvalidPointer;
  static_cast<SpMat *>(D)->Magic = 0;
  delete static_cast<SpMat *>(D);
  return Success;
}
int rocsparse_create_dnvec_descr(void **Out, int64_t Size, void *Values, int Type) {
  if (!Out || (Size > 0 && !Values))
    return InvalidPointer;
  if (Size < 0)
    return InvalidSize;
  if (!validType(Type))
    return InvalidValue;
  auto *V = new DnVec;
  V->Size = Size, V->Values = Values, V->Type = Type;
  *Out = V;
  return Success;
}
int rocsparse_destroy_dnvec_descr(void *D) {
  if (!live<DnVec>(D, VecMagic))
    return InvalidPointer;
  static_cast<DnVec *>(D)->Magic = 0;
  delete static_cast<DnVec *>(D);
  return Success;
}
int rocsparse_create_dnmat_descr(void **Out, int64_t Rows, int64_t Cols, int64_t Ld, void *Values, int Type,
                                 int Order) {
  if (!Out || (Rows * Cols > 0 && !Values))
    return InvalidPointer;
  if (Rows < 0 || Cols < 0 || Ld < (Order == 0 ? Cols : Rows) || Ld < 1)
    return InvalidSize;
  if (!validType(Type) || (Order != 0 && Order != 1))
    return InvalidValue;
  auto *M = new DnMat;
  M->Rows = Rows, M->Cols = Cols, M->Ld = Ld, M->Values = Values, M->Type = Type, M->Order = Order;
  *Out = M;
  return Success;
}
int rocsparse_destroy_dnmat_descr(void *D) {
  if (!live<DnMat>(D, DnMatMagic))
    return InvalidPointer;
  static_cast<DnMat *>(D)->Magic = 0;
  delete static_cast<DnMat *>(D);
  return Success;
}

int rocsparse_spmv(void *H, int Trans, const void *Alpha, void *Mat, void *X, const void *Beta, void *Y, int Compute,
                   int Alg, int Stage, size_t *Size, void *Buffer) {
  Handle *Hd = live<Handle>(H, HandleMagic);
  if (!Hd || !Hd->Stream)
    return InvalidHandle;
  SpMat *A = live<SpMat>(Mat, MatMagic);
  DnVec *Xv = live<DnVec>(X, VecMagic), *Yv = live<DnVec>(Y, VecMagic);
  if (!Alpha || !Beta || !A || !Xv || !Yv)
    return InvalidPointer;
  if (Trans < 111 || Trans > 113 || Alg < 0 || Alg > 7 || !validType(Compute))
    return InvalidValue;
  if (A->Type != Compute || Xv->Type != Compute || Yv->Type != Compute)
    return NotImplemented; // the double does uniform precisions only
  int64_t M = Trans == 111 ? A->Rows : A->Cols, N = Trans == 111 ? A->Cols : A->Rows;
  if (Xv->Size != N || Yv->Size != M)
    return InvalidSize;
  bool Compute3;
  if (int St = stageCheck(*A, Stage, Size, Buffer, 256 + 4 * size_t(M), Compute3); St != Success || !Compute3)
    return St;
  dispatch(Compute, [&](auto Zero) {
    using T = decltype(Zero);
    spmv<T>(*A, Trans, static_cast<const T *>(Alpha), *Xv, static_cast<const T *>(Beta), *Yv);
  });
  std::fprintf(stderr, "fake rocSPARSE: spmv %s %lldx%lld op %d base %d type %d pointer mode %d\n",
               formatName(A->Format), (long long)A->Rows, (long long)A->Cols, Trans, A->Base, Compute,
               Hd->PointerMode);
  return Success;
}

int rocsparse_spmm(void *H, int TransA, int TransB, const void *Alpha, void *Mat, void *B, const void *Beta, void *C,
                   int Compute, int Alg, int Stage, size_t *Size, void *Buffer) {
  Handle *Hd = live<Handle>(H, HandleMagic);
  if (!Hd || !Hd->Stream)
    return InvalidHandle;
  SpMat *A = live<SpMat>(Mat, MatMagic);
  DnMat *Bm = live<DnMat>(B, DnMatMagic), *Cm = live<DnMat>(C, DnMatMagic);
  if (!Alpha || !Beta || !A || !Bm || !Cm)
    return InvalidPointer;
  if (TransA < 111 || TransA > 113 || TransB < 111 || TransB > 113 || Alg < 0 || Alg > 9 || !validType(Compute))
    return InvalidValue;
  if (A->Type != Compute || Bm->Type != Compute || Cm->Type != Compute)
    return NotImplemented;
  int64_t M = TransA == 111 ? A->Rows : A->Cols, K = TransA == 111 ? A->Cols : A->Rows;
  int64_t Kb = TransB == 111 ? Bm->Rows : Bm->Cols, N = TransB == 111 ? Bm->Cols : Bm->Rows;
  if (K != Kb || Cm->Rows != M || Cm->Cols != N)
    return InvalidSize;
  bool Compute3;
  if (int St = stageCheck(*A, Stage, Size, Buffer, 512, Compute3); St != Success || !Compute3)
    return St;
  dispatch(Compute, [&](auto Zero) {
    using T = decltype(Zero);
    spmm<T>(*A, TransA, TransB, static_cast<const T *>(Alpha), *Bm, static_cast<const T *>(Beta), *Cm);
  });
  std::fprintf(stderr, "fake rocSPARSE: spmm %s %lldx%lld by %lldx%lld ops %d/%d orders %d/%d type %d\n",
               formatName(A->Format), (long long)A->Rows, (long long)A->Cols, (long long)Bm->Rows,
               (long long)Bm->Cols, TransA, TransB, Bm->Order, Cm->Order, Compute);
  return Success;
}
}
