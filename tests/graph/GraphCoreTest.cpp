/// \file
/// Unit tests of the graph core (libcuda/core/Graph.h) on the host backend:
/// nodes run in an order that respects every edge, cycles are refused,
/// executable graphs are independent copies (SetParams, update, clone),
/// stream capture across two streams forks and joins through events, and
/// the operations CUDA forbids during capture fail with NVIDIA's codes and
/// invalidate the capture.
#include "libcuda/core/Graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

using namespace ferry;
using namespace ferry::core;

namespace {

/// Host nodes append their id here, so a test can check the run order.
struct Log {
  std::mutex M;
  std::vector<int> Order;
  void add(int Id) {
    std::lock_guard<std::mutex> L(M);
    Order.push_back(Id);
  }
  size_t pos(int Id) {
    std::lock_guard<std::mutex> L(M);
    return size_t(std::find(Order.begin(), Order.end(), Id) - Order.begin());
  }
};

struct Tag {
  Log *L;
  int Id;
};

void record(void *P) {
  auto *T = static_cast<Tag *>(P);
  T->L->add(T->Id);
}

class GraphCore : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(bool(initialize()));
    ASSERT_GE(deviceCount(), 1);
    Dev = device(0);
    Dev->Primary->retain();
    ctxstack::setCurrent(Dev->Primary);
  }
  void TearDown() override {
    EXPECT_EQ(capture::activeCount(), 0u) << "a test left a capture running";
    ctxstack::setCurrent(nullptr);
    (void)Dev->Primary->release();
  }

  /// A created stream (blocking unless Flags says otherwise), as
  /// cuStreamCreate makes one.
  Ref<Stream> stream(unsigned Flags = 1) {
    auto Q = Dev->Backend->createQueue(0);
    EXPECT_TRUE(bool(Q));
    auto S = std::make_shared<Stream>(Dev->Primary, std::move(*Q), Stream::Role::Created, Flags, 0);
    Dev->Primary->addStream(S.get());
    publish(S);
    return S;
  }
  Ref<Event> event() {
    auto E = std::make_shared<Event>(Dev->Primary, 0u);
    publish(E);
    return E;
  }
  NodeWork host(Tag &T) {
    NodeWork W;
    W.Type = NodeType::Host;
    W.Ctx = Dev->Primary;
    W.HostFn = record;
    W.HostData = &T;
    return W;
  }
  DeviceEntry *Dev = nullptr;
};

TEST_F(GraphCore, NodesRunInTopologicalOrder) {
  Log L;
  Tag T[5] = {{&L, 0}, {&L, 1}, {&L, 2}, {&L, 3}, {&L, 4}};
  auto G = Graph::create();
  std::vector<GraphNode *> N;
  for (Tag &X : T)
    N.push_back((*G->addNode(host(X), {})).get());
  // Edges added afterwards and pointing "backwards" in creation order:
  // 2 -> 3 -> 1 -> 0 and 4 -> 0.
  GraphNode *From[] = {N[2], N[3], N[1], N[4]}, *To[] = {N[3], N[1], N[0], N[0]};
  ASSERT_TRUE(bool(G->addEdges(From, To)));
  EXPECT_EQ(G->roots().size(), 2u); // 2 and 4
  EXPECT_EQ(G->edges().size(), 4u);
  auto X = GraphExec::instantiate(*G, 0);
  ASSERT_TRUE(X);
  auto S = stream();
  for (int Run = 0; Run < 3; ++Run) {
    L.Order.clear();
    ASSERT_TRUE(bool((*X)->launch(*S)));
    ASSERT_TRUE(bool(S->synchronize()));
    ASSERT_EQ(L.Order.size(), 5u);
    auto IdOf = [&](GraphNode *P) { return int(std::find(N.begin(), N.end(), P) - N.begin()); };
    for (size_t I = 0; I < 4; ++I)
      EXPECT_LT(L.pos(IdOf(From[I])), L.pos(IdOf(To[I]))) << "edge " << I << " not respected";
  }
  // A duplicate edge and a self edge are refused; a cycle fails instantiation.
  GraphNode *Dup[] = {N[2]}, *DupTo[] = {N[3]};
  EXPECT_EQ(G->addEdges(Dup, DupTo).code(), CUDA_ERROR_INVALID_VALUE);
  GraphNode *Self[] = {N[1]};
  EXPECT_EQ(G->addEdges(Self, Self).code(), CUDA_ERROR_INVALID_VALUE);
  GraphNode *Back[] = {N[0]}, *BackTo[] = {N[2]};
  ASSERT_TRUE(bool(G->addEdges(Back, BackTo)));
  auto Bad = GraphExec::instantiate(*G, 0);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.code(), CUDA_ERROR_INVALID_VALUE);
  ASSERT_TRUE(bool(G->removeEdges(Back, BackTo)));
  EXPECT_EQ(G->removeEdges(Back, BackTo).code(), CUDA_ERROR_INVALID_VALUE) << "edge is gone";
  EXPECT_TRUE(bool(GraphExec::instantiate(*G, 0)));
  G->destroy();
  EXPECT_FALSE(resolve<GraphNode>(static_cast<Object *>(N[0]))) << "destroying a graph retires its nodes";
  // The executable graph is a copy: it still runs.
  L.Order.clear();
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(L.Order.size(), 5u);
  S->destroy();
}

