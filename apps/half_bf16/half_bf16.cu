/// \file
/// Half and bfloat16 arithmetic as mixed-precision code uses it: conversions
/// in every rounding mode (compared bit for bit with the host versions of
/// the same functions), correctly rounded add/mul/fma on __half, __half2 and
/// __nv_bfloat16, and a half2 dot product accumulated in float.
#include "../common/app_util.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstring>
#include <vector>

constexpr int Outs = 12;

__global__ void halfOps(const float *A, const float *B, const float *C, const float *QA, const float *QB,
                        const float *QC, unsigned short *O, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned short *R = O + I * Outs;
  __half HA = __float2half_rn(A[I]), HB = __float2half_rn(B[I]), HC = __float2half_rn(C[I]);
  R[0] = __half_as_ushort(HA);
  R[1] = __half_as_ushort(__float2half_rz(A[I]));
  R[2] = __half_as_ushort(__float2half_rd(A[I]));
  R[3] = __half_as_ushort(__float2half_ru(A[I]));
  R[4] = __half_as_ushort(__hadd(HA, HB));
  R[5] = __half_as_ushort(__hmul(HA, HB));
  R[6] = __half_as_ushort(__hfma(HA, HB, HC));
  __half2 P = __hmul2(__halves2half2(HA, HB), __halves2half2(HC, HA));
  R[7] = __half_as_ushort(__low2half(P)) ^ __half_as_ushort(__high2half(P));
  R[8] = __bfloat16_as_ushort(__float2bfloat16_rn(A[I]));
  // bf16 arithmetic on quantised inputs (see main): native on sm_80, emulated
  // through float before, and both give the same bits there.
  __nv_bfloat16 BA = __float2bfloat16_rn(QA[I]), BB = __float2bfloat16_rn(QB[I]), BC = __float2bfloat16_rn(QC[I]);
  R[9] = __bfloat16_as_ushort(__hadd(BA, BB));
  R[10] = __bfloat16_as_ushort(__hmul(BA, BB));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  R[11] = __bfloat16_as_ushort(__hfma(BA, BB, BC));
#else
  R[11] = __bfloat16_as_ushort(__float2bfloat16_rn(fmaf(__bfloat162float(BA), __bfloat162float(BB), __bfloat162float(BC))));
#endif
}

