/// \file
/// CUDA graphs and stream capture in the runtime API: forwards to the
/// driver's graph API (cudaGraph_t, cudaGraphNode_t and cudaGraphExec_t are
/// the driver's handles, and capture modes, statuses, node types and
/// instantiate/update results share the driver's values). What is
/// translated: kernel nodes name a host stub (looked up in the registry,
/// and mapped back when the node is queried), copies use the runtime's
/// cudaMemcpy3DParms / 1-D forms, and every node gets the current context.
#include "Runtime.h"

#include <cstring>

namespace ferry::cudart {
namespace {

/// Runs \p Call (a driver call given the Context, returning CUresult) in
/// the current context.
template <typename Fn> cudaError_t inContextWith(Fn &&Call) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  return finish(Call(C), C.Device);
}

const CUgraphEdgeData *edges(const cudaGraphEdgeData *E) {
  static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData));
  return reinterpret_cast<const CUgraphEdgeData *>(E);
}

cudaError_t toDriverKernel(const cudaKernelNodeParams *P, CUcontext Ctx, CUDA_KERNEL_NODE_PARAMS &Q) {
  if (!P)
    return cudaErrorInvalidValue;
  CUkernel K = nullptr;
  if (cudaError_t E = lookupKernel(P->func, K))
    return E;
  Q = CUDA_KERNEL_NODE_PARAMS{};
  // The driver takes a CUkernel wherever a launch takes a CUfunction.
  Q.func = reinterpret_cast<CUfunction>(K);
  Q.gridDimX = P->gridDim.x;
  Q.gridDimY = P->gridDim.y;
  Q.gridDimZ = P->gridDim.z;
  Q.blockDimX = P->blockDim.x;
  Q.blockDimY = P->blockDim.y;
  Q.blockDimZ = P->blockDim.z;
  Q.sharedMemBytes = P->sharedMemBytes;
  Q.kernelParams = P->kernelParams;
  Q.extra = P->extra;
  Q.ctx = Ctx;
  return cudaSuccess;
}

bool validKind(cudaMemcpyKind K) { return K >= cudaMemcpyHostToHost && K <= cudaMemcpyDefault; }

cudaError_t toDriverCopy(const cudaMemcpy3DParms *P, CUDA_MEMCPY3D &Q) {
  if (!P)
    return cudaErrorInvalidValue;
  if (!validKind(P->kind))
    return cudaErrorInvalidMemcpyDirection;
  if ((P->srcArray && P->srcPtr.ptr) || (P->dstArray && P->dstPtr.ptr))
    return cudaErrorInvalidValue;
  return toDriverCopy3D(P, Q);
}

cudaMemcpy3DParms copy1D(void *Dst, const void *Src, size_t Count, cudaMemcpyKind Kind) {
  cudaMemcpy3DParms P{};
  P.srcPtr = cudaPitchedPtr{const_cast<void *>(Src), Count, Count, 1};
  P.dstPtr = cudaPitchedPtr{Dst, Count, Count, 1};
  P.extent = cudaExtent{Count, 1, 1};
  P.kind = Kind;
  return P;
}

CUDA_MEMSET_NODE_PARAMS toDriverMemset(const cudaMemsetParams &P) {
  CUDA_MEMSET_NODE_PARAMS Q{};
  Q.dst = reinterpret_cast<CUdeviceptr>(P.dst);
  Q.pitch = P.pitch;
  Q.value = P.value;
  Q.elementSize = P.elementSize;
  Q.width = P.width;
  Q.height = P.height;
  return Q;
}

CUDA_HOST_NODE_PARAMS toDriverHost(const cudaHostNodeParams &P) { return CUDA_HOST_NODE_PARAMS{P.fn, P.userData}; }

