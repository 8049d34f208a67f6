/// \file
/// Graph memory nodes and conditional nodes through libcuda.so.1's C ABI,
/// run on the host backend: alloc/free nodes (built and captured), the
/// rules CUDA sets for graphs holding them and the graph memory counters;
/// IF (with an else body), WHILE and SWITCH nodes whose handles are set by
/// kernels calling the device runtime's cudaGraphSetConditional.
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

// cudaGraphSetConditional is an extern function of the device runtime in
// nvcc's PTX, with or without -rdc; ferry supplies it.
const char *CondPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func cudaGraphSetConditional
(
  .param .b64 cudaGraphSetConditional_param_0,
  .param .b32 cudaGraphSetConditional_param_1
)
;
// c[0] -= 1; c[1] += 1; the handle becomes c[0] > 0.
.visible .entry countdown(.param .u64 h, .param .u64 c)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [h];
  ld.param.u64 %rd2, [c];
  cvta.to.global.u64 %rd3, %rd2;
  ld.global.u32 %r1, [%rd3];
  sub.s32 %r2, %r1, 1;
  st.global.u32 [%rd3], %r2;
  ld.global.u32 %r3, [%rd3+4];
  add.s32 %r4, %r3, 1;
  st.global.u32 [%rd3+4], %r4;
  setp.gt.s32 %p1, %r2, 0;
  selp.u32 %r5, 1, 0, %p1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r5;
  call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
// The handle becomes v (thread 0 of a block of any size).
.visible .entry setval(.param .u64 h, .param .u32 v)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [h];
  ld.param.u32 %r2, [v];
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r2;
  call.uni cudaGraphSetConditional, (param0, param1);
  }
DONE:
  ret;
}
)";

class GraphNodes : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoadData(&Mod, CondPtx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&Countdown, Mod, "countdown"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&SetVal, Mod, "setval"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&Buf, N * sizeof(int)), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32_v2(Buf, 0, N), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(Buf), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleUnload(Mod), CUDA_SUCCESS);
    EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  }
  CUgraphNode kernelNode(CUgraph Into, CUfunction F, void **Args,
                         std::vector<CUgraphNode> Deps = {}) {
    CUDA_KERNEL_NODE_PARAMS P{};
    P.func = F;
    P.gridDimX = P.gridDimY = P.gridDimZ = 1;
    P.blockDimX = 32;
    P.blockDimY = P.blockDimZ = 1;
    P.kernelParams = Args;
    CUgraphNode Node = nullptr;
    EXPECT_EQ(cuGraphAddKernelNode_v2(&Node, Into, Deps.data(), Deps.size(), &P), CUDA_SUCCESS);
    return Node;
  }
  /// A memset node writing V into Buf[I].
  CUgraphNode setNode(CUgraph Into, unsigned I, unsigned V, std::vector<CUgraphNode> Deps = {}) {
    CUDA_MEMSET_NODE_PARAMS M{};
    M.dst = Buf + I * sizeof(int);
    M.elementSize = 4;
    M.value = V;
    M.width = M.height = 1;
    CUgraphNode Node = nullptr;
    EXPECT_EQ(cuGraphAddMemsetNode(&Node, Into, Deps.data(), Deps.size(), &M, Ctx), CUDA_SUCCESS);
    return Node;
  }
  /// Adds a conditional node; returns its body graphs.
  std::vector<CUgraph> condNode(CUgraphConditionalHandle H, CUgraphConditionalNodeType T,
                                unsigned Size, std::vector<CUgraphNode> Deps = {},
                                CUresult Expect = CUDA_SUCCESS) {
    CUgraphNodeParams P{};
    P.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    P.conditional.handle = H;
    P.conditional.type = T;
    P.conditional.size = Size;
    P.conditional.ctx = Ctx;
    CUgraphNode Node = nullptr;
    EXPECT_EQ(cuGraphAddNode(&Node, G, Deps.data(), Deps.size(), &P), Expect);
    if (Expect != CUDA_SUCCESS)
      return {};
    EXPECT_NE(P.conditional.phGraph_out, nullptr);
    return std::vector<CUgraph>(P.conditional.phGraph_out, P.conditional.phGraph_out + Size);
  }
  std::vector<int> read() {
    std::vector<int> Out(N);
    EXPECT_EQ(cuMemcpyDtoH_v2(Out.data(), Buf, N * sizeof(int)), CUDA_SUCCESS);
    return Out;
  }
  void launch(CUgraphExec X) {
    ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  }
  uint64_t graphMem(CUgraphMem_attribute A) {
    cuuint64_t V = ~0ull;
    EXPECT_EQ(cuDeviceGetGraphMemAttribute(0, A, &V), CUDA_SUCCESS);
    return V;
  }
  static constexpr unsigned N = 8;
  CUcontext Ctx = nullptr;
  CUmodule Mod = nullptr;
  CUfunction Countdown = nullptr, SetVal = nullptr;
  CUdeviceptr Buf = 0;
  CUstream S = nullptr;
  CUgraph G = nullptr;
};

