/// \file
/// The mangled type NVIDIA's headers give each symbol of ferry's table:
/// cudaTypedefs.h's PFN_<base>_v<version> for the driver (so the table's
/// version breakpoints are checked too), the runtime's own declarations.
#include "SigEntry.h"

#define FERRY_NO_EGL
#include "NvidiaHeaders.h"

#include <type_traits>
#include <typeinfo>

#define FERRY_SIG(Symbol, NvidiaType) {#Symbol, typeid(NvidiaType).name()},
#define FERRY_SIG_EGL(Symbol, NvidiaType)
const SigEntry NvidiaSigs[] = {
#include "SigRows.inc"
};
const size_t NvidiaSigCount = sizeof(NvidiaSigs) / sizeof(NvidiaSigs[0]);
