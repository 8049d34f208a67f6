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
///
/// Scrambled Sobol (CURAND_RNG_QUASI_SCRAMBLED_SOBOL32/64): the same with
/// the scrambled direction vectors, point n starting from the dimension's
/// scramble constant instead of 0. Those tables are regenerated here from
/// their definition, found by matching NVIDIA's (libs/README.md): the
/// 32-bit XORWOW results of seed 0 in the host API's default ordering,
/// word w_i, read as 64-bit values u_k = w_(2k+1) | w_(2k+2) << 32. Row i of
/// dimension d's unit lower triangular 64 x 64 scrambling matrix L_d is
/// u_(64d+i) keeping columns j < i only, with the diagonal set (column j
/// at bit 63 - j); the scrambled vectors are L_d v_k over GF(2);
/// constant d is u_(1280000+d). The 32-bit vectors (k < 32) and constants
/// are the 64-bit ones' upper halves.
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

/// The scrambled JOEKUO6 tables (same layout) and the scramble constants
/// (one per dimension), built together once on first use.
const uint32_t *scrambledDirections32();
const uint64_t *scrambledDirections64();
const uint32_t *scrambleConstants32();
const uint64_t *scrambleConstants64();

/// N results of kind What (Bits: 32- or 64-bit as Is64) from a Sobol
/// generator of Dimensions dimensions at point Position (see the file
/// comment); N is a multiple of Dimensions. Scrambled: the scrambled
/// Sobol generator's points.
void generateSobol(bool Is64, bool Scrambled, unsigned Dimensions, Output What, uint64_t Position, size_t N,
                   void *Out, double Mean, double Stddev);

} // namespace ferry::curand
