/// \file
/// The legacy cuBLAS API (cublas.h) as old programs use it: cublasInit,
/// cublasAlloc, Set/GetMatrix, legacy BLAS calls with letters for modes and
/// scalars by value, cublasGetError, cublasShutdown. Checked against host
/// references; prints `CublasLegacy: PASS` when all hold.
#include <cublas.h>

#include <cmath>
#include <cstdio>
#include <vector>

static int Failures = 0;
static void check(const char *Name, bool Ok) {
  std::printf("%s %s\n", Name, Ok ? "ok" : "FAIL");
  Failures += !Ok;
}

int main() {
  cublasSgemm('N', 'N', 1, 1, 1, 1.0f, nullptr, 1, nullptr, 1, 0.0f, nullptr, 1);
  check("before_init_not_initialized", cublasGetError() == CUBLAS_STATUS_NOT_INITIALIZED);
  check("init", cublasInit() == CUBLAS_STATUS_SUCCESS);
  const int M = 3, N = 2, K = 4;
  std::vector<float> A(M * K), B(K * N), C(M * N, 1.0f);
  for (int I = 0; I < M * K; ++I)
    A[I] = 0.5f * I - 2;
  for (int I = 0; I < K * N; ++I)
    B[I] = 1.0f - 0.25f * I;
  float *DA, *DB, *DC;
  check("alloc", cublasAlloc(M * K, 4, (void **)&DA) == CUBLAS_STATUS_SUCCESS &&
                     cublasAlloc(K * N, 4, (void **)&DB) == CUBLAS_STATUS_SUCCESS &&
                     cublasAlloc(M * N, 4, (void **)&DC) == CUBLAS_STATUS_SUCCESS);
  cublasSetMatrix(M, K, 4, A.data(), M, DA, M);
  cublasSetMatrix(K, N, 4, B.data(), K, DB, K);
  cublasSetVector(M * N, 4, C.data(), 1, DC, 1);
  cublasSgemm('n', 'N', M, N, K, 2.0f, DA, M, DB, K, -1.0f, DC, M);
  check("sgemm_status", cublasGetError() == CUBLAS_STATUS_SUCCESS);
  std::vector<float> Out(M * N);
  cublasGetMatrix(M, N, 4, DC, M, Out.data(), M);
  double E = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int P = 0; P < K; ++P)
        S += A[P * M + I] * B[J * K + P];
      E = std::max(E, std::fabs(Out[J * M + I] - (2 * S - 1)));
    }
  check("sgemm", E < 1e-5);
  float Dot = cublasSdot(K, DA, 1, DA, 1);
  double W = 0;
  for (int I = 0; I < K; ++I)
    W += A[I] * A[I];
  check("sdot", std::fabs(Dot - W) < 1e-5);
  check("isamax", cublasIsamax(M * K, DA, 1) == M * K);
  cublasSgemm('X', 'N', M, N, K, 1.0f, DA, M, DB, K, 0.0f, DC, M);
  check("bad_letter_invalid_value", cublasGetError() == CUBLAS_STATUS_INVALID_VALUE);
  check("error_reset", cublasGetError() == CUBLAS_STATUS_SUCCESS);
  cublasStrmm('L', 'U', 'N', 'U', K, N, 1.0f, DA, K, DB, K);
  check("strmm_status", cublasGetError() == CUBLAS_STATUS_SUCCESS);
  check("free", cublasFree(DA) == CUBLAS_STATUS_SUCCESS && cublasFree(DB) == CUBLAS_STATUS_SUCCESS &&
                    cublasFree(DC) == CUBLAS_STATUS_SUCCESS);
  check("shutdown", cublasShutdown() == CUBLAS_STATUS_SUCCESS);
  std::printf("CublasLegacy: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
