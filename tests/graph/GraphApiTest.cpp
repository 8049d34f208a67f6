/// \file
/// Graphs and stream capture through libcuda.so.1's C ABI, with a PTX
/// kernel run on the host backend: hand-built graphs with kernel, memset,
/// memcpy and host nodes and their parameters, capture of launches, copies
/// and host functions, executable-graph updates, and the error codes of
/// invalid calls.
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

// p[i] = p[i] * mul + add for i < n.
const char *AffinePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry affine(.param .u64 p, .param .u32 n, .param .u32 mul, .param .u32 add)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [mul];
  ld.param.u32 %r3, [add];
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r4, %r5, %r6;
  setp.ge.u32 %p1, %r7, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r8, [%rd4];
  mad.lo.s32 %r9, %r8, %r2, %r3;
  st.global.u32 [%rd4], %r9;
DONE:
  ret;
}
)";

void countUp(void *P) { ++*static_cast<int *>(P); }

class GraphApi : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
  void SetUp() override {
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoadData(&Mod, AffinePtx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&Fn, Mod, "affine"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&Buf, N * sizeof(int)), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(Buf), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleUnload(Mod), CUDA_SUCCESS);
    EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  }
  CUDA_KERNEL_NODE_PARAMS kernel(void **Args) {
    CUDA_KERNEL_NODE_PARAMS P{};
    P.func = Fn;
    P.gridDimX = (N + 63) / 64;
    P.gridDimY = P.gridDimZ = 1;
    P.blockDimX = 64;
    P.blockDimY = P.blockDimZ = 1;
    P.kernelParams = Args;
    return P;
  }
  std::vector<int> read() {
    std::vector<int> Out(N);
    EXPECT_EQ(cuMemcpyDtoH_v2(Out.data(), Buf, N * sizeof(int)), CUDA_SUCCESS);
    return Out;
  }
  static constexpr unsigned N = 300;
  CUcontext Ctx = nullptr;
  CUmodule Mod = nullptr;
  CUfunction Fn = nullptr;
  CUdeviceptr Buf = 0;
  CUstream S = nullptr;
};

