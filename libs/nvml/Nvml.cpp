/// \file
/// ferry's NVML: what a monitoring tool asks about the GPUs, answered from
/// the devices of the driver API this process loads (ferry's under
/// `ferry run`, so FERRY_DEVICE_PROFILE=h100 shows as an H100). Queries a
/// CPU cannot answer honestly (temperature, power, fans, serial numbers,
/// performance states) return NVML_ERROR_NOT_SUPPORTED, as NVML does for a
/// GPU without the sensor; everything in nvml.api not written here is a
/// generated stub that logs its name once and returns NOT_SUPPORTED.
///
/// String formats follow NVIDIA's (recorded on the H200: tests/nvml/goldens):
/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" UUIDs, "00000000:BB:DD.0" PCI
/// bus ids ("0000:BB:DD.0" legacy), NVML version "13.<driver version>".
#include "ferry/generated/NvmlApi.h"
#include "libs/common/Driver.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>
#include <unistd.h>

namespace {

using ferry::libs::DriverTable;

struct Device {
  static constexpr uint64_t Live = 0x6665727279534d49ull; // "ferrySMI"
  uint64_t Magic = Live;
  unsigned Index = 0;
  CUdevice Dev = 0;
};

std::mutex Lock;
int InitCount = 0;
std::vector<Device> *Devices = nullptr; // never freed: handles stay valid

const DriverTable *drv() { return ferry::libs::driver(); }

Device *lookup(nvmlDevice_t H) {
  std::lock_guard<std::mutex> G(Lock);
  if (!Devices || !InitCount)
    return nullptr;
  for (Device &D : *Devices)
    if (reinterpret_cast<nvmlDevice_t>(&D) == H && D.Magic == Device::Live)
      return &D;
  return nullptr;
}

nvmlReturn_t initialized() {
  std::lock_guard<std::mutex> G(Lock);
  return InitCount ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

/// Device checks shared by every per-device query: NVML reports
/// UNINITIALIZED before INVALID_ARGUMENT.
#define FERRY_NVML_DEVICE(H, D)                                                                                        \
  if (nvmlReturn_t R_ = initialized(); R_ != NVML_SUCCESS)                                                           \
    return R_;                                                                                                         \
  Device *D = lookup(H);                                                                                               \
  if (!D)                                                                                                              \
    return NVML_ERROR_INVALID_ARGUMENT;

nvmlReturn_t copyString(const std::string &S, char *Out, unsigned Length) {
  if (!Out)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (S.size() + 1 > Length)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(Out, S.c_str(), S.size() + 1);
  return NVML_SUCCESS;
}

int attribute(const Device &D, CUdevice_attribute A) {
  int V = 0;
  if (drv()->DeviceGetAttribute(&V, A, D.Dev) != CUDA_SUCCESS)
    return 0;
  return V;
}

std::string uuidOf(const Device &D) {
  CUuuid U{};
  drv()->DeviceGetUuid(&U, D.Dev);
  const auto *B = reinterpret_cast<const unsigned char *>(U.bytes);
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", B[0], B[1],
                B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9], B[10], B[11], B[12], B[13], B[14], B[15]);
  return Buf;
}

std::string busIdOf(const Device &D, bool Legacy) {
  char Buf[40];
  unsigned Domain = static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID));
  unsigned Bus = static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID));
  unsigned Dv = static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  if (Legacy)
    std::snprintf(Buf, sizeof(Buf), "%04X:%02X:%02X.0", Domain & 0xffff, Bus, Dv);
  else
    std::snprintf(Buf, sizeof(Buf), "%08X:%02X:%02X.0", Domain, Bus, Dv);
  return Buf;
}

/// The driver's version as NVML prints a kernel driver's ("13.0"): ferry has
/// no kernel module, and this is the version its driver API reports.
std::string driverVersion() {
  int V = 0;
  drv()->DriverGetVersion(&V);
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%d.%d", V / 1000, V % 1000 / 10);
  return Buf;
}

/// cuMemGetInfo needs a context of the device: its primary one, used only
/// while this process has it active (NVML must not create one), and made
/// current for the query only, so the caller's current context is kept.
/// Without one, nothing of the device is in use.
bool memoryOf(const Device &D, unsigned long long &Free, unsigned long long &Total) {
  const DriverTable *T = drv();
  size_t Tot = 0;
  if (T->DeviceTotalMem(&Tot, D.Dev) != CUDA_SUCCESS)
    return false;
  Total = Tot;
  Free = Tot;
  unsigned Flags = 0;
  int Active = 0;
  if (T->PrimaryCtxGetState(D.Dev, &Flags, &Active) != CUDA_SUCCESS || !Active)
    return true;
  CUcontext Old = nullptr, Primary = nullptr;
  T->CtxGetCurrent(&Old);
  if (T->PrimaryCtxRetain(&Primary, D.Dev) != CUDA_SUCCESS)
    return true;
  size_t F = 0, Tt = 0;
  if (T->CtxSetCurrent(Primary) == CUDA_SUCCESS && T->MemGetInfo(&F, &Tt) == CUDA_SUCCESS)
    Free = F;
  T->CtxSetCurrent(Old);
  T->PrimaryCtxRelease(D.Dev);
  return true;
}

