/// \file
/// Libraries, modules, kernels and functions, and kernel launch. Images are
/// stored and their kernels named at load; code is compiled for a device on
/// first use (core::Library::kernelCode). A CUfunction handle is the same
/// object as its CUkernel, which is what lets cudart pass a CUkernel to
/// cuLaunchKernel.
#include "libcuda/api/Common.h"
#include "libcuda/api/JitOptions.h"
#include "libcuda/core/Graph.h"
#include "support/Settings.h"

#include <chrono>
#include <cstdio>
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

/// ptxas refuses 32-bit PTX for sm_90 and newer: an H100 answered
/// cuModuleLoadDataEx with CUDA_ERROR_INVALID_PTX and exactly these logs (no
/// trailing newline). ferry refuses the same way on a device reporting
/// compute capability 9.0 or more (FERRY_DEVICE_PROFILE=h100, FERRY_SM=90),
/// and runs such PTX below that, as older GPUs do.
static constexpr const char *Ptx32Fatal =
    "ptxas fatal   :  32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher "
    "architectures.";
static constexpr const char *Ptx32Warning =
    "ptxas warning :  64 Bit host architecture (--machine) being used mismatches with .address_size of 32 bits";

static bool refuses32(const Library &L, const core::DeviceEntry &D) {
  return L.uses32BitAddresses() && D.Backend->properties().CcMajor >= 9;
}

static CUresult loadImage(const char *Fn, const void *image, bool AsModule, void **Out) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "output handle is null");
  if (Status S = core::requireInit(); !S)
    return done(Fn, std::move(S));
  auto L = Library::load(image, AsModule);
  if (!L)
    return fail(Fn, L.error());
  if (AsModule && (*L)->uses32BitAddresses())
    if (auto C = current(Fn); C && refuses32(**L, (*C)->device())) {
      (*L)->unload();
      return fail(Fn, CUDA_ERROR_INVALID_PTX, Ptx32Fatal);
    }
  // CUDA_MODULE_LOADING=EAGER: a module's code is made at its load, as
  // NVIDIA's eager loading does; a failure is reported by the kernels.
  if (AsModule && Settings::get().getString(SettingKey::ModuleLoading) == "EAGER")
    if (auto C = core::currentContext())
      (void)(*L)->compileAll((*C)->device());
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

/// A load failure as ptxas words it in a JIT error log: a diagnostic
/// "NAME.ptx:LINE:COL: message" (or "line LINE: message") becomes
/// "ptxas application ptx input, line LINE; error   : message", other text
/// an "error   :" line, and the log ends as ptxas's does.
static std::string ptxasErrorLog(const std::string &Message) {
  std::string Out;
  size_t Start = 0;
  while (Start < Message.size()) {
    size_t End = Message.find('\n', Start);
    if (End == std::string::npos)
      End = Message.size();
    std::string Line = Message.substr(Start, End - Start);
    Start = End + 1;
    std::string Where, What = Line;
    size_t Ptx = Line.find(".ptx:");
    if (Ptx != std::string::npos && Ptx < Line.find(' ')) {
      size_t LineNo = Ptx + 5, Colon = Line.find(':', LineNo);
      size_t Text = Colon == std::string::npos ? std::string::npos : Line.find(": ", Colon + 1);
      if (Text != std::string::npos) {
        Where = Line.substr(LineNo, Colon - LineNo);
        What = Line.substr(Text + 2);
      }
    } else if (Line.rfind("line ", 0) == 0 && Line.find(": ") != std::string::npos) {
      Where = Line.substr(5, Line.find(": ") - 5);
      What = Line.substr(Line.find(": ") + 2);
    }
    Out += Where.empty() ? "ptxas error   : " + What + "\n"
                         : "ptxas application ptx input, line " + Where + "; error   : " + What + "\n";
  }
  return Out + "ptxas fatal   : Ptx assembly aborted due to errors\n";
}

