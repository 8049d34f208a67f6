/// \file
/// Stream capture (CUDA programming guide, "Creating a Graph Using Stream
/// Capture"). A capture sequence starts on one stream (its origin) and owns
/// a graph. Each stream taking part holds a dependency set: the nodes the
/// next captured command depends on. Recording an event on a capturing
/// stream stores that set in the event; a stream waiting on such an event
/// joins the sequence with the event's set (a fork) or, already in it,
/// adds the set to its own (a join). Ending the capture requires every
/// forked stream to have been joined back into the origin.
///
/// The state lives in one process-wide table keyed by stream id and event
/// address, not in the Stream/Event objects, so streams and events stay
/// unaware of capture; the enqueue paths consult it only while
/// capture::Outstanding is nonzero. Illegal operations invalidate the
/// sequence, and its streams then report CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
/// until the origin ends the capture.
#include "libcuda/core/Graph.h"

#include "support/Log.h"

#include <algorithm>
#include <set>

namespace ferry::core::capture {

std::atomic<int> Outstanding{0};

namespace {

struct Sequence {
  uint64_t Id = 0;
  Ref<Graph> G;
  bool OwnsGraph = true; ///< False for cuStreamBeginCaptureToGraph.
  Mode M = Mode::Global;
  std::thread::id Thread;
  uint64_t Origin = 0; ///< Stream id.
  Context *Ctx = nullptr;
  bool Invalidated = false;
};

struct StreamEntry {
  std::weak_ptr<Object> Self;
  std::shared_ptr<Sequence> Seq;
  std::vector<GraphNode *> Deps;
};

struct EventEntry {
  std::weak_ptr<Object> Self;
  std::shared_ptr<Sequence> Seq;
  std::vector<GraphNode *> Nodes;
};

struct Table {
  std::mutex M;
  std::map<uint64_t, StreamEntry> Streams; ///< By Stream::id (never reused).
  std::map<const Event *, EventEntry> Events;
  std::vector<std::shared_ptr<Sequence>> Sequences;

  void refresh() { Outstanding.store(int(Sequences.size() + Events.size()), std::memory_order_release); }

