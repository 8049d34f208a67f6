/// \file
/// Three classic sample shapes in one program:
/// - a uniform-grid particle neighbour search: float3 positions hashed to
///   cells, a counting sort (atomics for counts and scatter, a block scan for
///   offsets, then each cell sorted by particle index so the order is
///   deterministic), cell start/end found by comparing each sorted hash with
///   its predecessor through shared memory, then a 27-cell neighbour count
///   and a soft-sphere energy per particle;
/// - n-queens solution counts, once with a recursive device function and
///   once with an explicit stack in a local array (dynamically indexed), one
///   thread per placement of the first two rows;
/// - LU decomposition with partial pivoting of small double matrices, one
///   block per matrix held in shared memory, the pivot found by a shared
///   max-reduction.
#include "../common/app_util.h"
#include <algorithm>
#include <vector>

// ---------------------------------------------------------------- particles

constexpr int GridDim = 16;
constexpr int NumCells = GridDim * GridDim * GridDim;

__device__ __host__ inline int3 cellOf(float3 P) {
  int3 C;
  C.x = min(max((int)(P.x * GridDim), 0), GridDim - 1);
  C.y = min(max((int)(P.y * GridDim), 0), GridDim - 1);
  C.z = min(max((int)(P.z * GridDim), 0), GridDim - 1);
  return C;
}
__device__ __host__ inline unsigned cellHash(int3 C) { return (C.z * GridDim + C.y) * GridDim + C.x; }

__global__ void calcHash(const float3 *Pos, unsigned *Hash, unsigned *CellCount, unsigned N) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned H = cellHash(cellOf(Pos[I]));
  Hash[I] = H;
  atomicAdd(CellCount + H, 1u);
}

// Exclusive scan of NumCells counts in one block of 1024 threads (4 per thread).
__global__ void scanCounts(const unsigned *Count, unsigned *Offset) {
  __shared__ unsigned S[1024];
  unsigned T = threadIdx.x;
  unsigned Local[4], Sum = 0;
  for (int K = 0; K < 4; ++K) {
    Local[K] = Sum;
    Sum += Count[T * 4 + K];
  }
  S[T] = Sum;
  __syncthreads();
  for (unsigned Off = 1; Off < 1024; Off <<= 1) {
    unsigned V = T >= Off ? S[T - Off] : 0;
    __syncthreads();
    S[T] += V;
    __syncthreads();
  }
  unsigned Before = S[T] - Sum;
  for (int K = 0; K < 4; ++K)
    Offset[T * 4 + K] = Before + Local[K];
}

__global__ void scatter(const unsigned *Hash, unsigned *Cursor, unsigned *SortedIdx, unsigned N) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    SortedIdx[atomicAdd(Cursor + Hash[I], 1u)] = I;
}

__global__ void sortCells(const unsigned *Offset, const unsigned *Count, unsigned *SortedIdx) {
  unsigned C = blockIdx.x * blockDim.x + threadIdx.x;
  if (C >= NumCells)
    return;
  unsigned *Cell = SortedIdx + Offset[C];
  unsigned Len = Count[C];
  for (unsigned I = 1; I < Len; ++I) { // insertion sort: cells are small
    unsigned V = Cell[I];
    int J = (int)I - 1;
    while (J >= 0 && Cell[J] > V) {
      Cell[J + 1] = Cell[J];
      --J;
    }
    Cell[J + 1] = V;
  }
}

__global__ void findCellStart(const unsigned *Hash, const unsigned *SortedIdx, const float3 *Pos,
                              float3 *SortedPos, unsigned *CellStart, unsigned *CellEnd, unsigned N) {
  extern __shared__ unsigned SharedHash[]; // blockDim.x + 1
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned H = 0;
  if (I < N) {
    H = Hash[SortedIdx[I]];
    SharedHash[threadIdx.x + 1] = H;
    if (I > 0 && threadIdx.x == 0)
      SharedHash[0] = Hash[SortedIdx[I - 1]];
  }
  __syncthreads();
  if (I < N) {
    if (I == 0 || H != SharedHash[threadIdx.x]) {
      CellStart[H] = I;
      if (I > 0)
        CellEnd[SharedHash[threadIdx.x]] = I;
    }
    if (I == N - 1)
      CellEnd[H] = I + 1;
    SortedPos[I] = Pos[SortedIdx[I]];
  }
}

