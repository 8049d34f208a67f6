/// \file
/// cuSOLVER inside CUDA graphs, as solvers embedded in iterative pipelines
/// use it: a stream is captured doing a copy of the matrix, getrf, getrs
/// and a kernel that scales the solution; the graph is then launched for
/// several right-hand sides written between launches, and each result is
/// checked against the host. A second handle on another stream factors an
/// SPD matrix concurrently (potrf + potrs), ordered by an event.
#include "../common/lib_util.h"
#include <cusolverDn.h>
#include <cmath>
#include <vector>

#define CUSOLVER_CHECK(Call) LIB_CHECK("cuSOLVER", Call)

__global__ void scale(double *X, int N, double F) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] *= F;
}

int main() {
  const int N = 32;
  Lcg R(99);
  std::vector<double> A(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      A[J * N + I] = R.range(-1, 1) + (I == J ? 3.0 : 0.0);
  double *DA0 = upload(A), *DA, *DB, *DW;
  int *Piv, *Info, Lwork = 0;
  CHECK(cudaMalloc(&DA, N * N * sizeof(double)));
  CHECK(cudaMalloc(&DB, N * sizeof(double)));
  CHECK(cudaMalloc(&Piv, N * sizeof(int)));
  CHECK(cudaMalloc(&Info, sizeof(int)));
  cusolverDnHandle_t H;
  CUSOLVER_CHECK(cusolverDnCreate(&H));
  cudaStream_t Stream;
  CHECK(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
  CUSOLVER_CHECK(cusolverDnSetStream(H, Stream));
  CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(H, N, N, DA0, N, &Lwork));
  CHECK(cudaMalloc(&DW, std::max(Lwork, 1) * sizeof(double)));

  cudaGraph_t Graph;
  cudaGraphExec_t Exec;
  CHECK(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(DA, DA0, N * N * sizeof(double), cudaMemcpyDeviceToDevice, Stream));
  CUSOLVER_CHECK(cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
  CUSOLVER_CHECK(cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Piv, DB, N, Info));
  scale<<<1, 64, 0, Stream>>>(DB, N, 2.0);
  CHECK(cudaStreamEndCapture(Stream, &Graph));
  CHECK(cudaGraphInstantiate(&Exec, Graph, 0));

  bool AllOk = true;
  double Sum = 0;
  for (int Launch = 0; Launch < 3; ++Launch) {
    std::vector<double> B(N);
    for (double &V : B)
      V = R.range(-1, 1);
    CHECK(cudaMemcpyAsync(DB, B.data(), N * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CHECK(cudaGraphLaunch(Exec, Stream));
    std::vector<double> X(N);
    int HInfo = -1;
    CHECK(cudaMemcpyAsync(X.data(), DB, N * sizeof(double), cudaMemcpyDeviceToHost, Stream));
    CHECK(cudaMemcpyAsync(&HInfo, Info, sizeof(int), cudaMemcpyDeviceToHost, Stream));
    CHECK(cudaStreamSynchronize(Stream));
    double Worst = 0;
    for (int I = 0; I < N; ++I) {
      double S = -2.0 * B[I];
      for (int K = 0; K < N; ++K)
        S += A[K * N + I] * X[K];
      Worst = std::fmax(Worst, std::fabs(S));
      Sum += std::fabs(X[I]);
    }
    AllOk &= HInfo == 0 && Worst < 1e-12;
  }
  report("graph_getrf_getrs", AllOk, Sum);

  // A second handle on its own stream, after an event of the first.
  {
    cusolverDnHandle_t H2;
    cudaStream_t S2;
    cudaEvent_t Ready;
    CUSOLVER_CHECK(cusolverDnCreate(&H2));
    CHECK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&Ready));
    CUSOLVER_CHECK(cusolverDnSetStream(H2, S2));
    cudaStream_t Got = nullptr;
    CUSOLVER_CHECK(cusolverDnGetStream(H2, &Got));
    std::vector<double> Spd(N * N), B(N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        double X = I == J ? N : 0;
        for (int K = 0; K < N; ++K)
          X += A[K * N + I] * A[K * N + J];
        Spd[J * N + I] = X;
      }
    for (double &V : B)
      V = R.range(-1, 1);
    double *DS, *DB2, *DW2;
    int *Info2;
    CHECK(cudaMalloc(&DS, N * N * sizeof(double)));
    CHECK(cudaMalloc(&DB2, N * sizeof(double)));
    CHECK(cudaMalloc(&Info2, sizeof(int)));
    CHECK(cudaMemcpyAsync(DS, Spd.data(), N * N * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CHECK(cudaMemcpyAsync(DB2, B.data(), N * sizeof(double), cudaMemcpyHostToDevice, Stream));
    CHECK(cudaEventRecord(Ready, Stream));
    CHECK(cudaStreamWaitEvent(S2, Ready, 0));
    int Lw = 0;
    CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(H2, CUBLAS_FILL_MODE_UPPER, N, DS, N, &Lw));
    CHECK(cudaMalloc(&DW2, std::max(Lw, 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDpotrf(H2, CUBLAS_FILL_MODE_UPPER, N, DS, N, DW2, Lw, Info2));
    CUSOLVER_CHECK(cusolverDnDpotrs(H2, CUBLAS_FILL_MODE_UPPER, N, 1, DS, N, DB2, N, Info2));
    std::vector<double> X(N);
    CHECK(cudaMemcpyAsync(X.data(), DB2, N * sizeof(double), cudaMemcpyDeviceToHost, S2));
    CHECK(cudaStreamSynchronize(S2));
    double Worst = 0, S = 0;
    for (int I = 0; I < N; ++I) {
      double V = -B[I];
      for (int K = 0; K < N; ++K)
        V += Spd[K * N + I] * X[K];
      Worst = std::fmax(Worst, std::fabs(V));
      S += std::fabs(X[I]);
    }
    report("second_stream", Got == S2 && Worst < 1e-11 && download(Info2, 1)[0] == 0, S);
    cudaFree(DS);
    cudaFree(DB2);
    cudaFree(DW2);
    cudaFree(Info2);
    CHECK(cudaEventDestroy(Ready));
    CUSOLVER_CHECK(cusolverDnDestroy(H2));
    CHECK(cudaStreamDestroy(S2));
  }
  CHECK(cudaGraphExecDestroy(Exec));
  CHECK(cudaGraphDestroy(Graph));
  CUSOLVER_CHECK(cusolverDnDestroy(H));
  CHECK(cudaStreamDestroy(Stream));
  cudaFree(DA0);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DW);
  cudaFree(Piv);
  cudaFree(Info);
  return finish(Failures == 0);
}