  StreamEntry *find(const Stream &S) {
    auto It = Streams.find(S.id());
    return It == Streams.end() ? nullptr : &It->second;
  }
  /// The event's captured position, dropping a stale entry (an event
  /// destroyed and another made at its address).
  EventEntry *find(const Event &E) {
    auto It = Events.find(&E);
    if (It == Events.end())
      return nullptr;
    if (It->second.Self.lock().get() != &E) {
      Events.erase(It);
      refresh();
      return nullptr;
    }
    return &It->second;
  }
};

Table &table() {
  // Leaked, like the handle table: streams may be used from atexit handlers.
  static Table *T = new Table;
  return *T;
}

std::atomic<uint64_t> NextId{1};
thread_local Mode ThreadMode = Mode::Global;

bool idle() { return Outstanding.load(std::memory_order_acquire) == 0; }

Error invalidated() {
  return makeError(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture sequence was invalidated");
}

/// Legacy-stream work waits for every blocking stream of its context; a
/// blocking stream that is capturing has no work to wait for, so the
/// dependency is illegal (cudaErrorStreamCaptureImplicit) and invalidates
/// those captures.
std::optional<Status> implicitDependency(Table &T, Stream &S, bool Invalidate) {
  if (S.role() != Stream::Role::Legacy)
    return std::nullopt;
  bool Found = false;
  for (auto &[Id, E] : T.Streams) {
    auto O = E.Self.lock();
    auto *Other = static_cast<Stream *>(O.get());
    if (!Other || &Other->context() != &S.context() || !Other->isBlocking())
      continue;
    Found = true;
    if (Invalidate)
      E.Seq->Invalidated = true;
  }
  if (!Found)
    return std::nullopt;
  return Status(makeError(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                          "the legacy stream would depend on a blocking stream that is capturing"));
}

/// Adds W after E's dependency set, which becomes the new node.
Status addNode(StreamEntry &E, NodeWork W) {
  if (E.Seq->Invalidated)
    return invalidated();
  auto N = E.Seq->G->addNode(std::move(W), E.Deps);
  if (!N) {
    E.Seq->Invalidated = true;
    return N.takeError();
  }
  E.Deps.assign(1, N->get());
  return Status::ok();
}

/// The queue a capturing stream's commands go to: each becomes a node.
class RecordingQueue final : public Queue {
public:
  RecordingQueue(StreamEntry &E, Ref<Context> Ctx) : E(E), Ctx(std::move(Ctx)) {}
  Status enqueueCopy(const CopyRect &R) override {
    NodeWork W = base(NodeType::Memcpy);
    W.Copy = R;
    return addNode(E, std::move(W));
  }
  Status enqueueFill(const FillRect &R) override {
    NodeWork W = base(NodeType::Memset);
    W.Fill = R;
    return addNode(E, std::move(W));
  }
  Status enqueueLaunch(const LaunchRequest &L) override {
    NodeWork W = base(NodeType::Kernel);
    W.Launch = L;
    return addNode(E, std::move(W));
  }
  Status enqueueHostFunction(std::function<void(CUresult)> Fn) override {
    NodeWork W = base(NodeType::Host);
    W.Callback = std::move(Fn);
    return addNode(E, std::move(W));
  }
  // Waits and signals reach a capturing stream only through the event
  // hooks; anything else asking for them cannot be captured.
  Status enqueueWait(std::shared_ptr<Signal>) override {
    E.Seq->Invalidated = true;
    return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a wait cannot be captured here");
  }
  Expected<std::shared_ptr<Signal>> enqueueSignal() override {
    E.Seq->Invalidated = true;
    return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a signal cannot be captured here");
  }
  bool isIdle() const override { return true; }
  void drain() override {}

private:
  NodeWork base(NodeType T) const {
    NodeWork W;
    W.Type = T;
    W.Ctx = Ctx;
    return W;
  }
  StreamEntry &E;
  Ref<Context> Ctx;
};

bool prohibitedLocked(Table &T) {
  if (ThreadMode == Mode::Relaxed)
    return false;
  auto Me = std::this_thread::get_id();
  for (auto &Seq : T.Sequences) {
    if (Seq->Thread == Me && Seq->M != Mode::Relaxed)
      return true;
    if (ThreadMode == Mode::Global && Seq->Thread != Me && Seq->M == Mode::Global)
      return true;
  }
  return false;
}

Status unsafeLocked(Table &T, const char *What) {
  if (!prohibitedLocked(T))
    return Status::ok();
  auto Me = std::this_thread::get_id();
  for (auto &Seq : T.Sequences)
    if (Seq->Thread == Me && Seq->M != Mode::Relaxed)
      Seq->Invalidated = true;
  return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   std::string(What) + " is not permitted while a stream capture is under way "
                                       "(capture mode global or thread-local)");
}

Ref<Object> refOf(const Object &O) { return const_cast<Object &>(O).shared_from_this(); }

} // namespace

std::optional<Status> onSubmit(Stream &S, const std::function<Status(Queue &)> &Enqueue) {
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *E = T.find(S);
  if (!E)
    return implicitDependency(T, S, true);
  if (E->Seq->Invalidated)
    return Status(invalidated());
  RecordingQueue Q(*E, S.contextRef());
  return Enqueue(Q);
}

Status submitLaunch(Stream &S, const Ref<Kernel> &K, const LaunchRequest &R) {
  if (!idle()) {
    Table &T = table();
    std::lock_guard<std::mutex> L(T.M);
    if (StreamEntry *E = T.find(S)) {
      NodeWork W;
      W.Type = NodeType::Kernel;
      W.Ctx = S.contextRef();
      W.Fn = K;
      W.Launch = R;
      return addNode(*E, std::move(W));
    }
  }
  return S.submit([&](Queue &Q) { return Q.enqueueLaunch(R); });
}

/// A cuLaunchHostFunc function on Q: skipped once the context has faulted,
/// as on NVIDIA.
static Status enqueueHostFn(Queue &Q, void (*Fn)(void *), void *Data) {
  return Q.enqueueHostFunction([Fn, Data](CUresult R) {
    if (R == CUDA_SUCCESS)
      Fn(Data);
  });
}

Status submitHostFunc(Stream &S, void (*Fn)(void *), void *Data) {
  if (!idle()) {
    Table &T = table();
    std::lock_guard<std::mutex> L(T.M);
    if (StreamEntry *E = T.find(S)) {
      NodeWork W;
      W.Type = NodeType::Host;
      W.Ctx = S.contextRef();
      W.HostFn = Fn;
      W.HostData = Data;
      return addNode(*E, std::move(W));
    }
  }
  return S.submit([&](Queue &Q) { return enqueueHostFn(Q, Fn, Data); });
}

Status submitHostFuncInline(Stream &S, void (*Fn)(void *), void *Data, bool &RanInline) {
  RanInline = false;
  if (!idle())
    return submitHostFunc(S, Fn, Data);
  Queue *Busy = nullptr;
  // beginInline under the context's enqueue lock (after the legacy-stream
  // ordering, which leaves the queue non-idle when it had to wait for
  // another stream); Fn itself runs after the lock is released.
  Status St = S.submit([&](Queue &Q) -> Status {
    if (Q.beginInline()) {
      Busy = &Q;
      return Status::ok();
    }
    return enqueueHostFn(Q, Fn, Data);
  });
  if (Busy) {
    Fn(Data);
    Busy->endInline();
    RanInline = true;
  }
  return St;
}

std::optional<Status> onEventRecord(Stream &S, Event &E) {
  if (idle())
    return std::nullopt;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  if (StreamEntry *SE = T.find(S)) {
    if (SE->Seq->Invalidated)
      return Status(invalidated());
    T.Events[&E] = EventEntry{E.weak_from_this(), SE->Seq, SE->Deps};
    T.refresh();
    return Status::ok();
  }
  // Recorded outside any capture: it no longer marks a capture position.
  if (T.Events.erase(&E))
    T.refresh();
  return std::nullopt;
}

std::optional<Status> onStreamWaitEvent(Stream &S, const Event &E, unsigned Flags) {
  if (idle())
    return std::nullopt;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  EventEntry *EE = T.find(E);
  StreamEntry *SE = T.find(S);
  if (!EE && !SE)
    return std::nullopt;
  if (SE && SE->Seq->Invalidated)
    return Status(invalidated());
  if (!EE) {
    // CU_EVENT_WAIT_EXTERNAL: a wait node on an event from outside.
    if (Flags & 1u) {
      NodeWork W;
      W.Type = NodeType::WaitEvent;
      W.Ctx = S.contextRef();
      W.Ev = std::static_pointer_cast<Event>(refOf(E));
      return addNode(*SE, std::move(W));
    }
    SE->Seq->Invalidated = true;
    return Status(makeError(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                            "a capturing stream cannot wait on an event recorded outside the capture "
                            "(use CU_EVENT_WAIT_EXTERNAL)"));
  }
  if (EE->Seq->Invalidated)
    return Status(invalidated());
  if (!SE) {
    if (S.role() == Stream::Role::Legacy) {
      EE->Seq->Invalidated = true;
      return Status(makeError(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "the legacy stream cannot join a capture"));
    }
    // Fork: S joins the capture after the event's position.
    T.Streams[S.id()] = StreamEntry{S.weak_from_this(), EE->Seq, EE->Nodes};
    return Status::ok();
  }
  if (SE->Seq != EE->Seq) {
    SE->Seq->Invalidated = true;
    EE->Seq->Invalidated = true;
    return Status(makeError(CUDA_ERROR_STREAM_CAPTURE_MERGE,
                            "the event belongs to another capture sequence than the stream"));
  }
  // Join: the event's position is added to S's dependency set.
  for (GraphNode *N : EE->Nodes)
    if (std::find(SE->Deps.begin(), SE->Deps.end(), N) == SE->Deps.end())
      SE->Deps.push_back(N);
  return Status::ok();
}

std::optional<Status> onGraphLaunch(Stream &S, const GraphExec &X) {
  if (idle())
    return std::nullopt;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *SE = T.find(S);
  if (!SE)
    return std::nullopt;
  if (X.hasMemNodes()) {
    SE->Seq->Invalidated = true;
    return Status(makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                            "a graph with memory nodes cannot be launched into a capture (it would become a child graph)"));
  }
  NodeWork W;
  W.Type = NodeType::Child;
  W.Ctx = S.contextRef();
  W.Child = X.asGraph();
  return addNode(*SE, std::move(W));
}

