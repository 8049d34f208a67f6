/// \file
/// A persistent-kernel solver: one cooperative launch runs 64 steps of an
/// integer 1D diffusion with grid.sync() between steps, then reduces the
/// field in two grid-synchronised phases. The grid is sized from the
/// occupancy API, as real cooperative code must; the answer does not depend
/// on the grid size.
#include "../common/app_util.h"
#include <cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void diffuse(int *A, int *B, int N, int Steps, long long *Partial, long long *Total) {
  cg::grid_group Grid = cg::this_grid();
  int Stride = gridDim.x * blockDim.x;
  int Start = blockIdx.x * blockDim.x + threadIdx.x;
  for (int S = 0; S < Steps; ++S) {
    int *In = (S & 1) ? B : A, *Out = (S & 1) ? A : B;
    for (int I = Start; I < N; I += Stride) {
      int L = I > 0 ? In[I - 1] : In[I], R = I < N - 1 ? In[I + 1] : In[I];
      Out[I] = (L + 2 * In[I] + R) / 4;
    }
    Grid.sync();
  }
  int *Final = (Steps & 1) ? B : A;
  long long Mine = 0;
  for (int I = Start; I < N; I += Stride)
    Mine += Final[I];
  Partial[Start] = Mine;
  Grid.sync();
  if (Grid.thread_rank() == 0) {
    long long T = 0;
    for (int I = 0; I < Stride; ++I)
      T += Partial[I];
    *Total = T;
  }
  Grid.sync();
  // Every thread now sees the total: normalise to parts per million.
  long long T = *Total;
  for (int I = Start; I < N; I += Stride)
    Final[I] = int((long long)Final[I] * 1000000 / (T ? T : 1));
}

int main() {
  int Coop = 0, Sms = 0;
  CHECK(cudaDeviceGetAttribute(&Coop, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("cooperative launch supported: %s\n", Coop ? "yes" : "no");
  if (!Coop)
    return finish(false);
  const int N = 20000, Steps = 64, Threads = 128;
  int PerSm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, diffuse, Threads, 0));
  int Blocks = PerSm * Sms;
  if (Blocks > 32)
    Blocks = 32;
  std::printf("occupancy allows a grid: %s\n", Blocks >= 1 ? "yes" : "no");
  std::vector<int> Init(N);
  Lcg Rng(77);
  for (auto &V : Init)
    V = int(Rng.below(100000));
  int *A, *B;
  long long *Partial, *Total;
  CHECK(cudaMalloc(&A, N * sizeof(int)));
  CHECK(cudaMalloc(&B, N * sizeof(int)));
  CHECK(cudaMalloc(&Partial, Blocks * Threads * sizeof(long long)));
  CHECK(cudaMalloc(&Total, sizeof(long long)));
  CHECK(cudaMemcpy(A, Init.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  int NArg = N, StepsArg = Steps;
  void *Args[] = {&A, &B, &NArg, &StepsArg, &Partial, &Total};
  CHECK(cudaLaunchCooperativeKernel((void *)diffuse, dim3(Blocks), dim3(Threads), Args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  std::vector<int> Got(N);
  long long GotTotal = 0;
  CHECK(cudaMemcpy(Got.data(), (Steps & 1) ? B : A, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&GotTotal, Total, sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<int> CA = Init, CB(N);
  for (int S = 0; S < Steps; ++S) {
    std::vector<int> &In = (S & 1) ? CB : CA, &Out = (S & 1) ? CA : CB;
    for (int I = 0; I < N; ++I) {
      int L = I > 0 ? In[I - 1] : In[I], R = I < N - 1 ? In[I + 1] : In[I];
      Out[I] = (L + 2 * In[I] + R) / 4;
    }
  }
  std::vector<int> &Final = (Steps & 1) ? CB : CA;
  long long T = 0;
  for (int V : Final)
    T += V;
  int Bad = 0;
  long long Ppm = 0;
  for (int I = 0; I < N; ++I) {
    int Want = int((long long)Final[I] * 1000000 / T);
    Bad += Got[I] != Want;
    Ppm += Want;
  }
  std::printf("steps=%d total=%lld (%s) ppm sum=%lld mismatches=%d\n", Steps, T, GotTotal == T ? "ok" : "MISMATCH",
              Ppm, Bad);
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFree(Partial));
  CHECK(cudaFree(Total));
  return finish(Bad == 0 && GotTotal == T);
}
