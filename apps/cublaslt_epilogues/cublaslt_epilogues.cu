/// \file
/// cuBLASLt's ReLU bitmask epilogues, row-major layouts and pointer-array
/// batches, as apex's fused MLP and XLA use them:
///  - RELU_AUX and RELU_AUX_BIAS (FP32, FP16, BF16, strided batches): D =
///    relu(product [+ bias]) and a bitmask aux, 1 bit per element of D at bit
///    b * auxStride + col * auxLd + row (auxLd and the batch stride in bits);
///  - DRELU and DRELU_BGRAD over that mask (D = product where the bit is
///    set, and the bias gradient as D's row sums);
///  - CUBLASLT_ORDER_ROW for A, B, C and D, mixed orders, with transposes,
///    BIAS and RELU_AUX epilogues and C distinct from D;
///  - CUBLASLT_BATCH_MODE_POINTER_ARRAY;
///  - the statuses of aux leading dimensions, batch strides and pointers
///    that break NVIDIA's rules (divisible by 128 bits, no less than D's rows,
///    16-byte aligned), and of the tiled order COL32.
/// Inputs are small integers, so every product is exact in every type and
/// the output is compared exactly: bitmask words in hex (the aux buffer is
/// prefilled with 0xA5 bytes, so padding bits show whether they are
/// written), checksums of D, and each pattern's verdict against a CPU
/// reference. A bit of an element whose pre-activation is exactly 0 is not
/// judged (its count is printed: it is what the GPU decides).
#define LIB_REPORT_WIDTH 18
#include "../common/lib_util.h"
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)

/// One matmul's setup. Orders: 0 column, 1 row (ORDER_ROW), else raw.
struct Case {
  cudaDataType Type = CUDA_R_32F;
  int OA = CUBLASLT_ORDER_COL, OB = CUBLASLT_ORDER_COL, OC = CUBLASLT_ORDER_COL,
      OD = CUBLASLT_ORDER_COL;
  bool TransA = false, TransB = false;
  int M = 0, N = 0, K = 0, Batch = 1;
  cublasLtEpilogue_t Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  void *Bias = nullptr;
  void *Aux = nullptr;
  int64_t AuxLd = -1, AuxStride = -1; // -1: attribute not set.
  float Alpha = 1, Beta = 0;
  bool PointerArray = false;
};

static cublasLtHandle_t Lt;
static cudaStream_t Stream;
static void *Workspace;
static const size_t WorkspaceSize = 4 << 20;

static size_t elemSize(cudaDataType T) { return T == CUDA_R_32F ? 4 : 2; }

/// Stored rows/cols of A (M x K after op), B (K x N after op), C/D (M x N).
static void dims(const Case &P, char Which, int &Rows, int &Cols) {
  if (Which == 'A') {
    Rows = P.TransA ? P.K : P.M;
    Cols = P.TransA ? P.M : P.K;
  } else if (Which == 'B') {
    Rows = P.TransB ? P.N : P.K;
    Cols = P.TransB ? P.K : P.N;
  } else {
    Rows = P.M;
    Cols = P.N;
  }
}
static int orderOf(const Case &P, char Which) {
  return Which == 'A' ? P.OA : Which == 'B' ? P.OB : Which == 'C' ? P.OC : P.OD;
}
static int64_t ldOf(const Case &P, char Which) {
  int R, C;
  dims(P, Which, R, C);
  return orderOf(P, Which) == CUBLASLT_ORDER_ROW ? C : R;
}
/// Index of (r, c) of batch b in a matrix stored densely in its order.
static size_t at(const Case &P, char Which, int B, int R, int C) {
  int Rows, Cols;
  dims(P, Which, Rows, Cols);
  size_t Base = (size_t)B * Rows * Cols;
  return Base + (orderOf(P, Which) == CUBLASLT_ORDER_ROW ? (size_t)R * Cols + C
                                                         : (size_t)C * Rows + R);
}

static cublasLtMatrixLayout_t layout(const Case &P, char Which) {
  int R, C;
  dims(P, Which, R, C);
  cublasLtMatrixLayout_t L;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&L, P.Type, R, C, ldOf(P, Which)));
  int32_t Order = orderOf(P, Which);
  CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_ORDER, &Order, 4));
  if (P.Batch > 1) {
    int64_t Stride = (int64_t)R * C;
    CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &P.Batch,
                                                  sizeof(int)));
    CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                  &Stride, sizeof(Stride)));
  }
  if (P.PointerArray) {
    int32_t Mode = CUBLASLT_BATCH_MODE_POINTER_ARRAY;
    CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &Mode, 4));
  }
  return L;
}