std::optional<Status> onMemNode(Stream &S, NodeWork W) {
  if (idle())
    return std::nullopt;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *SE = T.find(S);
  if (!SE)
    return std::nullopt;
  return addNode(*SE, std::move(W));
}

Ref<Graph> capturingGraph(Stream &S) {
  if (idle())
    return nullptr;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *SE = T.find(S);
  return SE ? SE->Seq->G : nullptr;
}

Status begin(Stream &S, Mode M, Ref<Graph> Into, std::vector<GraphNode *> Deps) {
  if (S.role() == Stream::Role::Legacy)
    return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot be captured");
  if (int(M) < 0 || int(M) > 2)
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown capture mode " + std::to_string(int(M)));
  for (GraphNode *N : Deps)
    if (!Into || !N || !Into->contains(*N))
      return makeError(CUDA_ERROR_INVALID_VALUE, "a dependency is not a node of the graph");
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  if (T.find(S))
    return makeError(CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing");
  auto Seq = std::make_shared<Sequence>();
  Seq->Id = NextId++;
  Seq->OwnsGraph = !Into;
  Seq->G = Into ? std::move(Into) : Graph::create();
  Seq->M = M;
  Seq->Thread = std::this_thread::get_id();
  Seq->Origin = S.id();
  Seq->Ctx = &S.context();
  T.Sequences.push_back(Seq);
  T.Streams[S.id()] = StreamEntry{S.weak_from_this(), Seq, std::move(Deps)};
  T.refresh();
  log::api().debug("stream {} begins capture {} (mode {})", S.id(), Seq->Id, int(M));
  return Status::ok();
}

Expected<Ref<Graph>> end(Stream &S) {
  Table &T = table();
  std::shared_ptr<Sequence> Seq;
  bool Unjoined = false;
  {
    std::lock_guard<std::mutex> L(T.M);
    StreamEntry *E = T.find(S);
    if (!E)
      return makeError(CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing");
    Seq = E->Seq;
    if (Seq->Origin != S.id()) {
      Seq->Invalidated = true;
      return makeError(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                       "the capture was not begun on this stream (end it on its origin stream)");
    }
    if (Seq->M != Mode::Relaxed && Seq->Thread != std::this_thread::get_id())
      return makeError(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                       "a non-relaxed capture must be ended by the thread that began it");
    if (!Seq->Invalidated) {
      // Every other stream's position must be at or before the origin's.
      std::set<GraphNode *> Reach;
      {
        std::lock_guard<std::mutex> GL(Seq->G->M);
        std::vector<GraphNode *> Work = E->Deps;
        while (!Work.empty()) {
          GraphNode *N = Work.back();
          Work.pop_back();
          if (Reach.insert(N).second)
            Work.insert(Work.end(), N->Deps.begin(), N->Deps.end());
        }
      }
      for (auto &[Id, O] : T.Streams)
        if (O.Seq == Seq)
          for (GraphNode *N : O.Deps)
            Unjoined |= !Reach.count(N);
    }
    for (auto It = T.Streams.begin(); It != T.Streams.end();)
      It = It->second.Seq == Seq ? T.Streams.erase(It) : std::next(It);
    for (auto It = T.Events.begin(); It != T.Events.end();)
      It = It->second.Seq == Seq ? T.Events.erase(It) : std::next(It);
    T.Sequences.erase(std::find(T.Sequences.begin(), T.Sequences.end(), Seq));
    T.refresh();
  }
  log::api().debug("stream {} ends capture {}", S.id(), Seq->Id);
  if (Seq->Invalidated || Unjoined) {
    if (Seq->OwnsGraph)
      Seq->G->destroy();
    if (Unjoined)
      return makeError(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
                       "a stream forked into the capture was not joined back into the origin stream");
    return invalidated();
  }
  return Seq->G;
}

void onStreamDestroy(Stream &S) {
  if (idle())
    return;
  Table &T = table();
  std::shared_ptr<Sequence> Ended;
  {
    std::lock_guard<std::mutex> L(T.M);
    StreamEntry *E = T.find(S);
    if (!E)
      return;
    if (E->Seq->Origin != S.id()) {
      T.Streams.erase(S.id());
      return;
    }
    Ended = E->Seq;
    for (auto It = T.Streams.begin(); It != T.Streams.end();)
      It = It->second.Seq == Ended ? T.Streams.erase(It) : std::next(It);
    for (auto It = T.Events.begin(); It != T.Events.end();)
      It = It->second.Seq == Ended ? T.Events.erase(It) : std::next(It);
    T.Sequences.erase(std::find(T.Sequences.begin(), T.Sequences.end(), Ended));
    T.refresh();
  }
  log::api().debug("stream {} destroyed while capturing: capture {} discarded", S.id(), Ended->Id);
  if (Ended->OwnsGraph)
    Ended->G->destroy();
}

Info query(Stream &S) {
  Info I;
  if (idle())
    return I;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *E = T.find(S);
  if (!E)
    return I;
  I.Status = E->Seq->Invalidated ? State::Invalidated : State::Active;
  I.Id = E->Seq->Id;
  I.G = E->Seq->G;
  I.Deps = E->Deps;
  return I;
}

Status updateDependencies(Stream &S, std::vector<GraphNode *> Deps, bool Set) {
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  StreamEntry *E = T.find(S);
  if (!E)
    return makeError(CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing");
  if (E->Seq->Invalidated)
    return invalidated();
  for (GraphNode *N : Deps)
    if (!N || !E->Seq->G->contains(*N))
      return makeError(CUDA_ERROR_INVALID_VALUE, "a node is not part of the capture's graph");
  if (Set)
    E->Deps.clear();
  for (GraphNode *N : Deps)
    if (std::find(E->Deps.begin(), E->Deps.end(), N) == E->Deps.end())
      E->Deps.push_back(N);
  return Status::ok();
}

Mode exchangeThreadMode(Mode M) { return std::exchange(ThreadMode, M); }

Status checkUnsafeCall(const char *What) {
  if (idle())
    return Status::ok();
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  return unsafeLocked(T, What);
}

Status checkStreamWait(Stream &S, const char *What) {
  if (idle())
    return Status::ok();
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  if (StreamEntry *E = T.find(S)) {
    E->Seq->Invalidated = true;
    return makeError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                     std::string(What) + " is not permitted on a capturing stream");
  }
  if (auto R = implicitDependency(T, S, true))
    return std::move(*R);
  return unsafeLocked(T, What);
}

Status checkEventWait(const Event &E, const char *What) {
  if (idle())
    return Status::ok();
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  if (T.find(E))
    return makeError(CUDA_ERROR_CAPTURED_EVENT,
                     std::string(What) + " is not permitted on an event recorded in a capture");
  return unsafeLocked(T, What);
}

size_t activeCount() {
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  return T.Sequences.size();
}

} // namespace ferry::core::capture
