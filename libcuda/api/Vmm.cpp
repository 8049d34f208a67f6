/// \file
/// Virtual memory management (cuMemAddressReserve/Free, cuMemCreate/Release,
/// cuMemMap/Unmap, cuMemSetAccess/GetAccess, granularity, properties,
/// handle retain, POSIX file descriptor export/import). On the host backend
/// device memory is host memory, so the driver's model maps onto the
/// kernel's one to one:
///   - a reservation is an mmap of PROT_NONE pages (aligned as asked, at the
///     hinted address when it is free);
///   - a physical allocation is a memfd of the requested size;
///   - cuMemMap maps the memfd MAP_SHARED|MAP_FIXED into the reservation,
///     still PROT_NONE, because CUDA grants no access until cuMemSetAccess,
///     which is an mprotect;
///   - cuMemUnmap puts PROT_NONE anonymous pages back, keeping the range
///     reserved.
/// Mapped ranges enter libcuda's allocation table as AllocKind::Vmm, so
/// copies, memsets, kernels and pointer attributes treat them as device
/// memory. The minimum granularity is the host page; the recommended one is
/// 2 MiB, NVIDIA's. Other backends (HSA) have no such mapping, so there the
/// calls report CUDA_ERROR_NOT_SUPPORTED and the attribute says 0.
///
/// Threading: one mutex guards the tables below; it is not held while
/// waiting for device work (cuMemUnmap drains the device first).
#include "libcuda/api/Common.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <map>

using namespace ferry;
using namespace ferry::api;

