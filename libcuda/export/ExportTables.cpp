/// \file
/// cuGetExportTable: the private function tables NVIDIA's cudart asks the
/// driver for, identified by UUID. What each slot must do was measured
/// (reference/cuda13-driver-contract.md, "Export tables"): the primary
/// context without retaining it, context-local storage, the integrity
/// check, and a few slots whose only requirement is to succeed. Slot 0 of
/// each table is its size in bytes.
#include "libcuda/api/Common.h"
#include "ferry/LibsExport.h"
#include "libcuda/core/Graph.h"
#include "libcuda/core/IntegrityHash.h"

#include <cstring>
#include <pthread.h>
#include <unistd.h>

using namespace ferry;
using namespace ferry::api;

namespace {

using Slot = void *;

template <typename F> Slot slot(F *Fn) { return reinterpret_cast<Slot>(Fn); }
Slot sizeSlot(size_t Bytes) { return reinterpret_cast<Slot>(Bytes); }

CUresult unsupportedSlot() {
  log::api().info("export table: an unimplemented private slot was called");
  return CUDA_ERROR_NOT_SUPPORTED;
}

//===----------------------------------------------------------------------===//
// 6BD5FB6C: primary context, module loading for older runtimes
//===----------------------------------------------------------------------===//

CUresult primaryContextUnretained(CUcontext *Out, CUdevice Dev) {
  if (!Out)
    return fail("export 6BD5FB6C[2]", CUDA_ERROR_INVALID_VALUE, "out is null");
  auto D = deviceArg(Dev);
  if (!D)
    return fail("export 6BD5FB6C[2]", D.error());
  *Out = handleOf<CUcontext>((*D)->Primary.get());
  return CUDA_SUCCESS;
}

CUresult moduleFromWrapper(CUmodule *Out, const void *Wrapper) {
  if (!Out)
    return fail("export 6BD5FB6C[1]", CUDA_ERROR_INVALID_VALUE, "out is null");
  auto L = core::Library::load(Wrapper, /*AsModule=*/true);
  if (!L)
    return fail("export 6BD5FB6C[1]", L.error());
  *Out = handleOf<CUmodule>(L->get());
  return CUDA_SUCCESS;
}

CUresult moduleFromWrapperExt1(CUmodule *Out, const void *Wrapper, void *, void *, unsigned) {
  return moduleFromWrapper(Out, Wrapper);
}

CUresult moduleFromHeaderExt2(const void *Header, CUmodule *Out, void *, void *, unsigned) {
  return moduleFromWrapper(Out, Header);
}

const Slot CudartInterface[] = {
    sizeSlot(9 * sizeof(Slot)),   slot(moduleFromWrapper), slot(primaryContextUnretained),
    slot(unsupportedSlot),        slot(unsupportedSlot),   slot(unsupportedSlot),
    slot(moduleFromWrapperExt1),  slot(unsupportedSlot),   slot(moduleFromHeaderExt2),
};

//===----------------------------------------------------------------------===//
// A094798C: buffers cudart sizes its own tables from
//===----------------------------------------------------------------------===//

// cudart crashes with fewer entries than these (measured), so they are
// generous; zeroed means "nothing special" for every entry.
uint32_t BufferA[1024];
uint32_t BufferB[64];

CUresult getBufferA(void **Buf, size_t *Count) {
  if (!Buf || !Count)
    return CUDA_ERROR_INVALID_VALUE;
  *Buf = BufferA;
  *Count = sizeof(BufferA) / sizeof(BufferA[0]);
  return CUDA_SUCCESS;
}

CUresult getBufferB(void **Buf, size_t *Count) {
  if (!Buf || !Count)
    return CUDA_ERROR_INVALID_VALUE;
  *Buf = BufferB;
  *Count = sizeof(BufferB) / sizeof(BufferB[0]);
  return CUDA_SUCCESS;
}

const Slot ToolsInterface[] = {
    sizeSlot(7 * sizeof(Slot)), slot(unsupportedSlot), slot(getBufferA), slot(unsupportedSlot),
    slot(unsupportedSlot),      slot(unsupportedSlot), slot(getBufferB),
};

//===----------------------------------------------------------------------===//
// 42D85A81: asked for, never called
//===----------------------------------------------------------------------===//

const Slot TlsInterface[] = {sizeSlot(4 * sizeof(Slot)), slot(unsupportedSlot), slot(unsupportedSlot),
                             slot(unsupportedSlot)};

//===----------------------------------------------------------------------===//
// C693336E: context-local storage
//===----------------------------------------------------------------------===//

using ClsDtor = void (*)(void *, void *, void *);

Expected<core::Ref<core::Context>> clsContext(CUcontext Ctx) {
  auto C = core::contextOrCurrent(Ctx);
  return C;
}

CUresult clsInsert(CUcontext Ctx, void *Key, void *Value, ClsDtor Dtor) {
  auto C = clsContext(Ctx);
  if (!C)
    return fail("export C693336E[0] (CLS insert)", C.error());
  (*C)->clsInsert(Key, Value, Dtor);
  return CUDA_SUCCESS;
}

CUresult clsRemove(CUcontext Ctx, void *Key) {
  auto C = clsContext(Ctx);
  if (!C)
    return fail("export C693336E[1] (CLS remove)", C.error());
  return done("export C693336E[1] (CLS remove)", (*C)->clsRemove(Key));
}

CUresult clsGet(void **Out, CUcontext Ctx, void *Key) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  // Failing here is routine (cudart probes before inserting): not logged.
  auto C = clsContext(Ctx);
  if (!C)
    return C.code();
  auto V = (*C)->clsGet(Key);
  if (!V)
    return V.code();
  *Out = *V;
  return CUDA_SUCCESS;
}

