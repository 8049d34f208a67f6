/// \file
/// Declarations shared by the translation units of the rdc_multi app.
#pragma once
#include <cuda_runtime.h>

extern __device__ float FieldStrength;
extern __constant__ float Gravity[2];
extern __device__ unsigned int FieldEvaluations;
extern __device__ unsigned int Steps;

__device__ float2 fieldAt(float2 P);
__device__ float2 clampToBox(float2 P, float Half);

struct Particle {
  float2 Pos, Vel;
};

__global__ void stepParticles(Particle *P, int N, float Dt);
