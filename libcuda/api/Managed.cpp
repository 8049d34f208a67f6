/// \file
/// Unified-memory hints: cuMemAdvise, cuMemPrefetchAsync,
/// cuStreamAttachMemAsync and the range-attribute queries. On every ferry
/// backend managed memory is one coherent allocation both sides reach (the
/// host device shares the CPU's memory; the HSA backend uses fine-grained
/// SVM), so no page ever migrates: advice is validated and remembered for
/// cuMemRangeGetAttribute, a prefetch is an ordered point in its stream
/// (work after it still waits for work before it) that records its target,
/// and attaching changes no visibility. This is the documented meaning of
/// these calls on a device with concurrent managed access, which ferry's
/// devices report.
///
/// Advice is kept per allocation (not per page): a range query answers for
/// the allocation that holds the range's start.
#include "libcuda/api/Common.h"

#include <map>
#include <mutex>
#include <set>

using namespace ferry;
using namespace ferry::api;

namespace {

struct Advice {
  bool ReadMostly = false;
  CUmemLocation Preferred{CU_MEM_LOCATION_TYPE_INVALID, 0};
  std::set<std::pair<int, int>> AccessedBy; ///< (type, id)
  CUmemLocation LastPrefetch{CU_MEM_LOCATION_TYPE_INVALID, 0};
};

std::mutex AdviceM;
std::map<uint64_t, Advice> &adviceTable() { // Keyed by allocation id.
  static std::map<uint64_t, Advice> T;
  return T;
}

/// The managed allocation holding [Ptr, Ptr+Count): managed memory only
/// (device memory is refused as NVIDIA does); memory ferry did not
/// allocate is accepted as system memory, since the devices report
/// pageable memory access, and has id 0.
Expected<uint64_t> managedRange(CUdeviceptr Ptr, size_t Count) {
  if (!Ptr || !Count)
    return makeError(CUDA_ERROR_INVALID_VALUE, "null pointer or zero count");
  auto A = core::alloctable::find(uintptr_t(Ptr));
  if (!A)
    return uint64_t(0);
  if (!A->isManaged())
    return makeError(CUDA_ERROR_INVALID_VALUE, "the range is not managed memory");
  if (uintptr_t(Ptr) - A->Base + Count > A->Bytes)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the range runs past its allocation");
  return A->Id;
}

Status checkLocation(const CUmemLocation &L, bool AllowHost) {
  switch (L.type) {
  case CU_MEM_LOCATION_TYPE_DEVICE:
    if (L.id < 0 || L.id >= core::deviceCount())
      return makeError(CUDA_ERROR_INVALID_DEVICE, "location names device " + std::to_string(L.id));
    return Status::ok();
  case CU_MEM_LOCATION_TYPE_HOST:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
    if (AllowHost)
      return Status::ok();
    [[fallthrough]];
  default:
    return makeError(CUDA_ERROR_INVALID_VALUE, "unsupported location type " + std::to_string(int(L.type)));
  }
}

/// The legacy device argument: CU_DEVICE_CPU (-1) is the host.
CUmemLocation locationOf(CUdevice D) {
  if (D == CU_DEVICE_CPU)
    return {CU_MEM_LOCATION_TYPE_HOST, 0};
  return {CU_MEM_LOCATION_TYPE_DEVICE, D};
}

CUresult advise(const char *Fn, CUdeviceptr Ptr, size_t Count, CUmem_advise Adv, CUmemLocation Loc) {
  if (Status S = core::requireInit(); !S)
    return done(Fn, std::move(S));
  auto Id = managedRange(Ptr, Count);
  if (!Id)
    return fail(Fn, Id.error());
  bool NeedsLocation = Adv == CU_MEM_ADVISE_SET_PREFERRED_LOCATION || Adv == CU_MEM_ADVISE_SET_ACCESSED_BY ||
                       Adv == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
  if (NeedsLocation)
    if (Status S = checkLocation(Loc, true); !S)
      return done(Fn, std::move(S));
  std::lock_guard<std::mutex> L(AdviceM);
  Advice &A = adviceTable()[*Id];
  switch (Adv) {
  case CU_MEM_ADVISE_SET_READ_MOSTLY: A.ReadMostly = true; break;
  case CU_MEM_ADVISE_UNSET_READ_MOSTLY: A.ReadMostly = false; break;
  case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: A.Preferred = Loc; break;
  case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: A.Preferred = {CU_MEM_LOCATION_TYPE_INVALID, 0}; break;
  case CU_MEM_ADVISE_SET_ACCESSED_BY: A.AccessedBy.insert({int(Loc.type), Loc.id}); break;
  case CU_MEM_ADVISE_UNSET_ACCESSED_BY: A.AccessedBy.erase({int(Loc.type), Loc.id}); break;
  default: return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown advice " + std::to_string(int(Adv)));
  }
  return CUDA_SUCCESS;
}

CUresult prefetch(const char *Fn, CUdeviceptr Ptr, size_t Count, CUmemLocation Loc, unsigned Flags,
                  CUstream Stream, bool PerThread) {
  if (Flags != 0)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  auto S = streamArg(Stream, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  auto Id = managedRange(Ptr, Count);
  if (!Id)
    return fail(Fn, Id.error());
  if (Status St = checkLocation(Loc, true); !St)
    return done(Fn, std::move(St));
  {
    std::lock_guard<std::mutex> L(AdviceM);
    adviceTable()[*Id].LastPrefetch = Loc;
  }
  // Nothing moves, but the prefetch still takes its place in stream order.
  Status St = (*S)->submit([](Queue &Q) { return Q.enqueueHostFunction([](CUresult) {}); });
  return done(Fn, std::move(St));
}

/// One range attribute into Data (DataSize bytes).
CUresult rangeAttribute(const char *Fn, void *Data, size_t DataSize, CUmem_range_attribute Attr,
                        CUdeviceptr Ptr, size_t Count) {
  if (!Data)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "data is null");
  auto Id = managedRange(Ptr, Count);
  if (!Id)
    return fail(Fn, Id.error());
  Advice A;
  {
    std::lock_guard<std::mutex> L(AdviceM);
    if (auto It = adviceTable().find(*Id); It != adviceTable().end())
      A = It->second;
  }
  auto PutInt = [&](int V) -> CUresult {
    if (DataSize != 4)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "this attribute needs dataSize 4");
    *static_cast<int *>(Data) = V;
    return CUDA_SUCCESS;
  };
  // Legacy device numbering: CU_DEVICE_CPU for the host, CU_DEVICE_INVALID
  // when unset.
  auto Legacy = [](const CUmemLocation &L) {
    if (L.type == CU_MEM_LOCATION_TYPE_DEVICE)
      return L.id;
    if (L.type == CU_MEM_LOCATION_TYPE_INVALID)
      return int(CU_DEVICE_INVALID);
    return int(CU_DEVICE_CPU);
  };
  switch (Attr) {
  case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: return PutInt(A.ReadMostly ? 1 : 0);
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: return PutInt(Legacy(A.Preferred));
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: return PutInt(Legacy(A.LastPrefetch));
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: return PutInt(int(A.Preferred.type));
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: return PutInt(A.Preferred.id);
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: return PutInt(int(A.LastPrefetch.type));
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: return PutInt(A.LastPrefetch.id);
  case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
    if (DataSize % 4)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dataSize must be a multiple of 4");
    auto *Out = static_cast<int *>(Data);
    size_t N = DataSize / 4, I = 0;
    for (const auto &[Type, Id] : A.AccessedBy)
      if (I < N)
        Out[I++] = Type == CU_MEM_LOCATION_TYPE_DEVICE ? Id : int(CU_DEVICE_CPU);
    for (; I < N; ++I)
      Out[I] = int(CU_DEVICE_INVALID);
    return CUDA_SUCCESS;
  }
  default:
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown range attribute " + std::to_string(int(Attr)));
  }
}

