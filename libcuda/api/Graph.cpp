/// \file
/// Graph entry points: building graphs node by node, querying them,
/// instantiating and launching them, and updating executable graphs.
///
/// Kernel, memcpy, memset and host nodes are built by capturing the one
/// ordinary call that does the same work (cuLaunchKernel, cuMemcpy3DAsync,
/// cuMemsetD2D*Async, cuLaunchHostFunc) on a private stream that has no
/// queue, capturing into the target graph after the given dependencies. So
/// a node is validated, compiled and packed by exactly the code a stream
/// launch uses, and the failure a program sees is the one that call would
/// report.
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/GraphMem.h"

#include <cstdio>
#include <cstring>

using namespace ferry;
using namespace ferry::api;
using core::Graph;
using core::GraphExec;
using core::GraphNode;
using core::NodeType;
using core::NodeWork;
using core::Ref;
namespace capture = core::capture;

namespace {

template <typename T> Ref<T> refOf(T *O) {
  return std::static_pointer_cast<T>(static_cast<core::Object *>(O)->shared_from_this());
}

Expected<std::vector<GraphNode *>> nodeList(const CUgraphNode *Nodes, size_t N) {
  if (N && !Nodes)
    return makeError(CUDA_ERROR_INVALID_VALUE, "a node array is null but its count is not 0");
  std::vector<GraphNode *> Out;
  for (size_t I = 0; I < N; ++I) {
    auto R = core::resolve<GraphNode>(Nodes[I], CUDA_ERROR_INVALID_VALUE);
    if (!R)
      return R.takeError();
    Out.push_back(R->get());
  }
  return Out;
}

Status defaultEdges(const CUgraphEdgeData *E, size_t N) {
  for (size_t I = 0; E && I < N; ++I)
    if (E[I].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || E[I].from_port || E[I].to_port)
      return makeError(CUDA_ERROR_NOT_SUPPORTED, "only default graph edges are supported");
  return Status::ok();
}

/// The context a node works in: the one its parameters name, else the
/// current one.
Expected<Ref<core::Context>> nodeContext(CUcontext Ctx) {
  if (!Ctx)
    return core::currentContext();
  auto C = core::resolve<core::Context>(Ctx, CUDA_ERROR_INVALID_CONTEXT);
  if (!C)
    return C;
  if ((*C)->isDestroyed())
    return makeError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the node's context was destroyed");
  return C;
}

/// Captures Op (one enqueue call on the given stream) into G after Deps and
/// returns the node it made. Op's result is returned as is (it logged why).
Expected<GraphNode *> buildNode(const Ref<core::Context> &Ctx, const Ref<Graph> &G,
                                std::vector<GraphNode *> Deps,
                                const std::function<CUresult(CUstream)> &Op) {
  // A private non-blocking stream without a queue: it only ever captures.
  auto S = std::make_shared<core::Stream>(Ctx, nullptr, core::Stream::Role::Created,
                                          CU_STREAM_NON_BLOCKING, 0);
  core::publish(S);
  std::vector<GraphNode *> Before = Deps;
  // Relaxed: building a node must not restrict what other threads may do.
  if (Status St = capture::begin(*S, capture::Mode::Relaxed, G, std::move(Deps)); !St) {
    core::retire(S.get());
    return St.takeError();
  }
  CUresult R = Op(handleOf<CUstream>(S.get()));
  capture::Info I = capture::query(*S);
  auto End = capture::end(*S);
  core::retire(S.get());
  if (R != CUDA_SUCCESS)
    return makeError(R, "the node's parameters were rejected");
  if (!End)
    return End.takeError();
  if (I.Deps.size() != 1 || (Before.size() == 1 && Before[0] == I.Deps[0]))
    return makeError(CUDA_ERROR_INVALID_VALUE, "the parameters describe no work (a size is 0)");
  return I.Deps[0];
}

/// Builds the work of a node with Op in a scratch graph (SetParams forms).
Expected<NodeWork> buildWork(const Ref<core::Context> &Ctx, const std::function<CUresult(CUstream)> &Op) {
  auto Scratch = Graph::create();
  auto N = buildNode(Ctx, Scratch, {}, Op);
  if (!N) {
    Scratch->destroy();
    return N.takeError();
  }
  NodeWork W = Scratch->work(**N);
  Scratch->destroy();
  return W;
}

//===----------------------------------------------------------------------===//
// The ops nodes are built from.
//===----------------------------------------------------------------------===//

CUDA_KERNEL_NODE_PARAMS_v2 fromV1(const CUDA_KERNEL_NODE_PARAMS_v1 &P) {
  CUDA_KERNEL_NODE_PARAMS_v2 Q{};
  Q.func = P.func;
  Q.gridDimX = P.gridDimX;
  Q.gridDimY = P.gridDimY;
  Q.gridDimZ = P.gridDimZ;
  Q.blockDimX = P.blockDimX;
  Q.blockDimY = P.blockDimY;
  Q.blockDimZ = P.blockDimZ;
  Q.sharedMemBytes = P.sharedMemBytes;
  Q.kernelParams = P.kernelParams;
  Q.extra = P.extra;
  return Q;
}

std::function<CUresult(CUstream)> kernelOp(const CUDA_KERNEL_NODE_PARAMS_v2 &P) {
  // CUkernel and CUfunction are the same object in ferry.
  CUfunction F = P.func ? P.func : reinterpret_cast<CUfunction>(P.kern);
  return [P, F](CUstream S) {
    return cuLaunchKernel(F, P.gridDimX, P.gridDimY, P.gridDimZ, P.blockDimX, P.blockDimY, P.blockDimZ,
                          P.sharedMemBytes, S, P.kernelParams, P.extra);
  };
}

std::function<CUresult(CUstream)> memcpyOp(const CUDA_MEMCPY3D &P) {
  return [P](CUstream S) { return cuMemcpy3DAsync_v2(&P, S); };
}

std::function<CUresult(CUstream)> memsetOp(const CUDA_MEMSET_NODE_PARAMS &P) {
  return [P](CUstream S) {
    switch (P.elementSize) {
    case 1: return cuMemsetD2D8Async(P.dst, P.pitch, (unsigned char)P.value, P.width, P.height, S);
    case 2: return cuMemsetD2D16Async(P.dst, P.pitch, (unsigned short)P.value, P.width, P.height, S);
    default: return cuMemsetD2D32Async(P.dst, P.pitch, P.value, P.width, P.height, S);
    }
  };
}

std::function<CUresult(CUstream)> hostOp(const CUDA_HOST_NODE_PARAMS &P) {
  return [P](CUstream S) { return cuLaunchHostFunc(S, P.fn, P.userData); };
}

Status checkKernel(const CUDA_KERNEL_NODE_PARAMS_v2 *P) {
  if (!P)
    return makeError(CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  if (!P->func && !P->kern)
    return makeError(CUDA_ERROR_INVALID_VALUE, "neither func nor kern is set");
  return Status::ok();
}

Status checkMemset(const CUDA_MEMSET_NODE_PARAMS *P) {
  if (!P)
    return makeError(CUDA_ERROR_INVALID_VALUE, "memsetParams is null");
  if (P->elementSize != 1 && P->elementSize != 2 && P->elementSize != 4)
    return makeError(CUDA_ERROR_INVALID_VALUE, "elementSize must be 1, 2 or 4");
  if (!P->width || !P->height)
    return makeError(CUDA_ERROR_INVALID_VALUE, "width and height must not be 0");
  return Status::ok();
}

/// Adds a node built by Op (see buildNode) and returns its handle.
CUresult addBuilt(const char *Fn, CUgraphNode *Out, CUgraph hGraph, const CUgraphNode *Deps, size_t N,
                  CUcontext Ctx, const std::function<CUresult(CUstream)> &Op) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "phGraphNode is null");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(Fn, G.error());
  auto D = nodeList(Deps, N);
  if (!D)
    return fail(Fn, D.error());
  for (GraphNode *Dep : *D)
    if (!(*G)->contains(*Dep))
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "a dependency belongs to another graph");
  auto C = nodeContext(Ctx);
  if (!C)
    return fail(Fn, C.error());
  auto Node = buildNode(*C, *G, std::move(*D), Op);
  if (!Node)
    return fail(Fn, Node.error());
  *Out = handleOf<CUgraphNode>(*Node);
  return CUDA_SUCCESS;
}

