// Corpus: cooperative groups: block, tiles, coalesced groups, collectives,
// grid-wide sync, and thread-block clusters on sm_90.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void coopGrid(int *data, int *sum, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
  int i = grid.thread_rank();
  int v = i < n ? data[i] : 0;
  int ws = cg::reduce(warp, v, cg::plus<int>());
  int t8 = cg::reduce(tile8, v, cg::greater<int>());
  int sc = cg::exclusive_scan(warp, v, cg::plus<int>());
  v += warp.shfl(v, 0) + warp.shfl_down(v, 1) + warp.shfl_xor(v, 2) + (int)warp.ballot(v > 0) + warp.any(v) + warp.all(v);
  if (warp.thread_rank() == 0)
    atomicAdd(sum, ws + t8);
  grid.sync();
  if (i < n)
    data[i] = v + *sum + sc + (int)block.group_index().x + (int)block.thread_index().y + (int)grid.size();
  cg::coalesced_group active = cg::coalesced_threads();
  if (v & 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    data[i] += odd.size() + odd.thread_rank() + odd.shfl(v, 0);
  }
  cg::thread_group part = cg::tiled_partition(block, 4);
  part.sync();
  block.sync();
  data[i] += active.num_threads() + (int)cg::labeled_partition(warp, v & 3).size();
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) clusterKernel(int *out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int smem[64];
  smem[threadIdx.x] = threadIdx.x + cluster.block_rank();
  cluster.sync();
  int *peer = cluster.map_shared_rank(smem, (cluster.block_rank() + 1) % cluster.num_blocks());
  out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x] + cluster.dim_blocks().x + cluster.block_index().x;
  cluster.sync();
}
#else
__global__ void clusterKernel(int *out) { out[0] = 0; }
#endif
