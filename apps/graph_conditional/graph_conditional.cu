/// \file
/// Conditional graph nodes, the way iterative GPU codes use them to keep
/// the control loop on the device: a kernel decides, through
/// cudaGraphSetConditional, whether a body graph runs (IF, with an else
/// body), how often (WHILE), or which one of several (SWITCH). Each kind
/// is built both ways programs build graphs: node by node with
/// cudaGraphAddNode, and by stream capture (a conditional node added to a
/// capturing stream's graph, its body captured with
/// cudaStreamBeginCaptureToGraph). Every result is checked against the
/// same computation on the CPU.
#include "../common/app_util.h"
#include <vector>

// Halves every element above Limit and counts those still above it.
__global__ void halveAbove(unsigned *Data, int N, unsigned Limit, unsigned *Remaining) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N && Data[I] > Limit) {
    Data[I] /= 2;
    if (Data[I] > Limit)
      atomicAdd(Remaining, 1u);
  }
}

// Loop control of the WHILE body: go on while anything is above the limit.
__global__ void keepGoing(cudaGraphConditionalHandle H, unsigned *Remaining, unsigned *Iterations) {
  cudaGraphSetConditional(H, *Remaining > 0 ? 1u : 0u);
  *Remaining = 0;
  ++*Iterations;
}

// IF condition: whether the sum of the data is even.
__global__ void sumIsEven(cudaGraphConditionalHandle H, const unsigned *Data, int N) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned S = 0;
    for (int I = 0; I < N; ++I)
      S += Data[I];
    cudaGraphSetConditional(H, S % 2 == 0);
  }
}

// SWITCH selector: Data[0] % 4 (bodies 0..2 exist; 3 runs none).
__global__ void pickCase(cudaGraphConditionalHandle H, const unsigned *Data) {
  if (threadIdx.x == 0)
    cudaGraphSetConditional(H, Data[0] % 4);
}

__global__ void affine(unsigned *Data, int N, unsigned Mul, unsigned Add) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] = Data[I] * Mul + Add;
}

constexpr int N = 1000, Block = 128, Grid = (N + Block - 1) / Block;
constexpr unsigned Limit = 1000;

cudaGraphNodeParams conditionalParams(cudaGraphConditionalHandle H, cudaGraphConditionalNodeType T, unsigned Size) {
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeConditional;
  P.conditional.handle = H;
  P.conditional.type = T;
  P.conditional.size = Size;
  return P;
}

cudaGraphNode_t addKernel(cudaGraph_t G, void *Fn, dim3 Grid, dim3 Blk, void **Args,
                          const cudaGraphNode_t *Deps, size_t NumDeps) {
  cudaKernelNodeParams K = {};
  K.func = Fn;
  K.gridDim = Grid;
  K.blockDim = Blk;
  K.kernelParams = Args;
  cudaGraphNode_t Node;
  CHECK(cudaGraphAddKernelNode(&Node, G, Deps, NumDeps, &K));
  return Node;
}

// CPU references.
unsigned halveLoop(std::vector<unsigned> &D) {
  unsigned Iter = 0;
  for (;;) {
    unsigned Remaining = 0;
    for (unsigned &V : D)
      if (V > Limit) {
        V /= 2;
        Remaining += V > Limit;
      }
    ++Iter;
    if (!Remaining)
      return Iter;
  }
}

void ifElse(std::vector<unsigned> &D) {
  unsigned S = 0;
  for (unsigned V : D)
    S += V;
  for (unsigned &V : D)
    V = S % 2 == 0 ? V * 3 + 1 : V + 5;
}

void switchCase(std::vector<unsigned> &D) {
  static const unsigned Mul[] = {2, 3, 5}, Add[] = {1, 0, 7};
  unsigned C = D[0] % 4;
  if (C < 3)
    for (unsigned &V : D)
      V = V * Mul[C] + Add[C];
}

std::vector<unsigned> input(uint64_t Seed, unsigned Max) {
  Lcg R(Seed);
  std::vector<unsigned> D(N);
  for (unsigned &V : D)
    V = R.below(Max);
  return D;
}

bool same(const char *What, const std::vector<unsigned> &Got, const std::vector<unsigned> &Want) {
  for (int I = 0; I < N; ++I)
    if (Got[I] != Want[I]) {
      std::printf("%s: element %d is %u, expected %u\n", What, I, Got[I], Want[I]);
      return false;
    }
  return true;
}

struct Buffers {
  unsigned *Data, *Remaining, *Iterations;
};

