/// \file
/// Sparse matrix-vector products in CSR form: the scalar kernel (one thread
/// per row) and the vector kernel (one warp per row with a shuffle
/// reduction), driving 20 iterations of a Jacobi solve of a diagonally
/// dominant system. Values are multiples of 1/8, so the products are exact
/// and the two kernels agree with the CPU bit for bit on the first product.
#include "../common/app_util.h"
#include <vector>

__global__ void spmvScalar(int Rows, const int *RowPtr, const int *Cols, const float *Vals, const float *X, float *Y) {
  int R = blockIdx.x * blockDim.x + threadIdx.x;
  if (R < Rows) {
    float S = 0;
    for (int E = RowPtr[R]; E < RowPtr[R + 1]; ++E)
      S += Vals[E] * X[Cols[E]];
    Y[R] = S;
  }
}

__global__ void spmvVector(int Rows, const int *RowPtr, const int *Cols, const float *Vals, const float *X, float *Y) {
  int Warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, Lane = threadIdx.x & 31;
  if (Warp >= Rows)
    return;
  float S = 0;
  for (int E = RowPtr[Warp] + Lane; E < RowPtr[Warp + 1]; E += 32)
    S += Vals[E] * X[Cols[E]];
  for (int D = 16; D > 0; D >>= 1)
    S += __shfl_down_sync(0xffffffffu, S, D);
  if (Lane == 0)
    Y[Warp] = S;
}

// x_new = (b - (A x - diag * x)) / diag
__global__ void jacobiUpdate(int Rows, const float *Ax, const float *Diag, const float *B, const float *X, float *XNew) {
  int R = blockIdx.x * blockDim.x + threadIdx.x;
  if (R < Rows)
    XNew[R] = (B[R] - (Ax[R] - Diag[R] * X[R])) / Diag[R];
}

int main() {
  const int Rows = 8192;
  std::vector<int> RowPtr(Rows + 1, 0), Cols;
  std::vector<float> Vals, Diag(Rows), B(Rows), X(Rows);
  Lcg Rng(303);
  for (int R = 0; R < Rows; ++R) {
    int Nnz = 3 + int(Rng.below(40));
    float Off = 0;
    std::vector<int> Used;
    for (int K = 0; K < Nnz; ++K) {
      int C = int(Rng.below(Rows));
      if (C == R)
        continue;
      float V = (int(Rng.below(16)) - 8) / 8.0f;
      Cols.push_back(C);
      Vals.push_back(V);
      Off += std::fabs(V);
    }
    Diag[R] = std::floor(Off) + 2.0f;
    Cols.push_back(R);
    Vals.push_back(Diag[R]);
    RowPtr[R + 1] = int(Cols.size());
    B[R] = float(int(Rng.below(64)) - 32);
    X[R] = (int(Rng.below(16)) - 8) / 8.0f;
  }
  int Nnz = int(Cols.size());
  int *DRow, *DCols;
  float *DVals, *DX, *DY, *DY2, *DDiag, *DB, *DXN;
  CHECK(cudaMalloc(&DRow, (Rows + 1) * sizeof(int)));
  CHECK(cudaMalloc(&DCols, Nnz * sizeof(int)));
  CHECK(cudaMalloc(&DVals, Nnz * sizeof(float)));
  CHECK(cudaMalloc(&DX, Rows * sizeof(float)));
  CHECK(cudaMalloc(&DY, Rows * sizeof(float)));
  CHECK(cudaMalloc(&DY2, Rows * sizeof(float)));
  CHECK(cudaMalloc(&DDiag, Rows * sizeof(float)));
  CHECK(cudaMalloc(&DB, Rows * sizeof(float)));
  CHECK(cudaMalloc(&DXN, Rows * sizeof(float)));
  CHECK(cudaMemcpy(DRow, RowPtr.data(), (Rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DCols, Cols.data(), Nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DVals, Vals.data(), Nnz * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DX, X.data(), Rows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DDiag, Diag.data(), Rows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DB, B.data(), Rows * sizeof(float), cudaMemcpyHostToDevice));
  spmvScalar<<<(Rows + 127) / 128, 128>>>(Rows, DRow, DCols, DVals, DX, DY);
  spmvVector<<<Rows * 32 / 256, 256>>>(Rows, DRow, DCols, DVals, DX, DY2);
  CHECK(cudaGetLastError());
  std::vector<float> Y(Rows), Y2(Rows);
  CHECK(cudaMemcpy(Y.data(), DY, Rows * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Y2.data(), DY2, Rows * sizeof(float), cudaMemcpyDeviceToHost));
  int Bad = 0;
  double Norm = 0;
  for (int R = 0; R < Rows; ++R) {
    double S = 0;
    for (int E = RowPtr[R]; E < RowPtr[R + 1]; ++E)
      S += double(Vals[E]) * X[Cols[E]];
    Bad += Y[R] != float(S) || Y2[R] != float(S);
    Norm += S * S;
  }
  std::printf("spmv rows=%d nnz=%d scalar+vector mismatches=%d |Ax|^2=%.4f\n", Rows, Nnz, Bad, Norm);

  const int Iters = 20;
  for (int It = 0; It < Iters; ++It) {
    spmvVector<<<Rows * 32 / 256, 256>>>(Rows, DRow, DCols, DVals, DX, DY);
    jacobiUpdate<<<(Rows + 127) / 128, 128>>>(Rows, DY, DDiag, DB, DX, DXN);
    std::swap(DX, DXN);
  }
  CHECK(cudaGetLastError());
  std::vector<float> XG(Rows);
  CHECK(cudaMemcpy(XG.data(), DX, Rows * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> XC(X.begin(), X.end()), XN(Rows);
  for (int It = 0; It < Iters; ++It) {
    for (int R = 0; R < Rows; ++R) {
      double S = 0;
      for (int E = RowPtr[R]; E < RowPtr[R + 1]; ++E)
        S += double(Vals[E]) * XC[Cols[E]];
      XN[R] = (B[R] - (S - Diag[R] * XC[R])) / Diag[R];
    }
    std::swap(XC, XN);
  }
  double Res = 0;
  int BadJ = 0;
  for (int R = 0; R < Rows; ++R) {
    double S = 0;
    for (int E = RowPtr[R]; E < RowPtr[R + 1]; ++E)
      S += double(Vals[E]) * XC[Cols[E]];
    Res += (S - B[R]) * (S - B[R]);
    BadJ += !closeTo(XG[R], XC[R], 1e-4, 1e-5);
  }
  std::printf("jacobi iterations=%d residual^2=%.3e x[0]=%.5f mismatches=%d\n", Iters, Res, XC[0], BadJ);
  CHECK(cudaFree(DRow));
  CHECK(cudaFree(DCols));
  CHECK(cudaFree(DVals));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DY));
  CHECK(cudaFree(DY2));
  CHECK(cudaFree(DDiag));
  CHECK(cudaFree(DB));
  CHECK(cudaFree(DXN));
  return finish(Bad == 0 && BadJ == 0);
}
