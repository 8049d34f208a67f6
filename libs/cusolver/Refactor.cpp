/// \file
/// cuSolverRf, the refactorization API: given P A Q = L U once (the
/// factors from a host LU, often cusolverSp's), later matrices of the same
/// sparsity pattern are refactored without pivoting into the same pattern
/// M = L + U - I and solved, as circuit simulators do. ferry keeps M as CSR
/// on the host and refactors row by row over M's pattern (an up-looking
/// LU: row i of P A Q minus the earlier rows of U it meets, scaled by their
/// pivots), which is exact when M's pattern holds the fill-in, as a
/// pattern from an LU factorization does. A pivot with |pivot| <= the
/// "zero" threshold is replaced by the boost when one is set, else the
/// refactorization stops with CUSOLVER_STATUS_ZERO_PIVOT. Calls are
/// synchronous (cuSolverRf has no stream): device arrays are read after
/// the legacy default stream drains. CSC input, unit diagonals in U and
/// the batched forms return NOT_SUPPORTED with a log line.
#include "libs/cusolver/Common.h"
#include "libs/common/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

struct cusolverRfCommon {
  static constexpr uint64_t Live = 0x6665727279524655ull; // "ferryRFU"
  uint64_t Magic = Live;
  double Zero = 0, Boost = 0;
  bool Boosted = false;
  cusolverRfFactorization_t FactAlg = CUSOLVERRF_FACTORIZATION_ALG0;
  cusolverRfTriangularSolve_t SolveAlg = CUSOLVERRF_TRIANGULAR_SOLVE_ALG1;
  cusolverRfMatrixFormat_t Format = CUSOLVERRF_MATRIX_FORMAT_CSR;
  cusolverRfUnitDiagonal_t Diag = CUSOLVERRF_UNIT_DIAGONAL_STORED_L;
  cusolverRfResetValuesFastMode_t FastMode = CUSOLVERRF_RESET_VALUES_FAST_MODE_OFF;
  bool Setup = false, Analyzed = false;
  int N = 0;
  std::vector<int> ARow, ACol, P, Q, QInv;
  std::vector<double> AVal;
  std::vector<int> MRow, MCol, MDiag; // M = L + U - I, rows sorted; MDiag: index of (i, i)
  std::vector<double> MVal;
  // What AccessBundledFactorsDevice handed out (device memory of ours).
  CUdeviceptr DevMp = 0, DevMi = 0, DevMx = 0;
};

