/// \file
/// Conway's Game of Life on a 256x256 torus for 100 generations: byte
/// cells, a shared-memory tile with a one-cell wrapped halo, double
/// buffering, and a population count per generation via atomics. A glider
/// gun-free random soup plus a known glider are checked against the CPU.
#include "../common/app_util.h"
#include <vector>

constexpr int N = 256, B = 16;

__global__ void life(const unsigned char *In, unsigned char *Out, int *Pop) {
  __shared__ unsigned char S[B + 2][B + 2];
  int X = blockIdx.x * B + threadIdx.x, Y = blockIdx.y * B + threadIdx.y;
  // Load the tile and its halo (each thread loads up to 4 cells).
  for (int DY = threadIdx.y; DY < B + 2; DY += B)
    for (int DX = threadIdx.x; DX < B + 2; DX += B) {
      int GX = (blockIdx.x * B + DX - 1 + N) % N, GY = (blockIdx.y * B + DY - 1 + N) % N;
      S[DY][DX] = In[GY * N + GX];
    }
  __syncthreads();
  int TX = threadIdx.x + 1, TY = threadIdx.y + 1, Nb = 0;
  for (int DY = -1; DY <= 1; ++DY)
    for (int DX = -1; DX <= 1; ++DX)
      if (DX || DY)
        Nb += S[TY + DY][TX + DX];
  unsigned char Alive = S[TY][TX];
  unsigned char Next = (Nb == 3 || (Alive && Nb == 2)) ? 1 : 0;
  Out[Y * N + X] = Next;
  if (Next)
    atomicAdd(Pop, 1);
}

int main() {
  const int Gens = 100;
  std::vector<unsigned char> Grid(N * N, 0);
  Lcg Rng(1970);
  for (int Y = 0; Y < N / 2; ++Y) // soup in the top half
    for (int X = 0; X < N; ++X)
      Grid[Y * N + X] = Rng.below(100) < 30;
  int GX = 20, GY = 200; // a glider in the empty bottom half
  int Glider[5][2] = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
  for (auto &C : Glider)
    Grid[(GY + C[1]) * N + GX + C[0]] = 1;
  unsigned char *A, *Bf;
  int *DPop;
  CHECK(cudaMalloc(&A, N * N));
  CHECK(cudaMalloc(&Bf, N * N));
  CHECK(cudaMalloc(&DPop, Gens * sizeof(int)));
  CHECK(cudaMemset(DPop, 0, Gens * sizeof(int)));
  CHECK(cudaMemcpy(A, Grid.data(), N * N, cudaMemcpyHostToDevice));
  for (int G = 0; G < Gens; ++G)
    life<<<dim3(N / B, N / B), dim3(B, B)>>>(G % 2 ? Bf : A, G % 2 ? A : Bf, DPop + G);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> Got(N * N);
  std::vector<int> Pop(Gens);
  CHECK(cudaMemcpy(Got.data(), Gens % 2 ? Bf : A, N * N, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Pop.data(), DPop, Gens * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> C = Grid, D(N * N);
  int BadPop = 0;
  std::vector<int> WantPop(Gens);
  for (int G = 0; G < Gens; ++G) {
    int P = 0;
    for (int Y = 0; Y < N; ++Y)
      for (int X = 0; X < N; ++X) {
        int Nb = 0;
        for (int DY = -1; DY <= 1; ++DY)
          for (int DX = -1; DX <= 1; ++DX)
            if (DX || DY)
              Nb += C[((Y + DY + N) % N) * N + (X + DX + N) % N];
        D[Y * N + X] = (Nb == 3 || (C[Y * N + X] && Nb == 2)) ? 1 : 0;
        P += D[Y * N + X];
      }
    std::swap(C, D);
    WantPop[G] = P;
    BadPop += Pop[G] != P;
  }
  int Bad = 0;
  for (int I = 0; I < N * N; ++I)
    Bad += Got[I] != C[I];
  std::printf("generations=%d population: start=%d gen10=%d gen50=%d gen100=%d\n", Gens, WantPop[0], WantPop[9],
              WantPop[49], WantPop[99]);
  std::printf("cell mismatches=%d population mismatches=%d\n", Bad, BadPop);
  CHECK(cudaFree(A));
  CHECK(cudaFree(Bf));
  CHECK(cudaFree(DPop));
  return finish(Bad == 0 && BadPop == 0);
}
