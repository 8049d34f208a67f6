/* \file
 * Wraps PTX text in a fatbin container holding one PTX entry: what ferry's
 * stand-ins for NVIDIA's run-time compilers (Ptxas.c, Nvrtc.c, NvJitLink.c)
 * hand back where the client asked for a cubin. A container, not bare PTX,
 * because it carries its own size (clients pass "cubin" bytes with no
 * terminating NUL) and ptx/fatbin reads it everywhere a cubin can go
 * (cuModuleLoadData, cuModuleLoad of a file, cuLinkAddData, cuLibraryLoad*).
 * The layout is the one ptx/fatbin/Container.h documents. C, header-only:
 * each stand-in is one small C file with no dependency but libc.
 */
#ifndef FERRY_TOOLS_JIT_FATBINWRAP_H
#define FERRY_TOOLS_JIT_FATBINWRAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void ferryPut(unsigned char *B, size_t At, uint64_t V, int Bytes) {
  for (int I = 0; I < Bytes; ++I)
    B[At + I] = (unsigned char)(V >> (8 * I));
}

/* The ".version X.Y" of a PTX text, 0.0 when there is none (ferry's reader
 * takes the version from the text itself; the header copy is informative). */
static inline void ferryPtxVersion(const char *Ptx, size_t Len, unsigned *Major, unsigned *Minor) {
  *Major = *Minor = 0;
  for (size_t I = 0; I + 9 < Len; ++I) {
    if (memcmp(Ptx + I, ".version", 8) != 0)
      continue;
    const char *P = Ptx + I + 8;
    while (*P == ' ' || *P == '\t')
      ++P;
    *Major = (unsigned)strtoul(P, (char **)&P, 10);
    if (*P == '.')
      *Minor = (unsigned)strtoul(P + 1, NULL, 10);
    return;
  }
}

/* A malloc'ed container for Ptx (Len bytes, a trailing NUL optional) naming
 * architecture Sm; its size in *OutSize. NULL when out of memory. */
static inline unsigned char *ferryWrapPtx(const char *Ptx, size_t Len, unsigned Sm, size_t *OutSize) {
  while (Len && Ptx[Len - 1] == 0)
    --Len;
  unsigned Major, Minor;
  ferryPtxVersion(Ptx, Len, &Major, &Minor);
  /* Entry header: 0x40 fixed bytes, then the options (offset, size) pair a
   * PTX entry always has (empty options), padded to 8. */
  const size_t HeaderSize = 0x48;
  size_t Padded = (Len + 1 + 7) & ~(size_t)7; /* the text keeps a NUL */
  size_t Total = 16 + HeaderSize + Padded;
  unsigned char *B = (unsigned char *)calloc(1, Total);
  if (!B)
    return NULL;
  ferryPut(B, 0, 0xBA55ED50u, 4);
  ferryPut(B, 4, 1, 2);
  ferryPut(B, 6, 16, 2);
  ferryPut(B, 8, HeaderSize + Padded, 8);
  unsigned char *E = B + 16;
  ferryPut(E, 0x00, 1, 2); /* PTX */
  ferryPut(E, 0x02, 0x0101, 2);
  ferryPut(E, 0x04, HeaderSize, 4);
  ferryPut(E, 0x08, Padded, 8);
  ferryPut(E, 0x14, 0x40, 4); /* options pair at 0x40: offset 0x48, size 0 */
  ferryPut(E, 0x18, Minor, 2);
  ferryPut(E, 0x1a, Major, 2);
  ferryPut(E, 0x1c, Sm, 4);
  ferryPut(E, 0x28, 0x11, 8); /* 64-bit, Linux */
  ferryPut(E, 0x40, HeaderSize, 4);
  memcpy(E + HeaderSize, Ptx, Len);
  *OutSize = Total;
  return B;
}

/* The number in "sm_90", "compute_90a", "sm_100f" (0 when none). */
static inline unsigned ferryArchNumber(const char *Arch) {
  const char *U = strchr(Arch, '_');
  return U ? (unsigned)strtoul(U + 1, NULL, 10) : 0;
}

#endif
