/// \file
/// Ordering promises of the runtime that programs rely on without saying so:
/// - the legacy default stream: work on a blocking stream waits for earlier
///   NULL-stream work, and NULL-stream work waits for all blocking streams;
/// - cudaMemcpyAsync with pageable host memory: host-to-device returns once
///   the source has been staged, so overwriting the source right after the
///   call must not change what arrives; device-to-host returns only when the
///   copy is complete, so the data may be read with no synchronization;
/// - cudaMemsetAsync and kernels on cudaStreamPerThread and on a
///   non-blocking stream joined by events;
/// - a kernel spinning on a flag in mapped pinned memory that the host sets
///   after the launch returns (launches are asynchronous), and the kernel
///   answering through another mapped word the host polls;
/// - cudaLaunchHostFunc and cudaStreamAddCallback running in stream order,
///   with the callback seeing the stream's earlier kernel results.
#include "../common/app_util.h"
#include <cstring>
#include <vector>

// A slow single-block kernel: each thread iterates a dependent LCG.
__global__ void slowFill(int *Out, int N, int Value, int Spin) {
  for (int I = threadIdx.x; I < N; I += blockDim.x) {
    unsigned V = I;
    for (int K = 0; K < Spin; ++K)
      V = V * 1664525u + 1013904223u;
    Out[I] = Value + (V == 0x12345678u ? 1 : 0); // practically never, but not foldable
  }
}

__global__ void addFrom(int *Dst, const int *Src, int N, int Scale) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Dst[I] += Src[I] * Scale;
}

__global__ void waitForHost(volatile int *Flag, volatile int *Answer, int Limit) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  int Seen = 0;
  for (long long It = 0; It < (long long)Limit * 1000000; ++It)
    if (*Flag == 1) {
      Seen = 1;
      break;
    }
  *Answer = Seen ? 42 : -1;
}

struct CallbackLog {
  int Order[8];
  int Count;
  const int *HostView; // pinned copy target checked inside the callback
  int Seen[8];
};

static void CUDART_CB hostFn(void *P) {
  auto *L = static_cast<CallbackLog *>(P);
  L->Seen[L->Count] = L->HostView[0];
  L->Order[L->Count] = L->Count;
  ++L->Count;
}

static void CUDART_CB streamCb(cudaStream_t, cudaError_t Status, void *P) {
  auto *L = static_cast<CallbackLog *>(P);
  L->Seen[L->Count] = Status == cudaSuccess ? L->HostView[0] : -99;
  L->Order[L->Count] = 100 + L->Count;
  ++L->Count;
}

static unsigned countNot(const std::vector<int> &V, int Want) {
  unsigned N = 0;
  for (int X : V)
    N += X != Want;
  return N;
}

