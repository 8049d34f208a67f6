/// \file
/// cuBLAS as most programs call it: a handle, SGEMM and DGEMM on device
/// buffers (a transposed operand, alpha and beta), then a small kernel that
/// consumes the result on the same stream, checked against a CPU reference
/// in double. Prints error buckets and checksums (compared with a relative
/// tolerance), not raw results.
#include "../common/lib_util.h"
#include <cublas_v2.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

__global__ void relu(float *C, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N && C[I] < 0)
    C[I] = 0;
}

template <typename T>
static double reference(const std::vector<T> &A, const std::vector<T> &B, const std::vector<T> &C0, int M, int N,
                        int K, double Alpha, double Beta, int I, int J) {
  // C = Alpha * A^T * B + Beta * C0, A stored K x M.
  double S = 0;
  for (int P = 0; P < K; ++P)
    S += (double)A[I * K + P] * (double)B[J * K + P];
  return Alpha * S + Beta * (double)C0[J * M + I];
}

int main() {
  const int M = 96, N = 80, K = 64;
  Lcg R(42);
  std::vector<float> A(K * M), B(K * N), C(M * N);
  for (float &X : A)
    X = R.range(-1, 1);
  for (float &X : B)
    X = R.range(-1, 1);
  for (float &X : C)
    X = R.range(-1, 1);
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  float *DA, *DB, *DC;
  CHECK(cudaMalloc(&DA, A.size() * 4));
  CHECK(cudaMalloc(&DB, B.size() * 4));
  CHECK(cudaMalloc(&DC, C.size() * 4));
  CUBLAS_CHECK(cublasSetMatrix(K, M, 4, A.data(), K, DA, K));
  CUBLAS_CHECK(cublasSetMatrix(K, N, 4, B.data(), K, DB, K));
  CUBLAS_CHECK(cublasSetVector(M * N, 4, C.data(), 1, DC, 1));
  float Alpha = 0.5f, Beta = 2.0f;
  CUBLAS_CHECK(cublasSgemm(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &Alpha, DA, K, DB, K, &Beta, DC, M));
  relu<<<(M * N + 127) / 128, 128>>>(DC, M * N);
  CHECK(cudaGetLastError());
  std::vector<float> Out(M * N);
  CUBLAS_CHECK(cublasGetMatrix(M, N, 4, DC, M, Out.data(), M));
  int Bad = 0, Zeros = 0;
  double Sum = 0, MaxErr = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Want = reference(A, B, C, M, N, K, Alpha, Beta, I, J);
      Want = Want < 0 ? 0 : Want;
      double Got = Out[J * M + I];
      double Err = std::fabs(Got - Want);
      MaxErr = Err > MaxErr ? Err : MaxErr;
      Bad += Err > 1e-4 + 1e-4 * std::fabs(Want);
      Zeros += Got == 0;
      Sum += Got;
    }
  std::printf("sgemm %dx%dx%d bad=%d zeros=%d sum=%.3f maxerr<1e-4: %s\n", M, N, K, Bad, Zeros, Sum,
              MaxErr < 1e-4 ? "yes" : "no");

  std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(C.begin(), C.end());
  double *EA, *EB, *EC;
  CHECK(cudaMalloc(&EA, Ad.size() * 8));
  CHECK(cudaMalloc(&EB, Bd.size() * 8));
  CHECK(cudaMalloc(&EC, Cd.size() * 8));
  CHECK(cudaMemcpy(EA, Ad.data(), Ad.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(EB, Bd.data(), Bd.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(EC, Cd.data(), Cd.size() * 8, cudaMemcpyHostToDevice));
  double DAl = -1.5, DBe = 0.25;
  CUBLAS_CHECK(cublasDgemm(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &DAl, EA, K, EB, K, &DBe, EC, M));
  std::vector<double> OutD(M * N);
  CHECK(cudaMemcpy(OutD.data(), EC, OutD.size() * 8, cudaMemcpyDeviceToHost));
  int BadD = 0;
  double SumD = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Want = reference(Ad, Bd, Cd, M, N, K, DAl, DBe, I, J);
      BadD += std::fabs(OutD[J * M + I] - Want) > 1e-12 + 1e-12 * std::fabs(Want);
      SumD += OutD[J * M + I];
    }
  double Nrm = 0;
  CUBLAS_CHECK(cublasDnrm2(H, M * N, EC, 1, &Nrm));
  std::printf("dgemm %dx%dx%d bad=%d sum=%.6f nrm2=%.6f\n", M, N, K, BadD, SumD, Nrm);
  CUBLAS_CHECK(cublasDestroy(H));
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(EA);
  cudaFree(EB);
  cudaFree(EC);
  bool Ok = Bad == 0 && BadD == 0;
  std::printf("%s\n", Ok ? "PASSED" : "FAILED");
  return Ok ? 0 : 1;
}
