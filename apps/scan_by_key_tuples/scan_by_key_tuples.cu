/// \file
/// Segmented reductions and scans over tuple values, through Thrust's
/// reduce_by_key, inclusive_scan_by_key and exclusive_scan_by_key: the values
/// are zip_iterators over two or three arrays (int, float, double), the keys
/// int or long long, with user binary operators on tuples and a user key
/// equality. CUB's scan-by-key kernels then carry a (value tuple, flag) pair
/// through their look-back tile states, which is a struct of mixed sizes.
/// Every result is checked against a sequential CPU computation; the float
/// and double sums use values exact in binary so the order does not matter.
#include "../common/app_util.h"
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/tuple.h>
#include <vector>

typedef thrust::tuple<int, float> IntFloat;
typedef thrust::tuple<double, int, float> DoubleIntFloat;

// Sum of the first, max of the second: a non-trivial associative operator.
struct SumMax {
  __host__ __device__ IntFloat operator()(const IntFloat &A,
                                          const IntFloat &B) const {
    return IntFloat(thrust::get<0>(A) + thrust::get<0>(B),
                    thrust::get<1>(A) > thrust::get<1>(B) ? thrust::get<1>(A)
                                                          : thrust::get<1>(B));
  }
};

struct SumMinSum {
  __host__ __device__ DoubleIntFloat
  operator()(const DoubleIntFloat &A, const DoubleIntFloat &B) const {
    return DoubleIntFloat(
        thrust::get<0>(A) + thrust::get<0>(B),
        thrust::get<1>(A) < thrust::get<1>(B) ? thrust::get<1>(A)
                                              : thrust::get<1>(B),
        thrust::get<2>(A) + thrust::get<2>(B));
  }
};

// Keys compare equal when they agree after dropping the low bit, so a run of
// keys k, k^1 is one segment: an equality that is not operator==.
template <typename K> struct SameBucket {
  __host__ __device__ bool operator()(K A, K B) const {
    return (A >> 1) == (B >> 1);
  }
};

template <typename K>
static std::vector<K> makeKeys(size_t N, uint64_t Seed, K Scale) {
  std::vector<K> Keys(N);
  Lcg Rng(Seed);
  K Cur = 0;
  for (size_t I = 0; I < N; ++I) {
    if (Rng.below(7) == 0)
      Cur += 2; // a new bucket
    Keys[I] = Cur * Scale + K(Rng.below(2)); // low bit varies inside it
  }
  return Keys;
}

// Which key of a segment reduce_by_key writes out is not specified when
// the keys of a segment differ (CUB writes its last), so output keys are
// checked up to the equality.
static bool sameBucketHost(long long A, long long B) {
  return (A >> 1) == (B >> 1);
}

template <typename K> static bool runPairs(const char *KeyName, size_t N) {
  const std::vector<K> Keys = makeKeys<K>(N, N + sizeof(K), K(1));
  std::vector<int> A(N);
  std::vector<float> B(N);
  Lcg Rng(N * 3 + 1);
  for (size_t I = 0; I < N; ++I) {
    A[I] = int(Rng.below(2001)) - 1000;
    B[I] = float(int(Rng.below(4096)) - 2048) * 0.25f;
  }
  thrust::device_vector<K> DKeys(Keys.begin(), Keys.end());
  thrust::device_vector<int> DA(A.begin(), A.end());
  thrust::device_vector<float> DB(B.begin(), B.end());
  auto Vals = thrust::make_zip_iterator(thrust::make_tuple(DA.begin(), DB.begin()));

  // CPU: segments, their reductions, inclusive and exclusive scans.
  std::vector<K> WantKeys;
  std::vector<int> WantRA, IncA(N), ExcA(N);
  std::vector<float> WantRB, IncB(N), ExcB(N);
  const int InitA = 7;
  const float InitB = -1.0e9f;
  for (size_t I = 0; I < N; ++I) {
    const bool Head = I == 0 || !sameBucketHost(Keys[I - 1], Keys[I]);
    if (Head) {
      WantKeys.push_back(Keys[I]);
      WantRA.push_back(A[I]);
      WantRB.push_back(B[I]);
      IncA[I] = A[I];
      IncB[I] = B[I];
      ExcA[I] = InitA;
      ExcB[I] = InitB;
    } else {
      WantRA.back() += A[I];
      WantRB.back() = std::max(WantRB.back(), B[I]);
      IncA[I] = IncA[I - 1] + A[I];
      IncB[I] = std::max(IncB[I - 1], B[I]);
      ExcA[I] = ExcA[I - 1] + A[I - 1];
      ExcB[I] = std::max(ExcB[I - 1], B[I - 1]);
    }
  }

  thrust::device_vector<K> OutKeys(N);
  thrust::device_vector<int> OA(N);
  thrust::device_vector<float> OB(N);
  auto Out = thrust::make_zip_iterator(thrust::make_tuple(OA.begin(), OB.begin()));
  auto Ends = thrust::reduce_by_key(DKeys.begin(), DKeys.end(), Vals,
                                    OutKeys.begin(), Out, SameBucket<K>(),
                                    SumMax());
  const size_t Segs = Ends.first - OutKeys.begin();
  thrust::host_vector<K> HK = OutKeys;
  thrust::host_vector<int> HA = OA;
  thrust::host_vector<float> HB = OB;
  size_t BadReduce = Segs != WantKeys.size();
  for (size_t I = 0; I < std::min(Segs, WantKeys.size()); ++I)
    BadReduce += !sameBucketHost(HK[I], WantKeys[I]) || HA[I] != WantRA[I] || HB[I] != WantRB[I];

  thrust::inclusive_scan_by_key(DKeys.begin(), DKeys.end(), Vals, Out,
                                SameBucket<K>(), SumMax());
  HA = OA;
  HB = OB;
  size_t BadInc = 0;
  for (size_t I = 0; I < N; ++I)
    BadInc += HA[I] != IncA[I] || HB[I] != IncB[I];

  thrust::exclusive_scan_by_key(DKeys.begin(), DKeys.end(), Vals, Out,
                                IntFloat(InitA, InitB), SameBucket<K>(),
                                SumMax());
  HA = OA;
  HB = OB;
  size_t BadExc = 0;
  for (size_t I = 0; I < N; ++I)
    BadExc += HA[I] != ExcA[I] || HB[I] != ExcB[I];

  std::printf("keys %-9s values (int,float) n %7zu: %zu segments; wrong: "
              "reduce %zu inclusive %zu exclusive %zu\n",
              KeyName, N, WantKeys.size(), BadReduce, BadInc, BadExc);
  return BadReduce == 0 && BadInc == 0 && BadExc == 0;
}

