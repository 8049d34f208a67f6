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

} // namespace ferry::libs
