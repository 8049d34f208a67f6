/// \file
/// Sparse direct solves as the cuda-samples cuSolverSp_LinearSolver does
/// them: a 2-D Poisson matrix (5-point stencil on a 9 x 9 grid, n = 81) in
/// CSR, solved by csrlsvqr on the device (zero-based descriptor), by
/// csrlsvqrHost and csrlsvluHost (one-based descriptor), in double and
/// single precision, each checked by its residual; and a matrix with an
/// empty row, which each solver must report singular (singularity >= 0).
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
  cusparseMatDescr_t D0, D1;
  CUSOLVER_CHECK(cusolverSpCreate(&H));
  CUSPARSE_CHECK(cusparseCreateMatDescr(&D0));
  CUSPARSE_CHECK(cusparseSetMatType(D0, CUSPARSE_MATRIX_TYPE_GENERAL));
  CUSPARSE_CHECK(cusparseSetMatIndexBase(D0, CUSPARSE_INDEX_BASE_ZERO));
  CUSPARSE_CHECK(cusparseCreateMatDescr(&D1));
  CUSPARSE_CHECK(cusparseSetMatType(D1, CUSPARSE_MATRIX_TYPE_GENERAL));
  CUSPARSE_CHECK(cusparseSetMatIndexBase(D1, CUSPARSE_INDEX_BASE_ONE));
  cudaStream_t Stream;
  CHECK(cudaStreamCreate(&Stream));
  CUSOLVER_CHECK(cusolverSpSetStream(H, Stream));

  // The 5-point Laplacian on a 9 x 9 grid, with a small nonsymmetric
  // convection term so QR and LU see a general matrix.
  HostCsr<double> A = stencil2d<double>(9, 4.0, -1.2, -0.8);
  int N = A.Rows, Nnz = A.nnz();
  std::vector<double> B(N);
  for (int I = 0; I < N; ++I)
    B[I] = 1.0 + 0.01 * (I % 7);
  std::printf("n=%d nnz=%d\n", N, Nnz);

  // Device csrlsvqr, zero-based.
  {
    int *DRow = upload(A.Ptr), *DCol = upload(A.Idx);
    double *DVal = upload(A.Val), *DB = upload(B), *DX;
    CHECK(cudaMalloc(&DX, N * sizeof(double)));
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvqr(H, N, Nnz, D0, DVal, DRow, DCol, DB, 1e-12, 0, DX, &Sing));
    auto X = download(DX, N);
    std::printf("csrlsvqr singularity=%d\n", Sing);
    report("dcsrlsvqr", Sing == -1 && maxResidual(A, X, B) < 1e-12, sumAbs(X));

    // Single precision on the device.
    std::vector<float> Vf(A.Val.begin(), A.Val.end()), Bf(B.begin(), B.end());
    float *DVf = upload(Vf), *DBf = upload(Bf), *DXf;
    CHECK(cudaMalloc(&DXf, N * sizeof(float)));
    CUSOLVER_CHECK(cusolverSpScsrlsvqr(H, N, Nnz, D0, DVf, DRow, DCol, DBf, 1e-6f, 0, DXf, &Sing));
    auto Xf = download(DXf, N);
    std::vector<double> Xd(Xf.begin(), Xf.end());
    report("scsrlsvqr", Sing == -1 && maxResidual(A, Xd, B) < 1e-4, sumAbs(Xd));
    cudaFree(DRow);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DB);
    cudaFree(DX);
    cudaFree(DVf);
    cudaFree(DBf);
    cudaFree(DXf);
  }

  // Host solvers, one-based indices.
  {
    std::vector<int> Row1(A.Ptr), Col1(A.Idx);
    for (int &V : Row1)
      ++V;
    for (int &V : Col1)
      ++V;
    std::vector<double> X(N, 0.0);
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvqrHost(H, N, Nnz, D1, A.Val.data(), Row1.data(), Col1.data(), B.data(), 1e-12, 1,
                                           X.data(), &Sing));
    report("dcsrlsvqrHost", Sing == -1 && maxResidual(A, X, B) < 1e-12, sumAbs(X));
    std::vector<double> X2(N, 0.0);
    CUSOLVER_CHECK(cusolverSpDcsrlsvluHost(H, N, Nnz, D1, A.Val.data(), Row1.data(), Col1.data(), B.data(), 1e-12, 1,
                                           X2.data(), &Sing));
    report("dcsrlsvluHost", Sing == -1 && maxResidual(A, X2, B) < 1e-12, sumAbs(X2));
  }

  // Row 4 empty: singular for QR and LU.
  {
    HostCsr<double> S;
    S.Rows = S.Cols = 6;
    S.Ptr.push_back(0);
    for (int I = 0; I < S.Rows; ++I) {
      if (I != 4)
        for (int J = 0; J < S.Rows; ++J)
          if (J == I || J == (I + 1) % S.Rows) {
            S.Idx.push_back(J);
            S.Val.push_back(J == I ? 3.0 : 1.0);
          }
      S.Ptr.push_back(S.Idx.size());
    }
    std::vector<double> Bs(S.Rows, 1.0), X(S.Rows, 0.0);
    int Sing = -7;
    int *DRow = upload(S.Ptr), *DCol = upload(S.Idx);
    double *DVal = upload(S.Val), *DB = upload(Bs), *DX;
    CHECK(cudaMalloc(&DX, S.Rows * sizeof(double)));
    CUSOLVER_CHECK(cusolverSpDcsrlsvqr(H, S.Rows, S.nnz(), D0, DVal, DRow, DCol, DB, 1e-12, 0, DX, &Sing));
    std::printf("empty row: qr %s", Sing >= 0 ? "singular" : "regular");
    bool Ok = Sing >= 0;
    CUSOLVER_CHECK(cusolverSpDcsrlsvluHost(H, S.Rows, S.nnz(), D0, S.Val.data(), S.Ptr.data(), S.Idx.data(),
                                           Bs.data(), 1e-12, 0, X.data(), &Sing));
    std::printf(", lu %s\n", Sing >= 0 ? "singular" : "regular");
    Ok &= Sing >= 0;
    report("singular_detected", Ok, 1);
    cudaFree(DRow);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DB);
    cudaFree(DX);
  }
  CUSPARSE_CHECK(cusparseDestroyMatDescr(D0));
  CUSPARSE_CHECK(cusparseDestroyMatDescr(D1));
  CUSOLVER_CHECK(cusolverSpDestroy(H));
  CHECK(cudaStreamDestroy(Stream));
  return finish(Failures == 0);
}
