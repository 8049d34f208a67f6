/* \file
 * libferry-audit.so, an LD_AUDIT library: a program that loads NVIDIA's
 * CUDA libraries by absolute path (dlopen("/usr/lib/x86_64-linux-gnu/
 * libcuda.so.1"), frameworks that probe a list of install paths) gets
 * ferry's instead. The loader asks la_objsearch before it opens any name;
 * for an absolute path whose file name is one of NVIDIA's libraries and
 * which ferry's library directory (the one holding this file) also has, the
 * answer is ferry's file. Loads by name are left to the loader's search
 * (ld.so.conf.d, LD_LIBRARY_PATH), which finds ferry's first; where a
 * search would still reach NVIDIA's copy (a DT_RPATH, which outranks
 * LD_LIBRARY_PATH, as in JAX's and PyTorch's pip packages pointing at the
 * nvidia-* wheels; the ld.so cache of a CUDA toolkit), the candidate is
 * answered with ferry's file too, or refused when ferry has none.
 *
 * NVIDIA libraries that ferry does not implement and that hold GPU kernels
 * (NCCL, NVSHMEM, cuTENSOR, cuSPARSELt, cuSOLVERMg, cuDNN's parts
 * libcudnn_*.so; libcudnn.so.9 itself is ferry's placeholder, libs/cudnn)
 * are not loaded at all, by name or path, with one line on standard error:
 * their machine code never runs on ferry, and where they ship PTX, ferry
 * would run NVIDIA's kernels. A client that probes for them carries on
 * without; one that needs them fails to load them, visibly.
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
                                    "libnvidia-ml.so", "libcudnn.so"};

/* File-name prefixes of NVIDIA libraries ferry has no stand-in for and
 * refuses (the file header says why). */
static const char *const Refused[] = {"libcudnn_",     "libnccl.so",     "libnvshmem",
                                      "libcutensor",   "libcusparseLt",  "libcusolverMg.so"};

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

static int hasPrefix(const char *Base, const char *const *List, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (strncmp(Base, List[I], strlen(List[I])) == 0)
      return 1;
  return 0;
}

/* One line per refused file name (the loader may ask for it many times). */
static void sayRefused(const char *Base, const char *Why) {
  static char Said[16][64];
  static unsigned NSaid;
  for (unsigned I = 0; I < NSaid; ++I)
    if (strncmp(Said[I], Base, sizeof(Said[I]) - 1) == 0)
      return;
  if (NSaid < 16) {
    strncpy(Said[NSaid], Base, sizeof(Said[NSaid]) - 1);
    ++NSaid;
  }
  fprintf(stderr, "ferry: not loading NVIDIA's %s: %s\n", Base, Why);
}

__attribute__((visibility("default"))) char *la_objsearch(const char *Name, uintptr_t *Cookie, unsigned int Flag) {
  (void)Cookie;
  (void)Flag;
  if (!FerryDirLen)
    return (char *)Name;
  if (Name[0] == '/' && strncmp(Name, FerryDir, FerryDirLen) == 0)
    return (char *)Name; /* ferry's own files, the tracer in trace/ included */
  const char *Slash = strrchr(Name, '/');
  const char *Base = Slash ? Slash + 1 : Name;
  if (hasPrefix(Base, Refused, sizeof(Refused) / sizeof(Refused[0]))) {
    sayRefused(Base, "ferry does not implement it, and NVIDIA's library kernels never run on ferry");
    return NULL;
  }
  /* LA_SER_ORIG: the name as the program gave it, before any search; a name
   * without a '/' is left to the search, whose candidates come back here as
   * paths with the other flags. */
  if (Name[0] != '/' || !isNvidiaName(Base))
    return (char *)Name;
  if (FerryDirLen + strlen(Base) >= sizeof(Redirected))
    return (char *)Name;
  memcpy(Redirected, FerryDir, FerryDirLen);
  strcpy(Redirected + FerryDirLen, Base);
  if (access(Redirected, R_OK) != 0) {
    /* NVIDIA's copy of a library ferry replaces but this build lacks. */
    sayRefused(Base, "ferry's replacement is not in its library directory");
    return NULL;
  }
  if (getenv("FERRY_AUDIT_DEBUG"))
    fprintf(stderr, "ferry-audit: %s -> %s\n", Name, Redirected);
  return Redirected;
}