namespace {

constexpr size_t RecommendedGranularity = 2u << 20;

size_t pageSize() {
  static const size_t P = size_t(sysconf(_SC_PAGESIZE));
  return P;
}

/// A physical allocation (CUmemGenericAllocationHandle). Its memory lives
/// as long as the user holds a handle reference or any mapping uses it.
struct PhysAlloc {
  int Fd = -1;
  size_t Size = 0;
  CUmemAllocationProp Prop{};
  unsigned UserRefs = 1; ///< cuMemCreate/Import + cuMemRetainAllocationHandle.
  ~PhysAlloc() {
    if (Fd >= 0)
      close(Fd);
  }
};

struct Mapping {
  size_t Size = 0;
  std::shared_ptr<PhysAlloc> Phys;
  std::map<int, unsigned long long> Access; ///< Device ordinal → CUmemAccess_flags.
};

struct Tables {
  std::mutex M;
  std::map<uintptr_t, size_t> Reserved; ///< Base → size.
  std::map<uintptr_t, Mapping> Mapped;  ///< Base → mapping.
  std::map<CUmemGenericAllocationHandle, std::shared_ptr<PhysAlloc>> Handles;
  CUmemGenericAllocationHandle NextHandle = 0x5e77000001ull; // Recognisable, never 0.
  uint64_t NextBufferId = 1ull << 48; // Apart from cuMemAlloc's ids.
};
Tables &tables() {
  static auto *T = new Tables(); // Leaked: used from atexit.
  return *T;
}

/// The device a CUmemLocation names, if it is one that supports VMM.
Expected<core::DeviceEntry *> vmmDevice(const CUmemLocation &L) {
  if (L.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return makeError(CUDA_ERROR_INVALID_VALUE, "location type must be CU_MEM_LOCATION_TYPE_DEVICE (host "
                                               "allocations through VMM are not supported)");
  auto D = deviceArg(L.id);
  if (!D)
    return makeError(D.code() == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_INVALID_VALUE : D.code(),
                     D.error().message());
  if (!(*D)->Family || (*D)->Family->name() != "host")
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "virtual memory management needs the host backend");
  return D;
}

Status checkProp(const CUmemAllocationProp *P) {
  if (!P)
    return makeError(CUDA_ERROR_INVALID_VALUE, "prop is null");
  if (P->type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return makeError(CUDA_ERROR_INVALID_VALUE, "allocation type must be CU_MEM_ALLOCATION_TYPE_PINNED");
  unsigned Types = unsigned(P->requestedHandleTypes);
  if (Types & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "only POSIX file descriptor handles can be requested");
  if (P->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE &&
      P->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC)
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "unknown compression type " + std::to_string(int(P->allocFlags.compressionType)));
  auto D = vmmDevice(P->location);
  if (!D)
    return D.takeError();
  return Status::ok();
}

bool aligned(uint64_t V) { return V % pageSize() == 0; }

/// The reservation holding [Ptr, Ptr+Size), under the tables' lock.
bool inReservation(Tables &T, uintptr_t Ptr, size_t Size) {
  auto It = T.Reserved.upper_bound(Ptr);
  if (It == T.Reserved.begin())
    return false;
  --It;
  return Ptr >= It->first && Ptr - It->first <= It->second && Size <= It->second - (Ptr - It->first);
}

/// The mappings that exactly tile [Ptr, Ptr+Size), under the tables' lock;
/// empty when the range is not a contiguous run of whole mappings.
std::vector<std::map<uintptr_t, Mapping>::iterator> wholeMappings(Tables &T, uintptr_t Ptr, size_t Size) {
  std::vector<std::map<uintptr_t, Mapping>::iterator> Out;
  uintptr_t At = Ptr, End = Ptr + Size;
  while (At < End) {
    auto It = T.Mapped.find(At);
    if (It == T.Mapped.end())
      return {};
    Out.push_back(It);
    At += It->second.Size;
  }
  if (At != End)
    return {};
  return Out;
}

/// Anonymous PROT_NONE pages over [Ptr, Ptr+Size): the reserved state.
bool reserveFixed(uintptr_t Ptr, size_t Size) {
  void *P = mmap(reinterpret_cast<void *>(Ptr), Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
                 -1, 0);
  return P != MAP_FAILED;
}

int protOf(unsigned long long Flags) {
  switch (Flags) {
  case CU_MEM_ACCESS_FLAGS_PROT_READ: return PROT_READ;
  case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: return PROT_READ | PROT_WRITE;
  default: return PROT_NONE;
  }
}

/// Device work may still touch a range being unmapped: wait for it, as
/// cuMemFree does.
void drainDevice(int Ordinal) {
  if (core::DeviceEntry *D = core::device(Ordinal); D && D->Primary)
    (void)D->Primary->synchronize();
  if (auto C = core::ctxstack::current())
    (void)C->synchronize();
}

std::string hex(uint64_t V) {
  char Buf[24];
  snprintf(Buf, sizeof Buf, "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

/// "(0x7f..., 4096)" for messages (appended piecewise: GCC 12 warns
/// falsely about "(" + std::string).
std::string rangeText(uint64_t Ptr, size_t Size) {
  std::string S = "(";
  S += hex(Ptr);
  S += ", ";
  S += std::to_string(Size);
  S += ")";
  return S;
}

} // namespace

FERRY_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                                    CUmemAllocationGranularity_flags option) {
  if (!granularity)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "granularity is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  if (Status S = checkProp(prop); !S)
    return done(__func__, std::move(S));
  if (option == CU_MEM_ALLOC_GRANULARITY_MINIMUM)
    *granularity = pageSize();
  else if (option == CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    *granularity = std::max(pageSize(), RecommendedGranularity);
  else
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown granularity option");
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                          unsigned long long flags) {
  if (!ptr)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "ptr is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  if (flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  if (size == 0 || !aligned(size))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                "size " + std::to_string(size) + " is not a nonzero multiple of the granularity");
  if (alignment & (alignment - 1))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "alignment is not a power of two");
  size_t Align = std::max(alignment, pageSize());
  const int Flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  uintptr_t Base = 0;
  // The address is a hint: taken when that range is free and aligned.
  if (addr && addr % Align == 0) {
    void *P = mmap(reinterpret_cast<void *>(addr), size, PROT_NONE, Flags | MAP_FIXED_NOREPLACE, -1, 0);
    if (P != MAP_FAILED && uintptr_t(P) == addr)
      Base = addr;
    else if (P != MAP_FAILED)
      munmap(P, size);
  }
  if (!Base) {
    // Over-reserve by the alignment, then trim both ends.
    size_t Span = size + Align - pageSize();
    void *P = mmap(nullptr, Span, PROT_NONE, Flags, -1, 0);
    if (P == MAP_FAILED)
      return fail(__func__, CUDA_ERROR_OUT_OF_MEMORY, std::string("mmap: ") + strerror(errno));
    uintptr_t Start = uintptr_t(P);
    Base = (Start + Align - 1) & ~uintptr_t(Align - 1);
    if (Base > Start)
      munmap(P, Base - Start);
    if (uintptr_t End = Start + Span; End > Base + size)
      munmap(reinterpret_cast<void *>(Base + size), End - (Base + size));
  }
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  T.Reserved[Base] = size;
  *ptr = Base;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  Tables &T = tables();
  std::vector<std::pair<uintptr_t, Mapping>> Left;
  {
    std::lock_guard<std::mutex> L(T.M);
    auto It = T.Reserved.find(uintptr_t(ptr));
    if (It == T.Reserved.end() || It->second != size)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                  rangeText(ptr, size) + " is not a reserved range");
    // Mappings left inside are dropped with the range (logged: the program
    // should have unmapped them).
    for (auto M = T.Mapped.lower_bound(ptr); M != T.Mapped.end() && M->first < ptr + size;) {
      Left.emplace_back(M->first, std::move(M->second));
      M = T.Mapped.erase(M);
    }
    T.Reserved.erase(It);
  }
  for (auto &[Base, M] : Left) {
    log::api().warn("cuMemAddressFree: {} bytes at {} were still mapped; unmapping them", M.Size, hex(Base));
    core::alloctable::erase(Base);
  }
  if (!Left.empty())
    drainDevice(Left.front().second.Phys->Prop.location.id);
  munmap(reinterpret_cast<void *>(ptr), size);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                                  unsigned long long flags) {
  if (!handle)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "handle is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  if (flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  if (Status S = checkProp(prop); !S)
    return done(__func__, std::move(S));
  if (size == 0 || !aligned(size))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                "size " + std::to_string(size) + " is not a nonzero multiple of the granularity");
  auto P = std::make_shared<PhysAlloc>();
  P->Fd = memfd_create("ferry-vmm", MFD_CLOEXEC);
  if (P->Fd < 0)
    return fail(__func__, CUDA_ERROR_OUT_OF_MEMORY, std::string("memfd_create: ") + strerror(errno));
  if (ftruncate(P->Fd, off_t(size)) != 0)
    return fail(__func__, CUDA_ERROR_OUT_OF_MEMORY, std::string("ftruncate: ") + strerror(errno));
  P->Size = size;
  P->Prop = *prop;
  // Generic compression is granted as asked (the device attribute says it
  // is supported): on a GPU it changes only how the bytes are stored, which
  // a program cannot observe, so plain memory honours it. Any other value is
  // a type CUDA does not define.
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  CUmemGenericAllocationHandle H = T.NextHandle++;
  T.Handles[H] = std::move(P);
  *handle = H;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  Tables &T = tables();
  std::shared_ptr<PhysAlloc> Last; // Freed outside the lock.
  std::lock_guard<std::mutex> L(T.M);
  auto It = T.Handles.find(handle);
  if (It == T.Handles.end())
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a live allocation handle");
  // Memory still mapped stays until unmapped, as on NVIDIA.
  if (--It->second->UserRefs == 0) {
    Last = std::move(It->second);
    T.Handles.erase(It);
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                               unsigned long long flags) {
  if (flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  if (size == 0 || !aligned(ptr) || !aligned(size) || !aligned(offset))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "ptr, size and offset must be multiples of the granularity");
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  auto H = T.Handles.find(handle);
  if (H == T.Handles.end())
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a live allocation handle");
  const auto &Phys = H->second;
  if (offset > Phys->Size || size > Phys->Size - offset)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "offset + size is past the allocation's end");
  if (!inReservation(T, ptr, size))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "range " + hex(ptr) + " is not inside a reserved range");
  auto Next = T.Mapped.lower_bound(ptr);
  bool Overlap = Next != T.Mapped.end() && Next->first < ptr + size;
  if (Next != T.Mapped.begin()) {
    auto Prev = std::prev(Next);
    Overlap |= Prev->first + Prev->second.Size > ptr;
  }
  if (Overlap)
    return fail(__func__, CUDA_ERROR_ALREADY_MAPPED, "range " + hex(ptr) + " overlaps a mapping");
  // Mapped without access: cuMemSetAccess grants it.
  void *P = mmap(reinterpret_cast<void *>(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED, Phys->Fd, off_t(offset));
  if (P == MAP_FAILED)
    return fail(__func__, CUDA_ERROR_OUT_OF_MEMORY, std::string("mmap: ") + strerror(errno));
  core::DeviceEntry *D = core::device(Phys->Prop.location.id);
  core::Allocation A;
  A.Base = ptr;
  A.Bytes = size;
  A.Kind = core::AllocKind::Vmm;
  A.DeviceOrdinal = D->Ordinal;
  A.Ctx = D->Primary.get(); // Lives as long as the process; VMM memory belongs to no context.
  A.Id = T.NextBufferId++;
  core::alloctable::insert(A);
  T.Mapped[ptr] = Mapping{size, Phys, {}};
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  Tables &T = tables();
  std::vector<Mapping> Gone;
  {
    std::lock_guard<std::mutex> L(T.M);
    auto Range = wholeMappings(T, ptr, size);
    if (Range.empty())
      return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                  rangeText(ptr, size) + " is not a run of whole mappings");
    for (auto It : Range) {
      core::alloctable::erase(It->first);
      Gone.push_back(std::move(It->second));
      T.Mapped.erase(It);
    }
  }
  // Queued work may still use the range: let it finish before the pages go.
  drainDevice(Gone.front().Phys->Prop.location.id);
  if (!reserveFixed(ptr, size))
    return fail(__func__, CUDA_ERROR_UNKNOWN, std::string("mmap: ") + strerror(errno));
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
  if (!desc || count == 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "no access descriptors");
  for (size_t I = 0; I < count; ++I) {
    auto D = vmmDevice(desc[I].location);
    if (!D)
      return fail(__func__, D.error());
    auto F = desc[I].flags;
    if (F != CU_MEM_ACCESS_FLAGS_PROT_NONE && F != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        F != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return fail(__func__, CUDA_ERROR_INVALID_VALUE, "unknown access flags " + std::to_string(int(F)));
  }
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  auto Range = wholeMappings(T, ptr, size);
  if (Range.empty())
    return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                rangeText(ptr, size) + " is not a fully mapped range");
  for (auto It : Range) {
    Mapping &M = It->second;
    for (size_t I = 0; I < count; ++I)
      M.Access[desc[I].location.id] = desc[I].flags;
    // Every device shares the CPU's page tables: the union of the grants.
    int Prot = PROT_NONE;
    for (auto &[Dev, F] : M.Access)
      Prot |= protOf(F);
    if (mprotect(reinterpret_cast<void *>(It->first), M.Size, Prot) != 0)
      return fail(__func__, CUDA_ERROR_UNKNOWN, std::string("mprotect: ") + strerror(errno));
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr) {
  if (!flags || !location)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "flags or location is null");
  if (auto D = vmmDevice(*location); !D)
    return fail(__func__, D.error());
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  auto It = T.Mapped.upper_bound(ptr);
  if (It == T.Mapped.begin() || ptr - std::prev(It)->first >= std::prev(It)->second.Size)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, hex(ptr) + " is not mapped");
  const Mapping &M = std::prev(It)->second;
  auto A = M.Access.find(location->id);
  *flags = A == M.Access.end() ? (unsigned long long)CU_MEM_ACCESS_FLAGS_PROT_NONE : A->second;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                             CUmemGenericAllocationHandle handle) {
  if (!prop)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "prop is null");
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  auto It = T.Handles.find(handle);
  if (It == T.Handles.end())
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a live allocation handle");
  *prop = It->second->Prop;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr) {
  if (!handle)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "handle is null");
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  uintptr_t P = uintptr_t(addr);
  auto It = T.Mapped.upper_bound(P);
  if (It == T.Mapped.begin() || P - std::prev(It)->first >= std::prev(It)->second.Size)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, hex(P) + " is not in a mapped allocation");
  const auto &Phys = std::prev(It)->second.Phys;
  // The same handle value comes back, live again if it had been released.
  for (auto &[H, A] : T.Handles)
    if (A == Phys) {
      ++A->UserRefs;
      *handle = H;
      return CUDA_SUCCESS;
    }
  CUmemGenericAllocationHandle H = T.NextHandle++;
  Phys->UserRefs = 1;
  T.Handles[H] = Phys;
  *handle = H;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                                   CUmemAllocationHandleType handleType, unsigned long long flags) {
  if (!shareableHandle || flags != 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "shareableHandle is null or flags are not 0");
  if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "only POSIX file descriptors can be exported");
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  auto It = T.Handles.find(handle);
  if (It == T.Handles.end())
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a live allocation handle");
  if (!(It->second->Prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE,
                "the allocation was not created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
  int Fd = fcntl(It->second->Fd, F_DUPFD_CLOEXEC, 0);
  if (Fd < 0)
    return fail(__func__, CUDA_ERROR_OUT_OF_MEMORY, std::string("dup: ") + strerror(errno));
  *static_cast<int *>(shareableHandle) = Fd;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                     CUmemAllocationHandleType shHandleType) {
  if (!handle)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "handle is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "only POSIX file descriptors can be imported");
  // The file descriptor travels in the pointer's bits, as on NVIDIA.
  int Fd = int(uintptr_t(osHandle));
  struct stat St;
  if (fstat(Fd, &St) != 0 || St.st_size <= 0 || !aligned(uint64_t(St.st_size)))
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "not a file descriptor of an exported allocation");
  CUmemAllocationProp Prop{};
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Prop.location.id = 0;
  if (auto D = vmmDevice(Prop.location); !D)
    return fail(__func__, D.error());
  auto P = std::make_shared<PhysAlloc>();
  P->Fd = fcntl(Fd, F_DUPFD_CLOEXEC, 0);
  if (P->Fd < 0)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, std::string("dup: ") + strerror(errno));
  P->Size = size_t(St.st_size);
  P->Prop = Prop;
  Tables &T = tables();
  std::lock_guard<std::mutex> L(T.M);
  CUmemGenericAllocationHandle H = T.NextHandle++;
  T.Handles[H] = std::move(P);
  *handle = H;
  return CUDA_SUCCESS;
}
