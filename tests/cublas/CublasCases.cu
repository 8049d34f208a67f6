/// \file
/// cuBLAS usage cases with fixed inputs, printing one line per observable:
/// `NAME status N` for a returned cublasStatus_t, `NAME TYPE v...` for
/// results. Run on the H100 with NVIDIA's cuBLAS, its output is the golden
/// (tests/cublas/goldens/CublasCases.out); run under ferry, tests/cublas's
/// compare script checks each line against it (statuses and integers
/// exactly, floating point within a per-type tolerance). Built by nvcc and
/// linked with -lcublas, unmodified, in both places.
///
/// Inputs are small integers over powers of two where a case checks exact
/// arithmetic, and values with full mantissas where it checks rounding (TF32,
/// FP16/BF16 conversions and accumulation).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static cublasHandle_t H;

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("CUDA error %d at %s:%d\n", (int)e_, __FILE__, __LINE__);    \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static void st(const char *Name, cublasStatus_t S) { std::printf("%s status %d\n", Name, (int)S); }

/// After each group of cases: any fault of the device shows here, so a
/// golden never silently records results computed after one.
static void section(const char *Name) {
  cudaError_t E = cudaDeviceSynchronize();
  std::printf("section_%s cuda %d\n", Name, (int)E);
}

/// Exact small values: (i*37 % 17 - 8) / 4, representable in every type.
static float exactVal(int I, int Salt) { return (float)(((I * 37 + Salt * 11) % 17) - 8) / 4.0f; }
/// Values with full float mantissas in [-1, 1).
static float fullVal(int I, int Salt) {
  uint32_t X = (uint32_t)(I + 1) * 2654435761u + (uint32_t)Salt * 40503u;
  X ^= X >> 13;
  X *= 0x5bd1e995u;
  X ^= X >> 15;
  return (float)(X & 0xffffff) / (float)0x800000 - 1.0f;
}

