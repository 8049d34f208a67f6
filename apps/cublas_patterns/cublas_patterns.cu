/// \file
/// The ways real programs weave cuBLAS into their own CUDA work: one handle
/// moved between two streams ordered by an event; alpha and beta in device
/// memory written by the program's own kernel (pointer mode device); a user
/// workspace and a GEMM captured with the program's kernels into a CUDA
/// graph that is replayed on fresh inputs; Set/GetMatrix on sub-blocks and
/// their async forms; kernels, GEMM and GEMV interleaved on one stream with
/// no synchronization between them; and one handle per host thread. Each
/// result is checked against a CPU reference in double; the program prints
/// verdicts and checksums (sums of magnitudes) the matrix compares with a
/// tolerance.
#include "../common/lib_util.h"
#include <cublas_v2.h>
#include <thread>
#include <vector>

#define CUBLAS_CHECK(Call) LIB_CHECK("cuBLAS", Call)
static std::vector<float> random(Lcg &R, size_t N) {
  std::vector<float> V(N);
  for (float &X : V)
    X = R.range(-1, 1);
  return V;
}

/// C = alpha A B + beta C in double, all column-major M x K, K x N, M x N.
static std::vector<double> gemmRef(const std::vector<double> &A, const std::vector<double> &B,
                                   const std::vector<double> &C, int M, int N, int K, double Al,
                                   double Be) {
  std::vector<double> D((size_t)M * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int P = 0; P < K; ++P)
        S += A[(size_t)P * M + I] * B[(size_t)J * K + P];
      D[(size_t)J * M + I] = Al * S + (Be != 0 ? Be * C[(size_t)J * M + I] : 0);
    }
  return D;
}
static std::vector<double> toD(const std::vector<float> &V) {
  return std::vector<double>(V.begin(), V.end());
}

static bool compare(const std::vector<float> &Got, const std::vector<double> &Want, double Tol,
                    double &Check) {
  bool Ok = Got.size() == Want.size();
  Check = 0;
  for (size_t I = 0; I < Got.size() && Ok; ++I) {
    Ok &= closeTo(Got[I], Want[I], Tol, Tol);
    Check += std::fabs(Got[I]);
  }
  return Ok;
}

__global__ void setScalars(float *P, float Alpha, float Beta) {
  P[0] = Alpha;
  P[1] = Beta;
}
__global__ void scale(float *X, float F, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] *= F;
}
/// Adds a per-row bias and applies ReLU: what follows a GEMM in an MLP.
__global__ void biasRelu(float *C, const float *Bias, int M, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < M * N) {
    float V = C[I] + Bias[I % M];
    C[I] = V > 0 ? V : 0;
  }
}

