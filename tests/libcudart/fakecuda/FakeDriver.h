/// \file
/// Control interface of the test-only libcuda.so.1 stand-in (FakeDriver.cpp)
/// that the libcudart unit tests run against: it records every driver call
/// libcudart makes and lets a test choose results, so the runtime's
/// bookkeeping and error mapping are tested without any real driver.
#pragma once

#include "ferry/cuda.h"

#include <mutex>
#include <string>
#include <vector>

struct FakeLaunch {
  CUfunction F;
  unsigned Grid[3];
  unsigned Block[3];
  unsigned SharedMem;
  CUstream Stream;
  void **Args;
};

struct FakeState {
  std::mutex Mutex;
  std::vector<std::string> Calls; ///< "name" of every driver call
  std::vector<std::string> ProcRequests; ///< "name@version/flags"
  std::vector<FakeLaunch> Launches;
  std::vector<const void *> LoadedImages;
  CUresult AllocResult = CUDA_SUCCESS;     ///< next cuMemAlloc results
  CUresult SyncResult = CUDA_SUCCESS;      ///< next cuCtxSynchronize result (once)
  unsigned char Global[16] = {};           ///< the device variable "gvar"
  static constexpr int DeviceCount = 2;

  void record(const std::string &Name) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Calls.push_back(Name);
  }
  size_t count(const std::string &Name) {
    std::lock_guard<std::mutex> Lock(Mutex);
    size_t N = 0;
    for (auto &C : Calls)
      N += C == Name;
    return N;
  }
};

/// Exported by the fake libcuda.so.1; tests reach it with dlsym.
extern "C" FakeState *fakeCudaState();

/// Fake handles.
inline CUlibrary fakeLibrary() { return reinterpret_cast<CUlibrary>(0x1000); }
inline CUkernel fakeKernel(int I) { return reinterpret_cast<CUkernel>(0x2000 + 16 * I); }
inline CUcontext fakeContext(int Dev) { return reinterpret_cast<CUcontext>(0x3000 + 16 * Dev); }