cudaError_t beginCapture(const DriverTable &D, cudaStream_t S, cudaStreamCaptureMode Mode) {
  return inContextWith([&](Context &) { return D.cuStreamBeginCapture(S, CUstreamCaptureMode(Mode)); });
}
cudaError_t beginCaptureToGraph(const DriverTable &D, cudaStream_t S, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                const cudaGraphEdgeData *E, size_t N, cudaStreamCaptureMode Mode) {
  return inContextWith(
      [&](Context &) { return D.cuStreamBeginCaptureToGraph(S, G, Deps, edges(E), N, CUstreamCaptureMode(Mode)); });
}
cudaError_t endCapture(const DriverTable &D, cudaStream_t S, cudaGraph_t *G) {
  if (!G)
    return recordError(cudaErrorInvalidValue);
  return inContextWith([&](Context &) { return D.cuStreamEndCapture(S, G); });
}
cudaError_t isCapturing(const DriverTable &D, cudaStream_t S, cudaStreamCaptureStatus *St) {
  if (!St)
    return recordError(cudaErrorInvalidValue);
  return inContextWith(
      [&](Context &) { return D.cuStreamIsCapturing(S, reinterpret_cast<CUstreamCaptureStatus *>(St)); });
}
cudaError_t captureInfo(const DriverTable &D, cudaStream_t S, cudaStreamCaptureStatus *St, unsigned long long *Id,
                        cudaGraph_t *G, const cudaGraphNode_t **Deps, const cudaGraphEdgeData **E, size_t *N) {
  if (!St)
    return recordError(cudaErrorInvalidValue);
  return inContextWith([&](Context &) {
    static_assert(sizeof(cuuint64_t) == sizeof(unsigned long long));
    return D.cuStreamGetCaptureInfo(S, reinterpret_cast<CUstreamCaptureStatus *>(St),
                                    reinterpret_cast<cuuint64_t *>(Id), G, Deps,
                                    reinterpret_cast<const CUgraphEdgeData **>(E), N);
  });
}
cudaError_t updateCaptureDeps(const DriverTable &D, cudaStream_t S, cudaGraphNode_t *Deps,
                              const cudaGraphEdgeData *E, size_t N, unsigned Flags) {
  return inContextWith([&](Context &) { return D.cuStreamUpdateCaptureDependencies(S, Deps, edges(E), N, Flags); });
}
cudaError_t graphLaunch(const DriverTable &D, cudaGraphExec_t X, cudaStream_t S) {
  return inContextWith([&](Context &) { return D.cuGraphLaunch(X, S); });
}
cudaError_t graphUpload(const DriverTable &D, cudaGraphExec_t X, cudaStream_t S) {
  return inContextWith([&](Context &) { return D.cuGraphUpload(X, S); });
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

//===----------------------------------------------------------------------===//
// Stream capture
//===----------------------------------------------------------------------===//

cudaError_t cudaStreamBeginCapture(cudaStream_t S, enum cudaStreamCaptureMode M) {
  return beginCapture(driver(false), S, M);
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t S, enum cudaStreamCaptureMode M) {
  return beginCapture(driver(true), S, M);
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t S, cudaGraph_t G, const cudaGraphNode_t *D,
                                          const cudaGraphEdgeData *E, size_t N, enum cudaStreamCaptureMode M) {
  return beginCaptureToGraph(driver(false), S, G, D, E, N, M);
}
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t S, cudaGraph_t G, const cudaGraphNode_t *D,
                                               const cudaGraphEdgeData *E, size_t N,
                                               enum cudaStreamCaptureMode M) {
  return beginCaptureToGraph(driver(true), S, G, D, E, N, M);
}
cudaError_t cudaStreamEndCapture(cudaStream_t S, cudaGraph_t *G) { return endCapture(driver(false), S, G); }
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t S, cudaGraph_t *G) { return endCapture(driver(true), S, G); }
cudaError_t cudaStreamIsCapturing(cudaStream_t S, enum cudaStreamCaptureStatus *St) {
  return isCapturing(driver(false), S, St);
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t S, enum cudaStreamCaptureStatus *St) {
  return isCapturing(driver(true), S, St);
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t S, enum cudaStreamCaptureStatus *St, unsigned long long *Id,
                                     cudaGraph_t *G, const cudaGraphNode_t **D, const cudaGraphEdgeData **E,
                                     size_t *N) {
  return captureInfo(driver(false), S, St, Id, G, D, E, N);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t S, enum cudaStreamCaptureStatus *St,
                                          unsigned long long *Id, cudaGraph_t *G, const cudaGraphNode_t **D,
                                          const cudaGraphEdgeData **E, size_t *N) {
  return captureInfo(driver(true), S, St, Id, G, D, E, N);
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t S, cudaGraphNode_t *D, const cudaGraphEdgeData *E,
                                                size_t N, unsigned int Flags) {
  return updateCaptureDeps(driver(false), S, D, E, N, Flags);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t S, cudaGraphNode_t *D,
                                                     const cudaGraphEdgeData *E, size_t N, unsigned int Flags) {
  return updateCaptureDeps(driver(true), S, D, E, N, Flags);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *Mode) {
  if (!Mode)
    return recordError(cudaErrorInvalidValue);
  if (cudaError_t E = enterDriver())
    return E;
  return finish(driver().cuThreadExchangeStreamCaptureMode(reinterpret_cast<CUstreamCaptureMode *>(Mode)));
}