/// Runs one matmul; Heur gets the heuristic's status.
static cublasStatus_t run(const Case &P, const void *A, const void *B, const void *C, void *D,
                          cublasStatus_t *Heur = nullptr) {
  cublasLtMatmulDesc_t Op;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t Ta = P.TransA ? CUBLAS_OP_T : CUBLAS_OP_N, Tb = P.TransB ? CUBLAS_OP_T : CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSA, &Ta, sizeof(Ta)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSB, &Tb, sizeof(Tb)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &P.Epilogue,
                                              sizeof(P.Epilogue)));
  if (P.Bias)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &P.Bias,
                                                sizeof(P.Bias)));
  if (P.Bias && P.Batch > 1) {
    int64_t S = P.M;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &S,
                                                sizeof(S)));
  }
  if (P.Aux)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                                &P.Aux, sizeof(P.Aux)));
  if (P.AuxLd >= 0)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                                                &P.AuxLd, sizeof(P.AuxLd)));
  if (P.AuxStride >= 0)
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
                                                &P.AuxStride, sizeof(P.AuxStride)));
  cublasLtMatrixLayout_t La = layout(P, 'A'), Lb = layout(P, 'B'), Lc = layout(P, 'C'),
                         Ld = layout(P, 'D');
  cublasLtMatmulPreference_t Pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&Pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &WorkspaceSize, sizeof(WorkspaceSize)));
  cublasLtMatmulHeuristicResult_t Result = {};
  int Found = 0;
  cublasStatus_t St = cublasLtMatmulAlgoGetHeuristic(Lt, Op, La, Lb, Lc, Ld, Pref, 1, &Result, &Found);
  if (Heur)
    *Heur = St;
  const cublasLtMatmulAlgo_t *Algo = St == CUBLAS_STATUS_SUCCESS && Found > 0 ? &Result.algo : nullptr;
  St = cublasLtMatmul(Lt, Op, &P.Alpha, A, La, B, Lb, &P.Beta, C, Lc, D, Ld, Algo, Workspace,
                      WorkspaceSize, Stream);
  CHECK(cudaStreamSynchronize(Stream));
  cublasLtMatmulPreferenceDestroy(Pref);
  for (auto L : {La, Lb, Lc, Ld})
    cublasLtMatrixLayoutDestroy(L);
  cublasLtMatmulDescDestroy(Op);
  return St;
}

/// Small integers in [-2, 2]: every product and sum is exact.
static std::vector<float> ints(Lcg &R, size_t N, int Lo = -2, int Hi = 2) {
  std::vector<float> V(N);
  for (float &X : V)
    X = float(Lo + (int)R.below(Hi - Lo + 1));
  return V;
}

static void *uploadAs(const std::vector<float> &V, cudaDataType T) {
  std::vector<unsigned char> Bytes(V.size() * elemSize(T));
  for (size_t I = 0; I < V.size(); ++I) {
    if (T == CUDA_R_32F)
      std::memcpy(&Bytes[I * 4], &V[I], 4);
    else if (T == CUDA_R_16F) {
      __half H = __float2half(V[I]);
      std::memcpy(&Bytes[I * 2], &H, 2);
    } else {
      __nv_bfloat16 H = __float2bfloat16(V[I]);
      std::memcpy(&Bytes[I * 2], &H, 2);
    }
  }
  void *P;
  CHECK(cudaMalloc(&P, Bytes.size() + 16));
  CHECK(cudaMemcpy(P, Bytes.data(), Bytes.size(), cudaMemcpyHostToDevice));
  return P;
}

