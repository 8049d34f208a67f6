// Device-side launches and device runtime calls for tests/host/CdpTest.cpp.
// cdp_kernels.ptx is this file compiled by nvcc 13 (regenerate with
//   nvcc -rdc=true -arch=sm_80 -ptx cdp_kernels.cu -o cdp_kernels.ptx
// ); the test reads the PTX, so it needs no nvcc.
#include <cuda_runtime.h>

// Appends Tag to Log (Log[0] counts the entries).
__global__ void record(unsigned *Log, unsigned Tag) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    Log[1 + atomicAdd(&Log[0], 1u)] = Tag;
}

// Tail launch first, then the block's NULL stream, a device stream, and
// fire-and-forget; the parent logs itself last of all its own work.
extern "C" __global__ void order(unsigned *Log) {
  if (threadIdx.x != 0)
    return;
  record<<<1, 32, 0, cudaStreamTailLaunch>>>(Log, 100);
  record<<<1, 32>>>(Log, 1);
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  record<<<2, 64, 0, S>>>(Log, 2);
  cudaStreamDestroy(S);
  record<<<1, 32, 0, cudaStreamFireAndForget>>>(Log, 3);
  Log[1 + atomicAdd(&Log[0], 1u)] = 0;
}

// Each level logs its depth and launches the next; Err[Depth] is the
// launch's result as the launching thread saw it.
extern "C" __global__ void nest(unsigned *Log, int *Err, int Depth) {
  Log[1 + atomicAdd(&Log[0], 1u)] = Depth;
  nest<<<1, 1>>>(Log, Err, Depth + 1);
  Err[Depth] = cudaGetLastError();
}

// Launch results and last errors of calls that must fail, in Out:
// [0] bad stream launch, [1] last error, [2] last error again,
// [3] a block too large (last error), [4] stream destroyed twice,
// [5] unsupported call, [6] event record, [7] wait event,
// [8] device malloc + free, [9] peek after a failure, [10] get after peek.
extern "C" __global__ void errors(unsigned *Log, int *Out) {
  Out[0] = -1;
  record<<<1, 1, 0, (cudaStream_t)0x1234>>>(Log, 7);
  Out[0] = cudaPeekAtLastError();
  Out[1] = cudaGetLastError();
  Out[2] = cudaGetLastError();
  record<<<1, 2048>>>(Log, 8);
  Out[3] = cudaGetLastError();
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  cudaStreamDestroy(S);
  Out[4] = cudaStreamDestroy(S);
  int V = 0;
  Out[5] = cudaRuntimeGetVersion(&V);
  cudaGetLastError();
  cudaEvent_t E;
  cudaEventCreateWithFlags(&E, cudaEventDisableTiming);
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  Out[6] = cudaEventRecord(E, S);
  Out[7] = cudaStreamWaitEvent(0, E, 0);
  cudaEventDestroy(E);
  cudaStreamDestroy(S);
  void *P = nullptr;
  Out[8] = cudaMalloc(&P, 100) == cudaSuccess && P && cudaFree(P) == cudaSuccess ? 0 : 1;
  cudaStreamDestroy(S);
  Out[9] = cudaPeekAtLastError();
  Out[10] = cudaGetLastError();
}

// Every thread launches one child: more than a small pending-launch limit.
extern "C" __global__ void fan(unsigned *Log, int *Out) {
  record<<<1, 1>>>(Log, threadIdx.x);
  Out[threadIdx.x] = cudaGetLastError();
}

// Device-side memset and memcpy are ordered with the launches of the
// block's stream.
extern "C" __global__ void copies(unsigned *Log, unsigned *Dst) {
  if (threadIdx.x != 0)
    return;
  record<<<1, 1>>>(Log, 5);
  cudaMemsetAsync(Dst, 0xab, 16, 0);
  cudaMemcpyAsync(Dst + 4, Log, 8, cudaMemcpyDeviceToDevice, 0);
}
