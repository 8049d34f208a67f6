#include "common.h"
// ds_bpermute: rotate values by k lanes within the wave.
__kernel void bpermute(__global int *out, int k) {
  uint l = lane_id();
  int src = (int)((l + k) % WAVE);
  out[gid(0)] = __builtin_amdgcn_ds_bpermute(src << 2, (int)(gid(0) * 7));
}
// DPP row shifts / quad perms / row mirror (update_dpp with bound_ctrl).
__kernel void dpp(__global int *out) {
  int v = (int)gid(0) + 1;
  uint i = gid(0);
  out[6 * i + 0] = __builtin_amdgcn_update_dpp(-1, v, 0x111, 0xf, 0xf, true);  // row_shr:1
  out[6 * i + 1] = __builtin_amdgcn_update_dpp(-1, v, 0x102, 0xf, 0xf, true);  // row_shl:2
  out[6 * i + 2] = __builtin_amdgcn_update_dpp(-1, v, 0x1b, 0xf, 0xf, false);  // quad_perm [3,2,1,0]
  out[6 * i + 3] = __builtin_amdgcn_update_dpp(-1, v, 0x140, 0xf, 0xf, false); // row_mirror
  out[6 * i + 4] = __builtin_amdgcn_update_dpp(-1, v, 0x124, 0xf, 0xf, false); // row_ror:4
  out[6 * i + 5] = __builtin_amdgcn_update_dpp(-1, v, 0x111, 0xa, 0xf, false); // row_mask 0xa
}
// Wave reduction with readlane/readfirstlane and a ballot.
__kernel void wave_ops(__global uint *out, __global const int *in) {
  int v = in[gid(0)];
#if WAVE == 64
  ulong b = __builtin_amdgcn_ballot_w64(v > 0);
  out[gid(0) * 4 + 0] = (uint)b;
  out[gid(0) * 4 + 1] = (uint)(b >> 32);
#else
  uint b = __builtin_amdgcn_ballot_w32(v > 0);
  out[gid(0) * 4 + 0] = b;
  out[gid(0) * 4 + 1] = 0;
#endif
  out[gid(0) * 4 + 2] = __builtin_amdgcn_readfirstlane(v);
  out[gid(0) * 4 + 3] = __builtin_amdgcn_readlane(v, 5) + lane_id();
}
// ds_swizzle: quad perm mode and bit-mask mode (xor 1 within 32 lanes).
__kernel void swizzle(__global int *out) {
  int v = (int)gid(0);
  out[2 * gid(0)] = __builtin_amdgcn_ds_swizzle(v, 0x801b);     // quad perm [3,2,1,0]
  out[2 * gid(0) + 1] = __builtin_amdgcn_ds_swizzle(v, 0x041f); // and 0x1f, xor 1
}
// A reduction the compiler turns into DPP (row_shr/row_bcast or permlanex).
__kernel void subgroup_reduce(__global const int *in, __global int *out) {
  int v = in[gid(0)];
  int s = __builtin_amdgcn_mov_dpp(v, 0x111, 0xf, 0xf, true); // row_shr:1
  s = v + s;
  out[gid(0)] = s;
#ifdef __gfx1100__
  out[gid(0) + gsize(0)] = __builtin_amdgcn_permlanex16(0, v, 0x76543210u, 0xfedcba98u, false, false);
#endif
}
