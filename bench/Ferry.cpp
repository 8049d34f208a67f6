//===- Ferry.cpp - The benchmark kernels run by ferry's host backend ---------===//
/// \file
/// ferry-bench-cuda: loads the nvcc-generated PTX of bench/kernels through
/// ferry's libcuda.so.1 (cuModuleLoadData, cuLaunchKernel, as any driver-API
/// program does) and times each launch with std::chrono around
/// cuCtxSynchronize. Modes:
///   run DIR [FIGURE]    bandwidth, reduction, SGEMM and launch latency;
///                       FIGURE (stream, reduce, sgemm, launch) runs one
///                       alone, for a profiler
///   load FILE KERNEL [WARM.ptx]
///                       one module load + first launch, timed; the driver
///                       runs it against a fresh CUDA_CACHE_PATH (cold) and
///                       again (cached), in a fresh process and, with
///                       WARM.ptx, after another module was loaded and run
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "ferry/generated/DriverApi.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ferry::bench;

namespace {

void check(CUresult R, const char *What) {
  if (R == CUDA_SUCCESS)
    return;
  const char *Name = nullptr;
  cuGetErrorName(R, &Name);
  std::fprintf(stderr, "ferry-bench-cuda: %s failed: %s\n", What, Name ? Name : "?");
  std::exit(1);
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::fprintf(stderr, "ferry-bench-cuda: cannot read %s\n", Path.c_str());
    std::exit(1);
  }
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

CUcontext setUp() {
  check(cuInit(0), "cuInit");
  CUcontext Ctx;
  check(cuDevicePrimaryCtxRetain(&Ctx, 0), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  return Ctx;
}

CUmodule loadModule(const std::string &Ptx) {
  CUmodule M;
  check(cuModuleLoadData(&M, Ptx.c_str()), "cuModuleLoadData");
  return M;
}

CUfunction function(CUmodule M, const char *Name) {
  CUfunction F;
  check(cuModuleGetFunction(&F, M, Name), "cuModuleGetFunction");
  return F;
}

CUfunction loadKernel(const std::string &Ptx, const char *Name) {
  return function(loadModule(Ptx), Name);
}

/// Best time of kReps launches (after one untimed warm-up that compiles).
double timeLaunch(CUfunction F, unsigned GridX, unsigned GridY, unsigned BlockX, unsigned BlockY,
                  void **Args) {
  auto Launch = [&] {
    check(cuLaunchKernel(F, GridX, GridY, 1, BlockX, BlockY, 1, 0, nullptr, Args, nullptr),
          "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
  };
  Launch();
  return bestOf(kReps, Launch);
}

CUdeviceptr upload(const std::vector<float> &Host) {
  CUdeviceptr D;
  check(cuMemAlloc_v2(&D, Host.size() * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD_v2(D, Host.data(), Host.size() * sizeof(float)), "cuMemcpyHtoD");
  return D;
}

std::vector<float> download(CUdeviceptr D, size_t N) {
  std::vector<float> Host(N);
  check(cuMemcpyDtoH_v2(Host.data(), D, N * sizeof(float)), "cuMemcpyDtoH");
  return Host;
}

void warnIf(bool Bad, const char *What) {
  if (Bad)
    std::fprintf(stderr, "ferry-bench-cuda: WRONG RESULT from %s\n", What);
}

void streamFigures(const std::string &Dir) {
  CUmodule M = loadModule(readFile(Dir + "/stream.ptx"));
  CUfunction Add = function(M, "vecadd"), Triad = function(M, "triad");
  int N = kStreamN;
  CUdeviceptr A = upload(std::vector<float>(N, 1.0f)), B = upload(std::vector<float>(N, 2.0f)),
              C = upload(std::vector<float>(N, 0.5f));
  unsigned Grid = unsigned((N + 255) / 256);
  float S = 3.0f;
  void *AddArgs[] = {&A, &B, &C, &N};
  double TAdd = timeLaunch(Add, Grid, 1, 256, 1, AddArgs);
  report("ferry.vecadd_gbs", streamBytes(3, N) / TAdd / 1e9);
  warnIf(download(C, 16)[7] != 3.0f, "vecadd");
  void *TriadArgs[] = {&A, &B, &C, &S, &N};
  double TTriad = timeLaunch(Triad, Grid, 1, 256, 1, TriadArgs);
  report("ferry.triad_gbs", streamBytes(3, N) / TTriad / 1e9);
  warnIf(download(A, 16)[5] != 2.0f + 3.0f * 3.0f, "triad");
  for (CUdeviceptr P : {A, B, C})
    cuMemFree_v2(P);
}

void reduceFigure(const std::string &Dir) {
  CUfunction Red = loadKernel(readFile(Dir + "/reduce.ptx"), "reduce_sum");
  int N = kStreamN;
  CUdeviceptr In = upload(std::vector<float>(N, 1.0f / 1024)), Out = upload({0.0f});
  void *Args[] = {&In, &Out, &N};
  double T = timeLaunch(Red, kReduceBlocks, 1, kReduceThreads, 1, Args);
  report("ferry.reduce_gbs", streamBytes(1, N) / T / 1e9);
  // Every launch adds into Out; check one launch from zero.
  float Zero = 0.0f;
  check(cuMemcpyHtoD_v2(Out, &Zero, sizeof(float)), "cuMemcpyHtoD");
  check(cuLaunchKernel(Red, kReduceBlocks, 1, 1, kReduceThreads, 1, 1, 0, nullptr, Args, nullptr),
        "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  float Expect = float(N) / 1024;
  warnIf(std::fabs(download(Out, 1)[0] - Expect) > 1e-3f * Expect, "reduce_sum");
  cuMemFree_v2(In);
  cuMemFree_v2(Out);
}

void sgemmFigure(const std::string &Dir) {
  CUfunction Gemm = loadKernel(readFile(Dir + "/sgemm.ptx"), "sgemm_tiled");
  int N = kSgemmN;
  std::vector<float> HA(size_t(N) * N), HB(size_t(N) * N);
  for (size_t I = 0; I < HA.size(); ++I) {
    HA[I] = float(I % 7) - 3.0f;
    HB[I] = float(I % 5) * 0.5f;
  }
  CUdeviceptr A = upload(HA), B = upload(HB), C = upload(std::vector<float>(size_t(N) * N));
  void *Args[] = {&A, &B, &C, &N};
  unsigned Grid = unsigned(N / kTile);
  double T = timeLaunch(Gemm, Grid, Grid, kTile, kTile, Args);
  report("ferry.sgemm_gflops", 2.0 * N * N * N / T / 1e9);
  auto HC = download(C, size_t(N) * N);
  for (int Probe : {0, 12345, N * N - 1}) {
    int R = Probe / N, Col = Probe % N;
    double Ref = 0;
    for (int K = 0; K < N; ++K)
      Ref += double(HA[size_t(R) * N + K]) * HB[size_t(K) * N + Col];
    warnIf(std::fabs(HC[Probe] - Ref) > 1e-3 * (1 + std::fabs(Ref)), "sgemm_tiled");
  }
  for (CUdeviceptr P : {A, B, C})
    cuMemFree_v2(P);
}

void launchFigure(const std::string &Dir) {
  CUfunction Empty = loadKernel(readFile(Dir + "/empty.ptx"), "empty");
  constexpr int Launches = 2000;
  auto Loop = [&] {
    for (int I = 0; I < Launches; ++I) {
      check(cuLaunchKernel(Empty, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), "cuLaunchKernel");
      check(cuCtxSynchronize(), "cuCtxSynchronize");
    }
  };
  Loop();
  report("ferry.launch_us", bestOf(kReps, Loop) / Launches * 1e6);
}

/// One module load as a program does it: load, look up the kernel, and ask
/// for an attribute that needs the code (cuFuncGetAttribute compiles the
/// kernel, or reads it from the code cache, as NVIDIA's lazy loading loads
/// the function). The first launch, on one 16x16 tile, is timed apart: it
/// also pays one-time costs of running a kernel (fiber stacks).
/// With WarmFile, another module (the empty kernel) is loaded and launched
/// first, so the one-time costs of a process (LLVM's first use, the worker
/// pool) fall outside the window.
void loadFigure(const std::string &File, const char *Kernel, const char *WarmFile) {
  if (WarmFile) {
    CUfunction W = loadKernel(readFile(WarmFile), "empty");
    check(cuLaunchKernel(W, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
  }
  std::string Ptx = readFile(File);
  std::vector<float> Tile(size_t(kTile) * kTile, 1.0f);
  CUdeviceptr A = upload(Tile), B = upload(Tile), C = upload(Tile);
  int N = kTile;
  void *Args[] = {&A, &B, &C, &N};
  auto T0 = Clock::now();
  CUfunction F = loadKernel(Ptx, Kernel);
  double Parsed = secondsSince(T0);
  int MaxThreads = 0;
  check(cuFuncGetAttribute(&MaxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, F),
        "cuFuncGetAttribute");
  double Loaded = secondsSince(T0);
  check(cuLaunchKernel(F, 1, 1, 1, kTile, kTile, 1, 0, nullptr, Args, nullptr), "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  double Launched = secondsSince(T0);
  report("ferry.load_ms", Loaded * 1e3);
  // Where it went: cuModuleLoadData + cuModuleGetFunction (parse + check),
  // then the code (lower, compile or cache read, JIT link); and the first
  // launch after it.
  report("ferry.load_parse_ms", Parsed * 1e3);
  report("ferry.load_code_ms", (Loaded - Parsed) * 1e3);
  report("ferry.first_launch_ms", (Launched - Loaded) * 1e3);
  warnIf(download(C, 1)[0] != float(kTile), "load kernel");
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Mode = Argc > 1 ? Argv[1] : "";
  if (Mode == "run" && (Argc == 3 || Argc == 4)) {
    setUp();
    std::string Dir = Argv[2], Only = Argc == 4 ? Argv[3] : "";
    auto Wanted = [&](const char *Figure) { return Only.empty() || Only == Figure; };
    if (Wanted("stream"))
      streamFigures(Dir);
    if (Wanted("reduce"))
      reduceFigure(Dir);
    if (Wanted("sgemm"))
      sgemmFigure(Dir);
    if (Wanted("launch"))
      launchFigure(Dir);
    return 0;
  }
  if (Mode == "load" && (Argc == 4 || Argc == 5)) {
    setUp();
    loadFigure(Argv[2], Argv[3], Argc == 5 ? Argv[4] : nullptr);
    return 0;
  }
  std::fprintf(stderr, "usage: ferry-bench-cuda run PTXDIR [FIGURE] | load FILE.ptx KERNEL [WARM.ptx]\n");
  return 2;
}
