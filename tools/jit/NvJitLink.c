/* \file
 * ferry's libnvJitLink.so.13. nvJitLink links device code into a cubin;
 * asked for one, NVIDIA's would make SASS, which ferry never runs. This
 * stand-in does the link with the driver's JIT linker instead (cuLinkCreate
 * … cuLinkComplete of the libcuda.so.1 in the process, ferry's under
 * `ferry run`), whose image holds the inputs' PTX and which ferry's loader
 * compiles; nvJitLinkGetLinkedCubin returns that image. Numba-CUDA (through
 * cuda.core's Linker) and any client of nvJitLink get code ferry can run
 * with no change to the client.
 *
 * LTO-IR, which ferry cannot read, goes to NVIDIA's nvJitLink
 * (FERRY_NVJITLINK_LIBRARY, else $CUDA_PATH/lib64, else /usr/local/cuda/lib64,
 * opened by its resolved file name so ferry's LD_AUDIT library does not send
 * it back here): in an -lto link the LTO-IR inputs are linked by it into PTX
 * (-ptx), which joins the other inputs in the driver's link. A link asking
 * for PTX output (-ptx) is NVIDIA's alone.
 *
 * Both spellings of each function are exported: the versioned one the header
 * inlines (__nvJitLinkCreate_13_0) and the plain one bindings look up.
 */
#define _GNU_SOURCE
#include "FatbinWrap.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvJitLinkResult;
enum {
  Ok = 0,
  ErrUnrecognizedOption = 1,
  ErrMissingArch = 2,
  ErrInvalidInput = 3,
  ErrPtxCompile = 4,
  ErrInternal = 6,
  ErrNullInput = 10,
  ErrIncorrectInputType = 12,
};
enum { InputNone = 0, InputCubin = 1, InputPtx, InputLtoir, InputFatbin, InputObject, InputLibrary,
       InputIndex, InputAny = 10 };

/* The driver API, as far as this file uses it (values from cuda.h). */
typedef int CUresult;
typedef void *CUlinkState, *CUcontext;
enum { CuJitInfoLog = 3, CuJitInfoLogSize = 4, CuJitErrorLog = 5, CuJitErrorLogSize = 6 };
static struct {
  CUresult (*LinkCreate)(unsigned, int *, void **, CUlinkState *);
  CUresult (*LinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned, int *, void **);
  CUresult (*LinkComplete)(CUlinkState, void **, size_t *);
  CUresult (*LinkDestroy)(CUlinkState);
  CUresult (*CtxGetCurrent)(CUcontext *);
  CUresult (*CtxPush)(CUcontext);
  CUresult (*CtxPop)(CUcontext *);
  CUresult (*PrimaryRetain)(CUcontext *, int);
  CUresult (*Init)(unsigned);
} Cu;

/* NVIDIA's nvJitLink, for -lto and -ptx links. */
static struct {
  nvJitLinkResult (*Create)(void **, uint32_t, const char *const *);
  nvJitLinkResult (*Destroy)(void **);
  nvJitLinkResult (*AddData)(void *, int, const void *, size_t, const char *);
  nvJitLinkResult (*AddFile)(void *, int, const char *);
  nvJitLinkResult (*Complete)(void *);
  nvJitLinkResult (*PtxSize)(void *, size_t *);
  nvJitLinkResult (*Ptx)(void *, char *);
  nvJitLinkResult (*ErrorLogSize)(void *, size_t *);
  nvJitLinkResult (*ErrorLog)(void *, char *);
  nvJitLinkResult (*InfoLogSize)(void *, size_t *);
  nvJitLinkResult (*InfoLog)(void *, char *);
} Real;

static int loadDriver(void) {
  if (Cu.LinkCreate)
    return 1;
  void *H = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!H)
    H = dlopen("libcuda.so.1", RTLD_NOW);
  if (!H)
    return 0;
  Cu.CtxGetCurrent = dlsym(H, "cuCtxGetCurrent");
  Cu.CtxPush = dlsym(H, "cuCtxPushCurrent_v2");
  Cu.CtxPop = dlsym(H, "cuCtxPopCurrent_v2");
  Cu.PrimaryRetain = dlsym(H, "cuDevicePrimaryCtxRetain");
  Cu.Init = dlsym(H, "cuInit");
  Cu.LinkAddData = dlsym(H, "cuLinkAddData_v2");
  Cu.LinkComplete = dlsym(H, "cuLinkComplete");
  Cu.LinkDestroy = dlsym(H, "cuLinkDestroy");
  Cu.LinkCreate = dlsym(H, "cuLinkCreate_v2");
  return Cu.LinkCreate && Cu.LinkAddData && Cu.LinkComplete && Cu.LinkDestroy && Cu.CtxGetCurrent &&
         Cu.CtxPush && Cu.CtxPop && Cu.PrimaryRetain && Cu.Init;
}

