/// \file
/// ROCr, loaded at run time: finds `libhsa-runtime64.so.1` (or the file named
/// by FERRY_HSA_LIBRARY), resolves the entry points, initialises HSA and
/// describes each GPU agent with the memory pools ferry allocates from.
/// Without the library, or with the library but no usable GPU (no /dev/kfd,
/// or only ISAs we cannot target), it reports zero agents and says why in the
/// `hsa` log; it never aborts the process.
///
/// Threading: HsaRuntime::get() is thread-safe and initialises once; the
/// returned object is immutable afterwards and lives until process exit
/// (hsa_shut_down is not called at exit: other exit-time code may still be
/// draining queues).
#pragma once

#include "hsa/HsaApi.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ferry::hsa {

/// One GPU agent and what ferry needs to drive it.
struct AgentDescription {
  api::hsa_agent_t Agent{};
  std::string Name;        ///< Marketing name, e.g. "AMD Instinct MI210".
  std::string Isa;         ///< Full ISA name, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-".
  std::string Processor;   ///< "gfx90a".
  unsigned ComputeUnits = 0;
  unsigned WavefrontSize = 0;
  unsigned MaxWavesPerCu = 0;
  unsigned ClockMHz = 0;
  unsigned MemoryClockMHz = 0;
  unsigned MemoryBusWidth = 0;
  unsigned WorkgroupMaxSize = 0;
  unsigned QueueMaxSize = 0;
  uint32_t PciDomain = 0, PciBdf = 0;
  std::array<uint8_t, 16> Uuid{};
  uint64_t DeviceMemory = 0;                 ///< Size of the coarse-grained pool.
  api::hsa_amd_memory_pool_t DevicePool{};   ///< GPU global, coarse-grained.
  api::hsa_amd_memory_pool_t KernargPool{};  ///< Host, kernarg-init, fine-grained.
  api::hsa_amd_memory_pool_t HostPool{};     ///< Host, fine-grained (pinned/managed).
  api::hsa_agent_t HostAgent{};              ///< The CPU agent owning HostPool.
  /// The CPU may load and store DevicePool's memory: its access to the pool
  /// is not NEVER_ALLOWED (a large BAR or an APU; HIP decides isLargeBar the
  /// same way). False on a discrete GPU whose VRAM the CPU cannot reach.
  bool HostAccess = false;
};

class HsaRuntime {
public:
  /// The process-wide runtime, initialised on first call.
  static const HsaRuntime &get();

  /// Loads and initialises from an explicit library path (tests). Each call
  /// makes a new object; the library stays loaded.
  static HsaRuntime open(const std::string &LibraryPath);

  /// True when the library loaded and hsa_init succeeded.
  bool ready() const { return Ready; }
  /// Why there are no agents, for logs and `ferry info` (empty when ready).
  const std::string &whyUnavailable() const { return Why; }
  const api::Functions &fn() const { return Fn; }
  const std::vector<AgentDescription> &agents() const { return Agents; }
  /// Nanoseconds per tick of signal/profiling timestamps.
  double nsPerTick() const { return NsPerTick; }
  /// Human text for an HSA status code.
  std::string statusText(api::hsa_status_t S) const;

private:
  HsaRuntime() = default;
  void init(const std::string &LibraryPath);
  void discover();

  bool Ready = false;
  std::string Why;
  api::Functions Fn;
  std::vector<AgentDescription> Agents;
  double NsPerTick = 1.0;
};

/// The library path: $FERRY_HSA_LIBRARY, else "libhsa-runtime64.so.1".
std::string hsaLibraryPath();

} // namespace ferry::hsa
