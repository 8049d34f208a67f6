/// \file
/// cuBLASLt as PyTorch and llm.c call it: a matmul descriptor (compute and
/// scale types, transposes, epilogue, bias and aux pointers), matrix layouts
/// (incl. strided batches), a preference with a workspace limit, the
/// heuristic, and cublasLtMatmul on a stream. Patterns: plain FP32; FP32
/// with the BIAS, RELU_BIAS and GELU_BIAS epilogues (PyTorch's addmm and
/// fused linear+activation); FP16 with bias; BF16 GELU_AUX_BIAS forward and
/// DGELU backward over the saved pre-activation (llm.c's fused MLP);
/// strided-batched layouts; C distinct from D with beta. Each result is
/// checked against a CPU reference in double with the precision's
/// tolerance; the program prints verdicts and checksums (sums of magnitudes)
/// the matrix compares with a tolerance.
#define LIB_REPORT_WIDTH 16
#include "../common/lib_util.h"
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)
static double toD(float X) { return X; }
static double toD(__half X) { return __half2float(X); }
static double toD(__nv_bfloat16 X) { return __bfloat162float(X); }
template <typename T> static std::vector<T> randomOf(Lcg &R, size_t N) {
  std::vector<T> V(N);
  for (T &X : V)
    X = T(R.range(-1, 1));
  return V;
}

static double gelu(double X) {
  return 0.5 * X * (1 + std::tanh(0.7978845608028654 * (X + 0.044715 * X * X * X)));
}
static double geluGrad(double X) {
  const double C = 0.7978845608028654, T = std::tanh(C * (X + 0.044715 * X * X * X));
  return 0.5 * (1 + T) + 0.5 * X * (1 - T * T) * C * (1 + 3 * 0.044715 * X * X);
}

/// One cublasLtMatmul: D = epi(alpha op(A) B + beta C + bias), all column-
/// major of one data type, FP32 compute and scale, as llm.c sets it up.
struct Matmul {
  cudaDataType Type = CUDA_R_32F;
  bool TransA = false;
  int M = 0, N = 0, K = 0, Batch = 1;
  cublasLtEpilogue_t Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *Bias = nullptr;
  void *Aux = nullptr;
  float Alpha = 1, Beta = 0;
};

static cublasLtHandle_t Lt;
static cudaStream_t Stream;
static void *Workspace;
static const size_t WorkspaceSize = 8 << 20;

static cublasStatus_t run(const Matmul &P, const void *A, const void *B, const void *C, void *D) {
  cublasLtMatmulDesc_t Op;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t Ta = P.TransA ? CUBLAS_OP_T : CUBLAS_OP_N, Tb = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSA, &Ta, sizeof(Ta)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSB, &Tb, sizeof(Tb)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &P.Epilogue,
                                              sizeof(P.Epilogue)));
  if (P.Bias)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &P.Bias,
                                                sizeof(P.Bias)));
  if (P.Aux) {
    int64_t Ld = P.M;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                                &P.Aux, sizeof(P.Aux)));
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &Ld, sizeof(Ld)));
  }
  cublasLtMatrixLayout_t La, Lb, Lc;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&La, P.Type, P.TransA ? P.K : P.M, P.TransA ? P.M : P.K,
                                          P.TransA ? P.K : P.M));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&Lb, P.Type, P.K, P.N, P.K));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&Lc, P.Type, P.M, P.N, P.M));
  if (P.Batch > 1) {
    int64_t Sa = (int64_t)P.M * P.K, Sb = (int64_t)P.K * P.N, Sc = (int64_t)P.M * P.N;
    for (auto [L, S] : {std::pair{La, Sa}, std::pair{Lb, Sb}, std::pair{Lc, Sc}}) {
      CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &P.Batch,
                                                    sizeof(int)));
      CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                    &S, sizeof(S)));
    }
  }
  cublasLtMatmulPreference_t Pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&Pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &WorkspaceSize, sizeof(WorkspaceSize)));
  cublasLtMatmulHeuristicResult_t Heur = {};
  int Found = 0;
  cublasStatus_t St =
      cublasLtMatmulAlgoGetHeuristic(Lt, Op, La, Lb, Lc, Lc, Pref, 1, &Heur, &Found);
  // Without a heuristic answer, let cublasLtMatmul choose (algo = NULL).
  const cublasLtMatmulAlgo_t *Algo =
      St == CUBLAS_STATUS_SUCCESS && Found > 0 ? &Heur.algo : nullptr;
  St = cublasLtMatmul(Lt, Op, &P.Alpha, A, La, B, Lb, &P.Beta, C, Lc, D, Lc, Algo, Workspace,
                      WorkspaceSize, Stream);
  CHECK(cudaStreamSynchronize(Stream));
  cublasLtMatmulPreferenceDestroy(Pref);
  cublasLtMatrixLayoutDestroy(La);
  cublasLtMatrixLayoutDestroy(Lb);
  cublasLtMatrixLayoutDestroy(Lc);
  cublasLtMatmulDescDestroy(Op);
  return St;
}

