/// \file
/// A PTX string written for 32-bit addressing (`.address_size 32`), as old
/// driver-API JIT samples embed it: pointers are .u32 parameters, converted
/// with cvta.to.global.u32 and dereferenced through 32-bit registers. The
/// module is loaded with cuModuleLoadDataEx and JIT log options, the memory
/// is allocated after it, and the kernel (data[i] = 3 * i + bias) runs on
/// arrays passed by their 32-bit addresses. A GPU of compute capability 9.0
/// or more refuses such PTX (ptxas: no 32-bit ABI on sm_90+): that clean
/// refusal, with its log, passes too.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "../common/driver_util.h"
#include <cuda.h>
#include <vector>

static const char *Ptx32 = R"PTX(
.version 7.0
.target sm_75
.address_size 32

.visible .entry fill_linear(
    .param .u32 data_p,
    .param .u32 bias_p,
    .param .u32 n)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<16>;

    ld.param.u32    %r1, [data_p];
    ld.param.u32    %r2, [bias_p];
    ld.param.u32    %r3, [n];
    cvta.to.global.u32 %r4, %r1;
    cvta.to.global.u32 %r5, %r2;
    mov.u32         %r6, %ctaid.x;
    mov.u32         %r7, %ntid.x;
    mov.u32         %r8, %tid.x;
    mad.lo.s32      %r9, %r6, %r7, %r8;
    setp.ge.u32     %p1, %r9, %r3;
    @%p1 bra        DONE;
    ld.global.u32   %r10, [%r5];
    mad.lo.s32      %r11, %r9, 3, %r10;
    shl.b32         %r12, %r9, 2;
    add.s32         %r13, %r4, %r12;
    st.global.u32   [%r13], %r11;
DONE:
    ret;
}
)PTX";

int main() {
  CU(cuInit(0));
  CUdevice Dev;
  CU(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CU(cuCtxCreate(&Ctx, nullptr, 0, Dev));
  char InfoLog[4096] = {}, ErrorLog[4096] = {};
  CUjit_option Opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_TARGET_FROM_CUCONTEXT};
  void *Vals[] = {InfoLog, (void *)(uintptr_t)sizeof InfoLog, ErrorLog, (void *)(uintptr_t)sizeof ErrorLog,
                  nullptr};
  CUmodule Mod;
  CUresult Load = cuModuleLoadDataEx(&Mod, Ptx32, 5, Opts, Vals);
  const char *LoadName = "?";
  cuGetErrorName(Load, &LoadName);
  std::printf("32-bit module load: %s\n", LoadName);
  if (Load != CUDA_SUCCESS) {
    // A clean refusal is an answer; a wrong result never is. ptxas refuses
    // 32-bit PTX for sm_90 and newer (an H100 does, with this log); older
    // GPUs run it.
    std::printf("error log: %s\n", ErrorLog);
    bool Clean = Load == CUDA_ERROR_INVALID_PTX && std::strstr(ErrorLog, "32-Bit") != nullptr;
    std::printf("%s\n", Clean ? "PASSED" : "FAILED");
    return Clean ? 0 : 1;
  }
  CUfunction Fn;
  CU(cuModuleGetFunction(&Fn, Mod, "fill_linear"));
  const unsigned N = 5000;
  CUdeviceptr Data, Bias;
  CU(cuMemAlloc(&Data, N * sizeof(unsigned)));
  CU(cuMemAlloc(&Bias, sizeof(unsigned)));
  unsigned BiasValue = 11;
  CU(cuMemcpyHtoD(Bias, &BiasValue, sizeof BiasValue));
  CU(cuMemsetD32(Data, 0xdeadbeef, N));
  // The kernel's pointer parameters are 32 bits wide, as the device's
  // addresses are in 32-bit mode.
  unsigned Data32 = unsigned(Data), Bias32 = unsigned(Bias), Count = N;
  std::printf("allocations reachable by 32-bit addresses: %s\n",
              (Data >> 32) == 0 && (Bias >> 32) == 0 ? "yes" : "no");
  void *Args[] = {&Data32, &Bias32, &Count};
  CUresult Launch = cuLaunchKernel(Fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, Args, nullptr);
  const char *LaunchName = "?";
  cuGetErrorName(Launch, &LaunchName);
  std::printf("launch: %s\n", LaunchName);
  unsigned Bad = N;
  if (Launch == CUDA_SUCCESS) {
    CU(cuCtxSynchronize());
    std::vector<unsigned> Out(N);
    CU(cuMemcpyDtoH(Out.data(), Data, N * sizeof(unsigned)));
    Bad = 0;
    for (unsigned I = 0; I < N; ++I)
      Bad += Out[I] != 3 * I + BiasValue;
    std::printf("results: mismatches=%u\n", Bad);
  }
  CU(cuMemFree(Data));
  CU(cuMemFree(Bias));
  CU(cuModuleUnload(Mod));
  CU(cuCtxDestroy(Ctx));
  bool Ok = Launch == CUDA_SUCCESS && Bad == 0;
  std::printf("%s\n", Ok ? "PASSED" : "FAILED");
  return Ok ? 0 : 1;
}
