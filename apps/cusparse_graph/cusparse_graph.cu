/// \file
/// cuSPARSE inside CUDA graphs, as iterative solvers cut their launch
/// overhead: a power iteration step (y = A x with cusparseSpMV, then a
/// normalising kernel of the program's own) captured from a non-blocking
/// stream into a graph, instantiated and launched 30 times, with alpha and
/// beta in device memory (CUSPARSE_POINTER_MODE_DEVICE). Also the pointer
/// mode round trip and an SpMV enqueued behind a kernel on the same stream.
/// The dominant eigenvalue of the 2D Laplacian is compared with its closed
/// form and the vector with a host power iteration.
#include "../common/sparse_util.h"

__global__ void normalise(double *X, const double *Y, int N, double *Norm) {
  __shared__ double Part[256];
  double S = 0;
  for (int I = threadIdx.x; I < N; I += blockDim.x)
    S += Y[I] * Y[I];
  Part[threadIdx.x] = S;
  __syncthreads();
  for (int W = blockDim.x / 2; W > 0; W /= 2) {
    if (threadIdx.x < W)
      Part[threadIdx.x] += Part[threadIdx.x + W];
    __syncthreads();
  }
  double Nrm = sqrt(Part[0]);
  for (int I = threadIdx.x; I < N; I += blockDim.x)
    X[I] = Y[I] / Nrm;
  if (threadIdx.x == 0)
    *Norm = Nrm;
}

__global__ void fill(double *X, int N, double V) {
  for (int I = threadIdx.x + blockIdx.x * blockDim.x; I < N; I += blockDim.x * gridDim.x)
    X[I] = V;
}

int main() {
  const int G = 24;
  HostCsr<double> A = laplacian2d<double>(G);
  int N = A.Rows;
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  CUSPARSE_CHECK(cusparseSetStream(H, S));
  CUSPARSE_CHECK(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE));
  cusparsePointerMode_t Mode;
  CUSPARSE_CHECK(cusparseGetPointerMode(H, &Mode));
  std::printf("pointer mode %d\n", (int)Mode);
  int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
  double *DVal = upload(A.Val), *DX, *DY, *DNorm;
  std::vector<double> Scalars{1.0, 0.0};
  double *DScalars = upload(Scalars);
  CHECK(cudaMalloc(&DX, N * sizeof(double)));
  CHECK(cudaMalloc(&DY, N * sizeof(double)));
  CHECK(cudaMalloc(&DNorm, sizeof(double)));
  // A start vector that is not orthogonal to the dominant eigenvector.
  std::vector<double> X0(N);
  for (int I = 0; I < N; ++I)
    X0[I] = (I % 2 ? 1.0 : -1.0) * ((I / G) % 2 ? -1.0 : 1.0) + 0.001 * I;
  CHECK(cudaMemcpy(DX, X0.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  cusparseSpMatDescr_t MA;
  cusparseDnVecDescr_t VX, VY;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VX, N, DX, CUDA_R_64F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VY, N, DY, CUDA_R_64F));
  size_t Size;
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, DScalars, MA, VX,
                                         DScalars + 1, VY, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                         &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size ? Size : 1));

  cudaGraph_t Graph;
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  CUSPARSE_CHECK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, DScalars, MA, VX, DScalars + 1,
                              VY, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, Buf));
  normalise<<<1, 256, 0, S>>>(DX, DY, N, DNorm);
  CHECK(cudaStreamEndCapture(S, &Graph));
  size_t Nodes = 0;
  CHECK(cudaGraphGetNodes(Graph, nullptr, &Nodes));
  std::printf("graph nodes: %s\n", Nodes >= 2 ? "at least 2" : "fewer than 2");
  cudaGraphExec_t Exec;
  CHECK(cudaGraphInstantiate(&Exec, Graph, 0));
  for (int It = 0; It < 30; ++It)
    CHECK(cudaGraphLaunch(Exec, S));
  CHECK(cudaStreamSynchronize(S));
  double Norm;
  CHECK(cudaMemcpy(&Norm, DNorm, sizeof Norm, cudaMemcpyDeviceToHost));
  std::vector<double> X = download(DX, N);
  // Host power iteration, same start, same steps.
  std::vector<double> Hx = X0;
  double HNorm = 0;
  for (int It = 0; It < 30; ++It) {
    std::vector<double> Hy = hostSpmv(A, Hx);
    HNorm = std::sqrt([&] {
      double S = 0;
      for (double V : Hy)
        S += V * V;
      return S;
    }());
    for (int I = 0; I < N; ++I)
      Hx[I] = Hy[I] / HNorm;
  }
  report("graph-power", closeTo(Norm, HNorm, 1e-10, 0) && allClose(X, Hx, 1e-9), Norm);
  double Exact = 4 + 4 * std::cos(M_PI / (G + 1));
  report("below-lambda-max", Norm <= Exact + 1e-9, Exact);

  // An SpMV queued behind a kernel on the same stream sees the kernel's result.
  fill<<<4, 128, 0, S>>>(DX, N, 1.0);
  CUSPARSE_CHECK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, DScalars, MA, VX, DScalars + 1,
                              VY, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, Buf));
  CHECK(cudaStreamSynchronize(S));
  std::vector<double> Y = download(DY, N), Ones(N, 1.0);
  report("after-kernel", allClose(Y, hostSpmv(A, Ones), 1e-12), sumAbs(Y));

  CHECK(cudaGraphExecDestroy(Exec));
  CHECK(cudaGraphDestroy(Graph));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
  CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
