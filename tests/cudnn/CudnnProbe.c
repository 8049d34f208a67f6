/* \file
 * ferry's libcudnn.so.9 (libs/cudnn): what a client asks at start-up is
 * answered as NVIDIA's cuDNN 9.19 answers it (values from cudnn_version.h
 * and cudnn_graph.h), and a computation is refused with
 * CUDNN_STATUS_NOT_SUPPORTED, never faked. Loaded by name, as XLA does.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int Failures;
#define CHECK(Cond)                                                                                \
  do {                                                                                             \
    if (!(Cond)) {                                                                                 \
      printf("FAIL line %d: %s\n", __LINE__, #Cond);                                               \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)

int main(void) {
  void *L = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
  if (!L) {
    printf("FAIL: %s\n", dlerror());
    return 1;
  }
  size_t (*Version)(void) = (size_t (*)(void))dlsym(L, "cudnnGetVersion");
  int (*Property)(int, int *) = (int (*)(int, int *))dlsym(L, "cudnnGetProperty");
  int (*Create)(void **) = (int (*)(void **))dlsym(L, "cudnnCreate");
  int (*Destroy)(void *) = (int (*)(void *))dlsym(L, "cudnnDestroy");
  int (*SetStream)(void *, void *) = (int (*)(void *, void *))dlsym(L, "cudnnSetStream");
  int (*GetStream)(void *, void **) = (int (*)(void *, void **))dlsym(L, "cudnnGetStream");
  const char *(*ErrorString)(int) = (const char *(*)(int))dlsym(L, "cudnnGetErrorString");
  int (*BackendCreate)(int, void **) = (int (*)(int, void **))dlsym(L, "cudnnBackendCreateDescriptor");
  CHECK(Version && Property && Create && Destroy && SetStream && GetStream && ErrorString && BackendCreate);
  if (Failures)
    return 1;
  CHECK(Version() == 91900);
  int Major = -1, Minor = -1, Patch = -1;
  CHECK(Property(0, &Major) == 0 && Major == 9);
  CHECK(Property(1, &Minor) == 0 && Minor == 19);
  CHECK(Property(2, &Patch) == 0 && Patch == 0);
  CHECK(Property(0, NULL) == 2002); // CUDNN_STATUS_BAD_PARAM_NULL_POINTER
  void *H = NULL, *S = NULL;
  CHECK(Create(&H) == 0 && H);
  CHECK(SetStream(H, (void *)0x1234) == 0);
  CHECK(GetStream(H, &S) == 0 && S == (void *)0x1234);
  void *Desc = NULL;
  CHECK(BackendCreate(0, &Desc) == 3000); // CUDNN_STATUS_NOT_SUPPORTED
  CHECK(strcmp(ErrorString(3000), "CUDNN_STATUS_NOT_SUPPORTED") == 0);
  CHECK(Destroy(H) == 0);
  CHECK(Destroy(H) == 2000); // CUDNN_STATUS_BAD_PARAM: not a live handle
  // A legacy computation is not exported: a client resolving it by name sees
  // it missing rather than a call that does nothing.
  CHECK(dlsym(L, "cudnnConvolutionForward") == NULL);
  printf("%s\n", Failures ? "FAILED" : "cudnn.probe: ok");
  return Failures ? 1 : 0;
}
