/// \file
/// 2D heat diffusion with a 5-point stencil on a 256x256 plate: shared-memory
/// tiles with halos, fixed hot and cold boundaries, double-buffered over 100
/// steps, then the plate's mean temperature and a probe profile.
#include "../common/app_util.h"
#include <vector>

constexpr int NX = 256, NY = 256, B = 16;

__global__ void step(const float *In, float *Out, float Alpha) {
  __shared__ float T[B + 2][B + 2];
  int X = blockIdx.x * B + threadIdx.x, Y = blockIdx.y * B + threadIdx.y;
  int TX = threadIdx.x + 1, TY = threadIdx.y + 1;
  T[TY][TX] = In[Y * NX + X];
  if (threadIdx.x == 0)
    T[TY][0] = X > 0 ? In[Y * NX + X - 1] : 0.f;
  if (threadIdx.x == B - 1)
    T[TY][B + 1] = X < NX - 1 ? In[Y * NX + X + 1] : 0.f;
  if (threadIdx.y == 0)
    T[0][TX] = Y > 0 ? In[(Y - 1) * NX + X] : 0.f;
  if (threadIdx.y == B - 1)
    T[B + 1][TX] = Y < NY - 1 ? In[(Y + 1) * NX + X] : 0.f;
  __syncthreads();
  float V;
  if (X == 0 || Y == 0 || X == NX - 1 || Y == NY - 1)
    V = In[Y * NX + X]; // boundary stays fixed
  else
    V = T[TY][TX] + Alpha * (T[TY][TX - 1] + T[TY][TX + 1] + T[TY - 1][TX] + T[TY + 1][TX] - 4.f * T[TY][TX]);
  Out[Y * NX + X] = V;
}

int main() {
  const int Steps = 100;
  const float Alpha = 0.2f;
  std::vector<float> Plate(NX * NY, 20.f);
  for (int X = 0; X < NX; ++X) {
    Plate[X] = 100.f;                 // hot top edge
    Plate[(NY - 1) * NX + X] = 0.f;   // cold bottom edge
  }
  float *A, *Bf;
  CHECK(cudaMalloc(&A, NX * NY * sizeof(float)));
  CHECK(cudaMalloc(&Bf, NX * NY * sizeof(float)));
  CHECK(cudaMemcpy(A, Plate.data(), NX * NY * sizeof(float), cudaMemcpyHostToDevice));
  dim3 Grid(NX / B, NY / B), Block(B, B);
  for (int S = 0; S < Steps; ++S) {
    step<<<Grid, Block>>>(S % 2 ? Bf : A, S % 2 ? A : Bf, Alpha);
  }
  CHECK(cudaGetLastError());
  std::vector<float> Got(NX * NY);
  CHECK(cudaMemcpy(Got.data(), Steps % 2 ? Bf : A, NX * NY * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> C(Plate.begin(), Plate.end()), D(NX * NY);
  for (int S = 0; S < Steps; ++S) {
    for (int Y = 0; Y < NY; ++Y)
      for (int X = 0; X < NX; ++X) {
        int I = Y * NX + X;
        if (X == 0 || Y == 0 || X == NX - 1 || Y == NY - 1)
          D[I] = C[I];
        else
          D[I] = C[I] + Alpha * (C[I - 1] + C[I + 1] + C[I - NX] + C[I + NX] - 4 * C[I]);
      }
    std::swap(C, D);
  }
  int Bad = 0;
  double Mean = 0;
  for (int I = 0; I < NX * NY; ++I) {
    Bad += !closeTo(Got[I], C[I], 1e-4, 1e-3);
    Mean += C[I];
  }
  Mean /= NX * NY;
  std::printf("plate %dx%d steps=%d mean=%.4f mismatches=%d\n", NX, NY, Steps, Mean, Bad);
  std::printf("probe column 128:");
  for (int Y = 0; Y < 12; Y += 2)
    std::printf(" %.3f", C[Y * NX + 128]);
  std::printf("\n");
  CHECK(cudaFree(A));
  CHECK(cudaFree(Bf));
  return finish(Bad == 0);
}
