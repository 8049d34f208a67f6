/* \file
 * ferry's libnvrtc.so.13: a stand-in that forwards every call to NVIDIA's
 * NVRTC (loaded by absolute path) except where a client asks for machine
 * code. A compile for a real architecture (-arch=sm_90, --gpu-architecture
 * sm_90a) is done for the matching virtual one (compute_90, compute_90a), so
 * NVRTC emits PTX, and nvrtcGetCUBIN/GetCUBINSize return that PTX in a
 * fatbin container (FatbinWrap.h) that ferry's loader compiles. The client
 * (CuPy, or any program that JIT-compiles CUDA C++) changes nothing.
 *
 * NVIDIA's library is found at FERRY_NVRTC_LIBRARY, else
 * $CUDA_PATH/lib64/libnvrtc.so.13, else /usr/local/cuda/lib64. It is opened
 * by its resolved file name (libnvrtc.so.13.0.x), which ferry's LD_AUDIT
 * library does not redirect back here. Functions passed through unchanged
 * are one-instruction trampolines (an indirect jump), so their signatures
 * need not be repeated here.
 */
#define _GNU_SOURCE
#include "FatbinWrap.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
enum { NvrtcOutOfMemory = 1, NvrtcInvalidInput = 3, NvrtcInternalError = 11 };

#define FERRY_EXPORT __attribute__((visibility("default")))

/* Passed through unchanged. */
#define FERRY_NVRTC_FORWARDED(X)                                                                  \
  X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram)  \
  X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetLTOIRSize) X(nvrtcGetLTOIR)                        \
  X(nvrtcGetOptiXIRSize) X(nvrtcGetOptiXIR) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog)      \
  X(nvrtcAddNameExpression) X(nvrtcGetLoweredName) X(nvrtcGetPCHHeapSize)                        \
  X(nvrtcSetPCHHeapSize) X(nvrtcGetPCHCreateStatus) X(nvrtcGetPCHHeapSizeRequired)               \
  X(nvrtcSetFlowCallback) X(nvrtcGetTypeName)

static nvrtcResult missing(void) { return NvrtcInternalError; }

