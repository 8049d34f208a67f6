/// \file
/// The AMD compiler backend's public API: SIMT IR (one CUDA thread's view,
/// ptx/lower/SimtIntrinsics.def) → an AMDGPU code object v5 (a linked ELF
/// shared object that ROCr loads), plus the kernel facts read back from the
/// object's metadata note and an MC disassembler for `ferry inspect --isa`.
///
/// Everything runs in-process: LLVM 19's AMDGPU backend and lld's ELF
/// driver. Compiles of different modules may run on different threads: each
/// compile parses the input into its own LLVMContext (the lld step is
/// serialised internally because lld keeps global state).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace ferry::hsa {

/// A GPU the compiler can target. Warps are 32 lanes everywhere: on wave64
/// targets each CUDA warp is half a wavefront.
struct TargetInfo {
  std::string Name;       ///< LLVM processor name, e.g. "gfx1100".
  unsigned IsaVersion = 0; ///< __oclc_ISA_version, e.g. 11000.
  unsigned WavefrontSize = 64; ///< 32 (RDNA) or 64 (CDNA).
  std::string Features;   ///< Extra target features ("+wavefrontsize32").
};

/// The targets built and checked in CI: gfx90a, gfx942 (wave64), gfx1030,
/// gfx1100, gfx1201 (wave32). Other LLVM 19 gfx names are accepted too.
llvm::ArrayRef<TargetInfo> checkedTargets();

/// Accepts "gfx1100", "gfx90a:xnack-" or a full ROCr ISA name such as
/// "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"; the feature suffixes are
/// ignored (code is built xnack/sramecc "any"). Fails for non-gfx names.
llvm::Expected<TargetInfo> resolveTarget(llvm::StringRef Name);

/// One kernel argument as the metadata note lists it.
struct KernelArgInfo {
  std::string ValueKind; ///< "by_value", "hidden_block_count_x", ...
  uint32_t Offset = 0;
  uint32_t Size = 0;
};

/// Facts about one kernel of a code object (from NT_AMDGPU_METADATA).
struct KernelInfo {
  std::string Name;            ///< The entry's name (mangled, as in PTX).
  std::string Symbol;          ///< Kernel descriptor symbol, Name + ".kd".
  uint32_t KernargSize = 0;    ///< Whole kernarg segment, hidden args included.
  uint32_t KernargAlign = 0;
  uint32_t ExplicitArgSize = 0; ///< The CUDA parameter buffer's size.
  uint32_t GroupSegmentSize = 0;   ///< Static LDS (+ dynamic-LDS padding).
  uint32_t PrivateSegmentSize = 0; ///< Per work-item scratch, fixed part.
  uint32_t WavefrontSize = 0;
  uint32_t SgprCount = 0;
  uint32_t VgprCount = 0;
  uint32_t AgprCount = 0;          ///< Accumulation registers (gfx90a/gfx94x), 0 elsewhere.
  uint32_t MaxFlatWorkgroupSize = 0;
  bool UsesDynamicStack = false;
  std::vector<KernelArgInfo> Args;
};

/// A linked code object and what its metadata says.
struct CodeObject {
  std::vector<uint8_t> Bytes; ///< ELF64 DYN, e_machine EM_AMDGPU, ABI v5.
  std::string Target;         ///< e.g. "gfx1100".
  std::vector<KernelInfo> Kernels;
};

struct CompileOptions {
  /// rocm-device-libs bitcode directory; empty: $FERRY_HSA_DEVICE_LIBS, else
  /// Debian's /usr/lib/x86_64-linux-gnu/amdgcn/bitcode.
  std::string DeviceLibsDir;
  /// Flush f32 denormals in every function that does not say otherwise.
  bool FlushDenormals = false;
  /// 0..3; the AMDGPU attributor (which trims hidden kernel arguments) runs
  /// at 1 and above.
  unsigned OptLevel = 3;
  /// Only these entries (by name); the others, and whatever only they
  /// reach, are dropped before lowering. Empty: every entry.
  std::vector<std::string> Kernels;
};

/// Compiles a SIMT IR module. The input is not modified (it is serialised
/// and re-read in a private context). Kernels are the functions named in
/// `!ferry.kernels`.
llvm::Expected<CodeObject> compileToCodeObject(const llvm::Module &M, llvm::StringRef Target,
                                               const CompileOptions &Opts = {});

/// The same from LLVM bitcode or textual IR held in memory.
llvm::Expected<CodeObject> compileToCodeObject(llvm::StringRef IROrBitcode,
                                               llvm::StringRef Target,
                                               const CompileOptions &Opts = {});

/// Why one entry could not be compiled for a target.
struct KernelCompileError {
  std::string Kernel;
  std::string Message;
};

/// Compiles every entry that can be compiled: when the whole module fails,
/// each entry is compiled alone to find the ones at fault, which are left
/// out (and listed in Failed) while the rest make the code object. Fails
/// only when no entry compiles.
llvm::Expected<CodeObject> compileEachKernel(llvm::StringRef IROrBitcode, llvm::StringRef Target,
                                             const CompileOptions &Opts,
                                             std::vector<KernelCompileError> &Failed);

/// The names of the entries listed in a SIMT IR module's !ferry.kernels.
llvm::Expected<std::vector<std::string>> entryNames(llvm::StringRef IROrBitcode);

/// Stages of compileToCodeObject for inspection and tests.
enum class Stage {
  Lowered,  ///< After the ferry → amdgcn lowering, before optimisation (IR).
  Optimized, ///< After the O3 + AMDGPU attributor pipeline (IR).
  Assembly,  ///< AMDGPU assembly.
};
llvm::Expected<std::string> compileToText(llvm::StringRef IROrBitcode, llvm::StringRef Target,
                                          Stage S, const CompileOptions &Opts = {});

/// Reads every kernel's facts from a code object's NT_AMDGPU_METADATA note.
/// Fails (never over-reads) on anything that is not a well-formed AMDGPU ELF.
llvm::Expected<std::vector<KernelInfo>> readKernelInfo(llvm::ArrayRef<uint8_t> Elf);

/// The processor a code object was built for, from its e_flags ("gfx942").
llvm::Expected<std::string> codeObjectTarget(llvm::ArrayRef<uint8_t> Elf);

/// Disassembles every executable section of a code object with the LLVM MC
/// disassembler (the processor is read from e_flags): one instruction a line,
/// symbol labels included.
llvm::Expected<std::string> disassemble(llvm::ArrayRef<uint8_t> Elf);

/// The named metadata listing the entries of a SIMT IR module. Kept in one
/// place so the convention can change with the PTX lowering.
inline constexpr const char *KernelListMetadata = "ferry.kernels";

/// Device-side assert (__assertfail) on the AMD backend: a module whose
/// kernels can fail an assert defines this global, 8 little-endian 64-bit
/// words: [0] state (0 clear, 1 being written, 2 complete), [1] message,
/// [2] file, [3] function (device addresses of C strings), [4] line,
/// [5] block x | y << 32, [6] block z | thread x << 32, [7] thread y | z << 32.
/// The first failing thread writes it and traps; the device reads it after
/// the queue error and reports CUDA_ERROR_ASSERT with CUDA's message.
inline constexpr const char *AssertSymbol = "__ferry_assert";
inline constexpr unsigned AssertRecordWords = 8;

} // namespace ferry::hsa
