#!/bin/sh
# Lazy loading (issue 20) through a module of 320 kernels
# (bench/lazy/gen_kernels.py): a program launching 3 of them compiles those
# 3 and the module's variables, nothing else; a second run compiles nothing
# (every piece comes from the code cache). Both runs compute the same
# result (the launch counter, a __device__ variable the two "bias" kernels
# share, read back with cuModuleGetGlobal). (EAGER loading of this module
# takes minutes on one core: libcuda_eager_load checks EAGER on a small
# program.)
# BACKEND_ENV (default FERRY_BACKEND=host) picks the backend: the AMD one
# (simulated) compiles pieces that reach the variables through cells
# (ptx/lower/Pieces.h), and must compile no more than the host does.
#   lazy-load.sh BENCH PTX LIBDIR SCRATCH [BACKEND_ENV...]
set -eu
bench=$1 ptx=$2 lib=$3 dir=$4/lazy-cache$#
shift 4
[ $# -gt 0 ] || set -- FERRY_BACKEND=host
rm -rf "$dir"
run() {
  env LD_LIBRARY_PATH="$lib" "$@" CUDA_CACHE_PATH="$dir" FERRY_LOG=warn,jit=debug,cache=debug,hsa=info \
    "$bench" "$ptx" mmv_f32_4_128_plain mmv_f16_8_256_bias mmv_i32_2_64_bias 2>&1
}
count() { echo "$1" | grep -c "$2" || true; }
first=$(run "$@")
echo "$first" | grep -q "bias kernels launched (mmv_launches): 2" || { echo "first run failed: $first"; exit 1; }
case "$*" in
*FERRY_BACKEND=hsa*) echo "$first" | grep -q "ferry.hsa.*GPU 0: AMD" || { echo "not on the AMD backend: $first"; exit 1; } ;;
esac
n=$(count "$first" "lazy loading: compiling kernel ")
[ "$n" = 3 ] || { echo "first run compiled $n kernels, not 3: $first"; exit 1; }
n=$(count "$first" "lazy loading: compiling the module's variables")
[ "$n" = 1 ] || { echo "first run compiled the variables $n times, not once: $first"; exit 1; }
echo "$first" | grep -q "compiling the whole image" && { echo "lazy run compiled the whole image: $first"; exit 1; }
second=$(run "$@")
echo "$second" | grep -q "bias kernels launched (mmv_launches): 2" || { echo "second run failed: $second"; exit 1; }
n=$(count "$second" "lazy loading: compiling ")
[ "$n" = 0 ] || { echo "second run compiled $n pieces, not 0: $second"; exit 1; }
n=$(count "$second" "loaded from the code cache")
[ "$n" = 4 ] || { echo "second run loaded $n pieces from the cache, not 4: $second"; exit 1; }
echo "LAZY LOAD OK"
