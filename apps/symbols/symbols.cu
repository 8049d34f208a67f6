/// \file
/// Module-scope variables: a __constant__ polynomial table, __device__ arrays
/// and scalars, reached from the host through cudaMemcpyToSymbol (with an
/// offset and async), cudaMemcpyFromSymbol, cudaGetSymbolAddress and
/// cudaGetSymbolSize.
#include "../common/app_util.h"

__constant__ float Coeffs[8];
__constant__ int Offsets[4] = {10, 20, 30, 40};
__device__ int Table[256];
__device__ float Scale = 1.5f;
__device__ unsigned int Calls;

__global__ void evalPoly(const float *X, float *Y, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I == 0)
    atomicAdd(&Calls, 1u);
  if (I < N) {
    float V = Coeffs[7];
    for (int K = 6; K >= 0; --K)
      V = V * X[I] + Coeffs[K];
    Y[I] = V * Scale + float(Table[I & 255] + Offsets[I & 3]);
  }
}

int main() {
  const int N = 8192;
  float HostCoeffs[8] = {1.f, -0.5f, 0.25f, 0.125f, -0.0625f, 0.03125f, 0.5f, -0.25f};
  // Fill in two pieces to exercise the offset argument.
  CHECK(cudaMemcpyToSymbol(Coeffs, HostCoeffs, 4 * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(Coeffs, HostCoeffs + 4, 4 * sizeof(float), 4 * sizeof(float)));
  int HostTable[256];
  for (int I = 0; I < 256; ++I)
    HostTable[I] = (I * 37) % 101;
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaMemcpyToSymbolAsync(Table, HostTable, sizeof(HostTable), 0, cudaMemcpyHostToDevice, S));
  CHECK(cudaStreamSynchronize(S));
  float HostScale = 0;
  CHECK(cudaMemcpyFromSymbol(&HostScale, Scale, sizeof(float)));
  std::printf("initial Scale=%.2f\n", HostScale);
  size_t TableSize = 0, CoeffSize = 0;
  CHECK(cudaGetSymbolSize(&TableSize, Table));
  CHECK(cudaGetSymbolSize(&CoeffSize, Coeffs));
  std::printf("symbol sizes: Table=%zu Coeffs=%zu\n", TableSize, CoeffSize);
  // Write Scale through its device address instead of by symbol.
  float *ScalePtr;
  CHECK(cudaGetSymbolAddress((void **)&ScalePtr, Scale));
  float NewScale = 2.0f;
  CHECK(cudaMemcpy(ScalePtr, &NewScale, sizeof(float), cudaMemcpyHostToDevice));

  float *HX = new float[N], *HY = new float[N];
  Lcg Rng(11);
  for (int I = 0; I < N; ++I)
    HX[I] = Rng.range(-1.f, 1.f);
  float *DX, *DY;
  CHECK(cudaMalloc(&DX, N * sizeof(float)));
  CHECK(cudaMalloc(&DY, N * sizeof(float)));
  CHECK(cudaMemcpy(DX, HX, N * sizeof(float), cudaMemcpyHostToDevice));
  for (int Rep = 0; Rep < 3; ++Rep)
    evalPoly<<<N / 128, 128>>>(DX, DY, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(HY, DY, N * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned CallsSeen = 0;
  CHECK(cudaMemcpyFromSymbol(&CallsSeen, Calls, sizeof(unsigned)));
  int OffsetsBack[4];
  CHECK(cudaMemcpyFromSymbolAsync(OffsetsBack, Offsets, sizeof(OffsetsBack), 0, cudaMemcpyDeviceToHost, S));
  CHECK(cudaStreamSynchronize(S));
  const int HostOffsets[4] = {10, 20, 30, 40};
  int Bad = 0;
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    double V = HostCoeffs[7];
    for (int K = 6; K >= 0; --K)
      V = V * HX[I] + HostCoeffs[K];
    double Want = V * 2.0 + HostTable[I & 255] + HostOffsets[I & 3];
    Bad += !closeTo(HY[I], Want, 1e-5, 1e-5);
    Sum += Want;
  }
  std::printf("kernel calls counted=%u offsets=%d,%d,%d,%d\n", CallsSeen, OffsetsBack[0], OffsetsBack[1],
              OffsetsBack[2], OffsetsBack[3]);
  std::printf("poly n=%d mismatches=%d checksum=%.3f\n", N, Bad, Sum);
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(DY));
  delete[] HX;
  delete[] HY;
  return finish(Bad == 0 && CallsSeen == 3 && OffsetsBack[3] == 40 && HostScale == 1.5f);
}
