/// \file
/// cuRAND's device API with MRG32k3a states, the generator codes choose for
/// its long period and good double-precision draws: curand_init(seed,
/// subsequence, offset), curand_uniform_double() in a random-walk kernel,
/// skipahead() and skipahead_subsequence() to position a state, and
/// curand_normal_double() for Gaussian steps. The doubles are printed
/// exactly (%.17g and integer results); the checks are the positioning
/// identities (a state skipped ahead by k draws, or initialised at offset
/// k, continues exactly where a stepping one is after k draws; subsequence
/// s + 1 equals subsequence s skipped by one subsequence) and the walks'
/// statistics.
#include "../common/lib_util.h"
#include <curand_kernel.h>

__global__ void positions(unsigned long long Seed, double *Out) {
  // Out[0..3]: stepping; [4..7]: skipahead; [8..11]: init offset;
  // [12..15]: subsequence 1; [16..19]: subsequence 0 + skipahead_subsequence.
  curandStateMRG32k3a A, B, C, D, E;
  curand_init(Seed, 0, 0, &A);
  for (int I = 0; I < 12345; ++I)
    curand(&A);
  curand_init(Seed, 0, 0, &B);
  skipahead(12345ULL, &B);
  curand_init(Seed, 0, 12345ULL, &C);
  curand_init(Seed, 1, 0, &D);
  curand_init(Seed, 0, 0, &E);
  skipahead_subsequence(1ULL, &E);
  for (int I = 0; I < 4; ++I) {
    Out[I] = curand_uniform_double(&A);
    Out[4 + I] = curand_uniform_double(&B);
    Out[8 + I] = curand_uniform_double(&C);
    Out[12 + I] = curand_uniform_double(&D);
    Out[16 + I] = curand_uniform_double(&E);
  }
}

__global__ void setup(curandStateMRG32k3a *States, unsigned long long Seed) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(Seed, Id, 0, &States[Id]);
}

// A 1-D random walk per thread: steps of +1 / -1 from uniform doubles; the
// final positions are integers.
__global__ void walk(curandStateMRG32k3a *States, int Steps, int *Final, double *FirstDraw, double *GaussSum) {
  int Id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStateMRG32k3a S = States[Id];
  int X = 0;
  for (int I = 0; I < Steps; ++I) {
    double U = curand_uniform_double(&S);
    if (I == 0)
      FirstDraw[Id] = U;
    X += U < 0.5 ? -1 : 1;
  }
  double G = 0;
  for (int I = 0; I < 32; ++I)
    G += curand_normal_double(&S);
  Final[Id] = X;
  GaussSum[Id] = G;
  States[Id] = S;
}

int main() {
  const unsigned long long Seed = 8675309ULL;
  double *Pos;
  CHECK(cudaMalloc(&Pos, sizeof(double) * 20));
  positions<<<1, 1>>>(Seed, Pos);
  CHECK(cudaGetLastError());
  std::vector<double> P = download(Pos, 20);
  bool Ok = true;
  const char *Names[] = {"stepped 12345", "skipahead 12345", "init offset 12345", "subsequence 1",
                         "skipahead_subsequence"};
  for (int K = 0; K < 5; ++K)
    std::printf("%-21s %.17g %.17g %.17g\n", Names[K], P[4 * K], P[4 * K + 1], P[4 * K + 3]);
  bool Same = true;
  for (int I = 0; I < 4; ++I)
    Same &= P[I] == P[4 + I] && P[I] == P[8 + I] && P[12 + I] == P[16 + I];
  std::printf("positioning identities: %s\n", Same ? "ok" : "WRONG");
  Ok &= Same;

  const int Blocks = 16, Threads = 128, N = Blocks * Threads, Steps = 400;
  curandStateMRG32k3a *States;
  int *Final;
  double *First, *Gauss;
  CHECK(cudaMalloc(&States, sizeof(curandStateMRG32k3a) * N));
  CHECK(cudaMalloc(&Final, sizeof(int) * N));
  CHECK(cudaMalloc(&First, sizeof(double) * N));
  CHECK(cudaMalloc(&Gauss, sizeof(double) * N));
  setup<<<Blocks, Threads>>>(States, Seed);
  walk<<<Blocks, Threads>>>(States, Steps, Final, First, Gauss);
  CHECK(cudaGetLastError());
  std::vector<int> F = download(Final, N);
  std::vector<double> D = download(First, N), G = download(Gauss, N);
  // Thread 1's first draw is subsequence 1's first draw.
  bool Sub = D[0] != D[1] && D[1] == P[12];
  double Sq = 0, Gs = 0;
  long long Sum = 0;
  for (int I = 0; I < N; ++I) {
    Sum += F[I];
    Sq += (double)F[I] * F[I];
    Gs += G[I] * G[I];
  }
  double Var = Sq / N, GVar = Gs / (32.0 * N);
  std::printf("walk: thread 0 ends at %d, thread %d at %d, sum %lld, mean square %.4f (steps %d)\n", F[0], N - 1,
              F[N - 1], Sum, Var, Steps);
  std::printf("walk: first draws %.17g %.17g %.17g\n", D[0], D[1], D[N - 1]);
  std::printf("gaussian steps: variance of 32-step sums / 32 = %.2f\n", GVar);
  bool Stats = std::fabs(Var / Steps - 1) < 0.1 && std::fabs(GVar - 1) < 0.1 && Sub;
  std::printf("walk statistics and subsequences: %s\n", Stats ? "ok" : "WRONG");
  Ok &= Stats;
  // A second launch continues the saved states, with different results.
  walk<<<Blocks, Threads>>>(States, Steps, Final, First, Gauss);
  std::vector<double> D2 = download(First, N);
  std::printf("second launch first draws %.17g %.17g\n", D2[0], D2[N - 1]);
  Ok &= D2[0] != D[0];
  CHECK(cudaFree(Pos));
  CHECK(cudaFree(States));
  CHECK(cudaFree(Final));
  CHECK(cudaFree(First));
  CHECK(cudaFree(Gauss));
  return finish(Ok);
}