/// The double reference of one batch of alpha op(A) B + beta C (no epilogue).
template <typename T>
static std::vector<double> gemmRef(const Matmul &P, const std::vector<T> &A,
                                   const std::vector<T> &B, const std::vector<T> *C) {
  std::vector<double> D((size_t)P.M * P.N * P.Batch);
  size_t Sa = (size_t)P.M * P.K, Sb = (size_t)P.K * P.N, Sc = (size_t)P.M * P.N;
  for (int Bi = 0; Bi < P.Batch; ++Bi)
    for (int J = 0; J < P.N; ++J)
      for (int I = 0; I < P.M; ++I) {
        double S = 0;
        for (int Q = 0; Q < P.K; ++Q)
          S += toD(A[Bi * Sa + (P.TransA ? I * P.K + Q : Q * P.M + I)]) *
               toD(B[Bi * Sb + J * P.K + Q]);
        size_t O = Bi * Sc + J * P.M + I;
        D[O] = P.Alpha * S + (C ? P.Beta * toD((*C)[O]) : 0);
      }
  return D;
}

template <typename T>
static bool compare(const std::vector<T> &Got, const std::vector<double> &Want, double Tol,
                    double &Check) {
  bool Ok = Got.size() == Want.size();
  Check = 0;
  for (size_t I = 0; I < Got.size() && Ok; ++I) {
    Ok &= closeTo(toD(Got[I]), Want[I], Tol, Tol);
    Check += std::fabs(toD(Got[I]));
  }
  return Ok;
}

/// Runs one pattern and reports it; a status other than success is printed
/// (it is part of the recorded behaviour) and counts as a failure.
static bool ran(const char *Name, cublasStatus_t St) {
  if (St == CUBLAS_STATUS_SUCCESS)
    return true;
  std::printf("%-16s status %d\n", Name, (int)St);
  ++Failures;
  return false;
}

