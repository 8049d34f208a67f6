// End-to-end: CUDA graphs through the runtime API, built with nvcc and run
// with NVIDIA's static cudart and with ferry's libcudart, both over ferry's
// libcuda. Stream capture forking onto a second stream and joining back,
// kernel node parameters round-tripping through the host stub, exec-level
// parameter changes and whole-graph updates, host nodes, the errors of
// illegal calls during capture, a WHILE conditional node whose kernel calls
// cudaGraphSetConditional, and graph memory nodes with their counters.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static int Failures = 0;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                  \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)
#define CHECK_CUDA(call) CHECK_IS(call, cudaSuccess)
#define CHECK_IS(call, want)                                                                       \
  do {                                                                                             \
    cudaError_t E_ = (call);                                                                       \
    if (E_ != (want)) {                                                                            \
      std::printf("FAIL %s:%d: %s -> %s, want %s\n", __FILE__, __LINE__, #call,                    \
                  cudaGetErrorName(E_), cudaGetErrorName(want));                                   \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)

__global__ void affine(int *P, int N, int Mul, int Add) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = P[I] * Mul + Add;
}

static void CUDART_CB bump(void *P) { ++*static_cast<int *>(P); }

// One WHILE iteration: P[0] counts down, P[1] counts iterations.
__global__ void countdown(cudaGraphConditionalHandle C, int *P) {
  ++P[1];
  cudaGraphSetConditional(C, --P[0] > 0);
}

// A WHILE node built with cudaGraphAddNode, and an alloc/free pair.
static void conditionalAndMemoryNodes(int *D, int *H, cudaStream_t S) {
  cudaGraph_t G;
  CHECK_CUDA(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle C = 0;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&C, G, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeConditional;
  P.conditional.handle = C;
  P.conditional.type = cudaGraphCondTypeWhile;
  P.conditional.size = 1;
  cudaGraphNode_t Loop;
  CHECK_CUDA(cudaGraphAddNode(&Loop, G, nullptr, nullptr, 0, &P));
  cudaKernelNodeParams K = {};
  void *Args[] = {&C, &D};
  K.func = (void *)countdown;
  K.gridDim = K.blockDim = dim3(1);
  K.kernelParams = Args;
  cudaGraphNode_t Body;
  CHECK_CUDA(cudaGraphAddKernelNode(&Body, P.conditional.phGraph_out[0], nullptr, 0, &K));
  // Memory nodes after the loop: scratch <- D[0..1], D[2..3] <- scratch.
  cudaMemAllocNodeParams A = {};
  A.poolProps.allocType = cudaMemAllocationTypePinned;
  A.poolProps.location = {cudaMemLocationTypeDevice, 0};
  A.bytesize = 64;
  cudaGraphNode_t Alloc, In, Out, Free;
  CHECK_CUDA(cudaGraphAddMemAllocNode(&Alloc, G, &Loop, 1, &A));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&In, G, &Alloc, 1, A.dptr, D, 8, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&Out, G, &In, 1, D + 2, A.dptr, 8, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaGraphAddMemFreeNode(&Free, G, &Out, 1, A.dptr));
  void *Freed = nullptr;
  CHECK_CUDA(cudaGraphMemFreeNodeGetParams(Free, &Freed));
  CHECK(Freed == A.dptr);
  cudaGraphExec_t X;
  CHECK_CUDA(cudaGraphInstantiate(&X, G, 0));
  int Init[4] = {6, 0, -1, -1};
  CHECK_CUDA(cudaMemcpy(D, Init, sizeof(Init), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphLaunch(X, S));
  CHECK_CUDA(cudaMemcpyAsync(H, D, sizeof(Init), cudaMemcpyDeviceToHost, S));
  CHECK_CUDA(cudaStreamSynchronize(S));
  CHECK(H[0] == 0 && H[1] == 6 && H[2] == 0 && H[3] == 6);
  unsigned long long Used = 1, High = 0;
  CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &Used));
  CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &High));
  CHECK(Used == 0 && High >= 64);
  CHECK_CUDA(cudaGraphExecDestroy(X));
  CHECK_CUDA(cudaGraphDestroy(G));
  CHECK_CUDA(cudaDeviceGraphMemTrim(0));
}

