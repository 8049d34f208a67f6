/// \file
/// hsa-float-atomic-probe: atom.global.add.f32 from a whole block at once,
/// through libcuda.so's C API: every thread adds to one word (on the AMD
/// backend the wave-serialized loop of hsa/LowerFloat.cpp) or to one of four
/// (one loop per lane, lanes colliding). What must hold whatever order the
/// adds take (PTX ISA 9.7.13.5; the H100 goldens of tests/ptx-conformance
/// show the flushing and the canonical NaN):
///   - small integers: the final sum is exact, and the old values, sorted,
///     are a chain where each next old is the previous one plus the value of
///     the thread that saw it (one add per thread, none lost or repeated);
///   - subnormal operands are flushed: memory stays +0 and every old is +0;
///   - a signalling NaN operand gives the canonical NaN 0x7fffffff.
/// Prints one line per case and exits 1 on any failure. Run by ctest on
/// simulated gfx942 and gfx1100 and on the host backend.
#include "ferry/generated/DriverApi.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const char *Ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry add(.param .u64 mem, .param .u64 vals, .param .u64 olds, .param .u32 words)
{
  .reg .u32 %r<4>;
  .reg .u64 %rd<10>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [mem];
  ld.param.u64 %rd2, [vals];
  ld.param.u64 %rd3, [olds];
  ld.param.u32 %r2, [words];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  rem.u32 %r3, %r1, %r2;
  mul.wide.u32 %rd6, %r3, 4;
  add.u64 %rd7, %rd1, %rd6;
  atom.global.add.f32 %f2, [%rd7], %f1;
  add.u64 %rd8, %rd3, %rd4;
  st.global.f32 [%rd8], %f2;
  ret;
}
)";

constexpr unsigned Threads = 256;

bool check(CUresult R, const char *What) {
  if (R != CUDA_SUCCESS)
    std::printf("FAIL %s: CUresult %d\n", What, int(R));
  return R == CUDA_SUCCESS;
}

uint32_t bits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

float fromBits(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

struct Run {
  std::vector<uint32_t> Mem, Olds;
};

bool launch(CUfunction Fn, const std::vector<uint32_t> &Vals, unsigned Words, Run &Out) {
  CUdeviceptr Mem = 0, V = 0, O = 0;
  bool Ok = check(cuMemAlloc_v2(&Mem, 16), "cuMemAlloc") && check(cuMemAlloc_v2(&V, Threads * 4), "cuMemAlloc") &&
            check(cuMemAlloc_v2(&O, Threads * 4), "cuMemAlloc") && check(cuMemsetD32_v2(Mem, 0, 4), "cuMemsetD32") &&
            check(cuMemcpyHtoD_v2(V, Vals.data(), Threads * 4), "cuMemcpyHtoD");
  void *Params[] = {&Mem, &V, &O, &Words};
  Ok = Ok && check(cuLaunchKernel(Fn, 1, 1, 1, Threads, 1, 1, 0, nullptr, Params, nullptr), "cuLaunchKernel") &&
       check(cuCtxSynchronize(), "cuCtxSynchronize");
  Out.Mem.assign(4, 0);
  Out.Olds.assign(Threads, 0);
  Ok = Ok && check(cuMemcpyDtoH_v2(Out.Mem.data(), Mem, 16), "cuMemcpyDtoH") &&
       check(cuMemcpyDtoH_v2(Out.Olds.data(), O, Threads * 4), "cuMemcpyDtoH");
  cuMemFree_v2(Mem);
  cuMemFree_v2(V);
  cuMemFree_v2(O);
  return Ok;
}

/// Small integers: exact sums in every order; the olds of each word, sorted,
/// must chain through the thread values.
bool integers(CUfunction Fn, unsigned Words) {
  std::vector<uint32_t> Vals(Threads);
  for (unsigned T = 0; T < Threads; ++T)
    Vals[T] = bits(float(T % 7 + 1));
  Run R;
  if (!launch(Fn, Vals, Words, R))
    return false;
  bool Ok = true;
  for (unsigned W = 0; W < Words; ++W) {
    std::vector<std::pair<float, float>> Seen; // (old, value)
    float Sum = 0;
    for (unsigned T = W; T < Threads; T += Words) {
      Seen.push_back({fromBits(R.Olds[T]), fromBits(Vals[T])});
      Sum += fromBits(Vals[T]);
    }
    std::sort(Seen.begin(), Seen.end());
    float Chain = 0;
    for (auto &[Old, Val] : Seen) {
      if (Old != Chain) {
        std::printf("FAIL integers words=%u: word %u: an old value %g where the chain is at %g\n", Words, W,
                    double(Old), double(Chain));
        Ok = false;
        break;
      }
      Chain += Val;
    }
    if (fromBits(R.Mem[W]) != Sum) {
      std::printf("FAIL integers words=%u: word %u holds %g, expected %g\n", Words, W, double(fromBits(R.Mem[W])),
                  double(Sum));
      Ok = false;
    }
  }
  std::printf("%s integers words=%u\n", Ok ? "ok" : "FAIL", Words);
  return Ok;
}

bool subnormals(CUfunction Fn, unsigned Words) {
  std::vector<uint32_t> Vals(Threads, 0x00000100u); // 3.6e-43, subnormal
  Run R;
  if (!launch(Fn, Vals, Words, R))
    return false;
  bool Ok = true;
  for (unsigned W = 0; W < Words; ++W)
    Ok = Ok && R.Mem[W] == 0;
  for (uint32_t O : R.Olds)
    Ok = Ok && O == 0;
  std::printf("%s subnormals flushed words=%u (word 0: 0x%08x)\n", Ok ? "ok" : "FAIL", Words, R.Mem[0]);
  return Ok;
}

bool nan(CUfunction Fn, unsigned Words) {
  std::vector<uint32_t> Vals(Threads, bits(1.0f));
  for (unsigned W = 0; W < Words; ++W)
    Vals[5 * Words + W] = 0xffa00001u; // signalling, negative, with payload
  Run R;
  if (!launch(Fn, Vals, Words, R))
    return false;
  bool Ok = true;
  for (unsigned W = 0; W < Words; ++W)
    Ok = Ok && R.Mem[W] == 0x7fffffffu;
  std::printf("%s canonical NaN words=%u (word 0: 0x%08x)\n", Ok ? "ok" : "FAIL", Words, R.Mem[0]);
  return Ok;
}

} // namespace

int main() {
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  CUmodule Mod = nullptr;
  CUfunction Fn = nullptr;
  if (!check(cuInit(0), "cuInit") || !check(cuDeviceGet(&Dev, 0), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent") || !check(cuModuleLoadData(&Mod, Ptx), "cuModuleLoadData") ||
      !check(cuModuleGetFunction(&Fn, Mod, "add"), "cuModuleGetFunction"))
    return 1;
  char Name[256] = "?";
  cuDeviceGetName(Name, sizeof Name, Dev);
  std::printf("device: %s\n", Name);
  bool Ok = true;
  for (unsigned Words : {1u, 4u}) {
    Ok = integers(Fn, Words) && Ok;
    Ok = subnormals(Fn, Words) && Ok;
    Ok = nan(Fn, Words) && Ok;
  }
  return Ok ? 0 : 1;
}
