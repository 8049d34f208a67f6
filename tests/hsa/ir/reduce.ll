; Shared-memory tree reduction with barriers: 256 floats of static shared
; memory (1024 bytes); params: in @0, out @8 (16 bytes).
@smem = internal addrspace(3) global [256 x float] poison, align 4

define void @reduce(ptr noalias dereferenceable(16) %params) {
entry:
  %pout = getelementptr i8, ptr %params, i64 8
  %in = load ptr, ptr %params, align 8
  %out = load ptr, ptr %pout, align 8
  %tid = call i32 @ferry.tid.x()
  %ctaid = call i32 @ferry.ctaid.x()
  %ntid = call i32 @ferry.ntid.x()
  %g = mul i32 %ctaid, %ntid
  %gi = add i32 %g, %tid
  %gi64 = zext i32 %gi to i64
  %src = getelementptr float, ptr %in, i64 %gi64
  %v = load float, ptr %src, align 4
  %t64 = zext i32 %tid to i64
  %slot = getelementptr [256 x float], ptr addrspace(3) @smem, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %slot, align 4
  call void @ferry.bar.sync(i32 0, i32 0)
  br label %loop
loop:
  %s = phi i32 [ 128, %entry ], [ %s2, %next ]
  %act = icmp ult i32 %tid, %s
  br i1 %act, label %add, label %next
add:
  %o = add i32 %tid, %s
  %o64 = zext i32 %o to i64
  %other = getelementptr [256 x float], ptr addrspace(3) @smem, i64 0, i64 %o64
  %x = load float, ptr addrspace(3) %other, align 4
  %y = load float, ptr addrspace(3) %slot, align 4
  %z = fadd float %x, %y
  store float %z, ptr addrspace(3) %slot, align 4
  br label %next
next:
  call void @ferry.bar.sync(i32 0, i32 0)
  %s2 = lshr i32 %s, 1
  %more = icmp ne i32 %s2, 0
  br i1 %more, label %loop, label %fin
fin:
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %write, label %done
write:
  %r = load float, ptr addrspace(3) @smem, align 4
  %c64 = zext i32 %ctaid to i64
  %dst = getelementptr float, ptr %out, i64 %c64
  store float %r, ptr %dst, align 4
  br label %done
done:
  ret void
}
declare i32 @ferry.tid.x()
declare i32 @ferry.ctaid.x()
declare i32 @ferry.ntid.x()
declare void @ferry.bar.sync(i32, i32)
!ferry.kernels = !{!0}
!0 = !{ptr @reduce}

; bar.sync 0: workgroup release fence, s_barrier, workgroup acquire fence.
; CHECK-LABEL: define protected amdgpu_kernel void @reduce(
; CHECK: store float %v, ptr addrspace(3) %slot
; CHECK-NEXT: fence syncscope("workgroup") release
; CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
; CHECK-NEXT: fence syncscope("workgroup") acquire
; CHECK: next:
; CHECK-NEXT: fence syncscope("workgroup") release
; CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
; CHECK-NEXT: fence syncscope("workgroup") acquire
; CHECK-NOT: @ferry.
; ASM-LABEL: reduce:
; ASM: s_barrier
; ASM: s_barrier
; ASM: .group_segment_fixed_size: 1024
