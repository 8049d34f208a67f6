/// \file
/// CUB's device-wide reductions, scans and element-wise algorithms, each
/// against a sequential CPU computation: DeviceReduce (Sum, Min, Max, ArgMin,
/// ArgMax, Reduce with a user operator over a user struct and a tuple,
/// TransformReduce, ReduceByKey), DeviceScan (inclusive/exclusive, sums and
/// user operators, by key, with an initial value), DeviceSegmentedReduce
/// (including empty segments), DeviceAdjacentDifference, DeviceFor,
/// DeviceTransform, DeviceCopy::Batched and DeviceMemcpy::Batched. Sizes are
/// not multiples of any tile so partial tiles run; float and double inputs
/// are small multiples of 1/8, so every summation order gives the same sum.
#include "../common/cccl_util.h"
#include <algorithm>
#include <climits>
#include <cub/cub.cuh>
#include <cuda/std/tuple>
#include <numeric>

struct Stat {
  int Count;
  float Lo;
  double Sum;
  __host__ __device__ bool operator==(const Stat &O) const {
    return Count == O.Count && Lo == O.Lo && Sum == O.Sum;
  }
};
struct CombineStat {
  __host__ __device__ Stat operator()(const Stat &A, const Stat &B) const {
    return Stat{A.Count + B.Count, A.Lo < B.Lo ? A.Lo : B.Lo, A.Sum + B.Sum};
  }
};
using Tup = cuda::std::tuple<int, long long, float>;
struct CombineTup {
  __host__ __device__ Tup operator()(const Tup &A, const Tup &B) const {
    return Tup(cuda::std::max(cuda::std::get<0>(A), cuda::std::get<0>(B)),
               cuda::std::get<1>(A) + cuda::std::get<1>(B),
               cuda::std::get<2>(A) + cuda::std::get<2>(B));
  }
};
// Not commutative: a 2x2 integer matrix product modulo a prime, the classic
// check that a scan keeps operand order.
struct Mat {
  unsigned A, B, C, D;
  __host__ __device__ bool operator==(const Mat &O) const { return A == O.A && B == O.B && C == O.C && D == O.D; }
};
struct MatMul {
  static constexpr unsigned long long P = 1000003ULL;
  __host__ __device__ Mat operator()(const Mat &X, const Mat &Y) const {
    return Mat{unsigned((1ULL * X.A * Y.A + 1ULL * X.B * Y.C) % P), unsigned((1ULL * X.A * Y.B + 1ULL * X.B * Y.D) % P),
               unsigned((1ULL * X.C * Y.A + 1ULL * X.D * Y.C) % P), unsigned((1ULL * X.C * Y.B + 1ULL * X.D * Y.D) % P)};
  }
};
struct Square {
  __host__ __device__ long long operator()(int V) const { return 1LL * V * V; }
};
struct AbsDiff {
  __host__ __device__ int operator()(int A, int B) const { return A > B ? A - B : B - A; }
};
struct Saxpy {
  __host__ __device__ float operator()(float X, float Y, int Z) const { return 2.0f * X + Y - float(Z); }
};
struct Bump {
  int *Data;
  __device__ void operator()(int I) const { atomicAdd(Data + (I % 97), I); }
};
struct Twice {
  __device__ void operator()(int &V) const { V = 2 * V + 1; }
};

