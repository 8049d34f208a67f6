/* \file
 * A small nvidia-smi: a C program built against ferry's NVML declarations
 * (ferry/libs/nvml.h and the generated prototypes) and linked with ferry's
 * libnvidia-ml.so.1, printing one line per device as tools that ask NVML
 * would see it. tests/nvml runs it as an H100 (FERRY_DEVICE_PROFILE=h100). */
#include "ferry/generated/NvmlApi.h"

#include <stdio.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    nvmlReturn_t r_ = (call);                                                                                          \
    if (r_ != NVML_SUCCESS) {                                                                                          \
      printf("FAIL %s: %s\n", #call, nvmlErrorString(r_));                                                             \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

int main(void) {
  char Driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE], Version[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
  int Cuda = 0;
  unsigned Count = 0;
  CHECK(nvmlInit_v2());
  CHECK(nvmlSystemGetDriverVersion(Driver, sizeof Driver));
  CHECK(nvmlSystemGetNVMLVersion(Version, sizeof Version));
  CHECK(nvmlSystemGetCudaDriverVersion_v2(&Cuda));
  printf("Driver Version: %s  NVML: %s  CUDA Version: %d.%d\n", Driver, Version, Cuda / 1000, Cuda % 1000 / 10);
  CHECK(nvmlDeviceGetCount_v2(&Count));
  for (unsigned I = 0; I < Count; ++I) {
    nvmlDevice_t D;
    char Name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], Uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlPciInfo_t Pci;
    nvmlMemory_t Mem;
    int Major = 0, Minor = 0;
    unsigned Sm = 0, Procs = 0;
    CHECK(nvmlDeviceGetHandleByIndex_v2(I, &D));
    CHECK(nvmlDeviceGetName(D, Name, sizeof Name));
    CHECK(nvmlDeviceGetUUID(D, Uuid, sizeof Uuid));
    CHECK(nvmlDeviceGetPciInfo_v3(D, &Pci));
    CHECK(nvmlDeviceGetMemoryInfo(D, &Mem));
    CHECK(nvmlDeviceGetCudaComputeCapability(D, &Major, &Minor));
    CHECK(nvmlDeviceGetMaxClockInfo(D, NVML_CLOCK_SM, &Sm));
    CHECK(nvmlDeviceGetComputeRunningProcesses_v3(D, &Procs, NULL));
    printf("GPU %u: %s (%s) %s sm_%d%d %u MHz %lluMiB / %lluMiB, %u processes\n", I, Name, Uuid, Pci.busId, Major,
           Minor, Sm, Mem.used >> 20, Mem.total >> 20, Procs);
  }
  CHECK(nvmlShutdown());
  return 0;
}
