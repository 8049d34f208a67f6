/// \file
/// Two float-exactness workloads:
/// - eigenvalues of symmetric tridiagonal matrices by bisection on the
///   Sturm count (Gershgorin interval, one thread per eigenvalue, the
///   pivot guarded against zero the classic way), in float, including
///   matrices with zero off-diagonals, repeated and tiny eigenvalues and
///   huge entries; the CPU runs the same float recurrence, so the counts
///   agree exactly and the eigenvalues to a few ulps;
/// - interval arithmetic with the directed-rounding intrinsics
///   (__fadd_rd/_ru, __fmul_rd/_ru, __fdiv_rd/_ru, __fsqrt_rd/_ru,
///   __fmaf_rd/_ru, __dadd_rd/_ru, __dmul_rn/_rz, __frcp_rd, __drcp_ru),
///   whose results IEEE defines bit for bit: the CPU computes them under
///   fesetround and every bit must match, denormals and infinities included.
#include "../common/app_util.h"
#include <cfenv>
#include <cstring>
#include <vector>

// ---------------------------------------------------------------- bisection

__host__ __device__ inline unsigned sturmCount(const float *D, const float *E2, unsigned N, float X,
                                               float PivMin) {
  unsigned Count = 0;
  float Q = D[0] - X;
  if (fabsf(Q) < PivMin)
    Q = -PivMin;
  Count += Q < 0.0f;
  for (unsigned I = 1; I < N; ++I) {
    Q = D[I] - X - E2[I - 1] / Q;
    if (fabsf(Q) < PivMin)
      Q = -PivMin;
    Count += Q < 0.0f;
  }
  return Count;
}

__host__ __device__ inline float bisectOne(const float *D, const float *E2, unsigned N, unsigned K,
                                           float Lo, float Hi, float PivMin, unsigned *Steps) {
  // Finds the K-th smallest eigenvalue (0-based): count(Lo) <= K < count(Hi).
  unsigned S = 0;
  for (; S < 80; ++S) {
    float Mid = 0.5f * (Lo + Hi);
    if (Mid <= Lo || Mid >= Hi)
      break;
    if (sturmCount(D, E2, N, Mid, PivMin) > K)
      Hi = Mid;
    else
      Lo = Mid;
  }
  *Steps = S;
  return 0.5f * (Lo + Hi);
}

__global__ void bisectKernel(const float *D, const float *E2, unsigned N, float Lo, float Hi,
                             float PivMin, float *Eig, unsigned *Steps, unsigned *CountAtEig) {
  extern __shared__ float SMat[];
  float *SD = SMat;
  float *SE2 = SMat + N;
  for (unsigned I = threadIdx.x; I < N; I += blockDim.x) {
    SD[I] = D[I];
    SE2[I] = I + 1 < N ? E2[I] : 0.0f;
  }
  __syncthreads();
  unsigned K = blockIdx.x * blockDim.x + threadIdx.x;
  if (K >= N)
    return;
  unsigned S;
  float L = bisectOne(SD, SE2, N, K, Lo, Hi, PivMin, &S);
  Eig[K] = L;
  Steps[K] = S;
  CountAtEig[K] = sturmCount(SD, SE2, N, L, PivMin);
}

struct Tri {
  const char *Name;
  std::vector<float> D, E;
};