TEST_F(GraphNodes, WhileLoopRunsUntilAKernelClearsTheHandle) {
  CUgraphConditionalHandle H = 0;
  ASSERT_EQ(cuGraphConditionalHandleCreate(&H, G, Ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT),
            CUDA_SUCCESS);
  auto Body = condNode(H, CU_GRAPH_COND_TYPE_WHILE, 1);
  ASSERT_EQ(Body.size(), 1u);
  void *Args[] = {&H, &Buf};
  kernelNode(Body[0], Countdown, Args);
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Buf, 5, 1), CUDA_SUCCESS);
  launch(X);
  auto V = read();
  EXPECT_EQ(V[0], 0); // Counted down to 0 ...
  EXPECT_EQ(V[1], 5); // ... in five iterations.
  // The default value (1) is assigned again at the next launch: the body
  // runs once more although the last iteration cleared the handle.
  ASSERT_EQ(cuMemsetD32_v2(Buf, 3, 1), CUDA_SUCCESS);
  launch(X);
  V = read();
  EXPECT_EQ(V[0], 0);
  EXPECT_EQ(V[1], 8);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
}

TEST_F(GraphNodes, IfWithElseAndSwitchPickTheirBodies) {
  CUgraphConditionalHandle If = 0, Sw = 0;
  ASSERT_EQ(cuGraphConditionalHandleCreate(&If, G, Ctx, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Sw, G, Ctx, 0, 0), CUDA_SUCCESS);
  EXPECT_NE(If, Sw);
  unsigned IfValue = 0, SwValue = 0;
  void *IfArgs[] = {&If, &IfValue}, *SwArgs[] = {&Sw, &SwValue};
  CUgraphNode SetIf = kernelNode(G, SetVal, IfArgs);
  CUgraphNode SetSw = kernelNode(G, SetVal, SwArgs, {SetIf});
  auto IfBodies = condNode(If, CU_GRAPH_COND_TYPE_IF, 2, {SetSw});
  ASSERT_EQ(IfBodies.size(), 2u);
  setNode(IfBodies[0], 0, 11); // then
  setNode(IfBodies[1], 0, 22); // else
  auto SwBodies = condNode(Sw, CU_GRAPH_COND_TYPE_SWITCH, 3, {SetSw});
  ASSERT_EQ(SwBodies.size(), 3u);
  for (unsigned I = 0; I < 3; ++I)
    setNode(SwBodies[I], 1 + I, 100 + I);

  CUdeviceptr Zero = Buf; // Reset between launches with a plain memset.
  struct Case {
    unsigned If, Sw;
    std::vector<int> Want;
  } Cases[] = {
      {1, 0, {11, 100, 0, 0}},
      {0, 2, {22, 0, 0, 102}},
      {7, 9, {11, 0, 0, 0}}, // A SWITCH value past the bodies runs none.
  };
  for (const Case &C : Cases) {
    IfValue = C.If;
    SwValue = C.Sw;
    // Kernel arguments are copied at node creation: rebuild them.
    CUDA_KERNEL_NODE_PARAMS P{};
    P.func = SetVal;
    P.gridDimX = P.gridDimY = P.gridDimZ = 1;
    P.blockDimX = 32;
    P.blockDimY = P.blockDimZ = 1;
    P.kernelParams = IfArgs;
    ASSERT_EQ(cuGraphKernelNodeSetParams_v2(SetIf, &P), CUDA_SUCCESS);
    P.kernelParams = SwArgs;
    ASSERT_EQ(cuGraphKernelNodeSetParams_v2(SetSw, &P), CUDA_SUCCESS);
    CUgraphExec X = nullptr;
    ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32_v2(Zero, 0, N), CUDA_SUCCESS);
    launch(X);
    auto V = read();
    EXPECT_EQ(std::vector<int>(V.begin(), V.begin() + 4), C.Want)
        << "if=" << C.If << " switch=" << C.Sw;
    EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  }
}

