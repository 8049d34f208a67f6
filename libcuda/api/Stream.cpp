/// \file
/// Streams (create, destroy, query, synchronize, wait on events, host
/// callbacks, properties) and events (create, record, query, synchronize,
/// elapsed time, destroy).
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"

using namespace ferry;
using namespace ferry::api;
using core::Event;
using core::Ref;
using core::Stream;

static CUresult createStream(const char *Fn, CUstream *phStream, unsigned Flags, int Priority) {
  if (!phStream)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "phStream is null");
  if (Flags & ~unsigned(CU_STREAM_NON_BLOCKING))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown stream flags");
  auto C = current(Fn);
  if (!C)
    return C.code();
  Priority = std::clamp(Priority, -5, 0); // Out-of-range priorities are clamped, as on NVIDIA.
  auto Q = (*C)->device().Backend->createQueue(Priority);
  if (!Q)
    return fail(Fn, Q.error());
  auto S = std::make_shared<Stream>(*C, std::move(*Q), Stream::Role::Created, Flags, Priority);
  (*C)->addStream(S.get());
  core::publish(S);
  *phStream = handleOf<CUstream>(S.get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  return createStream(__func__, phStream, Flags, 0);
}
FERRY_EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
  return createStream(__func__, phStream, flags, priority);
}

FERRY_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream) {
  auto S = core::resolve<Stream>(hStream);
  if (!S)
    return fail(__func__, S.error());
  (*S)->destroy();
  return CUDA_SUCCESS;
}

static CUresult streamQuery(const char *Fn, CUstream h, bool PerThread) {
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  if (Status St = core::capture::checkStreamWait(**S, Fn); !St)
    return done(Fn, std::move(St));
  // NOT_READY is an answer, not a failure: no log line.
  return (*S)->isIdle() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
FERRY_EXPORT CUresult cuStreamQuery(CUstream h) { return streamQuery(__func__, h, false); }
FERRY_EXPORT CUresult cuStreamQuery_ptsz(CUstream h) { return streamQuery(__func__, h, true); }

static CUresult streamSync(const char *Fn, CUstream h, bool PerThread) {
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = core::capture::checkStreamWait(**S, Fn); !St)
    return done(Fn, std::move(St));
  return done(Fn, (*S)->synchronize());
}
FERRY_EXPORT CUresult cuStreamSynchronize(CUstream h) { return streamSync(__func__, h, false); }
FERRY_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream h) { return streamSync(__func__, h, true); }

static CUresult streamWaitEvent(const char *Fn, CUstream h, CUevent e, unsigned Flags, bool PerThread) {
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  auto E = core::resolve<Event>(e);
  if (!E)
    return fail(Fn, E.error());
  if (Flags & ~1u) // CU_EVENT_WAIT_DEFAULT / CU_EVENT_WAIT_EXTERNAL
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown wait flags");
  if (auto R = core::capture::onStreamWaitEvent(**S, **E, Flags))
    return done(Fn, std::move(*R)); // A fork or join of a stream capture.
  auto Sig = (*E)->signal();
  if (!Sig)
    return CUDA_SUCCESS; // Never recorded: nothing to wait for.
  return done(Fn, (*S)->submit([&](Queue &Q) { return Q.enqueueWait(Sig); }));
}
FERRY_EXPORT CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned int f) {
  return streamWaitEvent(__func__, h, e, f, false);
}
FERRY_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream h, CUevent e, unsigned int f) {
  return streamWaitEvent(__func__, h, e, f, true);
}

static CUresult addCallback(const char *Fn, CUstream h, CUstreamCallback cb, void *user, unsigned flags,
                            bool PerThread) {
  if (!cb)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "callback is null");
  if (flags != 0)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  // The callback receives the handle the user passed (0 stays 0).
  return done(Fn, (*S)->submit([&](Queue &Q) {
    return Q.enqueueHostFunction([cb, h, user](CUresult R) { cb(h, R, user); });
  }));
}
FERRY_EXPORT CUresult cuStreamAddCallback(CUstream h, CUstreamCallback cb, void *u, unsigned int f) {
  return addCallback(__func__, h, cb, u, f, false);
}
FERRY_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *u, unsigned int f) {
  return addCallback(__func__, h, cb, u, f, true);
}

static CUresult launchHostFunc(const char *Fn, CUstream h, CUhostFn fn, void *user, bool PerThread) {
  if (!fn)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "fn is null");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  return done(Fn, core::capture::submitHostFunc(**S, fn, user));
}
FERRY_EXPORT CUresult cuLaunchHostFunc(CUstream h, CUhostFn fn, void *u) {
  return launchHostFunc(__func__, h, fn, u, false);
}
FERRY_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *u) {
  return launchHostFunc(__func__, h, fn, u, true);
}

