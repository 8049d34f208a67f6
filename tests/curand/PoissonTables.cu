/// \file
/// ctest curand.poisson: ferry's Poisson tables and results against what
/// NVIDIA's cuRAND gave on the H100 (goldens/PoissonTables.out, made from
/// the raw files of tests/curand/SobolPoissonDump.cu and PoissonProbe.cu
/// by hashing them the same way). One line per case: the FNV-1a hash of
/// the table's V and K arrays (with shift and length), of curand_discrete's
/// draws from it in a kernel, and of curandGeneratePoisson's results.
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_discrete.h>
#include <curand_kernel.h>
#include <vector>

static unsigned long long fnv(const void *P, size_t Bytes) {
  unsigned long long H = 1469598103934665603ULL;
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ ((const unsigned char *)P)[I]) * 1099511628211ULL;
  return H;
}

__global__ void discreteKernel(curandDiscreteDistribution_t D, unsigned *Out, int Per) {
  int T = threadIdx.x + blockIdx.x * blockDim.x;
  curandState S;
  curand_init(1234, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_discrete(&S, D);
}

int main() {
  unsigned *U;
  cudaMalloc(&U, (1 << 14) * 4);
  std::vector<unsigned> H(1 << 14);
  for (double Lam : {0.5, 4.0, 30.0, 63.9, 64.0, 1000.0}) {
    curandDiscreteDistribution_t Dist = nullptr;
    int S = curandCreatePoissonDistribution(Lam, &Dist);
    if (S) {
      std::printf("dist%g status %d\n", Lam, S);
      continue;
    }
    curandDiscreteDistribution_st Hd;
    cudaMemcpy(&Hd, Dist, sizeof Hd, cudaMemcpyDefault);
    curandDistributionM2Shift_st M2;
    cudaMemcpy(&M2, Hd.M2, sizeof M2, cudaMemcpyDefault);
    curandHistogramM2_st Hist;
    cudaMemcpy(&Hist, M2.histogram, sizeof Hist, cudaMemcpyDefault);
    std::vector<double> V(M2.length);
    std::vector<unsigned> K(M2.length);
    cudaMemcpy(V.data(), Hist.V, M2.length * 8, cudaMemcpyDefault);
    cudaMemcpy(K.data(), Hist.K, M2.length * 4, cudaMemcpyDefault);
    std::printf("dist%g shift %u length %u V %016llx K %016llx\n", Lam, M2.shift, M2.length, fnv(V.data(), V.size() * 8),
                fnv(K.data(), K.size() * 4));
    discreteKernel<<<4, 64>>>(Dist, U, 64);
    cudaMemcpy(H.data(), U, 256 * 64 * 4, cudaMemcpyDeviceToHost);
    std::printf("devdiscrete%g %016llx\n", Lam, fnv(H.data(), 256 * 64 * 4));
    curandDestroyDistribution(Dist);
  }
  const curandRngType_t P[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A};
  const char *PName[3] = {"xorwow", "philox", "mrg32k3a"};
  for (int K = 0; K < 3; ++K)
    for (double Lam : {0.5, 4.0, 30.0, 63.9, 64.0, 1000.0, 1000.5, 1500.0}) {
      size_t N = Lam > 1000 ? 4096 : 1 << 14;
      if (Lam > 1000 && K)
        continue;
      curandGenerator_t G;
      curandCreateGenerator(&G, P[K]);
      curandSetPseudoRandomGeneratorSeed(G, 1234);
      int S = curandGeneratePoisson(G, U, N, Lam);
      cudaMemcpy(H.data(), U, N * 4, cudaMemcpyDeviceToHost);
      if (S)
        std::printf("%s.pois%g status %d\n", PName[K], Lam, S);
      else
        std::printf("%s.pois%g %016llx\n", PName[K], Lam, fnv(H.data(), N * 4));
      curandDestroyGenerator(G);
    }
  return 0;
}
