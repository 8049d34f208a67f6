/// \file
/// C++ on the device: a generic reduction templated on element type and
/// operator, device function pointers fetched from __device__ variables and
/// passed to kernels, a table of pointers chosen at run time, virtual
/// functions on objects constructed on the device, and a device lambda.
#include "../common/app_util.h"
#include <new>
#include <vector>

template <typename T> struct Plus {
  __device__ T operator()(T A, T B) const { return A + B; }
  __host__ __device__ static constexpr T identity() { return T(0); }
};
template <typename T> struct Max {
  __device__ T operator()(T A, T B) const { return A > B ? A : B; }
  __host__ __device__ static constexpr T identity() { return T(-1000000); }
};

template <typename T, typename Op, int BlockSize>
__global__ void reduce(const T *In, int N, T *Out) {
  __shared__ T Buf[BlockSize];
  Op F;
  T Acc = Op::identity();
  for (int I = threadIdx.x; I < N; I += BlockSize)
    Acc = F(Acc, In[I]);
  Buf[threadIdx.x] = Acc;
  __syncthreads();
  for (int S = BlockSize / 2; S > 0; S /= 2) {
    if (threadIdx.x < S)
      Buf[threadIdx.x] = F(Buf[threadIdx.x], Buf[threadIdx.x + S]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *Out = Buf[0];
}

typedef int (*IntFn)(int);
__device__ int square(int X) { return X * X; }
__device__ int negate(int X) { return -X; }
__device__ int triple(int X) { return 3 * X; }
__device__ IntFn SquarePtr = square;
__device__ IntFn Table[3] = {square, negate, triple};

__global__ void applyFn(IntFn F, const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = F(In[I]);
}

__global__ void applyTable(const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = Table[I % 3](In[I]);
}

struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
  float W, H;
  __device__ Rect(float W, float H) : W(W), H(H) {}
  __device__ float area() const override { return W * H; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  float B, H;
  __device__ Tri(float B, float H) : B(B), H(H) {}
  __device__ float area() const override { return 0.5f * B * H; }
  __device__ int sides() const override { return 3; }
};
struct Disc : Shape {
  float R;
  __device__ Disc(float R) : R(R) {}
  __device__ float area() const override { return 3.0f * R * R; } // integer-friendly "pi"
};

constexpr int SlotBytes = 32;

__global__ void build(char *Pool, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  void *Slot = Pool + I * SlotBytes;
  switch (I % 3) {
  case 0: new (Slot) Rect(float(I % 7), 2.0f); break;
  case 1: new (Slot) Tri(float(I % 5), 4.0f); break;
  default: new (Slot) Disc(float(I % 4)); break;
  }
}

__global__ void measure(char *Pool, int N, float *Area, int *Sides) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  const Shape *S = reinterpret_cast<const Shape *>(Pool + I * SlotBytes);
  Area[I] = S->area();
  Sides[I] = S->sides();
}

__global__ void lambdaKernel(int *Data, int N) {
  auto Clamp = [](int V, int Lo, int Hi) { return V < Lo ? Lo : (V > Hi ? Hi : V); };
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] = Clamp(Data[I], -50, 50);
}