template <typename T> static T *devUpload(const std::vector<T> &V) {
  T *D = nullptr;
  cudaMalloc(&D, V.size() * sizeof(T) + 16);
  cudaMemcpy(D, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}
template <typename T> static std::vector<T> devDownload(const T *D, size_t N) {
  std::vector<T> V(N);
  cudaDeviceSynchronize();
  cudaMemcpy(V.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

static void printF(const char *Name, const std::vector<float> &V) {
  std::printf("%s f32", Name);
  for (float X : V)
    std::printf(" %.9g", X);
  std::printf("\n");
}
static void printD(const char *Name, const std::vector<double> &V) {
  std::printf("%s f64", Name);
  for (double X : V)
    std::printf(" %.17g", X);
  std::printf("\n");
}
static void printI(const char *Name, const std::vector<int> &V) {
  std::printf("%s i32", Name);
  for (int X : V)
    std::printf(" %d", X);
  std::printf("\n");
}
template <typename T> static void printBits16(const char *Name, const char *Type, const std::vector<T> &V) {
  std::printf("%s %s", Name, Type);
  for (const T &X : V) {
    unsigned short B;
    std::memcpy(&B, &X, 2);
    std::printf(" %04x", B);
  }
  std::printf("\n");
}

// ---------------------------------------------------------------------------
// Bad arguments: status codes.
// ---------------------------------------------------------------------------
static void badArguments() {
  float *D = nullptr;
  cudaMalloc(&D, 4096 * sizeof(float));
  cudaMemset(D, 0, 4096 * sizeof(float));
  float One = 1, Zero = 0, R = 0;
  int IR = 0;
  const cublasOperation_t N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  st("create_null", cublasCreate(nullptr));
  st("destroy_null", cublasDestroy(nullptr));
  st("sgemm_null_handle", cublasSgemm(nullptr, N, N, 2, 2, 2, &One, D, 2, D, 2, &Zero, D, 2));
  st("sgemm_m_neg", cublasSgemm(H, N, N, -1, 2, 2, &One, D, 2, D, 2, &Zero, D, 2));
  st("sgemm_n_neg", cublasSgemm(H, N, N, 2, -1, 2, &One, D, 2, D, 2, &Zero, D, 2));
  st("sgemm_k_neg", cublasSgemm(H, N, N, 2, 2, -1, &One, D, 2, D, 2, &Zero, D, 2));
  st("sgemm_lda_small", cublasSgemm(H, N, N, 4, 2, 2, &One, D, 3, D, 2, &Zero, D, 4));
  st("sgemm_lda_small_T", cublasSgemm(H, T, N, 4, 2, 3, &One, D, 2, D, 3, &Zero, D, 4));
  st("sgemm_ldb_small", cublasSgemm(H, N, N, 2, 2, 4, &One, D, 2, D, 3, &Zero, D, 2));
  st("sgemm_ldc_small", cublasSgemm(H, N, N, 4, 2, 2, &One, D, 4, D, 2, &Zero, D, 3));
  st("sgemm_bad_op", cublasSgemm(H, (cublasOperation_t)7, N, 2, 2, 2, &One, D, 2, D, 2, &Zero, D, 2));
  st("sgemm_m_zero", cublasSgemm(H, N, N, 0, 2, 2, &One, D, 1, D, 2, &Zero, D, 1));
  st("sgemm_k_zero", cublasSgemm(H, N, N, 2, 2, 0, &One, D, 2, D, 1, &Zero, D, 2));
  st("sgemm_lda_zero_m_zero", cublasSgemm(H, N, N, 0, 2, 2, &One, D, 0, D, 2, &Zero, D, 0));
  st("dgemm_ldc_small", cublasDgemm(H, N, N, 4, 2, 2, (double *)&One, (double *)D, 4, (double *)D, 2,
                                    (double *)&Zero, (double *)D, 3));
  st("sgemm_strided_batch_neg", cublasSgemmStridedBatched(H, N, N, 2, 2, 2, &One, D, 2, 4, D, 2, 4, &Zero, D, 2, 4, -1));
  st("sgemm_strided_batch_zero", cublasSgemmStridedBatched(H, N, N, 2, 2, 2, &One, D, 2, 4, D, 2, 4, &Zero, D, 2, 4, 0));
  st("gemmex_bad_types", cublasGemmEx(H, N, N, 2, 2, 2, &One, D, CUDA_R_64F, 2, D, CUDA_R_32F, 2, &Zero, D, CUDA_R_32F, 2,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  st("gemmex_bad_compute", cublasGemmEx(H, N, N, 2, 2, 2, &One, D, CUDA_R_32F, 2, D, CUDA_R_32F, 2, &Zero, D, CUDA_R_32F, 2,
                                        (cublasComputeType_t)1234, CUBLAS_GEMM_DEFAULT));
  st("gemmex_f16_c32f_compute16", cublasGemmEx(H, N, N, 2, 2, 2, &One, D, CUDA_R_16F, 2, D, CUDA_R_16F, 2, &Zero, D, CUDA_R_32F, 2,
                                               CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
  st("gemmex_i8_lda_odd", cublasGemmEx(H, N, N, 3, 2, 3, &IR, D, CUDA_R_8I, 3, D, CUDA_R_8I, 3, &IR, D, CUDA_R_32I, 3,
                                       CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  st("gemmex_bad_algo", cublasGemmEx(H, N, N, 2, 2, 2, &One, D, CUDA_R_32F, 2, D, CUDA_R_32F, 2, &Zero, D, CUDA_R_32F, 2,
                                     CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)5000));
  st("saxpy_n_neg", cublasSaxpy(H, -1, &One, D, 1, D, 1));
  st("saxpy_incx_zero", cublasSaxpy(H, 4, &One, D, 0, D + 8, 1));
  st("sdot_n_neg", cublasSdot(H, -1, D, 1, D, 1, &R));
  st("snrm2_incx_zero", cublasSnrm2(H, 4, D, 0, &R));
  st("snrm2_null_result", cublasSnrm2(H, 4, D, 1, nullptr));
  st("isamax_n_zero", cublasIsamax(H, 0, D, 1, &IR));
  std::printf("isamax_n_zero_result i32 %d\n", IR);
  IR = 77;
  st("isamax_incx_neg", cublasIsamax(H, 4, D, -1, &IR));
  std::printf("isamax_incx_neg_result i32 %d\n", IR);
  st("sscal_n_neg", cublasSscal(H, -3, &One, D, 1));
  st("srot_n_neg", cublasSrot(H, -1, D, 1, D, 1, &One, &Zero));
  st("sgemv_lda_small", cublasSgemv(H, N, 4, 2, &One, D, 3, D, 1, &Zero, D, 1));
  st("sgemv_incx_zero", cublasSgemv(H, N, 2, 2, &One, D, 2, D, 0, &Zero, D, 1));
  st("sgemv_bad_op", cublasSgemv(H, (cublasOperation_t)9, 2, 2, &One, D, 2, D, 1, &Zero, D, 1));
  st("sger_lda_small", cublasSger(H, 4, 2, &One, D, 1, D, 1, D, 3));
  st("strsm_lda_small", cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, N, CUBLAS_DIAG_NON_UNIT, 4, 2, &One, D, 3, D, 4));
  st("strsm_bad_fill", cublasStrsm(H, CUBLAS_SIDE_LEFT, (cublasFillMode_t)5, N, CUBLAS_DIAG_NON_UNIT, 2, 2, &One, D, 2, D, 2));
  st("strsm_fill_full", cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_FULL, N, CUBLAS_DIAG_NON_UNIT, 2, 2, &One, D, 2, D, 2));
  st("strsm_bad_side", cublasStrsm(H, (cublasSideMode_t)3, CUBLAS_FILL_MODE_LOWER, N, CUBLAS_DIAG_NON_UNIT, 2, 2, &One, D, 2, D, 2));
  st("strsm_bad_diag", cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, N, (cublasDiagType_t)4, 2, 2, &One, D, 2, D, 2));
  st("ssyrk_lda_small", cublasSsyrk(H, CUBLAS_FILL_MODE_UPPER, N, 4, 2, &One, D, 3, &Zero, D, 4));
  st("ssyrk_op_c", cublasSsyrk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, 2, 2, &One, D, 2, &Zero, D, 2));
  st("sgeam_ldc_small", cublasSgeam(H, N, N, 4, 2, &One, D, 4, &One, D, 4, D, 3));
  st("sgeam_inplace_T", cublasSgeam(H, T, N, 2, 2, &One, D, 2, &One, D + 100, 2, D, 2));
  st("sdgmm_bad_mode", cublasSdgmm(H, (cublasSideMode_t)2, 2, 2, D, 2, D, 1, D, 2));
  st("sdgmm_ldc_small", cublasSdgmm(H, CUBLAS_SIDE_LEFT, 4, 2, D, 4, D, 1, D, 3));
  st("set_pointer_mode_bad", cublasSetPointerMode(H, (cublasPointerMode_t)5));
  st("set_math_mode_bad", cublasSetMathMode(H, (cublasMath_t)1234));
  st("set_atomics_mode_bad", cublasSetAtomicsMode(H, (cublasAtomicsMode_t)5));
  {
    // Workspace settings on a handle of their own, destroyed unused: NVIDIA's
    // cuBLAS keeps a misaligned or null workspace and faults or refuses
    // later work with it.
    cublasHandle_t W;
    cublasCreate(&W);
    st("set_workspace_misaligned", cublasSetWorkspace(W, (char *)D + 4, 1024));
    st("set_workspace_null_nonzero", cublasSetWorkspace(W, nullptr, 1024));
    st("set_workspace_null_zero", cublasSetWorkspace(W, nullptr, 0));
    st("set_workspace_destroy", cublasDestroy(W));
  }
  std::vector<float> HostV(16, 1.0f);
  st("set_vector_n_neg", cublasSetVector(-1, 4, HostV.data(), 1, D, 1));
  st("set_vector_incx_zero", cublasSetVector(4, 4, HostV.data(), 0, D, 1));
  st("set_vector_elem_zero", cublasSetVector(4, 0, HostV.data(), 1, D, 1));
  st("set_vector_n_zero", cublasSetVector(0, 4, HostV.data(), 1, D, 1));
  st("set_matrix_lda_small", cublasSetMatrix(4, 2, 4, HostV.data(), 3, D, 4));
  st("set_matrix_ldb_small", cublasSetMatrix(4, 2, 4, HostV.data(), 4, D, 3));
  st("get_matrix_rows_neg", cublasGetMatrix(-1, 2, 4, D, 4, HostV.data(), 4));
  st("get_vector_async_incy_zero", cublasGetVectorAsync(4, 4, D, 1, HostV.data(), 0, 0));
  st("get_version_null", cublasGetVersion(H, nullptr));
  st("get_stream_null", cublasGetStream(H, nullptr));
  st("get_pointer_mode_null", cublasGetPointerMode(H, nullptr));
  st("hgemm_n_neg", cublasHgemm(H, N, N, 2, -1, 2, (__half *)&One, (__half *)D, 2, (__half *)D, 2, (__half *)&Zero, (__half *)D, 2));
  cudaDeviceSynchronize();
  cudaFree(D);
}

// ---------------------------------------------------------------------------
// Values.
// ---------------------------------------------------------------------------
static void handleQueries() {
  int V = 0;
  st("get_version", cublasGetVersion(H, &V));
  std::printf("version i32 %d\n", V);
  int P[3] = {};
  cublasGetProperty(MAJOR_VERSION, &P[0]);
  cublasGetProperty(MINOR_VERSION, &P[1]);
  cublasGetProperty(PATCH_LEVEL, &P[2]);
  printI("property", {P[0], P[1], P[2]});
  cublasPointerMode_t PM;
  cublasGetPointerMode(H, &PM);
  cublasMath_t MM;
  cublasGetMathMode(H, &MM);
  cublasAtomicsMode_t AM;
  cublasGetAtomicsMode(H, &AM);
  cudaStream_t S = (cudaStream_t)0x1234;
  cublasGetStream(H, &S);
  printI("default_modes", {(int)PM, (int)MM, (int)AM, S == nullptr ? 0 : 1});
  st("set_math_tf32", cublasSetMathMode(H, CUBLAS_TF32_TENSOR_OP_MATH));
  cublasGetMathMode(H, &MM);
  st("set_math_disallow_reduced",
     cublasSetMathMode(H, (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  cublasMath_t MM2;
  cublasGetMathMode(H, &MM2);
  printI("math_modes", {(int)MM, (int)MM2});
  cublasSetMathMode(H, CUBLAS_DEFAULT_MATH);
  for (int Sv : {0, 1, 3, 7, 8, 11, 13, 14, 15, 16, 99}) {
    std::printf("status_name_%d str %s\n", Sv, cublasGetStatusName((cublasStatus_t)Sv));
    std::printf("status_string_%d str %s\n", Sv, cublasGetStatusString((cublasStatus_t)Sv));
  }
}

/// S/D GEMM for every op pair, with lda/ldb/ldc larger than needed.
template <typename T> static void gemmCases(const char *Tn) {
  const int M = 5, N = 4, K = 7, Ld = 9;
  const cublasOperation_t Ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  for (int Oa = 0; Oa < 2; ++Oa)
    for (int Ob = 0; Ob < 2; ++Ob) {
      std::vector<T> A(Ld * 9), B(Ld * 9), C(Ld * N);
      for (size_t I = 0; I < A.size(); ++I) {
        A[I] = fullVal((int)I, 1);
        B[I] = fullVal((int)I, 2);
      }
      for (size_t I = 0; I < C.size(); ++I)
        C[I] = fullVal((int)I, 3);
      T *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
      T Alpha = (T)1.5, Beta = (T)-0.75;
      cublasStatus_t S;
      if constexpr (sizeof(T) == 4)
        S = cublasSgemm(H, Ops[Oa], Ops[Ob], M, N, K, &Alpha, DA, Ld, DB, Ld, &Beta, DC, Ld);
      else
        S = cublasDgemm(H, Ops[Oa], Ops[Ob], M, N, K, &Alpha, DA, Ld, DB, Ld, &Beta, DC, Ld);
      char Name[64];
      std::snprintf(Name, sizeof Name, "%sgemm_%c%c", Tn, "NT"[Oa], "NT"[Ob]);
      st(Name, S);
      std::vector<T> R = devDownload(DC, C.size());
      if constexpr (sizeof(T) == 4)
        printF(Name, R);
      else
        printD(Name, R);
      cudaFree(DA);
      cudaFree(DB);
      cudaFree(DC);
    }
}

static void complexGemm() {
  const int M = 3, N = 2, K = 4;
  std::vector<cuComplex> A(M * K), B(K * N), C(M * N);
  std::vector<cuDoubleComplex> Az(M * K), Bz(K * N), Cz(M * N);
  for (int I = 0; I < M * K; ++I) {
    A[I] = make_cuComplex(exactVal(I, 1), exactVal(I, 2));
    Az[I] = make_cuDoubleComplex(fullVal(I, 1), fullVal(I, 2));
  }
  for (int I = 0; I < K * N; ++I) {
    B[I] = make_cuComplex(exactVal(I, 3), exactVal(I, 4));
    Bz[I] = make_cuDoubleComplex(fullVal(I, 3), fullVal(I, 4));
  }
  for (int I = 0; I < M * N; ++I) {
    C[I] = make_cuComplex(exactVal(I, 5), exactVal(I, 6));
    Cz[I] = make_cuDoubleComplex(fullVal(I, 5), fullVal(I, 6));
  }
  cuComplex *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
  cuComplex Alpha = make_cuComplex(1.0f, -0.5f), Beta = make_cuComplex(0.25f, 2.0f);
  // B is K x N; with OP_C on B, ldb is for an N x K matrix: use a square one.
  st("cgemm_NN", cublasCgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Alpha, DA, M, DB, K, &Beta, DC, M));
  std::vector<cuComplex> R = devDownload(DC, C.size());
  std::vector<float> Flat;
  for (auto &X : R) {
    Flat.push_back(X.x);
    Flat.push_back(X.y);
  }
  printF("cgemm_NN", Flat);
  cuDoubleComplex *EA = devUpload(Az), *EB = devUpload(Bz), *EC = devUpload(Cz);
  cuDoubleComplex ZAlpha = make_cuDoubleComplex(0.5, 0.25), ZBeta = make_cuDoubleComplex(-1.0, 0.5);
  // A^H: A is K x M stored with lda = K... use A as K x M.
  st("zgemm_CN", cublasZgemm(H, CUBLAS_OP_C, CUBLAS_OP_N, M, N, K, &ZAlpha, EA, K, EB, K, &ZBeta, EC, M));
  std::vector<cuDoubleComplex> RZ = devDownload(EC, Cz.size());
  std::vector<double> FlatZ;
  for (auto &X : RZ) {
    FlatZ.push_back(X.x);
    FlatZ.push_back(X.y);
  }
  printD("zgemm_CN", FlatZ);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(EA);
  cudaFree(EB);
  cudaFree(EC);
}

/// Half, bfloat16, TF32 and INT8 GEMMs: the bits cuBLAS produces.
static void reducedPrecision() {
  for (int K : {8, 256}) {
    const int M = 16, N = 8;
    std::vector<__half> A(M * K), B(K * N), C(M * N);
    std::vector<__nv_bfloat16> Ab(M * K), Bb(K * N), Cb(M * N);
    for (int I = 0; I < M * K; ++I) {
      A[I] = __float2half(fullVal(I, 7));
      Ab[I] = __float2bfloat16(fullVal(I, 7));
    }
    for (int I = 0; I < K * N; ++I) {
      B[I] = __float2half(fullVal(I, 8));
      Bb[I] = __float2bfloat16(fullVal(I, 8));
    }
    for (int I = 0; I < M * N; ++I) {
      C[I] = __float2half(fullVal(I, 9));
      Cb[I] = __float2bfloat16(fullVal(I, 9));
    }
    char Name[64];
    // cublasHgemm: half scalars, compute 16F.
    {
      __half *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
      __half Alpha = __float2half(1.0f), Beta = __float2half(0.5f);
      std::snprintf(Name, sizeof Name, "hgemm_k%d", K);
      st(Name, cublasHgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Alpha, DA, M, DB, K, &Beta, DC, M));
      printBits16(Name, "f16", devDownload(DC, C.size()));
      cudaFree(DC);
      // GemmEx FP16 in/out, FP32 compute.
      DC = devUpload(C);
      float FA = 1.0f, FB = 0.5f;
      std::snprintf(Name, sizeof Name, "gemmex_f16_c32_k%d", K);
      st(Name, cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &FA, DA, CUDA_R_16F, M, DB, CUDA_R_16F, K, &FB, DC,
                            CUDA_R_16F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      printBits16(Name, "f16", devDownload(DC, C.size()));
      // FP16 in, FP32 out.
      std::vector<float> Cf(M * N);
      for (int I = 0; I < M * N; ++I)
        Cf[I] = fullVal(I, 9);
      float *DCf = devUpload(Cf);
      std::snprintf(Name, sizeof Name, "gemmex_f16_f32out_k%d", K);
      st(Name, cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &FA, DA, CUDA_R_16F, K, DB, CUDA_R_16F, K, &FB, DCf,
                            CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      printF(Name, devDownload(DCf, Cf.size()));
      cudaFree(DA);
      cudaFree(DB);
      cudaFree(DC);
      // BF16 in/out, FP32 compute.
      __nv_bfloat16 *BA = devUpload(Ab), *BB = devUpload(Bb), *BC = devUpload(Cb);
      std::snprintf(Name, sizeof Name, "gemmex_bf16_c32_k%d", K);
      st(Name, cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &FA, BA, CUDA_R_16BF, M, BB, CUDA_R_16BF, K, &FB, BC,
                            CUDA_R_16BF, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      printBits16(Name, "bf16", devDownload(BC, Cb.size()));
      cudaMemcpy(DCf, Cf.data(), Cf.size() * 4, cudaMemcpyHostToDevice);
      std::snprintf(Name, sizeof Name, "gemmex_bf16_f32out_k%d", K);
      st(Name, cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &FA, BA, CUDA_R_16BF, M, BB, CUDA_R_16BF, N, &FB, DCf,
                            CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      printF(Name, devDownload(DCf, Cf.size()));
      cudaFree(BA);
      cudaFree(BB);
      cudaFree(BC);
      cudaFree(DCf);
    }
    // FP16 in/out with FP16 compute through GemmEx.
    {
      __half *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
      __half Alpha = __float2half(1.0f), Beta = __float2half(0.5f);
      std::snprintf(Name, sizeof Name, "gemmex_f16_c16_k%d", K);
      st(Name, cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Alpha, DA, CUDA_R_16F, M, DB, CUDA_R_16F, K, &Beta, DC,
                            CUDA_R_16F, M, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
      printBits16(Name, "f16", devDownload(DC, C.size()));
      cudaFree(DA);
      cudaFree(DB);
      cudaFree(DC);
    }
  }
  // TF32: full-mantissa FP32 inputs; the results show how cuBLAS rounds.
  {
    const int M = 64, N = 64, K = 64;
    std::vector<float> A(M * K), B(K * N), C(M * N, 0.0f);
    for (int I = 0; I < M * K; ++I)
      A[I] = fullVal(I, 11);
    for (int I = 0; I < K * N; ++I)
      B[I] = fullVal(I, 12);
    float *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
    float One = 1, Zero = 0;
    auto firstCol = [&](const char *Name) {
      std::vector<float> R = devDownload(DC, C.size());
      std::vector<float> Sel;
      for (int I = 0; I < 16; ++I)
        Sel.push_back(R[I]);
      for (int I = 0; I < 16; ++I)
        Sel.push_back(R[I * M + I]);
      printF(Name, Sel);
    };
    st("gemmex_tf32", cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, CUDA_R_32F, M, DB, CUDA_R_32F, K,
                                   &Zero, DC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    firstCol("gemmex_tf32");
    cublasSetMathMode(H, CUBLAS_TF32_TENSOR_OP_MATH);
    st("sgemm_tf32_mode", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
    firstCol("sgemm_tf32_mode");
    cublasSetMathMode(H, CUBLAS_DEFAULT_MATH);
    st("sgemm_64", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
    firstCol("sgemm_64");
    st("gemmex_pedantic", cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, CUDA_R_32F, M, DB, CUDA_R_32F, K,
                                       &Zero, DC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT));
    firstCol("gemmex_pedantic");
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // INT8 -> INT32, each op pair (cuBLAS restricts some).
  {
    const int M = 8, N = 8, K = 16;
    std::vector<int8_t> A(M * K), B(K * N);
    for (int I = 0; I < M * K; ++I)
      A[I] = (int8_t)((I * 73 + 5) % 255 - 127);
    for (int I = 0; I < K * N; ++I)
      B[I] = (int8_t)((I * 41 + 3) % 255 - 127);
    int8_t *DA = devUpload(A), *DB = devUpload(B);
    std::vector<int> C(M * N);
    for (int I = 0; I < M * N; ++I)
      C[I] = I * 1000 - 20000;
    int *DC = devUpload(C);
    const cublasOperation_t Ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
    for (int Oa = 0; Oa < 2; ++Oa)
      for (int Ob = 0; Ob < 2; ++Ob) {
        cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
        int Alpha = 2, Beta = -1;
        char Name[64];
        std::snprintf(Name, sizeof Name, "gemmex_i8_%c%c", "NT"[Oa], "NT"[Ob]);
        st(Name, cublasGemmEx(H, Ops[Oa], Ops[Ob], M, N, K, &Alpha, DA, CUDA_R_8I, Oa ? K : M, DB, CUDA_R_8I,
                              Ob ? N : K, &Beta, DC, CUDA_R_32I, M, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
        printI(Name, devDownload(DC, C.size()));
      }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
}

static void batched() {
  const int M = 3, N = 2, K = 4, Batch = 3;
  std::vector<float> A(M * K * Batch), B(K * N * Batch), C(M * N * Batch);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = exactVal((int)I, 1);
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = exactVal((int)I, 2);
  for (size_t I = 0; I < C.size(); ++I)
    C[I] = exactVal((int)I, 3);
  float *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
  float Alpha = 2, Beta = 1;
  st("sgemm_strided_batched", cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Alpha, DA, M, M * K, DB, K,
                                                        K * N, &Beta, DC, M, M * N, Batch));
  printF("sgemm_strided_batched", devDownload(DC, C.size()));
  // Pointer arrays, batch order reversed for A; op(A) = A^T (K x M), so
  // each C_i is K x N in its own 8-float slot of a second buffer.
  std::vector<float> C2(K * N * Batch, 0.5f);
  float *DC2 = devUpload(C2);
  std::vector<float *> PA(Batch), PB(Batch), PC(Batch), PC2(Batch);
  for (int I = 0; I < Batch; ++I) {
    PA[I] = DA + (Batch - 1 - I) * M * K;
    PB[I] = DB + I * K * N;
    PC[I] = DC + I * M * N;
    PC2[I] = DC2 + I * K * N;
  }
  float **DPA = devUpload(PA), **DPB = devUpload(PB), **DPC = devUpload(PC), **DPC2 = devUpload(PC2);
  // op(B) = B is M x N here: B_i is read as 3 x 2 with ldb = K.
  st("sgemm_batched", cublasSgemmBatched(H, CUBLAS_OP_T, CUBLAS_OP_N, K, N, M, &Alpha, DPA, M, DPB, K, &Beta, DPC2, K, Batch));
  printF("sgemm_batched", devDownload(DC2, C2.size()));
  std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(C.begin(), C.end());
  double *EA = devUpload(Ad), *EB = devUpload(Bd), *EC = devUpload(Cd);
  double DAl = 0.5, DBe = -2;
  st("dgemm_strided_batched", cublasDgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &DAl, EA, M, M * K, EB, N,
                                                        K * N, &DBe, EC, M, M * N, Batch));
  printD("dgemm_strided_batched", devDownload(EC, Cd.size()));
  float FA = 1, FB = 0;
  st("gemm_strided_batched_ex", cublasGemmStridedBatchedEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &FA, DA, CUDA_R_32F, M, M * K,
                                                           DB, CUDA_R_32F, K, K * N, &FB, DC, CUDA_R_32F, M, M * N, Batch,
                                                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  printF("gemm_strided_batched_ex", devDownload(DC, C.size()));
  st("gemm_batched_ex", cublasGemmBatchedEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &FA, (const void **)DPA, CUDA_R_32F, M,
                                            (const void **)DPB, CUDA_R_32F, K, &FB, (void **)DPC, CUDA_R_32F, M, Batch,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  printF("gemm_batched_ex", devDownload(DC, C.size()));
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DPA);
  cudaFree(DPB);
  cudaFree(DPC);
  cudaFree(DPC2);
  cudaFree(DC2);
  cudaFree(EA);
  cudaFree(EB);
  cudaFree(EC);
}

template <typename T> static std::vector<T> vecOf(int N, int Salt, bool Exact) {
  std::vector<T> V(N);
  for (int I = 0; I < N; ++I)
    V[I] = (T)(Exact ? exactVal(I, Salt) : fullVal(I, Salt));
  return V;
}

static void level1() {
  const int N = 7;
  std::vector<float> X = vecOf<float>(2 * N, 1, false), Y = vecOf<float>(2 * N, 2, false);
  std::vector<double> Xd = vecOf<double>(2 * N, 1, false), Yd = vecOf<double>(2 * N, 2, false);
  float *DX = devUpload(X), *DY = devUpload(Y);
  double *EX = devUpload(Xd), *EY = devUpload(Yd);
  float A = 0.75f, R = 0;
  double Ad = -1.25, Rd = 0;
  int I = 0;
  st("saxpy", cublasSaxpy(H, N, &A, DX, 2, DY, 1));
  printF("saxpy", devDownload(DY, Y.size()));
  st("daxpy", cublasDaxpy(H, N, &Ad, EX, 1, EY, -2));
  printD("daxpy", devDownload(EY, Yd.size()));
  st("sdot", cublasSdot(H, N, DX, 1, DY, 2, &R));
  printF("sdot", {R});
  st("ddot", cublasDdot(H, N, EX, 2, EY, 1, &Rd));
  printD("ddot", {Rd});
  st("snrm2", cublasSnrm2(H, N, DX, 2, &R));
  printF("snrm2", {R});
  st("dnrm2", cublasDnrm2(H, 2 * N, EX, 1, &Rd));
  printD("dnrm2", {Rd});
  st("sasum", cublasSasum(H, N, DX, 1, &R));
  printF("sasum", {R});
  st("dasum", cublasDasum(H, N, EY, 2, &Rd));
  printD("dasum", {Rd});
  st("isamax", cublasIsamax(H, 2 * N, DX, 1, &I));
  printI("isamax", {I});
  st("isamin", cublasIsamin(H, N, DY, 2, &I));
  printI("isamin", {I});
  st("idamax", cublasIdamax(H, N, EY, 1, &I));
  printI("idamax", {I});
  st("idamin", cublasIdamin(H, N, EX, 2, &I));
  printI("idamin", {I});
  // Ties: the first index wins.
  std::vector<float> Tie = {1, -3, 3, 2, -3};
  float *DT = devUpload(Tie);
  st("isamax_tie", cublasIsamax(H, 5, DT, 1, &I));
  printI("isamax_tie", {I});
  st("sscal", cublasSscal(H, N, &A, DX, 1));
  printF("sscal", devDownload(DX, X.size()));
  st("dscal", cublasDscal(H, N, &Ad, EX, 2));
  printD("dscal", devDownload(EX, Xd.size()));
  st("scopy", cublasScopy(H, N, DX, 2, DY, 1));
  printF("scopy", devDownload(DY, Y.size()));
  st("dswap", cublasDswap(H, N, EX, 1, EY, 2));
  printD("dswap_x", devDownload(EX, Xd.size()));
  printD("dswap_y", devDownload(EY, Yd.size()));
  float C = 0.6f, S = 0.8f;
  st("srot", cublasSrot(H, N, DX, 1, DY, 1, &C, &S));
  printF("srot_x", devDownload(DX, X.size()));
  printF("srot_y", devDownload(DY, Y.size()));
  double Cd = 0.28, Sd = 0.96;
  st("drot", cublasDrot(H, N, EX, 2, EY, 1, &Cd, &Sd));
  printD("drot_x", devDownload(EX, Xd.size()));
  printD("drot_y", devDownload(EY, Yd.size()));
  // Complex.
  std::vector<cuComplex> Cx(N), Cy(N);
  std::vector<cuDoubleComplex> Zx(N), Zy(N);
  for (int J = 0; J < N; ++J) {
    Cx[J] = make_cuComplex(fullVal(J, 3), fullVal(J, 4));
    Cy[J] = make_cuComplex(fullVal(J, 5), fullVal(J, 6));
    Zx[J] = make_cuDoubleComplex(fullVal(J, 3), fullVal(J, 4));
    Zy[J] = make_cuDoubleComplex(fullVal(J, 5), fullVal(J, 6));
  }
  cuComplex *DCx = devUpload(Cx), *DCy = devUpload(Cy);
  cuDoubleComplex *DZx = devUpload(Zx), *DZy = devUpload(Zy);
  cuComplex CA = make_cuComplex(0.5f, -1.5f), CR;
  cuDoubleComplex ZA = make_cuDoubleComplex(-0.25, 0.75), ZR;
  auto pc = [](const char *Name, const std::vector<cuComplex> &V) {
    std::vector<float> F;
    for (auto &X : V) {
      F.push_back(X.x);
      F.push_back(X.y);
    }
    printF(Name, F);
  };
  auto pz = [](const char *Name, const std::vector<cuDoubleComplex> &V) {
    std::vector<double> F;
    for (auto &X : V) {
      F.push_back(X.x);
      F.push_back(X.y);
    }
    printD(Name, F);
  };
  st("caxpy", cublasCaxpy(H, N, &CA, DCx, 1, DCy, 1));
  pc("caxpy", devDownload(DCy, N));
  st("cdotc", cublasCdotc(H, N, DCx, 1, DCy, 1, &CR));
  pc("cdotc", {CR});
  st("cdotu", cublasCdotu(H, N, DCx, 1, DCy, 1, &CR));
  pc("cdotu", {CR});
  st("scnrm2", cublasScnrm2(H, N, DCx, 1, &R));
  printF("scnrm2", {R});
  st("scasum", cublasScasum(H, N, DCx, 1, &R));
  printF("scasum", {R});
  st("icamax", cublasIcamax(H, N, DCx, 1, &I));
  printI("icamax", {I});
  st("csscal", cublasCsscal(H, N, &A, DCx, 1));
  pc("csscal", devDownload(DCx, N));
  st("zaxpy", cublasZaxpy(H, N, &ZA, DZx, 1, DZy, 1));
  pz("zaxpy", devDownload(DZy, N));
  st("zdotc", cublasZdotc(H, N, DZx, 1, DZy, 1, &ZR));
  pz("zdotc", {ZR});
  st("dznrm2", cublasDznrm2(H, N, DZx, 1, &Rd));
  printD("dznrm2", {Rd});
  st("izamin", cublasIzamin(H, N, DZx, 1, &I));
  printI("izamin", {I});
  st("zscal", cublasZscal(H, N, &ZA, DZx, 1));
  pz("zscal", devDownload(DZx, N));
  st("zswap", cublasZswap(H, N, DZx, 1, DZy, 1));
  pz("zswap", devDownload(DZx, N));
  st("zcopy", cublasZcopy(H, N, DZy, 1, DZx, 1));
  pz("zcopy", devDownload(DZx, N));
  float Cc = 0.6f;
  cuComplex Sc = make_cuComplex(0.0f, 0.8f);
  st("crot", cublasCrot(H, N, DCx, 1, DCy, 1, &Cc, &Sc));
  pc("crot_x", devDownload(DCx, N));
  pc("crot_y", devDownload(DCy, N));
  st("csrot", cublasCsrot(H, N, DCx, 1, DCy, 1, &Cc, &S));
  pc("csrot_x", devDownload(DCx, N));
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(EX);
  cudaFree(EY);
  cudaFree(DT);
  cudaFree(DCx);
  cudaFree(DCy);
  cudaFree(DZx);
  cudaFree(DZy);
}

static void level23() {
  const int M = 5, N = 4, Ld = 6;
  std::vector<float> A = vecOf<float>(Ld * 6, 1, false), X = vecOf<float>(12, 2, false), Y = vecOf<float>(12, 3, false);
  float *DA = devUpload(A), *DX = devUpload(X), *DY = devUpload(Y);
  float Al = 1.25f, Be = -0.5f;
  st("sgemv_N", cublasSgemv(H, CUBLAS_OP_N, M, N, &Al, DA, Ld, DX, 2, &Be, DY, 1));
  printF("sgemv_N", devDownload(DY, Y.size()));
  st("sgemv_T", cublasSgemv(H, CUBLAS_OP_T, M, N, &Al, DA, Ld, DX, 1, &Be, DY, 2));
  printF("sgemv_T", devDownload(DY, Y.size()));
  std::vector<double> Ad(A.begin(), A.end()), Xd(X.begin(), X.end()), Yd(Y.begin(), Y.end());
  double *EA = devUpload(Ad), *EX = devUpload(Xd), *EY = devUpload(Yd);
  double Ald = 0.5, Bed = 2;
  st("dgemv_T", cublasDgemv(H, CUBLAS_OP_T, M, N, &Ald, EA, Ld, EX, 1, &Bed, EY, 1));
  printD("dgemv_T", devDownload(EY, Yd.size()));
  st("sger", cublasSger(H, M, N, &Al, DX, 1, DY, 2, DA, Ld));
  printF("sger", devDownload(DA, A.size()));
  st("dger", cublasDger(H, M, N, &Ald, EX, 2, EY, 1, EA, Ld));
  printD("dger", devDownload(EA, Ad.size()));
  // trsm: a well-conditioned triangular A (diagonal 4 + i).
  std::vector<float> T(Ld * Ld);
  for (int J = 0; J < Ld; ++J)
    for (int I = 0; I < Ld; ++I)
      T[J * Ld + I] = I == J ? 4.0f + I : fullVal(J * Ld + I, 4);
  std::vector<float> B = vecOf<float>(Ld * Ld, 5, false);
  float *DT = devUpload(T), *DB = devUpload(B);
  const cublasFillMode_t Fills[2] = {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
  const cublasSideMode_t Sides[2] = {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT};
  for (int Si = 0; Si < 2; ++Si)
    for (int Fi = 0; Fi < 2; ++Fi)
      for (int Op = 0; Op < 2; ++Op) {
        cudaMemcpy(DB, B.data(), B.size() * 4, cudaMemcpyHostToDevice);
        char Name[64];
        std::snprintf(Name, sizeof Name, "strsm_%c%c%c", "LR"[Si], "LU"[Fi], "NT"[Op]);
        st(Name, cublasStrsm(H, Sides[Si], Fills[Fi], Op ? CUBLAS_OP_T : CUBLAS_OP_N,
                             Op ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, 4, 3, &Al, DT, Ld, DB, Ld));
        printF(Name, devDownload(DB, B.size()));
      }
  std::vector<double> Td(T.begin(), T.end()), Bd(B.begin(), B.end());
  double *ET = devUpload(Td), *EB = devUpload(Bd);
  st("dtrsm_RUN", cublasDtrsm(H, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 3, 4, &Ald, ET,
                              Ld, EB, Ld));
  printD("dtrsm_RUN", devDownload(EB, Bd.size()));
  // syrk: only the named triangle is written.
  std::vector<float> C(Ld * Ld, 9.0f);
  float *DC = devUpload(C);
  st("ssyrk_UN", cublasSsyrk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, 4, 3, &Al, DB, Ld, &Be, DC, Ld));
  printF("ssyrk_UN", devDownload(DC, C.size()));
  st("ssyrk_LT", cublasSsyrk(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, 4, 3, &Al, DB, Ld, &Be, DC, Ld));
  printF("ssyrk_LT", devDownload(DC, C.size()));
  std::vector<double> Cd(Ld * Ld, 1.0);
  double *EC = devUpload(Cd);
  st("dsyrk_LN", cublasDsyrk(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 5, 2, &Ald, EB, Ld, &Bed, EC, Ld));
  printD("dsyrk_LN", devDownload(EC, Cd.size()));
  // geam: transpose-add, and C = A in place with beta 0.
  st("sgeam_TN", cublasSgeam(H, CUBLAS_OP_T, CUBLAS_OP_N, 4, 5, &Al, DA, Ld, &Be, DB, Ld, DC, Ld));
  printF("sgeam_TN", devDownload(DC, C.size()));
  float Zero = 0;
  st("sgeam_inplace", cublasSgeam(H, CUBLAS_OP_N, CUBLAS_OP_N, 5, 4, &Al, DC, Ld, &Zero, DB, Ld, DC, Ld));
  printF("sgeam_inplace", devDownload(DC, C.size()));
  st("dgeam_NT", cublasDgeam(H, CUBLAS_OP_N, CUBLAS_OP_T, 3, 3, &Ald, EA, Ld, &Bed, EB, Ld, EC, Ld));
  printD("dgeam_NT", devDownload(EC, Cd.size()));
  // dgmm.
  st("sdgmm_L", cublasSdgmm(H, CUBLAS_SIDE_LEFT, 5, 4, DA, Ld, DX, 1, DC, Ld));
  printF("sdgmm_L", devDownload(DC, C.size()));
  st("sdgmm_R", cublasSdgmm(H, CUBLAS_SIDE_RIGHT, 5, 4, DA, Ld, DX, 2, DC, Ld));
  printF("sdgmm_R", devDownload(DC, C.size()));
  st("ddgmm_L_neg", cublasDdgmm(H, CUBLAS_SIDE_LEFT, 4, 3, EA, Ld, EX, -1, EC, Ld));
  printD("ddgmm_L_neg", devDownload(EC, Cd.size()));
  // Complex forms.
  {
    std::vector<cuComplex> Ca(Ld * Ld), Cv(12), Cw(12);
    std::vector<cuDoubleComplex> Za(Ld * Ld), Zb(Ld * Ld);
    for (int I = 0; I < Ld * Ld; ++I) {
      int Row = I % Ld, Col = I / Ld;
      Ca[I] = make_cuComplex(fullVal(I, 31), fullVal(I, 32));
      Za[I] = Row == Col ? make_cuDoubleComplex(3.0 + Row, 0.5) : make_cuDoubleComplex(fullVal(I, 33), fullVal(I, 34));
      Zb[I] = make_cuDoubleComplex(fullVal(I, 35), fullVal(I, 36));
    }
    for (int I = 0; I < 12; ++I) {
      Cv[I] = make_cuComplex(fullVal(I, 37), fullVal(I, 38));
      Cw[I] = make_cuComplex(fullVal(I, 39), fullVal(I, 40));
    }
    cuComplex *GA = devUpload(Ca), *GV = devUpload(Cv), *GW = devUpload(Cw), *GC = devUpload(Ca);
    cuDoubleComplex *ZA = devUpload(Za), *ZB = devUpload(Zb);
    cuComplex CAl = make_cuComplex(0.5f, 1.0f), CBe = make_cuComplex(-1.0f, 0.25f);
    cuDoubleComplex ZAl = make_cuDoubleComplex(1.5, -0.5);
    auto pc = [](const char *Name, const std::vector<cuComplex> &V) {
      std::vector<float> F;
      for (auto &X : V) {
        F.push_back(X.x);
        F.push_back(X.y);
      }
      printF(Name, F);
    };
    auto pz = [](const char *Name, const std::vector<cuDoubleComplex> &V) {
      std::vector<double> F;
      for (auto &X : V) {
        F.push_back(X.x);
        F.push_back(X.y);
      }
      printD(Name, F);
    };
    st("cgemv_C", cublasCgemv(H, CUBLAS_OP_C, 5, 4, &CAl, GA, Ld, GV, 1, &CBe, GW, 1));
    pc("cgemv_C", devDownload(GW, 12));
    st("cgerc", cublasCgerc(H, 5, 4, &CAl, GV, 1, GW, 2, GC, Ld));
    pc("cgerc", devDownload(GC, Ld * Ld));
    st("csyrk_UT", cublasCsyrk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, 4, 3, &CAl, GA, Ld, &CBe, GC, Ld));
    pc("csyrk_UT", devDownload(GC, Ld * Ld));
    st("cgeam_CN", cublasCgeam(H, CUBLAS_OP_C, CUBLAS_OP_N, 2, 5, &CAl, GA, Ld, &CBe, GC, Ld, GW, 2));
    pc("cgeam_CN", devDownload(GW, 12));
    st("ztrsm_LLC", cublasZtrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, 4, 3, &ZAl, ZA,
                                Ld, ZB, Ld));
    pz("ztrsm_LLC", devDownload(ZB, Ld * Ld));
    st("zdgmm_R", cublasZdgmm(H, CUBLAS_SIDE_RIGHT, 3, 4, ZA, Ld, ZA, 1, ZB, Ld));
    pz("zdgmm_R", devDownload(ZB, Ld * Ld));
    for (void *P : {(void *)GA, (void *)GV, (void *)GW, (void *)GC, (void *)ZA, (void *)ZB})
      cudaFree(P);
  }
  for (void *P : {(void *)DA, (void *)DX, (void *)DY, (void *)EA, (void *)EX, (void *)EY, (void *)DT, (void *)DB,
                  (void *)ET, (void *)EB, (void *)DC, (void *)EC})
    cudaFree(P);
}

/// Pointer mode DEVICE, a non-default stream, Set/Get helpers, and a GEMM
/// captured into a graph and launched twice.
static void streamsAndModes() {
  cudaStream_t S;
  cudaStreamCreate(&S);
  st("set_stream", cublasSetStream(H, S));
  cudaStream_t Got = nullptr;
  cublasGetStream(H, &Got);
  printI("get_stream_same", {Got == S ? 1 : 0});
  const int M = 4, N = 3, K = 2;
  std::vector<float> A = vecOf<float>(M * K, 1, true), B = vecOf<float>(K * N, 2, true), C(M * N, 1.0f);
  float *DA, *DB, *DC, *DS;
  cudaMalloc(&DA, A.size() * 4);
  cudaMalloc(&DB, B.size() * 4);
  cudaMalloc(&DC, C.size() * 4);
  cudaMalloc(&DS, 16);
  st("set_matrix", cublasSetMatrix(M, K, 4, A.data(), M, DA, M));
  st("set_matrix_async", cublasSetMatrixAsync(K, N, 4, B.data(), K, DB, K, S));
  st("set_vector", cublasSetVector(M * N, 4, C.data(), 1, DC, 1));
  float Scal[2] = {2.0f, 0.5f};
  cudaMemcpy(DS, Scal, 8, cudaMemcpyHostToDevice);
  st("set_pointer_mode_device", cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE));
  st("sgemm_device_scalars", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, DS, DA, M, DB, K, DS + 1, DC, M));
  st("sdot_device_result", cublasSdot(H, M, DA, 1, DA, 1, DS + 2));
  std::vector<float> Out(M * N);
  st("get_matrix_async", cublasGetMatrixAsync(M, N, 4, DC, M, Out.data(), M, S));
  cudaStreamSynchronize(S);
  printF("sgemm_device_scalars", Out);
  float Dot = 0;
  cudaMemcpy(&Dot, DS + 2, 4, cudaMemcpyDeviceToHost);
  printF("sdot_device_result", {Dot});
  cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST);
  // Strided vector copies: every other element.
  std::vector<float> Strided(8, -1.0f);
  st("get_vector_strided", cublasGetVector(4, 4, DC, 3, Strided.data(), 2));
  printF("get_vector_strided", Strided);
  // Graph capture: C = 1 * A*B + 1 * C, launched twice.
  cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
  float One = 1;
  cudaGraph_t G;
  cudaGraphExec_t E;
  cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal);
  st("sgemm_captured", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &One, DC, M));
  cudaStreamEndCapture(S, &G);
  cudaGraphInstantiate(&E, G, 0);
  cudaGraphLaunch(E, S);
  cudaGraphLaunch(E, S);
  cudaStreamSynchronize(S);
  printF("sgemm_graph_twice", devDownload(DC, C.size()));
  cudaGraphExecDestroy(E);
  cudaGraphDestroy(G);
  cublasSetStream(H, nullptr);
  cudaStreamDestroy(S);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DS);
}

/// beta == 0 means C is not read (NaN there disappears); other Ex forms.
static void misc() {
  const int M = 3, N = 2, K = 2;
  std::vector<float> A = vecOf<float>(M * K, 1, true), B = vecOf<float>(K * N, 2, true);
  std::vector<float> C(M * N, __builtin_nanf(""));
  float *DA = devUpload(A), *DB = devUpload(B), *DC = devUpload(C);
  float One = 1, Zero = 0;
  st("sgemm_beta0_nan", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
  printF("sgemm_beta0_nan", devDownload(DC, C.size()));
  cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
  st("sgemm_alpha0_beta0_nan", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Zero, DA, M, DB, K, &Zero, DC, M));
  printF("sgemm_alpha0_beta0_nan", devDownload(DC, C.size()));
  std::vector<float> C1(M * N, 1.0f);
  cudaMemcpy(DC, C1.data(), C1.size() * 4, cudaMemcpyHostToDevice);
  st("sgemm_k0", cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, 0, &One, DA, M, DB, 1, &One, DC, M));
  printF("sgemm_k0", devDownload(DC, C.size()));
  std::vector<__half> Ah(M * K), Bh(K * N);
  for (int I = 0; I < M * K; ++I)
    Ah[I] = __float2half(fullVal(I, 1));
  for (int I = 0; I < K * N; ++I)
    Bh[I] = __float2half(fullVal(I, 2));
  __half *HA = devUpload(Ah), *HB = devUpload(Bh);
  st("sgemmex_f16_f32", cublasSgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, HA, CUDA_R_16F, M, HB, CUDA_R_16F, K,
                                      &Zero, DC, CUDA_R_32F, M));
  printF("sgemmex_f16_f32", devDownload(DC, C.size()));
  std::vector<int8_t> Ai(M * 4), Bi(4 * N);
  for (size_t I = 0; I < Ai.size(); ++I)
    Ai[I] = (int8_t)(I * 29 % 200 - 100);
  for (size_t I = 0; I < Bi.size(); ++I)
    Bi[I] = (int8_t)(I * 53 % 200 - 100);
  int8_t *IA = devUpload(Ai), *IB = devUpload(Bi);
  float Half = 0.5f;
  st("gemmex_i8_f32", cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, 4, &Half, IA, CUDA_R_8I, M, IB, CUDA_R_8I, 4, &Zero,
                                   DC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  printF("gemmex_i8_f32", devDownload(DC, C.size()));
  std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(M * N, 3.0);
  double *EA = devUpload(Ad), *EB = devUpload(Bd), *EC = devUpload(Cd);
  double DOne = 1, DTwo = 2;
  st("gemmex_f64", cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &DTwo, EA, CUDA_R_64F, K, EB, CUDA_R_64F, K, &DOne, EC,
                                CUDA_R_64F, M, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
  printD("gemmex_f64", devDownload(EC, Cd.size()));
  // FP32 data with the fast compute types: does cuBLAS round the inputs?
  {
    const int Q = 32;
    std::vector<float> Fa(Q * Q), Fb(Q * Q);
    for (int I = 0; I < Q * Q; ++I) {
      Fa[I] = fullVal(I, 21);
      Fb[I] = fullVal(I, 22);
    }
    float *FA = devUpload(Fa), *FB = devUpload(Fb), *FC = devUpload(std::vector<float>(Q * Q, 0.0f));
    const cublasComputeType_t Fast[2] = {CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_COMPUTE_32F_FAST_16BF};
    const char *FastName[2] = {"gemmex_fast16f", "gemmex_fast16bf"};
    for (int F = 0; F < 2; ++F) {
      st(FastName[F], cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, Q, Q, Q, &One, FA, CUDA_R_32F, Q, FB, CUDA_R_32F, Q,
                                   &Zero, FC, CUDA_R_32F, Q, Fast[F], CUBLAS_GEMM_DEFAULT));
      std::vector<float> Out = devDownload(FC, Q * Q);
      Out.resize(16);
      printF(FastName[F], Out);
    }
    // Strided batched with stride 0 for A (one A, many B) and OP_C on real data.
    st("sgemm_strided_a0", cublasSgemmStridedBatched(H, CUBLAS_OP_C, CUBLAS_OP_N, 4, 4, 4, &One, FA, Q, 0, FB, Q, 4 * Q,
                                                     &Zero, FC, 4, 16, 3));
    std::vector<float> Out = devDownload(FC, 48);
    printF("sgemm_strided_a0", Out);
    // Hgemm strided batched across two 16-deep slices.
    std::vector<__half> Ha(Q * Q), Hb(Q * Q), Hc(Q * Q);
    for (int I = 0; I < Q * Q; ++I) {
      Ha[I] = __float2half(fullVal(I, 23));
      Hb[I] = __float2half(fullVal(I, 24));
      Hc[I] = __float2half(fullVal(I, 25));
    }
    __half *DHa = devUpload(Ha), *DHb = devUpload(Hb), *DHc = devUpload(Hc);
    __half HAl = __float2half(0.75f), HBe = __float2half(-1.0f);
    st("hgemm_strided_batched", cublasHgemmStridedBatched(H, CUBLAS_OP_T, CUBLAS_OP_N, 8, 8, 32, &HAl, DHa, 32, 256, DHb, 32,
                                                          256, &HBe, DHc, 8, 64, 4));
    printBits16("hgemm_strided_batched", "f16", devDownload(DHc, 256));
    for (void *P : {(void *)FA, (void *)FB, (void *)FC, (void *)DHa, (void *)DHb, (void *)DHc})
      cudaFree(P);
  }
  float R = -1;
  st("snrm2_n0", cublasSnrm2(H, 0, DA, 1, &R));
  printF("snrm2_n0", {R});
  R = -1;
  st("sdot_n0", cublasSdot(H, 0, DA, 1, DA, 1, &R));
  printF("sdot_n0", {R});
  for (void *P : {(void *)DA, (void *)DB, (void *)DC, (void *)HA, (void *)HB, (void *)IA, (void *)IB, (void *)EA,
                  (void *)EB, (void *)EC})
    cudaFree(P);
}

int main() {
  CK(cudaFree(nullptr));
  cublasStatus_t S = cublasCreate(&H);
  st("create", S);
  if (S != CUBLAS_STATUS_SUCCESS)
    return 1;
  handleQueries();
  section("queries");
  badArguments();
  section("bad_arguments");
  gemmCases<float>("s");
  gemmCases<double>("d");
  complexGemm();
  section("gemm");
  reducedPrecision();
  section("reduced_precision");
  batched();
  section("batched");
  level1();
  section("level1");
  level23();
  section("level23");
  streamsAndModes();
  section("streams");
  misc();
  section("misc");
  st("destroy", cublasDestroy(H));
  CK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
