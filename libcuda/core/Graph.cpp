/// \file
/// Graphs, their nodes and edges, and executable graphs (see Graph.h).
/// Instantiation copies every node's work and fixes one topological order;
/// a launch enqueues that order on the stream's in-order queue in a single
/// submit, so a graph launch is ordered like any other stream command.
#include "libcuda/core/Graph.h"

#include <algorithm>
#include <set>

namespace ferry::core {

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

Graph::~Graph() {
  // A graph dies once its handle is gone (destroy) or, for a graph never
  // handed out (a failed capture), when its last owner lets go; either way
  // its nodes and child graphs must stop resolving.
  for (auto &N : Nodes) {
    retire(N.get());
    if (N->Work.Child)
      N->Work.Child->destroy();
  }
}

Ref<Graph> Graph::create() {
  auto G = std::make_shared<Graph>();
  publish(G);
  return G;
}

void Graph::refreshParamPtrs(GraphNode &N) {
  N.ParamPtrs.clear();
  const LaunchRequest &L = N.Work.Launch;
  if (N.Work.Type != NodeType::Kernel || !L.Code)
    return;
  auto Info = L.Code->info();
  if (L.KernelIndex >= Info.size())
    return;
  for (const KernelParam &P : Info[L.KernelIndex].Params)
    N.ParamPtrs.push_back(const_cast<std::byte *>(L.Args.data()) + P.Offset);
}

Expected<Ref<GraphNode>> Graph::addNode(NodeWork W, std::span<GraphNode *const> Deps) {
  std::lock_guard<std::mutex> L(M);
  for (size_t I = 0; I < Deps.size(); ++I) {
    if (!Deps[I] || !contains(*Deps[I]))
      return makeError(CUDA_ERROR_INVALID_VALUE, "a dependency is not a node of this graph");
    for (size_t J = 0; J < I; ++J)
      if (Deps[J] == Deps[I])
        return makeError(CUDA_ERROR_INVALID_VALUE, "a dependency is listed twice");
  }
  auto N = std::make_shared<GraphNode>(*this, std::move(W));
  for (GraphNode *D : Deps) {
    N->Deps.push_back(D);
    D->Dependents.push_back(N.get());
  }
  refreshParamPtrs(*N);
  Nodes.push_back(N);
  publish(N);
  return N;
}

Status Graph::addEdges(std::span<GraphNode *const> From, std::span<GraphNode *const> To) {
  std::lock_guard<std::mutex> L(M);
  // Validate everything first: a failed call adds no edge.
  std::set<std::pair<GraphNode *, GraphNode *>> New;
  for (size_t I = 0; I < From.size(); ++I) {
    GraphNode *A = From[I], *B = To[I];
    if (!A || !B || !contains(*A) || !contains(*B))
      return makeError(CUDA_ERROR_INVALID_VALUE, "an edge endpoint is not a node of this graph");
    if (A == B)
      return makeError(CUDA_ERROR_INVALID_VALUE, "an edge from a node to itself");
    if (std::find(B->Deps.begin(), B->Deps.end(), A) != B->Deps.end() || !New.insert({A, B}).second)
      return makeError(CUDA_ERROR_INVALID_VALUE, "the edge already exists");
  }
  for (size_t I = 0; I < From.size(); ++I) {
    To[I]->Deps.push_back(From[I]);
    From[I]->Dependents.push_back(To[I]);
  }
  return Status::ok();
}

static void eraseOne(std::vector<GraphNode *> &V, GraphNode *N) {
  V.erase(std::remove(V.begin(), V.end(), N), V.end());
}

Status Graph::removeEdges(std::span<GraphNode *const> From, std::span<GraphNode *const> To) {
  std::lock_guard<std::mutex> L(M);
  for (size_t I = 0; I < From.size(); ++I) {
    GraphNode *A = From[I], *B = To[I];
    if (!A || !B || !contains(*A) || !contains(*B) ||
        std::find(B->Deps.begin(), B->Deps.end(), A) == B->Deps.end())
      return makeError(CUDA_ERROR_INVALID_VALUE, "no such edge in this graph");
  }
  for (size_t I = 0; I < From.size(); ++I) {
    eraseOne(To[I]->Deps, From[I]);
    eraseOne(From[I]->Dependents, To[I]);
  }
  return Status::ok();
}

Status Graph::destroyNode(GraphNode &N) {
  Ref<GraphNode> Keep;
  {
    std::lock_guard<std::mutex> L(M);
    if (!contains(N))
      return makeError(CUDA_ERROR_INVALID_VALUE, "not a node of this graph");
    for (GraphNode *D : N.Deps)
      eraseOne(D->Dependents, &N);
    for (GraphNode *D : N.Dependents)
      eraseOne(D->Deps, &N);
    N.Deps.clear();
    N.Dependents.clear();
    auto It = std::find_if(Nodes.begin(), Nodes.end(), [&](auto &P) { return P.get() == &N; });
    Keep = *It;
    Nodes.erase(It);
    for (auto I = CloneMap.begin(); I != CloneMap.end();)
      I = I->second == &N ? CloneMap.erase(I) : std::next(I);
  }
  retire(&N);
  if (Keep->Work.Child)
    Keep->Work.Child->destroy();
  return Status::ok();
}

std::vector<GraphNode *> Graph::nodes() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<GraphNode *> Out;
  for (auto &N : Nodes)
    Out.push_back(N.get());
  return Out;
}

