/// \file
/// cuRAND's Sobol sequences: the JOEKUO6 direction vectors (Joe & Kuo's
/// new-joe-kuo-6.21201 direction numbers, dimensions 1 to 20000, packed in
/// joe-kuo-6.bin by pack-joe-kuo) and the host API's quasi generators.
///
/// Measured on the H100 (tests/curand/SobolPoissonDump.cu, libs/README.md):
/// curandGetDirectionVectors32/64 give, for dimension d, v_k = m_k 2^(w-1-k)
/// for k < s and Bratley-Fox's recurrence beyond (dimension 1: 2^(w-1-k)),
/// identical to the tables ferry computes for all 20000 dimensions (32-bit)
/// and the 2500 recorded (64-bit). A generator with D dimensions writes a
/// call of N results dimension by dimension: result d * (N / D) + i is
/// point Position + i of dimension d, point n being the XOR of v_k over the
/// set bits k of n's Gray code (the device API's curand_init(vectors[d],
/// n)); Position starts at the offset and advances by N / D per call.
#pragma once

#include "libs/curand/Generate.h"

#include <cstddef>
#include <cstdint>

namespace ferry::curand {

constexpr unsigned SobolMaxDimensions = 20000;

/// The JOEKUO6 tables, SobolMaxDimensions rows of 32 or 64 vectors, built
/// once on first use and kept for the process (curandGetDirectionVectors*
/// hands out these pointers).
const uint32_t *sobolDirections32();
const uint64_t *sobolDirections64();

/// N results of kind What (Bits: 32- or 64-bit as Is64) from a Sobol
/// generator of Dimensions dimensions at point Position (see the file
/// comment); N is a multiple of Dimensions.
void generateSobol(bool Is64, unsigned Dimensions, Output What, uint64_t Position, size_t N, void *Out, double Mean,
                   double Stddev);

} // namespace ferry::curand
