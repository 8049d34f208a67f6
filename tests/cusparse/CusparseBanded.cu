/// \file
/// cuSPARSE's banded solvers (gtsv2, gtsv2_nopivot, gtsv2StridedBatch,
/// gtsvInterleavedBatch algo 0/1/2, gpsvInterleavedBatch) in S/D/C/Z, each
/// against the host: the residual max |A x - b| / max |b| of the returned
/// solution, with values outside the band set to garbage (they must be
/// ignored), padding rows between systems and columns (ldb > m, stride > m)
/// checked untouched, and a system whose first pivot is zero for the
/// pivoting routines. Prints `CusparseBanded: PASS` or the failing checks.
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

static int Failures = 0;
static void check(const char *Name, bool Ok, double Measure) {
  std::printf("%-34s %s (%.3g)\n", Name, Ok ? "ok" : "FAIL", Measure);
  Failures += !Ok;
}
static unsigned Seed = 99;
static double rnd() {
  Seed = Seed * 1103515245u + 12345u;
  return ((Seed >> 8) & 0xffff) / 32768.0 - 1.0;
}
template <typename T> static T val(double Re, double Im);
template <> float val<float>(double Re, double) { return (float)Re; }
template <> double val<double>(double Re, double) { return Re; }
template <> std::complex<float> val<std::complex<float>>(double Re, double Im) { return {(float)Re, (float)Im}; }
template <> std::complex<double> val<std::complex<double>>(double Re, double Im) { return {Re, Im}; }
template <typename T> static T *up(const std::vector<T> &V) {
  T *P;
  cudaMalloc(&P, V.size() * sizeof(T) + 8);
  cudaMemcpy(P, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return P;
}
template <typename T> static std::vector<T> down(const T *P, size_t N) {
  std::vector<T> V(N);
  cudaDeviceSynchronize();
  cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

// The typed entry points, by overload.
#define BANDED(P, T, CT)                                                                                               \
  static cusparseStatus_t gtsvSize(cusparseHandle_t H, int M, int N, const T *Dl, const T *D, const T *Du,           \
                                   const T *B, int Ldb, size_t *S, bool Piv) {                                        \
    auto C = [](const T *X) { return reinterpret_cast<const CT *>(X); };                                               \
    return Piv ? cusparse##P##gtsv2_bufferSizeExt(H, M, N, C(Dl), C(D), C(Du), C(B), Ldb, S)                           \
               : cusparse##P##gtsv2_nopivot_bufferSizeExt(H, M, N, C(Dl), C(D), C(Du), C(B), Ldb, S);                  \
  }                                                                                                                    \
  static cusparseStatus_t gtsv(cusparseHandle_t H, int M, int N, const T *Dl, const T *D, const T *Du, T *B, int Ldb, \
                               void *W, bool Piv) {                                                                    \
    auto C = [](const T *X) { return reinterpret_cast<const CT *>(X); };                                               \
    return Piv ? cusparse##P##gtsv2(H, M, N, C(Dl), C(D), C(Du), reinterpret_cast<CT *>(B), Ldb, W)                    \
               : cusparse##P##gtsv2_nopivot(H, M, N, C(Dl), C(D), C(Du), reinterpret_cast<CT *>(B), Ldb, W);           \
  }                                                                                                                    \
  static cusparseStatus_t strided(cusparseHandle_t H, int M, const T *Dl, const T *D, const T *Du, T *X, int Count,   \
                                  int Stride, void *W) {                                                               \
    auto C = [](const T *X) { return reinterpret_cast<const CT *>(X); };                                               \
    size_t S;                                                                                                          \
    if (cusparseStatus_t St =                                                                                          \
            cusparse##P##gtsv2StridedBatch_bufferSizeExt(H, M, C(Dl), C(D), C(Du), C(X), Count, Stride, &S))          \
      return St;                                                                                                       \
    return cusparse##P##gtsv2StridedBatch(H, M, C(Dl), C(D), C(Du), reinterpret_cast<CT *>(X), Count, Stride, W);     \
  }                                                                                                                    \
  static cusparseStatus_t interleaved(cusparseHandle_t H, int Algo, int M, T *Dl, T *D, T *Du, T *X, int Count,       \
                                      void *W) {                                                                       \
    auto C = [](T *X) { return reinterpret_cast<CT *>(X); };                                                           \
    size_t S;                                                                                                          \
    if (cusparseStatus_t St =                                                                                          \
            cusparse##P##gtsvInterleavedBatch_bufferSizeExt(H, Algo, M, C(Dl), C(D), C(Du), C(X), Count, &S))        \
      return St;                                                                                                       \
    return cusparse##P##gtsvInterleavedBatch(H, Algo, M, C(Dl), C(D), C(Du), C(X), Count, W);                          \
  }                                                                                                                    \
  static cusparseStatus_t penta(cusparseHandle_t H, int M, T *Ds, T *Dl, T *D, T *Du, T *Dw, T *X, int Count,         \
                                void *W) {                                                                             \
    auto C = [](T *X) { return reinterpret_cast<CT *>(X); };                                                           \
    size_t S;                                                                                                          \
    if (cusparseStatus_t St = cusparse##P##gpsvInterleavedBatch_bufferSizeExt(H, 0, M, C(Ds), C(Dl), C(D), C(Du),     \
                                                                              C(Dw), C(X), Count, &S))                 \
      return St;                                                                                                       \
    return cusparse##P##gpsvInterleavedBatch(H, 0, M, C(Ds), C(Dl), C(D), C(Du), C(Dw), C(X), Count, W);              \
  }
BANDED(S, float, float)
BANDED(D, double, double)
BANDED(C, std::complex<float>, cuComplex)
BANDED(Z, std::complex<double>, cuDoubleComplex)

/// max |A x - b| / max |b| for the band matrix with diagonals Diag[k]
/// (offset k - Kw, element i at DBase + i * Step), x and b element i at
/// Base + i * Step.
template <typename T>
static double residual(int M, int Kw, const std::vector<std::vector<T>> &Diag, size_t DBase, const std::vector<T> &X,
                       const std::vector<T> &B, size_t Base, size_t Step) {
  double Worst = 0, Scale = 0;
  for (int I = 0; I < M; ++I) {
    T Sum = 0;
    for (int K = -Kw; K <= Kw; ++K)
      if (I + K >= 0 && I + K < M)
        Sum += Diag[K + Kw][DBase + I * Step] * X[Base + (I + K) * Step];
    Worst = std::fmax(Worst, std::abs(Sum - B[Base + I * Step]));
    Scale = std::fmax(Scale, std::abs(B[Base + I * Step]));
  }
  return Worst / Scale;
}

template <typename T> static void run(const char *Type, double Tol) {
  cusparseHandle_t H;
  cusparseCreate(&H);
  void *W;
  cudaMalloc(&W, 1 << 20);
  char Name[64];
  auto randomVec = [](size_t N, double Add) {
    std::vector<T> V(N);
    for (auto &E : V)
      E = val<T>(rnd() + Add, rnd());
    return V;
  };
  // gtsv2 and gtsv2_nopivot: m = 7, 3 right-hand sides, ldb = 9 (rows 7, 8 padding).
  for (int Piv = 0; Piv < 2; ++Piv) {
    const int M = 7, N = 3, Ldb = 9;
    std::vector<T> Dl = randomVec(M, 0), D = randomVec(M, Piv ? 0 : 6), Du = randomVec(M, 0);
    if (Piv)
      D[0] = T(0); // needs a row swap
    Dl[0] = val<T>(1e6, 0); // outside the matrix: ignored
    Du[M - 1] = val<T>(-1e6, 0);
    std::vector<T> B = randomVec(static_cast<size_t>(Ldb) * N, 0);
    T *DB = up(B);
    size_t Size = 0;
    cusparseStatus_t St = gtsvSize(H, M, N, up(Dl), up(D), up(Du), DB, Ldb, &Size, Piv);
    if (!St)
      St = gtsv(H, M, N, up(Dl), up(D), up(Du), DB, Ldb, W, Piv);
    std::vector<T> X = down(DB, B.size());
    double Worst = 0;
    bool Padding = true;
    for (int R = 0; R < N; ++R) {
      Worst = std::fmax(Worst, residual<T>(M, 1, {Dl, D, Du}, 0, X, B, R * Ldb, 1));
      Padding &= X[R * Ldb + 7] == B[R * Ldb + 7] && X[R * Ldb + 8] == B[R * Ldb + 8];
    }
    std::snprintf(Name, sizeof Name, "%sgtsv2%s", Type, Piv ? "" : "_nopivot");
    check(Name, St == CUSPARSE_STATUS_SUCCESS && Size > 0 && Padding && Worst < Tol, Worst);
  }
  // gtsv2StridedBatch: 3 diagonally dominant systems of 6 at stride 8.
  {
    const int M = 6, Count = 3, Stride = 8;
    std::vector<T> Dl = randomVec(Stride * Count, 0), D = randomVec(Stride * Count, 5), Du = randomVec(Stride * Count, 0),
                   B = randomVec(Stride * Count, 0);
    T *DX = up(B);
    cusparseStatus_t St = strided(H, M, up(Dl), up(D), up(Du), DX, Count, Stride, W);
    std::vector<T> X = down(DX, B.size());
    double Worst = 0;
    bool Padding = true;
    for (int K = 0; K < Count; ++K) {
      Dl[K * Stride] = T(0);
      Du[K * Stride + M - 1] = T(0);
      Worst = std::fmax(Worst, residual<T>(M, 1, {Dl, D, Du}, K * Stride, X, B, K * Stride, 1));
      Padding &= X[K * Stride + 6] == B[K * Stride + 6] && X[K * Stride + 7] == B[K * Stride + 7];
    }
    std::snprintf(Name, sizeof Name, "%sgtsv2StridedBatch", Type);
    check(Name, St == CUSPARSE_STATUS_SUCCESS && Padding && Worst < Tol, Worst);
  }
  // gtsvInterleavedBatch: 4 systems of 9; algo 0 dominant, 1 and 2 with a zero first pivot in system 2.
  for (int Algo = 0; Algo < 3; ++Algo) {
    const int M = 9, Count = 4;
    std::vector<T> Dl = randomVec(M * Count, 0), D = randomVec(M * Count, Algo ? 0 : 5), Du = randomVec(M * Count, 0),
                   B = randomVec(M * Count, 0);
    if (Algo)
      D[2] = T(0);
    for (int K = 0; K < Count; ++K) {
      Dl[K] = val<T>(1e6, 0); // element 0 of each system's dl: ignored
      Du[(M - 1) * Count + K] = val<T>(1e6, 0);
    }
    T *DX = up(B);
    cusparseStatus_t St = interleaved(H, Algo, M, up(Dl), up(D), up(Du), DX, Count, W);
    std::vector<T> X = down(DX, B.size());
    double Worst = 0;
    for (int K = 0; K < Count; ++K)
      Worst = std::fmax(Worst, residual<T>(M, 1, {Dl, D, Du}, K, X, B, K, Count));
    std::snprintf(Name, sizeof Name, "%sgtsvInterleavedBatch algo %d", Type, Algo);
    check(Name, St == CUSPARSE_STATUS_SUCCESS && Worst < Tol, Worst);
  }
  // gpsvInterleavedBatch: 3 pentadiagonal systems of 8.
  {
    const int M = 8, Count = 3;
    std::vector<T> Ds = randomVec(M * Count, 0), Dl = randomVec(M * Count, 0), D = randomVec(M * Count, 1),
                   Du = randomVec(M * Count, 0), Dw = randomVec(M * Count, 0), B = randomVec(M * Count, 0);
    for (int K = 0; K < Count; ++K) {
      Ds[K] = Ds[Count + K] = Dl[K] = val<T>(1e6, 0);
      Du[(M - 1) * Count + K] = Dw[(M - 2) * Count + K] = Dw[(M - 1) * Count + K] = val<T>(1e6, 0);
    }
    T *DX = up(B);
    cusparseStatus_t St = penta(H, M, up(Ds), up(Dl), up(D), up(Du), up(Dw), DX, Count, W);
    std::vector<T> X = down(DX, B.size());
    double Worst = 0;
    for (int K = 0; K < Count; ++K)
      Worst = std::fmax(Worst, residual<T>(M, 2, {Ds, Dl, D, Du, Dw}, K, X, B, K, Count));
    std::snprintf(Name, sizeof Name, "%sgpsvInterleavedBatch", Type);
    check(Name, St == CUSPARSE_STATUS_SUCCESS && Worst < Tol, Worst);
  }
  cudaFree(W);
  cusparseDestroy(H);
}

int main() {
  run<float>("S", 1e-4);
  run<double>("D", 1e-12);
  run<std::complex<float>>("C", 1e-4);
  run<std::complex<double>>("Z", 1e-12);
  std::printf("CusparseBanded: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
