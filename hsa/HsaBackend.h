/// \file
/// The AMD backend behind libcuda's seams (libcuda/Backend.h):
/// HsaCompilerBackend (SIMT IR → code object v5 via HsaCompiler.h) and
/// HsaDeviceBackend (ROCr agents as devices, AQL queues as streams).
/// Nothing here has run on AMD hardware; see HsaBackend.cpp for the scheme.
#pragma once

#include "hsa/HsaCompiler.h"
#include "libcuda/Backend.h"

#include <memory>

namespace ferry::hsa {

/// Compiles for one AMD target (e.g. "gfx1100").
class HsaCompilerBackend : public ferry::CompilerBackend {
public:
  explicit HsaCompilerBackend(TargetInfo T) : Target(std::move(T)) {}
  std::string target() const override { return "amdgcn-" + Target.Name; }
  ferry::Expected<std::unique_ptr<ferry::CodeObject>>
  compile(llvm::Module &SimtIr, const ferry::CompileOptions &Options) override;
  ferry::Expected<std::unique_ptr<ferry::CodeObject>>
  deserialize(std::span<const std::byte> Bytes) override;

private:
  TargetInfo Target;
};

/// A code object as libcuda sees it: the ELF bytes and both views of the
/// kernels (ferry's KernelInfo for the core, the AMDGPU metadata for launch).
class HsaCodeObject : public ferry::CodeObject {
public:
  explicit HsaCodeObject(hsa::CodeObject CO);
  std::span<const ferry::KernelInfo> kernels() const override { return Kernels; }
  ferry::Expected<std::vector<std::byte>> serialize() const override;
  const hsa::CodeObject &amdgpu() const { return Code; }

private:
  hsa::CodeObject Code;
  std::vector<ferry::KernelInfo> Kernels;
};

/// Creates the HSA device backend: an error when ROCr is absent (logged by
/// the core), an empty device list when ROCr finds no usable GPU.
ferry::Expected<std::unique_ptr<ferry::DeviceBackend>> createHsaDeviceBackend();

/// The explicit + hidden kernarg bytes of one launch, laid out as the
/// kernel's metadata says (code object v5 hidden arguments). Exposed for
/// tests; Queue launches use it.
std::vector<uint8_t> buildKernarg(const hsa::KernelInfo &K, std::span<const std::byte> Params,
                                  const std::array<uint32_t, 3> &Grid,
                                  const std::array<uint32_t, 3> &Block, uint32_t DynamicLds,
                                  uint64_t QueuePtr);

} // namespace ferry::hsa
