/// \file
/// Streams (created, legacy default, per-thread default) and events. The
/// ordering rules between streams live in Context::orderBeforeEnqueue; this
/// file maps stream handles and event operations onto backend queues and
/// signals.
#include "libcuda/core/Core.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/MemPool.h"

#include "support/Log.h"

namespace ferry::core {

static std::atomic<uint64_t> NextStreamId{1};

Stream::Stream(Ref<Context> C, std::unique_ptr<Queue> Queue, Role R, unsigned Flags, int Priority)
    : Object(Kind::Stream), Ctx(std::move(C)), Q(std::move(Queue)), R(R), Flags(Flags),
      Priority(Priority), Id(NextStreamId++) {}

Stream::~Stream() {
  // Every role is in the context's list (legacy and per-thread streams
  // too, which teardown drops without destroy()): a pointer left there
  // would dangle for the next Context::synchronize.
  if (!Detached)
    Ctx->removeStream(this);
  // Q's destructor drains it.
}

Status Stream::synchronize() {
  Q->drain();
  mempool::onSynchronize(Ctx->device()); // Pools trim to their thresholds.
  return Ctx->stickyError();
}

void Stream::destroy() {
  // cuStreamDestroy returns at once and lets queued work finish; the queue
  // is drained when the last reference (a running call's Ref) goes away.
  capture::onStreamDestroy(*this);
  Ctx->removeStream(this);
  Detached = true;
  retire(this);
}

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, the special handle values.
static constexpr uintptr_t StreamLegacy = 0x1, StreamPerThread = 0x2;

Expected<Ref<Stream>> resolveStream(void *Handle, bool PerThreadDefault) {
  uintptr_t H = uintptr_t(Handle);
  if (H == 0 || H == StreamLegacy || H == StreamPerThread) {
    auto C = currentContext();
    if (!C)
      return C.takeError();
    bool PerThread = H == StreamPerThread || (H == 0 && PerThreadDefault);
    return PerThread ? (*C)->perThreadStream() : (*C)->legacyStream();
  }
  auto S = resolve<Stream>(Handle);
  if (!S)
    return S;
  if ((*S)->context().isDestroyed())
    return makeError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the stream's context was destroyed");
  return S;
}

Status Event::record(Stream &S) {
  // On a capturing stream the event marks a capture position instead.
  if (auto R = capture::onEventRecord(S, *this))
    return std::move(*R);
  std::shared_ptr<Signal> Sig;
  Status St = S.submit([&](Queue &Q) -> Status {
    auto R = Q.enqueueSignal();
    if (!R)
      return R.takeError();
    Sig = std::move(*R);
    return Status::ok();
  });
  if (!St)
    return St;
  std::lock_guard<std::mutex> L(M);
  Latest = std::move(Sig);
  return Status::ok();
}

std::shared_ptr<Signal> Event::signal() const {
  std::lock_guard<std::mutex> L(M);
  return Latest;
}

Status Event::query() const {
  auto S = signal();
  if (!S || S->isComplete())
    return Status::ok();
  return makeError(CUDA_ERROR_NOT_READY, "event not yet complete");
}

Status Event::synchronize() const {
  if (auto S = signal())
    S->wait();
  mempool::onSynchronize(Ctx->device()); // Pools trim to their thresholds.
  return Ctx->stickyError();
}

Expected<float> Event::elapsed(const Event &Start, const Event &End) {
  // CU_EVENT_DISABLE_TIMING = 0x2.
  if ((Start.Flags | End.Flags) & 0x2)
    return makeError(CUDA_ERROR_INVALID_HANDLE, "an event was created with CU_EVENT_DISABLE_TIMING");
  auto A = Start.signal(), B = End.signal();
  if (!A || !B)
    return makeError(CUDA_ERROR_INVALID_HANDLE, "an event has not been recorded");
  if (!A->isComplete() || !B->isComplete())
    return makeError(CUDA_ERROR_NOT_READY, "an event has not completed yet");
  double Ms = (double(B->timestampNs()) - double(A->timestampNs())) / 1e6;
  return float(Ms);
}

} // namespace ferry::core
