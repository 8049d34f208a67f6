/// \file
/// Loading libcuda.so.1 and resolving the driver tables (see Driver.h).
#include "Driver.h"

#include "Runtime.h"

#include <dlfcn.h>

#include <mutex>

namespace ferry::cudart {
namespace {

/// Stand-in for a driver entry point the driver did not resolve.
template <typename Fn> struct MissingStub;
template <typename... Args> struct MissingStub<CUresult (*)(Args...)> {
  static CUresult call(Args...) { return MissingDriverFunction; }
};

struct DriverState {
  cudaError_t InitResult = cudaErrorInsufficientDriver;
  void *Handle = nullptr;
  int Version = 0;
  decltype(&::cuGetProcAddress_v2) GetProc = nullptr;
  DriverTable Tables[2];
};

DriverState &state() {
  // Leaked on purpose: atexit handlers of the application (fatbin
  // unregistration) may run after this library's static destructors.
  static DriverState *S = new DriverState;
  return *S;
}

void resolveTable(DriverState &S, DriverTable &T, unsigned long long Flags) {
  T.cuGetProcAddress = S.GetProc;
#define FERRY_DRIVER_FN(Base, Symbol)                                                   \
  {                                                                                     \
    void *Fn = nullptr;                                                                 \
    CUdriverProcAddressQueryResult Found{};                                             \
    if (S.GetProc(#Base, &Fn, RuntimeVersion, Flags, &Found) == CUDA_SUCCESS && Fn)     \
      T.Base = reinterpret_cast<decltype(&::Symbol)>(Fn);                               \
    else                                                                                \
      T.Base = &MissingStub<decltype(&::Symbol)>::call;                                 \
  }
#include "DriverFunctions.def"
#undef FERRY_DRIVER_FN
}

void load(DriverState &S) {
  S.Handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!S.Handle) {
    logMessage("cannot load libcuda.so.1: %s", ::dlerror());
    return;
  }
  S.GetProc = reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(
      ::dlsym(S.Handle, "cuGetProcAddress_v2"));
  if (!S.GetProc) {
    logMessage("libcuda.so.1 has no cuGetProcAddress_v2 (driver older than CUDA 12)");
    return;
  }
  resolveTable(S, S.Tables[0], 0);
  resolveTable(S, S.Tables[1], CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  const DriverTable &D = S.Tables[0];
  int Version = 0;
  if (D.cuDriverGetVersion(&Version) != CUDA_SUCCESS || Version < RuntimeVersion) {
    logMessage("the CUDA driver (version %d) is older than this runtime (%d)", Version,
               RuntimeVersion);
    S.Version = Version;
    return;
  }
  S.Version = Version;
  CUresult R = D.cuInit(0);
  S.InitResult = toCudaError(R);
  if (R != CUDA_SUCCESS)
    logMessage("cuInit failed: %s", cudaGetErrorName(S.InitResult));
}

} // namespace

cudaError_t driverInitResult() {
  static std::once_flag Once;
  DriverState &S = state();
  std::call_once(Once, [&] { load(S); });
  return S.InitResult;
}

const DriverTable &driver(bool PerThread) { return state().Tables[PerThread ? 1 : 0]; }

decltype(&::cuGetProcAddress_v2) driverProcAddress() {
  driverInitResult();
  return state().GetProc;
}

int driverVersion() {
  driverInitResult();
  return state().Version;
}

} // namespace ferry::cudart
