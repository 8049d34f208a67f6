/* A minimal stand-in driver for the tracer test: cuGetProcAddress_v2 hands
   out cuMemAlloc_v2 for "cuMemAlloc"@3020+, which "allocates" at 0x1000. */
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

__attribute__((visibility("default"))) CUresult cuMemAlloc_v2(CUdeviceptr *p, unsigned long n) {
  if (!p)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  *p = 0x1000 + n;
  return 0;
}

__attribute__((visibility("default"))) CUresult cuInit(unsigned flags) { return flags ? 1 : 0; }

__attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *sym, void **pfn, int version, unsigned long long flags, int *found) {
  if (strcmp(sym, "cuMemAlloc") == 0 && version >= 3020) {
    *pfn = (void *)&cuMemAlloc_v2;
    if (found)
      *found = 0;
    return 0;
  }
  *pfn = 0;
  if (found)
    *found = 1;
  return 500; /* CUDA_ERROR_NOT_FOUND */
}
