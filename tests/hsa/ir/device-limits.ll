; __assertfail records itself in the module's __ferry_assert, then traps.
; .maxntid / .reqntid do not narrow the AMDGPU flat work-group size (more
; VGPRs would follow, which ferry's generic occupancy model reads as NVIDIA
; registers: 0 blocks per SM, and CUB divided by it); MAX_THREADS_PER_BLOCK
; comes from the SIMT IR instead (HsaOnSim.MaxntidIsTheReportedBlockLimit).
; params: out @0 (i32*): 8 bytes.
@msg = internal addrspace(1) constant [5 x i8] c"neg!\00"

define void @limited(ptr noalias %params) {
  %out = load ptr, ptr %params, align 8
  %t = call i32 @ferry.tid.x()
  store i32 %t, ptr %out, align 4
  ret void
}

define void @required(ptr noalias %params) {
  %out = load ptr, ptr %params, align 8
  %t = call i32 @ferry.tid.x()
  %bad = icmp ugt i32 %t, 100
  br i1 %bad, label %fail, label %ok
fail:
  %m = addrspacecast ptr addrspace(1) @msg to ptr
  call void @ferry.assertfail(ptr %m, ptr %m, i32 7, ptr %m, i64 1)
  br label %ok
ok:
  store i32 %t, ptr %out, align 4
  ret void
}

define void @unlimited(ptr noalias %params) {
  %out = load ptr, ptr %params, align 8
  store i32 0, ptr %out, align 4
  ret void
}

declare i32 @ferry.tid.x()
declare void @ferry.assertfail(ptr, ptr, i32, ptr, i64)
!ferry.kernels = !{!0, !1, !2}
!0 = !{ptr @limited}
!1 = !{ptr @required}
!2 = !{ptr @unlimited}
!ferry.directives = !{!3, !4}
!3 = !{ptr @limited, !"maxntid", i32 128, i32 1, i32 1}
!4 = !{ptr @required, !"reqntid", i32 32, i32 2, i32 1}

; CHECK: @__ferry_assert = protected addrspace(1) global [8 x i64] zeroinitializer, align 8
; CHECK-LABEL: define protected amdgpu_kernel void @limited(
; CHECK-LABEL: define protected amdgpu_kernel void @required(
; The first failing thread claims the record, fills it, publishes it (2).
; CHECK: cmpxchg ptr addrspace(1) @__ferry_assert, i64 0, i64 1 monotonic monotonic
; CHECK: store i64 7, ptr addrspace(1) getelementptr inbounds ([8 x i64], ptr addrspace(1) @__ferry_assert, i32 0, i32 4)
; CHECK: fence syncscope("agent") release
; CHECK: store i64 2, ptr addrspace(1) @__ferry_assert
; CHECK: call void @llvm.trap()
; CHECK-LABEL: define protected amdgpu_kernel void @unlimited(
; CHECK-NOT: "amdgpu-flat-work-group-size"="1,128"
; CHECK-NOT: "amdgpu-flat-work-group-size"="64,64"