//===----------------------------------------------------------------------===//
// Graphs and nodes
//===----------------------------------------------------------------------===//

cudaError_t cudaGraphCreate(cudaGraph_t *G, unsigned int Flags) {
  if (!G)
    return recordError(cudaErrorInvalidValue);
  return inContextWith([&](Context &) { return driver().cuGraphCreate(G, Flags); });
}

cudaError_t cudaGraphDestroy(cudaGraph_t G) {
  return inContextWith([&](Context &) { return driver().cuGraphDestroy(G); });
}

cudaError_t cudaGraphClone(cudaGraph_t *Clone, cudaGraph_t G) {
  return inContextWith([&](Context &) { return driver().cuGraphClone(Clone, G); });
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *N, cudaGraphNode_t Orig, cudaGraph_t Clone) {
  return inContextWith([&](Context &) { return driver().cuGraphNodeFindInClone(N, Orig, Clone); });
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                                   const struct cudaKernelNodeParams *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_KERNEL_NODE_PARAMS Q;
  if (cudaError_t E = toDriverKernel(P, C.Ctx, Q))
    return recordError(E);
  return finish(driver().cuGraphAddKernelNode(N, G, Deps, NumDeps, &Q), C.Device);
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t N, struct cudaKernelNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_KERNEL_NODE_PARAMS Q{};
  if (CUresult R = driver().cuGraphKernelNodeGetParams(N, &Q))
    return finish(R, C.Device);
  // The runtime names kernels by their host stub; a kernel the registry
  // does not know (a driver-API module's) is reported by its handle.
  const void *Stub = lookupHostFunction(reinterpret_cast<CUkernel>(Q.func));
  P->func = const_cast<void *>(Stub ? Stub : static_cast<const void *>(Q.func));
  P->gridDim = dim3(Q.gridDimX, Q.gridDimY, Q.gridDimZ);
  P->blockDim = dim3(Q.blockDimX, Q.blockDimY, Q.blockDimZ);
  P->sharedMemBytes = Q.sharedMemBytes;
  P->kernelParams = Q.kernelParams;
  P->extra = Q.extra;
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t N, const struct cudaKernelNodeParams *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_KERNEL_NODE_PARAMS Q;
  if (cudaError_t E = toDriverKernel(P, C.Ctx, Q))
    return recordError(E);
  return finish(driver().cuGraphKernelNodeSetParams(N, &Q), C.Device);
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                   size_t NumDeps, const struct cudaMemcpy3DParms *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_MEMCPY3D Q;
  if (cudaError_t E = toDriverCopy(P, Q))
    return recordError(E);
  return finish(driver().cuGraphAddMemcpyNode(N, G, Deps, NumDeps, &Q, C.Ctx), C.Device);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                     size_t NumDeps, void *Dst, const void *Src, size_t Count,
                                     enum cudaMemcpyKind Kind) {
  cudaMemcpy3DParms P = copy1D(Dst, Src, Count, Kind);
  return cudaGraphAddMemcpyNode(N, G, Deps, NumDeps, &P);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t N, struct cudaMemcpy3DParms *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_MEMCPY3D Q{};
  if (CUresult R = driver().cuGraphMemcpyNodeGetParams(N, &Q))
    return finish(R, C.Device);
  auto Side = [](CUmemorytype T, const void *Host, CUdeviceptr Dev) {
    return T == CU_MEMORYTYPE_HOST ? const_cast<void *>(Host) : reinterpret_cast<void *>(Dev);
  };
  *P = cudaMemcpy3DParms{};
  P->srcPtr = cudaPitchedPtr{Side(Q.srcMemoryType, Q.srcHost, Q.srcDevice),
                             Q.srcPitch ? Q.srcPitch : Q.WidthInBytes, Q.WidthInBytes,
                             Q.srcHeight ? Q.srcHeight : Q.Height};
  P->dstPtr = cudaPitchedPtr{Side(Q.dstMemoryType, Q.dstHost, Q.dstDevice),
                             Q.dstPitch ? Q.dstPitch : Q.WidthInBytes, Q.WidthInBytes,
                             Q.dstHeight ? Q.dstHeight : Q.Height};
  P->extent = cudaExtent{Q.WidthInBytes, Q.Height, Q.Depth};
  P->kind = cudaMemcpyDefault;
  return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t N, const struct cudaMemcpy3DParms *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_MEMCPY3D Q;
  if (cudaError_t E = toDriverCopy(P, Q))
    return recordError(E);
  return finish(driver().cuGraphMemcpyNodeSetParams(N, &Q), C.Device);
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t N, void *Dst, const void *Src, size_t Count,
                                           enum cudaMemcpyKind Kind) {
  cudaMemcpy3DParms P = copy1D(Dst, Src, Count, Kind);
  return cudaGraphMemcpyNodeSetParams(N, &P);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                   size_t NumDeps, const struct cudaMemsetParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS Q = toDriverMemset(*P);
  return inContextWith([&](Context &C) { return driver().cuGraphAddMemsetNode(N, G, Deps, NumDeps, &Q, C.Ctx); });
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t N, struct cudaMemsetParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS Q{};
  cudaError_t E = inContextWith([&](Context &) { return driver().cuGraphMemsetNodeGetParams(N, &Q); });
  if (E == cudaSuccess)
    *P = cudaMemsetParams{reinterpret_cast<void *>(Q.dst), Q.pitch, Q.value, Q.elementSize, Q.width, Q.height};
  return E;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t N, const struct cudaMemsetParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS Q = toDriverMemset(*P);
  return inContextWith([&](Context &) { return driver().cuGraphMemsetNodeSetParams(N, &Q); });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                                 const struct cudaHostNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_HOST_NODE_PARAMS Q = toDriverHost(*P);
  return inContextWith([&](Context &) { return driver().cuGraphAddHostNode(N, G, Deps, NumDeps, &Q); });
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t N, struct cudaHostNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_HOST_NODE_PARAMS Q{};
  cudaError_t E = inContextWith([&](Context &) { return driver().cuGraphHostNodeGetParams(N, &Q); });
  if (E == cudaSuccess)
    *P = cudaHostNodeParams{Q.fn, Q.userData};
  return E;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t N, const struct cudaHostNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_HOST_NODE_PARAMS Q = toDriverHost(*P);
  return inContextWith([&](Context &) { return driver().cuGraphHostNodeSetParams(N, &Q); });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps) {
  return inContextWith([&](Context &) { return driver().cuGraphAddEmptyNode(N, G, Deps, NumDeps); });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                       size_t NumDeps, cudaGraph_t Child) {
  return inContextWith([&](Context &) { return driver().cuGraphAddChildGraphNode(N, G, Deps, NumDeps, Child); });
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t N, cudaGraph_t *G) {
  return inContextWith([&](Context &) { return driver().cuGraphChildGraphNodeGetGraph(N, G); });
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                        size_t NumDeps, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphAddEventRecordNode(N, G, Deps, NumDeps, Ev); });
}
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                      size_t NumDeps, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphAddEventWaitNode(N, G, Deps, NumDeps, Ev); });
}

