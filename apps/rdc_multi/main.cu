/// \file
/// Separate compilation (-rdc=true): the host program of a particle
/// simulation whose kernel lives in particles.cu and whose field lives in
/// field.cu. The host sets and reads device variables defined in other
/// translation units by symbol, and this file defines a device function and
/// a counter the other files use.
#include "../common/app_util.h"
#include "field.h"
#include <vector>

__device__ unsigned int Steps = 0;

__device__ float2 clampToBox(float2 P, float Half) {
  return make_float2(fminf(fmaxf(P.x, -Half), Half), fminf(fmaxf(P.y, -Half), Half));
}

int main() {
  const int N = 2048, NumSteps = 50;
  const float Dt = 0.05f, Strength = 2.0f;
  std::vector<Particle> Host(N);
  Lcg Rng(9);
  for (auto &P : Host)
    P = {{Rng.range(-4.f, 4.f), Rng.range(-4.f, 4.f)}, {0.f, 0.f}};
  CHECK(cudaMemcpyToSymbol(FieldStrength, &Strength, sizeof(float)));
  float G[2] = {0.1f, -0.25f};
  CHECK(cudaMemcpyToSymbol(Gravity, G, sizeof(G)));
  Particle *Dev;
  CHECK(cudaMalloc(&Dev, N * sizeof(Particle)));
  CHECK(cudaMemcpy(Dev, Host.data(), N * sizeof(Particle), cudaMemcpyHostToDevice));
  for (int S = 0; S < NumSteps; ++S)
    stepParticles<<<N / 128, 128>>>(Dev, N, Dt);
  CHECK(cudaGetLastError());
  std::vector<Particle> Got(N);
  CHECK(cudaMemcpy(Got.data(), Dev, N * sizeof(Particle), cudaMemcpyDeviceToHost));
  unsigned Evals = 0, StepCount = 0;
  CHECK(cudaMemcpyFromSymbol(&Evals, FieldEvaluations, sizeof(unsigned)));
  CHECK(cudaMemcpyFromSymbol(&StepCount, Steps, sizeof(unsigned)));
  // CPU reference of the same integrator (fused multiply-adds as the GPU
  // would contract them are within the tolerance).
  std::vector<Particle> Ref = Host;
  for (int S = 0; S < NumSteps; ++S)
    for (auto &P : Ref) {
      float Fx = -P.Pos.y * Strength * 0.125f + G[0], Fy = P.Pos.x * Strength * 0.125f + G[1];
      P.Vel.x += Fx * Dt;
      P.Vel.y += Fy * Dt;
      P.Pos.x += P.Vel.x * Dt;
      P.Pos.y += P.Vel.y * Dt;
      P.Pos.x = std::fmin(std::fmax(P.Pos.x, -8.f), 8.f);
      P.Pos.y = std::fmin(std::fmax(P.Pos.y, -8.f), 8.f);
    }
  int Bad = 0;
  double SX = 0, SY = 0;
  for (int I = 0; I < N; ++I) {
    Bad += !closeTo(Got[I].Pos.x, Ref[I].Pos.x, 1e-4, 1e-4) || !closeTo(Got[I].Pos.y, Ref[I].Pos.y, 1e-4, 1e-4);
    SX += Ref[I].Pos.x;
    SY += Ref[I].Pos.y;
  }
  std::printf("particles=%d steps=%u field evaluations=%u\n", N, StepCount, Evals);
  std::printf("mean position=(%.3f, %.3f) mismatches=%d\n", SX / N, SY / N, Bad);
  CHECK(cudaFree(Dev));
  return finish(Bad == 0 && StepCount == NumSteps && Evals == unsigned(N * NumSteps));
}
