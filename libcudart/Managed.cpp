/// \file
/// Unified-memory hints of the runtime (cudaMemAdvise, cudaMemPrefetchAsync,
/// cudaStreamAttachMemAsync, cudaMemRangeGetAttribute[s]): thin forwards to
/// the driver's forms, whose memory-location structs have the runtime's
/// layout (a location type and an id, with the same numbering).
#include "Runtime.h"

#include <cstring>

using namespace ferry::cudart;

namespace {

CUdeviceptr dptr(const void *P) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(P)); }

CUmemLocation toDriver(const cudaMemLocation &L) {
  static_assert(sizeof(CUmemLocation) == sizeof(cudaMemLocation));
  CUmemLocation Out;
  Out.type = static_cast<CUmemLocationType>(L.type);
  Out.id = L.id;
  return Out;
}

cudaError_t prefetch(const DriverTable &D, const void *Ptr, size_t Count, cudaMemLocation Loc, unsigned Flags,
                     cudaStream_t Stream) {
  return inContext([&] { return D.cuMemPrefetchAsync(dptr(Ptr), Count, toDriver(Loc), Flags, Stream); });
}

cudaError_t attach(const DriverTable &D, cudaStream_t Stream, void *Ptr, size_t Length, unsigned Flags) {
  return inContext([&] { return D.cuStreamAttachMemAsync(Stream, dptr(Ptr), Length, Flags); });
}

} // namespace

extern "C" {

cudaError_t cudaMemAdvise(const void *DevPtr, size_t Count, enum cudaMemoryAdvise Advice,
                          struct cudaMemLocation Location) {
  return inContext([&] {
    return driver().cuMemAdvise(dptr(DevPtr), Count, static_cast<CUmem_advise>(Advice), toDriver(Location));
  });
}

cudaError_t cudaMemPrefetchAsync(const void *DevPtr, size_t Count, struct cudaMemLocation Location,
                                 unsigned int Flags, cudaStream_t Stream) {
  return prefetch(driver(false), DevPtr, Count, Location, Flags, Stream);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void *DevPtr, size_t Count, struct cudaMemLocation Location,
                                      unsigned int Flags, cudaStream_t Stream) {
  return prefetch(driver(true), DevPtr, Count, Location, Flags, Stream);
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t Stream, void *DevPtr, size_t Length, unsigned int Flags) {
  return attach(driver(false), Stream, DevPtr, Length, Flags);
}
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t Stream, void *DevPtr, size_t Length, unsigned int Flags) {
  return attach(driver(true), Stream, DevPtr, Length, Flags);
}

cudaError_t cudaMemRangeGetAttribute(void *Data, size_t DataSize, enum cudaMemRangeAttribute Attribute,
                                     const void *DevPtr, size_t Count) {
  return inContext([&] {
    return driver().cuMemRangeGetAttribute(Data, DataSize, static_cast<CUmem_range_attribute>(Attribute),
                                           dptr(DevPtr), Count);
  });
}

cudaError_t cudaMemRangeGetAttributes(void **Data, size_t *DataSizes, enum cudaMemRangeAttribute *Attributes,
                                      size_t NumAttributes, const void *DevPtr, size_t Count) {
  static_assert(sizeof(enum cudaMemRangeAttribute) == sizeof(CUmem_range_attribute));
  return inContext([&] {
    return driver().cuMemRangeGetAttributes(Data, DataSizes, reinterpret_cast<CUmem_range_attribute *>(Attributes),
                                            NumAttributes, dptr(DevPtr), Count);
  });
}

} // extern "C"
