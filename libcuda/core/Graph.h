/// \file
/// CUDA graphs in libcuda's object model: graphs of nodes with dependency
/// edges (CUgraph, CUgraphNode), their executable form (CUgraphExec), and
/// stream capture, which turns work enqueued on a capturing stream into
/// nodes instead of running it.
///
/// A node's work is kept fully resolved, in the backend's terms: a kernel
/// node holds the LaunchRequest the launch path built (kernel compiled for
/// the context's device, arguments packed), a memcpy node a CopyRect, a
/// memset node a FillRect. That is what lets the entry points build nodes
/// by capturing one ordinary call (cuGraphAddKernelNode captures one
/// cuLaunchKernel), so a node is validated exactly as a stream launch is.
///
/// Execution: an instantiated graph is its nodes in one topological order;
/// cuGraphLaunch enqueues them in that order on the stream, whose queue is
/// in-order, so every edge is honoured (independent branches do not run
/// concurrently with each other; each kernel still uses the whole device).
///
/// Threading: a graph's nodes and edges are guarded by the graph's mutex
/// (CUDA does not make graph building thread-safe, ferry just never
/// crashes on it). Capture state lives in one process-wide table guarded by
/// one lock (core/Capture.cpp), taken only while a capture is under way.
/// Lock order: capture lock, then a graph's mutex.
#pragma once

#include "libcuda/core/Core.h"

#include <atomic>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace ferry::core {

class Graph;
class GraphExec;

/// Node kinds; the values are CUgraphNodeType's.
enum class NodeType : int {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Host = 3,
  Child = 4,
  Empty = 5,
  WaitEvent = 6,
  EventRecord = 7,
  MemAlloc = 10,
  MemFree = 11,
  Conditional = 13,
};

/// CUgraphConditionalNodeType values.
enum class CondType : int { If = 0, While = 1, Switch = 2 };

/// The value of a conditional handle (cuGraphConditionalHandleCreate): one
/// 32-bit word in memory both the host and the device reach. The handle a
/// program sees is the word's address, so the device runtime's
/// cudaGraphSetConditional(handle, value) is a plain store (ptx lowering),
/// and the conditional node reads the word once the work before it has
/// finished. Shared by the graph that made it, the nodes that use it and
/// their executable copies; the word is freed with the last of them.
///
/// Executions of one graph share its handles' words (the handle is baked
/// into kernel arguments, which ferry does not rewrite per instantiation),
/// so two executions that overlap in time see each other's values; NVIDIA
/// leaves concurrent setting of one handle undefined as well.
class CondSlot {
public:
  static Expected<std::shared_ptr<CondSlot>> create(Ref<Context> Ctx, unsigned Default, bool AssignDefault);
  ~CondSlot();
  uint64_t handle() const { return uint64_t(reinterpret_cast<uintptr_t>(Word)); }
  Context &context() const { return *Ctx; }
  uint32_t read() const { return __atomic_load_n(Word, __ATOMIC_ACQUIRE); }
  /// The fill that gives the handle its default value (launch start).
  FillRect defaultFill() const { return FillRect{Word, Default, 4, 1, 1, 4}; }
  bool assignsDefault() const { return AssignDefault; }
  /// The live slot whose handle is H (any graph's), else null.
  static std::shared_ptr<CondSlot> find(uint64_t H);

  CondSlot(Ref<Context> Ctx, uint32_t *Word, unsigned Default, bool AssignDefault)
      : Ctx(std::move(Ctx)), Word(Word), Default(Default), AssignDefault(AssignDefault) {}

private:
  Ref<Context> Ctx;
  uint32_t *Word;
  unsigned Default;
  bool AssignDefault;
};

class GraphAlloc; // core/GraphMem.h

/// What one node does. Copyable: instantiation and cloning copy it, so
/// later edits of the graph do not reach an instantiated copy.
struct NodeWork {
  NodeType Type = NodeType::Empty;
  Ref<Context> Ctx;
  // Kernel: the kernel (null when a launch came in without one) and the
  // launch as the queue takes it.
  Ref<Kernel> Fn;
  LaunchRequest Launch;
  CopyRect Copy;
  FillRect Fill;
  // Host: a cuLaunchHostFunc-style function, or (for cuStreamAddCallback
  // captured) a callback given the stream status.
  void (*HostFn)(void *) = nullptr;
  void *HostData = nullptr;
  std::function<void(CUresult)> Callback;
  Ref<Event> Ev;      ///< WaitEvent, EventRecord.
  Ref<Graph> Child;   ///< Child (a private clone).
  /// MemAlloc: the allocation the node makes; MemFree: the one it frees.
  std::shared_ptr<GraphAlloc> Alloc;
  /// Conditional: its handle's word, kind, and body graphs (owned by the
  /// node like a child graph; IF has 1 or 2, WHILE 1, SWITCH any number).
  std::shared_ptr<CondSlot> Cond;
  CondType CondKind = CondType::If;
  std::vector<Ref<Graph>> Bodies;
};

