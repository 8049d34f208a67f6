/// \file
/// cuRAND's host generators (curandCreateGeneratorHost), which programs use
/// to produce the same random numbers on the CPU as on the GPU (tests,
/// CPU fallbacks): each generator type is created twice, on the device and
/// on the host, with the same seed and offset, and asked for 32-bit
/// integers, uniform floats and uniform doubles. NVIDIA documents that
/// both give the same results; the program prints the values exactly (hex)
/// and checks that the two agree bit for bit.
#include "../common/lib_util.h"
#include <cstring>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

struct Kind {
  const char *Name;
  curandRngType_t Type;
  bool Quasi;
};

template <typename T> static unsigned long long bitsOf(T V) {
  unsigned long long U = 0;
  std::memcpy(&U, &V, sizeof V);
  return U;
}

int main() {
  const size_t N = 10000;
  unsigned *DevU;
  float *DevF;
  double *DevD;
  CHECK(cudaMalloc(&DevU, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&DevF, sizeof(float) * N));
  CHECK(cudaMalloc(&DevD, sizeof(double) * N));
  std::vector<unsigned> HostU(N);
  std::vector<float> HostF(N);
  std::vector<double> HostD(N);
  const Kind Kinds[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW, false},
                        {"mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A, false},
                        {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10, false},
                        {"sobol32", CURAND_RNG_QUASI_SOBOL32, true}};
  bool Ok = true;
  for (const Kind &K : Kinds) {
    curandGenerator_t Dev, Host;
    CURAND_CHECK(curandCreateGenerator(&Dev, K.Type));
    CURAND_CHECK(curandCreateGeneratorHost(&Host, K.Type));
    for (curandGenerator_t G : {Dev, Host}) {
      if (K.Quasi)
        CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G, 1));
      else
        CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(G, 424242ULL));
      CURAND_CHECK(curandSetGeneratorOffset(G, 100));
    }
    CURAND_CHECK(curandGenerate(Dev, DevU, N));
    CURAND_CHECK(curandGenerateUniform(Dev, DevF, N));
    CURAND_CHECK(curandGenerateUniformDouble(Dev, DevD, N));
    CURAND_CHECK(curandGenerate(Host, HostU.data(), N));
    CURAND_CHECK(curandGenerateUniform(Host, HostF.data(), N));
    CURAND_CHECK(curandGenerateUniformDouble(Host, HostD.data(), N));
    std::vector<unsigned> U = download(DevU, N);
    std::vector<float> F = download(DevF, N);
    std::vector<double> D = download(DevD, N);
    bool Same = U == HostU && F == HostF && D == HostD;
    std::printf("%-8s u32 %08x %08x %08x | float %08llx %08llx | double %016llx %016llx | host %s\n", K.Name, U[0],
                U[1], U[N - 1], bitsOf(F[0]), bitsOf(F[N - 1]), bitsOf(D[0]), bitsOf(D[N - 1]),
                Same ? "same" : "DIFFERENT");
    Ok &= Same;
    CURAND_CHECK(curandDestroyGenerator(Dev));
    CURAND_CHECK(curandDestroyGenerator(Host));
  }
  CHECK(cudaFree(DevU));
  CHECK(cudaFree(DevF));
  CHECK(cudaFree(DevD));
  return finish(Ok);
}
