/// \file
/// Registers the HSA device backend with libcuda's core (Backend.h). Kept
/// apart from HsaBackend.cpp so the backend can be tested without libcuda;
/// libcuda.so must link this object whole (a static registration object in
/// an archive is otherwise dropped).
#include "hsa/HsaBackend.h"

namespace {
// Preference 20: with FERRY_BACKEND=auto, AMD GPUs win over the host CPU
// when ROCr finds any.
ferry::BackendRegistration RegisterHsa("hsa", 20, &ferry::hsa::createHsaDeviceBackend);
} // namespace