class GraphNode final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::GraphNode;
  GraphNode(Graph &G, NodeWork W) : Object(Kind::GraphNode), Work(std::move(W)), Owner(&G) {}
  Graph &graph() const { return *Owner; }
  NodeType type() const { return Work.Type; }

  /// Guarded by the owning graph's mutex.
  NodeWork Work;
  std::vector<GraphNode *> Deps;       ///< Edges into this node.
  std::vector<GraphNode *> Dependents; ///< Edges out of it.
  /// The kernelParams view of Work.Launch.Args (cuGraphKernelNodeGetParams
  /// returns pointers into the node's own copy, as NVIDIA does).
  std::vector<void *> ParamPtrs;
  /// A conditional node's body graphs as CUgraph handles: the array
  /// CUDA_CONDITIONAL_NODE_PARAMS::phGraph_out points at (the node owns it).
  std::vector<void *> BodyHandles;

private:
  Graph *Owner;
};

/// A user object (cuUserObjectCreate): a destructor the program hands the
/// driver, run once the last of its references is released: the program's
/// own, graphs' (cuGraphRetainUserObject) and those of executable graphs,
/// which each launch keeps until its work has finished.
class UserObject final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::UserObject;
  UserObject(void *Ptr, void (*Destroy)(void *), unsigned Count)
      : Object(Kind::UserObject), Ptr(Ptr), Destroy(Destroy), Count(Count) {}
  void retain(unsigned N);
  /// Drops N references; the last runs the destructor (on this thread) and
  /// retires the handle. More than are held is INVALID_VALUE.
  Status release(unsigned N);

private:
  void *Ptr;
  void (*Destroy)(void *);
  std::mutex M;
  uint64_t Count;
};

/// References to user objects, held together and released when this goes.
struct UserRefs {
  std::map<Ref<UserObject>, unsigned> Held;
  UserRefs() = default;
  UserRefs(const UserRefs &) = delete;
  UserRefs &operator=(const UserRefs &) = delete;
  ~UserRefs();
  /// A copy holding references of its own.
  std::shared_ptr<UserRefs> retainCopy() const;
};

class Graph final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Graph;
  Graph() : Object(Kind::Graph) {}
  ~Graph() override;
  /// A new, published graph.
  static Ref<Graph> create();

  /// Adds a node after Deps (nodes of this graph, no duplicates).
  Expected<Ref<GraphNode>> addNode(NodeWork W, std::span<GraphNode *const> Deps);
  /// Adds/removes edges From[i] -> To[i].
  Status addEdges(std::span<GraphNode *const> From, std::span<GraphNode *const> To);
  Status removeEdges(std::span<GraphNode *const> From, std::span<GraphNode *const> To);
  /// Removes a node and its edges, retiring its handle.
  Status destroyNode(GraphNode &N);

  /// Nodes in creation order (the order cuGraphGetNodes reports).
  std::vector<GraphNode *> nodes() const;
  std::vector<GraphNode *> roots() const;
  /// Every edge as (from, to), grouped by source in creation order.
  std::vector<std::pair<GraphNode *, GraphNode *>> edges() const;
  /// Kahn's order (ties by creation order); INVALID_VALUE on a cycle.
  Expected<std::vector<GraphNode *>> topologicalOrder() const;

  /// cuGraphRetainUserObject / cuGraphReleaseUserObject: Move takes over
  /// the caller's N references instead of adding N.
  void retainUserObject(const Ref<UserObject> &O, unsigned N, bool Move);
  Status releaseUserObject(const Ref<UserObject> &O, unsigned N);

  /// A published deep copy (child graphs are copied too). The clone
  /// remembers which of its nodes each original became (cuGraphNodeFindInClone).
  Expected<Ref<Graph>> clone() const;
  GraphNode *cloneOf(const GraphNode *Original) const;

  /// Replaces N's work (kernel/memcpy/memset/host node SetParams); the
  /// type must stay the same.
  Status setWork(GraphNode &N, NodeWork W);
  NodeWork work(const GraphNode &N) const;

  /// Retires the graph's handle and its nodes' handles (cuGraphDestroy).
  void destroy();

  bool contains(const GraphNode &N) const { return &N.graph() == this; }

  /// cuGraphConditionalHandleCreate: the graph keeps the handle's word.
  void addCondSlot(std::shared_ptr<CondSlot> S);
  /// Whether the graph holds memory alloc/free nodes, which forbid
  /// cloning, deleting nodes or edges, use as a child, and a second
  /// instantiation while one exists (cuGraphAddMemAllocNode).
  bool hasMemNodes() const;
  /// The node of this graph that frees A, if any.
  GraphNode *freeNodeOf(const GraphAlloc &A) const;

  mutable std::mutex M;

