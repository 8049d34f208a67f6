/// \file
/// Batched and mixed-precision cuBLAS as inference and batched-solver code
/// uses it: sgemmBatched over a device array of pointers, strided batched
/// SGEMM, GemmStridedBatchedEx with FP16 data and FP32 compute,
/// GemmBatchedEx with BF16 data, GemmEx INT8 -> INT32 (exact), TF32 GemmEx,
/// Hgemm (FP16 compute, one K slice), and the batched LU family: getrf +
/// getri, getrf + getrs, and matinv. Each is checked against a CPU reference
/// in double with the precision's tolerance; the program prints verdicts,
/// exact integers, and checksums the matrix compares with a tolerance.
#define LIB_REPORT_WIDTH 16
#include "../common/lib_util.h"
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

static double toD(float X) { return X; }
static double toD(__half X) { return __half2float(X); }
static double toD(__nv_bfloat16 X) { return __bfloat162float(X); }

/// Reference for batch b of C = alpha op(A) op(B) + beta C, column-major,
/// A stored K x M when Ta (else M x K), B stored K x N; checks Got against it
/// with relative tolerance Tol and returns the sum of |Got|.
template <typename TA, typename TC>
static bool checkGemm(const TA *A, const TA *B, const TC *C0, const TC *Got, int M, int N, int K,
                      bool Ta, double Al, double Be, double Tol, double &Check) {
  bool Ok = true;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int P = 0; P < K; ++P)
        S += toD(Ta ? A[I * K + P] : A[P * M + I]) * toD(B[J * K + P]);
      double Want = Al * S + Be * toD(C0[J * M + I]);
      double G = toD(Got[J * M + I]);
      Ok &= closeTo(G, Want, Tol, Tol);
      Check += std::fabs(G);
    }
  return Ok;
}

template <typename T>
static std::vector<T> randomOf(Lcg &R, size_t N, float Lo = -1, float Hi = 1) {
  std::vector<T> V(N);
  for (T &X : V)
    X = T(R.range(Lo, Hi));
  return V;
}

/// Batched LU: Batch well-conditioned n x n matrices (random + 3 I).
static std::vector<float> luInputs(Lcg &R, int Nn, int Batch) {
  std::vector<float> A((size_t)Nn * Nn * Batch);
  for (int B = 0; B < Batch; ++B)
    for (int J = 0; J < Nn; ++J)
      for (int I = 0; I < Nn; ++I)
        A[(size_t)B * Nn * Nn + J * Nn + I] = R.range(-1, 1) + (I == J ? 3.0f : 0.0f);
  return A;
}

/// Whether A * Inv is the identity, per matrix of the batch.
static bool isInverse(const std::vector<float> &A, const std::vector<float> &Inv, int Nn, int Batch,
                      double &Check) {
  bool Ok = true;
  for (int B = 0; B < Batch; ++B) {
    const float *a = &A[(size_t)B * Nn * Nn], *v = &Inv[(size_t)B * Nn * Nn];
    for (int J = 0; J < Nn; ++J)
      for (int I = 0; I < Nn; ++I) {
        double S = 0;
        for (int P = 0; P < Nn; ++P)
          S += (double)a[P * Nn + I] * v[J * Nn + P];
        Ok &= closeTo(S, I == J ? 1.0 : 0.0, 1e-4, 1e-4);
        Check += std::fabs(v[J * Nn + I]);
      }
  }
  return Ok;
}

/// A device array of Batch pointers into one allocation, Stride apart.
template <typename T> static T **pointerArray(T *Base, size_t Stride, int Batch) {
  std::vector<T *> P(Batch);
  for (int B = 0; B < Batch; ++B)
    P[B] = Base + B * Stride;
  return upload(P);
}

