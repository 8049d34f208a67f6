/* \file
 * The LD_AUDIT test's program: dlopens the absolute path it is given, as
 * frameworks do with "/usr/lib/x86_64-linux-gnu/libcuda.so.1", prints which
 * file the loader really opened, and for a driver library calls cuInit and
 * counts devices, so the test sees ferry answer. The file is the one mapped
 * at the library's dynamic section (/proc/self/maps): where LD_AUDIT
 * answers a search candidate with another file, the link map keeps the
 * candidate's name.
 *   absolute-load PATH [EXPECTED_DIR]   exit 0 when loaded (from EXPECTED_DIR)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    fprintf(stderr, "usage: absolute-load PATH [EXPECTED_DIR]\n");
    return 2;
  }
  void *Lib = dlopen(Argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    printf("not loaded: %s\n", dlerror());
    return 1;
  }
  struct link_map *Map = NULL;
  dlinfo(Lib, RTLD_DI_LINKMAP, &Map);
  char Real[PATH_MAX], Dir[PATH_MAX], Mapped[PATH_MAX] = "";
  FILE *Maps = fopen("/proc/self/maps", "r");
  char Line[PATH_MAX + 128];
  while (Maps && fgets(Line, sizeof(Line), Maps)) {
    unsigned long Lo, Hi;
    int Path = 0;
    if (sscanf(Line, "%lx-%lx %*s %*s %*s %*s %n", &Lo, &Hi, &Path) >= 2 && Path > 0 &&
        (unsigned long)Map->l_ld >= Lo && (unsigned long)Map->l_ld < Hi) {
      Line[strcspn(Line, "\n")] = 0;
      snprintf(Mapped, sizeof(Mapped), "%s", Line + Path);
    }
  }
  if (Maps)
    fclose(Maps);
  const char *File = Mapped[0] ? Mapped : Map->l_name;
  if (!realpath(File, Real))
    strcpy(Real, File);
  printf("%s -> %s\n", Argv[1], File);
  if (Argc > 2) {
    if (!realpath(Argv[2], Dir) || strncmp(Real, Dir, strlen(Dir)) != 0 ||
        Real[strlen(Dir)] != '/') {
      printf("expected a file in %s, got %s\n", Argv[2], Real);
      return 1;
    }
  }
  int (*Init)(unsigned) = (int (*)(unsigned))dlsym(Lib, "cuInit");
  int (*Count)(int *) = (int (*)(int *))dlsym(Lib, "cuDeviceGetCount");
  if (Init && Count) {
    int N = 0, E = Init(0);
    if (E == 0)
      E = Count(&N);
    printf("cuInit and cuDeviceGetCount: %d, %d device(s)\n", E, N);
    if (E != 0 || N < 1)
      return 1;
  }
  return 0;
}
