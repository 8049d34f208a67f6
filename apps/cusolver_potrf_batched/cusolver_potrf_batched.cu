/// \file
/// Many small Cholesky solves at once, as Gaussian-process and Kalman-filter
/// code batches them: potrfBatched over a device array of matrix pointers
/// (double and single precision), potrsBatched with one right-hand side
/// each, and a batch in which one matrix is not positive definite, whose
/// infoArray entry names the failing minor while the others succeed.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

template <typename T> static T **pointers(T *Base, int Stride, int Count) {
  std::vector<T *> P(Count);
  for (int I = 0; I < Count; ++I)
    P[I] = Base + (size_t)I * Stride;
  return upload(P);
}

template <typename T> static std::vector<T> spdBatch(Lcg &R, int N, int Batch) {
  std::vector<T> A(N * N * Batch);
  for (int B = 0; B < Batch; ++B) {
    std::vector<double> G(N * N);
    for (double &V : G)
      V = R.range(-1, 1);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        double S = I == J ? 2.0 : 0.0;
        for (int K = 0; K < N; ++K)
          S += G[K * N + I] * G[K * N + J];
        A[B * N * N + J * N + I] = T(S);
      }
  }
  return A;
}

template <typename T> static void run(const char *Name, Lcg &R, cusolverDnHandle_t H, double Tol) {
  const int N = 8, Batch = 6;
  auto A = spdBatch<T>(R, N, Batch);
  std::vector<T> B(N * Batch);
  for (T &V : B)
    V = T(R.range(-1, 1));
  T *DA = upload(A), *DB = upload(B);
  T **PA = pointers(DA, N * N, Batch), **PB = pointers(DB, N, Batch);
  int *Infos, *Info;
  CHECK(cudaMalloc(&Infos, Batch * sizeof(int)));
  CHECK(cudaMalloc(&Info, sizeof(int)));
  if constexpr (sizeof(T) == 8) {
    CUSOLVER_CHECK(cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, N, PA, N, Infos, Batch));
    CUSOLVER_CHECK(cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_LOWER, N, 1, PA, N, PB, N, Info, Batch));
  } else {
    CUSOLVER_CHECK(cusolverDnSpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, N, PA, N, Infos, Batch));
    CUSOLVER_CHECK(cusolverDnSpotrsBatched(H, CUBLAS_FILL_MODE_LOWER, N, 1, PA, N, PB, N, Info, Batch));
  }
  auto X = download(DB, B.size());
  auto I = download(Infos, Batch);
  bool Ok = download(Info, 1)[0] == 0;
  double Worst = 0, Sum = 0;
  for (int Bt = 0; Bt < Batch; ++Bt) {
    Ok &= I[Bt] == 0;
    for (int Row = 0; Row < N; ++Row) {
      double S = -(double)B[Bt * N + Row];
      for (int K = 0; K < N; ++K)
        S += (double)A[Bt * N * N + K * N + Row] * X[Bt * N + K];
      Worst = std::fmax(Worst, std::fabs(S));
      Sum += std::fabs((double)X[Bt * N + Row]);
    }
  }
  report(Name, Ok && Worst < Tol, Sum);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(PA);
  cudaFree(PB);
  cudaFree(Infos);
  cudaFree(Info);
}

int main() {
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  Lcg R(3);
  run<double>("dpotrf_batched", R, H, 1e-12);
  run<float>("spotrf_batched", R, H, 1e-4);

  // Matrix 3 of the batch has a negative third diagonal entry (and is
  // otherwise diagonal): its info is 3, the others' 0.
  {
    const int N = 5, Batch = 5;
    std::vector<double> A(N * N * Batch, 0.0);
    for (int B = 0; B < Batch; ++B)
      for (int I = 0; I < N; ++I)
        A[B * N * N + I * N + I] = (B == 3 && I == 2) ? -1.0 : 1.0 + B;
    double *DA = upload(A);
    double **PA = pointers(DA, N * N, Batch);
    int *Infos;
    CHECK(cudaMalloc(&Infos, Batch * sizeof(int)));
    CUSOLVER_CHECK(cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_UPPER, N, PA, N, Infos, Batch));
    auto I = download(Infos, Batch);
    std::printf("infoArray:");
    for (int V : I)
      std::printf(" %d", V);
    std::printf("\n");
    report("batched_not_spd", I[0] == 0 && I[1] == 0 && I[2] == 0 && I[3] == 3 && I[4] == 0, I[3]);
    cudaFree(DA);
    cudaFree(PA);
    cudaFree(Infos);
  }
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  return finish(Failures == 0);
}
