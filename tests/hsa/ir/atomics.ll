; Atomics with each scope, and fences of each scope. params: p @0 (8 bytes).
define void @atomics(ptr noalias dereferenceable(8) %params) {
entry:
  %p = load ptr, ptr %params, align 8
  %g = addrspacecast ptr %p to ptr addrspace(1)
  %g1 = getelementptr i32, ptr addrspace(1) %g, i64 1
  %g2 = getelementptr i32, ptr addrspace(1) %g, i64 2
  %g3 = getelementptr i32, ptr addrspace(1) %g, i64 3
  %a = atomicrmw add ptr addrspace(1) %g, i32 1 syncscope("block") monotonic, align 4
  %b = atomicrmw add ptr addrspace(1) %g1, i32 1 syncscope("device") monotonic, align 4
  %c = atomicrmw add ptr addrspace(1) %g2, i32 1 monotonic, align 4
  %d = cmpxchg ptr addrspace(1) %g3, i32 0, i32 %a syncscope("cluster") acq_rel monotonic, align 4
  call void @ferry.fence(i32 0, i32 0)
  call void @ferry.fence(i32 2, i32 3)
  call void @ferry.fence(i32 3, i32 2)
  fence syncscope("device") release
  %f = getelementptr float, ptr addrspace(1) %g, i64 4
  %e = atomicrmw fadd ptr addrspace(1) %f, float 1.0 syncscope("device") monotonic, align 4
  ret void
}
declare void @ferry.fence(i32, i32)
!ferry.kernels = !{!0}
!0 = !{ptr @atomics}

; Scopes: block/cluster → workgroup, device → agent, default → system.
; CHECK-LABEL: define protected amdgpu_kernel void @atomics(
; CHECK: atomicrmw add ptr addrspace(1) %g, i32 1 syncscope("workgroup") monotonic
; CHECK: atomicrmw add ptr addrspace(1) %g1, i32 1 syncscope("agent") monotonic
; CHECK: atomicrmw add ptr addrspace(1) %g2, i32 1 monotonic
; CHECK: cmpxchg ptr addrspace(1) %g3, i32 0, i32 %a syncscope("workgroup") acq_rel monotonic
; ferry.fence(scope, sem): (cta, sc), (gpu, release), (sys, acquire)
; CHECK: fence syncscope("workgroup") seq_cst
; CHECK: fence syncscope("agent") release
; CHECK: fence acquire
; CHECK: fence syncscope("agent") release
; The f32 add in global memory flushes subnormals like an H100's: a
; compare-and-swap loop with the same scope (float-atomics.ll).
; CHECK: cmpxchg ptr addrspace(1) %f, i32 %{{.*}}, i32 %{{.*}} syncscope("agent") monotonic monotonic
; CHECK-NOT: syncscope("block")
; CHECK-NOT: syncscope("device")

; gfx942 (AMDGPUUsage memory model): system-scope atomics set SC1, agent
; scope does not; an agent release writes back L2 (buffer_wbl2 sc1) and a
; system acquire invalidates (buffer_inv sc0 sc1).
; G942-LABEL: atomics:
; G942: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}] offset:4{{$}}
; G942: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}] offset:8 sc1
; G942: buffer_wbl2 sc1
; G942: buffer_inv sc0 sc1
