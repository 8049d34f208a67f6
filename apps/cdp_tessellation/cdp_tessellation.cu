// Adaptive tessellation of quadratic Bezier curves with dynamic parallelism
// (CDP2). One thread per curve measures its curvature, picks a vertex
// count, allocates the vertex buffer with device-side cudaMalloc and
// launches a child grid that evaluates the vertices (fire-and-forget
// stream). Thread 0 of the grid tail-launches a gather kernel, which runs
// after the grid and all its children, and copies every curve's vertices to
// host-visible memory at offsets handed out by an atomic counter. A second
// host launch frees the device-heap buffers from device code. The host
// recomputes every vertex and prints counts only.
#include "../common/app_util.h"

#include <vector>

namespace {

struct Curve {
  float2 P[3];
  int Vertices;
  int Offset;
  float2 *Buffer;
};

constexpr int MinVertices = 4, MaxVertices = 96;

__device__ int DeviceErrors = 0;
__device__ int NextOffset = 0;
__device__ int Attributes[2];

__host__ __device__ float2 bezier(const float2 *P, float T) {
  float A = (1 - T) * (1 - T), B = 2 * (1 - T) * T, C = T * T;
  return make_float2(A * P[0].x + B * P[1].x + C * P[2].x, A * P[0].y + B * P[1].y + C * P[2].y);
}

__host__ __device__ int vertexCount(const float2 *P) {
  // Distance of the control point from the chord's midpoint: flat curves
  // need few vertices, sharp ones many.
  float Mx = 0.5f * (P[0].x + P[2].x) - P[1].x, My = 0.5f * (P[0].y + P[2].y) - P[1].y;
  int N = MinVertices + int(sqrtf(Mx * Mx + My * My) * 8.0f);
  return N < MaxVertices ? N : MaxVertices;
}

__global__ void evaluate(Curve *C) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < C->Vertices)
    C->Buffer[I] = bezier(C->P, float(I) / float(C->Vertices - 1));
}

__global__ void gather(Curve *Curves, int N, float2 *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N || !Curves[I].Buffer)
    return;
  for (int V = 0; V < Curves[I].Vertices; ++V)
    Out[Curves[I].Offset + V] = Curves[I].Buffer[V];
}

__global__ void tessellate(Curve *Curves, int N, float2 *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I == 0) {
    // The device runtime answers device queries like the host runtime.
    int Dev = -1;
    if (cudaGetDevice(&Dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&Attributes[0], cudaDevAttrMaxThreadsPerBlock, Dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&Attributes[1], cudaDevAttrWarpSize, Dev) != cudaSuccess)
      atomicAdd(&DeviceErrors, 1);
    // Runs once this grid and everything it launched have finished.
    gather<<<(N + 63) / 64, 64, 0, cudaStreamTailLaunch>>>(Curves, N, Out);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&DeviceErrors, 1);
  }
  if (I >= N)
    return;
  Curve &C = Curves[I];
  C.Vertices = vertexCount(C.P);
  C.Offset = atomicAdd(&NextOffset, C.Vertices);
  if (cudaMalloc(reinterpret_cast<void **>(&C.Buffer), C.Vertices * sizeof(float2)) != cudaSuccess) {
    C.Buffer = nullptr;
    atomicAdd(&DeviceErrors, 1);
    return;
  }
  evaluate<<<(C.Vertices + 31) / 32, 32, 0, cudaStreamFireAndForget>>>(&C);
  if (cudaGetLastError() != cudaSuccess)
    atomicAdd(&DeviceErrors, 1);
}

__global__ void release(Curve *Curves, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N && Curves[I].Buffer) {
    if (cudaFree(Curves[I].Buffer) != cudaSuccess)
      atomicAdd(&DeviceErrors, 1);
    Curves[I].Buffer = nullptr;
  }
}

} // namespace

int main() {
  const int N = 500;
  Lcg Rng(77);
  std::vector<Curve> Host(N);
  for (Curve &C : Host) {
    // Quarter-unit coordinates: the curvature measure is then exact on
    // every machine (fused or not), so the vertex counts are too.
    for (float2 &P : C.P)
      P = make_float2(float(int(Rng.below(33)) - 16) * 0.25f, float(int(Rng.below(33)) - 16) * 0.25f);
    C.Vertices = 0;
    C.Offset = 0;
    C.Buffer = nullptr;
  }
  Curve *Curves = nullptr;
  float2 *Out = nullptr;
  CHECK(cudaMalloc(&Curves, N * sizeof(Curve)));
  CHECK(cudaMallocManaged(&Out, size_t(N) * MaxVertices * sizeof(float2)));
  CHECK(cudaMemcpy(Curves, Host.data(), N * sizeof(Curve), cudaMemcpyHostToDevice));
  tessellate<<<(N + 127) / 128, 128>>>(Curves, N, Out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<Curve> Got(N);
  CHECK(cudaMemcpy(Got.data(), Curves, N * sizeof(Curve), cudaMemcpyDeviceToHost));
  release<<<(N + 127) / 128, 128>>>(Curves, N);
  CHECK(cudaDeviceSynchronize());
  int Errors = 0, Total = 0, Attr[2] = {0, 0};
  CHECK(cudaMemcpyFromSymbol(&Errors, DeviceErrors, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&Total, NextOffset, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(Attr, Attributes, sizeof(Attr)));

  int WantTotal = 0, BadCounts = 0, BadVertices = 0, Freed = 0;
  for (int I = 0; I < N; ++I) {
    const Curve &C = Got[I];
    int Want = vertexCount(Host[I].P);
    WantTotal += Want;
    BadCounts += C.Vertices != Want;
    Freed += C.Buffer != nullptr; // still set: freed by the release kernel later
    if (C.Vertices != Want || C.Offset < 0 || C.Offset + C.Vertices > N * MaxVertices)
      continue;
    for (int V = 0; V < C.Vertices; ++V) {
      float2 P = bezier(Host[I].P, float(V) / float(C.Vertices - 1));
      float2 Q = Out[C.Offset + V];
      BadVertices += !closeTo(Q.x, P.x, 1e-4, 1e-4) || !closeTo(Q.y, P.y, 1e-4, 1e-4);
    }
  }
  CHECK(cudaFree(Curves));
  CHECK(cudaFree(Out));
  std::printf("curves: %d\n", N);
  std::printf("vertices: %d (expected %d)\n", Total, WantTotal);
  std::printf("curves with a wrong vertex count: %d\n", BadCounts);
  std::printf("vertices off the curve: %d\n", BadVertices);
  std::printf("device buffers allocated: %d\n", Freed);
  std::printf("device errors: %d\n", Errors);
  std::printf("device attributes: maxThreadsPerBlock %d warpSize %d\n", Attr[0], Attr[1]);
  return finish(Total == WantTotal && BadCounts == 0 && BadVertices == 0 && Errors == 0 && Freed == N &&
                Attr[0] == 1024 && Attr[1] == 32);
}
