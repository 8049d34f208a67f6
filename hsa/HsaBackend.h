/// \file
/// The AMD backend behind libcuda's seams (libcuda/Backend.h):
/// HsaCompilerBackend (SIMT IR → code object v5 via HsaCompiler.h) and
/// HsaDeviceBackend (ROCr agents as devices, AQL queues as streams).
/// Nothing here has run on AMD hardware; see HsaBackend.cpp for the scheme.
#pragma once

#include "hsa/HsaCompiler.h"
#include "libcuda/Backend.h"

#include <functional>
#include <climits>
#include <map>
#include <memory>

namespace ferry::hsa {

/// What the core must know of a kernel that only its PTX (the SIMT IR) says,
/// not the AMDGPU code object: the CUDA parameter buffer (total bytes and
/// each parameter's offset, size and alignment, from !ferry.params; the core
/// packs kernelParams with it, the AMDGPU metadata knows one byref blob) and
/// the bytes of .shared the kernel declares (the group segment also holds
/// ferry's own LDS, e.g. bar.red's counter, which is not the program's and
/// must not count against its 48 KiB).
struct KernelFacts {
  uint32_t ParamBytes = 0;
  std::vector<ferry::KernelParam> Params;
  uint32_t SharedBytes = UINT32_MAX; ///< UINT32_MAX: unknown.
  /// The block size .maxntid/.reqntid allows (product), 0 when unlimited:
  /// what MAX_THREADS_PER_BLOCK reports (the code object says 1024).
  uint32_t MaxThreads = 0;
};
using KernelFactsMap = std::map<std::string, KernelFacts>;

/// The facts of a SIMT IR module's kernels, by kernel name.
KernelFactsMap readKernelFacts(const llvm::Module &SimtIr);

/// Compiles for the AMD targets of a process's GPUs (e.g. "gfx1100", or
/// gfx942 and gfx1100 on a machine with both): one CodeObject carries a code
/// object per target, and each device loads its own.
class HsaCompilerBackend : public ferry::CompilerBackend {
public:
  explicit HsaCompilerBackend(TargetInfo T) { Targets.push_back(std::move(T)); }
  /// Targets: distinct, at least one; the first is the primary (amdgpu()).
  explicit HsaCompilerBackend(std::vector<TargetInfo> Ts) : Targets(std::move(Ts)) {}
  std::string target() const override;
  ferry::Expected<std::unique_ptr<ferry::CodeObject>>
  compile(llvm::Module &SimtIr, const ferry::CompileOptions &Options) override;
  ferry::Expected<std::unique_ptr<ferry::CodeObject>>
  deserialize(std::span<const std::byte> Bytes) override;

private:
  /// One target's code object, through the code cache.
  ferry::Expected<hsa::CodeObject> compileFor(const TargetInfo &T, const std::string &Bits,
                                              const hsa::CompileOptions &Opts,
                                              const KernelFactsMap &Facts);
  std::vector<TargetInfo> Targets;
};

/// A code object as libcuda sees it: the ELF bytes and both views of the
/// kernels (ferry's KernelInfo for the core, with the KernelFacts of the
/// module it was compiled from; the AMDGPU metadata for launch).
class HsaCodeObject : public ferry::CodeObject {
public:
  HsaCodeObject(hsa::CodeObject CO, const KernelFactsMap &Facts);
  /// One code object per target (at least one; the first is the primary).
  HsaCodeObject(std::vector<hsa::CodeObject> Codes, KernelFactsMap Facts);
  /// The code object for Target ("gfx1100"), or null.
  const hsa::CodeObject *amdgpu(const std::string &Target) const;
  /// The core's view of CO's kernels, completed with the SIMT IR's facts.
  std::vector<ferry::KernelInfo> kernelsOf(const hsa::CodeObject &CO) const;
  std::span<const ferry::KernelInfo> kernels() const override { return Kernels; }
  ferry::Expected<std::vector<std::byte>> serialize() const override;
  const hsa::CodeObject &amdgpu() const { return Codes.front(); }

private:
  std::vector<hsa::CodeObject> Codes;
  KernelFactsMap Facts;
  std::vector<ferry::KernelInfo> Kernels; ///< Of the primary code object.
};

/// Creates the HSA device backend: an error when ROCr is absent (logged by
/// the core), an empty device list when ROCr finds no usable GPU.
ferry::Expected<std::unique_ptr<ferry::DeviceBackend>> createHsaDeviceBackend();

/// The explicit + hidden kernarg bytes of one launch, laid out as the
/// kernel's metadata says (code object v5 hidden arguments). GridWorkspace
/// goes to hidden_multigrid_sync_arg (+88), where ferry.grid.workspace reads
/// it: a cooperative launch's barrier memory, 0 for other launches (so
/// cooperative groups' grid.is_valid() is false there, as on NVIDIA).
/// Exposed for tests; Queue launches use it.
std::vector<uint8_t> buildKernarg(const hsa::KernelInfo &K, std::span<const std::byte> Params,
                                  const std::array<uint32_t, 3> &Grid,
                                  const std::array<uint32_t, 3> &Block, uint32_t DynamicLds,
                                  uint64_t QueuePtr, uint64_t GridWorkspace = 0);

/// Bytes of the zeroed grid-barrier workspace a cooperative launch hands its
/// kernel: the host executor's size (16 words); CUDA's cooperative groups
/// use the first two (struct grid_workspace {wsSize, barrier}).
inline constexpr size_t GridWorkspaceBytes = 64;

/// The grid-barrier workspace of one queue's cooperative launches. It is
/// allocated zeroed on first use and then reused: launches of a queue run
/// one after another, and CUDA's grid barrier adds exactly 2^31 to its word
/// per grid.sync, so a kernel that completes leaves it at rest (0 or 2^31,
/// both valid starting points). A kernel that faults may die inside a sync
/// and leave a partial count, so after a device fault the next cooperative
/// launch gets a fresh workspace (the old one may still be read by queued
/// work and is released with the queue). Not thread-safe: the queue calls
/// it under its lock.
class GridWorkspacePool {
public:
  struct Ops {
    /// GridWorkspaceBytes of zeroed device memory.
    std::function<ferry::Expected<void *>()> Allocate;
    std::function<void(void *)> Release;
  };
  explicit GridWorkspacePool(Ops O) : O(std::move(O)) {}
  ~GridWorkspacePool();
  GridWorkspacePool(const GridWorkspacePool &) = delete;
  GridWorkspacePool &operator=(const GridWorkspacePool &) = delete;
  /// The workspace for the next cooperative launch; DeviceFaults is how many
  /// faults the device has had so far.
  ferry::Expected<void *> get(uint64_t DeviceFaults);

private:
  Ops O;
  void *Current = nullptr;
  uint64_t Faults = 0;
  std::vector<void *> Retired;
};

/// How many workgroups of kernel K with BlockThreads work-items and
/// DynamicLds bytes of dynamic LDS one compute unit (as ROCr counts them)
/// holds at once, from the target's resources: wave slots per SIMD limited
/// by VGPR (+AGPR) allocation and, on gfx9, SGPRs; SIMDs per CU (4 on gfx9,
/// 2 on gfx10+ where a WGP is two CUs); 64 KiB of LDS per CU; 16 barrier
/// slots for multi-wave workgroups (LLVM's getMaxWorkGroupsPerCU).
/// MaxWavesPerCu, when ROCr reports it, caps the wave slots. 0: such a
/// workgroup cannot run at all.
uint32_t residentWorkgroupsPerCu(const hsa::KernelInfo &K, const TargetInfo &T,
                                 uint32_t BlockThreads, uint32_t DynamicLds,
                                 unsigned MaxWavesPerCu = 0);

/// NVIDIA's rule for cuLaunchCooperativeKernel: every block of the grid
/// must be resident at once, else CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE.
ferry::Status checkCooperativeFit(const hsa::KernelInfo &K, const TargetInfo &T,
                                  unsigned ComputeUnits, unsigned MaxWavesPerCu,
                                  const std::array<uint32_t, 3> &Grid,
                                  const std::array<uint32_t, 3> &Block, uint32_t DynamicLds);

} // namespace ferry::hsa