private:
  friend class GraphExec; // Instantiation and update read the nodes under M.
  static void refreshParamPtrs(GraphNode &N);
  bool hasMemNodesLocked() const;
  std::vector<Ref<GraphNode>> Nodes;
  std::vector<std::shared_ptr<CondSlot>> Conds;
  /// Live executable graphs made from this one while it has memory nodes.
  std::atomic<int> MemInstances{0};
  std::map<const GraphNode *, GraphNode *> CloneMap; ///< Original -> copy.
  UserRefs Users; ///< Under M.
};

/// Result of GraphExec::update, in CUgraphExecUpdateResult's values.
struct UpdateResult {
  int Result = 0;
  GraphNode *ErrorNode = nullptr;
  GraphNode *ErrorFromNode = nullptr;
};

/// An instantiated graph: copies of its nodes' work in topological order.
class GraphExec final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::GraphExec;
  GraphExec() : Object(Kind::GraphExec) {}
  ~GraphExec() override;
  /// Instantiates G (its nodes' work is copied now). Published.
  static Expected<Ref<GraphExec>> instantiate(Graph &G, unsigned long long Flags);
  unsigned long long flags() const { return Flags; }
  bool hasMemNodes() const { return HasMemNodes; }

  /// Enqueues every enabled node on S in order. On a capturing stream the
  /// whole graph becomes one child-graph node of the capture instead.
  Status launch(Stream &S);

  /// cuGraphExec*NodeSetParams: Orig is a node of the graph this was
  /// instantiated from; W must have its type.
  Status setWork(const GraphNode &Orig, NodeWork W);
  Status setEnabled(const GraphNode &Orig, bool Enabled);
  Expected<bool> enabled(const GraphNode &Orig) const;
  /// cuGraphExecUpdate: G must have this graph's topology (same nodes in
  /// creation order, same types and edges); then every node's work is
  /// replaced by G's. Otherwise nothing changes and R says why.
  Status update(Graph &G, UpdateResult &R);
  /// cuGraphExecChildGraphNodeSetParams: Orig is a child graph node of the
  /// graph this was instantiated from; its instantiated child is updated
  /// from Child, which must have the same topology (as update() checks).
  Status setChild(const GraphNode &Orig, Graph &Child);
  /// A graph running the steps in order (a launch captured into a stream).
  Ref<Graph> asGraph() const;

private:
  /// The queue a conditional node runs its bodies on: each evaluation
  /// enqueues a body there and waits for it, from the host function that
  /// stands for the node in the launching stream (so the stream's later
  /// work waits for the whole conditional).
  struct BodyQueue {
    std::mutex M;
    std::unique_ptr<Queue> Q;
  };
  struct Step {
    NodeWork Work;
    Ref<GraphExec> Child; ///< Instantiated Work.Child.
    std::vector<Ref<GraphExec>> Bodies; ///< Instantiated Work.Bodies.
    std::shared_ptr<BodyQueue> Inner;   ///< Conditional steps.
    bool Enabled = true;
  };
  /// Enqueues the enabled steps (children recursively) on Q.
  Status enqueueOn(Queue &Q) const;
  Expected<size_t> stepOf(const GraphNode &Orig) const;
  /// Instantiates a step's child and body graphs and its body queue.
  static Status instantiateNested(Step &S, unsigned long long Flags);
  /// Runs a conditional step's bodies as its handle says (a host function
  /// of the launching queue, after the work before the node).
  static void runConditional(const NodeWork &W, const std::vector<Ref<GraphExec>> &Bodies, BodyQueue &Inner);
  /// Graph memory bookkeeping of one launch (core/GraphMem.cpp): applies
  /// the allocations and frees of the steps in order, refusing a launch
  /// whose allocations from the last one are still unfreed (unless
  /// AUTO_FREE_ON_LAUNCH) or that frees what is not allocated.
  Status applyMemNodes() const;

  mutable std::mutex M;
  unsigned long long Flags = 0;
  std::vector<Step> Steps;
  /// Handles whose default value each launch assigns (own and nested).
  std::vector<std::shared_ptr<CondSlot>> Conds;
  /// The allocations this graph's alloc and free nodes name (kept alive by
  /// launches in flight, so destroying a graph meanwhile is safe).
  std::vector<std::shared_ptr<GraphAlloc>> Allocs;
  bool HasMemNodes = false;
  /// The graph's user-object references at instantiation, held by this
  /// and by each launch until its work has finished.
  std::shared_ptr<UserRefs> Users;
  std::weak_ptr<Graph> MemSource; ///< Whose MemInstances this counts in.
  /// The source graph's nodes in creation order, and each one's step.
  std::vector<Ref<GraphNode>> Sources;
  std::vector<size_t> StepIndex;
  /// Edges of the source, as (from, to) creation indices (for update).
  std::vector<std::pair<size_t, size_t>> Edges;
};