TEST_F(GraphNodes, ConditionalNodesRejectBadParameters) {
  CUgraphConditionalHandle H = 0;
  EXPECT_EQ(cuGraphConditionalHandleCreate(&H, G, Ctx, 0, 2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphConditionalHandleCreate(&H, G, Ctx, 0, 0), CUDA_SUCCESS);
  condNode(H, CU_GRAPH_COND_TYPE_WHILE, 2, {}, CUDA_ERROR_INVALID_VALUE);
  condNode(H, CU_GRAPH_COND_TYPE_IF, 3, {}, CUDA_ERROR_INVALID_VALUE);
  condNode(H, CU_GRAPH_COND_TYPE_SWITCH, 0, {}, CUDA_ERROR_INVALID_VALUE);
  condNode(H + 4, CU_GRAPH_COND_TYPE_IF, 1, {}, CUDA_ERROR_INVALID_VALUE);
  // A body may not hold a host node: the graph does not instantiate.
  auto Body = condNode(H, CU_GRAPH_COND_TYPE_IF, 1);
  ASSERT_EQ(Body.size(), 1u);
  CUDA_HOST_NODE_PARAMS HP{[](void *) {}, nullptr};
  CUgraphNode Host = nullptr;
  ASSERT_EQ(cuGraphAddHostNode(&Host, Body[0], nullptr, 0, &HP), CUDA_SUCCESS);
  CUgraphExec X = nullptr;
  EXPECT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(GraphNodes, StreamCaptureIntoABodyGraph) {
  CUgraphConditionalHandle H = 0;
  ASSERT_EQ(cuGraphConditionalHandleCreate(&H, G, Ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT),
            CUDA_SUCCESS);
  auto Body = condNode(H, CU_GRAPH_COND_TYPE_WHILE, 1);
  ASSERT_EQ(
      cuStreamBeginCaptureToGraph(S, Body[0], nullptr, nullptr, 0, CU_STREAM_CAPTURE_MODE_RELAXED),
      CUDA_SUCCESS);
  void *Args[] = {&H, &Buf};
  ASSERT_EQ(cuLaunchKernel(Countdown, 1, 1, 1, 1, 1, 1, 0, S, Args, nullptr), CUDA_SUCCESS);
  CUgraph Out = nullptr;
  ASSERT_EQ(cuStreamEndCapture(S, &Out), CUDA_SUCCESS);
  EXPECT_EQ(Out, Body[0]);
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Buf, 4, 1), CUDA_SUCCESS);
  launch(X);
  auto V = read();
  EXPECT_EQ(V[0], 0);
  EXPECT_EQ(V[1], 4);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
}

/// alloc -> memset(V) -> copy into Buf[0] -> (free unless KeepAlive).
struct MemGraph {
  CUgraphNode Alloc = nullptr, Set = nullptr, Copy = nullptr, Free = nullptr;
  CUdeviceptr Ptr = 0;
};