/// ptxas -v's report of a compiled module, for the JIT info log.
static std::string ptxasInfoLog(Library &L, core::DeviceEntry &D) {
  const DeviceProperties &P = D.Backend->properties();
  std::string Arch = "sm_" + std::to_string(P.CcMajor * 10 + P.CcMinor);
  size_t Gmem = 0;
  for (const std::string &G : L.globalNames())
    if (auto V = L.global(D, G))
      Gmem += V->Bytes;
  std::string Out = "ptxas info    : " + std::to_string(Gmem) + " bytes gmem\n";
  for (const Library::KernelCode &KC : L.compiledKernels(D)) {
    const KernelInfo &K = *KC.Info;
    Out += "ptxas info    : Compiling entry function '" + K.Name + "' for '" + Arch + "'\n";
    Out += "ptxas info    : Function properties for " + K.Name + "\n";
    Out += "    " + std::to_string(K.LocalBytes) + " bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
    Out += "ptxas info    : Used " + std::to_string(K.Registers) + " registers, " +
           std::to_string(K.StaticSharedBytes) + " bytes smem, " + std::to_string(K.ParamBytes) + " bytes cmem[0]\n";
  }
  for (const auto &[Name, Why] : L.untranslated(D))
    Out += "ptxas warning : entry function '" + Name + "' is not translated by ferry and will fail to launch: " +
           Why + "\n";
  return Out;
}

/// cuModuleLoadDataEx: a module load whose JIT options ask for the JIT's
/// output. NVIDIA compiles PTX at this call, so when the caller asks for a
/// log, the wall time or the block size targeted, the code is built now for
/// the current device; the logs and values are written back as the driver
/// API reference says (sizes are the text's length, as an H100 writes them).
FERRY_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                         CUjit_option *options, void **optionValues) {
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto O = readOptions(numOptions, options, optionValues);
  if (!O)
    return fail(__func__, O.error());
  if (!module)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "module is null");
  if (!O->wantsOutput())
    return loadImage(__func__, image, true, reinterpret_cast<void **>(module));
  auto T0 = std::chrono::steady_clock::now();
  auto Ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count(); };
  auto Failed = [&](const Error &E) {
    O->Error.write(ptxasErrorLog(E.message()));
    O->Info.write("");
    O->putWallTime(Ms());
    return fail(__func__, E);
  };
  auto L = Library::load(image, true);
  if (!L)
    return Failed(L.error());
  core::DeviceEntry &D = (*C)->device();
  if (refuses32(**L, D)) {
    (*L)->unload();
    O->Error.write(Ptx32Fatal);
    O->Info.write(Ptx32Warning);
    O->putWallTime(Ms());
    return fail(__func__, CUDA_ERROR_INVALID_PTX, Ptx32Fatal);
  }
  if (Status S = (*L)->compileAll(D); !S) {
    Error E = S.takeError();
    (*L)->unload();
    return Failed(E);
  }
  O->Info.write(O->Verbose ? ptxasInfoLog(**L, D) : std::string());
  O->Error.write("");
  if (O->ThreadsSlot) {
    // Register use never limits the block size here: the block size asked
    // for is what is targeted, up to the device's limit.
    unsigned Max = unsigned(D.Backend->properties().MaxThreadsPerBlock);
    unsigned Got = O->ThreadsPerBlock ? std::min(O->ThreadsPerBlock, Max) : Max;
    *O->ThreadsSlot = reinterpret_cast<void *>(uintptr_t(Got));
  }
  O->putWallTime(Ms());
  *module = reinterpret_cast<CUmodule>(static_cast<core::Object *>(L->get()));
  return CUDA_SUCCESS;
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

/// A module handle (cuModuleLoad*), not a library's.
static Expected<Ref<Library>> moduleArg(const void *H) {
  auto M = imageArg(H);
  if (!M || (*M)->kind() != core::Kind::Module)
    return makeError(CUDA_ERROR_INVALID_HANDLE, "not a live module handle");
  return M;
}

FERRY_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  auto M = moduleArg(hmod);
  if (!M)
    return fail(__func__, M.error());
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

/// The device whose code a context-free call (cuLibraryGet*) refers to:
/// the current context's, else device 0 (cudart asks before it has made a
/// context current only in corner cases).
static Expected<core::DeviceEntry *> currentOrFirstDevice() {
  if (Status S = core::requireInit(); !S)
    return S.takeError();
  if (auto C = core::ctxstack::current())
    return &C->device();
  if (core::deviceCount() == 0)
    return makeError(CUDA_ERROR_NO_DEVICE, "no device");
  return core::device(0);
}

