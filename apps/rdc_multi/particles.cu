/// \file
/// The integrator of the rdc_multi app: a kernel in this file calls device
/// functions from field.cu and main.cu and updates a __device__ counter
/// defined in main.cu.
#include "field.h"

__global__ void stepParticles(Particle *P, int N, float Dt) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I == 0)
    atomicAdd(&Steps, 1u);
  if (I < N) {
    float2 F = fieldAt(P[I].Pos);
    P[I].Vel.x += F.x * Dt;
    P[I].Vel.y += F.y * Dt;
    P[I].Pos.x += P[I].Vel.x * Dt;
    P[I].Pos.y += P[I].Vel.y * Dt;
    P[I].Pos = clampToBox(P[I].Pos, 8.0f);
  }
}