TEST_F(GraphApi, BuiltGraphWithKernelMemsetCopyAndHostNodes) {
  CUgraph G;
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  CUDA_MEMSET_NODE_PARAMS M{};
  M.dst = Buf;
  M.value = 2;
  M.elementSize = 4;
  M.width = N;
  M.height = 1;
  CUgraphNode Set, K1, K2, Copy, Host;
  ASSERT_EQ(cuGraphAddMemsetNode(&Set, G, nullptr, 0, &M, Ctx), CUDA_SUCCESS);
  unsigned Count = N, Mul1 = 1, Add1 = 5, Mul2 = 3, Add2 = 0;
  void *A1[] = {&Buf, &Count, &Mul1, &Add1}, *A2[] = {&Buf, &Count, &Mul2, &Add2};
  CUDA_KERNEL_NODE_PARAMS P1 = kernel(A1), P2 = kernel(A2);
  ASSERT_EQ(cuGraphAddKernelNode_v2(&K1, G, &Set, 1, &P1), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddKernelNode_v2(&K2, G, &K1, 1, &P2), CUDA_SUCCESS);
  Add1 = 1000; // Parameters were copied when the node was added.
  std::vector<int> Host1(N, 0);
  CUDA_MEMCPY3D C{};
  C.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  C.srcDevice = Buf;
  C.dstMemoryType = CU_MEMORYTYPE_HOST;
  C.dstHost = Host1.data();
  C.WidthInBytes = N * sizeof(int);
  C.Height = C.Depth = 1;
  ASSERT_EQ(cuGraphAddMemcpyNode(&Copy, G, &K2, 1, &C, Ctx), CUDA_SUCCESS);
  int Calls = 0;
  CUDA_HOST_NODE_PARAMS H{countUp, &Calls};
  ASSERT_EQ(cuGraphAddHostNode(&Host, G, &Copy, 1, &H), CUDA_SUCCESS);

  size_t Num = 0;
  ASSERT_EQ(cuGraphGetNodes(G, nullptr, &Num), CUDA_SUCCESS);
  EXPECT_EQ(Num, 5u);
  CUgraphNode Roots[2] = {};
  Num = 2;
  ASSERT_EQ(cuGraphGetRootNodes(G, Roots, &Num), CUDA_SUCCESS);
  EXPECT_EQ(Num, 1u);
  EXPECT_EQ(Roots[0], Set);
  EXPECT_EQ(Roots[1], nullptr);
  ASSERT_EQ(cuGraphGetEdges_v2(G, nullptr, nullptr, nullptr, &Num), CUDA_SUCCESS);
  EXPECT_EQ(Num, 4u);
  CUgraphNodeType T;
  ASSERT_EQ(cuGraphNodeGetType(K2, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_KERNEL);
  ASSERT_EQ(cuGraphNodeGetType(Copy, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_MEMCPY);

  // Kernel node parameters read back from the node's own copy.
  CUDA_KERNEL_NODE_PARAMS Got{};
  ASSERT_EQ(cuGraphKernelNodeGetParams_v2(K2, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.func, Fn);
  EXPECT_EQ(Got.blockDimX, 64u);
  ASSERT_NE(Got.kernelParams, nullptr);
  EXPECT_EQ(*static_cast<unsigned *>(Got.kernelParams[2]), 3u);
  EXPECT_NE(Got.kernelParams[2], static_cast<void *>(&Mul2));

  CUgraphExec X;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Host1[0], (2 + 5) * 3);
  EXPECT_EQ(Host1[N - 1], (2 + 5) * 3);
  EXPECT_EQ(Calls, 1);

  // Exec-level parameter change; the graph itself keeps its own.
  Mul2 = 10;
  ASSERT_EQ(cuGraphExecKernelNodeSetParams_v2(X, K2, &P2), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Host1[17], (2 + 5) * 10);
  EXPECT_EQ(Calls, 2);
  // Graph-level change, then an update of the executable graph from it.
  Mul2 = 4;
  ASSERT_EQ(cuGraphKernelNodeSetParams_v2(K2, &P2), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphKernelNodeGetParams_v2(K2, &Got), CUDA_SUCCESS);
  EXPECT_EQ(*static_cast<unsigned *>(Got.kernelParams[2]), 4u);
  CUgraphExecUpdateResultInfo Info{};
  ASSERT_EQ(cuGraphExecUpdate_v2(X, G, &Info), CUDA_SUCCESS);
  EXPECT_EQ(Info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Host1[17], (2 + 5) * 4);
  // A disabled kernel node is skipped.
  ASSERT_EQ(cuGraphNodeSetEnabled(X, K1, 0), CUDA_SUCCESS);
  unsigned On = 1;
  ASSERT_EQ(cuGraphNodeGetEnabled(X, K1, &On), CUDA_SUCCESS);
  EXPECT_EQ(On, 0u);
  ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Host1[17], 2 * 4);

  // Clones are independent and find their originals' copies.
  CUgraph Clone;
  ASSERT_EQ(cuGraphClone(&Clone, G), CUDA_SUCCESS);
  CUgraphNode InClone;
  ASSERT_EQ(cuGraphNodeFindInClone(&InClone, K2, Clone), CUDA_SUCCESS);
  EXPECT_NE(InClone, K2);
  ASSERT_EQ(cuGraphNodeGetType(InClone, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_KERNEL);
  ASSERT_EQ(cuGraphDestroy(Clone), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphNodeGetType(InClone, &T), CUDA_ERROR_INVALID_HANDLE);

  ASSERT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphLaunch(X, S), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuGraphNodeGetType(K1, &T), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(GraphApi, StreamCaptureRecordsInsteadOfRunning) {
  ASSERT_EQ(cuMemsetD32_v2(Buf, 1, N), CUDA_SUCCESS);
  CUstream S2;
  ASSERT_EQ(cuStreamCreate(&S2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUevent Fork, Join;
  ASSERT_EQ(cuEventCreate(&Fork, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&Join, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  unsigned Count = N, Mul = 2, Add = 1;
  void *Args[] = {&Buf, &Count, &Mul, &Add};
  std::vector<int> Out(N, 0);
  int Calls = 0;

  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  CUstreamCaptureStatus St;
  ASSERT_EQ(cuStreamIsCapturing(S, &St), CUDA_SUCCESS);
  EXPECT_EQ(St, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  ASSERT_EQ(cuLaunchKernel(Fn, (N + 63) / 64, 1, 1, 64, 1, 1, 0, S, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(Fork, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(S2, Fork, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchHostFunc(S2, countUp, &Calls), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(Join, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(S, Join, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(Out.data(), Buf, N * sizeof(int), S), CUDA_SUCCESS);
  cuuint64_t Id = 0;
  CUgraph During = nullptr;
  const CUgraphNode *Deps = nullptr;
  size_t NumDeps = 0;
  ASSERT_EQ(cuStreamGetCaptureInfo_v2(S, &St, &Id, &During, &Deps, &NumDeps), CUDA_SUCCESS);
  EXPECT_EQ(St, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_NE(Id, 0u);
  ASSERT_EQ(NumDeps, 1u);
  CUgraphNodeType T;
  ASSERT_EQ(cuGraphNodeGetType(Deps[0], &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_MEMCPY);
  // Event queries on captured events and unsafe calls are refused; they
  // would invalidate, so only the captured-event one is tried here.
  EXPECT_EQ(cuEventQuery(Fork), CUDA_ERROR_CAPTURED_EVENT);
  CUgraph G = nullptr;
  ASSERT_EQ(cuStreamEndCapture(S, &G), CUDA_SUCCESS);
  EXPECT_EQ(G, During);
  EXPECT_EQ(Calls, 0) << "captured work does not run";
  EXPECT_EQ(read()[0], 1);

  size_t Num = 0;
  ASSERT_EQ(cuGraphGetNodes(G, nullptr, &Num), CUDA_SUCCESS);
  EXPECT_EQ(Num, 3u);
  CUgraphNode Nodes[3];
  ASSERT_EQ(cuGraphGetNodes(G, Nodes, &Num), CUDA_SUCCESS);
  CUDA_KERNEL_NODE_PARAMS Got{};
  ASSERT_EQ(cuGraphKernelNodeGetParams_v2(Nodes[0], &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.func, Fn) << "captured kernel nodes know their function";
  CUDA_HOST_NODE_PARAMS H{};
  ASSERT_EQ(cuGraphHostNodeGetParams(Nodes[1], &H), CUDA_SUCCESS);
  EXPECT_EQ(H.fn, countUp);

  CUgraphExec X;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  for (int I = 0; I < 3; ++I) {
    ASSERT_EQ(cuGraphLaunch(X, S2), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(S2), CUDA_SUCCESS);
  }
  EXPECT_EQ(Out[5], ((1 * 2 + 1) * 2 + 1) * 2 + 1);
  EXPECT_EQ(Calls, 3);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  cuEventDestroy_v2(Fork);
  cuEventDestroy_v2(Join);
  cuStreamDestroy_v2(S2);
}

TEST_F(GraphApi, InvalidCalls) {
  int Junk[16] = {};
  CUgraph G;
  CUgraphNodeType T;
  EXPECT_EQ(cuGraphDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuGraphDestroy(reinterpret_cast<CUgraph>(Junk)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuGraphLaunch(reinterpret_cast<CUgraphExec>(S), S), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuGraphNodeGetType(reinterpret_cast<CUgraphNode>(Junk), &T), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuGraphCreate(&G, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);

  // Kernel nodes are checked like launches.
  unsigned Count = N, Mul = 1, Add = 0;
  void *Args[] = {&Buf, &Count, &Mul, &Add};
  CUDA_KERNEL_NODE_PARAMS P = kernel(Args);
  P.blockDimX = 4096;
  CUgraphNode K, E1, E2;
  EXPECT_EQ(cuGraphAddKernelNode_v2(&K, G, nullptr, 0, &P), CUDA_ERROR_INVALID_VALUE);
  P = kernel(nullptr);
  EXPECT_EQ(cuGraphAddKernelNode_v2(&K, G, nullptr, 0, &P), CUDA_ERROR_INVALID_VALUE) << "params missing";
  size_t Num = 0;
  ASSERT_EQ(cuGraphGetNodes(G, nullptr, &Num), CUDA_SUCCESS);
  EXPECT_EQ(Num, 0u) << "failed adds leave no node";
  CUDA_MEMSET_NODE_PARAMS M{};
  M.dst = Buf;
  M.elementSize = 3;
  M.width = M.height = 1;
  EXPECT_EQ(cuGraphAddMemsetNode(&K, G, nullptr, 0, &M, Ctx), CUDA_ERROR_INVALID_VALUE);

  // Edges: duplicates and nodes of other graphs are refused.
  ASSERT_EQ(cuGraphAddEmptyNode(&E1, G, nullptr, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddEmptyNode(&E2, G, &E1, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphAddDependencies(G, &E1, &E2, 1), CUDA_ERROR_INVALID_VALUE);
  CUgraph Other;
  CUgraphNode O;
  ASSERT_EQ(cuGraphCreate(&Other, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddEmptyNode(&O, Other, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphAddEmptyNode(&K, G, &O, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddDependencies(G, &O, &E1, 1), CUDA_ERROR_INVALID_VALUE);
  // Exec update against another topology.
  CUgraphExec X;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  CUgraphExecUpdateResultInfo Info{};
  EXPECT_EQ(cuGraphExecUpdate_v2(X, Other, &Info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  EXPECT_EQ(Info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
  EXPECT_EQ(cuGraphInstantiateWithFlags(&X, G, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
            CUDA_ERROR_NOT_SUPPORTED);

  // Capture misuse.
  CUgraph Captured;
  EXPECT_EQ(cuStreamEndCapture(S, &Captured), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cuStreamBeginCapture_v2(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuStreamBeginCapture_v2(S, CUstreamCaptureMode(7)), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32_v2(Buf, 0, N), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) << "synchronous memset";
  EXPECT_EQ(cuMemsetD32Async(Buf, 0, N, S), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CUstreamCaptureStatus St;
  ASSERT_EQ(cuStreamIsCapturing(S, &St), CUDA_SUCCESS);
  EXPECT_EQ(St, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  EXPECT_EQ(cuStreamEndCapture(S, &Captured), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(Captured, nullptr);
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(S), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuStreamEndCapture(S, &Captured), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CUstreamCaptureMode Mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&Mode), CUDA_SUCCESS);
  EXPECT_EQ(Mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&Mode), CUDA_SUCCESS);
  EXPECT_EQ(Mode, CU_STREAM_CAPTURE_MODE_RELAXED);
  // Allocation is the classic unsafe call: refused unless this thread is
  // relaxed, and the refusal invalidates the capture.
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  CUdeviceptr Tmp = 0;
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&Mode), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAlloc_v2(&Tmp, 64), CUDA_SUCCESS) << "relaxed threads may allocate";
  EXPECT_EQ(cuMemFree_v2(Tmp), CUDA_SUCCESS);
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&Mode), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAlloc_v2(&Tmp, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuStreamEndCapture(S, &Captured), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(Other), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(G), CUDA_ERROR_INVALID_HANDLE) << "stale handle";
}

} // namespace

namespace {

std::atomic<int> Destroyed{0};
void destroyUser(void *P) { Destroyed += *static_cast<int *>(P); }
void sleep100(void *) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

bool waitFor(int Want) {
  for (int I = 0; I < 500 && Destroyed.load() != Want; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return Destroyed.load() == Want;
}

// User objects (cuda.core's graph builder makes one per graph): the
// destructor runs once the last reference goes, and an executable graph's
// launch keeps its references until the launch has finished, even if the
// graph and the executable graph are destroyed meanwhile.
TEST_F(GraphApi, UserObjectsLiveUntilTheirLastReference) {
  Destroyed = 0;
  static int One = 1;
  CUuserObject U = nullptr;
  EXPECT_EQ(cuUserObjectCreate(&U, &One, destroyUser, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuUserObjectCreate(&U, &One, destroyUser, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC), CUDA_SUCCESS);
  ASSERT_EQ(cuUserObjectRetain(U, 1), CUDA_SUCCESS);                        // 3 held by us
  EXPECT_EQ(cuUserObjectRelease(U, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuUserObjectRelease(U, 2), CUDA_SUCCESS);                       // 1 left

  CUgraph G = nullptr;
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  CUDA_HOST_NODE_PARAMS H{};
  H.fn = sleep100;
  CUgraphNode Node = nullptr;
  ASSERT_EQ(cuGraphAddHostNode(&Node, G, nullptr, 0, &H), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphRetainUserObject(G, U, 1, CU_GRAPH_USER_OBJECT_MOVE), CUDA_SUCCESS); // ours moves
  ASSERT_EQ(cuGraphRetainUserObject(G, U, 2, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphReleaseUserObject(G, U, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphReleaseUserObject(G, U, 2), CUDA_SUCCESS);               // graph holds 1
  CUgraph Copy = nullptr;
  ASSERT_EQ(cuGraphClone(&Copy, G), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(Copy), CUDA_SUCCESS);
  CUgraphExec X = nullptr;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  EXPECT_EQ(Destroyed.load(), 0) << "destroyed while a launch still ran";
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_TRUE(waitFor(1)) << "the destructor ran " << Destroyed.load() << " times";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Destroyed.load(), 1);
  EXPECT_EQ(cuUserObjectRelease(U, 1), CUDA_ERROR_INVALID_HANDLE); // gone with its last reference
}

} // namespace

namespace {

// XLA's command buffers (JAX) update child graph nodes of an instantiated
// graph: cuGraphExecChildGraphNodeSetParams, or cuGraphExecNodeSetParams
// with a graph node. Both returned NOT_SUPPORTED on ferry.
class GraphChildUpdate : public GraphApi {
protected:
  /// A child graph: memset every int of Buf to Value, then x * Mul + Add.
  CUgraph child(unsigned Value, unsigned Mul, unsigned Add, bool WithKernel = true) {
    CUgraph C;
    EXPECT_EQ(cuGraphCreate(&C, 0), CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS M{};
    M.dst = Buf;
    M.value = Value;
    M.elementSize = 4;
    M.width = N;
    M.height = 1;
    CUgraphNode Set, K;
    EXPECT_EQ(cuGraphAddMemsetNode(&Set, C, nullptr, 0, &M, Ctx), CUDA_SUCCESS);
    if (WithKernel) {
      unsigned Count = N;
      void *Args[] = {&Buf, &Count, &Mul, &Add};
      CUDA_KERNEL_NODE_PARAMS P = kernel(Args);
      EXPECT_EQ(cuGraphAddKernelNode_v2(&K, C, &Set, 1, &P), CUDA_SUCCESS);
    }
    return C;
  }
  int launchAndRead(CUgraphExec X) {
    EXPECT_EQ(cuGraphLaunch(X, S), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    std::vector<int> H(N);
    EXPECT_EQ(cuMemcpyDtoH_v2(H.data(), Buf, N * sizeof(int)), CUDA_SUCCESS);
    for (int V : H)
      EXPECT_EQ(V, H[0]);
    return H[0];
  }
};

TEST_F(GraphChildUpdate, SetParamsReplacesTheInstantiatedChildsWork) {
  CUgraph G, C1 = child(2, 3, 1), C2 = child(4, 5, 0), C3 = child(1, 1, 9), Other = child(7, 1, 0, false);
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  CUgraphNode Node;
  ASSERT_EQ(cuGraphAddChildGraphNode(&Node, G, nullptr, 0, C1), CUDA_SUCCESS);
  CUgraphExec X;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&X, G, 0), CUDA_SUCCESS);
  EXPECT_EQ(launchAndRead(X), 2 * 3 + 1);
  ASSERT_EQ(cuGraphExecChildGraphNodeSetParams(X, Node, C2), CUDA_SUCCESS);
  EXPECT_EQ(launchAndRead(X), 4 * 5);
  CUgraphNodeParams P{};
  P.type = CU_GRAPH_NODE_TYPE_GRAPH;
  P.graph.graph = C3;
  ASSERT_EQ(cuGraphExecNodeSetParams(X, Node, &P), CUDA_SUCCESS);
  EXPECT_EQ(launchAndRead(X), 1 + 9);
  // Another topology is refused and changes nothing.
  EXPECT_EQ(cuGraphExecChildGraphNodeSetParams(X, Node, Other), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launchAndRead(X), 1 + 9);
  EXPECT_EQ(cuGraphExecDestroy(X), CUDA_SUCCESS);
  for (CUgraph Each : {G, C1, C2, C3, Other})
    EXPECT_EQ(cuGraphDestroy(Each), CUDA_SUCCESS);
}

} // namespace