int main() {
  static_assert(sizeof(Rect) <= SlotBytes && sizeof(Tri) <= SlotBytes && sizeof(Disc) <= SlotBytes, "slot size");
  const int N = 3000;
  std::vector<int> In(N);
  std::vector<double> InD(N);
  Lcg Rng(64);
  for (int I = 0; I < N; ++I) {
    In[I] = int(Rng.below(201)) - 100;
    InD[I] = In[I] * 0.5;
  }
  int *DIn, *DOut, *DR;
  double *DInD, *DRD;
  CHECK(cudaMalloc(&DIn, N * sizeof(int)));
  CHECK(cudaMalloc(&DOut, N * sizeof(int)));
  CHECK(cudaMalloc(&DR, 2 * sizeof(int)));
  CHECK(cudaMalloc(&DInD, N * sizeof(double)));
  CHECK(cudaMalloc(&DRD, sizeof(double)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DInD, InD.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  reduce<int, Plus<int>, 256><<<1, 256>>>(DIn, N, DR);
  reduce<int, Max<int>, 128><<<1, 128>>>(DIn, N, DR + 1);
  reduce<double, Plus<double>, 64><<<1, 64>>>(DInD, N, DRD);
  CHECK(cudaGetLastError());
  int R[2];
  double RD;
  CHECK(cudaMemcpy(R, DR, sizeof(R), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&RD, DRD, sizeof(double), cudaMemcpyDeviceToHost));
  int WantSum = 0, WantMax = -1000000;
  for (int V : In) {
    WantSum += V;
    WantMax = V > WantMax ? V : WantMax;
  }
  std::printf("template reduce: int sum=%d (%s) int max=%d (%s) double sum=%.1f (%s)\n", WantSum,
              R[0] == WantSum ? "ok" : "MISMATCH", WantMax, R[1] == WantMax ? "ok" : "MISMATCH", WantSum * 0.5,
              RD == WantSum * 0.5 ? "ok" : "MISMATCH");
  bool Ok = R[0] == WantSum && R[1] == WantMax && RD == WantSum * 0.5;

  IntFn HostCopy;
  CHECK(cudaMemcpyFromSymbol(&HostCopy, SquarePtr, sizeof(IntFn)));
  applyFn<<<(N + 127) / 128, 128>>>(HostCopy, DIn, DOut, N);
  CHECK(cudaGetLastError());
  std::vector<int> Out(N);
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    Bad += Out[I] != In[I] * In[I];
  applyTable<<<(N + 127) / 128, 128>>>(DIn, DOut, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    int V = In[I];
    Bad += Out[I] != (I % 3 == 0 ? V * V : (I % 3 == 1 ? -V : 3 * V));
  }
  std::printf("device function pointers: mismatches=%d\n", Bad);
  Ok = Ok && Bad == 0;

  const int NS = 300;
  char *Pool;
  float *DArea;
  int *DSides;
  CHECK(cudaMalloc(&Pool, NS * SlotBytes));
  CHECK(cudaMalloc(&DArea, NS * sizeof(float)));
  CHECK(cudaMalloc(&DSides, NS * sizeof(int)));
  build<<<(NS + 63) / 64, 64>>>(Pool, NS);
  measure<<<(NS + 63) / 64, 64>>>(Pool, NS, DArea, DSides);
  CHECK(cudaGetLastError());
  std::vector<float> Area(NS);
  std::vector<int> Sides(NS);
  CHECK(cudaMemcpy(Area.data(), DArea, NS * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Sides.data(), DSides, NS * sizeof(int), cudaMemcpyDeviceToHost));
  int BadV = 0;
  double TotalArea = 0;
  int TotalSides = 0;
  for (int I = 0; I < NS; ++I) {
    float A;
    int S;
    switch (I % 3) {
    case 0: A = float(I % 7) * 2.0f; S = 4; break;
    case 1: A = 0.5f * float(I % 5) * 4.0f; S = 3; break;
    default: A = 3.0f * float(I % 4) * float(I % 4); S = 0; break;
    }
    BadV += Area[I] != A || Sides[I] != S;
    TotalArea += A;
    TotalSides += S;
  }
  std::printf("virtual dispatch: mismatches=%d total area=%.1f total sides=%d\n", BadV, TotalArea, TotalSides);
  Ok = Ok && BadV == 0;

  lambdaKernel<<<(N + 127) / 128, 128>>>(DIn, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DIn, N * sizeof(int), cudaMemcpyDeviceToHost));
  int BadL = 0;
  for (int I = 0; I < N; ++I)
    BadL += Out[I] != (In[I] < -50 ? -50 : (In[I] > 50 ? 50 : In[I]));
  std::printf("device lambda: mismatches=%d\n", BadL);
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DR));
  CHECK(cudaFree(DInD));
  CHECK(cudaFree(DRD));
  CHECK(cudaFree(Pool));
  CHECK(cudaFree(DArea));
  CHECK(cudaFree(DSides));
  return finish(Ok && BadL == 0);
}