static CUresult getGlobal(const char *Fn, CUdeviceptr *dptr, size_t *bytes, const void *Lib, const char *name) {
  if (!name)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "name is null");
  if (!dptr && !bytes)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "dptr and bytes are both null");
  auto L = imageArg(Lib);
  if (!L)
    return fail(Fn, L.error());
  bool Known = false;
  for (const auto &G : (*L)->globalNames())
    Known |= G == name;
  if (!Known)
    return fail(Fn, CUDA_ERROR_NOT_FOUND, std::string("no global named '") + name + "'");
  auto D = currentOrFirstDevice();
  if (!D)
    return fail(Fn, D.error());
  auto G = (*L)->global(**D, name);
  if (!G)
    return fail(Fn, G.error());
  if (dptr)
    *dptr = CUdeviceptr(reinterpret_cast<uintptr_t>(G->Address));
  if (bytes)
    *bytes = G->Bytes;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  return getGlobal(__func__, dptr, bytes, library, name);
}
FERRY_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  return getGlobal(__func__, dptr, bytes, hmod, name);
}
/// Managed variables (`__managed__`) live in memory both sides reach; on
/// every backend here a module global already is, so it is the same lookup.
FERRY_EXPORT CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  return getGlobal(__func__, dptr, bytes, library, name);
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

/// Function attributes. Values that depend on the compiled code (static
/// shared size, maximum block size from .maxntid) compile the kernel for
/// the device first, as NVIDIA's lazy loading also loads the function.
/// PTX_VERSION is the `.target` the PTX was written for (CUB and Thrust
/// match it against the architectures they were compiled for);
/// BINARY_VERSION is the device's, since the code is generated for it.
static CUresult kernelAttribute(const char *Fn, int *pi, int attrib, Kernel &K, core::DeviceEntry &D) {
  const DeviceProperties &P = D.Backend->properties();
  auto Code = K.library().kernelCode(D, K.name(), "attribute query");
  if (!Code)
    return fail(Fn, Code.error());
  const KernelInfo &Info = *Code->Info;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = Info.MaxThreadsPerBlock ? int(std::min<uint32_t>(Info.MaxThreadsPerBlock, P.MaxThreadsPerBlock))
                                  : P.MaxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = int(Info.StaticSharedBytes); break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = int(Info.ConstBytes); break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = int(Info.LocalBytes); break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = int(Info.Registers ? Info.Registers : 32); break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: {
    unsigned T = K.library().ptxTarget();
    *pi = T ? int(T) : P.CcMajor * 10 + P.CcMinor;
    break;
  }
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = P.CcMajor * 10 + P.CcMinor; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
    // The default is what is left of the 48 KiB static window.
    int Set = K.MaxDynamicShared.load();
    *pi = Set ? Set : int(P.SharedMemPerBlock > Info.StaticSharedBytes ? P.SharedMemPerBlock - Info.StaticSharedBytes : 0);
    break;
  }
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
  return kernelAttribute(__func__, pi, int(attrib), **K, **D);
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
  return kernelAttribute(__func__, pi, int(attrib), **K, (*C)->device());
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

/// Packs the parameter buffer the compiled kernel reads: kernelParams[i]
/// points at parameter i's value; `extra` passes a ready buffer
/// (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE, then CU_LAUNCH_PARAM_END).
static Status packArgs(const KernelInfo &Info, void **params, void **extra, std::vector<std::byte> &Out) {
  Out.assign(Info.ParamBytes, std::byte{0});
  if (extra) {
    const void *Buf = nullptr;
    size_t Size = 0;
    bool HaveSize = false;
    for (unsigned I = 0; I < 64 && extra[I] != CU_LAUNCH_PARAM_END; I += 2) {
      if (extra[I] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        Buf = extra[I + 1];
      else if (extra[I] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[I + 1])
          return makeError(CUDA_ERROR_INVALID_VALUE, "extra: CU_LAUNCH_PARAM_BUFFER_SIZE points at null");
        Size = *static_cast<const size_t *>(extra[I + 1]);
        HaveSize = true;
      } else
        return makeError(CUDA_ERROR_INVALID_VALUE, "extra: unknown key");
    }
    if (Info.ParamBytes == 0)
      return Status::ok();
    if (!Buf || !HaveSize)
      return makeError(CUDA_ERROR_INVALID_VALUE, "extra: buffer pointer or size missing");
    if (Size < Info.ParamBytes)
      return makeError(CUDA_ERROR_INVALID_VALUE,
                       "extra: buffer of " + std::to_string(Size) + " bytes, the kernel takes " +
                           std::to_string(Info.ParamBytes));
    std::memcpy(Out.data(), Buf, Info.ParamBytes);
    return Status::ok();
  }
  if (Info.Params.empty())
    return Status::ok();
  if (!params)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the kernel takes parameters but kernelParams is null");
  for (size_t I = 0; I < Info.Params.size(); ++I) {
    const KernelParam &P = Info.Params[I];
    if (!params[I])
      return makeError(CUDA_ERROR_INVALID_VALUE, "kernelParams[" + std::to_string(I) + "] is null");
    if (uint64_t(P.Offset) + P.Bytes > Out.size())
      return makeError(CUDA_ERROR_INVALID_VALUE, "parameter layout exceeds the buffer");
    std::memcpy(Out.data() + P.Offset, params[I], P.Bytes);
  }
  return Status::ok();
}

