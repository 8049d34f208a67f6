/// \file
/// cuModuleLoadDataEx's JIT options as JIT-based programs use them: info
/// and error log buffers with their sizes written back, verbose logging, the
/// wall time, the target taken from the context, an optimisation level, a
/// register cap and a block size to target. A good PTX string loads, logs
/// what was compiled and runs; a broken one fails with an error log that
/// names the line. Only properties of the logs are printed (their wording
/// belongs to the compiler), never their text.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "../common/driver_util.h"
#include <cuda.h>
#include <vector>

// out[i] = in[i] * in[i] + 1 for i < n.
static const char *GoodPtx = R"PTX(
.version 7.5
.target sm_75
.address_size 64

.visible .entry square_plus_one(
    .param .u64 out_p,
    .param .u64 in_p,
    .param .u32 n)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<8>;
    .reg .b64   %rd<8>;

    ld.param.u64    %rd1, [out_p];
    ld.param.u64    %rd2, [in_p];
    ld.param.u32    %r1, [n];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.u32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32    %rd5, %r5, 4;
    add.s64         %rd6, %rd4, %rd5;
    ld.global.u32   %r6, [%rd6];
    mad.lo.s32      %r7, %r6, %r6, 1;
    add.s64         %rd7, %rd3, %rd5;
    st.global.u32   [%rd7], %r7;
DONE:
    ret;
}
)PTX";

// Line 10 (counting the empty first line) uses an undeclared register.
static const char *BrokenPtx = R"PTX(
.version 7.5
.target sm_75
.address_size 64

.visible .entry broken(.param .u64 out_p)
{
    .reg .b64   %rd<2>;
    ld.param.u64    %rd1, [out_p];
    st.global.u32   [%rd1], %r_missing;
    ret;
}
)PTX";

/// Loads Ptx with every JIT option a JIT-based program commonly passes and
/// prints what came back. Returns the load's result.
static CUresult loadWithOptions(const char *What, const char *Ptx, CUmodule *Mod, const char *Kernel,
                                int Line) {
  static char InfoLog[8192], ErrorLog[8192];
  std::memset(InfoLog, 'x', sizeof InfoLog);
  std::memset(ErrorLog, 'x', sizeof ErrorLog);
  CUjit_option Opts[] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE,      CU_JIT_WALL_TIME,
                         CU_JIT_TARGET_FROM_CUCONTEXT, CU_JIT_OPTIMIZATION_LEVEL,
                         CU_JIT_MAX_REGISTERS};
  void *Vals[] = {InfoLog, (void *)(uintptr_t)sizeof InfoLog, ErrorLog, (void *)(uintptr_t)sizeof ErrorLog,
                  (void *)(uintptr_t)1, nullptr, nullptr, (void *)(uintptr_t)3, (void *)(uintptr_t)64};
  const unsigned N = sizeof Opts / sizeof Opts[0];
  CUresult R = cuModuleLoadDataEx(Mod, Ptx, N, Opts, Vals);
  const char *Name = "?";
  cuGetErrorName(R, &Name);
  size_t InfoBytes = size_t(uintptr_t(Vals[1])), ErrorBytes = size_t(uintptr_t(Vals[3]));
  float Ms = -1;
  std::memcpy(&Ms, &Vals[5], sizeof Ms);
  bool InfoTerminated = std::memchr(InfoLog, 0, sizeof InfoLog) != nullptr;
  bool ErrorTerminated = std::memchr(ErrorLog, 0, sizeof ErrorLog) != nullptr;
  std::printf("%s: load %s\n", What, Name);
  std::printf("%s: info log terminated=%s size written back=%s mentions %s=%s\n", What,
              InfoTerminated ? "yes" : "no",
              InfoTerminated && InfoBytes == std::strlen(InfoLog) ? "length" : "other",
              Kernel, InfoTerminated && std::strstr(InfoLog, Kernel) ? "yes" : "no");
  char LineText[32];
  std::snprintf(LineText, sizeof LineText, "line %d", Line);
  std::printf("%s: error log terminated=%s empty=%s size written back=%s names %s=%s\n", What,
              ErrorTerminated ? "yes" : "no", ErrorTerminated && !ErrorLog[0] ? "yes" : "no",
              ErrorTerminated && ErrorBytes == std::strlen(ErrorLog) ? "length" : "other", LineText,
              ErrorTerminated && std::strstr(ErrorLog, LineText) ? "yes" : "no");
  std::printf("%s: wall time written=%s\n", What, Ms >= 0 && Ms < 60000 ? "yes" : "no");
  return R;
}