MemGraph buildMemGraph(CUgraph G, CUcontext Ctx, CUdeviceptr Buf, unsigned V, bool Free) {
  MemGraph M;
  CUDA_MEM_ALLOC_NODE_PARAMS A{};
  A.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  A.poolProps.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  A.bytesize = 1024;
  EXPECT_EQ(cuGraphAddMemAllocNode(&M.Alloc, G, nullptr, 0, &A), CUDA_SUCCESS);
  M.Ptr = A.dptr;
  EXPECT_NE(M.Ptr, 0u);
  CUDA_MEMSET_NODE_PARAMS S{};
  S.dst = M.Ptr;
  S.elementSize = 4;
  S.value = V;
  S.width = 256;
  S.height = 1;
  EXPECT_EQ(cuGraphAddMemsetNode(&M.Set, G, &M.Alloc, 1, &S, Ctx), CUDA_SUCCESS);
  CUDA_MEMCPY3D C{};
  C.srcMemoryType = C.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  C.srcDevice = M.Ptr + 4;
  C.dstDevice = Buf;
  C.WidthInBytes = 4;
  C.Height = C.Depth = 1;
  EXPECT_EQ(cuGraphAddMemcpyNode(&M.Copy, G, &M.Set, 1, &C, Ctx), CUDA_SUCCESS);
  if (Free) {
    EXPECT_EQ(cuGraphAddMemFreeNode(&M.Free, G, &M.Copy, 1, M.Ptr), CUDA_SUCCESS);
  }
  return M;
}

TEST_F(GraphNodes, MemoryNodesKeepTheirAddressAndFollowCudaRules) {
  MemGraph M = buildMemGraph(G, Ctx, Buf, 42, true);
  CUDA_MEM_ALLOC_NODE_PARAMS Got{};
  ASSERT_EQ(cuGraphMemAllocNodeGetParams(M.Alloc, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.dptr, M.Ptr);
  EXPECT_EQ(Got.bytesize, 1024u);
  CUdeviceptr Freed = 0;
  ASSERT_EQ(cuGraphMemFreeNodeGetParams(M.Free, &Freed), CUDA_SUCCESS);
  EXPECT_EQ(Freed, M.Ptr);
  CUgraphNodeType T;
  ASSERT_EQ(cuGraphNodeGetType(M.Alloc, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_MEM_ALLOC);

  // What a graph with memory nodes may not do.
  CUgraph Clone = nullptr;
  EXPECT_EQ(cuGraphClone(&Clone, G), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuGraphDestroyNode(M.Set), CUDA_ERROR_NOT_SUPPORTED);
  CUgraphNode Twice = nullptr;
  EXPECT_EQ(cuGraphAddMemFreeNode(&Twice, G, &M.Free, 1, M.Ptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddMemFreeNode(&Twice, G, nullptr, 0, Buf), CUDA_ERROR_INVALID_VALUE);

  CUgraphExec X = nullptr, Y = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphInstantiateWithFlags(&Y, G, 0), CUDA_ERROR_NOT_SUPPORTED);
  for (int I = 0; I < 3; ++I) {
    ASSERT_EQ(cuMemsetD32_v2(Buf, 0, 1), CUDA_SUCCESS);
    launch(X);
    EXPECT_EQ(read()[0], 42);
  }
  ASSERT_EQ(cuGraphMemAllocNodeGetParams(M.Alloc, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.dptr, M.Ptr); // Fixed across launches.
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0u);
  EXPECT_GE(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), 1024u);
  EXPECT_GE(graphMem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 1024u);
  ASSERT_EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 0u);
  cuuint64_t Zero = 0, One = 1;
  EXPECT_EQ(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &Zero), CUDA_SUCCESS);
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), 0u);
  EXPECT_EQ(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &One),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &Zero),
            CUDA_ERROR_INVALID_VALUE);
  // Runs again after a trim, at the same address.
  launch(X);
  EXPECT_EQ(read()[0], 42);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphInstantiateWithFlags(&Y, G, 0), CUDA_SUCCESS); // The first one is gone.
  EXPECT_EQ(cuGraphExecDestroy(Y), CUDA_SUCCESS);
}