nvmlReturn_t notSupported() { return NVML_ERROR_NOT_SUPPORTED; }

} // namespace

extern "C" {

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
  const DriverTable *T = drv();
  if (!T)
    return NVML_ERROR_DRIVER_NOT_LOADED;
  std::lock_guard<std::mutex> G(Lock);
  if (!Devices) {
    int Count = 0;
    if (T->DeviceGetCount(&Count) != CUDA_SUCCESS)
      Count = 0;
    Devices = new std::vector<Device>(static_cast<size_t>(Count));
    for (int I = 0; I < Count; ++I) {
      (*Devices)[I].Index = static_cast<unsigned>(I);
      T->DeviceGet(&(*Devices)[I].Dev, I);
    }
  }
  ++InitCount;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }

nvmlReturn_t nvmlShutdown(void) {
  std::lock_guard<std::mutex> G(Lock);
  if (!InitCount)
    return NVML_ERROR_UNINITIALIZED;
  --InitCount;
  return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
  case NVML_SUCCESS: return "Success";
  case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
  case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
  case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
  case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
  case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
  case NVML_ERROR_NOT_FOUND: return "Not Found";
  case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
  case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
  case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
  case NVML_ERROR_TIMEOUT: return "Timeout";
  case NVML_ERROR_IRQ_ISSUE: return "Interrupt Request Issue";
  case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
  case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
  case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
  case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
  case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
  case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request.";
  case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
  case NVML_ERROR_MEMORY: return "Insufficient Memory";
  case NVML_ERROR_NO_DATA: return "No data";
  default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  return copyString(driverVersion(), version, length);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
  return copyString(std::to_string(NVML_API_VERSION) + "." + driverVersion(), version, length);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
  if (!cudaDriverVersion)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (!drv())
    return NVML_ERROR_LIBRARY_NOT_FOUND;
  drv()->DriverGetVersion(cudaDriverVersion);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) {
  return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  if (!deviceCount)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Lock);
  *deviceCount = static_cast<unsigned>(Devices->size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return nvmlDeviceGetCount_v2(deviceCount); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  std::lock_guard<std::mutex> G(Lock);
  if (!device || index >= Devices->size())
    return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(&(*Devices)[index]);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
  return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  if (!uuid || !device)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<Device> &All = *Devices;
  for (Device &D : All)
    if (uuidOf(D) == uuid) {
      *device = reinterpret_cast<nvmlDevice_t>(&D);
      return NVML_SUCCESS;
    }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  if (!pciBusId || !device)
    return NVML_ERROR_INVALID_ARGUMENT;
  // "domain:bus:device.function" with any number of domain digits, any case.
  unsigned Domain = 0, Bus = 0, Dv = 0, Fn = 0;
  if (std::sscanf(pciBusId, "%x:%x:%x.%x", &Domain, &Bus, &Dv, &Fn) != 4) {
    Domain = 0;
    if (std::sscanf(pciBusId, "%x:%x.%x", &Bus, &Dv, &Fn) != 3)
      return NVML_ERROR_INVALID_ARGUMENT;
  }
  for (Device &D : *Devices)
    if (static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)) == Domain &&
        static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)) == Bus &&
        static_cast<unsigned>(attribute(D, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)) == Dv && Fn == 0) {
      *device = reinterpret_cast<nvmlDevice_t>(&D);
      return NVML_SUCCESS;
    }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device) {
  return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  FERRY_NVML_DEVICE(device, D)
  char Buf[256] = {};
  drv()->DeviceGetName(Buf, sizeof(Buf), D->Dev);
  return copyString(Buf, name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
  FERRY_NVML_DEVICE(device, D)
  return copyString(uuidOf(*D), uuid, length);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
  FERRY_NVML_DEVICE(device, D)
  if (!index)
    return NVML_ERROR_INVALID_ARGUMENT;
  *index = D->Index;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber) {
  FERRY_NVML_DEVICE(device, D)
  if (!minorNumber)
    return NVML_ERROR_INVALID_ARGUMENT;
  *minorNumber = D->Index;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
  FERRY_NVML_DEVICE(device, D)
  if (!pci)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::memset(pci, 0, sizeof(*pci));
  pci->domain = static_cast<unsigned>(attribute(*D, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID));
  pci->bus = static_cast<unsigned>(attribute(*D, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID));
  pci->device = static_cast<unsigned>(attribute(*D, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  // No PCI function exists to read ids from: NVIDIA's vendor id with no device id.
  pci->pciDeviceId = 0x000010de;
  pci->pciSubSystemId = 0;
  std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%s", busIdOf(*D, true).c_str());
  std::snprintf(pci->busId, sizeof(pci->busId), "%s", busIdOf(*D, false).c_str());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) {
  return nvmlDeviceGetPciInfo_v3(device, pci);
}
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci) { return nvmlDeviceGetPciInfo_v3(device, pci); }

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  FERRY_NVML_DEVICE(device, D)
  if (!memory)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long Free = 0, Total = 0;
  if (!memoryOf(*D, Free, Total))
    return NVML_ERROR_UNKNOWN;
  memory->total = Total;
  memory->free = Free;
  memory->used = Total - Free;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
  FERRY_NVML_DEVICE(device, D)
  if (!memory)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2)
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned long long Free = 0, Total = 0;
  if (!memoryOf(*D, Free, Total))
    return NVML_ERROR_UNKNOWN;
  memory->total = Total;
  memory->reserved = 0;
  memory->free = Free;
  memory->used = Total - Free;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
  FERRY_NVML_DEVICE(device, D)
  if (!major || !minor)
    return NVML_ERROR_INVALID_ARGUMENT;
  *major = attribute(*D, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  *minor = attribute(*D, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  return NVML_SUCCESS;
}

/// Clocks from the device's attributes (kHz there, MHz here): graphics and
/// SM run at its clock rate, memory at its memory clock; no video clock.
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock) {
  FERRY_NVML_DEVICE(device, D)
  if (!clock)
    return NVML_ERROR_INVALID_ARGUMENT;
  int KHz = 0;
  switch (type) {
  case NVML_CLOCK_GRAPHICS:
  case NVML_CLOCK_SM:
    KHz = attribute(*D, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    break;
  case NVML_CLOCK_MEM:
    KHz = attribute(*D, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    break;
  default:
    return NVML_ERROR_NOT_SUPPORTED;
  }
  if (KHz <= 0)
    return NVML_ERROR_NOT_SUPPORTED;
  *clock = static_cast<unsigned>(KHz / 1000);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock) {
  return nvmlDeviceGetMaxClockInfo(device, type, clock);
}

/// Utilization: ferry does not sample the device's busy time, and says so
/// rather than answer 0%.
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  if (!utilization)
    return NVML_ERROR_INVALID_ARGUMENT;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  return notSupported();
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  if (!type)
    return NVML_ERROR_INVALID_ARGUMENT;
  *type = NVML_BRAND_NVIDIA; // what the H100/H200 answer
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch) {
  FERRY_NVML_DEVICE(device, D)
  if (!arch)
    return NVML_ERROR_INVALID_ARGUMENT;
  // NVML_DEVICE_ARCH_*: Volta 5, Turing 6, Ampere 7, Ada 8, Hopper 9, Blackwell 10.
  int Major = attribute(*D, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int Minor = attribute(*D, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  *arch = Major == 7 ? (Minor >= 5 ? 6 : 5) : Major == 8 ? (Minor >= 9 ? 8 : 7) : Major == 9 ? 9 : Major >= 10 ? 10 : 0xffffffff;
  return NVML_SUCCESS;
}

/// Processes: ferry's devices live in the processes that load ferry, so the
/// only one NVML can see is this one, listed while it holds the device's
/// primary context; its memory use is not counted per process
/// (NVML_VALUE_NOT_AVAILABLE, as NVML answers when it cannot tell).
static nvmlReturn_t processes(nvmlDevice_t device, unsigned int *infoCount, void *infos, size_t Stride, bool V1) {
  FERRY_NVML_DEVICE(device, D)
  if (!infoCount)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned Flags = 0;
  int Active = 0;
  drv()->PrimaryCtxGetState(D->Dev, &Flags, &Active);
  unsigned N = Active ? 1 : 0;
  if (*infoCount < N || (N && !infos)) {
    *infoCount = N;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *infoCount = N;
  if (N) {
    auto *P = static_cast<unsigned char *>(infos);
    std::memset(P, 0, Stride);
    unsigned Pid = static_cast<unsigned>(getpid());
    unsigned long long Used = ~0ull;
    std::memcpy(P, &Pid, sizeof(Pid));
    std::memcpy(P + 8, &Used, sizeof(Used));
    if (!V1) {
      unsigned NoInstance = 0xffffffffu;
      std::memcpy(P + 16, &NoInstance, 4);
      std::memcpy(P + 20, &NoInstance, 4);
    }
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos) {
  return processes(device, infoCount, infos, sizeof(nvmlProcessInfo_t), false);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos) {
  return processes(device, infoCount, infos, sizeof(nvmlProcessInfo_t), false);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v1_t *infos) {
  return processes(device, infoCount, infos, sizeof(nvmlProcessInfo_v1_t), true);
}

/// Graphics processes: ferry runs none.
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos) {
  FERRY_NVML_DEVICE(device, D)
  (void)D;
  if (!infoCount)
    return NVML_ERROR_INVALID_ARGUMENT;
  *infoCount = 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length) {
  if (nvmlReturn_t R = initialized(); R != NVML_SUCCESS)
    return R;
  char Path[64], Buf[256] = {};
  std::snprintf(Path, sizeof(Path), "/proc/%u/comm", pid);
  FILE *F = std::fopen(Path, "r");
  if (!F)
    return NVML_ERROR_NOT_FOUND;
  size_t N = std::fread(Buf, 1, sizeof(Buf) - 1, F);
  std::fclose(F);
  while (N && (Buf[N - 1] == '\n'))
    Buf[--N] = 0;
  return copyString(Buf, name, length);
}

} // extern "C"