static int loadReal(void) {
  if (Real.Create)
    return 1;
  const char *Env = getenv("FERRY_NVJITLINK_LIBRARY"), *CudaPath = getenv("CUDA_PATH");
  char Candidates[3][PATH_MAX];
  int N = 0;
  if (Env && *Env)
    snprintf(Candidates[N++], PATH_MAX, "%s", Env);
  if (CudaPath && *CudaPath)
    snprintf(Candidates[N++], PATH_MAX, "%s/lib64/libnvJitLink.so.13", CudaPath);
  snprintf(Candidates[N++], PATH_MAX, "/usr/local/cuda/lib64/libnvJitLink.so.13");
  for (int I = 0; I < N; ++I) {
    char Resolved[PATH_MAX];
    void *H = realpath(Candidates[I], Resolved) ? dlopen(Resolved, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!H)
      continue;
    Real.Destroy = dlsym(H, "__nvJitLinkDestroy_13_0");
    Real.AddData = dlsym(H, "__nvJitLinkAddData_13_0");
    Real.AddFile = dlsym(H, "__nvJitLinkAddFile_13_0");
    Real.Complete = dlsym(H, "__nvJitLinkComplete_13_0");
    Real.PtxSize = dlsym(H, "__nvJitLinkGetLinkedPtxSize_13_0");
    Real.Ptx = dlsym(H, "__nvJitLinkGetLinkedPtx_13_0");
    Real.ErrorLogSize = dlsym(H, "__nvJitLinkGetErrorLogSize_13_0");
    Real.ErrorLog = dlsym(H, "__nvJitLinkGetErrorLog_13_0");
    Real.InfoLogSize = dlsym(H, "__nvJitLinkGetInfoLogSize_13_0");
    Real.InfoLog = dlsym(H, "__nvJitLinkGetInfoLog_13_0");
    Real.Create = dlsym(H, "__nvJitLinkCreate_13_0");
    return Real.Create != NULL;
  }
  return 0;
}

enum { LogSize = 1 << 16 };

/* One link: the driver's CUlinkState, and for -lto or -ptx links a handle
 * of NVIDIA's library (Forwarded), which gets every input of a -ptx link
 * (PtxOut) and the LTO-IR inputs of an -lto one. */
struct Link {
  void *Forwarded;
  int PtxOut;
  int LtoInputs; /* inputs given to Forwarded in an -lto link */
  unsigned Sm;
  CUlinkState State;
  CUcontext Pushed; /* a primary context made current for the link, if any */
  char InfoLog[LogSize], ErrorLog[LogSize];
  char DriverError[LogSize / 2]; /* the driver's error log buffer */
  int JitOptions[4];
  void *JitValues[4];
  unsigned char *Image;
  size_t ImageSize;
};

static void appendError(struct Link *L, const char *Fmt, ...) {
  size_t Used = strlen(L->ErrorLog);
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(L->ErrorLog + Used, LogSize - Used, Fmt, Ap);
  va_end(Ap);
}

/* The driver links in the calling thread's context; nvJitLink needs none,
 * so one is made current (device 0's primary) when the caller has none. */
static int enterContext(struct Link *L) {
  CUcontext C = NULL;
  L->Pushed = NULL;
  if (Cu.Init(0) != 0)
    return 0;
  if (Cu.CtxGetCurrent(&C) == 0 && C)
    return 1;
  if (Cu.PrimaryRetain(&C, 0) != 0 || Cu.CtxPush(C) != 0)
    return 0;
  L->Pushed = C;
  return 1;
}

static void leaveContext(struct Link *L) {
  CUcontext C;
  if (L->Pushed)
    Cu.CtxPop(&C);
  L->Pushed = NULL;
}

