/// \file
/// What the cuSPARSE apps share: deterministic sparse test matrices in CSR
/// (a 2D Laplacian, random patterns with a dominant diagonal), host
/// reference kernels in double, and checksums (sums of magnitudes, which
/// tolerate the reordering of floating-point sums between GPU kernels and
/// other implementations).
#pragma once
#include "lib_util.h"
#include <algorithm>
#include <complex>
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#include <vector>

#define CUSPARSE_CHECK(Call) LIB_CHECK("cuSPARSE", Call)

/// A CSR matrix on the host (zero-based, sorted columns).
template <typename T> struct HostCsr {
  int Rows = 0, Cols = 0;
  std::vector<int> Ptr, Idx;
  std::vector<T> Val;
  int nnz() const { return (int)Idx.size(); }
};

/// The 5-point Laplacian on an N x N grid (symmetric positive definite).
template <typename T> HostCsr<T> laplacian2d(int N) {
  HostCsr<T> A;
  A.Rows = A.Cols = N * N;
  A.Ptr.push_back(0);
  for (int Y = 0; Y < N; ++Y)
    for (int X = 0; X < N; ++X) {
      int I = Y * N + X;
      auto Add = [&](int J, double V) {
        A.Idx.push_back(J);
        A.Val.push_back(T(V));
      };
      if (Y > 0)
        Add(I - N, -1);
      if (X > 0)
        Add(I - 1, -1);
      Add(I, 4);
      if (X < N - 1)
        Add(I + 1, -1);
      if (Y < N - 1)
        Add(I + N, -1);
      A.Ptr.push_back((int)A.Idx.size());
    }
  return A;
}

/// A random Rows x Cols pattern with about PerRow entries a row (and the
/// diagonal, made dominant, when Square); values in [-1, 1).
template <typename T>
HostCsr<T> randomCsr(int Rows, int Cols, int PerRow, uint64_t Seed, bool Square) {
  Lcg R(Seed);
  HostCsr<T> A;
  A.Rows = Rows;
  A.Cols = Cols;
  A.Ptr.push_back(0);
  std::vector<int> Row;
  for (int I = 0; I < Rows; ++I) {
    Row.clear();
    for (int K = 0; K < PerRow; ++K)
      Row.push_back((int)R.below(Cols));
    if (Square)
      Row.push_back(I);
    std::sort(Row.begin(), Row.end());
    Row.erase(std::unique(Row.begin(), Row.end()), Row.end());
    for (int J : Row) {
      A.Idx.push_back(J);
      A.Val.push_back(J == I && Square ? T(PerRow + 2) : T(R.range(-1, 1)));
    }
    A.Ptr.push_back((int)A.Idx.size());
  }
  return A;
}

/// y = A x in double (the reference).
template <typename T> std::vector<double> hostSpmv(const HostCsr<T> &A, const std::vector<T> &X) {
  std::vector<double> Y(A.Rows, 0.0);
  for (int I = 0; I < A.Rows; ++I)
    for (int K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K)
      Y[I] += (double)A.Val[K] * (double)X[A.Idx[K]];
  return Y;
}

template <typename T> std::vector<T> randomVector(int N, uint64_t Seed) {
  Lcg R(Seed);
  std::vector<T> V(N);
  for (auto &X : V)
    X = T(R.range(-1, 1));
  return V;
}

template <typename T> double magnitude(T V) { return std::fabs((double)V); }
template <typename R> double magnitude(std::complex<R> V) {
  return std::abs(std::complex<double>(V));
}

template <typename T> std::complex<double> asC(T V) { return {(double)V, 0.0}; }
template <typename R> std::complex<double> asC(std::complex<R> V) {
  return {(double)V.real(), (double)V.imag()};
}

template <typename V> double sumAbs(const V &Xs) {
  double S = 0;
  for (auto X : Xs)
    S += magnitude(X);
  return S;
}

/// Whether every Got[i] is within Rel of Want[i] (relative to Want's
/// largest magnitude).
template <typename A, typename B> bool allClose(const A &Got, const B &Want, double Rel) {
  if (Got.size() != Want.size())
    return false;
  double Scale = 1e-30;
  for (auto W : Want)
    Scale = std::max(Scale, magnitude(W));
  for (size_t I = 0; I < Got.size(); ++I)
    if (!(std::abs(asC(Got[I]) - asC(Want[I])) <= Rel * Scale))
      return false;
  return true;
}
