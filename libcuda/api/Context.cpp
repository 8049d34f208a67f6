/// \file
/// Primary and created contexts and the per-thread context stack.
#include "libcuda/api/Common.h"
#include "libcuda/core/Graph.h"

using namespace ferry;
using namespace ferry::api;
using core::Context;
using core::Ref;

static CUcontext ctxHandle(const Ref<Context> &C) { return handleOf<CUcontext>(C.get()); }

static Expected<Ref<Context>> ctxArg(CUcontext C) {
  auto R = core::resolve<Context>(C, CUDA_ERROR_INVALID_CONTEXT);
  if (R && (*R)->isDestroyed())
    return makeError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context was destroyed");
  return R;
}

// Scheduling flags (low 3 bits), MAP_HOST (0x8), LMEM_RESIZE_TO_MAX (0x10),
// COREDUMP (0x20), USER_COREDUMP (0x40), SYNC_MEMOPS (0x80).
static constexpr unsigned ValidCtxFlags = 0x7 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80;

//===----------------------------------------------------------------------===//
// Primary contexts
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (!pctx)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pctx is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  (*D)->Primary->retain();
  *pctx = ctxHandle((*D)->Primary);
  return CUDA_SUCCESS;
}

static CUresult primaryRelease(const char *Fn, CUdevice dev) {
  auto D = deviceArg(dev);
  if (!D)
    return fail(Fn, D.error());
  auto Left = (*D)->Primary->release();
  if (!Left)
    return fail(Fn, Left.error());
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return primaryRelease(__func__, dev); }
FERRY_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { return primaryRelease(__func__, dev); }

static CUresult primaryReset(const char *Fn, CUdevice dev) {
  auto D = deviceArg(dev);
  if (!D)
    return fail(Fn, D.error());
  (*D)->Primary->teardown();
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return primaryReset(__func__, dev); }
FERRY_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) { return primaryReset(__func__, dev); }

static CUresult primarySetFlags(const char *Fn, CUdevice dev, unsigned flags) {
  auto D = deviceArg(dev);
  if (!D)
    return fail(Fn, D.error());
  if (flags & ~ValidCtxFlags)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown context flags");
  if ((flags & 0x7) == 0x3 || (flags & 0x7) > 4)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "invalid scheduling flag");
  (*D)->Primary->setFlags(flags);
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return primarySetFlags(__func__, dev, flags);
}
FERRY_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  return primarySetFlags(__func__, dev, flags);
}

FERRY_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  if (!flags || !active)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags or active is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  *flags = (*D)->Primary->flags();
  *active = (*D)->Primary->retainCount() > 0;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Created contexts
//===----------------------------------------------------------------------===//

static CUresult createContext(const char *Fn, CUcontext *pctx, unsigned flags, CUdevice dev) {
  if (!pctx)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pctx is null");
  auto D = deviceArg(dev);
  if (!D)
    return fail(Fn, D.error());
  if (flags & ~ValidCtxFlags)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown context flags");
  auto C = std::make_shared<Context>(**D, /*Primary=*/false, flags);
  core::publish(C);
  core::ctxstack::push(C);
  *pctx = ctxHandle(C);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return createContext(__func__, pctx, flags, dev);
}
FERRY_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                     int numParams, unsigned int flags, CUdevice dev) {
  if (numParams > 0)
    return fail(__func__, CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "execution affinity is not supported");
  return createContext(__func__, pctx, flags, dev);
}
FERRY_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                     unsigned int flags, CUdevice dev) {
  if (ctxCreateParams && (ctxCreateParams->numExecAffinityParams > 0 || ctxCreateParams->cigParams))
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "execution affinity / CIG contexts are not supported");
  return createContext(__func__, pctx, flags, dev);
}

