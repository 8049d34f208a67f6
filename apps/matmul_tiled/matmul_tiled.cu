/// \file
/// Dense matrix multiply C = A * B (256x192 times 192x320) with 16x16
/// shared-memory tiles, the textbook CUDA kernel, plus a double-precision
/// version with 2x2 register blocking per thread. Entries are small
/// multiples of 1/8, so every dot product is exact in float and double.
#include "../common/app_util.h"
#include <vector>

constexpr int TS = 16;

__global__ void matmulF(const float *A, const float *B, float *C, int M, int K, int N) {
  __shared__ float SA[TS][TS], SB[TS][TS];
  int Row = blockIdx.y * TS + threadIdx.y, Col = blockIdx.x * TS + threadIdx.x;
  float Acc = 0;
  for (int T = 0; T < K; T += TS) {
    SA[threadIdx.y][threadIdx.x] = Row < M && T + threadIdx.x < K ? A[Row * K + T + threadIdx.x] : 0.f;
    SB[threadIdx.y][threadIdx.x] = Col < N && T + threadIdx.y < K ? B[(T + threadIdx.y) * N + Col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int I = 0; I < TS; ++I)
      Acc += SA[threadIdx.y][I] * SB[I][threadIdx.x];
    __syncthreads();
  }
  if (Row < M && Col < N)
    C[Row * N + Col] = Acc;
}

// Each thread computes a 2x2 block of C; the block covers 32x32.
__global__ void matmulD(const double *A, const double *B, double *C, int M, int K, int N) {
  __shared__ double SA[2 * TS][TS], SB[TS][2 * TS];
  int R0 = blockIdx.y * 2 * TS + threadIdx.y, C0 = blockIdx.x * 2 * TS + threadIdx.x;
  double Acc[2][2] = {};
  for (int T = 0; T < K; T += TS) {
    for (int H = 0; H < 2; ++H) {
      int R = R0 + H * TS, Cc = C0 + H * TS;
      SA[threadIdx.y + H * TS][threadIdx.x] = R < M && T + threadIdx.x < K ? A[R * K + T + threadIdx.x] : 0.0;
      SB[threadIdx.y][threadIdx.x + H * TS] = Cc < N && T + threadIdx.y < K ? B[(T + threadIdx.y) * N + Cc] : 0.0;
    }
    __syncthreads();
    for (int I = 0; I < TS; ++I)
      for (int Y = 0; Y < 2; ++Y)
        for (int X = 0; X < 2; ++X)
          Acc[Y][X] += SA[threadIdx.y + Y * TS][I] * SB[I][threadIdx.x + X * TS];
    __syncthreads();
  }
  for (int Y = 0; Y < 2; ++Y)
    for (int X = 0; X < 2; ++X) {
      int R = R0 + Y * TS, Cc = C0 + X * TS;
      if (R < M && Cc < N)
        C[R * N + Cc] = Acc[Y][X];
    }
}

int main() {
  const int M = 256, K = 192, N = 320;
  std::vector<float> A(M * K), B(K * N), C(M * N);
  std::vector<double> AD(M * K), BD(K * N), CD(M * N);
  Lcg Rng(31337);
  for (int I = 0; I < M * K; ++I)
    AD[I] = A[I] = (int(Rng.below(17)) - 8) / 8.0f;
  for (int I = 0; I < K * N; ++I)
    BD[I] = B[I] = (int(Rng.below(17)) - 8) / 8.0f;
  float *DA, *DB, *DC;
  double *DAD, *DBD, *DCD;
  CHECK(cudaMalloc(&DA, M * K * 4));
  CHECK(cudaMalloc(&DB, K * N * 4));
  CHECK(cudaMalloc(&DC, M * N * 4));
  CHECK(cudaMalloc(&DAD, M * K * 8));
  CHECK(cudaMalloc(&DBD, K * N * 8));
  CHECK(cudaMalloc(&DCD, M * N * 8));
  CHECK(cudaMemcpy(DA, A.data(), M * K * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DB, B.data(), K * N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DAD, AD.data(), M * K * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DBD, BD.data(), K * N * 8, cudaMemcpyHostToDevice));
  matmulF<<<dim3(N / TS, M / TS), dim3(TS, TS)>>>(DA, DB, DC, M, K, N);
  matmulD<<<dim3(N / (2 * TS), M / (2 * TS)), dim3(TS, TS)>>>(DAD, DBD, DCD, M, K, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C.data(), DC, M * N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(CD.data(), DCD, M * N * 8, cudaMemcpyDeviceToHost));
  int Bad = 0;
  double Trace = 0, Sum = 0;
  for (int R = 0; R < M; ++R)
    for (int Cc = 0; Cc < N; ++Cc) {
      double S = 0;
      for (int I = 0; I < K; ++I)
        S += AD[R * K + I] * BD[I * N + Cc];
      Bad += C[R * N + Cc] != float(S) || CD[R * N + Cc] != S;
      Sum += S;
      if (R == Cc)
        Trace += S;
    }
  std::printf("matmul %dx%dx%d float+double mismatches=%d trace=%.4f sum=%.4f\n", M, K, N, Bad, Trace, Sum);
  CHECK(cudaFree(DA));
  CHECK(cudaFree(DB));
  CHECK(cudaFree(DC));
  CHECK(cudaFree(DAD));
  CHECK(cudaFree(DBD));
  CHECK(cudaFree(DCD));
  return finish(Bad == 0);
}
