/// \file
/// Loading libcuda.so.1 and resolving the driver entry points ferry's math
/// libraries use (see Driver.h).
#include "libs/common/Driver.h"

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <dlfcn.h>
#include <mutex>

namespace ferry::libs {

void vlogMessage(const char *Lib, const char *Fmt, va_list Ap) {
  char Buf[512];
  std::vsnprintf(Buf, sizeof(Buf), Fmt, Ap);
  std::fprintf(stderr, "ferry %s: %s\n", Lib, Buf);
}

void logMessage(const char *Lib, const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  vlogMessage(Lib, Fmt, Ap);
  va_end(Ap);
}

namespace {

template <typename T> bool resolve(decltype(&::cuGetProcAddress_v2) Get, const char *Name, T &Out) {
  void *P = nullptr;
  CUdriverProcAddressQueryResult Found{};
  if (Get(Name, &P, 13000, 0, &Found) != CUDA_SUCCESS || !P) {
    logMessage("libs", "libcuda.so.1 does not provide %s", Name);
    return false;
  }
  Out = reinterpret_cast<T>(P);
  return true;
}

DriverTable Table;
bool Loaded = false;

void load() {
  void *Lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    logMessage("libs", "cannot load libcuda.so.1: %s", ::dlerror());
    return;
  }
  auto Get = reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(::dlsym(Lib, "cuGetProcAddress_v2"));
  if (!Get) {
    logMessage("libs", "libcuda.so.1 has no cuGetProcAddress_v2");
    return;
  }
  DriverTable &T = Table;
  bool Ok = resolve(Get, "cuInit", T.Init) && resolve(Get, "cuCtxGetCurrent", T.CtxGetCurrent) &&
            resolve(Get, "cuCtxSetCurrent", T.CtxSetCurrent) && resolve(Get, "cuCtxGetDevice", T.CtxGetDevice) &&
            resolve(Get, "cuDeviceGet", T.DeviceGet) && resolve(Get, "cuDeviceGetCount", T.DeviceGetCount) &&
            resolve(Get, "cuDeviceGetName", T.DeviceGetName) && resolve(Get, "cuDeviceGetUuid", T.DeviceGetUuid) &&
            resolve(Get, "cuDeviceGetAttribute", T.DeviceGetAttribute) &&
            resolve(Get, "cuDeviceTotalMem", T.DeviceTotalMem) &&
            resolve(Get, "cuDriverGetVersion", T.DriverGetVersion) &&
            resolve(Get, "cuDevicePrimaryCtxRetain", T.PrimaryCtxRetain) &&
            resolve(Get, "cuDevicePrimaryCtxGetState", T.PrimaryCtxGetState) &&
            resolve(Get, "cuDevicePrimaryCtxRelease", T.PrimaryCtxRelease) &&
            resolve(Get, "cuLaunchHostFunc", T.LaunchHostFunc) &&
            resolve(Get, "cuStreamIsCapturing", T.StreamIsCapturing) &&
            resolve(Get, "cuStreamSynchronize", T.StreamSynchronize) &&
            resolve(Get, "cuMemcpy2D", T.Memcpy2D) && resolve(Get, "cuMemcpy2DAsync", T.Memcpy2DAsync) &&
            resolve(Get, "cuMemAlloc", T.MemAlloc) && resolve(Get, "cuMemFree", T.MemFree) &&
            resolve(Get, "cuMemAllocHost", T.MemAllocHost) && resolve(Get, "cuMemFreeHost", T.MemFreeHost) &&
            resolve(Get, "cuMemGetInfo", T.MemGetInfo) &&
            resolve(Get, "cuPointerGetAttribute", T.PointerGetAttribute);
  if (!Ok)
    return;
  if (CUresult R = T.Init(0); R != CUDA_SUCCESS) {
    logMessage("libs", "cuInit failed (%d)", static_cast<int>(R));
    return;
  }
  // ferry's own table, when the driver is ferry's (no log line otherwise).
  void *P = nullptr;
  CUdriverProcAddressQueryResult Found{};
  if (Get("cuGetExportTable", &P, 13000, 0, &Found) == CUDA_SUCCESS && P) {
    const void *Tbl = nullptr;
    auto GetTable = reinterpret_cast<decltype(&::cuGetExportTable)>(P);
    if (GetTable(&Tbl, &FerryLibsTableId) == CUDA_SUCCESS && Tbl &&
        hasLibsSlot(static_cast<const FerryLibsTable *>(Tbl), offsetof(FerryLibsTable, LaunchHostFuncInline)))
      T.Ferry = static_cast<const FerryLibsTable *>(Tbl);
  }
  Loaded = true;
}

} // namespace

const DriverTable *driver() {
  static std::once_flag Once;
  std::call_once(Once, load);
  return Loaded ? &Table : nullptr;
}

CUcontext ensureContext() {
  const DriverTable *D = driver();
  if (!D)
    return nullptr;
  CUcontext Ctx = nullptr;
  if (D->CtxGetCurrent(&Ctx) == CUDA_SUCCESS && Ctx)
    return Ctx;
  CUdevice Dev = 0;
  if (D->DeviceGet(&Dev, 0) != CUDA_SUCCESS || D->PrimaryCtxRetain(&Ctx, Dev) != CUDA_SUCCESS)
    return nullptr;
  // The primary context stays retained for the process, as the runtime's does.
  D->CtxSetCurrent(Ctx);
  return Ctx;
}

} // namespace ferry::libs