/// Adds a node whose work needs no validation beyond what the caller did.
CUresult addPlain(const char *Fn, CUgraphNode *Out, CUgraph hGraph, const CUgraphNode *Deps, size_t N,
                  NodeWork W) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "phGraphNode is null");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(Fn, G.error());
  auto D = nodeList(Deps, N);
  if (!D)
    return fail(Fn, D.error());
  auto Node = (*G)->addNode(std::move(W), *D);
  if (!Node)
    return fail(Fn, Node.error());
  *Out = handleOf<CUgraphNode>(Node->get());
  return CUDA_SUCCESS;
}

/// A node handle of the given type.
Expected<Ref<GraphNode>> nodeArg(CUgraphNode h, NodeType T) {
  auto N = core::resolve<GraphNode>(h);
  if (!N)
    return N;
  if ((*N)->type() != T)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the node is not of the type this call handles");
  return N;
}

/// The context a rebuilt node works in: the one named, else the node's,
/// else the current one.
Expected<Ref<core::Context>> rebuildContext(CUcontext Ctx, const GraphNode &N) {
  if (Ctx)
    return nodeContext(Ctx);
  if (Ref<core::Context> C = N.graph().work(N).Ctx)
    return C;
  return core::currentContext();
}

/// Replaces a node's work with what Op builds (node SetParams).
CUresult setBuilt(const char *Fn, CUgraphNode h, NodeType T, CUcontext Ctx,
                  const std::function<CUresult(CUstream)> &Op) {
  auto N = nodeArg(h, T);
  if (!N)
    return fail(Fn, N.error());
  auto C = rebuildContext(Ctx, **N);
  if (!C)
    return fail(Fn, C.error());
  auto W = buildWork(*C, Op);
  if (!W)
    return fail(Fn, W.error());
  return done(Fn, (*N)->graph().setWork(**N, std::move(*W)));
}

/// Replaces an instantiated node's work with what Op builds.
CUresult execSetBuilt(const char *Fn, CUgraphExec hExec, CUgraphNode h, NodeType T, CUcontext Ctx,
                      const std::function<CUresult(CUstream)> &Op) {
  auto X = core::resolve<GraphExec>(hExec);
  if (!X)
    return fail(Fn, X.error());
  auto N = nodeArg(h, T);
  if (!N)
    return fail(Fn, N.error());
  auto C = rebuildContext(Ctx, **N);
  if (!C)
    return fail(Fn, C.error());
  auto W = buildWork(*C, Op);
  if (!W)
    return fail(Fn, W.error());
  return done(Fn, (*X)->setWork(**N, std::move(*W)));
}

template <typename T>
CUresult listOut(const char *Fn, const std::vector<T *> &All, CUgraphNode *Out, size_t *Num) {
  if (!Num)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "the count pointer is null");
  if (!Out) {
    *Num = All.size();
    return CUDA_SUCCESS;
  }
  // As NVIDIA: up to *Num entries, the rest of the array nulled, and *Num
  // set to the number written.
  size_t N = std::min(*Num, All.size());
  for (size_t I = 0; I < *Num; ++I)
    Out[I] = I < N ? handleOf<CUgraphNode>(All[I]) : nullptr;
  *Num = N;
  return CUDA_SUCCESS;
}

} // namespace

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags) {
  if (!phGraph)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "phGraph is null");
  if (flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  *phGraph = handleOf<CUgraph>(Graph::create().get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphDestroy(CUgraph hGraph) {
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  (*G)->destroy();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) {
  if (!phGraphClone)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "phGraphClone is null");
  auto G = core::resolve<Graph>(originalGraph);
  if (!G)
    return fail(__func__, G.error());
  auto C = (*G)->clone();
  if (!C)
    return fail(__func__, C.error());
  *phGraphClone = handleOf<CUgraph>(C->get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph) {
  if (!phNode)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "phNode is null");
  auto N = core::resolve<GraphNode>(hOriginalNode);
  if (!N)
    return fail(__func__, N.error());
  auto G = core::resolve<Graph>(hClonedGraph);
  if (!G)
    return fail(__func__, G.error());
  GraphNode *C = (*G)->cloneOf(N->get());
  if (!C)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the graph is not a clone of the node's graph");
  *phNode = handleOf<CUgraphNode>(C);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Adding nodes
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                              const CUgraphNode *dependencies, size_t numDependencies,
                                              const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  if (Status S = checkKernel(nodeParams); !S)
    return done(__func__, std::move(S));
  return addBuilt(__func__, phGraphNode, hGraph, dependencies, numDependencies, nodeParams->ctx,
                  kernelOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                           const CUgraphNode *dependencies, size_t numDependencies,
                                           const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  CUDA_KERNEL_NODE_PARAMS_v2 P = fromV1(*nodeParams);
  return cuGraphAddKernelNode_v2(phGraphNode, hGraph, dependencies, numDependencies, &P);
}

FERRY_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                           const CUgraphNode *dependencies, size_t numDependencies,
                                           const CUDA_MEMCPY3D *copyParams, CUcontext ctx) {
  if (!copyParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "copyParams is null");
  return addBuilt(__func__, phGraphNode, hGraph, dependencies, numDependencies, ctx, memcpyOp(*copyParams));
}

FERRY_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                           const CUgraphNode *dependencies, size_t numDependencies,
                                           const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx) {
  if (Status S = checkMemset(memsetParams); !S)
    return done(__func__, std::move(S));
  return addBuilt(__func__, phGraphNode, hGraph, dependencies, numDependencies, ctx, memsetOp(*memsetParams));
}

