/// \file
/// Sparse symmetric positive definite solves and an eigenvalue refinement,
/// as finite-element and structural code does them: the 2-D Laplacian on a
/// 10 x 10 grid plus a mass shift (n = 100), solved by csrlsvchol on the
/// device and csrlsvcholHost (reordered), checked by residual; an indefinite
/// symmetric matrix reported singular (singularity >= 0); and csreigvsi
/// (shift-inverse power iteration) converging to the 1-D Laplacian's
/// eigenvalue nearest a shift, against its closed form.
// cusolverSp and cusolverRf are deprecated in favour of cuDSS (CUDA 13);
// programs that still use them silence the warnings so.
#define DISABLE_CUSOLVER_DEPRECATED
#include "../common/sparse_util.h"
#include <cusolverSp.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

int main() {
  cusolverSpHandle_t H;
  cusparseMatDescr_t D;
  CUSOLVER_CHECK(cusolverSpCreate(&H));
  CUSPARSE_CHECK(cusparseCreateMatDescr(&D));
  CUSPARSE_CHECK(cusparseSetMatType(D, CUSPARSE_MATRIX_TYPE_GENERAL));
  CUSPARSE_CHECK(cusparseSetMatIndexBase(D, CUSPARSE_INDEX_BASE_ZERO));

  HostCsr<double> A = stencil2d<double>(10, 4.0 + 0.05); // plus a mass shift
  int N = A.Rows, Nnz = A.nnz();
  std::vector<double> B(N);
  for (int I = 0; I < N; ++I)
    B[I] = std::sin(0.1 * I) + 0.5;
  {
    int *DRow = upload(A.Ptr), *DCol = upload(A.Idx);
    double *DVal = upload(A.Val), *DB = upload(B), *DX;
    CHECK(cudaMalloc(&DX, N * sizeof(double)));
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvchol(H, N, Nnz, D, DVal, DRow, DCol, DB, 1e-12, 0, DX, &Sing));
    auto X = download(DX, N);
    std::printf("csrlsvchol singularity=%d\n", Sing);
    report("dcsrlsvchol", Sing == -1 && maxResidual(A, X, B) < 1e-12, sumAbs(X));
    cudaFree(DRow);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DB);
    cudaFree(DX);
  }
  {
    std::vector<double> X(N, 0.0);
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvcholHost(H, N, Nnz, D, A.Val.data(), A.Ptr.data(), A.Idx.data(), B.data(), 1e-12,
                                             1, X.data(), &Sing));
    report("dcsrlsvcholHost", Sing == -1 && maxResidual(A, X, B) < 1e-12, sumAbs(X));
    std::vector<float> Vf(A.Val.begin(), A.Val.end()), Bf(B.begin(), B.end()), Xf(N, 0.0f);
    CUSOLVER_CHECK(cusolverSpScsrlsvcholHost(H, N, Nnz, D, Vf.data(), A.Ptr.data(), A.Idx.data(), Bf.data(), 1e-6f, 0,
                                             Xf.data(), &Sing));
    std::vector<double> Xd(Xf.begin(), Xf.end());
    report("scsrlsvcholHost", Sing == -1 && maxResidual(A, Xd, B) < 1e-4, sumAbs(Xd));
  }
  // Indefinite: the Laplacian shifted down past its lowest eigenvalue.
  {
    HostCsr<double> S = stencil2d<double>(4, 4.0 - 1.0);
    std::vector<double> Bs(S.Rows, 1.0), X(S.Rows, 0.0);
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvcholHost(H, S.Rows, S.nnz(), D, S.Val.data(), S.Ptr.data(), S.Idx.data(),
                                             Bs.data(), 1e-12, 0, X.data(), &Sing));
    std::printf("indefinite: %s\n", Sing >= 0 ? "singular" : "regular");
    report("not_spd_detected", Sing >= 0, 1);
  }
  // csreigvsi on the 1-D Laplacian (n = 30): the eigenvalue nearest 0.5.
  {
    const int M = 30;
    const double Pi = 3.14159265358979323846;
    HostCsr<double> L;
    L.Rows = L.Cols = M;
    L.Ptr.push_back(0);
    for (int I = 0; I < M; ++I) {
      if (I > 0) {
        L.Idx.push_back(I - 1);
        L.Val.push_back(-1);
      }
      L.Idx.push_back(I);
      L.Val.push_back(2);
      if (I + 1 < M) {
        L.Idx.push_back(I + 1);
        L.Val.push_back(-1);
      }
      L.Ptr.push_back(L.Idx.size());
    }
    double Want = 0, Best = 1e9;
    for (int K = 1; K <= M; ++K) {
      double E = 2 - 2 * std::cos(K * Pi / (M + 1));
      if (std::fabs(E - 0.5) < Best) {
        Best = std::fabs(E - 0.5);
        Want = E;
      }
    }
    std::vector<double> X0(M, 1.0);
    int *DRow = upload(L.Ptr), *DCol = upload(L.Idx);
    double *DVal = upload(L.Val), *DX0 = upload(X0), *DX, *DMu;
    CHECK(cudaMalloc(&DX, M * sizeof(double)));
    CHECK(cudaMalloc(&DMu, sizeof(double)));
    CUSOLVER_CHECK(cusolverSpDcsreigvsi(H, M, L.nnz(), D, DVal, DRow, DCol, 0.5, DX0, 200, 1e-12, DMu, DX));
    double Mu = download(DMu, 1)[0];
    auto V = download(DX, M);
    double Res = 0;
    for (int I = 0; I < M; ++I) {
      double S = -Mu * V[I];
      for (int K = L.Ptr[I]; K < L.Ptr[I + 1]; ++K)
        S += L.Val[K] * V[L.Idx[K]];
      Res = std::fmax(Res, std::fabs(S));
    }
    std::printf("csreigvsi mu=%.6f\n", Mu);
    report("dcsreigvsi", closeTo(Mu, Want, 1e-8, 1e-8) && Res < 1e-4, Mu);
    cudaFree(DRow);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DX0);
    cudaFree(DX);
    cudaFree(DMu);
  }
  CUSPARSE_CHECK(cusparseDestroyMatDescr(D));
  CUSOLVER_CHECK(cusolverSpDestroy(H));
  return finish(Failures == 0);
}
