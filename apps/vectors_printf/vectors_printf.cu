/// \file
/// Memory-access and debug-output idioms:
/// - struct-of-arrays kernels through 8- and 16-byte vector types (int4,
///   double2, short4, char4, uint2, longlong2) reached by pointer arithmetic
///   that looks unaligned (byte offsets cast back to vector pointers) but is
///   aligned, with per-component arithmetic, saturation and sign extension;
/// - a tiled transpose of 64-bit elements through a [32][33] shared tile
///   (padding against bank conflicts), loads and stores as long long;
/// - grid-stride reductions over const __restrict__ inputs read with __ldg
///   (int, float4, double2 and long long), one atomic per block;
/// - a debug kernel whose printf uses %d %i %u %x %X %o %lld %llx %c %s %e %E
///   %g %G %f %a-free widths, precisions, flags (- + 0 space #) and %%,
///   printed one thread at a time so the order is fixed.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

struct __align__(16) Particle {
  float4 PosMass;
  double2 Vel;
  int4 Tags;
};

__global__ void soaKernel(const char *Raw, size_t Offset4, size_t Offset8, size_t Offset16, unsigned N,
                          int4 *OutI, double2 *OutD, short4 *OutS, char4 *OutC, longlong2 *OutL) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  const char4 *C4 = reinterpret_cast<const char4 *>(Raw + Offset4) + I;
  const short4 *S4 = reinterpret_cast<const short4 *>(Raw + Offset8) + I;
  const int4 *I4 = reinterpret_cast<const int4 *>(Raw + Offset16) + I;
  const double2 *D2 = reinterpret_cast<const double2 *>(Raw + Offset16 + 16 * (size_t)N) + I;
  char4 C = *C4;
  short4 S = *S4;
  int4 V = *I4;
  double2 D = *D2;
  OutI[I] = make_int4(V.x + C.x, V.y * S.y, V.z ^ (int)S.z, (V.w >> 3) - C.w);
  OutD[I] = make_double2(D.x * D.y + (double)S.x, D.y - (double)C.y / 4.0);
  short4 Sat;
  Sat.x = (short)max(-32768, min(32767, (int)S.x * 3));
  Sat.y = (short)(S.y + C.z);
  Sat.z = (short)(S.z >> 2);
  Sat.w = (short)max(-32768, min(32767, (int)S.w + (int)S.x));
  OutS[I] = Sat;
  OutC[I] = make_char4((signed char)(C.x + C.y), (signed char)(C.z * 2), (signed char)-C.w, (signed char)(C.x >> 1));
  OutL[I] = make_longlong2((long long)V.x * V.y, ((long long)V.z << 20) - V.w);
}

__global__ void transpose64(const long long *In, long long *Out, int Rows, int Cols) {
  __shared__ long long Tile[32][33];
  int X = blockIdx.x * 32 + threadIdx.x, Y = blockIdx.y * 32 + threadIdx.y;
  for (int K = 0; K < 32; K += 8)
    if (X < Cols && Y + K < Rows)
      Tile[threadIdx.y + K][threadIdx.x] = In[(size_t)(Y + K) * Cols + X];
  __syncthreads();
  X = blockIdx.y * 32 + threadIdx.x;
  Y = blockIdx.x * 32 + threadIdx.y;
  for (int K = 0; K < 32; K += 8)
    if (X < Rows && Y + K < Cols)
      Out[(size_t)(Y + K) * Rows + X] = Tile[threadIdx.x][threadIdx.y + K];
}

