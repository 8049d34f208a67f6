/// \file
/// The body of a cuRAND sequence app: for one host-API generator type (the
/// including file defines CURAND_SEQ_TYPE), device and host generators are
/// asked for 32-bit integers (two calls in a row), uniform floats and
/// doubles, normal and log-normal floats and doubles and Poisson counts, each
/// from a fresh generator and followed by a 32-bit call; integers and
/// uniforms are printed as FNV-1a hashes and hex, normals rounded. Checks:
/// host and device generators agree bit for bit (normals: within 1e-5),
/// moments are plausible, and an offset is refused (TYPE_ERROR). Used by
/// apps/curand_mtgp32 and apps/curand_mt19937.
#pragma once
#ifndef CURAND_SEQ_TYPE
#error "define CURAND_SEQ_TYPE (a curandRngType_t) before including curand_seq_app.h"
#endif
#include "lib_util.h"
#include <cmath>
#include <cstring>
#include <curand.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

static const curandRngType_t Type = CURAND_SEQ_TYPE;

template <typename T> static unsigned fnv(const std::vector<T> &V) {
  unsigned H = 2166136261u;
  const unsigned char *B = reinterpret_cast<const unsigned char *>(V.data());
  for (size_t I = 0; I < V.size() * sizeof(T); ++I)
    H = (H ^ B[I]) * 16777619u;
  return H;
}

template <typename T> static double mean(const std::vector<T> &V) {
  double S = 0;
  for (T X : V)
    S += X;
  return S / V.size();
}

enum Kind { Bits, Uniform, UniformDouble, Normal, NormalDouble, LogNormal, LogNormalDouble, Poisson };
static const char *KindName[] = {"u32", "uniform", "uniform-f64", "normal", "normal-f64", "lognormal", "lognormal-f64",
                                 "poisson4"};

/// Kind K's N results from generator G into host memory (Dev: G is a
/// device generator and Scratch a device buffer of N doubles).
static std::vector<double> run(curandGenerator_t G, bool Dev, void *Scratch, Kind K, size_t N,
                               std::vector<unsigned> &Raw) {
  std::vector<unsigned char> Host(N * 8);
  void *P = Dev ? Scratch : Host.data();
  switch (K) {
  case Bits: CURAND_CHECK(curandGenerate(G, (unsigned *)P, N)); break;
  case Uniform: CURAND_CHECK(curandGenerateUniform(G, (float *)P, N)); break;
  case UniformDouble: CURAND_CHECK(curandGenerateUniformDouble(G, (double *)P, N)); break;
  case Normal: CURAND_CHECK(curandGenerateNormal(G, (float *)P, N, 1.0f, 2.0f)); break;
  case NormalDouble: CURAND_CHECK(curandGenerateNormalDouble(G, (double *)P, N, 1.0, 2.0)); break;
  case LogNormal: CURAND_CHECK(curandGenerateLogNormal(G, (float *)P, N, 0.5f, 0.75f)); break;
  case LogNormalDouble: CURAND_CHECK(curandGenerateLogNormalDouble(G, (double *)P, N, 0.5, 0.75)); break;
  case Poisson: CURAND_CHECK(curandGeneratePoisson(G, (unsigned *)P, N, 4.0)); break;
  }
  bool Wide = K == UniformDouble || K == NormalDouble || K == LogNormalDouble;
  if (Dev)
    CHECK(cudaMemcpy(Host.data(), Scratch, N * (Wide ? 8 : 4), cudaMemcpyDeviceToHost));
  std::vector<double> V(N);
  Raw.assign(N * (Wide ? 2 : 1), 0);
  std::memcpy(Raw.data(), Host.data(), Raw.size() * 4);
  for (size_t I = 0; I < N; ++I) {
    if (K == Bits || K == Poisson)
      V[I] = reinterpret_cast<unsigned *>(Host.data())[I];
    else if (Wide)
      V[I] = reinterpret_cast<double *>(Host.data())[I];
    else
      V[I] = reinterpret_cast<float *>(Host.data())[I];
  }
  return V;
}

