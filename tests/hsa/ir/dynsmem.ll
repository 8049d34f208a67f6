; Dynamic shared memory next to 100 bytes of static shared memory: the
; kernel stores its dynamic size into dyn[tid] and 1 into stat[tid], and
; reads dyn[tid+1] + stat[tid^1].
; params: out @0 (8 bytes).
@stat = internal addrspace(3) global [100 x i8] poison, align 4

define void @dynsmem(ptr noalias dereferenceable(8) %params) {
entry:
  %out = load ptr, ptr %params, align 8
  %tid = call i32 @ferry.tid.x()
  %dyn = call ptr addrspace(3) @ferry.dynamic_smem()
  %size = call i32 @ferry.dynamic_smem_size()
  %t64 = zext i32 %tid to i64
  %p = getelementptr i32, ptr addrspace(3) %dyn, i64 %t64
  store i32 %size, ptr addrspace(3) %p, align 4
  %ps = getelementptr i8, ptr addrspace(3) @stat, i64 %t64
  store i8 1, ptr addrspace(3) %ps, align 1
  call void @ferry.bar.sync(i32 0, i32 0)
  %n = add i32 %tid, 1
  %n64 = zext i32 %n to i64
  %q = getelementptr i32, ptr addrspace(3) %dyn, i64 %n64
  %v = load i32, ptr addrspace(3) %q, align 4
  %x = xor i64 %t64, 1
  %px = getelementptr i8, ptr addrspace(3) @stat, i64 %x
  %sx = load i8, ptr addrspace(3) %px, align 1
  %sx32 = zext i8 %sx to i32
  %w = add i32 %v, %sx32
  %o = getelementptr i32, ptr %out, i64 %t64
  store i32 %w, ptr %o, align 4
  ret void
}
declare i32 @ferry.tid.x()
declare ptr addrspace(3) @ferry.dynamic_smem()
declare i32 @ferry.dynamic_smem_size()
declare void @ferry.bar.sync(i32, i32)
!ferry.kernels = !{!0}
!0 = !{ptr @dynsmem}

; Dynamic shared memory: an external zero-size LDS array; its size is the
; dispatch packet's group segment size (u32 at byte 28) minus the static LDS.
; CHECK: @__ferry_dynamic_smem = external addrspace(3) global [0 x i8], align 16
; CHECK-LABEL: define protected amdgpu_kernel void @dynsmem(
; CHECK: [[STATIC:%.*]] = call i32 @llvm.amdgcn.groupstaticsize()
; CHECK-NEXT: [[PKT:%.*]] = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
; CHECK-NEXT: [[FIELD:%.*]] = getelementptr inbounds i8, ptr addrspace(4) [[PKT]], i64 28
; CHECK-NEXT: [[GROUP:%.*]] = load i32, ptr addrspace(4) [[FIELD]], align 4
; CHECK-NEXT: sub i32 [[GROUP]], [[STATIC]]
; CHECK: getelementptr i32, ptr addrspace(3) @__ferry_dynamic_smem, i64 %t64
; The static 100 bytes are rounded up to the dynamic array's 16-byte alignment.
; ASM: .amdhsa_user_sgpr_dispatch_ptr 1
; ASM: .group_segment_fixed_size: 112
