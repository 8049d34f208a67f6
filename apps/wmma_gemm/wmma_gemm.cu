/// \file
/// Tensor-core matrix multiply with the WMMA API (sm_70+): fp16 inputs,
/// fp32 accumulation, 16x16x16 fragments, one warp per output tile, with the
/// accumulator seeded from C (D = A*B + C). Inputs are small multiples of
/// 1/4, so every product and sum is exact and the result matches the CPU bit
/// for bit whatever order the hardware accumulates in.
#include "../common/app_util.h"
#include <cuda_fp16.h>
#include <mma.h>
#include <vector>

using namespace nvcuda;

constexpr int M = 64, N = 64, K = 128;

// A is row-major MxK, B is column-major KxN, C and D are row-major MxN.
__global__ void wmmaGemm(const __half *A, const __half *B, const float *C, float *D) {
  int Warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int TileRow = Warp / (N / 16), TileCol = Warp % (N / 16);
  if (TileRow >= M / 16)
    return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FA;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FB;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> Acc;
  wmma::load_matrix_sync(Acc, C + TileRow * 16 * N + TileCol * 16, N, wmma::mem_row_major);
  for (int KK = 0; KK < K; KK += 16) {
    wmma::load_matrix_sync(FA, A + TileRow * 16 * K + KK, K);
    wmma::load_matrix_sync(FB, B + TileCol * 16 * K + KK, K);
    wmma::mma_sync(Acc, FA, FB, Acc);
  }
  for (int I = 0; I < Acc.num_elements; ++I)
    Acc.x[I] *= 2.0f; // element-wise epilogue works on any fragment layout
  wmma::store_matrix_sync(D + TileRow * 16 * N + TileCol * 16, Acc, N, wmma::mem_row_major);
}

// fp16 accumulator variant on one tile.
__global__ void wmmaHalfAcc(const __half *A, const __half *B, __half *D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FA;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FB;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> Acc;
  wmma::fill_fragment(Acc, __float2half(1.0f));
  wmma::load_matrix_sync(FA, A, K);
  wmma::load_matrix_sync(FB, B, K);
  wmma::mma_sync(Acc, FA, FB, Acc);
  wmma::store_matrix_sync(D, Acc, 16, wmma::mem_row_major);
}

int main() {
  std::vector<float> Af(M * K), Bf(K * N), C(M * N), D(M * N);
  std::vector<__half> A(M * K), B(K * N);
  Lcg Rng(1234);
  for (int I = 0; I < M * K; ++I) {
    Af[I] = (int(Rng.below(9)) - 4) * 0.25f;
    A[I] = __float2half(Af[I]);
  }
  for (int I = 0; I < K * N; ++I) { // stored column-major: element (k, n) at n*K + k
    Bf[I] = (int(Rng.below(9)) - 4) * 0.25f;
    B[I] = __float2half(Bf[I]);
  }
  for (auto &V : C)
    V = float(int(Rng.below(21)) - 10);
  __half *DA, *DB, *DH;
  float *DC, *DD;
  CHECK(cudaMalloc(&DA, M * K * sizeof(__half)));
  CHECK(cudaMalloc(&DB, K * N * sizeof(__half)));
  CHECK(cudaMalloc(&DC, M * N * sizeof(float)));
  CHECK(cudaMalloc(&DD, M * N * sizeof(float)));
  CHECK(cudaMalloc(&DH, 256 * sizeof(__half)));
  CHECK(cudaMemcpy(DA, A.data(), M * K * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DB, B.data(), K * N * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DC, C.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
  int Warps = (M / 16) * (N / 16);
  wmmaGemm<<<Warps / 4, 128>>>(DA, DB, DC, DD);
  CHECK(cudaGetLastError());
  wmmaHalfAcc<<<1, 32>>>(DA, DB, DH);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(D.data(), DD, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<__half> H(256);
  CHECK(cudaMemcpy(H.data(), DH, 256 * sizeof(__half), cudaMemcpyDeviceToHost));
  int Bad = 0, BadH = 0;
  double Sum = 0;
  for (int R = 0; R < M; ++R)
    for (int Col = 0; Col < N; ++Col) {
      float S = C[R * N + Col];
      for (int KK = 0; KK < K; ++KK)
        S += Af[R * K + KK] * Bf[Col * K + KK];
      Bad += D[R * N + Col] != 2.0f * S;
      Sum += 2.0f * S;
      if (R < 16 && Col < 16) {
        float SH = 1.0f;
        for (int KK = 0; KK < 16; ++KK)
          SH += Af[R * K + KK] * Bf[Col * K + KK];
        BadH += __half2float(H[R * 16 + Col]) != SH;
      }
    }
  std::printf("wmma %dx%dx%d f32 accumulate: mismatches=%d checksum=%.2f D[0]=%.2f\n", M, N, K, Bad, Sum, D[0]);
  std::printf("wmma 16x16x16 f16 accumulate: mismatches=%d\n", BadH);
  CHECK(cudaFree(DA));
  CHECK(cudaFree(DB));
  CHECK(cudaFree(DC));
  CHECK(cudaFree(DD));
  CHECK(cudaFree(DH));
  return finish(Bad == 0 && BadH == 0);
}
