/// \file
/// The force field of the rdc_multi app: device state and functions defined
/// here and used from particles.cu and main.cu through extern declarations
/// (needs -rdc=true).
#include "field.h"

__device__ float FieldStrength = 1.0f;
__constant__ float Gravity[2] = {0.0f, -0.5f};
__device__ unsigned int FieldEvaluations = 0;

__device__ float2 fieldAt(float2 P) {
  atomicAdd(&FieldEvaluations, 1u);
  // A swirl around the origin plus constant gravity.
  return make_float2(-P.y * FieldStrength * 0.125f + Gravity[0], P.x * FieldStrength * 0.125f + Gravity[1]);
}