__global__ void reduceLdg(const int *__restrict__ A, const float4 *__restrict__ B, const double2 *__restrict__ C,
                          const long long *__restrict__ D, unsigned N, unsigned long long *SumA,
                          unsigned long long *SumB, unsigned long long *SumC, unsigned long long *SumD) {
  __shared__ long long S[4][256];
  long long Ta = 0, Tb = 0, Tc = 0, Td = 0;
  for (unsigned I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += blockDim.x * gridDim.x) {
    Ta += __ldg(A + I);
    float4 F = __ldg(B + I);
    Tb += (long long)(F.x * 16.0f) + (long long)(F.y * 16.0f) + (long long)(F.z * 16.0f) + (long long)(F.w * 16.0f);
    double2 G = __ldg(C + I);
    Tc += (long long)(G.x * 1024.0) - (long long)(G.y * 1024.0);
    Td += __ldg(D + I) >> 4;
  }
  S[0][threadIdx.x] = Ta;
  S[1][threadIdx.x] = Tb;
  S[2][threadIdx.x] = Tc;
  S[3][threadIdx.x] = Td;
  for (unsigned Stride = blockDim.x / 2; Stride > 0; Stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < Stride)
      for (int K = 0; K < 4; ++K)
        S[K][threadIdx.x] += S[K][threadIdx.x + Stride];
  }
  if (threadIdx.x == 0) {
    atomicAdd(SumA, (unsigned long long)S[0][0]);
    atomicAdd(SumB, (unsigned long long)S[1][0]);
    atomicAdd(SumC, (unsigned long long)S[2][0]);
    atomicAdd(SumD, (unsigned long long)S[3][0]);
  }
}

