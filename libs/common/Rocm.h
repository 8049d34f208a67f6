/// \file
/// ROCm's libraries as ferry's math libraries reach them on the AMD backend
/// where the host cannot touch device memory (libs/README.md, "The AMD
/// backend"): dlopen'ed at run time from the user's ROCm, never linked, so
/// ferry builds and runs without ROCm. Only the few entry points a library
/// forwards to are declared, each by its forwarder, from AMD's public
/// documentation.
#pragma once

#include <string>

namespace ferry::libs {

/// Opens the first loadable of Names (sonames, newest first), looking in
/// $FERRY_ROCM_LIB_DIR first (a directory: tests point it at test doubles),
/// then where the dynamic loader looks, then /opt/rocm/lib. Null when none
/// loads; Why then lists what was tried.
void *openRocmLibrary(const char *const *Names, std::string &Why);

} // namespace ferry::libs