// Unlike the other tables, slot 0 here is a function (measured: cudart
// calls slots 0, 1 and 2), so there is no size slot.
const Slot ContextLocalStorage[] = {slot(clsInsert), slot(clsRemove), slot(clsGet)};

//===----------------------------------------------------------------------===//
// 263E8860: context wrapping
//===----------------------------------------------------------------------===//

CUresult ctxWrapQuery(CUcontext Ctx, uint32_t *Wrapped, CUcontext *Unwrapped) {
  if (Wrapped)
    *Wrapped = 0; // ferry contexts are never wrapped.
  if (Unwrapped)
    *Unwrapped = Ctx;
  return CUDA_SUCCESS;
}

CUresult ctxNoArgs() { return CUDA_SUCCESS; }

const Slot ContextWrapper[] = {sizeSlot(4 * sizeof(Slot)), slot(unsupportedSlot), slot(ctxWrapQuery),
                               slot(ctxNoArgs)};

//===----------------------------------------------------------------------===//
// D4082055: the integrity check
//===----------------------------------------------------------------------===//

CUresult integrityCheck(uint32_t RtVersion, uint64_t UnixTime, uint8_t *Out);

const Slot IntegrityInterface[] = {sizeSlot(3 * sizeof(Slot)), slot(integrityCheck), slot(unsupportedSlot)};

