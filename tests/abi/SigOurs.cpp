/// \file
/// The mangled type of every function ferry declares (generated
/// DriverApi.h/RuntimeApi.h), for SigTest to compare with NVIDIA's. Kept in
/// its own translation unit because ferry's and NVIDIA's extern "C"
/// declarations of one name cannot meet in one.
#include "SigEntry.h"

#include "ferry/generated/DriverApi.h"
#include "ferry/generated/RuntimeApi.h"

#include <typeinfo>

#define FERRY_SIG(Symbol, NvidiaType) {#Symbol, typeid(decltype(Symbol)).name()},
#define FERRY_SIG_EGL(Symbol, NvidiaType) FERRY_SIG(Symbol, NvidiaType)
const SigEntry OursSigs[] = {
#include "SigRows.inc"
};
const size_t OursSigCount = sizeof(OursSigs) / sizeof(OursSigs[0]);
