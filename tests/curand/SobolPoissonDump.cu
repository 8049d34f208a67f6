/// \file
/// Measurement tool (not a test): writes what NVIDIA's cuRAND gives for the
/// Sobol direction-vector tables, scramble constants, Sobol32/64 and
/// scrambled Sobol generators in several dimensions, and Poisson (host API,
/// the discrete-distribution tables and the device API), as raw
/// little-endian files DIR/<name>.bin, with each call's status and table
/// hashes on stdout. Run once on the device machine (libs/README.md says
/// what was learnt from it).
/// Usage: SobolPoissonDump DIR
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_discrete.h>
#include <curand_kernel.h>
#include <string>
#include <vector>

static std::string Dir;

static void save(const std::string &Name, const void *Host, size_t Bytes) {
  FILE *F = std::fopen((Dir + "/" + Name + ".bin").c_str(), "wb");
  if (F) {
    std::fwrite(Host, 1, Bytes, F);
    std::fclose(F);
  }
}

static void dump(const std::string &Name, const void *Dev, size_t Bytes, curandStatus_t S) {
  std::printf("%s status %d\n", Name.c_str(), (int)S);
  if (S != CURAND_STATUS_SUCCESS)
    return;
  std::vector<char> H(Bytes);
  cudaMemcpy(H.data(), Dev, Bytes, cudaMemcpyDeviceToHost);
  save(Name, H.data(), Bytes);
}

static unsigned long long fnv(const void *P, size_t Bytes) {
  unsigned long long H = 1469598103934665603ULL;
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ ((const unsigned char *)P)[I]) * 1099511628211ULL;
  return H;
}

