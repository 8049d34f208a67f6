/// \file
/// Loading ROCr with dlopen and describing its GPU agents (HsaRuntime.h).
#include "hsa/HsaRuntime.h"

#include "hsa/HsaCompiler.h"
#include "support/Log.h"

#include "llvm/Support/Error.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

namespace ferry::hsa {

using namespace api;

std::string hsaLibraryPath() {
  // TODO(settings): FERRY_HSA_LIBRARY belongs in support/Settings.def.
  if (const char *Env = std::getenv("FERRY_HSA_LIBRARY"); Env && *Env)
    return Env;
  return "libhsa-runtime64.so.1";
}

const HsaRuntime &HsaRuntime::get() {
  static HsaRuntime *R = [] {
    auto *Rt = new HsaRuntime(); // Leaked: ROCr must outlive static destructors.
    Rt->init(hsaLibraryPath());
    return Rt;
  }();
  return *R;
}

HsaRuntime HsaRuntime::open(const std::string &LibraryPath) {
  HsaRuntime R;
  R.init(LibraryPath);
  return R;
}

std::string HsaRuntime::statusText(hsa_status_t S) const {
  const char *Text = nullptr;
  if (Fn.hsa_status_string && Fn.hsa_status_string(S, &Text) == HSA_STATUS_SUCCESS && Text)
    return Text;
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "HSA status 0x%x", unsigned(S));
  return Buf;
}

