/// \file
/// The legacy banded solvers: gtsv2 (tridiagonal, partial pivoting),
/// gtsv2_nopivot, gtsv2StridedBatch, gtsvInterleavedBatch (algo 0 Thomas
/// without pivoting, 1 LU with partial pivoting, 2 QR: 1 and 2 both solved
/// here with partial pivoting, which gives the same solution to rounding)
/// and gpsvInterleavedBatch (pentadiagonal) in S/D/C/Z, with their buffer
/// sizes. Each system is solved on the host in stream order by Gaussian
/// elimination on a band copy (row i keeps columns i - kl .. i + ku + kl,
/// the extra kl for the fill that row swaps bring); the diagonals are read,
/// never written. The entries outside the matrix (dl[0], du[m-1], and for
/// gpsv ds[0..1], dw[m-2..m-1]) are ignored, as the documentation says.
/// A zero pivot is divided by, as the GPU's elimination does: the solution
/// then holds Inf/NaN; the routines report no singularity.
#include "libs/cusparse/Cusparse.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

using namespace ferry::cusparse;

namespace {

/// Bytes the work asks for: the routines keep their band copies in their
/// own memory, so the buffer only has to exist (NVIDIA's sizes differ:
/// 34432 bytes for gtsv2 at m 5, n 2; ferry's are its own).
/// Statuses follow NVIDIA's as measured on the H100 (tridiag probe,
/// 2026-11-28): the buffer-size calls of gtsv2, gtsv2_nopivot,
/// gtsvInterleavedBatch and gpsvInterleavedBatch check only the handle
/// (and interleaved's algo); gtsv2StridedBatch's refuses m < 3, a stride
/// below m and a batch count below 1.
constexpr size_t ScratchBytes = 128;

template <typename T> double magnitude(T V) { return std::abs(V); }

/// One banded system of size M with Kl sub- and Ku superdiagonals, entry
/// (i, j) read through Entry(i, j) for |j - i| within the band, and Nrhs
/// right-hand sides at X + r * Ld, element i at stride Step.
template <typename T, typename F>
void bandSolve(int M, int Kl, int Ku, bool Pivot, F Entry, T *X, ptrdiff_t Step, int Nrhs, ptrdiff_t Ld) {
  const int W = 2 * Kl + Ku + 1; // columns i - Kl .. i + Ku + Kl
  std::vector<T> Band(static_cast<size_t>(M) * W, T(0));
  auto At = [&](int I, int J) -> T & { return Band[static_cast<size_t>(I) * W + (J - I + Kl)]; };
  for (int I = 0; I < M; ++I)
    for (int J = std::max(0, I - Kl); J <= std::min(M - 1, I + Ku); ++J)
      At(I, J) = Entry(I, J);
  auto Rhs = [&](int R, int I) -> T & { return X[R * Ld + I * Step]; };
  for (int K = 0; K < M; ++K) {
    int Last = std::min(M - 1, K + Kl), LastCol = std::min(M - 1, K + Ku + Kl);
    if (Pivot) {
      int P = K;
      for (int I = K + 1; I <= Last; ++I)
        if (magnitude(At(I, K)) > magnitude(At(P, K)))
          P = I;
      if (P != K) {
        // Row P's columns reach at most P + Ku <= K + Kl + Ku; both rows
        // hold columns K .. LastCol in the band.
        for (int J = K; J <= LastCol; ++J)
          std::swap(At(K, J), At(P, J));
        for (int R = 0; R < Nrhs; ++R)
          std::swap(Rhs(R, K), Rhs(R, P));
      }
    }
    T Pivot0 = At(K, K);
    for (int I = K + 1; I <= Last; ++I) {
      T L = At(I, K) / Pivot0;
      if (L == T(0))
        continue;
      At(I, K) = T(0);
      for (int J = K + 1; J <= LastCol; ++J)
        At(I, J) -= L * At(K, J);
      for (int R = 0; R < Nrhs; ++R)
        Rhs(R, I) -= L * Rhs(R, K);
    }
  }
  for (int R = 0; R < Nrhs; ++R)
    for (int K = M - 1; K >= 0; --K) {
      T Sum = Rhs(R, K);
      for (int J = K + 1; J <= std::min(M - 1, K + Ku + Kl); ++J)
        Sum -= At(K, J) * Rhs(R, J);
      Rhs(R, K) = Sum / At(K, K);
    }
}

/// A tridiagonal system whose diagonals are at Dl/D/Du, element i at
/// Dl[i * Step].
template <typename T>
void triSolve(int M, const T *Dl, const T *D, const T *Du, ptrdiff_t Step, bool Pivot, T *X, ptrdiff_t XStep,
              int Nrhs, ptrdiff_t Ld) {
  bandSolve<T>(
      M, 1, 1, Pivot,
      [&](int I, int J) { return J < I ? Dl[I * Step] : J == I ? D[I * Step] : Du[I * Step]; }, X, XStep, Nrhs, Ld);
}

cusparseStatus_t checkHandle(cusparseHandle_t H) {
  return validHandle(H) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_NOT_INITIALIZED;
}

/// gtsv2 / gtsv2_nopivot: m >= 1, n >= 0, ldb >= max(1, m). (NVIDIA's
/// buffer-size calls accept any m, n and ldb, measured on the H100: they
/// check only the handle.)
cusparseStatus_t checkGtsv(cusparseHandle_t H, int M, int N, const void *Dl, const void *D, const void *Du,
                           const void *B, int Ldb) {
  if (cusparseStatus_t S = checkHandle(H))
    return S;
  if (M < 1 || N < 0 || Ldb < std::max(1, M) || !Dl || !D || !Du || (N && !B))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename T>
cusparseStatus_t gtsv2(cusparseHandle_t H, int M, int N, const T *Dl, const T *D, const T *Du, T *B, int Ldb,
                       void *Buffer, bool Pivot) {
  if (cusparseStatus_t S = checkGtsv(H, M, N, Dl, D, Du, B, Ldb))
    return S;
  if (!Buffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!N)
    return CUSPARSE_STATUS_SUCCESS;
  return enqueue(H, [=] { triSolve<T>(M, Dl, D, Du, 1, Pivot, B, 1, N, Ldb); });
}

cusparseStatus_t checkStrided(cusparseHandle_t H, int M, const void *Dl, const void *D, const void *Du,
                              const void *X, int BatchCount, int BatchStride) {
  if (cusparseStatus_t S = checkHandle(H))
    return S;
  if (M < 3 || BatchCount < 1 || BatchStride < M || !Dl || !D || !Du || !X) // as NVIDIA's (H100)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

/// gtsv2StridedBatch: no pivoting (the documentation: the diagonally
/// dominant case), batch k at offset k * BatchStride.
template <typename T>
cusparseStatus_t gtsv2Strided(cusparseHandle_t H, int M, const T *Dl, const T *D, const T *Du, T *X, int BatchCount,
                              int BatchStride, void *Buffer) {
  if (cusparseStatus_t S = checkStrided(H, M, Dl, D, Du, X, BatchCount, BatchStride))
    return S;
  if (!Buffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return enqueue(H, [=] {
    for (int K = 0; K < BatchCount; ++K) {
      size_t Off = static_cast<size_t>(K) * BatchStride;
      triSolve<T>(M, Dl + Off, D + Off, Du + Off, 1, false, X + Off, 1, 1, 0);
    }
  });
}

cusparseStatus_t checkInterleaved(cusparseHandle_t H, int Algo, int MaxAlgo, int M, int MinM,
                                  std::initializer_list<const void *> Arrays, int BatchCount) {
  if (cusparseStatus_t S = checkHandle(H))
    return S;
  if (Algo < 0 || Algo > MaxAlgo || M < MinM || BatchCount < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  for (const void *P : Arrays)
    if (!P)
      return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

/// gtsvInterleavedBatch: element i of system k at i * BatchCount + k.
template <typename T>
cusparseStatus_t gtsvInterleaved(cusparseHandle_t H, int Algo, int M, T *Dl, T *D, T *Du, T *X, int BatchCount,
                                 void *Buffer) {
  if (cusparseStatus_t S = checkInterleaved(H, Algo, 2, M, 1, {Dl, D, Du, X}, BatchCount))
    return S;
  if (!Buffer)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!BatchCount)
    return CUSPARSE_STATUS_SUCCESS;
  return enqueue(H, [=] {
    for (int K = 0; K < BatchCount; ++K)
      triSolve<T>(M, Dl + K, D + K, Du + K, BatchCount, Algo != 0, X + K, BatchCount, 1, 0);
  });
}

/// gpsvInterleavedBatch: ds, dl, d, du, dw are diagonals -2 .. 2.
template <typename T>
cusparseStatus_t gpsvInterleaved(cusparseHandle_t H, int Algo, int M, T *Ds, T *Dl, T *D, T *Du, T *Dw, T *X,
                                 int BatchCount, void *Buffer) {
  if (cusparseStatus_t S = checkInterleaved(H, 0, 0, M, 1, {Ds, Dl, D, Du, Dw, X}, BatchCount))
    return S;
  if (!Buffer || Algo < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Algo != 0) {
    // Measured on the H100: algo 1 and 2 answer success and leave x as it
    // was (only algo 0, QR, is documented). ferry does the same, saying so.
    logMessage("cusparse?gpsvInterleavedBatch: algo %d is not a documented algorithm; as NVIDIA's cuSPARSE does, "
               "nothing is solved and x is left unchanged",
               Algo);
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (!BatchCount)
    return CUSPARSE_STATUS_SUCCESS;
  return enqueue(H, [=] {
    for (int K = 0; K < BatchCount; ++K) {
      const T *Diag[5] = {Ds + K, Dl + K, D + K, Du + K, Dw + K};
      bandSolve<T>(
          M, 2, 2, true, [&](int I, int J) { return Diag[J - I + 2][static_cast<size_t>(I) * BatchCount]; }, X + K,
          BatchCount, 1, 0);
    }
  });
}

template <typename Check> cusparseStatus_t bufferSize(Check Status, size_t *Size) {
  if (Status != CUSPARSE_STATUS_SUCCESS)
    return Status;
  if (!Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size = ScratchBytes;
  return CUSPARSE_STATUS_SUCCESS;
}

} // namespace

extern "C" {

#define FERRY_BANDED(P, T, CT)                                                                                         \
  cusparseStatus_t cusparse##P##gtsv2_bufferSizeExt(cusparseHandle_t handle, int m, int n, const CT *dl, const CT *d,  \
                                                    const CT *du, const CT *B, int ldb, size_t *bufferSizeInBytes) {   \
    return bufferSize(checkHandle(handle), bufferSizeInBytes);                                                         \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsv2_nopivot_bufferSizeExt(cusparseHandle_t handle, int m, int n, const CT *dl,       \
                                                            const CT *d, const CT *du, const CT *B, int ldb,           \
                                                            size_t *bufferSizeInBytes) {                               \
    return bufferSize(checkHandle(handle), bufferSizeInBytes);                                                         \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsv2(cusparseHandle_t handle, int m, int n, const CT *dl, const CT *d, const CT *du,  \
                                      CT *B, int ldb, void *pBuffer) {                                                 \
    return gtsv2<T>(handle, m, n, reinterpret_cast<const T *>(dl), reinterpret_cast<const T *>(d),                     \
                    reinterpret_cast<const T *>(du), reinterpret_cast<T *>(B), ldb, pBuffer, true);                    \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsv2_nopivot(cusparseHandle_t handle, int m, int n, const CT *dl, const CT *d,        \
                                              const CT *du, CT *B, int ldb, void *pBuffer) {                           \
    return gtsv2<T>(handle, m, n, reinterpret_cast<const T *>(dl), reinterpret_cast<const T *>(d),                     \
                    reinterpret_cast<const T *>(du), reinterpret_cast<T *>(B), ldb, pBuffer, false);                   \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsv2StridedBatch_bufferSizeExt(cusparseHandle_t handle, int m, const CT *dl,          \
                                                                const CT *d, const CT *du, const CT *x,                \
                                                                int batchCount, int batchStride,                       \
                                                                size_t *bufferSizeInBytes) {                           \
    return bufferSize(checkStrided(handle, m, dl, d, du, x, batchCount, batchStride), bufferSizeInBytes);              \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsv2StridedBatch(cusparseHandle_t handle, int m, const CT *dl, const CT *d,           \
                                                  const CT *du, CT *x, int batchCount, int batchStride,                \
                                                  void *pBuffer) {                                                     \
    return gtsv2Strided<T>(handle, m, reinterpret_cast<const T *>(dl), reinterpret_cast<const T *>(d),                 \
                           reinterpret_cast<const T *>(du), reinterpret_cast<T *>(x), batchCount, batchStride,         \
                           pBuffer);                                                                                   \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsvInterleavedBatch_bufferSizeExt(cusparseHandle_t handle, int algo, int m,           \
                                                                   const CT *dl, const CT *d, const CT *du,            \
                                                                   const CT *x, int batchCount,                        \
                                                                   size_t *pBufferSizeInBytes) {                       \
    return bufferSize(checkInterleaved(handle, algo, 2, m, 0, {dl, d, du, x}, 0), pBufferSizeInBytes);                 \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gtsvInterleavedBatch(cusparseHandle_t handle, int algo, int m, CT *dl, CT *d, CT *du,  \
                                                     CT *x, int batchCount, void *pBuffer) {                           \
    return gtsvInterleaved<T>(handle, algo, m, reinterpret_cast<T *>(dl), reinterpret_cast<T *>(d),                    \
                              reinterpret_cast<T *>(du), reinterpret_cast<T *>(x), batchCount, pBuffer);               \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gpsvInterleavedBatch_bufferSizeExt(                                                    \
      cusparseHandle_t handle, int algo, int m, const CT *ds, const CT *dl, const CT *d, const CT *du, const CT *dw,   \
      const CT *x, int batchCount, size_t *pBufferSizeInBytes) {                                                       \
    return bufferSize(checkInterleaved(handle, 0, 0, m, 0, {ds, dl, d, du, dw, x}, 0), pBufferSizeInBytes);             \
  }                                                                                                                    \
  cusparseStatus_t cusparse##P##gpsvInterleavedBatch(cusparseHandle_t handle, int algo, int m, CT *ds, CT *dl, CT *d,  \
                                                     CT *du, CT *dw, CT *x, int batchCount, void *pBuffer) {           \
    return gpsvInterleaved<T>(handle, algo, m, reinterpret_cast<T *>(ds), reinterpret_cast<T *>(dl),                   \
                              reinterpret_cast<T *>(d), reinterpret_cast<T *>(du), reinterpret_cast<T *>(dw),          \
                              reinterpret_cast<T *>(x), batchCount, pBuffer);                                          \
  }

FERRY_BANDED(S, float, float)
FERRY_BANDED(D, double, double)
FERRY_BANDED(C, std::complex<float>, cuComplex)
FERRY_BANDED(Z, std::complex<double>, cuDoubleComplex)

} // extern "C"