__global__ void poissonKernel(double Lambda, unsigned *Out, int Per) {
  int T = threadIdx.x + blockIdx.x * blockDim.x;
  curandState S;
  curand_init(1234, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_poisson(&S, Lambda);
}

__global__ void discreteKernel(curandDiscreteDistribution_t D, unsigned *Out, int Per) {
  int T = threadIdx.x + blockIdx.x * blockDim.x;
  curandState S;
  curand_init(1234, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_discrete(&S, D);
}

__global__ void poissonPhiloxKernel(double Lambda, unsigned *Out, int Per) {
  int T = threadIdx.x + blockIdx.x * blockDim.x;
  curandStatePhilox4_32_10_t S;
  curand_init(1234, T, 0, &S);
  for (int I = 0; I < Per; ++I)
    Out[T * Per + I] = curand_poisson(&S, Lambda);
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  Dir = Argv[1];
  // Direction vectors and scramble constants (host tables).
  const curandDirectionVectorSet_t Sets32[2] = {CURAND_DIRECTION_VECTORS_32_JOEKUO6,
                                                CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6};
  for (int K = 0; K < 2; ++K) {
    curandDirectionVectors32_t *V = nullptr;
    curandStatus_t S = curandGetDirectionVectors32(&V, Sets32[K]);
    std::printf("dirvec32 set %d status %d", (int)Sets32[K], (int)S);
    if (S == CURAND_STATUS_SUCCESS) {
      std::printf(" fnv %016llx", fnv(V, 20000 * 32 * 4));
      save("dirvec32." + std::to_string((int)Sets32[K]), V, 20000 * 32 * 4);
    }
    std::printf("\n");
  }
  const curandDirectionVectorSet_t Sets64[2] = {CURAND_DIRECTION_VECTORS_64_JOEKUO6,
                                                CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6};
  for (int K = 0; K < 2; ++K) {
    curandDirectionVectors64_t *V = nullptr;
    curandStatus_t S = curandGetDirectionVectors64(&V, Sets64[K]);
    std::printf("dirvec64 set %d status %d", (int)Sets64[K], (int)S);
    if (S == CURAND_STATUS_SUCCESS) {
      std::printf(" fnv %016llx", fnv(V, 20000ull * 64 * 8));
      save("dirvec64." + std::to_string((int)Sets64[K]) + ".first2500", V, 2500 * 64 * 8);
    }
    std::printf("\n");
  }
  curandDirectionVectors32_t *Bad = nullptr;
  std::printf("dirvec32 set 103 status %d\n", (int)curandGetDirectionVectors32(&Bad, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  {
    unsigned *C = nullptr;
    curandStatus_t S = curandGetScrambleConstants32(&C);
    std::printf("scramble32 status %d", (int)S);
    if (S == CURAND_STATUS_SUCCESS) {
      std::printf(" fnv %016llx", fnv(C, 20000 * 4));
      save("scramble32", C, 20000 * 4);
    }
    std::printf("\n");
    unsigned long long *C64 = nullptr;
    S = curandGetScrambleConstants64(&C64);
    std::printf("scramble64 status %d", (int)S);
    if (S == CURAND_STATUS_SUCCESS) {
      std::printf(" fnv %016llx", fnv(C64, 20000 * 8));
      save("scramble64", C64, 20000 * 8);
    }
    std::printf("\n");
  }

  const size_t Cap = 20000 * 16;
  void *Buf;
  cudaMalloc(&Buf, Cap * 8);
  unsigned *U = (unsigned *)Buf;
  unsigned long long *L = (unsigned long long *)Buf;
  float *F = (float *)Buf;
  double *D = (double *)Buf;
  const curandRngType_t Q[4] = {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
                                CURAND_RNG_QUASI_SOBOL64, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64};
  const char *QName[4] = {"sobol32", "ssobol32", "sobol64", "ssobol64"};
  for (int K = 0; K < 4; ++K) {
    bool Is64 = K >= 2;
    for (unsigned Dims : {1u, 3u, 100u, 20000u}) {
      curandGenerator_t G = nullptr;
      curandStatus_t S = curandCreateGenerator(&G, Q[K]);
      if (S != CURAND_STATUS_SUCCESS) {
        std::printf("create %s status %d\n", QName[K], (int)S);
        continue;
      }
      std::printf("%s setdims %u status %d\n", QName[K], Dims, (int)curandSetQuasiRandomGeneratorDimensions(G, Dims));
      std::string Name = std::string(QName[K]) + ".d" + std::to_string(Dims);
      auto Bits = [&](const std::string &Tag, size_t N) {
        if (Is64)
          dump(Name + Tag + ".u64", L, N * 8, curandGenerateLongLong(G, L, N));
        else
          dump(Name + Tag + ".u32", U, N * 4, curandGenerate(G, U, N));
      };
      if (Dims == 20000) {
        Bits("", Dims * 8);
        curandSetGeneratorOffset(G, 5);
        Bits(".off5", Dims * 4);
        curandDestroyGenerator(G);
        continue;
      }
      size_t N = Dims * (Dims == 100 ? 64 : 1024);
      Bits("", N);
      Bits(".next", Dims * 32);
      curandSetGeneratorOffset(G, 77);
      Bits(".off77", Dims * 64);
      curandSetGeneratorOffset(G, 77);
      dump(Name + ".off77.f32", F, Dims * 64 * 4, curandGenerateUniform(G, F, Dims * 64));
      curandSetGeneratorOffset(G, 77);
      dump(Name + ".off77.f64", D, Dims * 64 * 8, curandGenerateUniformDouble(G, D, Dims * 64));
      curandSetGeneratorOffset(G, 3);
      dump(Name + ".off3.n32", F, Dims * 64 * 4, curandGenerateNormal(G, F, Dims * 64, 1.0f, 2.0f));
      curandSetGeneratorOffset(G, 3);
      dump(Name + ".off3.n64", D, Dims * 64 * 8, curandGenerateNormalDouble(G, D, Dims * 64, 1.0, 2.0));
      curandSetGeneratorOffset(G, 3);
      dump(Name + ".off3.ln32", F, Dims * 64 * 4, curandGenerateLogNormal(G, F, Dims * 64, 0.5f, 0.25f));
      if (Dims > 1) {
        std::printf("%s notmultiple status %d\n", Name.c_str(),
                    (int)(Is64 ? curandGenerateLongLong(G, L, Dims * 4 + 1) : curandGenerate(G, U, Dims * 4 + 1)));
        std::printf("%s wrongwidth status %d\n", Name.c_str(),
                    (int)(Is64 ? curandGenerate(G, U, Dims * 4) : curandGenerateLongLong(G, L, Dims * 4)));
      }
      curandSetGeneratorOffset(G, 0);
      std::printf("%s pois status %d\n", Name.c_str(), (int)curandGeneratePoisson(G, U, Dims * 64, 4.0));
      curandDestroyGenerator(G);
    }
  }
  {
    curandGenerator_t G = nullptr;
    curandCreateGenerator(&G, CURAND_RNG_QUASI_SOBOL32);
    std::printf("sobol32 setdims 0 status %d\n", (int)curandSetQuasiRandomGeneratorDimensions(G, 0));
    std::printf("sobol32 setdims 20001 status %d\n", (int)curandSetQuasiRandomGeneratorDimensions(G, 20001));
    curandDestroyGenerator(G);
  }

  // Poisson: host API for three pseudo generators.
  const double Lambdas[] = {0.5, 4.0, 30.0, 63.9, 64.0, 1000.0, 123456.0};
  const curandRngType_t P[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A};
  const char *PName[3] = {"xorwow", "philox", "mrg32k3a"};
  const size_t Small = 1 << 14;
  for (int K = 0; K < 3; ++K)
    for (double Lam : Lambdas) {
      curandGenerator_t G = nullptr;
      curandCreateGenerator(&G, P[K]);
      curandSetPseudoRandomGeneratorSeed(G, 1234);
      char Name[64];
      std::snprintf(Name, sizeof Name, "%s.pois%g", PName[K], Lam);
      dump(Name, U, Small * 4, curandGeneratePoisson(G, U, Small, Lam));
      if (K == 0 && Lam == 4.0) {
        dump(std::string(Name) + ".next", U, Small * 4, curandGeneratePoisson(G, U, Small, Lam));
        dump(std::string(Name) + ".after.u32", U, 4096 * 4, curandGenerate(G, U, 4096));
      }
      curandDestroyGenerator(G);
    }
  // The discrete distributions' tables, and the device API.
  for (double Lam : Lambdas) {
    char Name[64];
    curandDiscreteDistribution_t Dist = nullptr;
    curandStatus_t S = curandCreatePoissonDistribution(Lam, &Dist);
    std::printf("dist %g status %d\n", Lam, (int)S);
    if (S != CURAND_STATUS_SUCCESS)
      continue;
    curandDiscreteDistribution_st H;
    cudaMemcpy(&H, Dist, sizeof H, cudaMemcpyDefault);
    curandDistributionM2Shift_st M2;
    cudaMemcpy(&M2, H.M2, sizeof M2, cudaMemcpyDefault);
    curandHistogramM2_st Hist;
    cudaMemcpy(&Hist, M2.histogram, sizeof Hist, cudaMemcpyDefault);
    std::printf("dist %g mean %.17g stddev %.17g method %d shift %u length %u\n", Lam, H.mean, H.stddev,
                (int)H.method, M2.shift, M2.length);
    std::vector<double> V(M2.length);
    std::vector<unsigned> Kv(M2.length);
    cudaMemcpy(V.data(), Hist.V, M2.length * 8, cudaMemcpyDefault);
    cudaMemcpy(Kv.data(), Hist.K, M2.length * 4, cudaMemcpyDefault);
    std::snprintf(Name, sizeof Name, "dist%g", Lam);
    save(std::string(Name) + ".V", V.data(), V.size() * 8);
    save(std::string(Name) + ".K", Kv.data(), Kv.size() * 4);
    discreteKernel<<<4, 64>>>(Dist, U, 64);
    cudaDeviceSynchronize();
    std::snprintf(Name, sizeof Name, "devdiscrete%g", Lam);
    dump(Name, U, 256 * 64 * 4, CURAND_STATUS_SUCCESS);
    poissonKernel<<<4, 64>>>(Lam, U, 64);
    cudaDeviceSynchronize();
    std::snprintf(Name, sizeof Name, "devpoisson%g", Lam);
    dump(Name, U, 256 * 64 * 4, (curandStatus_t)cudaGetLastError());
    poissonPhiloxKernel<<<4, 64>>>(Lam, U, 64);
    cudaDeviceSynchronize();
    std::snprintf(Name, sizeof Name, "devpoissonphilox%g", Lam);
    dump(Name, U, 256 * 64 * 4, (curandStatus_t)cudaGetLastError());
    curandDestroyDistribution(Dist);
  }
  cudaFree(Buf);
  std::printf("done\n");
  return 0;
}
