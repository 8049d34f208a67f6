/// \file
/// tools/jit's stand-ins give ferry PTX where a client asked for a cubin:
/// NVRTC compiled for sm_80 and nvJitLink linking PTX for sm_90 both return
/// an image ferry's cuModuleLoadData accepts, whose kernel then runs; the
/// stand-in ptxas writes such an image to its -o file. NVIDIA's compilers
/// come from /usr/local/cuda; without them the tests are skipped.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const char *const Source = R"(extern "C" __global__ void twice(int *p) { p[threadIdx.x] *= 2; })";

/// A module's `twice` kernel run on 0..31; true when every value doubled.
bool runsTwice(const void *Image) {
  CUmodule M;
  if (cuModuleLoadData(&M, Image) != CUDA_SUCCESS)
    return false;
  CUfunction F;
  EXPECT_EQ(cuModuleGetFunction(&F, M, "twice"), CUDA_SUCCESS);
  CUdeviceptr D;
  EXPECT_EQ(cuMemAlloc(&D, 32 * sizeof(int)), CUDA_SUCCESS);
  std::vector<int> H(32);
  for (int I = 0; I < 32; ++I)
    H[I] = I;
  EXPECT_EQ(cuMemcpyHtoD(D, H.data(), 32 * sizeof(int)), CUDA_SUCCESS);
  void *Args[] = {&D};
  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoH(H.data(), D, 32 * sizeof(int)), CUDA_SUCCESS);
  bool Ok = true;
  for (int I = 0; I < 32; ++I)
    Ok &= H[I] == 2 * I;
  cuMemFree(D);
  cuModuleUnload(M);
  return Ok;
}

