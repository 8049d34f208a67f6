/* Loads "libcuda.so.1" the way NVIDIA's cudart does (dlopen + one dlsym of
   cuGetProcAddress_v2) and makes calls through the pointers it gets. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*GetProc)(const char *, void **, int, unsigned long long, int *);
typedef int (*MemAlloc)(unsigned long long *, unsigned long);
typedef int (*Init)(unsigned);

int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  GetProc gp = (GetProc)dlsym(h, "cuGetProcAddress_v2");
  void *fn = 0;
  int found = -1;
  int r = gp("cuMemAlloc", &fn, 13000, 0, &found);
  unsigned long long p = 0;
  int r2 = ((MemAlloc)fn)(&p, 24);
  int r3 = ((Init)dlsym(h, "cuInit"))(7);
  int r4 = gp("cuNoSuchThing", &fn, 13000, 0, &found);
  printf("client: %d %d %llx %d %d\n", r, r2, p, r3, r4);
  return 0;
}
