/// \file
/// GEMM through the cuBLAS API against the CPU BLAS called directly, in one
/// process on the same buffers: under ferry (`ferry run`), cublasSgemm/
/// cublasDgemm run OpenBLAS inside a stream-ordered host function, so the
/// ratio is the cost of the cuBLAS layer (goal: >= 90%, issue 16). HGEMM
/// and BF16 GemmEx (FP32 compute) figures are printed beside them; they have
/// no CPU BLAS counterpart. Each figure is the best of several runs, the two
/// sides taking turns. Built by nvcc, linked with -lcublas and OpenBLAS.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                            float *, int);
extern "C" void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                            double *, int);

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Best seconds of Reps calls of Fn (each followed by a device sync).
template <typename F> static double best(int Reps, F &&Fn) {
  double B = 1e30;
  for (int R = 0; R < Reps; ++R) {
    double T0 = now();
    Fn();
    cudaDeviceSynchronize();
    B = std::min(B, now() - T0);
  }
  return B;
}

int main(int Argc, char **Argv) {
  int MaxN = Argc > 1 ? std::atoi(Argv[1]) : 4096;
  cublasHandle_t H;
  if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  std::printf("| n | SGEMM cuBLAS | SGEMM OpenBLAS | ratio | DGEMM cuBLAS | DGEMM OpenBLAS | ratio | HGEMM | BF16 GemmEx |\n");
  std::printf("|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int N = 256; N <= MaxN; N *= 2) {
    size_t E = (size_t)N * N;
    float *A, *B, *C;
    double *Ad, *Bd, *Cd;
    void *Ah, *Bh, *Ch;
    cudaMalloc(&A, E * 4);
    cudaMalloc(&B, E * 4);
    cudaMalloc(&C, E * 4);
    cudaMalloc(&Ad, E * 8);
    cudaMalloc(&Bd, E * 8);
    cudaMalloc(&Cd, E * 8);
    cudaMalloc(&Ah, E * 2);
    cudaMalloc(&Bh, E * 2);
    cudaMalloc(&Ch, E * 2);
    std::vector<float> Init(E);
    for (size_t I = 0; I < E; ++I)
      Init[I] = (float)((I * 2654435761u) % 1000) / 1000.0f - 0.5f;
    std::vector<double> InitD(Init.begin(), Init.end());
    cudaMemcpy(A, Init.data(), E * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, Init.data(), E * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(Ad, InitD.data(), E * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(Bd, InitD.data(), E * 8, cudaMemcpyHostToDevice);
    cudaMemset(Ah, 0x3c, E * 2); // 1.0078 in FP16 and in BF16, bit for bit enough
    cudaMemset(Bh, 0x3c, E * 2);
    float One = 1, Zero = 0;
    double DOne = 1, DZero = 0;
    __half HOne, HZero;
    unsigned short HOneBits = 0x3c00, HZeroBits = 0;
    std::memcpy(&HOne, &HOneBits, 2);
    std::memcpy(&HZero, &HZeroBits, 2);
    int Reps = N <= 512 ? 10 : N <= 1024 ? 5 : N <= 2048 ? 3 : 2;
    double Ts = 1e30, Tsd = 1e30, Td = 1e30, Tdd = 1e30;
    // The two sides take turns, so both see the machine in the same state.
    for (int Round = 0; Round < 2; ++Round) {
      Ts = std::min(Ts, best(Reps, [&] { cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, A, N, B, N, &Zero, C, N); }));
      Tsd = std::min(Tsd, best(Reps, [&] { cblas_sgemm(102, 111, 111, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N); }));
      Td = std::min(Td, best(Reps, [&] { cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &DOne, Ad, N, Bd, N, &DZero, Cd, N); }));
      Tdd = std::min(Tdd, best(Reps, [&] { cblas_dgemm(102, 111, 111, N, N, N, 1.0, Ad, N, Bd, N, 0.0, Cd, N); }));
    }
    int HReps = N <= 1024 ? 2 : 1;
    double Th = N <= 2048 ? best(HReps, [&] {
      cublasHgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &HOne, (__half *)Ah, N, (__half *)Bh, N, &HZero, (__half *)Ch, N);
    }) : 0;
    double Tb = N <= 2048 ? best(HReps, [&] {
      cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, Ah, CUDA_R_16BF, N, Bh, CUDA_R_16BF, N, &Zero, Ch,
                   CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }) : 0;
    double F = 2.0 * N * N * (double)N / 1e9;
    auto gf = [&](double T) { return T > 0 ? F / T : 0.0; };
    std::printf("| %d | %.1f | %.1f | %.0f%% | %.1f | %.1f | %.0f%% | %.1f | %.1f |\n", N, gf(Ts), gf(Tsd),
                100 * Tsd / Ts, gf(Td), gf(Tdd), 100 * Tdd / Td, gf(Th), gf(Tb));
    std::fflush(stdout);
    for (void *P : {(void *)A, (void *)B, (void *)C, (void *)Ad, (void *)Bd, (void *)Cd, Ah, Bh, Ch})
      cudaFree(P);
  }
  std::printf("(GFLOP/s; ratio = cuBLAS / OpenBLAS direct; HGEMM/BF16 up to n = 2048)\n");
  cublasDestroy(H);
  return 0;
}