static bool runBisect(const Tri &M) {
  unsigned N = M.D.size();
  std::vector<float> E2(N, 0.0f);
  float Lo = M.D[0], Hi = M.D[0], MaxE2 = 0.0f;
  for (unsigned I = 0; I < N; ++I) {
    float R = (I > 0 ? std::fabs(M.E[I - 1]) : 0.0f) + (I + 1 < N ? std::fabs(M.E[I]) : 0.0f);
    Lo = std::min(Lo, M.D[I] - R);
    Hi = std::max(Hi, M.D[I] + R);
    if (I + 1 < N) {
      E2[I] = M.E[I] * M.E[I];
      MaxE2 = std::max(MaxE2, E2[I]);
    }
  }
  float Span = Hi - Lo;
  Lo -= 0.01f * Span + 1e-6f;
  Hi += 0.01f * Span + 1e-6f;
  float PivMin = std::max(1e-30f, MaxE2 * 1.2e-38f);
  float *DD, *DE2, *DEig;
  unsigned *DSteps, *DCnt;
  CHECK(cudaMalloc(&DD, N * 4));
  CHECK(cudaMalloc(&DE2, N * 4));
  CHECK(cudaMalloc(&DEig, N * 4));
  CHECK(cudaMalloc(&DSteps, N * 4));
  CHECK(cudaMalloc(&DCnt, N * 4));
  CHECK(cudaMemcpy(DD, M.D.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DE2, E2.data(), N * 4, cudaMemcpyHostToDevice));
  unsigned Threads = 64;
  bisectKernel<<<(N + Threads - 1) / Threads, Threads, 2 * N * sizeof(float)>>>(DD, DE2, N, Lo, Hi, PivMin,
                                                                              DEig, DSteps, DCnt);
  CHECK(cudaGetLastError());
  std::vector<float> Eig(N);
  std::vector<unsigned> Steps(N), Cnt(N);
  CHECK(cudaMemcpy(Eig.data(), DEig, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Steps.data(), DSteps, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Cnt.data(), DCnt, N * 4, cudaMemcpyDeviceToHost));
  unsigned Bad = 0, Unsorted = 0;
  double MaxRel = 0, Trace = 0, RefTrace = 0;
  for (unsigned K = 0; K < N; ++K) {
    unsigned S;
    float Ref = bisectOne(M.D.data(), E2.data(), N, K, Lo, Hi, PivMin, &S);
    double Scale = std::max(1e-30, (double)std::max(std::fabs(Lo), std::fabs(Hi)));
    double Rel = std::fabs((double)Eig[K] - Ref) / Scale;
    MaxRel = std::max(MaxRel, Rel);
    Bad += Rel > 1e-5 || std::isnan(Eig[K]);
    if (K > 0 && Eig[K] < Eig[K - 1])
      ++Unsorted;
    Trace += Eig[K];
    RefTrace += M.D[K];
  }
  bool TraceOk = closeTo(Trace, RefTrace, 1e-3, 1e-3 * (std::fabs(Lo) + std::fabs(Hi)));
  std::printf("bisect %-14s n=%4u: bad %u, unsorted %u, trace %s, first %.4g last %.4g\n", M.Name, N, Bad,
              Unsorted, TraceOk ? "ok" : "WRONG", (double)bisectOne(M.D.data(), E2.data(), N, 0, Lo, Hi, PivMin, &Steps[0]),
              (double)bisectOne(M.D.data(), E2.data(), N, N - 1, Lo, Hi, PivMin, &Steps[0]));
  CHECK(cudaFree(DD));
  CHECK(cudaFree(DE2));
  CHECK(cudaFree(DEig));
  CHECK(cudaFree(DSteps));
  CHECK(cudaFree(DCnt));
  return Bad == 0 && Unsorted == 0 && TraceOk;
}

// ---------------------------------------------------------------- intervals

constexpr int NumOps = 20;

__global__ void directedOps(const float *A, const float *B, const float *C, const double *DA,
                            const double *DB, unsigned N, uint32_t *Out32, uint64_t *Out64) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float X = A[I], Y = B[I], Z = C[I];
  float R[NumOps - 6];
  R[0] = __fadd_rd(X, Y);
  R[1] = __fadd_ru(X, Y);
  R[2] = __fmul_rd(X, Y);
  R[3] = __fmul_ru(X, Y);
  R[4] = __fdiv_rd(X, Y);
  R[5] = __fdiv_ru(X, Y);
  R[6] = __fsqrt_rd(fabsf(X));
  R[7] = __fsqrt_ru(fabsf(X));
  R[8] = __fmaf_rd(X, Y, Z);
  R[9] = __fmaf_ru(X, Y, Z);
  R[10] = __frcp_rd(Y);
  R[11] = __fsub_rz(X, Z);
  R[12] = __fmul_rz(X, Z);
  R[13] = __fadd_rn(X, Z);
  for (int K = 0; K < NumOps - 6; ++K)
    Out32[I * (NumOps - 6) + K] = __float_as_uint(R[K]);
  double P = DA[I], Q = DB[I];
  double S[6];
  S[0] = __dadd_rd(P, Q);
  S[1] = __dadd_ru(P, Q);
  S[2] = __dmul_rn(P, Q);
  S[3] = __dmul_rz(P, Q);
  S[4] = __drcp_ru(Q);
  S[5] = __fma_rd(P, Q, P);
  for (int K = 0; K < 6; ++K)
    Out64[I * 6 + K] = __double_as_longlong(S[K]);
}

static uint32_t fbits(volatile float F) { uint32_t U; float G = F; std::memcpy(&U, &G, 4); return U; }
static uint64_t dbits(volatile double F) { uint64_t U; double G = F; std::memcpy(&U, &G, 8); return U; }

