/// \file
/// cuFFT plans bound to streams (cufftSetStream), as pipelines overlap
/// transfers and transforms: four non-blocking streams, each with its own
/// plan, copy a chunk of pinned input up, transform it, and copy the
/// spectrum back, all asynchronously; then one plan moved between two
/// streams (re-bound with cufftSetStream between executions) with an event
/// ordering the second stream after the first. Checked against a CPU DFT
/// of each chunk.
#include "../common/fft_util.h"

int main() {
  const int Streams = 4, N = 2048, Batch = 4, Chunk = N * Batch;
  cufftComplex *HostIn, *HostOut;
  CHECK(cudaMallocHost(&HostIn, sizeof(cufftComplex) * Chunk * Streams));
  CHECK(cudaMallocHost(&HostOut, sizeof(cufftComplex) * Chunk * Streams));
  for (int I = 0; I < Chunk * Streams; ++I)
    HostIn[I] = make_cuFloatComplex((float)signal(I, 71), (float)signal(I, 72));
  cudaStream_t S[Streams];
  cufftHandle Plans[Streams];
  cufftComplex *Dev[Streams];
  for (int K = 0; K < Streams; ++K) {
    CHECK(cudaStreamCreateWithFlags(&S[K], cudaStreamNonBlocking));
    CUFFT_CHECK(cufftPlan1d(&Plans[K], N, CUFFT_C2C, Batch));
    CUFFT_CHECK(cufftSetStream(Plans[K], S[K]));
    CHECK(cudaMalloc(&Dev[K], sizeof(cufftComplex) * Chunk));
  }
  for (int K = 0; K < Streams; ++K) {
    CHECK(cudaMemcpyAsync(Dev[K], HostIn + (size_t)K * Chunk, sizeof(cufftComplex) * Chunk, cudaMemcpyHostToDevice,
                          S[K]));
    CUFFT_CHECK(cufftExecC2C(Plans[K], Dev[K], Dev[K], K % 2 ? CUFFT_INVERSE : CUFFT_FORWARD));
    CHECK(cudaMemcpyAsync(HostOut + (size_t)K * Chunk, Dev[K], sizeof(cufftComplex) * Chunk, cudaMemcpyDeviceToHost,
                          S[K]));
  }
  for (int K = 0; K < Streams; ++K)
    CHECK(cudaStreamSynchronize(S[K]));
  bool Ok = true;
  for (int K = 0; K < Streams; ++K) {
    double Err = 0, Sum = 0;
    for (int B = 0; B < Batch; ++B) {
      size_t Base = (size_t)K * Chunk + (size_t)B * N;
      std::vector<Cd> X(N);
      for (int I = 0; I < N; ++I)
        X[I] = Cd(HostIn[Base + I].x, HostIn[Base + I].y);
      std::vector<cufftComplex> G(HostOut + Base, HostOut + Base + N);
      Err = std::max(Err, relError(G, refDft(X, {N}, K % 2 ? 1 : -1)));
      Sum += sumAbsComplex(G);
    }
    char Name[32];
    std::snprintf(Name, sizeof Name, "stream %d", K);
    report(Name, Err < 1e-5, Sum);
  }
  // One plan, two streams: forward on S[0], inverse on S[1] after an event.
  cudaEvent_t Done;
  CHECK(cudaEventCreateWithFlags(&Done, cudaEventDisableTiming));
  CHECK(cudaMemcpy(Dev[0], HostIn, sizeof(cufftComplex) * Chunk, cudaMemcpyHostToDevice));
  CUFFT_CHECK(cufftSetStream(Plans[0], S[0]));
  CUFFT_CHECK(cufftExecC2C(Plans[0], Dev[0], Dev[0], CUFFT_FORWARD));
  CHECK(cudaEventRecord(Done, S[0]));
  CHECK(cudaStreamWaitEvent(S[1], Done, 0));
  CUFFT_CHECK(cufftSetStream(Plans[0], S[1]));
  CUFFT_CHECK(cufftExecC2C(Plans[0], Dev[0], Dev[0], CUFFT_INVERSE));
  CHECK(cudaMemcpyAsync(HostOut, Dev[0], sizeof(cufftComplex) * Chunk, cudaMemcpyDeviceToHost, S[1]));
  CHECK(cudaStreamSynchronize(S[1]));
  double Max = 0, Sum = 0;
  for (int I = 0; I < Chunk; ++I) {
    Cd Back(HostOut[I].x / N, HostOut[I].y / N);
    Max = std::max(Max, std::abs(Back - Cd(HostIn[I].x, HostIn[I].y)));
    Sum += std::abs(Back);
  }
  report("rebound plan", Max < 1e-5, Sum);
  CHECK(cudaEventDestroy(Done));
  for (int K = 0; K < Streams; ++K) {
    CUFFT_CHECK(cufftDestroy(Plans[K]));
    CHECK(cudaStreamDestroy(S[K]));
    CHECK(cudaFree(Dev[K]));
  }
  CHECK(cudaFreeHost(HostIn));
  CHECK(cudaFreeHost(HostOut));
  return finish(Ok && Failures == 0);
}
