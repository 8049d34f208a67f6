// End-to-end: streams, events, callbacks and host functions of ferry's
// libcudart, built with `nvcc -cudart shared`. No kernels.
#include "Check.h"
#include <atomic>
#include <vector>

static std::atomic<int> HostFnRuns{0};
static std::atomic<int> CallbackStatus{-1};

static void hostFn(void *P) { HostFnRuns += *static_cast<int *>(P); }
static void CUDART_CB callback(cudaStream_t, cudaError_t Status, void *) {
  CallbackStatus = int(Status);
}

int main() {
  cudaStream_t S1, S2, S3;
  CHECK_CUDA(cudaStreamCreate(&S1));
  CHECK_CUDA(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
  int Least = 0, Greatest = 0;
  CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&Least, &Greatest));
  CHECK(Greatest <= Least);
  CHECK_CUDA(cudaStreamCreateWithPriority(&S3, cudaStreamDefault, Greatest));
  unsigned Flags = 99;
  CHECK_CUDA(cudaStreamGetFlags(S2, &Flags));
  CHECK(Flags == cudaStreamNonBlocking);
  int Prio = 99;
  CHECK_CUDA(cudaStreamGetPriority(S3, &Prio));
  CHECK(Prio == Greatest);

  const size_t N = 1 << 20;
  float *Host = nullptr, *Dev = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&Host), N * sizeof(float),
                           cudaHostAllocDefault));
  CHECK_CUDA(cudaMalloc(&Dev, N * sizeof(float)));
  for (size_t I = 0; I < N; ++I)
    Host[I] = float(I);

  cudaEvent_t Start, Stop, NoTiming;
  CHECK_CUDA(cudaEventCreate(&Start));
  CHECK_CUDA(cudaEventCreateWithFlags(&Stop, cudaEventBlockingSync));
  CHECK_CUDA(cudaEventCreateWithFlags(&NoTiming, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventRecord(Start, S1));
  CHECK_CUDA(cudaMemcpyAsync(Dev, Host, N * sizeof(float), cudaMemcpyHostToDevice, S1));
  CHECK_CUDA(cudaMemsetAsync(Dev, 0, 16 * sizeof(float), S1));
  CHECK_CUDA(cudaEventRecord(Stop, S1));
  CHECK_CUDA(cudaStreamWaitEvent(S2, Stop, 0));
  CHECK_CUDA(cudaMemcpyAsync(Host, Dev, N * sizeof(float), cudaMemcpyDeviceToHost, S2));
  int Add = 5;
  CHECK_CUDA(cudaLaunchHostFunc(S2, hostFn, &Add));
  CHECK_CUDA(cudaStreamAddCallback(S2, callback, nullptr, 0));
  CHECK_CUDA(cudaStreamSynchronize(S2));
  CHECK(HostFnRuns == 5);
  CHECK(CallbackStatus == int(cudaSuccess));
  CHECK(Host[0] == 0.0f && Host[15] == 0.0f && Host[16] == 16.0f && Host[N - 1] == float(N - 1));
  CHECK_CUDA(cudaEventSynchronize(Stop));
  CHECK_CUDA(cudaEventQuery(Stop));
  CHECK_CUDA(cudaStreamQuery(S1));
  float Ms = -1;
  CHECK_CUDA(cudaEventElapsedTime(&Ms, Start, Stop));
  CHECK(Ms >= 0.0f);
  CHECK_CUDA(cudaEventRecord(NoTiming, S3));
  CHECK_CUDA(cudaEventSynchronize(NoTiming));
  CHECK(cudaEventElapsedTime(&Ms, Start, NoTiming) == cudaErrorInvalidResourceHandle);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);

  // The legacy default stream and the per-thread stream handles work too.
  CHECK_CUDA(cudaMemcpyAsync(Dev, Host, 64, cudaMemcpyHostToDevice, 0));
  CHECK_CUDA(cudaMemcpyAsync(Dev, Host, 64, cudaMemcpyHostToDevice, cudaStreamPerThread));
  CHECK_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
  CHECK_CUDA(cudaStreamSynchronize(0));

  CHECK_CUDA(cudaEventDestroy(Start));
  CHECK_CUDA(cudaEventDestroy(Stop));
  CHECK_CUDA(cudaEventDestroy(NoTiming));
  CHECK_CUDA(cudaStreamDestroy(S1));
  CHECK_CUDA(cudaStreamDestroy(S2));
  CHECK_CUDA(cudaStreamDestroy(S3));
  CHECK_CUDA(cudaFree(Dev));
  CHECK_CUDA(cudaFreeHost(Host));
  return finish("StreamsEvents");
}