FERRY_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                         size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams || !nodeParams->fn)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams or its fn is null");
  return addBuilt(__func__, phGraphNode, hGraph, dependencies, numDependencies, nullptr, hostOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                          size_t numDependencies) {
  NodeWork W;
  W.Type = NodeType::Empty;
  return addPlain(__func__, phGraphNode, hGraph, dependencies, numDependencies, std::move(W));
}

FERRY_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                               const CUgraphNode *dependencies, size_t numDependencies,
                                               CUgraph childGraph) {
  auto C = core::resolve<Graph>(childGraph);
  if (!C)
    return fail(__func__, C.error());
  if (static_cast<void *>(C->get()) == static_cast<void *>(hGraph))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "a graph cannot be its own child");
  auto Copy = (*C)->clone();
  if (!Copy)
    return fail(__func__, Copy.error());
  NodeWork W;
  W.Type = NodeType::Child;
  W.Child = *Copy;
  CUresult R = addPlain(__func__, phGraphNode, hGraph, dependencies, numDependencies, std::move(W));
  if (R != CUDA_SUCCESS)
    (*Copy)->destroy();
  return R;
}

static CUresult addEventNode(const char *Fn, CUgraphNode *Out, CUgraph hGraph, const CUgraphNode *Deps, size_t N,
                             CUevent event, NodeType T) {
  auto E = core::resolve<core::Event>(event);
  if (!E)
    return fail(Fn, E.error());
  NodeWork W;
  W.Type = T;
  W.Ev = *E;
  return addPlain(Fn, Out, hGraph, Deps, N, std::move(W));
}

FERRY_EXPORT CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                const CUgraphNode *dependencies, size_t numDependencies,
                                                CUevent event) {
  return addEventNode(__func__, phGraphNode, hGraph, dependencies, numDependencies, event, NodeType::EventRecord);
}

FERRY_EXPORT CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                              const CUgraphNode *dependencies, size_t numDependencies,
                                              CUevent event) {
  return addEventNode(__func__, phGraphNode, hGraph, dependencies, numDependencies, event, NodeType::WaitEvent);
}

//===----------------------------------------------------------------------===//
// Node parameters
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type) {
  if (!type)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "type is null");
  auto N = core::resolve<GraphNode>(hNode);
  if (!N)
    return fail(__func__, N.error());
  *type = CUgraphNodeType((*N)->type());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  auto N = nodeArg(hNode, NodeType::Kernel);
  if (!N)
    return fail(__func__, N.error());
  std::lock_guard<std::mutex> L((*N)->graph().M);
  const NodeWork &W = (*N)->Work;
  CUDA_KERNEL_NODE_PARAMS_v2 P{};
  P.func = handleOf<CUfunction>(W.Fn.get());
  P.kern = handleOf<CUkernel>(W.Fn.get());
  P.ctx = handleOf<CUcontext>(W.Ctx.get());
  P.gridDimX = W.Launch.Grid[0];
  P.gridDimY = W.Launch.Grid[1];
  P.gridDimZ = W.Launch.Grid[2];
  P.blockDimX = W.Launch.Block[0];
  P.blockDimY = W.Launch.Block[1];
  P.blockDimZ = W.Launch.Block[2];
  P.sharedMemBytes = W.Launch.DynamicSharedBytes;
  // Pointers into the node's own copy of the arguments, as NVIDIA returns.
  P.kernelParams = (*N)->ParamPtrs.empty() ? nullptr : (*N)->ParamPtrs.data();
  P.extra = nullptr;
  *nodeParams = P;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  CUDA_KERNEL_NODE_PARAMS_v2 P;
  if (CUresult R = cuGraphKernelNodeGetParams_v2(hNode, &P))
    return R;
  std::memcpy(nodeParams, &P, sizeof(*nodeParams)); // v1 is v2's prefix.
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  if (Status S = checkKernel(nodeParams); !S)
    return done(__func__, std::move(S));
  return setBuilt(__func__, hNode, NodeType::Kernel, nodeParams->ctx, kernelOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  CUDA_KERNEL_NODE_PARAMS_v2 P = fromV1(*nodeParams);
  return cuGraphKernelNodeSetParams_v2(hNode, &P);
}

