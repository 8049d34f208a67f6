//===- OpenCL.cpp - The benchmark kernels on PoCL's CPU device ---------------===//
/// \file
/// ferry-bench-ocl: the peer. The kernels of bench/kernels/kernels.cl (the
/// OpenCL C twins of the CUDA kernels) on PoCL's CPU device, same sizes and
/// work-group shapes, timed with std::chrono around clFinish like the CUDA
/// side. Usage: ferry-bench-ocl KERNELS.cl
//===----------------------------------------------------------------------===//
#include "Common.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ferry::bench;

namespace {

void check(cl_int R, const char *What) {
  if (R == CL_SUCCESS)
    return;
  std::fprintf(stderr, "ferry-bench-ocl: %s failed: %d\n", What, R);
  std::exit(1);
}

struct Ocl {
  cl_context Ctx = nullptr;
  cl_command_queue Q = nullptr;
  cl_program Prog = nullptr;
  cl_device_id Dev = nullptr;
};

/// PoCL's platform and its CPU device; another vendor's CPU runtime would
/// not be the peer the goal names.
bool openPocl(Ocl &O) {
  cl_uint NP = 0;
  if (clGetPlatformIDs(0, nullptr, &NP) != CL_SUCCESS || NP == 0)
    return false;
  std::vector<cl_platform_id> Ps(NP);
  clGetPlatformIDs(NP, Ps.data(), nullptr);
  for (cl_platform_id P : Ps) {
    char Name[256] = {};
    clGetPlatformInfo(P, CL_PLATFORM_NAME, sizeof(Name), Name, nullptr);
    if (!std::strstr(Name, "Portable Computing Language"))
      continue;
    if (clGetDeviceIDs(P, CL_DEVICE_TYPE_CPU, 1, &O.Dev, nullptr) != CL_SUCCESS)
      continue;
    cl_int E;
    O.Ctx = clCreateContext(nullptr, 1, &O.Dev, nullptr, nullptr, &E);
    check(E, "clCreateContext");
    O.Q = clCreateCommandQueue(O.Ctx, O.Dev, 0, &E);
    check(E, "clCreateCommandQueue");
    return true;
  }
  return false;
}

cl_mem upload(Ocl &O, const std::vector<float> &Host) {
  cl_int E;
  cl_mem M = clCreateBuffer(O.Ctx, CL_MEM_READ_WRITE, Host.size() * sizeof(float), nullptr, &E);
  check(E, "clCreateBuffer");
  check(clEnqueueWriteBuffer(O.Q, M, CL_TRUE, 0, Host.size() * sizeof(float), Host.data(), 0,
                             nullptr, nullptr),
        "clEnqueueWriteBuffer");
  return M;
}

std::vector<float> download(Ocl &O, cl_mem M, size_t N) {
  std::vector<float> Host(N);
  check(clEnqueueReadBuffer(O.Q, M, CL_TRUE, 0, N * sizeof(float), Host.data(), 0, nullptr,
                            nullptr),
        "clEnqueueReadBuffer");
  return Host;
}

cl_kernel kernel(Ocl &O, const char *Name) {
  cl_int E;
  cl_kernel K = clCreateKernel(O.Prog, Name, &E);
  check(E, Name);
  return K;
}

template <class T> void arg(cl_kernel K, cl_uint I, const T &V) {
  check(clSetKernelArg(K, I, sizeof(T), &V), "clSetKernelArg");
}

double timeLaunch(Ocl &O, cl_kernel K, cl_uint Dims, const size_t *Global, const size_t *Local) {
  auto Launch = [&] {
    check(clEnqueueNDRangeKernel(O.Q, K, Dims, nullptr, Global, Local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clFinish(O.Q), "clFinish");
  };
  Launch();
  return bestOf(kReps, Launch);
}

void warnIf(bool Bad, const char *What) {
  if (Bad)
    std::fprintf(stderr, "ferry-bench-ocl: WRONG RESULT from %s\n", What);
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: ferry-bench-ocl KERNELS.cl\n");
    return 2;
  }
  Ocl O;
  if (!openPocl(O)) {
    std::fprintf(stderr, "ferry-bench-ocl: no PoCL CPU device\n");
    return 3;
  }
  std::ifstream In(Argv[1]);
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Src = SS.str();
  const char *SrcP = Src.c_str();
  cl_int E;
  O.Prog = clCreateProgramWithSource(O.Ctx, 1, &SrcP, nullptr, &E);
  check(E, "clCreateProgramWithSource");
  if (clBuildProgram(O.Prog, 1, &O.Dev, "", nullptr, nullptr) != CL_SUCCESS) {
    char Log[8192] = {};
    clGetProgramBuildInfo(O.Prog, O.Dev, CL_PROGRAM_BUILD_LOG, sizeof(Log), Log, nullptr);
    std::fprintf(stderr, "ferry-bench-ocl: build failed:\n%s\n", Log);
    return 1;
  }
  cl_uint Units = 0;
  clGetDeviceInfo(O.Dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(Units), &Units, nullptr);
  report("pocl.compute_units", Units);

  // STREAM kernels.
  int N = kStreamN;
  cl_mem A = upload(O, std::vector<float>(N, 1.0f)), B = upload(O, std::vector<float>(N, 2.0f)),
         C = upload(O, std::vector<float>(N, 0.5f));
  size_t G1 = size_t(N + 255) / 256 * 256, L1 = 256;
  cl_kernel Add = kernel(O, "vecadd");
  arg(Add, 0, A), arg(Add, 1, B), arg(Add, 2, C), arg(Add, 3, N);
  report("pocl.vecadd_gbs", streamBytes(3, N) / timeLaunch(O, Add, 1, &G1, &L1) / 1e9);
  warnIf(download(O, C, 16)[7] != 3.0f, "vecadd");
  cl_kernel Triad = kernel(O, "triad");
  float S = 3.0f;
  arg(Triad, 0, A), arg(Triad, 1, B), arg(Triad, 2, C), arg(Triad, 3, S), arg(Triad, 4, N);
  report("pocl.triad_gbs", streamBytes(3, N) / timeLaunch(O, Triad, 1, &G1, &L1) / 1e9);
  warnIf(download(O, A, 16)[5] != 11.0f, "triad");

  // Reduction: per-work-group partials, added on the host afterwards.
  cl_mem In1 = upload(O, std::vector<float>(N, 1.0f / 1024));
  cl_mem Part = upload(O, std::vector<float>(kReduceBlocks, 0.0f));
  cl_kernel Red = kernel(O, "reduce_sum");
  arg(Red, 0, In1), arg(Red, 1, Part), arg(Red, 2, N);
  size_t GR = size_t(kReduceBlocks) * kReduceThreads, LR = kReduceThreads;
  report("pocl.reduce_gbs", streamBytes(1, N) / timeLaunch(O, Red, 1, &GR, &LR) / 1e9);
  double Sum = 0;
  for (float P : download(O, Part, kReduceBlocks))
    Sum += P;
  warnIf(std::fabs(Sum - N / 1024.0) > 1e-3 * N / 1024.0, "reduce_sum");
  for (cl_mem M : {A, B, C, In1, Part})
    clReleaseMemObject(M);

  // SGEMM.
  int NG = kSgemmN;
  std::vector<float> HA(size_t(NG) * NG), HB(size_t(NG) * NG);
  for (size_t I = 0; I < HA.size(); ++I) {
    HA[I] = float(I % 7) - 3.0f;
    HB[I] = float(I % 5) * 0.5f;
  }
  cl_mem GA = upload(O, HA), GB = upload(O, HB), GC = upload(O, std::vector<float>(HA.size()));
  cl_kernel Gemm = kernel(O, "sgemm_tiled");
  arg(Gemm, 0, GA), arg(Gemm, 1, GB), arg(Gemm, 2, GC), arg(Gemm, 3, NG);
  size_t G2[2] = {size_t(NG), size_t(NG)}, L2[2] = {size_t(kTile), size_t(kTile)};
  report("pocl.sgemm_gflops", 2.0 * NG * NG * NG / timeLaunch(O, Gemm, 2, G2, L2) / 1e9);
  auto HC = download(O, GC, HA.size());
  double Ref = 0;
  for (int K = 0; K < NG; ++K)
    Ref += double(HA[K]) * HB[size_t(K) * NG];
  warnIf(std::fabs(HC[0] - Ref) > 1e-3 * (1 + std::fabs(Ref)), "sgemm_tiled");

  // Empty kernel: enqueue + finish, as the CUDA side's launch + synchronize.
  cl_kernel Empty = kernel(O, "empty");
  size_t One = 1;
  constexpr int Launches = 2000;
  auto Loop = [&] {
    for (int I = 0; I < Launches; ++I) {
      check(clEnqueueNDRangeKernel(O.Q, Empty, 1, nullptr, &One, &One, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
      check(clFinish(O.Q), "clFinish");
    }
  };
  Loop();
  report("pocl.launch_us", bestOf(kReps, Loop) / Launches * 1e6);
  return 0;
}
