/// \file
/// Stream capture entry points: begin/end, status queries, dependency
/// updates and the per-thread capture mode (the logic is in
/// core/Capture.cpp). `_ptsz` forms treat stream 0 as the per-thread
/// stream, which can capture; the legacy stream cannot.
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"

#include <map>

using namespace ferry;
using namespace ferry::api;
using core::GraphNode;
namespace capture = core::capture;

namespace {

/// The arrays cuStreamGetCaptureInfo hands out stay valid until the next
/// query of the same stream, so they are kept per stream here.
struct InfoArrays {
  std::vector<CUgraphNode> Nodes;
  std::vector<CUgraphEdgeData> Edges;
};
std::mutex InfoM;
std::map<uint64_t, InfoArrays> &infoArrays() {
  static auto *M = new std::map<uint64_t, InfoArrays>;
  return *M;
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

CUresult begin(const char *Fn, CUstream h, CUstreamCaptureMode Mode, bool PerThread, CUgraph G = nullptr,
               const CUgraphNode *Deps = nullptr, const CUgraphEdgeData *EdgeData = nullptr,
               size_t NumDeps = 0) {
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  core::Ref<core::Graph> Into;
  if (G) {
    auto R = core::resolve<core::Graph>(G);
    if (!R)
      return fail(Fn, R.error());
    Into = *R;
  }
  auto D = nodeList(Deps, NumDeps);
  if (!D)
    return fail(Fn, D.error());
  if (Status St = defaultEdges(EdgeData, NumDeps); !St)
    return done(Fn, std::move(St));
  return done(Fn, capture::begin(**S, capture::Mode(Mode), std::move(Into), std::move(*D)));
}

CUresult end(const char *Fn, CUstream h, CUgraph *phGraph, bool PerThread) {
  if (!phGraph)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "phGraph is null");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  *phGraph = nullptr;
  auto G = capture::end(**S);
  if (!G)
    return fail(Fn, G.error());
  *phGraph = handleOf<CUgraph>(G->get());
  return CUDA_SUCCESS;
}

CUresult isCapturing(const char *Fn, CUstream h, CUstreamCaptureStatus *Status, bool PerThread) {
  if (!Status)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "captureStatus is null");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  *Status = CUstreamCaptureStatus(capture::query(**S).Status);
  return CUDA_SUCCESS;
}

CUresult captureInfo(const char *Fn, CUstream h, CUstreamCaptureStatus *Status, cuuint64_t *Id,
                     CUgraph *Graph, const CUgraphNode **Deps, const CUgraphEdgeData **Edges,
                     size_t *NumDeps, bool PerThread) {
  if (!Status)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "captureStatus_out is null");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  capture::Info I = capture::query(**S);
  *Status = CUstreamCaptureStatus(I.Status);
  if (Id && I.Status != capture::State::None)
    *Id = I.Id;
  if (Graph)
    *Graph = I.Status == capture::State::None ? nullptr : handleOf<CUgraph>(I.G.get());
  std::lock_guard<std::mutex> L(InfoM);
  InfoArrays &A = infoArrays()[(*S)->id()];
  A.Nodes.clear();
  for (GraphNode *N : I.Deps)
    A.Nodes.push_back(handleOf<CUgraphNode>(N));
  A.Edges.assign(A.Nodes.size(), CUgraphEdgeData{});
  if (I.Status == capture::State::None)
    infoArrays().erase((*S)->id());
  bool Any = I.Status != capture::State::None && !I.Deps.empty();
  if (Deps)
    *Deps = Any ? infoArrays()[(*S)->id()].Nodes.data() : nullptr;
  if (Edges)
    *Edges = Any ? infoArrays()[(*S)->id()].Edges.data() : nullptr;
  if (NumDeps)
    *NumDeps = I.Status == capture::State::None ? 0 : I.Deps.size();
  return CUDA_SUCCESS;
}

