/// \file
/// Incomplete-Cholesky preconditioned CG in single precision, the other
/// preconditioner of the cuda-samples' style solvers: cusparseScsric02
/// (bufferSize, analysis, zero-pivot query, factorization) on the lower
/// triangle of an SPD matrix (3D 7-point Laplacian), then each iteration
/// solves L z' = r and L^T z = z' with cusparseSpSV over one descriptor,
/// op(A) = A then A^T; SpMV and cuBLAS for the rest. A second, shifted
/// matrix with a zero on the diagonal shows the structural zero pivot.
/// Verdicts: the factor matches a host IC(0), the solve converges, A x = b.
#include "../common/pcg_util.h"

/// Lower triangle (with diagonal) of the 7-point Laplacian on G^3 points.
static HostCsr<float> laplacian3dLower(int G) {
  HostCsr<float> A;
  A.Rows = A.Cols = G * G * G;
  A.Ptr.push_back(0);
  for (int Z = 0; Z < G; ++Z)
    for (int Y = 0; Y < G; ++Y)
      for (int X = 0; X < G; ++X) {
        int I = (Z * G + Y) * G + X;
        if (Z > 0)
          A.Idx.push_back(I - G * G), A.Val.push_back(-1);
        if (Y > 0)
          A.Idx.push_back(I - G), A.Val.push_back(-1);
        if (X > 0)
          A.Idx.push_back(I - 1), A.Val.push_back(-1);
        A.Idx.push_back(I), A.Val.push_back(6);
        A.Ptr.push_back((int)A.Idx.size());
      }
  return A;
}

static void hostIc0(const HostCsr<float> &L, std::vector<double> &V) {
  int N = L.Rows;
  std::vector<int> Pos(N, -1);
  for (int I = 0; I < N; ++I) {
    for (int K = L.Ptr[I]; K < L.Ptr[I + 1]; ++K)
      Pos[L.Idx[K]] = K;
    for (int K = L.Ptr[I]; K < L.Ptr[I + 1]; ++K) {
      int J = L.Idx[K];
      double S = V[K];
      for (int P = L.Ptr[J]; P < L.Ptr[J + 1] && L.Idx[P] < J; ++P)
        if (Pos[L.Idx[P]] >= 0)
          S -= V[Pos[L.Idx[P]]] * V[P];
      if (J < I)
        V[K] = S / V[L.Ptr[J + 1] - 1];
      else
        V[K] = std::sqrt(S);
    }
    for (int K = L.Ptr[I]; K < L.Ptr[I + 1]; ++K)
      Pos[L.Idx[K]] = -1;
  }
}