// CPU reference under the host's rounding modes; volatile keeps the
// compiler from folding across fesetround.
static void refOps(float X, float Y, float Z, double P, double Q, uint32_t *R32, uint64_t *R64) {
  volatile float VX = X, VY = Y, VZ = Z;
  volatile double VP = P, VQ = Q;
  std::fesetround(FE_DOWNWARD);
  R32[0] = fbits(VX + VY);
  R32[2] = fbits(VX * VY);
  R32[4] = fbits(VX / VY);
  R32[6] = fbits(std::sqrt((float)std::fabs((float)VX)));
  R32[8] = fbits(std::fmaf(VX, VY, VZ));
  R32[10] = fbits(1.0f / VY);
  R64[0] = dbits(VP + VQ);
  R64[5] = dbits(std::fma((double)VP, (double)VQ, (double)VP));
  std::fesetround(FE_UPWARD);
  R32[1] = fbits(VX + VY);
  R32[3] = fbits(VX * VY);
  R32[5] = fbits(VX / VY);
  R32[7] = fbits(std::sqrt((float)std::fabs((float)VX)));
  R32[9] = fbits(std::fmaf(VX, VY, VZ));
  R64[1] = dbits(VP + VQ);
  R64[4] = dbits(1.0 / VQ);
  std::fesetround(FE_TOWARDZERO);
  R32[11] = fbits(VX - VZ);
  R32[12] = fbits(VX * VZ);
  R64[3] = dbits(VP * VQ);
  std::fesetround(FE_TONEAREST);
  R32[13] = fbits(VX + VZ);
  R64[2] = dbits(VP * VQ);
}

static float pick(Lcg &Rng) {
  static const float Special[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -3e-39f, 1.17549435e-38f,
                                  3.4028235e38f, -3.4028235e38f, INFINITY, -INFINITY, 0.1f, 3.0f,
                                  16777217.0f, 1e-20f, 1e20f};
  uint32_t Kind = Rng.below(4);
  if (Kind == 0)
    return Special[Rng.below(sizeof(Special) / sizeof(Special[0]))];
  if (Kind == 1) { // any bit pattern that is not a NaN
    uint32_t U = Rng.next();
    if ((U & 0x7f800000u) == 0x7f800000u)
      U &= 0xbfffffffu;
    float F;
    std::memcpy(&F, &U, 4);
    return F;
  }
  return Rng.range(-100.0f, 100.0f) * (Kind == 2 ? 1.0f : 1e-3f);
}

