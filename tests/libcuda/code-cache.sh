#!/bin/sh
# The on-disk code cache through a real program: a first run fills an empty
# cache, a second run loads every module from it (compiles nothing), and
# after every entry is damaged a third run detects that, rebuilds and still
# computes the right answer.
#   code-cache.sh PROGRAM LIBDIR SCRATCH
set -eu
prog=$1 lib=$2 dir=$3/code-cache
rm -rf "$dir"
run() { env LD_LIBRARY_PATH="$lib" FERRY_BACKEND=host CUDA_CACHE_PATH="$dir" FERRY_LOG=cache=debug "$prog" 2>&1; }
first=$(run)
echo "$first" | grep -q "E2E OK" || { echo "first run failed: $first"; exit 1; }
echo "$first" | grep -q "loaded from the code cache" && { echo "an empty cache had hits"; exit 1; }
second=$(run)
echo "$second" | grep -q "E2E OK" || { echo "second run failed: $second"; exit 1; }
echo "$second" | grep -q "loaded from the code cache" || { echo "second run did not use the cache: $second"; exit 1; }
find "$dir" -type f ! -name '*.tmp*' | while read -r f; do
  printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
done
third=$(run)
echo "$third" | grep -q "E2E OK" || { echo "run after damage failed: $third"; exit 1; }
echo "$third" | grep -q "discarding corrupt cache entry" || { echo "damage went unnoticed: $third"; exit 1; }
echo "CODE CACHE OK"
