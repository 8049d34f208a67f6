/// \file
/// Runtime calls that forward to one driver call each: the profiler
/// controls, stream attributes, the available-dynamic-shared-memory query
/// and kernel parameter layout. The runtime's launch-attribute types have
/// the driver's layout (same ids, same 64-byte value union).
#include "Runtime.h"

#include <cstring>

using namespace ferry::cudart;

namespace {

static_assert(sizeof(cudaLaunchAttributeValue) == sizeof(CUstreamAttrValue));

cudaError_t getAttr(const DriverTable &D, cudaStream_t S, cudaLaunchAttributeID A, cudaLaunchAttributeValue *V) {
  if (!V)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] {
    return D.cuStreamGetAttribute(S, static_cast<CUstreamAttrID>(A), reinterpret_cast<CUstreamAttrValue *>(V));
  });
}

cudaError_t setAttr(const DriverTable &D, cudaStream_t S, cudaLaunchAttributeID A,
                    const cudaLaunchAttributeValue *V) {
  if (!V)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] {
    return D.cuStreamSetAttribute(S, static_cast<CUstreamAttrID>(A),
                                  reinterpret_cast<const CUstreamAttrValue *>(V));
  });
}

} // namespace

extern "C" {

cudaError_t cudaProfilerStart() { return inContext([] { return driver().cuProfilerStart(); }); }
cudaError_t cudaProfilerStop() { return inContext([] { return driver().cuProfilerStop(); }); }

cudaError_t cudaStreamGetAttribute(cudaStream_t S, cudaLaunchAttributeID A, cudaLaunchAttributeValue *V) {
  return getAttr(driver(false), S, A, V);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t S, cudaLaunchAttributeID A, cudaLaunchAttributeValue *V) {
  return getAttr(driver(true), S, A, V);
}
cudaError_t cudaStreamSetAttribute(cudaStream_t S, cudaLaunchAttributeID A, const cudaLaunchAttributeValue *V) {
  return setAttr(driver(false), S, A, V);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t S, cudaLaunchAttributeID A,
                                        const cudaLaunchAttributeValue *V) {
  return setAttr(driver(true), S, A, V);
}
cudaError_t cudaStreamCopyAttributes(cudaStream_t Dst, cudaStream_t Src) {
  return inContext([&] { return driver(false).cuStreamCopyAttributes(Dst, Src); });
}
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t Dst, cudaStream_t Src) {
  return inContext([&] { return driver(true).cuStreamCopyAttributes(Dst, Src); });
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *Size, const void *Func, int NumBlocks,
                                                      int BlockSize) {
  if (!Size)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  CUfunction F;
  if (CUresult R = driver().cuKernelGetFunction(&F, K))
    return finish(R, C.Device);
  return finish(driver().cuOccupancyAvailableDynamicSMemPerBlock(Size, F, NumBlocks, BlockSize), C.Device);
}

cudaError_t cudaFuncGetParamInfo(const void *Func, size_t Index, size_t *Offset, size_t *Size) {
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUkernel K;
  if (cudaError_t E = lookupKernel(Func, K))
    return recordError(E);
  return finish(driver().cuKernelGetParamInfo(K, Index, Offset, Size), C.Device);
}

} // extern "C"
