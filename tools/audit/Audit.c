/* \file
 * libferry-audit.so, an LD_AUDIT library: a program that loads NVIDIA's
 * CUDA libraries by absolute path (dlopen("/usr/lib/x86_64-linux-gnu/
 * libcuda.so.1"), frameworks that probe a list of install paths) gets
 * ferry's instead. The loader asks la_objsearch before it opens any name;
 * for an absolute path whose file name is one of NVIDIA's libraries and
 * which ferry's library directory (the one holding this file) also has, the
 * answer is ferry's file. Loads by name are left to the loader's search
 * (ld.so.conf.d, LD_LIBRARY_PATH), which already finds ferry's.
 *
 * C with no dependency but libc: an audit library lives in its own link
 * namespace, where a C++ runtime would be a second copy.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char FerryDir[4096]; /* ferry's library directory, with a final '/' */
static size_t FerryDirLen;
static char Redirected[4096 + 256];

/* File-name prefixes of the libraries ferry stands in for. NVRTC and
 * nvJitLink are not among them: ferry's stand-ins (tools/jit) load NVIDIA's
 * by absolute path and must get them. */
static const char *const Names[] = {"libcuda.so",     "libcudart.so",   "libcublas.so",
                                    "libcublasLt.so", "libcurand.so",   "libcufft.so",
                                    "libcufftw.so",   "libcusparse.so", "libcusolver.so",
                                    "libnvidia-ml.so"};

__attribute__((visibility("default"))) unsigned int la_version(unsigned int Version) {
  Dl_info Info;
  if (dladdr((void *)&la_version, &Info) && Info.dli_fname) {
    const char *Slash = strrchr(Info.dli_fname, '/');
    size_t Len = Slash ? (size_t)(Slash - Info.dli_fname) + 1 : 0;
    if (Len > 0 && Len < sizeof(FerryDir)) {
      memcpy(FerryDir, Info.dli_fname, Len);
      FerryDir[Len] = 0;
      FerryDirLen = Len;
    }
  }
  if (!FerryDirLen && getenv("FERRY_AUDIT_DEBUG"))
    fprintf(stderr, "ferry-audit: cannot tell where this library is; redirecting nothing\n");
  /* Version 1 is the oldest interface with la_objsearch: every glibc takes it. */
  return Version < 1 ? Version : 1;
}

static int isNvidiaName(const char *Base) {
  for (size_t I = 0; I < sizeof(Names) / sizeof(Names[0]); ++I) {
    size_t Len = strlen(Names[I]);
    /* "libcuda.so" must not match "libcudart.so": the prefix ends at ".so". */
    if (strncmp(Base, Names[I], Len) == 0 && (Base[Len] == 0 || Base[Len] == '.'))
      return 1;
  }
  return 0;
}

__attribute__((visibility("default"))) char *la_objsearch(const char *Name, uintptr_t *Cookie, unsigned int Flag) {
  (void)Cookie;
  /* LA_SER_ORIG: the name as the program gave it, before any search. */
  if (Flag != LA_SER_ORIG || !FerryDirLen || Name[0] != '/')
    return (char *)Name;
  if (strncmp(Name, FerryDir, FerryDirLen) == 0)
    return (char *)Name; /* ferry's own files, the tracer in trace/ included */
  const char *Base = strrchr(Name, '/') + 1;
  if (!isNvidiaName(Base) || FerryDirLen + strlen(Base) >= sizeof(Redirected))
    return (char *)Name;
  memcpy(Redirected, FerryDir, FerryDirLen);
  strcpy(Redirected + FerryDirLen, Base);
  if (access(Redirected, R_OK) != 0)
    return (char *)Name;
  if (getenv("FERRY_AUDIT_DEBUG"))
    fprintf(stderr, "ferry-audit: %s -> %s\n", Name, Redirected);
  return Redirected;
}