#define FERRY_EXPORT __attribute__((visibility("default")))
/* Exports F under its plain name too. */
#define FERRY_ALIAS(F, Plain) FERRY_EXPORT __typeof__(F) Plain __attribute__((alias(#F)));

FERRY_EXPORT nvJitLinkResult __nvJitLinkCreate_13_0(struct Link **Handle, uint32_t NumOptions,
                                                    const char *const *Options) {
  if (!Handle)
    return ErrNullInput;
  *Handle = NULL;
  struct Link *L = calloc(1, sizeof(*L));
  if (!L)
    return ErrInternal;
  int Lto = 0, Ptx = 0;
  for (uint32_t I = 0; I < NumOptions; ++I) {
    if (!Options[I])
      continue;
    if (!strncmp(Options[I], "-arch=", 6))
      L->Sm = ferryArchNumber(Options[I] + 6);
    else if (!strcmp(Options[I], "-lto"))
      Lto = 1;
    else if (!strcmp(Options[I], "-ptx"))
      Ptx = 1;
  }
  if (!L->Sm) {
    free(L);
    return ErrMissingArch;
  }
  if (Lto || Ptx) {
    if (!loadReal()) {
      free(L);
      return ErrInternal;
    }
    const char **Opts = calloc(NumOptions + 1, sizeof(char *));
    if (!Opts) {
      free(L);
      return ErrInternal;
    }
    memcpy(Opts, Options, NumOptions * sizeof(char *));
    if (!Ptx)
      Opts[NumOptions++] = "-ptx";
    L->PtxOut = Ptx;
    nvJitLinkResult R = Real.Create(&L->Forwarded, NumOptions, Opts);
    free(Opts);
    if (R != Ok) {
      free(L);
      return R;
    }
  }
  if (!L->PtxOut && !loadDriver()) {
    if (L->Forwarded)
      Real.Destroy(&L->Forwarded);
    free(L);
    return ErrInternal;
  }
  *Handle = L;
  return Ok;
}
FERRY_ALIAS(__nvJitLinkCreate_13_0, nvJitLinkCreate)

FERRY_EXPORT nvJitLinkResult __nvJitLinkDestroy_13_0(struct Link **Handle) {
  if (!Handle || !*Handle)
    return ErrNullInput;
  struct Link *L = *Handle;
  if (L->Forwarded)
    Real.Destroy(&L->Forwarded);
  if (L->State && enterContext(L)) {
    Cu.LinkDestroy(L->State);
    leaveContext(L);
  }
  free(L->Image);
  free(L);
  *Handle = NULL;
  return Ok;
}
FERRY_ALIAS(__nvJitLinkDestroy_13_0, nvJitLinkDestroy)

/* The driver's input type for an nvJitLink one; for InputAny, from the
 * bytes (ar archive, ELF cubin or host object, fatbin, else PTX). */
static int driverInputType(int Type, const unsigned char *P, size_t Size) {
  switch (Type) {
  case InputCubin: return 0;
  case InputPtx: return 1;
  case InputFatbin: return 2;
  case InputObject: return 3;
  case InputLibrary: return 4;
  case InputLtoir: return 5;
  case InputAny: break;
  default: return -1;
  }
  if (Size >= 8 && !memcmp(P, "!<arch>\n", 8))
    return 4;
  if (Size >= 20 && !memcmp(P, "\x7f" "ELF", 4))
    return P[18] == 190 ? 0 : 3; /* e_machine EM_CUDA: a cubin */
  uint32_t Magic = Size >= 4 ? (uint32_t)P[0] | P[1] << 8 | P[2] << 16 | (uint32_t)P[3] << 24 : 0;
  if (Magic == 0x466243B1u || Magic == 0xBA55ED50u)
    return 2;
  return 1;
}