CUresult integrityCheck(uint32_t RtVersion, uint64_t UnixTime, uint8_t *Out) {
  if (!Out)
    return fail("export D4082055[1]", CUDA_ERROR_INVALID_VALUE, "out is null");
  core::IntegrityInput In;
  In.DriverVersion = core::DriverVersion;
  In.RuntimeVersion = RtVersion;
  In.ProcessId = uint32_t(getpid());
  In.ThreadId = uint32_t(uintptr_t(pthread_self()));
  In.CudartTable = uint64_t(uintptr_t(CudartInterface));
  In.IntegrityTable = uint64_t(uintptr_t(IntegrityInterface));
  In.Function = uint64_t(uintptr_t(IntegrityInterface[1]));
  In.Timestamp = UnixTime;
  if (core::requireInit())
    for (int I = 0; I < core::deviceCount(); ++I) {
      const DeviceProperties &P = core::device(I)->Backend->properties();
      core::IntegrityDevice D;
      D.Uuid = P.Uuid;
      D.PciDomain = uint32_t(P.PciDomain);
      D.PciBus = uint32_t(P.PciBus);
      D.PciDevice = uint32_t(P.PciDevice);
      In.Devices.push_back(D);
    }
  core::Digest16 R = core::integrityAnswer(In);
  std::memcpy(Out, R.data(), R.size());
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// ferry's own table for its math libraries (include/ferry/LibsExport.h)
//===----------------------------------------------------------------------===//

CUresult launchHostFuncInline(CUstream H, CUhostFn Fn, void *User, int *RanInline) {
  const char *Name = "ferry libs: LaunchHostFuncInline";
  if (!Fn || !RanInline)
    return fail(Name, CUDA_ERROR_INVALID_VALUE, "null argument");
  *RanInline = 0;
  auto S = streamArg(H, false);
  if (!S)
    return fail(Name, S.error());
  bool Ran = false;
  Status St = core::capture::submitHostFuncInline(**S, Fn, User, Ran);
  *RanInline = Ran ? 1 : 0;
  return done(Name, std::move(St));
}

CUresult deviceMemoryHostAccess(CUdevice Dev, int *Yes) {
  const char *Name = "ferry libs: DeviceMemoryHostAccess";
  if (!Yes)
    return fail(Name, CUDA_ERROR_INVALID_VALUE, "null argument");
  auto D = deviceArg(Dev);
  if (!D)
    return fail(Name, D.error());
  *Yes = (*D)->Backend->properties().HostAccessesDeviceMemory ? 1 : 0;
  return CUDA_SUCCESS;
}

const FerryLibsTable LibsTable = {sizeof(FerryLibsTable), launchHostFuncInline, deviceMemoryHostAccess};

struct TableEntry {
  uint8_t Uuid[16];
  const Slot *Table;
  const char *What;
};

const TableEntry Tables[] = {
    {{0x6B, 0xD5, 0xFB, 0x6C, 0x5B, 0xF4, 0xE7, 0x4A, 0x89, 0x87, 0xD9, 0x39, 0x12, 0xFD, 0x9D, 0xF9},
     CudartInterface, "cudart interface"},
    {{0xA0, 0x94, 0x79, 0x8C, 0x2E, 0x74, 0x2E, 0x74, 0x93, 0xF2, 0x08, 0x00, 0x20, 0x0C, 0x0A, 0x66},
     ToolsInterface, "tools buffers"},
    {{0x42, 0xD8, 0x5A, 0x81, 0x23, 0xF6, 0xCB, 0x47, 0x82, 0x98, 0xF6, 0xE7, 0x8A, 0x3A, 0xEC, 0xDC},
     TlsInterface, "tls"},
    {{0xC6, 0x93, 0x33, 0x6E, 0x11, 0x21, 0xDF, 0x11, 0xA8, 0xC3, 0x68, 0xF3, 0x55, 0xD8, 0x95, 0x93},
     ContextLocalStorage, "context-local storage"},
    {{0x26, 0x3E, 0x88, 0x60, 0x7C, 0xD2, 0x61, 0x43, 0x92, 0xF6, 0xBB, 0xD5, 0x00, 0x6D, 0xFA, 0x7E},
     ContextWrapper, "context wrapper"},
    {{0xD4, 0x08, 0x20, 0x55, 0xBD, 0xE6, 0x70, 0x4B, 0x8D, 0x34, 0xBA, 0x12, 0x3C, 0x66, 0xE1, 0xF2},
     IntegrityInterface, "integrity check"},
    {{FerryLibsTableId.bytes[0], FerryLibsTableId.bytes[1], FerryLibsTableId.bytes[2], FerryLibsTableId.bytes[3],
      FerryLibsTableId.bytes[4], FerryLibsTableId.bytes[5], FerryLibsTableId.bytes[6], FerryLibsTableId.bytes[7],
      FerryLibsTableId.bytes[8], FerryLibsTableId.bytes[9], FerryLibsTableId.bytes[10], FerryLibsTableId.bytes[11],
      FerryLibsTableId.bytes[12], FerryLibsTableId.bytes[13], FerryLibsTableId.bytes[14], FerryLibsTableId.bytes[15]},
     reinterpret_cast<const Slot *>(&LibsTable), "ferry libs"},
};

std::string uuidText(const uint8_t *U) {
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
                U[0], U[1], U[2], U[3], U[4], U[5], U[6], U[7], U[8], U[9], U[10], U[11], U[12], U[13],
                U[14], U[15]);
  return Buf;
}

} // namespace

FERRY_EXPORT CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId) {
  if (!ppExportTable || !pExportTableId)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "null argument");
  const auto *U = reinterpret_cast<const uint8_t *>(pExportTableId->bytes);
  for (const TableEntry &T : Tables)
    if (std::memcmp(T.Uuid, U, 16) == 0) {
      *ppExportTable = T.Table;
      log::api().debug("{}({}) -> {}", __func__, uuidText(U), T.What);
      return CUDA_SUCCESS;
    }
  *ppExportTable = nullptr;
  return fail(__func__, CUDA_ERROR_INVALID_VALUE, "no export table " + uuidText(U));
}
