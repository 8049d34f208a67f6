/// \file
/// The host compiler: SIMT IR (one CUDA thread's view, see
/// ptx/lower/SimtIntrinsics.def) → native x86-64 code through LLVM ORC.
///
/// Input conventions (shared with the PTX lowering and the HSA backend):
/// - Kernel entries are the functions listed in the named metadata
///   `!ferry.kernels`, one node per entry whose first operand is the
///   function: `!ferry.kernels = !{!0}` `!0 = !{ptr @vecadd}`.
/// - An entry takes exactly one argument, `ptr noalias %params`; its size is
///   read from `dereferenceable(N)` on that argument when present, else
///   inferred when every use is a load at a constant offset. When the size
///   is known the compiled code assumes the buffer is 16-byte aligned (the
///   executor copies a misaligned one).
/// - Address spaces 1 (global), 3 (shared), 4 (const), 5 (local) and 0
///   (generic); atomics carry syncscope "block", "cluster", "device" or none.
///
/// What the compiler does (LowerHost.cpp): every address space becomes 0
/// (all device memory is host memory); each addrspace(3) global becomes an
/// offset into the block's shared arena (laid out by alignment; dynamic shared
/// memory starts after them, 16-byte aligned); every defined function gains
/// hidden trailing parameters (BlockCtx *, tid.x, tid.y, tid.z); `ferry.*`
/// calls become loads from BlockCtx or calls into the executor runtime
/// (KernelAbi.h). Each kernel is also vectorised where possible into warp
/// functions (Vectorize.h), one per supported thread layout. A kernel that can never yield (no barrier, warp collective,
/// grid sync, nanosleep or exit from a callee) also gets a block function
/// that loops over the block's threads, so LLVM vectorises across threads.
/// The result is optimised at O3 for the host CPU (detectHost: AVX2/AVX-512
/// as available) and JIT-linked. FERRY_DUMP=simt,ir,asm writes the input
/// SIMT IR (<name>.simt.ll), the optimised host IR (<name>.host.ll) and the
/// assembly (<name>.host.s) under FERRY_DUMP_DIR; <name> is
/// HostCompileOptions::DumpName or the first kernel's name.
///
/// Threading: a HostCompiler may be used from any thread (compiles are
/// serialised). A CompiledModule is immutable after creation and may be read
/// from any thread; it owns its code, which is freed with it.
#pragma once

#include "host/jit/KernelAbi.h"
#include "support/Expected.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class LLVMContext;
class TargetMachine;
class Module;
} // namespace llvm

namespace ferry::host {

class CompiledModule;

/// One compiled kernel.
struct HostKernel {
  std::string Name;
  uint32_t StaticSharedBytes = 0; ///< Static shared arena (dynamic starts at
                                  ///< alignTo(StaticSharedBytes, 16)).
  uint32_t ParamBytes = 0; ///< dereferenceable(N) on %params, else the extent
                           ///< the kernel reads; 0 = unknown.
  uint32_t MaxThreadsPerBlock = 1024;
  /// True when the kernel needs one fiber per thread (barriers, warp ops...);
  /// then Thread is set, otherwise Block is set.
  bool UsesFibers = true;
  ThreadFn Thread = nullptr;
  BlockFn Block = nullptr;
  /// The vectorised warp functions, where the compiler made them, for the
  /// variants of WarpLayouts (KernelAbi.h); Yields when one calls
  /// barriers (then each warp runs on a fiber).
  struct WarpEntry {
    WarpFn Fn = nullptr;
    uint32_t X = 0;
    uint32_t Lanes = 32;
    bool Yields = false;
  };
  WarpEntry Warps[NumWarpLayouts];
  /// The module the kernel belongs to: a device-side launch resolves the
  /// kernels it names there (CompiledModule::kernelByHandle).
  const CompiledModule *Module = nullptr;
};

/// A runtime entry point the compiled code may call (KernelAbi.h's
/// FERRY_RUNTIME rows); the executor supplies the addresses.
struct RuntimeSymbol {
  const char *Name;
  void *Address;
};

struct HostCompileOptions {
  unsigned OptLevel = 3;
  /// Allow the loop-over-threads block function for kernels that never yield.
  bool AllowFastPath = true;
  /// Label used in dump file names (defaults to the first kernel's name).
  std::string DumpName;
  /// Variables the input declares resolve to this module's definitions
  /// (lazy loading's variables piece, ptx/lower/Pieces.h); the result
  /// keeps it alive.
  std::shared_ptr<const CompiledModule> LinkWith;
};

class HostCompiler;

/// The code of one SIMT IR module, ready to launch.
class CompiledModule {
public:
  ~CompiledModule();
  std::span<const HostKernel> kernels() const { return Kernels; }
  const HostKernel *kernel(std::string_view Name) const;
  /// The kernel whose launch handle (the address of the module variable
  /// "ferry.entry.<name>", ptx/lower/DeviceRuntime.h) is Handle; null when
  /// Handle is no kernel of this module.
  const HostKernel *kernelByHandle(uint64_t Handle) const;

