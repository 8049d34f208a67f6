/// \file
/// cuBLASLt's GELU epilogues and bias gradients as training code chains
/// them (llm.c's MLP, Transformer Engine): GELU_AUX(_BIAS) saves the
/// pre-activation, DGELU / DGELU_BGRAD multiply an incoming gradient
/// product by GELU's derivative at the saved values, BGRADA / BGRADB reduce
/// an input to a bias gradient. Printed per pattern: the status of the
/// heuristic and the matmul, and for results which reading of the epilogue
/// they match, each judged against host references (GELU's tanh form in
/// double, tolerance 1e-4 relative):
///  - GELU_AUX: is the aux the pre-activation (with the bias)? D = GELU(aux)?
///  - DGELU: D = product * GELU'(aux)?
///  - DGELU_BGRAD: is the bias gradient the row sums of D (after the GELU
///    gradient) or of the plain product (before it)?
///  - BGRADA / BGRADB: row sums of A or column sums of B (over K)?
///  - the aux leading dimension's rules (unset, below M, not a multiple of
///    8, a multiple of 8 at or above M), a NULL aux pointer, FP16/BF16 aux;
///  - which transposes BGRADA / BGRADB take (FP32, BF16).
/// Inputs are small integers scaled by 1/8, so the products are exact.
#define LIB_REPORT_WIDTH 22
#include "../common/lib_util.h"
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

static cublasLtHandle_t Lt;
static void *Workspace;
static const size_t WorkspaceSize = 4 << 20;

struct Mm {
  cudaDataType Type = CUDA_R_32F;
  int M = 24, N = 8, K = 16;
  bool TransA = false, TransB = false;
  cublasLtEpilogue_t Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  void *Bias = nullptr;
  void *Aux = nullptr;
  int64_t AuxLd = -1; // -1: not set
  bool SetAux = false; // set the aux pointer attribute even when null
};

static cublasStatus_t Heur;

/// D = epilogue(A B); A is M x K (K x M when TransA), B K x N (N x K).
static cublasStatus_t run(const Mm &P, const void *A, const void *B, void *D) {
  cublasLtMatmulDesc_t Op;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t Ta = P.TransA ? CUBLAS_OP_T : CUBLAS_OP_N, Tb = P.TransB ? CUBLAS_OP_T : CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSA, &Ta, sizeof(Ta)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSB, &Tb, sizeof(Tb)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &P.Epilogue, sizeof(P.Epilogue)));
  if (P.Bias)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &P.Bias, sizeof(P.Bias)));
  if (P.Aux || P.SetAux)
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &P.Aux, sizeof(P.Aux)));
  if (P.AuxLd >= 0)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &P.AuxLd,
                                                sizeof(P.AuxLd)));
  int Ar = P.TransA ? P.K : P.M, Ac = P.TransA ? P.M : P.K;
  int Br = P.TransB ? P.N : P.K, Bc = P.TransB ? P.K : P.N;
  cublasLtMatrixLayout_t La, Lb, Ld;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&La, P.Type, Ar, Ac, Ar));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&Lb, P.Type, Br, Bc, Br));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&Ld, P.Type, P.M, P.N, P.M));
  cublasLtMatmulPreference_t Pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&Pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WorkspaceSize,
                                                    sizeof(WorkspaceSize)));
  cublasLtMatmulHeuristicResult_t Result = {};
  int Found = 0;
  Heur = cublasLtMatmulAlgoGetHeuristic(Lt, Op, La, Lb, Ld, Ld, Pref, 1, &Result, &Found);
  const cublasLtMatmulAlgo_t *Algo = Heur == CUBLAS_STATUS_SUCCESS && Found > 0 ? &Result.algo : nullptr;
  float One = 1, Zero = 0;
  cublasStatus_t St =
      cublasLtMatmul(Lt, Op, &One, A, La, B, Lb, &Zero, D, Ld, D, Ld, Algo, Workspace, WorkspaceSize, 0);
  CHECK(cudaDeviceSynchronize());
  cublasLtMatmulPreferenceDestroy(Pref);
  for (auto L : {La, Lb, Ld})
    cublasLtMatrixLayoutDestroy(L);
  cublasLtMatmulDescDestroy(Op);
  return St;
}

static double gelu(double X) {
  const double C = std::sqrt(2.0 / M_PI);
  return 0.5 * X * (1.0 + std::tanh(C * (X + 0.044715 * X * X * X)));
}
static double geluGrad(double X) {
  const double C = std::sqrt(2.0 / M_PI);
  double U = C * (X + 0.044715 * X * X * X);
  double T = std::tanh(U);
  return 0.5 * (1.0 + T) + 0.5 * X * (1.0 - T * T) * C * (1.0 + 3.0 * 0.044715 * X * X);
}
static bool near(double Got, double Want, double Tol = 1e-4) {
  return std::fabs(Got - Want) <= Tol * std::max(1.0, std::fabs(Want));
}

