/// \file
/// Sparse matrix-vector products through cusparseSpMV against a plain CSR
/// loop called directly, in one process: under ferry (`ferry run`) on the
/// host backend, cusparseSpMV runs ferry's CSR kernel inside a
/// stream-ordered host function, so the ratio is the cost of the cuSPARSE
/// layer (descriptor checks, the host-function launch, the synchronisation)
/// and of ferry's kernel against the simplest loop a program would write.
/// Both run on one thread over the same matrix (copies in memory of the
/// same kind). Cases: the 5-point Laplacian on a 1000 x 1000 grid (10^6
/// rows, 5 x 10^6 entries) in float and double, and a random 200,000-row
/// matrix with 32 entries a row in float. Figures are GFLOP/s (2 flops per
/// entry), the best of several runs of 10 products each (one
/// synchronisation per run), the two sides taking turns.
/// Built by nvcc, linked with -lcusparse.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename T>
static void plainCsr(int Rows, const int *Ptr, const int *Idx, const T *Val, const T *X, T *Y) {
  for (int I = 0; I < Rows; ++I) {
    T S = 0;
    for (int K = Ptr[I]; K < Ptr[I + 1]; ++K)
      S += Val[K] * X[Idx[K]];
    Y[I] = S;
  }
}

struct Csr {
  int Rows;
  std::vector<int> Ptr, Idx;
};

static Csr laplacian(int G) {
  Csr A{G * G, {0}, {}};
  for (int Y = 0; Y < G; ++Y)
    for (int X = 0; X < G; ++X) {
      int I = Y * G + X;
      if (Y > 0)
        A.Idx.push_back(I - G);
      if (X > 0)
        A.Idx.push_back(I - 1);
      A.Idx.push_back(I);
      if (X < G - 1)
        A.Idx.push_back(I + 1);
      if (Y < G - 1)
        A.Idx.push_back(I + G);
      A.Ptr.push_back((int)A.Idx.size());
    }
  return A;
}

static Csr random(int Rows, int PerRow) {
  Csr A{Rows, {0}, {}};
  uint64_t S = 12345;
  std::vector<int> Row;
  for (int I = 0; I < Rows; ++I) {
    Row.clear();
    for (int K = 0; K < PerRow; ++K) {
      S = S * 6364136223846793005ULL + 1442695040888963407ULL;
      Row.push_back((int)((S >> 33) % Rows));
    }
    std::sort(Row.begin(), Row.end());
    A.Idx.insert(A.Idx.end(), Row.begin(), Row.end());
    A.Ptr.push_back((int)A.Idx.size());
  }
  return A;
}

template <typename T>
static void run(const char *Name, const Csr &A, cudaDataType Ty, cusparseHandle_t H, int Reps) {
  int N = A.Rows, Nnz = (int)A.Idx.size();
  std::vector<T> Val(Nnz), X(N), Y(N), Y2(N);
  for (int K = 0; K < Nnz; ++K)
    Val[K] = T(1) + T(K % 7) / T(8);
  for (int I = 0; I < N; ++I)
    X[I] = T(I % 13) / T(13);
  int *DPtr, *DIdx;
  T *DVal, *DX, *DY;
  cudaMalloc(&DPtr, (N + 1) * sizeof(int));
  cudaMalloc(&DIdx, Nnz * sizeof(int));
  cudaMalloc(&DVal, Nnz * sizeof(T));
  cudaMalloc(&DX, N * sizeof(T));
  cudaMalloc(&DY, N * sizeof(T));
  cudaMemcpy(DPtr, A.Ptr.data(), (N + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(DIdx, A.Idx.data(), Nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(DVal, Val.data(), Nnz * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(DX, X.data(), N * sizeof(T), cudaMemcpyHostToDevice);
  cusparseSpMatDescr_t M;
  cusparseDnVecDescr_t VX, VY;
  cusparseCreateCsr(&M, N, N, Nnz, DPtr, DIdx, DVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, Ty);
  cusparseCreateDnVec(&VX, N, DX, Ty);
  cusparseCreateDnVec(&VY, N, DY, Ty);
  T One = 1, Zero = 0;
  size_t Size = 0;
  cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M, VX, &Zero, VY, Ty,
                          CUSPARSE_SPMV_ALG_DEFAULT, &Size);
  void *Buf;
  cudaMalloc(&Buf, Size ? Size : 1);
  double Lib = 1e30, Plain = 1e30;
  // A rep is Batch products back to back (as a solver loop issues them)
  // and one synchronisation; the plain side runs Batch loops.
  const int Batch = 10;
  for (int R = 0; R < Reps; ++R) {
    double T0 = now();
    for (int B = 0; B < Batch; ++B)
      cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M, VX, &Zero, VY, Ty,
                   CUSPARSE_SPMV_ALG_DEFAULT, Buf);
    cudaDeviceSynchronize();
    Lib = std::min(Lib, (now() - T0) / Batch);
    T0 = now();
    for (int B = 0; B < Batch; ++B)
      plainCsr(N, A.Ptr.data(), A.Idx.data(), Val.data(), X.data(), Y2.data());
    Plain = std::min(Plain, (now() - T0) / Batch);
  }
  cudaMemcpy(Y.data(), DY, N * sizeof(T), cudaMemcpyDeviceToHost);
  double MaxDiff = 0;
  for (int I = 0; I < N; ++I)
    MaxDiff = std::max(MaxDiff, (double)std::abs(Y[I] - Y2[I]));
  double Flops = 2.0 * Nnz;
  std::printf("| %s | %.2f | %.2f | %.2f |%s\n", Name, Flops / Lib * 1e-9, Flops / Plain * 1e-9,
              Plain / Lib, MaxDiff > 1e-3 ? " (results differ!)" : "");
  cusparseDestroySpMat(M);
  cusparseDestroyDnVec(VX);
  cusparseDestroyDnVec(VY);
  cudaFree(DPtr), cudaFree(DIdx), cudaFree(DVal), cudaFree(DX), cudaFree(DY), cudaFree(Buf);
}

int main(int Argc, char **Argv) {
  int Reps = Argc > 1 ? std::atoi(Argv[1]) : 10;
  cusparseHandle_t H;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS) {
    std::printf("no cuSPARSE handle\n");
    return 1;
  }
  std::printf("| SpMV (CSR, 1 thread) | cusparseSpMV GFLOP/s | plain loop GFLOP/s | ratio "
              "|\n|---|--:|--:|--:|\n");
  Csr L = laplacian(1000), R = random(200000, 32);
  run<float>("Laplacian 10^6 rows, float", L, CUDA_R_32F, H, Reps);
  run<double>("Laplacian 10^6 rows, double", L, CUDA_R_64F, H, Reps);
  run<float>("random 2x10^5 rows x 32, float", R, CUDA_R_32F, H, Reps);
  cusparseDestroy(H);
  return 0;
}