CUresult attach(const char *Fn, CUstream Stream, CUdeviceptr Ptr, size_t Length, unsigned Flags, bool PerThread) {
  unsigned Known = CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST | CU_MEM_ATTACH_SINGLE;
  if (Flags & ~Known || __builtin_popcount(Flags) > 1)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "flags must be one of the CU_MEM_ATTACH_* values");
  auto S = streamArg(Stream, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Flags == CU_MEM_ATTACH_SINGLE && (*S)->role() != core::Stream::Role::Created)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "CU_MEM_ATTACH_SINGLE needs a created stream");
  if (!Ptr)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dptr is null");
  auto A = core::alloctable::find(uintptr_t(Ptr));
  if (!A || !A->isManaged())
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dptr is not managed memory");
  // Length 0 means the whole allocation; otherwise it must be all of it.
  if (Length != 0 && (uintptr_t(Ptr) != A->Base || Length != A->Bytes))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "length must be 0 or the whole allocation");
  Status St = (*S)->submit([](Queue &Q) { return Q.enqueueHostFunction([](CUresult) {}); });
  return done(Fn, std::move(St));
}

} // namespace

FERRY_EXPORT CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device) {
  return advise(__func__, devPtr, count, advice, locationOf(device));
}
FERRY_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                     CUmemLocation location) {
  return advise(__func__, devPtr, count, advice, location);
}

FERRY_EXPORT CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) {
  return prefetch(__func__, devPtr, count, locationOf(dstDevice), 0, hStream, false);
}
FERRY_EXPORT CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                              CUstream hStream) {
  return prefetch(__func__, devPtr, count, locationOf(dstDevice), 0, hStream, true);
}
FERRY_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                            unsigned int flags, CUstream hStream) {
  return prefetch(__func__, devPtr, count, location, flags, hStream, false);
}
FERRY_EXPORT CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                                 unsigned int flags, CUstream hStream) {
  return prefetch(__func__, devPtr, count, location, flags, hStream, true);
}

FERRY_EXPORT CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                             CUdeviceptr devPtr, size_t count) {
  return rangeAttribute(__func__, data, dataSize, attribute, devPtr, count);
}

FERRY_EXPORT CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                              size_t numAttributes, CUdeviceptr devPtr, size_t count) {
  if (!data || !dataSizes || !attributes || numAttributes == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null array or no attributes");
  for (size_t I = 0; I < numAttributes; ++I)
    if (CUresult R = rangeAttribute(__func__, data[I], dataSizes[I], attributes[I], devPtr, count))
      return R;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) {
  return attach(__func__, hStream, dptr, length, flags, false);
}
FERRY_EXPORT CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length,
                                                  unsigned int flags) {
  return attach(__func__, hStream, dptr, length, flags, true);
}
