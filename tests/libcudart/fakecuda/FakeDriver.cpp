/// \file
/// A test-only libcuda.so.1: cuGetProcAddress_v2 over the handful of driver
/// functions the libcudart unit tests exercise, each recording its call in
/// FakeState (FakeDriver.h). Device memory is host memory; kernels never
/// run. Functions not listed here are "not found", which is how the tests
/// check libcudart's handling of a driver lacking an entry point.
#include "FakeDriver.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

FakeState &state() {
  static FakeState *S = new FakeState;
  return *S;
}

thread_local CUcontext Current = nullptr;
std::vector<std::string> KernelNames;

#define REC(Name) state().record(Name)

CUresult fInit(unsigned) { REC("cuInit"); return CUDA_SUCCESS; }
CUresult fDriverGetVersion(int *V) { *V = 13000; return CUDA_SUCCESS; }
CUresult fDeviceGetCount(int *N) { *N = FakeState::DeviceCount; return CUDA_SUCCESS; }
CUresult fDeviceGet(CUdevice *D, int Ord) {
  if (Ord < 0 || Ord >= FakeState::DeviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  *D = Ord;
  return CUDA_SUCCESS;
}
CUresult fDeviceGetName(char *Name, int Len, CUdevice D) {
  std::snprintf(Name, Len, "Fake Device %d", D);
  return CUDA_SUCCESS;
}
CUresult fDeviceTotalMem(size_t *B, CUdevice) { *B = size_t(1) << 30; return CUDA_SUCCESS; }
CUresult fDeviceGetAttribute(int *V, CUdevice_attribute A, CUdevice D) {
  // Distinct, predictable values: 1000 * device + attribute number.
  *V = A == CU_DEVICE_ATTRIBUTE_WARP_SIZE ? 32 : 1000 * D + int(A);
  return CUDA_SUCCESS;
}
CUresult fDeviceGetUuid(CUuuid *U, CUdevice D) {
  std::memset(U, 0xA0 + D, sizeof(*U));
  return CUDA_SUCCESS;
}
CUresult fPrimaryRetain(CUcontext *C, CUdevice D) {
  REC("cuDevicePrimaryCtxRetain");
  *C = fakeContext(D);
  return CUDA_SUCCESS;
}
CUresult fPrimaryRelease(CUdevice) { REC("cuDevicePrimaryCtxRelease"); return CUDA_SUCCESS; }
CUresult fPrimaryReset(CUdevice) { REC("cuDevicePrimaryCtxReset"); return CUDA_SUCCESS; }
CUresult fCtxGetCurrent(CUcontext *C) { *C = Current; return CUDA_SUCCESS; }
CUresult fCtxSetCurrent(CUcontext C) { REC("cuCtxSetCurrent"); Current = C; return CUDA_SUCCESS; }
CUresult fCtxGetDevice(CUdevice *D, CUcontext C) {
  if (!C)
    C = Current;
  for (int I = 0; I < FakeState::DeviceCount; ++I)
    if (C == fakeContext(I)) {
      *D = I;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_CONTEXT;
}
CUresult fCtxSynchronize(CUcontext) {
  REC("cuCtxSynchronize");
  CUresult R = state().SyncResult;
  state().SyncResult = CUDA_SUCCESS;
  return R;
}
CUresult fMemAlloc(CUdeviceptr *P, size_t N) {
  REC("cuMemAlloc");
  if (state().AllocResult != CUDA_SUCCESS)
    return state().AllocResult;
  *P = reinterpret_cast<CUdeviceptr>(std::malloc(N));
  return CUDA_SUCCESS;
}
CUresult fMemFree(CUdeviceptr P) {
  REC("cuMemFree");
  std::free(reinterpret_cast<void *>(P));
  return CUDA_SUCCESS;
}
CUresult fHtoD(CUdeviceptr D, const void *S, size_t N) {
  REC("cuMemcpyHtoD");
  std::memcpy(reinterpret_cast<void *>(D), S, N);
  return CUDA_SUCCESS;
}
CUresult fHtoDPtds(CUdeviceptr D, const void *S, size_t N) {
  REC("cuMemcpyHtoD_ptds");
  std::memcpy(reinterpret_cast<void *>(D), S, N);
  return CUDA_SUCCESS;
}
CUresult fDtoH(void *D, CUdeviceptr S, size_t N) {
  REC("cuMemcpyDtoH");
  std::memcpy(D, reinterpret_cast<void *>(S), N);
  return CUDA_SUCCESS;
}
CUresult fLibraryLoadData(CUlibrary *L, const void *Code, CUjit_option *, void **, unsigned,
                          CUlibraryOption *, void **, unsigned) {
  REC("cuLibraryLoadData");
  {
    std::lock_guard<std::mutex> Lock(state().Mutex);
    state().LoadedImages.push_back(Code);
  }
  *L = fakeLibrary();
  return CUDA_SUCCESS;
}
CUresult fLibraryUnload(CUlibrary) { REC("cuLibraryUnload"); return CUDA_SUCCESS; }
CUresult fLibraryGetKernel(CUkernel *K, CUlibrary L, const char *Name) {
  REC(std::string("cuLibraryGetKernel:") + Name);
  // A kernel whose image the driver refused (its PTX too new, say).
  if (std::strncmp(Name, "refused", 7) == 0)
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  if (L != fakeLibrary() || std::strncmp(Name, "_Z", 2) != 0)
    return CUDA_ERROR_NOT_FOUND;
  KernelNames.push_back(Name);
  *K = fakeKernel(int(KernelNames.size()));
  return CUDA_SUCCESS;
}
CUresult fLibraryGetGlobal(CUdeviceptr *P, size_t *Size, CUlibrary, const char *Name) {
  REC(std::string("cuLibraryGetGlobal:") + Name);
  if (std::strcmp(Name, "gvar") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *P = reinterpret_cast<CUdeviceptr>(state().Global);
  *Size = sizeof(state().Global);
  return CUDA_SUCCESS;
}
CUresult fLaunchKernel(CUfunction F, unsigned GX, unsigned GY, unsigned GZ, unsigned BX,
                       unsigned BY, unsigned BZ, unsigned Shared, CUstream S, void **Args,
                       void **) {
  REC("cuLaunchKernel");
  std::lock_guard<std::mutex> Lock(state().Mutex);
  state().Launches.push_back({F, {GX, GY, GZ}, {BX, BY, BZ}, Shared, S, Args});
  return CUDA_SUCCESS;
}

struct Entry {
  const char *Name;
  void *Fn;
  void *PerThreadFn; ///< answer for flags=2 (null: same as Fn)
};

#define E(Name, Fn) {Name, reinterpret_cast<void *>(&Fn), nullptr}
const Entry Table[] = {
    E("cuInit", fInit),
    E("cuDriverGetVersion", fDriverGetVersion),
    E("cuDeviceGetCount", fDeviceGetCount),
    E("cuDeviceGet", fDeviceGet),
    E("cuDeviceGetName", fDeviceGetName),
    E("cuDeviceTotalMem", fDeviceTotalMem),
    E("cuDeviceGetAttribute", fDeviceGetAttribute),
    E("cuDeviceGetUuid", fDeviceGetUuid),
    E("cuDevicePrimaryCtxRetain", fPrimaryRetain),
    E("cuDevicePrimaryCtxRelease", fPrimaryRelease),
    E("cuDevicePrimaryCtxReset", fPrimaryReset),
    E("cuCtxGetCurrent", fCtxGetCurrent),
    E("cuCtxSetCurrent", fCtxSetCurrent),
    E("cuCtxGetDevice", fCtxGetDevice),
    E("cuCtxSynchronize", fCtxSynchronize),
    E("cuMemAlloc", fMemAlloc),
    E("cuMemFree", fMemFree),
    {"cuMemcpyHtoD", reinterpret_cast<void *>(&fHtoD), reinterpret_cast<void *>(&fHtoDPtds)},
    E("cuMemcpyDtoH", fDtoH),
    E("cuLibraryLoadData", fLibraryLoadData),
    E("cuLibraryUnload", fLibraryUnload),
    E("cuLibraryGetKernel", fLibraryGetKernel),
    E("cuLibraryGetGlobal", fLibraryGetGlobal),
    E("cuLaunchKernel", fLaunchKernel),
};
#undef E

} // namespace

extern "C" __attribute__((visibility("default"))) FakeState *fakeCudaState() { return &state(); }

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *Symbol, void **Fn, int Version, cuuint64_t Flags,
                    CUdriverProcAddressQueryResult *Status) {
  {
    std::lock_guard<std::mutex> Lock(state().Mutex);
    state().ProcRequests.push_back(std::string(Symbol) + "@" + std::to_string(Version) + "/" +
                                   std::to_string(Flags));
  }
  for (const Entry &En : Table)
    if (std::strcmp(En.Name, Symbol) == 0) {
      *Fn = (Flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && En.PerThreadFn
                ? En.PerThreadFn
                : En.Fn;
      if (Status)
        *Status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *Fn = nullptr;
  if (Status)
    *Status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