TEST_F(GraphCore, MemsetCopyAndUpdate) {
  auto Buf = allocate(*Dev->Primary, AllocKind::Device, 256, 0);
  ASSERT_TRUE(Buf);
  std::vector<uint8_t> Out(256, 0);
  auto G = Graph::create();
  NodeWork Fill;
  Fill.Type = NodeType::Memset;
  Fill.Ctx = Dev->Primary;
  Fill.Fill.Dst = *Buf;
  Fill.Fill.Value = 0x5a;
  Fill.Fill.ElemBytes = 1;
  Fill.Fill.Width = 256;
  auto F = G->addNode(Fill, {});
  ASSERT_TRUE(F);
  NodeWork Copy;
  Copy.Type = NodeType::Memcpy;
  Copy.Ctx = Dev->Primary;
  Copy.Copy.Dst = Out.data();
  Copy.Copy.Src = *Buf;
  Copy.Copy.WidthBytes = 256;
  GraphNode *Dep[] = {F->get()};
  auto C = G->addNode(Copy, Dep);
  ASSERT_TRUE(C);
  auto X = GraphExec::instantiate(*G, 0);
  ASSERT_TRUE(X);
  auto S = stream();
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(Out[0], 0x5a);
  EXPECT_EQ(Out[255], 0x5a);

  // Editing the graph does not reach the executable graph; setWork on it does.
  Fill.Fill.Value = 0x11;
  ASSERT_TRUE(bool(G->setWork(**F, Fill)));
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(Out[7], 0x5a);
  Fill.Fill.Value = 0x22;
  ASSERT_TRUE(bool((*X)->setWork(**F, Fill)));
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(Out[7], 0x22);
  EXPECT_EQ((*X)->setWork(**F, Copy).code(), CUDA_ERROR_INVALID_VALUE) << "type change";

  // Disabled nodes are skipped.
  ASSERT_TRUE(bool((*X)->setEnabled(**F, false)));
  std::memset(*Buf, 0x33, 256);
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(Out[9], 0x33);
  ASSERT_TRUE(bool((*X)->setEnabled(**F, true)));

  // Whole-graph update: same topology takes the new parameters (G now
  // fills 0x11); another topology is refused with the reason.
  UpdateResult R;
  ASSERT_TRUE(bool((*X)->update(*G, R)));
  ASSERT_TRUE(bool((*X)->launch(*S)));
  ASSERT_TRUE(bool(S->synchronize()));
  EXPECT_EQ(Out[100], 0x11);
  auto Clone = G->clone();
  ASSERT_TRUE(Clone);
  EXPECT_EQ((*Clone)->nodes().size(), 2u);
  EXPECT_EQ((*Clone)->edges().size(), 1u);
  EXPECT_NE((*Clone)->cloneOf(F->get()), nullptr);
  NodeWork Empty;
  ASSERT_TRUE(bool((*Clone)->addNode(Empty, {})));
  EXPECT_EQ((*X)->update(**Clone, R).code(), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  EXPECT_EQ(R.Result, 2); // CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
  auto Swapped = Graph::create();
  ASSERT_TRUE(bool(Swapped->addNode(Copy, {})));
  GraphNode *First[] = {Swapped->nodes()[0]};
  ASSERT_TRUE(bool(Swapped->addNode(Fill, First)));
  EXPECT_EQ((*X)->update(*Swapped, R).code(), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  EXPECT_EQ(R.Result, 3); // CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED
  Swapped->destroy();
  (*Clone)->destroy();
  G->destroy();
  S->destroy();
  ASSERT_TRUE(bool(release(*Buf, {AllocKind::Device})));
}

TEST_F(GraphCore, CaptureForksAndJoinsAcrossTwoStreams) {
  Log L;
  Tag A{&L, 0}, B{&L, 1}, C{&L, 2}, D{&L, 3};
  auto S1 = stream(), S2 = stream();
  auto Fork = event(), Join = event();
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  EXPECT_EQ(capture::query(*S1).Status, capture::State::Active);
  EXPECT_EQ(capture::query(*S2).Status, capture::State::None);
  ASSERT_TRUE(bool(capture::submitHostFunc(*S1, record, &A)));
  ASSERT_TRUE(bool(Fork->record(*S1)));
  auto W = capture::onStreamWaitEvent(*S2, *Fork, 0);
  ASSERT_TRUE(W && bool(*W)) << "S2 joins the capture";
  EXPECT_EQ(capture::query(*S2).Status, capture::State::Active);
  EXPECT_EQ(capture::query(*S2).Id, capture::query(*S1).Id);
  ASSERT_TRUE(bool(capture::submitHostFunc(*S2, record, &B)));
  ASSERT_TRUE(bool(capture::submitHostFunc(*S1, record, &C)));
  ASSERT_TRUE(bool(Join->record(*S2)));
  W = capture::onStreamWaitEvent(*S1, *Join, 0);
  ASSERT_TRUE(W && bool(*W)) << "S1 joins S2 back";
  EXPECT_EQ(capture::query(*S1).Deps.size(), 2u) << "C and B";
  ASSERT_TRUE(bool(capture::submitHostFunc(*S1, record, &D)));
  EXPECT_TRUE(L.Order.empty()) << "nothing runs while capturing";
  auto G = capture::end(*S1);
  ASSERT_TRUE(G);
  EXPECT_EQ(capture::query(*S2).Status, capture::State::None) << "ending the capture ends it on S2 too";

  // A -> B, A -> C, B -> D, C -> D.
  auto Nodes = (*G)->nodes();
  ASSERT_EQ(Nodes.size(), 4u);
  EXPECT_EQ((*G)->roots().size(), 1u);
  EXPECT_EQ((*G)->edges().size(), 4u);
  auto Idx = [&](const GraphNode *N) {
    return static_cast<Tag *>((*G)->work(*N).HostData)->Id;
  };
  std::vector<std::pair<int, int>> E;
  for (auto &[F, T] : (*G)->edges())
    E.push_back({Idx(F), Idx(T)});
  std::sort(E.begin(), E.end());
  EXPECT_EQ(E, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 3}, {2, 3}}));

  auto X = GraphExec::instantiate(**G, 0);
  ASSERT_TRUE(X);
  ASSERT_TRUE(bool((*X)->launch(*S2)));
  ASSERT_TRUE(bool(S2->synchronize()));
  ASSERT_EQ(L.Order.size(), 4u);
  EXPECT_EQ(L.Order.front(), 0);
  EXPECT_EQ(L.Order.back(), 3);

  // A graph launched into a capturing stream becomes one child-graph node.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::ThreadLocal)));
  ASSERT_TRUE(bool((*X)->launch(*S1)));
  auto Outer = capture::end(*S1);
  ASSERT_TRUE(Outer);
  ASSERT_EQ((*Outer)->nodes().size(), 1u);
  EXPECT_EQ((*Outer)->nodes()[0]->type(), NodeType::Child);
  L.Order.clear();
  auto OX = GraphExec::instantiate(**Outer, 0);
  ASSERT_TRUE(OX);
  ASSERT_TRUE(bool((*OX)->launch(*S1)));
  ASSERT_TRUE(bool(S1->synchronize()));
  EXPECT_EQ(L.Order.size(), 4u);
  (*Outer)->destroy();
  (*G)->destroy();
  S1->destroy();
  S2->destroy();
}