  struct Global {
    void *Address = nullptr;
    size_t Bytes = 0;
  };
  /// A module-scope variable (addrspace 1 or 4, i.e. .global/.const) by its
  /// IR name; nullopt when absent. The storage lives as long as the module
  /// and starts with the variable's initializer.
  std::optional<Global> global(std::string_view Name) const;
  std::span<const std::pair<std::string, Global>> globals() const { return Globals; }

  /// The module as bytes that HostCompiler::load turns back into an equal
  /// module (in this or a later process): the relocatable object the JIT
  /// linked and the kernel and variable tables.
  const std::string &serialized() const { return Serialized; }

private:
  friend class HostCompiler;
  struct Impl;
  std::unique_ptr<Impl> P;
  std::vector<HostKernel> Kernels;
  std::vector<std::pair<std::string, Global>> Globals;
  std::string Serialized;
};

class HostCompiler {
public:
  /// Builds the JIT for this machine's CPU. Runtime lists the executor's
  /// entry points (HostExecutor::runtimeSymbols()); a symbol the code needs
  /// but that is neither there nor in the process is a compile error.
  static Expected<std::unique_ptr<HostCompiler>> create(std::vector<RuntimeSymbol> Runtime);
  ~HostCompiler();

  /// Compiles a SIMT IR module. Takes ownership of the module and of the
  /// context it lives in (nothing else may use that context afterwards).
  /// Bad input gives CUDA_ERROR_INVALID_PTX, unsupported features
  /// CUDA_ERROR_NOT_SUPPORTED, each with a message naming the culprit.
  Expected<std::unique_ptr<CompiledModule>>
  compile(std::unique_ptr<llvm::LLVMContext> Ctx, std::unique_ptr<llvm::Module> M,
          const HostCompileOptions &Opts = {});

  /// The same from LLVM IR text or bitcode held in memory.
  Expected<std::unique_ptr<CompiledModule>> compileIR(std::string_view IROrBitcode,
                                                      std::string_view Name,
                                                      const HostCompileOptions &Opts = {});

  /// Links a module CompiledModule::serialized() produced (by a compiler
  /// for the same CPU and the same ferry build; the code cache's key ensures
  /// that). Malformed bytes give CUDA_ERROR_INVALID_IMAGE.
  /// LinkWith: as HostCompileOptions::LinkWith, for a module compiled with it.
  Expected<std::unique_ptr<CompiledModule>> load(std::string_view Bytes,
                                                 std::shared_ptr<const CompiledModule> LinkWith = nullptr);

  /// The CPU the code is generated for (e.g. "znver4") and its features.
  std::string targetDescription() const;

private:
  friend class CompiledModule;
  HostCompiler();
  struct ObjectTables;
  /// Links relocatable objects (the partitions of one module) with their
  /// kernel/variable tables into a new
  /// CompiledModule (and records its serialized form).
  Expected<std::unique_ptr<CompiledModule>> link(const ObjectTables &T, const std::vector<std::string> &Objects,
                                                 std::shared_ptr<const CompiledModule> LinkWith);
  /// The optimiser's and code generator's target machine, made on first use
  /// (loading cached objects needs none).
  Expected<llvm::TargetMachine *> targetMachine();
  struct Impl;
  std::shared_ptr<Impl> P;
};

} // namespace ferry::host
