/// \file
/// How NVIDIA's cuRAND host API spreads one generator's output over its
/// GPU threads, as measured on the H100/H200 (scripts/record-curand-goldens;
/// libs/README.md has the numbers), and the CPU code that writes the
/// same values in the same places.
///
/// The model: a call's output is a run of *units*; unit u is made by thread
/// u mod T from its own sequence (curand_init(seed, t, 0), or for the
/// SEEDED ordering curand_init(seed + t * 3133713, 0, 0)) at that thread's
/// unit index u / T, each unit taking K draws and giving U results:
///
///   engine    result            K  U   unit index of result i
///   XORWOW,   32-bit, float     1  1   Position + i
///   MRG32k3a  double            2  1   (MRG: 1 draw)
///             normal (f32/f64)  2  2   Position + i / 2   (f64 XORWOW: K 4)
///   Philox    32-bit, float,    4  4   (Position + i) / 4, lane (Position + i) % 4
///             normal f32
///             double, normal    8  4   (Position + i) / 4
///             f64
///
/// (XORWOW DYNAMIC normals: unit j of a thread starts at draw j * K / 2.)
/// T (threads): XORWOW 4096 (BEST/DEFAULT/LEGACY/SEEDED), 2816 (DYNAMIC);
/// MRG32k3a 81920 (BEST/DEFAULT), 4096 (LEGACY), 2048 per multiprocessor
/// (DYNAMIC; 270336 on the 132-SM H200); Philox 65536 for every ordering.
/// Position starts at the generator's offset and advances by the units
/// (XORWOW, MRG32k3a) or results (Philox) each call produced; the goldens
/// pin down a first call at any offset and 32-bit calls following each
/// other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ferry::curand {

enum class Engine { Xorwow, Mrg32k3a, Philox };
enum class Output { Bits, Uniform, UniformDouble, Normal, NormalDouble, LogNormal, LogNormalDouble };

/// Per-thread starting states (thread t at its sequence's start), computed
/// once per seed and thread count: the skip to subsequence t is the costly
/// part of initialising a thread.
class StateCache;

struct Layout {
  Engine Kind;
  uint64_t Seed;
  uint32_t Threads;
  bool Seeded; // the SEEDED ordering's per-thread seeds
  /// XORWOW's DYNAMIC ordering (measured): a normal unit reads its K draws
  /// from unit index j * K / 2 of its thread, so consecutive units of a
  /// thread overlap by half.
  bool HalfStepNormals = false;
};

/// Writes N results of kind What, starting at unit/result Position (see the
/// file comment), into Out (float, double or uint32_t as What says). Mean
/// and Stddev apply to the normal and log-normal results. Extra (one entry
/// per thread, sized here; null for a stateless call) carries the draws
/// each thread's earlier units took beyond one: NVIDIA's per-thread states
/// persist between calls. Returns the new Position.
uint64_t generate(const Layout &L, std::shared_ptr<StateCache> &Cache, Output What, uint64_t Position, size_t N,
                  void *Out, double Mean, double Stddev, std::vector<uint64_t> *Extra = nullptr);

/// The Position after a call of N results of kind What starting at Position.
uint64_t nextPosition(Engine E, Output What, uint64_t Position, size_t N);

} // namespace ferry::curand
