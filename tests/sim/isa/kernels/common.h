// Shared by the simulator's test kernels: work-item functions built from
// clang's amdgcn builtins (the tests compile with -nogpulib, so OpenCL's
// library functions are not available), and workgroup barriers/atomics.
#ifndef SIM_TEST_COMMON_H
#define SIM_TEST_COMMON_H
static inline uint lid(uint d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x()
       : d == 1 ? __builtin_amdgcn_workitem_id_y() : __builtin_amdgcn_workitem_id_z();
}
static inline uint grp(uint d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x()
       : d == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();
}
// Workgroup size from the AQL dispatch packet (exercises the dispatch ptr).
static inline uint lsize(uint d) {
  __constant ushort *p = (__constant ushort *)__builtin_amdgcn_dispatch_ptr();
  return p[2 + d];
}
// Grid size (work-items) from the packet.
static inline uint gsize(uint d) {
  __constant uint *p = (__constant uint *)__builtin_amdgcn_dispatch_ptr();
  return p[3 + d];
}
static inline uint gid(uint d) { return grp(d) * lsize(d) + lid(d); }
static inline void bar(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static inline uint lane_id(void) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}
#define WAVE __AMDGCN_WAVEFRONT_SIZE
#endif