__global__ void dotHalf2(const __half2 *X, const __half2 *Y, float *Out, int N2) {
  __shared__ float Part[256];
  float S = 0.f;
  for (int I = threadIdx.x; I < N2; I += blockDim.x) {
    float2 P = __half22float2(__hmul2(X[I], Y[I]));
    S += P.x + P.y;
  }
  Part[threadIdx.x] = S;
  __syncthreads();
  for (int K = blockDim.x / 2; K > 0; K /= 2) {
    if (threadIdx.x < K)
      Part[threadIdx.x] += Part[threadIdx.x + K];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *Out = Part[0];
}

static unsigned short hbits(__half H) { return __half_as_ushort(H); }
static unsigned short bbits(__nv_bfloat16 B) { return __bfloat16_as_ushort(B); }
// Exact results in double, rounded once: the IEEE definition of each op.
static __half hround(double V) { return __double2half(V); }
// The bf16 inputs are quantised so that every exact result fits in a float;
// rounding that float to bf16 is then a single rounding.
static __nv_bfloat16 bround(double V) { return __float2bfloat16_rn(float(V)); }

int main() {
  const int N = 4096;
  std::vector<float> A(N), B(N), C(N), QA(N), QB(N), QC(N);
  Lcg Rng(606);
  for (int I = 0; I < N; ++I) {
    A[I] = Rng.range(-8.f, 8.f);
    B[I] = Rng.range(-8.f, 8.f);
    C[I] = Rng.range(-64.f, 64.f);
    // k/16 and k/2 with |k| <= 128: 8 significant bits, exactly bf16.
    QA[I] = (int(Rng.below(257)) - 128) / 16.0f;
    QB[I] = (int(Rng.below(257)) - 128) / 16.0f;
    QC[I] = (int(Rng.below(257)) - 128) / 2.0f;
  }
  float *DA, *DB, *DC, *DQ;
  CHECK(cudaMalloc(&DQ, 3 * N * sizeof(float)));
  CHECK(cudaMemcpy(DQ, QA.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DQ + N, QB.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DQ + 2 * N, QC.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  unsigned short *DO;
  CHECK(cudaMalloc(&DA, N * sizeof(float)));
  CHECK(cudaMalloc(&DB, N * sizeof(float)));
  CHECK(cudaMalloc(&DC, N * sizeof(float)));
  CHECK(cudaMalloc(&DO, N * Outs * sizeof(unsigned short)));
  CHECK(cudaMemcpy(DA, A.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DB, B.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DC, C.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  halfOps<<<N / 128, 128>>>(DA, DB, DC, DQ, DQ + N, DQ + 2 * N, DO, N);
  CHECK(cudaGetLastError());
  std::vector<unsigned short> O(N * Outs);
  CHECK(cudaMemcpy(O.data(), DO, O.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
  int Bad[Outs] = {};
  unsigned long long Check = 0;
  for (int I = 0; I < N; ++I) {
    __half HA = __float2half_rn(A[I]), HB = __float2half_rn(B[I]), HC = __float2half_rn(C[I]);
    double a = __half2float(HA), b = __half2float(HB), c = __half2float(HC);
    double ba = QA[I], bb = QB[I], bc = QC[I];
    unsigned short W[Outs];
    W[0] = hbits(HA);
    W[1] = hbits(__float2half_rz(A[I]));
    W[2] = hbits(__float2half_rd(A[I]));
    W[3] = hbits(__float2half_ru(A[I]));
    W[4] = hbits(hround(a + b));
    W[5] = hbits(hround(a * b));
    W[6] = hbits(hround(a * b + c));
    W[7] = hbits(hround(a * c)) ^ hbits(hround(b * a));
    W[8] = bbits(__float2bfloat16_rn(A[I]));
    W[9] = bbits(bround(ba + bb));
    W[10] = bbits(bround(ba * bb));
    W[11] = bbits(bround(ba * bb + bc));
    for (int K = 0; K < Outs; ++K) {
      Bad[K] += O[I * Outs + K] != W[K];
      Check = Check * 1099511628211ULL + W[K];
    }
  }
  const char *Names[Outs] = {"f2h rn", "f2h rz", "f2h rd", "f2h ru", "hadd", "hmul", "hfma", "hmul2",
                             "f2bf16 rn", "bf16 add", "bf16 mul", "bf16 fma"};
  int Total = 0;
  for (int K = 0; K < Outs; ++K) {
    std::printf("%-10s mismatches=%d\n", Names[K], Bad[K]);
    Total += Bad[K];
  }
  std::printf("bit checksum=%016llx\n", Check);

  // Dot product of 2*2048 halves, accumulated in float.
  const int N2 = 2048;
  std::vector<__half2> X(N2), Y(N2);
  double Want = 0;
  for (int I = 0; I < N2; ++I) {
    // Quarter steps in [-4,4): products are exact in half, sums exact in float.
    float X0 = (int(Rng.below(32)) - 16) * 0.25f, X1 = (int(Rng.below(32)) - 16) * 0.25f;
    float Y0 = (int(Rng.below(32)) - 16) * 0.25f, Y1 = (int(Rng.below(32)) - 16) * 0.25f;
    X[I] = __floats2half2_rn(X0, X1);
    Y[I] = __floats2half2_rn(Y0, Y1);
    Want += double(X0) * Y0 + double(X1) * Y1;
  }
  __half2 *DX, *DY;
  float *DDot;
  CHECK(cudaMalloc(&DX, N2 * sizeof(__half2)));
  CHECK(cudaMalloc(&DY, N2 * sizeof(__half2)));
  CHECK(cudaMalloc(&DDot, sizeof(float)));
  CHECK(cudaMemcpy(DX, X.data(), N2 * sizeof(__half2), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DY, Y.data(), N2 * sizeof(__half2), cudaMemcpyHostToDevice));
  dotHalf2<<<1, 256>>>(DX, DY, DDot, N2);
  CHECK(cudaGetLastError());
  float Dot = 0;
  CHECK(cudaMemcpy(&Dot, DDot, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("half2 dot=%.4f want=%.4f\n", Dot, Want);
  CHECK(cudaFree(DA));
  CHECK(cudaFree(DB));
  CHECK(cudaFree(DC));
  CHECK(cudaFree(DO));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DY));
  CHECK(cudaFree(DDot));
  CHECK(cudaFree(DQ));
  return finish(Total == 0 && Dot == float(Want));
}