FERRY_EXPORT CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  auto N = nodeArg(hNode, NodeType::Memcpy);
  if (!N)
    return fail(__func__, N.error());
  CopyRect R = (*N)->graph().work(**N).Copy;
  // Reported with unified addressing: the node keeps resolved pointers.
  CUDA_MEMCPY3D P{};
  P.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.srcDevice = CUdeviceptr(reinterpret_cast<uintptr_t>(R.Src));
  P.srcPitch = R.SrcPitch;
  P.srcHeight = R.SrcPitch ? R.SrcSlicePitch / R.SrcPitch : 0;
  P.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.dstDevice = CUdeviceptr(reinterpret_cast<uintptr_t>(R.Dst));
  P.dstPitch = R.DstPitch;
  P.dstHeight = R.DstPitch ? R.DstSlicePitch / R.DstPitch : 0;
  P.WidthInBytes = R.WidthBytes;
  P.Height = R.Height;
  P.Depth = R.Depth;
  *nodeParams = P;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  return setBuilt(__func__, hNode, NodeType::Memcpy, nullptr, memcpyOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  auto N = nodeArg(hNode, NodeType::Memset);
  if (!N)
    return fail(__func__, N.error());
  FillRect F = (*N)->graph().work(**N).Fill;
  nodeParams->dst = CUdeviceptr(reinterpret_cast<uintptr_t>(F.Dst));
  nodeParams->pitch = F.Pitch;
  nodeParams->value = F.Value;
  nodeParams->elementSize = F.ElemBytes;
  nodeParams->width = F.Width;
  nodeParams->height = F.Height;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  if (Status S = checkMemset(nodeParams); !S)
    return done(__func__, std::move(S));
  return setBuilt(__func__, hNode, NodeType::Memset, nullptr, memsetOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  auto N = nodeArg(hNode, NodeType::Host);
  if (!N)
    return fail(__func__, N.error());
  NodeWork W = (*N)->graph().work(**N);
  nodeParams->fn = W.HostFn;
  nodeParams->userData = W.HostData;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams || !nodeParams->fn)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams or its fn is null");
  return setBuilt(__func__, hNode, NodeType::Host, nullptr, hostOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph) {
  if (!phGraph)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "phGraph is null");
  auto N = nodeArg(hNode, NodeType::Child);
  if (!N)
    return fail(__func__, N.error());
  *phGraph = handleOf<CUgraph>((*N)->graph().work(**N).Child.get());
  return CUDA_SUCCESS;
}

static CUresult eventOfNode(const char *Fn, CUgraphNode hNode, CUevent *Out, NodeType T) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "event_out is null");
  auto N = nodeArg(hNode, T);
  if (!N)
    return fail(Fn, N.error());
  *Out = handleOf<CUevent>((*N)->graph().work(**N).Ev.get());
  return CUDA_SUCCESS;
}

static CUresult setEventOfNode(const char *Fn, CUgraphNode hNode, CUevent Ev, NodeType T) {
  auto N = nodeArg(hNode, T);
  if (!N)
    return fail(Fn, N.error());
  auto E = core::resolve<core::Event>(Ev);
  if (!E)
    return fail(Fn, E.error());
  NodeWork W = (*N)->graph().work(**N);
  W.Ev = *E;
  return done(Fn, (*N)->graph().setWork(**N, std::move(W)));
}

// clang-format off
FERRY_EXPORT CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode h, CUevent *e) { return eventOfNode(__func__, h, e, NodeType::EventRecord); }
FERRY_EXPORT CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode h, CUevent *e) { return eventOfNode(__func__, h, e, NodeType::WaitEvent); }
FERRY_EXPORT CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode h, CUevent e) { return setEventOfNode(__func__, h, e, NodeType::EventRecord); }
FERRY_EXPORT CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode h, CUevent e) { return setEventOfNode(__func__, h, e, NodeType::WaitEvent); }
// clang-format on

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

static CUresult editEdges(const char *Fn, CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                          const CUgraphEdgeData *edgeData, size_t n, bool Add) {
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(Fn, G.error());
  auto F = nodeList(from, n), T = nodeList(to, n);
  if (!F)
    return fail(Fn, F.error());
  if (!T)
    return fail(Fn, T.error());
  if (Status S = defaultEdges(edgeData, n); !S)
    return done(Fn, std::move(S));
  return done(Fn, Add ? (*G)->addEdges(*F, *T) : (*G)->removeEdges(*F, *T));
}

// clang-format off
FERRY_EXPORT CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *f, const CUgraphNode *t, size_t n) { return editEdges(__func__, g, f, t, nullptr, n, true); }
FERRY_EXPORT CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *f, const CUgraphNode *t, const CUgraphEdgeData *e, size_t n) { return editEdges(__func__, g, f, t, e, n, true); }
FERRY_EXPORT CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *f, const CUgraphNode *t, size_t n) { return editEdges(__func__, g, f, t, nullptr, n, false); }
FERRY_EXPORT CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *f, const CUgraphNode *t, const CUgraphEdgeData *e, size_t n) { return editEdges(__func__, g, f, t, e, n, false); }
// clang-format on

FERRY_EXPORT CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  auto N = core::resolve<GraphNode>(hNode);
  if (!N)
    return fail(__func__, N.error());
  return done(__func__, (*N)->graph().destroyNode(**N));
}

FERRY_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  return listOut(__func__, (*G)->nodes(), nodes, numNodes);
}

FERRY_EXPORT CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) {
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  return listOut(__func__, (*G)->roots(), rootNodes, numRootNodes);
}

FERRY_EXPORT CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                         CUgraphEdgeData *edgeData, size_t *numEdges) {
  if (!numEdges)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "numEdges is null");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  auto E = (*G)->edges();
  if (!from && !to) {
    *numEdges = E.size();
    return CUDA_SUCCESS;
  }
  if (!from || !to)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "from and to must both be given");
  size_t N = std::min(*numEdges, E.size());
  for (size_t I = 0; I < *numEdges; ++I) {
    from[I] = I < N ? handleOf<CUgraphNode>(E[I].first) : nullptr;
    to[I] = I < N ? handleOf<CUgraphNode>(E[I].second) : nullptr;
    if (edgeData)
      edgeData[I] = CUgraphEdgeData{};
  }
  *numEdges = N;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
  return cuGraphGetEdges_v2(hGraph, from, to, nullptr, numEdges);
}

static CUresult neighbours(const char *Fn, CUgraphNode hNode, CUgraphNode *Out, CUgraphEdgeData *Edges,
                           size_t *Num, bool Deps) {
  auto N = core::resolve<GraphNode>(hNode);
  if (!N)
    return fail(Fn, N.error());
  std::vector<GraphNode *> All;
  {
    std::lock_guard<std::mutex> L((*N)->graph().M);
    All = Deps ? (*N)->Deps : (*N)->Dependents;
  }
  if (Edges && Out && Num)
    for (size_t I = 0; I < *Num; ++I)
      Edges[I] = CUgraphEdgeData{};
  return listOut(Fn, All, Out, Num);
}

