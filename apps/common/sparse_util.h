/// \file
/// What the cuSPARSE and sparse cuSOLVER apps share: deterministic sparse
/// test matrices in CSR (5-point stencils such as the 2D Laplacian, random
/// patterns with a dominant diagonal), host reference kernels and residuals
/// in double, and checksums (sums of magnitudes, which tolerate the
/// reordering of floating-point sums between GPU kernels and other
/// implementations).
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

/// The 5-point stencil on an N x N grid (row-major points, sorted
/// columns): Diag on the diagonal, Left/Right for the neighbours at -1/+1,
/// Down/Up for those at -N/+N.
template <typename T>
HostCsr<T> stencil2d(int N, double Diag, double Left = -1, double Right = -1, double Down = -1,
                     double Up = -1) {
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
        Add(I - N, Down);
      if (X > 0)
        Add(I - 1, Left);
      Add(I, Diag);
      if (X < N - 1)
        Add(I + 1, Right);
      if (Y < N - 1)
        Add(I + N, Up);
      A.Ptr.push_back((int)A.Idx.size());
    }
  return A;
}

/// The 5-point Laplacian on an N x N grid (symmetric positive definite).
template <typename T> HostCsr<T> laplacian2d(int N) { return stencil2d<T>(N, 4); }

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

/// max_i |(A x - b)_i|, each row summed from -b_i in the row's order.
inline double maxResidual(const HostCsr<double> &A, const std::vector<double> &X,
                          const std::vector<double> &B) {
  double Worst = 0;
  for (int I = 0; I < A.Rows; ++I) {
    double S = -B[I];
    for (int K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K)
      S += A.Val[K] * X[A.Idx[K]];
    Worst = std::fmax(Worst, std::fabs(S));
  }
  return Worst;
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