namespace ferry::cusolver {
namespace {

cusolverRfCommon *lookupRf(cusolverRfHandle_t H) {
  return H && H->Magic == cusolverRfCommon::Live ? H : nullptr;
}

/// Waits for the work the program enqueued before a call reading device
/// arrays.
void drain() {
  if (const libs::DriverTable *D = libs::driver())
    D->StreamSynchronize(nullptr);
}

bool validPerm(const int *P, int N) {
  std::vector<char> Seen(N, 0);
  for (int I = 0; I < N; ++I) {
    if (P[I] < 0 || P[I] >= N || Seen[P[I]])
      return false;
    Seen[P[I]] = 1;
  }
  return true;
}

bool validCsr(int N, int Nnz, const int *Row, const int *Col) {
  if (Row[0] != 0 || Row[N] != Nnz)
    return false;
  for (int I = 0; I < N; ++I)
    if (Row[I + 1] < Row[I])
      return false;
  for (int K = 0; K < Nnz; ++K)
    if (Col[K] < 0 || Col[K] >= N)
      return false;
  return true;
}

void freeDevice(cusolverRfCommon *H) {
  if (const libs::DriverTable *D = libs::driver())
    for (CUdeviceptr *P : {&H->DevMp, &H->DevMi, &H->DevMx})
      if (*P) {
        D->MemFree(*P);
        *P = 0;
      }
}

/// Loads L and U (CSR, 0-based) into M's pattern and values.
cusolverStatus_t loadFactors(cusolverRfCommon *H, int NnzL, const int *LRow, const int *LCol, const double *LVal,
                             int NnzU, const int *URow, const int *UCol, const double *UVal) {
  int N = H->N;
  if (!validCsr(N, NnzL, LRow, LCol) || !validCsr(N, NnzU, URow, UCol))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<std::vector<std::pair<int, double>>> Rows(N);
  for (int I = 0; I < N; ++I) {
    for (int K = LRow[I]; K < LRow[I + 1]; ++K) {
      if (LCol[K] > I)
        return CUSOLVER_STATUS_INVALID_VALUE;
      if (LCol[K] < I) // L's diagonal is one, stored or assumed
        Rows[I].push_back({LCol[K], LVal[K]});
    }
    for (int K = URow[I]; K < URow[I + 1]; ++K) {
      if (UCol[K] < I)
        return CUSOLVER_STATUS_INVALID_VALUE;
      Rows[I].push_back({UCol[K], UVal[K]});
    }
  }
  H->MRow.assign(N + 1, 0);
  H->MCol.clear();
  H->MVal.clear();
  H->MDiag.assign(N, -1);
  for (int I = 0; I < N; ++I) {
    auto &R = Rows[I];
    std::sort(R.begin(), R.end(), [](auto &A, auto &B) { return A.first < B.first; });
    for (size_t K = 0; K < R.size(); ++K) {
      if (K && R[K].first == R[K - 1].first)
        return CUSOLVER_STATUS_INVALID_VALUE;
      if (R[K].first == I)
        H->MDiag[I] = H->MCol.size();
      H->MCol.push_back(R[K].first);
      H->MVal.push_back(R[K].second);
    }
    if (H->MDiag[I] < 0)
      return CUSOLVER_STATUS_INVALID_VALUE; // U needs its diagonal
    H->MRow[I + 1] = H->MCol.size();
  }
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t setup(bool Device, int N, int NnzA, int *ARow, int *ACol, double *AVal, int NnzL, int *LRow,
                       int *LCol, double *LVal, int NnzU, int *URow, int *UCol, double *UVal, int *P, int *Q,
                       cusolverRfHandle_t Handle) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 1 || NnzA < 0 || NnzL < 0 || NnzU < 0 || !ARow || !ACol || !AVal || !LRow || !LCol || !LVal || !URow ||
      !UCol || !UVal || !P || !Q)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (H->Format != CUSOLVERRF_MATRIX_FORMAT_CSR || H->Diag == CUSOLVERRF_UNIT_DIAGONAL_STORED_U ||
      H->Diag == CUSOLVERRF_UNIT_DIAGONAL_ASSUMED_U) {
    logOnce(Device ? "cusolverRfSetupDevice" : "cusolverRfSetupHost",
            "CSC matrices and a unit diagonal in U are not supported (CUSOLVER_STATUS_NOT_SUPPORTED)");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  if (Device)
    drain();
  if (!validCsr(N, NnzA, ARow, ACol) || !validPerm(P, N) || !validPerm(Q, N))
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->N = N;
  H->ARow.assign(ARow, ARow + N + 1);
  H->ACol.assign(ACol, ACol + NnzA);
  H->AVal.assign(AVal, AVal + NnzA);
  H->P.assign(P, P + N);
  H->Q.assign(Q, Q + N);
  H->QInv.assign(N, 0);
  for (int J = 0; J < N; ++J)
    H->QInv[Q[J]] = J;
  if (cusolverStatus_t St = loadFactors(H, NnzL, LRow, LCol, LVal, NnzU, URow, UCol, UVal)) {
    H->Setup = false;
    return St;
  }
  H->Setup = true;
  H->Analyzed = false;
  return CUSOLVER_STATUS_SUCCESS;
}

/// Refactors P A Q into M's pattern; ZERO_PIVOT when a pivot is (near)
/// zero and no boost is set, INVALID_VALUE when A has an entry outside M's
/// pattern.
cusolverStatus_t refactor(cusolverRfCommon *H) {
  int N = H->N;
  std::vector<double> W(N, 0.0);
  std::vector<int> Where(N, -1); // position of column j in the current row of M
  H->Boosted = false;
  for (int I = 0; I < N; ++I) {
    int Begin = H->MRow[I], End = H->MRow[I + 1];
    for (int K = Begin; K < End; ++K) {
      Where[H->MCol[K]] = K;
      W[H->MCol[K]] = 0;
    }
    int Src = H->P[I];
    for (int K = H->ARow[Src]; K < H->ARow[Src + 1]; ++K) {
      int J = H->QInv[H->ACol[K]];
      if (Where[J] < 0) {
        for (int L = Begin; L < End; ++L)
          Where[H->MCol[L]] = -1;
        logOnce("cusolverRfRefactor", "A has an entry outside the pattern of L + U (CUSOLVER_STATUS_INVALID_VALUE)");
        return CUSOLVER_STATUS_INVALID_VALUE;
      }
      W[J] += H->AVal[K];
    }
    for (int K = Begin; K < End && H->MCol[K] < I; ++K) {
      int C = H->MCol[K];
      double F = W[C] / H->MVal[H->MDiag[C]];
      W[C] = F;
      for (int L = H->MDiag[C] + 1; L < H->MRow[C + 1]; ++L)
        if (Where[H->MCol[L]] >= 0)
          W[H->MCol[L]] -= F * H->MVal[L];
    }
    for (int K = Begin; K < End; ++K) {
      H->MVal[K] = W[H->MCol[K]];
      Where[H->MCol[K]] = -1;
    }
    double &Pivot = H->MVal[H->MDiag[I]];
    if (std::fabs(Pivot) <= H->Zero) {
      if (H->Boost <= 0)
        return CUSOLVER_STATUS_ZERO_PIVOT;
      Pivot = Pivot < 0 ? -H->Boost : H->Boost;
      H->Boosted = true;
    }
  }
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace
} // namespace ferry::cusolver

using namespace ferry::cusolver;

cusolverStatus_t cusolverRfCreate(cusolverRfHandle_t *Handle) {
  if (!Handle)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!ferry::libs::ensureContext())
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  *Handle = new (std::nothrow) cusolverRfCommon;
  return *Handle ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverRfDestroy(cusolverRfHandle_t Handle) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  freeDevice(H);
  H->Magic = 0;
  delete H;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSetupHost(int n, int nnzA, int *rA, int *cA, double *vA, int nnzL, int *rL, int *cL,
                                     double *vL, int nnzU, int *rU, int *cU, double *vU, int *P, int *Q,
                                     cusolverRfHandle_t h) {
  return setup(false, n, nnzA, rA, cA, vA, nnzL, rL, cL, vL, nnzU, rU, cU, vU, P, Q, h);
}

cusolverStatus_t cusolverRfSetupDevice(int n, int nnzA, int *rA, int *cA, double *vA, int nnzL, int *rL, int *cL,
                                       double *vL, int nnzU, int *rU, int *cU, double *vU, int *P, int *Q,
                                       cusolverRfHandle_t h) {
  return setup(true, n, nnzA, rA, cA, vA, nnzL, rL, cL, vL, nnzU, rU, cU, vU, P, Q, h);
}

cusolverStatus_t cusolverRfAnalyze(cusolverRfHandle_t Handle) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Setup)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->Analyzed = true; // the pattern is all there is to analyse here
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfRefactor(cusolverRfHandle_t Handle) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Analyzed)
    return CUSOLVER_STATUS_INVALID_VALUE;
  cusolverStatus_t St = refactor(H);
  if (St == CUSOLVER_STATUS_SUCCESS && H->DevMx)
    std::memcpy(reinterpret_cast<void *>(H->DevMx), H->MVal.data(), H->MVal.size() * sizeof(double));
  return St;
}

