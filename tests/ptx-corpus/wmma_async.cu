// Corpus: WMMA fragments (all layouts the arch supports), cp.async through
// the pipeline primitives and cooperative-groups memcpy_async, cuda::barrier
// and arrive/wait, ldmatrix/mma through inline PTX on sm_80+.
#include <mma.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
using namespace nvcuda;
namespace cg = cooperative_groups;

__global__ void wmmaHalf(const half *a, const half *b, const float *c, float *d, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, ld);
  wmma::load_matrix_sync(fb, b, ld);
  wmma::load_matrix_sync(fc, c, ld, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, ld, wmma::mem_col_major);
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> ga;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> gb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> gc;
  wmma::fill_fragment(gc, __float2half(0.0f));
  wmma::load_matrix_sync(ga, a, ld);
  wmma::load_matrix_sync(gb, b, ld);
  wmma::mma_sync(gc, ga, gb, gc);
  wmma::store_matrix_sync((half *)d, gc, ld, wmma::mem_row_major);
}

__global__ void wmmaInt(const signed char *a, const signed char *b, int *c, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, ld);
  wmma::load_matrix_sync(fb, b, ld);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync(c, fc, ld, wmma::mem_row_major);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__global__ void wmmaAmpere(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *ta, const float *tb, double *dd,
                           float *c, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, ld);
  wmma::load_matrix_sync(fb, b, ld);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> xa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> xb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> xc;
  wmma::fill_fragment(xc, 0.0f);
  wmma::load_matrix_sync(xa, ta, ld);
  wmma::load_matrix_sync(xb, tb, ld);
  for (int t = 0; t < xa.num_elements; ++t)
    xa.x[t] = wmma::__float_to_tf32(xa.x[t]);
  wmma::mma_sync(xc, xa, xb, xc);
  wmma::store_matrix_sync(c, xc, ld, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> db;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
  wmma::load_matrix_sync(da, dd, ld);
  wmma::load_matrix_sync(db, dd, ld);
  wmma::fill_fragment(dc, 0.0);
  wmma::mma_sync(dc, da, db, dc);
  wmma::store_matrix_sync(dd, dc, ld, wmma::mem_row_major);
  wmma::store_matrix_sync(c + 256, fc, ld, wmma::mem_col_major);
}

__global__ void asyncCopies(const float4 *g, float *out, int n) {
  __shared__ float4 tile[256];
  __shared__ float flat[1024];
  __pipeline_memcpy_async(&tile[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_memcpy_async(&flat[threadIdx.x], reinterpret_cast<const float *>(g) + threadIdx.x, sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, flat + 256, reinterpret_cast<const float *>(g) + 256, sizeof(float) * 256);
  cg::wait(block);
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (block.thread_rank() == 0)
    init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, flat + 512, reinterpret_cast<const float *>(g) + 512, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  unsigned a0, a1, a2, a3;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x & 15]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a0), "r"(a1), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
  out[threadIdx.x] = tile[threadIdx.x].x + flat[threadIdx.x] + flat[threadIdx.x + 512] + d0 + d1 + d2 + d3;
}
#else
__global__ void asyncCopies(const float4 *g, float *out, int n) { out[0] = g[0].x; }
#endif
