// Corpus: architecture-specific (sm_90a) forms through inline PTX: warpgroup
// MMA with its fences, register reallocation, cluster special registers and
// the async-proxy fence. Compiled only for sm_90a (see CMakeLists.txt).
#include <cstdint>

__global__ void __launch_bounds__(128) hopperKernel(float *out, uint64_t descA, uint64_t descB) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
  asm volatile("wgmma.fence.sync.aligned;");
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 1;\n}"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "l"(descA), "l"(descB), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;");
  asm volatile("wgmma.wait_group.sync.aligned 0;");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  unsigned rank, nrank, cx;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cx));
  asm volatile("fence.proxy.async.global;");
  out[threadIdx.x] = d0 + d1 + d2 + d3 + rank + nrank + cx;
#else
  out[threadIdx.x] = 0;
#endif
}