// clang-format off
FERRY_EXPORT CUresult cuGraphNodeGetDependencies(CUgraphNode h, CUgraphNode *d, size_t *n) { return neighbours(__func__, h, d, nullptr, n, true); }
FERRY_EXPORT CUresult cuGraphNodeGetDependencies_v2(CUgraphNode h, CUgraphNode *d, CUgraphEdgeData *e, size_t *n) { return neighbours(__func__, h, d, e, n, true); }
FERRY_EXPORT CUresult cuGraphNodeGetDependentNodes(CUgraphNode h, CUgraphNode *d, size_t *n) { return neighbours(__func__, h, d, nullptr, n, false); }
FERRY_EXPORT CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode h, CUgraphNode *d, CUgraphEdgeData *e, size_t *n) { return neighbours(__func__, h, d, e, n, false); }
// clang-format on

FERRY_EXPORT CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags) {
  if (!path)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "path is null");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  std::FILE *F = std::fopen(path, "w");
  if (!F)
    return fail(__func__, CUDA_ERROR_OPERATING_SYSTEM, std::string("cannot write ") + path);
  static const char *Names[] = {"kernel", "memcpy",    "memset",   "host",   "graph",        "empty",      "wait_event",
                                "event_record", "ext_sem_signal", "ext_sem_wait", "mem_alloc", "mem_free", "mem_op",
                                "conditional"};
  std::fprintf(F, "digraph ferry_graph {\n");
  for (GraphNode *N : (*G)->nodes()) {
    std::string Label = Names[int(N->type())];
    if (N->type() == NodeType::Kernel)
      if (auto W = (*G)->work(*N); W.Fn)
        Label += "\\n" + W.Fn->name();
    std::fprintf(F, "  n%p [label=\"%s\"];\n", static_cast<void *>(N), Label.c_str());
  }
  for (auto &[A, B] : (*G)->edges())
    std::fprintf(F, "  n%p -> n%p;\n", static_cast<void *>(A), static_cast<void *>(B));
  std::fprintf(F, "}\n");
  std::fclose(F);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Executable graphs
//===----------------------------------------------------------------------===//

static CUresult instantiate(const char *Fn, CUgraphExec *Out, CUgraph hGraph, unsigned long long Flags,
                            CUgraphInstantiateResult *Result = nullptr, char *Log = nullptr, size_t LogSize = 0) {
  if (Result)
    *Result = CUDA_GRAPH_INSTANTIATE_ERROR;
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "phGraphExec is null");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(Fn, G.error());
  unsigned long long Known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                             CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
  if (Flags & ~Known)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown instantiate flags");
  auto X = GraphExec::instantiate(**G, Flags);
  if (!X) {
    if (Log && LogSize) {
      std::snprintf(Log, LogSize, "%s", X.error().message().c_str());
    }
    if (Result)
      *Result = X.code() == CUDA_ERROR_NOT_SUPPORTED ? CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
                                                     : CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
    return fail(Fn, X.error());
  }
  if (Log && LogSize)
    Log[0] = '\0';
  if (Result)
    *Result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  *Out = handleOf<CUgraphExec>(X->get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags) {
  return instantiate(__func__, phGraphExec, hGraph, flags);
}

FERRY_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                         char *logBuffer, size_t bufferSize) {
  if (phErrorNode)
    *phErrorNode = nullptr;
  return instantiate(__func__, phGraphExec, hGraph, 0, nullptr, logBuffer, bufferSize);
}

FERRY_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                            char *logBuffer, size_t bufferSize) {
  if (phErrorNode)
    *phErrorNode = nullptr;
  return instantiate(__func__, phGraphExec, hGraph, 0, nullptr, logBuffer, bufferSize);
}

static CUresult instantiateWithParams(const char *Fn, CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *P) {
  if (!P)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "instantiateParams is null");
  P->hErrNode_out = nullptr;
  // The upload stream only matters with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD,
  // and uploading is a no-op here (nodes are resolved at instantiation).
  return instantiate(Fn, phGraphExec, hGraph, P->flags, &P->result_out);
}

FERRY_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams) {
  return instantiateWithParams(__func__, phGraphExec, hGraph, instantiateParams);
}
FERRY_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                        CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams) {
  return instantiateWithParams(__func__, phGraphExec, hGraph, instantiateParams);
}

FERRY_EXPORT CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags) {
  if (!flags)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags is null");
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  *flags = (*X)->flags();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  // Launches already enqueued hold what they need (the queue copies each
  // command), so the executable graph can go at once.
  core::retire(X->get());
  return CUDA_SUCCESS;
}

static CUresult graphLaunch(const char *Fn, CUgraphExec hGraphExec, CUstream hStream, bool PerThread) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(Fn, X.error());
  auto S = streamArg(hStream, PerThread);
  if (!S)
    return fail(Fn, S.error());
  return done(Fn, (*X)->launch(**S));
}

static CUresult graphUpload(const char *Fn, CUgraphExec hGraphExec, CUstream hStream, bool PerThread) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(Fn, X.error());
  auto S = streamArg(hStream, PerThread);
  if (!S)
    return fail(Fn, S.error());
  return CUDA_SUCCESS; // Nothing to upload: nodes are resolved at instantiation.
}

// clang-format off
FERRY_EXPORT CUresult cuGraphLaunch(CUgraphExec x, CUstream s) { return graphLaunch(__func__, x, s, false); }
FERRY_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec x, CUstream s) { return graphLaunch(__func__, x, s, true); }
FERRY_EXPORT CUresult cuGraphUpload(CUgraphExec x, CUstream s) { return graphUpload(__func__, x, s, false); }
FERRY_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec x, CUstream s) { return graphUpload(__func__, x, s, true); }
// clang-format on

FERRY_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                        const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  if (Status S = checkKernel(nodeParams); !S)
    return done(__func__, std::move(S));
  return execSetBuilt(__func__, hGraphExec, hNode, NodeType::Kernel, nodeParams->ctx, kernelOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                     const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  CUDA_KERNEL_NODE_PARAMS_v2 P = fromV1(*nodeParams);
  return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &P);
}