struct LaunchShape {
  unsigned Grid[3], Block[3];
  unsigned Shared;
  bool Cooperative = false;
};

/// A kernel of `.address_size 32` PTX reads its pointers as 32-bit numbers
/// (ptx/lower/Pipeline.cpp). Device memory it could be given must lie below
/// 4 GiB: memory allocated before such a module was loaded may not, and
/// then the launch fails rather than let a truncated pointer reach other
/// memory.
static Status check32BitReach(const Kernel &K, core::DeviceEntry &Dev) {
  if (!Dev.Backend->placeBelow4GiB()) // Idempotent: it was asked at load.
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "kernel '" + K.name() +
                                                   "' uses 32-bit addresses (.address_size 32), and device " +
                                                   std::to_string(Dev.Ordinal) + " cannot place memory below 4 GiB");
  if (auto A = core::alloctable::firstEndingAbove(uintptr_t(1) << 32, Dev.Ordinal)) {
    char Where[32];
    std::snprintf(Where, sizeof Where, "%#llx", (unsigned long long)A->Base);
    return makeError(CUDA_ERROR_NOT_SUPPORTED,
                     "kernel '" + K.name() + "' uses 32-bit addresses (.address_size 32), but device memory at " +
                         Where + " (" + std::to_string(A->Bytes) +
                         " bytes) lies above 4 GiB, out of their reach: memory allocated before the module "
                         "was loaded, or on a device that cannot place memory lower");
  }
  return Status::ok();
}

