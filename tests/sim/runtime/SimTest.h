/// \file
/// Helpers of the HSA runtime stand-in's tests: a scoped hsa_init with a
/// given FERRY_SIM, agent and pool lookup, packet submission following the
/// AQL protocol, and a queue error log the callback fills.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

namespace simtest {

/// hsa_init under FERRY_SIM=Targets (null: unset), hsa_shut_down at scope end.
class Sim {
public:
  explicit Sim(const char *Targets) {
    if (Targets)
      setenv("FERRY_SIM", Targets, 1);
    else
      unsetenv("FERRY_SIM");
    Status = hsa_init();
    if (Status != HSA_STATUS_SUCCESS)
      return;
    hsa_iterate_agents(
        [](hsa_agent_t A, void *Data) {
          auto *Self = static_cast<Sim *>(Data);
          hsa_device_type_t T;
          hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
          (T == HSA_DEVICE_TYPE_GPU ? Self->Gpus : Self->Cpus).push_back(A);
          return HSA_STATUS_SUCCESS;
        },
        this);
  }
  ~Sim() {
    if (Status == HSA_STATUS_SUCCESS)
      hsa_shut_down();
  }
  hsa_status_t Status;
  std::vector<hsa_agent_t> Gpus, Cpus;
};

/// The first pool of A whose global flags include all of Flags (and that
/// allows allocation).
inline hsa_amd_memory_pool_t findPool(hsa_agent_t A, uint32_t Flags) {
  struct Search {
    uint32_t Flags;
    hsa_amd_memory_pool_t Found{0};
  } S{Flags};
  hsa_amd_agent_iterate_memory_pools(
      A,
      [](hsa_amd_memory_pool_t P, void *Data) {
        auto &S = *static_cast<Search *>(Data);
        uint32_t Segment = 0, Flags = 0;
        bool Alloc = false;
        hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &Segment);
        hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags);
        hsa_amd_memory_pool_get_info(P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Alloc);
        if (Segment == HSA_AMD_SEGMENT_GLOBAL && Alloc && (Flags & S.Flags) == S.Flags &&
            !S.Found.handle) {
          S.Found = P;
          return HSA_STATUS_INFO_BREAK;
        }
        return HSA_STATUS_SUCCESS;
      },
      &S);
  return S.Found;
}

inline uint16_t header(hsa_packet_type_t Type, bool Barrier = true) {
  return uint16_t(Type | (Barrier ? 1u << HSA_PACKET_HEADER_BARRIER : 0) |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

/// Writes Packet at the next write index: body first, then the header word
/// with release semantics, then the doorbell (unless Ring is false).
/// Returns the packet's index.
template <typename Packet>
uint64_t submit(hsa_queue_t *Q, const Packet &P, uint16_t Header, uint16_t Setup = 0,
                bool Ring = true) {
  static_assert(sizeof(Packet) == 64);
  uint64_t Index = hsa_queue_add_write_index_screlease(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size) {
  }
  auto *Slot = static_cast<uint8_t *>(Q->base_address) + (Index % Q->size) * 64;
  std::memcpy(Slot + 4, reinterpret_cast<const uint8_t *>(&P) + 4, 60);
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot), uint32_t(Header) | uint32_t(Setup) << 16,
                   __ATOMIC_RELEASE);
  if (Ring)
    hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  return Index;
}

/// What a queue's error callback received.
struct ErrorLog {
  std::mutex M;
  std::condition_variable CV;
  std::vector<hsa_status_t> Errors;
  static void callback(hsa_status_t S, hsa_queue_t *, void *Data) {
    auto *Log = static_cast<ErrorLog *>(Data);
    {
      std::lock_guard<std::mutex> L(Log->M);
      Log->Errors.push_back(S);
    }
    Log->CV.notify_all();
  }
  /// The first error, waiting up to Ms for it; HSA_STATUS_SUCCESS if none.
  hsa_status_t first(int Ms = 5000) {
    std::unique_lock<std::mutex> L(M);
    CV.wait_for(L, std::chrono::milliseconds(Ms), [&] { return !Errors.empty(); });
    return Errors.empty() ? HSA_STATUS_SUCCESS : Errors.front();
  }
};

inline std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(In), {});
}

inline std::string kernelPath(const std::string &Name) {
  return std::string(SIM_KERNEL_DIR) + "/" + Name;
}

} // namespace simtest
