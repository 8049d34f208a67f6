; ferry.grid.workspace is the v5 hidden multigrid-sync argument (+88), read
; as a full 64-bit value; isspacep asks the shared/private apertures.
; params: out @0 (i64*), p @8 (generic ptr): 16 bytes.
define void @workspace(ptr noalias dereferenceable(16) %params) {
entry:
  %pp = getelementptr i8, ptr %params, i64 8
  %out = load ptr, ptr %params, align 8
  %p = load ptr, ptr %pp, align 8
  %ws = call i64 @ferry.grid.workspace()
  store i64 %ws, ptr %out, align 8
  %sh = call i1 @ferry.isspacep(i32 3, ptr %p)
  %gl = call i1 @ferry.isspacep(i32 1, ptr %p)
  %both = and i1 %sh, %gl
  %b = zext i1 %both to i64
  %o1 = getelementptr i64, ptr %out, i64 1
  store i64 %b, ptr %o1, align 8
  ret void
}

; The arrive half of cooperative groups' grid.sync as nvcc emits it: the
; workspace from %envreg1:%envreg2 (ferry.grid.workspace), null outside a
; cooperative launch (trap), the barrier word at +4, a device-scope add.
; params: expected @0 (u32): 8 bytes.
define void @gridarrive(ptr noalias dereferenceable(8) %params) {
entry:
  %n = load i32, ptr %params, align 4
  %ws = call i64 @ferry.grid.workspace()
  %null = icmp eq i64 %ws, 0
  br i1 %null, label %bad, label %ok
bad:
  call void @ferry.trap()
  unreachable
ok:
  %bw = add i64 %ws, 4
  %bar = inttoptr i64 %bw to ptr
  %old = atomicrmw add ptr %bar, i32 %n syncscope("device") acq_rel, align 4
  ret void
}
declare i64 @ferry.grid.workspace()
declare i1 @ferry.isspacep(i32, ptr)
declare void @ferry.trap()
!ferry.kernels = !{!0, !1}
!0 = !{ptr @workspace}
!1 = !{ptr @gridarrive}

; CHECK-LABEL: define protected amdgpu_kernel void @workspace(
; CHECK: %[[IA:.*]] = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
; CHECK: %[[WP:.*]] = getelementptr inbounds i8, ptr addrspace(4) %[[IA]], i64 88
; CHECK: %[[WS:.*]] = load i64, ptr addrspace(4) %[[WP]], align 8, !invariant.load
; CHECK: store i64 %[[WS]]
; CHECK: call i1 @llvm.amdgcn.is.shared(ptr
; CHECK: call i1 @llvm.amdgcn.is.private(ptr
; CHECK-NOT: call {{.*}} @ferry.

; The code objects (wave64 gfx942, wave32 gfx1100): the workspace is the
; 64-bit kernarg word at the hidden base + 88 (after 16 explicit bytes:
; 0x68; after 8: 0x60), listed in the metadata as hidden_multigrid_sync_arg;
; a null one traps, and the barrier add goes to its address + 4.
; ASM-LABEL: workspace:
; ASM: s_load_{{dwordx2|b64}} s[{{[0-9]+}}:{{[0-9]+}}], s[0:1], 0x68
; ASM-LABEL: gridarrive:
; ASM: s_load_{{dwordx2|b64}} s{{\[}}[[WS:[0-9]+:[0-9]+]]], s[0:1], 0x60
; ASM: s_cmp_lg_u64 s{{\[}}[[WS]]], 0
; ASM: flat_atomic_add{{(_u32)?}} v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}} offset:4
; ASM: s_trap 2
; ASM: .offset: 104
; ASM-NEXT: .size: 8
; ASM-NEXT: .value_kind: hidden_multigrid_sync_arg
; ASM: .name: workspace
; ASM: .offset: 96
; ASM-NEXT: .size: 8
; ASM-NEXT: .value_kind: hidden_multigrid_sync_arg
; ASM: .name: gridarrive
