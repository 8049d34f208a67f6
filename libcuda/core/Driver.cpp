/// \file
/// Driver initialisation: the backend registry, choosing backends
/// (FERRY_BACKEND), filtering and ordering devices (CUDA_VISIBLE_DEVICES),
/// and making each device's primary context object.
#include "libcuda/core/Core.h"

#include "support/Log.h"
#include "support/Settings.h"

#include <algorithm>
#include <cstdio>

namespace ferry {

static std::vector<RegisteredBackend> &registry() {
  static std::vector<RegisteredBackend> R;
  return R;
}

BackendRegistration::BackendRegistration(const char *Name, int Preference,
                                         DeviceBackendFactory Factory) {
  registry().push_back({Name, Preference, Factory});
}

std::span<const RegisteredBackend> registeredBackends() { return registry(); }

} // namespace ferry

namespace ferry::core {

namespace {
struct DriverState {
  std::mutex InitM;
  std::atomic<bool> Done{false};
  CUresult InitResult = CUDA_ERROR_NOT_INITIALIZED;
  std::vector<std::unique_ptr<DeviceBackend>> Backends;
  std::vector<std::unique_ptr<DeviceEntry>> Devices;
};
// Leaked on purpose: cudart's atexit handlers call into the driver after
// static destructors may have run.
DriverState &state() {
  static DriverState *S = new DriverState();
  return *S;
}
} // namespace

static std::string uuidString(const std::array<uint8_t, 16> &U) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", U[0],
                U[1], U[2], U[3], U[4], U[5], U[6], U[7], U[8], U[9], U[10], U[11], U[12], U[13],
                U[14], U[15]);
  return Buf;
}

/// Applies CUDA_VISIBLE_DEVICES to the found devices. As on NVIDIA, the list
/// is read left to right and stops at the first entry that names no device;
/// entries are indices or (prefixes of) "GPU-…" UUIDs.
static std::vector<std::pair<ferry::Device *, DeviceBackend *>>
applyVisible(const std::vector<std::pair<ferry::Device *, DeviceBackend *>> &All,
             const std::string &Spec) {
  if (Spec.empty())
    return All;
  std::vector<std::pair<ferry::Device *, DeviceBackend *>> Out;
  size_t Pos = 0;
  while (Pos <= Spec.size()) {
    size_t Comma = Spec.find(',', Pos);
    std::string Item = Spec.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    Pos = Comma == std::string::npos ? Spec.size() + 1 : Comma + 1;
    while (!Item.empty() && Item.front() == ' ')
      Item.erase(Item.begin());
    while (!Item.empty() && Item.back() == ' ')
      Item.pop_back();
    std::optional<size_t> Found;
    if (!Item.empty() && std::all_of(Item.begin(), Item.end(), ::isdigit)) {
      size_t I = std::stoul(Item);
      if (I < All.size())
        Found = I;
    } else if (Item.size() > 4) {
      for (size_t I = 0; I < All.size(); ++I)
        if (uuidString(All[I].first->properties().Uuid).rfind(Item, 0) == 0) {
          Found = I;
          break;
        }
    }
    if (!Found) {
      log::api().info("CUDA_VISIBLE_DEVICES: '{}' names no device; list ends there", Item);
      break;
    }
    if (std::find(Out.begin(), Out.end(), All[*Found]) != Out.end()) {
      log::api().info("CUDA_VISIBLE_DEVICES: '{}' repeats a device; list ends there", Item);
      break;
    }
    Out.push_back(All[*Found]);
  }
  return Out;
}

static CUresult doInitialize() {
  DriverState &St = state();
  std::string Want = Settings::get().getString(SettingKey::Backend);
  std::vector<RegisteredBackend> Order(registeredBackends().begin(), registeredBackends().end());
  std::stable_sort(Order.begin(), Order.end(),
                   [](auto &A, auto &B) { return A.Preference > B.Preference; });
  if (Want != "auto" &&
      std::none_of(Order.begin(), Order.end(), [&](auto &R) { return Want == R.Name; })) {
    log::api().error("FERRY_BACKEND={} names no backend in this build", Want);
    return CUDA_ERROR_NO_DEVICE;
  }
  std::vector<std::pair<ferry::Device *, DeviceBackend *>> All;
  for (const RegisteredBackend &R : Order) {
    if (Want != "auto" && Want != R.Name)
      continue;
    auto B = R.Factory();
    if (!B) {
      log::api().info("backend {} unavailable: {}", R.Name, B.error().message());
      continue;
    }
    auto Devs = (*B)->devices();
    if (Devs.empty()) {
      log::api().info("backend {} found no device", R.Name);
      continue;
    }
    for (ferry::Device *D : Devs)
      All.push_back({D, B->get()});
    St.Backends.push_back(std::move(*B));
    // `auto` uses the most preferred backend that has devices, so a machine
    // with a GPU does not also list its CPU as a CUDA device.
    if (Want == "auto")
      break;
  }
  auto Visible = applyVisible(All, Settings::get().getString(SettingKey::VisibleDevices));
  for (size_t I = 0; I < Visible.size(); ++I) {
    auto E = std::make_unique<DeviceEntry>();
    E->Ordinal = int(I);
    E->Backend = Visible[I].first;
    E->Family = Visible[I].second;
    E->Primary = std::make_shared<Context>(*E, /*Primary=*/true, 0u);
    publish(E->Primary);
    log::api().debug("device {}: {} ({})", I, E->Backend->properties().Name, E->Family->name());
    St.Devices.push_back(std::move(E));
  }
  if (St.Devices.empty()) {
    log::api().warn("no CUDA device: no backend found one (FERRY_BACKEND={})", Want);
    return CUDA_ERROR_NO_DEVICE;
  }
  return CUDA_SUCCESS;
}

Status initialize() {
  DriverState &St = state();
  if (St.Done.load(std::memory_order_acquire) == false) {
    std::lock_guard<std::mutex> L(St.InitM);
    if (!St.Done.load()) {
      St.InitResult = doInitialize();
      St.Done.store(true, std::memory_order_release);
    }
  }
  if (St.InitResult != CUDA_SUCCESS)
    return makeError(St.InitResult, "driver initialisation failed (see earlier log lines)");
  return Status::ok();
}

Status requireInit() {
  DriverState &St = state();
  if (!St.Done.load(std::memory_order_acquire))
    return makeError(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
  if (St.InitResult != CUDA_SUCCESS)
    return makeError(CUDA_ERROR_NOT_INITIALIZED, "cuInit failed earlier in this process");
  return Status::ok();
}

int deviceCount() { return int(state().Devices.size()); }

DeviceEntry *device(int Ordinal) {
  auto &D = state().Devices;
  if (Ordinal < 0 || size_t(Ordinal) >= D.size())
    return nullptr;
  return D[size_t(Ordinal)].get();
}

} // namespace ferry::core