FERRY_EXPORT CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                     const CUDA_MEMCPY3D *copyParams, CUcontext ctx) {
  if (!copyParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "copyParams is null");
  return execSetBuilt(__func__, hGraphExec, hNode, NodeType::Memcpy, ctx, memcpyOp(*copyParams));
}

FERRY_EXPORT CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                     const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx) {
  if (Status S = checkMemset(memsetParams); !S)
    return done(__func__, std::move(S));
  return execSetBuilt(__func__, hGraphExec, hNode, NodeType::Memset, ctx, memsetOp(*memsetParams));
}

FERRY_EXPORT CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams || !nodeParams->fn)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams or its fn is null");
  return execSetBuilt(__func__, hGraphExec, hNode, NodeType::Host, nullptr, hostOp(*nodeParams));
}

FERRY_EXPORT CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                         CUgraph childGraph) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  auto N = nodeArg(hNode, NodeType::Child);
  if (!N)
    return fail(__func__, N.error());
  auto C = core::resolve<Graph>(childGraph);
  if (!C)
    return fail(__func__, C.error());
  return done(__func__, (*X)->setChild(**N, **C));
}

static CUresult execSetEvent(const char *Fn, CUgraphExec hGraphExec, CUgraphNode hNode, CUevent Ev, NodeType T) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(Fn, X.error());
  auto N = nodeArg(hNode, T);
  if (!N)
    return fail(Fn, N.error());
  auto E = core::resolve<core::Event>(Ev);
  if (!E)
    return fail(Fn, E.error());
  NodeWork W = (*N)->graph().work(**N);
  W.Ev = *E;
  return done(Fn, (*X)->setWork(**N, std::move(W)));
}

FERRY_EXPORT CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e) {
  return execSetEvent(__func__, x, n, e, NodeType::EventRecord);
}
FERRY_EXPORT CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e) {
  return execSetEvent(__func__, x, n, e, NodeType::WaitEvent);
}

FERRY_EXPORT CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled) {
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  auto N = core::resolve<GraphNode>(hNode);
  if (!N)
    return fail(__func__, N.error());
  return done(__func__, (*X)->setEnabled(**N, isEnabled != 0));
}

FERRY_EXPORT CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled) {
  if (!isEnabled)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "isEnabled is null");
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  auto N = core::resolve<GraphNode>(hNode);
  if (!N)
    return fail(__func__, N.error());
  auto E = (*X)->enabled(**N);
  if (!E)
    return fail(__func__, E.error());
  *isEnabled = *E ? 1 : 0;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                           CUgraphExecUpdateResultInfo *resultInfo) {
  if (!resultInfo)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "resultInfo is null");
  auto X = core::resolve<GraphExec>(hGraphExec);
  if (!X)
    return fail(__func__, X.error());
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  core::UpdateResult R;
  Status St = (*X)->update(**G, R);
  resultInfo->result = CUgraphExecUpdateResult(R.Result);
  resultInfo->errorNode = handleOf<CUgraphNode>(R.ErrorNode);
  resultInfo->errorFromNode = handleOf<CUgraphNode>(R.ErrorFromNode);
  return done(__func__, std::move(St));
}

FERRY_EXPORT CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                        CUgraphExecUpdateResult *updateResult_out) {
  if (!hErrorNode_out || !updateResult_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "an output pointer is null");
  CUgraphExecUpdateResultInfo Info{};
  CUresult R = cuGraphExecUpdate_v2(hGraphExec, hGraph, &Info);
  *hErrorNode_out = Info.errorNode;
  *updateResult_out = Info.result;
  return R;
}

//===----------------------------------------------------------------------===//
// Generic node parameters (CUgraphNodeParams, CUDA 12.2+): each node type
// goes to its own entry point above.
//===----------------------------------------------------------------------===//

static CUDA_MEMSET_NODE_PARAMS memsetOf(const CUDA_MEMSET_NODE_PARAMS_v2 &M) {
  return CUDA_MEMSET_NODE_PARAMS{M.dst, M.pitch, M.value, M.elementSize, M.width, M.height};
}

static CUDA_KERNEL_NODE_PARAMS_v2 kernelOf(const CUDA_KERNEL_NODE_PARAMS_v3 &K) {
  static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2));
  CUDA_KERNEL_NODE_PARAMS_v2 P;
  std::memcpy(&P, &K, sizeof(P));
  return P;
}

static CUresult addConditional(const char *Fn, CUgraphNode *Out, CUgraph hGraph, const CUgraphNode *Deps, size_t N,
                               CUDA_CONDITIONAL_NODE_PARAMS &P);

static CUresult addNode(const char *Fn, CUgraphNode *Out, CUgraph G, const CUgraphNode *Deps,
                        const CUgraphEdgeData *Edges, size_t N, CUgraphNodeParams *P) {
  if (!P)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  if (Status S = defaultEdges(Edges, N); !S)
    return done(Fn, std::move(S));
  switch (P->type) {
  case CU_GRAPH_NODE_TYPE_KERNEL: {
    CUDA_KERNEL_NODE_PARAMS_v2 K = kernelOf(P->kernel);
    return cuGraphAddKernelNode_v2(Out, G, Deps, N, &K);
  }
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphAddMemcpyNode(Out, G, Deps, N, &P->memcpy.copyParams, P->memcpy.copyCtx);
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    CUDA_MEMSET_NODE_PARAMS M = memsetOf(P->memset);
    return cuGraphAddMemsetNode(Out, G, Deps, N, &M, P->memset.ctx);
  }
  case CU_GRAPH_NODE_TYPE_HOST: {
    CUDA_HOST_NODE_PARAMS H{P->host.fn, P->host.userData};
    return cuGraphAddHostNode(Out, G, Deps, N, &H);
  }
  case CU_GRAPH_NODE_TYPE_GRAPH:
    if (P->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
      return fail(Fn, CUDA_ERROR_NOT_SUPPORTED, "child graphs can only be cloned into a node");
    return cuGraphAddChildGraphNode(Out, G, Deps, N, P->graph.graph);
  case CU_GRAPH_NODE_TYPE_EMPTY:
    return cuGraphAddEmptyNode(Out, G, Deps, N);
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return cuGraphAddEventWaitNode(Out, G, Deps, N, P->eventWait.event);
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return cuGraphAddEventRecordNode(Out, G, Deps, N, P->eventRecord.event);
  case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    static_assert(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS_v1) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS_v2));
    return cuGraphAddMemAllocNode(Out, G, Deps, N, reinterpret_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(&P->alloc));
  case CU_GRAPH_NODE_TYPE_MEM_FREE:
    return cuGraphAddMemFreeNode(Out, G, Deps, N, P->free.dptr);
  case CU_GRAPH_NODE_TYPE_CONDITIONAL:
    return addConditional(Fn, Out, G, Deps, N, P->conditional);
  default:
    return fail(Fn, CUDA_ERROR_NOT_SUPPORTED, "graph node type " + std::to_string(int(P->type)));
  }
}