void HsaRuntime::init(const std::string &LibraryPath) {
  // RTLD_LOCAL: ROCr's own LLVM-free symbols stay out of the global scope.
  void *Lib = dlopen(LibraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char *E = dlerror();
    Why = "ROCr not found (" + LibraryPath + ": " + (E ? E : "dlopen failed") +
          "); no AMD GPUs (set FERRY_HSA_LIBRARY to its path if installed elsewhere)";
    log::hsa().info("{}", Why);
    return;
  }
  std::string Missing;
  unsigned NumMissing = 0;
#define FERRY_HSA_RESOLVE(Name, Ret, Params)                                                     \
  Fn.Name = reinterpret_cast<decltype(Fn.Name)>(dlsym(Lib, #Name));                             \
  if (!Fn.Name && ++NumMissing <= 3)                                                             \
    Missing += Missing.empty() ? #Name : ", " #Name;
  FERRY_HSA_FUNCTIONS(FERRY_HSA_RESOLVE)
#undef FERRY_HSA_RESOLVE
  if (!Missing.empty()) {
    if (NumMissing > 3)
      Missing += " and " + std::to_string(NumMissing - 3) + " more";
    Why = LibraryPath + " lacks HSA entry points (" + Missing + "); no AMD GPUs";
    log::hsa().warn("{}", Why);
    Fn = Functions();
    return;
  }
  if (hsa_status_t S = Fn.hsa_init(); S != HSA_STATUS_SUCCESS) {
    // ROCr 5.x answers OUT_OF_RESOURCES when /dev/kfd is missing.
    Why = "hsa_init failed: " + statusText(S) +
          (S == HSA_STATUS_ERROR_OUT_OF_RESOURCES ? " (no /dev/kfd: no AMD GPU driver)" : "") +
          "; no AMD GPUs";
    log::hsa().info("{}", Why);
    return;
  }
  Ready = true;
  uint64_t Freq = 0;
  if (Fn.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Freq) == HSA_STATUS_SUCCESS &&
      Freq)
    NsPerTick = 1e9 / double(Freq);
  discover();
  if (Agents.empty()) {
    Why = "ROCr found no GPU agent ferry can use; no AMD GPUs";
    log::hsa().info("{}", Why);
  }
}

namespace {
struct Discovery {
  const HsaRuntime *Rt;
  const Functions *Fn;
  std::vector<hsa_agent_t> Gpus;
  std::vector<hsa_agent_t> Cpus;
};

template <typename T> T agentInfo(const Functions &Fn, hsa_agent_t A, int Attr) {
  T Value{};
  if (Fn.hsa_agent_get_info(A, Attr, &Value) != HSA_STATUS_SUCCESS)
    return T{};
  return Value;
}

struct PoolSearch {
  const Functions *Fn;
  bool WantDevice; ///< true: coarse-grained global; false: host pools.
  hsa_amd_memory_pool_t Device{}, Kernarg{}, Fine{};
  uint64_t DeviceSize = 0;
};
} // namespace

static hsa_status_t visitPool(hsa_amd_memory_pool_t P, void *Data) {
  auto &S = *static_cast<PoolSearch *>(Data);
  uint32_t Segment = ~0u, Flags = 0;
  bool Alloc = false;
  size_t Size = 0;
  if (S.Fn->hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &Segment) ||
      Segment != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  if (S.Fn->hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                         &Alloc) ||
      !Alloc)
    return HSA_STATUS_SUCCESS;
  S.Fn->hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
  S.Fn->hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SIZE, &Size);
  if (S.WantDevice) {
    if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !S.Device.handle) {
      S.Device = P;
      S.DeviceSize = Size;
    }
  } else if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) {
    if ((Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !S.Kernarg.handle)
      S.Kernarg = P;
    else if (!(Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !S.Fine.handle)
      S.Fine = P;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t visitAgent(hsa_agent_t A, void *Data) {
  auto &D = *static_cast<Discovery *>(Data);
  uint32_t Type = agentInfo<uint32_t>(*D.Fn, A, HSA_AGENT_INFO_DEVICE);
  (Type == HSA_DEVICE_TYPE_GPU ? D.Gpus : D.Cpus).push_back(A);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t visitIsa(hsa_isa_t Isa, void *Data) {
  auto &Out = *static_cast<std::pair<const Functions *, std::string> *>(Data);
  uint32_t Len = 0;
  if (Out.first->hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Len) || Len == 0 ||
      Len > 256)
    return HSA_STATUS_SUCCESS;
  std::string Name(Len, '\0');
  if (Out.first->hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, Name.data()))
    return HSA_STATUS_SUCCESS;
  Name.resize(std::strlen(Name.c_str()));
  Out.second = Name;
  return HSA_STATUS_INFO_BREAK; // The first ISA is the agent's native one.
}

void HsaRuntime::discover() {
  Discovery D{this, &Fn, {}, {}};
  if (hsa_status_t S = Fn.hsa_iterate_agents(visitAgent, &D); S != HSA_STATUS_SUCCESS) {
    log::hsa().warn("hsa_iterate_agents: {}", statusText(S));
    return;
  }
  // Host pools come from the first CPU agent that has them.
  PoolSearch Host{&Fn, false};
  hsa_agent_t HostAgent{};
  for (hsa_agent_t C : D.Cpus) {
    PoolSearch S{&Fn, false};
    Fn.hsa_amd_agent_iterate_memory_pools(C, visitPool, &S);
    if (S.Kernarg.handle || S.Fine.handle) {
      Host = S;
      HostAgent = C;
      break;
    }
  }
  for (hsa_agent_t G : D.Gpus) {
    AgentDescription A;
    A.Agent = G;
    A.HostAgent = HostAgent;
    char Name[64] = {};
    Fn.hsa_agent_get_info(G, HSA_AGENT_INFO_NAME, Name);
    char Product[64] = {};
    Fn.hsa_agent_get_info(G, HSA_AMD_AGENT_INFO_PRODUCT_NAME, Product);
    Name[63] = Product[63] = 0;
    A.Processor = Name;
    A.Name = *Product ? Product : Name;
    std::pair<const Functions *, std::string> Isa{&Fn, {}};
    Fn.hsa_agent_iterate_isas(G, visitIsa, &Isa);
    A.Isa = Isa.second.empty() ? "amdgcn-amd-amdhsa--" + A.Processor : Isa.second;
    A.ComputeUnits = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT);
    A.WavefrontSize = agentInfo<uint32_t>(Fn, G, HSA_AGENT_INFO_WAVEFRONT_SIZE);
    A.MaxWavesPerCu = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU);
    A.ClockMHz = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY);
    A.MemoryClockMHz = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY);
    A.MemoryBusWidth = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_MEMORY_WIDTH);
    A.WorkgroupMaxSize = agentInfo<uint32_t>(Fn, G, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE);
    A.QueueMaxSize = agentInfo<uint32_t>(Fn, G, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
    A.PciDomain = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_DOMAIN);
    A.PciBdf = agentInfo<uint32_t>(Fn, G, HSA_AMD_AGENT_INFO_BDFID);
    char Uuid[32] = {}; // "GPU-" followed by 16 hex digits.
    Fn.hsa_agent_get_info(G, HSA_AMD_AGENT_INFO_UUID, Uuid);
    for (size_t I = 0; I < 16 && Uuid[I]; ++I)
      A.Uuid[I] = uint8_t(Uuid[I]);
    PoolSearch Dev{&Fn, true};
    Fn.hsa_amd_agent_iterate_memory_pools(G, visitPool, &Dev);
    A.DevicePool = Dev.Device;
    A.DeviceMemory = Dev.DeviceSize;
    if (HostAgent.handle && A.DevicePool.handle) {
      int Access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
      A.HostAccess = Fn.hsa_amd_agent_memory_pool_get_info(HostAgent, A.DevicePool,
                                                           HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                                           &Access) == HSA_STATUS_SUCCESS &&
                     Access != HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
    }
    A.KernargPool = Host.Kernarg;
    A.HostPool = Host.Fine.handle ? Host.Fine : Host.Kernarg;

    auto Target = resolveTarget(A.Isa);
    if (!Target) {
      log::hsa().warn("skipping GPU {} ({}): {}", A.Name, A.Isa,
                      llvm::toString(Target.takeError()));
      continue;
    }
    if (!A.DevicePool.handle || !A.KernargPool.handle || !A.HostPool.handle) {
      log::hsa().warn("skipping GPU {} ({}): missing device, kernarg or host memory pool",
                      A.Name, A.Isa);
      continue;
    }
    log::hsa().info("GPU {}: {} ({}), {} CUs, wave{}, {} MiB, {}", Agents.size(), A.Name, A.Isa,
                    A.ComputeUnits, A.WavefrontSize, A.DeviceMemory >> 20,
                    A.HostAccess ? "host may access its memory"
                                 : "its memory is not host-accessible");
    Agents.push_back(std::move(A));
  }
}

} // namespace ferry::hsa
