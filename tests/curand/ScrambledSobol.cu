/// \file
/// Scrambled Sobol sequences from cuRAND: the host API's
/// CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 (3 dimensions) and
/// SCRAMBLED_SOBOL64 (2 dimensions) with offsets, floats and doubles, and
/// the device API fed with the library's scrambled direction vectors and
/// scramble constants (curandGetScrambleConstants32/64). The values are
/// printed exactly; the checks are what a scrambled Sobol sequence keeps
/// (each dimension's first 2^k points still fall one in each interval of
/// width 2^-k), that the device API gives the host API's points, and a
/// 3-dimensional integral.
#include "../common/lib_util.h"
#include <algorithm>
#include <curand.h>
#include <curand_kernel.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

__global__ void scrambled32Kernel(curandDirectionVectors32_t *Vectors, unsigned *Constants, unsigned Dims,
                                  unsigned Points, unsigned Offset, unsigned *Out) {
  unsigned D = blockIdx.x * blockDim.x + threadIdx.x;
  if (D >= Dims)
    return;
  curandStateScrambledSobol32_t S;
  curand_init(Vectors[D], Constants[D], Offset, &S);
  for (unsigned I = 0; I < Points; ++I)
    Out[D * Points + I] = curand(&S);
}

__global__ void scrambled64Kernel(curandDirectionVectors64_t *Vectors, unsigned long long *Constants, unsigned Dims,
                                  unsigned Points, unsigned long long Offset, unsigned long long *Out) {
  unsigned D = blockIdx.x * blockDim.x + threadIdx.x;
  if (D >= Dims)
    return;
  curandStateScrambledSobol64_t S;
  curand_init(Vectors[D], Constants[D], Offset, &S);
  for (unsigned I = 0; I < Points; ++I)
    Out[D * Points + I] = curand(&S);
}

template <typename T> static bool strata(const std::vector<T> &V, size_t Start, size_t N, int Shift) {
  std::vector<T> S(V.begin() + Start, V.begin() + Start + N);
  for (T &X : S)
    X >>= Shift;
  std::sort(S.begin(), S.end());
  for (size_t I = 0; I < N; ++I)
    if (S[I] != (T)I)
      return false;
  return true;
}