cusolverStatus_t cusolverRfResetValues(int n, int nnzA, int *rA, int *cA, double *vA, int *P, int *Q,
                                       cusolverRfHandle_t Handle) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Setup || n != H->N || nnzA != static_cast<int>(H->ACol.size()) || !rA || !cA || !vA || !P || !Q)
    return CUSOLVER_STATUS_INVALID_VALUE;
  drain();
  if (!std::equal(H->ARow.begin(), H->ARow.end(), rA) || !std::equal(H->ACol.begin(), H->ACol.end(), cA) ||
      !std::equal(H->P.begin(), H->P.end(), P) || !std::equal(H->Q.begin(), H->Q.end(), Q))
    return CUSOLVER_STATUS_INVALID_VALUE; // the pattern and permutations stay those of the setup
  H->AVal.assign(vA, vA + nnzA);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSolve(cusolverRfHandle_t Handle, int *P, int *Q, int nrhs, double *Temp, int ldt,
                                 double *XF, int ldxf) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  int N = H->N;
  // cuSolverRf documents nrhs = 1 as the only value supported.
  if (!H->Setup || !P || !Q || nrhs != 1 || !Temp || ldt < N || !XF || ldxf < N)
    return CUSOLVER_STATUS_INVALID_VALUE;
  drain();
  std::vector<double> Y(N);
  for (int I = 0; I < N; ++I)
    Y[I] = XF[P[I]];
  for (int I = 0; I < N; ++I) // L, unit diagonal
    for (int K = H->MRow[I]; K < H->MDiag[I]; ++K)
      Y[I] -= H->MVal[K] * Y[H->MCol[K]];
  for (int I = N - 1; I >= 0; --I) {
    double S = Y[I];
    for (int K = H->MDiag[I] + 1; K < H->MRow[I + 1]; ++K)
      S -= H->MVal[K] * Y[H->MCol[K]];
    Y[I] = S / H->MVal[H->MDiag[I]];
  }
  for (int J = 0; J < N; ++J)
    XF[Q[J]] = Y[J];
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfAccessBundledFactorsDevice(cusolverRfHandle_t Handle, int *nnzM, int **Mp, int **Mi,
                                                      double **Mx) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Setup || !nnzM || !Mp || !Mi || !Mx)
    return CUSOLVER_STATUS_INVALID_VALUE;
  const ferry::libs::DriverTable *D = ferry::libs::driver();
  if (!D)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  freeDevice(H);
  size_t Nnz = H->MCol.size();
  if (D->MemAlloc(&H->DevMp, (H->N + 1) * sizeof(int)) != CUDA_SUCCESS ||
      D->MemAlloc(&H->DevMi, std::max<size_t>(1, Nnz) * sizeof(int)) != CUDA_SUCCESS ||
      D->MemAlloc(&H->DevMx, std::max<size_t>(1, Nnz) * sizeof(double)) != CUDA_SUCCESS) {
    freeDevice(H);
    return CUSOLVER_STATUS_ALLOC_FAILED;
  }
  // Host-backend device memory is host memory of this address space.
  std::memcpy(reinterpret_cast<void *>(H->DevMp), H->MRow.data(), (H->N + 1) * sizeof(int));
  std::memcpy(reinterpret_cast<void *>(H->DevMi), H->MCol.data(), Nnz * sizeof(int));
  std::memcpy(reinterpret_cast<void *>(H->DevMx), H->MVal.data(), Nnz * sizeof(double));
  *nnzM = Nnz;
  *Mp = reinterpret_cast<int *>(H->DevMp);
  *Mi = reinterpret_cast<int *>(H->DevMi);
  *Mx = reinterpret_cast<double *>(H->DevMx);
  return CUSOLVER_STATUS_SUCCESS;
}

