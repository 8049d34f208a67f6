/// \file
/// A small analytics job in Thrust: generate records, transform them, sort by
/// key, reduce by key, scan, count and reduce, all on device_vectors, and
/// compare each stage with the same computation in the C++ standard library.
#include "../common/app_util.h"
#include <algorithm>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/count.h>
#include <vector>

struct Score {
  __host__ __device__ int operator()(int V) const { return (V * 7 + 3) % 1000; }
};
struct IsHigh {
  __host__ __device__ bool operator()(int V) const { return V >= 750; }
};

int main() {
  const int N = 50000;
  std::vector<int> Raw(N), Keys(N);
  Lcg Rng(100);
  for (int I = 0; I < N; ++I) {
    Raw[I] = int(Rng.below(100000));
    Keys[I] = int(Rng.below(64));
  }
  thrust::device_vector<int> DRaw(Raw.begin(), Raw.end()), DKeys(Keys.begin(), Keys.end()), DScore(N);
  thrust::transform(DRaw.begin(), DRaw.end(), DScore.begin(), Score());
  std::vector<int> Sc(N);
  std::transform(Raw.begin(), Raw.end(), Sc.begin(), [](int V) { return (V * 7 + 3) % 1000; });

  long long Sum = thrust::reduce(DScore.begin(), DScore.end(), 0LL, thrust::plus<long long>());
  int Max = thrust::reduce(DScore.begin(), DScore.end(), 0, thrust::maximum<int>());
  int High = int(thrust::count_if(DScore.begin(), DScore.end(), IsHigh()));
  long long WantSum = std::accumulate(Sc.begin(), Sc.end(), 0LL);
  int WantMax = *std::max_element(Sc.begin(), Sc.end());
  int WantHigh = int(std::count_if(Sc.begin(), Sc.end(), [](int V) { return V >= 750; }));
  std::printf("reduce sum=%lld (%s) max=%d (%s) count_if=%d (%s)\n", WantSum, Sum == WantSum ? "ok" : "MISMATCH",
              WantMax, Max == WantMax ? "ok" : "MISMATCH", WantHigh, High == WantHigh ? "ok" : "MISMATCH");
  bool Ok = Sum == WantSum && Max == WantMax && High == WantHigh;

  // Sort scores by key (stable), then per-key totals.
  thrust::device_vector<int> SKeys = DKeys, SVals = DScore;
  thrust::stable_sort_by_key(SKeys.begin(), SKeys.end(), SVals.begin());
  thrust::device_vector<int> UKeys(64), KSum(64);
  auto End = thrust::reduce_by_key(SKeys.begin(), SKeys.end(), SVals.begin(), UKeys.begin(), KSum.begin());
  int Groups = int(End.first - UKeys.begin());
  std::vector<std::pair<int, int>> Pairs(N);
  for (int I = 0; I < N; ++I)
    Pairs[I] = {Keys[I], Sc[I]};
  std::stable_sort(Pairs.begin(), Pairs.end(), [](auto &A, auto &B) { return A.first < B.first; });
  thrust::host_vector<int> HVals = SVals, HKSum = KSum;
  int BadSort = 0;
  for (int I = 0; I < N; ++I)
    BadSort += HVals[I] != Pairs[I].second;
  std::vector<int> WantK(64, 0);
  for (int I = 0; I < N; ++I)
    WantK[Keys[I]] += Sc[I];
  int BadK = Groups != 64;
  for (int K = 0; K < 64 && K < Groups; ++K)
    BadK += HKSum[K] != WantK[K];
  std::printf("stable_sort_by_key: mismatches=%d, reduce_by_key: groups=%d mismatches=%d key0 total=%d\n", BadSort,
              Groups, BadK, WantK[0]);
  Ok = Ok && BadSort == 0 && BadK == 0;

  // Plain sort (descending) and inclusive/exclusive scans.
  thrust::device_vector<int> Sorted = DScore;
  thrust::sort(Sorted.begin(), Sorted.end(), thrust::greater<int>());
  std::vector<int> WantSorted = Sc;
  std::sort(WantSorted.begin(), WantSorted.end(), std::greater<int>());
  thrust::device_vector<long long> Scan(N);
  thrust::inclusive_scan(DScore.begin(), DScore.end(), Scan.begin(), thrust::plus<long long>());
  thrust::device_vector<int> Ex(N);
  thrust::exclusive_scan(DKeys.begin(), DKeys.end(), Ex.begin(), 10);
  thrust::host_vector<int> HSorted = Sorted, HEx = Ex;
  thrust::host_vector<long long> HScan = Scan;
  int BadS = 0, BadScan = 0;
  long long Run = 0;
  int ExRun = 10;
  for (int I = 0; I < N; ++I) {
    BadS += HSorted[I] != WantSorted[I];
    Run += Sc[I];
    BadScan += HScan[I] != Run;
    BadScan += HEx[I] != ExRun;
    ExRun += Keys[I];
  }
  std::printf("sort descending: mismatches=%d first=%d last=%d\n", BadS, WantSorted[0], WantSorted[N - 1]);
  std::printf("scans: mismatches=%d total=%lld\n", BadScan, Run);
  return finish(Ok && BadS == 0 && BadScan == 0);
}