int main() {
  bool Ok = true;
  const int N = 1 << 16;
  int *A, *B;
  CHECK(cudaMalloc(&A, N * 4));
  CHECK(cudaMalloc(&B, N * 4));
  // 1. Legacy default stream against a blocking stream.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    CHECK(cudaMemset(B, 0, N * 4));
    slowFill<<<1, 256>>>(A, N, 7, 3000);            // NULL stream, slow
    addFrom<<<N / 256, 256, 0, S>>>(B, A, N, 1);     // must see 7s
    slowFill<<<1, 256, 0, S>>>(A, N, 11, 3000);      // blocking stream, slow
    addFrom<<<N / 256, 256>>>(B, A, N, 100);         // NULL stream: must see 11s
    std::vector<int> H(N);
    CHECK(cudaMemcpy(H.data(), B, N * 4, cudaMemcpyDeviceToHost));
    unsigned Bad = countNot(H, 7 + 1100);
    std::printf("legacy default stream ordering: wrong %u of %d\n", Bad, N);
    Ok &= Bad == 0;
    CHECK(cudaStreamDestroy(S));
  }
  // 2. Pageable cudaMemcpyAsync.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    std::vector<int> Src(N, 5), Dst(N, 0);
    slowFill<<<1, 256, 0, S>>>(A, N, 1, 3000); // keep the stream busy
    CHECK(cudaMemcpyAsync(A, Src.data(), N * 4, cudaMemcpyHostToDevice, S));
    std::fill(Src.begin(), Src.end(), -5); // after staging: must not arrive
    addFrom<<<N / 256, 256, 0, S>>>(A, A, N, 1); // 5 -> 10
    CHECK(cudaMemcpyAsync(Dst.data(), A, N * 4, cudaMemcpyDeviceToHost, S));
    unsigned BadNoSync = countNot(Dst, 10); // pageable D2H is synchronous
    CHECK(cudaStreamSynchronize(S));
    unsigned BadSync = countNot(Dst, 10);
    std::printf("pageable async copies: wrong before sync %u, after sync %u\n", BadNoSync, BadSync);
    Ok &= BadNoSync == 0 && BadSync == 0;
    CHECK(cudaStreamDestroy(S));
  }
  // 3. Per-thread default stream, non-blocking stream, events, memsetAsync.
  {
    cudaStream_t Nb;
    cudaEvent_t E1, E2;
    CHECK(cudaStreamCreateWithFlags(&Nb, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&E1, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&E2, cudaEventDisableTiming));
    CHECK(cudaMemsetAsync(B, 0, N * 4, cudaStreamPerThread));
    slowFill<<<1, 256, 0, cudaStreamPerThread>>>(A, N, 3, 3000);
    CHECK(cudaEventRecord(E1, cudaStreamPerThread));
    CHECK(cudaStreamWaitEvent(Nb, E1, 0));
    addFrom<<<N / 256, 256, 0, Nb>>>(B, A, N, 2); // 6
    CHECK(cudaMemsetAsync(A, 0, N * 4, Nb));       // after the add on Nb
    CHECK(cudaEventRecord(E2, Nb));
    CHECK(cudaStreamWaitEvent(cudaStreamPerThread, E2, 0));
    addFrom<<<N / 256, 256, 0, cudaStreamPerThread>>>(B, A, N, 1000); // + 0
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    std::vector<int> H(N);
    CHECK(cudaMemcpy(H.data(), B, N * 4, cudaMemcpyDeviceToHost));
    unsigned Bad = countNot(H, 6);
    std::printf("per-thread stream + non-blocking stream via events: wrong %u\n", Bad);
    Ok &= Bad == 0;
    CHECK(cudaEventDestroy(E1));
    CHECK(cudaEventDestroy(E2));
    CHECK(cudaStreamDestroy(Nb));
  }
  // 4. Host flag in mapped memory, set after the launch returns.
  {
    int *Flag, *Answer;
    CHECK(cudaHostAlloc(&Flag, 64, cudaHostAllocMapped));
    CHECK(cudaHostAlloc(&Answer, 64, cudaHostAllocMapped));
    *(volatile int *)Flag = 0;
    *(volatile int *)Answer = 0;
    int *DFlag, *DAnswer;
    CHECK(cudaHostGetDevicePointer(&DFlag, Flag, 0));
    CHECK(cudaHostGetDevicePointer(&DAnswer, Answer, 0));
    cudaStream_t S;
    CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
    waitForHost<<<1, 32, 0, S>>>(DFlag, DAnswer, 2000);
    CHECK(cudaGetLastError());
    *(volatile int *)Flag = 1;
    // Poll the answer without synchronizing the stream.
    int Polls = 0;
    while (*(volatile int *)Answer == 0 && Polls < 200000000)
      ++Polls;
    int Seen = *(volatile int *)Answer;
    CHECK(cudaStreamSynchronize(S));
    std::printf("kernel saw the host's flag: %s (answer %d, seen before sync: %s)\n", Seen == 42 ? "yes" : "no",
                *(volatile int *)Answer, Seen != 0 ? "yes" : "no");
    Ok &= Seen == 42;
    CHECK(cudaStreamDestroy(S));
    CHECK(cudaFreeHost(Flag));
    CHECK(cudaFreeHost(Answer));
  }
  // 5. Host functions and callbacks in stream order.
  {
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    int *Pinned;
    CHECK(cudaMallocHost(&Pinned, N * 4));
    auto *Log = new CallbackLog{};
    Log->HostView = Pinned;
    for (int Round = 0; Round < 3; ++Round) {
      slowFill<<<1, 256, 0, S>>>(A, N, 20 + Round, 1000);
      CHECK(cudaMemcpyAsync(Pinned, A, N * 4, cudaMemcpyDeviceToHost, S));
      if (Round % 2)
        CHECK(cudaStreamAddCallback(S, streamCb, Log, 0));
      else
        CHECK(cudaLaunchHostFunc(S, hostFn, Log));
    }
    CHECK(cudaStreamSynchronize(S));
    std::printf("host functions/callbacks: %d ran, order %d %d %d, saw %d %d %d\n", Log->Count, Log->Order[0],
                Log->Order[1], Log->Order[2], Log->Seen[0], Log->Seen[1], Log->Seen[2]);
    Ok &= Log->Count == 3 && Log->Seen[0] == 20 && Log->Seen[1] == 21 && Log->Seen[2] == 22 &&
          Log->Order[1] == 101;
    delete Log;
    CHECK(cudaFreeHost(Pinned));
    CHECK(cudaStreamDestroy(S));
  }
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  return finish(Ok);
}
