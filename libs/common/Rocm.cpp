/// \file
/// Finding ROCm's libraries at run time (see Rocm.h).
#include "libs/common/Rocm.h"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace ferry::libs {

void *openRocmLibrary(const char *const *Names, std::string &Why) {
  std::vector<std::string> Dirs;
  if (const char *D = std::getenv("FERRY_ROCM_LIB_DIR"); D && *D)
    Dirs.push_back(std::string(D) + "/");
  Dirs.push_back("");             // The dynamic loader's own search.
  Dirs.push_back("/opt/rocm/lib/"); // ROCm's default prefix, often not in ld.so.conf.
  for (const std::string &Dir : Dirs)
    for (const char *const *N = Names; *N; ++N)
      if (void *Lib = ::dlopen((Dir + *N).c_str(), RTLD_NOW | RTLD_LOCAL))
        return Lib;
  Why = "none of";
  for (const char *const *N = Names; *N; ++N)
    Why += std::string(N == Names ? " " : ", ") + *N;
  Why += " loads (looked in";
  for (const std::string &Dir : Dirs)
    Why += (&Dir == &Dirs.front() ? " " : ", ") + (Dir.empty() ? std::string("the loader's path") : Dir);
  Why += ")";
  return nullptr;
}

const char *const RocblasSonames[] = {"librocblas.so.5", "librocblas.so.4", "librocblas.so.0", "librocblas.so",
                                      nullptr};

const HipRuntime *hipRuntime(std::string &WhyNot) {
  static RocmEntries<HipRuntime> Entries;
  return Entries.get(WhyNot, [](HipRuntime &Api, std::string &Why) {
    static const char *const Names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                        nullptr};
    std::string W;
    void *Lib = openRocmLibrary(Names, W);
    bool Ok = Lib && findRocmSymbol(Lib, "hipStreamCreate", Api.StreamCreate, W) &&
              findRocmSymbol(Lib, "hipStreamSynchronize", Api.StreamSynchronize, W) &&
              findRocmSymbol(Lib, "hipStreamDestroy", Api.StreamDestroy, W) &&
              findRocmSymbol(Lib, "hipMemsetD32Async", Api.MemsetD32Async, W);
    if (!Ok)
      Why = "the HIP runtime: " + W;
    return Ok;
  });
}

} // namespace ferry::libs