int main() {
  HostCsr<float> L = laplacian3dLower(12);
  int N = L.Rows, Nnz = L.nnz();
  cusparseHandle_t Sp;
  cublasHandle_t Bl;
  CUSPARSE_CHECK(cusparseCreate(&Sp));
  CUBLAS_CHECK(cublasCreate(&Bl));
  int *DPtr = upload(L.Ptr), *DIdx = upload(L.Idx);
  float *DVal = upload(L.Val), *DIc = upload(L.Val);
  cusparseMatDescr_t Descr;
  CUSPARSE_CHECK(cusparseCreateMatDescr(&Descr));
  CUSPARSE_CHECK(cusparseSetMatFillMode(Descr, CUSPARSE_FILL_MODE_LOWER));
  std::printf("descr: type %d fill %d diag %d base %d\n", (int)cusparseGetMatType(Descr),
              (int)cusparseGetMatFillMode(Descr), (int)cusparseGetMatDiagType(Descr),
              (int)cusparseGetMatIndexBase(Descr));
  csric02Info_t Info;
  CUSPARSE_CHECK(cusparseCreateCsric02Info(&Info));
  int Size = 0;
  CUSPARSE_CHECK(cusparseScsric02_bufferSize(Sp, N, Nnz, Descr, DIc, DPtr, DIdx, Info, &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size));
  CUSPARSE_CHECK(cusparseScsric02_analysis(Sp, N, Nnz, Descr, DIc, DPtr, DIdx, Info,
                                           CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  int Pivot = 0;
  int PivotStatus = cusparseXcsric02_zeroPivot(Sp, Info, &Pivot);
  std::printf("analysis: status %d pivot %d\n", PivotStatus, Pivot);
  CUSPARSE_CHECK(cusparseScsric02(Sp, N, Nnz, Descr, DIc, DPtr, DIdx, Info,
                                  CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  PivotStatus = cusparseXcsric02_zeroPivot(Sp, Info, &Pivot);
  std::printf("factor: status %d pivot %d\n", PivotStatus, Pivot);
  std::vector<double> Want(L.Val.begin(), L.Val.end());
  hostIc0(L, Want);
  std::vector<float> Factor = download(DIc, Nnz);
  report("ic0-factor", allClose(Factor, Want, 1e-5), sumAbs(Factor));

  // The full symmetric matrix for SpMV: lower plus its transpose.
  HostCsr<float> A;
  A.Rows = A.Cols = N;
  {
    std::vector<std::vector<std::pair<int, float>>> Rows(N);
    for (int I = 0; I < N; ++I)
      for (int K = L.Ptr[I]; K < L.Ptr[I + 1]; ++K) {
        Rows[I].push_back({L.Idx[K], L.Val[K]});
        if (L.Idx[K] != I)
          Rows[L.Idx[K]].push_back({I, L.Val[K]});
      }
    A.Ptr.push_back(0);
    for (auto &R : Rows) {
      std::sort(R.begin(), R.end());
      for (auto [J, V] : R)
        A.Idx.push_back(J), A.Val.push_back(V);
      A.Ptr.push_back((int)A.Idx.size());
    }
  }
  int *DAPtr = upload(A.Ptr), *DAIdx = upload(A.Idx);
  float *DAVal = upload(A.Val);
  cusparseSpMatDescr_t MA, ML;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DAPtr, DAIdx, DAVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateCsr(&ML, N, N, Nnz, DPtr, DIdx, DIc, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseFillMode_t Lower = CUSPARSE_FILL_MODE_LOWER;
  CUSPARSE_CHECK(cusparseSpMatSetAttribute(ML, CUSPARSE_SPMAT_FILL_MODE, &Lower, sizeof Lower));
  CgVectors<float> V = cgVectors<float>(N);
  float One = 1, Zero = 0;
  cusparseSpSVDescr_t SL, SLt;
  CUSPARSE_CHECK(cusparseSpSV_createDescr(&SL));
  CUSPARSE_CHECK(cusparseSpSV_createDescr(&SLt));
  size_t S1, S2, S3;
  auto N_ = CUSPARSE_OPERATION_NON_TRANSPOSE, T_ = CUSPARSE_OPERATION_TRANSPOSE;
  CUSPARSE_CHECK(cusparseSpSV_bufferSize(Sp, N_, &One, ML, V.VR, V.VT, CUDA_R_32F,
                                         CUSPARSE_SPSV_ALG_DEFAULT, SL, &S1));
  CUSPARSE_CHECK(cusparseSpSV_bufferSize(Sp, T_, &One, ML, V.VT, V.VZ, CUDA_R_32F,
                                         CUSPARSE_SPSV_ALG_DEFAULT, SLt, &S2));
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(Sp, N_, &One, MA, V.VP, &Zero, V.VQ, CUDA_R_32F,
                                         CUSPARSE_SPMV_ALG_DEFAULT, &S3));
  void *B1, *B2, *B3;
  CHECK(cudaMalloc(&B1, S1));
  CHECK(cudaMalloc(&B2, S2));
  CHECK(cudaMalloc(&B3, S3 ? S3 : 1));
  CUSPARSE_CHECK(cusparseSpSV_analysis(Sp, N_, &One, ML, V.VR, V.VT, CUDA_R_32F,
                                       CUSPARSE_SPSV_ALG_DEFAULT, SL, B1));
  CUSPARSE_CHECK(cusparseSpSV_analysis(Sp, T_, &One, ML, V.VT, V.VZ, CUDA_R_32F,
                                       CUSPARSE_SPSV_ALG_DEFAULT, SLt, B2));
  std::vector<float> B(N, 1.0f);
  CHECK(cudaMemset(V.X, 0, N * sizeof(float)));
  CHECK(cudaMemcpy(V.R, B.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  // IC(0) as the preconditioner: z = (L L^T)^-1 r.
  int K = pcg(Sp, Bl, MA, N, V, B3, 500, 1e-10f, [&] {
    CUSPARSE_CHECK(
        cusparseSpSV_solve(Sp, N_, &One, ML, V.VR, V.VT, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, SL));
    CUSPARSE_CHECK(
        cusparseSpSV_solve(Sp, T_, &One, ML, V.VT, V.VZ, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, SLt));
  });
  std::vector<float> X = download(V.X, N);
  std::vector<double> Ax = hostSpmv(A, X);
  double Err = 0;
  for (int I = 0; I < N; ++I)
    Err = std::max(Err, std::fabs(Ax[I] - 1.0));
  report("pcg-ic0", K < 60 && Err < 1e-3, sumAbs(X));

  // A missing diagonal entry: a structural zero pivot, found by the analysis.
  {
    HostCsr<float> Bad = L;
    int Row = 10, Base = 1;
    // Drop row 10's diagonal (the last entry of that row) by moving it off:
    // keep the pattern, but make it column 9's entry (still lower).
    Bad.Idx[Bad.Ptr[Row + 1] - 1] = Row - 1;
    std::sort(Bad.Idx.begin() + Bad.Ptr[Row], Bad.Idx.begin() + Bad.Ptr[Row + 1]);
    Bad.Idx.erase(std::unique(Bad.Idx.begin() + Bad.Ptr[Row], Bad.Idx.begin() + Bad.Ptr[Row + 1]),
                  Bad.Idx.begin() + Bad.Ptr[Row + 1]);
    // Rebuild offsets after the erase, then make it one-based.
    int Removed = (int)L.Idx.size() - (int)Bad.Idx.size();
    for (int I = Row + 1; I <= N; ++I)
      Bad.Ptr[I] -= Removed;
    Bad.Val.resize(Bad.Idx.size());
    for (int &X2 : Bad.Ptr)
      X2 += Base;
    for (int &X2 : Bad.Idx)
      X2 += Base;
    int *BP = upload(Bad.Ptr), *BI = upload(Bad.Idx);
    float *BV = upload(Bad.Val);
    cusparseMatDescr_t D1;
    CUSPARSE_CHECK(cusparseCreateMatDescr(&D1));
    CUSPARSE_CHECK(cusparseSetMatIndexBase(D1, CUSPARSE_INDEX_BASE_ONE));
    csric02Info_t I1;
    CUSPARSE_CHECK(cusparseCreateCsric02Info(&I1));
    CUSPARSE_CHECK(cusparseScsric02_analysis(Sp, N, Bad.nnz(), D1, BV, BP, BI, I1,
                                             CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
    int P1 = 0;
    int St = cusparseXcsric02_zeroPivot(Sp, I1, &P1);
    std::printf("structural zero pivot: status %d position %d\n", St, P1);
    report("zero-pivot", St == CUSPARSE_STATUS_ZERO_PIVOT && P1 == Row + Base, P1);
    CUSPARSE_CHECK(cusparseDestroyCsric02Info(I1));
    CUSPARSE_CHECK(cusparseDestroyMatDescr(D1));
  }
  CUSPARSE_CHECK(cusparseDestroyCsric02Info(Info));
  CUSPARSE_CHECK(cusparseDestroyMatDescr(Descr));
  CUSPARSE_CHECK(cusparseSpSV_destroyDescr(SL));
  CUSPARSE_CHECK(cusparseSpSV_destroyDescr(SLt));
  CUSPARSE_CHECK(cusparseDestroy(Sp));
  CUBLAS_CHECK(cublasDestroy(Bl));
  return finish(Failures == 0);
}