//===----------------------------------------------------------------------===//
// Graph memory nodes and conditional nodes. cudaMemAllocNodeParams has
// CUDA_MEM_ALLOC_NODE_PARAMS's layout (cudaMemPoolProps, cudaMemAccessDesc
// are the driver's structs under other names).
//===----------------------------------------------------------------------===//

static_assert(sizeof(cudaMemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS));
static_assert(sizeof(cudaConditionalNodeParams) == sizeof(CUDA_CONDITIONAL_NODE_PARAMS) - sizeof(CUcontext));

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                                     struct cudaMemAllocNodeParams *P) {
  return inContextWith([&](Context &) {
    return driver().cuGraphAddMemAllocNode(N, G, Deps, NumDeps, reinterpret_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(P));
  });
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                                    void *Ptr) {
  return inContextWith([&](Context &) {
    return driver().cuGraphAddMemFreeNode(N, G, Deps, NumDeps, reinterpret_cast<CUdeviceptr>(Ptr));
  });
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t N, struct cudaMemAllocNodeParams *P) {
  return inContextWith([&](Context &) {
    return driver().cuGraphMemAllocNodeGetParams(N, reinterpret_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(P));
  });
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t N, void *Ptr) {
  return inContextWith(
      [&](Context &) { return driver().cuGraphMemFreeNodeGetParams(N, static_cast<CUdeviceptr *>(Ptr)); });
}