int main() {
  const int M = 64, N = 48, K = 32;
  Lcg R(57);
  cublasHandle_t H;
  CUBLAS_CHECK(cublasCreate(&H));
  int Version = 0;
  CUBLAS_CHECK(cublasGetVersion(H, &Version));
  std::printf("cublas major version %d\n", Version / 10000);
  double Check;
  auto A = random(R, M * K), B = random(R, K * N), C = random(R, M * N);

  // 1. One handle, two streams: GEMM on s1, then on s2 a GEMM that reads
  // s1's result after waiting on an event.
  {
    cudaStream_t S1, S2;
    cudaEvent_t E;
    CHECK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&E, cudaEventDisableTiming));
    auto Sq = random(R, M * M);
    float *DA = upload(A), *DB = upload(B), *DC, *DSq = upload(Sq), *DD;
    CHECK(cudaMalloc(&DC, M * N * 4));
    CHECK(cudaMalloc(&DD, M * N * 4));
    float One = 1, Zero = 0;
    CUBLAS_CHECK(cublasSetStream(H, S1));
    CUBLAS_CHECK(
        cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
    CHECK(cudaEventRecord(E, S1));
    CHECK(cudaStreamWaitEvent(S2, E, 0));
    CUBLAS_CHECK(cublasSetStream(H, S2));
    CUBLAS_CHECK(
        cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, M, &One, DSq, M, DC, M, &Zero, DD, M));
    CHECK(cudaStreamSynchronize(S2));
    auto C1 = gemmRef(toD(A), toD(B), {}, M, N, K, 1, 0);
    auto D = gemmRef(toD(Sq), C1, {}, M, N, M, 1, 0);
    {
      bool Ok_ = compare(download(DD, M * N), D, 1e-4, Check);
      report("two_streams", Ok_, Check);
    }
    CUBLAS_CHECK(cublasSetStream(H, 0));
    CHECK(cudaStreamDestroy(S1));
    CHECK(cudaStreamDestroy(S2));
    CHECK(cudaEventDestroy(E));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DSq);
    cudaFree(DD);
  }
  // 2. Pointer mode device: alpha and beta written by a kernel just before
  // the GEMM, on the same stream, read by cuBLAS in stream order.
  {
    float *DA = upload(A), *DB = upload(B), *DC = upload(C), *Scalars;
    CHECK(cudaMalloc(&Scalars, 2 * sizeof(float)));
    setScalars<<<1, 1>>>(Scalars, 1.0f, 0.0f);
    CUBLAS_CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE));
    setScalars<<<1, 1>>>(Scalars, 0.5f, -2.0f);
    CUBLAS_CHECK(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, Scalars, DA, M, DB, K,
                             Scalars + 1, DC, M));
    CUBLAS_CHECK(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST));
    auto W = gemmRef(toD(A), toD(B), toD(C), M, N, K, 0.5, -2.0);
    {
      bool Ok_ = compare(download(DC, M * N), W, 1e-4, Check);
      report("ptrmode_dev", Ok_, Check);
    }
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(Scalars);
  }
  // 3. A user workspace, then scale kernel + GEMM + bias/ReLU kernel
  // captured into a graph, replayed three times on new inputs.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
    void *Ws;
    const size_t WsSize = 4 << 20;
    CHECK(cudaMalloc(&Ws, WsSize));
    CUBLAS_CHECK(cublasSetStream(H, S));
    CUBLAS_CHECK(cublasSetWorkspace(H, Ws, WsSize));
    auto Bias = random(R, M);
    float *DA, *DB = upload(B), *DC, *DBias = upload(Bias);
    CHECK(cudaMalloc(&DA, M * K * 4));
    CHECK(cudaMalloc(&DC, M * N * 4));
    float One = 1, Zero = 0;
    cudaGraph_t G;
    cudaGraphExec_t Exec;
    CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeThreadLocal));
    scale<<<(M * K + 127) / 128, 128, 0, S>>>(DA, 2.0f, M * K);
    CUBLAS_CHECK(
        cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
    biasRelu<<<(M * N + 127) / 128, 128, 0, S>>>(DC, DBias, M, N);
    CHECK(cudaStreamEndCapture(S, &G));
    CHECK(cudaGraphInstantiate(&Exec, G, 0));
    bool Ok = true;
    double Sum = 0;
    for (int Round = 0; Round < 3; ++Round) {
      auto In = random(R, M * K);
      CHECK(cudaMemcpyAsync(DA, In.data(), M * K * 4, cudaMemcpyHostToDevice, S));
      CHECK(cudaGraphLaunch(Exec, S));
      CHECK(cudaStreamSynchronize(S));
      for (float &V : In)
        V *= 2;
      auto W = gemmRef(toD(In), toD(B), {}, M, N, K, 1, 0);
      for (size_t I = 0; I < W.size(); ++I) {
        W[I] += Bias[I % M];
        W[I] = W[I] > 0 ? W[I] : 0;
      }
      Ok &= compare(download(DC, M * N), W, 1e-4, Check);
      Sum += Check;
    }
    report("graph_capture", Ok, Sum);
    CHECK(cudaGraphExecDestroy(Exec));
    CHECK(cudaGraphDestroy(G));
    CUBLAS_CHECK(cublasSetStream(H, 0));
    CUBLAS_CHECK(cublasSetWorkspace(H, nullptr, 0));
    CHECK(cudaStreamDestroy(S));
    cudaFree(Ws);
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DBias);
  }
  // 4. Set/GetMatrix on sub-blocks: a 20 x 12 block of a 50-row host array
  // into a 32-row device array, and back into a 24-row one; then the async
  // forms on a stream and Set/GetVector with a host stride.
  {
    const int Rw = 20, Cl = 12, Lh = 50, Ld = 32, Lo = 24;
    auto Host = random(R, Lh * Cl);
    float *D;
    CHECK(cudaMalloc(&D, Ld * Cl * 4));
    CHECK(cudaMemset(D, 0, Ld * Cl * 4));
    CUBLAS_CHECK(cublasSetMatrix(Rw, Cl, sizeof(float), Host.data() + 5, Lh, D, Ld));
    std::vector<float> Out(Lo * Cl, -7.0f);
    CUBLAS_CHECK(cublasGetMatrix(Rw, Cl, sizeof(float), D, Ld, Out.data(), Lo));
    bool Ok = true;
    double Sum = 0;
    for (int J = 0; J < Cl; ++J)
      for (int I = 0; I < Lo; ++I) {
        Ok &= Out[J * Lo + I] == (I < Rw ? Host[J * Lh + 5 + I] : -7.0f);
        Sum += std::fabs(Out[J * Lo + I]);
      }
    auto Dev = download(D, Ld * Cl); // rows past Rw untouched (zero)
    for (int J = 0; J < Cl; ++J)
      for (int I = Rw; I < Ld; ++I)
        Ok &= Dev[J * Ld + I] == 0.0f;
    report("set_get_matrix", Ok, Sum);
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    float *Pin;
    CHECK(cudaMallocHost(&Pin, Lo * Cl * 4));
    CUBLAS_CHECK(cublasSetMatrixAsync(Rw, Cl, sizeof(float), Host.data(), Lh, D, Ld, S));
    scale<<<(Ld * Cl + 127) / 128, 128, 0, S>>>(D, -1.0f, Ld * Cl);
    CUBLAS_CHECK(cublasGetMatrixAsync(Rw, Cl, sizeof(float), D, Ld, Pin, Lo, S));
    CHECK(cudaStreamSynchronize(S));
    Ok = true;
    Sum = 0;
    for (int J = 0; J < Cl; ++J)
      for (int I = 0; I < Rw; ++I) {
        Ok &= Pin[J * Lo + I] == -Host[J * Lh + I];
        Sum += std::fabs(Pin[J * Lo + I]);
      }
    report("matrix_async", Ok, Sum);
    std::vector<float> Vec(40, 0.0f);
    CUBLAS_CHECK(cublasSetVector(20, sizeof(float), Host.data(), 3, D, 1));
    CUBLAS_CHECK(cublasGetVector(20, sizeof(float), D, 1, Vec.data(), 2));
    Ok = true;
    Sum = 0;
    for (int I = 0; I < 20; ++I) {
      Ok &= Vec[2 * I] == Host[3 * I] && Vec[2 * I + 1] == 0.0f;
      Sum += std::fabs(Vec[2 * I]);
    }
    report("set_get_vector", Ok, Sum);
    CHECK(cudaFreeHost(Pin));
    CHECK(cudaStreamDestroy(S));
    cudaFree(D);
  }
  // 5. The program's kernels and cuBLAS on one stream, no sync between:
  // scale kernel -> SGEMM -> bias/ReLU kernel -> SGEMV -> scale kernel.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    CUBLAS_CHECK(cublasSetStream(H, S));
    auto Bias = random(R, M), X = random(R, N);
    float *DA = upload(A), *DB = upload(B), *DC, *DBias = upload(Bias), *DX = upload(X), *DY;
    CHECK(cudaMalloc(&DC, M * N * 4));
    CHECK(cudaMalloc(&DY, M * 4));
    float One = 1, Zero = 0;
    scale<<<(K * N + 127) / 128, 128, 0, S>>>(DB, 0.5f, K * N);
    CUBLAS_CHECK(
        cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, DB, K, &Zero, DC, M));
    biasRelu<<<(M * N + 127) / 128, 128, 0, S>>>(DC, DBias, M, N);
    CUBLAS_CHECK(cublasSgemv(H, CUBLAS_OP_N, M, N, &One, DC, M, DX, 1, &Zero, DY, 1));
    scale<<<1, M, 0, S>>>(DY, 3.0f, M);
    std::vector<float> Y(M);
    CHECK(cudaMemcpyAsync(Y.data(), DY, M * 4, cudaMemcpyDeviceToHost, S));
    CHECK(cudaStreamSynchronize(S));
    auto Bd = toD(B);
    for (double &V : Bd)
      V *= 0.5;
    auto Cw = gemmRef(toD(A), Bd, {}, M, N, K, 1, 0);
    for (size_t I = 0; I < Cw.size(); ++I) {
      Cw[I] += Bias[I % M];
      Cw[I] = Cw[I] > 0 ? Cw[I] : 0;
    }
    auto Yw = gemmRef(Cw, toD(X), {}, M, 1, N, 3.0, 0);
    {
      bool Ok_ = compare(Y, Yw, 1e-4, Check);
      report("mixed_stream", Ok_, Check);
    }
    CUBLAS_CHECK(cublasSetStream(H, 0));
    CHECK(cudaStreamDestroy(S));
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
    cudaFree(DBias);
    cudaFree(DX);
    cudaFree(DY);
  }
  // 6. One handle per host thread (4 threads at once), each on its own
  // stream, each checking its own SGEMMs.
  {
    const int T = 4;
    std::vector<int> Bad(T, 0);
    std::vector<double> Sums(T, 0);
    std::vector<std::vector<float>> As(T);
    for (int I = 0; I < T; ++I)
      As[I] = random(R, M * K);
    std::vector<std::thread> Ts;
    for (int I = 0; I < T; ++I)
      Ts.emplace_back([&, I] {
        cublasHandle_t Ht;
        cudaStream_t S;
        if (cublasCreate(&Ht) != CUBLAS_STATUS_SUCCESS || cudaStreamCreate(&S) != cudaSuccess) {
          Bad[I] = 1;
          return;
        }
        cublasSetStream(Ht, S);
        float *DA = upload(As[I]), *DB = upload(B), *DC;
        cudaMalloc(&DC, M * N * 4);
        auto W = gemmRef(toD(As[I]), toD(B), {}, M, N, K, 1.0 + I, 0);
        for (int Rep = 0; Rep < 5; ++Rep) {
          float Al = 1.0f + I, Zero = 0;
          cublasSgemm(Ht, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, DA, M, DB, K, &Zero, DC, M);
          std::vector<float> G(M * N);
          cudaMemcpyAsync(G.data(), DC, M * N * 4, cudaMemcpyDeviceToHost, S);
          cudaStreamSynchronize(S);
          double C1;
          Bad[I] += !compare(G, W, 1e-4, C1);
          Sums[I] += C1;
        }
        cudaFree(DA);
        cudaFree(DB);
        cudaFree(DC);
        cublasDestroy(Ht);
        cudaStreamDestroy(S);
      });
    for (auto &Th : Ts)
      Th.join();
    int AllBad = 0;
    double Sum = 0;
    for (int I = 0; I < T; ++I) {
      AllBad += Bad[I];
      Sum += Sums[I];
    }
    report("handle_per_thr", AllBad == 0, Sum);
  }
  CUBLAS_CHECK(cublasDestroy(H));
  return finish(Failures == 0);
}
