/// \file
/// Graphs, their nodes and edges, and executable graphs (see Graph.h).
/// Instantiation copies every node's work and fixes one topological order;
/// a launch enqueues that order on the stream's in-order queue in a single
/// submit, so a graph launch is ordered like any other stream command.
#include "libcuda/core/Graph.h"

#include "libcuda/core/GraphMem.h"
#include "support/Log.h"

#include <algorithm>
#include <set>

namespace ferry::core {

//===----------------------------------------------------------------------===//
// Conditional handles
//===----------------------------------------------------------------------===//

namespace {
struct CondRegistry {
  std::mutex M;
  std::map<uint64_t, std::weak_ptr<CondSlot>> Slots;
};
CondRegistry &condRegistry() {
  static CondRegistry *R = new CondRegistry; // Leaked, like the handle table.
  return *R;
}
} // namespace

Expected<std::shared_ptr<CondSlot>> CondSlot::create(Ref<Context> Ctx, unsigned Default, bool AssignDefault) {
  // Host-pinned: the device stores into it, the host function of the
  // conditional node reads it, with no copy in between on any backend.
  auto P = Ctx->device().Backend->allocate(MemoryKind::HostPinned, sizeof(uint32_t));
  if (!P)
    return P.takeError();
  auto *Word = static_cast<uint32_t *>(*P);
  *Word = Default;
  auto S = std::make_shared<CondSlot>(std::move(Ctx), Word, Default, AssignDefault);
  CondRegistry &R = condRegistry();
  std::lock_guard<std::mutex> L(R.M);
  R.Slots[S->handle()] = S;
  return S;
}

CondSlot::~CondSlot() {
  {
    CondRegistry &R = condRegistry();
    std::lock_guard<std::mutex> L(R.M);
    R.Slots.erase(handle());
  }
  (void)Ctx->device().Backend->release(MemoryKind::HostPinned, Word, sizeof(uint32_t));
}

std::shared_ptr<CondSlot> CondSlot::find(uint64_t H) {
  CondRegistry &R = condRegistry();
  std::lock_guard<std::mutex> L(R.M);
  auto It = R.Slots.find(H);
  return It == R.Slots.end() ? nullptr : It->second.lock();
}

/// Graphs a node owns (a child graph, conditional bodies): they go when
/// the node goes.
static void destroyOwned(const NodeWork &W) {
  if (W.Child)
    W.Child->destroy();
  for (const Ref<Graph> &B : W.Bodies)
    B->destroy();
}

//===----------------------------------------------------------------------===//
// User objects
//===----------------------------------------------------------------------===//

void UserObject::retain(unsigned N) {
  std::lock_guard<std::mutex> L(M);
  Count += N;
}

Status UserObject::release(unsigned N) {
  {
    std::lock_guard<std::mutex> L(M);
    if (N > Count)
      return makeError(CUDA_ERROR_INVALID_VALUE, "releasing " + std::to_string(N) + " references of a user object that has " +
                                                     std::to_string(Count));
    Count -= N;
    if (Count != 0 || N == 0)
      return Status::ok();
  }
  void *P = Ptr;
  void (*Fn)(void *) = Destroy;
  retire(this); // may be the last reference to this object
  if (Fn)
    Fn(P);
  return Status::ok();
}

UserRefs::~UserRefs() {
  for (auto &[O, N] : Held)
    (void)O->release(N);
}

std::shared_ptr<UserRefs> UserRefs::retainCopy() const {
  auto C = std::make_shared<UserRefs>();
  for (auto &[O, N] : Held) {
    O->retain(N);
    C->Held[O] = N;
  }
  return C;
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

Graph::~Graph() {
  // A graph dies once its handle is gone (destroy) or, for a graph never
  // handed out (a failed capture), when its last owner lets go; either way
  // its nodes and child graphs must stop resolving.
  for (auto &N : Nodes) {
    retire(N.get());
    destroyOwned(N->Work);
  }
}

void Graph::retainUserObject(const Ref<UserObject> &O, unsigned N, bool Move) {
  if (!Move)
    O->retain(N);
  std::lock_guard<std::mutex> L(M);
  Users.Held[O] += N;
}

Status Graph::releaseUserObject(const Ref<UserObject> &O, unsigned N) {
  {
    std::lock_guard<std::mutex> L(M);
    auto It = Users.Held.find(O);
    unsigned Have = It == Users.Held.end() ? 0 : It->second;
    if (N > Have)
      return makeError(CUDA_ERROR_INVALID_VALUE, "the graph holds " + std::to_string(Have) +
                                                     " references of the user object, not " + std::to_string(N));
    if ((It->second -= N) == 0)
      Users.Held.erase(It);
  }
  return O->release(N);
}

Ref<Graph> Graph::create() {
  auto G = std::make_shared<Graph>();
  publish(G);
  return G;
}

void Graph::refreshParamPtrs(GraphNode &N) {
  N.BodyHandles.clear();
  for (const Ref<Graph> &B : N.Work.Bodies)
    N.BodyHandles.push_back(static_cast<Object *>(B.get()));
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
  if (hasMemNodesLocked())
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "edges of a graph with memory nodes cannot be removed");
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
    if (hasMemNodesLocked())
      return makeError(CUDA_ERROR_NOT_SUPPORTED, "nodes of a graph with memory nodes cannot be deleted");
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
  destroyOwned(Keep->Work);
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

/// Child and body graphs are owned by their node: copying work copies them.
static Expected<NodeWork> copyWork(const NodeWork &W) {
  NodeWork C = W;
  C.Bodies.clear();
  auto Undo = [&] {
    if (C.Child && C.Child != W.Child)
      C.Child->destroy();
    for (auto &B : C.Bodies)
      B->destroy();
  };
  if (W.Child) {
    auto Child = W.Child->clone();
    if (!Child)
      return Child.takeError();
    C.Child = *Child;
  }
  for (const Ref<Graph> &B : W.Bodies) {
    auto Body = B->clone();
    if (!Body) {
      Undo();
      return Body.takeError();
    }
    C.Bodies.push_back(*Body);
  }
  return C;
}

bool Graph::hasMemNodesLocked() const {
  for (auto &N : Nodes)
    if (N->Work.Type == NodeType::MemAlloc || N->Work.Type == NodeType::MemFree)
      return true;
  return false;
}

bool Graph::hasMemNodes() const {
  std::lock_guard<std::mutex> L(M);
  return hasMemNodesLocked();
}

GraphNode *Graph::freeNodeOf(const GraphAlloc &A) const {
  std::lock_guard<std::mutex> L(M);
  for (auto &N : Nodes)
    if (N->Work.Type == NodeType::MemFree && N->Work.Alloc.get() == &A)
      return N.get();
  return nullptr;
}

void Graph::addCondSlot(std::shared_ptr<CondSlot> S) {
  std::lock_guard<std::mutex> L(M);
  Conds.push_back(std::move(S));
}

Expected<Ref<Graph>> Graph::clone() const {
  if (hasMemNodes())
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "a graph with memory nodes cannot be cloned");
  auto G = Graph::create();
  std::lock_guard<std::mutex> L(M);
  G->Conds = Conds;
  for (auto &[O, N] : Users.Held) {
    O->retain(N);
    G->Users.Held[O] = N;
  }
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
    destroyOwned(N->Work);
  }
  retire(this);
}

