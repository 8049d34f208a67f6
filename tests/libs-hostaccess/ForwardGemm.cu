// GEMM forms libcublas forwards to rocBLAS where the host cannot reach
// device memory (libs/cublas/RocBlas.cpp): a strided batch with alpha and
// beta in device memory (pointer mode DEVICE), a plain DGEMM with op(B) =
// B^T, and GemmEx over FP32. Checked against a reference computed here in
// double; prints "ForwardGemm: PASS" or the first mismatch.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(X)                                                                                   \
  do {                                                                                             \
    int S_ = static_cast<int>(X);                                                                  \
    if (S_ != 0) {                                                                                 \
      std::printf("ForwardGemm: %s returned %d\nFAIL\n", #X, S_);                                  \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

template <typename T>
void reference(bool TransB, int M, int N, int K, double Alpha, const std::vector<T> &A, int Lda,
               const std::vector<T> &B, int Ldb, double Beta, std::vector<double> &C, int Ldc, long SA, long SB,
               long SC, int Batch) {
  for (int Bi = 0; Bi < Batch; ++Bi)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Sum = 0;
        for (int L = 0; L < K; ++L)
          Sum += double(A[Bi * SA + I + L * Lda]) * double(TransB ? B[Bi * SB + J + L * Ldb] : B[Bi * SB + L + J * Ldb]);
        double &Out = C[Bi * SC + I + J * Ldc];
        Out = Alpha * Sum + Beta * Out;
      }
}

template <typename T> bool close(const char *What, const std::vector<T> &Got, const std::vector<double> &Want, double Tol) {
  for (size_t I = 0; I < Want.size(); ++I)
    if (std::fabs(double(Got[I]) - Want[I]) > Tol * (1 + std::fabs(Want[I]))) {
      std::printf("ForwardGemm: %s[%zu] = %.9g, want %.9g\n", What, I, double(Got[I]), Want[I]);
      return false;
    }
  return true;
}

int main() {
  const int M = 13, N = 7, K = 5, Batch = 3, Lda = 16, Ldb = 8, Ldc = 14;
  const long SA = Lda * K + 3, SB = Ldb * N + 1, SC = Ldc * N + 2;
  std::vector<float> A(SA * Batch), B(SB * Batch), C(SC * Batch);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = float((I * 37 % 101) - 50) / 25;
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = float((I * 53 % 97) - 48) / 24;
  for (size_t I = 0; I < C.size(); ++I)
    C[I] = float((I * 29 % 89) - 44) / 22;
  std::vector<double> Want(C.begin(), C.end());
  cublasHandle_t H;
  CHECK(cublasCreate(&H));
  float *DA, *DB, *DC, *DScal;
  CHECK(cudaMalloc(&DA, A.size() * 4));
  CHECK(cudaMalloc(&DB, B.size() * 4));
  CHECK(cudaMalloc(&DC, C.size() * 4));
  CHECK(cudaMalloc(&DScal, 8));
  float Scal[2] = {0.75f, -1.5f};
  CHECK(cudaMemcpy(DA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DScal, Scal, 8, cudaMemcpyHostToDevice));
  CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE));
  // op(B) = B^T: B is N x K with leading dimension Ldb.
  CHECK(cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, DScal, DA, Lda, SA, DB, Ldb, SB, DScal + 1,
                                  DC, Ldc, SC, Batch));
  CHECK(cudaMemcpy(C.data(), DC, C.size() * 4, cudaMemcpyDeviceToHost));
  reference(true, M, N, K, 0.75, A, Lda, B, Ldb, -1.5, Want, Ldc, SA, SB, SC, Batch);
  bool Ok = close("strided batched SGEMM, device scalars", C, Want, 1e-5);

  // GemmEx over FP32, host scalars, batch 0 of the same data.
  CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST));
  float Alpha = 2.0f, Beta = 0.0f;
  CHECK(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, 4, K, &Alpha, DA, CUDA_R_32F, Lda, DB, CUDA_R_32F, Ldb, &Beta, DC,
                     CUDA_R_32F, Ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CHECK(cudaMemcpy(C.data(), DC, C.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<double> WantEx(Want);
  for (int J = 0; J < 4; ++J)
    for (int I = 0; I < M; ++I)
      WantEx[I + J * Ldc] = 0;
  reference(false, M, 4, K, 2.0, A, Lda, B, Ldb, 0.0, WantEx, Ldc, 0, 0, 0, 1);
  Ok = Ok && close("GemmEx FP32", C, WantEx, 1e-5);

  // DGEMM, op(A) = A^T (A is K x M).
  std::vector<double> Ad(K * M), Bd(K * N), Cd(M * N, 1.0);
  for (size_t I = 0; I < Ad.size(); ++I)
    Ad[I] = double(I % 7) - 3.25;
  for (size_t I = 0; I < Bd.size(); ++I)
    Bd[I] = double(I % 5) * 0.5 - 1;
  std::vector<double> WantD(M * N, 1.0);
  double DAlpha = -0.5, DBeta = 3.0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Sum = 0;
      for (int L = 0; L < K; ++L)
        Sum += Ad[L + I * K] * Bd[L + J * K];
      WantD[I + J * M] = DAlpha * Sum + DBeta;
    }
  double *EA, *EB, *EC;
  CHECK(cudaMalloc(&EA, Ad.size() * 8));
  CHECK(cudaMalloc(&EB, Bd.size() * 8));
  CHECK(cudaMalloc(&EC, Cd.size() * 8));
  CHECK(cudaMemcpy(EA, Ad.data(), Ad.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(EB, Bd.data(), Bd.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(EC, Cd.data(), Cd.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cublasDgemm(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &DAlpha, EA, K, EB, K, &DBeta, EC, M));
  CHECK(cudaMemcpy(Cd.data(), EC, Cd.size() * 8, cudaMemcpyDeviceToHost));
  Ok = Ok && close("DGEMM", Cd, WantD, 1e-12);
  CHECK(cublasDestroy(H));
  std::printf("ForwardGemm: %s\n", Ok ? "PASS" : "FAIL");
  return Ok ? 0 : 1;
}