static std::vector<float> downloadAs(const void *P, size_t N, cudaDataType T) {
  std::vector<unsigned char> Bytes(N * elemSize(T));
  CHECK(cudaMemcpy(Bytes.data(), P, Bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I) {
    if (T == CUDA_R_32F)
      std::memcpy(&V[I], &Bytes[I * 4], 4);
    else if (T == CUDA_R_16F) {
      __half H;
      std::memcpy(&H, &Bytes[I * 2], 2);
      V[I] = __half2float(H);
    } else {
      __nv_bfloat16 H;
      std::memcpy(&H, &Bytes[I * 2], 2);
      V[I] = __bfloat162float(H);
    }
  }
  return V;
}

/// alpha op(A) op(B) + beta C (+ bias), per batch, in D's (r, c) order.
static std::vector<double> reference(const Case &P, const std::vector<float> &A,
                                     const std::vector<float> &B, const std::vector<float> *C,
                                     const std::vector<float> *Bias) {
  std::vector<double> Pre((size_t)P.Batch * P.M * P.N);
  for (int Bi = 0; Bi < P.Batch; ++Bi)
    for (int R = 0; R < P.M; ++R)
      for (int Cc = 0; Cc < P.N; ++Cc) {
        double S = 0;
        for (int Q = 0; Q < P.K; ++Q)
          S += (double)A[at(P, 'A', Bi, P.TransA ? Q : R, P.TransA ? R : Q)] *
               B[at(P, 'B', Bi, P.TransB ? Cc : Q, P.TransB ? Q : Cc)];
        S *= P.Alpha;
        if (C && P.Beta != 0)
          S += P.Beta * (*C)[at(P, 'C', Bi, R, Cc)];
        if (Bias)
          S += (*Bias)[(size_t)Bi * P.M + R];
        Pre[((size_t)Bi * P.M + R) * P.N + Cc] = S;
      }
  return Pre;
}

static int maskBit(const std::vector<uint32_t> &Mask, const Case &P, int Bi, int R, int C) {
  int64_t Stride = P.AuxStride > 0 ? P.AuxStride : 0;
  int64_t Bit = Bi * Stride + (int64_t)C * P.AuxLd + R;
  return (Mask[Bit / 32] >> (Bit % 32)) & 1;
}

static void printWords(const char *Name, const std::vector<uint32_t> &W) {
  for (size_t I = 0; I < W.size(); I += 8) {
    std::printf("  %s[%02zu]", Name, I);
    for (size_t J = I; J < I + 8 && J < W.size(); ++J)
      std::printf(" %08x", W[J]);
    std::printf("\n");
  }
}

static double absSum(const std::vector<float> &V) {
  double S = 0;
  for (float X : V)
    S += std::fabs(X);
  return S;
}

/// A ReLU-aux forward pass: checks D against relu(pre) and every bit of
/// a nonzero pre-activation; prints the mask words. Returns the mask.
static std::vector<uint32_t> reluAux(const char *Name, Case P, Lcg &R, bool WithBias,
                                     bool JudgeBits = true) {
  size_t Ne = (size_t)P.M * P.N * P.Batch;
  auto A = ints(R, (size_t)P.M * P.K * P.Batch), B = ints(R, (size_t)P.K * P.N * P.Batch);
  auto Bias = ints(R, (size_t)P.M * P.Batch, -1, 1);
  void *DA = uploadAs(A, P.Type), *DB = uploadAs(B, P.Type), *DD, *DBias = nullptr;
  CHECK(cudaMalloc(&DD, Ne * elemSize(P.Type)));
  if (WithBias)
    DBias = uploadAs(Bias, P.Type);
  int64_t Stride = P.AuxStride > 0 ? P.AuxStride : 0;
  size_t Words = (size_t)((P.Batch - 1) * Stride + P.AuxLd * P.N + 31) / 32;
  Words = (Words + 3) / 4 * 4;
  CHECK(cudaMalloc(&P.Aux, Words * 4));
  CHECK(cudaMemset(P.Aux, 0xa5, Words * 4));
  P.Bias = DBias;
  std::vector<uint32_t> Mask;
  cublasStatus_t St = run(P, DA, DB, DD, DD);
  if (St != CUBLAS_STATUS_SUCCESS) {
    std::printf("%-18s status %d\n", Name, (int)St); // Recorded, not judged.
  } else {
    auto D = downloadAs(DD, Ne, P.Type);
    Mask = download(static_cast<uint32_t *>(P.Aux), Words);
    auto Pre = reference(P, A, B, nullptr, WithBias ? &Bias : nullptr);
    bool Ok = true;
    int Zeros = 0, ZeroSet = 0;
    for (int Bi = 0; Bi < P.Batch; ++Bi)
      for (int Rr = 0; Rr < P.M; ++Rr)
        for (int C = 0; C < P.N; ++C) {
          double V = Pre[((size_t)Bi * P.M + Rr) * P.N + C];
          Ok &= D[at(P, 'D', Bi, Rr, C)] == (V > 0 ? V : 0);
          int Bit = maskBit(Mask, P, Bi, Rr, C);
          if (V == 0) {
            ++Zeros;
            ZeroSet += Bit;
          } else if (JudgeBits) {
            Ok &= Bit == (V > 0);
          }
        }
    report(Name, Ok, absSum(D));
    std::printf("  zero pre-activations %d, their bits set %d\n", Zeros, ZeroSet);
    printWords("aux", Mask);
  }
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DD);
  cudaFree(DBias);
  cudaFree(P.Aux);
  return Mask;
}