cudaError_t cudaDeviceGetGraphMemAttribute(int Dev, enum cudaGraphMemAttributeType A, void *V) {
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceGetGraphMemAttribute(H, CUgraphMem_attribute(A), V), Dev);
}

cudaError_t cudaDeviceSetGraphMemAttribute(int Dev, enum cudaGraphMemAttributeType A, void *V) {
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceSetGraphMemAttribute(H, CUgraphMem_attribute(A), V), Dev);
}

cudaError_t cudaDeviceGraphMemTrim(int Dev) {
  if (cudaError_t E = enterDriver())
    return E;
  CUdevice H;
  if (cudaError_t E = deviceHandle(Dev, H))
    return recordError(E);
  return finish(driver().cuDeviceGraphMemTrim(H), Dev);
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *Out, cudaGraph_t G, unsigned Default,
                                             unsigned Flags) {
  if (!Out)
    return recordError(cudaErrorInvalidValue);
  // Both are 64-bit handles; the driver spells it unsigned long.
  static_assert(sizeof(cudaGraphConditionalHandle) == sizeof(CUgraphConditionalHandle));
  CUgraphConditionalHandle H = 0;
  cudaError_t E = inContextWith(
      [&](Context &C) { return driver().cuGraphConditionalHandleCreate(&H, G, C.Ctx, Default, Flags); });
  if (E == cudaSuccess)
    *Out = H;
  return E;
}