template <typename K> static bool runTriples(const char *KeyName, size_t N) {
  const std::vector<K> Keys = makeKeys<K>(N, N * 5 + sizeof(K), K(1) << 20);
  std::vector<double> A(N);
  std::vector<int> B(N);
  std::vector<float> C(N);
  Lcg Rng(N * 7 + 3);
  for (size_t I = 0; I < N; ++I) {
    A[I] = double(int(Rng.below(1 << 20)) - (1 << 19)) / 1024.0;
    B[I] = int(Rng.next());
    C[I] = float(int(Rng.below(256)) - 128);
  }
  thrust::device_vector<K> DKeys(Keys.begin(), Keys.end());
  thrust::device_vector<double> DA(A.begin(), A.end());
  thrust::device_vector<int> DB(B.begin(), B.end());
  thrust::device_vector<float> DC(C.begin(), C.end());
  auto Vals = thrust::make_zip_iterator(
      thrust::make_tuple(DA.begin(), DB.begin(), DC.begin()));

  std::vector<K> WantKeys;
  std::vector<double> RA, IA(N);
  std::vector<int> RB, IB(N);
  std::vector<float> RC, IC(N);
  for (size_t I = 0; I < N; ++I) {
    const bool Head = I == 0 || !sameBucketHost(Keys[I - 1], Keys[I]);
    if (Head) {
      WantKeys.push_back(Keys[I]);
      RA.push_back(A[I]);
      RB.push_back(B[I]);
      RC.push_back(C[I]);
      IA[I] = A[I];
      IB[I] = B[I];
      IC[I] = C[I];
    } else {
      RA.back() += A[I];
      RB.back() = std::min(RB.back(), B[I]);
      RC.back() += C[I];
      IA[I] = IA[I - 1] + A[I];
      IB[I] = std::min(IB[I - 1], B[I]);
      IC[I] = IC[I - 1] + C[I];
    }
  }

  thrust::device_vector<K> OutKeys(N);
  thrust::device_vector<double> OA(N);
  thrust::device_vector<int> OB(N);
  thrust::device_vector<float> OC(N);
  auto Out = thrust::make_zip_iterator(
      thrust::make_tuple(OA.begin(), OB.begin(), OC.begin()));
  auto Ends = thrust::reduce_by_key(DKeys.begin(), DKeys.end(), Vals,
                                    OutKeys.begin(), Out, SameBucket<K>(),
                                    SumMinSum());
  const size_t Segs = Ends.first - OutKeys.begin();
  thrust::host_vector<K> HK = OutKeys;
  thrust::host_vector<double> HA = OA;
  thrust::host_vector<int> HB = OB;
  thrust::host_vector<float> HC = OC;
  size_t BadReduce = Segs != WantKeys.size();
  for (size_t I = 0; I < std::min(Segs, WantKeys.size()); ++I)
    BadReduce += !sameBucketHost(HK[I], WantKeys[I]) || HA[I] != RA[I] || HB[I] != RB[I] ||
                 HC[I] != RC[I];

  thrust::inclusive_scan_by_key(DKeys.begin(), DKeys.end(), Vals, Out,
                                SameBucket<K>(), SumMinSum());
  HA = OA;
  HB = OB;
  HC = OC;
  size_t BadInc = 0;
  for (size_t I = 0; I < N; ++I)
    BadInc += HA[I] != IA[I] || HB[I] != IB[I] || HC[I] != IC[I];

  std::printf("keys %-9s values (double,int,float) n %7zu: %zu segments; "
              "wrong: reduce %zu inclusive %zu\n",
              KeyName, N, WantKeys.size(), BadReduce, BadInc);
  return BadReduce == 0 && BadInc == 0;
}

int main() {
  bool Ok = true;
  Ok &= runPairs<int>("int", 1000);
  Ok &= runPairs<int>("int", 300001);
  Ok &= runPairs<long long>("long long", 123457);
  Ok &= runTriples<int>("int", 77777);
  Ok &= runTriples<long long>("long long", 250000);
  return finish(Ok);
}