/// Host product (column-major M x N) of A (M x K) and B (K x N).
static std::vector<double> product(const std::vector<float> &A, const std::vector<float> &B, int M, int N, int K) {
  std::vector<double> P((size_t)M * N, 0.0);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      for (int L = 0; L < K; ++L)
        P[(size_t)J * M + I] += (double)A[(size_t)L * M + I] * B[(size_t)J * K + L];
  return P;
}

static std::vector<float> eighths(Lcg &R, size_t N) {
  std::vector<float> V(N);
  for (float &X : V)
    X = float(int(R.below(17)) - 8) / 8.0f;
  return V;
}

static const char *pick(bool First, bool Second, const char *A, const char *B) {
  return First && Second ? "both" : First ? A : Second ? B : "neither";
}

int main() {
  CUBLAS_CHECK(cublasLtCreate(&Lt));
  CHECK(cudaMalloc(&Workspace, WorkspaceSize));
  Lcg R(2026);
  const int M = 24, N = 8, K = 16;
  std::vector<float> A = eighths(R, (size_t)M * K), B = eighths(R, (size_t)K * N), Bias = eighths(R, M);
  std::vector<double> P = product(A, B, M, N, K);
  float *dA = upload(A), *dB = upload(B), *dBias = upload(Bias);
  float *dD, *dAux, *dGrad;
  CHECK(cudaMalloc(&dD, sizeof(float) * M * N));
  CHECK(cudaMalloc(&dAux, sizeof(float) * 32 * N * 2));
  CHECK(cudaMalloc(&dGrad, sizeof(float) * M));

  // GELU_AUX_BIAS, aux ld = M: the pre-activation and D = GELU of it.
  Mm F;
  F.Epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  F.Bias = dBias;
  F.Aux = dAux;
  F.AuxLd = M;
  cublasStatus_t St = run(F, dA, dB, dD);
  std::printf("gelu_aux_bias ld=M: heuristic %d matmul %d\n", (int)Heur, (int)St);
  std::vector<double> Pre(P);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Pre[(size_t)J * M + I] += Bias[I];
  if (St == CUBLAS_STATUS_SUCCESS) {
    std::vector<float> D = download(dD, (size_t)M * N), Aux = download(dAux, (size_t)M * N);
    bool AuxPre = true, AuxPlain = true, DGelu = true;
    double Sum = 0;
    for (size_t X = 0; X < D.size(); ++X) {
      AuxPre &= Aux[X] == (float)Pre[X];
      AuxPlain &= Aux[X] == (float)P[X];
      DGelu &= near(D[X], gelu(Pre[X]));
      Sum += D[X];
    }
    std::printf("  aux holds: %s\n", pick(AuxPre, AuxPlain, "product+bias", "product"));
    report("gelu_aux_bias D", DGelu, Sum);
  }

  // DGELU over that aux: D = (gradient product) * GELU'(aux).
  std::vector<float> G1 = eighths(R, (size_t)M * K), G2 = eighths(R, (size_t)K * N);
  std::vector<double> GP = product(G1, G2, M, N, K);
  float *dG1 = upload(G1), *dG2 = upload(G2);
  Mm Bk;
  Bk.Epilogue = CUBLASLT_EPILOGUE_DGELU;
  Bk.Aux = dAux;
  Bk.AuxLd = M;
  St = run(Bk, dG1, dG2, dD);
  std::printf("dgelu: heuristic %d matmul %d\n", (int)Heur, (int)St);
  if (St == CUBLAS_STATUS_SUCCESS) {
    std::vector<float> D = download(dD, (size_t)M * N);
    bool Ok = true;
    double Sum = 0;
    for (size_t X = 0; X < D.size(); ++X) {
      Ok &= near(D[X], GP[X] * geluGrad(Pre[X]));
      Sum += D[X];
    }
    report("dgelu D", Ok, Sum);
  }

  // DGELU_BGRAD: the same D, and a bias gradient of M values.
  Bk.Epilogue = CUBLASLT_EPILOGUE_DGELU_BGRAD;
  Bk.Bias = dGrad;
  CHECK(cudaMemset(dGrad, 0, sizeof(float) * M));
  St = run(Bk, dG1, dG2, dD);
  std::printf("dgelu_bgrad: heuristic %d matmul %d\n", (int)Heur, (int)St);
  if (St == CUBLAS_STATUS_SUCCESS) {
    std::vector<float> D = download(dD, (size_t)M * N), Gb = download(dGrad, M);
    bool After = true, Before = true, Ok = true;
    double Sum = 0;
    for (int I = 0; I < M; ++I) {
      double SA = 0, SB = 0;
      for (int J = 0; J < N; ++J) {
        SA += GP[(size_t)J * M + I] * geluGrad(Pre[(size_t)J * M + I]);
        SB += GP[(size_t)J * M + I];
      }
      After &= near(Gb[I], SA);
      Before &= near(Gb[I], SB);
      Sum += Gb[I];
    }
    for (size_t X = 0; X < D.size(); ++X)
      Ok &= near(D[X], GP[X] * geluGrad(Pre[X]));
    std::printf("  bias gradient: %s\n", pick(After, Before, "after GELU'", "before GELU'"));
    report("dgelu_bgrad D", Ok, Sum);
  }

  // BGRADA with op(A) = N and BGRADB with op(B) = T (the forms the H100
  // takes; the others are below).
  for (cublasLtEpilogue_t E : {CUBLASLT_EPILOGUE_BGRADA, CUBLASLT_EPILOGUE_BGRADB}) {
    bool IsA = E == CUBLASLT_EPILOGUE_BGRADA;
    Mm Bg;
    Bg.Epilogue = E;
    Bg.TransA = false;
    Bg.TransB = !IsA;
    float *dBg;
    int Len = IsA ? M : N;
    CHECK(cudaMalloc(&dBg, sizeof(float) * Len));
    CHECK(cudaMemset(dBg, 0, sizeof(float) * Len));
    Bg.Bias = dBg;
    // The stored operands: A is M x K; B is K x N, or N x K for op(B) = T.
    std::vector<float> SA = eighths(R, (size_t)K * M), SB = eighths(R, (size_t)N * K);
    float *dSA = upload(SA), *dSB = upload(SB);
    St = run(Bg, dSA, dSB, dD);
    std::printf("%s: heuristic %d matmul %d\n", IsA ? "bgrada" : "bgradb", (int)Heur, (int)St);
    if (St == CUBLAS_STATUS_SUCCESS) {
      std::vector<float> G = download(dBg, Len);
      // op(A)(i, l) = SA[l * M + i]; op(B)(l, j) = SB[l * N + j].
      bool OverK = true;
      double Sum = 0;
      for (int X = 0; X < Len; ++X) {
        double S = 0;
        for (int L = 0; L < K; ++L)
          S += IsA ? SA[(size_t)L * M + X] : SB[(size_t)L * N + X];
        OverK &= near(G[X], S);
        Sum += G[X];
      }
      report(IsA ? "bgrada sums over K" : "bgradb sums over K", OverK, Sum);
    }
    cudaFree(dSA);
    cudaFree(dSB);
    cudaFree(dBg);
  }

  // The aux leading dimension's rules and a NULL aux.
  struct LdCase {
    const char *Name;
    int64_t Ld;
  } Lds[] = {{"unset", -1}, {"M-8", M - 8}, {"M+1", M + 1}, {"M+4", M + 4}, {"M+8", M + 8}};
  for (cublasLtEpilogue_t E : {CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_DGELU})
    for (const LdCase &C : Lds) {
      Mm X;
      X.Epilogue = E;
      X.Aux = dAux;
      X.AuxLd = C.Ld;
      St = run(X, E == CUBLASLT_EPILOGUE_DGELU ? dG1 : dA, E == CUBLASLT_EPILOGUE_DGELU ? dG2 : dB, dD);
      std::printf("%s aux ld %s: heuristic %d matmul %d\n", E == CUBLASLT_EPILOGUE_DGELU ? "dgelu" : "gelu_aux",
                  C.Name, (int)Heur, (int)St);
    }
  for (cublasLtEpilogue_t E : {CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_DGELU}) {
    Mm X;
    X.Epilogue = E;
    X.SetAux = true;
    X.AuxLd = M;
    St = run(X, dA, dB, dD);
    std::printf("%s null aux: heuristic %d matmul %d\n", E == CUBLASLT_EPILOGUE_DGELU ? "dgelu" : "gelu_aux",
                (int)Heur, (int)St);
  }

  // Which transposes and types the bias-gradient epilogues take (statuses
  // only: the operands' values do not matter here).
  for (cudaDataType T : {CUDA_R_32F, CUDA_R_16BF})
    for (cublasLtEpilogue_t E : {CUBLASLT_EPILOGUE_BGRADA, CUBLASLT_EPILOGUE_BGRADB})
      for (int Tr = 0; Tr < 4; ++Tr) {
        Mm X;
        X.Type = T;
        X.Epilogue = E;
        X.TransA = Tr & 1;
        X.TransB = Tr & 2;
        X.Bias = dGrad;
        St = run(X, dA, dB, dD);
        std::printf("%s %s op(A)=%c op(B)=%c: heuristic %d matmul %d\n", T == CUDA_R_32F ? "fp32" : "bf16",
                    E == CUBLASLT_EPILOGUE_BGRADA ? "bgrada" : "bgradb", X.TransA ? 'T' : 'N', X.TransB ? 'T' : 'N',
                    (int)Heur, (int)St);
      }
  // A 16-bit aux's leading dimension at M+8 (at M+1 the H100's heuristic
  // and matmul accept it and the kernel then faults on a misaligned
  // address, so no odd ld here), and GELU_AUX_BIAS's rules.
  for (cudaDataType T : {CUDA_R_16F, CUDA_R_16BF}) {
    Mm X;
    X.Type = T;
    X.Epilogue = CUBLASLT_EPILOGUE_GELU_AUX;
    X.Aux = dAux;
    X.AuxLd = M + 8;
    St = run(X, dA, dB, dD);
    std::printf("%s gelu_aux aux ld M+8: heuristic %d matmul %d\n", T == CUDA_R_16F ? "fp16" : "bf16", (int)Heur,
                (int)St);
  }
  for (int64_t Ld : {(int64_t)-1, (int64_t)M - 1}) {
    Mm X;
    X.Epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    X.Bias = dBias;
    X.Aux = dAux;
    X.AuxLd = Ld;
    St = run(X, dA, dB, dD);
    std::printf("gelu_aux_bias aux ld %s: heuristic %d matmul %d\n", Ld < 0 ? "unset" : "M-1", (int)Heur, (int)St);
  }

  // Half-precision matmuls: the aux is stored in D's type.
  for (cudaDataType T : {CUDA_R_16F, CUDA_R_16BF}) {
    bool H = T == CUDA_R_16F;
    auto bits16 = [H](const std::vector<float> &V) {
      std::vector<uint16_t> Out(V.size());
      for (size_t X = 0; X < V.size(); ++X) {
        __half_raw Hr = __half(V[X]);
        __nv_bfloat16_raw Br = __nv_bfloat16(V[X]);
        Out[X] = H ? Hr.x : Br.x;
      }
      return Out;
    };
    uint16_t *dAh = upload(bits16(A)), *dBh = upload(bits16(B)), *dDh, *dAuxh;
    CHECK(cudaMalloc(&dDh, 2 * M * N));
    CHECK(cudaMalloc(&dAuxh, 2 * M * N));
    Mm X;
    X.Type = T;
    X.Epilogue = CUBLASLT_EPILOGUE_GELU_AUX;
    X.Aux = dAuxh;
    X.AuxLd = M;
    St = run(X, dAh, dBh, dDh);
    std::printf("%s gelu_aux: heuristic %d matmul %d\n", H ? "fp16" : "bf16", (int)Heur, (int)St);
    if (St == CUBLAS_STATUS_SUCCESS) {
      std::vector<uint16_t> D = download(dDh, (size_t)M * N), Aux = download(dAuxh, (size_t)M * N);
      bool AuxOk = true, DOk = true;
      double Sum = 0;
      for (size_t I = 0; I < D.size(); ++I) {
        __half_raw Hd{D[I]}, Ha{Aux[I]};
        __nv_bfloat16_raw Bd{D[I]}, Ba{Aux[I]};
        float Dv = H ? __half2float(__half(Hd)) : __bfloat162float(__nv_bfloat16(Bd));
        float Av = H ? __half2float(__half(Ha)) : __bfloat162float(__nv_bfloat16(Ba));
        float Pr = H ? __half2float(__float2half((float)P[I])) : __bfloat162float(__float2bfloat16((float)P[I]));
        AuxOk &= Av == Pr;
        DOk &= near(Dv, gelu(P[I]), H ? 2e-3 : 1.6e-2);
        Sum += Dv;
      }
      report(H ? "fp16 aux = product" : "bf16 aux = product", AuxOk, 0);
      report(H ? "fp16 gelu D" : "bf16 gelu D", DOk, Sum);
    }
    cudaFree(dAh);
    cudaFree(dBh);
    cudaFree(dDh);
    cudaFree(dAuxh);
  }

  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dBias);
  cudaFree(dD);
  cudaFree(dAux);
  cudaFree(dGrad);
  cudaFree(dG1);
  cudaFree(dG2);
  cudaFree(Workspace);
  cublasLtDestroy(Lt);
  std::printf("%s\n", Failures ? "FAILED" : "PASSED");
  return Failures ? 1 : 0;
}