static CUresult launch(const char *Fn, CUfunction f, const LaunchShape &Shape, CUstream s, void **params,
                       void **extra, bool PerThread) {
  auto K = core::resolve<Kernel>(f);
  if (!K)
    return fail(Fn, K.error());
  auto S = streamArg(s, PerThread);
  if (!S)
    return fail(Fn, S.error());
  const unsigned *G = Shape.Grid, *B = Shape.Block;
  if (!G[0] || !G[1] || !G[2] || !B[0] || !B[1] || !B[2])
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "a grid or block dimension is 0");
  core::DeviceEntry &Dev = (*S)->context().device();
  const DeviceProperties &P = Dev.Backend->properties();
  if (uint64_t(B[0]) * B[1] * B[2] > uint64_t(P.MaxThreadsPerBlock) || B[0] > unsigned(P.MaxBlockDim[0]) ||
      B[1] > unsigned(P.MaxBlockDim[1]) || B[2] > unsigned(P.MaxBlockDim[2]))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "block dimensions exceed the device limits");
  if (G[0] > unsigned(P.MaxGridDim[0]) || G[1] > unsigned(P.MaxGridDim[1]) || G[2] > unsigned(P.MaxGridDim[2]))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "grid dimensions exceed the device limits");
  if (params && extra)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "kernelParams and extra are both given");
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  auto Code = (*K)->library().kernelCode(Dev, (*K)->name(), "launch");
  if (!Code)
    return fail(Fn, Code.error());
  if ((*K)->library().uses32BitAddresses())
    if (Status St = check32BitReach(**K, Dev); !St)
      return done(Fn, std::move(St));
  const KernelInfo &Info = *Code->Info;
  uint64_t Threads = uint64_t(B[0]) * B[1] * B[2];
  if (Info.MaxThreadsPerBlock && Threads > Info.MaxThreadsPerBlock)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE,
                "block of " + std::to_string(Threads) + " threads exceeds the kernel's maximum of " +
                    std::to_string(Info.MaxThreadsPerBlock));
  if (Info.ReqNtid[0] && (B[0] != Info.ReqNtid[0] || B[1] != Info.ReqNtid[1] || B[2] != Info.ReqNtid[2]))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "block shape differs from the kernel's .reqntid");
  size_t DynLimit = sharedLimit(P, **K);
  if (uint64_t(Shape.Shared) + Info.StaticSharedBytes > DynLimit)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE,
                std::to_string(Shape.Shared) + " bytes of dynamic shared memory (+" +
                    std::to_string(Info.StaticSharedBytes) + " static) exceed the limit of " +
                    std::to_string(DynLimit));
  if (Shape.Cooperative) {
    uint64_t Blocks = uint64_t(G[0]) * G[1] * G[2];
    uint64_t Fit = uint64_t(residentBlocks(P, Info, **K, int(Threads), Shape.Shared)) * P.MultiprocessorCount;
    if (Blocks > Fit)
      return fail(Fn, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                  std::to_string(Blocks) + " blocks, but only " + std::to_string(Fit) + " can be resident at once");
  }
  LaunchRequest R;
  R.Code = Code->Code.get();
  R.Hold = Code->Code;
  R.KernelIndex = Code->Index;
  R.Grid = {G[0], G[1], G[2]};
  R.Block = {B[0], B[1], B[2]};
  R.DynamicSharedBytes = Shape.Shared;
  R.Cooperative = Shape.Cooperative;
  if (auto Pending = (*S)->context().getLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT))
    R.PendingLaunchLimit = uint32_t(std::min<size_t>(*Pending, UINT32_MAX));
  R.DeviceOrdinal = Dev.Ordinal;
  if (Status St = packArgs(Info, params, extra, R.Args); !St)
    return done(Fn, std::move(St));
  Status St = core::capture::submitLaunch(**S, *K, R); // A node when the stream captures.
  return done(Fn, std::move(St));
}

static CUresult launch(const char *Fn, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, void **extra,
                       bool PerThread, bool Cooperative = false) {
  LaunchShape Shape{{gx, gy, gz}, {bx, by, bz}, shared, Cooperative};
  return launch(Fn, f, Shape, s, params, extra, PerThread);
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
  if (config->numAttrs && !config->attrs)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "attrs is null");
  bool Cooperative = false;
  for (unsigned I = 0; I < config->numAttrs; ++I) {
    const CUlaunchAttribute &A = config->attrs[I];
    switch (A.id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE:
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      break; // Performance hints; launches here are always fully ordered.
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
      Cooperative = A.value.cooperative != 0;
      break;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
      if (A.value.clusterDim.x * A.value.clusterDim.y * A.value.clusterDim.z > 1)
        return fail(Fn, CUDA_ERROR_NOT_SUPPORTED, "thread block clusters larger than one block");
      break;
    default:
      return fail(Fn, CUDA_ERROR_NOT_SUPPORTED, "launch attribute " + std::to_string(int(A.id)));
    }
  }
  return launch(Fn, f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream, params, extra,
                PerThread, Cooperative);
}
FERRY_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                       void **extra) {
  return launchEx(__func__, config, f, kernelParams, extra, false);
}
FERRY_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                            void **extra) {
  return launchEx(__func__, config, f, kernelParams, extra, true);
}

FERRY_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                unsigned int gridDimZ, unsigned int blockDimX,
                                                unsigned int blockDimY, unsigned int blockDimZ,
                                                unsigned int sharedMemBytes, CUstream hStream,
                                                void **kernelParams) {
  return launch(__func__, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream, kernelParams, nullptr, false, true);
}
FERRY_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                     unsigned int gridDimZ, unsigned int blockDimX,
                                                     unsigned int blockDimY, unsigned int blockDimZ,
                                                     unsigned int sharedMemBytes, CUstream hStream,
                                                     void **kernelParams) {
  return launch(__func__, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream, kernelParams, nullptr, true, true);
}

//===----------------------------------------------------------------------===//
// Module and function queries
//===----------------------------------------------------------------------===//

