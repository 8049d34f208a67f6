/// \file
/// Libraries, modules, kernels and functions, and kernel launch. Images are
/// stored and their kernels named at load; code generation and execution
/// come with the kernel executor, so launches report NOT_SUPPORTED (logged)
/// until then. A CUfunction handle is the same object as its CUkernel,
/// which is what lets cudart pass a CUkernel to cuLaunchKernel.
#include "libcuda/api/Common.h"
#include "support/Settings.h"

#include <cstring>
#include <fstream>
#include <iterator>

using namespace ferry;
using namespace ferry::api;
using core::Kernel;
using core::Library;
using core::Ref;

FERRY_EXPORT CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  if (!mode)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "mode is null");
  if (Status S = core::requireInit(); !S)
    return done(__func__, std::move(S));
  std::string M = Settings::get().getString(SettingKey::ModuleLoading);
  *mode = M == "EAGER" ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

static CUresult loadImage(const char *Fn, const void *image, bool AsModule, void **Out) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "output handle is null");
  if (Status S = core::requireInit(); !S)
    return done(Fn, std::move(S));
  auto L = Library::load(image, AsModule);
  if (!L)
    return fail(Fn, L.error());
  *Out = static_cast<core::Object *>(L->get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                        void **jitOptionsValues, unsigned int numJitOptions,
                                        CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                        unsigned int numLibraryOptions) {
  // Options (e.g. CU_LIBRARY_BINARY_IS_PRESERVED) are hints here: the image
  // is always copied.
  return loadImage(__func__, code, false, reinterpret_cast<void **>(library));
}

FERRY_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                                            void **jitOptionsValues, unsigned int numJitOptions,
                                            CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                            unsigned int numLibraryOptions) {
  if (!fileName)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "fileName is null");
  std::ifstream In(fileName, std::ios::binary);
  if (!In)
    return fail(__func__, CUDA_ERROR_FILE_NOT_FOUND, std::string("cannot open ") + fileName);
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  Bytes.push_back('\0'); // PTX files are text without a terminator.
  return loadImage(__func__, Bytes.data(), false, reinterpret_cast<void **>(library));
}

FERRY_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  auto L = core::resolve<Library>(library);
  if (!L)
    return fail(__func__, L.error());
  (*L)->unload();
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  if (auto C = current(__func__); !C)
    return C.code();
  return loadImage(__func__, image, true, reinterpret_cast<void **>(module));
}

FERRY_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                         CUjit_option *options, void **optionValues) {
  if (auto C = current(__func__); !C)
    return C.code();
  return loadImage(__func__, image, true, reinterpret_cast<void **>(module));
}

FERRY_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  if (auto C = current(__func__); !C)
    return C.code();
  return loadImage(__func__, fatCubin, true, reinterpret_cast<void **>(module));
}

/// A library or module handle (both are Library objects).
static Expected<Ref<Library>> imageArg(const void *H) {
  auto O = core::detail::lookup(H);
  if (!O || (O->kind() != core::Kind::Library && O->kind() != core::Kind::Module))
    return makeError(CUDA_ERROR_INVALID_HANDLE, "not a live library or module handle");
  return std::static_pointer_cast<Library>(O);
}

FERRY_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  auto M = imageArg(hmod);
  if (!M || (*M)->kind() != core::Kind::Module)
    return fail(__func__, CUDA_ERROR_INVALID_HANDLE, "not a live module handle");
  (*M)->unload();
  return CUDA_SUCCESS;
}

static CUresult getKernel(const char *Fn, void **Out, const void *Lib, const char *name) {
  if (!Out || !name)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "output or name is null");
  auto L = imageArg(Lib);
  if (!L)
    return fail(Fn, L.error());
  auto K = (*L)->kernel(name);
  if (!K)
    return fail(Fn, K.error());
  *Out = static_cast<core::Object *>(K->get());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
  return getKernel(__func__, reinterpret_cast<void **>(pKernel), library, name);
}

FERRY_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  return getKernel(__func__, reinterpret_cast<void **>(hfunc), hmod, name);
}

FERRY_EXPORT CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib) {
  if (!count)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is null");
  auto L = imageArg(lib);
  if (!L)
    return fail(__func__, L.error());
  *count = unsigned((*L)->entryNames().size());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib) {
  if (!kernels)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "kernels is null");
  auto L = imageArg(lib);
  if (!L)
    return fail(__func__, L.error());
  auto All = (*L)->kernels();
  for (unsigned I = 0; I < numKernels && I < All.size(); ++I)
    kernels[I] = handleOf<CUkernel>(All[I].get());
  return CUDA_SUCCESS;
}

static CUresult getGlobal(const char *Fn, CUdeviceptr *dptr, size_t *bytes, const void *Lib, const char *name) {
  if (!name)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "name is null");
  auto L = imageArg(Lib);
  if (!L)
    return fail(Fn, L.error());
  for (const auto &G : (*L)->globalNames())
    if (G == name)
      return fail(Fn, CUDA_ERROR_NOT_SUPPORTED,
                  std::string("global '") + name + "' exists but module globals are placed in memory "
                                                   "only once the kernel compiler exists");
  return fail(Fn, CUDA_ERROR_NOT_FOUND, std::string("no global named '") + name + "'");
}

