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
#include "../common/lib_util.h"
#include <cusolverSp.h>
#include <cusparse.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)
#define CUSPARSE_CHECK(Call) LIB_CHECK("cuSPARSE", Call)

struct Csr {
  int N = 0;
  std::vector<int> Row, Col;
  std::vector<double> Val;
};

/// The 5-point Laplacian on a G x G grid, with a small nonsymmetric
/// convection term so QR and LU see a general matrix.
static Csr poisson(int G) {
  Csr A;
  A.N = G * G;
  A.Row.push_back(0);
  for (int Y = 0; Y < G; ++Y)
    for (int X = 0; X < G; ++X) {
      int I = Y * G + X;
      auto add = [&](int J, double V) {
        A.Col.push_back(J);
        A.Val.push_back(V);
      };
      if (Y > 0)
        add(I - G, -1.0);
      if (X > 0)
        add(I - 1, -1.2);
      add(I, 4.0);
      if (X + 1 < G)
        add(I + 1, -0.8);
      if (Y + 1 < G)
        add(I + G, -1.0);
      A.Row.push_back(A.Col.size());
    }
  return A;
}

static double residual(const Csr &A, const std::vector<double> &X, const std::vector<double> &B) {
  double Worst = 0;
  for (int I = 0; I < A.N; ++I) {
    double S = -B[I];
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
      S += A.Val[K] * X[A.Col[K]];
    Worst = std::fmax(Worst, std::fabs(S));
  }
  return Worst;
}

static double absSum(const std::vector<double> &V) {
  double S = 0;
  for (double X : V)
    S += std::fabs(X);
  return S;
}

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

  Csr A = poisson(9);
  int N = A.N, Nnz = A.Col.size();
  std::vector<double> B(N);
  for (int I = 0; I < N; ++I)
    B[I] = 1.0 + 0.01 * (I % 7);
  std::printf("n=%d nnz=%d\n", N, Nnz);

  // Device csrlsvqr, zero-based.
  {
    int *DRow = upload(A.Row), *DCol = upload(A.Col);
    double *DVal = upload(A.Val), *DB = upload(B), *DX;
    CHECK(cudaMalloc(&DX, N * sizeof(double)));
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvqr(H, N, Nnz, D0, DVal, DRow, DCol, DB, 1e-12, 0, DX, &Sing));
    auto X = download(DX, N);
    std::printf("csrlsvqr singularity=%d\n", Sing);
    report("dcsrlsvqr", Sing == -1 && residual(A, X, B) < 1e-12, absSum(X));

    // Single precision on the device.
    std::vector<float> Vf(A.Val.begin(), A.Val.end()), Bf(B.begin(), B.end());
    float *DVf = upload(Vf), *DBf = upload(Bf), *DXf;
    CHECK(cudaMalloc(&DXf, N * sizeof(float)));
    CUSOLVER_CHECK(cusolverSpScsrlsvqr(H, N, Nnz, D0, DVf, DRow, DCol, DBf, 1e-6f, 0, DXf, &Sing));
    auto Xf = download(DXf, N);
    std::vector<double> Xd(Xf.begin(), Xf.end());
    report("scsrlsvqr", Sing == -1 && residual(A, Xd, B) < 1e-4, absSum(Xd));
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
    std::vector<int> Row1(A.Row), Col1(A.Col);
    for (int &V : Row1)
      ++V;
    for (int &V : Col1)
      ++V;
    std::vector<double> X(N, 0.0);
    int Sing = -7;
    CUSOLVER_CHECK(cusolverSpDcsrlsvqrHost(H, N, Nnz, D1, A.Val.data(), Row1.data(), Col1.data(), B.data(), 1e-12, 1,
                                           X.data(), &Sing));
    report("dcsrlsvqrHost", Sing == -1 && residual(A, X, B) < 1e-12, absSum(X));
    std::vector<double> X2(N, 0.0);
    CUSOLVER_CHECK(cusolverSpDcsrlsvluHost(H, N, Nnz, D1, A.Val.data(), Row1.data(), Col1.data(), B.data(), 1e-12, 1,
                                           X2.data(), &Sing));
    report("dcsrlsvluHost", Sing == -1 && residual(A, X2, B) < 1e-12, absSum(X2));
  }

  // Row 4 empty: singular for QR and LU.
  {
    Csr S;
    S.N = 6;
    S.Row.push_back(0);
    for (int I = 0; I < S.N; ++I) {
      if (I != 4)
        for (int J = 0; J < S.N; ++J)
          if (J == I || J == (I + 1) % S.N) {
            S.Col.push_back(J);
            S.Val.push_back(J == I ? 3.0 : 1.0);
          }
      S.Row.push_back(S.Col.size());
    }
    std::vector<double> Bs(S.N, 1.0), X(S.N, 0.0);
    int Sing = -7;
    int *DRow = upload(S.Row), *DCol = upload(S.Col);
    double *DVal = upload(S.Val), *DB = upload(Bs), *DX;
    CHECK(cudaMalloc(&DX, S.N * sizeof(double)));
    CUSOLVER_CHECK(cusolverSpDcsrlsvqr(H, S.N, (int)S.Col.size(), D0, DVal, DRow, DCol, DB, 1e-12, 0, DX, &Sing));
    std::printf("empty row: qr %s", Sing >= 0 ? "singular" : "regular");
    bool Ok = Sing >= 0;
    CUSOLVER_CHECK(cusolverSpDcsrlsvluHost(H, S.N, (int)S.Col.size(), D0, S.Val.data(), S.Row.data(), S.Col.data(),
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