FERRY_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  if (!module || !fname)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "module or fname is null");
  if (auto C = current(__func__); !C)
    return C.code();
  std::ifstream In(fname, std::ios::binary);
  if (!In)
    return fail(__func__, CUDA_ERROR_FILE_NOT_FOUND, std::string("cannot open ") + fname);
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  Bytes.push_back('\0'); // PTX files are text without a terminator.
  return loadImage(__func__, Bytes.data(), true, reinterpret_cast<void **>(module));
}

FERRY_EXPORT CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule hmod) {
  if (!count)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "count is null");
  auto M = moduleArg(hmod);
  if (!M)
    return fail(__func__, M.error());
  *count = unsigned((*M)->entryNames().size());
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule mod) {
  if (!functions)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "functions is null");
  auto M = moduleArg(mod);
  if (!M)
    return fail(__func__, M.error());
  auto All = (*M)->kernels();
  for (unsigned I = 0; I < numFunctions && I < All.size(); ++I)
    functions[I] = handleOf<CUfunction>(All[I].get());
  return CUDA_SUCCESS;
}

/// A function's module: functions taken from a module (cuModuleGetFunction)
/// answer with it. Kernels of a library (cudart's) have no module object in
/// ferry's model, so for them this reports NOT_SUPPORTED rather than a
/// handle that would not behave as a module.
FERRY_EXPORT CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc) {
  if (!hmod)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "hmod is null");
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  Library &L = (*K)->library();
  if (L.kind() != core::Kind::Module)
    return fail(__func__, CUDA_ERROR_NOT_SUPPORTED, "the function belongs to a library, not a module");
  *hmod = handleOf<CUmodule>(&L);
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
  if (!pLib)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "pLib is null");
  auto K = core::resolve<Kernel>(kernel);
  if (!K)
    return fail(__func__, K.error());
  Library &L = (*K)->library();
  if (L.kind() != core::Kind::Library)
    return fail(__func__, CUDA_ERROR_INVALID_HANDLE, "a module's function is not a library kernel");
  *pLib = handleOf<CUlibrary>(&L);
  return CUDA_SUCCESS;
}

/// Parameter layout from the compiled kernel (compiling it if needed).
static CUresult paramInfo(const char *Fn, const void *F, size_t Index, size_t *Offset, size_t *Size) {
  if (!Offset && !Size)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "paramOffset and paramSize are both null");
  auto K = core::resolve<Kernel>(F);
  if (!K)
    return fail(Fn, K.error());
  auto D = currentOrFirstDevice();
  if (!D)
    return fail(Fn, D.error());
  auto Code = (*K)->library().kernelCode(**D, (*K)->name(), "parameter query");
  if (!Code)
    return fail(Fn, Code.error());
  const auto &Params = Code->Info->Params;
  if (Index >= Params.size())
    return fail(Fn, CUDA_ERROR_INVALID_VALUE,
                "parameter " + std::to_string(Index) + " of " + std::to_string(Params.size()));
  if (Offset)
    *Offset = Params[Index].Offset;
  if (Size)
    *Size = Params[Index].Bytes;
  return CUDA_SUCCESS;
}
FERRY_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                         size_t *paramSize) {
  return paramInfo(__func__, func, paramIndex, paramOffset, paramSize);
}
FERRY_EXPORT CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                                           size_t *paramSize) {
  return paramInfo(__func__, kernel, paramIndex, paramOffset, paramSize);
}

FERRY_EXPORT CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction hfunc) {
  if (!state)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "state is null");
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  auto C = current(__func__);
  if (!C)
    return C.code();
  *state = (*K)->library().isLoaded((*C)->device(), (*K)->name()) ? CU_FUNCTION_LOADING_STATE_LOADED
                                                     : CU_FUNCTION_LOADING_STATE_UNLOADED;
  return CUDA_SUCCESS;
}

FERRY_EXPORT CUresult cuFuncLoad(CUfunction hfunc) {
  auto K = core::resolve<Kernel>(hfunc);
  if (!K)
    return fail(__func__, K.error());
  auto C = current(__func__);
  if (!C)
    return C.code();
  auto Code = (*K)->library().kernelCode((*C)->device(), (*K)->name(), "cuFuncLoad");
  if (!Code)
    return fail(__func__, Code.error());
  return CUDA_SUCCESS;
}
