/// \file
/// CUB's device-wide sorting, merging, selection and counting algorithms
/// against std:: equivalents: DeviceRadixSort (float keys descending with
/// negatives, 64-bit keys over a bit range, 8-bit keys, DoubleBuffer, a user
/// struct key through a decomposer), DeviceSegmentedRadixSort,
/// DeviceSegmentedSort (stable, descending, pairs), DeviceMergeSort with user
/// comparators, DeviceMerge, DeviceSelect (If, Flagged, Unique, UniqueByKey),
/// DevicePartition (two-way and three-way), DeviceRunLengthEncode (Encode,
/// NonTrivialRuns) and DeviceHistogram (even, range, multi-channel).
#include "../common/cccl_util.h"
#include <algorithm>
#include <cub/cub.cuh>
#include <cuda/std/tuple>
#include <numeric>

struct Rec {
  float F;
  long long L;
  bool operator==(const Rec &O) const { return F == O.F && L == O.L; }
};
struct RecParts {
  __host__ __device__ cuda::std::tuple<float &, long long &> operator()(Rec &R) const { return {R.F, R.L}; }
};
// Orders by the low byte first, then descending by the rest: a comparator
// that is not the natural order.
struct ByLowByte {
  __host__ __device__ bool operator()(unsigned A, unsigned B) const {
    if ((A & 255u) != (B & 255u))
      return (A & 255u) < (B & 255u);
    return (A >> 8) > (B >> 8);
  }
};
struct Div10Less {
  __host__ __device__ bool operator()(int A, int B) const { return A / 10 < B / 10; }
};
struct IsMult3 {
  __host__ __device__ bool operator()(int V) const { return V % 3 == 0; }
};
struct IsMult5 {
  __host__ __device__ bool operator()(int V) const { return V % 5 == 0; }
};
struct BigF {
  __host__ __device__ bool operator()(float V) const { return V > 100.0f; }
};