std::vector<GraphNode *> Graph::roots() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<GraphNode *> Out;
  for (auto &N : Nodes)
    if (N->Deps.empty())
      Out.push_back(N.get());
  return Out;
}

std::vector<std::pair<GraphNode *, GraphNode *>> Graph::edges() const {
  std::lock_guard<std::mutex> L(M);
  std::vector<std::pair<GraphNode *, GraphNode *>> Out;
  for (auto &N : Nodes)
    for (GraphNode *D : N->Dependents)
      Out.push_back({N.get(), D});
  return Out;
}

/// Kahn's algorithm over creation indices; Nodes must be locked.
static Expected<std::vector<size_t>> topoIndices(const std::vector<Ref<GraphNode>> &Nodes) {
  std::map<const GraphNode *, size_t> Index;
  for (size_t I = 0; I < Nodes.size(); ++I)
    Index[Nodes[I].get()] = I;
  std::vector<size_t> InDegree(Nodes.size());
  std::set<size_t> Ready;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    InDegree[I] = Nodes[I]->Deps.size();
    if (!InDegree[I])
      Ready.insert(I);
  }
  std::vector<size_t> Order;
  while (!Ready.empty()) {
    size_t I = *Ready.begin();
    Ready.erase(Ready.begin());
    Order.push_back(I);
    for (GraphNode *D : Nodes[I]->Dependents)
      if (--InDegree[Index[D]] == 0)
        Ready.insert(Index[D]);
  }
  if (Order.size() != Nodes.size())
    return makeError(CUDA_ERROR_INVALID_VALUE, "the graph has a cycle");
  return Order;
}

Expected<std::vector<GraphNode *>> Graph::topologicalOrder() const {
  std::lock_guard<std::mutex> L(M);
  auto Order = topoIndices(Nodes);
  if (!Order)
    return Order.takeError();
  std::vector<GraphNode *> Out;
  for (size_t I : *Order)
    Out.push_back(Nodes[I].get());
  return Out;
}

/// Child graphs are owned by their node: copying work copies the child.
static Expected<NodeWork> copyWork(const NodeWork &W) {
  NodeWork C = W;
  if (W.Child) {
    auto Child = W.Child->clone();
    if (!Child)
      return Child.takeError();
    C.Child = *Child;
  }
  return C;
}

Expected<Ref<Graph>> Graph::clone() const {
  auto G = Graph::create();
  std::lock_guard<std::mutex> L(M);
  std::map<const GraphNode *, GraphNode *> Map;
  for (auto &N : Nodes) {
    auto W = copyWork(N->Work);
    if (!W) {
      G->destroy();
      return W.takeError();
    }
    // Edges are copied once every node exists: cuGraphAddDependencies may
    // have made a node depend on a later one.
    auto C = G->addNode(std::move(*W), {});
    if (!C) {
      G->destroy();
      return C.takeError();
    }
    Map[N.get()] = C->get();
  }
  for (auto &N : Nodes)
    for (GraphNode *D : N->Deps) {
      GraphNode *From = Map.at(D), *To = Map.at(N.get());
      To->Deps.push_back(From);
      From->Dependents.push_back(To);
    }
  G->CloneMap = std::move(Map);
  return G;
}

GraphNode *Graph::cloneOf(const GraphNode *Original) const {
  std::lock_guard<std::mutex> L(M);
  auto It = CloneMap.find(Original);
  return It == CloneMap.end() ? nullptr : It->second;
}