__global__ void neighbours(const float3 *SortedPos, const unsigned *SortedIdx, const unsigned *CellStart,
                           const unsigned *CellEnd, float Radius, unsigned N, unsigned *NeighCount, float *Energy) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float3 P = SortedPos[I];
  int3 C = cellOf(P);
  unsigned Count = 0;
  float E = 0.0f;
  for (int Dz = -1; Dz <= 1; ++Dz)
    for (int Dy = -1; Dy <= 1; ++Dy)
      for (int Dx = -1; Dx <= 1; ++Dx) {
        int3 Nc = make_int3(C.x + Dx, C.y + Dy, C.z + Dz);
        if (Nc.x < 0 || Nc.y < 0 || Nc.z < 0 || Nc.x >= GridDim || Nc.y >= GridDim || Nc.z >= GridDim)
          continue;
        unsigned H = cellHash(Nc);
        unsigned Start = CellStart[H];
        if (Start == 0xffffffffu)
          continue;
        for (unsigned J = Start; J < CellEnd[H]; ++J) {
          if (J == I)
            continue;
          float3 Q = SortedPos[J];
          float3 D = make_float3(Q.x - P.x, Q.y - P.y, Q.z - P.z);
          float Dist2 = D.x * D.x + D.y * D.y + D.z * D.z;
          if (Dist2 < Radius * Radius) {
            ++Count;
            float Overlap = Radius - sqrtf(Dist2);
            E += Overlap * Overlap;
          }
        }
      }
  NeighCount[SortedIdx[I]] = Count;
  Energy[SortedIdx[I]] = E;
}

// ---------------------------------------------------------------- n-queens

__device__ unsigned queensRec(unsigned N, unsigned Cols, unsigned D1, unsigned D2, unsigned Row) {
  if (Row == N)
    return 1;
  unsigned Total = 0;
  unsigned Free = ~(Cols | D1 | D2) & ((1u << N) - 1);
  while (Free) {
    unsigned Bit = Free & (0u - Free);
    Free ^= Bit;
    Total += queensRec(N, Cols | Bit, (D1 | Bit) << 1, (D2 | Bit) >> 1, Row + 1);
  }
  return Total;
}

__device__ unsigned queensStack(unsigned N, unsigned Cols, unsigned D1, unsigned D2, unsigned Row) {
  unsigned StackCols[16], StackD1[16], StackD2[16], StackFree[16];
  int Top = 0;
  unsigned Mask = (1u << N) - 1;
  StackCols[0] = Cols;
  StackD1[0] = D1;
  StackD2[0] = D2;
  StackFree[0] = ~(Cols | D1 | D2) & Mask;
  unsigned Total = 0;
  while (Top >= 0) {
    unsigned Free = StackFree[Top];
    if (!Free) {
      --Top;
      continue;
    }
    unsigned Bit = Free & (0u - Free);
    StackFree[Top] = Free ^ Bit;
    if (Row + Top + 1 == N) {
      ++Total;
      continue;
    }
    unsigned C = StackCols[Top] | Bit, L = (StackD1[Top] | Bit) << 1, R = (StackD2[Top] | Bit) >> 1;
    ++Top;
    StackCols[Top] = C;
    StackD1[Top] = L;
    StackD2[Top] = R;
    StackFree[Top] = ~(C | L | R) & Mask;
  }
  return Total;
}

__global__ void queensKernel(unsigned N, unsigned *Out) {
  unsigned T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= N * N)
    return;
  unsigned A = T / N, B = T % N;
  unsigned BitA = 1u << A, BitB = 1u << B;
  unsigned R1 = 0, R2 = 0;
  // Row 1 must be compatible with row 0.
  if (!(BitB & (BitA | BitA << 1 | BitA >> 1))) {
    unsigned Cols = BitA | BitB;
    unsigned D1 = ((BitA << 1) | BitB) << 1, D2 = ((BitA >> 1) | BitB) >> 1;
    R1 = queensRec(N, Cols, D1, D2, 2);
    R2 = queensStack(N, Cols, D1, D2, 2);
  }
  Out[2 * T] = R1;
  Out[2 * T + 1] = R2;
}

// ---------------------------------------------------------------- LU

constexpr int LuN = 24;

