// Corpus: warp intrinsics, votes, matches, reductions, special registers,
// clocks, sleeps, barriers and memory fences.
#include <cstdint>

__global__ void warpOps(int *out, float *f, double *d, long long *ll, unsigned *mask) {
  int lane = threadIdx.x & 31;
  unsigned full = 0xffffffffu;
  int v = out[threadIdx.x];
  v += __shfl_sync(full, v, 3) + __shfl_up_sync(full, v, 1) + __shfl_down_sync(full, v, 2, 16) +
       __shfl_xor_sync(full, v, 4, 8);
  float fv = __shfl_sync(full, f[lane], lane ^ 1) + __shfl_xor_sync(full, f[lane], 16);
  double dv = __shfl_down_sync(full, d[lane], 1);
  long long lv = __shfl_up_sync(full, ll[lane], 2);
  unsigned b = __ballot_sync(full, v > 0);
  int all = __all_sync(full, v != 3), any = __any_sync(full, v == 7), uni = __uni_sync(full, v & 1);
  unsigned act = __activemask();
  unsigned m1 = __match_any_sync(full, v);
  int pred;
  unsigned m2 = __match_all_sync(full, (long long)v, &pred);
#if __CUDA_ARCH__ >= 800
  v += __reduce_add_sync(full, v) + __reduce_min_sync(full, v) + (int)__reduce_max_sync(full, (unsigned)v) +
       (int)__reduce_and_sync(full, (unsigned)v) + (int)__reduce_or_sync(full, (unsigned)v) +
       (int)__reduce_xor_sync(full, (unsigned)v);
#endif
  __syncwarp();
  __syncwarp(b | 1);
  unsigned lt, le, gt, ge, eq, smid, warpid, nsmid, laneid;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));
  unsigned nwarp, grid, esz, dsz, tsz, env, clk, pm;
  unsigned long long gtime, clk64, gridid;
  asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(gridid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gtime));
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(grid));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tsz));
  asm volatile("mov.u32 %0, %%envreg3;" : "=r"(env));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(clk));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk64));
  asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(esz));
  long long c = clock64() + clock();
  __nanosleep(100);
  __threadfence(); __threadfence_block(); __threadfence_system();
  __syncthreads();
  int cnt = __syncthreads_count(v > 2), band = __syncthreads_and(v > 1), bor = __syncthreads_or(v > 5);
  out[threadIdx.x] = v + (int)fv + (int)dv + (int)lv + (int)b + all + any + uni + (int)act + (int)m1 + (int)m2 + pred +
                     (int)(lt ^ le ^ gt ^ ge ^ eq ^ smid ^ warpid ^ nsmid ^ laneid ^ nwarp ^ grid ^ esz ^ dsz ^ tsz ^ env ^
                           clk ^ pm) + (int)(gtime + clk64 + gridid + c) + cnt + band + bor + lane;
  mask[blockIdx.x] = __ballot_sync(full, 1) + blockDim.y * gridDim.z + threadIdx.z + blockIdx.y;
}