TEST_F(GraphNodes, UnfreedAllocationsBlockRelaunchUnlessAutoFree) {
  MemGraph M = buildMemGraph(G, Ctx, Buf, 7, false);
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  launch(X);
  EXPECT_EQ(read()[0], 7);
  EXPECT_GE(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 1024u);
  // Still allocated: the memory is usable after the graph, in stream order.
  std::vector<int> Host(256);
  ASSERT_EQ(cuMemcpyDtoH_v2(Host.data(), M.Ptr, 1024), CUDA_SUCCESS);
  EXPECT_EQ(Host[255], 7);
  EXPECT_EQ(cuGraphLaunch(X, S), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFreeAsync(M.Ptr, S), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(M.Ptr, S), CUDA_ERROR_INVALID_VALUE); // Not allocated any more.
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0u);
  launch(X);
  ASSERT_EQ(cuMemFree_v2(M.Ptr), CUDA_SUCCESS); // cuMemFree frees it too.
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);

  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
            CUDA_SUCCESS);
  launch(X);
  launch(X); // The last launch's allocation is freed first.
  EXPECT_EQ(read()[0], 7);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  // The last allocation is the program's to free, graph or no graph.
  EXPECT_EQ(cuMemFreeAsync(M.Ptr, S), CUDA_SUCCESS);
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0u);
}

TEST_F(GraphNodes, AnUnfreedAllocationOutlivesItsGraph) {
  MemGraph M = buildMemGraph(G, Ctx, Buf, 5, false);
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  launch(X);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS); // For TearDown.
  // Still allocated, and usable in stream order until freed.
  ASSERT_EQ(cuMemsetD32Async(M.Ptr + 8, 6, 1, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(Buf, M.Ptr, 12, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(M.Ptr, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  auto V = read();
  EXPECT_EQ(V[0], 5);
  EXPECT_EQ(V[2], 6);
  EXPECT_EQ(graphMem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0u);
  // Freed and its graph gone: the address is no allocation any more.
  EXPECT_EQ(cuMemFreeAsync(M.Ptr, S), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(GraphNodes, CapturedAsyncAllocationBecomesMemoryNodes) {
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocAsync(&P, 512, S), CUDA_SUCCESS);
  ASSERT_NE(P, 0u);
  ASSERT_EQ(cuMemsetD32Async(P, 9, 128, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(Buf + 8, P + 12, 4, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(P, S), CUDA_SUCCESS);
  CUgraph Captured = nullptr;
  ASSERT_EQ(cuStreamEndCapture(S, &Captured), CUDA_SUCCESS);
  size_t Count = 0;
  ASSERT_EQ(cuGraphGetNodes(Captured, nullptr, &Count), CUDA_SUCCESS);
  ASSERT_EQ(Count, 4u);
  std::vector<CUgraphNode> Nodes(Count);
  ASSERT_EQ(cuGraphGetNodes(Captured, Nodes.data(), &Count), CUDA_SUCCESS);
  std::vector<CUgraphNodeType> Types;
  for (CUgraphNode Node : Nodes) {
    CUgraphNodeType T;
    ASSERT_EQ(cuGraphNodeGetType(Node, &T), CUDA_SUCCESS);
    Types.push_back(T);
  }
  EXPECT_EQ(Types,
            (std::vector<CUgraphNodeType>{CU_GRAPH_NODE_TYPE_MEM_ALLOC, CU_GRAPH_NODE_TYPE_MEMSET,
                                          CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_MEM_FREE}));
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, Captured, 0), CUDA_SUCCESS);
  launch(X);
  launch(X);
  EXPECT_EQ(read()[2], 9);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(Captured), CUDA_SUCCESS);
}

} // namespace
