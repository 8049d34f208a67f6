/// \file
/// cuRAND's device API (curand_kernel.h) on the H100 as a reference for
/// working out the host API's orderings: for XORWOW, Philox4_32_10 and
/// MRG32k3a, thread t runs curand_init(1234, t, 0) and writes its first
/// outputs. Written to the file named by argv[1], in this order:
///   for each generator (xorwow, philox, mrg32k3a):
///     u32  [T][4]   curand()                   T = 131072 threads
///     f32  [S][4]   curand_normal()            S = 4096 threads
///     f64  [S][4]   curand_uniform_double()
///     f64  [S][4]   curand_normal_double()
///     u32  [S][4]   curand_poisson(3.5)
/// A recording aid (scripts/record-curand-goldens), not a test.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdio>
#include <vector>

constexpr int T = 131072, S = 4096;

template <typename State> __global__ void bits(unsigned *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  State St;
  curand_init(1234ull, I, 0, &St);
  for (int K = 0; K < 4; ++K)
    Out[I * 4 + K] = curand(&St);
}

template <typename State>
__global__ void dists(float *Norm, double *UnifD, double *NormD, unsigned *Pois) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  State St;
  curand_init(1234ull, I, 0, &St);
  for (int K = 0; K < 4; ++K)
    Norm[I * 4 + K] = curand_normal(&St);
  curand_init(1234ull, I, 0, &St);
  for (int K = 0; K < 4; ++K)
    UnifD[I * 4 + K] = curand_uniform_double(&St);
  curand_init(1234ull, I, 0, &St);
  for (int K = 0; K < 4; ++K)
    NormD[I * 4 + K] = curand_normal_double(&St);
  curand_init(1234ull, I, 0, &St);
  for (int K = 0; K < 4; ++K)
    Pois[I * 4 + K] = curand_poisson(&St, 3.5);
}

template <typename State> static void run(FILE *F) {
  unsigned *B;
  float *N;
  double *U, *ND;
  unsigned *P;
  cudaMalloc(&B, T * 4 * 4);
  cudaMalloc(&N, S * 4 * 4);
  cudaMalloc(&U, S * 4 * 8);
  cudaMalloc(&ND, S * 4 * 8);
  cudaMalloc(&P, S * 4 * 4);
  bits<State><<<T / 128, 128>>>(B);
  dists<State><<<S / 128, 128>>>(N, U, ND, P);
  cudaError_t E = cudaDeviceSynchronize();
  std::printf("device-ref kernel status %d\n", (int)E);
  std::vector<char> H(T * 16);
  cudaMemcpy(H.data(), B, T * 16, cudaMemcpyDeviceToHost);
  std::fwrite(H.data(), 1, T * 16, F);
  for (auto [Ptr, Bytes] : {std::pair<void *, size_t>{N, S * 16}, {U, S * 32}, {ND, S * 32}, {P, S * 16}}) {
    cudaMemcpy(H.data(), Ptr, Bytes, cudaMemcpyDeviceToHost);
    std::fwrite(H.data(), 1, Bytes, F);
  }
  cudaFree(B);
  cudaFree(N);
  cudaFree(U);
  cudaFree(ND);
  cudaFree(P);
}

int main(int Argc, char **Argv) {
  if (Argc != 2)
    return 2;
  FILE *F = std::fopen(Argv[1], "wb");
  if (!F)
    return 1;
  run<curandStateXORWOW_t>(F);
  run<curandStatePhilox4_32_10_t>(F);
  run<curandStateMRG32k3a_t>(F);
  std::fclose(F);
  return 0;
}
