/// \file
/// The SIMT IR → host IR transform (internal to host/jit): strips address
/// spaces by cloning into a fresh module, lays out shared memory, adds the
/// hidden (BlockCtx*, tid) parameters, lowers `ferry.*` calls and builds the
/// block functions of kernels that never yield. HostCompiler.h describes the
/// conventions; this header only exposes the entry point for HostCompiler and
/// tests.
#pragma once

#include "host/jit/KernelAbi.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace ferry::host::detail {

/// The named metadata listing the entries of a SIMT IR module.
inline constexpr const char *KernelListMetadata = "ferry.kernels";

struct LoweredKernel {
  std::string Name;
  std::string Symbol; ///< The JIT symbol: thread function or block function.
  bool UsesFibers = true;
  uint32_t StaticSharedBytes = 0;
  uint32_t ParamBytes = 0;
  uint32_t MaxThreadsPerBlock = 1024;
  /// The warp functions (Vectorize.h), one per WarpLayouts variant; an empty
  /// symbol where the kernel was not vectorised for that layout.
  std::string WarpSymbol[NumWarpLayouts];
  bool WarpYields[NumWarpLayouts] = {};
};

struct LoweredGlobal {
  std::string Name;
  uint64_t Bytes = 0;
};

struct LoweredModule {
  std::unique_ptr<llvm::Module> M; ///< In the input module's context.
  std::vector<LoweredKernel> Kernels;
  std::vector<LoweredGlobal> Globals;
};

/// Lowers Old (which it may modify; it is useless afterwards) into a new
/// module with DL and Triple. Errors are llvm::StringError whose message
/// starts with "unsupported:" for features the host backend lacks.
llvm::Expected<LoweredModule> lowerForHost(llvm::Module &Old, const llvm::DataLayout &DL,
                                           llvm::StringRef Triple, bool AllowFastPath);

} // namespace ferry::host::detail
