/// \file
/// A CSR SpMV large enough (10^6 entries) that ferry's libcusparse splits
/// its rows over several threads (FERRY_SPARSE_THREADS=3 in the test), in
/// float with base one and in double with 64-bit indices and beta != 0,
/// checked against a host loop in double. Run under ferry by tests/cusparse
/// (cusparse.threads).
#define DISABLE_CUSPARSE_DEPRECATED
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

template <typename T, typename I>
static bool run(cusparseHandle_t H, cudaDataType Ty, cusparseIndexType_t It, int Base, double Beta,
                double Tol) {
  const int N = 100000, PerRow = 10;
  std::vector<I> Ptr(N + 1), Idx;
  std::vector<T> Val, X(N), Y0(N);
  uint64_t S = 7;
  for (int R = 0; R < N; ++R) {
    Ptr[R] = (I)(Idx.size() + Base);
    int Width = 1 + R % (2 * PerRow - 1); // uneven rows: the split is by entries
    for (int K = 0; K < Width; ++K) {
      S = S * 6364136223846793005ULL + 1442695040888963407ULL;
      Idx.push_back((I)((R + K * 977) % N + Base));
      Val.push_back(T((S >> 40) % 1000) / T(500) - T(1));
    }
    X[R] = T(R % 17) / T(17);
    Y0[R] = T(R % 5);
  }
  Ptr[N] = (I)(Idx.size() + Base);
  I *DPtr, *DIdx;
  T *DVal, *DX, *DY;
  cudaMalloc(&DPtr, Ptr.size() * sizeof(I));
  cudaMalloc(&DIdx, Idx.size() * sizeof(I));
  cudaMalloc(&DVal, Val.size() * sizeof(T));
  cudaMalloc(&DX, N * sizeof(T));
  cudaMalloc(&DY, N * sizeof(T));
  cudaMemcpy(DPtr, Ptr.data(), Ptr.size() * sizeof(I), cudaMemcpyHostToDevice);
  cudaMemcpy(DIdx, Idx.data(), Idx.size() * sizeof(I), cudaMemcpyHostToDevice);
  cudaMemcpy(DVal, Val.data(), Val.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(DX, X.data(), N * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(DY, Y0.data(), N * sizeof(T), cudaMemcpyHostToDevice);
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t VX, VY;
  cusparseCreateCsr(&A, N, N, (int64_t)Idx.size(), DPtr, DIdx, DVal, It, It,
                    Base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO, Ty);
  cusparseCreateDnVec(&VX, N, DX, Ty);
  cusparseCreateDnVec(&VY, N, DY, Ty);
  T Alpha = T(0.5), Be = T(Beta);
  size_t Size = 0;
  cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, VX, &Be, VY, Ty,
                          CUSPARSE_SPMV_ALG_DEFAULT, &Size);
  void *Buf;
  cudaMalloc(&Buf, Size ? Size : 1);
  cusparseStatus_t St = cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, VX, &Be, VY,
                                     Ty, CUSPARSE_SPMV_ALG_DEFAULT, Buf);
  std::vector<T> Y(N);
  cudaMemcpy(Y.data(), DY, N * sizeof(T), cudaMemcpyDeviceToHost);
  double Worst = 0;
  for (int R = 0; R < N; ++R) {
    double Sum = 0;
    for (I K = Ptr[R] - Base; K < Ptr[R + 1] - Base; ++K)
      Sum += (double)Val[K] * (double)X[Idx[K] - Base];
    Worst = std::fmax(Worst, std::fabs((double)Y[R] - (0.5 * Sum + Beta * (double)Y0[R])));
  }
  std::printf("status %d, %zu entries, worst error %g\n", (int)St, Idx.size(), Worst);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(VX);
  cusparseDestroyDnVec(VY);
  cudaFree(DPtr), cudaFree(DIdx), cudaFree(DVal), cudaFree(DX), cudaFree(DY), cudaFree(Buf);
  return St == CUSPARSE_STATUS_SUCCESS && Worst <= Tol;
}

int main() {
  cusparseHandle_t H;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS)
    return 1;
  bool Ok = run<float, int32_t>(H, CUDA_R_32F, CUSPARSE_INDEX_32I, 1, 0.0, 1e-4);
  Ok &= run<double, int64_t>(H, CUDA_R_64F, CUSPARSE_INDEX_64I, 0, -0.25, 1e-12);
  cusparseDestroy(H);
  std::printf("%s\n", Ok ? "CusparseThreads: PASS" : "CusparseThreads: FAIL");
  return Ok ? 0 : 1;
}