/// cudaGraphAddNode of a conditional node: the driver makes the bodies and
/// returns them through the (context-carrying) driver struct.
static cudaError_t addConditionalNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                                      cudaConditionalNodeParams &P) {
  return inContextWith([&](Context &C) {
    CUgraphNodeParams Q{};
    Q.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    Q.conditional.handle = P.handle;
    Q.conditional.type = CUgraphConditionalNodeType(P.type);
    Q.conditional.size = P.size;
    Q.conditional.ctx = C.Ctx;
    CUresult R = driver().cuGraphAddNode(N, G, Deps, nullptr, NumDeps, &Q);
    if (R == CUDA_SUCCESS)
      P.phGraph_out = Q.conditional.phGraph_out;
    return R;
  });
}
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t N, cudaEvent_t *Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphEventRecordNodeGetEvent(N, Ev); });
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t N, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphEventRecordNodeSetEvent(N, Ev); });
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t N, cudaEvent_t *Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphEventWaitNodeGetEvent(N, Ev); });
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t N, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphEventWaitNodeSetEvent(N, Ev); });
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t G, const cudaGraphNode_t *From, const cudaGraphNode_t *To,
                                     const cudaGraphEdgeData *E, size_t N) {
  return inContextWith([&](Context &) { return driver().cuGraphAddDependencies(G, From, To, edges(E), N); });
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t G, const cudaGraphNode_t *From, const cudaGraphNode_t *To,
                                        const cudaGraphEdgeData *E, size_t N) {
  return inContextWith([&](Context &) { return driver().cuGraphRemoveDependencies(G, From, To, edges(E), N); });
}
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t N) {
  return inContextWith([&](Context &) { return driver().cuGraphDestroyNode(N); });
}
cudaError_t cudaGraphGetNodes(cudaGraph_t G, cudaGraphNode_t *Nodes, size_t *Num) {
  return inContextWith([&](Context &) { return driver().cuGraphGetNodes(G, Nodes, Num); });
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t G, cudaGraphNode_t *Nodes, size_t *Num) {
  return inContextWith([&](Context &) { return driver().cuGraphGetRootNodes(G, Nodes, Num); });
}
cudaError_t cudaGraphGetEdges(cudaGraph_t G, cudaGraphNode_t *From, cudaGraphNode_t *To, cudaGraphEdgeData *E,
                              size_t *Num) {
  return inContextWith([&](Context &) {
    return driver().cuGraphGetEdges(G, From, To, reinterpret_cast<CUgraphEdgeData *>(E), Num);
  });
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t N, cudaGraphNode_t *Deps, cudaGraphEdgeData *E,
                                         size_t *Num) {
  return inContextWith([&](Context &) {
    return driver().cuGraphNodeGetDependencies(N, Deps, reinterpret_cast<CUgraphEdgeData *>(E), Num);
  });
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t N, cudaGraphNode_t *Deps, cudaGraphEdgeData *E,
                                           size_t *Num) {
  return inContextWith([&](Context &) {
    return driver().cuGraphNodeGetDependentNodes(N, Deps, reinterpret_cast<CUgraphEdgeData *>(E), Num);
  });
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t N, enum cudaGraphNodeType *T) {
  return inContextWith(
      [&](Context &) { return driver().cuGraphNodeGetType(N, reinterpret_cast<CUgraphNodeType *>(T)); });
}
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t G, const char *Path, unsigned int Flags) {
  return inContextWith([&](Context &) { return driver().cuGraphDebugDotPrint(G, Path, Flags); });
}