/// DRELU(_BGRAD) over a mask: D = product where the bit is set, and the
/// bias gradient as D's row sums.
static void drelu(const char *Name, Case P, Lcg &R, const std::vector<uint32_t> &Mask, bool BGrad) {
  size_t Ne = (size_t)P.M * P.N * P.Batch;
  auto A = ints(R, (size_t)P.M * P.K), B = ints(R, (size_t)P.K * P.N);
  void *DA = uploadAs(A, P.Type), *DB = uploadAs(B, P.Type), *DD, *DBias = nullptr;
  CHECK(cudaMalloc(&DD, Ne * elemSize(P.Type)));
  P.Aux = upload(Mask);
  if (BGrad) {
    CHECK(cudaMalloc(&DBias, P.M * elemSize(P.Type)));
    CHECK(cudaMemset(DBias, 0, P.M * elemSize(P.Type)));
    P.Bias = DBias;
  }
  cublasStatus_t St = run(P, DA, DB, DD, DD);
  if (St != CUBLAS_STATUS_SUCCESS) {
    std::printf("%-18s status %d\n", Name, (int)St); // Recorded, not judged.
  } else {
    auto D = downloadAs(DD, Ne, P.Type);
    auto Prod = reference(P, A, B, nullptr, nullptr);
    bool Ok = true;
    std::vector<double> Grad(P.M, 0.0);
    for (int Rr = 0; Rr < P.M; ++Rr)
      for (int C = 0; C < P.N; ++C) {
        double Want = maskBit(Mask, P, 0, Rr, C) ? Prod[(size_t)Rr * P.N + C] : 0.0;
        Ok &= D[at(P, 'D', 0, Rr, C)] == Want;
        Grad[Rr] += Want;
      }
    double GradCheck = 0;
    if (BGrad) {
      auto G = downloadAs(DBias, P.M, P.Type);
      for (int Rr = 0; Rr < P.M; ++Rr)
        Ok &= G[Rr] == Grad[Rr];
      GradCheck = absSum(G);
    }
    report(Name, Ok, absSum(D) + GradCheck);
  }
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DD);
  cudaFree(DBias);
  cudaFree(P.Aux);
}

/// A plain or BIAS matmul with any orders, C distinct from D (beta).
static void ordered(const char *Name, Case P, Lcg &R, bool WithBias) {
  size_t Ne = (size_t)P.M * P.N * P.Batch;
  auto A = ints(R, (size_t)P.M * P.K * P.Batch), B = ints(R, (size_t)P.K * P.N * P.Batch),
       C = ints(R, Ne), Bias = ints(R, (size_t)P.M * P.Batch, -1, 1);
  void *DA = uploadAs(A, P.Type), *DB = uploadAs(B, P.Type), *DC = uploadAs(C, P.Type), *DD;
  CHECK(cudaMalloc(&DD, Ne * elemSize(P.Type)));
  if (WithBias)
    P.Bias = uploadAs(Bias, P.Type);
  cublasStatus_t St = run(P, DA, DB, DC, DD);
  if (St != CUBLAS_STATUS_SUCCESS) {
    std::printf("%-18s status %d\n", Name, (int)St); // Recorded, not judged.
  } else {
    auto D = downloadAs(DD, Ne, P.Type);
    auto Pre = reference(P, A, B, &C, WithBias ? &Bias : nullptr);
    bool Ok = true;
    for (int Bi = 0; Bi < P.Batch; ++Bi)
      for (int Rr = 0; Rr < P.M; ++Rr)
        for (int Cc = 0; Cc < P.N; ++Cc)
          Ok &= D[at(P, 'D', Bi, Rr, Cc)] == Pre[((size_t)Bi * P.M + Rr) * P.N + Cc];
    report(Name, Ok, absSum(D));
  }
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DD);
  cudaFree(P.Bias);
}

