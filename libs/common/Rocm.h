/// \file
/// ROCm's libraries as ferry's math libraries reach them on the AMD backend
/// where the host cannot touch device memory (libs/README.md, "The AMD
/// backend"): dlopen'ed at run time from the user's ROCm, never linked, so
/// ferry builds and runs without ROCm. Only the few entry points a library
/// forwards to are declared, each by its forwarder, from AMD's public
/// documentation.
#pragma once

#include <cstddef>
#include <dlfcn.h>
#include <mutex>
#include <string>

namespace ferry::libs {

/// Opens the first loadable of Names (sonames, newest first), looking in
/// $FERRY_ROCM_LIB_DIR first (a directory: tests point it at test doubles),
/// then where the dynamic loader looks, then /opt/rocm/lib. Null when none
/// loads; Why then lists what was tried.
void *openRocmLibrary(const char *const *Names, std::string &Why);

/// Resolves Name in Lib into Out; false, with Why naming it, when missing.
template <typename T> bool findRocmSymbol(void *Lib, const char *Name, T &Out, std::string &Why) {
  Out = reinterpret_cast<T>(::dlsym(Lib, Name));
  if (!Out)
    Why = std::string("it lacks ") + Name;
  return Out != nullptr;
}

/// A ROCm library's entry points, resolved once per process: the first
/// get() runs Load(Api, Why), which fills Api and answers whether all were
/// found (Why saying what was not); every caller, on any thread, gets that
/// first answer (null with WhyNot when it failed).
template <typename Api> class RocmEntries {
public:
  template <typename F> const Api *get(std::string &WhyNot, F &&Load) {
    std::call_once(Once, [&] { Ok = Load(Loaded, Why); });
    WhyNot = Why;
    return Ok ? &Loaded : nullptr;
  }

private:
  Api Loaded;
  bool Ok = false;
  std::string Why;
  std::once_flag Once;
};

/// The HIP runtime calls a forwarder makes around a ROCm library: a stream
/// of its own per handle (ROCm's libraries run on a hipStream_t, which a
/// ferry stream is not), waiting for it inside the host task that ordered
/// the work on the ferry stream, and a 32-bit memset for results the ROCm
/// call has no argument for (cuSOLVER's devInfo where rocSOLVER takes no
/// info, or a rejected argument's -i). hipError_t is an int (0:
/// hipSuccess); hipStream_t and hipDeviceptr_t opaque pointers.
struct HipRuntime {
  int (*StreamCreate)(void **) = nullptr;
  int (*StreamSynchronize)(void *) = nullptr;
  int (*StreamDestroy)(void *) = nullptr;
  int (*MemsetD32Async)(void *Dst, int Value, size_t Count, void *Stream) = nullptr;
};

/// libamdhip64, loaded once (ROCm 7, 6, 5 sonames, then the development
/// link); null, with WhyNot, when it or one of the calls is missing.
const HipRuntime *hipRuntime(std::string &WhyNot);

/// rocBLAS's sonames, newest first (rocSOLVER takes a rocblas_handle).
extern const char *const RocblasSonames[];

} // namespace ferry::libs