__global__ void luShared(double *Mats, int *Pivots, double *Dets) {
  __shared__ double A[LuN][LuN + 1];
  __shared__ double MaxVal[32];
  __shared__ int MaxIdx[32];
  __shared__ int Piv;
  double *M = Mats + blockIdx.x * LuN * LuN;
  for (int I = threadIdx.x; I < LuN * LuN; I += blockDim.x)
    A[I / LuN][I % LuN] = M[I];
  __syncthreads();
  double Det = 1.0;
  for (int K = 0; K < LuN; ++K) {
    // Pivot search over rows K..N-1 (blockDim.x == 32 >= LuN).
    int R = K + threadIdx.x;
    MaxVal[threadIdx.x] = R < LuN ? fabs(A[R][K]) : -1.0;
    MaxIdx[threadIdx.x] = R;
    __syncthreads();
    for (int Off = 16; Off > 0; Off >>= 1) {
      if (threadIdx.x < Off) {
        double O = MaxVal[threadIdx.x + Off];
        int Oi = MaxIdx[threadIdx.x + Off];
        if (O > MaxVal[threadIdx.x] || (O == MaxVal[threadIdx.x] && Oi < MaxIdx[threadIdx.x])) {
          MaxVal[threadIdx.x] = O;
          MaxIdx[threadIdx.x] = Oi;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      Piv = MaxIdx[0];
      Pivots[blockIdx.x * LuN + K] = Piv;
    }
    __syncthreads();
    int P = Piv;
    if (P != K && threadIdx.x < LuN) {
      double Tmp = A[K][threadIdx.x];
      A[K][threadIdx.x] = A[P][threadIdx.x];
      A[P][threadIdx.x] = Tmp;
    }
    __syncthreads();
    Det *= (P != K ? -1.0 : 1.0) * A[K][K];
    if (threadIdx.x > K && threadIdx.x < LuN)
      A[threadIdx.x][K] /= A[K][K];
    __syncthreads();
    for (int I = K + 1 + threadIdx.x / 8; I < LuN; I += 4)
      for (int J = K + 1 + threadIdx.x % 8; J < LuN; J += 8)
        A[I][J] -= A[I][K] * A[K][J];
    __syncthreads();
  }
  for (int I = threadIdx.x; I < LuN * LuN; I += blockDim.x)
    M[I] = A[I / LuN][I % LuN];
  if (threadIdx.x == 0)
    Dets[blockIdx.x] = Det;
}

int main() {
  bool Ok = true;
  // Particles.
  {
    const unsigned N = 20000;
    const float Radius = 1.0f / 32;
    Lcg Rng(3);
    std::vector<float3> Pos(N);
    for (unsigned I = 0; I < N; ++I) { // multiples of 1/1024 keep distances exact
      float Cx = (float)Rng.below(1024) / 1024, Cy = (float)Rng.below(1024) / 1024,
            Cz = (float)Rng.below(1024) / 1024;
      if (I % 10 == 0) { // clusters
        Cx = 0.5f + (float)Rng.below(64) / 1024;
        Cy = 0.25f + (float)Rng.below(64) / 1024;
      }
      Pos[I] = make_float3(Cx, Cy, Cz);
    }
    float3 *DPos, *DSorted;
    unsigned *DHash, *DCount, *DOffset, *DCursor, *DIdx, *DStart, *DEnd, *DNeigh;
    float *DEnergy;
    CHECK(cudaMalloc(&DPos, N * sizeof(float3)));
    CHECK(cudaMalloc(&DSorted, N * sizeof(float3)));
    for (unsigned **P : {&DHash, &DIdx, &DNeigh})
      CHECK(cudaMalloc(P, N * 4));
    for (unsigned **P : {&DCount, &DOffset, &DCursor, &DStart, &DEnd})
      CHECK(cudaMalloc(P, NumCells * 4));
    CHECK(cudaMalloc(&DEnergy, N * 4));
    CHECK(cudaMemcpy(DPos, Pos.data(), N * sizeof(float3), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(DCount, 0, NumCells * 4));
    CHECK(cudaMemset(DStart, 0xff, NumCells * 4));
    unsigned Blocks = (N + 255) / 256;
    calcHash<<<Blocks, 256>>>(DPos, DHash, DCount, N);
    scanCounts<<<1, 1024>>>(DCount, DOffset);
    CHECK(cudaMemcpy(DCursor, DOffset, NumCells * 4, cudaMemcpyDeviceToDevice));
    scatter<<<Blocks, 256>>>(DHash, DCursor, DIdx, N);
    sortCells<<<NumCells / 128, 128>>>(DOffset, DCount, DIdx);
    findCellStart<<<Blocks, 256, 257 * 4>>>(DHash, DIdx, DPos, DSorted, DStart, DEnd, N);
    neighbours<<<Blocks, 256>>>(DSorted, DIdx, DStart, DEnd, Radius, N, DNeigh, DEnergy);
    CHECK(cudaGetLastError());
    std::vector<unsigned> Idx(N), Neigh(N), Start(NumCells);
    std::vector<float> Energy(N);
    CHECK(cudaMemcpy(Idx.data(), DIdx, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Neigh.data(), DNeigh, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Energy.data(), DEnergy, N * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Start.data(), DStart, NumCells * 4, cudaMemcpyDeviceToHost));
    // CPU: stable sort of indices by hash, brute-force neighbours per cell.
    std::vector<unsigned> Hash(N), RefIdx(N);
    for (unsigned I = 0; I < N; ++I) {
      Hash[I] = cellHash(cellOf(Pos[I]));
      RefIdx[I] = I;
    }
    std::stable_sort(RefIdx.begin(), RefIdx.end(), [&](unsigned A, unsigned B) { return Hash[A] < Hash[B]; });
    std::vector<std::vector<unsigned>> Cells(NumCells);
    for (unsigned I = 0; I < N; ++I)
      Cells[Hash[I]].push_back(I);
    unsigned BadOrder = 0, BadCount = 0, BadEnergy = 0, EmptyCells = 0, BadStart = 0;
    unsigned long long Pairs = 0;
    double TotalEnergy = 0;
    for (unsigned I = 0; I < N; ++I)
      BadOrder += Idx[I] != RefIdx[I];
    for (int C = 0, Run = 0; C < NumCells; ++C) {
      EmptyCells += Cells[C].empty();
      BadStart += Cells[C].empty() ? Start[C] != 0xffffffffu : Start[C] != (unsigned)Run;
      Run += Cells[C].size();
    }
    for (unsigned I = 0; I < N; ++I) {
      int3 C = cellOf(Pos[I]);
      unsigned Count = 0;
      double E = 0;
      for (int Dz = -1; Dz <= 1; ++Dz)
        for (int Dy = -1; Dy <= 1; ++Dy)
          for (int Dx = -1; Dx <= 1; ++Dx) {
            int X = C.x + Dx, Y = C.y + Dy, Z = C.z + Dz;
            if (X < 0 || Y < 0 || Z < 0 || X >= GridDim || Y >= GridDim || Z >= GridDim)
              continue;
            for (unsigned J : Cells[cellHash(make_int3(X, Y, Z))]) {
              if (J == I)
                continue;
              float Ddx = Pos[J].x - Pos[I].x, Ddy = Pos[J].y - Pos[I].y, Ddz = Pos[J].z - Pos[I].z;
              float D2 = Ddx * Ddx + Ddy * Ddy + Ddz * Ddz;
              if (D2 < Radius * Radius) {
                ++Count;
                double Ov = Radius - std::sqrt((double)D2);
                E += Ov * Ov;
              }
            }
          }
      BadCount += Neigh[I] != Count;
      BadEnergy += !closeTo(Energy[I], E, 1e-5, 1e-9);
      Pairs += Count;
      TotalEnergy += E;
    }
    std::printf("particles %u in %d^3 cells: empty cells %u, order mismatches %u, cell start mismatches %u, "
                "neighbour count mismatches %u, energy mismatches %u, pairs %llu, energy %.6e\n",
                N, GridDim, EmptyCells, BadOrder, BadStart, BadCount, BadEnergy, Pairs / 2, TotalEnergy);
    Ok &= BadOrder == 0 && BadStart == 0 && BadCount == 0 && BadEnergy == 0;
    CHECK(cudaFree(DPos));
    CHECK(cudaFree(DSorted));
    for (unsigned *P : {DHash, DCount, DOffset, DCursor, DIdx, DStart, DEnd, DNeigh})
      CHECK(cudaFree(P));
    CHECK(cudaFree(DEnergy));
  }
  // n-queens.
  {
    static const unsigned Known[] = {0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680};
    unsigned *DOut;
    CHECK(cudaMalloc(&DOut, 2 * 11 * 11 * 4));
    for (unsigned N = 4; N <= 11; ++N) {
      queensKernel<<<(N * N + 31) / 32, 32>>>(N, DOut);
      CHECK(cudaGetLastError());
      std::vector<unsigned> G(2 * N * N);
      CHECK(cudaMemcpy(G.data(), DOut, G.size() * 4, cudaMemcpyDeviceToHost));
      unsigned Rec = 0, Stack = 0;
      for (unsigned T = 0; T < N * N; ++T) {
        Rec += G[2 * T];
        Stack += G[2 * T + 1];
      }
      std::printf("queens n=%2u: recursive %u, explicit stack %u (known %u)\n", N, Rec, Stack, Known[N]);
      Ok &= Rec == Known[N] && Stack == Known[N];
    }
    CHECK(cudaFree(DOut));
  }
  // LU.
  {
    const int NumMats = 40;
    Lcg Rng(17);
    std::vector<double> M(NumMats * LuN * LuN);
    for (int B = 0; B < NumMats; ++B)
      for (int I = 0; I < LuN * LuN; ++I) {
        double V = Rng.range(-1.0f, 1.0f);
        if (B % 4 == 1 && I / LuN == 3)
          V *= 1e-8; // a nearly-zero row forces pivots
        if (B % 4 == 2 && I % LuN == I / LuN)
          V += 10.0; // diagonally dominant: no swaps
        M[B * LuN * LuN + I] = V;
      }
    double *DM, *DDet;
    int *DPiv;
    CHECK(cudaMalloc(&DM, M.size() * 8));
    CHECK(cudaMalloc(&DDet, NumMats * 8));
    CHECK(cudaMalloc(&DPiv, NumMats * LuN * 4));
    CHECK(cudaMemcpy(DM, M.data(), M.size() * 8, cudaMemcpyHostToDevice));
    luShared<<<NumMats, 32>>>(DM, DPiv, DDet);
    CHECK(cudaGetLastError());
    std::vector<double> LU(M.size()), Det(NumMats);
    std::vector<int> Piv(NumMats * LuN);
    CHECK(cudaMemcpy(LU.data(), DM, M.size() * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Det.data(), DDet, NumMats * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Piv.data(), DPiv, Piv.size() * 4, cudaMemcpyDeviceToHost));
    unsigned BadResidual = 0, BadDet = 0, BadPiv = 0, Swaps = 0;
    double LogDetSum = 0;
    for (int B = 0; B < NumMats; ++B) {
      const double *A0 = &M[B * LuN * LuN], *F = &LU[B * LuN * LuN];
      // Rebuild P*A from L*U and compare.
      std::vector<double> PA(A0, A0 + LuN * LuN);
      for (int K = 0; K < LuN; ++K) {
        int P = Piv[B * LuN + K];
        if (P < K || P >= LuN) {
          ++BadPiv;
          continue;
        }
        Swaps += P != K;
        for (int J = 0; J < LuN; ++J)
          std::swap(PA[K * LuN + J], PA[P * LuN + J]);
      }
      double MaxErr = 0;
      for (int I = 0; I < LuN; ++I)
        for (int J = 0; J < LuN; ++J) {
          double S = 0;
          for (int K = 0; K <= std::min(I, J); ++K)
            S += (K == I ? 1.0 : F[I * LuN + K]) * F[K * LuN + J];
          MaxErr = std::max(MaxErr, std::fabs(S - PA[I * LuN + J]));
        }
      BadResidual += MaxErr > 1e-12 * 10;
      // CPU LU with the same pivot rule for the determinant.
      std::vector<double> C(A0, A0 + LuN * LuN);
      double D = 1;
      for (int K = 0; K < LuN; ++K) {
        int P = K;
        for (int I = K + 1; I < LuN; ++I)
          if (std::fabs(C[I * LuN + K]) > std::fabs(C[P * LuN + K]))
            P = I;
        if (P != K) {
          for (int J = 0; J < LuN; ++J)
            std::swap(C[K * LuN + J], C[P * LuN + J]);
          D = -D;
        }
        BadPiv += P != Piv[B * LuN + K];
        D *= C[K * LuN + K];
        for (int I = K + 1; I < LuN; ++I) {
          C[I * LuN + K] /= C[K * LuN + K];
          for (int J = K + 1; J < LuN; ++J)
            C[I * LuN + J] -= C[I * LuN + K] * C[K * LuN + J];
        }
      }
      BadDet += !closeTo(Det[B], D, 1e-9, 0);
      LogDetSum += std::log10(std::fabs(D));
    }
    std::printf("lu %d matrices %dx%d: residual bad %u, pivot mismatches %u, det mismatches %u, row swaps %u, "
                "sum log10|det| %.4f\n", NumMats, LuN, LuN, BadResidual, BadPiv, BadDet, Swaps, LogDetSum);
    Ok &= BadResidual == 0 && BadPiv == 0 && BadDet == 0;
    CHECK(cudaFree(DM));
    CHECK(cudaFree(DDet));
    CHECK(cudaFree(DPiv));
  }
  return finish(Ok);
}
