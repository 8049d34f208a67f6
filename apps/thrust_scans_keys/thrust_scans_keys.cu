/// \file
/// The rest of Thrust's algorithm list, and its execution policies and
/// containers, against std:: computations: transform_inclusive_scan,
/// transform_exclusive_scan, exclusive_scan_by_key with a user operator,
/// reduce_by_key over tuple keys (a zip of two key arrays) with a user
/// equality, a three-key lexicographic sort (float, double, int) through a
/// zip iterator, transform_output_iterator, transform with a stencil,
/// for_each_n, generate, uninitialized_fill, copy_n, count, unique_count,
/// inclusive_scan of a non-commutative user type; policies on a stream
/// (thrust::cuda::par.on, par_nosync), universal_vector (managed memory),
/// device_malloc/device_free and raw device_ptr use.
#include "../common/app_util.h"
#include <algorithm>
#include <numeric>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/generate.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>
#include <thrust/uninitialized_fill.h>
#include <thrust/unique.h>
#include <thrust/universal_vector.h>
#include <vector>

static int Failures = 0;
static void report(const char *Name, int Bad) {
  std::printf("%s: mismatches=%d%s\n", Name, Bad, Bad ? " MISMATCH" : "");
  Failures += Bad != 0;
}
template <typename T> static std::vector<T> host(const thrust::device_vector<T> &D) {
  thrust::host_vector<T> H = D;
  return std::vector<T>(H.begin(), H.end());
}
template <typename A, typename B> static int diff(const A &Got, const B &Want) {
  int Bad = Got.size() != Want.size();
  for (size_t I = 0; I < Got.size() && I < Want.size(); ++I)
    Bad += !(Got[I] == Want[I]);
  return Bad;
}

struct Cube {
  __host__ __device__ long long operator()(int V) const { return 1LL * V * V * V; }
};
struct AbsVal {
  __host__ __device__ int operator()(int V) const { return V < 0 ? -V : V; }
};
// The last odd value seen: associative, not commutative.
struct LastOdd {
  __host__ __device__ int operator()(int A, int B) const { return B & 1 ? B : A; }
};
// Affine maps x -> a*x + b modulo 2^32, composed: not commutative.
struct Affine {
  unsigned A, B;
  __host__ __device__ bool operator==(const Affine &O) const { return A == O.A && B == O.B; }
};
struct Compose {
  __host__ __device__ Affine operator()(const Affine &F, const Affine &G) const {
    return Affine{G.A * F.A, G.A * F.B + G.B};
  }
};
using Key2 = thrust::tuple<int, int>;
struct SameRow {
  __host__ __device__ bool operator()(const Key2 &X, const Key2 &Y) const {
    return thrust::get<0>(X) == thrust::get<0>(Y) && thrust::get<1>(X) / 4 == thrust::get<1>(Y) / 4;
  }
};
using Key3 = thrust::tuple<float, double, int>;
struct Key3Less {
  __host__ __device__ bool operator()(const Key3 &X, const Key3 &Y) const {
    if (thrust::get<0>(X) != thrust::get<0>(Y))
      return thrust::get<0>(X) < thrust::get<0>(Y);
    if (thrust::get<1>(X) != thrust::get<1>(Y))
      return thrust::get<1>(X) > thrust::get<1>(Y);
    return thrust::get<2>(X) < thrust::get<2>(Y);
  }
};
struct Halve {
  __host__ __device__ float operator()(int V) const { return float(V) * 0.5f; }
};
struct Odd {
  __host__ __device__ bool operator()(int V) const { return V & 1; }
};
struct Negate {
  __host__ __device__ int operator()(int V) const { return -V; }
};
struct Mark {
  int *Out;
  __device__ void operator()(int I) const { Out[I] = I * 3 + 1; }
};
struct Gen {
  __host__ __device__ int operator()() const { return 42; }
};
struct Scale3 {
  __host__ __device__ int operator()(int V) const { return V * 3; }
};

