/// \file
/// Triangular solves with many right-hand sides (cusparseSpSM), as block
/// preconditioners and sparse direct solvers apply their factors: lower
/// and upper triangles of one random matrix (the other triangle stored too
/// and ignored, as cuSPARSE documents), unit and non-unit diagonal,
/// op(A) = A and A^T, op(B) = B and B^T, column- and row-major dense
/// matrices, in float and double. Each solution is checked by multiplying
/// back on the host.
#include "../common/sparse_util.h"

template <typename T>
static void run(const char *Prefix, cudaDataType Ty, double Tol, cusparseHandle_t H) {
  const int N = 150, K = 6;
  HostCsr<T> A = randomCsr<T>(N, N, 5, 151, true);
  int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
  T *DVal = upload(A.Val);
  struct Case {
    const char *Name;
    cusparseFillMode_t Fill;
    cusparseDiagType_t Diag;
    bool TransA, TransB;
    cusparseOrder_t Order;
  } Cases[] = {{"lower-nn-col", CUSPARSE_FILL_MODE_LOWER, CUSPARSE_DIAG_TYPE_NON_UNIT, false, false,
                CUSPARSE_ORDER_COL},
               {"upper-nn-row", CUSPARSE_FILL_MODE_UPPER, CUSPARSE_DIAG_TYPE_NON_UNIT, false, false,
                CUSPARSE_ORDER_ROW},
               {"lower-unit-tn", CUSPARSE_FILL_MODE_LOWER, CUSPARSE_DIAG_TYPE_UNIT, true, false,
                CUSPARSE_ORDER_COL},
               {"upper-nt-col", CUSPARSE_FILL_MODE_UPPER, CUSPARSE_DIAG_TYPE_NON_UNIT, false, true,
                CUSPARSE_ORDER_COL}};
  for (const Case &Cs : Cases) {
    // B is N x K (or K x N when transposed), row-major on the host.
    int BR = Cs.TransB ? K : N, BC = Cs.TransB ? N : K;
    std::vector<T> B = randomVector<T>(BR * BC, 152);
    auto Store = [&](const std::vector<T> &V, int R, int C) {
      std::vector<T> Out(V.size());
      for (int I = 0; I < R; ++I)
        for (int J = 0; J < C; ++J)
          Out[Cs.Order == CUSPARSE_ORDER_ROW ? I * C + J : J * R + I] = V[I * C + J];
      return Out;
    };
    T *DB = upload(Store(B, BR, BC)), *DC;
    CHECK(cudaMalloc(&DC, N * K * sizeof(T)));
    cusparseSpMatDescr_t MA;
    CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, Ty));
    cusparseFillMode_t Fill = Cs.Fill;
    cusparseDiagType_t Diag = Cs.Diag;
    CUSPARSE_CHECK(cusparseSpMatSetAttribute(MA, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
    CUSPARSE_CHECK(cusparseSpMatSetAttribute(MA, CUSPARSE_SPMAT_DIAG_TYPE, &Diag, sizeof Diag));
    cusparseDnMatDescr_t MB, MC;
    CUSPARSE_CHECK(cusparseCreateDnMat(&MB, BR, BC, Cs.Order == CUSPARSE_ORDER_ROW ? BC : BR, DB,
                                       Ty, Cs.Order));
    CUSPARSE_CHECK(
        cusparseCreateDnMat(&MC, N, K, Cs.Order == CUSPARSE_ORDER_ROW ? K : N, DC, Ty, Cs.Order));
    auto OpA = Cs.TransA ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    auto OpB = Cs.TransB ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    T Alpha = T(1.5);
    cusparseSpSMDescr_t D;
    CUSPARSE_CHECK(cusparseSpSM_createDescr(&D));
    size_t Size;
    char Name[64];
    std::snprintf(Name, sizeof Name, "%s-%s", Prefix, Cs.Name);
    int St = cusparseSpSM_bufferSize(H, OpA, OpB, &Alpha, MA, MB, MC, Ty, CUSPARSE_SPSM_ALG_DEFAULT,
                                     D, &Size);
    void *Buf = nullptr;
    if (St == 0) {
      CHECK(cudaMalloc(&Buf, Size ? Size : 1));
      St = cusparseSpSM_analysis(H, OpA, OpB, &Alpha, MA, MB, MC, Ty, CUSPARSE_SPSM_ALG_DEFAULT, D,
                                 Buf);
    }
    if (St == 0)
      St = cusparseSpSM_solve(H, OpA, OpB, &Alpha, MA, MB, MC, Ty, CUSPARSE_SPSM_ALG_DEFAULT, D);
    if (St) {
      std::printf("%-22s status %d\n", Name, St);
    } else {
      std::vector<T> Raw = download(DC, N * K), C(N * K);
      for (int I = 0; I < N; ++I)
        for (int J = 0; J < K; ++J)
          C[I * K + J] = Raw[Cs.Order == CUSPARSE_ORDER_ROW ? I * K + J : J * N + I];
      // op(T) C == alpha op(B), T the chosen triangle.
      std::vector<double> Lhs(N * K, 0.0), Rhs(N * K);
      for (int I = 0; I < N; ++I)
        for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
          int J = A.Idx[P];
          if (Cs.Fill == CUSPARSE_FILL_MODE_LOWER ? J > I : J < I)
            continue;
          double V = J == I && Cs.Diag == CUSPARSE_DIAG_TYPE_UNIT ? 1.0 : (double)A.Val[P];
          for (int L = 0; L < K; ++L)
            if (Cs.TransA)
              Lhs[J * K + L] += V * C[I * K + L];
            else
              Lhs[I * K + L] += V * C[J * K + L];
        }
      for (int I = 0; I < N; ++I)
        for (int L = 0; L < K; ++L)
          Rhs[I * K + L] = 1.5 * (double)(Cs.TransB ? B[L * N + I] : B[I * K + L]);
      report(Name, allClose(Lhs, Rhs, Tol), sumAbs(C));
    }
    CUSPARSE_CHECK(cusparseSpSM_destroyDescr(D));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(MC));
    CUSPARSE_CHECK(cusparseDestroySpMat(MA));
    cudaFree(DB), cudaFree(DC), cudaFree(Buf);
  }
}

int main() {
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  run<float>("s", CUDA_R_32F, 1e-5, H);
  run<double>("d", CUDA_R_64F, 1e-12, H);
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