int main() {
  Report R;
  const int N = 70001;
  Lcg Rng(777);

  // --- DeviceRadixSort over several key types.
  {
    std::vector<float> FK(N);
    std::vector<int> Vals(N);
    std::vector<unsigned long long> LK(N);
    std::vector<unsigned char> BK(N);
    for (int I = 0; I < N; ++I) {
      FK[I] = float(int(Rng.below(20001)) - 10000) * 0.25f;
      Vals[I] = I;
      LK[I] = (uint64_t(Rng.next()) << 32) | Rng.next();
      BK[I] = (unsigned char)Rng.below(256);
    }
    DBuf<float> DFK(FK), DFO(N);
    DBuf<int> DV(Vals), DVO(N);
    CUB_RUN(cub::DeviceRadixSort::SortPairsDescending(TmpP, TmpB, DFK.P, DFO.P, DV.P, DVO.P, N));
    std::vector<std::pair<float, int>> W(N);
    for (int I = 0; I < N; ++I)
      W[I] = {FK[I], I};
    std::stable_sort(W.begin(), W.end(), [](auto &A, auto &B) { return A.first > B.first; });
    auto GK = DFO.down();
    auto GV = DVO.down();
    int Bad = 0;
    for (int I = 0; I < N; ++I)
      Bad += GK[I] != W[I].first || GV[I] != W[I].second;
    std::printf("radix float descending: first=%.2f@%d last=%.2f@%d\n", W[0].first, W[0].second, W[N - 1].first,
                W[N - 1].second);
    R.line("radix sort pairs descending float keys", Bad);

    // 64-bit keys sorted by bits [20, 52) only: stable within equal digits.
    DBuf<unsigned long long> DLK(LK), DLO(N);
    CUB_RUN(cub::DeviceRadixSort::SortKeys(TmpP, TmpB, DLK.P, DLO.P, N, 20, 52));
    std::vector<unsigned long long> WL = LK;
    std::stable_sort(WL.begin(), WL.end(), [](uint64_t A, uint64_t B) {
      return ((A >> 20) & 0xffffffffULL) < ((B >> 20) & 0xffffffffULL);
    });
    Bad = countDiff(DLO.down(), WL);
    // 8-bit keys through a DoubleBuffer (the result may be in either half).
    DBuf<unsigned char> B0(BK), B1(N);
    DBuf<int> V0(Vals), V1(N);
    cub::DoubleBuffer<unsigned char> DBK(B0.P, B1.P);
    cub::DoubleBuffer<int> DBV(V0.P, V1.P);
    CUB_RUN(cub::DeviceRadixSort::SortPairs(TmpP, TmpB, DBK, DBV, N));
    std::vector<unsigned char> GB(N);
    std::vector<int> GBV(N);
    CHECK(cudaMemcpy(GB.data(), DBK.Current(), N, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GBV.data(), DBV.Current(), N * 4, cudaMemcpyDeviceToHost));
    std::vector<int> WI(N);
    std::iota(WI.begin(), WI.end(), 0);
    std::stable_sort(WI.begin(), WI.end(), [&](int A, int B) { return BK[A] < BK[B]; });
    for (int I = 0; I < N; ++I)
      Bad += GB[I] != BK[WI[I]] || GBV[I] != WI[I];
    std::printf("radix 64-bit bits [20,52): first=%llx; 8-bit double buffer: first index=%d\n", WL[0], WI[0]);
    R.line("radix sort keys bit range / double buffer", Bad);

    // A user struct key: float first, then a signed 64-bit field.
    std::vector<Rec> RK(N);
    for (int I = 0; I < N; ++I)
      RK[I] = Rec{float(int(Rng.below(9)) - 4) * 0.5f, (long long)(Rng.below(2000001)) - 1000000};
    DBuf<Rec> DR(RK), DRO(N);
    CUB_RUN(cub::DeviceRadixSort::SortKeys(TmpP, TmpB, DR.P, DRO.P, N, RecParts()));
    std::vector<Rec> WR = RK;
    std::stable_sort(WR.begin(), WR.end(), [](const Rec &A, const Rec &B) { return A.F != B.F ? A.F < B.F : A.L < B.L; });
    Bad = countDiff(DRO.down(), WR);
    std::printf("radix decomposer: first=(%.1f,%lld) last=(%.1f,%lld)\n", WR[0].F, WR[0].L, WR[N - 1].F, WR[N - 1].L);
    R.line("radix sort user struct keys via decomposer", Bad);
  }

  // --- Segmented sorts.
  std::vector<int> Off{0};
  while (Off.back() < N) {
    int Len = Rng.below(6) == 0 ? int(Rng.below(4)) : Rng.below(20) == 0 ? int(Rng.below(5000)) : int(Rng.below(300));
    Off.push_back(std::min(N, Off.back() + Len));
  }
  const int S = int(Off.size()) - 1;
  DBuf<int> DOff(Off);
  std::vector<int> Keys(N), Idx(N);
  for (int I = 0; I < N; ++I) {
    Keys[I] = int(Rng.below(1000)) - 500;
    Idx[I] = I;
  }
  DBuf<int> DK(Keys), DIdx(Idx);
  {
    DBuf<int> KO(N), VO(N), KO2(N), VO2(N);
    CUB_RUN(cub::DeviceSegmentedRadixSort::SortPairs(TmpP, TmpB, DK.P, KO.P, DIdx.P, VO.P, N, S, DOff.P, DOff.P + 1));
    CUB_RUN(cub::DeviceSegmentedSort::StableSortPairsDescending(TmpP, TmpB, DK.P, KO2.P, DIdx.P, VO2.P, N, S, DOff.P,
                                                                DOff.P + 1));
    DBuf<int> KO3(N);
    CUB_RUN(cub::DeviceSegmentedSort::SortKeys(TmpP, TmpB, DK.P, KO3.P, N, S, DOff.P, DOff.P + 1));
    std::vector<int> WA = Idx, WD = Idx;
    for (int Sg = 0; Sg < S; ++Sg) {
      std::stable_sort(WA.begin() + Off[Sg], WA.begin() + Off[Sg + 1], [&](int A, int B) { return Keys[A] < Keys[B]; });
      std::stable_sort(WD.begin() + Off[Sg], WD.begin() + Off[Sg + 1], [&](int A, int B) { return Keys[A] > Keys[B]; });
    }
    auto GK = KO.down(), GV = VO.down(), GK2 = KO2.down(), GV2 = VO2.down(), GK3 = KO3.down();
    int Bad = 0;
    for (int I = 0; I < N; ++I)
      Bad += (GK[I] != Keys[WA[I]]) + (GV[I] != WA[I]) + (GK2[I] != Keys[WD[I]]) + (GV2[I] != WD[I]) +
             (GK3[I] != Keys[WA[I]]);
    std::printf("segmented sorts: segments=%d first=%d\n", S, WA[0]);
    R.line("segmented radix sort pairs / segmented stable sort descending / keys", Bad);
  }

  // --- DeviceMergeSort with user comparators; DeviceMerge.
  {
    std::vector<unsigned> U(N);
    for (int I = 0; I < N; ++I)
      U[I] = Rng.next() & 0xfffffu;
    DBuf<unsigned> DU(U);
    DBuf<int> DI2(Idx);
    CUB_RUN(cub::DeviceMergeSort::SortPairs(TmpP, TmpB, DU.P, DI2.P, N, ByLowByte()));
    std::vector<int> W = Idx;
    std::stable_sort(W.begin(), W.end(), [&](int A, int B) { return ByLowByte()(U[A], U[B]); });
    auto GU = DU.down();
    auto GI = DI2.down();
    int Bad = 0;
    for (int I = 0; I < N; ++I)
      Bad += GU[I] != U[W[I]]; // SortPairs is not stable: check keys only
    DBuf<int> DS(Keys);
    CUB_RUN(cub::DeviceMergeSort::StableSortKeys(TmpP, TmpB, DS.P, N, Div10Less()));
    std::vector<int> WS = Keys;
    std::stable_sort(WS.begin(), WS.end(), Div10Less());
    Bad += countDiff(DS.down(), WS);
    // Merge two sorted runs of pairs.
    std::vector<int> A(N / 2), B(N - N / 2);
    for (auto &V : A)
      V = int(Rng.below(100000));
    for (auto &V : B)
      V = int(Rng.below(100000));
    std::sort(A.begin(), A.end());
    std::sort(B.begin(), B.end());
    std::vector<int> AV(A.size(), 1), BV(B.size(), 2);
    DBuf<int> DA(A), DB(B), DAV(AV), DBV(BV), MK(N), MV(N);
    CUB_RUN(cub::DeviceMerge::MergePairs(TmpP, TmpB, DA.P, DAV.P, (long long)A.size(), DB.P, DBV.P, (long long)B.size(),
                                         MK.P, MV.P));
    std::vector<std::pair<int, int>> WM;
    for (size_t I = 0; I < A.size(); ++I)
      WM.push_back({A[I], 1});
    for (size_t I = 0; I < B.size(); ++I)
      WM.push_back({B[I], 2});
    std::stable_sort(WM.begin(), WM.end(), [](auto &X, auto &Y) { return X.first < Y.first; });
    auto GMK = MK.down(), GMV = MV.down();
    for (int I = 0; I < N; ++I)
      Bad += GMK[I] != WM[I].first || GMV[I] != WM[I].second;
    std::printf("merge sort: first=%u stable div10 first=%d; merge: median=%d\n", U[W[0]], WS[0], WM[N / 2].first);
    R.line("merge sort pairs / stable sort keys / merge pairs", Bad);
  }

  // --- DeviceSelect and DevicePartition.
  {
    std::vector<int> V(N);
    std::vector<char> Flags(N);
    for (int I = 0; I < N; ++I) {
      V[I] = Rng.below(4) == 0 && I ? V[I - 1] : int(Rng.below(200));
      Flags[I] = char(Rng.below(3) == 0);
    }
    DBuf<int> DV(V), Out(N), Out2(N), Out3(N), Num(2);
    DBuf<char> DF(Flags);
    std::vector<int> WIf, WFl, WUq, WRej;
    for (int I = 0; I < N; ++I) {
      (V[I] % 3 == 0 ? WIf : WRej).push_back(V[I]);
      if (Flags[I])
        WFl.push_back(V[I]);
      if (I == 0 || V[I] != V[I - 1])
        WUq.push_back(V[I]);
    }
    int Bad = 0;
    CUB_RUN(cub::DeviceSelect::If(TmpP, TmpB, DV.P, Out.P, Num.P, N, IsMult3()));
    Bad += (Num.one() != int(WIf.size())) + countDiff(Out.down(WIf.size()), WIf);
    CUB_RUN(cub::DeviceSelect::Flagged(TmpP, TmpB, DV.P, DF.P, Out.P, Num.P, N));
    Bad += (Num.one() != int(WFl.size())) + countDiff(Out.down(WFl.size()), WFl);
    CUB_RUN(cub::DeviceSelect::Unique(TmpP, TmpB, DV.P, Out.P, Num.P, N));
    Bad += (Num.one() != int(WUq.size())) + countDiff(Out.down(WUq.size()), WUq);
    // UniqueByKey keeps the first value of each run of equal keys.
    DBuf<int> UK(N), UV(N);
    CUB_RUN(cub::DeviceSelect::UniqueByKey(TmpP, TmpB, DV.P, DIdx.P, UK.P, UV.P, Num.P, N));
    std::vector<int> WUV;
    for (int I = 0; I < N; ++I)
      if (I == 0 || V[I] != V[I - 1])
        WUV.push_back(I);
    Bad += (Num.one() != int(WUV.size())) + countDiff(UK.down(WUV.size()), WUq) + countDiff(UV.down(WUV.size()), WUV);
    // Two-way partition: selected in order, then the rejected in reverse.
    CUB_RUN(cub::DevicePartition::If(TmpP, TmpB, DV.P, Out.P, Num.P, N, IsMult3()));
    std::vector<int> WP = WIf;
    WP.insert(WP.end(), WRej.rbegin(), WRej.rend());
    Bad += (Num.one() != int(WIf.size())) + countDiff(Out.down(), WP);
    // Three-way partition.
    CUB_RUN(cub::DevicePartition::If(TmpP, TmpB, DV.P, Out.P, Out2.P, Out3.P, Num.P, N, IsMult3(), IsMult5()));
    std::vector<int> W1, W2, W3;
    for (int X : V)
      (X % 3 == 0 ? W1 : X % 5 == 0 ? W2 : W3).push_back(X);
    auto GN = Num.down();
    Bad += (GN[0] != int(W1.size())) + (GN[1] != int(W2.size())) + countDiff(Out.down(W1.size()), W1) +
           countDiff(Out2.down(W2.size()), W2) + countDiff(Out3.down(W3.size()), W3);
    // Partition of floats flagged by a predicate on a transform of the input.
    std::vector<float> FV(N);
    for (int I = 0; I < N; ++I)
      FV[I] = float(V[I]) * 0.75f;
    DBuf<float> DFV(FV), FO(N);
    CUB_RUN(cub::DevicePartition::Flagged(TmpP, TmpB, DFV.P, DF.P, FO.P, Num.P, N));
    std::vector<float> WFF, WFR;
    for (int I = 0; I < N; ++I)
      (Flags[I] ? WFF : WFR).push_back(FV[I]);
    WFF.insert(WFF.end(), WFR.rbegin(), WFR.rend());
    Bad += countDiff(FO.down(), WFF);
    CUB_RUN(cub::DeviceSelect::If(TmpP, TmpB, DFV.P, FO.P, Num.P, N, BigF()));
    int WBig = int(std::count_if(FV.begin(), FV.end(), [](float X) { return X > 100.0f; }));
    Bad += Num.one() != WBig;
    std::printf("select: if=%zu flagged=%zu unique=%zu; partition three-way=%zu/%zu/%zu big=%d\n", WIf.size(),
                WFl.size(), WUq.size(), W1.size(), W2.size(), W3.size(), WBig);
    R.line("select if/flagged/unique/unique-by-key, partition 2-way/3-way/flagged", Bad);

    // Run-length encoding.
    DBuf<int> RU(N), RC(N);
    CUB_RUN(cub::DeviceRunLengthEncode::Encode(TmpP, TmpB, DV.P, RU.P, RC.P, Num.P, N));
    std::vector<int> WRU, WRC, WNO, WNL;
    for (int I = 0; I < N; ++I) {
      if (I == 0 || V[I] != V[I - 1]) {
        WRU.push_back(V[I]);
        WRC.push_back(1);
        WNO.push_back(I);
      } else
        WRC.back()++;
    }
    int Runs = Num.one();
    Bad = (Runs != int(WRU.size())) + countDiff(RU.down(WRU.size()), WRU) + countDiff(RC.down(WRC.size()), WRC);
    std::vector<int> WO2, WL2;
    for (size_t I = 0; I < WRC.size(); ++I)
      if (WRC[I] > 1)
        WO2.push_back(WNO[I]), WL2.push_back(WRC[I]);
    CUB_RUN(cub::DeviceRunLengthEncode::NonTrivialRuns(TmpP, TmpB, DV.P, RU.P, RC.P, Num.P, N));
    Bad += (Num.one() != int(WO2.size())) + countDiff(RU.down(WO2.size()), WO2) + countDiff(RC.down(WL2.size()), WL2);
    std::printf("run-length: runs=%zu non-trivial=%zu longest=%d\n", WRU.size(), WO2.size(),
                *std::max_element(WRC.begin(), WRC.end()));
    R.line("run-length encode / non-trivial runs", Bad);
  }

  // --- Histograms: even bins over floats (some samples outside), range
  // bins over ints, and 4-channel pixels with 3 active channels.
  {
    std::vector<float> FS(N);
    std::vector<int> IS(N);
    const int P = 40000;
    std::vector<unsigned char> Px(P * 4);
    for (int I = 0; I < N; ++I) {
      FS[I] = float(int(Rng.below(1300)) - 100) * 0.125f; // [-12.5, 149.4]
      IS[I] = int(Rng.below(1000));
    }
    for (auto &C : Px)
      C = (unsigned char)Rng.below(256);
    DBuf<float> DFS(FS);
    DBuf<int> DIS(IS), HE(16), HR(7);
    CUB_RUN(cub::DeviceHistogram::HistogramEven(TmpP, TmpB, DFS.P, HE.P, 17, 0.0f, 128.0f, N));
    std::vector<int> Levels{0, 10, 50, 100, 300, 301, 700, 999};
    DBuf<int> DL(Levels);
    CUB_RUN(cub::DeviceHistogram::HistogramRange(TmpP, TmpB, DIS.P, HR.P, 8, DL.P, N));
    DBuf<unsigned char> DPx(Px);
    DBuf<unsigned> H0(32), H1(8), H2(256);
    cuda::std::array<unsigned *, 3> Hs{H0.P, H1.P, H2.P};
    cuda::std::array<int, 3> NL{33, 9, 257};
    cuda::std::array<int, 3> Lo{0, 0, 0}, Hi{256, 256, 256};
    CUB_RUN(cub::DeviceHistogram::MultiHistogramEven<4, 3>(TmpP, TmpB, DPx.P, Hs, NL, Lo, Hi, P));
    std::vector<int> WE(16, 0), WRg(7, 0);
    std::vector<unsigned> W0(32, 0), W1(8, 0), W2(256, 0);
    for (float X : FS)
      if (X >= 0.0f && X < 128.0f)
        WE[int(X / 8.0f)]++;
    for (int X : IS)
      for (int B = 0; B < 7; ++B)
        if (X >= Levels[B] && X < Levels[B + 1])
          WRg[B]++;
    for (int I = 0; I < P; ++I) {
      W0[Px[4 * I] / 8]++;
      W1[Px[4 * I + 1] / 32]++;
      W2[Px[4 * I + 2]]++;
    }
    int Bad = countDiff(HE.down(), WE) + countDiff(HR.down(), WRg) + countDiff(H0.down(), W0) + countDiff(H1.down(), W1) +
              countDiff(H2.down(), W2);
    std::printf("histograms: even[0]=%d range[4]=%d channel0[5]=%u channel2[255]=%u\n", WE[0], WRg[4], W0[5], W2[255]);
    R.line("histogram even/range/multi-channel", Bad);
  }
  return R.done();
}