int main() {
  const int N = 40009;
  Lcg Rng(9090);
  std::vector<int> A(N), K(N);
  int Cur = 0;
  for (int I = 0; I < N; ++I) {
    A[I] = int(Rng.below(2001)) - 1000;
    if (Rng.below(6) == 0)
      Cur += 1;
    K[I] = Cur;
  }
  thrust::device_vector<int> DA(A.begin(), A.end()), DK(K.begin(), K.end());

  // Transform scans.
  {
    thrust::device_vector<long long> TI(N);
    thrust::device_vector<int> TE(N);
    thrust::transform_inclusive_scan(DA.begin(), DA.end(), TI.begin(), Cube(), thrust::plus<long long>());
    thrust::transform_exclusive_scan(DA.begin(), DA.end(), TE.begin(), AbsVal(), 5, thrust::maximum<int>());
    std::vector<long long> WI(N);
    std::vector<int> WE(N);
    long long S = 0;
    int M = 5;
    for (int I = 0; I < N; ++I) {
      WE[I] = M;
      S += 1LL * A[I] * A[I] * A[I];
      M = std::max(M, std::abs(A[I]));
      WI[I] = S;
    }
    std::printf("transform scans: cube total=%lld abs max=%d\n", S, M);
    report("transform_inclusive_scan / transform_exclusive_scan", diff(host(TI), WI) + diff(host(TE), WE));
  }

  // Scan by key with a user operator; reduce_by_key over tuple keys.
  {
    thrust::device_vector<int> Out(N);
    thrust::exclusive_scan_by_key(DK.begin(), DK.end(), DA.begin(), Out.begin(), -7, thrust::equal_to<int>(),
                                  LastOdd());
    std::vector<int> W(N);
    for (int I = 0; I < N; ++I)
      W[I] = (I == 0 || K[I] != K[I - 1]) ? -7 : LastOdd()(W[I - 1], A[I - 1]);
    int Bad = diff(host(Out), W);
    std::vector<int> K2(N);
    for (int I = 0; I < N; ++I)
      K2[I] = int(Rng.below(12));
    std::sort(K2.begin(), K2.end()); // runs of equal second keys inside equal first keys are broken by /4
    thrust::device_vector<int> DK2(K2.begin(), K2.end()), UK1(N), UK2(N), Sums(N);
    auto ZIn = thrust::make_zip_iterator(thrust::make_tuple(DK.begin(), DK2.begin()));
    auto ZOut = thrust::make_zip_iterator(thrust::make_tuple(UK1.begin(), UK2.begin()));
    auto End = thrust::reduce_by_key(ZIn, ZIn + N, DA.begin(), ZOut, Sums.begin(), SameRow());
    int Groups = int(End.second - Sums.begin());
    std::vector<int> WK1, WK2, WS;
    for (int I = 0; I < N; ++I) {
      if (I == 0 || !(K[I] == K[I - 1] && K2[I] / 4 == K2[I - 1] / 4)) {
        WK1.push_back(K[I]);
        WK2.push_back(K2[I]);
        WS.push_back(A[I]);
      } else
        WS.back() += A[I];
    }
    auto G1 = host(UK1), G2 = host(UK2), GS = host(Sums);
    G1.resize(Groups), G2.resize(Groups), GS.resize(Groups);
    // Which key of a group (equal under SameRow) is written is up to the
    // implementation: compare what the predicate compares.
    for (auto &X : G2)
      X /= 4;
    for (auto &X : WK2)
      X /= 4;
    Bad += diff(G1, WK1) + diff(G2, WK2) + diff(GS, WS);
    std::printf("by key: groups=%zu last sum=%d\n", WS.size(), WS.back());
    report("exclusive_scan_by_key user op / reduce_by_key tuple keys, user equality", Bad);
  }

  // Three-key lexicographic sort through a zip iterator, values carried.
  {
    std::vector<float> F(N);
    std::vector<double> D(N);
    std::vector<int> I3(N), V(N);
    for (int I = 0; I < N; ++I) {
      F[I] = float(int(Rng.below(7)) - 3) * 0.5f;
      D[I] = double(int(Rng.below(5))) * 0.25;
      I3[I] = int(Rng.below(1000));
      V[I] = I;
    }
    thrust::device_vector<float> DF(F.begin(), F.end());
    thrust::device_vector<double> DD(D.begin(), D.end());
    thrust::device_vector<int> DI(I3.begin(), I3.end()), DV(V.begin(), V.end());
    auto Z = thrust::make_zip_iterator(thrust::make_tuple(DF.begin(), DD.begin(), DI.begin()));
    thrust::stable_sort_by_key(Z, Z + N, DV.begin(), Key3Less());
    std::vector<int> W = V;
    std::stable_sort(W.begin(), W.end(), [&](int X, int Y) {
      return Key3Less()(Key3(F[X], D[X], I3[X]), Key3(F[Y], D[Y], I3[Y]));
    });
    auto GV = host(DV);
    auto GF = host(DF);
    int Bad = diff(GV, W);
    for (int I = 0; I < N; ++I)
      Bad += GF[I] != F[W[I]];
    std::printf("three-key sort: first=%d last=%d\n", W[0], W[N - 1]);
    report("stable_sort_by_key over zip(float, double, int) with a user comparator", Bad);
  }

  // Output iterators, stencils, element-wise odds and ends.
  {
    thrust::device_vector<float> Half(N);
    thrust::copy(DA.begin(), DA.end(), thrust::make_transform_output_iterator(Half.begin(), Halve()));
    thrust::device_vector<int> T = DA;
    thrust::transform_if(DA.begin(), DA.end(), DK.begin(), T.begin(), Negate(), Odd());
    thrust::device_vector<int> M(N);
    thrust::for_each_n(thrust::make_counting_iterator(0), N, Mark{thrust::raw_pointer_cast(M.data())});
    thrust::device_vector<int> G(N / 2);
    thrust::generate(G.begin(), G.end(), Gen());
    int *Raw = nullptr;
    CHECK(cudaMalloc(&Raw, N * sizeof(int)));
    thrust::device_ptr<int> P(Raw);
    thrust::uninitialized_fill(P, P + N, 9);
    thrust::copy_n(DA.begin(), N / 3, P);
    int Nines = int(thrust::count(P, P + N, 9));
    std::vector<int> Sorted = K;
    int Distinct = int(thrust::unique_count(DK.begin(), DK.end()));
    std::vector<float> WH(N);
    std::vector<int> WT = A, WM(N);
    for (int I = 0; I < N; ++I) {
      WH[I] = float(A[I]) * 0.5f;
      if (K[I] & 1)
        WT[I] = -A[I];
      WM[I] = I * 3 + 1;
    }
    int WNines = N - N / 3 + int(std::count(A.begin(), A.begin() + N / 3, 9));
    int WDistinct = int(std::unique(Sorted.begin(), Sorted.end()) - Sorted.begin());
    std::vector<int> GP(N);
    CHECK(cudaMemcpy(GP.data(), Raw, N * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> WP(N, 9);
    std::copy(A.begin(), A.begin() + N / 3, WP.begin());
    CHECK(cudaFree(Raw));
    auto GG = host(G);
    int Bad = diff(host(Half), WH) + diff(host(T), WT) + diff(host(M), WM) + diff(GP, WP) + (Nines != WNines) +
              (Distinct != WDistinct) + int(std::count_if(GG.begin(), GG.end(), [](int X) { return X != 42; }));
    std::printf("odds and ends: nines=%d distinct keys=%d\n", WNines, WDistinct);
    report("transform_output_iterator/transform_if/for_each_n/generate/uninitialized_fill/copy_n/count/unique_count",
           Bad);
  }

  // Non-commutative user scan.
  {
    const int M = 30011;
    std::vector<Affine> F(M);
    for (auto &X : F)
      X = Affine{Rng.next() | 1u, Rng.next()};
    thrust::device_vector<Affine> DF(F.begin(), F.end()), Out(M);
    thrust::inclusive_scan(DF.begin(), DF.end(), Out.begin(), Compose());
    std::vector<Affine> W(M);
    W[0] = F[0];
    for (int I = 1; I < M; ++I)
      W[I] = Compose()(W[I - 1], F[I]);
    std::printf("affine composition: a=%08x b=%08x\n", W[M - 1].A, W[M - 1].B);
    report("inclusive_scan of a non-commutative user type", diff(host(Out), W));
  }

  // Policies on a stream, managed memory, device_malloc.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    thrust::universal_vector<int> U(A.begin(), A.end());
    thrust::sort(thrust::cuda::par.on(S), U.begin(), U.end());
    thrust::transform(thrust::cuda::par_nosync.on(S), U.begin(), U.end(), U.begin(), Scale3());
    CHECK(cudaStreamSynchronize(S));
    long long Sum = thrust::reduce(thrust::cuda::par.on(S), U.begin(), U.end(), 0LL);
    std::vector<int> W = A;
    std::sort(W.begin(), W.end());
    int Bad = 0;
    long long WSum = 0;
    for (int I = 0; I < N; ++I) {
      Bad += U[I] != W[I] * 3; // universal memory read directly from the host
      WSum += W[I] * 3;
    }
    thrust::device_ptr<double> DPtr = thrust::device_malloc<double>(1000);
    thrust::sequence(thrust::cuda::par.on(S), DPtr, DPtr + 1000, 0.5, 0.25);
    double DS = thrust::reduce(thrust::cuda::par.on(S), DPtr, DPtr + 1000);
    thrust::device_free(DPtr);
    double WDS = 0;
    for (int I = 0; I < 1000; ++I)
      WDS += 0.5 + 0.25 * I;
    Bad += (Sum != WSum) + (DS != WDS);
    CHECK(cudaStreamDestroy(S));
    std::printf("policies: sum=%lld sequence sum=%.2f\n", WSum, WDS);
    report("par.on(stream)/par_nosync/universal_vector/device_malloc", Bad);
  }
  std::printf("checks failed: %d\n", Failures);
  return finish(Failures == 0);
}