Status Graph::setWork(GraphNode &N, NodeWork W) {
  std::lock_guard<std::mutex> L(M);
  if (!contains(N))
    return makeError(CUDA_ERROR_INVALID_VALUE, "not a node of this graph");
  if (N.Work.Type != W.Type)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the node is of another type");
  N.Work = std::move(W);
  refreshParamPtrs(N);
  return Status::ok();
}

NodeWork Graph::work(const GraphNode &N) const {
  std::lock_guard<std::mutex> L(M);
  return N.Work;
}

void Graph::destroy() {
  std::vector<Ref<GraphNode>> Ns;
  {
    std::lock_guard<std::mutex> L(M);
    Ns = Nodes;
  }
  for (auto &N : Ns) {
    retire(N.get());
    if (N->Work.Child)
      N->Work.Child->destroy();
  }
  retire(this);
}

//===----------------------------------------------------------------------===//
// GraphExec
//===----------------------------------------------------------------------===//

Expected<Ref<GraphExec>> GraphExec::instantiate(Graph &G, unsigned long long Flags) {
  // CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: launching from device code.
  if (Flags & 4)
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "graphs launched from the device are not supported");
  auto X = std::make_shared<GraphExec>();
  X->Flags = Flags;
  {
    std::lock_guard<std::mutex> L(G.M);
    auto Order = topoIndices(G.Nodes);
    if (!Order)
      return Order.takeError();
    X->StepIndex.assign(G.Nodes.size(), 0);
    std::map<const GraphNode *, size_t> Index;
    for (size_t I = 0; I < G.Nodes.size(); ++I) {
      Index[G.Nodes[I].get()] = I;
      X->Sources.push_back(G.Nodes[I]);
    }
    for (size_t I = 0; I < G.Nodes.size(); ++I)
      for (GraphNode *D : G.Nodes[I]->Deps)
        X->Edges.push_back({Index[D], I});
    std::sort(X->Edges.begin(), X->Edges.end());
    for (size_t I : *Order) {
      X->StepIndex[I] = X->Steps.size();
      X->Steps.push_back(Step{G.Nodes[I]->Work, nullptr, true});
    }
  }
  for (Step &S : X->Steps)
    if (S.Work.Child) {
      auto C = instantiate(*S.Work.Child, Flags);
      if (!C)
        return C.takeError();
      S.Child = *C;
    }
  publish(X);
  return X;
}

Status GraphExec::enqueueOn(Queue &Q) const {
  std::lock_guard<std::mutex> L(M);
  for (const Step &S : Steps) {
    if (!S.Enabled)
      continue;
    const NodeWork &W = S.Work;
    Status St = Status::ok();
    switch (W.Type) {
    case NodeType::Kernel:
      St = Q.enqueueLaunch(W.Launch);
      break;
    case NodeType::Memcpy:
      St = Q.enqueueCopy(W.Copy);
      break;
    case NodeType::Memset:
      St = Q.enqueueFill(W.Fill);
      break;
    case NodeType::Host:
      if (W.HostFn) {
        // Host functions are skipped once the context has faulted, as on
        // NVIDIA (and as cuLaunchHostFunc does).
        St = Q.enqueueHostFunction([Fn = W.HostFn, Data = W.HostData](CUresult R) {
          if (R == CUDA_SUCCESS)
            Fn(Data);
        });
      } else if (W.Callback) {
        St = Q.enqueueHostFunction(W.Callback);
      }
      break;
    case NodeType::Child:
      if (S.Child)
        St = S.Child->enqueueOn(Q);
      break;
    case NodeType::Empty:
      break;
    case NodeType::WaitEvent:
      if (auto Sig = W.Ev->signal())
        St = Q.enqueueWait(std::move(Sig));
      break;
    case NodeType::EventRecord: {
      auto Sig = Q.enqueueSignal();
      if (!Sig)
        return Sig.takeError();
      W.Ev->setSignal(std::move(*Sig));
      break;
    }
    }
    if (!St)
      return St;
  }
  return Status::ok();
}

Status GraphExec::launch(Stream &S) {
  if (auto R = capture::onGraphLaunch(S, *this))
    return std::move(*R);
  if (Status St = S.context().stickyError(); !St)
    return St;
  return S.submit([&](Queue &Q) { return enqueueOn(Q); });
}