int main() {
  bool Ok = true;
  const unsigned Dims = 3, Points = 2048;
  const size_t N = Dims * Points;
  unsigned *U;
  float *F;
  unsigned long long *L;
  double *D;
  CHECK(cudaMalloc(&U, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&F, sizeof(float) * N));
  CHECK(cudaMalloc(&L, sizeof(unsigned long long) * N));
  CHECK(cudaMalloc(&D, sizeof(double) * N));

  curandGenerator_t G;
  CURAND_CHECK(curandCreateGenerator(&G, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G, Dims));
  CURAND_CHECK(curandGenerate(G, U, N));
  std::vector<unsigned> Ui = download(U, N);
  for (unsigned K = 0; K < Dims; ++K) {
    std::printf("scrambled sobol32 dim %u:", K);
    for (int I = 0; I < 5; ++I)
      std::printf(" %08x", Ui[K * Points + I]);
    bool St = strata(Ui, K * Points, Points, 21);
    std::printf(" ... %08x strata %s\n", Ui[K * Points + Points - 1], St ? "ok" : "WRONG");
    Ok &= St;
  }
  unsigned *C32;
  CURAND_CHECK(curandGetScrambleConstants32(&C32));
  curandDirectionVectors32_t *V32;
  CURAND_CHECK(curandGetDirectionVectors32(&V32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  std::printf("scramble constants 32: %08x %08x %08x; scrambled vectors dim 1: %08x %08x %08x\n", C32[0], C32[1],
              C32[2], V32[1][0], V32[1][1], V32[1][31]);
  curandDirectionVectors32_t *DevV32;
  unsigned *DevC32, *Dev32;
  CHECK(cudaMalloc(&DevV32, sizeof(curandDirectionVectors32_t) * Dims));
  CHECK(cudaMemcpy(DevV32, V32, sizeof(curandDirectionVectors32_t) * Dims, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&DevC32, sizeof(unsigned) * Dims));
  CHECK(cudaMemcpy(DevC32, C32, sizeof(unsigned) * Dims, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&Dev32, sizeof(unsigned) * N));
  scrambled32Kernel<<<1, 32>>>(DevV32, DevC32, Dims, Points, 0, Dev32);
  CHECK(cudaGetLastError());
  bool Same = download(Dev32, N) == Ui;
  std::printf("device API with the scrambled vectors and constants: %s\n", Same ? "ok" : "WRONG");
  Ok &= Same;

  CURAND_CHECK(curandSetGeneratorOffset(G, 100));
  CURAND_CHECK(curandGenerateUniform(G, F, N));
  std::vector<float> Uf = download(F, N);
  double Sum = 0;
  for (unsigned I = 0; I < Points; ++I)
    Sum += Uf[I] * Uf[I] + Uf[Points + I] * Uf[2 * Points + I];
  Sum /= Points;
  bool Qmc = std::fabs(Sum - (1.0 / 3 + 0.25)) < 2e-3;
  std::printf("offset 100 floats: %.9g %.9g %.9g; integral of x^2 + yz %.8f %s\n", Uf[0], Uf[Points + 1],
              Uf[2 * Points + 2], Sum, Qmc ? "ok" : "WRONG");
  Ok &= Qmc;
  CURAND_CHECK(curandSetGeneratorOffset(G, 5));
  CURAND_CHECK(curandGenerateUniformDouble(G, D, Dims * 8));
  std::vector<double> Dd = download(D, Dims * 8);
  std::printf("offset 5 doubles: %.17g %.17g %.17g\n", Dd[0], Dd[8], Dd[23]);
  CURAND_CHECK(curandDestroyGenerator(G));

  const unsigned Dims64 = 2;
  CURAND_CHECK(curandCreateGenerator(&G, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G, Dims64));
  CURAND_CHECK(curandSetGeneratorOffset(G, 9));
  CURAND_CHECK(curandGenerateLongLong(G, L, Dims64 * Points));
  std::vector<unsigned long long> Li = download(L, Dims64 * Points);
  for (unsigned K = 0; K < Dims64; ++K)
    std::printf("scrambled sobol64 offset 9 dim %u: %016llx %016llx ... %016llx\n", K, Li[K * Points],
                Li[K * Points + 1], Li[K * Points + Points - 1]);
  unsigned long long *C64;
  CURAND_CHECK(curandGetScrambleConstants64(&C64));
  curandDirectionVectors64_t *V64;
  CURAND_CHECK(curandGetDirectionVectors64(&V64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
  std::printf("scramble constants 64: %016llx %016llx\n", C64[0], C64[1]);
  curandDirectionVectors64_t *DevV64;
  unsigned long long *DevC64, *Dev64;
  CHECK(cudaMalloc(&DevV64, sizeof(curandDirectionVectors64_t) * Dims64));
  CHECK(cudaMemcpy(DevV64, V64, sizeof(curandDirectionVectors64_t) * Dims64, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&DevC64, sizeof(unsigned long long) * Dims64));
  CHECK(cudaMemcpy(DevC64, C64, sizeof(unsigned long long) * Dims64, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&Dev64, sizeof(unsigned long long) * Dims64 * Points));
  scrambled64Kernel<<<1, 32>>>(DevV64, DevC64, Dims64, Points, 9, Dev64);
  CHECK(cudaGetLastError());
  bool Same64 = download(Dev64, Dims64 * Points) == Li;
  std::printf("device API 64 with the scrambled vectors and constants: %s\n", Same64 ? "ok" : "WRONG");
  Ok &= Same64;
  CURAND_CHECK(curandSetGeneratorOffset(G, 0));
  CURAND_CHECK(curandGenerateNormalDouble(G, D, Dims64 * 16, 2.0, 0.5));
  Dd = download(D, Dims64 * 16);
  std::printf("scrambled sobol64 normals: %.17g %.17g %.17g\n", Dd[0], Dd[16], Dd[31]);
  CURAND_CHECK(curandDestroyGenerator(G));
  CHECK(cudaFree(U));
  CHECK(cudaFree(F));
  CHECK(cudaFree(L));
  CHECK(cudaFree(D));
  return finish(Ok);
}