/// Pointer-array batches: A, B, C, D are device arrays of Batch pointers.
static void pointerArray(const char *Name, Lcg &R) {
  Case P;
  P.M = 8, P.N = 6, P.K = 4, P.Batch = 3, P.PointerArray = true, P.Alpha = 2, P.Beta = 1;
  size_t Sa = P.M * P.K, Sb = P.K * P.N, Sc = P.M * P.N;
  auto A = ints(R, Sa * P.Batch), B = ints(R, Sb * P.Batch), C = ints(R, Sc * P.Batch);
  float *DA = upload(A), *DB = upload(B), *DC = upload(C), *DD;
  CHECK(cudaMalloc(&DD, Sc * P.Batch * 4));
  std::vector<const float *> PA, PB, PC;
  std::vector<float *> PD;
  for (int I = 0; I < P.Batch; ++I) {
    // Batches in reverse order, so an array read as strided would differ.
    int J = P.Batch - 1 - I;
    PA.push_back(DA + J * Sa);
    PB.push_back(DB + J * Sb);
    PC.push_back(DC + J * Sc);
    PD.push_back(DD + J * Sc);
  }
  auto *XA = upload(PA), *XB = upload(PB), *XC = upload(PC);
  auto *XD = upload(PD);
  cublasStatus_t Heur;
  cublasStatus_t St = run(P, XA, XB, XC, XD, &Heur);
  std::printf("%-18s heuristic %d matmul %d\n", Name, (int)Heur, (int)St);
  if (St == CUBLAS_STATUS_SUCCESS) {
    auto D = download(DD, Sc * P.Batch);
    Case Q = P;
    Q.PointerArray = false;
    auto Pre = reference(Q, A, B, &C, nullptr);
    bool Ok = true;
    for (int Bi = 0; Bi < P.Batch; ++Bi)
      for (int Rr = 0; Rr < P.M; ++Rr)
        for (int Cc = 0; Cc < P.N; ++Cc)
          Ok &= D[at(Q, 'D', Bi, Rr, Cc)] == Pre[((size_t)Bi * P.M + Rr) * P.N + Cc];
    report(Name, Ok, absSum(D));
  }
  for (void *X : {(void *)DA, (void *)DB, (void *)DC, (void *)DD, (void *)XA, (void *)XB,
                  (void *)XC, (void *)XD})
    cudaFree(X);
}

/// The statuses of one RELU_AUX setup (heuristic, then matmul).
static void statusCase(const char *Name, Case P, int AuxOffset, bool NullAux = false) {
  size_t Ne = (size_t)P.M * P.N * P.Batch;
  std::vector<float> Zero((size_t)P.M * P.K * P.Batch + P.K * P.N * P.Batch, 1.0f);
  void *DA = uploadAs(Zero, P.Type), *DB = DA, *DD, *Aux;
  CHECK(cudaMalloc(&DD, Ne * elemSize(P.Type)));
  CHECK(cudaMalloc(&Aux, 1 << 16));
  P.Aux = NullAux ? nullptr : static_cast<char *>(Aux) + AuxOffset;
  cublasStatus_t Heur;
  cublasStatus_t St = run(P, DA, DB, DD, DD, &Heur);
  std::printf("%-18s heuristic %d matmul %d\n", Name, (int)Heur, (int)St);
  cudaFree(DA);
  cudaFree(DD);
  cudaFree(Aux);
}

