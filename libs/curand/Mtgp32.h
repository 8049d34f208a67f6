/// \file
/// cuRAND's MTGP32 generator (Saito and Matsumoto's Mersenne Twister for
/// Graphic Processors, period 2^11213 - 1) as NVIDIA's host API lays it
/// out, measured on the H100 (libs/README.md):
///
/// - Block b (0 .. B-1) runs parameter set b of mtgp32dc_params_fast_11213
///   (libs/curand/mtgp32-11213.bin) from the state the device API's
///   curandMakeMTGP32KernelState gives it: mtgp32_init_state with the
///   32-bit seed (uint32_t)(seed + b + 1).
/// - Its sequence is x[k + 351] = rec(x[k], x[k+1], x[k+pos]) and output k
///   is temper(x[k + 351], x[k + pos - 1]), as curand(curandStateMtgp32_t*)
///   computes it (any block width up to 256 gives the same sequence).
/// - Result i of the generator (its Position counts results, whatever
///   their kind) is output (i / 256B) * 256 + i % 256 of block (i / 256) % B:
///   blocks take turns in runs of 256. B is 192 (DEFAULT, BEST) or 64
///   (LEGACY); the DYNAMIC ordering is laid out otherwise (not reproduced).
/// - NVIDIA makes whole rounds of 256B results and keeps what a call did
///   not take: after curandSetPseudoRandomGeneratorSeed, the rest of the
///   round the last call reached still comes from the old seed, and the
///   next round is round 0 of the new seed's fresh states (measured: a
///   reseed to 99 after 65536 results gave results 65536..98303 of seed
///   1234, then seed 99's first round). An Epoch records that.
/// - The 64-bit seed enters as (uint32_t)(seed ^ (seed >> 32)) (measured
///   with seed 0x0123456789abcdef).
/// - Each result is made from its one 32-bit output: uniforms as
///   _curand_uniform(_double), normals and log-normals by the inverse CDF
///   (_curand_normal_icdf(_double)), Poisson by the square-histogram table.
#pragma once

#include "libs/curand/Generate.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ferry::curand {

/// The blocks' states where the last call left them, to continue from.
class Mtgp32Cache;

/// From round FirstRound on, results come from Seed's fresh states.
struct Mtgp32Epoch {
  uint64_t FirstRound;
  uint64_t Seed;
};

/// Results per round: 256 per block.
inline uint64_t mtgp32Round(unsigned Blocks) { return uint64_t(256) * Blocks; }

/// Writes results [Position, Position + N) of kind What into Out; Epochs
/// is sorted by FirstRound, the first one starting at round 0.
void generateMtgp32(const std::vector<Mtgp32Epoch> &Epochs, unsigned Blocks, std::shared_ptr<Mtgp32Cache> &Cache,
                    Output What, uint64_t Position, size_t N, void *Out, double Mean, double Stddev);

/// One result of kind What from a 32-bit output (uniforms, inverse-CDF
/// normals), as NVIDIA's MTGP32 and MT19937 host generators convert them.
void convertFrom32(Output What, const uint32_t *X, size_t N, void *Out, double Mean, double Stddev);

} // namespace ferry::curand
