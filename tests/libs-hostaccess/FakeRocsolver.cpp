// A test double for rocSOLVER (librocsolver.so.0): the S/D getrf,
// getrf_npvt, getrs, potrf, potrs, geqrf, ormqr and orgqr ferry's
// libcusolver forwards to (libs/cusolver/RocSolver.cpp), computing with
// Debian's LAPACK (OpenBLAS) on host memory, which the simulated GPU's
// device memory is. Written from AMD's documented signatures and enum
// values. Like rocSOLVER it takes a rocblas_handle and asks rocBLAS (the
// double in FakeRocblas.cpp) for its stream; it refuses what a real one
// would (a handle without a HIP stream, unknown enums, bad sizes) with
// rocBLAS's statuses, and logs one line per call.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
int rocblas_get_stream(void *Handle, void **Stream); // FakeRocblas.cpp

// LAPACK (Fortran: arguments by address, hidden character lengths last).
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void sgetrs_(const char *, const int *, const int *, const float *, const int *, const int *, float *, const int *,
             int *, size_t);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *, const int *,
             int *, size_t);
void spotrf_(const char *, const int *, float *, const int *, int *, size_t);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void spotrs_(const char *, const int *, const int *, const float *, const int *, float *, const int *, int *, size_t);
void dpotrs_(const char *, const int *, const int *, const double *, const int *, double *, const int *, int *,
             size_t);
void sgeqrf_(const int *, const int *, float *, const int *, float *, float *, const int *, int *);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void sormqr_(const char *, const char *, const int *, const int *, const int *, const float *, const int *,
             const float *, float *, const int *, float *, const int *, int *, size_t, size_t);
void dormqr_(const char *, const char *, const int *, const int *, const int *, const double *, const int *,
             const double *, double *, const int *, double *, const int *, int *, size_t, size_t);
void sorgqr_(const int *, const int *, const int *, float *, const int *, const float *, float *, const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *, const int *,
             int *);
}