FERRY_EXPORT CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                     size_t numDependencies, CUgraphNodeParams *nodeParams) {
  return addNode(__func__, phGraphNode, hGraph, dependencies, nullptr, numDependencies, nodeParams);
}

FERRY_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                        const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                        CUgraphNodeParams *nodeParams) {
  return addNode(__func__, phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams);
}

FERRY_EXPORT CUresult cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *P) {
  if (!P)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  switch (P->type) {
  case CU_GRAPH_NODE_TYPE_KERNEL: {
    CUDA_KERNEL_NODE_PARAMS_v2 K = kernelOf(P->kernel);
    return cuGraphKernelNodeSetParams_v2(hNode, &K);
  }
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphMemcpyNodeSetParams(hNode, &P->memcpy.copyParams);
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    CUDA_MEMSET_NODE_PARAMS M = memsetOf(P->memset);
    return cuGraphMemsetNodeSetParams(hNode, &M);
  }
  case CU_GRAPH_NODE_TYPE_HOST: {
    CUDA_HOST_NODE_PARAMS H{P->host.fn, P->host.userData};
    return cuGraphHostNodeSetParams(hNode, &H);
  }
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return cuGraphEventWaitNodeSetEvent(hNode, P->eventWait.event);
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return cuGraphEventRecordNodeSetEvent(hNode, P->eventRecord.event);
  default:
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED,
                "setting parameters of graph node type " + std::to_string(int(P->type)));
  }
}

FERRY_EXPORT CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams *P) {
  if (!P)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  switch (P->type) {
  case CU_GRAPH_NODE_TYPE_KERNEL: {
    CUDA_KERNEL_NODE_PARAMS_v2 K = kernelOf(P->kernel);
    return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &K);
  }
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return cuGraphExecMemcpyNodeSetParams(hGraphExec, hNode, &P->memcpy.copyParams, P->memcpy.copyCtx);
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    CUDA_MEMSET_NODE_PARAMS M = memsetOf(P->memset);
    return cuGraphExecMemsetNodeSetParams(hGraphExec, hNode, &M, P->memset.ctx);
  }
  case CU_GRAPH_NODE_TYPE_HOST: {
    CUDA_HOST_NODE_PARAMS H{P->host.fn, P->host.userData};
    return cuGraphExecHostNodeSetParams(hGraphExec, hNode, &H);
  }
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, P->eventWait.event);
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, P->eventRecord.event);
  case CU_GRAPH_NODE_TYPE_GRAPH:
    return cuGraphExecChildGraphNodeSetParams(hGraphExec, hNode, P->graph.graph);
  default:
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED,
                "setting parameters of graph node type " + std::to_string(int(P->type)));
  }
}

//===----------------------------------------------------------------------===//
// Graph memory nodes (core/GraphMem.h)
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                             const CUgraphNode *dependencies, size_t numDependencies,
                                             CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams) {
  if (!nodeParams)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "nodeParams is null");
  const CUmemPoolProps &P = nodeParams->poolProps;
  if (P.allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "poolProps.allocType must be CU_MEM_ALLOCATION_TYPE_PINNED");
  if (P.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "graph allocations can only be placed on a device");
  if (nodeParams->bytesize == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
  if (nodeParams->accessDescCount && !nodeParams->accessDescs)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "accessDescs is null but accessDescCount is not 0");
  std::vector<CUmemAccessDesc> Access;
  for (size_t I = 0; I < nodeParams->accessDescCount; ++I) {
    const CUmemAccessDesc &A = nodeParams->accessDescs[I];
    if (A.location.type != CU_MEM_LOCATION_TYPE_DEVICE || !core::device(A.location.id))
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "an access descriptor names no device");
    Access.push_back(A);
  }
  auto C = core::currentContext();
  if (!C)
    return fail(__func__, C.error());
  if ((*C)->device().Ordinal != P.location.id)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                "poolProps.location names another device than the current context's");
  auto A = core::GraphAlloc::create(*C, nodeParams->bytesize, P, std::move(Access));
  if (!A)
    return fail(__func__, A.error());
  CUdeviceptr Ptr = CUdeviceptr(uintptr_t((*A)->ptr()));
  NodeWork W;
  W.Type = NodeType::MemAlloc;
  W.Ctx = *C;
  W.Alloc = std::move(*A);
  CUresult R = addPlain(__func__, phGraphNode, hGraph, dependencies, numDependencies, std::move(W));
  if (R == CUDA_SUCCESS)
    nodeParams->dptr = Ptr;
  return R;
}

FERRY_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                            const CUgraphNode *dependencies, size_t numDependencies,
                                            CUdeviceptr dptr) {
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  auto A = core::GraphAlloc::find(uintptr_t(dptr));
  if (!A)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dptr is not an address an allocation node returned");
  if ((*G)->freeNodeOf(*A))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "the allocation is already freed in this graph");
  NodeWork W;
  W.Type = NodeType::MemFree;
  W.Ctx = refOf(&A->context());
  W.Alloc = std::move(A);
  return addPlain(__func__, phGraphNode, hGraph, dependencies, numDependencies, std::move(W));
}