FERRY_EXPORT nvJitLinkResult __nvJitLinkAddData_13_0(struct Link *L, int Type, const void *Data,
                                                     size_t Size, const char *Name) {
  if (!L || !Data)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.AddData(L->Forwarded, Type, Data, Size, Name);
  if (Type == InputLtoir) {
    if (!L->Forwarded) {
      appendError(L, "ferry nvJitLink: LTO-IR input '%s' needs -lto\n", Name ? Name : "");
      return ErrIncorrectInputType;
    }
    ++L->LtoInputs;
    return Real.AddData(L->Forwarded, Type, Data, Size, Name);
  }
  int DriverType = driverInputType(Type, Data, Size);
  if (DriverType < 0)
    return ErrIncorrectInputType;
  if (!enterContext(L)) {
    appendError(L, "ferry nvJitLink: no CUDA context for the link\n");
    return ErrInternal;
  }
  CUresult R = 0;
  if (!L->State) {
    /* The driver writes the logs' lengths back into these slots when the
     * link completes, so they live as long as the link. */
    static const int Opts[] = {CuJitInfoLog, CuJitInfoLogSize, CuJitErrorLog, CuJitErrorLogSize};
    memcpy(L->JitOptions, Opts, sizeof(Opts));
    L->JitValues[0] = L->InfoLog;
    L->JitValues[1] = (void *)(uintptr_t)LogSize;
    L->JitValues[2] = L->DriverError;
    L->JitValues[3] = (void *)(uintptr_t)(LogSize / 2);
    R = Cu.LinkCreate(4, L->JitOptions, L->JitValues, &L->State);
  }
  if (R == 0)
    R = Cu.LinkAddData(L->State, DriverType, (void *)Data, Size, Name ? Name : "", 0, NULL, NULL);
  leaveContext(L);
  if (R != 0) {
    appendError(L, "ferry nvJitLink: input '%s' rejected (CUresult %d): %s\n", Name ? Name : "",
                R, L->DriverError);
    return ErrInvalidInput;
  }
  return Ok;
}
FERRY_ALIAS(__nvJitLinkAddData_13_0, nvJitLinkAddData)

FERRY_EXPORT nvJitLinkResult __nvJitLinkAddFile_13_0(struct Link *L, int Type, const char *Path) {
  if (!L || !Path)
    return ErrNullInput;
  size_t PathLen = strlen(Path);
  if (Type == InputAny && PathLen > 6 && !strcmp(Path + PathLen - 6, ".ltoir"))
    Type = InputLtoir;
  if (L->PtxOut || (Type == InputLtoir && L->Forwarded)) {
    L->LtoInputs += !L->PtxOut;
    return Real.AddFile(L->Forwarded, Type, Path);
  }
  FILE *F = fopen(Path, "rb");
  if (!F) {
    appendError(L, "ferry nvJitLink: cannot open '%s'\n", Path);
    return ErrInvalidInput;
  }
  fseek(F, 0, SEEK_END);
  long Size = ftell(F);
  fseek(F, 0, SEEK_SET);
  unsigned char *B = Size >= 0 ? malloc((size_t)Size + 1) : NULL;
  if (!B || fread(B, 1, (size_t)Size, F) != (size_t)Size) {
    fclose(F);
    free(B);
    return ErrInvalidInput;
  }
  fclose(F);
  B[Size] = 0; /* PTX read from a file gets its NUL */
  nvJitLinkResult R = __nvJitLinkAddData_13_0(L, Type, B, (size_t)Size + 1, Path);
  free(B);
  return R;
}
FERRY_ALIAS(__nvJitLinkAddFile_13_0, nvJitLinkAddFile)