int main() {
  const size_t N = 100000;
  void *Scratch;
  CHECK(cudaMalloc(&Scratch, N * 8));
  bool Ok = true;
  const unsigned long long Seed = 20251127ULL;
  for (int K = Bits; K <= Poisson; ++K) {
    std::vector<unsigned> Raw[2], After[2];
    std::vector<double> Val, HostVal;
    for (int Side = 0; Side < 2; ++Side) {
      curandGenerator_t G;
      if (Side == 0)
        CURAND_CHECK(curandCreateGenerator(&G, Type));
      else
        CURAND_CHECK(curandCreateGeneratorHost(&G, Type));
      CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(G, Seed));
      std::vector<double> V = run(G, Side == 0, Scratch, (Kind)K, N, Raw[Side]);
      std::vector<double> A = run(G, Side == 0, Scratch, Bits, 5000, After[Side]);
      (Side == 0 ? Val : HostVal) = V;
      CURAND_CHECK(curandDestroyGenerator(G));
    }
    bool Exact = K == Bits || K == Uniform || K == UniformDouble || K == Poisson;
    // NVIDIA's host generators compute the inverse-CDF normals on the CPU,
    // its device generators with the GPU's erfcinvf/erfcinv: they agree to
    // about 1e-6 (measured on the H100), not bit for bit.
    bool Same = After[0] == After[1];
    if (Exact)
      Same = Same && Raw[0] == Raw[1];
    else
      for (size_t I = 0; I < N; ++I)
        Same = Same && std::fabs(Val[I] - HostVal[I]) <= 1e-5 * std::fmax(1.0, std::fabs(Val[I]));
    double M = mean(Val);
    bool Plausible = true;
    switch (K) {
    case Bits: Plausible = std::fabs(M / 4294967296.0 - 0.5) < 0.01; break;
    case Uniform:
    case UniformDouble: Plausible = std::fabs(M - 0.5) < 0.01; break;
    case Normal:
    case NormalDouble: Plausible = std::fabs(M - 1.0) < 0.05; break;
    case LogNormal:
    case LogNormalDouble: Plausible = std::fabs(M - std::exp(0.5 + 0.75 * 0.75 / 2)) < 0.05; break;
    case Poisson: Plausible = std::fabs(M - 4.0) < 0.05; break;
    }
    if (Exact) {
      std::vector<unsigned> &R = Raw[0];
      std::printf("%-13s hash %08x first %08x %08x last %08x | next u32 hash %08x | host %s\n", KindName[K], fnv(R), R[0],
                  R[1], R.back(), fnv(After[0]), Same ? "same" : "DIFFERENT");
    } else {
      std::printf("%-13s mean %.4f values %.4f %.4f %.4f | next u32 hash %08x | host %s\n", KindName[K], M, Val[0],
                  Val[1], Val[N - 1], fnv(After[0]), Same ? "within 1e-5" : "DIFFERENT");
    }
    if (K == Bits) {
      // Two calls in a row continue the sequence.
      curandGenerator_t G;
      CURAND_CHECK(curandCreateGenerator(&G, Type));
      CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(G, Seed));
      std::vector<unsigned> A, B;
      run(G, true, Scratch, Bits, 777, A);
      run(G, true, Scratch, Bits, 99223, B);
      A.insert(A.end(), B.begin(), B.end());
      bool Split = A == Raw[0];
      std::printf("%-13s 777 + 99223 values equal one call of 100000: %s\n", "u32-split", Split ? "yes" : "no");
      std::printf("%-13s offset 0: status %d\n", "offset", (int)curandSetGeneratorOffset(G, 0));
      CURAND_CHECK(curandDestroyGenerator(G));
    }
    if (!Same || !Plausible) {
      std::printf("  %s: %s\n", KindName[K], !Same ? "host and device differ" : "implausible mean");
      Ok = false;
    }
  }
  CHECK(cudaFree(Scratch));
  return finish(Ok);
}
