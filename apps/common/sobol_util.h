/// \file
/// What the cuRAND Sobol programs share (apps/curand_sobol_dims,
/// tests/curand/ScrambledSobol.cu): device buffers for each output type,
/// the per-dimension dump of the host API's points with the check every
/// (scrambled) Sobol sequence passes (a dimension's first 2^k points fall
/// one in each interval of width 2^-k), and the device API run one
/// dimension a thread on the library's direction vectors (and scramble
/// constants), laid out as the host API lays its results out.
#pragma once
#include "lib_util.h"
#include <algorithm>
#include <curand.h>
#include <curand_kernel.h>

#define CURAND_CHECK(Call) LIB_CHECK("cuRAND", Call)

/// Device buffers of one size for each type the generators write.
struct DrawBuffers {
  unsigned *U;
  float *F;
  unsigned long long *L;
  double *D;
};

inline DrawBuffers allocDraws(size_t N) {
  DrawBuffers B;
  CHECK(cudaMalloc(&B.U, sizeof(unsigned) * N));
  CHECK(cudaMalloc(&B.F, sizeof(float) * N));
  CHECK(cudaMalloc(&B.L, sizeof(unsigned long long) * N));
  CHECK(cudaMalloc(&B.D, sizeof(double) * N));
  return B;
}

inline void freeDraws(const DrawBuffers &B) {
  CHECK(cudaFree(B.U));
  CHECK(cudaFree(B.F));
  CHECK(cudaFree(B.L));
  CHECK(cudaFree(B.D));
}

/// A quasi-random generator of Type in Dims dimensions.
inline curandGenerator_t quasiGenerator(curandRngType_t Type, unsigned Dims) {
  curandGenerator_t G;
  CURAND_CHECK(curandCreateGenerator(&G, Type));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(G, Dims));
  return G;
}

/// Whether V[Start, Start + N) shifted right by Shift are 0 .. N-1 in some
/// order (N points, one in each of N equal intervals).
template <typename T> bool stratified(const std::vector<T> &V, size_t Start, size_t N, int Shift) {
  std::vector<T> S(V.begin() + Start, V.begin() + Start + N);
  for (T &X : S)
    X >>= Shift;
  std::sort(S.begin(), S.end());
  for (size_t I = 0; I < N; ++I)
    if (S[I] != (T)I)
      return false;
  return true;
}

/// Prints each dimension of V (Points a dimension) as "<Label> dim d:", its
/// first Shown points and its last in hex; with a Check name, checks that
/// the dimension is stratified at Shift and prints "<Check> ok|WRONG".
/// Whether every dimension passed.
template <typename T>
bool dumpDims(const char *Label, const std::vector<T> &V, unsigned Dims, unsigned Points, int Shown,
              const char *Check = nullptr, int Shift = 0) {
  const int Digits = 2 * sizeof(T);
  bool Ok = true;
  for (unsigned K = 0; K < Dims; ++K) {
    std::printf("%s dim %u:", Label, K);
    for (int I = 0; I < Shown; ++I)
      std::printf(" %0*llx", Digits, (unsigned long long)V[K * Points + I]);
    std::printf(" ... %0*llx", Digits, (unsigned long long)V[K * Points + Points - 1]);
    if (Check) {
      bool St = stratified(V, K * Points, Points, Shift);
      std::printf(" %s %s", Check, St ? "ok" : "WRONG");
      Ok &= St;
    }
    std::printf("\n");
  }
  return Ok;
}

/// The device API's state and direction-vector types for Word-sized
/// (unsigned or unsigned long long) plain or scrambled Sobol.
template <typename Word, bool Scrambled> struct SobolTypes;
template <> struct SobolTypes<unsigned, false> {
  using State = curandStateSobol32_t;
  using Vectors = curandDirectionVectors32_t;
};
template <> struct SobolTypes<unsigned, true> {
  using State = curandStateScrambledSobol32_t;
  using Vectors = curandDirectionVectors32_t;
};
template <> struct SobolTypes<unsigned long long, false> {
  using State = curandStateSobol64_t;
  using Vectors = curandDirectionVectors64_t;
};
template <> struct SobolTypes<unsigned long long, true> {
  using State = curandStateScrambledSobol64_t;
  using Vectors = curandDirectionVectors64_t;
};

/// Thread d < Dims draws Points values of dimension d from Offset into
/// Out[d * Points + i].
template <typename Word, bool Scrambled>
__global__ void sobolKernel(typename SobolTypes<Word, Scrambled>::Vectors *Vectors, const Word *Constants,
                            unsigned Dims, unsigned Points, Word Offset, Word *Out) {
  unsigned D = blockIdx.x * blockDim.x + threadIdx.x;
  if (D >= Dims)
    return;
  typename SobolTypes<Word, Scrambled>::State S;
  if constexpr (Scrambled)
    curand_init(Vectors[D], Constants[D], Offset, &S);
  else
    curand_init(Vectors[D], Offset, &S);
  for (unsigned I = 0; I < Points; ++I)
    Out[D * Points + I] = curand(&S);
}

/// The device API's points from the library's direction vectors (and, when
/// Scrambled, scramble constants) of the first Dims (at most 32)
/// dimensions, from Offset, Points a dimension.
template <typename Word, bool Scrambled>
std::vector<Word> deviceSobol(const typename SobolTypes<Word, Scrambled>::Vectors *Vectors, const Word *Constants,
                              unsigned Dims, unsigned Points, Word Offset) {
  using Vecs = typename SobolTypes<Word, Scrambled>::Vectors;
  Vecs *DevV;
  Word *DevC = nullptr, *Out;
  CHECK(cudaMalloc(&DevV, sizeof(Vecs) * Dims));
  CHECK(cudaMemcpy(DevV, Vectors, sizeof(Vecs) * Dims, cudaMemcpyHostToDevice));
  if (Scrambled) {
    CHECK(cudaMalloc(&DevC, sizeof(Word) * Dims));
    CHECK(cudaMemcpy(DevC, Constants, sizeof(Word) * Dims, cudaMemcpyHostToDevice));
  }
  CHECK(cudaMalloc(&Out, sizeof(Word) * Dims * Points));
  sobolKernel<Word, Scrambled><<<1, 32>>>(DevV, DevC, Dims, Points, Offset, Out);
  CHECK(cudaGetLastError());
  std::vector<Word> Got = download(Out, (size_t)Dims * Points);
  CHECK(cudaFree(DevV));
  CHECK(cudaFree(DevC));
  CHECK(cudaFree(Out));
  return Got;
}
