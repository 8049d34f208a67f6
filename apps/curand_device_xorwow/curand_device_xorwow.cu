/// \file
/// cuRAND's device API with the default XORWOW state, the pattern of most
/// CUDA Monte Carlo kernels: a setup kernel calls curand_init(seed, id, 0)
/// (one subsequence per thread), the states live in global memory between
/// launches, and the work kernels draw curand(), curand_uniform() and
/// curand_normal() from a local copy and store it back. A second family of
/// states uses curand_init(seed + id, 0, 0), the other common idiom.
/// Printed: integer counts and raw draws (hex), exact; normals only as
/// rounded moments (the GPU's fast sine/cosine decide their last bits).
/// Checked: thread 0 of each family against a CPU implementation of
/// XORWOW (Marsaglia's generator with cuRAND's published seeding), pi
/// within 0.01, the normals' moments, and that continuing the stored
/// states gives the draws that follow.
#include "../common/lib_util.h"
#include <curand_kernel.h>

__global__ void setup(curandState *States, unsigned long long Seed, bool SeedPerThread) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  if (SeedPerThread)
    curand_init(Seed + Id, 0, 0, &States[Id]);
  else
    curand_init(Seed, Id, 0, &States[Id]);
}

__global__ void raw(curandState *States, unsigned *Out, int PerThread) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState S = States[Id];
  for (int I = 0; I < PerThread; ++I)
    Out[Id * PerThread + I] = curand(&S);
  States[Id] = S;
}

__global__ void piHits(curandState *States, int PerThread, unsigned *Hits) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState S = States[Id];
  unsigned H = 0;
  for (int I = 0; I < PerThread; ++I) {
    float X = curand_uniform(&S), Y = curand_uniform(&S);
    H += X * X + Y * Y <= 1.0f;
  }
  Hits[Id] = H;
  States[Id] = S;
}

__global__ void normals(curandState *States, int PerThread, double *Sum, double *SumSq) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState S = States[Id];
  double A = 0, B = 0;
  for (int I = 0; I < PerThread; ++I) {
    float Z = curand_normal(&S);
    A += Z;
    B += (double)Z * Z;
  }
  Sum[Id] = A;
  SumSq[Id] = B;
  States[Id] = S;
}

/// XORWOW as curand_init(seed, 0, 0) starts it.
struct CpuXorwow {
  unsigned D, V[5];
  explicit CpuXorwow(unsigned long long Seed) {
    unsigned S0 = (unsigned)Seed ^ 0xaad26b49u, S1 = (unsigned)(Seed >> 32) ^ 0xf7dcefddu;
    unsigned T0 = 1099087573u * S0, T1 = 2591861531u * S1;
    D = 6615241u + T1 + T0;
    V[0] = 123456789u + T0;
    V[1] = 362436069u ^ T0;
    V[2] = 521288629u + T1;
    V[3] = 88675123u ^ T1;
    V[4] = 5783321u + T0;
  }
  unsigned next() {
    unsigned T = V[0] ^ (V[0] >> 2);
    V[0] = V[1];
    V[1] = V[2];
    V[2] = V[3];
    V[3] = V[4];
    V[4] = (V[4] ^ (V[4] << 4)) ^ (T ^ (T << 1));
    D += 362437u;
    return V[4] + D;
  }
};

int main() {
  const int Blocks = 32, Threads = 128, N = Blocks * Threads, Per = 16, PiPer = 256;
  const unsigned long long Seed = 20240229ULL;
  curandState *States;
  unsigned *Out, *Hits;
  double *Sum, *SumSq;
  CHECK(cudaMalloc(&States, sizeof(curandState) * N));
  CHECK(cudaMalloc(&Out, sizeof(unsigned) * N * Per));
  CHECK(cudaMalloc(&Hits, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&Sum, sizeof(double) * N));
  CHECK(cudaMalloc(&SumSq, sizeof(double) * N));
  bool Ok = true;
  for (int Family = 0; Family < 2; ++Family) {
    const char *Name = Family ? "seed+id" : "subsequence";
    setup<<<Blocks, Threads>>>(States, Seed, Family == 1);
    raw<<<Blocks, Threads>>>(States, Out, Per);
    CHECK(cudaGetLastError());
    std::vector<unsigned> R = download(Out, (size_t)N * Per);
    // The stored states continue: a second launch gives draws Per..2Per-1.
    raw<<<Blocks, Threads>>>(States, Out, Per);
    std::vector<unsigned> R2 = download(Out, (size_t)N * Per);
    CpuXorwow Cpu(Seed);
    bool Thread0 = true;
    for (int I = 0; I < Per; ++I)
      Thread0 &= R[I] == Cpu.next();
    for (int I = 0; I < Per; ++I)
      Thread0 &= R2[I] == Cpu.next();
    if (Family == 1) {
      CpuXorwow Last(Seed + N - 1);
      for (int I = 0; I < Per; ++I)
        Thread0 &= R[(size_t)(N - 1) * Per + I] == Last.next();
    }
    std::printf("%s thread 0: %08x %08x %08x %08x, thread 1: %08x %08x, thread %d: %08x %08x, next launch %08x\n",
                Name, R[0], R[1], R[2], R[3], R[Per], R[Per + 1], N - 1, R[(size_t)(N - 1) * Per],
                R[(size_t)(N - 1) * Per + 1], R2[0]);
    piHits<<<Blocks, Threads>>>(States, PiPer, Hits);
    std::vector<unsigned> H = download(Hits, N);
    unsigned long long Total = 0;
    for (unsigned X : H)
      Total += X;
    double Pi = 4.0 * Total / ((double)N * PiPer);
    std::printf("%s pi: %llu hits of %d (thread 0 %u, thread %d %u), pi ~ %.6f\n", Name, Total, N * PiPer, H[0],
                N - 1, H[N - 1], Pi);
    normals<<<Blocks, Threads>>>(States, 64, Sum, SumSq);
    std::vector<double> S = download(Sum, N), Q = download(SumSq, N);
    double A = 0, B = 0;
    for (int I = 0; I < N; ++I) {
      A += S[I];
      B += Q[I];
    }
    double Mean = A / (N * 64.0), Var = B / (N * 64.0) - Mean * Mean;
    std::printf("%s normals: mean %.3f variance %.3f\n", Name, Mean, Var);
    bool This = Thread0 && std::fabs(Pi - M_PI) < 0.01 && std::fabs(Mean) < 0.01 && std::fabs(Var - 1) < 0.02;
    std::printf("%s: cpu xorwow %s, statistics %s\n", Name, Thread0 ? "ok" : "WRONG", This ? "ok" : "WRONG");
    Ok &= This;
  }
  CHECK(cudaFree(States));
  CHECK(cudaFree(Out));
  CHECK(cudaFree(Hits));
  CHECK(cudaFree(Sum));
  CHECK(cudaFree(SumSq));
  return finish(Ok);
}