FERRY_EXPORT nvJitLinkResult __nvJitLinkComplete_13_0(struct Link *L) {
  if (!L)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.Complete(L->Forwarded);
  if (L->LtoInputs) {
    /* The LTO-IR, linked and optimised by NVIDIA's nvJitLink into PTX,
     * joins the driver's link as one more PTX input. */
    nvJitLinkResult R = Real.Complete(L->Forwarded);
    size_t Size = 0;
    if (R == Ok)
      R = Real.PtxSize(L->Forwarded, &Size);
    char *Ptx = R == Ok ? malloc(Size + 1) : NULL;
    if (R == Ok && !Ptx)
      R = ErrInternal;
    if (R == Ok && (R = Real.Ptx(L->Forwarded, Ptx)) == Ok) {
      Ptx[Size] = 0;
      R = __nvJitLinkAddData_13_0(L, InputPtx, Ptx, Size + 1, "lto.ptx");
    }
    free(Ptx);
    if (R != Ok) {
      size_t LogLen = 0;
      if (Real.ErrorLogSize(L->Forwarded, &LogLen) == Ok && LogLen) {
        char *Log = malloc(LogLen);
        if (Log && Real.ErrorLog(L->Forwarded, Log) == Ok)
          appendError(L, "%s", Log);
        free(Log);
      }
      return R;
    }
    L->LtoInputs = 0;
  }
  if (!L->State) {
    appendError(L, "ferry nvJitLink: nothing to link\n");
    return ErrInvalidInput;
  }
  if (!enterContext(L))
    return ErrInternal;
  void *Image = NULL;
  size_t Size = 0;
  CUresult R = Cu.LinkComplete(L->State, &Image, &Size);
  if (R == 0 && (L->Image = malloc(Size)))
    memcpy(L->Image, Image, Size), L->ImageSize = Size;
  Cu.LinkDestroy(L->State);
  L->State = NULL;
  leaveContext(L);
  if (R != 0) {
    appendError(L, "ferry nvJitLink: link failed (CUresult %d): %s\n", R, L->DriverError);
    return ErrPtxCompile;
  }
  return L->Image ? Ok : ErrInternal;
}
FERRY_ALIAS(__nvJitLinkComplete_13_0, nvJitLinkComplete)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(struct Link *L, size_t *Size) {
  if (!L || !Size)
    return ErrNullInput;
  if (!L->Image)
    return ErrInternal;
  *Size = L->ImageSize;
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetLinkedCubinSize_13_0, nvJitLinkGetLinkedCubinSize)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(struct Link *L, void *Cubin) {
  if (!L || !Cubin)
    return ErrNullInput;
  if (!L->Image)
    return ErrInternal;
  memcpy(Cubin, L->Image, L->ImageSize);
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetLinkedCubin_13_0, nvJitLinkGetLinkedCubin)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetLinkedPtxSize_13_0(struct Link *L, size_t *Size) {
  if (!L || !Size)
    return ErrNullInput;
  return L->PtxOut ? Real.PtxSize(L->Forwarded, Size) : ErrInternal;
}
FERRY_ALIAS(__nvJitLinkGetLinkedPtxSize_13_0, nvJitLinkGetLinkedPtxSize)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetLinkedPtx_13_0(struct Link *L, char *Ptx) {
  if (!L || !Ptx)
    return ErrNullInput;
  return L->PtxOut ? Real.Ptx(L->Forwarded, Ptx) : ErrInternal;
}
FERRY_ALIAS(__nvJitLinkGetLinkedPtx_13_0, nvJitLinkGetLinkedPtx)

/* Driver mode's logs (the driver's error text is quoted in ErrorLog). */
static size_t logText(struct Link *L, int Error, char *Out) {
  const char *Text = Error ? L->ErrorLog : L->InfoLog;
  size_t N = strlen(Text);
  if (Out)
    memcpy(Out, Text, N + 1);
  return N + 1;
}

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetErrorLogSize_13_0(struct Link *L, size_t *Size) {
  if (!L || !Size)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.ErrorLogSize(L->Forwarded, Size);
  *Size = logText(L, 1, NULL);
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetErrorLogSize_13_0, nvJitLinkGetErrorLogSize)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetErrorLog_13_0(struct Link *L, char *Log) {
  if (!L || !Log)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.ErrorLog(L->Forwarded, Log);
  logText(L, 1, Log);
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetErrorLog_13_0, nvJitLinkGetErrorLog)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetInfoLogSize_13_0(struct Link *L, size_t *Size) {
  if (!L || !Size)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.InfoLogSize(L->Forwarded, Size);
  *Size = logText(L, 0, NULL);
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetInfoLogSize_13_0, nvJitLinkGetInfoLogSize)

FERRY_EXPORT nvJitLinkResult __nvJitLinkGetInfoLog_13_0(struct Link *L, char *Log) {
  if (!L || !Log)
    return ErrNullInput;
  if (L->PtxOut)
    return Real.InfoLog(L->Forwarded, Log);
  logText(L, 0, Log);
  return Ok;
}
FERRY_ALIAS(__nvJitLinkGetInfoLog_13_0, nvJitLinkGetInfoLog)

FERRY_EXPORT nvJitLinkResult nvJitLinkVersion(unsigned *Major, unsigned *Minor) {
  if (!Major || !Minor)
    return ErrNullInput;
  *Major = 13;
  *Minor = 0;
  return Ok;
}
