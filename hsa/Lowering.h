/// \file
/// Internal interface between the steps of the AMD compiler (hsa/): the
/// SIMT IR → amdgcn lowering (LowerSimt.cpp, LowerWarp.cpp), the device
/// library linking (DeviceLibs.cpp) and the code object handling
/// (CodeObject.cpp). Not part of the public API (HsaCompiler.h).
#pragma once

#include "hsa/HsaCompiler.h"

#include "llvm/IR/IRBuilder.h"

#include <memory>

namespace llvm {
class CallInst;
class Function;
class Module;
class TargetMachine;
} // namespace llvm

namespace ferry::hsa {

/// Per-module state shared by the lowering steps.
struct LowerContext {
  llvm::Module &M;
  const TargetInfo &Target;
  bool wave64() const { return Target.WavefrontSize == 64; }
};

/// First step: sets the triple and data layout, rewrites the entries to
/// amdgpu_kernel functions whose parameter buffer is one explicit byref
/// kernarg, moves allocas to address space 5, and marks the functions that
/// execute ferry.exit always-inline (the caller then runs the inliner, so
/// exit can become a return in the kernel).
llvm::Error prepareSimtModule(llvm::Module &M, const TargetInfo &T, llvm::TargetMachine &TM,
                              const CompileOptions &Opts);

/// Second step: rewrites a SIMT IR module into amdgcn IR ready for the optimiser: entries
/// become amdgpu_kernel functions whose parameter buffer is an explicit
/// kernarg (byref), allocas move to address space 5, every ferry.* call is
/// replaced, syncscopes are renamed, precise libm intrinsics go to ocml
/// (linked in), and per-function target attributes are set.
llvm::Error lowerSimtModule(llvm::Module &M, const TargetInfo &T, llvm::TargetMachine &TM,
                            const CompileOptions &Opts);

/// Lowers one call of a warp-level ferry intrinsic (shfl, vote, match,
/// redux, activemask, elect, bar.warp.sync). Returns false when the callee is
/// not a warp intrinsic. The call is replaced and erased.
llvm::Expected<bool> lowerWarpCall(LowerContext &C, llvm::CallInst *CI);

/// Lowers one call of a texture or surface intrinsic (ferry.tex.*,
/// tld4.*, txq, suq, suld, sust) to a call of the device-side sampler
/// (hsa/device/TextureSampler.cpp). Returns false when the callee is not
/// one of them; fails with NOT_SUPPORTED when this build has no sampler.
llvm::Expected<bool> lowerTextureCall(LowerContext &C, llvm::CallInst *CI);

/// Links the sampler functions the module calls (a no-op when it calls
/// none). Must run before the ocml mapping: the sampler uses llvm.pow.
llvm::Error linkTextureSampler(llvm::Module &M);

/// Whether this build embeds the sampler bitcode (clang-14 was found).
bool haveTextureSampler();

/// Lane of this thread within its wavefront (0..63 on wave64).
llvm::Value *waveLaneId(LowerContext &C, llvm::IRBuilder<> &B);
/// Lane of this thread within its CUDA warp (0..31).
llvm::Value *warpLaneId(LowerContext &C, llvm::IRBuilder<> &B);

/// Links ocml/ockl from rocm-device-libs when the module calls them, defines
/// the __oclc_* control constants for the target, and internalises the
/// result. A no-op when nothing needs the libraries.
llvm::Error linkDeviceLibs(llvm::Module &M, const TargetInfo &T, const CompileOptions &Opts);

/// Rewrites every bf16 fma (llvm.fma/fmuladd) so that it rounds once, as an
/// H100 does (LowerFloat.cpp).
void exactBf16Fmas(llvm::Module &M);

/// Rewrites the `atomicrmw fadd`s whose native AMD form computes other
/// results than an H100 into compare-and-swap loops (LowerFloat.cpp). Needs
/// the target attributes set (it asks the target how LLVM would expand
/// each atomic).
void exactFloatAtomicAdds(llvm::Module &M, llvm::TargetMachine &TM, unsigned WaveSize);

/// Links an AMDGPU relocatable object into a shared object with lld.
llvm::Expected<std::vector<uint8_t>> linkCodeObject(llvm::ArrayRef<char> Object);

/// Where a code object's kernel is listed: the entries named by
/// KernelListMetadata.
std::vector<llvm::Function *> kernelsOf(llvm::Module &M);

} // namespace ferry::hsa