// clang-format off
static CUresult getFlags(const char *Fn, CUstream h, unsigned *f, bool PT) {
  if (!f) return fail(Fn, CUDA_ERROR_INVALID_VALUE, "flags is null");
  auto S = streamArg(h, PT);
  if (!S) return fail(Fn, S.error());
  *f = (*S)->flags();
  return CUDA_SUCCESS;
}
static CUresult getPriority(const char *Fn, CUstream h, int *p, bool PT) {
  if (!p) return fail(Fn, CUDA_ERROR_INVALID_VALUE, "priority is null");
  auto S = streamArg(h, PT);
  if (!S) return fail(Fn, S.error());
  *p = (*S)->priority();
  return CUDA_SUCCESS;
}
static CUresult getCtx(const char *Fn, CUstream h, CUcontext *c, bool PT) {
  if (!c) return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pctx is null");
  auto S = streamArg(h, PT);
  if (!S) return fail(Fn, S.error());
  *c = handleOf<CUcontext>(&(*S)->context());
  return CUDA_SUCCESS;
}
static CUresult getId(const char *Fn, CUstream h, unsigned long long *id, bool PT) {
  if (!id) return fail(Fn, CUDA_ERROR_INVALID_VALUE, "streamId is null");
  auto S = streamArg(h, PT);
  if (!S) return fail(Fn, S.error());
  *id = (*S)->id();
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuStreamGetFlags(CUstream h, unsigned int *f) { return getFlags(__func__, h, f, false); }
FERRY_EXPORT CUresult cuStreamGetFlags_ptsz(CUstream h, unsigned int *f) { return getFlags(__func__, h, f, true); }
FERRY_EXPORT CUresult cuStreamGetPriority(CUstream h, int *p) { return getPriority(__func__, h, p, false); }
FERRY_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream h, int *p) { return getPriority(__func__, h, p, true); }
FERRY_EXPORT CUresult cuStreamGetCtx(CUstream h, CUcontext *c) { return getCtx(__func__, h, c, false); }
FERRY_EXPORT CUresult cuStreamGetCtx_ptsz(CUstream h, CUcontext *c) { return getCtx(__func__, h, c, true); }
FERRY_EXPORT CUresult cuStreamGetId(CUstream h, unsigned long long *id) { return getId(__func__, h, id, false); }
FERRY_EXPORT CUresult cuStreamGetId_ptsz(CUstream h, unsigned long long *id) { return getId(__func__, h, id, true); }
// clang-format on

FERRY_EXPORT CUresult cuStreamGetDevice(CUstream h, CUdevice *device) {
  if (!device)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "device is null");
  auto S = streamArg(h, false);
  if (!S)
    return fail(__func__, S.error());
  *device = (*S)->context().device().Ordinal;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  if (!phEvent)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "phEvent is null");
  unsigned Known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (Flags & ~Known)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown event flags");
  if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "interprocess events need CU_EVENT_DISABLE_TIMING");
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto E = std::make_shared<Event>(*C, Flags);
  core::publish(E);
  *phEvent = handleOf<CUevent>(E.get());
  return CUDA_SUCCESS;
}

static CUresult record(const char *Fn, CUevent e, CUstream h, unsigned Flags, bool PerThread) {
  auto E = core::resolve<Event>(e);
  if (!E)
    return fail(Fn, E.error());
  if (Flags & ~unsigned(CU_EVENT_RECORD_EXTERNAL))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown record flags");
  auto S = streamArg(h, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (&(*S)->context() != &(*E)->context())
    return fail(Fn, CUDA_ERROR_INVALID_HANDLE, "event and stream belong to different contexts");
  return done(Fn, (*E)->record(**S));
}
FERRY_EXPORT CUresult cuEventRecord(CUevent e, CUstream h) { return record(__func__, e, h, 0, false); }
FERRY_EXPORT CUresult cuEventRecord_ptsz(CUevent e, CUstream h) { return record(__func__, e, h, 0, true); }
FERRY_EXPORT CUresult cuEventRecordWithFlags(CUevent e, CUstream h, unsigned int f) {
  return record(__func__, e, h, f, false);
}
FERRY_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream h, unsigned int f) {
  return record(__func__, e, h, f, true);
}

FERRY_EXPORT CUresult cuEventQuery(CUevent e) {
  auto E = core::resolve<Event>(e);
  if (!E)
    return fail(__func__, E.error());
  if (Status St = core::capture::checkEventWait(**E, __func__); !St)
    return done(__func__, std::move(St));
  Status S = (*E)->query();
  return S ? CUDA_SUCCESS : S.code(); // NOT_READY is an answer: not logged.
}

FERRY_EXPORT CUresult cuEventSynchronize(CUevent e) {
  auto E = core::resolve<Event>(e);
  if (!E)
    return fail(__func__, E.error());
  if (Status St = core::capture::checkEventWait(**E, __func__); !St)
    return done(__func__, std::move(St));
  return done(__func__, (*E)->synchronize());
}

static CUresult elapsed(const char *Fn, float *ms, CUevent a, CUevent b) {
  if (!ms)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pMilliseconds is null");
  auto A = core::resolve<Event>(a), B = core::resolve<Event>(b);
  if (!A)
    return fail(Fn, A.error());
  if (!B)
    return fail(Fn, B.error());
  auto T = Event::elapsed(**A, **B);
  if (!T)
    return T.code() == CUDA_ERROR_NOT_READY ? CUDA_ERROR_NOT_READY : fail(Fn, T.error());
  *ms = *T;
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { return elapsed(__func__, ms, a, b); }
FERRY_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
  return elapsed(__func__, ms, a, b);
}

FERRY_EXPORT CUresult cuEventDestroy_v2(CUevent e) {
  auto E = core::resolve<Event>(e);
  if (!E)
    return fail(__func__, E.error());
  core::retire(E->get());
  return CUDA_SUCCESS;
}
