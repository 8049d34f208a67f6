// The runtime's stream-ordered allocator and memory pools end to end:
// cudaMallocAsync/cudaFreeAsync in stream order, a created pool used from
// two streams ordered by an event, the pool's counters, threshold and
// trimming, the current pool, pointer attributes and invalid frees. Run
// over NVIDIA's static cudart + ferry's libcuda and over ferry's libcudart;
// prints "RuntimeMemPool: PASS" when every check held.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

static int Failures = 0;
#define CHECK(Cond)                                                                                \
  do {                                                                                             \
    if (!(Cond)) {                                                                                 \
      std::printf("FAIL line %d: %s\n", __LINE__, #Cond);                                          \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)
#define OK(Call) CHECK((Call) == cudaSuccess)

__global__ void affine(int *P, int N, int Mul, int Add) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = P[I] * Mul + Add;
}

static unsigned long long attr(cudaMemPool_t Pool, cudaMemPoolAttr A) {
  unsigned long long V = ~0ull;
  OK(cudaMemPoolGetAttribute(Pool, A, &V));
  return V;
}

int main() {
  const int N = 1000;
  int Supported = 0;
  OK(cudaDeviceGetAttribute(&Supported, cudaDevAttrMemoryPoolsSupported, 0));
  CHECK(Supported == 1);
  cudaStream_t S1, S2;
  OK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
  OK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));

  // 1. Stream order on one stream, from the default pool.
  int *P = nullptr;
  std::vector<int> Out(N, 0);
  OK(cudaMallocAsync(reinterpret_cast<void **>(&P), N * sizeof(int), S1));
  OK(cudaMemsetAsync(P, 0, N * sizeof(int), S1));
  affine<<<(N + 127) / 128, 128, 0, S1>>>(P, N, 1, 4);
  affine<<<(N + 127) / 128, 128, 0, S1>>>(P, N, 3, 1);
  OK(cudaMemcpyAsync(Out.data(), P, N * sizeof(int), cudaMemcpyDeviceToHost, S1));
  OK(cudaFreeAsync(P, S1));
  OK(cudaStreamSynchronize(S1));
  for (int I = 0; I < N; ++I)
    CHECK(Out[I] == 13);
  CHECK(cudaFreeAsync(P, S1) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  cudaMemPool_t Def = nullptr, Cur = nullptr;
  OK(cudaDeviceGetDefaultMemPool(&Def, 0));
  OK(cudaDeviceGetMemPool(&Cur, 0));
  CHECK(Def != nullptr && Def == Cur);
  cudaMemLocation Dev0 = {cudaMemLocationTypeDevice, 0};
  cudaMemPool_t Got = nullptr;
  OK(cudaMemGetDefaultMemPool(&Got, &Dev0, cudaMemAllocationTypePinned));
  CHECK(Got == Def);

  // 2. A created pool, used across streams in event order.
  cudaMemPoolProps Props = {};
  Props.allocType = cudaMemAllocationTypePinned;
  Props.location = Dev0;
  cudaMemPool_t Pool = nullptr;
  OK(cudaMemPoolCreate(&Pool, &Props));
  unsigned long long Keep = ~0ull;
  OK(cudaMemPoolSetAttribute(Pool, cudaMemPoolAttrReleaseThreshold, &Keep));
  cudaEvent_t Written;
  OK(cudaEventCreateWithFlags(&Written, cudaEventDisableTiming));
  int *Q = nullptr;
  OK(cudaMallocFromPoolAsync(reinterpret_cast<void **>(&Q), N * sizeof(int), Pool, S1));
  CHECK(attr(Pool, cudaMemPoolAttrUsedMemCurrent) == N * sizeof(int));
  CHECK(attr(Pool, cudaMemPoolAttrReservedMemCurrent) >= N * sizeof(int));
  cudaPointerAttributes A = {};
  OK(cudaPointerGetAttributes(&A, Q));
  CHECK(A.type == cudaMemoryTypeDevice);
  CHECK(A.device == 0);
  CHECK(A.devicePointer == Q);
  OK(cudaMemsetAsync(Q, 0, N * sizeof(int), S1));
  affine<<<(N + 127) / 128, 128, 0, S1>>>(Q, N, 1, 7);
  OK(cudaEventRecord(Written, S1));
  OK(cudaStreamWaitEvent(S2, Written, 0));
  affine<<<(N + 127) / 128, 128, 0, S2>>>(Q, N, 2, 0);
  OK(cudaMemcpyAsync(Out.data(), Q, N * sizeof(int), cudaMemcpyDeviceToHost, S2));
  OK(cudaFreeAsync(Q, S2));
  OK(cudaStreamSynchronize(S2));
  for (int I = 0; I < N; ++I)
    CHECK(Out[I] == 14);
  CHECK(attr(Pool, cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK(attr(Pool, cudaMemPoolAttrUsedMemHigh) == N * sizeof(int));
  CHECK(attr(Pool, cudaMemPoolAttrReservedMemCurrent) >= N * sizeof(int)); // Above threshold.
  OK(cudaMemPoolTrimTo(Pool, 0));
  CHECK(attr(Pool, cudaMemPoolAttrReservedMemCurrent) == 0);

  // 3. The current pool feeds cudaMallocAsync.
  OK(cudaDeviceSetMemPool(0, Pool));
  int *R = nullptr;
  OK(cudaMallocAsync(reinterpret_cast<void **>(&R), 256, S1));
  CHECK(attr(Pool, cudaMemPoolAttrUsedMemCurrent) == 256);
  OK(cudaFreeAsync(R, S1));
  OK(cudaDeviceSetMemPool(0, Def));
  cudaMemAccessFlags F = cudaMemAccessFlagsProtNone;
  OK(cudaMemPoolGetAccess(&F, Pool, &Dev0));
  CHECK(F == cudaMemAccessFlagsProtReadWrite);
  OK(cudaStreamSynchronize(S1));
  OK(cudaMemPoolDestroy(Pool));
  CHECK(cudaMemPoolDestroy(Def) == cudaErrorInvalidValue);
  (void)cudaGetLastError();

  OK(cudaEventDestroy(Written));
  OK(cudaStreamDestroy(S1));
  OK(cudaStreamDestroy(S2));
  OK(cudaDeviceSynchronize());
  if (Failures == 0)
    std::printf("RuntimeMemPool: PASS\n");
  return Failures == 0 ? 0 : 1;
}