namespace {
constexpr int Success = 0, InvalidHandle = 1, InvalidPointer = 3, InvalidSize = 4, InvalidValue = 11;

/// A stream of FakeHip.cpp's: it starts with that magic word.
bool fakeHipStreamValid(void *S) { return S && *static_cast<const uint32_t *>(S) == 0x48495053; }

/// rocSOLVER runs on the rocBLAS handle's stream: there must be one.
bool validHandle(void *H) {
  void *Stream = nullptr;
  return rocblas_get_stream(H, &Stream) == 0 && fakeHipStreamValid(Stream);
}

char trans(int Op) { return Op == 111 ? 'N' : Op == 112 ? 'T' : Op == 113 ? 'C' : 0; }
char fill(int Uplo) { return Uplo == 121 ? 'U' : Uplo == 122 ? 'L' : 0; }
char side(int S) { return S == 141 ? 'L' : S == 142 ? 'R' : 0; }
int max1(int V) { return V > 1 ? V : 1; }

void say(const char *P, const char *Op, int M, int N, int Extra) {
  std::fprintf(stderr, "fake rocSOLVER: %s%s %dx%d %d\n", P, Op, M, N, Extra);
}

// One set of templates over the two LAPACK tables.
template <typename T> struct Lapack;
template <> struct Lapack<float> {
  static constexpr const char *P = "s";
  static constexpr auto Getrf = sgetrf_;
  static constexpr auto Getrs = sgetrs_;
  static constexpr auto Potrf = spotrf_;
  static constexpr auto Potrs = spotrs_;
  static constexpr auto Geqrf = sgeqrf_;
  static constexpr auto Ormqr = sormqr_;
  static constexpr auto Orgqr = sorgqr_;
};
template <> struct Lapack<double> {
  static constexpr const char *P = "d";
  static constexpr auto Getrf = dgetrf_;
  static constexpr auto Getrs = dgetrs_;
  static constexpr auto Potrf = dpotrf_;
  static constexpr auto Potrs = dpotrs_;
  static constexpr auto Geqrf = dgeqrf_;
  static constexpr auto Ormqr = dormqr_;
  static constexpr auto Orgqr = dorgqr_;
};

/// Runs a LAPACK call with a workspace of the size it asks for (lwork -1).
template <typename T, typename F> int withWork(F &&Call) {
  T Query{};
  int Info = 0;
  Call(&Query, -1, &Info);
  std::vector<T> Work(max1(int(Query)));
  Call(Work.data(), int(Work.size()), &Info);
  return Info;
}

template <typename T> int getrf(void *H, int M, int N, T *A, int Lda, int *Ipiv, int *Info) {
  if (!validHandle(H))
    return InvalidHandle;
  if (M < 0 || N < 0 || Lda < max1(M))
    return InvalidSize;
  if ((M && N && (!A || !Ipiv)) || !Info)
    return InvalidPointer;
  *Info = 0;
  if (M && N)
    Lapack<T>::Getrf(&M, &N, A, &Lda, Ipiv, Info);
  say(Lapack<T>::P, "getrf", M, N, Lda);
  return Success;
}

/// LU without pivoting (right-looking), info the first zero pivot.
template <typename T> int getrfNpvt(void *H, int M, int N, T *A, int Lda, int *Info) {
  if (!validHandle(H))
    return InvalidHandle;
  if (M < 0 || N < 0 || Lda < max1(M))
    return InvalidSize;
  if ((M && N && !A) || !Info)
    return InvalidPointer;
  *Info = 0;
  for (int K = 0; K < (M < N ? M : N); ++K) {
    T Pivot = A[K + K * Lda];
    if (Pivot == T(0)) {
      if (!*Info)
        *Info = K + 1;
      continue;
    }
    for (int I = K + 1; I < M; ++I)
      A[I + K * Lda] /= Pivot;
    for (int J = K + 1; J < N; ++J)
      for (int I = K + 1; I < M; ++I)
        A[I + J * Lda] -= A[I + K * Lda] * A[K + J * Lda];
  }
  say(Lapack<T>::P, "getrf_npvt", M, N, Lda);
  return Success;
}

template <typename T> int getrs(void *H, int Op, int N, int Nrhs, T *A, int Lda, const int *Ipiv, T *B, int Ldb) {
  if (!validHandle(H))
    return InvalidHandle;
  if (!trans(Op))
    return InvalidValue;
  if (N < 0 || Nrhs < 0 || Lda < max1(N) || Ldb < max1(N))
    return InvalidSize;
  if (N && Nrhs && (!A || !Ipiv || !B))
    return InvalidPointer;
  char Tc = trans(Op);
  int Info = 0;
  if (N && Nrhs)
    Lapack<T>::Getrs(&Tc, &N, &Nrhs, A, &Lda, Ipiv, B, &Ldb, &Info, 1);
  say(Lapack<T>::P, "getrs", N, Nrhs, Op);
  return Success;
}

template <typename T> int potrf(void *H, int Uplo, int N, T *A, int Lda, int *Info) {
  if (!validHandle(H))
    return InvalidHandle;
  if (!fill(Uplo))
    return InvalidValue;
  if (N < 0 || Lda < max1(N))
    return InvalidSize;
  if ((N && !A) || !Info)
    return InvalidPointer;
  char U = fill(Uplo);
  *Info = 0;
  if (N)
    Lapack<T>::Potrf(&U, &N, A, &Lda, Info, 1);
  say(Lapack<T>::P, "potrf", N, N, Uplo);
  return Success;
}

template <typename T> int potrs(void *H, int Uplo, int N, int Nrhs, T *A, int Lda, T *B, int Ldb) {
  if (!validHandle(H))
    return InvalidHandle;
  if (!fill(Uplo))
    return InvalidValue;
  if (N < 0 || Nrhs < 0 || Lda < max1(N) || Ldb < max1(N))
    return InvalidSize;
  if (N && Nrhs && (!A || !B))
    return InvalidPointer;
  char U = fill(Uplo);
  int Info = 0;
  if (N && Nrhs)
    Lapack<T>::Potrs(&U, &N, &Nrhs, A, &Lda, B, &Ldb, &Info, 1);
  say(Lapack<T>::P, "potrs", N, Nrhs, Uplo);
  return Success;
}

template <typename T> int geqrf(void *H, int M, int N, T *A, int Lda, T *Tau) {
  if (!validHandle(H))
    return InvalidHandle;
  if (M < 0 || N < 0 || Lda < max1(M))
    return InvalidSize;
  if (M && N && (!A || !Tau))
    return InvalidPointer;
  if (M && N)
    withWork<T>([&](T *W, int L, int *Info) { Lapack<T>::Geqrf(&M, &N, A, &Lda, Tau, W, &L, Info); });
  say(Lapack<T>::P, "geqrf", M, N, Lda);
  return Success;
}

template <typename T> int ormqr(void *H, int Side, int Op, int M, int N, int K, T *A, int Lda, T *Tau, T *C, int Ldc) {
  if (!validHandle(H))
    return InvalidHandle;
  if (!side(Side) || (Op != 111 && Op != 112))
    return InvalidValue;
  int Nq = Side == 141 ? M : N;
  if (M < 0 || N < 0 || K < 0 || K > Nq || Lda < max1(Nq) || Ldc < max1(M))
    return InvalidSize;
  if (M && N && K && (!A || !Tau || !C))
    return InvalidPointer;
  char S = side(Side), Tc = trans(Op);
  if (M && N && K)
    withWork<T>([&](T *W, int L, int *Info) {
      Lapack<T>::Ormqr(&S, &Tc, &M, &N, &K, A, &Lda, Tau, C, &Ldc, W, &L, Info, 1, 1);
    });
  say(Lapack<T>::P, "ormqr", M, N, K);
  return Success;
}

template <typename T> int orgqr(void *H, int M, int N, int K, T *A, int Lda, T *Tau) {
  if (!validHandle(H))
    return InvalidHandle;
  if (M < 0 || N < 0 || N > M || K < 0 || K > N || Lda < max1(M))
    return InvalidSize;
  if (N && (!A || !Tau))
    return InvalidPointer;
  if (N)
    withWork<T>([&](T *W, int L, int *Info) { Lapack<T>::Orgqr(&M, &N, &K, A, &Lda, Tau, W, &L, Info); });
  say(Lapack<T>::P, "orgqr", M, N, K);
  return Success;
}
} // namespace