#define FERRY_DECLARE_SLOT(Name)                                                                  \
  __attribute__((visibility("hidden"))) void *ferrySlot_##Name = (void *)&missing;                \
  __asm__(".text\n.globl " #Name "\n.type " #Name ",@function\n" #Name ":\n"                     \
          "\tjmp *ferrySlot_" #Name "(%rip)\n.size " #Name ",.-" #Name "\n");
FERRY_NVRTC_FORWARDED(FERRY_DECLARE_SLOT)

static nvrtcResult (*RealCompile)(nvrtcProgram, int, const char *const *);
static nvrtcResult (*RealDestroy)(nvrtcProgram *);
static nvrtcResult (*RealGetCubinSize)(nvrtcProgram, size_t *);
static nvrtcResult (*RealGetCubin)(nvrtcProgram, char *);
static nvrtcResult (*RealGetPtxSize)(nvrtcProgram, size_t *);
static nvrtcResult (*RealGetPtx)(nvrtcProgram, char *);
static const char *(*RealErrorString)(nvrtcResult);

static void *openReal(void) {
  const char *Env = getenv("FERRY_NVRTC_LIBRARY");
  const char *CudaPath = getenv("CUDA_PATH");
  char Candidates[3][PATH_MAX];
  int N = 0;
  if (Env && *Env)
    snprintf(Candidates[N++], PATH_MAX, "%s", Env);
  if (CudaPath && *CudaPath)
    snprintf(Candidates[N++], PATH_MAX, "%s/lib64/libnvrtc.so.13", CudaPath);
  snprintf(Candidates[N++], PATH_MAX, "/usr/local/cuda/lib64/libnvrtc.so.13");
  for (int I = 0; I < N; ++I) {
    char Resolved[PATH_MAX];
    if (!realpath(Candidates[I], Resolved))
      continue;
    void *H = dlopen(Resolved, RTLD_NOW | RTLD_LOCAL);
    if (H)
      return H;
  }
  fprintf(stderr, "ferry: libnvrtc.so.13 stand-in cannot find NVIDIA's NVRTC (set "
                  "FERRY_NVRTC_LIBRARY or CUDA_PATH)\n");
  return NULL;
}

__attribute__((constructor)) static void loadReal(void) {
  void *H = openReal();
  if (!H)
    return;
#define FERRY_FILL_SLOT(Name)                                                                     \
  if (dlsym(H, #Name))                                                                            \
    ferrySlot_##Name = dlsym(H, #Name);
  FERRY_NVRTC_FORWARDED(FERRY_FILL_SLOT)
  RealCompile = dlsym(H, "nvrtcCompileProgram");
  RealDestroy = dlsym(H, "nvrtcDestroyProgram");
  RealGetCubinSize = dlsym(H, "nvrtcGetCUBINSize");
  RealGetCubin = dlsym(H, "nvrtcGetCUBIN");
  RealGetPtxSize = dlsym(H, "nvrtcGetPTXSize");
  RealGetPtx = dlsym(H, "nvrtcGetPTX");
  RealErrorString = dlsym(H, "nvrtcGetErrorString");
}

/* Programs compiled for a virtual architecture in place of a real one, and
 * their container once built. Few live at once; a list is enough. */
struct Steered {
  nvrtcProgram Prog;
  unsigned Sm;
  unsigned char *Fatbin;
  size_t Size;
  struct Steered *Next;
};
static struct Steered *SteeredList;
static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;

static struct Steered *findLocked(nvrtcProgram P) {
  for (struct Steered *S = SteeredList; S; S = S->Next)
    if (S->Prog == P)
      return S;
  return NULL;
}

static void forget(nvrtcProgram P) {
  pthread_mutex_lock(&Lock);
  for (struct Steered **L = &SteeredList; *L; L = &(*L)->Next)
    if ((*L)->Prog == P) {
      struct Steered *S = *L;
      *L = S->Next;
      free(S->Fatbin);
      free(S);
      break;
    }
  pthread_mutex_unlock(&Lock);
}

/* "sm_90a" → "compute_90a" in a new string; NULL if Arch is not sm_. */
static char *virtualArch(const char *Prefix, const char *Arch) {
  if (strncmp(Arch, "sm_", 3) != 0)
    return NULL;
  size_t N = strlen(Prefix) + strlen(Arch) + 8;
  char *S = malloc(N);
  if (S)
    snprintf(S, N, "%scompute_%s", Prefix, Arch + 3);
  return S;
}

FERRY_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram Prog, int NumOptions,
                                             const char *const *Options) {
  if (!RealCompile)
    return NvrtcInternalError;
  forget(Prog); /* a program may be compiled again */
  const char **Opts = calloc((size_t)(NumOptions > 0 ? NumOptions : 1), sizeof(char *));
  char **Owned = calloc((size_t)(NumOptions > 0 ? NumOptions : 1), sizeof(char *));
  if (!Opts || !Owned) {
    free(Opts);
    free(Owned);
    return NvrtcOutOfMemory;
  }
  unsigned Sm = 0;
  static const char *const Spellings[] = {"-arch=", "--gpu-architecture=", "-arch", "--gpu-architecture"};
  for (int I = 0; I < NumOptions; ++I) {
    Opts[I] = Options[I];
    for (int K = 0; K < 4 && !Owned[I]; ++K) {
      size_t L = strlen(Spellings[K]);
      if (K < 2 && strncmp(Options[I], Spellings[K], L) == 0) {
        if ((Owned[I] = virtualArch(Spellings[K], Options[I] + L)))
          Sm = ferryArchNumber(Options[I] + L);
      } else if (K >= 2 && strcmp(Options[I], Spellings[K]) == 0 && I + 1 < NumOptions) {
        Opts[I + 1] = Options[I + 1];
        if ((Owned[I + 1] = virtualArch("", Options[I + 1])))
          Sm = ferryArchNumber(Options[I + 1]);
        Opts[I + 1] = Owned[I + 1] ? Owned[I + 1] : Options[I + 1];
        ++I;
        break;
      }
    }
    if (I < NumOptions && Owned[I])
      Opts[I] = Owned[I];
  }
  nvrtcResult R = RealCompile(Prog, NumOptions, Opts);
  for (int I = 0; I < NumOptions; ++I)
    free(Owned[I]);
  free(Owned);
  free(Opts);
  if (R == 0 && Sm) {
    struct Steered *S = calloc(1, sizeof(*S));
    if (S) {
      S->Prog = Prog;
      S->Sm = Sm;
      pthread_mutex_lock(&Lock);
      S->Next = SteeredList;
      SteeredList = S;
      pthread_mutex_unlock(&Lock);
    }
  }
  return R;
}

/* The container for a steered program, built on first request. */
static struct Steered *containerOf(nvrtcProgram Prog, nvrtcResult *Err) {
  pthread_mutex_lock(&Lock);
  struct Steered *S = findLocked(Prog);
  if (S && !S->Fatbin) {
    size_t Size = 0;
    char *Ptx = NULL;
    *Err = RealGetPtxSize(Prog, &Size);
    if (*Err == 0 && !(Ptx = malloc(Size + 1)))
      *Err = NvrtcOutOfMemory;
    if (*Err == 0)
      *Err = RealGetPtx(Prog, Ptx);
    if (*Err == 0 && !(S->Fatbin = ferryWrapPtx(Ptx, Size, S->Sm, &S->Size)))
      *Err = NvrtcOutOfMemory;
    free(Ptx);
  }
  pthread_mutex_unlock(&Lock);
  return S;
}

FERRY_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram Prog, size_t *Size) {
  nvrtcResult Err = 0;
  struct Steered *S = containerOf(Prog, &Err);
  if (!S)
    return RealGetCubinSize ? RealGetCubinSize(Prog, Size) : NvrtcInternalError;
  if (Err)
    return Err;
  if (!Size)
    return NvrtcInvalidInput;
  *Size = S->Size;
  return 0;
}

FERRY_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram Prog, char *Cubin) {
  nvrtcResult Err = 0;
  struct Steered *S = containerOf(Prog, &Err);
  if (!S)
    return RealGetCubin ? RealGetCubin(Prog, Cubin) : NvrtcInternalError;
  if (Err)
    return Err;
  if (!Cubin)
    return NvrtcInvalidInput;
  memcpy(Cubin, S->Fatbin, S->Size);
  return 0;
}

FERRY_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *Prog) {
  if (Prog)
    forget(*Prog);
  return RealDestroy ? RealDestroy(Prog) : NvrtcInternalError;
}

FERRY_EXPORT const char *nvrtcGetErrorString(nvrtcResult R) {
  return RealErrorString ? RealErrorString(R) : "NVRTC_ERROR_INTERNAL_ERROR";
}
