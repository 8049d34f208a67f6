/// \file
/// What the cuFFT apps share: a status check, a reference DFT in double
/// (separable over the dimensions, twiddles from exact index products, so
/// it is accurate to a few ulps of double) and error measures. Included by
/// relative path, so each app still builds with one plain nvcc command.
#pragma once
#include "lib_util.h"
#include <complex>
#include <cufft.h>

#define CUFFT_CHECK(Call) LIB_CHECK("cuFFT", Call)

using Cd = std::complex<double>;

/// DFT of X (row-major, extents N) along every dimension; Sign -1 is
/// cuFFT's forward direction. Unnormalised, as cuFFT.
inline std::vector<Cd> refDft(std::vector<Cd> X, const std::vector<int> &N, int Sign) {
  size_t Total = X.size();
  size_t Inner = Total;
  for (size_t D = 0; D < N.size(); ++D) {
    int Len = N[D];
    Inner /= Len;
    std::vector<Cd> Tw(Len), In(Len);
    for (int K = 0; K < Len; ++K)
      Tw[K] = std::polar(1.0, Sign * 2.0 * M_PI * K / Len);
    size_t Outer = Total / (Inner * Len);
    for (size_t O = 0; O < Outer; ++O)
      for (size_t I = 0; I < Inner; ++I) {
        Cd *Base = &X[O * Len * Inner + I];
        for (int J = 0; J < Len; ++J)
          In[J] = Base[J * Inner];
        for (int K = 0; K < Len; ++K) {
          Cd S = 0;
          for (int J = 0; J < Len; ++J)
            S += In[J] * Tw[(size_t)J * K % Len];
          Base[K * Inner] = S;
        }
      }
  }
  return X;
}

/// max |Got - Want| / max |Want|.
template <typename T> inline double relError(const std::vector<T> &Got, const std::vector<Cd> &Want) {
  double E = 0, M = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    E = std::max(E, std::abs(Cd(Got[I].x, Got[I].y) - Want[I]));
    M = std::max(M, std::abs(Want[I]));
  }
  return E / (M > 0 ? M : 1);
}

/// Same for real data.
template <typename T> inline double relErrorReal(const std::vector<T> &Got, const std::vector<double> &Want) {
  double E = 0, M = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    E = std::max(E, std::fabs((double)Got[I] - Want[I]));
    M = std::max(M, std::fabs(Want[I]));
  }
  return E / (M > 0 ? M : 1);
}

/// Sum of magnitudes, the checksum a pattern prints.
template <typename T> inline double sumAbsComplex(const std::vector<T> &V) {
  double S = 0;
  for (const T &C : V)
    S += std::sqrt((double)C.x * C.x + (double)C.y * C.y);
  return S;
}

/// A deterministic test signal value.
inline double signal(size_t I, int Salt) {
  return std::sin(0.37 * I + Salt) + 0.25 * std::cos(1.3 * (double)(I % 1021) * (I % 97) + Salt);
}
