/// \file
/// Stream attributes (cuStreamGetAttribute/SetAttribute/CopyAttributes) and
/// the profiler controls.
///
/// Stream attributes are hints for the hardware (L2 access-policy windows,
/// synchronisation policy, memory sync domains) plus the stream's priority.
/// ferry's devices have no L2 persistence to steer, so the hints are
/// validated and remembered: a program reads back what it set, as it does on
/// NVIDIA, and copying attributes between streams copies them. The priority
/// is the stream's own and cannot be changed after creation.
///
/// The profiler controls start and stop collection by an attached profiler
/// (Nsight's); NVIDIA's driver answers success when none is attached, and
/// no profiler attaches to ferry, so they succeed and log that nothing is
/// collected.
#include "libcuda/api/Common.h"

#include <cstring>
#include <map>
#include <mutex>

using namespace ferry;
using namespace ferry::api;

namespace {

std::mutex AttrM;
/// Stream id → attribute id → value. Entries of destroyed streams are
/// harmless (ids are never reused) and tiny.
std::map<uint64_t, std::map<int, CUstreamAttrValue>> &attrTable() {
  static std::map<uint64_t, std::map<int, CUstreamAttrValue>> T;
  return T;
}

bool settable(int Id) {
  switch (Id) {
  case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
  case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    return true;
  default:
    return false;
  }
}

CUresult getAttr(const char *Fn, CUstream H, CUstreamAttrID Attr, CUstreamAttrValue *Out, bool PT) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto S = streamArg(H, PT);
  if (!S)
    return fail(Fn, S.error());
  if (Attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
    std::memset(Out, 0, sizeof *Out);
    Out->priority = (*S)->priority();
    return CUDA_SUCCESS;
  }
  if (!settable(int(Attr)))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "attribute " + std::to_string(int(Attr)) + " is not a stream attribute");
  std::lock_guard<std::mutex> L(AttrM);
  auto &Mine = attrTable()[(*S)->id()];
  if (auto It = Mine.find(int(Attr)); It != Mine.end())
    *Out = It->second;
  else
    std::memset(Out, 0, sizeof *Out); // Defaults: no window, auto policy, domain 0.
  return CUDA_SUCCESS;
}

CUresult setAttr(const char *Fn, CUstream H, CUstreamAttrID Attr, const CUstreamAttrValue *In, bool PT) {
  if (!In)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "value is null");
  auto S = streamArg(H, PT);
  if (!S)
    return fail(Fn, S.error());
  if (!settable(int(Attr)))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "attribute " + std::to_string(int(Attr)) + " cannot be set on a stream");
  if (Attr == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) {
    // What an H100 refuses (a refused window leaves the previous one).
    const CUaccessPolicyWindow &W = In->accessPolicyWindow;
    if (!(W.hitRatio >= 0.0f && W.hitRatio <= 1.0f))
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "hitRatio must be in [0, 1]");
    size_t MaxWindow = size_t((*S)->context().device().Backend->properties().MaxAccessPolicyWindowSize);
    if (W.num_bytes > MaxWindow)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "an access policy window of " + std::to_string(W.num_bytes) +
                                                    " bytes exceeds the device's maximum of " + std::to_string(MaxWindow));
    if (W.missProp == CU_ACCESS_PROPERTY_PERSISTING)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "missProp cannot be persisting");
  }
  std::lock_guard<std::mutex> L(AttrM);
  attrTable()[(*S)->id()][int(Attr)] = *In;
  return CUDA_SUCCESS;
}

CUresult copyAttrs(const char *Fn, CUstream Dst, CUstream Src, bool PT) {
  auto D = streamArg(Dst, PT);
  if (!D)
    return fail(Fn, D.error());
  auto S = streamArg(Src, PT);
  if (!S)
    return fail(Fn, S.error());
  std::lock_guard<std::mutex> L(AttrM);
  auto Copy = attrTable()[(*S)->id()];
  attrTable()[(*D)->id()] = std::move(Copy);
  return CUDA_SUCCESS;
}

} // namespace

// clang-format off
FERRY_EXPORT CUresult cuStreamGetAttribute(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) { return getAttr(__func__, h, a, v, false); }
FERRY_EXPORT CUresult cuStreamGetAttribute_ptsz(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) { return getAttr(__func__, h, a, v, true); }
FERRY_EXPORT CUresult cuStreamSetAttribute(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) { return setAttr(__func__, h, a, v, false); }
FERRY_EXPORT CUresult cuStreamSetAttribute_ptsz(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) { return setAttr(__func__, h, a, v, true); }
FERRY_EXPORT CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) { return copyAttrs(__func__, dst, src, false); }
FERRY_EXPORT CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) { return copyAttrs(__func__, dst, src, true); }
// clang-format on

FERRY_EXPORT CUresult cuProfilerStart() {
  if (auto C = current(__func__); !C)
    return C.code();
  log::api().debug("cuProfilerStart: no profiler is attached to ferry; nothing is collected");
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuProfilerStop() {
  if (auto C = current(__func__); !C)
    return C.code();
  log::api().debug("cuProfilerStop: no profiler is attached to ferry");
  return CUDA_SUCCESS;
}

/// Deprecated since CUDA 11 and a no-op on NVIDIA's current drivers too.
FERRY_EXPORT CUresult cuProfilerInitialize(const char *configFile, const char *outputFile,
                                           CUoutput_mode outputMode) {
  if (!configFile || !outputFile)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "configFile or outputFile is null");
  if (auto C = current(__func__); !C)
    return C.code();
  return CUDA_SUCCESS;
}