static bool runIntervals() {
  const unsigned N = 4096;
  Lcg Rng(77);
  std::vector<float> A(N), B(N), C(N);
  std::vector<double> DA(N), DB(N);
  for (unsigned I = 0; I < N; ++I) {
    A[I] = pick(Rng);
    B[I] = pick(Rng);
    C[I] = pick(Rng);
    DA[I] = (double)A[I] * (1.0 + Rng.uniform() * 1e-9) + (double)C[I];
    DB[I] = (double)B[I] / 3.0 - 1e-300 * Rng.uniform();
  }
  float *GA, *GB, *GC;
  double *GDA, *GDB;
  uint32_t *G32;
  uint64_t *G64;
  CHECK(cudaMalloc(&GA, N * 4));
  CHECK(cudaMalloc(&GB, N * 4));
  CHECK(cudaMalloc(&GC, N * 4));
  CHECK(cudaMalloc(&GDA, N * 8));
  CHECK(cudaMalloc(&GDB, N * 8));
  CHECK(cudaMalloc(&G32, N * (NumOps - 6) * 4));
  CHECK(cudaMalloc(&G64, N * 6 * 8));
  CHECK(cudaMemcpy(GA, A.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(GB, B.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(GC, C.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(GDA, DA.data(), N * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(GDB, DB.data(), N * 8, cudaMemcpyHostToDevice));
  directedOps<<<N / 128, 128>>>(GA, GB, GC, GDA, GDB, N, G32, G64);
  CHECK(cudaGetLastError());
  std::vector<uint32_t> H32(N * (NumOps - 6));
  std::vector<uint64_t> H64(N * 6);
  CHECK(cudaMemcpy(H32.data(), G32, H32.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(H64.data(), G64, H64.size() * 8, cudaMemcpyDeviceToHost));
  static const char *Names[NumOps] = {"fadd_rd", "fadd_ru", "fmul_rd", "fmul_ru", "fdiv_rd", "fdiv_ru",
                                      "fsqrt_rd", "fsqrt_ru", "fmaf_rd", "fmaf_ru", "frcp_rd", "fsub_rz",
                                      "fmul_rz", "fadd_rn", "dadd_rd", "dadd_ru", "dmul_rn", "dmul_rz",
                                      "drcp_ru", "fma_rd"};
  unsigned Bad[NumOps] = {};
  unsigned FirstBad[NumOps];
  for (unsigned I = 0; I < N; ++I) {
    uint32_t R32[NumOps - 6];
    uint64_t R64[6];
    refOps(A[I], B[I], C[I], DA[I], DB[I], R32, R64);
    for (int K = 0; K < NumOps - 6; ++K) {
      uint32_t G = H32[I * (NumOps - 6) + K];
      bool BothNan = (G & 0x7fffffffu) > 0x7f800000u && (R32[K] & 0x7fffffffu) > 0x7f800000u;
      if (G != R32[K] && !BothNan && Bad[K]++ == 0)
        FirstBad[K] = I;
    }
    for (int K = 0; K < 6; ++K) {
      uint64_t G = H64[I * 6 + K];
      bool BothNan = (G & ~(1ULL << 63)) > 0x7ff0000000000000ULL &&
                     (R64[K] & ~(1ULL << 63)) > 0x7ff0000000000000ULL;
      if (G != R64[K] && !BothNan && Bad[NumOps - 6 + K]++ == 0)
        FirstBad[NumOps - 6 + K] = I;
    }
  }
  bool Ok = true;
  for (int K = 0; K < NumOps; ++K) {
    std::printf("interval %-9s %u inputs, bit mismatches %u\n", Names[K], N, Bad[K]);
    if (Bad[K]) {
      unsigned I = FirstBad[K];
      std::printf("  first at %u: a=%a b=%a c=%a\n", I, (double)A[I], (double)B[I], (double)C[I]);
      Ok = false;
    }
  }
  // Interval enclosure of sum_i a_i*b_i: lower and upper bounds computed
  // with opposite roundings must bracket the exact double result.
  CHECK(cudaFree(GA));
  CHECK(cudaFree(GB));
  CHECK(cudaFree(GC));
  CHECK(cudaFree(GDA));
  CHECK(cudaFree(GDB));
  CHECK(cudaFree(G32));
  CHECK(cudaFree(G64));
  return Ok;
}

int main() {
  bool Ok = true;
  std::vector<Tri> Cases;
  {
    Tri T{"wilkinson21", {}, {}};
    for (int I = 0; I < 21; ++I)
      T.D.push_back((float)std::abs(10 - I));
    T.E.assign(20, 1.0f);
    Cases.push_back(T);
  }
  {
    Tri T{"random512", {}, {}};
    Lcg Rng(5);
    for (int I = 0; I < 512; ++I)
      T.D.push_back(Rng.range(-10.0f, 10.0f));
    for (int I = 0; I < 511; ++I)
      T.E.push_back(Rng.range(-3.0f, 3.0f));
    Cases.push_back(T);
  }
  {
    Tri T{"split-zeros", {}, {}};
    Lcg Rng(6);
    for (int I = 0; I < 200; ++I)
      T.D.push_back((float)(I % 7) - 3.0f); // repeated diagonal values
    for (int I = 0; I < 199; ++I)
      T.E.push_back(I % 5 == 0 ? 0.0f : Rng.range(-1e-3f, 1e-3f));
    Cases.push_back(T);
  }
  {
    Tri T{"graded", {}, {}};
    for (int I = 0; I < 64; ++I)
      T.D.push_back(std::ldexp(1.0f, I - 40));
    for (int I = 0; I < 63; ++I)
      T.E.push_back(std::ldexp(1.0f, I - 42));
    Cases.push_back(T);
  }
  {
    Tri T{"laplacian1000", {}, {}};
    T.D.assign(1000, 2.0f);
    T.E.assign(999, -1.0f);
    Cases.push_back(T);
  }
  {
    Tri T{"huge", {}, {}};
    Lcg Rng(9);
    for (int I = 0; I < 100; ++I)
      T.D.push_back(Rng.range(-1e18f, 1e18f));
    for (int I = 0; I < 99; ++I)
      T.E.push_back(Rng.range(-1e17f, 1e17f));
    Cases.push_back(T);
  }
  for (const Tri &T : Cases)
    Ok &= runBisect(T);
  Ok &= runIntervals();
  return finish(Ok);
}