int main() {
  Lcg R(16);
  CUBLAS_CHECK(cublasLtCreate(&Lt));
  CHECK(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&Workspace, WorkspaceSize));

  // ReLU with its bitmask: 100 rows in an aux of 128-bit columns (28
  // padding bits each).
  Case F;
  F.M = 100, F.N = 3, F.K = 4, F.Epilogue = CUBLASLT_EPILOGUE_RELU_AUX, F.AuxLd = 128;
  auto Mask = reluAux("f32_relu_aux", F, R, false);
  Case FB = F;
  FB.Epilogue = CUBLASLT_EPILOGUE_RELU_AUX_BIAS, FB.Batch = 2, FB.AuxStride = 512;
  reluAux("f32_relu_aux_bias_b2", FB, R, true);
  Case H = F;
  H.Type = CUDA_R_16F, H.M = 64, H.N = 5, H.K = 8, H.AuxLd = 256,
  H.Epilogue = CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  reluAux("f16_relu_aux_bias", H, R, true);
  Case BF = H;
  BF.Type = CUDA_R_16BF, BF.M = 130, BF.N = 2, BF.K = 6, BF.AuxLd = 256, BF.TransA = true;
  reluAux("bf16_relu_aux_bias_t", BF, R, true);

  // The backward pass over the forward mask.
  if (!Mask.empty()) {
    Case D = F;
    D.Epilogue = CUBLASLT_EPILOGUE_DRELU, D.K = 5;
    drelu("f32_drelu", D, R, Mask, false);
    D.Epilogue = CUBLASLT_EPILOGUE_DRELU_BGRAD;
    drelu("f32_drelu_bgrad", D, R, Mask, true);
    Case DH = D;
    DH.Type = CUDA_R_16F;
    drelu("f16_drelu_bgrad", DH, R, Mask, true);
  }

  // Row-major layouts (CUBLASLT_ORDER_ROW): all row, mixed, transposed,
  // with an epilogue and C distinct from D.
  const int Row = CUBLASLT_ORDER_ROW, Col = CUBLASLT_ORDER_COL;
  Case O;
  O.M = 7, O.N = 5, O.K = 6, O.Alpha = 2, O.Beta = -1;
  O.OA = O.OB = O.OC = O.OD = Row;
  ordered("row_all", O, R, false);
  O.OA = Row, O.OB = Col, O.OC = O.OD = Col;
  ordered("row_a_only", O, R, false);
  O.OA = Col, O.OB = Row, O.OC = Row, O.OD = Row, O.TransA = true;
  ordered("row_bcd_ta", O, R, false);
  O.OA = O.OB = O.OC = O.OD = Row, O.TransA = false, O.TransB = true;
  O.Epilogue = CUBLASLT_EPILOGUE_BIAS;
  ordered("row_all_tb_bias", O, R, true);
  O.Type = CUDA_R_16F, O.Batch = 2, O.TransB = false, O.Epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
  ordered("row_f16_relu_bias_b2", O, R, true);
  O.Type = CUDA_R_32F, O.Batch = 1, O.OC = Col;
  O.Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  ordered("row_d_col_c", O, R, false);
  {
    Case RA = F;
    RA.OA = RA.OB = RA.OC = RA.OD = Row;
    reluAux("row_relu_aux", RA, R, false, false); // Bit order not documented.
  }

  // Pointer-array batches.
  pointerArray("f32_pointer_array", R);

  // Statuses of aux setups against NVIDIA's rules, and a tiled order.
  Case S = F;
  S.AuxLd = 100;
  statusCase("auxld_100", S, 0);
  S.AuxLd = 64;
  statusCase("auxld_64_lt_m", S, 0);
  S.AuxLd = 256;
  statusCase("auxld_256", S, 0);
  S.AuxLd = 200;
  statusCase("auxld_200", S, 0);
  S.AuxLd = -1;
  statusCase("auxld_unset", S, 0);
  S.AuxLd = 128;
  statusCase("aux_ptr_plus4", S, 4);
  statusCase("aux_ptr_plus8", S, 8);
  statusCase("aux_ptr_plus16", S, 16);
  statusCase("aux_null", S, 0, true);
  S.Batch = 2, S.AuxStride = 448;
  statusCase("aux_stride_448", S, 0);
  S.AuxStride = 384;
  statusCase("aux_stride_384", S, 0);
  S.AuxStride = 128;
  statusCase("aux_stride_128_ovl", S, 0);
  S.Batch = 1, S.AuxStride = -1, S.Epilogue = CUBLASLT_EPILOGUE_DRELU, S.AuxLd = 100;
  statusCase("drelu_auxld_100", S, 0);
  S.AuxLd = 128;
  statusCase("drelu_ptr_plus4", S, 4);
  Case T = F;
  T.Epilogue = CUBLASLT_EPILOGUE_DEFAULT, T.AuxLd = -1;
  T.OA = T.OB = T.OC = T.OD = CUBLASLT_ORDER_COL32;
  statusCase("order_col32", T, 0);

  CUBLAS_CHECK(cublasLtDestroy(Lt));
  CHECK(cudaStreamDestroy(Stream));
  cudaFree(Workspace);
  return finish(Failures == 0);
}
