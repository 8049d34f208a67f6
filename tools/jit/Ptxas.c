/* \file
 * ferry's stand-in `ptxas`, first on PATH under `ferry run`: clients that
 * run ptxas themselves to turn their PTX into a cubin (Triton, XLA, Numba's
 * and CuPy's fallbacks) get a file holding that PTX in a fatbin container
 * (FatbinWrap.h), which they then hand to the driver as they would a cubin;
 * ferry compiles the PTX. SASS is never made, so nothing NVIDIA-specific is
 * executed. `--version` (clients parse it to learn the CUDA release) and
 * `--help` are answered by NVIDIA's ptxas ($CUDA_PATH/bin/ptxas, else
 * /usr/local/cuda/bin/ptxas), since the PTX accepted here is what it accepts.
 *
 * Options are those of ptxas; only the input, -o/--output-file (default
 * elf.o, as ptxas) and the architecture (-arch/--gpu-name, recorded in the
 * container) matter, the rest is ignored. The PTX is not checked here:
 * ferry reports errors when it loads the module, with the kernel's name.
 */
#define _GNU_SOURCE
#include "FatbinWrap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ptxas options that take their value as the next argument. */
static const char *const WithValue[] = {
    "-o", "--output-file", "-arch", "--gpu-name", "-maxrregcount", "--maxrregcount",
    "-m", "--machine", "-e", "--entry", "-dlcm", "--def-load-cache", "-dscm",
    "--def-store-cache", "-lcm", "--load-cache", "-scm", "--store-cache", "--opt-level",
    "-Werror", "-fmad", "--fmad", "-split-compile", "--split-compile", "--minnctapersm",
    "--maxntid", "--options-file", "-optf", "-g", "--position-independent-code", "-pic",
    "--extensible-whole-program", "-ewp", "--compile-as-tools-patch", "-astoolspatch", NULL};

static int takesValue(const char *A) {
  for (int I = 0; WithValue[I]; ++I)
    if (strcmp(A, WithValue[I]) == 0)
      return 1;
  return 0;
}

static int execRealPtxas(char **Argv) {
  const char *CudaPath = getenv("CUDA_PATH");
  char Path[PATH_MAX];
  snprintf(Path, sizeof(Path), "%s/bin/ptxas", CudaPath && *CudaPath ? CudaPath : "/usr/local/cuda");
  char Self[PATH_MAX], Other[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (N > 0) {
    Self[N] = 0;
    if (realpath(Path, Other) && strcmp(Self, Other) == 0)
      snprintf(Path, sizeof(Path), "/usr/local/cuda/bin/ptxas");
  }
  Argv[0] = Path;
  execv(Path, Argv);
  fprintf(stderr, "ptxas (ferry): cannot run NVIDIA's ptxas at %s for --version\n", Path);
  return 1;
}

static char *readAll(FILE *F, size_t *Len) {
  size_t Cap = 1 << 16, N = 0;
  char *B = malloc(Cap);
  while (B) {
    size_t Got = fread(B + N, 1, Cap - N, F);
    N += Got;
    if (N < Cap)
      break;
    char *Bigger = realloc(B, Cap *= 2);
    if (!Bigger)
      free(B);
    B = Bigger;
  }
  *Len = N;
  return B;
}

int main(int Argc, char **Argv) {
  const char *Input = NULL, *Output = "elf.o", *Arch = "";
  for (int I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    if (!strcmp(A, "--version") || !strcmp(A, "-V") || !strcmp(A, "--help") || !strcmp(A, "-h"))
      return execRealPtxas(Argv);
    if ((!strcmp(A, "-o") || !strcmp(A, "--output-file")) && I + 1 < Argc)
      Output = Argv[++I];
    else if (!strncmp(A, "--output-file=", 14))
      Output = A + 14;
    else if ((!strcmp(A, "-arch") || !strcmp(A, "--gpu-name")) && I + 1 < Argc)
      Arch = Argv[++I];
    else if (!strncmp(A, "-arch=", 6) || !strncmp(A, "--gpu-name=", 11))
      Arch = strchr(A, '=') + 1;
    else if (!strncmp(A, "-arch", 5) && A[5] == 's') /* -archsm_90 is not a thing, but -arch=... is */
      Arch = A + 5;
    else if (takesValue(A) && I + 1 < Argc)
      ++I;
    else if (A[0] != '-')
      Input = A;
  }
  if (!Input) {
    fprintf(stderr, "ptxas (ferry): no input file\n");
    return 1;
  }
  FILE *In = strcmp(Input, "-") ? fopen(Input, "rb") : stdin;
  if (!In) {
    fprintf(stderr, "ptxas (ferry): cannot open '%s'\n", Input);
    return 1;
  }
  size_t Len = 0;
  char *Ptx = readAll(In, &Len);
  if (In != stdin)
    fclose(In);
  size_t Size = 0;
  unsigned char *Fatbin = Ptx ? ferryWrapPtx(Ptx, Len, ferryArchNumber(Arch), &Size) : NULL;
  FILE *Out = Fatbin ? fopen(Output, "wb") : NULL;
  if (!Out || fwrite(Fatbin, 1, Size, Out) != Size || fclose(Out) != 0) {
    fprintf(stderr, "ptxas (ferry): cannot write '%s'\n", Output);
    return 1;
  }
  return 0;
}
