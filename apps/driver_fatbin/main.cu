/// \file
/// Loading precompiled device code through the driver API: two fatbins made
/// by `nvcc -fatbin` (one compressed the default way, one with
/// --compress-mode=none) are embedded with .incbin, then loaded with
/// cuModuleLoadData, cuModuleLoadFatBinary and the CUDA 12 library API
/// (cuLibraryLoadData, cuLibraryGetKernel, cuKernelGetFunction); a module
/// global is patched with cuModuleGetGlobal before launching.
#include "../common/app_util.h"
#include <cstring>
#include "../common/driver_util.h"
#include <cuda.h>
#include <vector>

// The build writes kernels.fatbin and kernels_nc.fatbin into its output
// directory and names it with -I<dir>, which gcc also hands to the assembler
// for .incbin.
asm(".section .rodata\n"
    ".balign 16\n"
    ".globl kernelsFatbin\n"
    "kernelsFatbin:\n"
    ".incbin \"kernels.fatbin\"\n"
    ".byte 0\n"
    ".balign 16\n"
    ".globl kernelsFatbinNc\n"
    "kernelsFatbinNc:\n"
    ".incbin \"kernels_nc.fatbin\"\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const unsigned char kernelsFatbin[], kernelsFatbinNc[];

static int runHistogram(CUfunction Fn, CUdeviceptr Data, int N, CUdeviceptr Bins, const std::vector<unsigned> &Want) {
  CU(cuMemsetD32(Bins, 0, 256));
  void *Params[] = {&Data, &N, &Bins};
  CU(cuLaunchKernel(Fn, 16, 1, 1, 256, 1, 1, 0, nullptr, Params, nullptr));
  CU(cuCtxSynchronize());
  std::vector<unsigned> Got(256);
  CU(cuMemcpyDtoH(Got.data(), Bins, 256 * sizeof(unsigned)));
  int Bad = 0;
  for (int I = 0; I < 256; ++I)
    Bad += Got[I] != Want[I];
  return Bad;
}

int main() {
  unsigned Magic = 0;
  std::memcpy(&Magic, kernelsFatbin, 4);
  std::printf("embedded fatbin magic=%08x\n", Magic);
  CU(cuInit(0));
  CUdevice Dev;
  CU(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CU(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CU(cuCtxSetCurrent(Ctx));

  const int N = 100000;
  std::vector<unsigned char> Data(N);
  Lcg Rng(256);
  for (auto &B : Data)
    B = (unsigned char)(Rng.below(256) & Rng.below(256));
  std::vector<unsigned> Want(256, 0);
  for (auto B : Data)
    Want[B]++;
  CUdeviceptr DData, DBins;
  CU(cuMemAlloc(&DData, N));
  CU(cuMemAlloc(&DBins, 256 * sizeof(unsigned)));
  CU(cuMemcpyHtoD(DData, Data.data(), N));

  CUmodule M1, M2;
  CU(cuModuleLoadData(&M1, kernelsFatbin));
  CU(cuModuleLoadFatBinary(&M2, kernelsFatbinNc));
  CUfunction H1, H2;
  CU(cuModuleGetFunction(&H1, M1, "histogram256"));
  CU(cuModuleGetFunction(&H2, M2, "histogram256"));
  int Bad1 = runHistogram(H1, DData, N, DBins, Want);
  int Bad2 = runHistogram(H2, DData, N, DBins, Want);
  std::printf("histogram via cuModuleLoadData: mismatches=%d\n", Bad1);
  std::printf("histogram via cuModuleLoadFatBinary (uncompressed): mismatches=%d\n", Bad2);
  std::printf("bin0=%u bin255=%u\n", Want[0], Want[255]);

  // Library API, and a module global patched before the launch.
  CUlibrary Lib;
  CU(cuLibraryLoadData(&Lib, kernelsFatbin, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel K;
  CU(cuLibraryGetKernel(&K, Lib, "addBias"));
  CUfunction AddBias;
  CU(cuKernelGetFunction(&AddBias, K));
  CUdeviceptr BiasPtr;
  size_t BiasSize;
  CU(cuLibraryGetGlobal(&BiasPtr, &BiasSize, Lib, "Bias"));
  int Initial = 0, NewBias = -3;
  CU(cuMemcpyDtoH(&Initial, BiasPtr, sizeof(int)));
  CU(cuMemcpyHtoD(BiasPtr, &NewBias, sizeof(int)));
  const int M = 1000;
  std::vector<int> Ints(M);
  for (int I = 0; I < M; ++I)
    Ints[I] = I;
  CUdeviceptr DInts;
  CU(cuMemAlloc(&DInts, M * sizeof(int)));
  CU(cuMemcpyHtoD(DInts, Ints.data(), M * sizeof(int)));
  int MArg = M;
  void *Params[] = {&DInts, &MArg};
  CU(cuLaunchKernel(AddBias, (M + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, Params, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(Ints.data(), DInts, M * sizeof(int)));
  int Bad3 = 0;
  for (int I = 0; I < M; ++I)
    Bad3 += Ints[I] != I - 3;
  std::printf("library kernel: initial bias=%d global size=%zu mismatches=%d\n", Initial, BiasSize, Bad3);

  CU(cuMemFree(DData));
  CU(cuMemFree(DBins));
  CU(cuMemFree(DInts));
  CU(cuModuleUnload(M1));
  CU(cuModuleUnload(M2));
  CU(cuLibraryUnload(Lib));
  CU(cuDevicePrimaryCtxRelease(Dev));
  return finish(Bad1 == 0 && Bad2 == 0 && Bad3 == 0 && Initial == 5);
}
