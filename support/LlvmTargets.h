//===- LlvmTargets.h - One lock for registering LLVM targets ------*- C++ -*-===//
/// \file
/// LLVM's target registry is a plain linked list: registering the X86
/// target (the host compiler's first compile) and the AMDGPU target (the
/// ROCm backend's) on two threads at once, as two contexts' module loads
/// may, would race. Both registrations hold this lock.
#pragma once

#include <mutex>

namespace ferry {

inline std::mutex &llvmTargetRegistryMutex() {
  static std::mutex M;
  return M;
}

} // namespace ferry