//===----------------------------------------------------------------------===//
// GraphExec
//===----------------------------------------------------------------------===//

GraphExec::~GraphExec() {
  if (auto G = MemSource.lock())
    --G->MemInstances;
}

/// Node types a conditional body may hold, recursively (the
/// CUDA_CONDITIONAL_NODE_PARAMS rules): kernels, empty nodes, child
/// graphs, memsets, memcpys and conditionals.
static Status checkBody(const Graph &B) {
  for (GraphNode *N : B.nodes()) {
    NodeWork W = B.work(*N);
    switch (W.Type) {
    case NodeType::Kernel:
    case NodeType::Empty:
    case NodeType::Memset:
    case NodeType::Memcpy:
    case NodeType::Conditional:
      break;
    case NodeType::Child:
      if (Status St = checkBody(*W.Child); !St)
        return St;
      break;
    default:
      return makeError(CUDA_ERROR_NOT_SUPPORTED,
                       "a conditional node's body holds a node of type " + std::to_string(int(W.Type)) +
                           " (only kernel, empty, child graph, memset, memcpy and conditional nodes are allowed)");
    }
  }
  return Status::ok();
}

Status GraphExec::instantiateNested(Step &S, unsigned long long Flags) {
  if (S.Work.Child) {
    if (S.Work.Child->hasMemNodes())
      return makeError(CUDA_ERROR_NOT_SUPPORTED, "a child graph holds memory nodes");
    auto C = instantiate(*S.Work.Child, Flags);
    if (!C)
      return C.takeError();
    S.Child = *C;
  }
  if (S.Work.Type != NodeType::Conditional)
    return Status::ok();
  for (const Ref<Graph> &B : S.Work.Bodies) {
    if (Status St = checkBody(*B); !St)
      return St;
    auto C = instantiate(*B, Flags);
    if (!C)
      return C.takeError();
    S.Bodies.push_back(*C);
  }
  auto Q = S.Work.Ctx->device().Backend->createQueue(0);
  if (!Q)
    return Q.takeError();
  S.Inner = std::make_shared<BodyQueue>();
  S.Inner->Q = std::move(*Q);
  return Status::ok();
}