int main() {
  const int M = 48, N = 40, K = 32, Batch = 6;
  Lcg R(31);
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  double Check;
  const size_t SA = M * K, SB = K * N, SC = M * N;

  // sgemmBatched over pointer arrays and sgemmStridedBatched, same problem.
  {
    auto A = randomOf<float>(R, SA * Batch), B = randomOf<float>(R, SB * Batch),
         C = randomOf<float>(R, SC * Batch);
    float *DA = upload(A), *DB = upload(B), *DC = upload(C);
    float **PA = pointerArray(DA, SA, Batch), **PB = pointerArray(DB, SB, Batch),
          **PC = pointerArray(DC, SC, Batch);
    float Al = 1.25f, Be = 0.5f;
    CUBLAS_CHECK(cublasSgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, PA, M, PB, K, &Be,
                                    PC, M, Batch));
    auto G = download(DC, SC * Batch);
    bool Ok = true;
    Check = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      Ok &= checkGemm(&A[Bi * SA], &B[Bi * SB], &C[Bi * SC], &G[Bi * SC], M, N, K, false, 1.25, 0.5,
                      1e-4, Check);
    report("sgemm_batched", Ok, Check);
    CHECK(cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    // Transposed A (stored K x M), stride between matrices as allocated.
    CUBLAS_CHECK(cublasSgemmStridedBatched(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &Al, DA, K, SA, DB,
                                           K, SB, &Be, DC, M, SC, Batch));
    G = download(DC, SC * Batch);
    Ok = true;
    Check = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      Ok &= checkGemm(&A[Bi * SA], &B[Bi * SB], &C[Bi * SC], &G[Bi * SC], M, N, K, true, 1.25, 0.5,
                      1e-4, Check);
    report("sgemm_strided", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(PA);
    cudaFree(PB);
    cudaFree(PC);
  }
  // GemmStridedBatchedEx: FP16 A/B/C, FP32 compute and scalars.
  {
    auto A = randomOf<__half>(R, SA * Batch), B = randomOf<__half>(R, SB * Batch),
         C = randomOf<__half>(R, SC * Batch);
    __half *DA = upload(A), *DB = upload(B), *DC = upload(C);
    float Al = 1.0f, Be = -1.0f;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, DA, CUDA_R_16F, M, SA, DB, CUDA_R_16F, K, SB,
        &Be, DC, CUDA_R_16F, M, SC, Batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    auto G = download(DC, SC * Batch);
    bool Ok = true;
    Check = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      Ok &= checkGemm(&A[Bi * SA], &B[Bi * SB], &C[Bi * SC], &G[Bi * SC], M, N, K, false, 1.0, -1.0,
                      2e-3, Check);
    report("hgemm_strd_ex", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // GemmBatchedEx: BF16 A/B/C over pointer arrays, FP32 compute, A transposed.
  {
    auto A = randomOf<__nv_bfloat16>(R, SA * Batch), B = randomOf<__nv_bfloat16>(R, SB * Batch);
    std::vector<__nv_bfloat16> C(SC * Batch, __float2bfloat16(0.0f));
    __nv_bfloat16 *DA = upload(A), *DB = upload(B), *DC = upload(C);
    __nv_bfloat16 **PA = pointerArray(DA, SA, Batch), **PB = pointerArray(DB, SB, Batch),
                  **PC = pointerArray(DC, SC, Batch);
    float Al = 0.5f, Be = 0.0f;
    CUBLAS_CHECK(cublasGemmBatchedEx(
        H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &Al, (const void *const *)PA, CUDA_R_16BF, K,
        (const void *const *)PB, CUDA_R_16BF, K, &Be, (void *const *)PC, CUDA_R_16BF, M, Batch,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    auto G = download(DC, SC * Batch);
    bool Ok = true;
    Check = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      Ok &= checkGemm(&A[Bi * SA], &B[Bi * SB], &C[Bi * SC], &G[Bi * SC], M, N, K, true, 0.5, 0.0,
                      1e-2, Check);
    report("bf16_batched_ex", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(PA);
    cudaFree(PB);
    cudaFree(PC);
  }
  // GemmEx INT8 x INT8 -> INT32, the "TN" layout integer GEMMs use. Exact.
  {
    const int Mi = 64, Ni = 48, Ki = 32;
    std::vector<int8_t> A(Ki * Mi), B(Ki * Ni);
    for (int8_t &V : A)
      V = int8_t(int(R.below(255)) - 127);
    for (int8_t &V : B)
      V = int8_t(int(R.below(255)) - 127);
    std::vector<int> C(Mi * Ni);
    for (int &V : C)
      V = int(R.below(2001)) - 1000;
    int8_t *DA = upload(A), *DB = upload(B);
    int *DC = upload(C);
    int Al = 2, Be = 1;
    CUBLAS_CHECK(cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, Mi, Ni, Ki, &Al, DA, CUDA_R_8I, Ki, DB,
                              CUDA_R_8I, Ki, &Be, DC, CUDA_R_32I, Mi, CUBLAS_COMPUTE_32I,
                              CUBLAS_GEMM_DEFAULT));
    auto G = download(DC, Mi * Ni);
    bool Ok = true;
    long long Sum = 0;
    for (int J = 0; J < Ni; ++J)
      for (int I = 0; I < Mi; ++I) {
        long long S = 0;
        for (int P = 0; P < Ki; ++P)
          S += A[I * Ki + P] * B[J * Ki + P];
        Ok &= G[J * Mi + I] == 2 * S + C[J * Mi + I];
        Sum += G[J * Mi + I];
      }
    std::printf("int8_gemm_ex     %s sum=%lld\n", Ok ? "ok" : "WRONG", Sum);
    Failures += !Ok;
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // TF32 GemmEx: FP32 data, tensor-core precision requested explicitly.
  {
    const int Mt = 64, Nt = 64, Kt = 128;
    auto A = randomOf<float>(R, Mt * Kt), B = randomOf<float>(R, Kt * Nt);
    std::vector<float> C(Mt * Nt, 0.0f);
    float *DA = upload(A), *DB = upload(B), *DC = upload(C);
    float Al = 1.0f, Be = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, Mt, Nt, Kt, &Al, DA, CUDA_R_32F, Mt, DB,
                              CUDA_R_32F, Kt, &Be, DC, CUDA_R_32F, Mt, CUBLAS_COMPUTE_32F_FAST_TF32,
                              CUBLAS_GEMM_DEFAULT));
    auto G = download(DC, Mt * Nt);
    Check = 0;
    bool Ok =
        checkGemm(A.data(), B.data(), C.data(), G.data(), Mt, Nt, Kt, false, 1.0, 0.0, 2e-2, Check);
    report("tf32_gemm_ex", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // cublasHgemm: FP16 compute, K = 16 (a single tensor-core slice).
  {
    const int Kh = 16;
    auto A = randomOf<__half>(R, M * Kh), B = randomOf<__half>(R, Kh * N);
    std::vector<__half> C(M * N, __float2half(0.0f));
    __half *DA = upload(A), *DB = upload(B), *DC = upload(C);
    __half Al = __float2half(1.0f), Be = __float2half(0.0f);
    CUBLAS_CHECK(
        cublasHgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, Kh, &Al, DA, M, DB, Kh, &Be, DC, M));
    auto G = download(DC, M * N);
    Check = 0;
    bool Ok =
        checkGemm(A.data(), B.data(), C.data(), G.data(), M, N, Kh, false, 1.0, 0.0, 2e-2, Check);
    report("hgemm_k16", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // Batched LU: getrf then getri (out of place), as a batched inverse.
  const int Nn = 16, Nb = 8;
  {
    auto A = luInputs(R, Nn, Nb);
    std::vector<float> Zero(A.size(), 0.0f);
    float *DA = upload(A), *DI = upload(Zero);
    float **PA = pointerArray(DA, Nn * Nn, Nb), **PI = pointerArray(DI, Nn * Nn, Nb);
    int *Piv, *Info;
    CHECK(cudaMalloc(&Piv, Nn * Nb * sizeof(int)));
    CHECK(cudaMalloc(&Info, Nb * sizeof(int)));
    CUBLAS_CHECK(cublasSgetrfBatched(H, Nn, PA, Nn, Piv, Info, Nb));
    auto I1 = download(Info, Nb);
    CUBLAS_CHECK(cublasSgetriBatched(H, Nn, (const float *const *)PA, Nn, Piv, PI, Nn, Info, Nb));
    auto I2 = download(Info, Nb);
    int InfoSum = 0;
    for (int B = 0; B < Nb; ++B)
      InfoSum += std::abs(I1[B]) + std::abs(I2[B]);
    Check = 0;
    bool Ok = isInverse(A, download(DI, A.size()), Nn, Nb, Check) && InfoSum == 0;
    std::printf("getrf/getri info sum=%d\n", InfoSum);
    report("getrf_getri", Ok, Check);
    cudaFree(DA);
    cudaFree(DI);
    cudaFree(PA);
    cudaFree(PI);
    cudaFree(Piv);
    cudaFree(Info);
  }
  // Batched LU solve in double: getrf, then getrs with 3 right-hand sides.
  {
    auto Af = luInputs(R, Nn, Nb);
    std::vector<double> A(Af.begin(), Af.end());
    const int Nrhs = 3;
    std::vector<double> Bv((size_t)Nn * Nrhs * Nb);
    for (double &V : Bv)
      V = R.range(-1, 1);
    double *DA = upload(A), *DB = upload(Bv);
    double **PA = pointerArray(DA, Nn * Nn, Nb), **PB = pointerArray(DB, Nn * Nrhs, Nb);
    int *Piv, *Info, HostInfo = -1;
    CHECK(cudaMalloc(&Piv, Nn * Nb * sizeof(int)));
    CHECK(cudaMalloc(&Info, Nb * sizeof(int)));
    CUBLAS_CHECK(cublasDgetrfBatched(H, Nn, PA, Nn, Piv, Info, Nb));
    CUBLAS_CHECK(cublasDgetrsBatched(H, CUBLAS_OP_N, Nn, Nrhs, (const double *const *)PA, Nn, Piv,
                                     PB, Nn, &HostInfo, Nb));
    auto X = download(DB, Bv.size());
    bool Ok = HostInfo == 0;
    Check = 0;
    for (int B = 0; B < Nb; ++B)
      for (int J = 0; J < Nrhs; ++J)
        for (int I = 0; I < Nn; ++I) {
          double S = 0;
          for (int P = 0; P < Nn; ++P)
            S += A[(size_t)B * Nn * Nn + P * Nn + I] * X[(size_t)B * Nn * Nrhs + J * Nn + P];
          Ok &= closeTo(S, Bv[(size_t)B * Nn * Nrhs + J * Nn + I], 1e-12, 1e-12);
          Check += std::fabs(X[(size_t)B * Nn * Nrhs + J * Nn + I]);
        }
    report("dgetrs_batched", Ok, Check);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(PA);
    cudaFree(PB);
    cudaFree(Piv);
    cudaFree(Info);
  }
  // smatinvBatched: the one-call inverse for n <= 32.
  {
    auto A = luInputs(R, Nn, Nb);
    std::vector<float> Zero(A.size(), 0.0f);
    float *DA = upload(A), *DI = upload(Zero);
    float **PA = pointerArray(DA, Nn * Nn, Nb), **PI = pointerArray(DI, Nn * Nn, Nb);
    int *Info;
    CHECK(cudaMalloc(&Info, Nb * sizeof(int)));
    CUBLAS_CHECK(cublasSmatinvBatched(H, Nn, (const float *const *)PA, Nn, PI, Nn, Info, Nb));
    auto I1 = download(Info, Nb);
    int InfoSum = 0;
    for (int V : I1)
      InfoSum += std::abs(V);
    Check = 0;
    bool Ok = isInverse(A, download(DI, A.size()), Nn, Nb, Check) && InfoSum == 0;
    report("smatinv_batched", Ok, Check);
    cudaFree(DA);
    cudaFree(DI);
    cudaFree(PA);
    cudaFree(PI);
    cudaFree(Info);
  }
  CUBLAS_CHECK(cublasDestroy(H));
  return finish(Failures == 0);
}
