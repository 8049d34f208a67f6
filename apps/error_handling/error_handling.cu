/// \file
/// A program that makes mistakes on purpose and keeps going: bad device
/// ordinals, impossible allocations, null and freed pointers, bad copy kinds,
/// invalid launch configurations, unrecorded events, a host function passed
/// as a kernel, a host variable passed as a symbol. It prints the error name
/// each call returns (the golden is what NVIDIA's stack says), checks that
/// none of these errors is sticky, and finishes with a correct kernel.
#include "../common/app_util.h"

__global__ void fill(int *P, int N, int V) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = V + I;
}

static void notAKernel() {}
static int HostVariable;
static int Errors = 0;

static void report(const char *What, cudaError_t E) {
  std::printf("%-40s %s\n", What, cudaGetErrorName(E));
  if (E != cudaSuccess)
    ++Errors;
  // Clear the non-sticky error so the next call starts clean.
  cudaGetLastError();
}

int main() {
  int Count = 0;
  CHECK(cudaGetDeviceCount(&Count));
  report("cudaSetDevice(count)", cudaSetDevice(Count));
  report("cudaSetDevice(-1)", cudaSetDevice(-1));
  cudaDeviceProp Prop;
  report("cudaGetDeviceProperties(99)", cudaGetDeviceProperties(&Prop, 99));
  int Value = 0;
  report("cudaDeviceGetAttribute(bad attr)", cudaDeviceGetAttribute(&Value, (cudaDeviceAttr)99999, 0));

  void *P = nullptr;
  report("cudaMalloc(1 PiB)", cudaMalloc(&P, size_t(1) << 50));
  report("cudaMalloc(0 bytes)", cudaMalloc(&P, 0));
  std::printf("%-40s %s\n", "  pointer from 0-byte malloc is null", P == nullptr ? "yes" : "no");
  report("cudaMalloc(null out-pointer)", cudaMalloc(nullptr, 16));
  report("cudaFree(nullptr)", cudaFree(nullptr));
  int *D;
  CHECK(cudaMalloc(&D, 1024 * sizeof(int)));
  int Host[16] = {};
  report("cudaMemcpy D2H from nullptr", cudaMemcpy(Host, nullptr, 16, cudaMemcpyDeviceToHost));
  report("cudaMemcpy H2D to nullptr", cudaMemcpy(nullptr, Host, 16, cudaMemcpyHostToDevice));
  report("cudaMemcpy 0 bytes", cudaMemcpy(Host, D, 0, cudaMemcpyDeviceToHost));
  report("cudaMemcpy bad kind", cudaMemcpy(Host, D, 16, (cudaMemcpyKind)42));
  report("cudaMemset 0 bytes", cudaMemset(D, 0, 0));
  report("cudaMemset nullptr", cudaMemset(nullptr, 0, 16));
  int *Freed;
  CHECK(cudaMalloc(&Freed, 64));
  CHECK(cudaFree(Freed));
  report("cudaFree twice", cudaFree(Freed));
  report("cudaFreeHost(device pointer)", cudaFreeHost(D));
  report("cudaHostGetDevicePointer(unpinned)", cudaHostGetDevicePointer((void **)&P, Host, 0));
  report("cudaMemcpyToSymbol(host variable)", cudaMemcpyToSymbol(HostVariable, Host, sizeof(int)));

  fill<<<1, 2048>>>(D, 1024, 0);
  report("launch 2048 threads per block", cudaGetLastError());
  fill<<<0, 128>>>(D, 1024, 0);
  report("launch 0 blocks", cudaGetLastError());
  fill<<<dim3(1, 1, 70000), 32>>>(D, 1024, 0);
  report("launch gridDim.z=70000", cudaGetLastError());
  fill<<<1, dim3(32, 32, 2)>>>(D, 1024, 0);
  report("launch block 32x32x2", cudaGetLastError());
  fill<<<1, 32, size_t(1) << 30>>>(D, 1024, 0);
  report("launch 1 GiB dynamic shared", cudaGetLastError());
  fill<<<1, 32>>>(D, 1024, 0);
  report("peek after a good launch", cudaPeekAtLastError());

  cudaFuncAttributes FA;
  report("cudaFuncGetAttributes(host function)", cudaFuncGetAttributes(&FA, (const void *)notAKernel));
  report("cudaLaunchKernel(host function)",
         cudaLaunchKernel((const void *)notAKernel, dim3(1), dim3(1), nullptr, 0, nullptr));

  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  CHECK(cudaEventRecord(A));
  CHECK(cudaEventSynchronize(A));
  float Ms;
  report("cudaEventElapsedTime(unrecorded end)", cudaEventElapsedTime(&Ms, A, B));
  cudaEvent_t NoTiming;
  CHECK(cudaEventCreateWithFlags(&NoTiming, cudaEventDisableTiming));
  CHECK(cudaEventRecord(NoTiming));
  CHECK(cudaEventSynchronize(NoTiming));
  report("cudaEventElapsedTime(timing disabled)", cudaEventElapsedTime(&Ms, A, NoTiming));
  report("cudaEventQuery(never recorded)", cudaEventQuery(B));
  report("cudaStreamCreateWithFlags(bad flags)", cudaStreamCreateWithFlags(nullptr, 0));
  report("cudaDeviceSetLimit(bad limit)", cudaDeviceSetLimit((cudaLimit)77, 1));

  std::printf("%-40s \"%s\"\n", "string for cudaErrorInvalidValue", cudaGetErrorString(cudaErrorInvalidValue));
  std::printf("%-40s \"%s\"\n", "string for cudaErrorMemoryAllocation", cudaGetErrorString(cudaErrorMemoryAllocation));
  std::printf("%-40s %s\n", "name for code 9999", cudaGetErrorName((cudaError_t)9999));

  // None of the above is sticky: real work still runs.
  fill<<<4, 256>>>(D, 1024, 100);
  CHECK(cudaGetLastError());
  int Back[1024];
  CHECK(cudaMemcpy(Back, D, sizeof(Back), cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (int I = 0; I < 1024; ++I)
    Bad += Back[I] != 100 + I;
  std::printf("errors reported=%d, final kernel mismatches=%d\n", Errors, Bad);
  CHECK(cudaEventDestroy(A));
  CHECK(cudaEventDestroy(B));
  CHECK(cudaEventDestroy(NoTiming));
  CHECK(cudaFree(D));
  return finish(Bad == 0 && Errors > 10);
}
