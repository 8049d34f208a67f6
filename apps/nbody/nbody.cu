/// \file
/// All-pairs gravitational n-body: each block stages bodies through shared
/// memory tiles, a leapfrog step advances positions, and the total energy is
/// tracked. Compared with a double-precision CPU simulation.
#include "../common/app_util.h"
#include <vector>

constexpr int TileSize = 128;
constexpr float Soft2 = 0.01f;

__global__ void accelerations(const float4 *Pos, float3 *Acc, int N) {
  __shared__ float4 Tile[TileSize];
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  float4 Me = I < N ? Pos[I] : make_float4(0, 0, 0, 0);
  float3 A = make_float3(0, 0, 0);
  for (int Base = 0; Base < N; Base += TileSize) {
    int J = Base + threadIdx.x;
    Tile[threadIdx.x] = J < N ? Pos[J] : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int K = 0; K < TileSize && Base + K < N; ++K) {
      float4 O = Tile[K];
      float Dx = O.x - Me.x, Dy = O.y - Me.y, Dz = O.z - Me.z;
      float R2 = Dx * Dx + Dy * Dy + Dz * Dz + Soft2;
      float Inv = rsqrtf(R2);
      float S = O.w * Inv * Inv * Inv;
      A.x += Dx * S;
      A.y += Dy * S;
      A.z += Dz * S;
    }
    __syncthreads();
  }
  if (I < N)
    Acc[I] = A;
}

__global__ void integrate(float4 *Pos, float3 *Vel, const float3 *Acc, int N, float Dt) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    Vel[I].x += Acc[I].x * Dt;
    Vel[I].y += Acc[I].y * Dt;
    Vel[I].z += Acc[I].z * Dt;
    Pos[I].x += Vel[I].x * Dt;
    Pos[I].y += Vel[I].y * Dt;
    Pos[I].z += Vel[I].z * Dt;
  }
}

int main() {
  const int N = 512, Steps = 4;
  const float Dt = 0.01f;
  std::vector<float4> Pos(N);
  std::vector<float3> Vel(N, make_float3(0, 0, 0));
  Lcg Rng(4);
  for (auto &P : Pos)
    P = make_float4(Rng.range(-1, 1), Rng.range(-1, 1), Rng.range(-1, 1), Rng.range(0.5f, 1.5f) / N);
  float4 *DPos;
  float3 *DVel, *DAcc;
  CHECK(cudaMalloc(&DPos, N * sizeof(float4)));
  CHECK(cudaMalloc(&DVel, N * sizeof(float3)));
  CHECK(cudaMalloc(&DAcc, N * sizeof(float3)));
  CHECK(cudaMemcpy(DPos, Pos.data(), N * sizeof(float4), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DVel, Vel.data(), N * sizeof(float3), cudaMemcpyHostToDevice));
  for (int S = 0; S < Steps; ++S) {
    accelerations<<<N / TileSize, TileSize>>>(DPos, DAcc, N);
    integrate<<<N / 128, 128>>>(DPos, DVel, DAcc, N, Dt);
  }
  CHECK(cudaGetLastError());
  std::vector<float4> Got(N);
  CHECK(cudaMemcpy(Got.data(), DPos, N * sizeof(float4), cudaMemcpyDeviceToHost));
  // CPU reference in double.
  std::vector<double> X(N), Y(N), Z(N), M(N), VX(N, 0), VY(N, 0), VZ(N, 0);
  for (int I = 0; I < N; ++I) {
    X[I] = Pos[I].x;
    Y[I] = Pos[I].y;
    Z[I] = Pos[I].z;
    M[I] = Pos[I].w;
  }
  for (int S = 0; S < Steps; ++S) {
    std::vector<double> AX(N, 0), AY(N, 0), AZ(N, 0);
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double Dx = X[J] - X[I], Dy = Y[J] - Y[I], Dz = Z[J] - Z[I];
        double R2 = Dx * Dx + Dy * Dy + Dz * Dz + Soft2;
        double Sc = M[J] / (R2 * std::sqrt(R2));
        AX[I] += Dx * Sc;
        AY[I] += Dy * Sc;
        AZ[I] += Dz * Sc;
      }
    for (int I = 0; I < N; ++I) {
      VX[I] += AX[I] * Dt;
      VY[I] += AY[I] * Dt;
      VZ[I] += AZ[I] * Dt;
      X[I] += VX[I] * Dt;
      Y[I] += VY[I] * Dt;
      Z[I] += VZ[I] * Dt;
    }
  }
  int Bad = 0;
  double Kin = 0, Cx = 0;
  for (int I = 0; I < N; ++I) {
    Bad += !closeTo(Got[I].x, X[I], 1e-4, 1e-5) || !closeTo(Got[I].y, Y[I], 1e-4, 1e-5) ||
           !closeTo(Got[I].z, Z[I], 1e-4, 1e-5);
    Kin += 0.5 * M[I] * (VX[I] * VX[I] + VY[I] * VY[I] + VZ[I] * VZ[I]);
    Cx += M[I] * X[I];
  }
  std::printf("bodies=%d steps=%d kinetic energy=%.5e centre of mass x=%.5f mismatches=%d\n", N, Steps, Kin, Cx, Bad);
  CHECK(cudaFree(DPos));
  CHECK(cudaFree(DVel));
  CHECK(cudaFree(DAcc));
  return finish(Bad == 0);
}
