/// \file
/// Graph memory nodes, as a pipeline with scratch buffers uses them: a
/// graph allocates its temporaries itself (alloc nodes, built by hand or
/// captured from cudaMallocAsync), uses them, and frees them (free nodes,
/// or cudaFreeAsync after the graph when the result outlives it). Checks
/// what CUDA promises: an allocation's address is the same at every
/// launch; a graph whose allocation is still unfreed cannot be launched
/// again unless instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch;
/// one instantiation at a time; the graph memory counters move as the
/// allocations are made and freed, and cudaDeviceGraphMemTrim gives the
/// unused memory back. Results are checked against the CPU.
#include "../common/app_util.h"
#include <vector>

// Out[i] = In[i] * In[i] (a stage that needs a temporary).
__global__ void square(const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I] * In[I];
}

// Acc[0] += sum of In (block-wide partial sums, one atomic per block).
__global__ void sumInto(const int *In, int N, int *Acc) {
  __shared__ int Part[128];
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  Part[threadIdx.x] = I < N ? In[I] : 0;
  __syncthreads();
  for (int S = blockDim.x / 2; S > 0; S /= 2) {
    if (threadIdx.x < S)
      Part[threadIdx.x] += Part[threadIdx.x + S];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(Acc, Part[0]);
}

constexpr int N = 5000, Block = 128, Grid = (N + Block - 1) / Block;
constexpr size_t Bytes = N * sizeof(int);

unsigned long long graphMem(cudaGraphMemAttributeType A) {
  unsigned long long V = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(0, A, &V));
  return V;
}

const char *yes(bool B) { return B ? "yes" : "no"; }

cudaGraphNode_t addKernel(cudaGraph_t G, void *Fn, void **Args, const cudaGraphNode_t *Deps, size_t NumDeps) {
  cudaKernelNodeParams K = {};
  K.func = Fn;
  K.gridDim = Grid;
  K.blockDim = Block;
  K.kernelParams = Args;
  cudaGraphNode_t Node;
  CHECK(cudaGraphAddKernelNode(&Node, G, Deps, NumDeps, &K));
  return Node;
}

