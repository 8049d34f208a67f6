/// \file
/// Allocations: the process-wide range table (pointer attributes and
/// cuMemGetAddressRange look pointers up in it) and allocate/free through
/// the owning context's device.
#include "libcuda/core/Core.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/MemPool.h"

#include "support/Log.h"

namespace ferry::core {

namespace {
struct AllocTable {
  std::shared_mutex M;
  std::map<uintptr_t, Allocation> ByBase;
};
AllocTable &allocs() {
  static AllocTable *T = new AllocTable(); // Leaked: used from atexit.
  return *T;
}
std::atomic<uint64_t> NextBufferId{1};
} // namespace

void alloctable::insert(const Allocation &A) {
  auto &T = allocs();
  std::unique_lock<std::shared_mutex> L(T.M);
  T.ByBase[A.Base] = A;
}

std::optional<Allocation> alloctable::erase(uintptr_t Base) {
  auto &T = allocs();
  std::unique_lock<std::shared_mutex> L(T.M);
  auto It = T.ByBase.find(Base);
  if (It == T.ByBase.end())
    return std::nullopt;
  Allocation A = It->second;
  T.ByBase.erase(It);
  return A;
}

std::optional<Allocation> alloctable::find(uintptr_t Ptr) {
  auto &T = allocs();
  std::shared_lock<std::shared_mutex> L(T.M);
  auto It = T.ByBase.upper_bound(Ptr);
  if (It == T.ByBase.begin())
    return std::nullopt;
  --It;
  const Allocation &A = It->second;
  if (Ptr - A.Base < A.Bytes)
    return A;
  return std::nullopt;
}

uint64_t alloctable::nextId() { return NextBufferId++; }

std::optional<Allocation> alloctable::firstEndingAbove(uintptr_t Limit, int Ordinal) {
  auto &T = allocs();
  std::shared_lock<std::shared_mutex> L(T.M);
  for (const auto &[Base, A] : T.ByBase)
    if (A.DeviceOrdinal == Ordinal && A.Base + A.Bytes > Limit &&
        (A.Kind == AllocKind::Device || A.Kind == AllocKind::Managed || A.Kind == AllocKind::Host))
      return A;
  return std::nullopt;
}

static MemoryKind backendKind(AllocKind K) {
  switch (K) {
  case AllocKind::Host: return MemoryKind::HostPinned;
  case AllocKind::Managed: return MemoryKind::Managed;
  default: return MemoryKind::Device;
  }
}

Expected<void *> allocate(Context &Ctx, AllocKind Kind, size_t Bytes, unsigned Flags) {
  if (Bytes == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "allocation of 0 bytes");
  // Allocations are not stream-ordered, so a capture cannot record them.
  if (Status St = capture::checkUnsafeCall("memory allocation"); !St)
    return St.takeError();
  auto P = Ctx.device().Backend->allocate(backendKind(Kind), Bytes);
  if (!P)
    return P;
  Allocation A;
  A.Base = uintptr_t(*P);
  A.Bytes = Bytes;
  A.Kind = Kind;
  A.Flags = Flags;
  A.DeviceOrdinal = Ctx.device().Ordinal;
  A.Ctx = &Ctx;
  A.Id = NextBufferId++;
  alloctable::insert(A);
  Ctx.noteAllocation(*P);
  return *P;
}

Status release(void *Ptr, std::initializer_list<AllocKind> Accept) {
  if (Status St = capture::checkUnsafeCall("freeing memory"); !St)
    return St; // It synchronizes the context.
  auto A = alloctable::find(uintptr_t(Ptr));
  if (!A || A->Base != uintptr_t(Ptr))
    return makeError(CUDA_ERROR_INVALID_VALUE, "pointer is not the start of a live allocation");
  bool Ok = false;
  for (AllocKind K : Accept)
    Ok |= K == A->Kind;
  if (!Ok)
    return makeError(CUDA_ERROR_INVALID_VALUE, "pointer was allocated by a different API");
  // Stream-ordered memory goes back to its pool (which synchronises first).
  if (A->Pool)
    return mempool::freeNow(*A);
  // Freeing is synchronous on NVIDIA: queued work that may still touch the
  // memory finishes first.
  (void)A->Ctx->synchronize();
  if (!alloctable::erase(A->Base))
    return makeError(CUDA_ERROR_INVALID_VALUE, "allocation was freed concurrently");
  A->Ctx->forgetAllocation(Ptr);
  return A->Ctx->device().Backend->release(backendKind(A->Kind), Ptr, A->Bytes);
}

Status checkDeviceRange(const void *Ptr, size_t Bytes, const char *What) {
  if (!Ptr)
    return makeError(CUDA_ERROR_INVALID_VALUE, std::string(What) + " is null");
  auto A = alloctable::find(uintptr_t(Ptr));
  if (!A)
    return makeError(CUDA_ERROR_INVALID_VALUE, std::string(What) + " is not device-accessible memory");
  // Ranges mapped with cuMemMap side by side form one contiguous range, so
  // a copy may span them; any other allocation stands alone.
  uintptr_t End = uintptr_t(Ptr) + Bytes;
  while (End > A->Base + A->Bytes) {
    auto Next = A->Kind == AllocKind::Vmm ? alloctable::find(A->Base + A->Bytes) : std::nullopt;
    if (!Next || Next->Kind != AllocKind::Vmm)
      return makeError(CUDA_ERROR_INVALID_VALUE, std::string(What) + " runs past the end of its allocation");
    A = Next;
  }
  return Status::ok();
}

Status registerHost(Context &Ctx, void *Ptr, size_t Bytes, unsigned Flags) {
  if (!Ptr || Bytes == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "empty host range");
  uintptr_t B = uintptr_t(Ptr);
  if (alloctable::find(B) || alloctable::find(B + Bytes - 1))
    return makeError(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                     "range overlaps registered or allocated memory");
  auto D = Ctx.device().Backend->registerHost(Ptr, Bytes);
  if (!D)
    return D.takeError();
  Allocation A;
  A.Base = B;
  A.Bytes = Bytes;
  A.Kind = AllocKind::Registered;
  A.Flags = Flags;
  A.DeviceOrdinal = Ctx.device().Ordinal;
  A.Ctx = &Ctx;
  A.Id = NextBufferId++;
  alloctable::insert(A);
  Ctx.noteAllocation(Ptr);
  return Status::ok();
}

Status unregisterHost(void *Ptr) {
  auto A = alloctable::find(uintptr_t(Ptr));
  if (!A || A->Base != uintptr_t(Ptr) || A->Kind != AllocKind::Registered)
    return makeError(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer was not registered");
  (void)A->Ctx->synchronize();
  alloctable::erase(A->Base);
  A->Ctx->forgetAllocation(Ptr);
  return A->Ctx->device().Backend->unregisterHost(Ptr);
}

} // namespace ferry::core
