/// \file
/// cuRAND generators bound to CUDA streams (curandSetStream), as pipelines
/// use them: two generators on two non-blocking streams fill buffers, a
/// kernel on each stream consumes its buffer (stream order alone makes the
/// numbers ready), results come back with cudaMemcpyAsync into pinned
/// memory, and the batches are repeated so generation, kernels and copies
/// of different streams overlap. The values are printed exactly (hex);
/// checked against the same generators run synchronously on the default
/// stream.
#include "../common/lib_util.h"
#include <cstring>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

// Maps uniforms in (0, 1] to integers 0..99, as a dice-rolling consumer.
__global__ void toDice(const float *U, int N, int *Out) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    Out[I] = min((int)(U[I] * 100.0f), 99);
}

int main() {
  const int N = 1 << 18, Batches = 4;
  const curandRngType_t Types[2] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10};
  const char *Names[2] = {"xorwow", "philox"};
  cudaStream_t Streams[2];
  curandGenerator_t Gens[2];
  float *U[2];
  int *Dice[2], *Host[2];
  for (int S = 0; S < 2; ++S) {
    CHECK(cudaStreamCreateWithFlags(&Streams[S], cudaStreamNonBlocking));
    CURAND_CHECK(curandCreateGenerator(&Gens[S], Types[S]));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Gens[S], 1000ULL + S));
    CURAND_CHECK(curandSetStream(Gens[S], Streams[S]));
    CHECK(cudaMalloc(&U[S], sizeof(float) * N));
    CHECK(cudaMalloc(&Dice[S], sizeof(int) * N));
    CHECK(cudaMallocHost(&Host[S], sizeof(int) * N * Batches));
  }
  for (int B = 0; B < Batches; ++B)
    for (int S = 0; S < 2; ++S) {
      CURAND_CHECK(curandGenerateUniform(Gens[S], U[S], N));
      toDice<<<64, 256, 0, Streams[S]>>>(U[S], N, Dice[S]);
      CHECK(cudaMemcpyAsync(Host[S] + (size_t)B * N, Dice[S], sizeof(int) * N, cudaMemcpyDeviceToHost, Streams[S]));
    }
  for (int S = 0; S < 2; ++S)
    CHECK(cudaStreamSynchronize(Streams[S]));
  bool Ok = true;
  for (int S = 0; S < 2; ++S) {
    // The reference: a fresh generator on the default stream, one call for
    // all batches.
    curandGenerator_t Ref;
    float *All;
    CHECK(cudaMalloc(&All, sizeof(float) * N * Batches));
    CURAND_CHECK(curandCreateGenerator(&Ref, Types[S]));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(Ref, 1000ULL + S));
    CURAND_CHECK(curandGenerateUniform(Ref, All, (size_t)N * Batches));
    std::vector<float> V = download(All, (size_t)N * Batches);
    bool Same = true;
    long long Counts[100] = {0};
    for (size_t I = 0; I < V.size(); ++I) {
      int D = std::min((int)(V[I] * 100.0f), 99);
      Same &= D == Host[S][I];
      ++Counts[Host[S][I]];
    }
    double Chi = 0, E = V.size() / 100.0;
    for (long long C : Counts)
      Chi += (C - E) * (C - E) / E;
    unsigned B0, BL;
    std::memcpy(&B0, &V[0], 4);
    std::memcpy(&BL, &V[V.size() - 1], 4);
    std::printf("%s on a stream: dice %d %d %d %d ... %d, uniforms %08x ... %08x, counts[0] %lld chi2 %.3f\n",
                Names[S], Host[S][0], Host[S][1], Host[S][2], Host[S][3], Host[S][(size_t)N * Batches - 1], B0, BL,
                Counts[0], Chi);
    bool This = Same && Chi < 160;
    std::printf("%s: same as the default stream %s, chi2 %s\n", Names[S], Same ? "ok" : "WRONG",
                Chi < 160 ? "ok" : "WRONG");
    Ok &= This;
    CURAND_CHECK(curandDestroyGenerator(Ref));
    CHECK(cudaFree(All));
  }
  for (int S = 0; S < 2; ++S) {
    CURAND_CHECK(curandDestroyGenerator(Gens[S]));
    CHECK(cudaStreamDestroy(Streams[S]));
    CHECK(cudaFree(U[S]));
    CHECK(cudaFree(Dice[S]));
    CHECK(cudaFreeHost(Host[S]));
  }
  return finish(Ok);
}