//===----------------------------------------------------------------------===//
// Executable graphs
//===----------------------------------------------------------------------===//

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *X, cudaGraph_t G, unsigned long long Flags) {
  return inContextWith([&](Context &) { return driver().cuGraphInstantiateWithFlags(X, G, Flags); });
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *X, cudaGraph_t G, unsigned long long Flags) {
  return inContextWith([&](Context &) { return driver().cuGraphInstantiateWithFlags(X, G, Flags); });
}
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *X, cudaGraph_t G, cudaGraphInstantiateParams *P) {
  static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS));
  return inContextWith([&](Context &) {
    return driver().cuGraphInstantiateWithParams(X, G, reinterpret_cast<CUDA_GRAPH_INSTANTIATE_PARAMS *>(P));
  });
}
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *X, cudaGraph_t G, cudaGraphInstantiateParams *P) {
  return cudaGraphInstantiateWithParams(X, G, P);
}
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t X, unsigned long long *Flags) {
  return inContextWith([&](Context &) {
    return driver().cuGraphExecGetFlags(X, reinterpret_cast<cuuint64_t *>(Flags));
  });
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t X) {
  return inContextWith([&](Context &) { return driver().cuGraphExecDestroy(X); });
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t X, cudaStream_t S) { return graphLaunch(driver(false), X, S); }
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t X, cudaStream_t S) { return graphLaunch(driver(true), X, S); }
cudaError_t cudaGraphUpload(cudaGraphExec_t X, cudaStream_t S) { return graphUpload(driver(false), X, S); }
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t X, cudaStream_t S) { return graphUpload(driver(true), X, S); }

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t X, cudaGraphNode_t N,
                                             const struct cudaKernelNodeParams *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_KERNEL_NODE_PARAMS Q;
  if (cudaError_t E = toDriverKernel(P, C.Ctx, Q))
    return recordError(E);
  return finish(driver().cuGraphExecKernelNodeSetParams(X, N, &Q), C.Device);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t X, cudaGraphNode_t N,
                                             const struct cudaMemcpy3DParms *P) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUDA_MEMCPY3D Q;
  if (cudaError_t E = toDriverCopy(P, Q))
    return recordError(E);
  return finish(driver().cuGraphExecMemcpyNodeSetParams(X, N, &Q, C.Ctx), C.Device);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t X, cudaGraphNode_t N, void *Dst, const void *Src,
                                               size_t Count, enum cudaMemcpyKind Kind) {
  cudaMemcpy3DParms P = copy1D(Dst, Src, Count, Kind);
  return cudaGraphExecMemcpyNodeSetParams(X, N, &P);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t X, cudaGraphNode_t N,
                                             const struct cudaMemsetParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS Q = toDriverMemset(*P);
  return inContextWith([&](Context &C) { return driver().cuGraphExecMemsetNodeSetParams(X, N, &Q, C.Ctx); });
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t X, cudaGraphNode_t N,
                                           const struct cudaHostNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  CUDA_HOST_NODE_PARAMS Q = toDriverHost(*P);
  return inContextWith([&](Context &) { return driver().cuGraphExecHostNodeSetParams(X, N, &Q); });
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t X, cudaGraphNode_t N, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphExecEventRecordNodeSetEvent(X, N, Ev); });
}
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t X, cudaGraphNode_t N, cudaEvent_t Ev) {
  return inContextWith([&](Context &) { return driver().cuGraphExecEventWaitNodeSetEvent(X, N, Ev); });
}
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t X, cudaGraphNode_t N, unsigned int Enabled) {
  return inContextWith([&](Context &) { return driver().cuGraphNodeSetEnabled(X, N, Enabled); });
}
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t X, cudaGraphNode_t N, unsigned int *Enabled) {
  return inContextWith([&](Context &) { return driver().cuGraphNodeGetEnabled(X, N, Enabled); });
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t X, cudaGraph_t G, cudaGraphExecUpdateResultInfo *Info) {
  static_assert(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(CUgraphExecUpdateResultInfo));
  return inContextWith([&](Context &) {
    return driver().cuGraphExecUpdate(X, G, reinterpret_cast<CUgraphExecUpdateResultInfo *>(Info));
  });
}

//===----------------------------------------------------------------------===//
// Generic node parameters (cudaGraphNodeParams): each type goes to its own
// entry point above. The V2 structs have their V1 twins' layouts.
//===----------------------------------------------------------------------===//

static_assert(sizeof(cudaKernelNodeParamsV2) == sizeof(cudaKernelNodeParams));
static_assert(sizeof(cudaMemsetParamsV2) == sizeof(cudaMemsetParams));
static_assert(sizeof(cudaHostNodeParamsV2) == sizeof(cudaHostNodeParams));