int main() {
  Report R;
  const int N = 100003;
  Lcg Rng(2024);
  std::vector<int> I32(N);
  std::vector<float> F32(N);
  std::vector<double> F64(N);
  for (int I = 0; I < N; ++I) {
    I32[I] = int(Rng.below(2000001)) - 1000000;
    F32[I] = float(int(Rng.below(4001)) - 2000) / 8.0f;
    F64[I] = double(int(Rng.below(80001)) - 40000) / 8.0;
  }
  DBuf<int> DI(I32);
  DBuf<float> DF(F32);
  DBuf<double> DD(F64);

  // --- DeviceReduce over int, float, double.
  {
    DBuf<long long> OutLL(1);
    DBuf<int> OutI(3);
    DBuf<float> OutF(2);
    DBuf<double> OutD(2);
    CUB_RUN(cub::DeviceReduce::Sum(TmpP, TmpB, DI.P, OutLL.P, N));
    CUB_RUN(cub::DeviceReduce::Min(TmpP, TmpB, DI.P, OutI.P, N));
    CUB_RUN(cub::DeviceReduce::Max(TmpP, TmpB, DI.P, OutI.P + 1, N));
    CUB_RUN(cub::DeviceReduce::Sum(TmpP, TmpB, DF.P, OutF.P, N));
    CUB_RUN(cub::DeviceReduce::Max(TmpP, TmpB, DF.P, OutF.P + 1, N));
    CUB_RUN(cub::DeviceReduce::Sum(TmpP, TmpB, DD.P, OutD.P, N));
    CUB_RUN(cub::DeviceReduce::Min(TmpP, TmpB, DD.P, OutD.P + 1, N));
    long long WS = 0;
    double WF = 0, WD = 0;
    for (int I = 0; I < N; ++I)
      WS += I32[I], WF += F32[I], WD += F64[I];
    int WMin = *std::min_element(I32.begin(), I32.end()), WMax = *std::max_element(I32.begin(), I32.end());
    float WFMax = *std::max_element(F32.begin(), F32.end());
    double WDMin = *std::min_element(F64.begin(), F64.end());
    auto GI = OutI.down();
    auto GF = OutF.down();
    auto GD = OutD.down();
    int Bad = (OutLL.one() != WS) + (GI[0] != WMin) + (GI[1] != WMax) + (GF[0] != float(WF)) + (GF[1] != WFMax) +
              (GD[0] != WD) + (GD[1] != WDMin);
    std::printf("reduce: int sum=%lld min=%d max=%d float sum=%.3f max=%.3f double sum=%.3f min=%.3f\n", WS, WMin, WMax,
                WF, WFMax, WD, WDMin);
    R.line("reduce sum/min/max int/float/double", Bad);
  }

  // --- ArgMin / ArgMax (the first position of the extremum wins), with ties.
  {
    std::vector<int> T(N);
    for (int I = 0; I < N; ++I)
      T[I] = int(Rng.below(50));
    DBuf<int> DT(T), Ext(2);
    DBuf<long long> Idx(2);
    CUB_RUN(cub::DeviceReduce::ArgMin(TmpP, TmpB, DT.P, Ext.P, Idx.P, N));
    CUB_RUN(cub::DeviceReduce::ArgMax(TmpP, TmpB, DT.P, Ext.P + 1, Idx.P + 1, N));
    DBuf<float> FE(1);
    DBuf<int> FI(1);
    CUB_RUN(cub::DeviceReduce::ArgMax(TmpP, TmpB, DF.P, FE.P, FI.P, N));
    auto MinIt = std::min_element(T.begin(), T.end()), MaxIt = std::max_element(T.begin(), T.end());
    auto FMaxIt = std::max_element(F32.begin(), F32.end());
    auto E = Ext.down();
    auto X = Idx.down();
    int Bad = (E[0] != *MinIt) + (X[0] != MinIt - T.begin()) + (E[1] != *MaxIt) + (X[1] != MaxIt - T.begin()) +
              (FE.one() != *FMaxIt) + (FI.one() != FMaxIt - F32.begin());
    std::printf("argmin=%d@%ld argmax=%d@%ld float argmax=%.3f@%ld\n", *MinIt, long(MinIt - T.begin()), *MaxIt,
                long(MaxIt - T.begin()), *FMaxIt, long(FMaxIt - F32.begin()));
    R.line("reduce argmin/argmax", Bad);
  }

  // --- Reduce with user operators over a struct and a tuple; TransformReduce.
  {
    std::vector<Stat> S(N);
    std::vector<Tup> TV(N);
    for (int I = 0; I < N; ++I) {
      S[I] = Stat{1, F32[I], F64[I]};
      TV[I] = Tup(I32[I], 1LL * I32[I] * 3, F32[I]);
    }
    DBuf<Stat> DS(S), SO(1);
    DBuf<Tup> DT(TV), TO(1);
    Stat Init{0, 1e30f, 0.0};
    CUB_RUN(cub::DeviceReduce::Reduce(TmpP, TmpB, DS.P, SO.P, N, CombineStat(), Init));
    Tup TInit(INT_MIN, 0LL, 0.0f);
    CUB_RUN(cub::DeviceReduce::Reduce(TmpP, TmpB, DT.P, TO.P, N, CombineTup(), TInit));
    DBuf<long long> SQ(1);
    CUB_RUN(cub::DeviceReduce::TransformReduce(TmpP, TmpB, DI.P, SQ.P, N, cuda::std::plus<long long>(), Square(), 0LL));
    Stat WS = Init;
    Tup WT = TInit;
    long long WSq = 0;
    for (int I = 0; I < N; ++I) {
      WS = CombineStat()(WS, S[I]);
      WT = CombineTup()(WT, TV[I]);
      WSq += 1LL * I32[I] * I32[I];
    }
    Stat GS = SO.one();
    Tup GT = TO.one();
    int Bad = !(GS == WS) + !(GT == WT) + (SQ.one() != WSq);
    std::printf("struct reduce: count=%d lo=%.3f sum=%.3f; tuple reduce: max=%d sum=%lld fsum=%.3f; sum of squares=%lld\n",
                WS.Count, WS.Lo, WS.Sum, cuda::std::get<0>(WT), cuda::std::get<1>(WT), cuda::std::get<2>(WT), WSq);
    R.line("reduce user struct/tuple, transform-reduce", Bad);
  }

  // --- ReduceByKey over runs of keys.
  {
    std::vector<int> K(N);
    int Cur = 0;
    for (int I = 0; I < N; ++I) {
      if (Rng.below(9) == 0)
        Cur += 1 + int(Rng.below(3));
      K[I] = Cur;
    }
    DBuf<int> DK(K), UK(N), Agg(N), NR(1);
    CUB_RUN(cub::DeviceReduce::ReduceByKey(TmpP, TmpB, DK.P, UK.P, DI.P, Agg.P, NR.P, cuda::maximum<int>(), N));
    std::vector<int> WK, WA;
    for (int I = 0; I < N; ++I) {
      if (I == 0 || K[I] != K[I - 1]) {
        WK.push_back(K[I]);
        WA.push_back(I32[I]);
      } else
        WA.back() = std::max(WA.back(), I32[I]);
    }
    int Runs = NR.one();
    int Bad = (Runs != int(WK.size())) + countDiff(UK.down(Runs), WK) + countDiff(Agg.down(Runs), WA);
    std::printf("reduce-by-key: runs=%zu last max=%d\n", WK.size(), WA.back());
    R.line("reduce-by-key max", Bad);

    // Scan by key: inclusive sum, exclusive with a user operator and init.
    DBuf<long long> V64(N), O64(N);
    std::vector<long long> H64(I32.begin(), I32.end());
    V64.up(H64);
    CUB_RUN(cub::DeviceScan::InclusiveSumByKey(TmpP, TmpB, DK.P, V64.P, O64.P, N));
    DBuf<int> OMin(N);
    CUB_RUN(cub::DeviceScan::ExclusiveScanByKey(TmpP, TmpB, DK.P, DI.P, OMin.P, cuda::minimum<int>(), 77, N));
    std::vector<long long> WInc(N);
    std::vector<int> WEx(N);
    for (int I = 0; I < N; ++I) {
      bool Head = I == 0 || K[I] != K[I - 1];
      WInc[I] = Head ? H64[I] : WInc[I - 1] + H64[I];
      WEx[I] = Head ? 77 : std::min(WEx[I - 1], I32[I - 1]);
    }
    Bad = countDiff(O64.down(), WInc) + countDiff(OMin.down(), WEx);
    std::printf("scan-by-key: last inclusive=%lld last exclusive min=%d\n", WInc.back(), WEx.back());
    R.line("scan-by-key inclusive sum / exclusive min", Bad);
  }

  // --- DeviceScan: sums (int in place into long long), user non-commutative op, init.
  {
    DBuf<long long> Inc(N), Exc(N);
    CUB_RUN(cub::DeviceScan::InclusiveSum(TmpP, TmpB, DI.P, Inc.P, N));
    CUB_RUN(cub::DeviceScan::ExclusiveSum(TmpP, TmpB, DI.P, Exc.P, N));
    std::vector<long long> WI(N), WE(N);
    long long Run = 0;
    for (int I = 0; I < N; ++I) {
      WE[I] = Run;
      Run += I32[I];
      WI[I] = Run;
    }
    // The int scan into an int output wraps like the GPU's int arithmetic
    // would; keep it in range by scanning the low 10 bits.
    int Bad = countDiff(Inc.down(), WI) + countDiff(Exc.down(), WE);
    const int M = 20011;
    std::vector<Mat> Ms(M);
    for (int I = 0; I < M; ++I)
      Ms[I] = Mat{Rng.below(1000003), Rng.below(1000003), Rng.below(1000003), Rng.below(1000003)};
    DBuf<Mat> DM(Ms), MI(M), ME(M);
    CUB_RUN(cub::DeviceScan::InclusiveScan(TmpP, TmpB, DM.P, MI.P, MatMul(), M));
    Mat Id{1, 0, 0, 1};
    CUB_RUN(cub::DeviceScan::ExclusiveScan(TmpP, TmpB, DM.P, ME.P, MatMul(), Id, M));
    std::vector<Mat> WMI(M), WME(M);
    Mat Acc = Id;
    for (int I = 0; I < M; ++I) {
      WME[I] = Acc;
      Acc = MatMul()(Acc, Ms[I]);
      WMI[I] = Acc;
    }
    Bad += countDiff(MI.down(), WMI) + countDiff(ME.down(), WME);
    DBuf<float> FI(N);
    CUB_RUN(cub::DeviceScan::InclusiveScan(TmpP, TmpB, DF.P, FI.P, cuda::maximum<float>(), N));
    std::vector<float> WFI(N);
    for (int I = 0; I < N; ++I)
      WFI[I] = I ? std::max(WFI[I - 1], F32[I]) : F32[I];
    Bad += countDiff(FI.down(), WFI);
    DBuf<int> II(N);
    CUB_RUN(cub::DeviceScan::InclusiveScanInit(TmpP, TmpB, DI.P, II.P, cuda::maximum<int>(), -5, N));
    std::vector<int> WII(N);
    for (int I = 0; I < N; ++I)
      WII[I] = std::max(I ? WII[I - 1] : -5, I32[I]);
    Bad += countDiff(II.down(), WII);
    std::printf("scan: total=%lld matrix product=%u,%u,%u,%u running float max end=%.3f\n", Run, Acc.A, Acc.B, Acc.C,
                Acc.D, WFI.back());
    R.line("scan sums, non-commutative matrix scan, max scans, init", Bad);
  }

  // --- DeviceSegmentedReduce, with empty and single-element segments.
  {
    std::vector<int> Off{0};
    while (Off.back() < N) {
      int Len = Rng.below(5) == 0 ? 0 : int(Rng.below(700));
      Off.push_back(std::min(N, Off.back() + Len));
    }
    int S = int(Off.size()) - 1;
    DBuf<int> DO(Off), SumO(S), MinO(S), MaxO(S);
    DBuf<double> DSum(S);
    CUB_RUN(cub::DeviceSegmentedReduce::Sum(TmpP, TmpB, DI.P, SumO.P, S, DO.P, DO.P + 1));
    CUB_RUN(cub::DeviceSegmentedReduce::Min(TmpP, TmpB, DI.P, MinO.P, S, DO.P, DO.P + 1));
    CUB_RUN(cub::DeviceSegmentedReduce::Max(TmpP, TmpB, DI.P, MaxO.P, S, DO.P, DO.P + 1));
    CUB_RUN(cub::DeviceSegmentedReduce::Reduce(TmpP, TmpB, DD.P, DSum.P, S, DO.P, DO.P + 1, cuda::std::plus<double>(), 0.5));
    DBuf<cub::KeyValuePair<int, int>> AM(S);
    CUB_RUN(cub::DeviceSegmentedReduce::ArgMin(TmpP, TmpB, DI.P, AM.P, S, DO.P, DO.P + 1));
    auto GS = SumO.down(), GMin = MinO.down(), GMax = MaxO.down();
    auto GD = DSum.down();
    auto GA = AM.down();
    int Bad = 0, Empty = 0;
    long long Check = 0;
    for (int Seg = 0; Seg < S; ++Seg) {
      int B = Off[Seg], E = Off[Seg + 1];
      int Sum = 0, Mn = INT_MAX, Mx = INT_MIN, ArgK = 1, ArgV = INT_MAX;
      double DSumW = 0.5;
      for (int I = B; I < E; ++I) {
        Sum += I32[I];
        Mn = std::min(Mn, I32[I]);
        Mx = std::max(Mx, I32[I]);
        DSumW += F64[I];
        if (I32[I] < ArgV)
          ArgV = I32[I], ArgK = I - B;
      }
      if (B == E)
        ++Empty;
      Bad += (GS[Seg] != Sum) + (GMin[Seg] != Mn) + (GMax[Seg] != Mx) + (GD[Seg] != DSumW);
      // An empty segment's ArgMin is {1, max()} by CUB's documentation.
      Bad += (GA[Seg].key != ArgK) + (GA[Seg].value != ArgV);
      Check += Sum + Mn % 7;
    }
    std::printf("segmented reduce: segments=%d empty=%d checksum=%lld\n", S, Empty, Check);
    R.line("segmented reduce sum/min/max/custom/argmin", Bad);
  }

  // --- DeviceAdjacentDifference (copy and in place, left and right).
  {
    DBuf<int> L(N), Rt(I32);
    CUB_RUN(cub::DeviceAdjacentDifference::SubtractLeftCopy(TmpP, TmpB, DI.P, L.P, N, AbsDiff()));
    CUB_RUN(cub::DeviceAdjacentDifference::SubtractRight(TmpP, TmpB, Rt.P, N));
    std::vector<int> WL(N), WR(N);
    for (int I = 0; I < N; ++I) {
      WL[I] = I ? AbsDiff()(I32[I], I32[I - 1]) : I32[0];
      WR[I] = I + 1 < N ? I32[I] - I32[I + 1] : I32[I];
    }
    int Bad = countDiff(L.down(), WL) + countDiff(Rt.down(), WR);
    std::printf("adjacent difference: first=%d last=%d\n", WL[1], WR[N - 2]);
    R.line("adjacent difference left-copy/right-in-place", Bad);
  }

  // --- DeviceFor and DeviceTransform.
  {
    DBuf<int> Buckets(97);
    CHECK(cub::DeviceFor::Bulk(5000, Bump{Buckets.P}));
    DBuf<int> Seq(I32);
    CHECK(cub::DeviceFor::ForEachN(Seq.P, N, Twice()));
    DBuf<float> T(N);
    CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(DF.P, DF.P, DI.P), T.P, N, Saxpy()));
    CHECK(cudaDeviceSynchronize());
    std::vector<int> WB(97, 0), WS(N);
    std::vector<float> WT(N);
    for (int I = 0; I < 5000; ++I)
      WB[I % 97] += I;
    for (int I = 0; I < N; ++I) {
      WS[I] = 2 * I32[I] + 1;
      WT[I] = 2.0f * F32[I] + F32[I] - float(I32[I]);
    }
    int Bad = countDiff(Buckets.down(), WB) + countDiff(Seq.down(), WS) + countDiff(T.down(), WT);
    std::printf("for/transform: bucket0=%d transformed[7]=%.3f\n", WB[0], WT[7]);
    R.line("device for bulk/for-each-n, device transform 3 inputs", Bad);
  }

  // --- DeviceCopy::Batched (iterator ranges) and DeviceMemcpy::Batched (bytes).
  {
    const int B = 300;
    std::vector<int> SrcOff(B), DstOff(B), Size(B);
    int Total = 0;
    for (int I = 0; I < B; ++I) {
      Size[I] = Rng.below(6) == 0 ? int(Rng.below(3000)) : int(Rng.below(40));
      SrcOff[I] = int(Rng.below(N - 3000));
      DstOff[I] = Total;
      Total += Size[I];
    }
    std::vector<int *> Src(B), Dst(B);
    DBuf<int> Out(Total);
    DBuf<unsigned char> Bytes(Total * 4);
    std::vector<void *> BS(B), BD(B);
    std::vector<size_t> BSz(B);
    for (int I = 0; I < B; ++I) {
      Src[I] = DI.P + SrcOff[I];
      Dst[I] = Out.P + DstOff[I];
      BS[I] = (void *)((char *)DI.P + SrcOff[I] * 4 + 1); // unaligned byte ranges
      BD[I] = (void *)(Bytes.P + DstOff[I] * 4);
      BSz[I] = Size[I] * 4 > 1 ? Size[I] * 4 - 1 : 0;
    }
    DBuf<int *> DSrc(Src), DDst(Dst);
    DBuf<int> DSz(Size);
    DBuf<void *> DBS(BS), DBD(BD);
    DBuf<size_t> DBSz(BSz);
    CUB_RUN(cub::DeviceCopy::Batched(TmpP, TmpB, DSrc.P, DDst.P, DSz.P, B));
    CUB_RUN(cub::DeviceMemcpy::Batched(TmpP, TmpB, DBS.P, DBD.P, DBSz.P, B));
    std::vector<int> W(Total);
    std::vector<unsigned char> WBy(Total * 4, 0);
    for (int I = 0; I < B; ++I) {
      for (int J = 0; J < Size[I]; ++J)
        W[DstOff[I] + J] = I32[SrcOff[I] + J];
      const unsigned char *S = (const unsigned char *)(I32.data() + SrcOff[I]) + 1;
      for (size_t J = 0; J < BSz[I]; ++J)
        WBy[DstOff[I] * 4 + J] = S[J];
    }
    int Bad = countDiff(Out.down(), W) + countDiff(Bytes.down(), WBy);
    std::printf("batched copy: ranges=%d items=%d\n", B, Total);
    R.line("device copy batched / memcpy batched", Bad);
  }
  return R.done();
}