// WHILE: built node by node. The body halves and then decides.
bool whileBuilt(const Buffers &B, cudaStream_t S) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams P = conditionalParams(H, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t Loop;
  CHECK(cudaGraphAddNode(&Loop, G, nullptr, nullptr, 0, &P));
  cudaGraph_t Body = P.conditional.phGraph_out[0];
  int n = N;
  unsigned lim = Limit;
  void *HalveArgs[] = {(void *)&B.Data, &n, &lim, (void *)&B.Remaining};
  cudaGraphNode_t Halve = addKernel(Body, (void *)halveAbove, Grid, Block, HalveArgs, nullptr, 0);
  void *GoArgs[] = {&H, (void *)&B.Remaining, (void *)&B.Iterations};
  addKernel(Body, (void *)keepGoing, 1, 1, GoArgs, &Halve, 1);
  cudaGraphExec_t X;
  CHECK(cudaGraphInstantiate(&X, G, 0));
  bool Ok = true;
  // Two inputs through the same executable graph: the handle's default
  // value restarts the loop at each launch.
  for (int Round = 0; Round < 2; ++Round) {
    std::vector<unsigned> D = input(11 + Round, 1u << (20 + 4 * Round)), Got(N);
    CHECK(cudaMemcpy(B.Data, D.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(B.Remaining, 0, sizeof(unsigned)));
    CHECK(cudaMemset(B.Iterations, 0, sizeof(unsigned)));
    CHECK(cudaGraphLaunch(X, S));
    CHECK(cudaStreamSynchronize(S));
    unsigned Iter;
    CHECK(cudaMemcpy(Got.data(), B.Data, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&Iter, B.Iterations, sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned Want = halveLoop(D);
    std::printf("while (built), round %d: %u iterations (expected %u)\n", Round, Iter, Want);
    Ok &= Iter == Want && same("while (built)", Got, D);
  }
  CHECK(cudaGraphExecDestroy(X));
  CHECK(cudaGraphDestroy(G));
  return Ok;
}

// WHILE: captured. The conditional node joins the capture, and its body is
// captured from a second stream into the body graph.
bool whileCaptured(const Buffers &B, cudaStream_t S) {
  std::vector<unsigned> D = input(21, 1u << 22), Got(N);
  CHECK(cudaMemcpy(B.Data, D.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  cudaStream_t BodyStream;
  CHECK(cudaStreamCreateWithFlags(&BodyStream, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(B.Remaining, 0, sizeof(unsigned), S));
  CHECK(cudaMemsetAsync(B.Iterations, 0, sizeof(unsigned), S));
  cudaStreamCaptureStatus Status;
  cudaGraph_t G;
  const cudaGraphNode_t *Deps;
  size_t NumDeps;
  CHECK(cudaStreamGetCaptureInfo(S, &Status, nullptr, &G, &Deps, nullptr, &NumDeps));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams P = conditionalParams(H, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t Loop;
  CHECK(cudaGraphAddNode(&Loop, G, Deps, nullptr, NumDeps, &P));
  CHECK(cudaStreamUpdateCaptureDependencies(S, &Loop, nullptr, 1, cudaStreamSetCaptureDependencies));
  CHECK(cudaStreamBeginCaptureToGraph(BodyStream, P.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  halveAbove<<<Grid, Block, 0, BodyStream>>>(B.Data, N, Limit, B.Remaining);
  keepGoing<<<1, 1, 0, BodyStream>>>(H, B.Remaining, B.Iterations);
  cudaGraph_t Same; // The body graph itself.
  CHECK(cudaStreamEndCapture(BodyStream, &Same));
  affine<<<Grid, Block, 0, S>>>(B.Data, N, 1, 100); // After the loop.
  cudaGraph_t Captured;
  CHECK(cudaStreamEndCapture(S, &Captured));
  cudaGraphExec_t X;
  CHECK(cudaGraphInstantiate(&X, Captured, 0));
  CHECK(cudaGraphLaunch(X, S));
  CHECK(cudaStreamSynchronize(S));
  unsigned Iter;
  CHECK(cudaMemcpy(Got.data(), B.Data, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&Iter, B.Iterations, sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned Want = halveLoop(D);
  for (unsigned &V : D)
    V += 100;
  std::printf("while (captured): %u iterations (expected %u)\n", Iter, Want);
  bool Ok = Iter == Want && same("while (captured)", Got, D);
  CHECK(cudaGraphExecDestroy(X));
  CHECK(cudaGraphDestroy(Captured));
  CHECK(cudaStreamDestroy(BodyStream));
  return Ok;
}

// IF with an else body, built node by node.
bool ifBuilt(const Buffers &B, cudaStream_t S) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 0, 0));
  int n = N;
  void *DecideArgs[] = {&H, (void *)&B.Data, &n};
  cudaGraphNode_t Decide = addKernel(G, (void *)sumIsEven, 1, 32, DecideArgs, nullptr, 0);
  cudaGraphNodeParams P = conditionalParams(H, cudaGraphCondTypeIf, 2);
  cudaGraphNode_t If;
  CHECK(cudaGraphAddNode(&If, G, &Decide, nullptr, 1, &P));
  unsigned Mul0 = 3, Add0 = 1, Mul1 = 1, Add1 = 5;
  void *ThenArgs[] = {(void *)&B.Data, &n, &Mul0, &Add0}, *ElseArgs[] = {(void *)&B.Data, &n, &Mul1, &Add1};
  addKernel(P.conditional.phGraph_out[0], (void *)affine, Grid, Block, ThenArgs, nullptr, 0);
  addKernel(P.conditional.phGraph_out[1], (void *)affine, Grid, Block, ElseArgs, nullptr, 0);
  cudaGraphExec_t X;
  CHECK(cudaGraphInstantiate(&X, G, 0));
  bool Ok = true;
  int Taken[2] = {0, 0};
  for (int Round = 0; Round < 6; ++Round) {
    std::vector<unsigned> D = input(31 + Round, 1000), Got(N);
    CHECK(cudaMemcpy(B.Data, D.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(X, S));
    CHECK(cudaStreamSynchronize(S));
    CHECK(cudaMemcpy(Got.data(), B.Data, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned Sum = 0;
    for (unsigned V : D)
      Sum += V;
    ++Taken[Sum % 2];
    ifElse(D);
    Ok &= same("if/else", Got, D);
  }
  std::printf("if/else (built): then taken %d times, else %d times\n", Taken[0], Taken[1]);
  CHECK(cudaGraphExecDestroy(X));
  CHECK(cudaGraphDestroy(G));
  return Ok;
}

// SWITCH with three bodies, each captured into its body graph.
bool switchCaptured(const Buffers &B, cudaStream_t S) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 0, 0));
  void *PickArgs[] = {&H, (void *)&B.Data};
  cudaGraphNode_t Pick = addKernel(G, (void *)pickCase, 1, 32, PickArgs, nullptr, 0);
  cudaGraphNodeParams P = conditionalParams(H, cudaGraphCondTypeSwitch, 3);
  cudaGraphNode_t Switch;
  CHECK(cudaGraphAddNode(&Switch, G, &Pick, nullptr, 1, &P));
  static const unsigned Mul[] = {2, 3, 5}, Add[] = {1, 0, 7};
  for (int C = 0; C < 3; ++C) {
    CHECK(cudaStreamBeginCaptureToGraph(S, P.conditional.phGraph_out[C], nullptr, nullptr, 0,
                                        cudaStreamCaptureModeGlobal));
    affine<<<Grid, Block, 0, S>>>(B.Data, N, Mul[C], Add[C]);
    cudaGraph_t Same;
    CHECK(cudaStreamEndCapture(S, &Same));
  }
  cudaGraphExec_t X;
  CHECK(cudaGraphInstantiate(&X, G, 0));
  bool Ok = true;
  int Seen[4] = {0, 0, 0, 0};
  for (int Round = 0; Round < 8; ++Round) {
    std::vector<unsigned> D = input(41 + Round, 1000), Got(N);
    D[0] = unsigned(Round); // Every case, "no body" included, twice.
    CHECK(cudaMemcpy(B.Data, D.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(X, S));
    CHECK(cudaStreamSynchronize(S));
    CHECK(cudaMemcpy(Got.data(), B.Data, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    ++Seen[D[0] % 4];
    switchCase(D);
    Ok &= same("switch", Got, D);
  }
  std::printf("switch (captured bodies): cases 0/1/2/none seen %d/%d/%d/%d times\n", Seen[0], Seen[1], Seen[2],
              Seen[3]);
  CHECK(cudaGraphExecDestroy(X));
  CHECK(cudaGraphDestroy(G));
  return Ok;
}

int main() {
  Buffers B;
  CHECK(cudaMalloc(&B.Data, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&B.Remaining, sizeof(unsigned)));
  CHECK(cudaMalloc(&B.Iterations, sizeof(unsigned)));
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  bool Ok = whileBuilt(B, S);
  Ok &= whileCaptured(B, S);
  Ok &= ifBuilt(B, S);
  Ok &= switchCaptured(B, S);
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(B.Data));
  CHECK(cudaFree(B.Remaining));
  CHECK(cudaFree(B.Iterations));
  return finish(Ok);
}