namespace {
template <typename T> T *hostCopy(const T *Src, size_t N) {
  T *P = static_cast<T *>(std::malloc(std::max<size_t>(1, N) * sizeof(T)));
  if (P && N)
    std::memcpy(P, Src, N * sizeof(T));
  return P;
}
} // namespace

cusolverStatus_t cusolverRfExtractBundledFactorsHost(cusolverRfHandle_t Handle, int *nnzM, int **Mp, int **Mi,
                                                     double **Mx) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Setup || !nnzM || !Mp || !Mi || !Mx)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *nnzM = H->MCol.size();
  *Mp = hostCopy(H->MRow.data(), H->MRow.size());
  *Mi = hostCopy(H->MCol.data(), H->MCol.size());
  *Mx = hostCopy(H->MVal.data(), H->MVal.size());
  return *Mp && *Mi && *Mx ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverRfExtractSplitFactorsHost(cusolverRfHandle_t Handle, int *nnzL, int **LRow, int **LCol,
                                                   double **LVal, int *nnzU, int **URow, int **UCol, double **UVal) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!H->Setup || !nnzL || !LRow || !LCol || !LVal || !nnzU || !URow || !UCol || !UVal)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int N = H->N;
  std::vector<int> Lr(N + 1, 0), Lc, Ur(N + 1, 0), Uc;
  std::vector<double> Lv, Uv;
  for (int I = 0; I < N; ++I) {
    for (int K = H->MRow[I]; K < H->MDiag[I]; ++K) {
      Lc.push_back(H->MCol[K]);
      Lv.push_back(H->MVal[K]);
    }
    Lc.push_back(I); // L's unit diagonal, stored
    Lv.push_back(1.0);
    for (int K = H->MDiag[I]; K < H->MRow[I + 1]; ++K) {
      Uc.push_back(H->MCol[K]);
      Uv.push_back(H->MVal[K]);
    }
    Lr[I + 1] = Lc.size();
    Ur[I + 1] = Uc.size();
  }
  *nnzL = Lc.size();
  *nnzU = Uc.size();
  *LRow = hostCopy(Lr.data(), Lr.size());
  *LCol = hostCopy(Lc.data(), Lc.size());
  *LVal = hostCopy(Lv.data(), Lv.size());
  *URow = hostCopy(Ur.data(), Ur.size());
  *UCol = hostCopy(Uc.data(), Uc.size());
  *UVal = hostCopy(Uv.data(), Uv.size());
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSetNumericProperties(cusolverRfHandle_t Handle, double zero, double boost) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (zero < 0 || boost < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->Zero = zero;
  H->Boost = boost;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfGetNumericProperties(cusolverRfHandle_t Handle, double *zero, double *boost) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!zero || !boost)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *zero = H->Zero;
  *boost = H->Boost;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfGetNumericBoostReport(cusolverRfHandle_t Handle, cusolverRfNumericBoostReport_t *report) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!report)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *report = H->Boosted ? CUSOLVERRF_NUMERIC_BOOST_USED : CUSOLVERRF_NUMERIC_BOOST_NOT_USED;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSetAlgs(cusolverRfHandle_t Handle, cusolverRfFactorization_t factAlg,
                                   cusolverRfTriangularSolve_t solveAlg) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (factAlg < CUSOLVERRF_FACTORIZATION_ALG0 || factAlg > CUSOLVERRF_FACTORIZATION_ALG2 ||
      solveAlg < CUSOLVERRF_TRIANGULAR_SOLVE_ALG1 || solveAlg > CUSOLVERRF_TRIANGULAR_SOLVE_ALG3)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->FactAlg = factAlg; // one algorithm here; kept and reported back
  H->SolveAlg = solveAlg;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfGetAlgs(cusolverRfHandle_t Handle, cusolverRfFactorization_t *factAlg,
                                   cusolverRfTriangularSolve_t *solveAlg) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!factAlg || !solveAlg)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *factAlg = H->FactAlg;
  *solveAlg = H->SolveAlg;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSetMatrixFormat(cusolverRfHandle_t Handle, cusolverRfMatrixFormat_t format,
                                           cusolverRfUnitDiagonal_t diag) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((format != CUSOLVERRF_MATRIX_FORMAT_CSR && format != CUSOLVERRF_MATRIX_FORMAT_CSC) ||
      diag < CUSOLVERRF_UNIT_DIAGONAL_STORED_L || diag > CUSOLVERRF_UNIT_DIAGONAL_ASSUMED_U)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->Format = format;
  H->Diag = diag;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfGetMatrixFormat(cusolverRfHandle_t Handle, cusolverRfMatrixFormat_t *format,
                                           cusolverRfUnitDiagonal_t *diag) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!format || !diag)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *format = H->Format;
  *diag = H->Diag;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfSetResetValuesFastMode(cusolverRfHandle_t Handle, cusolverRfResetValuesFastMode_t mode) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (mode != CUSOLVERRF_RESET_VALUES_FAST_MODE_OFF && mode != CUSOLVERRF_RESET_VALUES_FAST_MODE_ON)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->FastMode = mode;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverRfGetResetValuesFastMode(cusolverRfHandle_t Handle, cusolverRfResetValuesFastMode_t *mode) {
  cusolverRfCommon *H = lookupRf(Handle);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!mode)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *mode = H->FastMode;
  return CUSOLVER_STATUS_SUCCESS;
}