cudaError_t cudaGraphAddNode(cudaGraphNode_t *N, cudaGraph_t G, const cudaGraphNode_t *Deps,
                             const cudaGraphEdgeData *E, size_t NumDeps, struct cudaGraphNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  for (size_t I = 0; E && I < NumDeps; ++I)
    if (E[I].type != cudaGraphDependencyTypeDefault || E[I].from_port || E[I].to_port)
      return recordError(cudaErrorNotSupported);
  switch (P->type) {
  case cudaGraphNodeTypeKernel:
    return cudaGraphAddKernelNode(N, G, Deps, NumDeps, reinterpret_cast<const cudaKernelNodeParams *>(&P->kernel));
  case cudaGraphNodeTypeMemcpy:
    return cudaGraphAddMemcpyNode(N, G, Deps, NumDeps, &P->memcpy.copyParams);
  case cudaGraphNodeTypeMemset:
    return cudaGraphAddMemsetNode(N, G, Deps, NumDeps, reinterpret_cast<const cudaMemsetParams *>(&P->memset));
  case cudaGraphNodeTypeHost:
    return cudaGraphAddHostNode(N, G, Deps, NumDeps, reinterpret_cast<const cudaHostNodeParams *>(&P->host));
  case cudaGraphNodeTypeGraph:
    if (P->graph.ownership != cudaGraphChildGraphOwnershipClone)
      return recordError(cudaErrorNotSupported);
    return cudaGraphAddChildGraphNode(N, G, Deps, NumDeps, P->graph.graph);
  case cudaGraphNodeTypeEmpty:
    return cudaGraphAddEmptyNode(N, G, Deps, NumDeps);
  case cudaGraphNodeTypeWaitEvent:
    return cudaGraphAddEventWaitNode(N, G, Deps, NumDeps, P->eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return cudaGraphAddEventRecordNode(N, G, Deps, NumDeps, P->eventRecord.event);
  case cudaGraphNodeTypeMemAlloc:
    static_assert(sizeof(cudaMemAllocNodeParamsV2) == sizeof(cudaMemAllocNodeParams));
    return cudaGraphAddMemAllocNode(N, G, Deps, NumDeps, reinterpret_cast<cudaMemAllocNodeParams *>(&P->alloc));
  case cudaGraphNodeTypeMemFree:
    return cudaGraphAddMemFreeNode(N, G, Deps, NumDeps, P->free.dptr);
  case cudaGraphNodeTypeConditional:
    return addConditionalNode(N, G, Deps, NumDeps, P->conditional);
  default:
    logMessage("cudaGraphAddNode: node type %d is not supported", int(P->type));
    return recordError(cudaErrorNotSupported);
  }
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t N, struct cudaGraphNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  switch (P->type) {
  case cudaGraphNodeTypeKernel:
    return cudaGraphKernelNodeSetParams(N, reinterpret_cast<const cudaKernelNodeParams *>(&P->kernel));
  case cudaGraphNodeTypeMemcpy:
    return cudaGraphMemcpyNodeSetParams(N, &P->memcpy.copyParams);
  case cudaGraphNodeTypeMemset:
    return cudaGraphMemsetNodeSetParams(N, reinterpret_cast<const cudaMemsetParams *>(&P->memset));
  case cudaGraphNodeTypeHost:
    return cudaGraphHostNodeSetParams(N, reinterpret_cast<const cudaHostNodeParams *>(&P->host));
  case cudaGraphNodeTypeWaitEvent:
    return cudaGraphEventWaitNodeSetEvent(N, P->eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return cudaGraphEventRecordNodeSetEvent(N, P->eventRecord.event);
  default:
    logMessage("cudaGraphNodeSetParams: node type %d is not supported", int(P->type));
    return recordError(cudaErrorNotSupported);
  }
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t X, cudaGraphNode_t N, struct cudaGraphNodeParams *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  switch (P->type) {
  case cudaGraphNodeTypeKernel:
    return cudaGraphExecKernelNodeSetParams(X, N, reinterpret_cast<const cudaKernelNodeParams *>(&P->kernel));
  case cudaGraphNodeTypeMemcpy:
    return cudaGraphExecMemcpyNodeSetParams(X, N, &P->memcpy.copyParams);
  case cudaGraphNodeTypeMemset:
    return cudaGraphExecMemsetNodeSetParams(X, N, reinterpret_cast<const cudaMemsetParams *>(&P->memset));
  case cudaGraphNodeTypeHost:
    return cudaGraphExecHostNodeSetParams(X, N, reinterpret_cast<const cudaHostNodeParams *>(&P->host));
  case cudaGraphNodeTypeWaitEvent:
    return cudaGraphExecEventWaitNodeSetEvent(X, N, P->eventWait.event);
  case cudaGraphNodeTypeEventRecord:
    return cudaGraphExecEventRecordNodeSetEvent(X, N, P->eventRecord.event);
  default:
    logMessage("cudaGraphExecNodeSetParams: node type %d is not supported", int(P->type));
    return recordError(cudaErrorNotSupported);
  }
}

} // extern "C"
