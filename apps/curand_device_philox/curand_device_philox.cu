/// \file
/// cuRAND's device API with Philox4_32_10 states, as counter-based codes use
/// it: curand_init(seed, subsequence, offset) straight in the work kernel
/// (Philox's init is cheap), curand4() and curand_uniform4() for four
/// values per call, skipahead() to jump within a subsequence, and
/// curand_normal4()/curand_normal2_double() summed into moments. Raw and
/// uniform draws are printed exactly (hex); normal moments rounded.
/// Checked: every thread's draws against a CPU Philox4x32-10 (the
/// published Random123 rounds and constants, with cuRAND's counter layout:
/// subsequence in the high 64 bits of the counter), and the moments.
#include "../common/lib_util.h"
#include <cstring>
#include <curand_kernel.h>

__global__ void draw(unsigned long long Seed, unsigned long long Offset, uint4 *Raw, float4 *Uni, unsigned *Skipped,
                     double *Moments) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t S;
  curand_init(Seed, Id, Offset, &S);
  Raw[2 * Id] = curand4(&S);
  Raw[2 * Id + 1] = curand4(&S);
  Uni[Id] = curand_uniform4(&S);
  skipahead(1000ULL, &S);
  Skipped[Id] = curand(&S);
  double A = 0, B = 0;
  for (int I = 0; I < 16; ++I) {
    float4 Z = curand_normal4(&S);
    A += Z.x + Z.y + Z.z + Z.w;
    B += (double)Z.x * Z.x + (double)Z.y * Z.y + (double)Z.z * Z.z + (double)Z.w * Z.w;
  }
  double2 Zd = curand_normal2_double(&S);
  Moments[3 * Id] = A;
  Moments[3 * Id + 1] = B;
  Moments[3 * Id + 2] = Zd.x + Zd.y;
}

/// Philox4x32-10 on the CPU.
static void philox(const unsigned In[4], unsigned long long Seed, unsigned Out[4]) {
  unsigned C[4] = {In[0], In[1], In[2], In[3]};
  unsigned K0 = (unsigned)Seed, K1 = (unsigned)(Seed >> 32);
  for (int R = 0; R < 10; ++R) {
    unsigned long long P0 = 0xD2511F53ull * C[0], P1 = 0xCD9E8D57ull * C[2];
    unsigned N[4] = {(unsigned)(P1 >> 32) ^ C[1] ^ K0, (unsigned)P1, (unsigned)(P0 >> 32) ^ C[3] ^ K1, (unsigned)P0};
    std::memcpy(C, N, sizeof C);
    K0 += 0x9E3779B9u;
    K1 += 0xBB67AE85u;
  }
  std::memcpy(Out, C, sizeof C);
}

/// Value number Index (0-based) of subsequence Sub: counter block Index / 4.
static unsigned cpuValue(unsigned long long Seed, unsigned long long Sub, unsigned long long Index) {
  unsigned long long Block = Index / 4;
  unsigned Ctr[4] = {(unsigned)Block, (unsigned)(Block >> 32), (unsigned)Sub, (unsigned)(Sub >> 32)};
  unsigned Out[4];
  philox(Ctr, Seed, Out);
  return Out[Index % 4];
}

static unsigned bitsOf(float F) {
  unsigned U;
  std::memcpy(&U, &F, 4);
  return U;
}

int main() {
  const int Blocks = 16, Threads = 64, N = Blocks * Threads;
  uint4 *Raw;
  float4 *Uni;
  unsigned *Skipped;
  double *Moments;
  CHECK(cudaMalloc(&Raw, sizeof(uint4) * 2 * N));
  CHECK(cudaMalloc(&Uni, sizeof(float4) * N));
  CHECK(cudaMalloc(&Skipped, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&Moments, sizeof(double) * 3 * N));
  bool Ok = true;
  const unsigned long long Seeds[] = {0ULL, 0x123456789abcdefULL};
  const unsigned long long Offsets[] = {0ULL, 6ULL};
  for (int Case = 0; Case < 2; ++Case) {
    unsigned long long Seed = Seeds[Case], Off = Offsets[Case];
    draw<<<Blocks, Threads>>>(Seed, Off, Raw, Uni, Skipped, Moments);
    CHECK(cudaGetLastError());
    std::vector<uint4> R = download(Raw, 2 * (size_t)N);
    std::vector<float4> U = download(Uni, N);
    std::vector<unsigned> Sk = download(Skipped, N);
    std::vector<double> M = download(Moments, 3 * (size_t)N);
    bool Exact = true;
    for (int Id = 0; Id < N; ++Id) {
      const unsigned *Got = &R[2 * Id].x;
      for (int I = 0; I < 8; ++I)
        Exact &= Got[I] == cpuValue(Seed, Id, Off + I);
      const float *Uf = &U[Id].x;
      for (int I = 0; I < 4; ++I)
        Exact &= Uf[I] == cpuValue(Seed, Id, Off + 8 + I) * 2.3283064e-10f + 1.1641532e-10f;
      Exact &= Sk[Id] == cpuValue(Seed, Id, Off + 12 + 1000);
    }
    double A = 0, B = 0, C = 0;
    for (int Id = 0; Id < N; ++Id) {
      A += M[3 * Id];
      B += M[3 * Id + 1];
      C += M[3 * Id + 2];
    }
    double Count = N * 64.0, Mean = A / Count, Var = B / Count - Mean * Mean, MeanD = C / (2.0 * N);
    std::printf("seed %llx offset %llu: thread 0 %08x %08x %08x %08x %08x, thread %d %08x %08x\n", Seed, Off, R[0].x,
                R[0].y, R[0].z, R[0].w, R[1].x, N - 1, R[2 * N - 2].x, R[2 * N - 1].w);
    std::printf("seed %llx offset %llu: uniform4 %08x %08x %08x %08x (%.9g), after skipahead %08x\n", Seed, Off,
                bitsOf(U[0].x), bitsOf(U[0].y), bitsOf(U[0].z), bitsOf(U[0].w), U[0].x, Sk[0]);
    bool Stats = std::fabs(Mean) < 0.02 && std::fabs(Var - 1) < 0.03 && std::fabs(MeanD) < 0.1;
    std::printf("seed %llx offset %llu: normal4 mean %.2f variance %.2f; cpu philox %s, statistics %s\n", Seed, Off,
                Mean, Var, Exact ? "ok" : "WRONG", Stats ? "ok" : "WRONG");
    Ok &= Exact && Stats;
  }
  CHECK(cudaFree(Raw));
  CHECK(cudaFree(Uni));
  CHECK(cudaFree(Skipped));
  CHECK(cudaFree(Moments));
  return finish(Ok);
}