int main() {
  std::vector<int> In(N);
  Lcg R(5);
  long long Want = 0;
  for (int &V : In) {
    V = int(R.below(200)) - 100;
    Want += V * V;
  }
  int *DIn, *Acc;
  CHECK(cudaMalloc(&DIn, Bytes));
  CHECK(cudaMalloc(&Acc, sizeof(int)));
  CHECK(cudaMemcpy(DIn, In.data(), Bytes, cudaMemcpyHostToDevice));
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  bool Ok = true;
  auto Result = [&](const char *What) {
    int Got;
    CHECK(cudaMemcpy(&Got, Acc, sizeof(int), cudaMemcpyDeviceToHost));
    bool Good = Got == Want;
    std::printf("%s: sum of squares %d (expected %lld)\n", What, Got, Want);
    Ok &= Good;
  };

  // 1. Built by hand: alloc -> square -> sum -> free.
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaMemAllocNodeParams AP = {};
  AP.poolProps.allocType = cudaMemAllocationTypePinned;
  AP.poolProps.location.type = cudaMemLocationTypeDevice;
  AP.poolProps.location.id = 0;
  AP.bytesize = Bytes;
  cudaGraphNode_t Alloc;
  CHECK(cudaGraphAddMemAllocNode(&Alloc, G, nullptr, 0, &AP));
  int *Tmp = static_cast<int *>(AP.dptr);
  int n = N;
  void *SqArgs[] = {&DIn, &Tmp, &n}, *SumArgs[] = {&Tmp, &n, &Acc};
  cudaGraphNode_t Sq = addKernel(G, (void *)square, SqArgs, &Alloc, 1);
  cudaGraphNode_t Sum = addKernel(G, (void *)sumInto, SumArgs, &Sq, 1);
  cudaGraphNode_t Free;
  CHECK(cudaGraphAddMemFreeNode(&Free, G, &Sum, 1, Tmp));
  cudaMemAllocNodeParams Got = {};
  CHECK(cudaGraphMemAllocNodeGetParams(Alloc, &Got));
  void *Freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(Free, &Freed));
  std::printf("alloc node: %zu bytes, free node frees it: %s\n", Got.bytesize, yes(Got.dptr == Tmp && Freed == Tmp));
  Ok &= Got.bytesize == Bytes && Got.dptr == Tmp && Freed == Tmp;

  cudaGraph_t Clone;
  cudaError_t E = cudaGraphClone(&Clone, G);
  std::printf("cloning a graph with memory nodes: %s\n", cudaGetErrorName(E));
  Ok &= E != cudaSuccess;
  (void)cudaGetLastError();

  cudaGraphExec_t X, Second;
  CHECK(cudaGraphInstantiate(&X, G, 0));
  E = cudaGraphInstantiate(&Second, G, 0);
  std::printf("second instantiation: %s\n", cudaGetErrorName(E));
  Ok &= E != cudaSuccess;
  (void)cudaGetLastError();
  for (int Launch = 0; Launch < 3; ++Launch) {
    CHECK(cudaMemsetAsync(Acc, 0, sizeof(int), S));
    CHECK(cudaGraphLaunch(X, S));
    CHECK(cudaStreamSynchronize(S));
    Result("built graph");
  }
  CHECK(cudaGraphMemAllocNodeGetParams(Alloc, &Got));
  std::printf("address the same after 3 launches: %s\n", yes(Got.dptr == Tmp));
  Ok &= Got.dptr == Tmp;
  unsigned long long Used = graphMem(cudaGraphMemAttrUsedMemCurrent);
  unsigned long long UsedHigh = graphMem(cudaGraphMemAttrUsedMemHigh);
  unsigned long long Reserved = graphMem(cudaGraphMemAttrReservedMemCurrent);
  std::printf("after the launches: used now <= reserved: %s, used high >= size: %s, reserved >= size: %s\n", yes(Used <= Reserved),
              yes(UsedHigh >= Bytes), yes(Reserved >= Bytes));
  // Not "used now 0": an H100 still counted the whole 32 MiB it had mapped
  // for the (freed) allocation as used until the memory was trimmed.
  Ok &= Used <= Reserved && UsedHigh >= Bytes && Reserved >= Bytes;
  CHECK(cudaGraphExecDestroy(X));
  CHECK(cudaGraphDestroy(G));
  CHECK(cudaDeviceGraphMemTrim(0));
  Reserved = graphMem(cudaGraphMemAttrReservedMemCurrent);
  std::printf("reserved after trim is 0: %s\n", yes(Reserved == 0));
  Ok &= Reserved == 0;
  unsigned long long Zero = 0;
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &Zero));
  std::printf("used high after reset is 0: %s\n", yes(graphMem(cudaGraphMemAttrUsedMemHigh) == 0));
  Ok &= graphMem(cudaGraphMemAttrUsedMemHigh) == 0;

  // 2. Captured, with the result buffer outliving the graph: the capture
  // allocates a temporary (freed in the graph) and an output (not freed).
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  int *CTmp, *COut;
  CHECK(cudaMallocAsync(&CTmp, Bytes, S));
  CHECK(cudaMallocAsync(&COut, sizeof(int), S));
  CHECK(cudaMemsetAsync(COut, 0, sizeof(int), S));
  square<<<Grid, Block, 0, S>>>(DIn, CTmp, N);
  sumInto<<<Grid, Block, 0, S>>>(CTmp, N, COut);
  CHECK(cudaFreeAsync(CTmp, S));
  cudaGraph_t CG;
  CHECK(cudaStreamEndCapture(S, &CG));
  size_t NumNodes = 0;
  CHECK(cudaGraphGetNodes(CG, nullptr, &NumNodes));
  std::vector<cudaGraphNode_t> Nodes(NumNodes);
  CHECK(cudaGraphGetNodes(CG, Nodes.data(), &NumNodes));
  int Allocs = 0, Frees = 0;
  for (cudaGraphNode_t Node : Nodes) {
    cudaGraphNodeType T;
    CHECK(cudaGraphNodeGetType(Node, &T));
    Allocs += T == cudaGraphNodeTypeMemAlloc;
    Frees += T == cudaGraphNodeTypeMemFree;
  }
  std::printf("captured graph: %zu nodes, %d alloc, %d free\n", NumNodes, Allocs, Frees);
  Ok &= Allocs == 2 && Frees == 1;

  cudaGraphExec_t CX;
  CHECK(cudaGraphInstantiate(&CX, CG, 0));
  CHECK(cudaGraphLaunch(CX, S));
  CHECK(cudaStreamSynchronize(S));
  int Out = 0;
  CHECK(cudaMemcpy(&Out, COut, sizeof(int), cudaMemcpyDeviceToHost)); // Still allocated.
  std::printf("captured graph: sum of squares %d (expected %lld)\n", Out, Want);
  Ok &= Out == Want;
  Used = graphMem(cudaGraphMemAttrUsedMemCurrent);
  std::printf("output still allocated after the launch: %s\n", yes(Used >= sizeof(int)));
  Ok &= Used >= sizeof(int);
  E = cudaGraphLaunch(CX, S);
  std::printf("relaunch with the output unfreed: %s\n", cudaGetErrorName(E));
  Ok &= E != cudaSuccess;
  (void)cudaGetLastError();
  CHECK(cudaFreeAsync(COut, S));
  CHECK(cudaGraphLaunch(CX, S)); // Freed in stream order: allowed again.
  CHECK(cudaMemcpyAsync(&Out, COut, sizeof(int), cudaMemcpyDeviceToHost, S));
  CHECK(cudaFreeAsync(COut, S));
  CHECK(cudaStreamSynchronize(S));
  std::printf("after freeing it, relaunch: sum of squares %d\n", Out);
  Ok &= Out == Want;
  CHECK(cudaGraphExecDestroy(CX));

  // 3. Auto free on launch: the output is freed before each relaunch.
  CHECK(cudaGraphInstantiateWithFlags(&CX, CG, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  for (int Launch = 0; Launch < 3; ++Launch) {
    CHECK(cudaGraphLaunch(CX, S));
    CHECK(cudaMemcpyAsync(&Out, COut, sizeof(int), cudaMemcpyDeviceToHost, S));
    CHECK(cudaStreamSynchronize(S));
    Ok &= Out == Want;
  }
  std::printf("auto free on launch: 3 launches, last sum %d\n", Out);
  CHECK(cudaFreeAsync(COut, S));
  CHECK(cudaStreamSynchronize(S));
  CHECK(cudaGraphExecDestroy(CX));
  CHECK(cudaGraphDestroy(CG));
  Used = graphMem(cudaGraphMemAttrUsedMemCurrent);
  unsigned long long ReservedEnd = graphMem(cudaGraphMemAttrReservedMemCurrent);
  std::printf("used at the end <= reserved: %s\n", yes(Used <= ReservedEnd));
  Ok &= Used <= ReservedEnd;

  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(Acc));
  return finish(Ok);
}
