// Kernels for the HSA runtime stand-in's tests (tests/sim/runtime): built by
// clang-19 for amdgcn-amd-amdhsa and linked by ld.lld-19 -shared, so they
// exercise the loader (symbols, metadata, a relocation) and the packet
// processor (dispatch_ptr, faults) independently of ferry's compiler.

// The global work-item id in x, from the dispatch packet (no device library:
// the group size is the packet's workgroup_size_x, a u16 at byte 4).
static inline uint gid(void) {
  const __constant ushort *D = (const __constant ushort *)__builtin_amdgcn_dispatch_ptr();
  return __builtin_amdgcn_workgroup_id_x() * D[2] + __builtin_amdgcn_workitem_id_x();
}

kernel void vadd(global const float *a, global const float *b, global float *c, uint n) {
  uint i = gid();
  if (i < n)
    c[i] = a[i] + b[i];
}

// A program-scope variable and a pointer to it: the pointer's initial value
// is a dynamic relocation (R_AMDGPU_RELATIVE64) the loader must apply.
__attribute__((visibility("protected"))) global int counter = 5;
__attribute__((visibility("protected"))) global int *counter_ptr = &counter;

kernel void bump(global int *out) { out[gid()] = *counter_ptr + (int)gid(); }

// Faults: a store far outside any allocation, and s_trap.
kernel void oob(global int *p) { p[1 << 26] = 1; }
kernel void trapper(void) { __builtin_trap(); }
