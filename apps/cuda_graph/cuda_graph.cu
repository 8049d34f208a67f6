/// \file
/// CUDA graphs, both ways real code builds them: stream capture of a small
/// iterative solver step (kernels, a memset and a copy) replayed many times,
/// and a graph assembled by hand from kernel and memcpy nodes with edges.
#include "../common/app_util.h"
#include <vector>

__global__ void relax(const float *In, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    float L = I > 0 ? In[I - 1] : 0.f, R = I < N - 1 ? In[I + 1] : 0.f;
    Out[I] = 0.25f * L + 0.5f * In[I] + 0.25f * R;
  }
}

__global__ void sumInto(const float *In, float *Acc, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    atomicAdd(Acc, In[I]);
}

__global__ void scaleBy(int *P, int N, int F) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] *= F;
}

int main() {
  const int N = 4096, Steps = 20;
  std::vector<float> Init(N, 0.f);
  for (int I = N / 4; I < 3 * N / 4; ++I)
    Init[I] = 1.0f; // values stay multiples of 2^-k: sums are exact
  float *A, *B, *Acc;
  CHECK(cudaMalloc(&A, N * sizeof(float)));
  CHECK(cudaMalloc(&B, N * sizeof(float)));
  CHECK(cudaMalloc(&Acc, sizeof(float)));
  CHECK(cudaMemcpy(A, Init.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  // A pageable copy can return before its DMA lands, and S below does not
  // wait for the NULL stream: finish the copy first.
  CHECK(cudaDeviceSynchronize());
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  float *HostAcc;
  CHECK(cudaMallocHost(&HostAcc, sizeof(float)));

  // Capture one step of two relaxations (A->B->A) plus a mass measurement.
  cudaGraph_t G;
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus CS;
  CHECK(cudaStreamIsCapturing(S, &CS));
  relax<<<N / 256, 256, 0, S>>>(A, B, N);
  relax<<<N / 256, 256, 0, S>>>(B, A, N);
  CHECK(cudaMemsetAsync(Acc, 0, sizeof(float), S));
  sumInto<<<N / 256, 256, 0, S>>>(A, Acc, N);
  CHECK(cudaMemcpyAsync(HostAcc, Acc, sizeof(float), cudaMemcpyDeviceToHost, S));
  CHECK(cudaStreamEndCapture(S, &G));
  size_t NumNodes = 0;
  CHECK(cudaGraphGetNodes(G, nullptr, &NumNodes));
  std::printf("capturing status active: %s, captured nodes=%zu\n", CS == cudaStreamCaptureStatusActive ? "yes" : "no",
              NumNodes);
  cudaGraphExec_t Exec;
  CHECK(cudaGraphInstantiate(&Exec, G, 0));
  std::vector<float> Mass;
  for (int K = 0; K < Steps; ++K) {
    CHECK(cudaGraphLaunch(Exec, S));
    CHECK(cudaStreamSynchronize(S));
    Mass.push_back(*HostAcc);
  }
  std::vector<float> Got(N);
  CHECK(cudaMemcpy(Got.data(), A, N * sizeof(float), cudaMemcpyDeviceToHost));
  // CPU reference.
  std::vector<float> CA = Init, CB(N);
  int Bad = 0;
  for (int K = 0; K < Steps; ++K) {
    for (int Pass = 0; Pass < 2; ++Pass) {
      std::vector<float> &In = Pass ? CB : CA, &Out = Pass ? CA : CB;
      for (int I = 0; I < N; ++I)
        Out[I] = 0.25f * (I > 0 ? In[I - 1] : 0.f) + 0.5f * In[I] + 0.25f * (I < N - 1 ? In[I + 1] : 0.f);
    }
    double M = 0;
    for (int I = 0; I < N; ++I)
      M += CA[I];
    Bad += !closeTo(Mass[K], M, 1e-5, 1e-5);
  }
  for (int I = 0; I < N; ++I)
    Bad += !closeTo(Got[I], CA[I], 1e-5, 1e-6);
  std::printf("captured graph: steps=%d mass first=%.2f last=%.2f mismatches=%d\n", Steps, Mass[0],
              Mass[Steps - 1], Bad);

  // A hand-built graph: copy in -> scale by 3 and, in parallel, nothing else;
  // then scale by 5 -> copy out.
  const int M = 1000;
  int *In, *Out; // pinned: graph copy nodes are asynchronous
  CHECK(cudaMallocHost(&In, M * sizeof(int)));
  CHECK(cudaMallocHost(&Out, M * sizeof(int)));
  for (int I = 0; I < M; ++I) {
    In[I] = I - 500;
    Out[I] = 0;
  }
  int *D;
  CHECK(cudaMalloc(&D, M * sizeof(int)));
  cudaGraph_t H;
  CHECK(cudaGraphCreate(&H, 0));
  cudaGraphNode_t CopyIn, K3, K5, CopyOut;
  CHECK(cudaGraphAddMemcpyNode1D(&CopyIn, H, nullptr, 0, D, In, M * sizeof(int), cudaMemcpyHostToDevice));
  int NArg = M, F3 = 3, F5 = 5;
  void *Args3[] = {&D, &NArg, &F3}, *Args5[] = {&D, &NArg, &F5};
  cudaKernelNodeParams KP = {};
  KP.func = (void *)scaleBy;
  KP.gridDim = dim3((M + 127) / 128);
  KP.blockDim = dim3(128);
  KP.kernelParams = Args3;
  CHECK(cudaGraphAddKernelNode(&K3, H, &CopyIn, 1, &KP));
  KP.kernelParams = Args5;
  CHECK(cudaGraphAddKernelNode(&K5, H, &K3, 1, &KP));
  CHECK(cudaGraphAddMemcpyNode1D(&CopyOut, H, &K5, 1, Out, D, M * sizeof(int), cudaMemcpyDeviceToHost));
  cudaGraphExec_t HExec;
  CHECK(cudaGraphInstantiate(&HExec, H, 0));
  CHECK(cudaGraphLaunch(HExec, S));
  CHECK(cudaStreamSynchronize(S));
  int Bad2 = 0;
  for (int I = 0; I < M; ++I)
    Bad2 += Out[I] != (I - 500) * 15;
  size_t HNodes = 0;
  CHECK(cudaGraphGetNodes(H, nullptr, &HNodes));
  std::printf("built graph: nodes=%zu mismatches=%d\n", HNodes, Bad2);
  CHECK(cudaGraphExecDestroy(HExec));
  CHECK(cudaGraphDestroy(H));
  CHECK(cudaGraphExecDestroy(Exec));
  CHECK(cudaGraphDestroy(G));
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(D));
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFree(Acc));
  CHECK(cudaFreeHost(HostAcc));
  CHECK(cudaFreeHost(In));
  CHECK(cudaFreeHost(Out));
  return finish(Bad == 0 && Bad2 == 0);
}
