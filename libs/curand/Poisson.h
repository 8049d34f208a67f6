/// \file
/// cuRAND's Poisson distribution: the square-histogram table that
/// curandCreatePoissonDistribution builds and curandGeneratePoisson looks
/// its results up in, as measured on the H100 (libs/README.md; every table
/// dumped there, lambda 0.5 to 1000, is this one word for word):
///
/// - p_k = exp(k log(lambda) - lambda - S_k) in double, S_k the running sum
///   log(1) + ... + log(k); the table covers the k where p_k is not zero
///   (shift = the first of them, length n = how many);
/// - a = 1/n; V[j] = (j + 1) a and K[j] = j to begin with; then sweeps over
///   j = 0 ... n - 1, again until a sweep changes nothing: an entry not yet
///   done with P[j] < a takes as its alias g the highest-index entry not
///   done with P[g] >= a (a stack of the initially large ones), K[j] = g,
///   V[j] = j a + P[j], and P[g] = P[g] - (a - P[j]); entries left over get
///   V[j] = j a + P[j].
/// - A result from 32-bit x: u = x 2^-32 + 2^-33, j = floor(n u),
///   shift + (u < V[j] ? j : K[j]) (curand_poisson.h's _curand_M2_double).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace ferry::curand {

struct PoissonTable {
  uint32_t Shift = 0;
  std::vector<double> V;
  std::vector<uint32_t> K;

  uint32_t lookup(uint32_t X) const {
    double U = static_cast<double>(X) * 2.3283064365386963e-10 + 2.3283064365386963e-10 / 2.0;
    size_t J = static_cast<size_t>(static_cast<double>(V.size()) * U);
    if (J >= V.size())
      J = V.size() - 1;
    return Shift + (U < V[J] ? static_cast<uint32_t>(J) : K[J]);
  }
};

/// curand_poisson.h's _curand_poisson_ITR_double (Fishman's inversion in
/// steps of e^-500), which NVIDIA's host API uses for Sobol64's 64-bit
/// points (measured at lambda 3.5 to 100) and for Sobol32's 32-bit points
/// from lambda 10 on (measured); Lambda < 1000. A 64-bit point is
/// u = (x >> 11) 2^-53 + 2^-55 (the device API's), a 32-bit one
/// u = (x + 1) 2^-32 (measured: not the device API's x 2^-32 + 2^-33).
uint32_t poissonInversion(uint64_t X, double Lambda);
uint32_t poissonInversion32(uint32_t X, double Lambda);

/// The table for Lambda (> 0), built once per lambda and kept (a few
/// recent ones); null when it would not fit in memory.
std::shared_ptr<const PoissonTable> poissonTable(double Lambda);

} // namespace ferry::curand
