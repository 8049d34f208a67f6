// Workgroups that wait for each other: every workgroup's first work-item
// arrives at a grid-wide counter and spins until all have arrived (what
// cooperative groups' grid.sync does). On a GPU the workgroups are resident
// at once, so this completes; a simulator that ran workgroups one after
// another would spin forever in the first.
#include "common.h"

__kernel void grid_barrier(__global int *count, __global int *out, int groups) {
  if (lid(0) == 0) {
    __atomic_fetch_add(count, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < groups) {
    }
  }
  bar();
  // A second phase: each workgroup sees every other's first-phase write.
  out[gid(0)] = __atomic_load_n(count, __ATOMIC_RELAXED) * 1000 + (int)grp(0);
}
