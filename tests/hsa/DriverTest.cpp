/// \file
/// hsa-driver-probe: the AMD backend seen through libcuda.so's C API, on a
/// machine without an AMD GPU. It calls cuInit, cuDeviceGetCount and
/// cuDeviceGetName and prints one line, "cuInit=N count=N name=...";
/// the ctest lines (CMakeLists.txt) run it with FERRY_BACKEND=hsa (must
/// fail with CUDA_ERROR_NO_DEVICE and a warning saying why), with
/// FERRY_BACKEND=auto (must fall back to the host CPU), with ROCr absent
/// (FERRY_HSA_LIBRARY naming no file) and with Debian's ROCr (present, no
/// GPU), and check both the line and the log.
#include "ferry/generated/DriverApi.h"

#include <cstdio>

int main() {
  CUresult R = cuInit(0);
  int Count = -1;
  CUresult C = cuDeviceGetCount(&Count);
  char Name[256] = "-";
  if (R == CUDA_SUCCESS && Count > 0) {
    CUdevice D = 0;
    if (cuDeviceGet(&D, 0) != CUDA_SUCCESS || cuDeviceGetName(Name, sizeof Name, D) != CUDA_SUCCESS)
      std::snprintf(Name, sizeof Name, "?");
  }
  std::printf("cuInit=%d count=%d (%d) name=%s\n", int(R), Count, int(C), Name);
  return 0;
}
