/// \file
/// Thrust's algorithm list through its fancy iterators, each against the
/// same computation in the C++ standard library: counting, constant,
/// transform, zip (tuples), permutation, reverse and discard iterators;
/// transform_reduce, inner_product, tuple sort (lexicographic), sort_by_key
/// (stable, user comparator, descending), unique(_by_key), copy_if,
/// remove_if, partition, stable_partition, the set operations (also by key),
/// merge(_by_key), vectorized lower_bound/upper_bound/binary_search,
/// gather/scatter (with stencils), adjacent_difference, tabulate, sequence,
/// replace_if, min/max/minmax_element, count_if, equal, mismatch, find_if,
/// all_of/any_of, is_sorted/is_partitioned and thrust::complex math.
#include "../common/app_util.h"
#include <algorithm>
#include <complex>
#include <numeric>
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/complex.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/find.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/logical.h>
#include <thrust/merge.h>
#include <thrust/mismatch.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/replace.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>
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

struct Collatz {
  __host__ __device__ int operator()(int V) const { return V % 2 ? 3 * V + 1 : V / 2; }
};
struct Mod7 {
  __host__ __device__ int operator()(int V) const { return ((V % 7) + 7) % 7; }
};
struct IsEven {
  __host__ __device__ bool operator()(int V) const { return V % 2 == 0; }
};
struct Positive {
  __host__ __device__ bool operator()(int V) const { return V > 0; }
};
struct AbsGreater {
  __host__ __device__ bool operator()(int A, int B) const {
    int X = A < 0 ? -A : A, Y = B < 0 ? -B : B;
    return X > Y;
  }
};
struct WeightedSum {
  __host__ __device__ long long operator()(const thrust::tuple<int, int, float> &T) const {
    return 1LL * thrust::get<0>(T) * thrust::get<1>(T) + (long long)thrust::get<2>(T);
  }
};
struct TupleLess {
  __host__ __device__ bool operator()(const thrust::tuple<int, int> &A, const thrust::tuple<int, int> &B) const {
    return thrust::get<0>(A) != thrust::get<0>(B) ? thrust::get<0>(A) < thrust::get<0>(B)
                                                  : thrust::get<1>(A) > thrust::get<1>(B);
  }
};
struct Square {
  __host__ __device__ long long operator()(int I) const { return 1LL * I * I - 3 * I; }
};
struct CplxMath {
  __host__ __device__ thrust::complex<double> operator()(const thrust::complex<double> &Z) const {
    return thrust::exp(Z) * thrust::log(Z + 2.0) + thrust::sqrt(Z) - thrust::pow(Z, 1.5) / (thrust::abs(Z) + 1.0) +
           thrust::sin(Z) * thrust::conj(Z) + thrust::arg(Z);
  }
};
struct CplxF {
  __host__ __device__ thrust::complex<float> operator()(const thrust::complex<float> &A,
                                                        const thrust::complex<float> &B) const {
    return A * B + A / (B + thrust::complex<float>(3.0f, 0.5f));
  }
};

