/// \file
/// A producer/consumer pipeline across streams of different priorities:
/// events order the streams (cudaStreamWaitEvent), host functions and
/// stream callbacks run in stream order, and event timing is printed only on
/// `time:` lines.
#include "../common/app_util.h"
#include <vector>

__global__ void produce(int *Buf, int N, int Round) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    // Enough work that a missing wait would let the consumer overtake us.
    int V = I;
    for (int K = 0; K < 200; ++K)
      V = (V * 1103515245 + 12345) & 0x7fffffff;
    Buf[I] = (V & 1023) + Round;
  }
}

__global__ void consume(const int *Buf, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = Buf[I] * 2 + 1;
}

static std::vector<int> Log;
static void CUDART_CB hostStep(void *Arg) { Log.push_back(int(reinterpret_cast<intptr_t>(Arg))); }
static void CUDART_CB legacyCallback(cudaStream_t, cudaError_t Status, void *Arg) {
  Log.push_back(Status == cudaSuccess ? 100 + int(reinterpret_cast<intptr_t>(Arg)) : -1);
}

int main() {
  int Least = 0, Greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&Least, &Greatest));
  std::printf("priority range ordered (greatest <= least): %s\n", Greatest <= Least ? "yes" : "no");
  cudaStream_t Hi, Lo;
  CHECK(cudaStreamCreateWithPriority(&Hi, cudaStreamNonBlocking, Greatest));
  CHECK(cudaStreamCreateWithPriority(&Lo, cudaStreamNonBlocking, Least));
  int PHi = 0, PLo = 0;
  CHECK(cudaStreamGetPriority(Hi, &PHi));
  CHECK(cudaStreamGetPriority(Lo, &PLo));
  std::printf("stream priorities as created: %s\n", PHi == Greatest && PLo == Least ? "yes" : "no");
  unsigned Flags = 0;
  CHECK(cudaStreamGetFlags(Hi, &Flags));
  std::printf("non-blocking flag kept: %s\n", Flags == cudaStreamNonBlocking ? "yes" : "no");

  const int N = 1 << 16, Rounds = 3;
  int *Buf, *Out, *HostOut;
  CHECK(cudaMalloc(&Buf, N * sizeof(int)));
  CHECK(cudaMalloc(&Out, Rounds * N * sizeof(int)));
  CHECK(cudaMallocHost(&HostOut, Rounds * N * sizeof(int)));
  cudaEvent_t Produced[Rounds], Consumed[Rounds], T0, T1;
  for (int R = 0; R < Rounds; ++R) {
    CHECK(cudaEventCreateWithFlags(&Produced[R], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&Consumed[R], cudaEventDisableTiming));
  }
  CHECK(cudaEventCreate(&T0));
  CHECK(cudaEventCreate(&T1));
  CHECK(cudaEventRecord(T0, Lo));
  for (int R = 0; R < Rounds; ++R) {
    if (R > 0) // do not overwrite Buf before the last round was consumed
      CHECK(cudaStreamWaitEvent(Lo, Consumed[R - 1], 0));
    produce<<<N / 256, 256, 0, Lo>>>(Buf, N, R);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(Produced[R], Lo));
    CHECK(cudaStreamWaitEvent(Hi, Produced[R], 0));
    consume<<<N / 256, 256, 0, Hi>>>(Buf, Out + R * N, N);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(Consumed[R], Hi));
    CHECK(cudaLaunchHostFunc(Hi, hostStep, reinterpret_cast<void *>(intptr_t(R))));
  }
  CHECK(cudaMemcpyAsync(HostOut, Out, Rounds * N * sizeof(int), cudaMemcpyDeviceToHost, Hi));
  CHECK(cudaStreamAddCallback(Hi, legacyCallback, reinterpret_cast<void *>(intptr_t(7)), 0));
  CHECK(cudaEventRecord(T1, Hi));
  CHECK(cudaEventSynchronize(T1));
  CHECK(cudaStreamSynchronize(Hi));
  float Ms = 0;
  CHECK(cudaEventElapsedTime(&Ms, T0, T1));
  std::printf("time: pipeline %.3f ms\n", Ms);
  std::printf("event query after sync: %s\n", cudaGetErrorName(cudaEventQuery(T1)));
  std::printf("stream query after sync: %s\n", cudaGetErrorName(cudaStreamQuery(Hi)));

  int Bad = 0;
  long long Sum = 0;
  for (int R = 0; R < Rounds; ++R)
    for (int I = 0; I < N; ++I) {
      int V = I;
      for (int K = 0; K < 200; ++K)
        V = (V * 1103515245 + 12345) & 0x7fffffff;
      int Want = ((V & 1023) + R) * 2 + 1;
      Bad += HostOut[R * N + I] != Want;
      Sum += Want;
    }
  std::printf("host callbacks ran in order:");
  for (int V : Log)
    std::printf(" %d", V);
  std::printf("\nrounds=%d mismatches=%d sum=%lld\n", Rounds, Bad, Sum);
  bool LogOk = Log.size() == 4 && Log[0] == 0 && Log[1] == 1 && Log[2] == 2 && Log[3] == 107;
  for (int R = 0; R < Rounds; ++R) {
    CHECK(cudaEventDestroy(Produced[R]));
    CHECK(cudaEventDestroy(Consumed[R]));
  }
  CHECK(cudaEventDestroy(T0));
  CHECK(cudaEventDestroy(T1));
  CHECK(cudaStreamDestroy(Hi));
  CHECK(cudaStreamDestroy(Lo));
  CHECK(cudaFree(Buf));
  CHECK(cudaFree(Out));
  CHECK(cudaFreeHost(HostOut));
  return finish(Bad == 0 && LogOk);
}
