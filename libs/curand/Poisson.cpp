/// \file
/// The Poisson square-histogram tables (Poisson.h). Built with the host's
/// libm (exp, log) and no contracted multiply-adds (CMakeLists.txt gives
/// this file -ffp-contract=off), as the measured tables need.
#include "libs/curand/Poisson.h"

#include <cmath>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

namespace ferry::curand {
namespace {

std::shared_ptr<PoissonTable> build(double Lambda) {
  auto T = std::make_shared<PoissonTable>();
  std::vector<double> P;
  const double LogL = std::log(Lambda);
  double S = 0;
  bool Started = false;
  for (uint64_t Kv = 0;; ++Kv) {
    if (Kv > 0)
      S += std::log(static_cast<double>(Kv));
    double Pk = std::exp(static_cast<double>(Kv) * LogL - Lambda - S);
    if (Pk == 0) {
      if (Started)
        break;
      // Before the support: far below lambda the pmf underflows; past it
      // (S_k grows faster than k log lambda) it does too, so stop there.
      if (static_cast<double>(Kv) > Lambda)
        break;
      continue;
    }
    if (!Started) {
      Started = true;
      T->Shift = static_cast<uint32_t>(Kv);
    }
    P.push_back(Pk);
  }
  size_t N = P.size();
  if (N == 0)
    return nullptr;
  const double A = 1.0 / static_cast<double>(N);
  T->V.resize(N);
  T->K.resize(N);
  for (size_t J = 0; J < N; ++J) {
    T->V[J] = static_cast<double>(J + 1) * A;
    T->K[J] = static_cast<uint32_t>(J);
  }
  std::vector<char> Done(N, 0);
  std::vector<size_t> Large;
  for (size_t J = 0; J < N; ++J)
    if (!(P[J] < A))
      Large.push_back(J);
  bool Progress = true;
  while (Progress) {
    Progress = false;
    for (size_t J = 0; J < N; ++J) {
      if (Done[J] || !(P[J] < A))
        continue;
      while (!Large.empty() && (Done[Large.back()] || P[Large.back()] < A))
        Large.pop_back();
      if (Large.empty())
        break;
      size_t G = Large.back();
      T->K[J] = static_cast<uint32_t>(G);
      T->V[J] = static_cast<double>(J) * A + P[J];
      Done[J] = 1;
      P[G] = P[G] - (A - P[J]);
      Progress = true;
    }
  }
  for (size_t J = 0; J < N; ++J)
    if (!Done[J])
      T->V[J] = static_cast<double>(J) * A + P[J];
  return T;
}

std::mutex CacheLock;
std::deque<std::pair<double, std::shared_ptr<const PoissonTable>>> Cache;

} // namespace

namespace {

/// Fishman's inversion of U in (0, 1].
uint32_t invert(double U, double Lambda) {
  const double Magic = 500.0;
  double L, P = 1.0, Q = 1.0;
  uint32_t K = 0;
  int Pow = 0;
  do {
    if (Lambda > static_cast<double>(Pow + Magic))
      L = std::exp(-Magic);
    else
      L = std::exp(static_cast<double>(Pow - Lambda));
    P *= L;
    Q *= L;
    Pow += static_cast<int>(Magic);
    // U = 1 (a 32-bit point of all ones) may stay above Q: stop once the
    // terms vanish rather than loop for ever.
    while (U > Q && P > 0) {
      ++K;
      P *= Lambda / static_cast<double>(K);
      Q += P;
    }
  } while (static_cast<double>(Pow) < Lambda);
  return K;
}

} // namespace

uint32_t poissonInversion(uint64_t X, double Lambda) {
  return invert(static_cast<double>(X >> 11) * 1.1102230246251565e-16 + 1.1102230246251565e-16 / 4.0, Lambda);
}

uint32_t poissonInversion32(uint32_t X, double Lambda) {
  return invert((static_cast<double>(X) + 1.0) * 2.3283064365386963e-10, Lambda);
}

std::shared_ptr<const PoissonTable> poissonTable(double Lambda) {
  {
    std::lock_guard<std::mutex> Guard(CacheLock);
    for (auto &E : Cache)
      if (E.first == Lambda)
        return E.second;
  }
  std::shared_ptr<const PoissonTable> T;
  try {
    T = build(Lambda);
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
  if (!T)
    return nullptr;
  std::lock_guard<std::mutex> Guard(CacheLock);
  Cache.emplace_front(Lambda, T);
  if (Cache.size() > 8)
    Cache.pop_back();
  return T;
}

} // namespace ferry::curand
