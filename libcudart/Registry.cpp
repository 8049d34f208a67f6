/// \file
/// The registration ABI that nvcc's host code calls: fat binaries
/// (__cudaRegisterFatBinary and friends, run from static constructors),
/// kernels (host stub address <-> device name), device and managed
/// variables (host shadow address <-> device name), the <<<>>> call
/// configuration stack, and __cudaGetKernel/__cudaInitModule.
///
/// Registration only records; nothing touches the driver at program start.
/// A fat binary is loaded with cuLibraryLoadData (context-free, as NVIDIA's
/// runtime does) the first time one of its kernels or variables is used;
/// kernels are then CUkernel handles valid in every context.
///
/// -rdc=true needs nothing extra here: the __cudaRegisterLinkedBinary_*
/// functions live in the executable's device-link stub, and they pass a
/// version-2 wrapper (listing the prelinked fat binaries) to
/// __cudaRegisterFatBinary, which the driver's loader understands.
#include "Runtime.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ferry::cudart {
namespace {

/// `__fatBinC_Wrapper_t`, the object __cudaRegisterFatBinary receives.
struct FatbinWrapper {
  uint32_t Magic;
  uint32_t Version;
  const void *Data;
  const void *Extra;
};
constexpr uint32_t FatbinWrapperMagic = 0x466243B1;

struct ManagedVar {
  void **HostPtrAddress; ///< where the host code reads the managed address
  std::string Name;
};

struct Module {
  const void *Wrapper = nullptr;
  bool Valid = false;
  bool Tried = false;
  CUlibrary Library = nullptr;
  cudaError_t LoadError = cudaSuccess;
  std::vector<ManagedVar> Managed;
  bool ManagedReady = false;
};

struct KernelEntry {
  Module *Owner;
  std::string Name;
  CUkernel Kernel = nullptr;
};

struct VarEntry {
  Module *Owner;
  std::string Name;
  size_t Size;
  bool Managed;
};

struct Registry {
  std::mutex Mutex;
  std::unordered_map<Module *, std::unique_ptr<Module>> Modules;
  std::unordered_map<const void *, KernelEntry> Kernels;
  std::unordered_map<const void *, VarEntry> Vars;
};

Registry &registry() {
  // Leaked: the application's atexit handlers unregister fat binaries and
  // may run after this library's static destructors.
  static Registry *R = new Registry;
  return *R;
}

Module *findModule(Registry &R, void **Handle) {
  auto It = R.Modules.find(reinterpret_cast<Module *>(Handle));
  return It == R.Modules.end() ? nullptr : It->second.get();
}

/// Loads \p M's library once; the caller holds the registry lock.
cudaError_t loadModule(Module &M) {
  if (M.Tried)
    return M.LoadError;
  M.Tried = true;
  if (!M.Valid) {
    M.LoadError = cudaErrorInvalidKernelImage;
    return M.LoadError;
  }
  CUlibraryOption Option = CU_LIBRARY_BINARY_IS_PRESERVED;
  void *Value = reinterpret_cast<void *>(uintptr_t(1));
  CUresult Res = driver().cuLibraryLoadData(&M.Library, M.Wrapper, nullptr, nullptr, 0,
                                            &Option, &Value, 1);
  if (Res != CUDA_SUCCESS) {
    M.Library = nullptr;
    M.LoadError = toCudaError(Res);
    logMessage("cuLibraryLoadData failed for fat binary %p: %s", M.Wrapper,
               cudaGetErrorName(M.LoadError));
  }
  return M.LoadError;
}

struct CallConfig {
  dim3 Grid;
  dim3 Block;
  size_t SharedMem;
  cudaStream_t Stream;
};

/// <<<>>> pushes here and the launch stub pops; per thread, and a stack
/// because a kernel argument expression may itself launch a kernel.
thread_local std::vector<CallConfig> CallStack;

} // namespace