int main() {
  const int M = 64, N = 48, K = 64;
  Lcg R(91);
  CUBLAS_CHECK(cublasLtCreate(&Lt));
  CHECK(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&Workspace, WorkspaceSize));
  double Check;

  // FP32: plain, then the PyTorch epilogues with A transposed (a weight
  // stored out_features x in_features, row-major).
  {
    auto A = randomOf<float>(R, M * K), B = randomOf<float>(R, K * N),
         C = randomOf<float>(R, M * N), Bias = randomOf<float>(R, M);
    float *DA = upload(A), *DB = upload(B), *DC = upload(C), *DBias = upload(Bias), *DD;
    CHECK(cudaMalloc(&DD, M * N * 4));
    Matmul P;
    P.M = M, P.N = N, P.K = K, P.Alpha = 0.75f, P.Beta = -0.5f;
    if (ran("f32_plain", run(P, DA, DB, DC, DD))) {
      bool Ok_ = compare(download(DD, M * N), gemmRef(P, A, B, &C), 1e-4, Check);
      report("f32_plain", Ok_, Check);
    }
    const struct {
      const char *Name;
      cublasLtEpilogue_t Epi;
    } Epis[] = {{"f32_bias", CUBLASLT_EPILOGUE_BIAS},
                {"f32_relu_bias", CUBLASLT_EPILOGUE_RELU_BIAS},
                {"f32_gelu_bias", CUBLASLT_EPILOGUE_GELU_BIAS}};
    for (auto &E : Epis) {
      Matmul Q;
      Q.M = M, Q.N = N, Q.K = K, Q.TransA = true, Q.Epilogue = E.Epi, Q.Bias = DBias;
      if (!ran(E.Name, run(Q, DA, DB, DD, DD)))
        continue;
      auto W = gemmRef<float>(Q, A, B, nullptr);
      for (size_t I = 0; I < W.size(); ++I) {
        double V = W[I] + Bias[I % M];
        W[I] = E.Epi == CUBLASLT_EPILOGUE_BIAS        ? V
               : E.Epi == CUBLASLT_EPILOGUE_RELU_BIAS ? (V > 0 ? V : 0)
                                                      : gelu(V);
      }
      bool Ok = compare(download(DD, M * N), W, 1e-3, Check);
      report(E.Name, Ok, Check);
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DD);
    cudaFree(DBias);
  }
  // FP16 data with FP32 compute and a bias (PyTorch's half addmm), C != D.
  {
    auto A = randomOf<__half>(R, M * K), B = randomOf<__half>(R, K * N),
         C = randomOf<__half>(R, M * N), Bias = randomOf<__half>(R, M);
    __half *DA = upload(A), *DB = upload(B), *DC = upload(C), *DBias = upload(Bias), *DD;
    CHECK(cudaMalloc(&DD, M * N * 2));
    Matmul P;
    P.Type = CUDA_R_16F, P.M = M, P.N = N, P.K = K, P.Epilogue = CUBLASLT_EPILOGUE_BIAS,
    P.Bias = DBias, P.Beta = 1.0f;
    if (ran("f16_bias_c_ne_d", run(P, DA, DB, DC, DD))) {
      auto W = gemmRef(P, A, B, &C);
      for (size_t I = 0; I < W.size(); ++I)
        W[I] += toD(Bias[I % M]);
      {
        bool Ok_ = compare(download(DD, M * N), W, 5e-3, Check);
        report("f16_bias_c_ne_d", Ok_, Check);
      }
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DD);
    cudaFree(DBias);
  }
  // BF16, llm.c's fused MLP: forward D = gelu(W^T x + b) keeping the
  // pre-activation in aux (GELU_AUX_BIAS); backward dX = (W dY) * gelu'(aux)
  // (DGELU).
  {
    auto W = randomOf<__nv_bfloat16>(R, K * M), X = randomOf<__nv_bfloat16>(R, K * N),
         Bias = randomOf<__nv_bfloat16>(R, M);
    __nv_bfloat16 *DW = upload(W), *DX = upload(X), *DBias = upload(Bias), *DD, *DAux;
    CHECK(cudaMalloc(&DD, M * N * 2));
    CHECK(cudaMalloc(&DAux, M * N * 2));
    Matmul P;
    P.Type = CUDA_R_16BF, P.M = M, P.N = N, P.K = K, P.TransA = true,
    P.Epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS, P.Bias = DBias, P.Aux = DAux;
    if (ran("bf16_gelu_aux", run(P, DW, DX, DD, DD))) {
      auto Pre = gemmRef<__nv_bfloat16>(P, W, X, nullptr);
      std::vector<double> Out(Pre.size());
      for (size_t I = 0; I < Pre.size(); ++I) {
        Pre[I] += toD(Bias[I % M]);
        Out[I] = gelu(Pre[I]);
      }
      double C2;
      bool Ok = compare(download(DD, M * N), Out, 1.5e-2, Check) &
                compare(download(DAux, M * N), Pre, 1.5e-2, C2);
      report("bf16_gelu_aux", Ok, Check + C2);
    }
    // Backward: dX (M x N) = W2 (M x K2, stored K2 x M, transposed) dY (K2 x N)
    const int K2 = 32;
    auto W2 = randomOf<__nv_bfloat16>(R, K2 * M), DY = randomOf<__nv_bfloat16>(R, K2 * N);
    __nv_bfloat16 *DW2 = upload(W2), *DDY = upload(DY), *DG;
    CHECK(cudaMalloc(&DG, M * N * 2));
    Matmul Q;
    Q.Type = CUDA_R_16BF, Q.M = M, Q.N = N, Q.K = K2, Q.TransA = true,
    Q.Epilogue = CUBLASLT_EPILOGUE_DGELU, Q.Aux = DAux;
    if (ran("bf16_dgelu", run(Q, DW2, DDY, DG, DG))) {
      auto Aux = download(DAux, M * N);
      auto G = gemmRef<__nv_bfloat16>(Q, W2, DY, nullptr);
      for (size_t I = 0; I < G.size(); ++I)
        G[I] *= geluGrad(toD(Aux[I]));
      {
        bool Ok_ = compare(download(DG, M * N), G, 1.5e-2, Check);
        report("bf16_dgelu", Ok_, Check);
      }
    }
    cudaFree(DW);
    cudaFree(DX);
    cudaFree(DBias);
    cudaFree(DD);
    cudaFree(DAux);
    cudaFree(DW2);
    cudaFree(DDY);
    cudaFree(DG);
  }
  // Strided batches in the layouts (attention's batched products), FP32,
  // accumulating into C = D with beta = 1.
  {
    const int Bt = 4, Mb = 32, Nb = 32, Kb = 16;
    auto A = randomOf<float>(R, Mb * Kb * Bt), B = randomOf<float>(R, Kb * Nb * Bt),
         C = randomOf<float>(R, Mb * Nb * Bt);
    float *DA = upload(A), *DB = upload(B), *DC = upload(C);
    Matmul P;
    P.M = Mb, P.N = Nb, P.K = Kb, P.Batch = Bt, P.Alpha = 0.125f, P.Beta = 1.0f;
    if (ran("f32_strided_bat", run(P, DA, DB, DC, DC))) {
      bool Ok_ = compare(download(DC, Mb * Nb * Bt), gemmRef(P, A, B, &C), 1e-4, Check);
      report("f32_strided_bat", Ok_, Check);
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  CUBLAS_CHECK(cublasLtDestroy(Lt));
  CHECK(cudaStreamDestroy(Stream));
  cudaFree(Workspace);
  return finish(Failures == 0);
}