int main() {
  // The driver's JIT cache would answer a second run without compiling, and
  // then the info log is empty: every run compiles, so the log is the same.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  CU(cuInit(0));
  CUdevice Dev;
  CU(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CU(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CU(cuCtxSetCurrent(Ctx));

  CUmodule Good = nullptr, Broken = nullptr;
  CUresult GoodLoad = loadWithOptions("good PTX", GoodPtx, &Good, "square_plus_one", 0);
  CUresult BrokenLoad = loadWithOptions("broken PTX", BrokenPtx, &Broken, "broken", 10);

  // The block size a caller asks the compiler to target comes back.
  CUmodule Again = nullptr;
  CUjit_option TOpts[] = {CU_JIT_THREADS_PER_BLOCK};
  void *TVals[] = {(void *)(uintptr_t)128};
  CU(cuModuleLoadDataEx(&Again, GoodPtx, 1, TOpts, TVals));
  unsigned Targeted = unsigned(uintptr_t(TVals[0]));
  std::printf("threads per block targeted: %s\n", Targeted >= 128 && Targeted <= 1024 ? "128..1024" : "other");
  CU(cuModuleUnload(Again));

  // An unknown option is refused.
  CUjit_option Bad[] = {CUjit_option(9999)};
  void *BadVals[] = {nullptr};
  CUresult Unknown = cuModuleLoadDataEx(&Again, GoodPtx, 1, Bad, BadVals);
  const char *UnknownName = "?";
  cuGetErrorName(Unknown, &UnknownName);
  std::printf("unknown option: %s\n", UnknownName);

  bool Ran = false;
  if (GoodLoad == CUDA_SUCCESS) {
    const unsigned N = 1000;
    std::vector<int> In(N), Out(N, 0);
    for (unsigned I = 0; I < N; ++I)
      In[I] = int(I % 97) - 40;
    CUfunction Fn;
    CU(cuModuleGetFunction(&Fn, Good, "square_plus_one"));
    CUdeviceptr DIn, DOut;
    CU(cuMemAlloc(&DIn, N * sizeof(int)));
    CU(cuMemAlloc(&DOut, N * sizeof(int)));
    CU(cuMemcpyHtoD(DIn, In.data(), N * sizeof(int)));
    unsigned Count = N;
    void *Args[] = {&DOut, &DIn, &Count};
    CU(cuLaunchKernel(Fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, Args, nullptr));
    CU(cuCtxSynchronize());
    CU(cuMemcpyDtoH(Out.data(), DOut, N * sizeof(int)));
    unsigned Bad = 0;
    for (unsigned I = 0; I < N; ++I)
      Bad += Out[I] != In[I] * In[I] + 1;
    std::printf("kernel results: mismatches=%u\n", Bad);
    Ran = Bad == 0;
    CU(cuMemFree(DIn));
    CU(cuMemFree(DOut));
    CU(cuModuleUnload(Good));
  }
  CU(cuDevicePrimaryCtxRelease(Dev));
  bool Ok = Ran && BrokenLoad == CUDA_ERROR_INVALID_PTX && Unknown == CUDA_ERROR_INVALID_VALUE;
  std::printf("%s\n", Ok ? "PASSED" : "FAILED");
  return Ok ? 0 : 1;
}
