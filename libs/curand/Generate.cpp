/// \file
/// Writing cuRAND's host-API results in NVIDIA's order (see Generate.h).
#include "libs/curand/Generate.h"
#include "libs/curand/Distributions.h"
#include "libs/curand/Engines.h"

#include <cmath>
#include <cstring>

namespace ferry::curand {

class StateCache {
public:
  Layout Key;
  std::vector<Xorwow> X;
  std::vector<Mrg32k3a> M;
};

namespace {

/// Per-thread draws: Philox keeps nothing (its init is counter arithmetic);
/// XORWOW and MRG32k3a start from the cached state of their thread.
struct ThreadSource {
  Engine Kind;
  Xorwow X;
  Mrg32k3a M;
  Philox P;

  void start(const Layout &L, StateCache &C, uint64_t Thread, uint64_t Draw) {
    switch (Kind) {
    case Engine::Xorwow:
      X = C.X[Thread];
      // Stepping is cheaper than a matrix skip for short distances.
      if (Draw < 512)
        for (uint64_t I = 0; I < Draw; ++I)
          X.next();
      else
        X.skip(Draw);
      break;
    case Engine::Mrg32k3a:
      M = C.M[Thread];
      if (Draw < 64)
        for (uint64_t I = 0; I < Draw; ++I)
          M.nextRaw();
      else
        M.skip(Draw);
      break;
    case Engine::Philox:
      P.init(L.Seed, Thread, Draw);
      break;
    }
  }
  uint32_t next() {
    switch (Kind) {
    case Engine::Xorwow:
      return X.next();
    case Engine::Mrg32k3a:
      return M.next();
    case Engine::Philox:
      break;
    }
    return P.next();
  }
};

constexpr uint32_t SeededStride = 3133713; // measured: thread t seeds with seed + t * 3133713

void fillCache(const Layout &L, StateCache &C) {
  C.Key = L;
  if (L.Kind == Engine::Xorwow) {
    C.X.resize(L.Threads);
    for (uint32_t T = 0; T < L.Threads; ++T) {
      if (L.Seeded)
        C.X[T].init(L.Seed + static_cast<uint64_t>(T) * SeededStride, 0, 0);
      else if (T == 0)
        C.X[T].init(L.Seed, 0, 0);
      else {
        // Subsequence t from subsequence t - 1: one 2^67-step skip each.
        C.X[T] = C.X[T - 1];
        C.X[T].skipSubsequences(1);
      }
    }
  } else if (L.Kind == Engine::Mrg32k3a) {
    C.M.resize(L.Threads);
    for (uint32_t T = 0; T < L.Threads; ++T) {
      if (T == 0)
        C.M[T].init(L.Seed, 0, 0);
      else {
        C.M[T] = C.M[T - 1];
        C.M[T].skipSubsequences(1);
      }
    }
  }
}

struct Shape {
  unsigned K, U;     // draws per unit, results per unit
  bool ResultIndexed; // Philox: Position counts results, not units
};

Shape shapeOf(Engine E, Output W) {
  bool Dbl = W == Output::UniformDouble || W == Output::NormalDouble || W == Output::LogNormalDouble;
  bool Normal = W == Output::Normal || W == Output::NormalDouble || W == Output::LogNormal ||
                W == Output::LogNormalDouble;
  switch (E) {
  case Engine::Philox:
    return Dbl ? Shape{8, 4, true} : Shape{4, 4, true};
  case Engine::Mrg32k3a:
    return Normal ? Shape{2, 2, false} : Shape{1, 1, false};
  case Engine::Xorwow:
    break;
  }
  if (W == Output::UniformDouble)
    return {2, 1, false};
  if (W == Output::NormalDouble || W == Output::LogNormalDouble)
    return {4, 2, false};
  if (Normal)
    return {2, 2, false};
  return {1, 1, false};
}

/// One unit's results from its draws.
void makeUnit(Engine E, Output W, ThreadSource &S, unsigned K, double Mean, double Stddev, uint32_t *Bits,
              float *F, double *D) {
  if (E == Engine::Mrg32k3a) {
    // MRG32k3a's conversions use the recurrences' value, not 32 bits.
    double R1 = S.M.nextRaw();
    switch (W) {
    case Output::Bits:
      Bits[0] = static_cast<uint32_t>(R1 * 1.000000048662);
      return;
    case Output::Uniform:
      F[0] = static_cast<float>(R1 * MrgNorm);
      return;
    case Output::UniformDouble:
      D[0] = R1 * MrgNorm;
      return;
    default:
      break;
    }
    double R2 = S.M.nextRaw();
    if (W == Output::Normal || W == Output::LogNormal) {
      auto [A, B] = boxMullerMrg(R1, R2);
      F[0] = A;
      F[1] = B;
    } else {
      auto [A, B] = boxMullerMrgDouble(R1, R2);
      D[0] = A;
      D[1] = B;
    }
  } else {
    uint32_t X[8];
    for (unsigned I = 0; I < K; ++I)
      X[I] = S.next();
    switch (W) {
    case Output::Bits:
      std::memcpy(Bits, X, K * sizeof(uint32_t));
      return;
    case Output::Uniform:
      for (unsigned I = 0; I < K; ++I)
        F[I] = uniformFloat(X[I]);
      return;
    case Output::UniformDouble:
      for (unsigned I = 0; I < K / 2; ++I)
        D[I] = uniformDoubleHq(X[2 * I], X[2 * I + 1]);
      return;
    case Output::Normal:
    case Output::LogNormal:
      for (unsigned I = 0; I < K / 2; ++I) {
        auto [A, B] = boxMuller(X[2 * I], X[2 * I + 1]);
        F[2 * I] = A;
        F[2 * I + 1] = B;
      }
      break;
    case Output::NormalDouble:
    case Output::LogNormalDouble:
      for (unsigned I = 0; I < K / 4; ++I) {
        auto [A, B] = boxMullerDouble(X[4 * I], X[4 * I + 1], X[4 * I + 2], X[4 * I + 3]);
        D[2 * I] = A;
        D[2 * I + 1] = B;
      }
      break;
    }
  }
  // mean + stddev * n, contracted as nvcc does; log-normal is its exp.
  unsigned U = E == Engine::Philox ? 4 : 2;
  if (W == Output::Normal)
    for (unsigned I = 0; I < U; ++I)
      F[I] = std::fma(F[I], static_cast<float>(Stddev), static_cast<float>(Mean));
  else if (W == Output::LogNormal)
    for (unsigned I = 0; I < U; ++I)
      F[I] = static_cast<float>(
          std::exp(static_cast<double>(std::fma(F[I], static_cast<float>(Stddev), static_cast<float>(Mean)))));
  else if (W == Output::NormalDouble)
    for (unsigned I = 0; I < U; ++I)
      D[I] = std::fma(D[I], Stddev, Mean);
  else if (W == Output::LogNormalDouble)
    for (unsigned I = 0; I < U; ++I)
      D[I] = static_cast<double>(std::exp(static_cast<long double>(std::fma(D[I], Stddev, Mean))));
}

} // namespace

uint64_t nextPosition(Engine E, Output What, uint64_t Position, size_t N) {
  Shape Sh = shapeOf(E, What);
  return Sh.ResultIndexed ? Position + N : Position + (N + Sh.U - 1) / Sh.U;
}

uint64_t generate(const Layout &L, std::shared_ptr<StateCache> &Cache, Output What, uint64_t Position, size_t N,
                  void *Out, double Mean, double Stddev, std::vector<uint64_t> *Extra) {
  if (!Cache || Cache->Key.Kind != L.Kind || Cache->Key.Seed != L.Seed || Cache->Key.Threads != L.Threads ||
      Cache->Key.Seeded != L.Seeded) {
    Cache = std::make_shared<StateCache>();
    fillCache(L, *Cache);
  }
  Shape Sh = shapeOf(L.Kind, What);
  // Result indices [GBegin, GEnd) in the generator's result space.
  uint64_t GBegin = Sh.ResultIndexed ? Position : Position * Sh.U;
  uint64_t GEnd = GBegin + N;
  uint64_t UBegin = GBegin / Sh.U, UEnd = (GEnd + Sh.U - 1) / Sh.U;
  uint64_t Threads = L.Threads;
  uint64_t Busy = UEnd - UBegin < Threads ? UEnd - UBegin : Threads;
  size_t Elem = What == Output::UniformDouble || What == Output::NormalDouble || What == Output::LogNormalDouble ? 8 : 4;
  auto *Dst = static_cast<unsigned char *>(Out);
  bool Normal = What != Output::Bits && What != Output::Uniform && What != Output::UniformDouble;
  unsigned Advance = L.HalfStepNormals && Normal ? Sh.K / 2 : Sh.K; // draws between a thread's units
  // Every busy thread's state, then the units in output order: consecutive
  // units belong to consecutive threads, so the writes are sequential (a
  // thread-by-thread walk would write with a stride of T results).
  std::vector<ThreadSource> States(Busy, ThreadSource{L.Kind, {}, {}, {}});
  // A thread's states persist between calls, as NVIDIA's do: its first
  // unit of this call starts at draw U0 / T of its sequence plus the draws
  // its earlier units took beyond one each (Extra, measured on the H100:
  // XORWOW doubles after 20100 32-bit units start at draw 4 of thread 3716,
  // not 8, apps/curand_host_gen; MRG32k3a normal doubles after log-normal
  // pairs, apps/curand_lognormal). Later units follow K draws apart.
  // DYNAMIC's half-step normals read unit j from draw j * K / 2; Philox
  // counts results.
  bool Persist = Extra && Advance == Sh.K && !Sh.ResultIndexed;
  if (Persist && Extra->size() != Threads)
    Extra->assign(Threads, 0);
  for (uint64_t K = 0; K < Busy; ++K) {
    uint64_t U0 = UBegin + K;
    uint64_t Draw = Persist ? U0 / Threads + (*Extra)[U0 % Threads] : (U0 / Threads) * Advance;
    States[K].start(L, *Cache, U0 % Threads, Draw);
  }
  if (Persist && Sh.K > 1)
    for (uint64_t U = UBegin; U < UEnd; ++U)
      (*Extra)[U % Threads] += Sh.K - 1;
  for (uint64_t U = UBegin, K = 0; U < UEnd; ++U, K = K + 1 == Threads ? 0 : K + 1) {
    ThreadSource &S = States[K];
    uint32_t Bits[8];
    float F[8];
    double D[8];
    if (Advance == Sh.K) {
      makeUnit(L.Kind, What, S, Sh.K, Mean, Stddev, Bits, F, D);
    } else {
      ThreadSource Copy = S;
      makeUnit(L.Kind, What, Copy, Sh.K, Mean, Stddev, Bits, F, D);
      for (unsigned I = 0; I < Advance; ++I)
        S.next();
    }
    for (unsigned Lane = 0; Lane < Sh.U; ++Lane) {
      uint64_t G = U * Sh.U + Lane;
      if (G < GBegin || G >= GEnd)
        continue;
      unsigned char *P = Dst + (G - GBegin) * Elem;
      if (What == Output::Bits)
        std::memcpy(P, &Bits[Lane], 4);
      else if (Elem == 4)
        std::memcpy(P, &F[Lane], 4);
      else
        std::memcpy(P, &D[Lane], 8);
    }
  }
  return Sh.ResultIndexed ? Position + N : UEnd;
}

} // namespace ferry::curand