__global__ void debugPrint(const Particle *P, unsigned N) {
  for (unsigned T = 0; T < blockDim.x; ++T) {
    if (threadIdx.x == T && T < N) {
      const Particle &Q = P[T];
      printf("[%2u] pos=(%8.3f,%-8.2f|%+.1e) m=%g tags=%d/%i/%u/%x\n", T, Q.PosMass.x, Q.PosMass.y, Q.PosMass.z,
             Q.PosMass.w, Q.Tags.x, Q.Tags.y, (unsigned)Q.Tags.z, (unsigned)Q.Tags.w);
      printf("     vel=%.10e %E %G %12.4g | %#x %#o %08X %-6d| %lld %llx %c%c %s%%\n", Q.Vel.x, Q.Vel.y,
             Q.Vel.x * 1e-7, Q.Vel.y * 1e12, (unsigned)Q.Tags.x, (unsigned)(T * 8 + 7), (unsigned)Q.Tags.w,
             -(int)T, (long long)Q.Tags.x * -1000000007LL, 0xdeadbeefcafeULL + T, 'A' + (char)T, T % 2 ? '!' : '?',
             T % 3 ? "odd-ish" : "three");
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    printf("% d|%5s|%-5s|%.2s|%5.1f%%|%u\n", 42, "ab", "cd", "efgh", 99.44f, N);
}

int main() {
  bool Ok = true;
  // SoA through vector types.
  {
    const unsigned N = 3000;
    const size_t Off4 = 4 * 3, Off8 = Off4 + 4 * N + 4, Off16 = (Off8 + 8 * N + 15) / 16 * 16 + 16;
    size_t Bytes = Off16 + 32 * (size_t)N;
    std::vector<char> Raw(Bytes, 0);
    Lcg Rng(1);
    for (size_t I = 0; I < Bytes; ++I)
      Raw[I] = (char)Rng.next();
    // The double2 area holds finite doubles.
    for (unsigned I = 0; I < 2 * N; ++I) {
      double V = Rng.range(-100.0f, 100.0f) / 8.0;
      std::memcpy(&Raw[Off16 + 16 * (size_t)N + 8 * I], &V, 8);
    }
    char *DRaw;
    int4 *OI;
    double2 *OD;
    short4 *OS;
    char4 *OC;
    longlong2 *OL;
    CHECK(cudaMalloc(&DRaw, Bytes));
    CHECK(cudaMalloc(&OI, N * sizeof(int4)));
    CHECK(cudaMalloc(&OD, N * sizeof(double2)));
    CHECK(cudaMalloc(&OS, N * sizeof(short4)));
    CHECK(cudaMalloc(&OC, N * sizeof(char4)));
    CHECK(cudaMalloc(&OL, N * sizeof(longlong2)));
    CHECK(cudaMemcpy(DRaw, Raw.data(), Bytes, cudaMemcpyHostToDevice));
    soaKernel<<<(N + 127) / 128, 128>>>(DRaw, Off4, Off8, Off16, N, OI, OD, OS, OC, OL);
    CHECK(cudaGetLastError());
    std::vector<int4> GI(N);
    std::vector<double2> GD(N);
    std::vector<short4> GS(N);
    std::vector<char4> GC(N);
    std::vector<longlong2> GL(N);
    CHECK(cudaMemcpy(GI.data(), OI, N * sizeof(int4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GD.data(), OD, N * sizeof(double2), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GS.data(), OS, N * sizeof(short4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GC.data(), OC, N * sizeof(char4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(GL.data(), OL, N * sizeof(longlong2), cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    long long Fold = 0;
    for (unsigned I = 0; I < N; ++I) {
      char4 C;
      short4 S;
      int4 V;
      double2 D;
      std::memcpy(&C, &Raw[Off4 + 4 * I], 4);
      std::memcpy(&S, &Raw[Off8 + 8 * I], 8);
      std::memcpy(&V, &Raw[Off16 + 16 * I], 16);
      std::memcpy(&D, &Raw[Off16 + 16 * (size_t)N + 16 * I], 16);
      int4 RI = make_int4((int)((unsigned)V.x + (unsigned)C.x), (int)((unsigned)V.y * (unsigned)(int)S.y),
                          V.z ^ (int)S.z, (V.w >> 3) - C.w);
      double2 RD = make_double2(D.x * D.y + (double)S.x, D.y - (double)C.y / 4.0);
      short4 RS;
      RS.x = (short)std::max(-32768, std::min(32767, (int)S.x * 3));
      RS.y = (short)(S.y + C.z);
      RS.z = (short)(S.z >> 2);
      RS.w = (short)std::max(-32768, std::min(32767, (int)S.w + (int)S.x));
      char4 RC = make_char4((signed char)(C.x + C.y), (signed char)(C.z * 2), (signed char)-C.w, (signed char)(C.x >> 1));
      longlong2 RL = make_longlong2((long long)V.x * V.y, (long long)((unsigned long long)(long long)V.z << 20) - V.w);
      Bad += std::memcmp(&RI, &GI[I], 16) != 0;
      Bad += !closeTo(GD[I].x, RD.x, 1e-15, 1e-12) || GD[I].y != RD.y;
      Bad += std::memcmp(&RS, &GS[I], 8) != 0;
      Bad += std::memcmp(&RC, &GC[I], 4) != 0;
      Bad += std::memcmp(&RL, &GL[I], 16) != 0;
      Fold = Fold * 31 + RI.x + RS.w + RC.z + (RL.y & 0xffff);
    }
    std::printf("vector types over %u elements: mismatches %u, fold %lld\n", N, Bad, Fold);
    Ok &= Bad == 0;
    CHECK(cudaFree(DRaw));
    CHECK(cudaFree(OI));
    CHECK(cudaFree(OD));
    CHECK(cudaFree(OS));
    CHECK(cudaFree(OC));
    CHECK(cudaFree(OL));
  }
  // 64-bit transpose.
  {
    const int Rows = 257, Cols = 190;
    std::vector<long long> A((size_t)Rows * Cols);
    for (size_t I = 0; I < A.size(); ++I)
      A[I] = (long long)(I * 0x9e3779b97f4a7c15ULL);
    long long *DIn, *DOut;
    CHECK(cudaMalloc(&DIn, A.size() * 8));
    CHECK(cudaMalloc(&DOut, A.size() * 8));
    CHECK(cudaMemcpy(DIn, A.data(), A.size() * 8, cudaMemcpyHostToDevice));
    transpose64<<<dim3((Cols + 31) / 32, (Rows + 31) / 32), dim3(32, 8)>>>(DIn, DOut, Rows, Cols);
    CHECK(cudaGetLastError());
    std::vector<long long> G(A.size());
    CHECK(cudaMemcpy(G.data(), DOut, G.size() * 8, cudaMemcpyDeviceToHost));
    unsigned Bad = 0;
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C)
        Bad += G[(size_t)C * Rows + R] != A[(size_t)R * Cols + C];
    std::printf("transpose 64-bit %dx%d: mismatches %u\n", Rows, Cols, Bad);
    Ok &= Bad == 0;
    CHECK(cudaFree(DIn));
    CHECK(cudaFree(DOut));
  }
  // __ldg grid-stride reductions.
  {
    const unsigned N = 300001;
    Lcg Rng(5);
    std::vector<int> A(N);
    std::vector<float4> B(N);
    std::vector<double2> C(N);
    std::vector<long long> D(N);
    long long RA = 0, RB = 0, RC = 0, RD = 0;
    for (unsigned I = 0; I < N; ++I) {
      A[I] = (int)Rng.next();
      B[I] = make_float4((float)Rng.below(4096) / 64, -(float)Rng.below(4096) / 32, (float)Rng.below(100),
                         (float)Rng.below(7) / 8);
      C[I] = make_double2((double)Rng.below(1 << 20) / 256, (double)Rng.below(1 << 20) / 512);
      D[I] = (long long)((uint64_t)Rng.next() << 32 | Rng.next());
      RA += A[I];
      RB += (long long)(B[I].x * 16.0f) + (long long)(B[I].y * 16.0f) + (long long)(B[I].z * 16.0f) +
            (long long)(B[I].w * 16.0f);
      RC += (long long)(C[I].x * 1024.0) - (long long)(C[I].y * 1024.0);
      RD += D[I] >> 4;
    }
    int *DA;
    float4 *DB;
    double2 *DC;
    long long *DD;
    unsigned long long *Sums;
    CHECK(cudaMalloc(&DA, N * 4));
    CHECK(cudaMalloc(&DB, N * 16));
    CHECK(cudaMalloc(&DC, N * 16));
    CHECK(cudaMalloc(&DD, N * 8));
    CHECK(cudaMalloc(&Sums, 4 * 8));
    CHECK(cudaMemcpy(DA, A.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), N * 16, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DC, C.data(), N * 16, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DD, D.data(), N * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(Sums, 0, 32));
    reduceLdg<<<45, 256>>>(DA, DB, DC, DD, N, Sums, Sums + 1, Sums + 2, Sums + 3);
    CHECK(cudaGetLastError());
    long long G[4];
    CHECK(cudaMemcpy(G, Sums, 32, cudaMemcpyDeviceToHost));
    std::printf("ldg reductions: int %lld, float4 %lld, double2 %lld, int64 %lld (%s)\n", RA, RB, RC, RD,
                G[0] == RA && G[1] == RB && G[2] == RC && G[3] == RD ? "match" : "MISMATCH");
    Ok &= G[0] == RA && G[1] == RB && G[2] == RC && G[3] == RD;
    CHECK(cudaFree(DA));
    CHECK(cudaFree(DB));
    CHECK(cudaFree(DC));
    CHECK(cudaFree(DD));
    CHECK(cudaFree(Sums));
  }
  // printf.
  {
    const unsigned N = 6;
    std::vector<Particle> P(N);
    for (unsigned I = 0; I < N; ++I) {
      P[I].PosMass = make_float4(1.5f * I - 3.25f, 1000.125f / (I + 1), -0.000123f * I, 0.1f * (I + 1));
      P[I].Vel = make_double2(6.02214076e23 / (I + 1), -1.0 / 3.0 * I);
      P[I].Tags = make_int4(-(int)I * 77, 1 << I, 0xffffffff - I, 0xabc0 + I);
    }
    Particle *DP;
    CHECK(cudaMalloc(&DP, N * sizeof(Particle)));
    CHECK(cudaMemcpy(DP, P.data(), N * sizeof(Particle), cudaMemcpyHostToDevice));
    std::fflush(stdout);
    debugPrint<<<1, 8>>>(DP, N);
    CHECK(cudaDeviceSynchronize());
    std::fflush(stdout);
    CHECK(cudaFree(DP));
  }
  return finish(Ok);
}
