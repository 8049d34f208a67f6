//===- LazyLoad.cpp - Module load to first launch, for big modules ----------===//
/// \file
/// ferry-bench-lazy: how long a program waits between cuModuleLoadData of a
/// module with hundreds of kernels and the completion of its first launch
/// (the cost CUDA_MODULE_LOADING=LAZY exists to remove), then the cost of
/// each further kernel's first launch (one kernel's compile, or its load
/// from the code cache). The module is bench/lazy/gen_kernels.py's
/// (mmv_<type>_<cols>_<block>_<variant>, all with the same parameters);
/// bench/lazy/run.sh runs it cold and cached, lazy and eager, on one core.
///   ferry-bench-lazy FILE.ptx [KERNEL...]   (default: three kernels)
///   ferry-bench-lazy FILE.ptx --all         every .entry of FILE, in order
//===----------------------------------------------------------------------===//
#include "ferry/generated/DriverApi.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(CUresult R, const char *What) {
  if (R == CUDA_SUCCESS)
    return;
  const char *Name = nullptr;
  cuGetErrorName(R, &Name);
  std::fprintf(stderr, "ferry-bench-lazy: %s failed: %s\n", What, Name ? Name : "?");
  std::exit(1);
}

double msSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T).count();
}

std::vector<std::string> entries(const std::string &Ptx) {
  std::vector<std::string> Out;
  for (size_t At = Ptx.find(".entry "); At != std::string::npos; At = Ptx.find(".entry ", At + 7)) {
    size_t B = At + 7, E = Ptx.find_first_of("( \n", B);
    Out.push_back(Ptx.substr(B, E - B));
  }
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: ferry-bench-lazy FILE.ptx [KERNEL... | --all]\n");
    return 2;
  }
  std::ifstream In(Argv[1], std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  std::string Ptx = SS.str();
  if (Ptx.empty()) {
    std::fprintf(stderr, "ferry-bench-lazy: cannot read %s\n", Argv[1]);
    return 1;
  }
  std::vector<std::string> Names;
  for (int I = 2; I < Argc; ++I)
    Names.push_back(Argv[I]);
  if (Names.size() == 1 && Names[0] == "--all")
    Names = entries(Ptx);
  if (Names.empty())
    Names = {"mmv_f32_4_128_plain", "mmv_f16_8_256_bias", "mmv_f64_1_32_plain"};

  check(cuInit(0), "cuInit");
  CUcontext Ctx;
  check(cuDevicePrimaryCtxRetain(&Ctx, 0), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  const int Rows = 4, N = 256;
  CUdeviceptr X, Y, Dst;
  check(cuMemAlloc_v2(&X, size_t(Rows) * N * 8), "cuMemAlloc");
  check(cuMemAlloc_v2(&Y, size_t(8) * N * 8), "cuMemAlloc");
  check(cuMemAlloc_v2(&Dst, size_t(8) * Rows * 4), "cuMemAlloc");
  check(cuMemsetD8_v2(X, 0, size_t(Rows) * N * 8), "cuMemsetD8");
  check(cuMemsetD8_v2(Y, 0, size_t(8) * N * 8), "cuMemsetD8");

  auto T0 = std::chrono::steady_clock::now();
  CUmodule M;
  check(cuModuleLoadData(&M, Ptx.c_str()), "cuModuleLoadData");
  double LoadMs = msSince(T0);
  int NArg = N;
  void *Args[] = {&X, &Y, &Dst, &NArg};
  double Slowest = 0, Sum = 0;
  for (size_t I = 0; I < Names.size(); ++I) {
    auto T = std::chrono::steady_clock::now();
    CUfunction F;
    check(cuModuleGetFunction(&F, M, Names[I].c_str()), "cuModuleGetFunction");
    int Block = 0;
    check(cuFuncGetAttribute(&Block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, F), "cuFuncGetAttribute");
    check(cuLaunchKernel(F, Rows, 1, 1, unsigned(Block), 1, 1, 0, nullptr, Args, nullptr), "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    double Ms = msSince(T);
    if (I == 0)
      std::printf("module load (%zu bytes of PTX): %.1f ms\nload to first launch done: %.1f ms (%s)\n",
                  Ptx.size(), LoadMs, msSince(T0), Names[I].c_str());
    else {
      Slowest = std::max(Slowest, Ms);
      Sum += Ms;
      if (Names.size() <= 8)
        std::printf("first launch of %s: %.1f ms\n", Names[I].c_str(), Ms);
    }
  }
  if (Names.size() > 1)
    std::printf("further kernels: %zu, %.1f ms each on average, slowest %.1f ms; all done %.1f ms after load\n",
                Names.size() - 1, Sum / double(Names.size() - 1), Slowest, msSince(T0));
  CUdeviceptr Var;
  size_t Bytes = 0;
  check(cuModuleGetGlobal_v2(&Var, &Bytes, M, "mmv_launches"), "cuModuleGetGlobal");
  unsigned long long Launches = 0;
  check(cuMemcpyDtoH_v2(&Launches, Var, sizeof Launches), "cuMemcpyDtoH");
  std::printf("bias kernels launched (mmv_launches): %llu\n", Launches);
  check(cuModuleUnload(M), "cuModuleUnload");
  return 0;
}
