; Precise math through ocml, exit from a device function, geometry, clock,
; trap. params: out @0 (double*), x @8 (double), n @16 (i32): 20 bytes.
define internal void @maybe_exit(i32 %t) {
  %stop = icmp ugt i32 %t, 100
  br i1 %stop, label %bye, label %cont
bye:
  call void @ferry.exit()
  unreachable
cont:
  ret void
}

define void @misc(ptr noalias %params) {
entry:
  %px = getelementptr i8, ptr %params, i64 8
  %pn = getelementptr i8, ptr %params, i64 16
  %out = load ptr, ptr %params, align 8
  %x = load double, ptr %px, align 8
  %n = load i32, ptr %pn, align 4
  %tid = call i32 @ferry.tid.x()
  call void @maybe_exit(i32 %tid)
  %s = call double @llvm.sin.f64(double %x)
  %xf = fptrunc double %x to float
  %p = call float @llvm.pow.f32(float %xf, float 2.5)
  %pd = fpext float %p to double
  %sum = fadd double %s, %pd
  %w = call i32 @ferry.warpid()
  %c = call i64 @ferry.clock64()
  %w64 = zext i32 %w to i64
  %slot = getelementptr double, ptr %out, i64 %w64
  store double %sum, ptr %slot, align 8
  %cp = getelementptr i64, ptr %out, i64 100
  store i64 %c, ptr %cp, align 8
  %bad = icmp eq i32 %n, 0
  br i1 %bad, label %trap, label %done
trap:
  call void @ferry.trap()
  unreachable
done:
  ret void
}
declare i32 @ferry.tid.x()
declare i32 @ferry.warpid()
declare i64 @ferry.clock64()
declare void @ferry.exit()
declare void @ferry.trap()
declare double @llvm.sin.f64(double)
declare float @llvm.pow.f32(float, float)
!ferry.kernels = !{!0}
!0 = !{ptr @misc}

; The ocml control constants, defined per target (ISA version as ROCm's
; oclc_isa_version_NNN files number it: gfx90a = 9010, gfx942 = 9402).
; G942: @__oclc_ISA_version = internal {{.*}}constant i32 9402
; G90A: @__oclc_ISA_version = internal {{.*}}constant i32 9010
; CHECK-LABEL: define protected amdgpu_kernel void @misc(
; exit in an inlined device function returns from the kernel.
; CHECK: bye.i:
; CHECK-NEXT: ret void
; CHECK-NOT: @llvm.sin.f64
; CHECK: call double @__ocml_sin_f64(double %x)
; CHECK: call float @__ocml_pow_f32(float %xf, float 2.500000e+00)
; %warpid = linear thread id / 32
; CHECK: lshr i32 %ltid, 5
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK: call void @llvm.trap()
; CHECK-NOT: call {{.*}}@ferry.
; ocml is linked in and internal.
; CHECK: define internal {{.*}}double @__ocml_sin_f64(