#define FAKE_ROCSOLVER(P, T)                                                                                           \
  int rocsolver_##P##getrf(void *H, int M, int N, T *A, int Lda, int *Ipiv, int *Info) {                               \
    return getrf<T>(H, M, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  int rocsolver_##P##getrf_npvt(void *H, int M, int N, T *A, int Lda, int *Info) {                                     \
    return getrfNpvt<T>(H, M, N, A, Lda, Info);                                                                        \
  }                                                                                                                    \
  int rocsolver_##P##getrs(void *H, int Op, int N, int Nrhs, T *A, int Lda, const int *Ipiv, T *B, int Ldb) {          \
    return getrs<T>(H, Op, N, Nrhs, A, Lda, Ipiv, B, Ldb);                                                             \
  }                                                                                                                    \
  int rocsolver_##P##potrf(void *H, int Uplo, int N, T *A, int Lda, int *Info) {                                       \
    return potrf<T>(H, Uplo, N, A, Lda, Info);                                                                         \
  }                                                                                                                    \
  int rocsolver_##P##potrs(void *H, int Uplo, int N, int Nrhs, T *A, int Lda, T *B, int Ldb) {                         \
    return potrs<T>(H, Uplo, N, Nrhs, A, Lda, B, Ldb);                                                                 \
  }                                                                                                                    \
  int rocsolver_##P##geqrf(void *H, int M, int N, T *A, int Lda, T *Tau) { return geqrf<T>(H, M, N, A, Lda, Tau); }    \
  int rocsolver_##P##ormqr(void *H, int Side, int Op, int M, int N, int K, T *A, int Lda, T *Tau, T *C, int Ldc) {     \
    return ormqr<T>(H, Side, Op, M, N, K, A, Lda, Tau, C, Ldc);                                                        \
  }                                                                                                                    \
  int rocsolver_##P##orgqr(void *H, int M, int N, int K, T *A, int Lda, T *Tau) {                                      \
    return orgqr<T>(H, M, N, K, A, Lda, Tau);                                                                          \
  }

extern "C" {
FAKE_ROCSOLVER(s, float)
FAKE_ROCSOLVER(d, double)
}