int main() {
  const int N = 30011;
  Lcg Rng(4242);
  std::vector<int> A(N), Bv(N);
  std::vector<float> F(N);
  for (int I = 0; I < N; ++I) {
    A[I] = int(Rng.below(2001)) - 1000;
    Bv[I] = int(Rng.below(500));
    F[I] = float(int(Rng.below(64))) * 0.5f;
  }
  thrust::device_vector<int> DA(A.begin(), A.end()), DB(Bv.begin(), Bv.end());
  thrust::device_vector<float> DF(F.begin(), F.end());

  // Counting + transform iterators, constant iterator, reduce/transform_reduce.
  {
    auto Cnt = thrust::make_counting_iterator(1);
    long long S = thrust::reduce(thrust::make_transform_iterator(Cnt, Collatz()),
                                 thrust::make_transform_iterator(Cnt + N, Collatz()), 0LL);
    long long T = thrust::transform_reduce(thrust::make_counting_iterator(0), thrust::make_counting_iterator(N),
                                           Square(), 0LL, thrust::plus<long long>());
    thrust::device_vector<int> C(N);
    thrust::transform(DA.begin(), DA.end(), thrust::make_constant_iterator(5), C.begin(), thrust::multiplies<int>());
    long long WS = 0, WT = 0;
    for (int I = 1; I <= N; ++I)
      WS += Collatz()(I);
    for (int I = 0; I < N; ++I)
      WT += 1LL * I * I - 3 * I;
    std::vector<int> WC(N);
    for (int I = 0; I < N; ++I)
      WC[I] = A[I] * 5;
    std::printf("counting/transform: collatz sum=%lld squares=%lld\n", WS, WT);
    report("counting/transform/constant iterators", (S != WS) + (T != WT) + diff(host(C), WC));
  }

  // Zip iterators over tuples: inner product, weighted transform-reduce,
  // tuple sort with a user comparator, zip-valued sort_by_key.
  {
    long long IP = thrust::inner_product(DA.begin(), DA.end(), DB.begin(), 7LL);
    auto Z = thrust::make_zip_iterator(thrust::make_tuple(DA.begin(), DB.begin(), DF.begin()));
    long long WSum = thrust::transform_reduce(Z, Z + N, WeightedSum(), 0LL, thrust::plus<long long>());
    long long WIP = 7, WW = 0;
    for (int I = 0; I < N; ++I) {
      WIP += 1LL * A[I] * Bv[I];
      WW += 1LL * A[I] * Bv[I] + (long long)F[I];
    }
    thrust::device_vector<int> K1(N), K2(N);
    thrust::transform(DA.begin(), DA.end(), K1.begin(), Mod7());
    K2 = DB;
    auto ZK = thrust::make_zip_iterator(thrust::make_tuple(K1.begin(), K2.begin()));
    thrust::sort(ZK, ZK + N, TupleLess());
    std::vector<std::pair<int, int>> WP(N);
    for (int I = 0; I < N; ++I)
      WP[I] = {Mod7()(A[I]), Bv[I]};
    std::sort(WP.begin(), WP.end(), [](auto &X, auto &Y) { return X.first != Y.first ? X.first < Y.first : X.second > Y.second; });
    auto G1 = host(K1), G2 = host(K2);
    int Bad = (IP != WIP) + (WSum != WW);
    for (int I = 0; I < N; ++I)
      Bad += G1[I] != WP[I].first || G2[I] != WP[I].second;
    // Keys int, values a zip of (int, float): stable, descending.
    thrust::device_vector<int> SK = DB, V1 = DA;
    thrust::device_vector<float> V2 = DF;
    thrust::stable_sort_by_key(SK.begin(), SK.end(), thrust::make_zip_iterator(thrust::make_tuple(V1.begin(), V2.begin())),
                               thrust::greater<int>());
    std::vector<int> Idx(N);
    std::iota(Idx.begin(), Idx.end(), 0);
    std::stable_sort(Idx.begin(), Idx.end(), [&](int X, int Y) { return Bv[X] > Bv[Y]; });
    auto GK = host(SK), GV1 = host(V1);
    auto GV2 = host(V2);
    for (int I = 0; I < N; ++I)
      Bad += GK[I] != Bv[Idx[I]] || GV1[I] != A[Idx[I]] || GV2[I] != F[Idx[I]];
    // sort_by_key with a comparator on absolute values (not stable: keys only).
    thrust::device_vector<int> AK = DA, AV(N);
    thrust::sequence(AV.begin(), AV.end());
    thrust::sort_by_key(AK.begin(), AK.end(), AV.begin(), AbsGreater());
    auto GAK = host(AK), GAV = host(AV);
    std::vector<int> WA = A;
    std::stable_sort(WA.begin(), WA.end(), AbsGreater());
    for (int I = 0; I < N; ++I)
      Bad += std::abs(GAK[I]) != std::abs(WA[I]) || A[GAV[I]] != GAK[I];
    std::printf("zip: inner product=%lld weighted=%lld first tuple=(%d,%d)\n", WIP, WW, WP[0].first, WP[0].second);
    report("zip iterator: inner_product/transform_reduce/tuple sort/sort_by_key zip values", Bad);
  }

  // Permutation, reverse and discard iterators; gather/scatter.
  {
    std::vector<int> Map(N);
    for (int I = 0; I < N; ++I)
      Map[I] = int(Rng.below(N));
    thrust::device_vector<int> DMap(Map.begin(), Map.end()), Out(N), Out2(N, -1);
    long long PS = thrust::reduce(thrust::make_permutation_iterator(DA.begin(), DMap.begin()),
                                  thrust::make_permutation_iterator(DA.begin(), DMap.end()), 0LL);
    thrust::copy(DA.rbegin(), DA.rend(), Out.begin());
    thrust::gather(DMap.begin(), DMap.end(), DA.begin(), Out2.begin());
    thrust::device_vector<int> Sc(N, 0), ScIf(N, -1), GIf(N, -2);
    std::vector<int> Perm(N);
    std::iota(Perm.begin(), Perm.end(), 0);
    for (int I = N - 1; I > 0; --I)
      std::swap(Perm[I], Perm[Rng.below(I + 1)]);
    thrust::device_vector<int> DPerm(Perm.begin(), Perm.end());
    thrust::scatter(DA.begin(), DA.end(), DPerm.begin(), Sc.begin());
    thrust::scatter_if(DA.begin(), DA.end(), DPerm.begin(), DB.begin(), ScIf.begin(), IsEven());
    thrust::gather_if(DMap.begin(), DMap.end(), DB.begin(), DA.begin(), GIf.begin(), IsEven());
    // Scan into a discard iterator for the keys: only the values count.
    thrust::device_vector<int> RV(N);
    auto End = thrust::reduce_by_key(DB.begin(), DB.end(), DA.begin(), thrust::make_discard_iterator(), RV.begin());
    long long WPS = 0;
    std::vector<int> WRev(A.rbegin(), A.rend()), WG(N), WSc(N), WScIf(N, -1), WGIf(N, -2), WRV;
    for (int I = 0; I < N; ++I) {
      WPS += A[Map[I]];
      WG[I] = A[Map[I]];
      WSc[Perm[I]] = A[I];
      if (Bv[I] % 2 == 0)
        WScIf[Perm[I]] = A[I];
      if (Bv[I] % 2 == 0)
        WGIf[I] = A[Map[I]];
      if (I == 0 || Bv[I] != Bv[I - 1])
        WRV.push_back(A[I]);
      else
        WRV.back() += A[I];
    }
    int Runs = int(End.second - RV.begin());
    auto GRV = host(RV);
    GRV.resize(Runs);
    int Bad = (PS != WPS) + diff(host(Out), WRev) + diff(host(Out2), WG) + diff(host(Sc), WSc) +
              diff(host(ScIf), WScIf) + diff(host(GIf), WGIf) + diff(GRV, WRV);
    std::printf("permutation sum=%lld reduce_by_key runs=%zu\n", WPS, WRV.size());
    report("permutation/reverse/discard iterators, gather(_if)/scatter(_if)", Bad);
  }

  // Stream compaction family.
  {
    thrust::device_vector<int> Sorted = DB;
    thrust::sort(Sorted.begin(), Sorted.end());
    std::vector<int> WSorted = Bv;
    std::sort(WSorted.begin(), WSorted.end());
    thrust::device_vector<int> U = Sorted;
    U.erase(thrust::unique(U.begin(), U.end()), U.end());
    std::vector<int> WU = WSorted;
    WU.erase(std::unique(WU.begin(), WU.end()), WU.end());
    thrust::device_vector<int> UK = Sorted, UV(N);
    thrust::sequence(UV.begin(), UV.end(), 100, 3);
    auto UE = thrust::unique_by_key(UK.begin(), UK.end(), UV.begin());
    std::vector<int> WUV;
    for (int I = 0; I < N; ++I)
      if (I == 0 || WSorted[I] != WSorted[I - 1])
        WUV.push_back(100 + 3 * I);
    thrust::device_vector<int> CI(N);
    auto CE = thrust::copy_if(DA.begin(), DA.end(), CI.begin(), Positive());
    CI.resize(CE - CI.begin());
    thrust::device_vector<int> RI = DA;
    RI.erase(thrust::remove_if(RI.begin(), RI.end(), DB.begin(), IsEven()), RI.end());
    thrust::device_vector<int> SP = DA;
    auto SPE = thrust::stable_partition(SP.begin(), SP.end(), Positive());
    thrust::device_vector<int> P = DA;
    auto PE = thrust::partition(P.begin(), P.end(), IsEven());
    bool IsPart = thrust::is_partitioned(P.begin(), P.end(), IsEven());
    std::vector<int> WCI, WRI, WSP, WNeg;
    for (int I = 0; I < N; ++I) {
      if (A[I] > 0)
        WCI.push_back(A[I]), WSP.push_back(A[I]);
      else
        WNeg.push_back(A[I]);
      if (Bv[I] % 2)
        WRI.push_back(A[I]);
    }
    WSP.insert(WSP.end(), WNeg.begin(), WNeg.end());
    int Evens = int(std::count_if(A.begin(), A.end(), IsEven()));
    auto GUK = host(UK), GUV = host(UV);
    GUK.resize(UE.first - UK.begin());
    GUV.resize(UE.second - UV.begin());
    // partition is not stable: compare the multiset of each side.
    auto GP = host(P);
    std::vector<int> PL(GP.begin(), GP.begin() + (PE - P.begin())), WPL;
    for (int X : A)
      if (X % 2 == 0)
        WPL.push_back(X);
    std::sort(PL.begin(), PL.end());
    std::sort(WPL.begin(), WPL.end());
    int Bad = diff(host(U), WU) + diff(GUK, WU) + diff(GUV, WUV) + diff(host(CI), WCI) + diff(host(RI), WRI) +
              diff(host(SP), WSP) + (SPE - SP.begin() != long(WCI.size())) + (PE - P.begin() != Evens) + !IsPart +
              diff(PL, WPL);
    std::printf("unique=%zu copy_if=%zu remove_if kept=%zu evens=%d\n", WU.size(), WCI.size(), WRI.size(), Evens);
    report("unique(_by_key)/copy_if/remove_if(stencil)/partition/stable_partition", Bad);
  }

  // Set operations, merge, searches on sorted data.
  {
    std::vector<int> X(N / 2), Y(N / 3);
    for (auto &V : X)
      V = int(Rng.below(5000));
    for (auto &V : Y)
      V = int(Rng.below(5000));
    std::sort(X.begin(), X.end());
    std::sort(Y.begin(), Y.end());
    thrust::device_vector<int> DX(X.begin(), X.end()), DY(Y.begin(), Y.end()), Out(X.size() + Y.size());
    int Bad = 0;
    std::vector<int> W(X.size() + Y.size());
    auto Check = [&](thrust::device_vector<int>::iterator End, std::vector<int>::iterator WEnd) {
      std::vector<int> G(Out.begin(), End);
      return diff(G, std::vector<int>(W.begin(), WEnd));
    };
    Bad += Check(thrust::set_union(DX.begin(), DX.end(), DY.begin(), DY.end(), Out.begin()),
                 std::set_union(X.begin(), X.end(), Y.begin(), Y.end(), W.begin()));
    Bad += Check(thrust::set_intersection(DX.begin(), DX.end(), DY.begin(), DY.end(), Out.begin()),
                 std::set_intersection(X.begin(), X.end(), Y.begin(), Y.end(), W.begin()));
    Bad += Check(thrust::set_difference(DX.begin(), DX.end(), DY.begin(), DY.end(), Out.begin()),
                 std::set_difference(X.begin(), X.end(), Y.begin(), Y.end(), W.begin()));
    Bad += Check(thrust::set_symmetric_difference(DX.begin(), DX.end(), DY.begin(), DY.end(), Out.begin()),
                 std::set_symmetric_difference(X.begin(), X.end(), Y.begin(), Y.end(), W.begin()));
    Bad += Check(thrust::merge(DX.begin(), DX.end(), DY.begin(), DY.end(), Out.begin()),
                 std::merge(X.begin(), X.end(), Y.begin(), Y.end(), W.begin()));
    // merge_by_key / set_intersection_by_key: values say which side won.
    thrust::device_vector<int> KO(X.size() + Y.size()), VO(X.size() + Y.size());
    auto ME = thrust::merge_by_key(DX.begin(), DX.end(), DY.begin(), DY.end(), thrust::make_constant_iterator(1),
                                   thrust::make_constant_iterator(2), KO.begin(), VO.begin());
    std::vector<std::pair<int, int>> WM;
    for (int V : X)
      WM.push_back({V, 1});
    for (int V : Y)
      WM.push_back({V, 2});
    std::stable_sort(WM.begin(), WM.end(), [](auto &P, auto &Q) { return P.first < Q.first; });
    auto GKO = host(KO), GVO = host(VO);
    Bad += ME.first - KO.begin() != long(WM.size());
    for (size_t I = 0; I < WM.size(); ++I)
      Bad += GKO[I] != WM[I].first || GVO[I] != WM[I].second;
    auto IE = thrust::set_intersection_by_key(DX.begin(), DX.end(), DY.begin(), DY.end(),
                                              thrust::make_counting_iterator(0), KO.begin(), VO.begin());
    std::vector<int> WIK, WIV;
    {
      size_t I = 0, J = 0;
      while (I < X.size() && J < Y.size()) {
        if (X[I] < Y[J])
          ++I;
        else if (Y[J] < X[I])
          ++J;
        else
          WIK.push_back(X[I]), WIV.push_back(int(I)), ++I, ++J;
      }
    }
    GKO = host(KO);
    GVO = host(VO);
    Bad += IE.first - KO.begin() != long(WIK.size());
    for (size_t I = 0; I < WIK.size(); ++I)
      Bad += GKO[I] != WIK[I] || GVO[I] != WIV[I];
    // Vectorized searches of every Y value in X.
    thrust::device_vector<int> LB(Y.size()), UB(Y.size());
    thrust::device_vector<bool> BS(Y.size());
    thrust::lower_bound(DX.begin(), DX.end(), DY.begin(), DY.end(), LB.begin());
    thrust::upper_bound(DX.begin(), DX.end(), DY.begin(), DY.end(), UB.begin());
    thrust::binary_search(DX.begin(), DX.end(), DY.begin(), DY.end(), BS.begin());
    auto GLB = host(LB), GUB = host(UB);
    thrust::host_vector<bool> GBS = BS;
    int Found = 0;
    for (size_t I = 0; I < Y.size(); ++I) {
      int L = int(std::lower_bound(X.begin(), X.end(), Y[I]) - X.begin());
      int U = int(std::upper_bound(X.begin(), X.end(), Y[I]) - X.begin());
      bool F2 = std::binary_search(X.begin(), X.end(), Y[I]);
      Found += F2;
      Bad += (GLB[I] != L) + (GUB[I] != U) + (GBS[I] != F2);
    }
    bool Sorted = thrust::is_sorted(DX.begin(), DX.end());
    Bad += !Sorted;
    std::printf("sets: union/intersection/difference/symmetric/merge, merged=%zu intersect_by_key=%zu found=%d\n",
                WM.size(), WIK.size(), Found);
    report("set operations/merge(_by_key)/lower_bound/upper_bound/binary_search", Bad);
  }

  // Element-wise and queries.
  {
    thrust::device_vector<int> AD(N), Tab(N), Seq(N), Rep = DA;
    thrust::adjacent_difference(DA.begin(), DA.end(), AD.begin());
    thrust::tabulate(Tab.begin(), Tab.end(), Square());
    thrust::sequence(Seq.begin(), Seq.end(), -50, 7);
    thrust::replace_if(Rep.begin(), Rep.end(), DB.begin(), IsEven(), 12345);
    std::vector<int> WAD(N), WTab(N), WSeq(N), WRep = A;
    std::adjacent_difference(A.begin(), A.end(), WAD.begin());
    for (int I = 0; I < N; ++I) {
      WTab[I] = int(Square()(I));
      WSeq[I] = -50 + 7 * I;
      if (Bv[I] % 2 == 0)
        WRep[I] = 12345;
    }
    auto MinI = thrust::min_element(DA.begin(), DA.end()) - DA.begin();
    auto MaxI = thrust::max_element(DF.begin(), DF.end()) - DF.begin();
    auto MM = thrust::minmax_element(DB.begin(), DB.end());
    auto WMin = std::min_element(A.begin(), A.end()) - A.begin();
    auto WMax = std::max_element(F.begin(), F.end()) - F.begin();
    auto WMM = std::minmax_element(Bv.begin(), Bv.end());
    int Cnt = int(thrust::count_if(DA.begin(), DA.end(), Positive()));
    int WCnt = int(std::count_if(A.begin(), A.end(), Positive()));
    thrust::device_vector<int> Copy = DA;
    bool Eq = thrust::equal(DA.begin(), DA.end(), Copy.begin());
    Copy[N - 17] = 99999;
    auto MisP = thrust::mismatch(DA.begin(), DA.end(), Copy.begin());
    auto Found = thrust::find_if(DA.begin(), DA.end(), IsEven()) - DA.begin();
    auto WFound = std::find_if(A.begin(), A.end(), IsEven()) - A.begin();
    bool All = thrust::all_of(DB.begin(), DB.end(), thrust::placeholders::_1 >= 0);
    bool Any = thrust::any_of(DB.begin(), DB.end(), thrust::placeholders::_1 > 498);
    bool WAny = std::any_of(Bv.begin(), Bv.end(), [](int V) { return V > 498; });
    int Bad = diff(host(AD), WAD) + diff(host(Tab), WTab) + diff(host(Seq), WSeq) + diff(host(Rep), WRep) +
              (MinI != WMin) + (MaxI != WMax) +
              // minmax_element may name any of equal extremes: compare values.
              (Bv[MM.first - DB.begin()] != *WMM.first) + (Bv[MM.second - DB.begin()] != *WMM.second) +
              (Cnt != WCnt) + !Eq +
              (MisP.first - DA.begin() != N - 17) + (Found != WFound) + !All + (Any != WAny);
    std::printf("queries: min@%ld max@%ld minmax=%d/%d count_if=%d find_if@%ld\n", long(WMin), long(WMax),
                *WMM.first, *WMM.second, WCnt, long(WFound));
    report("adjacent_difference/tabulate/sequence/replace_if/extrema/count_if/equal/mismatch/find_if/all_of/any_of", Bad);
  }

  // thrust::complex math against std::complex, within a tolerance.
  {
    const int M = 2000;
    std::vector<thrust::complex<double>> Z(M);
    std::vector<thrust::complex<float>> P(M), Q(M);
    for (int I = 0; I < M; ++I) {
      Z[I] = thrust::complex<double>(Rng.range(0.1f, 3.0f), Rng.range(-2.0f, 2.0f));
      P[I] = thrust::complex<float>(Rng.range(-2.0f, 2.0f), Rng.range(-2.0f, 2.0f));
      Q[I] = thrust::complex<float>(Rng.range(-2.0f, 2.0f), Rng.range(-2.0f, 2.0f));
    }
    thrust::device_vector<thrust::complex<double>> DZ(Z.begin(), Z.end()), DO(M);
    thrust::device_vector<thrust::complex<float>> DP(P.begin(), P.end()), DQ(Q.begin(), Q.end()), DOF(M);
    thrust::transform(DZ.begin(), DZ.end(), DO.begin(), CplxMath());
    thrust::transform(DP.begin(), DP.end(), DQ.begin(), DOF.begin(), CplxF());
    thrust::complex<float> Sum = thrust::reduce(DOF.begin(), DOF.end(), thrust::complex<float>(0, 0));
    thrust::host_vector<thrust::complex<double>> GO = DO;
    thrust::host_vector<thrust::complex<float>> GOF = DOF;
    int Bad = 0;
    std::complex<double> WSumD = 0;
    std::complex<double> WSum = 0;
    for (int I = 0; I < M; ++I) {
      std::complex<double> S(Z[I].real(), Z[I].imag());
      std::complex<double> W = std::exp(S) * std::log(S + 2.0) + std::sqrt(S) - std::pow(S, 1.5) / (std::abs(S) + 1.0) +
                               std::sin(S) * std::conj(S) + std::arg(S);
      Bad += !closeTo(GO[I].real(), W.real(), 1e-9, 1e-9) || !closeTo(GO[I].imag(), W.imag(), 1e-9, 1e-9);
      WSumD += W;
      std::complex<double> Pd(P[I].real(), P[I].imag()), Qd(Q[I].real(), Q[I].imag());
      std::complex<double> WF = Pd * Qd + Pd / (Qd + std::complex<double>(3.0, 0.5));
      Bad += !closeTo(GOF[I].real(), WF.real(), 1e-4, 1e-4) || !closeTo(GOF[I].imag(), WF.imag(), 1e-4, 1e-4);
      WSum += WF;
    }
    Bad += !closeTo(Sum.real(), WSum.real(), 1e-3, 1e-2) || !closeTo(Sum.imag(), WSum.imag(), 1e-3, 1e-2);
    std::printf("complex: double sum=(%.4f, %.4f) float sum=(%.2f, %.2f)\n", WSumD.real(), WSumD.imag(), WSum.real(),
                WSum.imag());
    report("thrust::complex math (exp/log/sqrt/pow/abs/sin/conj/arg; float mul/div)", Bad);
  }
  std::printf("checks failed: %d\n", Failures);
  return finish(Failures == 0);
}