cudaError_t lookupKernel(const void *HostFn, CUkernel &Out) {
  if (cudaError_t E = driverInitResult())
    return E;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  auto It = R.Kernels.find(HostFn);
  // An address that is no registered kernel is an invalid handle to
  // NVIDIA's CUDA 13 runtime (observed), not cudaErrorInvalidDeviceFunction.
  if (It == R.Kernels.end())
    return cudaErrorInvalidResourceHandle;
  KernelEntry &K = It->second;
  if (!K.Kernel) {
    if (cudaError_t E = loadModule(*K.Owner))
      return E;
    CUresult Res = driver().cuLibraryGetKernel(&K.Kernel, K.Owner->Library, K.Name.c_str());
    if (Res != CUDA_SUCCESS) {
      K.Kernel = nullptr;
      logMessage("kernel %s is not in its fat binary", K.Name.c_str());
      return Res == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : toCudaError(Res);
    }
  }
  Out = K.Kernel;
  return cudaSuccess;
}

const char *lookupKernelName(const void *HostFn) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  auto It = R.Kernels.find(HostFn);
  return It == R.Kernels.end() ? nullptr : It->second.Name.c_str();
}

const void *lookupHostFunction(CUkernel Kernel) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  // Linear: only graph node queries ask, and kernels are few.
  for (const auto &[HostFn, K] : R.Kernels)
    if (K.Kernel && K.Kernel == Kernel)
      return HostFn;
  return nullptr;
}

cudaError_t lookupSymbol(const void *Symbol, CUdeviceptr &Ptr, size_t &Size) {
  if (cudaError_t E = driverInitResult())
    return E;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  auto It = R.Vars.find(Symbol);
  if (It == R.Vars.end())
    return cudaErrorInvalidSymbol;
  VarEntry &V = It->second;
  if (cudaError_t E = loadModule(*V.Owner))
    return E;
  const DriverTable &D = driver();
  CUresult Res = V.Managed ? D.cuLibraryGetManaged(&Ptr, &Size, V.Owner->Library, V.Name.c_str())
                           : D.cuLibraryGetGlobal(&Ptr, &Size, V.Owner->Library, V.Name.c_str());
  if (Res == CUDA_ERROR_NOT_FOUND)
    return cudaErrorInvalidSymbol;
  return toCudaError(Res);
}

void resetDeviceState(int) {
  // Kernels and libraries are context-independent handles; globals are
  // looked up per call. Nothing is cached per device yet.
}

thread_local cudaError_t GetKernelError = cudaSuccess;

cudaError_t takeGetKernelError() {
  cudaError_t E = GetKernelError;
  GetKernelError = cudaSuccess;
  return E;
}

} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

void **__cudaRegisterFatBinary(void *FatCubin) {
  auto M = std::make_unique<Module>();
  M->Wrapper = FatCubin;
  const auto *W = static_cast<const FatbinWrapper *>(FatCubin);
  M->Valid = W && W->Magic == FatbinWrapperMagic && W->Data;
  if (!M->Valid)
    logMessage("__cudaRegisterFatBinary: %p is not a fat binary wrapper", FatCubin);
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *Key = M.get();
  R.Modules.emplace(Key, std::move(M));
  return reinterpret_cast<void **>(Key);
}

void __cudaRegisterFatBinaryEnd(void **Handle) {
  // Loading is deferred to first use (see the file comment).
}

void __cudaUnregisterFatBinary(void **Handle) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *M = findModule(R, Handle);
  if (!M)
    return;
  std::erase_if(R.Kernels, [&](const auto &E) { return E.second.Owner == M; });
  std::erase_if(R.Vars, [&](const auto &E) { return E.second.Owner == M; });
  if (M->Library && driverInitResult() == cudaSuccess)
    driver().cuLibraryUnload(M->Library);
  R.Modules.erase(M);
}

void __cudaRegisterFunction(void **Handle, const char *HostFun, char *DeviceFun,
                            const char *DeviceName, int ThreadLimit, uint3 *Tid, uint3 *Bid,
                            dim3 *BlockDim, dim3 *GridDim, int *WarpSize) {
  if (!HostFun || !DeviceName)
    return;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *M = findModule(R, Handle);
  if (!M) {
    logMessage("__cudaRegisterFunction(%s): unknown fat binary handle", DeviceName);
    return;
  }
  R.Kernels.insert_or_assign(HostFun, KernelEntry{M, DeviceName, nullptr});
}