class StandIn : public ::testing::Test {
protected:
  void SetUp() override {
    if (access("/usr/local/cuda/lib64/libnvrtc.so.13", R_OK) != 0)
      GTEST_SKIP() << "NVIDIA's NVRTC is not installed";
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUdevice Dev;
    ASSERT_EQ(cuDeviceGet(&Dev, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, Dev), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  }
  CUcontext Ctx = nullptr;
};

/// NVRTC's PTX for Source, through the stand-in (Arch "-arch=sm_80" asks
/// for a cubin); Cubin gets what nvrtcGetCUBIN returns.
template <typename Fn> Fn sym(void *H, const char *Name) { return reinterpret_cast<Fn>(dlsym(H, Name)); }

TEST_F(StandIn, NvrtcCubinRequestGivesLoadablePtx) {
  void *H = dlopen(FERRY_JIT_DIR "/libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(H, nullptr) << dlerror();
  using Prog = void *;
  auto Create = sym<int (*)(Prog *, const char *, const char *, int, const char *const *,
                            const char *const *)>(H, "nvrtcCreateProgram");
  auto Compile = sym<int (*)(Prog, int, const char *const *)>(H, "nvrtcCompileProgram");
  auto CubinSize = sym<int (*)(Prog, size_t *)>(H, "nvrtcGetCUBINSize");
  auto Cubin = sym<int (*)(Prog, char *)>(H, "nvrtcGetCUBIN");
  auto Destroy = sym<int (*)(Prog *)>(H, "nvrtcDestroyProgram");
  ASSERT_TRUE(Create && Compile && CubinSize && Cubin && Destroy);
  for (const char *Arch : {"-arch=sm_80", "--gpu-architecture=sm_90a"}) {
    Prog P = nullptr;
    ASSERT_EQ(Create(&P, Source, "twice.cu", 0, nullptr, nullptr), 0);
    const char *Opts[] = {Arch};
    ASSERT_EQ(Compile(P, 1, Opts), 0) << Arch;
    size_t Size = 0;
    ASSERT_EQ(CubinSize(P, &Size), 0);
    std::vector<char> Image(Size);
    ASSERT_EQ(Cubin(P, Image.data()), 0);
    uint32_t Magic;
    std::memcpy(&Magic, Image.data(), 4);
    EXPECT_EQ(Magic, 0xBA55ED50u) << "a fatbin container, not SASS";
    EXPECT_TRUE(runsTwice(Image.data())) << Arch;
    Destroy(&P);
  }
  // A compile for a virtual architecture keeps NVRTC's own answer: no cubin.
  Prog P = nullptr;
  ASSERT_EQ(Create(&P, Source, "twice.cu", 0, nullptr, nullptr), 0);
  const char *Opts[] = {"-arch=compute_80"};
  ASSERT_EQ(Compile(P, 1, Opts), 0);
  size_t Size = 0;
  int R = CubinSize(P, &Size);
  EXPECT_TRUE(R != 0 || Size == 0) << R << " " << Size;
  Destroy(&P);
}

/// PTX of Source from the stand-in NVRTC for compute_90.
std::string ptxOf(void *Nvrtc) {
  using Prog = void *;
  Prog P = nullptr;
  auto Create = sym<int (*)(Prog *, const char *, const char *, int, const char *const *,
                            const char *const *)>(Nvrtc, "nvrtcCreateProgram");
  auto Compile = sym<int (*)(Prog, int, const char *const *)>(Nvrtc, "nvrtcCompileProgram");
  auto PtxSize = sym<int (*)(Prog, size_t *)>(Nvrtc, "nvrtcGetPTXSize");
  auto Ptx = sym<int (*)(Prog, char *)>(Nvrtc, "nvrtcGetPTX");
  const char *Opts[] = {"-arch=compute_90"};
  if (Create(&P, Source, "twice.cu", 0, nullptr, nullptr) || Compile(P, 1, Opts))
    return "";
  size_t Size = 0;
  PtxSize(P, &Size);
  std::string S(Size, '\0');
  Ptx(P, S.data());
  return S;
}

TEST_F(StandIn, NvJitLinkLinksPtxThroughTheDriver) {
  void *Nvrtc = dlopen(FERRY_JIT_DIR "/libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
  void *H = dlopen(FERRY_JIT_DIR "/libnvJitLink.so.13", RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(Nvrtc && H) << dlerror();
  std::string Ptx = ptxOf(Nvrtc);
  ASSERT_FALSE(Ptx.empty());
  using Link = void *;
  auto Create = sym<int (*)(Link *, uint32_t, const char **)>(H, "nvJitLinkCreate");
  auto AddData = sym<int (*)(Link, int, const void *, size_t, const char *)>(H, "__nvJitLinkAddData_13_0");
  auto Complete = sym<int (*)(Link)>(H, "nvJitLinkComplete");
  auto CubinSize = sym<int (*)(Link, size_t *)>(H, "nvJitLinkGetLinkedCubinSize");
  auto Cubin = sym<int (*)(Link, void *)>(H, "nvJitLinkGetLinkedCubin");
  auto Destroy = sym<int (*)(Link *)>(H, "nvJitLinkDestroy");
  ASSERT_TRUE(Create && AddData && Complete && CubinSize && Cubin && Destroy);
  Link L = nullptr;
  const char *Opts[] = {"-arch=sm_90"};
  ASSERT_EQ(Create(&L, 1, Opts), 0);
  ASSERT_EQ(AddData(L, /*NVJITLINK_INPUT_PTX*/ 2, Ptx.data(), Ptx.size(), "twice.ptx"), 0);
  ASSERT_EQ(Complete(L), 0);
  size_t Size = 0;
  ASSERT_EQ(CubinSize(L, &Size), 0);
  std::vector<char> Image(Size);
  ASSERT_EQ(Cubin(L, Image.data()), 0);
  EXPECT_TRUE(runsTwice(Image.data()));
  Destroy(&L);
  // No -arch: nvJitLink's own error.
  Link Bad = nullptr;
  EXPECT_EQ(Create(&Bad, 0, nullptr), /*NVJITLINK_ERROR_MISSING_ARCH*/ 2);
}

TEST_F(StandIn, PtxasWritesLoadableImage) {
  void *Nvrtc = dlopen(FERRY_JIT_DIR "/libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(Nvrtc, nullptr);
  std::string Dir = ::testing::TempDir();
  std::string In = Dir + "/standin-twice.ptx", Out = Dir + "/standin-twice.cubin";
  std::ofstream(In) << ptxOf(Nvrtc);
  std::string Cmd = std::string(FERRY_JIT_DIR "/bin/ptxas -lineinfo -v --gpu-name=sm_90a ") + In +
                    " -o " + Out;
  ASSERT_EQ(std::system(Cmd.c_str()), 0) << Cmd;
  std::ifstream F(Out, std::ios::binary);
  std::stringstream S;
  S << F.rdbuf();
  std::string Image = S.str();
  ASSERT_GT(Image.size(), 16u);
  EXPECT_TRUE(runsTwice(Image.data()));
}

} // namespace
