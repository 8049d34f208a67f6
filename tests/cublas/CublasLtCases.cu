/// \file
/// cuBLASLt as PyTorch and llm.c use it: descriptors and layouts with
/// attributes, the heuristic, and cublasLtMatmul with FP32 and FP16 data,
/// C distinct from D, strided batches and the bias/ReLU/GELU epilogues (GELU's
/// input kept in the aux buffer), each checked against a host reference in
/// double. Prints `CublasLtCases: PASS` when all hold.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

static int Failures = 0;
static void check(const char *Name, bool Ok, double Err = 0) {
  std::printf("%s %s", Name, Ok ? "ok\n" : "FAIL");
  if (!Ok) {
    std::printf(" (error %g)\n", Err);
    ++Failures;
  }
}
static double val(int I, int Salt) { return std::sin(I * 0.91 + Salt * 1.3) * 0.8; }
static double gelu(double X) { return 0.5 * X * (1 + std::tanh(0.7978845608028654 * (X + 0.044715 * X * X * X))); }

template <typename T> static T *upload(const std::vector<T> &V) {
  T *P;
  cudaMalloc(&P, V.size() * sizeof(T) + 16);
  cudaMemcpy(P, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return P;
}
template <typename T> static std::vector<T> download(const T *P, size_t N) {
  std::vector<T> V(N);
  cudaDeviceSynchronize();
  cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

/// D = epi(alpha op(A) op(B) + beta C + bias), column-major, batch-strided.
static std::vector<double> reference(const std::vector<float> &A, const std::vector<float> &B,
                                     const std::vector<float> &C, int M, int N, int K, bool Ta, int Batch, double Al,
                                     double Be, const float *Bias, int Epi) {
  std::vector<double> D((size_t)M * N * Batch);
  for (int Bi = 0; Bi < Batch; ++Bi)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double S = 0;
        for (int P = 0; P < K; ++P) {
          double Av = Ta ? A[Bi * M * K + I * K + P] : A[Bi * M * K + P * M + I];
          S += Av * B[Bi * K * N + J * K + P];
        }
        double V = Al * S + Be * C[Bi * M * N + J * M + I];
        if (Bias)
          V += Bias[I];
        if (Epi == 1)
          V = V > 0 ? V : 0;
        if (Epi == 2)
          V = gelu(V);
        D[Bi * M * N + J * M + I] = V;
      }
  return D;
}

int main() {
  cudaFree(nullptr);
  cublasLtHandle_t Lt;
  check("create", cublasLtCreate(&Lt) == CUBLAS_STATUS_SUCCESS);
  check("version", cublasLtGetVersion() >= 130000);
  const int M = 5, N = 4, K = 6, Batch = 3;
  std::vector<float> A(M * K * Batch), B(K * N * Batch), C(M * N * Batch), Bias(M);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = (float)val((int)I, 1);
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = (float)val((int)I, 2);
  for (size_t I = 0; I < C.size(); ++I)
    C[I] = (float)val((int)I, 3);
  for (int I = 0; I < M; ++I)
    Bias[I] = (float)val(I, 4);
  float *DA = upload(A), *DB = upload(B), *DC = upload(C), *DBias = upload(Bias);
  float *DD;
  cudaMalloc(&DD, C.size() * 4);

  cublasLtMatmulDesc_t Desc;
  cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t T = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof(T));
  cublasLtEpilogue_t Epi = CUBLASLT_EPILOGUE_DEFAULT;
  size_t Written = 0;
  cublasLtMatmulDescGetAttribute(Desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi), &Written);
  check("desc_default_epilogue", Epi == CUBLASLT_EPILOGUE_DEFAULT && Written == sizeof(Epi));
  cublasLtMatrixLayout_t La, Lb, Lc;
  cublasLtMatrixLayoutCreate(&La, CUDA_R_32F, K, M, K); // A stored K x M, used transposed
  cublasLtMatrixLayoutCreate(&Lb, CUDA_R_32F, K, N, K);
  cublasLtMatrixLayoutCreate(&Lc, CUDA_R_32F, M, N, M);
  int32_t BatchCount = Batch;
  int64_t Sa = M * K, Sb = K * N, Sc = M * N;
  for (auto [L, S] : {std::pair{La, Sa}, std::pair{Lb, Sb}, std::pair{Lc, Sc}}) {
    cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &BatchCount, sizeof(BatchCount));
    cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &S, sizeof(S));
  }
  uint64_t Rows = 0;
  cublasLtMatrixLayoutGetAttribute(Lc, CUBLASLT_MATRIX_LAYOUT_ROWS, &Rows, sizeof(Rows), &Written);
  check("layout_rows", Rows == (uint64_t)M && Written == 8);

  cublasLtMatmulPreference_t Pref;
  cublasLtMatmulPreferenceCreate(&Pref);
  size_t Ws = 1 << 20;
  cublasLtMatmulPreferenceSetAttribute(Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &Ws, sizeof(Ws));
  cublasLtMatmulHeuristicResult_t Heur[4];
  int Found = 0;
  check("heuristic", cublasLtMatmulAlgoGetHeuristic(Lt, Desc, La, Lb, Lc, Lc, Pref, 4, Heur, &Found) ==
                             CUBLAS_STATUS_SUCCESS &&
                         Found >= 1 && Heur[0].state == CUBLAS_STATUS_SUCCESS);

  // 1. FP32, A transposed, strided batch, D distinct from C.
  float Al = 1.5f, Be = -0.5f;
  check("matmul_f32_status", cublasLtMatmul(Lt, Desc, &Al, DA, La, DB, Lb, &Be, DC, Lc, DD, Lc, &Heur[0].algo,
                                            nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
  // The A of the reference is M x K per batch, transposed storage: A stored
  // K x M with lda K means element (i, p) at i * K + p.
  std::vector<double> R = reference(A, B, C, M, N, K, true, Batch, Al, Be, nullptr, 0);
  std::vector<float> Got = download(DD, C.size());
  double E = 0;
  for (size_t I = 0; I < R.size(); ++I)
    E = std::max(E, std::fabs(Got[I] - R[I]));
  check("matmul_f32", E < 1e-5, E);

  // 2. Bias + ReLU, then GELU + aux (the GELU input), in place on C.
  cublasLtMatmulDesc_t Desc2;
  cublasLtMatmulDescCreate(&Desc2, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof(T));
  Epi = CUBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &DBias, sizeof(DBias));
  cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Be, DC, Lc, DD, Lc, nullptr, nullptr, 0, 0);
  R = reference(A, B, C, M, N, K, true, Batch, Al, Be, Bias.data(), 1);
  Got = download(DD, C.size());
  E = 0;
  for (size_t I = 0; I < R.size(); ++I)
    E = std::max(E, std::fabs(Got[I] - R[I]));
  check("matmul_relu_bias", E < 1e-5, E);
  float *DAux;
  cudaMalloc(&DAux, C.size() * 4);
  Epi = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  int64_t AuxLd = M, AuxStride = M * N;
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &DAux, sizeof(DAux));
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AuxLd, sizeof(AuxLd));
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &AuxStride, sizeof(AuxStride));
  cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Be, DC, Lc, DC, Lc, nullptr, nullptr, 0, 0);
  R = reference(A, B, C, M, N, K, true, Batch, Al, Be, Bias.data(), 2);
  std::vector<double> Pre = reference(A, B, C, M, N, K, true, Batch, Al, Be, Bias.data(), 0);
  Got = download(DC, C.size());
  std::vector<float> Aux = download(DAux, C.size());
  double E2 = 0;
  E = 0;
  for (size_t I = 0; I < R.size(); ++I) {
    E = std::max(E, std::fabs(Got[I] - R[I]));
    E2 = std::max(E2, std::fabs(Aux[I] - Pre[I]));
  }
  check("matmul_gelu_aux_bias", E < 1e-5, E);
  check("gelu_aux_is_input", E2 < 1e-5, E2);

  // 3. FP16 data, FP32 compute, C distinct from D: one rounding to FP16.
  {
    const int Hm = 8, Hn = 4, Hk = 16;
    std::vector<__half> Ha(Hm * Hk), Hb(Hk * Hn), Hc(Hm * Hn);
    std::vector<float> Fa(Hm * Hk), Fb(Hk * Hn), Fc(Hm * Hn);
    for (int I = 0; I < Hm * Hk; ++I)
      Fa[I] = __half2float(Ha[I] = __float2half((float)val(I, 5)));
    for (int I = 0; I < Hk * Hn; ++I)
      Fb[I] = __half2float(Hb[I] = __float2half((float)val(I, 6)));
    for (int I = 0; I < Hm * Hn; ++I)
      Fc[I] = __half2float(Hc[I] = __float2half((float)val(I, 7)));
    __half *HA = upload(Ha), *HB = upload(Hb), *HC = upload(Hc), *HD;
    cudaMalloc(&HD, Hm * Hn * 2);
    cublasLtMatmulDesc_t D3;
    cublasLtMatmulDescCreate(&D3, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatrixLayout_t L1, L2, L3;
    cublasLtMatrixLayoutCreate(&L1, CUDA_R_16F, Hm, Hk, Hm);
    cublasLtMatrixLayoutCreate(&L2, CUDA_R_16F, Hk, Hn, Hk);
    cublasLtMatrixLayoutCreate(&L3, CUDA_R_16F, Hm, Hn, Hm);
    float One = 1, Half = 0.5f;
    check("matmul_f16_status",
          cublasLtMatmul(Lt, D3, &One, HA, L1, HB, L2, &Half, HC, L3, HD, L3, nullptr, nullptr, 0, 0) ==
              CUBLAS_STATUS_SUCCESS);
    std::vector<__half> HGot = download(HD, Hm * Hn);
    int Bad = 0;
    for (int J = 0; J < Hn; ++J)
      for (int I = 0; I < Hm; ++I) {
        double S = 0;
        for (int P = 0; P < Hk; ++P)
          S += (double)Fa[P * Hm + I] * Fb[J * Hk + P];
        float Want = __half2float(__float2half((float)(S + 0.5 * Fc[J * Hm + I])));
        float Have = __half2float(HGot[J * Hm + I]);
        Bad += std::fabs(Want - Have) > std::fabs(Want) * 1e-3f + 1e-3f;
      }
    check("matmul_f16_c_ne_d", Bad == 0, Bad);
    cublasLtMatrixLayoutDestroy(L1);
    cublasLtMatrixLayoutDestroy(L2);
    cublasLtMatrixLayoutDestroy(L3);
    cublasLtMatmulDescDestroy(D3);
    cudaFree(HA);
    cudaFree(HB);
    cudaFree(HC);
    cudaFree(HD);
  }

  // 4. Gradient epilogues: DGELU_BGRAD with the aux of step 2 (GELU's
  // input), and BGRADB (column sums of op(B) over k).
  {
    float *DBGrad;
    cudaMalloc(&DBGrad, M * Batch * 4 + 16);
    int64_t BiasStride = M;
    Epi = CUBLASLT_EPILOGUE_DGELU_BGRAD;
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &DBGrad, sizeof(DBGrad));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &BiasStride, sizeof(BiasStride));
    float Zero = 0;
    check("dgelu_bgrad_status", cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Zero, DD, Lc, DD, Lc, nullptr,
                                               nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    std::vector<double> Prod = reference(A, B, C, M, N, K, true, Batch, Al, 0, nullptr, 0);
    std::vector<float> G = download(DD, C.size()), Bg = download(DBGrad, M * Batch);
    double Eg = 0, Eb = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      for (int I = 0; I < M; ++I) {
        double Row = 0;
        for (int J = 0; J < N; ++J) {
          size_t X = (size_t)Bi * M * N + J * M + I;
          double U = 0.7978845608028654 * (Aux[X] + 0.044715 * Aux[X] * Aux[X] * Aux[X]), T = std::tanh(U);
          double D = 0.5 * (1 + T) + 0.5 * Aux[X] * (1 - T * T) * 0.7978845608028654 * (1 + 3 * 0.044715 * Aux[X] * Aux[X]);
          double W = Prod[X] * D;
          Row += W;
          Eg = std::max(Eg, std::fabs(G[X] - W));
        }
        Eb = std::max(Eb, std::fabs(Bg[Bi * M + I] - Row));
      }
    check("dgelu", Eg < 1e-5, Eg);
    check("dgelu_bgrad", Eb < 1e-4, Eb);
    float *DBGradB;
    cudaMalloc(&DBGradB, N * Batch * 4 + 16);
    int64_t BStride = N;
    Epi = CUBLASLT_EPILOGUE_BGRADB;
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &DBGradB, sizeof(DBGradB));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &BStride, sizeof(BStride));
    // op(B) = N: the H100's cuBLASLt 13 takes BGRADB only with op(B) = T
    // (apps/cublaslt_gelu records which forms it takes and checks the sums).
    cublasStatus_t Sb = cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Zero, DD, Lc, DD, Lc, nullptr, nullptr, 0, 0);
    check("bgradb_op_n_refused", Sb == CUBLAS_STATUS_NOT_SUPPORTED, (double)Sb);
    cudaFree(DBGrad);
    cudaFree(DBGradB);
  }
  // 5. ReLU's bitmask aux: an aux ld that is no multiple of 128 bits is
  // refused (INVALID_VALUE, as on the H100); with 128 the mask has bit
  // b * 512 + col * 128 + row set where the pre-activation is >= 0, and the
  // other bits keep their fill; DRELU_BGRAD over it zeroes the product where
  // the bit is clear and sums D's rows into the bias gradient.
  Epi = CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &DBias, sizeof(DBias));
  int64_t NoStride = 0; // One bias for every batch (case 4 set a stride).
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &NoStride, sizeof(NoStride));
  AuxLd = M;
  cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AuxLd, sizeof(AuxLd));
  check("relu_aux_ld_refused", cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Be, DC, Lc, DD, Lc, nullptr, nullptr, 0,
                                              0) == CUBLAS_STATUS_INVALID_VALUE);
  {
    AuxLd = 128, AuxStride = 512;
    uint8_t *DMask;
    cudaMalloc(&DMask, 3 * 64);
    cudaMemset(DMask, 0xff, 3 * 64);
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &DMask, sizeof(DMask));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AuxLd, sizeof(AuxLd));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &AuxStride,
                                   sizeof(AuxStride));
    check("relu_aux_status", cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Be, DC, Lc, DD, Lc, nullptr, nullptr, 0,
                                            0) == CUBLAS_STATUS_SUCCESS);
    auto CNow = download(DC, C.size()); // Case 2 wrote its result into C.
    R = reference(A, B, CNow, M, N, K, true, Batch, Al, Be, Bias.data(), 0);
    Got = download(DD, C.size());
    auto Mask = download(DMask, 3 * 64);
    int BadBits = 0;
    E = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      for (int Bit = 0; Bit < 512; ++Bit) {
        int J = Bit / 128, I = Bit % 128;
        bool Set = (Mask[(Bi * 512 + Bit) / 8] >> (Bit % 8)) & 1;
        bool Elem = J < N && I < M;
        double Pre = Elem ? R[Bi * M * N + J * M + I] : 0;
        BadBits += Elem ? Set != (Pre >= 0) : !Set;
        if (Elem)
          E = std::max(E, std::fabs(Got[Bi * M * N + J * M + I] - (Pre > 0 ? Pre : 0)));
      }
    check("relu_aux_bits", BadBits == 0, BadBits);
    check("relu_aux_d", E < 1e-5, E);
    // The backward pass: D = alpha op(A) op(B) where the bit is set.
    Epi = CUBLASLT_EPILOGUE_DRELU_BGRAD;
    float *DGrad;
    cudaMalloc(&DGrad, M * Batch * 4);
    int64_t GradStride = M;
    float Zero = 0;
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epi, sizeof(Epi));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &DGrad, sizeof(DGrad));
    cublasLtMatmulDescSetAttribute(Desc2, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &GradStride, sizeof(GradStride));
    check("drelu_bgrad_status", cublasLtMatmul(Lt, Desc2, &Al, DA, La, DB, Lb, &Zero, DD, Lc, DD, Lc, nullptr,
                                               nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    auto Prod = reference(A, B, C, M, N, K, true, Batch, Al, 0, nullptr, 0);
    Got = download(DD, C.size());
    auto Grad = download(DGrad, M * Batch);
    double Eg = 0, Eb = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      for (int I = 0; I < M; ++I) {
        double Sum = 0;
        for (int J = 0; J < N; ++J) {
          int Bit = Bi * 512 + J * 128 + I;
          double Want = (Mask[Bit / 8] >> (Bit % 8)) & 1 ? Prod[Bi * M * N + J * M + I] : 0;
          Eg = std::max(Eg, std::fabs(Got[Bi * M * N + J * M + I] - Want));
          Sum += Want;
        }
        Eb = std::max(Eb, std::fabs(Grad[Bi * M + I] - Sum));
      }
    check("drelu", Eg < 1e-5, Eg);
    check("drelu_bgrad", Eb < 1e-4, Eb);
    cudaFree(DMask);
    cudaFree(DGrad);
  }

  // 6. Algorithm enumeration and checking, as autotuners do.
  {
    int Ids[8], NIds = 0;
    cublasLtMatmulAlgoGetIds(Lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 8, Ids,
                             &NIds);
    cublasLtMatmulAlgo_t Algo;
    bool Ok = NIds >= 1 && cublasLtMatmulAlgoInit(Lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                                  CUDA_R_32F, CUDA_R_32F, Ids[0], &Algo) == CUBLAS_STATUS_SUCCESS;
    int32_t SplitK = 1;
    Ok = Ok && cublasLtMatmulAlgoConfigSetAttribute(&Algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &SplitK, sizeof(SplitK)) ==
                   CUBLAS_STATUS_SUCCESS;
    cublasLtMatmulHeuristicResult_t Res;
    Ok = Ok && cublasLtMatmulAlgoCheck(Lt, Desc, La, Lb, Lc, Lc, &Algo, &Res) == CUBLAS_STATUS_SUCCESS &&
         Res.state == CUBLAS_STATUS_SUCCESS;
    int32_t Strided = 0;
    cublasLtMatmulAlgoCapGetAttribute(&Algo, CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT, &Strided, sizeof(Strided),
                                      &Written);
    check("algo_ids_init_check_cap", Ok && Strided == 1);
  }
  // 7. Matrix transform: C = 2 A^T + 1 B (3 x 2 from a 2 x 3 A).
  {
    std::vector<float> Ta = {1, 2, 3, 4, 5, 6}, Tb = {10, 20, 30, 40, 50, 60};
    float *TA = upload(Ta), *TB = upload(Tb), *TC;
    cudaMalloc(&TC, 6 * 4);
    cublasLtMatrixTransformDesc_t TD;
    cublasLtMatrixTransformDescCreate(&TD, CUDA_R_32F);
    cublasOperation_t Tr = CUBLAS_OP_T;
    cublasLtMatrixTransformDescSetAttribute(TD, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &Tr, sizeof(Tr));
    cublasLtMatrixLayout_t L23, L32;
    cublasLtMatrixLayoutCreate(&L23, CUDA_R_32F, 2, 3, 2);
    cublasLtMatrixLayoutCreate(&L32, CUDA_R_32F, 3, 2, 3);
    float Two = 2, One = 1;
    cublasLtMatrixTransform(Lt, TD, &Two, TA, L23, &One, TB, L32, TC, L32, 0);
    std::vector<float> Tc = download(TC, 6);
    // A (2 x 3, col-major) = [1 3 5; 2 4 6]; A^T (3 x 2) = [1 2; 3 4; 5 6].
    float Want[6] = {2 + 10, 6 + 20, 10 + 30, 4 + 40, 8 + 50, 12 + 60};
    bool Ok = true;
    for (int I = 0; I < 6; ++I)
      Ok = Ok && Tc[I] == Want[I];
    check("matrix_transform", Ok);
    cublasLtMatrixLayoutDestroy(L23);
    cublasLtMatrixLayoutDestroy(L32);
    cublasLtMatrixTransformDescDestroy(TD);
    cudaFree(TA);
    cudaFree(TB);
    cudaFree(TC);
  }
  // 8. FP8: E4M3 A (transposed, as FP8 GEMMs take it) and B with
  // per-tensor scales; FP32 D, then E4M3 D with a D scale and its amax.
  {
    const int Fm = 8, Fn = 4, Fk = 16;
    std::vector<__nv_fp8_e4m3> Fa(Fk * Fm), Fb(Fk * Fn);
    std::vector<float> Va(Fk * Fm), Vb(Fk * Fn);
    for (int I = 0; I < Fk * Fm; ++I)
      Va[I] = float(Fa[I] = __nv_fp8_e4m3((float)val(I, 11) * 4));
    for (int I = 0; I < Fk * Fn; ++I)
      Vb[I] = float(Fb[I] = __nv_fp8_e4m3((float)val(I, 12) * 4));
    __nv_fp8_e4m3 *FA = upload(Fa), *FB = upload(Fb);
    std::vector<float> Scales = {0.5f, 0.25f, 2.0f, 0.0f}; // A, B, D, amax out
    float *DS = upload(Scales);
    float *FD;
    cudaMalloc(&FD, Fm * Fn * 4);
    cublasLtMatmulDesc_t D8;
    cublasLtMatmulDescCreate(&D8, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatmulDescSetAttribute(D8, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof(T));
    float *Sa = DS, *Sb = DS + 1;
    cublasLtMatmulDescSetAttribute(D8, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &Sa, sizeof(Sa));
    cublasLtMatmulDescSetAttribute(D8, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &Sb, sizeof(Sb));
    cublasLtMatrixLayout_t L1, L2, L3, L4;
    cublasLtMatrixLayoutCreate(&L1, CUDA_R_8F_E4M3, Fk, Fm, Fk);
    cublasLtMatrixLayoutCreate(&L2, CUDA_R_8F_E4M3, Fk, Fn, Fk);
    cublasLtMatrixLayoutCreate(&L3, CUDA_R_32F, Fm, Fn, Fm);
    cublasLtMatrixLayoutCreate(&L4, CUDA_R_8F_E4M3, Fm, Fn, Fm);
    float One = 1, Zero = 0;
    check("fp8_f32_status", cublasLtMatmul(Lt, D8, &One, FA, L1, FB, L2, &Zero, FD, L3, FD, L3, nullptr, nullptr, 0,
                                           0) == CUBLAS_STATUS_SUCCESS);
    std::vector<float> Got8 = download(FD, Fm * Fn);
    std::vector<double> Want(Fm * Fn);
    double Ef = 0, Amax = 0;
    for (int J = 0; J < Fn; ++J)
      for (int I = 0; I < Fm; ++I) {
        double S = 0;
        for (int P = 0; P < Fk; ++P)
          S += (double)Va[I * Fk + P] * Vb[J * Fk + P];
        Want[J * Fm + I] = 0.5 * 0.25 * S;
        Amax = std::max(Amax, std::fabs(Want[J * Fm + I]));
        Ef = std::max(Ef, std::fabs(Got8[J * Fm + I] - Want[J * Fm + I]));
      }
    check("fp8_e4m3_f32_out", Ef < 1e-5, Ef);
    float *Sd = DS + 2, *Am = DS + 3;
    cublasLtMatmulDescSetAttribute(D8, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &Sd, sizeof(Sd));
    cublasLtMatmulDescSetAttribute(D8, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &Am, sizeof(Am));
    __nv_fp8_e4m3 *FD8;
    cudaMalloc(&FD8, Fm * Fn);
    cublasLtMatmul(Lt, D8, &One, FA, L1, FB, L2, &Zero, FD8, L4, FD8, L4, nullptr, nullptr, 0, 0);
    std::vector<__nv_fp8_e4m3> Out8 = download(FD8, Fm * Fn);
    std::vector<float> ScalesOut = download(DS, 4);
    int Bad = 0;
    for (int I = 0; I < Fm * Fn; ++I)
      Bad += (unsigned char)Out8[I].__x != (unsigned char)__nv_fp8_e4m3((float)(Want[I] * 2.0)).__x;
    check("fp8_e4m3_out_bits", Bad == 0, Bad);
    check("fp8_amax", std::fabs(ScalesOut[3] - Amax) < 1e-5, std::fabs(ScalesOut[3] - Amax));
    for (auto L : {L1, L2, L3, L4})
      cublasLtMatrixLayoutDestroy(L);
    cublasLtMatmulDescDestroy(D8);
    cudaFree(FA);
    cudaFree(FB);
    cudaFree(FD);
    cudaFree(FD8);
    cudaFree(DS);
  }
  // 9. Alpha as a per-row device vector, beta as a host scalar.
  {
    std::vector<float> AlphaV(M * Batch);
    for (int I = 0; I < M * Batch; ++I)
      AlphaV[I] = 0.5f + 0.25f * I;
    float *DAlphaV = upload(AlphaV);
    cublasLtMatmulDesc_t DV;
    cublasLtMatmulDescCreate(&DV, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatmulDescSetAttribute(DV, CUBLASLT_MATMUL_DESC_TRANSA, &T, sizeof(T));
    cublasLtPointerMode_t PM = CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
    cublasLtMatmulDescSetAttribute(DV, CUBLASLT_MATMUL_DESC_POINTER_MODE, &PM, sizeof(PM));
    int64_t AvStride = M;
    cublasLtMatmulDescSetAttribute(DV, CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, &AvStride, sizeof(AvStride));
    float BeH = 2.0f;
    cudaMemcpy(DC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
    check("alpha_vector_status", cublasLtMatmul(Lt, DV, DAlphaV, DA, La, DB, Lb, &BeH, DC, Lc, DD, Lc, nullptr,
                                                nullptr, 0, 0) == CUBLAS_STATUS_SUCCESS);
    std::vector<double> Prod = reference(A, B, C, M, N, K, true, Batch, 1.0, 0.0, nullptr, 0);
    std::vector<float> Gv = download(DD, C.size());
    double Ev = 0;
    for (int Bi = 0; Bi < Batch; ++Bi)
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < M; ++I) {
          size_t X = (size_t)Bi * M * N + J * M + I;
          Ev = std::max(Ev, std::fabs(Gv[X] - (AlphaV[Bi * M + I] * Prod[X] + 2.0 * C[X])));
        }
    check("alpha_vector", Ev < 1e-5, Ev);
    cublasLtMatmulDescDestroy(DV);
    cudaFree(DAlphaV);
  }
  cublasLtMatmulPreferenceDestroy(Pref);
  cublasLtMatrixLayoutDestroy(La);
  cublasLtMatrixLayoutDestroy(Lb);
  cublasLtMatrixLayoutDestroy(Lc);
  cublasLtMatmulDescDestroy(Desc);
  cublasLtMatmulDescDestroy(Desc2);
  check("destroy", cublasLtDestroy(Lt) == CUBLAS_STATUS_SUCCESS);
  std::printf("CublasLtCases: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