int main() {
  const int N = 1000;
  int *D, *H;
  CHECK_CUDA(cudaMalloc(&D, N * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&H, N * sizeof(int)));
  cudaStream_t S1, S2;
  CHECK_CUDA(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
  cudaEvent_t Fork, Join;
  CHECK_CUDA(cudaEventCreateWithFlags(&Fork, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&Join, cudaEventDisableTiming));
  int HostRuns = 0;

  // Capture: memset -> (S1: x2+1) and (S2: host node) -> join -> copy out.
  cudaGraph_t G;
  CHECK_CUDA(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemsetAsync(D, 0, N * sizeof(int), S1));
  CHECK_CUDA(cudaEventRecord(Fork, S1));
  CHECK_CUDA(cudaStreamWaitEvent(S2, Fork, 0));
  cudaStreamCaptureStatus St = cudaStreamCaptureStatusNone;
  CHECK_CUDA(cudaStreamIsCapturing(S2, &St));
  CHECK(St == cudaStreamCaptureStatusActive);
  CHECK_CUDA(cudaLaunchHostFunc(S2, bump, &HostRuns));
  affine<<<(N + 127) / 128, 128, 0, S1>>>(D, N, 2, 1);
  CHECK_CUDA(cudaEventRecord(Join, S2));
  CHECK_CUDA(cudaStreamWaitEvent(S1, Join, 0));
  CHECK_CUDA(cudaMemcpyAsync(H, D, N * sizeof(int), cudaMemcpyDeviceToHost, S1));
  unsigned long long Id = 0;
  cudaGraph_t During = nullptr;
  const cudaGraphNode_t *Deps = nullptr;
  size_t NumDeps = 0;
  CHECK_CUDA(cudaStreamGetCaptureInfo(S1, &St, &Id, &During, &Deps, nullptr, &NumDeps));
  CHECK(NumDeps == 1);
  CHECK_CUDA(cudaStreamEndCapture(S1, &G));
  CHECK(G == During);
  CHECK(HostRuns == 0);
  size_t Num = 0;
  CHECK_CUDA(cudaGraphGetNodes(G, nullptr, &Num));
  CHECK(Num == 4);
  std::vector<cudaGraphNode_t> Nodes(Num);
  CHECK_CUDA(cudaGraphGetNodes(G, Nodes.data(), &Num));
  cudaGraphNode_t Kernel = nullptr;
  for (cudaGraphNode_t X : Nodes) {
    cudaGraphNodeType T;
    CHECK_CUDA(cudaGraphNodeGetType(X, &T));
    if (T == cudaGraphNodeTypeKernel)
      Kernel = X;
  }
  CHECK(Kernel != nullptr);
  cudaKernelNodeParams KP = {};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(Kernel, &KP));
  CHECK(KP.func == (void *)affine);
  CHECK(KP.blockDim.x == 128);
  CHECK(KP.kernelParams && *static_cast<int *>(KP.kernelParams[2]) == 2);

  cudaGraphExec_t X;
  CHECK_CUDA(cudaGraphInstantiate(&X, G, 0));
  for (int R = 0; R < 2; ++R) {
    CHECK_CUDA(cudaGraphLaunch(X, S2));
    CHECK_CUDA(cudaStreamSynchronize(S2));
  }
  CHECK(H[0] == 1 && H[N - 1] == 1);
  CHECK(HostRuns == 2);

  // Exec-level change (x5+3) through the parameters read back.
  int Mul = 5, Add = 3, Count = N;
  void *Args[] = {&D, &Count, &Mul, &Add};
  KP.kernelParams = Args;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(X, Kernel, &KP));
  CHECK_CUDA(cudaGraphLaunch(X, S1));
  CHECK_CUDA(cudaStreamSynchronize(S1));
  CHECK(H[10] == 3);
  // Whole-graph update from the unchanged graph restores x2+1.
  cudaGraphExecUpdateResultInfo Info;
  CHECK_CUDA(cudaGraphExecUpdate(X, G, &Info));
  CHECK(Info.result == cudaGraphExecUpdateSuccess);
  CHECK_CUDA(cudaGraphLaunch(X, S1));
  CHECK_CUDA(cudaStreamSynchronize(S1));
  CHECK(H[10] == 1);

  // A hand-built graph with a kernel node named by its host stub.
  cudaGraph_t B;
  CHECK_CUDA(cudaGraphCreate(&B, 0));
  cudaGraphNode_t K1, K2, HN;
  cudaKernelNodeParams P = {};
  P.func = (void *)affine;
  P.gridDim = dim3((N + 127) / 128);
  P.blockDim = dim3(128);
  int Mul3 = 3, Add0 = 0;
  void *Args3[] = {&D, &Count, &Mul3, &Add0};
  P.kernelParams = Args3;
  CHECK_CUDA(cudaGraphAddKernelNode(&K1, B, nullptr, 0, &P));
  cudaGraphNodeParams GP = {}; // The CUDA 12.2 generic form.
  GP.type = cudaGraphNodeTypeKernel;
  GP.kernel.func = P.func;
  GP.kernel.gridDim = P.gridDim;
  GP.kernel.blockDim = P.blockDim;
  GP.kernel.kernelParams = Args3;
  CHECK_CUDA(cudaGraphAddNode(&K2, B, &K1, nullptr, 1, &GP));
  cudaHostNodeParams HP = {bump, &HostRuns};
  CHECK_CUDA(cudaGraphAddHostNode(&HN, B, &K2, 1, &HP));
  cudaGraphExec_t BX;
  CHECK_CUDA(cudaGraphInstantiate(&BX, B, 0));
  CHECK_CUDA(cudaMemset(D, 0, N * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(D, H, sizeof(int), cudaMemcpyHostToDevice)); // D[0] = 1
  CHECK_CUDA(cudaGraphLaunch(BX, 0));
  CHECK_CUDA(cudaStreamSynchronize(0));
  int First = 0;
  CHECK_CUDA(cudaMemcpy(&First, D, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(First == 9);
  CHECK(HostRuns == 5);

  // Illegal during capture: synchronizing the capturing stream, and a
  // synchronous copy in global mode; both invalidate the capture.
  cudaGraph_t Bad = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  CHECK_IS(cudaStreamSynchronize(S1), cudaErrorStreamCaptureUnsupported);
  CHECK_IS(cudaStreamEndCapture(S1, &Bad), cudaErrorStreamCaptureInvalidated);
  CHECK(Bad == nullptr);
  CHECK_CUDA(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  CHECK_IS(cudaMemcpy(H, D, 4, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureUnsupported);
  CHECK_IS(cudaStreamEndCapture(S1, &Bad), cudaErrorStreamCaptureInvalidated);
  // An unjoined fork.
  CHECK_CUDA(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaEventRecord(Fork, S1));
  CHECK_CUDA(cudaStreamWaitEvent(S2, Fork, 0));
  affine<<<1, 32, 0, S2>>>(D, 1, 1, 1);
  CHECK_IS(cudaStreamEndCapture(S1, &Bad), cudaErrorStreamCaptureUnjoined);
  CHECK_CUDA(cudaStreamIsCapturing(S2, &St));
  CHECK(St == cudaStreamCaptureStatusNone);
  cudaGetLastError();

  CHECK_CUDA(cudaGraphExecDestroy(BX));
  CHECK_CUDA(cudaGraphDestroy(B));
  conditionalAndMemoryNodes(D, H, S1);
  CHECK_CUDA(cudaGraphExecDestroy(X));
  CHECK_CUDA(cudaGraphDestroy(G));
  CHECK_CUDA(cudaEventDestroy(Fork));
  CHECK_CUDA(cudaEventDestroy(Join));
  CHECK_CUDA(cudaStreamDestroy(S1));
  CHECK_CUDA(cudaStreamDestroy(S2));
  CHECK_CUDA(cudaFreeHost(H));
  CHECK_CUDA(cudaFree(D));
  std::printf("RuntimeGraphs: %s (%d failures)\n", Failures ? "FAILED" : "PASS", Failures);
  return Failures ? 1 : 0;
}