Expected<Ref<GraphExec>> GraphExec::instantiate(Graph &G, unsigned long long Flags) {
  // CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: launching from device code.
  if (Flags & 4)
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "graphs launched from the device are not supported");
  auto X = std::make_shared<GraphExec>();
  X->Flags = Flags;
  {
    std::lock_guard<std::mutex> L(G.M);
    X->HasMemNodes = G.hasMemNodesLocked();
    if (X->HasMemNodes && G.MemInstances.load() != 0)
      return makeError(CUDA_ERROR_NOT_SUPPORTED,
                       "a graph with memory nodes can have only one instantiation at a time");
    X->Conds = G.Conds;
    if (!G.Users.Held.empty())
      X->Users = G.Users.retainCopy();
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
      Step S;
      S.Work = G.Nodes[I]->Work;
      if (S.Work.Type == NodeType::MemAlloc || S.Work.Type == NodeType::MemFree)
        X->Allocs.push_back(S.Work.Alloc);
      X->Steps.push_back(std::move(S));
    }
  }
  for (Step &S : X->Steps) {
    if (Status St = instantiateNested(S, Flags); !St)
      return St.takeError();
    for (const Ref<GraphExec> &C : S.Bodies)
      X->Conds.insert(X->Conds.end(), C->Conds.begin(), C->Conds.end());
    if (S.Child)
      X->Conds.insert(X->Conds.end(), S.Child->Conds.begin(), S.Child->Conds.end());
  }
  if (X->HasMemNodes) {
    ++G.MemInstances;
    X->MemSource = std::static_pointer_cast<Graph>(G.shared_from_this());
  }
  publish(X);
  return X;
}

void GraphExec::runConditional(const NodeWork &W, const std::vector<Ref<GraphExec>> &Bodies, BodyQueue &Inner) {
  std::lock_guard<std::mutex> L(Inner.M);
  Queue &Q = *Inner.Q;
  Context &Ctx = *W.Ctx;
  // Runs one body to completion; false once the device has faulted (the
  // stream's later work is skipped then, as after any fault).
  auto Run = [&](const GraphExec &B) {
    if (Status St = B.enqueueOn(Q); !St) {
      log::api().error("conditional node: its body could not be enqueued: {}", St.message());
      return false;
    }
    Q.drain();
    return bool(Ctx.stickyError());
  };
  uint32_t V = W.Cond->read();
  switch (W.CondKind) {
  case CondType::If:
    if (V)
      Run(*Bodies[0]);
    else if (Bodies.size() > 1)
      Run(*Bodies[1]);
    break;
  case CondType::While:
    while (V && Run(*Bodies[0]))
      V = W.Cond->read();
    break;
  case CondType::Switch:
    if (V < Bodies.size())
      Run(*Bodies[V]);
    break;
  }
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
    // Graph memory is accounted at launch (applyMemNodes); the memory
    // itself exists for as long as its node.
    case NodeType::MemAlloc:
    case NodeType::MemFree:
      break;
    case NodeType::Conditional:
      // The function holds the bodies and their queue, so destroying the
      // executable graph before the launch has run is safe.
      St = Q.enqueueHostFunction([W, Bodies = S.Bodies, Inner = S.Inner](CUresult R) {
        if (R == CUDA_SUCCESS)
          runConditional(W, Bodies, *Inner);
      });
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

Status GraphExec::applyMemNodes() const {
  std::vector<graphmem::Op> Ops;
  {
    std::lock_guard<std::mutex> L(M);
    for (const Step &S : Steps)
      if (S.Work.Type == NodeType::MemAlloc || S.Work.Type == NodeType::MemFree)
        Ops.push_back({S.Work.Alloc.get(), S.Work.Type == NodeType::MemAlloc});
  }
  return graphmem::apply(Ops, Flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
}

Status GraphExec::launch(Stream &S) {
  if (auto R = capture::onGraphLaunch(S, *this))
    return std::move(*R);
  if (Status St = S.context().stickyError(); !St)
    return St;
  if (HasMemNodes)
    if (Status St = applyMemNodes(); !St)
      return St;
  return S.submit([&](Queue &Q) -> Status {
    // Handles with CU_GRAPH_COND_ASSIGN_DEFAULT start every execution at
    // their default value.
    for (const auto &C : Conds)
      if (C->assignsDefault())
        if (Status St = Q.enqueueFill(C->defaultFill()); !St)
          return St;
    if (Status St = enqueueOn(Q); !St)
      return St;
    if (Allocs.empty() && !Users)
      return Status::ok();
    // The allocations and user objects stay until this launch has
    // finished, even if the graph and this executable graph are destroyed
    // meanwhile.
    return Q.enqueueHostFunction([Keep = Allocs, KeepUsers = Users](CUresult) {});
  });
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

Status GraphExec::setChild(const GraphNode &Orig, Graph &Child) {
  Ref<GraphExec> Exec;
  {
    std::lock_guard<std::mutex> L(M);
    auto I = stepOf(Orig);
    if (!I)
      return I.takeError();
    if (Steps[*I].Work.Type != NodeType::Child || !Steps[*I].Child)
      return makeError(CUDA_ERROR_INVALID_VALUE, "the node is not a child graph node");
    Exec = Steps[*I].Child;
  }
  UpdateResult R;
  if (Status St = Exec->update(Child, R); !St)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the child graph does not match the node's: " + St.message());
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
      if (New.Type == NodeType::Conditional)
        return Fail(6, G.Nodes[I].get(), "conditional nodes cannot be updated");
      if ((New.Type == NodeType::MemAlloc || New.Type == NodeType::MemFree) && Old.Alloc != New.Alloc)
        return Fail(6, G.Nodes[I].get(), "memory nodes cannot be changed");
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