//===----------------------------------------------------------------------===//
// Stream capture
//===----------------------------------------------------------------------===//

namespace capture {

/// CUstreamCaptureMode values.
enum class Mode : int { Global = 0, ThreadLocal = 1, Relaxed = 2 };
/// CUstreamCaptureStatus values.
enum class State : int { None = 0, Active = 1, Invalidated = 2 };

/// cuStreamBeginCapture / cuStreamBeginCaptureToGraph: S starts a capture
/// sequence into Into (a new graph when null) whose first nodes depend on
/// Deps. The legacy stream cannot capture; a capturing stream cannot begin
/// again.
Status begin(Stream &S, Mode M, Ref<Graph> Into = nullptr, std::vector<GraphNode *> Deps = {});
/// cuStreamEndCapture: S must be the sequence's origin; every stream that
/// joined must have been joined back. Ends capture on all of them.
Expected<Ref<Graph>> end(Stream &S);

struct Info {
  State Status = State::None;
  uint64_t Id = 0;
  Ref<Graph> G;
  std::vector<GraphNode *> Deps;
};
Info query(Stream &S);
/// cuStreamUpdateCaptureDependencies: replaces (Set) or extends S's
/// dependency set.
Status updateDependencies(Stream &S, std::vector<GraphNode *> Deps, bool Set);

/// cuThreadExchangeStreamCaptureMode: this thread's mode, returning the
/// previous one.
Mode exchangeThreadMode(Mode M);

/// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED when the calling thread may not
/// make a "potentially unsafe" call now (synchronous copies and memsets,
/// synchronising or querying streams, events and contexts) given the
/// capture modes in force; such a call also invalidates this thread's
/// non-relaxed captures, as on NVIDIA. What names the call for the log.
Status checkUnsafeCall(const char *What);
/// Stream synchronize/query: illegal on a capturing stream (invalidates
/// it), otherwise checkUnsafeCall.
Status checkStreamWait(Stream &S, const char *What);
/// Event synchronize/query: CUDA_ERROR_CAPTURED_EVENT for an event last
/// recorded in a capture still under way, otherwise checkUnsafeCall.
Status checkEventWait(const Event &E, const char *What);

/// Hooks of the enqueue paths. submitLaunch/submitHostFunc enqueue as usual
/// unless S captures; the on* hooks return nullopt when capture is not
/// involved, so the caller goes on as usual.
/// A kernel launch with its kernel (so the node can report its function).
Status submitLaunch(Stream &S, const Ref<Kernel> &K, const LaunchRequest &R);
/// cuLaunchHostFunc (so the node can report its function and data).
Status submitHostFunc(Stream &S, void (*Fn)(void *), void *Data);
/// ferry's libraries' variant (LibsExport.h, LaunchHostFuncInline): on an
/// idle stream outside any capture, Fn runs on the calling thread while the
/// queue counts as busy (RanInline true); otherwise as submitHostFunc.
Status submitHostFuncInline(Stream &S, void (*Fn)(void *), void *Data, bool &RanInline);
/// cuStreamDestroy: a stream that leaves takes its part in a capture with
/// it; a capture it began ends (its graph discarded), so no capture outlives
/// every handle that could end it.
void onStreamDestroy(Stream &S);
/// cuEventRecord on a capturing stream: the event remembers the stream's
/// capture position (a fork point) instead of being recorded.
std::optional<Status> onEventRecord(Stream &S, Event &E);
/// cuStreamWaitEvent on a captured event: S joins the capture (fork) or
/// merges the event's position into its own (join).
std::optional<Status> onStreamWaitEvent(Stream &S, const Event &E, unsigned Flags);
/// A graph launched into a capturing stream becomes a child graph node.
std::optional<Status> onGraphLaunch(Stream &S, const GraphExec &X);
/// Stream-ordered allocation and free on a capturing stream become memory
/// nodes (W is MemAlloc or MemFree). nullopt: S is not capturing.
std::optional<Status> onMemNode(Stream &S, NodeWork W);
/// The graph S captures into, if it captures (to look for a free node).
Ref<Graph> capturingGraph(Stream &S);

/// Number of capture sequences under way (tests).
size_t activeCount();

} // namespace capture

} // namespace ferry::core
