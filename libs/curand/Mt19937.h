/// \file
/// cuRAND's MT19937 generator (Matsumoto and Nishimura's Mersenne Twister)
/// as NVIDIA's host API lays it out, measured on the H100 (libs/README.md):
///
/// - 8192 generators. Generator 0 is init_genrand(seed) (std::mt19937);
///   generator g is generator 0 advanced g * 2^2048 words of its sequence
///   (found by recovering each generator's state from its outputs and
///   dividing by generator 0's in GF(2)[x] modulo MT19937's characteristic
///   polynomial: generator 1's jump polynomial is x^(2^2048), 2's and 4's
///   x^(2^2049) and x^(2^2050)). ferry jumps with the polynomials
///   x^(2^(2048+p)) mod P (p = 0..12) that libs/curand/pack-mt19937 derives
///   into mt19937-jump.bin, by Horner's rule over byte digits.
/// - Result v = 65536 R + 8 g + j is lane j (0-7) of generator g in round
///   R: twist T = R / 78 of the generator (its outputs 624 T ..), local
///   round r = R % 78; r = 0 gives lane j word 0, 113, 170, 283, 340, 397,
///   510, 567 of the twist, r = 1 + 7 q + i word o_q + 7 j + i with
///   o = 1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568 (the order
///   eight GPU threads sharing one generator compute the words in).
/// - The 64-bit seed enters as its low 32 bits (measured with seed
///   0x0123456789abcdef; MTGP32 folds seed ^ seed >> 32 instead).
/// - A new seed starts the sequence over (Api.cpp: the position goes back
///   to 0; measured after 1000 and 70000 results).
/// - Each result is made from its one 32-bit output x: doubles are
///   (x + 1/2) 2^-32, floats that double rounded to float (not MTGP32's
///   float formula); normals and log-normals as MTGP32's (convertFrom32).
#pragma once

#include "libs/curand/Generate.h"
#include "libs/curand/Mtgp32.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ferry::curand {

/// The generators' states where the last call left them.
class Mt19937Cache;

/// From round FirstRound on, results come from Seed's fresh states (its
/// round R - FirstRound): the same bookkeeping as MTGP32's.
using Mt19937Epoch = Mtgp32Epoch;

/// Results per round: 8 from each of the 8192 generators.
constexpr uint64_t Mt19937Round = 65536;

/// Writes results [Position, Position + N) of kind What into Out; Epochs
/// is sorted by FirstRound, the first one starting at round 0.
void generateMt19937(const std::vector<Mt19937Epoch> &Epochs, std::shared_ptr<Mt19937Cache> &Cache, Output What,
                     uint64_t Position, size_t N, void *Out, double Mean, double Stddev);

/// Generator G's state (the 624 words x[0..623] its first twist reads) for
/// Seed, as NVIDIA's host API starts it (for tests).
std::vector<uint32_t> mt19937InitialState(uint32_t Seed, unsigned G);

} // namespace ferry::curand