FERRY_EXPORT CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out) {
  if (!params_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "params_out is null");
  auto N = nodeArg(hNode, NodeType::MemAlloc);
  if (!N)
    return fail(__func__, N.error());
  // The node owns the allocation (and its access list) for its lifetime,
  // so the returned accessDescs pointer stays valid as long as NVIDIA's.
  const core::GraphAlloc &A = *(*N)->graph().work(**N).Alloc;
  params_out->poolProps = A.props();
  params_out->accessDescs = A.access().empty() ? nullptr : A.access().data();
  params_out->accessDescCount = A.access().size();
  params_out->bytesize = A.bytes();
  params_out->dptr = CUdeviceptr(uintptr_t(A.ptr()));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out) {
  if (!dptr_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "dptr_out is null");
  auto N = nodeArg(hNode, NodeType::MemFree);
  if (!N)
    return fail(__func__, N.error());
  *dptr_out = CUdeviceptr(uintptr_t((*N)->graph().work(**N).Alloc->ptr()));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) {
  if (!value)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto D = deviceArg(device);
  if (!D)
    return fail(__func__, D.error());
  if (attr < CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT || attr > CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown graph memory attribute " + std::to_string(int(attr)));
  uint64_t V = core::graphmem::attribute((*D)->Ordinal, attr);
  std::memcpy(value, &V, sizeof(V)); // cuuint64_t for every attribute.
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) {
  if (!value)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto D = deviceArg(device);
  if (!D)
    return fail(__func__, D.error());
  uint64_t V;
  std::memcpy(&V, value, sizeof(V));
  if (V != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "a high watermark can only be reset, to 0");
  return done(__func__, core::graphmem::resetHigh((*D)->Ordinal, attr));
}

FERRY_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device) {
  auto D = deviceArg(device);
  if (!D)
    return fail(__func__, D.error());
  return done(__func__, core::graphmem::trim(**D));
}

//===----------------------------------------------------------------------===//
// Conditional nodes
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
                                                     CUcontext ctx, unsigned int defaultLaunchValue,
                                                     unsigned int flags) {
  if (!pHandle_out)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pHandle_out is null");
  if (flags & ~unsigned(CU_GRAPH_COND_ASSIGN_DEFAULT))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be 0 or CU_GRAPH_COND_ASSIGN_DEFAULT");
  auto G = core::resolve<Graph>(hGraph);
  if (!G)
    return fail(__func__, G.error());
  auto C = nodeContext(ctx);
  if (!C)
    return fail(__func__, C.error());
  auto S = core::CondSlot::create(*C, defaultLaunchValue, flags & CU_GRAPH_COND_ASSIGN_DEFAULT);
  if (!S)
    return fail(__func__, S.error());
  *pHandle_out = (*S)->handle();
  (*G)->addCondSlot(std::move(*S));
  return CUDA_SUCCESS;
}

/// cuGraphAddNode of a conditional node: makes its empty body graphs and
/// hands them back through P.phGraph_out (an array the node owns).
static CUresult addConditional(const char *Fn, CUgraphNode *Out, CUgraph hGraph, const CUgraphNode *Deps, size_t N,
                               CUDA_CONDITIONAL_NODE_PARAMS &P) {
  auto Slot = core::CondSlot::find(P.handle);
  if (!Slot)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "the conditional handle was not made by cuGraphConditionalHandleCreate");
  unsigned Max = P.type == CU_GRAPH_COND_TYPE_IF ? 2 : P.type == CU_GRAPH_COND_TYPE_WHILE ? 1 : ~0u;
  if (P.type < CU_GRAPH_COND_TYPE_IF || P.type > CU_GRAPH_COND_TYPE_SWITCH)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown conditional node type " + std::to_string(int(P.type)));
  if (P.size == 0 || P.size > Max)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE,
                "size must be 1 for WHILE, 1 or 2 for IF, and at least 1 for SWITCH");
  auto C = nodeContext(P.ctx);
  if (!C)
    return fail(Fn, C.error());
  if (C->get() != &Slot->context())
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "the node's context is not the handle's");
  NodeWork W;
  W.Type = NodeType::Conditional;
  W.Ctx = *C;
  W.Cond = std::move(Slot);
  W.CondKind = core::CondType(P.type);
  for (unsigned I = 0; I < P.size; ++I)
    W.Bodies.push_back(Graph::create());
  std::vector<Ref<Graph>> Bodies = W.Bodies;
  CUresult R = addPlain(Fn, Out, hGraph, Deps, N, std::move(W));
  if (R != CUDA_SUCCESS) {
    for (auto &B : Bodies)
      B->destroy();
    return R;
  }
  auto Node = core::resolve<GraphNode>(*Out);
  P.phGraph_out = reinterpret_cast<CUgraph *>((*Node)->BodyHandles.data());
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// User objects
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy,
                                         unsigned int initialRefcount, unsigned int flags) {
  if (!object_out || !destroy)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "object_out or destroy is null");
  if (initialRefcount == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "initialRefcount is 0");
  // The driver API requires CU_USER_OBJECT_NO_DESTRUCTOR_SYNC: nothing
  // waits for the destructor.
  if (flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC");
  auto O = std::make_shared<core::UserObject>(ptr, destroy, initialRefcount);
  core::publish(O);
  *object_out = handleOf<CUuserObject>(O.get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuUserObjectRetain(CUuserObject object, unsigned int count) {
  auto O = core::resolve<core::UserObject>(object);
  if (!O)
    return fail(__func__, O.error());
  if (count == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is 0");
  (*O)->retain(count);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuUserObjectRelease(CUuserObject object, unsigned int count) {
  auto O = core::resolve<core::UserObject>(object);
  if (!O)
    return fail(__func__, O.error());
  if (count == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is 0");
  return done(__func__, (*O)->release(count));
}

FERRY_EXPORT CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                              unsigned int flags) {
  auto G = core::resolve<Graph>(graph);
  if (!G)
    return fail(__func__, G.error());
  auto O = core::resolve<core::UserObject>(object);
  if (!O)
    return fail(__func__, O.error());
  if (count == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is 0");
  if (flags & ~unsigned(CU_GRAPH_USER_OBJECT_MOVE))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown flags");
  (*G)->retainUserObject(*O, count, flags & CU_GRAPH_USER_OBJECT_MOVE);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count) {
  auto G = core::resolve<Graph>(graph);
  if (!G)
    return fail(__func__, G.error());
  auto O = core::resolve<core::UserObject>(object);
  if (!O)
    return fail(__func__, O.error());
  if (count == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is 0");
  return done(__func__, (*G)->releaseUserObject(*O, count));
}