void __cudaRegisterVar(void **Handle, char *HostVar, char *DeviceAddress, const char *DeviceName,
                       int Ext, size_t Size, int Constant, int Global) {
  if (!HostVar || !DeviceName)
    return;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *M = findModule(R, Handle);
  if (!M) {
    logMessage("__cudaRegisterVar(%s): unknown fat binary handle", DeviceName);
    return;
  }
  R.Vars.insert_or_assign(HostVar, VarEntry{M, DeviceName, Size, false});
}

void __cudaRegisterManagedVar(void **Handle, void **HostVarPtrAddress, char *DeviceAddress,
                              const char *DeviceName, int Ext, size_t Size, int Constant,
                              int Global) {
  if (!HostVarPtrAddress || !DeviceName)
    return;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *M = findModule(R, Handle);
  if (!M) {
    logMessage("__cudaRegisterManagedVar(%s): unknown fat binary handle", DeviceName);
    return;
  }
  M->Managed.push_back({HostVarPtrAddress, DeviceName});
  R.Vars.insert_or_assign(HostVarPtrAddress, VarEntry{M, DeviceName, Size, true});
}

char __cudaInitModule(void **Handle) {
  // Host code calls this before its first access to a __managed__
  // variable: load the module and point each variable's host-side pointer
  // at its managed allocation.
  Context C;
  if (enter(C) != cudaSuccess)
    return 0;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  Module *M = findModule(R, Handle);
  if (!M)
    return 0;
  if (M->ManagedReady)
    return 1;
  if (loadModule(*M) != cudaSuccess)
    return 0;
  for (ManagedVar &V : M->Managed) {
    CUdeviceptr Ptr = 0;
    size_t Size = 0;
    if (driver().cuLibraryGetManaged(&Ptr, &Size, M->Library, V.Name.c_str()) != CUDA_SUCCESS) {
      logMessage("managed variable %s is not in its fat binary", V.Name.c_str());
      return 0;
    }
    *V.HostPtrAddress = reinterpret_cast<void *>(Ptr);
    // The application names the variable by its managed address from now
    // on (cudaMemcpyToSymbol(x, ...) takes &x, which is that address).
    R.Vars.insert_or_assign(reinterpret_cast<void *>(Ptr), VarEntry{M, V.Name, Size, true});
  }
  M->ManagedReady = true;
  return 1;
}

unsigned int __cudaPushCallConfiguration(dim3 Grid, dim3 Block, size_t SharedMem,
                                         struct CUstream_st *Stream) {
  CallStack.push_back({Grid, Block, SharedMem, Stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *Grid, dim3 *Block, size_t *SharedMem, void *Stream) {
  if (CallStack.empty())
    return recordError(cudaErrorMissingConfiguration);
  CallConfig C = CallStack.back();
  CallStack.pop_back();
  if (Grid)
    *Grid = C.Grid;
  if (Block)
    *Block = C.Block;
  if (SharedMem)
    *SharedMem = C.SharedMem;
  if (Stream)
    *static_cast<cudaStream_t *>(Stream) = C.Stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *Kernel, const void *Entry) {
  if (!Kernel)
    return recordError(cudaErrorInvalidValue);
  CUkernel K = nullptr;
  GetKernelError = lookupKernel(Entry, K);
  if (GetKernelError != cudaSuccess) {
    *Kernel = nullptr;
    return recordError(GetKernelError);
  }
  *Kernel = K;
  return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *Kernel, const void *Entry) {
  return __cudaGetKernel(Kernel, Entry);
}

cudaError_t cudaFuncGetName(const char **Name, const void *Func) {
  if (!Name)
    return recordError(cudaErrorInvalidValue);
  const char *N = lookupKernelName(Func);
  if (!N)
    return recordError(cudaErrorInvalidResourceHandle);
  *Name = N;
  return cudaSuccess;
}

} // extern "C"