TEST_F(GraphCore, IllegalCaptureOperations) {
  auto S1 = stream(), S2 = stream(), Blocking = stream(0);
  auto Legacy = resolveStream(nullptr, false);
  ASSERT_TRUE(Legacy);
  EXPECT_EQ(capture::begin(**Legacy, capture::Mode::Global).code(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_ILLEGAL_STATE) << "not capturing";

  // Synchronizing a capturing stream is illegal and invalidates the capture.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  EXPECT_EQ(capture::begin(*S1, capture::Mode::Global).code(), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(capture::checkStreamWait(*S1, "cuStreamSynchronize").code(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(capture::query(*S1).Status, capture::State::Invalidated);
  EXPECT_EQ(capture::submitHostFunc(*S1, record, nullptr).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(capture::query(*S1).Status, capture::State::None);

  // Global mode: unsafe calls are refused on this thread and (global
  // captures) on others; relaxed threads may make them.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  EXPECT_EQ(capture::checkUnsafeCall("cuCtxSynchronize").code(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) << "the unsafe call invalidated it";
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  CUresult Other = CUDA_SUCCESS, Relaxed = CUDA_ERROR_UNKNOWN;
  std::thread([&] {
    Other = capture::checkUnsafeCall("cuMemcpy").code();
    capture::exchangeThreadMode(capture::Mode::Relaxed);
    Relaxed = capture::checkUnsafeCall("cuMemcpy").code();
  }).join();
  EXPECT_EQ(Other, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(Relaxed, CUDA_SUCCESS);
  EXPECT_EQ(capture::query(*S1).Status, capture::State::Active) << "another thread's refusal leaves it alone";
  auto G = capture::end(*S1);
  ASSERT_TRUE(G);
  EXPECT_TRUE((*G)->nodes().empty());
  (*G)->destroy();
  // Thread-local captures do not restrict other threads.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::ThreadLocal)));
  std::thread([&] { Other = capture::checkUnsafeCall("cuMemcpy").code(); }).join();
  EXPECT_EQ(Other, CUDA_SUCCESS);
  // Relaxed mode on this thread: nothing is refused here either.
  auto Prev = capture::exchangeThreadMode(capture::Mode::Relaxed);
  EXPECT_EQ(Prev, capture::Mode::Global);
  ASSERT_TRUE(bool((G = capture::end(*S1))));
  (*G)->destroy();
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Relaxed)));
  EXPECT_TRUE(bool(capture::checkUnsafeCall("cuCtxSynchronize")));
  capture::exchangeThreadMode(Prev);

  // Waiting on an event recorded outside the capture crosses its boundary.
  auto Outside = event();
  ASSERT_TRUE(bool(Outside->record(*S2)));
  auto W = capture::onStreamWaitEvent(*S1, *Outside, 0);
  ASSERT_TRUE(W);
  EXPECT_EQ(W->code(), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  // A captured event cannot be waited on by the host; a forked stream
  // cannot end the capture; an unjoined fork makes the end fail.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  auto Fork = event();
  ASSERT_TRUE(bool(Fork->record(*S1)));
  EXPECT_EQ(capture::checkEventWait(*Fork, "cuEventSynchronize").code(), CUDA_ERROR_CAPTURED_EVENT);
  ASSERT_TRUE(bool(*capture::onStreamWaitEvent(*S2, *Fork, 0)));
  Log L;
  Tag X{&L, 7};
  ASSERT_TRUE(bool(capture::submitHostFunc(*S2, record, &X)));
  EXPECT_EQ(capture::end(*S2).code(), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  ASSERT_TRUE(bool(Fork->record(*S1)));
  ASSERT_TRUE(bool(*capture::onStreamWaitEvent(*S2, *Fork, 0)));
  ASSERT_TRUE(bool(capture::submitHostFunc(*S2, record, &X)));
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
  EXPECT_EQ(capture::query(*S2).Status, capture::State::None);
  EXPECT_TRUE(L.Order.empty());

  // Two captures cannot be merged through an event.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  ASSERT_TRUE(bool(capture::begin(*S2, capture::Mode::Global)));
  ASSERT_TRUE(bool(Fork->record(*S1)));
  EXPECT_EQ(capture::onStreamWaitEvent(*S2, *Fork, 0)->code(), CUDA_ERROR_STREAM_CAPTURE_MERGE);
  EXPECT_EQ(capture::end(*S1).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(capture::end(*S2).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  // Legacy-stream work would depend on a capturing blocking stream.
  ASSERT_TRUE(bool(capture::begin(*Blocking, capture::Mode::Relaxed)));
  Status St = (*Legacy)->submit([](Queue &Q) { return Q.enqueueHostFunction([](CUresult) {}); });
  EXPECT_EQ(St.code(), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  EXPECT_EQ(capture::end(*Blocking).code(), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  // ... but not on a non-blocking one, and not once the capture is over.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Relaxed)));
  EXPECT_TRUE(bool((*Legacy)->submit([](Queue &Q) { return Q.enqueueHostFunction([](CUresult) {}); })));
  ASSERT_TRUE(bool((G = capture::end(*S1))));
  (*G)->destroy();
  EXPECT_TRUE(bool((*Legacy)->synchronize()));

  // Destroying a capturing stream ends its capture.
  ASSERT_TRUE(bool(capture::begin(*S1, capture::Mode::Global)));
  ASSERT_TRUE(bool(Fork->record(*S1)));
  ASSERT_TRUE(bool(*capture::onStreamWaitEvent(*S2, *Fork, 0)));
  EXPECT_EQ(capture::activeCount(), 1u);
  S1->destroy();
  EXPECT_EQ(capture::activeCount(), 0u);
  EXPECT_EQ(capture::query(*S2).Status, capture::State::None);
  EXPECT_TRUE(bool(capture::checkUnsafeCall("cuCtxSynchronize")));
  S2->destroy();
  Blocking->destroy();
}

} // namespace
