#!/bin/sh
# Lazy loading on one core (taskset -c 0): cuModuleLoadData of the
# 320-kernel module (gen_kernels.py) to its first launch's completion,
# cold (empty code cache) and cached, lazy (the default) and eager; then
# every kernel's first launch (one compile each), and ptxas on the same PTX.
# With CUB=1 also CUB's device algorithms (cub_algos.cu, nvcc-built) run
# over ferry's libcuda, lazy and eager. With HSA=gfx942 (or another
# simulated target) the module runs on the AMD backend over sim/'s
# simulated GPU instead (lazy only: EAGER compiles all 320 kernels).
#   bench/lazy/run.sh [BUILD_DIR]      (default: build)
set -eu
b=${1:-build}
bench=$b/bin/ferry-bench-lazy
ptx=$b/bench/ptx/many_kernels.ptx
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ -n "${HSA:-}" ]; then
  for kind in cold cached; do
    [ $kind = cold ] && rm -rf "$scratch/cache"
    echo "== AMD backend, simulated $HSA, CUDA_MODULE_LOADING=LAZY, $kind"
    taskset -c 0 env FERRY_BACKEND=hsa FERRY_SIM="$HSA" CUDA_CACHE_PATH="$scratch/cache" "$b/bin/ferry" run -- "$bench" "$ptx"
  done
  exit 0
fi
one() { taskset -c 0 env FERRY_BACKEND=host CUDA_CACHE_PATH="$scratch/cache" "$@"; }
for mode in LAZY EAGER; do
  rm -rf "$scratch/cache"
  echo "== CUDA_MODULE_LOADING=$mode, cold"
  one CUDA_MODULE_LOADING=$mode "$bench" "$ptx"
  echo "== CUDA_MODULE_LOADING=$mode, cached"
  one CUDA_MODULE_LOADING=$mode "$bench" "$ptx"
done
rm -rf "$scratch/cache"
echo "== every kernel, lazy, cold"
one "$bench" "$ptx" --all | grep -v "^first launch of"
if command -v /usr/local/cuda/bin/ptxas > /dev/null; then
  echo "== ptxas -arch=sm_80 on the same PTX (320 kernels)"
  /usr/bin/time -f "ptxas: %e s" taskset -c 0 /usr/local/cuda/bin/ptxas -arch=sm_80 "$ptx" -o "$scratch/out.cubin"
fi
if [ "${CUB:-0}" = 1 ]; then
  /usr/local/cuda/bin/nvcc -O2 -arch=sm_80 -o "$scratch/cub_algos" "$(dirname "$0")/cub_algos.cu"
  for mode in LAZY EAGER; do
    rm -rf "$scratch/cache"
    echo "== CUB, CUDA_MODULE_LOADING=$mode, cold"
    one LD_LIBRARY_PATH="$b/lib" CUDA_MODULE_LOADING=$mode "$scratch/cub_algos"
  done
fi
