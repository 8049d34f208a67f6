/// \file
/// Loading libcuda.so.1 and resolving the driver entry points ferry's cuBLAS
/// uses (see Driver.h).
#include "libs/cublas/Driver.h"

#include <cstdarg>
#include <cstdio>
#include <dlfcn.h>
#include <mutex>

namespace ferry::cublas {

void logMessage(const char *Fmt, ...) {
  char Buf[512];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Buf, sizeof(Buf), Fmt, Ap);
  va_end(Ap);
  std::fprintf(stderr, "ferry cublas: %s\n", Buf);
}

namespace {

template <typename T> bool resolve(decltype(&::cuGetProcAddress_v2) Get, const char *Name, T &Out) {
  void *P = nullptr;
  CUdriverProcAddressQueryResult Found{};
  if (Get(Name, &P, 13000, 0, &Found) != CUDA_SUCCESS || !P) {
    logMessage("libcuda.so.1 does not provide %s", Name);
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
    logMessage("cannot load libcuda.so.1: %s", ::dlerror());
    return;
  }
  auto Get = reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(::dlsym(Lib, "cuGetProcAddress_v2"));
  if (!Get) {
    logMessage("libcuda.so.1 has no cuGetProcAddress_v2");
    return;
  }
  bool Ok = resolve(Get, "cuInit", Table.Init) && resolve(Get, "cuCtxGetCurrent", Table.CtxGetCurrent) &&
            resolve(Get, "cuCtxSetCurrent", Table.CtxSetCurrent) && resolve(Get, "cuDeviceGet", Table.DeviceGet) &&
            resolve(Get, "cuDevicePrimaryCtxRetain", Table.PrimaryCtxRetain) &&
            resolve(Get, "cuLaunchHostFunc", Table.LaunchHostFunc) &&
            resolve(Get, "cuStreamIsCapturing", Table.StreamIsCapturing) &&
            resolve(Get, "cuStreamSynchronize", Table.StreamSynchronize) &&
            resolve(Get, "cuMemcpy2D", Table.Memcpy2D) && resolve(Get, "cuMemcpy2DAsync", Table.Memcpy2DAsync) &&
            resolve(Get, "cuMemAlloc", Table.MemAlloc) && resolve(Get, "cuMemFree", Table.MemFree);
  if (!Ok)
    return;
  if (CUresult R = Table.Init(0); R != CUDA_SUCCESS) {
    logMessage("cuInit failed (%d)", static_cast<int>(R));
    return;
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

} // namespace ferry::cublas