FERRY_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  return getGlobal(__func__, dptr, bytes, library, name);
}
FERRY_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  return getGlobal(__func__, dptr, bytes, hmod, name);
}

FERRY_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) {
  if (!pFunc)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pFunc is null");
  auto K = core::resolve<Kernel>(kernel);
  if (!K)
    return fail(__func__, K.error());
  if (auto C = current(__func__); !C)
    return C.code();
  *pFunc = handleOf<CUfunction>(K->get());
  return CUDA_SUCCESS;
}

static CUresult kernelName(const char *Fn, const char **name, const void *H) {
  if (!name)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "name is null");
  auto K = core::resolve<Kernel>(H);
  if (!K)
    return fail(Fn, K.error());
  *name = (*K)->name().c_str();
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuKernelGetName(const char **name, CUkernel hfunc) { return kernelName(__func__, name, hfunc); }
FERRY_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc) { return kernelName(__func__, name, hfunc); }

/// Attribute values known before compilation. Values that depend on the
/// compiled code (static shared/local sizes, registers) read as 0 / 32 until
/// the compiler backend reports them.
static CUresult kernelAttribute(const char *Fn, int *pi, int attrib, const Kernel &K,
                                const DeviceProperties &P) {
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = P.MaxThreadsPerBlock; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = P.CcMajor * 10 + P.CcMinor; break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = P.CcMajor * 10 + P.CcMinor; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = K.MaxDynamicShared.load(); break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = K.PreferredCarveout.load(); break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
  default: return fail(Fn, CUDA_ERROR_INVALID_VALUE, "unknown function attribute " + std::to_string(attrib));
  }
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  if (!pi)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pi is null");
  auto K = core::resolve<Kernel>(kernel);
  if (!K)
    return fail(__func__, K.error());
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  return kernelAttribute(__func__, pi, int(attrib), **K, (*D)->Backend->properties());
}

FERRY_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  if (!pi)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pi is null");
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  auto C = current(__func__);
  if (!C)
    return C.code();
  return kernelAttribute(__func__, pi, int(attrib), **K, (*C)->device().Backend->properties());
}

static CUresult setAttribute(const char *Fn, Kernel &K, int attrib, int val, const DeviceProperties &P) {
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    if (val < 0 || size_t(val) > P.SharedMemPerBlockOptin)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dynamic shared size above the device's opt-in limit");
    K.MaxDynamicShared = val;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    if (val < -1 || val > 100)
      return fail(Fn, CUDA_ERROR_INVALID_VALUE, "carveout must be -1..100");
    K.PreferredCarveout = val;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    return fail(Fn, CUDA_ERROR_NOT_SUPPORTED, "thread block clusters are not supported");
  default:
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "attribute " + std::to_string(attrib) + " cannot be set");
  }
}

FERRY_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
  auto K = core::resolve<Kernel>(kernel);
  if (!K)
    return fail(__func__, K.error());
  auto D = deviceArg(dev);
  if (!D)
    return fail(__func__, D.error());
  return setAttribute(__func__, **K, int(attrib), val, (*D)->Backend->properties());
}

FERRY_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  auto C = current(__func__);
  if (!C)
    return C.code();
  return setAttribute(__func__, **K, int(attrib), value, (*C)->device().Backend->properties());
}

FERRY_EXPORT CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  auto K = core::resolve<Kernel>(kernel);
  if (!K)
    return fail(__func__, K.error());
  (*K)->CacheConfig = int(config);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  (*K)->CacheConfig = int(config);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

static CUresult launch(const char *Fn, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, void **extra,
                       bool PerThread) {
  auto K = core::resolve<Kernel>(f);
  if (!K)
    return fail(Fn, K.error());
  auto S = streamArg(s, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (!gx || !gy || !gz || !bx || !by || !bz)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "a grid or block dimension is 0");
  const DeviceProperties &P = (*S)->context().device().Backend->properties();
  if (uint64_t(bx) * by * bz > uint64_t(P.MaxThreadsPerBlock) || bx > unsigned(P.MaxBlockDim[0]) ||
      by > unsigned(P.MaxBlockDim[1]) || bz > unsigned(P.MaxBlockDim[2]))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "block dimensions exceed the device limits");
  if (params && extra)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "kernelParams and extra are both given");
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  // KERNEL EXECUTOR HOOK: compiling the kernel and enqueueing a
  // LaunchRequest comes with the PTX→SIMT IR pipeline and the executor.
  return fail(Fn, CUDA_ERROR_NOT_SUPPORTED,
              "launching '" + (*K)->name() + "': kernel execution is not implemented yet");
}

FERRY_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra) {
  return launch(__func__, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream, kernelParams, extra, false);
}

FERRY_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                          unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                          unsigned int blockDimZ, unsigned int sharedMemBytes,
                                          CUstream hStream, void **kernelParams, void **extra) {
  return launch(__func__, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream, kernelParams, extra, true);
}

static CUresult launchEx(const char *Fn, const CUlaunchConfig *config, CUfunction f, void **params,
                         void **extra, bool PerThread) {
  if (!config)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "config is null");
  return launch(Fn, f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream, params, extra,
                PerThread);
}
FERRY_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                       void **extra) {
  return launchEx(__func__, config, f, kernelParams, extra, false);
}
FERRY_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                            void **extra) {
  return launchEx(__func__, config, f, kernelParams, extra, true);
}