CUresult updateDeps(const char *Fn, CUstream h, CUgraphNode *Deps, const CUgraphEdgeData *EdgeData, size_t N,
                    unsigned Flags, bool PerThread) {
  if (Flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown flags");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  auto D = nodeList(Deps, N);
  if (!D)
    return fail(Fn, D.error());
  if (Status St = defaultEdges(EdgeData, N); !St)
    return done(Fn, std::move(St));
  return done(Fn, capture::updateDependencies(**S, std::move(*D), Flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES));
}

} // namespace

// clang-format off
FERRY_EXPORT CUresult cuStreamBeginCapture(CUstream h) { return begin(__func__, h, CU_STREAM_CAPTURE_MODE_GLOBAL, false); }
FERRY_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream h) { return begin(__func__, h, CU_STREAM_CAPTURE_MODE_GLOBAL, true); }
FERRY_EXPORT CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode m) { return begin(__func__, h, m, false); }
FERRY_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode m) { return begin(__func__, h, m, true); }
FERRY_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream h, CUgraph g, const CUgraphNode *d, const CUgraphEdgeData *e, size_t n, CUstreamCaptureMode m) {
  if (!g) return fail(__func__, CUDA_ERROR_INVALID_VALUE, "hGraph is null");
  return begin(__func__, h, m, false, g, d, e, n);
}
FERRY_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *d, const CUgraphEdgeData *e, size_t n, CUstreamCaptureMode m) {
  if (!g) return fail(__func__, CUDA_ERROR_INVALID_VALUE, "hGraph is null");
  return begin(__func__, h, m, true, g, d, e, n);
}
FERRY_EXPORT CUresult cuStreamEndCapture(CUstream h, CUgraph *g) { return end(__func__, h, g, false); }
FERRY_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream h, CUgraph *g) { return end(__func__, h, g, true); }
FERRY_EXPORT CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *s) { return isCapturing(__func__, h, s, false); }
FERRY_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus *s) { return isCapturing(__func__, h, s, true); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id) { return captureInfo(__func__, h, s, id, nullptr, nullptr, nullptr, nullptr, false); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id) { return captureInfo(__func__, h, s, id, nullptr, nullptr, nullptr, nullptr, true); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id, CUgraph *g, const CUgraphNode **d, size_t *n) { return captureInfo(__func__, h, s, id, g, d, nullptr, n, false); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id, CUgraph *g, const CUgraphNode **d, size_t *n) { return captureInfo(__func__, h, s, id, g, d, nullptr, n, true); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id, CUgraph *g, const CUgraphNode **d, const CUgraphEdgeData **e, size_t *n) { return captureInfo(__func__, h, s, id, g, d, e, n, false); }
FERRY_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *s, cuuint64_t *id, CUgraph *g, const CUgraphNode **d, const CUgraphEdgeData **e, size_t *n) { return captureInfo(__func__, h, s, id, g, d, e, n, true); }
FERRY_EXPORT CUresult cuStreamUpdateCaptureDependencies(CUstream h, CUgraphNode *d, size_t n, unsigned int f) { return updateDeps(__func__, h, d, nullptr, n, f, false); }
FERRY_EXPORT CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream h, CUgraphNode *d, size_t n, unsigned int f) { return updateDeps(__func__, h, d, nullptr, n, f, true); }
FERRY_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(CUstream h, CUgraphNode *d, const CUgraphEdgeData *e, size_t n, unsigned int f) { return updateDeps(__func__, h, d, e, n, f, false); }
FERRY_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream h, CUgraphNode *d, const CUgraphEdgeData *e, size_t n, unsigned int f) { return updateDeps(__func__, h, d, e, n, f, true); }
// clang-format on

FERRY_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  if (!mode)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "mode is null");
  if (int(*mode) < 0 || int(*mode) > 2)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown capture mode " + std::to_string(int(*mode)));
  *mode = CUstreamCaptureMode(capture::exchangeThreadMode(capture::Mode(*mode)));
  return CUDA_SUCCESS;
}