FERRY_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
  auto C = ctxArg(ctx);
  if (!C)
    return fail(__func__, C.error());
  if ((*C)->isPrimary())
    return fail(__func__, CUDA_ERROR_INVALID_CONTEXT, "a primary context cannot be destroyed");
  (*C)->destroy();
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The context stack
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) {
  if (!pctx)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pctx is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  auto C = core::ctxstack::current();
  *pctx = C ? ctxHandle(C) : nullptr;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  if (!ctx) {
    core::ctxstack::setCurrent(nullptr);
    return CUDA_SUCCESS;
  }
  auto C = ctxArg(ctx);
  if (!C)
    return fail(__func__, C.error());
  core::ctxstack::setCurrent(*C);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  auto C = ctxArg(ctx);
  if (!C)
    return fail(__func__, C.error());
  core::ctxstack::push(*C);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  auto C = core::ctxstack::pop();
  if (!C)
    return fail(__func__, CUDA_ERROR_INVALID_CONTEXT, "the context stack is empty");
  if (pctx)
    *pctx = ctxHandle(C);
  return CUDA_SUCCESS;
}

/// ctx null means the current context (the CUDA 13 `_v2` forms).
static Expected<Ref<Context>> ctxOrCurrent(CUcontext ctx) { return core::contextOrCurrent(ctx); }

FERRY_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  if (!device)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "device is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  *device = (*C)->device().Ordinal;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx) {
  if (!device)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "device is null");
  auto C = ctxOrCurrent(ctx);
  if (!C)
    return fail(__func__, C.error());
  *device = (*C)->device().Ordinal;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSynchronize() {
  auto C = current(__func__);
  if (!C)
    return C.code();
  if (Status St = core::capture::checkUnsafeCall(__func__); !St)
    return done(__func__, std::move(St));
  return done(__func__, (*C)->synchronize());
}

FERRY_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  auto C = ctxOrCurrent(ctx);
  if (!C)
    return fail(__func__, C.error());
  if (Status St = core::capture::checkUnsafeCall(__func__); !St)
    return done(__func__, std::move(St));
  return done(__func__, (*C)->synchronize());
}

FERRY_EXPORT CUresult cuCtxGetFlags(unsigned int *flags) {
  if (!flags)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  *flags = (*C)->flags();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSetFlags(unsigned int flags) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  if (flags & ~ValidCtxFlags)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown context flags");
  (*C)->setFlags(flags);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
  if (!pvalue)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pvalue is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto V = (*C)->getLimit(int(limit));
  if (!V)
    return fail(__func__, V.error());
  *pvalue = *V;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  return done(__func__, (*C)->setLimit(int(limit), value));
}

FERRY_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig) {
  if (!pconfig)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pconfig is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  *pconfig = CUfunc_cache((*C)->cacheConfig());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  if (int(config) < 0 || int(config) > 3)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown cache config");
  (*C)->setCacheConfig(int(config));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig) {
  if (!pConfig)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pConfig is null");
  auto C = current(__func__);
  if (!C)
    return C.code();
  *pConfig = CUsharedconfig((*C)->sharedMemConfig());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  if (int(config) < 0 || int(config) > 2)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown shared memory config");
  (*C)->setSharedMemConfig(int(config));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  if (!version)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "version is null");
  auto C = ctxOrCurrent(ctx);
  if (!C)
    return fail(__func__, C.error());
  *version = 3020; // The context API generation every CUDA ≥ 3.2 reports.
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  if (!ctxId)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "ctxId is null");
  auto C = ctxOrCurrent(ctx);
  if (!C)
    return fail(__func__, C.error());
  *ctxId = (*C)->id();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  // NVIDIA's range on current GPUs: 0 (least) to -5 (greatest).
  if (leastPriority)
    *leastPriority = 0;
  if (greatestPriority)
    *greatestPriority = -5;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuCtxResetPersistingL2Cache() {
  auto C = current(__func__);
  if (!C)
    return C.code();
  return CUDA_SUCCESS; // No persisting L2 on ferry devices: nothing to reset.
}
