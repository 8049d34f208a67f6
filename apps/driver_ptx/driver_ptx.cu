/// \file
/// The driver API on its own, as JIT-based programs use it: cuInit, the
/// primary context, a module loaded from a PTX string written by hand and
/// embedded in the program (cuModuleLoadDataEx with JIT log options), a
/// module global read with cuModuleGetGlobal, launches with kernelParams and
/// with the packed CU_LAUNCH_PARAM_BUFFER_POINTER form, streams and events,
/// and the errors for a missing kernel name and for broken PTX.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "../common/driver_util.h"
#include <cuda.h>
#include <vector>

// out[i] = a * in[i] + i, and thread 0 counts launches in a module global.
static const char *Ptx = R"PTX(
.version 7.5
.target sm_75
.address_size 64

.visible .global .align 4 .u32 launch_count;

.visible .entry scale_add(
    .param .u64 out_p,
    .param .u64 in_p,
    .param .f32 a,
    .param .u32 n)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<8>;
    .reg .f32   %f<5>;
    .reg .b64   %rd<8>;

    ld.param.u64    %rd1, [out_p];
    ld.param.u64    %rd2, [in_p];
    ld.param.f32    %f1, [a];
    ld.param.u32    %r1, [n];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.s32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.s32    %rd5, %r5, 4;
    add.s64         %rd6, %rd4, %rd5;
    ld.global.f32   %f2, [%rd6];
    cvt.rn.f32.s32  %f3, %r5;
    fma.rn.f32      %f4, %f1, %f2, %f3;
    add.s64         %rd7, %rd3, %rd5;
    st.global.f32   [%rd7], %f4;
    setp.ne.s32     %p1, %r5, 0;
    @%p1 bra        DONE;
    atom.global.add.u32 %r6, [launch_count], 1;
DONE:
    ret;
}
)PTX";

static const char *BrokenPtx = ".version 7.5\n.target sm_75\n.address_size 64\n"
                               ".visible .entry broken() {\n  this is not ptx;\n}\n";

int main() {
  CU(cuInit(0));
  int Count = 0, Version = 0;
  CU(cuDeviceGetCount(&Count));
  CU(cuDriverGetVersion(&Version));
  std::printf("devices present: %s, driver version >= 13.0: %s\n", Count > 0 ? "yes" : "no",
              Version >= 13000 ? "yes" : "no");
  CUdevice Dev;
  CU(cuDeviceGet(&Dev, 0));
  int Warp = 0, MaxThreads = 0;
  CU(cuDeviceGetAttribute(&Warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, Dev));
  CU(cuDeviceGetAttribute(&MaxThreads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, Dev));
  std::printf("warp size=%d max threads per block=%d\n", Warp, MaxThreads);
  CUcontext Ctx;
  CU(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CU(cuCtxSetCurrent(Ctx));

  char InfoLog[4096] = {}, ErrorLog[4096] = {};
  CUjit_option Opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *OptVals[] = {InfoLog, (void *)(uintptr_t)sizeof(InfoLog), ErrorLog, (void *)(uintptr_t)sizeof(ErrorLog)};
  CUmodule Mod;
  CU(cuModuleLoadDataEx(&Mod, Ptx, 4, Opts, OptVals));
  CUfunction Fn;
  CU(cuModuleGetFunction(&Fn, Mod, "scale_add"));
  CUdeviceptr Counter;
  size_t CounterSize = 0;
  CU(cuModuleGetGlobal(&Counter, &CounterSize, Mod, "launch_count"));
  std::printf("module global size=%zu\n", CounterSize);

  const int N = 10000;
  std::vector<float> In(N), Out(N);
  for (int I = 0; I < N; ++I)
    In[I] = float((I * 37) % 1000) * 0.01f - 5.0f;
  CUdeviceptr DIn, DOut;
  CU(cuMemAlloc(&DIn, N * sizeof(float)));
  CU(cuMemAlloc(&DOut, N * sizeof(float)));
  CU(cuMemcpyHtoD(DIn, In.data(), N * sizeof(float)));
  CU(cuMemsetD32(DOut, 0, N));

  // Launch 1: kernelParams.
  float A = 1.5f;
  unsigned NArg = N;
  void *Params[] = {&DOut, &DIn, &A, &NArg};
  CU(cuLaunchKernel(Fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, Params, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(Out.data(), DOut, N * sizeof(float)));
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    Bad += Out[I] != std::fmaf(1.5f, In[I], float(I));
  std::printf("kernelParams launch: mismatches=%d\n", Bad);

  // Launch 2: one packed argument buffer laid out with the PTX alignments.
  struct {
    CUdeviceptr Out, In;
    float A;
    unsigned N;
  } Packed = {DOut, DIn, -0.25f, unsigned(N)};
  size_t PackedSize = sizeof(Packed);
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &Packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &PackedSize,
                   CU_LAUNCH_PARAM_END};
  CUstream S;
  CU(cuStreamCreate(&S, CU_STREAM_DEFAULT));
  CUevent E0, E1;
  CU(cuEventCreate(&E0, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&E1, CU_EVENT_DEFAULT));
  CU(cuEventRecord(E0, S));
  CU(cuLaunchKernel(Fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, S, nullptr, Extra));
  CU(cuEventRecord(E1, S));
  CU(cuStreamSynchronize(S));
  float Ms = 0;
  CU(cuEventElapsedTime(&Ms, E0, E1));
  std::printf("time: packed launch %.3f ms\n", Ms);
  CU(cuMemcpyDtoH(Out.data(), DOut, N * sizeof(float)));
  int Bad2 = 0;
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    float W = std::fmaf(-0.25f, In[I], float(I));
    Bad2 += Out[I] != W;
    Sum += W;
  }
  unsigned Launches = 0;
  CU(cuMemcpyDtoH(&Launches, Counter, sizeof(unsigned)));
  std::printf("extra-buffer launch: mismatches=%d checksum=%.2f launches counted=%u\n", Bad2, Sum, Launches);

  CUfunction Missing;
  CUresult R = cuModuleGetFunction(&Missing, Mod, "no_such_kernel");
  const char *Name = "?";
  cuGetErrorName(R, &Name);
  std::printf("missing kernel: %s\n", Name);
  CUmodule BadMod;
  R = cuModuleLoadData(&BadMod, BrokenPtx);
  cuGetErrorName(R, &Name);
  std::printf("broken PTX: %s\n", Name);

  CU(cuEventDestroy(E0));
  CU(cuEventDestroy(E1));
  CU(cuStreamDestroy(S));
  CU(cuMemFree(DIn));
  CU(cuMemFree(DOut));
  CU(cuModuleUnload(Mod));
  CU(cuDevicePrimaryCtxRelease(Dev));
  bool Ok = Bad == 0 && Bad2 == 0 && Launches == 2 && Warp == 32;
  std::printf("%s\n", Ok ? "PASSED" : "FAILED");
  return Ok ? 0 : 1;
}