Expected<size_t> GraphExec::stepOf(const GraphNode &Orig) const {
  for (size_t I = 0; I < Sources.size(); ++I)
    if (Sources[I].get() == &Orig)
      return StepIndex[I];
  return makeError(CUDA_ERROR_INVALID_VALUE, "the node is not part of the instantiated graph");
}

Status GraphExec::setWork(const GraphNode &Orig, NodeWork W) {
  Ref<GraphExec> Child;
  if (W.Child) {
    auto C = instantiate(*W.Child, Flags);
    if (!C)
      return C.takeError();
    Child = *C;
  }
  std::lock_guard<std::mutex> L(M);
  auto I = stepOf(Orig);
  if (!I)
    return I.takeError();
  Step &S = Steps[*I];
  if (S.Work.Type != W.Type)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the node is of another type");
  S.Work = std::move(W);
  S.Child = std::move(Child);
  return Status::ok();
}

Status GraphExec::setEnabled(const GraphNode &Orig, bool Enabled) {
  std::lock_guard<std::mutex> L(M);
  auto I = stepOf(Orig);
  if (!I)
    return I.takeError();
  NodeType T = Steps[*I].Work.Type;
  if (T != NodeType::Kernel && T != NodeType::Memcpy && T != NodeType::Memset)
    return makeError(CUDA_ERROR_INVALID_VALUE, "only kernel, memcpy and memset nodes can be disabled");
  Steps[*I].Enabled = Enabled;
  return Status::ok();
}

Expected<bool> GraphExec::enabled(const GraphNode &Orig) const {
  std::lock_guard<std::mutex> L(M);
  auto I = stepOf(Orig);
  if (!I)
    return I.takeError();
  return Steps[*I].Enabled;
}

Status GraphExec::update(Graph &G, UpdateResult &R) {
  std::vector<NodeWork> Works;
  {
    std::lock_guard<std::mutex> GL(G.M);
    std::lock_guard<std::mutex> L(M);
    R = UpdateResult{};
    auto Fail = [&](int Why, GraphNode *N, const char *Msg) -> Status {
      R.Result = Why;
      R.ErrorNode = N;
      return makeError(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, Msg);
    };
    // CUgraphExecUpdateResult: 2 topology changed, 3 node type changed,
    // 6 not supported.
    if (G.Nodes.size() != Sources.size())
      return Fail(2, nullptr, "the graph has a different number of nodes");
    std::map<const GraphNode *, size_t> Index;
    for (size_t I = 0; I < G.Nodes.size(); ++I)
      Index[G.Nodes[I].get()] = I;
    std::vector<std::pair<size_t, size_t>> E;
    for (size_t I = 0; I < G.Nodes.size(); ++I)
      for (GraphNode *D : G.Nodes[I]->Deps)
        E.push_back({Index[D], I});
    std::sort(E.begin(), E.end());
    if (E != Edges)
      return Fail(2, nullptr, "the graph has different edges");
    for (size_t I = 0; I < G.Nodes.size(); ++I) {
      const NodeWork &Old = Steps[StepIndex[I]].Work, &New = G.Nodes[I]->Work;
      if (Old.Type != New.Type)
        return Fail(3, G.Nodes[I].get(), "a node changed type");
      if (Old.Ctx != New.Ctx)
        return Fail(1, G.Nodes[I].get(), "a node changed context");
      if (New.Type == NodeType::Child || New.Type == NodeType::EventRecord ||
          New.Type == NodeType::WaitEvent) {
        if (New.Type == NodeType::Child || Old.Ev != New.Ev)
          return Fail(6, G.Nodes[I].get(), "child graph and event node changes are not supported");
      }
      Works.push_back(New);
    }
    for (size_t I = 0; I < Works.size(); ++I)
      Steps[StepIndex[I]].Work = std::move(Works[I]);
  }
  return Status::ok();
}

Ref<Graph> GraphExec::asGraph() const {
  auto G = Graph::create();
  std::lock_guard<std::mutex> L(M);
  GraphNode *Prev = nullptr;
  for (const Step &S : Steps) {
    if (!S.Enabled)
      continue;
    auto W = copyWork(S.Work);
    if (!W)
      continue; // A child that cannot be copied is dropped (clone failure is OOM only).
    std::vector<GraphNode *> Deps;
    if (Prev)
      Deps.push_back(Prev);
    if (auto N = G->addNode(std::move(*W), Deps))
      Prev = N->get();
  }
  return G;
}

} // namespace ferry::core
